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

static json_object *event_to_json(struct uae_event *ev)
{
	json_object *o = json_object_new_object();
	const char *devname = uae_event_get_devname(ev);
	const char *desc = uae_event_get_description(ev);
	const uint8_t *sense;
	size_t sense_len;
	char hex[2 * 96 + 1] = "";

	sense = uae_event_get_sense(ev, &sense_len);
	for (size_t i = 0; i < sense_len && i < 96; i++)
		snprintf(hex + 2 * i, 3, "%02x", sense[i]);

	json_object_object_add(o, "seq", json_object_new_uint64(uae_event_get_seq(ev)));
	char instance[17];

	snprintf(instance, sizeof(instance), "%016" PRIx64, uae_event_get_instance(ev));
	json_object_object_add(o, "instance", json_object_new_string(instance));
	json_object_object_add(o, "gap", json_object_new_uint64(uae_event_get_gap(ev)));
	json_object_object_add(o, "timestamp_ns",
			       json_object_new_uint64(uae_event_get_timestamp_ns(ev)));
	json_object_object_add(o, "kind", json_object_new_string("ua"));
	json_object_object_add(o, "event", json_object_new_string(uae_event_get_name(ev)));
	json_object_object_add(o, "category",
			       json_object_new_string(uae_event_get_category(ev)));
	json_object_object_add(o, "hctl", json_object_new_string(uae_event_get_hctl(ev)));
	json_object_object_add(o, "host", json_object_new_int64(uae_event_get_host(ev)));
	json_object_object_add(o, "channel", json_object_new_int64(uae_event_get_channel(ev)));
	json_object_object_add(o, "target", json_object_new_int64(uae_event_get_target(ev)));
	json_object_object_add(o, "lun", json_object_new_uint64(uae_event_get_lun(ev)));
	json_object_object_add(o, "device", devname ? json_object_new_string(devname) : NULL);
	json_object_object_add(o, "sense_key", json_object_new_int(uae_event_get_sense_key(ev)));
	json_object_object_add(o, "asc", json_object_new_int(uae_event_get_asc(ev)));
	json_object_object_add(o, "ascq", json_object_new_int(uae_event_get_ascq(ev)));
	json_object_object_add(o, "description", desc ? json_object_new_string(desc) : NULL);
	json_object_object_add(o, "sense", json_object_new_string(hex));
	return o;
}

static void print_event(struct uae_event *ev, bool json)
{
	if (json) {
		json_object *o = event_to_json(ev);

		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else {
		const char *devname = uae_event_get_devname(ev);

		printf("%" PRIu64 " %s %s %s %02Xh/%02Xh %s\n",
		       uae_event_get_seq(ev), uae_event_get_hctl(ev),
		       devname ? devname : "-", uae_event_get_name(ev),
		       uae_event_get_asc(ev), uae_event_get_ascq(ev),
		       uae_event_get_category(ev));
	}
	if (uae_event_get_gap(ev))
		fprintf(stderr, "uaectl: %" PRIu64 " events lost before seq %" PRIu64 "\n",
			uae_event_get_gap(ev), uae_event_get_seq(ev));
	/* Scripts read line by line: every event reaches them at once. */
	fflush(stdout);
}

int cmd_monitor(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct uae_monitor *m;
	bool json = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			puts("Usage: uaectl monitor [--json]");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "uaectl monitor: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}

	r = uae_monitor_new(&m);
	if (r < 0) {
		fprintf(stderr, "uaectl: cannot subscribe: %s\n", uae_strerror(r));
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
		while ((r = uae_monitor_receive(m, &ev)) == 0) {
			print_event(ev, json);
			uae_event_unref(ev);
		}
		if (r == -EAGAIN || r == -EINTR) {
			r = 0;
			continue;
		}
		/* Overflow and malformed messages are reported; monitoring goes on. */
		fprintf(stderr, "uaectl: %s\n", uae_strerror(r));
		if (r != -ENOBUFS && r != -EBADMSG)
			break;
		r = 0;
	}
	uae_monitor_unref(m);
	return r < 0 ? EXIT_FAIL : EXIT_OK;
}

