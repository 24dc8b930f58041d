// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: after a target scan, the LUNs that the target no longer reports (REPORT LUNS,
 * through libsgutils2), logged, and removed under the "remove" policy when nothing uses
 * them and the LU at that address is still the one it was.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <scsi/sg_cmds_basic.h>
#include <systemd/sd-journal.h>

#include "stale.h"

#define MAX_LUNS 512

/* The kernel's scsilun_to_int(): the 8-byte LUN as Linux numbers it. */
static uint64_t lun_to_int(const uint8_t *b)
{
	uint64_t lun = 0;

	for (int i = 0; i < 8; i += 2)
		lun |= (uint64_t)((b[i] << 8) | b[i + 1]) << (i * 8);
	return lun;
}

int uaed_target_luns(const char *target, struct uaed_lun *luns, int max)
{
	char pattern[96];
	glob_t g;
	int n = 0;

	snprintf(pattern, sizeof(pattern), "/sys/class/scsi_device/%s:*", target);
	if (glob(pattern, 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc && n < max; i++) {
		const char *hctl = strrchr(g.gl_pathv[i], '/') + 1;

		snprintf(luns[n].hctl, sizeof(luns[n].hctl), "%s", hctl);
		luns[n].lun = strtoull(strrchr(hctl, ':') + 1, NULL, 10);
		if (uaed_sysfs_read(hctl, "wwid", luns[n].wwid, sizeof(luns[n].wwid)) < 0)
			luns[n].wwid[0] = '\0';
		n++;
	}
	globfree(&g);
	return n;
}

/* REPORT LUNS through the sg device of one LU of the target. */
static int report_luns(const struct uaed_lun *via, uint64_t *out, int max)
{
	static uint8_t resp[8 + 8 * MAX_LUNS];
	char pattern[128], dev[64];
	uint32_t len;
	glob_t g;
	int fd, r, n = 0;

	snprintf(pattern, sizeof(pattern), "/sys/class/scsi_device/%s/device/scsi_generic/sg*",
		 via->hctl);
	if (glob(pattern, 0, NULL, &g) != 0)
		return -ENODEV;
	snprintf(dev, sizeof(dev), "/dev/%s", strrchr(g.gl_pathv[0], '/') + 1);
	globfree(&g);
	fd = open(dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = sg_ll_report_luns(fd, 0, resp, sizeof(resp), false, 0);
	close(fd);
	if (r != 0)
		return -EIO;
	len = (uint32_t)resp[0] << 24 | resp[1] << 16 | resp[2] << 8 | resp[3];
	for (uint32_t off = 8; off + 8 <= 8 + len && off + 8 <= sizeof(resp) && n < max; off += 8)
		out[n++] = lun_to_int(resp + off);
	return n;
}

/* "sdc" for an LU, or "" if it has no block device. */
static void block_name(const char *hctl, char *buf, size_t size)
{
	char pattern[128];
	glob_t g;

	buf[0] = '\0';
	snprintf(pattern, sizeof(pattern), "/sys/class/scsi_device/%s/device/block/*", hctl);
	if (glob(pattern, 0, NULL, &g) == 0) {
		snprintf(buf, size, "%s", strrchr(g.gl_pathv[0], '/') + 1);
		globfree(&g);
	}
}

/* A process with @disk or one of its partitions open: its pid, else 0. */
static pid_t opener(const char *disk)
{
	char dev[64], link[256];
	glob_t g;
	pid_t pid = 0;
	size_t len = strlen(disk);

	snprintf(dev, sizeof(dev), "/dev/%s", disk);
	if (glob("/proc/[0-9]*/fd/*", GLOB_NOSORT, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc && !pid; i++) {
		ssize_t n = readlink(g.gl_pathv[i], link, sizeof(link) - 1);

		if (n <= 0)
			continue;
		link[n] = '\0';
		/* "/dev/sdc" or a partition, "/dev/sdc1"; not "/dev/sdca". */
		if (!strncmp(link, dev, len + 5) &&
		    (link[len + 5] == '\0' || (link[len + 5] >= '0' && link[len + 5] <= '9')))
			pid = (pid_t)strtol(g.gl_pathv[i] + strlen("/proc/"), NULL, 10);
	}
	globfree(&g);
	return pid;
}

/*
 * Why @disk must stay: held by another block device (dm, md), mounted, or open in a
 * process; NULL if nothing uses it.
 */
static const char *in_use(const char *disk)
{
	static char why[64];
	pid_t pid;
	char pattern[160], line[1024], devs[16][16];
	int ndev = 0;
	glob_t g;
	FILE *f;

	/* The disk and its partitions: their holders, and their major:minor. */
	snprintf(pattern, sizeof(pattern), "/sys/block/%s/holders/*", disk);
	if (glob(pattern, 0, NULL, &g) == 0) {
		globfree(&g);
		return "held by another block device";
	}
	snprintf(pattern, sizeof(pattern), "/sys/block/%s/%s*/holders/*", disk, disk);
	if (glob(pattern, 0, NULL, &g) == 0) {
		globfree(&g);
		return "a partition is held by another block device";
	}
	snprintf(pattern, sizeof(pattern), "/sys/block/%s/dev", disk);
	snprintf(line, sizeof(line), "/sys/block/%s/%s*/dev", disk, disk);
	for (int k = 0; k < 2; k++) {
		if (glob(k ? line : pattern, 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc && ndev < 16; i++) {
			FILE *d = fopen(g.gl_pathv[i], "re");

			if (d && fscanf(d, "%15s", devs[ndev]) == 1)
				ndev++;
			if (d)
				fclose(d);
		}
		globfree(&g);
	}
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return "cannot read the mount table";
	while (fgets(line, sizeof(line), f)) {
		char majmin[32];

		if (sscanf(line, "%*s %*s %31s", majmin) != 1)
			continue;
		for (int i = 0; i < ndev; i++) {
			if (!strcmp(majmin, devs[i])) {
				fclose(f);
				return "mounted";
			}
		}
	}
	fclose(f);
	pid = opener(disk);
	if (pid) {
		snprintf(why, sizeof(why), "open in process %d", (int)pid);
		return why;
	}
	return NULL;
}

static void handle_stale(const struct uaed_lun *l, bool remove_stale)
{
	char disk[32], wwid_now[128], path[160];
	const char *why = NULL;
	int fd;

	block_name(l->hctl, disk, sizeof(disk));
	if (remove_stale) {
		if (uaed_sysfs_read(l->hctl, "wwid", wwid_now, sizeof(wwid_now)) < 0 ||
		    strcmp(wwid_now, l->wwid))
			why = "the LU at that address is not the one it was";
		else if (disk[0])
			why = in_use(disk);
	}
	if (!remove_stale || why) {
		sd_journal_send("MESSAGE=LUN %s (%s, %s) is no longer reported by its target%s%s",
				l->hctl, disk[0] ? disk : "no block device",
				l->wwid[0] ? l->wwid : "no WWID", why ? "; kept: " : "",
				why ? why : "", "PRIORITY=%d", LOG_WARNING,
				"SYSLOG_IDENTIFIER=uaeventd", "UAEVENTS_ACTION=stale-lun",
				"UAEVENTS_HCTL=%s", l->hctl, "UAEVENTS_WWID=%s", l->wwid,
				"UAEVENTS_STALE=%s", why ? "kept" : "logged", NULL);
		return;
	}
	snprintf(path, sizeof(path), "/sys/class/scsi_device/%s/device/delete", l->hctl);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1", 1) != 1)
		why = strerror(errno);
	if (fd >= 0)
		close(fd);
	sd_journal_send("MESSAGE=LUN %s (%s, %s) is no longer reported by its target; %s%s",
			l->hctl, disk[0] ? disk : "no block device", l->wwid,
			why ? "removing it failed: " : "removed", why ? why : "",
			"PRIORITY=%d", why ? LOG_ERR : LOG_NOTICE, "SYSLOG_IDENTIFIER=uaeventd",
			"UAEVENTS_ACTION=stale-lun", "UAEVENTS_HCTL=%s", l->hctl,
			"UAEVENTS_WWID=%s", l->wwid, "UAEVENTS_STALE=%s", why ? "failed" : "removed",
			NULL);
}

void uaed_check_stale(const struct uaed_lun *before, int n_before, bool remove_stale)
{
	static uint64_t reported[MAX_LUNS];
	int n = -ENODEV;

	/* Ask any LU of the target that is still there. */
	for (int i = 0; i < n_before && n < 0; i++)
		n = report_luns(&before[i], reported, MAX_LUNS);
	if (n < 0) {
		sd_journal_print(LOG_WARNING, "uaeventd: REPORT LUNS failed; stale LUNs not checked");
		return;
	}
	for (int i = 0; i < n_before; i++) {
		bool found = false;

		for (int j = 0; j < n && !found; j++)
			found = reported[j] == before[i].lun;
		if (!found)
			handle_stale(&before[i], remove_stale);
	}
}
