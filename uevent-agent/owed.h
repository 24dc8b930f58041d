/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Owed work: what events called for and is not done yet, a rescan job (rescan.h) or a hook
 * run (hooks.h), as one JSON object each, kept in the state file (state.h) so that a
 * restart takes it up again.  The events themselves are not needed then: a job is
 * rebuilt from the fields of its event, a hook run from its environment.
 *
 *	{"job": "rescan-paths", "reports": 2, "event": {"kind": "ua", "name": ..., ...}}
 *	{"hook": "CAPACITY_DATA_HAS_CHANGED-log", "env": ["PATH=...", "UAEVENTS_KIND=ua", ...]}
 */
#ifndef UAED_OWED_H
#define UAED_OWED_H

#include <json-c/json.h>

#include "event.h"
#include "state.h"

/*
 * The first piece of the owed work: {"boot": ID, "acted": {"instance": HEX, "seq": N}}, the
 * boot the work is of (a device's name means nothing in another) and the last event whose
 * actions were handed out.  0 or -ENOMEM.
 */
int uaed_owed_meta(struct json_object *owed, const struct uaed_state *acted);
/* 0 with *@acted, for this boot; -ESTALE: of an earlier boot; -EINVAL: not that piece. */
int uaed_owed_meta_parse(struct json_object *o, struct uaed_state *acted);

/* {"job": @job, "reports": @reports, "event": @e}; NULL without memory. */
struct json_object *uaed_owed_job(const char *job, unsigned int reports,
				  const struct uaed_event *e);
/*
 * A job's name, the reports it answers (1 when not said) and its event (e->ev NULL): 0, or
 * -EINVAL when @o is not a job.
 */
int uaed_owed_job_parse(struct json_object *o, const char **job, unsigned int *reports,
			struct uaed_event *e);
/* {"hook": @name, "env": @envp}; NULL without memory. */
struct json_object *uaed_owed_hook(const char *name, char *const *envp);
/*
 * A hook run's name and its environment (@envp, up to @max strings "KEY=value" of printable
 * ASCII, then NULL; each the caller's to free): 0, or -EINVAL when @o is not a hook run.
 */
int uaed_owed_hook_parse(struct json_object *o, const char **name, char **envp, size_t max);

#endif /* UAED_OWED_H */
