// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Example: wait for SCSI events with poll() and libuaevents, print them, stop after
 * COUNT events (default: never).  Build: cc monitor-poll.c $(pkg-config --cflags --libs uaevents)
 *
 *   monitor-poll [COUNT [KEY=VALUE...]]     e.g. monitor-poll 1 category=space
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libuaevents.h>

int main(int argc, char **argv)
{
	long count = argc > 1 ? strtol(argv[1], NULL, 10) : -1;
	struct uae_monitor *m;
	int r;

	r = uae_monitor_new(&m);
	if (r < 0) {
		fprintf(stderr, "monitor-poll: %s\n", uae_strerror(r));
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fprintf(stderr, "monitor-poll: want KEY=VALUE, not '%s'\n", argv[i]);
			return 2;
		}
		*eq = '\0';
		r = uae_monitor_filter_add_match(m, argv[i], eq + 1);
		if (r < 0) {
			fprintf(stderr, "monitor-poll: filter %s: %s\n", argv[i], uae_strerror(r));
			return 2;
		}
	}
	while (count != 0) {
		struct pollfd pfd = { .fd = uae_monitor_get_fd(m), .events = POLLIN };
		struct uae_event *ev;

		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			break;
		/* Until -EAGAIN: a malformed message (-EBADMSG) is skipped, events wait behind it. */
		while (count != 0 && ((r = uae_monitor_receive(m, &ev)) == 0 || r == -EBADMSG)) {
			const char *dev;

			if (r == -EBADMSG) {
				fprintf(stderr, "monitor-poll: %s\n", uae_strerror(r));
				continue;
			}
			dev = uae_event_get_devname(ev);

			printf("seq %" PRIu64 ": %s on %s (%s), category %s\n",
			       uae_event_get_seq(ev), uae_event_get_name(ev), dev ? dev : "-",
			       uae_event_get_hctl(ev), uae_event_get_category(ev));
			fflush(stdout);
			uae_event_unref(ev);
			if (count > 0)
				count--;
		}
	}
	uae_monitor_unref(m);
	return 0;
}
