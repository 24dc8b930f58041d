// SPDX-License-Identifier: LGPL-2.1-or-later
/* uaectl monitor: a live stream of events, for people or (--json) for scripts. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "libuaevents.h"
#include "uaectl.h"

static void add_string(json_object *o, const char *key, const char *value)
{
	json_object_object_add(o, key, value ? json_object_new_string(value) : NULL);
}

/*
 * A changed namespace list: "nsids" the IDs the event carries, "nsids_listed" how many the
 * log listed (-1: more than it can hold).
 */
static void add_nsids(json_object *o, struct uae_event *ev)
{
	const uint32_t *nsids;
	unsigned int count;
	int listed = uae_event_get_nvme_nsids(ev, &nsids, &count);
	json_object *a;

	if (listed == -ENODATA)
		return;
	a = json_object_new_array();
	for (unsigned int i = 0; i < count; i++)
		json_object_array_add(a, json_object_new_int64(nsids[i]));
	json_object_object_add(o, "nsids", a);
	json_object_object_add(o, "nsids_listed", json_object_new_int(listed < 0 ? -1 : listed));
}

/* " notice 0x040002 log=04h", and a changed namespace list's " nsids=1,2 (+3 more)". */
static void print_aen(struct uae_event *ev)
{
	const uint32_t *nsids;
	unsigned int count;
	int listed = uae_event_get_nvme_nsids(ev, &nsids, &count);

	printf(" %s 0x%06" PRIx32 " log=%02Xh", uae_event_get_aen_class(ev),
	       uae_event_get_aen_result(ev), uae_event_get_aen_log_page(ev));
	if (listed == -ENODATA)
		return;
	if (listed == -EOVERFLOW) {
		printf(" nsids=more-than-the-log-holds");
		return;
	}
	printf(" nsids=");
	for (unsigned int i = 0; i < count; i++)
		printf("%s%" PRIu32, i ? "," : "", nsids[i]);
	if ((unsigned int)listed > count)
		printf(" (+%u more)", (unsigned int)listed - count);
}

json_object *uaectl_event_json(struct uae_event *ev)
{
	json_object *o = json_object_new_object();
	const uint8_t *sense;
	size_t sense_len;
	char hex[2 * 96 + 1] = "", instance[17];
	uint64_t lba;
	uint32_t sectors;

	sense = uae_event_get_sense(ev, &sense_len);
	for (size_t i = 0; i < sense_len && i < 96; i++)
		snprintf(hex + 2 * i, 3, "%02x", sense[i]);
	snprintf(instance, sizeof(instance), "%016" PRIx64, uae_event_get_instance(ev));

	json_object_object_add(o, "seq", json_object_new_uint64(uae_event_get_seq(ev)));
	add_string(o, "instance", instance);
	json_object_object_add(o, "gap", json_object_new_uint64(uae_event_get_gap(ev)));
	json_object_object_add(o, "timestamp_ns",
			       json_object_new_uint64(uae_event_get_timestamp_ns(ev)));
	add_string(o, "kind", uae_event_get_kind_name(ev));
	add_string(o, "event", uae_event_get_name(ev));
	add_string(o, "category", uae_event_get_category(ev));
	json_object_object_add(o, "repeat", json_object_new_int64(uae_event_get_repeat(ev)));
	json_object_object_add(o, "flags", json_object_new_int64(uae_event_get_flags(ev)));
	add_string(o, "transport", uae_event_get_transport(ev));
	if (uae_event_get_nvme_controller(ev) || uae_event_get_kind(ev) == UAE_EVENT_AEN ||
	    uae_event_get_kind(ev) == UAE_EVENT_ANA) {
		/* NVMe: a controller, no SCSI address. */
		add_string(o, "controller", uae_event_get_nvme_controller(ev));
	} else {
		add_string(o, "hctl", uae_event_get_hctl(ev));
		json_object_object_add(o, "host", json_object_new_int64(uae_event_get_host(ev)));
		json_object_object_add(o, "channel",
				       json_object_new_int64(uae_event_get_channel(ev)));
		json_object_object_add(o, "target",
				       json_object_new_int64(uae_event_get_target(ev)));
		json_object_object_add(o, "lun", json_object_new_uint64(uae_event_get_lun(ev)));
	}
	if (uae_event_get_kind(ev) == UAE_EVENT_AEN) {
		uint32_t result = uae_event_get_aen_result(ev);

		json_object_object_add(o, "aen_result", json_object_new_int64(result));
		add_string(o, "aen_class", uae_event_get_aen_class(ev));
		json_object_object_add(o, "log_page",
				       json_object_new_int(uae_event_get_aen_log_page(ev)));
		add_nsids(o, ev);
	}
	if (uae_event_get_kind(ev) == UAE_EVENT_ANA) {
		json_object_object_add(o, "ana_group",
				       json_object_new_int(uae_event_get_ana_group(ev)));
		add_string(o, "ana_state", uae_event_get_ana_state(ev));
	}
	add_string(o, "device", uae_event_get_devname(ev));
	add_string(o, "sg_device", uae_event_get_sgdev(ev));
	add_string(o, "wwid", uae_event_get_wwid(ev));
	add_string(o, "serial", uae_event_get_serial(ev));
	if (uae_event_has_sense(ev)) {
		json_object_object_add(o, "sense_key",
				       json_object_new_int(uae_event_get_sense_key(ev)));
		json_object_object_add(o, "asc", json_object_new_int(uae_event_get_asc(ev)));
		json_object_object_add(o, "ascq", json_object_new_int(uae_event_get_ascq(ev)));
		add_string(o, "description", uae_event_get_description(ev));
		add_string(o, "sense", hex);
	}
	add_string(o, "req_op", uae_event_get_req_op_name(ev));
	/*
	 * The command that got the UA or failed (for a UA the error handler's own command
	 * got, that command's).  A request that failed before it became a SCSI command had
	 * none, nor a host byte or status.
	 */
	if (uae_event_get_kind(ev) == UAE_EVENT_AEN || uae_event_get_kind(ev) == UAE_EVENT_ANA)
		return o;
	if (uae_event_get_nvme_status(ev) >= 0)
		json_object_object_add(o, "nvme_status",
				       json_object_new_int(uae_event_get_nvme_status(ev)));
	if (!(uae_event_get_flags(ev) & UAE_EVENT_FLAG_NO_COMMAND) &&
	    (!uae_event_get_nvme_controller(ev) || uae_event_get_nvme_status(ev) >= 0))
		json_object_object_add(o, "opcode", json_object_new_int(uae_event_get_opcode(ev)));
	if (uae_event_get_kind(ev) != UAE_EVENT_UA) {
		/* A SCSI command's; an NVMe one has its status instead. */
		if (!(uae_event_get_flags(ev) & UAE_EVENT_FLAG_NO_COMMAND) &&
		    !uae_event_get_nvme_controller(ev)) {
			json_object_object_add(o, "host_byte",
					       json_object_new_int(uae_event_get_host_byte(ev)));
			json_object_object_add(o, "status",
					       json_object_new_int(uae_event_get_status(ev)));
		}
		if (uae_event_get_lba(ev, &lba, &sectors)) {
			json_object_object_add(o, "lba", json_object_new_uint64(lba));
			json_object_object_add(o, "sectors", json_object_new_int64(sectors));
		}
		if (uae_event_get_errno(ev))
			json_object_object_add(o, "errno",
					       json_object_new_int(uae_event_get_errno(ev)));
	}
	if (uae_event_get_class_rule(ev)) {
		json_object *c = json_object_new_object();

		add_string(c, "severity", uae_event_get_severity(ev));
		add_string(c, "locus", uae_event_get_locus(ev));
		json_object_object_add(c, "failover",
				       json_object_new_boolean(uae_event_get_failover(ev)));
		add_string(c, "blk_status", uae_event_get_blk_status(ev));
		json_object_object_add(c, "rule", json_object_new_int(uae_event_get_class_rule(ev)));
		json_object_object_add(o, "classification", c);
	}
	return o;
}

int uaectl_add_filters(struct uae_monitor *m, char **filters, int n)
{
	for (int i = 0; i < n; i++) {
		char *eq = strchr(filters[i], '=');
		int r;

		*eq = '\0';
		r = uae_monitor_filter_add_match(m, filters[i], eq + 1);
		*eq = '=';
		if (r < 0) {
			fprintf(stderr, "uaectl: bad filter '%s': keys are kind, event, category, "
				"severity, locus, failover, device, wwid, hctl, transport, controller\n",
				filters[i]);
			return r;
		}
	}
	return 0;
}

void uaectl_print_event(struct uae_event *ev, bool json, struct uae_stack *stack)
{
	if (json) {
		json_object *o = uaectl_event_json(ev);

		if (stack)
			json_object_object_add(o, "stack", uaectl_stack_json(stack));
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else if (uae_event_get_kind(ev) == UAE_EVENT_MODULE) {
		printf("0 module %016" PRIx64 " - %s\n", uae_event_get_instance(ev),
		       uae_event_get_name(ev));
	} else {
		const char *devname = uae_event_get_devname(ev);
		const char *ctrl = uae_event_get_nvme_controller(ev);
		/* Where it happened: a SCSI address, or an NVMe controller. */
		const char *where = ctrl ? ctrl : uae_event_get_transport(ev) &&
				    !strcmp(uae_event_get_transport(ev), "nvme") ? "-" :
				    uae_event_get_hctl(ev);

		printf("%" PRIu64 " %s %s %s %s", uae_event_get_seq(ev), uae_event_get_kind_name(ev),
		       where, devname ? devname : "-", uae_event_get_name(ev));
		if (uae_event_has_sense(ev))
			printf(" %02Xh/%02Xh", uae_event_get_asc(ev), uae_event_get_ascq(ev));
		if (uae_event_get_kind(ev) == UAE_EVENT_UA)
			printf(" %s", uae_event_get_category(ev));
		else if (uae_event_get_kind(ev) == UAE_EVENT_ANA)
			printf(" group=%d %s", uae_event_get_ana_group(ev),
			       uae_event_get_ana_state(ev) ?: "unknown");
		else if (uae_event_get_kind(ev) == UAE_EVENT_AEN)
			print_aen(ev);
		else
			printf(" %s %s failover=%s", uae_event_get_severity(ev),
			       uae_event_get_locus(ev), uae_event_get_failover(ev) ? "yes" : "no");
		if (uae_event_get_nvme_status(ev) >= 0)
			printf(" status=0x%04x", (unsigned int)uae_event_get_nvme_status(ev));
		if (uae_event_get_repeat(ev) > 1)
			printf(" x%u", uae_event_get_repeat(ev));
		if (uae_event_get_flags(ev) & UAE_EVENT_FLAG_SUMMARY)
			printf(" host-summary");
		if (stack)
			printf(" behind %s", uae_stack_get_summary(stack));
		putchar('\n');
	}
	if (uae_event_get_kind(ev) == UAE_EVENT_MODULE) {
		const char *name = uae_event_get_name(ev);

		if (!strcmp(name, "MODULE_MISSED"))
			fprintf(stderr, "uaectl: %" PRIu32 " instance(s) of the uaevents module came "
				"and went before they could be followed; their events are lost\n",
				uae_event_get_repeat(ev));
		else
			fprintf(stderr, "uaectl: the uaevents module (instance %016" PRIx64 ") was "
				"%s\n", uae_event_get_instance(ev), strcmp(name, "MODULE_LOADED") ?
				"unloaded; showing the stock kernel's SDEV_UA and NVME_AEN "
				"uevents" : "loaded; showing its events");
	}
	if (uae_event_get_kind(ev) == UAE_EVENT_GAP)
		fprintf(stderr, "uaectl: %" PRIu64 " events lost from seq %" PRIu64 " on\n",
			uae_event_get_gap(ev), uae_event_get_seq(ev));
	/* Scripts read line by line: every event reaches them at once. */
	fflush(stdout);
}

/*
 * With @stacks (--stack): an event of a device with the stack above it now; a device gone,
 * or none that is a block device, gets none (no "stack" in the object).
 */
static void print_with_stack(struct uae_event *ev, bool json, struct uae_stack_cache *stacks)
{
	const char *devname = uae_event_get_devname(ev);
	struct uae_stack *s = NULL;

	/* An asynchronous event is a controller's, which has no stack of its own. */
	if (stacks && uae_event_get_kind(ev) != UAE_EVENT_GAP &&
	    uae_event_get_kind(ev) != UAE_EVENT_MODULE && uae_event_get_kind(ev) != UAE_EVENT_AEN &&
	    uae_event_get_kind(ev) != UAE_EVENT_ANA)
		uae_device_stack_new(stacks, devname && devname[0] ? devname :
				     uae_event_get_hctl(ev), 0, &s);
	uaectl_print_event(ev, json, s);
	uae_stack_unref(s);
}

int cmd_monitor(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "since", required_argument, NULL, 's' },
		{ "filter", required_argument, NULL, 'f' },
		{ "stack", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct uae_stack_cache *stacks = NULL;
	struct uae_monitor *m;
	bool json = false, replay = false, with_stack = false;
	uint64_t overflows = 0;
	uint64_t since = 0;
	char *filters[32];
	int n_filters = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "js:f:Sh", options, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'S':
			with_stack = true;
			break;
		case 's':
			if (uaectl_parse_u64(optarg, &since) < 0) {
				fprintf(stderr, "uaectl monitor: bad sequence number '%s'\n", optarg);
				return EXIT_USAGE;
			}
			replay = true;
			break;
		case 'f':
			if (n_filters == 32 || !strchr(optarg, '=')) {
				fprintf(stderr, "uaectl monitor: bad filter '%s' (want KEY=VALUE)\n",
					optarg);
				return EXIT_USAGE;
			}
			filters[n_filters++] = optarg;
			break;
		case 'h':
			puts("Usage: uaectl monitor [--json] [--stack] [--since SEQ] "
			     "[--filter KEY=VALUE]...");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "uaectl monitor: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}

	/* One cache for the whole run: the mount and swap tables are read on change only. */
	if (with_stack && (r = uae_stack_cache_new(&stacks)) < 0) {
		fprintf(stderr, "uaectl: %s\n", uae_strerror(r));
		return EXIT_FAIL;
	}
	r = uae_monitor_new(&m);
	if (r < 0) {
		fprintf(stderr, "uaectl: cannot subscribe: %s\n", uae_strerror(r));
		uae_stack_cache_unref(stacks);
		return uaectl_exit_code(r);
	}
	r = uaectl_add_filters(m, filters, n_filters);
	if (r < 0) {
		uae_monitor_unref(m);
		return EXIT_USAGE;
	}
	if (uae_monitor_is_fallback(m))
		fprintf(stderr, "uaectl: the uaevents module is not loaded; showing the stock "
			"kernel's SDEV_UA and NVME_AEN uevents\n");
	if (replay && (r = uae_monitor_replay(m, since)) < 0) {
		fprintf(stderr, "uaectl: cannot replay the history: %s\n", uae_strerror(r));
		uae_monitor_unref(m);
		return uaectl_exit_code(r);
	}

	while (!uaectl_stop) {
		struct pollfd pfd = { .fd = uae_monitor_get_fd(m), .events = POLLIN };
		struct uae_event *ev;

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		/* A malformed message is said and skipped: the events behind it still wait. */
		while ((r = uae_monitor_receive(m, &ev)) == 0 || r == -EBADMSG) {
			if (r == -EBADMSG) {
				fprintf(stderr, "uaectl: %s\n", uae_strerror(r));
				continue;
			}
			print_with_stack(ev, json, stacks);
			uae_event_unref(ev);
		}
		if (uae_monitor_get_overflows(m) > overflows) {
			overflows = uae_monitor_get_overflows(m);
			fprintf(stderr, "uaectl: the event socket overflowed; the missed events "
				"were replayed from the kernel's history\n");
		}
		if (r == -EAGAIN || r == -EINTR) {
			r = 0;
			continue;
		}
		/* An overflow the history could not answer is reported; monitoring goes on. */
		fprintf(stderr, "uaectl: %s\n", uae_strerror(r));
		if (r != -ENOBUFS)
			break;
		r = 0;
	}
	uae_monitor_unref(m);
	uae_stack_cache_unref(stacks);
	return r < 0 ? EXIT_FAIL : EXIT_OK;
}

