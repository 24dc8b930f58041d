/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd's rescan jobs, each run in a child of its own (rescan.c schedules them): a
 * target scan, the rescan of a LU's paths with the resize after it, a device rescan, the
 * reconciler's TEST UNIT READYs.  Each logs what it did and returns 0 or -errno.
 */
#ifndef UAED_JOBS_H
#define UAED_JOBS_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "event.h"
#include "paths.h"

struct uaed_removals;
struct uaed_paths;

/* What a job works with, as the daemon had it when it forked the job's child. */
struct uaed_job_ctx {
	const struct uaed_config *cfg;
	struct uaed_removals *removals;	/* LUNs removed here by someone else, lately */
	struct uaed_paths *paths;	/* which devices show which WWID; NULL: walk each time */
	char (*idle)[16];		/* the reconciler's idle LUs' sg devices */
	unsigned int n_idle;
};

/*
 * Add the LUNs the target of @e lists and this host lacks; look for the ones it no longer
 * lists.  @reports events asked for it (0 with @owed 0: the reconciler's probe of a target
 * with no LU here), @owed of them from the last run; @verify: a second look after a scan.
 */
int uaed_job_scan_target(const struct uaed_job_ctx *ctx, const struct uaed_event *e,
			 unsigned int reports, unsigned int owed, bool verify);
/*
 * What a path rescan proved at its end: each of the @n paths in @hctl (those it found for
 * the WWID, which include the one that reported) showed the device's capacity after the
 * module's events up to @seq of @instance had been raised.  A report from one of them
 * among those events is the rescan's own echo (another path's unit attention, taken by
 * its commands) or older than what the host shows: no second look.  @instance 0: nothing
 * proved.
 */
struct uaed_job_proof {
	uint64_t instance, seq;
	unsigned int n;
	char hctl[UAED_LU_PATHS_MAX][32];
};
/*
 * Rescan every path of @e's LU (by WWID), then resize_command; @verify: a second look.
 * @proof, if not NULL, is filled in as above (memory the daemon shares with the child).
 */
int uaed_job_rescan_paths(const struct uaed_job_ctx *ctx, const struct uaed_event *e,
			  bool verify, struct uaed_job_proof *proof);
/* Rescan the device of @e, whose identity changed, and log old and new. */
int uaed_job_rescan_device(const struct uaed_event *e);
/* One TEST UNIT READY to each idle LU of @ctx. */
int uaed_job_reconcile(const struct uaed_job_ctx *ctx);

#endif /* UAED_JOBS_H */
