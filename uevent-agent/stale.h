/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uaeventd: LUNs a target no longer reports. */
#ifndef UAED_STALE_H
#define UAED_STALE_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"

struct uaed_lun {
	char hctl[64];
	uint64_t lun;
	char wwid[128];
};

/* The LUs of target "H:C:T" as sysfs knows them, with their WWIDs. */
int uaed_target_luns(const char *target, struct uaed_lun *luns, int max);
/* After a scan: compare @before with REPORT LUNS; log, or remove, the ones gone. */
void uaed_check_stale(const struct uaed_lun *before, int n_before, bool remove_stale);

#endif /* UAED_STALE_H */
