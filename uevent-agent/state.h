/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd's memory across restarts: the last event logged, as instance id and sequence
 * number, kept in a state file written atomically, and checked against the journal itself
 * (which may hold an entry the state file missed when the daemon died between the two).
 */
#ifndef UAED_STATE_H
#define UAED_STATE_H

#include <stdint.h>

struct uaed_state {
	uint64_t instance;
	uint64_t seq;
};

/* 0, -ENOENT when there is no state yet. */
int uaed_state_load(const char *path, struct uaed_state *st);
/* Write to a temporary file, fsync, rename over @path. */
int uaed_state_save(const char *path, const struct uaed_state *st);
/* The highest UAEVENTS_SEQ uaeventd logged for @instance, 0 if none. */
uint64_t uaed_journal_last_seq(uint64_t instance);

#endif /* UAED_STATE_H */
