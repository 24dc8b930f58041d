// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: storm coalescing.  The first occurrence of a kind of event on a device is
 * published at once; repeats within the window are held in one event whose repeat
 * count grows, published when the window ends.  A storm thus gives one event per window
 * and every occurrence is counted.  Pure logic: the caller supplies time and locking.
 *
 * The verdict comes before the caller builds an event, so that folding an occurrence
 * into a held one costs no allocation, no device reference and no decoding.
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

/* The held event of @r leaves the coalescer; a storm that goes on waits a whole window. */
static struct uae_event *take(struct uae_recent *r, u64 now_ns)
{
	struct uae_event *ev = r->held;

	r->held = NULL;
	r->last_ns = now_ns;
	return ev;
}

enum uae_coalesce_verdict uae_coalesce(struct uae_coalescer *c,
				       const struct uae_coalesce_key *key, u64 now_ns,
				       u64 window_ns, struct uae_recent **slot,
				       struct uae_event **due)
{
	struct uae_recent *r;

	*slot = NULL;
	*due = NULL;
	if (!window_ns)
		return UAE_COALESCE_PUBLISH;
	r = find(c, key);
	/*
	 * The held event's window has ended but it was not flushed yet: it goes out now,
	 * before this occurrence, which opens the next window.
	 */
	if (r && r->held && now_ns - r->last_ns >= window_ns)
		*due = take(r, now_ns);
	if (r && now_ns - r->last_ns < window_ns) {
		if (r->held) {
			r->held->rec.repeat++;
			return UAE_COALESCE_FOLD;
		}
		*slot = r;
		return UAE_COALESCE_HOLD;
	}
	if (!r)
		r = victim(c);
	/* Every slot holds a storm: publish, uncoalesced rather than lost. */
	if (!r)
		return UAE_COALESCE_PUBLISH;
	r->used = true;
	r->key = *key;
	r->last_ns = now_ns;
	r->held = NULL;
	return UAE_COALESCE_PUBLISH;
}

void uae_coalesce_hold(struct uae_recent *slot, struct uae_event *ev)
{
	slot->held = ev;
}

/* One held event whose window has ended (all of them once @window_ns is 0), or NULL. */
struct uae_event *uae_coalesce_take_due(struct uae_coalescer *c, u64 now_ns, u64 window_ns)
{
	int i;

	for (i = 0; i < UAE_RECENT_SLOTS; i++) {
		struct uae_recent *r = &c->slot[i];

		if (r->held && now_ns - r->last_ns >= window_ns)
			return take(r, now_ns);
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
