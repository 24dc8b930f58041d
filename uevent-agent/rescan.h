/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd's rescans: a target scan when the LUN inventory changed, a rescan of every path
 * of a logical unit when its capacity changed, a device rescan when its identity changed.
 * Debounced per target (or WWID), never two at once on one target, each in a child process
 * so that a slow scan does not stall the event loop.
 */
#ifndef UAED_RESCAN_H
#define UAED_RESCAN_H

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

#endif /* UAED_RESCAN_H */
