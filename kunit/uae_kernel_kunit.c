// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the module's logic that runs without SCSI hardware: storm coalescing
 * (kernel/uae_coalesce.c), the history ring (kernel/uae_history.c) and the netlink
 * attributes of an event (kernel/uae_message.c).
 */
#include <kunit/test.h>
#include <net/netlink.h>

#include "uae_coalesce.c"
#include "uae_history.c"
#include "uae_message.c"

/* uae_main.c's, which the history counts in. */
struct uae_stats uae_stats;

#define MS(n) ((u64)(n) * NSEC_PER_MSEC)

/* An event and the key the capture path would build for it. */
struct kunit_event {
	struct uae_event ev;
	struct uae_coalesce_key key;
};

/* The host of every device in these tests. */
static const char kunit_host;

static struct uae_event *new_event_of(struct kunit *test, const void *sdev, u8 kind, u8 asc,
				      u32 flags)
{
	struct kunit_event *kev = kunit_kzalloc(test, sizeof(*kev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, kev);
	kev->key = (struct uae_coalesce_key){ .origin = sdev, .host = &kunit_host,
					      .flags = flags, .kind = kind,
					      .sense_key = 6, .asc = asc };
	kev->ev.rec.repeat = 1;
	return &kev->ev;
}

static struct uae_event *new_event(struct kunit *test, const void *sdev, u8 asc)
{
	return new_event_of(test, sdev, UAEVENTS_KIND_UA, asc, 0);
}

static struct uae_coalescer *coalescer_new(struct kunit *test, unsigned int nr)
{
	struct uae_coalescer *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, uae_coalescer_init(c, nr), 0);
	return c;
}

static void coalescer_free(struct uae_coalescer *c)
{
	uae_coalescer_free(c);
}

/*
 * What the capture path does with a verdict, for an occurrence in @state (UAE_COALESCE_*);
 * any event that fell due is added to *@due.
 */
static enum uae_coalesce_verdict coalesce_in(struct uae_coalescer *c, struct uae_event *ev,
					     u64 now, u64 w, unsigned int state, u32 *due)
{
	struct uae_recent *slot;
	struct uae_event *late;
	struct kunit_event *kev = container_of(ev, struct kunit_event, ev);
	enum uae_coalesce_verdict v = uae_coalesce(c, &kev->key, now, w, state, &slot, &late);

	if (late && due)
		*due += late->rec.repeat;
	/* What the capture path puts in the record: the summary's flag. */
	ev->rec.flags = kev->key.flags;
	if (v == UAE_COALESCE_HOLD)
		uae_coalesce_hold(c, slot, ev);
	return v;
}

static enum uae_coalesce_verdict coalesce(struct uae_coalescer *c, struct uae_event *ev,
					  u64 now, u64 w, u32 *due)
{
	return coalesce_in(c, ev, now, w, 0, due);
}

static void uae_kunit_coalesce_off(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 32);
	int i;

	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, coalesce(c, new_event(test, test, 0x2a), MS(i), 0, NULL),
				UAE_COALESCE_PUBLISH);
	KUNIT_EXPECT_EQ(test, uae_coalesce_next_due(c, 0), U64_MAX);
	coalescer_free(c);
}

/* A storm: one event at once, then one per window carrying the count. */
static void uae_kunit_coalesce_storm(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 32);
	struct uae_event *held;
	u64 w = MS(1000);
	u32 due = 0;
	int i;

	KUNIT_EXPECT_EQ(test, coalesce(c, new_event(test, test, 0x2a), MS(0), w, &due),
			UAE_COALESCE_PUBLISH);
	held = new_event(test, test, 0x2a);
	KUNIT_EXPECT_EQ(test, coalesce(c, held, MS(10), w, &due), UAE_COALESCE_HOLD);
	for (i = 0; i < 48; i++)
		KUNIT_EXPECT_EQ(test, coalesce(c, new_event(test, test, 0x2a), MS(20 + i), w, &due),
				UAE_COALESCE_FOLD);
	KUNIT_EXPECT_EQ(test, held->rec.repeat, 49U);
	/* Another kind of event, or another device, is not part of the storm. */
	KUNIT_EXPECT_EQ(test, coalesce(c, new_event(test, test, 0x3f), MS(30), w, &due),
			UAE_COALESCE_PUBLISH);
	KUNIT_EXPECT_EQ(test, coalesce(c, new_event(test, c, 0x2a), MS(30), w, &due),
			UAE_COALESCE_PUBLISH);

	KUNIT_EXPECT_EQ(test, uae_coalesce_next_due(c, w), MS(1000));
	KUNIT_EXPECT_NULL(test, uae_coalesce_take_due(c, MS(999), w));
	KUNIT_EXPECT_PTR_EQ(test, uae_coalesce_take_due(c, MS(1000), w), held);
	KUNIT_EXPECT_NULL(test, uae_coalesce_take_due(c, MS(1000), w));

	/* The storm goes on: held again until a whole window after the flush. */
	held = new_event(test, test, 0x2a);
	KUNIT_EXPECT_EQ(test, coalesce(c, held, MS(1500), w, &due), UAE_COALESCE_HOLD);
	KUNIT_EXPECT_EQ(test, uae_coalesce_next_due(c, w), MS(2000));
	KUNIT_EXPECT_PTR_EQ(test, uae_coalesce_take_due(c, MS(2000), w), held);
	/* Quiet for a window: the next occurrence is published at once. */
	KUNIT_EXPECT_EQ(test, coalesce(c, new_event(test, test, 0x2a), MS(3001), w, &due),
			UAE_COALESCE_PUBLISH);
	KUNIT_EXPECT_EQ(test, due, 0U);
	coalescer_free(c);
}

/*
 * The window of a held event ends, and the next occurrence comes before the flush work
 * ran: the held event and its count must come out, never be overwritten.
 */
static void uae_kunit_coalesce_late_flush(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 32);
	struct uae_event *held, *next;
	u64 w = MS(1000);
	u32 due = 0;
	int i;

	coalesce(c, new_event(test, test, 0x2a), MS(0), w, &due);
	held = new_event(test, test, 0x2a);
	KUNIT_EXPECT_EQ(test, coalesce(c, held, MS(10), w, &due), UAE_COALESCE_HOLD);
	for (i = 0; i < 9; i++)
		coalesce(c, new_event(test, test, 0x2a), MS(20 + i), w, &due);
	KUNIT_EXPECT_EQ(test, held->rec.repeat, 10U);
	/* 1.2 s: the window ended at 1 s, the flush has not run. */
	next = new_event(test, test, 0x2a);
	KUNIT_EXPECT_EQ(test, coalesce(c, next, MS(1200), w, &due), UAE_COALESCE_HOLD);
	KUNIT_EXPECT_EQ(test, due, 10U);
	KUNIT_EXPECT_NULL(test, uae_coalesce_take_due(c, MS(1200), w));
	KUNIT_EXPECT_PTR_EQ(test, uae_coalesce_take_due(c, MS(2200), w), next);
	KUNIT_EXPECT_EQ(test, next->rec.repeat, 1U);
	coalescer_free(c);
}

/*
 * Every occurrence is counted once, whatever the arrival times and however late the flush
 * runs: occurrences == published events + repeats carried by held ones, over a long storm.
 */
static void uae_kunit_coalesce_conserves(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 32);
	u64 w = MS(100), now = 0, next_flush = 0;
	u32 counted = 0, occurrences = 0, seed = 1;
	struct uae_event *ev;
	int i;

	for (i = 0; i < 20000; i++) {
		seed = seed * 1103515245 + 12345;
		now += (seed >> 16) % 3000 * NSEC_PER_USEC;	/* 0-3 ms apart */
		ev = new_event(test, test, 0x20 + (seed >> 8) % 3);
		occurrences++;
		if (coalesce(c, ev, now, w, &counted) == UAE_COALESCE_PUBLISH)
			counted += ev->rec.repeat;
		/* The flush work runs late, sometimes very late. */
		if (now >= next_flush) {
			while ((ev = uae_coalesce_take_due(c, now, w)))
				counted += ev->rec.repeat;
			next_flush = now + w + (seed >> 4) % 500 * NSEC_PER_MSEC;
		}
	}
	while ((ev = uae_coalesce_take_due(c, now, 0)))
		counted += ev->rec.repeat;
	KUNIT_EXPECT_EQ(test, counted, occurrences);
	coalescer_free(c);
}

/*
 * What a storm of many keys gave: occurrences, and the events that carry them, in all
 * and per device of @dev (@per_dev, @ndev long).
 */
struct tally {
	u32 occurrences, counted, events, summaries;
	const u8 *dev;
	u32 *per_dev;
	int ndev;
};

static void tally_event(struct tally *t, const struct uae_event *ev)
{
	const struct kunit_event *kev = container_of(ev, struct kunit_event, ev);
	const u8 *origin = kev->key.origin;

	t->counted += ev->rec.repeat;
	t->events++;
	t->summaries += !!(ev->rec.flags & UAEVENTS_FLAG_SUMMARY);
	if (t->per_dev && !(ev->rec.flags & UAEVENTS_FLAG_SUMMARY) &&
	    origin >= t->dev && origin < t->dev + t->ndev)
		t->per_dev[origin - t->dev]++;
}

/* Everything taken and let go: no slot leaked, every list empty. */
static void expect_empty(struct kunit *test, struct uae_coalescer *c)
{
	unsigned int nfree = 0;
	struct uae_recent *r;

	list_for_each_entry(r, &c->free, by_time)
		nfree++;
	KUNIT_EXPECT_EQ(test, c->held, 0U);
	KUNIT_EXPECT_EQ(test, c->fine, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&c->recent));
	KUNIT_EXPECT_TRUE(test, list_empty(&c->idle));
	KUNIT_EXPECT_EQ(test, nfree, c->nr);
}

/* One occurrence, as the capture path handles it, and every event it sends out. */
static void tally_coalesce(struct uae_coalescer *c, struct uae_event *ev, u64 now, u64 w,
			   bool short_of_events, struct tally *t)
{
	struct kunit_event *kev = container_of(ev, struct kunit_event, ev);
	struct uae_recent *slot;
	struct uae_event *late;

	t->occurrences++;
	switch (uae_coalesce(c, &kev->key, now, w, short_of_events ? UAE_COALESCE_SHORT : 0,
			     &slot, &late)) {
	case UAE_COALESCE_PUBLISH:
		ev->rec.flags = kev->key.flags;
		tally_event(t, ev);
		break;
	case UAE_COALESCE_HOLD:
		ev->rec.flags = kev->key.flags;
		uae_coalesce_hold(c, slot, ev);
		break;
	case UAE_COALESCE_FOLD:
		break;
	}
	if (late)
		tally_event(t, late);
}

/* The flush work: every held event whose window ended (all, if @w is 0). */
static void tally_flush(struct uae_coalescer *c, u64 now, u64 w, struct tally *t)
{
	struct uae_event *ev;

	while ((ev = uae_coalesce_take_due(c, now, w)))
		tally_event(t, ev);
}

/*
 * @keys devices failing in turn, each every 10 us, for 1 s (ten windows of 100 ms), the
 * flush work running every 4 ms.
 */
static void storm_of_keys(struct kunit *test, struct uae_coalescer *c, int keys, u8 kind,
			  struct tally *t)
{
	u8 *dev = kunit_kzalloc(test, keys, GFP_KERNEL);
	u64 w = MS(100), now = 0, next_flush = 0;
	int i, k;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	t->dev = dev;
	t->ndev = keys;
	t->per_dev = kunit_kcalloc(test, keys, sizeof(*t->per_dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->per_dev);
	for (i = 0; i < 100000 / keys; i++) {
		for (k = 0; k < keys; k++) {
			now += 10 * NSEC_PER_USEC;
			tally_coalesce(c, new_event_of(test, &dev[k], kind, 0x2a, 0), now, w,
				       false, t);
			if (now >= next_flush) {
				tally_flush(c, now, w, t);
				next_flush = now + MS(4);
			}
		}
	}
	tally_flush(c, now, 0, t);
	expect_empty(test, c);
	kunit_info(test, "%u occurrences of %d keys, %u slots: %u events, %u summaries\n",
		   t->occurrences, keys, c->nr, t->events, t->summaries);
}

/*
 * Many devices failing at once: 1,000 keys in turn (a host with 500 LUs failing reads and
 * writes), each over ten windows.  One event per key per window, not one per failure,
 * and every occurrence counted.
 */
static void uae_kunit_coalesce_many_keys(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 4096);
	struct tally t = {};
	int k;

	storm_of_keys(test, c, 1000, UAEVENTS_KIND_ERROR, &t);
	KUNIT_EXPECT_EQ(test, t.counted, t.occurrences);
	/* Each key: ten windows, and its first event; never a summary. */
	for (k = 0; k < 1000; k++) {
		KUNIT_EXPECT_GE(test, t.per_dev[k], 9U);
		KUNIT_EXPECT_LE(test, t.per_dev[k], 12U);
	}
	KUNIT_EXPECT_EQ(test, t.summaries, 0U);
	coalescer_free(c);
}

/*
 * Unit attentions are never summarized: once as many storms are held as the pool can
 * spare, or every slot is taken, a new one is published, every time, never lost.
 */
static void uae_kunit_coalesce_full(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 32);
	u64 w = MS(1000);
	int i;

	for (i = 0; i < c->fine_max; i++) {
		coalesce(c, new_event(test, test, i), MS(0), w, NULL);
		KUNIT_EXPECT_EQ(test, coalesce(c, new_event(test, test, i), MS(1), w, NULL),
				i < c->held_max ? UAE_COALESCE_HOLD : UAE_COALESCE_PUBLISH);
	}
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, coalesce(c, new_event(test, test, 0xee), MS(2), w, NULL),
				UAE_COALESCE_PUBLISH);
	for (i = 0; i < c->held_max; i++)
		KUNIT_EXPECT_NOT_NULL(test, uae_coalesce_take_due(c, MS(2), 0));
	KUNIT_EXPECT_NULL(test, uae_coalesce_take_due(c, MS(2), 0));
	expect_empty(test, c);
	coalescer_free(c);
}

/* The flags are part of the key: a user's failed command is not the kernel's. */
static void uae_kunit_coalesce_flags(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 32);
	u64 w = MS(1000);

	KUNIT_EXPECT_EQ(test, coalesce(c, new_event_of(test, test, UAEVENTS_KIND_ERROR, 0x11, 0),
				       MS(0), w, NULL), UAE_COALESCE_PUBLISH);
	KUNIT_EXPECT_EQ(test, coalesce(c, new_event_of(test, test, UAEVENTS_KIND_ERROR, 0x11,
						       UAEVENTS_FLAG_QUIET),
				       MS(1), w, NULL), UAE_COALESCE_PUBLISH);
	KUNIT_EXPECT_EQ(test, coalesce(c, new_event_of(test, test, UAEVENTS_KIND_ERROR, 0x11, 0),
				       MS(2), w, NULL), UAE_COALESCE_HOLD);
	coalescer_free(c);
}

/*
 * More devices storming than the coalescer has slots for (64 slots, 1,000 keys): the
 * storms without a slot are counted in their host's summary, flagged as such, so the
 * events stay about one per slot per window, and every occurrence is counted.
 */
static void uae_kunit_coalesce_summary(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 64);
	struct tally t = {};

	storm_of_keys(test, c, 1000, UAEVENTS_KIND_ERROR, &t);
	KUNIT_EXPECT_EQ(test, t.counted, t.occurrences);
	/* The devices' slots and one summary, each about one event a window (ten). */
	KUNIT_EXPECT_LE(test, t.events, (c->fine_max + 1) * 12);
	KUNIT_EXPECT_GE(test, t.summaries, 9U);
	KUNIT_EXPECT_LE(test, t.summaries, 12U);
	coalescer_free(c);
}

/*
 * Exact counts whatever the mix: random devices, kinds and times, a late flush, the pool
 * sometimes short, with slots taken over and summaries made.
 */
static void uae_kunit_coalesce_conserves_many(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 64);
	u64 w = MS(100), now = 0, next_flush = 0;
	u32 counted = 0, occurrences = 0, seed = 7;
	struct uae_recent *slot;
	struct uae_event *ev, *late;
	struct kunit_event *kev;
	u8 *dev = kunit_kzalloc(test, 200, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	for (i = 0; i < 50000; i++) {
		seed = seed * 1103515245 + 12345;
		now += (seed >> 16) % 200 * NSEC_PER_USEC;
		ev = new_event_of(test, &dev[(seed >> 8) % 200],
				  (seed >> 4) % 4 ? UAEVENTS_KIND_ERROR : UAEVENTS_KIND_UA,
				  0x20 + (seed >> 12) % 2, 0);
		kev = container_of(ev, struct kunit_event, ev);
		occurrences++;
		switch (uae_coalesce(c, &kev->key, now, w,
				     (seed >> 20) % 8 == 0 ? UAE_COALESCE_SHORT : 0, &slot, &late)) {
		case UAE_COALESCE_PUBLISH:
			counted++;
			break;
		case UAE_COALESCE_HOLD:
			uae_coalesce_hold(c, slot, ev);
			break;
		case UAE_COALESCE_FOLD:
			break;
		}
		if (late)
			counted += late->rec.repeat;
		if (now >= next_flush) {
			while ((ev = uae_coalesce_take_due(c, now, w)))
				counted += ev->rec.repeat;
			next_flush = now + w + (seed >> 4) % 300 * NSEC_PER_MSEC;
		}
	}
	while ((ev = uae_coalesce_take_due(c, now, 0)))
		counted += ev->rec.repeat;
	KUNIT_EXPECT_EQ(test, counted, occurrences);
	expect_empty(test, c);
	coalescer_free(c);
}

/*
 * The pool runs short: a new error storm goes to its host's summary at once, and folds
 * there; a unit attention is never summarized, and is published rather than held.
 */
static void uae_kunit_coalesce_short(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 64);
	struct uae_event *ev[3], *ua, *late;
	struct kunit_event *kev;
	struct uae_recent *slot;
	u8 dev[4];
	int i;

	for (i = 0; i < 3; i++) {
		ev[i] = new_event_of(test, &dev[i], UAEVENTS_KIND_ERROR, 0x11, 0);
		kev = container_of(ev[i], struct kunit_event, ev);
		KUNIT_EXPECT_EQ(test, uae_coalesce(c, &kev->key, MS(i), MS(1000),
						   UAE_COALESCE_SHORT, &slot, &late),
				i == 0 ? UAE_COALESCE_PUBLISH :
				i == 1 ? UAE_COALESCE_HOLD : UAE_COALESCE_FOLD);
		KUNIT_EXPECT_TRUE(test, kev->key.flags & UAEVENTS_FLAG_SUMMARY);
		KUNIT_EXPECT_PTR_EQ(test, kev->key.origin, (const void *)&kunit_host);
		if (i == 1)
			uae_coalesce_hold(c, slot, ev[i]);
	}
	KUNIT_EXPECT_EQ(test, ev[1]->rec.repeat, 2U);
	for (i = 0; i < 2; i++) {
		ua = new_event(test, &dev[3], 0x2a);
		kev = container_of(ua, struct kunit_event, ev);
		KUNIT_EXPECT_EQ(test, uae_coalesce(c, &kev->key, MS(10 + i), MS(1000),
						   UAE_COALESCE_SHORT, &slot, &late),
				UAE_COALESCE_PUBLISH);
		KUNIT_EXPECT_FALSE(test, kev->key.flags & UAEVENTS_FLAG_SUMMARY);
	}
	KUNIT_EXPECT_PTR_EQ(test, uae_coalesce_take_due(c, MS(2000), 0), ev[1]);
	KUNIT_EXPECT_NULL(test, uae_coalesce_take_due(c, MS(2000), 0));
	expect_empty(test, c);
	coalescer_free(c);
}

/* Coalescing turned off while a storm is held: the held event goes out first. */
static void uae_kunit_coalesce_turned_off(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 32);
	struct uae_event *held;
	u32 due = 0;

	coalesce(c, new_event(test, test, 0x2a), MS(0), MS(1000), &due);
	held = new_event(test, test, 0x2a);
	KUNIT_EXPECT_EQ(test, coalesce(c, held, MS(1), MS(1000), &due), UAE_COALESCE_HOLD);
	coalesce(c, new_event(test, test, 0x2a), MS(2), MS(1000), &due);
	KUNIT_EXPECT_EQ(test, coalesce(c, new_event(test, test, 0x2a), MS(3), 0, &due),
			UAE_COALESCE_PUBLISH);
	KUNIT_EXPECT_EQ(test, due, 2U);
	KUNIT_EXPECT_NULL(test, uae_coalesce_take_due(c, MS(3), 0));
	expect_empty(test, c);
	coalescer_free(c);
}

/*
 * A device removed while its storm is held: the next device the allocator places at the
 * same address has events of its own, none of its occurrences counted in the old one's.
 */
static void uae_kunit_coalesce_readded(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 32);
	struct uae_event *held, *next;
	u64 w = MS(1000);

	coalesce(c, new_event(test, test, 0x2a), MS(0), w, NULL);
	held = new_event(test, test, 0x2a);
	KUNIT_EXPECT_EQ(test, coalesce(c, held, MS(1), w, NULL), UAE_COALESCE_HOLD);
	uae_coalesce_forget(c, test, NULL);
	/* The next device at that address: its first event is published at once. */
	KUNIT_EXPECT_EQ(test, coalesce(c, new_event(test, test, 0x2a), MS(2), w, NULL),
			UAE_COALESCE_PUBLISH);
	next = new_event(test, test, 0x2a);
	KUNIT_EXPECT_EQ(test, coalesce(c, next, MS(3), w, NULL), UAE_COALESCE_HOLD);
	KUNIT_EXPECT_EQ(test, coalesce(c, new_event(test, test, 0x2a), MS(4), w, NULL),
			UAE_COALESCE_FOLD);
	/* The old storm still goes out when its window ends, with its own count. */
	KUNIT_EXPECT_PTR_EQ(test, uae_coalesce_take_due(c, MS(1000), w), held);
	KUNIT_EXPECT_EQ(test, held->rec.repeat, 1U);
	KUNIT_EXPECT_NULL(test, uae_coalesce_take_due(c, MS(1000), w));
	KUNIT_EXPECT_PTR_EQ(test, uae_coalesce_take_due(c, MS(1002), w), next);
	KUNIT_EXPECT_EQ(test, next->rec.repeat, 2U);
	KUNIT_EXPECT_NULL(test, uae_coalesce_take_due(c, MS(5000), 0));
	expect_empty(test, c);
	coalescer_free(c);
}

/* A host removed with its summary held: a host at the same address starts its own. */
static void uae_kunit_coalesce_host_readded(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 32);
	struct uae_event *held;
	u64 w = MS(1000);
	u8 dev[2];

	coalesce_in(c, new_event_of(test, &dev[0], UAEVENTS_KIND_ERROR, 0x11, 0), MS(0), w,
		    UAE_COALESCE_SHORT, NULL);
	held = new_event_of(test, &dev[0], UAEVENTS_KIND_ERROR, 0x11, 0);
	KUNIT_EXPECT_EQ(test, coalesce_in(c, held, MS(1), w, UAE_COALESCE_SHORT, NULL),
			UAE_COALESCE_HOLD);
	KUNIT_EXPECT_TRUE(test, held->rec.flags & UAEVENTS_FLAG_SUMMARY);
	uae_coalesce_forget(c, &dev[0], &kunit_host);
	KUNIT_EXPECT_EQ(test, coalesce_in(c, new_event_of(test, &dev[1], UAEVENTS_KIND_ERROR,
							  0x11, 0),
					  MS(2), w, UAE_COALESCE_SHORT, NULL),
			UAE_COALESCE_PUBLISH);
	KUNIT_EXPECT_EQ(test, held->rec.repeat, 1U);
	KUNIT_EXPECT_PTR_EQ(test, uae_coalesce_take_due(c, MS(5000), 0), held);
	KUNIT_EXPECT_NULL(test, uae_coalesce_take_due(c, MS(5000), 0));
	expect_empty(test, c);
	coalescer_free(c);
}

/*
 * A device on its way out takes no new slot: its failures storm in its host's summary; a
 * unit attention is published each time, after a storm of it held from before.
 */
static void uae_kunit_coalesce_leaving(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 32);
	struct uae_event *ev[3], *held;
	u64 w = MS(1000);
	u32 due = 0;
	u8 dev;
	int i;

	for (i = 0; i < 3; i++) {
		ev[i] = new_event_of(test, &dev, UAEVENTS_KIND_ERROR, 0x11, 0);
		KUNIT_EXPECT_EQ(test, coalesce_in(c, ev[i], MS(i), w, UAE_COALESCE_LEAVING, NULL),
				i == 0 ? UAE_COALESCE_PUBLISH :
				i == 1 ? UAE_COALESCE_HOLD : UAE_COALESCE_FOLD);
		KUNIT_EXPECT_TRUE(test, ev[i]->rec.flags & UAEVENTS_FLAG_SUMMARY);
	}
	/* A UA storm held while the device was still there, then it starts to leave. */
	coalesce(c, new_event(test, &dev, 0x2a), MS(3), w, NULL);
	held = new_event(test, &dev, 0x2a);
	KUNIT_EXPECT_EQ(test, coalesce(c, held, MS(4), w, NULL), UAE_COALESCE_HOLD);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, coalesce_in(c, new_event(test, &dev, 0x2a), MS(5 + i), w,
						  UAE_COALESCE_LEAVING, &due),
				UAE_COALESCE_PUBLISH);
	/* The held storm went out before the first of them. */
	KUNIT_EXPECT_EQ(test, due, 1U);
	KUNIT_EXPECT_EQ(test, held->rec.repeat, 1U);
	KUNIT_EXPECT_EQ(test, ev[1]->rec.repeat, 2U);
	KUNIT_EXPECT_PTR_EQ(test, uae_coalesce_take_due(c, MS(5000), 0), ev[1]);
	KUNIT_EXPECT_NULL(test, uae_coalesce_take_due(c, MS(5000), 0));
	expect_empty(test, c);
	coalescer_free(c);
}

/* A scan's probe freed unseen, the next LUN's probe at its address: not the same device. */
static void uae_kunit_coalesce_address(struct kunit *test)
{
	struct uae_coalescer *c = coalescer_new(test, 32);
	struct uae_event *held, *next;
	struct kunit_event *kev;
	u64 w = MS(1000);

	coalesce(c, new_event(test, test, 0x29), MS(0), w, NULL);
	held = new_event(test, test, 0x29);
	KUNIT_EXPECT_EQ(test, coalesce(c, held, MS(1), w, NULL), UAE_COALESCE_HOLD);
	next = new_event(test, test, 0x29);
	kev = container_of(next, struct kunit_event, ev);
	kev->key.lun = 1;
	KUNIT_EXPECT_EQ(test, coalesce(c, next, MS(2), w, NULL), UAE_COALESCE_PUBLISH);
	KUNIT_EXPECT_EQ(test, held->rec.repeat, 1U);
	KUNIT_EXPECT_PTR_EQ(test, uae_coalesce_take_due(c, MS(5000), 0), held);
	KUNIT_EXPECT_NULL(test, uae_coalesce_take_due(c, MS(5000), 0));
	expect_empty(test, c);
	coalescer_free(c);
}

/* Events @from to @to into the history, skipping the numbers in @skip (queue_full). */
static void history_add_range(u64 from, u64 to, u64 skip_from, u64 skip_to)
{
	struct uae_record rec = {};
	u64 seq;

	for (seq = from; seq <= to; seq++) {
		if (seq >= skip_from && seq <= skip_to)
			continue;
		rec.seq = seq;
		uae_history_add(&rec);
	}
}

/* The event after @after and the numbers before it the history cannot give. */
static void expect_next(struct kunit *test, u64 after, u64 seq, u64 lost)
{
	struct uae_record rec;
	u64 got_lost = U64_MAX;

	KUNIT_ASSERT_EQ(test, uae_history_next(after, &rec, &got_lost), 0);
	KUNIT_EXPECT_EQ(test, rec.seq, seq);
	KUNIT_EXPECT_EQ(test, got_lost, lost);
}

/*
 * The ring wraps: the oldest events fall out, counted when unread; a reader behind them
 * learns how many numbers it missed, one that kept up learns of none.
 */
static void uae_kunit_history_wrap(struct kunit *test)
{
	s64 unread = atomic64_read(&uae_stats.lost_unread);
	struct uae_record rec;
	u64 lost, seq;

	KUNIT_ASSERT_EQ(test, uae_history_init(16), 0);
	KUNIT_EXPECT_EQ(test, uae_history_first_seq(), 0ULL);
	KUNIT_EXPECT_EQ(test, uae_history_next(0, &rec, &lost), -ENOENT);
	history_add_range(1, 40, 0, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&uae_stats.lost_unread) - unread, 24LL);
	KUNIT_EXPECT_EQ(test, uae_history_first_seq(), 25ULL);
	expect_next(test, 0, 25, 24);
	expect_next(test, 10, 25, 14);
	expect_next(test, 24, 25, 0);
	expect_next(test, 30, 31, 0);
	expect_next(test, 39, 40, 0);
	KUNIT_EXPECT_EQ(test, uae_history_next(40, &rec, &lost), -ENOENT);
	KUNIT_EXPECT_EQ(test, uae_history_next(1000, &rec, &lost), -ENOENT);
	/* Every slot's position, through another wrap: a search over a ring at any offset. */
	history_add_range(41, 47, 0, 0);
	for (seq = 32; seq <= 47; seq++)
		expect_next(test, seq - 1, seq, 0);
	expect_next(test, 0, 32, 31);
	uae_history_clear();
	KUNIT_EXPECT_EQ(test, uae_history_first_seq(), 0ULL);
	KUNIT_EXPECT_EQ(test, uae_history_next(0, &rec, &lost), -ENOENT);
	uae_history_exit();
}

/* Numbers never captured (queue_full) are holes in the ring: a reader learns of them. */
static void uae_kunit_history_holes(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, uae_history_init(16), 0);
	history_add_range(1, 10, 3, 6);
	expect_next(test, 0, 1, 0);
	expect_next(test, 2, 7, 4);
	expect_next(test, 4, 7, 2);
	expect_next(test, 7, 8, 0);
	uae_history_exit();
}

/*
 * What every subscriber got, or a dump sent, is not lost when it falls out: the newest
 * (delivery) and any other (a dump) are marked read.
 */
static void uae_kunit_history_read(struct kunit *test)
{
	s64 unread = atomic64_read(&uae_stats.lost_unread);

	KUNIT_ASSERT_EQ(test, uae_history_init(16), 0);
	history_add_range(1, 16, 0, 0);
	uae_history_mark_read(16);
	uae_history_mark_read(3);
	uae_history_mark_read(4);
	uae_history_mark_read(99);	/* not there: nothing */
	uae_history_mark_read(0);
	history_add_range(17, 32, 0, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&uae_stats.lost_unread) - unread, 13LL);
	uae_history_exit();
}

static const struct uae_record uae_kunit_record = {
	.seq = 42, .timestamp_ns = 1000, .kind = UAEVENTS_KIND_ERROR, .flags = 1, .repeat = 3,
	.host = 2, .channel = 0, .target = 1, .lun = 7, .devname = "sdc", .sgdev = "sg2",
	.wwid = "naa.5000", .serial = "", .sense = { 0x70, 0, 3 }, .sense_len = 18,
	.sense_key = 3, .asc = 0x11, .ascq = 0, .name = "UNRECOVERED_READ_ERROR",
	.opcode = 0x28, .has_lba = true, .lba = 4656, .sectors = 8, .host_byte = 0,
	.status = 2, .error = 61,
	.class = { .severity = UAE_SEV_FATAL, .locus = UAE_LOCUS_DEVICE,
		   .blk_status = UAE_BLK_MEDIUM, .rule = 35 },
};

static void uae_kunit_message(struct kunit *test)
{
	struct sk_buff *skb = alloc_skb(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	struct nlattr *tb[UAEVENTS_ATTR_MAX + 1];

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, uae_put_record(skb, &uae_kunit_record, 0xabc), 0);
	KUNIT_ASSERT_EQ(test, nla_parse(tb, UAEVENTS_ATTR_MAX, (struct nlattr *)skb->data,
					skb->len, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, nla_get_u64(tb[UAEVENTS_ATTR_SEQ]), 42ULL);
	KUNIT_EXPECT_EQ(test, nla_get_u64(tb[UAEVENTS_ATTR_INSTANCE]), 0xabcULL);
	KUNIT_EXPECT_EQ(test, nla_get_u8(tb[UAEVENTS_ATTR_KIND]), UAEVENTS_KIND_ERROR);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[UAEVENTS_ATTR_REPEAT]), 3U);
	KUNIT_EXPECT_EQ(test, nla_get_u64(tb[UAEVENTS_ATTR_LUN]), 7ULL);
	KUNIT_EXPECT_STREQ(test, (char *)nla_data(tb[UAEVENTS_ATTR_DEVNAME]), "sdc");
	KUNIT_EXPECT_STREQ(test, (char *)nla_data(tb[UAEVENTS_ATTR_SGDEV]), "sg2");
	KUNIT_EXPECT_STREQ(test, (char *)nla_data(tb[UAEVENTS_ATTR_WWID]), "naa.5000");
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_SERIAL]);	/* empty: left out */
	KUNIT_EXPECT_STREQ(test, (char *)nla_data(tb[UAEVENTS_ATTR_EVENT]),
			   "UNRECOVERED_READ_ERROR");
	KUNIT_EXPECT_EQ(test, nla_len(tb[UAEVENTS_ATTR_SENSE]), 18);
	KUNIT_EXPECT_EQ(test, nla_get_u8(tb[UAEVENTS_ATTR_ASC]), 0x11);
	KUNIT_EXPECT_EQ(test, nla_get_u8(tb[UAEVENTS_ATTR_OPCODE]), 0x28);
	KUNIT_EXPECT_EQ(test, nla_get_u64(tb[UAEVENTS_ATTR_LBA]), 4656ULL);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[UAEVENTS_ATTR_ERRNO]), 61U);
	KUNIT_EXPECT_EQ(test, nla_get_u16(tb[UAEVENTS_ATTR_CLASS_RULE]), 35);
	KUNIT_EXPECT_EQ(test, nla_get_u8(tb[UAEVENTS_ATTR_BLK_STATUS]), UAE_BLK_MEDIUM);
	kfree_skb(skb);
}

/* @rec's message, put and parsed into @tb: the skb, to free once @tb is read. */
static struct sk_buff *uae_kunit_put_message(struct kunit *test, const struct uae_record *rec,
					     u64 instance, struct nlattr **tb)
{
	struct sk_buff *skb = alloc_skb(NLMSG_DEFAULT_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, uae_put_record(skb, rec, instance), 0);
	KUNIT_ASSERT_EQ(test, nla_parse(tb, UAEVENTS_ATTR_MAX, (struct nlattr *)skb->data,
					skb->len, NULL, NULL), 0);
	return skb;
}

/* A unit attention carries no command fields; a full buffer is an error, not an overrun. */
static void uae_kunit_message_ua_and_full(struct kunit *test)
{
	struct uae_record rec = uae_kunit_record;
	struct nlattr *tb[UAEVENTS_ATTR_MAX + 1];
	struct sk_buff *skb;

	rec.kind = UAEVENTS_KIND_UA;
	rec.has_lba = false;
	rec.error = 0;
	skb = uae_kunit_put_message(test, &rec, 1, tb);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_OPCODE]);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_LBA]);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_ERRNO]);
	KUNIT_EXPECT_NOT_NULL(test, tb[UAEVENTS_ATTR_ASC]);
	kfree_skb(skb);

	skb = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, uae_put_record(skb, &uae_kunit_record, 1), -EMSGSIZE);
	kfree_skb(skb);
}

/* An NVMe asynchronous event: its transport, controller and result; no SCSI address. */
static void uae_kunit_message_aen(struct kunit *test)
{
	struct uae_record rec = {
		.seq = 5, .kind = UAEVENTS_KIND_AEN, .repeat = 1, .name = "NVME_ANA_CHANGE",
		.transport = UAEVENTS_TRANSPORT_NVME, .nvme_ctrl = "nvme3",
		.aen_result = 0x0c0302,
	};
	struct nlattr *tb[UAEVENTS_ATTR_MAX + 1];
	struct sk_buff *skb = alloc_skb(NLMSG_DEFAULT_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, uae_put_record(skb, &rec, 1), 0);
	KUNIT_ASSERT_EQ(test, nla_parse(tb, UAEVENTS_ATTR_MAX, (struct nlattr *)skb->data,
					skb->len, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, nla_get_u8(tb[UAEVENTS_ATTR_TRANSPORT]), UAEVENTS_TRANSPORT_NVME);
	KUNIT_EXPECT_STREQ(test, (char *)nla_data(tb[UAEVENTS_ATTR_NVME_CTRL]), "nvme3");
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[UAEVENTS_ATTR_NVME_AEN_RESULT]), 0x0c0302U);
	KUNIT_EXPECT_STREQ(test, (char *)nla_data(tb[UAEVENTS_ATTR_EVENT]), "NVME_ANA_CHANGE");
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_HOST]);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_LUN]);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_SEVERITY]);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_OPCODE]);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_NVME_NSIDS]);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_NVME_NSIDS_LISTED]);
	kfree_skb(skb);

	/* A changed namespace list: the IDs it carries, and how many the log listed. */
	rec = (struct uae_record){
		.seq = 6, .kind = UAEVENTS_KIND_AEN, .repeat = 1,
		.name = "NVME_CHANGED_NAMESPACE_LIST", .transport = UAEVENTS_TRANSPORT_NVME,
		.nvme_ctrl = "nvme3", .aen_result = 0x040002, .has_nsids = true,
		.nsid_count = 2, .nsids = { 1, 7 }, .nsids_listed = 30,
	};
	skb = uae_kunit_put_message(test, &rec, 1, tb);
	KUNIT_ASSERT_NOT_NULL(test, tb[UAEVENTS_ATTR_NVME_NSIDS]);
	KUNIT_EXPECT_EQ(test, nla_len(tb[UAEVENTS_ATTR_NVME_NSIDS]), 8);
	KUNIT_EXPECT_EQ(test, ((u32 *)nla_data(tb[UAEVENTS_ATTR_NVME_NSIDS]))[1], 7U);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[UAEVENTS_ATTR_NVME_NSIDS_LISTED]), 30U);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[UAEVENTS_ATTR_NVME_AEN_RESULT]), 0x040002U);
	kfree_skb(skb);

	/* A failed NVMe request: its request, status and class; no SCSI command fields. */
	rec = (struct uae_record){
		.seq = 6, .kind = UAEVENTS_KIND_ERROR, .repeat = 1, .name = "INTERNAL_ERROR",
		.transport = UAEVENTS_TRANSPORT_NVME, .nvme_ctrl = "nvme3",
		.devname = "nvme3c3n2", .has_req_op = true, .req_op = 0, .has_lba = true,
		.lba = 2048, .sectors = 8, .error = 5, .opcode = 2, .has_nvme_status = true,
		.nvme_status = 0x4006, .class = { .severity = UAE_SEV_FATAL, .rule = 4 },
	};
	skb = uae_kunit_put_message(test, &rec, 1, tb);
	KUNIT_EXPECT_EQ(test, nla_get_u16(tb[UAEVENTS_ATTR_NVME_STATUS]), 0x4006);
	KUNIT_EXPECT_EQ(test, nla_get_u8(tb[UAEVENTS_ATTR_OPCODE]), 2);
	KUNIT_EXPECT_EQ(test, nla_get_u64(tb[UAEVENTS_ATTR_LBA]), 2048ULL);
	KUNIT_EXPECT_EQ(test, nla_get_u8(tb[UAEVENTS_ATTR_SEVERITY]), UAE_SEV_FATAL);
	KUNIT_EXPECT_STREQ(test, (char *)nla_data(tb[UAEVENTS_ATTR_DEVNAME]), "nvme3c3n2");
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_HOST_BYTE]);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_HOST]);
	kfree_skb(skb);

	/* An ANA group's state: the group and state, no class. */
	rec = (struct uae_record){
		.seq = 7, .kind = UAEVENTS_KIND_ANA, .repeat = 1, .name = "NVME_ANA_INACCESSIBLE",
		.transport = UAEVENTS_TRANSPORT_NVME, .nvme_ctrl = "nvme3", .ana_group = 2,
		.ana_state = 3,
	};
	skb = uae_kunit_put_message(test, &rec, 1, tb);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[UAEVENTS_ATTR_NVME_ANA_GROUP]), 2U);
	KUNIT_EXPECT_EQ(test, nla_get_u8(tb[UAEVENTS_ATTR_NVME_ANA_STATE]), 3);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_SEVERITY]);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_NVME_AEN_RESULT]);
	kfree_skb(skb);

	/* A SCSI event's message has no transport: it is what it was before NVMe's. */
	skb = uae_kunit_put_message(test, &uae_kunit_record, 1, tb);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_TRANSPORT]);
	KUNIT_EXPECT_NULL(test, tb[UAEVENTS_ATTR_NVME_AEN_RESULT]);
	kfree_skb(skb);
}

static struct kunit_case uae_kernel_cases[] = {
	KUNIT_CASE(uae_kunit_coalesce_off),
	KUNIT_CASE(uae_kunit_coalesce_storm),
	KUNIT_CASE(uae_kunit_coalesce_late_flush),
	KUNIT_CASE(uae_kunit_coalesce_conserves),
	KUNIT_CASE(uae_kunit_coalesce_many_keys),
	KUNIT_CASE(uae_kunit_coalesce_full),
	KUNIT_CASE(uae_kunit_coalesce_flags),
	KUNIT_CASE(uae_kunit_coalesce_summary),
	KUNIT_CASE(uae_kunit_coalesce_conserves_many),
	KUNIT_CASE(uae_kunit_coalesce_short),
	KUNIT_CASE(uae_kunit_coalesce_turned_off),
	KUNIT_CASE(uae_kunit_coalesce_readded),
	KUNIT_CASE(uae_kunit_coalesce_host_readded),
	KUNIT_CASE(uae_kunit_coalesce_leaving),
	KUNIT_CASE(uae_kunit_coalesce_address),
	KUNIT_CASE(uae_kunit_history_wrap),
	KUNIT_CASE(uae_kunit_history_holes),
	KUNIT_CASE(uae_kunit_history_read),
	KUNIT_CASE(uae_kunit_message),
	KUNIT_CASE(uae_kunit_message_ua_and_full),
	KUNIT_CASE(uae_kunit_message_aen),
	{}
};

static struct kunit_suite uae_kernel_suite = {
	.name = "uaevents-module",
	.test_cases = uae_kernel_cases,
};
kunit_test_suite(uae_kernel_suite);

MODULE_DESCRIPTION("KUnit tests for the uaevents module logic");
MODULE_LICENSE("GPL");
