// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: storm coalescing.  The first occurrence of a kind of event on a device is
 * published at once; repeats within the window are held in one event whose repeat
 * count grows, published when the window ends.  A storm thus gives one event per window
 * and every occurrence is counted.  Pure logic: the caller supplies time and locking.
 *
 * The verdict comes before the caller builds an event, so that folding an occurrence
 * into a held one costs no allocation, no device reference and no decoding.
 *
 * Many devices failing at once (a lost path, a controller reboot) make as many keys:
 * slots are found by hash, and a slot is taken from another key only once that key's
 * window has ended, so keys never push each other out while they storm (which would
 * publish every occurrence).  The slots and the pool are finite: a storm that finds
 * neither a slot nor room to hold an event is counted in its host's summary for that
 * kind of failure (UAEVENTS_FLAG_SUMMARY), which storms like any other key.  Unit
 * attentions are never summarized: each asks something of the host for its own device.
 */
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "uae.h"

int uae_coalescer_init(struct uae_coalescer *c, unsigned int nr)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->bits = ilog2(roundup_pow_of_two(nr));
	c->slot = vcalloc(nr, sizeof(*c->slot));
	c->bucket = vcalloc(1U << c->bits, sizeof(*c->bucket));
	c->origin_bucket = vcalloc(1U << c->bits, sizeof(*c->origin_bucket));
	if (!c->slot || !c->bucket || !c->origin_bucket) {
		uae_coalescer_free(c);
		return -ENOMEM;
	}
	c->nr = nr;
	/* Room for the hosts' summaries, and in the pool for what is not held. */
	c->fine_max = nr - nr / 8;
	c->held_max = nr / 2;
	INIT_LIST_HEAD(&c->free);
	INIT_LIST_HEAD(&c->recent);
	INIT_LIST_HEAD(&c->idle);
	for (i = 0; i < nr; i++)
		list_add_tail(&c->slot[i].by_time, &c->free);
	return 0;
}

void uae_coalescer_free(struct uae_coalescer *c)
{
	vfree(c->slot);
	vfree(c->bucket);
	vfree(c->origin_bucket);
	c->slot = NULL;
	c->bucket = NULL;
	c->origin_bucket = NULL;
}

static bool uae_key_summary(const struct uae_coalesce_key *key)
{
	return key->flags & UAEVENTS_FLAG_SUMMARY;
}

static bool uae_key_equal(const struct uae_coalesce_key *a, const struct uae_coalesce_key *b)
{
	return a->origin == b->origin && a->host == b->host && a->lun == b->lun &&
	       a->host_no == b->host_no && a->channel == b->channel && a->id == b->id &&
	       a->flags == b->flags &&
	       a->kind == b->kind && a->host_byte == b->host_byte && a->status == b->status &&
	       a->sense_key == b->sense_key && a->asc == b->asc && a->ascq == b->ascq &&
	       a->opcode == b->opcode && a->transport == b->transport && a->detail == b->detail;
}

static struct hlist_head *uae_key_bucket(struct uae_coalescer *c, const struct uae_coalesce_key *key)
{
	u32 h = jhash_3words(key->kind | key->host_byte << 8 | key->status << 16 |
			     key->sense_key << 24,
			     key->asc | key->ascq << 8 | key->opcode << 16,
			     key->flags ^ key->detail ^ key->transport << 24,
			     hash_ptr(key->origin, 32));

	return &c->bucket[hash_32(h, c->bits)];
}

static struct hlist_head *uae_origin_bucket(struct uae_coalescer *c, const void *origin)
{
	return &c->origin_bucket[hash_ptr(origin, c->bits)];
}

static struct uae_recent *uae_slot_find(struct uae_coalescer *c, const struct uae_coalesce_key *key)
{
	struct uae_recent *r;

	hlist_for_each_entry(r, uae_key_bucket(c, key), hash)
		if (uae_key_equal(&r->key, key))
			return r;
	return NULL;
}

static bool uae_window_ended(const struct uae_recent *r, u64 now_ns, u64 window_ns)
{
	return now_ns - r->last_ns >= window_ns;
}

/* A slot in use that holds nothing and whose window has ended goes back to the free list. */
static void uae_slot_release(struct uae_coalescer *c, struct uae_recent *r)
{
	hlist_del(&r->hash);
	hlist_del_init(&r->by_origin);
	list_del(&r->idle);
	list_move(&r->by_time, &c->free);
	if (!uae_key_summary(&r->key))
		c->fine--;
}

/*
 * The slots published longest ago that hold nothing and whose window has ended go, a few
 * at a time: this runs with interrupts off, and uae_slot_new() takes ended ones too.
 */
#define UAE_PRUNE_BATCH 16

static void uae_prune(struct uae_coalescer *c, u64 now_ns, u64 window_ns)
{
	struct uae_recent *r;
	int n = 0;

	while (n++ < UAE_PRUNE_BATCH &&
	       (r = list_first_entry_or_null(&c->recent, struct uae_recent, by_time)) &&
	       !r->held && uae_window_ended(r, now_ns, window_ns))
		uae_slot_release(c, r);
}

/*
 * A slot for a new key: a free one, else the idle one published longest ago if its
 * window has ended.  A slot whose key may still storm is never taken.
 */
static struct uae_recent *uae_slot_new(struct uae_coalescer *c, const struct uae_coalesce_key *key,
				   u64 now_ns, u64 window_ns)
{
	struct uae_recent *r;
	int n = 0;

	while (n++ < UAE_PRUNE_BATCH &&
	       (r = list_first_entry_or_null(&c->idle, struct uae_recent, idle)) &&
	       uae_window_ended(r, now_ns, window_ns) &&
	       (list_empty(&c->free) || (!uae_key_summary(key) && c->fine >= c->fine_max)))
		uae_slot_release(c, r);
	if (!uae_key_summary(key) && c->fine >= c->fine_max)
		return NULL;
	r = list_first_entry_or_null(&c->free, struct uae_recent, by_time);
	if (!r)
		return NULL;
	r->key = *key;
	r->last_ns = now_ns;
	r->held = NULL;
	hlist_add_head(&r->hash, uae_key_bucket(c, key));
	hlist_add_head(&r->by_origin, uae_origin_bucket(c, key->origin));
	list_move_tail(&r->by_time, &c->recent);
	list_add_tail(&r->idle, &c->idle);
	if (!uae_key_summary(key))
		c->fine++;
	return r;
}

/* The held event of @r leaves the coalescer; a storm that goes on waits a whole window. */
static struct uae_event *uae_slot_take(struct uae_coalescer *c, struct uae_recent *r, u64 now_ns)
{
	struct uae_event *ev = r->held;

	r->held = NULL;
	r->last_ns = now_ns;
	c->held--;
	list_move_tail(&r->by_time, &c->recent);
	list_add_tail(&r->idle, &c->idle);
	return ev;
}

/* @key becomes the key of its host's summary of this kind of failure. */
static void uae_summarize(struct uae_coalesce_key *key)
{
	key->origin = key->host;
	key->channel = 0;
	key->id = 0;
	key->lun = 0;
	key->opcode = 0;
	key->flags |= UAEVENTS_FLAG_SUMMARY;
}

/* Published alone, after what its key held: sequence order is time order. */
static enum uae_coalesce_verdict uae_publish_alone(struct uae_coalescer *c,
						   const struct uae_coalesce_key *key,
						   u64 now_ns, struct uae_event **due)
{
	struct uae_recent *r = uae_slot_find(c, key);

	if (r && r->held)
		*due = uae_slot_take(c, r, now_ns);
	return UAE_COALESCE_PUBLISH;
}

enum uae_coalesce_verdict uae_coalesce(struct uae_coalescer *c, struct uae_coalesce_key *key,
				       u64 now_ns, u64 window_ns, unsigned int state,
				       struct uae_recent **slot, struct uae_event **due)
{
	/* A unit attention or an NVMe controller's news is news for its device alone. */
	bool may_summarize = key->kind != UAEVENTS_KIND_UA && key->kind != UAEVENTS_KIND_AEN &&
			     key->kind != UAEVENTS_KIND_ANA;
	bool short_of_events = state & UAE_COALESCE_SHORT;
	struct uae_coalesce_key fine_key = *key;
	struct uae_recent *r;

	*slot = NULL;
	*due = NULL;
	/* Coalescing just turned off. */
	if (!window_ns)
		return uae_publish_alone(c, key, now_ns, due);
	/*
	 * A device on its way out gets no new slot: uae_coalesce_forget() has run or will,
	 * and the allocator may give its memory to the next one.  Its failures (the
	 * commands in flight at removal, a host's worth when the host goes) storm in its
	 * host's summary; a unit attention is published as it comes.
	 */
	if (state & UAE_COALESCE_LEAVING) {
		if (!may_summarize)
			return uae_publish_alone(c, key, now_ns, due);
		short_of_events = true;
	}
	uae_prune(c, now_ns, window_ns);
again:
	r = uae_slot_find(c, key);
	if (!r && short_of_events && may_summarize && !uae_key_summary(key)) {
		uae_summarize(key);
		goto again;
	}
	/*
	 * The held event's window has ended but it was not flushed yet: it goes out now,
	 * before this occurrence, which opens the next window.  (Only one: a second, of the
	 * summary, folds this occurrence and is flushed in its turn.)
	 */
	if (r && r->held && uae_window_ended(r, now_ns, window_ns) && !*due)
		*due = uae_slot_take(c, r, now_ns);
	if (r && r->held) {
		/* (Saturating: a host's summary over an hour-long window.) */
		if (r->held->rec.repeat < U32_MAX)
			r->held->rec.repeat++;
		return UAE_COALESCE_FOLD;
	}
	if (r && !uae_window_ended(r, now_ns, window_ns)) {
		/* Holding an event for a device takes one from the pool for a window. */
		if (!uae_key_summary(key) && (short_of_events || c->held >= c->held_max)) {
			if (!may_summarize)
				return UAE_COALESCE_PUBLISH;
			uae_summarize(key);
			goto again;
		}
		*slot = r;
		return UAE_COALESCE_HOLD;
	}
	if (r) {
		/* Quiet for a window: published at once, and a window starts. */
		r->last_ns = now_ns;
		list_move_tail(&r->by_time, &c->recent);
		list_move_tail(&r->idle, &c->idle);
		return UAE_COALESCE_PUBLISH;
	}
	r = uae_slot_new(c, key, now_ns, window_ns);
	if (!r && may_summarize && !uae_key_summary(key)) {
		uae_summarize(key);
		goto again;
	}
	/* No slot at all: published, uncoalesced rather than lost, as what it is. */
	if (!r)
		*key = fine_key;
	return UAE_COALESCE_PUBLISH;
}

void uae_coalesce_hold(struct uae_coalescer *c, struct uae_recent *slot, struct uae_event *ev)
{
	slot->held = ev;
	c->held++;
	list_del(&slot->idle);
}

/*
 * One held event whose window has ended (all of them once @window_ns is 0), or NULL.
 * Slots holding nothing whose window has ended are let go on the way.
 */
struct uae_event *uae_coalesce_take_due(struct uae_coalescer *c, u64 now_ns, u64 window_ns)
{
	struct uae_recent *r, *tmp;

	list_for_each_entry_safe(r, tmp, &c->recent, by_time) {
		if (!uae_window_ended(r, now_ns, window_ns))
			break;
		if (r->held)
			return uae_slot_take(c, r, now_ns);
		uae_slot_release(c, r);
	}
	return NULL;
}

/*
 * When the earliest window ends, if an event is held; U64_MAX if none is.  (That window
 * may be an idle slot's: the flush then lets it go and asks again.)
 */
u64 uae_coalesce_next_due(const struct uae_coalescer *c, u64 window_ns)
{
	const struct uae_recent *r;

	if (!c->held)
		return U64_MAX;
	r = list_first_entry(&c->recent, struct uae_recent, by_time);
	return r->last_ns + window_ns;
}

/*
 * The key keeps its bucket, where no key can match it any more.  At most @budget at a
 * time (interrupts are off): returns true if there may be more.
 */
static bool uae_forget_origin(struct uae_coalescer *c, const void *origin, unsigned int budget)
{
	struct hlist_node *tmp;
	struct uae_recent *r;

	hlist_for_each_entry_safe(r, tmp, uae_origin_bucket(c, origin), by_origin) {
		if (r->key.origin != origin)
			continue;
		if (!budget--)
			return true;
		r->key.origin = NULL;
		hlist_del_init(&r->by_origin);
	}
	return false;
}

bool uae_coalesce_forget(struct uae_coalescer *c, const void *origin, const void *host)
{
	return uae_forget_origin(c, origin, UAE_PRUNE_BATCH) ||
	       (host && uae_forget_origin(c, host, UAE_PRUNE_BATCH));
}
