/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd's hook scripts, in the manner of ZFS's zedlets: executables in one folder,
 * named after the events they want, run per event with an environment built from scratch.
 */
#ifndef UAED_HOOKS_H
#define UAED_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "event.h"

struct uaed_hooks;

/* A hook's PATH, as every hook gets it. */
#define UAED_HOOK_PATH "PATH=/usr/sbin:/usr/bin:/sbin:/bin"

int uaed_hooks_new(struct uaed_hooks **ret, sd_event *loop);
void uaed_hooks_free(struct uaed_hooks *h);
/*
 * (Re)read the folder: each hook opened once and checked on the open file; hooks not
 * owned by root or writable by group or others, and folders (up to /) likewise, are
 * refused, logged.
 */
void uaed_hooks_scan(struct uaed_hooks *h, const struct uaed_config *cfg);
/*
 * Start (or queue, past max_concurrent) every hook that wants @e; a bit per hook queued
 * (by its place in the folder's list, at most 64).  The hooks of @repeat get UAEVENTS_FLOOD_REPEAT=1: each took this
 * LU's space alert within its target's window already (floods.h).
 */
uint64_t uaed_hooks_run(struct uaed_hooks *h, const struct uaed_event *e, uint64_t repeat);

/*
 * The runs events asked for that have not ended (queued or running), appended to @owed
 * as owed work (owed.h): 0 or -ENOMEM.  A run is done when its hook exits, whatever its
 * status, or is killed by its timeout.
 */
int uaed_hooks_owed(const struct uaed_hooks *h, struct json_object *owed);
/*
 * Changes whenever what uaed_hooks_owed() gives may have: the state is written within a
 * second.
 */
uint64_t uaed_hooks_changes(const struct uaed_hooks *h);
/*
 * Queue a run a previous run owed, with the environment it had, by the hook's name in the
 * folder as read now; "hook NAME" into @what (for the journal).  0; -EINVAL when @owed is
 * not a hook run; -ENOENT when no such hook is there now; -ENOBUFS when the queue is full;
 * -ESTALE when not @this_boot (its devices' names may be another's now).
 */
int uaed_hooks_resume(struct uaed_hooks *h, struct json_object *owed, char *what, size_t size,
		      bool this_boot);

struct uaed_hooks_stats {
	unsigned int running, queued;
	uint64_t dropped;	/* runs not made: queue full, or no memory or descriptor */
};

void uaed_hooks_get_stats(const struct uaed_hooks *h, struct uaed_hooks_stats *st);

/*
 * A device- or kernel-supplied string made safe for an environment variable: printable
 * ASCII without shell metacharacters ($ ` ; & | < > ( ) { } \ " ' * ? ! ~ #), each of
 * those and any control character replaced by '_'.  Always NUL-terminates.
 */
void uaed_sanitize(const char *in, char *out, size_t size);

#endif /* UAED_HOOKS_H */
