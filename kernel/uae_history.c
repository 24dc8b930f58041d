// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: the bounded history of delivered events, which a subscriber that overflowed
 * or restarted replays through UAEVENTS_CMD_GET_HISTORY.  A ring of records in sequence
 * order; an event that falls out before anyone read it is counted as lost.
 */
#include <linux/mutex.h>
#include <linux/vmalloc.h>

#include "uae.h"

struct uae_slot {
	struct uae_record rec;
	bool read;		/* multicast to every subscriber, or dumped */
};

static DEFINE_MUTEX(uae_history_lock);	/* everything below */
static struct uae_slot *uae_ring;
static unsigned int uae_ring_size;
static unsigned int uae_ring_head;	/* next slot to write */
static unsigned int uae_ring_count;

int uae_history_init(unsigned int size)
{
	uae_ring = vcalloc(size, sizeof(*uae_ring));
	if (!uae_ring)
		return -ENOMEM;
	uae_ring_size = size;
	uae_ring_head = 0;
	uae_ring_count = 0;
	return 0;
}

void uae_history_exit(void)
{
	vfree(uae_ring);
	uae_ring = NULL;
}

unsigned int uae_history_size(void)
{
	return uae_ring_size;
}

static struct uae_slot *uae_ring_at(unsigned int i)	/* i-th oldest */
{
	return &uae_ring[(uae_ring_head + uae_ring_size - uae_ring_count + i) % uae_ring_size];
}

void uae_history_add(const struct uae_record *rec)
{
	struct uae_slot *s;

	mutex_lock(&uae_history_lock);
	s = &uae_ring[uae_ring_head];
	if (uae_ring_count == uae_ring_size && !s->read)
		atomic64_inc(&uae_stats.lost_unread);
	s->rec = *rec;
	s->read = false;
	uae_ring_head = (uae_ring_head + 1) % uae_ring_size;
	if (uae_ring_count < uae_ring_size)
		uae_ring_count++;
	mutex_unlock(&uae_history_lock);
}

/* Under uae_history_lock: the index of the oldest event with seq > @after, or the count. */
static unsigned int uae_ring_search(u64 after)
{
	unsigned int lo = 0, hi = uae_ring_count;

	/* Sequence numbers grow along the ring. */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (uae_ring_at(mid)->rec.seq <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void uae_history_mark_read(u64 seq)
{
	unsigned int i;

	mutex_lock(&uae_history_lock);
	i = seq ? uae_ring_search(seq - 1) : uae_ring_count;
	if (i < uae_ring_count && uae_ring_at(i)->rec.seq == seq)
		uae_ring_at(i)->read = true;
	mutex_unlock(&uae_history_lock);
}

void uae_history_clear(void)
{
	mutex_lock(&uae_history_lock);
	uae_ring_count = 0;
	mutex_unlock(&uae_history_lock);
}

u64 uae_history_first_seq(void)
{
	u64 seq;

	mutex_lock(&uae_history_lock);
	seq = uae_ring_count ? uae_ring_at(0)->rec.seq : 0;
	mutex_unlock(&uae_history_lock);
	return seq;
}

int uae_history_next(u64 after, struct uae_record *rec, u64 *lost)
{
	struct uae_slot *s;
	unsigned int i;
	int ret = -ENOENT;

	mutex_lock(&uae_history_lock);
	i = uae_ring_search(after);
	if (i < uae_ring_count) {
		s = uae_ring_at(i);
		*rec = s->rec;
		/* Numbers after @after the history cannot give: none before the first event. */
		*lost = s->rec.seq > after + 1 ? s->rec.seq - after - 1 : 0;
		ret = 0;
	}
	mutex_unlock(&uae_history_lock);
	return ret;
}
