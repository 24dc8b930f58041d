// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uae-latency: the clock at the receiving end, for make bench's latency figure.  The module
 * stamps each event (CLOCK_REALTIME) when the midlayer hands it the CHECK CONDITION, and
 * journald stamps each entry when it receives it; this stamps the other two ends.
 *
 *   uae-latency subscribe N FILE   take N unit attentions through libuaevents, writing
 *                                  "SEQ CAPTURED-NS RECEIVED-NS" for each to FILE; prints
 *                                  "ready" once subscribed
 *   uae-latency stamp FILE         append the time now (ns) to FILE: the udev RUN program
 *                                  for the stock kernel's SDEV_UA uevent
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libuaevents.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static int stamp(const char *path)
{
	unsigned long long t = now_ns();
	FILE *f = fopen(path, "ae");

	if (!f) {
		fprintf(stderr, "uae-latency: %s: %s\n", path, strerror(errno));
		return 1;
	}
	fprintf(f, "%llu\n", t);
	return fclose(f) ? 1 : 0;
}

static int subscribe(long n, const char *path)
{
	struct uae_monitor *m = NULL;
	struct uae_event *ev;
	FILE *f = fopen(path, "we");
	int r = f ? uae_monitor_new(&m) : -errno;

	if (r < 0) {
		fprintf(stderr, "uae-latency: %s\n", strerror(-r));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (n > 0) {
		struct pollfd p = { .fd = uae_monitor_get_fd(m), .events = POLLIN };

		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		while (n > 0 && ((r = uae_monitor_receive(m, &ev)) == 0 || r == -EBADMSG)) {
			unsigned long long t = now_ns();

			if (r)
				continue;
			if (uae_event_get_kind(ev) == UAE_EVENT_UA) {
				fprintf(f, "%llu %llu %llu\n",
					(unsigned long long)uae_event_get_seq(ev),
					(unsigned long long)uae_event_get_timestamp_ns(ev), t);
				fflush(f);
				n--;
			}
			uae_event_unref(ev);
		}
	}
	uae_monitor_unref(m);
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "subscribe"))
		return subscribe(strtol(argv[2], NULL, 10), argv[3]);
	if (argc == 3 && !strcmp(argv[1], "stamp"))
		return stamp(argv[2]);
	fprintf(stderr, "usage: uae-latency subscribe N FILE | uae-latency stamp FILE\n");
	return 2;
}
