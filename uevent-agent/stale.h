/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uaeventd: LUNs a target no longer reports. */
#ifndef UAED_STALE_H
#define UAED_STALE_H

#include <stdbool.h>
#include <stdint.h>

struct uaed_lun {
	char hctl[64];
	uint64_t lun;
	char wwid[128];
	int dirfd;		/* its sysfs directory: this device, whatever is at its address */
};

/* The LUs of target "H:C:T" as sysfs knows them, with their WWIDs; -errno on failure. */
int uaed_target_luns(const char *target, struct uaed_lun **luns);
void uaed_target_luns_free(struct uaed_lun *luns, int n);
/* REPORT LUNS through any of @luns still there: the count, *@reported to free; -errno. */
int uaed_target_report_luns(const struct uaed_lun *luns, int n_luns, uint64_t **reported);
/*
 * After a scan: compare @before with the target's REPORT LUNS; log the ones gone, and
 * under @remove_stale remove each that is provably unused and still the LU it was.
 */
void uaed_check_stale(const struct uaed_lun *before, int n_before, bool remove_stale);

#endif /* UAED_STALE_H */
