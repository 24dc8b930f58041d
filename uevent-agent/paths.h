/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd: which SCSI devices (paths) show a WWID, kept by the daemon between jobs.
 *
 * A capacity change or an ALUA transition concerns every path of one LU.  Finding them by
 * reading every device's wwid costs a walk over the whole host per job, and when every LU
 * of a big array reports at once that is the square of the host's size (make bench,
 * figure 5: 2.2 s per LU at 1,024 LUs on 2,048 paths).  The index is that walk done once
 * and kept up to date one device at a time, which costs one read per change, not a walk:
 * - a scsi_device added, removed or changed (what uaed_removals watches), and a device
 *   uaeventd rescanned for its identity: uaed_paths_update();
 * - walked again after the uevent socket overflowed, after a scan of uaeventd's own, and
 *   once UAED_PATHS_MAX_AGE_S passed, for what no one announces (a rescan written by hand
 *   after the array remapped a LUN changes the wwid and sends no uevent).  A walk over
 *   512 paths took about a second under QEMU's TCG; every 10 s, as it was, walks were
 *   half of uaeventd's CPU in a storm (make bench's figure 5 at 256 LUs, under perf).
 * Users read each listed path's wwid again before acting on it, and the reporting path's;
 * a mismatch, a reporting path not listed, or no path listed at all means the index may be
 * out of date, and they walk the host as before.
 */
#ifndef UAED_PATHS_H
#define UAED_PATHS_H

#include <stdbool.h>

#define UAED_PATHS_MAX_AGE_S 60
/* Paths of one LU a job handles; more than any multipath setup has. */
#define UAED_LU_PATHS_MAX 64

struct uaed_paths;

int uaed_paths_new(struct uaed_paths **ret);
struct uaed_paths *uaed_paths_free(struct uaed_paths *p);
/* Something may have changed which device shows which WWID: walk again when next asked. */
void uaed_paths_invalidate(struct uaed_paths *p);
/*
 * The device @hctl was added, removed or changed: its entry read again (one sysfs read).
 * Nothing when the index is to be walked anyway; out of memory, it will be.
 */
void uaed_paths_update(struct uaed_paths *p, const char *hctl);
/* Without a watch (no uevent socket) the index cannot be trusted for long: never kept. */
void uaed_paths_set_watched(struct uaed_paths *p, bool watched);
/* Walk the host now if the index is out of date or missing; 0 or -errno. */
int uaed_paths_refresh(struct uaed_paths *p);
/*
 * The H:C:T:L names of the devices that showed @wwid at the last walk, in @hctl (up to
 * @max); returns how many there were (more than @max if they did not fit), or -ENODATA
 * when there is no fresh index (refresh failed).  Meant for a job's child: it sees the
 * parent's index as it was at the fork.
 */
int uaed_paths_of(const struct uaed_paths *p, const char *wwid, char (*hctl)[32], int max);
/*
 * The same, each path's wwid read again now; the host is walked instead when one no longer
 * shows @wwid, when none is listed, when @reporter (the H:C:T:L that reported the event,
 * or NULL) shows @wwid but is not listed, or when there is no index (@p NULL or stale).
 * Returns the count as above, or -errno when the host cannot be listed.
 */
int uaed_paths_find(const struct uaed_paths *p, const char *wwid, const char *reporter,
		    char (*hctl)[32], int max);

#endif /* UAED_PATHS_H */
