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
#include <stdint.h>

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
 * For hooks (a bit per hook, by its place in the hook folder's list): those that took the
 * alert of @event on LU @hctl in its target's window already (0 for what no window
 * follows), and those that took it now.  A hook that was not queued for the LU's first
 * event (an injected one, a full queue) takes the next; one queued counts as having
 * taken it, also if it then could not start (hooks.c logs that).  A reread hook folder
 * numbers hooks anew: forget them all (at least once).  A restart forgets them too.
 */
uint64_t uaed_floods_hooked(struct uaed_floods *f, const char *event, const char *hctl);
void uaed_floods_add_hooked(struct uaed_floods *f, const char *event, const char *hctl,
			    uint64_t hooks);
void uaed_floods_forget_hooks(struct uaed_floods *f);

#endif /* UAED_FLOODS_H */
