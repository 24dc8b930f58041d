/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd: LUNs removed on this host by someone else (a CSI driver, an administrator
 * writing "delete"), seen through the kernel's remove uevents.  A target scan does not add
 * such a LUN back for [rescan] removal_grace_s, even while the array still reports it: the
 * removal was deliberate, and the array is often told only afterwards.  uaeventd's own
 * removals of stale LUNs, done in a rescan child, are marked in UAED_OWN_REMOVALS_DIR just
 * before the write to "delete" and do not count.  When a host goes, what was removed behind
 * it is forgotten: its number is given to the next host added, which is other storage.
 * They are kept across restarts of the daemon within one boot (beside the state file),
 * with the devices the host had: one gone whose remove uevent was not seen (lost to an
 * overflow of the uevent socket, or made while no uaeventd ran) counts as removed too.
 */
#ifndef UAED_REMOVALS_H
#define UAED_REMOVALS_H

#include <stdbool.h>

#include <systemd/sd-event.h>

#define UAED_OWN_REMOVALS_DIR "/run/uaevents/removing"

struct uaed_removals;
struct uaed_paths;

/*
 * Removals an earlier instance saw in this boot are read from "removals" beside @state_file.
 * The same uevents keep @paths (the WWID index) honest: see paths.h.
 */
int uaed_removals_new(struct uaed_removals **ret, sd_event *loop, const char *state_file,
		      struct uaed_paths *paths);
struct uaed_removals *uaed_removals_free(struct uaed_removals *r);
/*
 * Seconds since device "H:C:T:L" was removed by someone else, if at most @grace_s ago;
 * -1 otherwise.  (In a rescan child: as the daemon knew it when the child started.)
 */
long uaed_removals_recent(const struct uaed_removals *r, const char *hctl,
			  unsigned int grace_s);
/*
 * In a rescan child, just before it decides what to add: the removals as the daemon has
 * written them since the child started.
 */
void uaed_removals_reload(struct uaed_removals *r);
/* Whether a device whose name starts with @prefix ("H:C:T:") was, within @grace_s. */
bool uaed_removals_recent_prefix(const struct uaed_removals *r, const char *prefix,
				 unsigned int grace_s);
/* In the child about to delete @hctl: the removal is uaeventd's own.  0 or -errno. */
int uaed_removals_mark_own(const char *hctl);
/* The delete failed: no removal is coming. */
void uaed_removals_unmark_own(const char *hctl);

#endif /* UAED_REMOVALS_H */
