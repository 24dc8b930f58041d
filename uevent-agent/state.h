/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd's memory across restarts: the last event logged, as instance id and sequence
 * number, kept in a state file written atomically, and checked against the journal itself
 * (which may hold entries the state file missed when the daemon died before writing it:
 * the module's events are written within a second, uaeventd.c).  Beside it, in the same
 * file and so written at the same moment, the work those events called for that is not
 * done yet (owed.h): a restart, a kill or an upgrade between an event and the end of its
 * action loses neither, as long as the module's history still holds what was not written.
 *
 * The file: its first line "INSTANCE SEQ" (what older uaeventd reads), then one JSON
 * object per line, each a piece of owed work.
 */
#ifndef UAED_STATE_H
#define UAED_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>
#include <systemd/sd-journal.h>

struct uaed_state {
	uint64_t instance;
	uint64_t seq;
};

/* 0, -ENOENT when there is no state yet. */
int uaed_state_load(const char *path, struct uaed_state *st);
/*
 * 0 if the state file can be written where @path says (its directory made if need be),
 * else -errno: a daemon that cannot remember where it stopped says so once, at start.
 */
int uaed_state_check(const char *path);
/*
 * The owed work the state file holds, into *@owed (a JSON array, NULL when none): the
 * number of lines that did not parse (skipped), or -errno (-ENOENT: no state yet).
 */
int uaed_state_load_owed(const char *path, struct json_object **owed);
/* Write @st and @owed (a JSON array, or NULL) to a temporary file, fsync, rename over @path. */
int uaed_state_save(const char *path, const struct uaed_state *st, struct json_object *owed);
/*
 * Wait until journald has stored everything sent to it before now (a killed instance's
 * last entries may still be in its socket), at most @timeout_usec: 0 or -errno.
 */
int uaed_journal_sync(uint64_t timeout_usec);
/*
 * How far uaeventd's journal entries of @instance go on without a hole after @from: the
 * highest N such that every event from @from + 1 to N was logged (or reported lost by a
 * gap entry); @from if none.
 */
uint64_t uaed_journal_logged_through(uint64_t instance, uint64_t from);
/*
 * The last event of module instance @instance that uaeventd's newest journal entries
 * (10,000 at most) cover: where a state file that cannot be read would have been.  0, or
 * -ENODATA without such an entry, or -errno (said) when the journal cannot be searched.
 */
int uaed_journal_newest_logged(uint64_t instance, uint64_t *newest);
/* The value of @field in @j's current entry, into @buf: false if none, or if it does not fit. */
bool uaed_journal_field(sd_journal *j, const char *field, char *buf, size_t size);
/*
 * The local journal at uaeventd's own entries (SYSLOG_IDENTIFIER=uaeventd from this user,
 * as journald's _UID says: no sender can forge it) that match any of the @n @matches
 * ("FIELD=value", one field); 0, or -errno with nothing opened.
 */
int uaed_journal_open_own(sd_journal **ret, const char *const *matches, size_t n);

#endif /* UAED_STATE_H */
