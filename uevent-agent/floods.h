/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd: a flood of one space condition (soft threshold reached, space allocation
 * failed) over many LUNs behind one target, as when a thin pool shared by them runs low.
 * Each LU's first event of a window is logged as the alert it is, its repeats in the window
 * at notice priority; when the window ends, one summary entry per target and condition
 * names every LU ("... on 37 LUNs of target 2:0:1 in the last 60 s").  Every event is
 * still logged, with all its fields.
 */
#ifndef UAED_FLOODS_H
#define UAED_FLOODS_H

#include <stdbool.h>

#include <systemd/sd-event.h>

#define UAED_FLOOD_WINDOW_S 60

struct uaed_floods;

int uaed_floods_new(struct uaed_floods **ret, sd_event *loop);
struct uaed_floods *uaed_floods_free(struct uaed_floods *f);
/* Whether @event summarizes over a target: the space conditions. */
bool uaed_floods_covers(const char *event);
/*
 * Note @event on LU @hctl ("H:C:T:L", WWID @wwid) at @priority: true when it is the LU's
 * first of the window (log it at its priority), false for a repeat.
 */
bool uaed_floods_note(struct uaed_floods *f, const char *event, const char *hctl,
		      const char *wwid, int priority);
/*
 * For hooks: whether @event on LU @hctl still needs its alert in its target's window
 * (true also for what no window follows), and that it was handed to hooks.  An event
 * noted first in the window but whose hooks did not run (an injected one, a full queue)
 * leaves the alert due: the next event of that LU in the window makes it.
 */
bool uaed_floods_alert_due(struct uaed_floods *f, const char *event, const char *hctl);
void uaed_floods_alerted(struct uaed_floods *f, const char *event, const char *hctl);

#endif /* UAED_FLOODS_H */
