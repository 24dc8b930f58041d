// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: writes every uaevents event to the systemd journal.
 *
 * One sd-event loop; the libuaevents monitor's fd is its only source besides signals.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
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
#include "message_ids.h"

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

/* Errors: fatal ones are errors, retryable ones warnings. */
static int priority_of(const struct uae_message_id *mid, struct uae_event *ev)
{
	if (mid->priority >= 0)
		return mid->priority;
	return strcmp(uae_event_get_severity(ev), "fatal") == 0 ? LOG_ERR : LOG_WARNING;
}

/* "sdb [2:0:0:1]: unit attention CAPACITY DATA HAS CHANGED (ASC/ASCQ 2Ah/09h)" */
static void format_message(struct uae_event *ev, char *buf, size_t size)
{
	const char *devname = uae_event_get_devname(ev);
	const char *desc = uae_event_get_description(ev);
	int n;

	n = snprintf(buf, size, "%s%s[%s]: ", devname ? devname : "", devname ? " " : "",
		     uae_event_get_hctl(ev));
	switch (uae_event_get_kind(ev)) {
	case UAE_EVENT_UA:
		n += snprintf(buf + n, size - n, "unit attention %s",
			      desc ? desc : uae_event_get_name(ev));
		break;
	case UAE_EVENT_TIMEOUT:
		n += snprintf(buf + n, size - n, "command %02Xh timed out",
			      uae_event_get_opcode(ev));
		break;
	default:
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
	if (uae_event_get_repeat(ev) > 1 && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - n, ", %u times", uae_event_get_repeat(ev));
}

static int log_event(struct uae_event *ev)
{
	const struct uae_message_id *mid = message_id_for(ev);
	const char *devname = uae_event_get_devname(ev), *wwid = uae_event_get_wwid(ev);
	char message[512];
	int r;

	format_message(ev, message, sizeof(message));
	r = sd_journal_send(
		"MESSAGE=%s", message,
		"MESSAGE_ID=%s", mid->id,
		"PRIORITY=%d", priority_of(mid, ev),
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
		NULL);
	if (r < 0)
		return r;

	if (uae_event_get_gap(ev))
		sd_journal_send("MESSAGE=%" PRIu64 " events lost before sequence number %" PRIu64,
				uae_event_get_gap(ev), uae_event_get_seq(ev),
				"PRIORITY=%d", LOG_ERR,
				"SYSLOG_IDENTIFIER=uaeventd",
				"UAEVENTS_GAP=%" PRIu64, uae_event_get_gap(ev),
				NULL);
	return 0;
}

static int on_monitor(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct uae_monitor *m = userdata;
	struct uae_event *ev;
	int r;

	(void)s;
	(void)fd;
	(void)revents;
	while ((r = uae_monitor_receive(m, &ev)) == 0) {
		r = log_event(ev);
		if (r < 0)
			fprintf(stderr, "uaeventd: cannot write to the journal: %s\n",
				strerror(-r));
		uae_event_unref(ev);
	}
	if (r != -EAGAIN && r != -EINTR)
		sd_journal_print(LOG_ERR, "uaeventd: %s", uae_strerror(r));
	return 0;
}

int main(void)
{
	struct uae_monitor *m = NULL;
	sd_event *loop = NULL;
	sigset_t mask;
	int r;

	r = uae_monitor_new(&m);
	if (r < 0) {
		fprintf(stderr, "uaeventd: cannot subscribe to uaevents: %s\n", uae_strerror(r));
		return EXIT_FAILURE;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	r = sd_event_default(&loop);
	if (r >= 0)
		r = sd_event_add_signal(loop, NULL, SIGTERM, NULL, NULL);
	if (r >= 0)
		r = sd_event_add_signal(loop, NULL, SIGINT, NULL, NULL);
	if (r >= 0)
		r = sd_event_add_io(loop, NULL, uae_monitor_get_fd(m), EPOLLIN, on_monitor, m);
	if (r >= 0)
		r = sd_event_set_watchdog(loop, true);
	if (r < 0) {
		fprintf(stderr, "uaeventd: cannot set up the event loop: %s\n", strerror(-r));
		goto out;
	}

	sd_journal_print(LOG_INFO, "uaeventd: listening for SCSI unit attentions");
	sd_notify(0, "READY=1\nSTATUS=Listening for SCSI unit attentions");
	r = sd_event_loop(loop);
	sd_notify(0, "STOPPING=1");
out:
	sd_event_unref(loop);
	uae_monitor_unref(m);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
