/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd: Prometheus metrics through node_exporter's textfile collector.
 *
 * One file, uaevents.prom, in the collector's directory ([metrics] textfile_directory;
 * Debian's prometheus-node-exporter reads /var/lib/prometheus/node-exporter), replaced
 * atomically (written beside it under a name the collector skips, then renamed) a second
 * after a change, and every minute regardless, so that its timestamp says the daemon is
 * alive.  Counters start at 0 when uaeventd starts; Prometheus' rate() takes the reset.
 * The thin-provisioning event times are read back from uaeventd's journal entries.
 * Without the directory (no node_exporter) nothing is written, and the journal says so once.
 */
#ifndef UAED_METRICS_H
#define UAED_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "event.h"

struct uaed_metrics;

/* @dir "" turns metrics off.  Never fails for the directory: see above. */
int uaed_metrics_new(struct uaed_metrics **ret, sd_event *loop, const char *dir);
struct uaed_metrics *uaed_metrics_free(struct uaed_metrics *m);
/* An event and how many occurrences it stands for (coalesced repeats); @m may be NULL. */
void uaed_metrics_event(struct uaed_metrics *m, const struct uaed_event *e, uint64_t count);
/* A gap no replay could fill: @count events the daemon was told it lost. */
void uaed_metrics_lost(struct uaed_metrics *m, uint64_t count);
/* A rescan job ended: "scan-target", "rescan-paths", ... */
void uaed_metrics_job(struct uaed_metrics *m, const char *job, bool failed);
/* Write now if anything changed (at exit). */
void uaed_metrics_flush(struct uaed_metrics *m);

#endif /* UAED_METRICS_H */
