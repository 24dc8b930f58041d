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

void uae_position_join(struct uae_position *p, int g, bool joined)
{
	/* Joined again: where it stood went stale while it was left. */
	if (joined && !p->joined[g])
		p->group_known[g] = false;
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

/* How many events of the instance followed were missed before @ev. */
static uint64_t missed_before(struct uae_position *p, const struct uae_event *ev)
{
	int g = uae_group_of_kind(ev->kind);
	uint64_t lost;

	/* A module without group numbers: only the global one tells. */
	if (!ev->group_seq)
		return ev->seq - p->seq - 1;
	/*
	 * A group not subscribed to (its events come only in replays) loses nothing of
	 * ours, but what the history lacked before it may have been of a group subscribed
	 * to whose place is not known: kept for that group's next event.
	 */
	if (!p->joined[g]) {
		for (int h = 0; h < UAE_GROUPS; h++)
			if (p->joined[h] && !p->group_known[h]) {
				p->pending_lost += ev->dump_lost;
				break;
			}
		return 0;
	}
	/*
	 * Where the monitor stands in the event's group, the group's numbers tell exactly:
	 * the other groups' events in between, replayed or not, are none of its business.
	 */
	if (p->group_known[g])
		return ev->group_seq > p->group_seq[g] ? ev->group_seq - p->group_seq[g] - 1 : 0;
	/*
	 * Otherwise (a replay from a global number, the group's first event since): what
	 * the history could not give before this one, of any group, as the kernel cannot
	 * tell their groups.  A subscriber of some groups may be told of more than it lost,
	 * never of less.
	 */
	lost = ev->dump_lost + p->pending_lost;
	p->pending_lost = 0;
	return lost;
}

bool uae_position_accept(struct uae_position *p, struct uae_event *ev, uint64_t *first,
			 uint64_t *lost)
{
	int g = uae_group_of_kind(ev->kind);

	*first = 0;
	*lost = 0;
	if (ev->instance == p->instance) {
		if (ev->seq <= p->seq)
			return false;
		ev->gap = missed_before(p, ev);
		*first = p->seq + 1;
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
