/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uaeventd: LUNs a target no longer reports. */
#ifndef UAED_STALE_H
#define UAED_STALE_H

#include <stdbool.h>
#include <stddef.h>
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
/*
 * REPORT LUNS' parameter data: @alloc bytes asked for, @got transferred (@alloc less the
 * residual).  The LUN count; -EAGAIN when the list needs more than @alloc; -EBADMSG for a
 * list that cannot be trusted (a length not of whole LUNs, a transfer shorter than the
 * list it announces); -E2BIG beyond the kernel's own scan.
 */
int uaed_report_luns_count(const uint8_t *resp, uint32_t alloc, uint32_t got);
/* REPORT LUNS through any of @luns still there: the count, *@reported to free; -errno. */
int uaed_target_report_luns(const struct uaed_lun *luns, int n_luns, uint64_t **reported);
/*
 * The hold on one LU (see stale.c): every block node and the sg node opened exclusively,
 * nothing else found using it, still the LU it was (its sysfs WWID).  NULL and *@ret set
 * when held, else why not (in @why or a constant), and in *@passing whether that may pass
 * within seconds (another program's open file, lock or claim).
 */
struct uaed_hold;
const char *uaed_lu_hold(const struct uaed_lun *l, struct uaed_hold **ret, bool *passing,
			 char *why, size_t size);
/*
 * @attempt(i, round, last, ctx) for each i below @n (round 0); those that answer true
 * (held back for a moment) are tried again, all together, after 1, 2, 4 and 8 s (rounds 1
 * to 4), as many of those pauses as @budget_s holds, the final one as the @last; before
 * each, @refresh(ctx) if given, false making it the last.  Out of memory, each is tried
 * once, as the last.
 */
void uaed_hold_rounds(int n, unsigned int budget_s, bool (*refresh)(void *ctx),
		      bool (*attempt)(int i, int round, bool last, void *ctx), void *ctx);
/* The held sg node, to ask the LU while held; -ENODEV if it has none. */
int uaed_hold_sg(const struct uaed_hold *h);
void uaed_hold_free(struct uaed_hold *h);
/* Delete the held LU through its directory fd, as uaeventd's own removal; frees @h. */
int uaed_lu_delete(const struct uaed_lun *l, struct uaed_hold *h);
/* The LU's sg node opened (not exclusively), or -errno. */
int uaed_lu_open_sg(const struct uaed_lun *l);
/* The LU's disk name ("sdc"); false (and "") if it has none. */
bool uaed_lu_disk(const struct uaed_lun *l, char *disk, size_t size);
/*
 * After a scan: compare @before with the target's REPORT LUNS; log the ones gone, and
 * under @remove_stale remove each that is provably unused and still the LU it was, those
 * held back for a moment looked at again within @budget_s (uaed_hold_rounds()).
 */
void uaed_check_stale(const struct uaed_lun *before, int n_before, bool remove_stale,
		      unsigned int budget_s);

/*
 * What became of a LU that had to go, a stale one or one whose number another volume took
 * (UAEVENTS_STALE=, UAEVENTS_REUSED=): uaed_outcome_name() gives the field's value.
 */
enum uaed_outcome { UAED_LOGGED, UAED_KEPT, UAED_REMOVED, UAED_FAILED };
const char *uaed_outcome_name(enum uaed_outcome o);

#endif /* UAED_STALE_H */
