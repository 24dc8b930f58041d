// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaectl history, status, inject and config: the module's history, counters, settings,
 * and its test helper.
 */
#define _GNU_SOURCE	/* statx */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "libuaevents.h"
#include "uae_sense.h"
#include "uaectl.h"

int uaectl_parse_u64(const char *arg, uint64_t *out)
{
	char *end;

	if (!arg[0] || arg[0] == '-')
		return -EINVAL;
	errno = 0;
	*out = strtoull(arg, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

static int fail(const char *what, int r)
{
	fprintf(stderr, "uaectl: %s: %s\n", what, uae_strerror(r));
	return uaectl_exit_code(r);
}

int cmd_history(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "since", required_argument, NULL, 's' },
		{ "filter", required_argument, NULL, 'f' },
		{}
	};
	struct uae_monitor *m;
	struct uae_event *ev;
	uint64_t since = 0;
	bool json = false;
	char *filters[32];
	int n_filters = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "js:f:", options, NULL)) != -1) {
		if (c == 'j') {
			json = true;
		} else if (c == 's' && uaectl_parse_u64(optarg, &since) == 0) {
			continue;
		} else if (c == 'f' && n_filters < 32 && strchr(optarg, '=')) {
			filters[n_filters++] = optarg;
		} else {
			fprintf(stderr, "Usage: uaectl history [--json] [--since SEQ] "
				"[--filter KEY=VALUE]...\n");
			return EXIT_USAGE;
		}
	}
	r = uae_monitor_new(&m);
	if (r < 0)
		return fail("cannot connect", r);
	if (uaectl_add_filters(m, filters, n_filters) < 0) {
		uae_monitor_unref(m);
		return EXIT_USAGE;
	}
	if (uae_monitor_is_fallback(m)) {
		uae_monitor_unref(m);
		return fail("no history", -ENOENT);
	}
	r = uae_monitor_replay(m, since);
	/*
	 * The replayed events, and any that arrived meanwhile; then stop.  A receive comes back
	 * empty (-EAGAIN) between pages of the history too: the fd says whether more is there.
	 */
	while (r >= 0) {
		r = uae_monitor_receive(m, &ev);
		if (r == 0) {
			uaectl_print_event(ev, json, NULL);
			uae_event_unref(ev);
		} else if (r == -EAGAIN &&
			   poll(&(struct pollfd){ .fd = uae_monitor_get_fd(m), .events = POLLIN },
				1, 0) == 1) {
			r = 0;
		}
	}
	uae_monitor_unref(m);
	return r == -EAGAIN ? EXIT_OK : fail("cannot read the history", r);
}

int cmd_status(int argc, char **argv)
{
	struct uae_kernel_stats st = { .size = sizeof(st) };
	bool json = argc > 1 && strcmp(argv[1], "--json") == 0;
	int r = uae_kernel_stats(&st);

	if (r < 0)
		return fail("cannot read the module's status", r);
	if (json) {
		json_object *o = json_object_new_object();
		char instance[17];

		snprintf(instance, sizeof(instance), "%016" PRIx64, st.instance);
		json_object_object_add(o, "instance", json_object_new_string(instance));
		json_object_object_add(o, "last_seq", json_object_new_uint64(st.last_seq));
		json_object_object_add(o, "history_size", json_object_new_int64(st.history_size));
		json_object_object_add(o, "history_first_seq",
				       json_object_new_uint64(st.history_first_seq));
		json_object_object_add(o, "lost_unread", json_object_new_uint64(st.lost_unread));
		json_object_object_add(o, "coalesced", json_object_new_uint64(st.coalesced));
		json_object_object_add(o, "alloc_failed", json_object_new_uint64(st.alloc_failed));
		json_object_object_add(o, "queue_full", json_object_new_uint64(st.queue_full));
		json_object_object_add(o, "mcast_overflow",
				       json_object_new_uint64(st.mcast_overflow));
		json_object_object_add(o, "probe_missed", json_object_new_uint64(st.probe_missed));
		json_object_object_add(o, "coalesce_ms", json_object_new_int64(st.coalesce_ms));
		json_object_object_add(o, "uevents", json_object_new_int(st.uevents));
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		return EXIT_OK;
	}
	printf("Module instance:   %016" PRIx64 "\n", st.instance);
	printf("Events:            %" PRIu64 "\n", st.last_seq);
	printf("History:           %u slots, oldest event held %" PRIu64 "\n",
	       st.history_size, st.history_first_seq);
	printf("Lost:              %" PRIu64 " fell out of the history unread, %" PRIu64
	       " not sent (no memory), %" PRIu64 " not captured (queue full), %" PRIu64
	       " hook calls skipped by the kernel\n",
	       st.lost_unread, st.alloc_failed, st.queue_full, st.probe_missed);
	printf("Coalesced:         %" PRIu64 " occurrences\n", st.coalesced);
	printf("Subscriber overflows: %" PRIu64 "\n", st.mcast_overflow);
	printf("Settings:          coalesce_ms=%u uevents=%u\n", st.coalesce_ms, st.uevents);
	return EXIT_OK;
}

static int parse_hctl(const char *arg, struct uae_inject *in)
{
	char tail;

	if (sscanf(arg, "%u:%u:%u:%" SCNu64 "%c", &in->host, &in->channel, &in->target,
		   &in->lun, &tail) != 4)
		return -EINVAL;
	return 0;
}

/*
 * The SCSI device behind a disk or sg name ("sda", "sg2") or node ("/dev/sda",
 * "/dev/disk/by-id/..."): its sysfs "device" link ends in H:C:T:L.  A node is found by its
 * device number; only sysfs is read.  -ENODEV: no such device, -ENOTTY: one that is not a
 * SCSI disk or sg device (a partition, a virtio or NVMe disk).
 */
static int parse_device(const char *arg, struct uae_inject *in)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *hctl;
	struct statx stx;
	ssize_t len;

	if (!strncmp(arg, "/dev/", 5)) {
		if (statx(AT_FDCWD, arg, AT_STATX_DONT_SYNC, STATX_TYPE, &stx) < 0 ||
		    !(S_ISBLK(stx.stx_mode) || S_ISCHR(stx.stx_mode)))
			return -ENODEV;
		snprintf(path, sizeof(path), "/sys/dev/%s/%u:%u",
			 S_ISBLK(stx.stx_mode) ? "block" : "char", stx.stx_rdev_major,
			 stx.stx_rdev_minor);
	} else {
		if (!arg[0] || strchr(arg, '/') || strlen(arg) > NAME_MAX)
			return -ENODEV;
		snprintf(path, sizeof(path), "/sys/class/%s/%s",
			 strncmp(arg, "sg", 2) ? "block" : "scsi_generic", arg);
	}
	if (access(path, F_OK) < 0)
		return -ENODEV;
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/device");
	len = readlink(path, link, sizeof(link) - 1);
	if (len < 0)
		return -ENOTTY;
	link[len] = '\0';
	hctl = strrchr(link, '/');
	return parse_hctl(hctl ? hctl + 1 : link, in) < 0 ? -ENOTTY : 0;
}

int cmd_inject(int argc, char **argv)
{
	static const struct option options[] = {
		{ "hctl", required_argument, NULL, 'd' },
		{ "device", required_argument, NULL, 'D' },
		{ "sense", required_argument, NULL, 's' },
		{ "host-byte", required_argument, NULL, 'H' },
		{ "status", required_argument, NULL, 'S' },
		{ "kind", required_argument, NULL, 'k' },
		{ "count", required_argument, NULL, 'c' },
		{}
	};
	static const char *const kinds[] = { NULL, "ua", "error", "timeout", "sgio" };
	struct uae_inject in = { .size = sizeof(in), .host_byte = -1, .status = -1 };
	uint8_t sense[96], code;
	bool have_device = false;
	uint64_t count;
	int c, r;

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_hctl(optarg, &in) < 0)
				goto usage;
			have_device = true;
			break;
		case 'D':
			r = parse_device(optarg, &in);
			if (r < 0) {
				fprintf(stderr, "uaectl: %s: %s\n", optarg, r == -ENODEV ?
					"no such block or sg device" : "not a SCSI disk or sg device");
				return EXIT_USAGE;
			}
			have_device = true;
			break;
		case 's':
			if (uaectl_parse_hex(1, &optarg, sense, sizeof(sense), &in.sense_len) < 0)
				goto usage;
			in.sense = sense;
			break;
		case 'H':
			if (uaectl_parse_code(optarg, uae_host_byte_name, &code) < 0)
				goto usage;
			in.host_byte = code;
			break;
		case 'S':
			if (uaectl_parse_code(optarg, uae_status_name, &code) < 0)
				goto usage;
			in.status = code;
			break;
		case 'k':
			for (int k = 1; k <= 4; k++)
				if (strcmp(optarg, kinds[k]) == 0)
					in.kind = k;
			if (!in.kind)
				goto usage;
			break;
		case 'c':
			if (uaectl_parse_u64(optarg, &count) < 0 || !count || count > 100000)
				goto usage;
			in.count = (uint32_t)count;
			break;
		default:
			goto usage;
		}
	}
	if (!have_device || optind != argc)
		goto usage;
	r = uae_inject(&in);
	return r < 0 ? fail("cannot inject", r) : EXIT_OK;
usage:
	fprintf(stderr, "Usage: uaectl inject --hctl H:C:T:L|--device DEV [--sense HEX] [--host-byte B] "
		"[--status S] [--kind ua|error|timeout|sgio] [--count N]\n");
	return EXIT_USAGE;
}

int cmd_config(int argc, char **argv)
{
	static const struct option options[] = {
		{ "coalesce-ms", required_argument, NULL, 'c' },
		{ "uevents", required_argument, NULL, 'u' },
		{}
	};
	static const char *const modes[] = { "none", "ua", "all" };
	int coalesce = -1, uevents = -1, c, r;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (c == 'c' && uaectl_parse_u64(optarg, &v) == 0 && v <= 3600000) {
			coalesce = (int)v;
		} else if (c == 'u') {
			for (int i = 0; i < 3; i++)
				if (strcmp(optarg, modes[i]) == 0)
					uevents = i;
			if (uevents < 0)
				goto usage;
		} else {
			goto usage;
		}
	}
	if (optind != argc || (coalesce < 0 && uevents < 0))
		goto usage;
	r = uae_set_config(coalesce, uevents);
	return r < 0 ? fail("cannot change the settings", r) : EXIT_OK;
usage:
	fprintf(stderr, "Usage: uaectl config [--coalesce-ms MS] [--uevents none|ua|all]\n");
	return EXIT_USAGE;
}

int cmd_clear_history(int argc, char **argv)
{
	int r;

	if (argc > 1) {
		fprintf(stderr, "Usage: uaectl clear-history\n");
		return EXIT_USAGE;
	}
	r = uae_clear_history();
	return r < 0 ? fail("cannot clear the history", r) : EXIT_OK;
}
