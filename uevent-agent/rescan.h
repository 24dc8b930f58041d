/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd's rescans: a target scan when the LUN inventory changed, a rescan of every path
 * of a logical unit when its capacity changed, a device rescan when its identity changed.
 * Debounced per target (or WWID), never two at once on one target, each in a child process
 * so that a slow scan does not stall the event loop.
 */
#ifndef UAED_RESCAN_H
#define UAED_RESCAN_H

#include <json-c/json.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "event.h"

struct uaed_rescan;

int uaed_rescan_new(struct uaed_rescan **ret, sd_event *loop, const struct uaed_config *cfg);
void uaed_rescan_free(struct uaed_rescan *r);
void uaed_rescan_event(struct uaed_rescan *r, const struct uaed_event *e);
/* Each job's end is counted there (metrics.h); NULL: not counted. */
struct uaed_metrics;
void uaed_rescan_set_metrics(struct uaed_rescan *r, struct uaed_metrics *m);

/*
 * The jobs events asked for that are not done yet (due, waiting or running), appended to
 * @owed as owed work (owed.h): 0 or -ENOMEM.
 */
int uaed_rescan_owed(const struct uaed_rescan *r, struct json_object *owed);
/*
 * Changes whenever what uaed_rescan_owed() gives may have: the state is written within a
 * second.
 */
uint64_t uaed_rescan_changes(const struct uaed_rescan *r);
/*
 * Take up a job a previous run owed, as a new report of its event; its key into @what
 * (for the journal).  0; -EINVAL when @owed is not such a job; -EPERM when the
 * configuration no longer allows it (rescans off, or its target not in the allow-list);
 * -ESTALE when not @this_boot (the host's numbering may be another's now).
 */
int uaed_rescan_resume(struct uaed_rescan *r, struct json_object *owed, char *what,
		       size_t size, bool this_boot);

#endif /* UAED_RESCAN_H */
