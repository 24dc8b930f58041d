// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: storm coalescing.  The first occurrence of a kind of event on a device is
 * published at once; repeats within the window are held in one event whose repeat
 * count grows, published when the window ends.  A storm thus gives one event per window
 * and every occurrence is counted.  Pure logic: the caller supplies time and locking.
 */
#include <linux/string.h>

#include "uae.h"

static bool key_equal(const struct uae_coalesce_key *a, const struct uae_coalesce_key *b)
{
	return a->sdev == b->sdev && a->kind == b->kind && a->host_byte == b->host_byte &&
	       a->status == b->status && a->sense_key == b->sense_key && a->asc == b->asc &&
	       a->ascq == b->ascq && a->opcode == b->opcode;
}

static struct uae_recent *find(struct uae_coalescer *c, const struct uae_coalesce_key *key)
{
	int i;

	for (i = 0; i < UAE_RECENT_SLOTS; i++)
		if (c->slot[i].used && key_equal(&c->slot[i].key, key))
			return &c->slot[i];
	return NULL;
}

/* A free slot, else the one published longest ago that holds nothing. */
static struct uae_recent *victim(struct uae_coalescer *c)
{
	struct uae_recent *best = NULL;
	int i;

	for (i = 0; i < UAE_RECENT_SLOTS; i++) {
		struct uae_recent *r = &c->slot[i];

		if (!r->used)
			return r;
		if (!r->held && (!best || r->last_ns < best->last_ns))
			best = r;
	}
	return best;
}

enum uae_coalesce_verdict uae_coalesce(struct uae_coalescer *c, struct uae_event *ev,
				       u64 now_ns, u64 window_ns)
{
	struct uae_recent *r;

	if (!window_ns)
		return UAE_COALESCE_PUBLISH;
	r = find(c, &ev->key);
	if (r && now_ns - r->last_ns < window_ns) {
		if (r->held) {
			r->held->rec.repeat++;
			return UAE_COALESCE_FOLD;
		}
		r->held = ev;
		return UAE_COALESCE_HOLD;
	}
	if (!r)
		r = victim(c);
	/* Every slot holds a storm: publish, uncoalesced rather than lost. */
	if (!r)
		return UAE_COALESCE_PUBLISH;
	r->used = true;
	r->key = ev->key;
	r->last_ns = now_ns;
	r->held = NULL;
	return UAE_COALESCE_PUBLISH;
}

/* One held event whose window has ended (all of them once @window_ns is 0), or NULL. */
struct uae_event *uae_coalesce_take_due(struct uae_coalescer *c, u64 now_ns, u64 window_ns)
{
	int i;

	for (i = 0; i < UAE_RECENT_SLOTS; i++) {
		struct uae_recent *r = &c->slot[i];
		struct uae_event *ev = r->held;

		if (!ev || now_ns - r->last_ns < window_ns)
			continue;
		r->held = NULL;
		r->last_ns = now_ns;	/* a storm that goes on waits a whole window again */
		return ev;
	}
	return NULL;
}

/* When the next held event falls due; U64_MAX if none is held. */
u64 uae_coalesce_next_due(const struct uae_coalescer *c, u64 window_ns)
{
	u64 due = U64_MAX;
	int i;

	for (i = 0; i < UAE_RECENT_SLOTS; i++)
		if (c->slot[i].held && c->slot[i].last_ns + window_ns < due)
			due = c->slot[i].last_ns + window_ns;
	return due;
}
