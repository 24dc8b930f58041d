// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: every uaevents event to the systemd journal, then rescans and hook scripts.
 *
 * One sd-event loop: the libuaevents monitor (or, without the module, the stock kernel's
 * SDEV_UA= and NVME_AEN= uevents through libudev), signals, rescan and hook children.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/epoll.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <systemd/sd-journal.h>

#include "libuaevents.h"
#include "children.h"
#include "config.h"
#include "event.h"
#include "floods.h"
#include "handoff.h"
#include "hooks.h"
#include "log.h"
#include "message_ids.h"
#include "owed.h"
#include "metrics.h"
#include "rescan.h"
#include "stack-fields.h"
#include "state.h"
#include "sysfs.h"
#include "trust.h"

static const struct uae_message_id *message_id_for(struct uae_event *ev)
{
	const struct uae_message_id *fallback = NULL;

	for (size_t i = 0; i < sizeof(uae_message_ids) / sizeof(uae_message_ids[0]); i++) {
		const struct uae_message_id *m = &uae_message_ids[i];

		if (m->kind != uae_event_get_kind(ev))
			continue;
		if (!m->event)
			fallback = m;
		else if (strcmp(m->event, uae_event_get_name(ev)) == 0)
			return m;
	}
	return fallback;
}

/*
 * Errors: fatal ones are errors, retryable ones warnings.  NVMe asynchronous events by
 * class: an error event is an error, a SMART warning critical, anything else a notice.
 */
static int priority_of(const struct uae_message_id *mid, struct uae_event *ev)
{
	const char *class = uae_event_get_aen_class(ev);

	if (mid->priority >= 0)
		return mid->priority;
	/* A path's ANA state: a warning when I/O cannot use it, a notice otherwise. */
	if (uae_event_get_kind(ev) == UAE_EVENT_ANA) {
		const char *state = uae_event_get_ana_state(ev) ?: "";

		return !strcmp(state, "inaccessible") || !strcmp(state, "persistent-loss") ?
		       LOG_WARNING : LOG_NOTICE;
	}
	if (class)
		return !strcmp(class, "error") ? LOG_ERR : !strcmp(class, "smart") ? LOG_CRIT :
		       LOG_NOTICE;
	return strcmp(uae_event_get_severity(ev), "fatal") == 0 ? LOG_ERR : LOG_WARNING;
}

/*
 * A changed namespace list's IDs, "1, 2, 7 and 3 more", or "more than the log can list";
 * "" for an event without one.
 */
static void format_nsids(struct uae_event *ev, const char *sep, char *buf, size_t size)
{
	const uint32_t *nsids;
	unsigned int count;
	int listed = uae_event_get_nvme_nsids(ev, &nsids, &count);
	size_t n = 0;

	buf[0] = '\0';
	if (listed == -EOVERFLOW) {
		snprintf(buf, size, "more than the log can list");
		return;
	}
	for (unsigned int i = 0; i < count && n < size; i++)
		n += snprintf(buf + n, size - n, "%s%" PRIu32, i ? sep : "", nsids[i]);
	if (listed > (int)count && n < size)
		snprintf(buf + n, size - n, " and %u more", listed - count);
}

/*
 * "nvme0: NVMe asynchronous event NVME_ANA_CHANGE (notice 03h, log page 0Ch): ...": what
 * the controller said, and what the driver does about it by itself.
 */
static int format_aen(struct uae_event *ev, char *buf, size_t size)
{
	const char *ctrl = uae_event_get_nvme_controller(ev), *name = uae_event_get_name(ev);
	uint32_t result = uae_event_get_aen_result(ev);
	const char *what = "";

	if (!strcmp(name, "NVME_CHANGED_NAMESPACE_LIST")) {
		char ids[256];

		format_nsids(ev, ", ", ids, sizeof(ids));
		return snprintf(buf, size, "%s: NVMe namespaces changed: %s (the changed "
				"namespace list the NVMe driver read); it rescans them itself",
				ctrl ? ctrl : "unknown NVMe controller", ids);
	}
	if (!strcmp(name, "NVME_NAMESPACE_ATTRIBUTE_CHANGED"))
		what = "; the NVMe driver rescans the controller's namespaces itself";
	else if (!strcmp(name, "NVME_ANA_CHANGE"))
		what = "; the NVMe driver reads the new ANA states and routes I/O itself";
	else if (!strcmp(name, "NVME_FIRMWARE_ACTIVATION_STARTING"))
		what = "; the controller pauses I/O while it activates new firmware";
	return snprintf(buf, size, "%s: NVMe asynchronous event %s (%s %02Xh, log page %02Xh)%s",
			ctrl ? ctrl : "unknown NVMe controller", name, uae_event_get_aen_class(ev),
			(unsigned int)(result >> 8) & 0xff, uae_event_get_aen_log_page(ev), what);
}

/*
 * "sdb [2:0:0:1]: unit attention CAPACITY DATA HAS CHANGED (ASC/ASCQ 2Ah/09h) behind
 * /srv/data (ext4 on vg0/data on mpatha)": what the LU holds up, where it is known.
 */
static void format_message(struct uae_event *ev, struct uae_stack *stack, char *buf, size_t size)
{
	const char *devname = uae_event_get_devname(ev);
	const char *desc = uae_event_get_description(ev);
	/* Where: the SCSI address, or the NVMe controller. */
	const char *where = uae_event_get_nvme_controller(ev) ?: uae_event_get_hctl(ev);
	int n;

	if (uae_event_get_kind(ev) == UAE_EVENT_AEN)
		n = format_aen(ev, buf, size);
	else if (uae_event_get_kind(ev) == UAE_EVENT_ANA)
		n = snprintf(buf, size, "%s: NVMe ANA group %d is %s through this controller "
			     "(path)", where, uae_event_get_ana_group(ev),
			     uae_event_get_ana_state(ev) ?: "in an unknown state");
	else
		n = snprintf(buf, size, "%s%s[%s]: ", devname ? devname : "", devname ? " " : "",
			     where);
	switch (uae_event_get_kind(ev)) {
	case UAE_EVENT_AEN:
	case UAE_EVENT_ANA:
		break;
	case UAE_EVENT_UA:
		n += snprintf(buf + n, size - n, "unit attention %s",
			      desc ? desc : uae_event_get_name(ev));
		break;
	case UAE_EVENT_TIMEOUT:
		n += snprintf(buf + n, size - n, "command %02Xh timed out",
			      uae_event_get_opcode(ev));
		break;
	default:
		/* A failed NVMe request whose status the module could not read: not classified. */
		if (uae_event_get_class_rule(ev) == 0) {
			n += snprintf(buf + n, size - n, "%s error, %s (not classified)",
				      uae_event_get_kind(ev) == UAE_EVENT_SGIO ? "SG_IO command" :
				      "I/O", desc ? desc : uae_event_get_name(ev));
			break;
		}
		n += snprintf(buf + n, size - n, "%s %s %s error, %s (another path %s)",
			      uae_event_get_kind(ev) == UAE_EVENT_SGIO ? "SG_IO command" : "I/O",
			      uae_event_get_severity(ev), uae_event_get_locus(ev),
			      desc ? desc : uae_event_get_name(ev),
			      uae_event_get_failover(ev) ? "may help" : "does not help");
		break;
	}
	if (uae_event_has_sense(ev) && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, " (ASC/ASCQ %02Xh/%02Xh)",
			      uae_event_get_asc(ev), uae_event_get_ascq(ev));
	if (stack && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, uae_stack_is_empty(stack) ? "; nothing above it" :
			      " behind %s", uae_stack_get_summary(stack));
	if (uae_event_get_repeat(ev) > 1 && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, ", %u times", uae_event_get_repeat(ev));
	if ((uae_event_get_flags(ev) & UAE_EVENT_FLAG_SUMMARY) && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, " on this and other devices of its host (more "
			      "devices failed at once than the module follows one by one)");
	if ((uae_event_get_flags(ev) & UAE_EVENT_FLAG_INJECTED) && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - n, " [injected test event]");
}

/* A changed namespace list: UAEVENTS_NVME_NSIDS "1 2 7", UAEVENTS_NVME_NSIDS_LISTED. */
static void nsid_fields(struct uaed_fields *f, struct uae_event *ev)
{
	const uint32_t *nsids;
	unsigned int count;
	int listed = uae_event_get_nvme_nsids(ev, &nsids, &count);
	char ids[UAE_NVME_NSIDS_MAX * 11 + 1] = "", buf[16];
	size_t n = 0;

	if (listed == -ENODATA)
		return;
	for (unsigned int i = 0; i < count; i++)
		n += snprintf(ids + n, sizeof(ids) - n, "%s%" PRIu32, i ? " " : "", nsids[i]);
	uaed_fields_add(f, "UAEVENTS_NVME_NSIDS", ids);
	snprintf(buf, sizeof(buf), "%d", listed);
	uaed_fields_add(f, "UAEVENTS_NVME_NSIDS_LISTED", listed < 0 ? "more" : buf);
}

/*
 * An NVMe event's own fields: UAEVENTS_TRANSPORT=nvme, UAEVENTS_NVME_CONTROLLER; a failed
 * request's UAEVENTS_NVME_STATUS; an asynchronous event's UAEVENTS_AEN_RESULT,
 * UAEVENTS_AEN_CLASS and UAEVENTS_LOG_PAGE.
 */
static void nvme_fields(struct uaed_fields *f, struct uae_event *ev)
{
	uint32_t result = uae_event_get_aen_result(ev);
	char buf[16];

	uaed_fields_add(f, "UAEVENTS_TRANSPORT", uae_event_get_transport(ev));
	if (uae_event_get_nvme_controller(ev))
		uaed_fields_add(f, "UAEVENTS_NVME_CONTROLLER", uae_event_get_nvme_controller(ev));
	if (uae_event_get_nvme_status(ev) >= 0) {
		snprintf(buf, sizeof(buf), "0x%04x", (unsigned int)uae_event_get_nvme_status(ev));
		uaed_fields_add(f, "UAEVENTS_NVME_STATUS", buf);
	}
	if (uae_event_get_kind(ev) == UAE_EVENT_ANA) {
		snprintf(buf, sizeof(buf), "%d", uae_event_get_ana_group(ev));
		uaed_fields_add(f, "UAEVENTS_ANA_GROUP", buf);
		uaed_fields_add(f, "UAEVENTS_ANA_STATE", uae_event_get_ana_state(ev));
	}
	if (uae_event_get_kind(ev) != UAE_EVENT_AEN)
		return;
	snprintf(buf, sizeof(buf), "0x%06" PRIx32, result);
	uaed_fields_add(f, "UAEVENTS_AEN_RESULT", buf);
	uaed_fields_add(f, "UAEVENTS_AEN_CLASS", uae_event_get_aen_class(ev));
	snprintf(buf, sizeof(buf), "0x%02x", uae_event_get_aen_log_page(ev));
	uaed_fields_add(f, "UAEVENTS_LOG_PAGE", buf);
	nsid_fields(f, ev);
}

/* @stack: what sits above its LU, or NULL with why it is not known (@stack_err). */
static int log_event(struct uae_event *ev, struct uaed_floods *floods, struct uae_stack *stack,
		     int stack_err)
{
	const struct uae_message_id *mid = message_id_for(ev);
	const char *devname = uae_event_get_devname(ev), *wwid = uae_event_get_wwid(ev);
	int priority = priority_of(mid, ev);
	struct uaed_fields fields = { 0 };
	char message[1024];
	int r;

	/* A space condition's repeat on a LU in its target's window: summarized (floods.h). */
	if (!uaed_floods_note(floods, uae_event_get_name(ev), uae_event_get_hctl(ev), wwid,
			      priority))
		priority = LOG_NOTICE;
	format_message(ev, stack, message, sizeof(message));
	if (uae_event_get_transport(ev) && !strcmp(uae_event_get_transport(ev), "nvme"))
		nvme_fields(&fields, ev);
	/* A controller has no stack of its own. */
	if (uae_event_get_kind(ev) != UAE_EVENT_AEN && uae_event_get_kind(ev) != UAE_EVENT_ANA)
		uaed_stack_fields(&fields, stack, stack_err);
	r = uaed_journal_send(
		"MESSAGE=%s", message,
		"MESSAGE_ID=%s", mid->id,
		"PRIORITY=%d", priority,
		"SYSLOG_IDENTIFIER=uaeventd",
		"UAEVENTS_KIND=%s", uae_event_get_kind_name(ev),
		"UAEVENTS_EVENT=%s", uae_event_get_name(ev),
		"UAEVENTS_CATEGORY=%s", uae_event_get_category(ev),
		"UAEVENTS_DEVICE=%s", devname ? devname : "",
		"UAEVENTS_HCTL=%s", uae_event_get_hctl(ev),
		"UAEVENTS_WWID=%s", wwid ? wwid : "",
		"UAEVENTS_SENSE_KEY=0x%02x", uae_event_get_sense_key(ev),
		"UAEVENTS_ASC=0x%02x", uae_event_get_asc(ev),
		"UAEVENTS_ASCQ=0x%02x", uae_event_get_ascq(ev),
		"UAEVENTS_REPEAT=%u", uae_event_get_repeat(ev),
		"UAEVENTS_SEVERITY=%s", uae_event_get_severity(ev),
		"UAEVENTS_LOCUS=%s", uae_event_get_locus(ev),
		"UAEVENTS_FAILOVER=%d", uae_event_get_failover(ev),
		"UAEVENTS_SEQ=%" PRIu64, uae_event_get_seq(ev),
		"UAEVENTS_INSTANCE=%016" PRIx64, uae_event_get_instance(ev),
		"UAEVENTS_TIMESTAMP_NS=%" PRIu64, uae_event_get_timestamp_ns(ev),
		"UAEVENTS_SOURCE=%s", !(uae_event_get_flags(ev) & UAE_EVENT_FLAG_STOCK) ?
				      "uaevents" : uae_event_get_kind(ev) == UAE_EVENT_AEN ?
				      "nvme_aen" : "sdev_ua",
		"UAEVENTS_INJECTED=%d", !!(uae_event_get_flags(ev) & UAE_EVENT_FLAG_INJECTED),
		"UAEVENTS_SUMMARY=%d", !!(uae_event_get_flags(ev) & UAE_EVENT_FLAG_SUMMARY),
		UAED_FIELDS, &fields,
		NULL);
	uaed_fields_free(&fields);
	return r < 0 ? r : 0;
}

/* Events that could be neither delivered nor replayed: logged once, with their number. */
static int log_gap(struct uae_event *ev)
{
	const struct uae_message_id *mid = message_id_for(ev);

	return sd_journal_send("MESSAGE=%" PRIu64 " events lost from sequence number %" PRIu64
			       " on; they could not be replayed", uae_event_get_gap(ev),
			       uae_event_get_seq(ev),
			       "MESSAGE_ID=%s", mid->id,
			       "PRIORITY=%d", mid->priority,
			       "SYSLOG_IDENTIFIER=uaeventd",
			       "UAEVENTS_KIND=gap",
			       "UAEVENTS_GAP=%" PRIu64, uae_event_get_gap(ev),
			       "UAEVENTS_SEQ=%" PRIu64, uae_event_get_seq(ev),
			       "UAEVENTS_INSTANCE=%016" PRIx64, uae_event_get_instance(ev),
			       NULL);
}

#define DEFAULT_CONFIG "/etc/uaevents/uaeventd.conf"
/*
 * The exit status when the daemon cannot run as configured (systemd's EXIT_CONFIGURATION,
 * sysexits' EX_CONFIG): the unit's RestartPreventExitStatus= keeps systemd from retrying
 * what cannot work, so the error is logged once and the unit is failed.
 */
#define EXIT_CONFIG 78

/*
 * Messages handled in one turn of the event loop.  Under a storm that lasts minutes the
 * watchdog, hooks' and rescans' exits and timers still get their turn: what is left keeps
 * the monitor's fd readable, and the next turn goes on with it.
 */
#define BATCH 256

struct daemon {
	const char *config_path;
	struct uaed_config cfg;
	sd_event *loop;
	struct uae_monitor *monitor;
	sd_event_source *monitor_source;
	sd_event_source *retry;	/* subscribing again after the monitor failed */
	bool subscribe_failing;	/* said once, until subscribing works again */
	struct uaed_hooks *hooks;
	struct uaed_rescan *rescan;
	struct uaed_floods *floods;
	struct uae_stack_cache *stacks;	/* the mount and swap tables, read on change */
	struct uaed_metrics *metrics;	/* NULL: off (no textfile directory) */
	struct uaed_state state;
	bool state_dirty;	/* to be written within a second (the module's events) */
	bool save_now;		/* to be written at the end of this turn (owed.h) */
	unsigned int unsaved;	/* module events handled since the last write */
	unsigned int history_size;	/* the module's, when subscribed */
	/* What the state file's owed work was written from (owed.h): rewritten on change. */
	uint64_t rescan_changes, hooks_changes;
	sd_event_source *save_timer;	/* work done: written within a second */
	/*
	 * The last event whose actions were handed out (to owed work, or none was due): kept
	 * with the owed work, apart from the state, which stays behind an event journald
	 * could not take.
	 */
	struct uaed_state acted;
	/*
	 * Events up to here (of the state's instance) are in the journal already, logged by
	 * an instance killed before its state file said so: replayed for their actions, not
	 * logged twice.
	 */
	uint64_t logged_through;
	uint64_t logged_instance;	/* the instance logged_through is of */
	bool state_failing;	/* the last save failed: said once, until one works again */
	/*
	 * An event could not be logged (journald gone): the state stays before it from then
	 * on, so that the next start replays it.  Later events may then be logged twice,
	 * never lost.
	 */
	bool journal_failed;
};

static void act_on(struct daemon *d, struct uaed_event *e)
{
	uint64_t took;

	/*
	 * Stock uevents carry no WWID of their own; rescans need it.  An NVMe event calls for
	 * no rescan (the NVMe driver rescans and follows ANA states itself): only a SMART /
	 * health event for the read of its log (nvme-health.c).
	 */
	if (!e->nvme_ctrl[0] && e->hctl[0]) {
		if (!e->wwid[0])
			uaed_sysfs_read(e->hctl, "wwid", e->wwid, sizeof(e->wwid));
		uaed_rescan_event(d->rescan, e);
	} else if (e->nvme_ctrl[0]) {
		uaed_rescan_event(d->rescan, e);
	}
	/*
	 * A space condition's alert once per hook, LU path and flood window (floods.h): a
	 * full pool fails every write, about one event a second per LU, and a hook that took
	 * the alert gets UAEVENTS_FLOOD_REPEAT=1 for the rest.
	 */
	took = uaed_floods_hooked(d->floods, e->name, e->hctl);
	took = uaed_hooks_run(d->hooks, e, took);
	uaed_floods_add_hooked(d->floods, e->name, e->hctl, took);
}

static void from_module_event(struct uae_event *ev, struct uaed_event *e)
{
	const char *s;

	memset(e, 0, sizeof(*e));
	e->ev = ev;
	snprintf(e->kind, sizeof(e->kind), "%s", uae_event_get_kind_name(ev));
	snprintf(e->name, sizeof(e->name), "%s", uae_event_get_name(ev));
	snprintf(e->category, sizeof(e->category), "%s", uae_event_get_category(ev));
	e->host = uae_event_get_host(ev);
	e->channel = uae_event_get_channel(ev);
	e->target = uae_event_get_target(ev);
	e->lun = uae_event_get_lun(ev);
	snprintf(e->hctl, sizeof(e->hctl), "%s", uae_event_get_hctl(ev));
	/* An NVMe event's controller, "unknown" when the module could not tell it. */
	s = uae_event_get_nvme_controller(ev);
	if (uae_event_get_transport(ev) && !strcmp(uae_event_get_transport(ev), "nvme"))
		snprintf(e->nvme_ctrl, sizeof(e->nvme_ctrl), "%s", s ? s : "unknown");
	s = uae_event_get_devname(ev);
	snprintf(e->devname, sizeof(e->devname), "%s", s ? s : "");
	s = uae_event_get_wwid(ev);
	snprintf(e->wwid, sizeof(e->wwid), "%s", s ? s : "");
}

/* The library followed the module as it went or came (UAE_EVENT_MODULE). */
static void log_module(struct uae_event *ev)
{
	const char *name = uae_event_get_name(ev);
	bool loaded = !strcmp(name, "MODULE_LOADED");
	uint64_t instance = uae_event_get_instance(ev);

	if (!strcmp(name, "MODULE_MISSED")) {
		uaed_log_action(LOG_WARNING, "module-missed",
				"MESSAGE=uaeventd: %" PRIu32 " instance(s) of the uaevents module "
				"were loaded and unloaded before uaeventd could subscribe; their "
				"events, if any, are lost", uae_event_get_repeat(ev),
				"UAEVENTS_MISSED=%" PRIu32, uae_event_get_repeat(ev));
		return;
	}
	uaed_log_action(LOG_WARNING, "resubscribe",
			"MESSAGE=uaeventd: the uaevents module was %s (instance %016" PRIx64 ")%s",
			loaded ? "loaded" : "unloaded", instance,
			loaded ? "; subscribed, logging its events from its first" :
			"; falling back to the stock kernel's SDEV_UA and NVME_AEN uevents "
			"(fewer kinds and fields) until it is loaded again",
			"UAEVENTS_MODULE_INSTANCE=%016" PRIx64, instance);
}

/*
 * Whether the actions @ev calls for are still to be handed out: not when the state file
 * says an earlier run did (they are owed work there, or done), which a replay from an
 * older state meets after a journal failure.  Marks them handed out.
 */
static bool to_act_on(struct daemon *d, struct uae_event *ev)
{
	uint64_t instance = uae_event_get_instance(ev), seq = uae_event_get_seq(ev);

	if (uae_event_get_flags(ev) & UAE_EVENT_FLAG_STOCK) {
		/* Nothing replays it: the work it makes is written at once. */
		d->save_now = true;
		return true;
	}
	if (instance == d->acted.instance && seq <= d->acted.seq)
		return false;
	d->acted.instance = instance;
	d->acted.seq = seq;
	d->state_dirty = true;
	return true;
}

/* The multipath head's name of NVMe path disk @path ("nvme0c1n2": "nvme0n2"), if it is one. */
static bool nvme_head_of(const char *path, char *head, size_t size)
{
	unsigned int subsys, ctrl, ns;
	char end;

	if (sscanf(path, "nvme%uc%un%u%c", &subsys, &ctrl, &ns, &end) != 3)
		return false;
	return snprintf(head, size, "nvme%un%u", subsys, ns) < (int)size;
}

/*
 * What sits above the event's LU on this host, now: its block device's stack (by name, or
 * by its address when the event names none).  0, or why it is not known.
 */
static int stack_of(struct daemon *d, struct uae_event *ev, struct uae_stack **ret)
{
	const char *devname = uae_event_get_devname(ev), *wwid = uae_event_get_wwid(ev);
	char path[96], now[128], head[32];

	*ret = NULL;
	/* A controller has no stack of its own (its namespaces' disks do). */
	if (uae_event_get_kind(ev) == UAE_EVENT_AEN || uae_event_get_kind(ev) == UAE_EVENT_ANA)
		return -ENOTBLK;
	/*
	 * An NVMe path's disk ("nvme0c1n2", hidden) holds nothing up: the multipath head it
	 * serves ("nvme0n2") does.
	 */
	if (uae_event_get_nvme_controller(ev) && devname && nvme_head_of(devname, head, sizeof(head)))
		devname = head;
	/*
	 * A name is reused as LUs come and go: a replayed event's, or one that waited, may
	 * now be another LU's.  Its stack is that of the LU it came from, or unknown.
	 */
	if (devname && devname[0] && wwid && wwid[0]) {
		snprintf(path, sizeof(path), "/sys/class/block/%s/device/wwid", devname);
		/* As the module carries it: printable ASCII, anything else '_'; cut: unknown. */
		if (uaed_sysfs_readat(AT_FDCWD, path, now, sizeof(now)) == 0 &&
		    strlen(now) < sizeof(now) - 1) {
			for (char *c = now; *c; c++)
				if (*c < 0x20 || *c > 0x7e)
					*c = '_';
			if (strcmp(now, wwid))
				return -ESTALE;
		}
	}
	return uae_device_stack_new(d->stacks, devname && devname[0] ? devname :
				    uae_event_get_hctl(ev), 0, ret);
}

static void set_stack(struct uaed_event *e, struct uae_stack *stack)
{
	if (stack)
		snprintf(e->stack, sizeof(e->stack), "%s", uae_stack_get_summary(stack));
}

static void handle_event(struct daemon *d, struct uae_event *ev)
{
	struct uae_stack *stack = NULL;
	struct uaed_event e;
	int r, stack_err;
	bool act;

	if (uae_event_get_kind(ev) == UAE_EVENT_MODULE) {
		struct uae_kernel_stats ks = { .size = sizeof(ks) };

		/* Its history goes with it: what came before is written now. */
		d->save_now = true;
		/* The new one's may be of another size (history_size=); unknown: written at once. */
		d->history_size = !strcmp(uae_event_get_name(ev), "MODULE_LOADED") &&
				  uae_kernel_stats(&ks) == 0 ? ks.history_size : 0;
		log_module(ev);
		return;
	}
	d->unsaved++;
	act = to_act_on(d, ev) && uae_event_get_kind(ev) != UAE_EVENT_GAP &&
	      /* A test event, which anyone with CAP_SYS_ADMIN can make, moves nothing. */
	      (!(uae_event_get_flags(ev) & UAE_EVENT_FLAG_INJECTED) || d->cfg.act_on_injected);
	/* Of that instance only: a module loaded since numbers its events from 1 again. */
	if (!(uae_event_get_flags(ev) & UAE_EVENT_FLAG_STOCK) &&
	    uae_event_get_instance(ev) == d->logged_instance &&
	    uae_event_get_seq(ev) <= d->logged_through) {
		/* In the journal already, its count too; its actions, if any, were not handed out. */
		d->state.instance = uae_event_get_instance(ev);
		d->state.seq = uae_event_get_seq(ev);
		d->state_dirty = true;
		if (act) {
			from_module_event(ev, &e);
			stack_of(d, ev, &stack);
			set_stack(&e, stack);
			uae_stack_unref(stack);
			e.logged_earlier = true;
			/* Followed for its hooks' alerts, as if logged now (floods.h). */
			uaed_floods_note(d->floods, e.name, e.hctl, e.wwid, LOG_NOTICE);
			act_on(d, &e);
		}
		return;
	}
	stack_err = uae_event_get_kind(ev) == UAE_EVENT_GAP ? 0 : stack_of(d, ev, &stack);
	r = uae_event_get_kind(ev) == UAE_EVENT_GAP ? log_gap(ev) :
	    log_event(ev, d->floods, stack, stack_err);
	if (r < 0 && !d->journal_failed) {
		/* Not through the journal, which just failed: the unit's stderr, the console. */
		fprintf(stderr, "uaeventd: cannot write event %" PRIu64 " of %016" PRIx64 " to the "
			"journal: %s; the state stays before it until a restart, which replays "
			"it (events after it may then be logged twice)\n", uae_event_get_seq(ev),
			uae_event_get_instance(ev), strerror(-r));
		d->journal_failed = true;
	}
	if (uae_event_get_kind(ev) == UAE_EVENT_GAP) {
		uaed_metrics_lost(d->metrics, uae_event_get_gap(ev));
		return;
	}
	from_module_event(ev, &e);
	set_stack(&e, stack);
	uae_stack_unref(stack);
	/* Counted whether or not it is acted on: the journal has every one too. */
	uaed_metrics_event(d->metrics, &e, uae_event_get_repeat(ev) ?: 1);
	/* Stock uevents have no sequence numbers: nothing to remember. */
	if (!(uae_event_get_flags(ev) & UAE_EVENT_FLAG_STOCK) && !d->journal_failed) {
		d->state.instance = uae_event_get_instance(ev);
		d->state.seq = uae_event_get_seq(ev);
		d->state_dirty = true;
	}
	if (act)
		act_on(d, &e);
}

/*
 * When on_turn() says so: where the journal stands and what work is owed, in one file
 * replaced atomically, for the next start.
 */
static void save_state(struct daemon *d)
{
	uint64_t rescan_changes = uaed_rescan_changes(d->rescan);
	uint64_t hooks_changes = uaed_hooks_changes(d->hooks);
	struct json_object *owed;
	int r;

	if (!d->state_dirty && rescan_changes == d->rescan_changes &&
	    hooks_changes == d->hooks_changes) {
		d->save_now = false;
		return;
	}
	owed = json_object_new_array();
	r = owed ? 0 : -ENOMEM;
	r = r ?: uaed_owed_meta(owed, &d->acted);
	r = r ?: uaed_rescan_owed(d->rescan, owed);
	r = r ?: uaed_hooks_owed(d->hooks, owed);
	if (r == 0)
		r = uaed_state_save(d->cfg.state_file, &d->state, owed);
	json_object_put(owed);
	/* One entry when saving starts to fail (disk full, read-only), one when it works again. */
	if (r < 0 && !d->state_failing)
		uaed_log_errno(LOG_ERR, r, "uaeventd: cannot write %s: %m; until it can, a restart "
			       "replays from the last state written", d->cfg.state_file);
	else if (r == 0 && d->state_failing)
		uaed_log(LOG_INFO, "uaeventd: %s written again", d->cfg.state_file);
	d->state_failing = r < 0;
	/* Failed: written again at the next change, or at exit. */
	d->state_dirty = r < 0;
	d->save_now = false;
	d->unsaved = 0;
	d->rescan_changes = rescan_changes;
	d->hooks_changes = hooks_changes;
}

static int on_save_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	save_state(userdata);
	return 0;
}

/*
 * After every turn of the loop.  A stock uevent handled, or the module going, is written
 * at once: nothing replays them.  The module's events and the work they add or finish are
 * written within a second: until then its history holds the events, and a restart after a
 * kill replays them from the state written last and hands their actions out again (their
 * entries, which journald has, are not logged twice).  Writing at every event would cost
 * the whole owed work and two fsyncs per event: the square of a storm's size (make bench,
 * figure 5).  Well before a storm could push unwritten events out of the history, they
 * are written at once too: after a turn that left events waiting, and once an eighth of
 * the history (less a turn's worth) is unwritten; with its size unknown, always.  What is
 * left: a module unloaded (or its history cleared) between a kill and the next start
 * takes the last second's actions with it, as that start says ("new-instance").
 */
static int on_turn(sd_event_source *s, void *userdata)
{
	struct daemon *d = userdata;
	int enabled = SD_EVENT_OFF;

	if (d->save_now || (d->state_dirty && d->unsaved + BATCH >= d->history_size / 8)) {
		save_state(d);
		return 0;
	}
	if (!d->state_dirty && uaed_rescan_changes(d->rescan) == d->rescan_changes &&
	    uaed_hooks_changes(d->hooks) == d->hooks_changes)
		return 0;
	sd_event_source_get_enabled(d->save_timer, &enabled);
	if (enabled == SD_EVENT_OFF) {
		sd_event_source_set_time_relative(d->save_timer, 1000000);
		sd_event_source_set_enabled(d->save_timer, SD_EVENT_ONESHOT);
	}
	return 0;
}

/*
 * Take up the work the last run owed (owed.h), before the events it missed are replayed:
 * each piece said, so that the journal shows why a scan or a hook ran with no event
 * before it.
 */
static void resume_owed(struct daemon *d)
{
	struct json_object *owed;
	unsigned int done = 0;
	bool this_boot;
	size_t n;
	int bad, meta;

	/* As it was: kept as it is while no module's events come (the stock uevents). */
	if (uaed_state_load(d->cfg.state_file, &d->state) < 0)
		memset(&d->state, 0, sizeof(d->state));

	bad = uaed_state_load_owed(d->cfg.state_file, &owed);
	if (bad == -ENOENT)
		return;
	if (bad < 0) {
		uaed_log_errno(LOG_ERR, bad, "uaeventd: cannot read %s: %m; work the last run "
			       "owed, if any, is not done", d->cfg.state_file);
		return;
	}
	if (bad > 0)
		uaed_log(LOG_ERR, "uaeventd: %d line(s) of %s are not owed work it can read; "
			 "that work is not done", bad, d->cfg.state_file);
	n = owed ? json_object_array_length(owed) : 0;
	/*
	 * The first piece says which boot the work is of, and how far events were acted on;
	 * without it (an older uaeventd's file) the work's boot is not known either.
	 */
	meta = n ? uaed_owed_meta_parse(json_object_array_get_idx(owed, 0), &d->acted) : -EINVAL;
	this_boot = meta == 0;
	for (size_t i = meta == -EINVAL ? 0 : 1; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(owed, i);
		char what[300] = "";
		int r;

		if (json_object_object_get_ex(o, "hook", NULL))
			r = uaed_hooks_resume(d->hooks, o, what, sizeof(what), this_boot);
		else
			r = uaed_rescan_resume(d->rescan, o, what, sizeof(what), this_boot);
		if (r < 0) {
			uaed_log_action(LOG_WARNING, "owed-dropped",
					"MESSAGE=uaeventd: %s, owed by the last run, is not done: %s",
					what[0] ? what : "a piece of work",
					r == -EPERM ? "the configuration no longer allows it" :
					r == -ENOENT ? "no such hook now" :
					r == -ENOBUFS ? "the hook queue is full" :
					r == -ESTALE ? "it is of an earlier boot, whose devices may "
					"have other names now (its event is in the journal)" :
					"it cannot be read", "UAEVENTS_JOB=%s", what);
			continue;
		}
		done++;
		uaed_log_action(LOG_NOTICE, "owed-resumed",
				"MESSAGE=uaeventd: %s, owed by the last run, is taken up again",
				what, "UAEVENTS_JOB=%s", what);
	}
	json_object_put(owed);
	if (done) {
		uaed_log(LOG_INFO, "uaeventd: %u piece(s) of work owed by the last run taken up",
			 done);
		d->save_now = true;
	}
}

static int on_monitor(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct daemon *d = userdata;
	struct uae_event *ev;
	unsigned int bad = 0, n = 0;
	int r = -EAGAIN;

	/* A malformed message is skipped, not the end of the batch: events wait behind it. */
	while (n++ < BATCH && ((r = uae_monitor_receive(d->monitor, &ev)) == 0 || r == -EBADMSG)) {
		if (r == -EBADMSG) {
			bad++;
			continue;
		}
		handle_event(d, ev);
		uae_event_unref(ev);
	}
	/*
	 * More wait (a storm): the history fills while uaeventd catches up, so what it
	 * handled is written now, not within the second (one write per batch).
	 */
	if (n > BATCH && d->state_dirty)
		d->save_now = true;
	if (bad)
		uaed_log(LOG_WARNING, "uaeventd: %u message(s) skipped: %s", bad,
			 uae_strerror(-EBADMSG));
	if (r != 0 && r != -EBADMSG && r != -EAGAIN && r != -EINTR) {
		/* Not from here: start_monitor() calls this, and resubscribing replaces it. */
		uaed_log_errno(LOG_ERR, r, "uaeventd: cannot receive events: %s; subscribing again",
			       uae_strerror(r));
		if (d->monitor_source)
			sd_event_source_set_enabled(d->monitor_source, SD_EVENT_OFF);
		sd_event_source_set_time_relative(d->retry, 0);
		sd_event_source_set_enabled(d->retry, SD_EVENT_ONESHOT);
	}
	return 0;
}

/* Replay what happened since the last event logged, by the state file and the journal. */
static int start_monitor(struct daemon *d)
{
	struct uae_kernel_stats ks = { .size = sizeof(ks) };
	struct uaed_state st;
	uint64_t since;
	int r;

	r = uae_monitor_new(&d->monitor);
	if (r < 0)
		return r;
	if (uae_monitor_is_fallback(d->monitor)) {
		uaed_log(LOG_WARNING, "uaeventd: the uaevents module is not loaded; "
			 "falling back to the stock kernel's SDEV_UA and NVME_AEN uevents "
			 "(fewer kinds and fields)");
		return sd_event_add_io(d->loop, &d->monitor_source, uae_monitor_get_fd(d->monitor),
				       EPOLLIN,
				       on_monitor, d);
	}
	r = uae_kernel_stats(&ks);
	if (r < 0)
		return r;
	d->history_size = ks.history_size;
	r = uaed_state_load(d->cfg.state_file, &st);
	/* Written while only the stock uevents came: no module event was logged yet. */
	if (r == 0 && st.instance == 0)
		r = -ENOENT;
	if (r == -ENOENT) {
		uaed_log(LOG_INFO, "uaeventd: no state yet; logging events from now on");
		d->state.instance = ks.instance;
		d->state.seq = ks.last_seq;
		d->save_now = true;
		return sd_event_add_io(d->loop, &d->monitor_source, uae_monitor_get_fd(d->monitor),
				       EPOLLIN,
				       on_monitor, d);
	}
	/*
	 * Unreadable or corrupt: taken for a first start, it would skip what happened while
	 * uaeventd was down.  Where it was is where its newest journal entries are (once
	 * journald has stored what a killed predecessor sent): the events after them are
	 * replayed, not the holes below them.  Without such an entry, from now on: a replay
	 * of the whole history would act on every event again.  The state is written anew.
	 */
	if (r < 0) {
		int bad = r;

		uaed_journal_sync(10 * 1000000ULL);
		st.instance = ks.instance;
		r = uaed_journal_newest_logged(ks.instance, &st.seq);
		if (r < 0) {
			st.seq = ks.last_seq;
			uaed_log_errno(LOG_WARNING, bad, "uaeventd: its state file %s cannot be "
				       "read (%m), and the journal has no entry of its for the "
				       "module's events: logging events from now on",
				       d->cfg.state_file);
		} else {
			uaed_log_errno(LOG_WARNING, bad, "uaeventd: its state file %s cannot be "
				       "read (%m); logging from event %" PRIu64 " on, after its "
				       "newest journal entries", d->cfg.state_file, st.seq + 1);
		}
		d->save_now = true;
	}
	/*
	 * Another instance: the module was reloaded (or the host rebooted) since uaeventd
	 * last ran; all of the new one's history is new to us, and what the old one raised
	 * after the state, if anything, went with it.  Said, not silent.
	 */
	since = st.instance == ks.instance ? st.seq : 0;
	if (st.instance != ks.instance)
		uaed_log_action(LOG_NOTICE, "new-instance",
				"MESSAGE=uaeventd: the uaevents module is a new instance (%016" PRIx64
				"; the state is at event %" PRIu64 " of %016" PRIx64 "): logging its "
				"events from its first; events the old instance raised after that, "
				"if any, were not seen", ks.instance, st.seq, st.instance);
	/* A timeout is said by the sync itself, once. */
	r = uaed_journal_sync(10 * 1000000ULL);
	if (r < 0 && r != -ETIMEDOUT)
		uaed_log_errno(LOG_WARNING, r, "uaeventd: cannot wait for journald to catch up "
			       "(%m): events a killed instance logged last may be logged again");
	/*
	 * Past the state, the journal may show events a killed instance logged: their
	 * actions were recorded nowhere, so they are replayed, and acted on, unlogged.
	 */
	d->logged_through = uaed_journal_logged_through(ks.instance, since);
	d->logged_instance = ks.instance;
	/* Past what the module has numbered: a corrupt state file; nothing after it is seen. */
	if (since > ks.last_seq) {
		uaed_log(LOG_WARNING, "uaeventd: the state says event %" PRIu64 " of "
			 "instance %016" PRIx64 " was logged, but the module is at %"
			 PRIu64 "; logging from there", since, ks.instance, ks.last_seq);
		since = ks.last_seq;
	}
	if (d->logged_through > ks.last_seq)
		d->logged_through = ks.last_seq;
	d->state.instance = ks.instance;
	d->state.seq = since;
	uaed_log(LOG_INFO, "uaeventd: replaying events after %016" PRIx64 "/%" PRIu64,
		 ks.instance, since);
	r = uae_monitor_replay(d->monitor, since);
	if (r < 0)
		return r;
	r = sd_event_add_io(d->loop, &d->monitor_source, uae_monitor_get_fd(d->monitor), EPOLLIN,
			    on_monitor, d);
	if (r >= 0)
		on_monitor(NULL, -1, 0, d);	/* what the replay queued */
	return r;
}

/*
 * The library follows the module as it is unloaded and loaded again (UAE_EVENT_MODULE).
 * What is left to the daemon is a monitor that failed (out of memory, the kernel refusing
 * a request): it subscribes again, every RETRY_S until it can.  Meanwhile the watchdog's
 * pings stop, so that systemd restarts a daemon that never can.
 */
#define RETRY_S 2

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;
	int r;

	d->monitor_source = sd_event_source_disable_unref(d->monitor_source);
	d->monitor = uae_monitor_unref(d->monitor);
	r = start_monitor(d);
	if (r < 0) {
		if (!d->subscribe_failing)
			uaed_log_errno(LOG_ERR, r, "uaeventd: cannot subscribe: %s; no events are "
				       "received, trying every %d s; the watchdog stops (systemd "
				       "restarts the service)", uae_strerror(r), RETRY_S);
		d->subscribe_failing = true;
		d->monitor_source = sd_event_source_disable_unref(d->monitor_source);
		d->monitor = uae_monitor_unref(d->monitor);
		sd_event_set_watchdog(d->loop, false);
		sd_event_source_set_time_relative(s, RETRY_S * 1000000ULL);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
		return 0;
	}
	uaed_log_action(LOG_WARNING, "resubscribe", "MESSAGE=uaeventd: subscribed again");
	d->subscribe_failing = false;
	sd_event_set_watchdog(d->loop, true);
	return 0;
}

/*
 * Tell the udev rules which targets uaeventd scans (handoff.h).  Under systemd the unit's
 * RuntimeDirectory= makes /run/uaevents and removes it when the daemon stops for good, after
 * a crash too (our clear at exit never runs then).  Without it libstoragemgmt's rule goes on
 * scanning too: say so.
 */
static void apply_handoff(struct daemon *d)
{
	int r;

	if (d->cfg.rescan && mkdir("/run/uaevents", 0755) < 0 && errno != EEXIST)
		r = -errno;
	else
		r = uaed_handoff_apply(UAED_HANDOFF_DIR, &d->cfg);
	if (r < 0)
		uaed_log_errno(LOG_ERR, r, "uaeventd: cannot update %s: %m: udev rules that scan "
			       "on LUN changes (libstoragemgmt's) may scan what uaeventd scans, or "
			       "stand down for targets it no longer scans", UAED_HANDOFF_DIR);
}

/* resize_command runs as root, by its path: refused, and said, unless root's alone. */
static void check_resize_command(struct uaed_config *cfg)
{
	char which[512];
	const char *why;

	if (!cfg->resize_command[0])
		return;
	why = uaed_unsafe_command(cfg->resize_command, which, sizeof(which));
	if (!why)
		return;
	uaed_log_action(LOG_ERR, "resize-refused",
			"MESSAGE=uaeventd: resize_command %s refused: %s %s; no resize command "
			"runs until it is fixed and the configuration reloaded",
			cfg->resize_command, which, why);
	cfg->resize_command[0] = '\0';
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct daemon *d = userdata;
	struct uaed_config cfg;

	if (uaed_config_load(&cfg, d->config_path) < 0) {
		uaed_log(LOG_ERR, "uaeventd: %s is bad; keeping the old configuration",
			 d->config_path);
		return 0;
	}
	check_resize_command(&cfg);
	d->cfg = cfg;
	uaed_hooks_scan(d->hooks, &d->cfg);
	/* The hooks are numbered anew: a space alert is made again rather than missed. */
	uaed_floods_forget_hooks(d->floods);
	apply_handoff(d);
	uaed_log(LOG_INFO, "uaeventd: configuration reloaded");
	return 0;
}

/* stderr is connected to the journal (systemd sets JOURNAL_STREAM=device:inode). */
/* Each step's failure said on its own, once. */
static int set_up(struct daemon *d)
{
	static const int signals[] = { SIGTERM, SIGINT, SIGHUP };
	int r;

	r = sd_event_default(&d->loop);
	if (r < 0)
		return uaed_log_fatal_errno(r, "uaeventd: cannot create its event loop: %m");
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		sd_event_source *s;

		/* Without a handler, sd-event exits the loop with the userdata as exit code. */
		r = sd_event_add_signal(d->loop, &s, signals[i],
					signals[i] == SIGHUP ? on_sighup : NULL,
					signals[i] == SIGHUP ? d : NULL);
		/*
		 * A stop signals the unit's children too: their exits must not be taken for
		 * work done (it is owed, and the next start does it), so the stop goes first.
		 */
		if (r >= 0)
			r = sd_event_source_set_priority(s, SD_EVENT_PRIORITY_IMPORTANT);
		if (r >= 0)
			r = sd_event_source_set_floating(s, true);
		sd_event_source_unref(s);
		if (r < 0)
			return uaed_log_fatal_errno(r, "uaeventd: cannot handle %s: %m",
						    strsignal(signals[i]));
	}
	/* After every turn of the loop: the state file, if anything it holds changed. */
	r = sd_event_add_post(d->loop, NULL, on_turn, d);
	if (r >= 0)
		r = sd_event_add_time_relative(d->loop, &d->save_timer, CLOCK_MONOTONIC, 1000000,
					       0, on_save_timer, d);
	if (r >= 0)
		r = sd_event_source_set_enabled(d->save_timer, SD_EVENT_OFF);
	if (r < 0)
		return uaed_log_fatal_errno(r, "uaeventd: cannot set up its state writes: %m");
	r = sd_event_set_watchdog(d->loop, true);
	if (r < 0)
		return uaed_log_fatal_errno(r, "uaeventd: cannot set up the watchdog: %m");
	/* Before any child: hooks and rescan jobs each get a cgroup of their own. */
	uaed_children_setup(d->loop);
	r = uaed_hooks_new(&d->hooks, d->loop);
	if (r < 0)
		return uaed_log_fatal_errno(r, "uaeventd: cannot set up hooks: %m");
	r = uaed_rescan_new(&d->rescan, d->loop, &d->cfg);
	if (r < 0)
		return uaed_log_fatal_errno(r, "uaeventd: cannot set up rescans: %m");
	r = uaed_floods_new(&d->floods, d->loop);
	if (r < 0)
		return uaed_log_fatal_errno(r, "uaeventd: cannot set up summaries: %m");
	/* Without it each event's stack reads the mount table itself: slower, as right. */
	r = uae_stack_cache_new(&d->stacks);
	if (r < 0)
		uaed_log_errno(LOG_ERR, r, "uaeventd: cannot set up the device stack cache: %m");
	/* Metrics are for a fleet's dashboards: without them the events still flow. */
	r = uaed_metrics_new(&d->metrics, d->loop, d->cfg.metrics_dir);
	if (r < 0)
		uaed_log_errno(LOG_ERR, r, "uaeventd: cannot set up metrics: %m; none are written");
	uaed_rescan_set_metrics(d->rescan, d->metrics);
	uaed_hooks_scan(d->hooks, &d->cfg);
	resume_owed(d);

	/* Armed when the monitor fails (on_monitor). */
	r = sd_event_add_time_relative(d->loop, &d->retry, CLOCK_MONOTONIC, 0, 0, on_retry, d);
	if (r >= 0)
		r = sd_event_source_set_enabled(d->retry, SD_EVENT_OFF);
	if (r < 0)
		return uaed_log_fatal_errno(r, "uaeventd: cannot set up its retry timer: %m");
	r = start_monitor(d);
	if (r < 0)
		return uaed_log_fatal_errno(r, "uaeventd: cannot subscribe: %s", uae_strerror(r));
	return 0;
}

int main(int argc, char **argv)
{
	struct daemon d = { .config_path = DEFAULT_CONFIG };
	sigset_t mask;
	int r, q;

	if (argc == 3 && strcmp(argv[1], "--config") == 0) {
		d.config_path = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "Usage: uaeventd [--config FILE]\n");
		return EXIT_FAILURE;
	}
	r = uaed_config_load(&d.cfg, d.config_path);
	if (r < 0) {
		uaed_log_fatal_errno(r, "uaeventd: cannot load %s: %m", d.config_path);
		return EXIT_CONFIG;
	}
	/*
	 * Without its state the daemon cannot tell, after a restart, which events of the
	 * module's history it logged already: it would log some twice or skip some.  Refuse
	 * to start, once and clearly, rather than fail on every event.
	 */
	r = uaed_state_check(d.cfg.state_file);
	if (r < 0) {
		uaed_log_fatal_errno(r, "uaeventd: cannot write its state file %s: %m; under "
				     "systemd the unit's StateDirectory=uaevents provides "
				     "/var/lib/uaevents, or set state_file in [daemon] of %s",
				     d.cfg.state_file, d.config_path);
		return EXIT_CONFIG;
	}

	check_resize_command(&d.cfg);

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	r = set_up(&d);
	if (r < 0)
		goto out;

	apply_handoff(&d);
	uaed_log(LOG_INFO, "uaeventd: listening for SCSI events%s",
		 d.cfg.rescan ? "" : " (observe only: no rescans)");
	sd_notify(0, "READY=1\nSTATUS=Listening for SCSI events");
	r = sd_event_loop(d.loop);
	sd_notify(0, "STOPPING=1");
	q = uaed_handoff_clear(UAED_HANDOFF_DIR);
	if (q < 0)
		uaed_log_errno(LOG_ERR, q, "uaeventd: cannot remove %s: %m; the unit's "
			       "RuntimeDirectory= removes it", UAED_HANDOFF_DIR);
	save_state(&d);
	uaed_metrics_flush(d.metrics);
out:
	sd_event_source_disable_unref(d.retry);
	sd_event_source_disable_unref(d.save_timer);
	sd_event_source_disable_unref(d.monitor_source);
	uaed_floods_free(d.floods);
	uae_stack_cache_unref(d.stacks);
	uaed_rescan_free(d.rescan);
	uaed_metrics_free(d.metrics);
	uaed_hooks_free(d.hooks);
	uae_monitor_unref(d.monitor);
	sd_event_unref(d.loop);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
