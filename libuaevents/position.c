// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents: where a monitor stands in the module's stream, and what it missed.
 *
 * Every event carries a global sequence number and one within its multicast group.  A
 * monitor subscribed to some groups never receives the others' events live, but a
 * replay (the history is dumped whole) hands them out too: their numbers, and what the
 * history lacked before them, are no loss of the monitor's unless they can have been.
 */
#include <string.h>

#include "uae_private.h"

void uae_position_set(struct uae_position *p, uint64_t instance, uint64_t seq,
		      const uint64_t *group_seq)
{
	p->instance = instance;
	p->seq = seq;
	for (int g = 0; g < UAE_GROUPS; g++) {
		p->group_seq[g] = group_seq ? group_seq[g] : 0;
		p->group_known[g] = true;
	}
	p->pending_lost = 0;
}

void uae_position_join(struct uae_position *p, int g, bool joined, uint64_t group_seq)
{
	/* Joined again: it stands where the module's stream stands now. */
	if (joined && !p->joined[g]) {
		p->group_seq[g] = group_seq;
		p->group_known[g] = true;
	}
	p->joined[g] = joined;
}

void uae_position_rewind(struct uae_position *p, uint64_t since)
{
	/*
	 * Going back to @since, where the groups stood is not known: each group's first
	 * replayed event sets it.  A replay after an overflow goes on where the stream
	 * stopped, and knows.
	 */
	if (since != p->seq) {
		for (int g = 0; g < UAE_GROUPS; g++)
			p->group_known[g] = false;
		p->pending_lost = 0;
	}
	p->seq = since;
}

/* A group subscribed to whose place is not known: what the history lacked may be its. */
static bool some_unknown(const struct uae_position *p)
{
	for (int g = 0; g < UAE_GROUPS; g++)
		if (p->joined[g] && !p->group_known[g])
			return true;
	return false;
}

/*
 * What the history lacked before @ev, told with the next event of a group subscribed to
 * whose place is not known: it may have been that group's.  Counted from the first
 * number missed.
 */
static void keep_pending(struct uae_position *p, const struct uae_event *ev)
{
	if (!ev->dump_lost || !some_unknown(p))
		return;
	if (!p->pending_lost)
		p->pending_first = ev->seq - ev->dump_lost;
	p->pending_lost += ev->dump_lost;
}

/*
 * How many events of the instance followed were missed before @ev, from *@first (the
 * first number that may have been one of them).
 */
static uint64_t missed_before(struct uae_position *p, const struct uae_event *ev,
			      uint64_t *first)
{
	int g = uae_group_of(ev);
	uint64_t lost;

	*first = p->seq + 1;
	/* A module without group numbers: only the global one tells. */
	if (!ev->group_seq)
		return ev->seq - p->seq - 1;
	/*
	 * A group not subscribed to (its events come only in replays) loses nothing of
	 * ours; what the history lacked before it may have been.
	 */
	if (!p->joined[g]) {
		keep_pending(p, ev);
		return 0;
	}
	/*
	 * Where the monitor stands in the event's group, the group's numbers tell exactly
	 * for the group: the other groups' events in between, replayed or not, are none of
	 * its business.  What the history lacked may still have been another subscribed
	 * group's whose place is not known.
	 */
	if (p->group_known[g]) {
		keep_pending(p, ev);
		return ev->group_seq > p->group_seq[g] ? ev->group_seq - p->group_seq[g] - 1 : 0;
	}
	/*
	 * Otherwise (a replay from a global number, the group's first event since): what
	 * the history could not give before this one and before the other groups' events
	 * since, of any group, as the kernel cannot tell their groups.  A subscriber may be
	 * told of more than it lost, never of less.
	 */
	lost = ev->dump_lost + p->pending_lost;
	if (p->pending_lost)
		*first = p->pending_first;
	else if (ev->dump_lost)
		*first = ev->seq - ev->dump_lost;
	p->pending_lost = 0;
	return lost;
}

bool uae_position_accept(struct uae_position *p, struct uae_event *ev, uint64_t *first,
			 uint64_t *lost)
{
	int g = uae_group_of(ev);

	*first = 0;
	*lost = 0;
	if (ev->instance == p->instance) {
		if (ev->seq <= p->seq)
			return false;
		ev->gap = missed_before(p, ev, first);
		*lost = ev->gap;
	} else {
		/* Another instance: the module was reloaded and numbering starts again. */
		for (int i = 0; i < UAE_GROUPS; i++) {
			p->group_seq[i] = 0;
			p->group_known[i] = true;
		}
		p->pending_lost = 0;
	}
	p->instance = ev->instance;
	p->seq = ev->seq;
	if (ev->group_seq) {
		p->group_seq[g] = ev->group_seq;
		p->group_known[g] = true;
	}
	return true;
}
