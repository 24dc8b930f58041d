// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents' position in the stream (position.c): which events are new, and which
 * numbers before one are losses of this monitor, for a subscriber of all groups or some,
 * live, after an overflow's replay and after a replay from a saved number.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <linux/uaevents.h>

#include "uae_private.h"

#define INSTANCE 0x1234

static struct uae_position pos;
static uint64_t first, lost;

/* A monitor subscribed to the groups in @joined[], the stream at @seq and @group_seq. */
static void start(const bool *joined, uint64_t seq, uint64_t ua, uint64_t error, uint64_t sgio)
{
	const uint64_t group_seq[UAE_GROUPS] = { ua, error, sgio };

	memset(&pos, 0, sizeof(pos));
	for (int g = 0; g < UAE_GROUPS; g++)
		uae_position_join(&pos, g, joined[g], 0);
	uae_position_set(&pos, INSTANCE, seq, group_seq);
}

static const bool all[UAE_GROUPS] = { true, true, true };
static const bool ua_only[UAE_GROUPS] = { true, false, false };

/* Event @seq of @kind, @group_seq in its group, @dump_lost before it if replayed. */
static bool arrives(enum uae_event_kind kind, uint64_t seq, uint64_t group_seq,
		    uint64_t dump_lost)
{
	struct uae_event ev = { .kind = kind, .seq = seq, .instance = INSTANCE,
				.group_seq = group_seq, .dump_lost = dump_lost };
	bool r = uae_position_accept(&pos, &ev, &first, &lost);

	ck_assert_uint_eq(ev.gap, lost);
	return r;
}

START_TEST(live_all_groups)
{
	start(all, 10, 3, 5, 2);
	ck_assert(arrives(UAE_EVENT_UA, 11, 4, 0));
	ck_assert_uint_eq(lost, 0);
	ck_assert(arrives(UAE_EVENT_ERROR, 12, 6, 0));
	ck_assert_uint_eq(lost, 0);
	/* Two of the error group did not come: numbers 13 and 14. */
	ck_assert(arrives(UAE_EVENT_ERROR, 15, 9, 0));
	ck_assert_uint_eq(lost, 2);
	ck_assert_uint_eq(first, 13);
	/* Seen already (a replay overlapping the live stream). */
	ck_assert(!arrives(UAE_EVENT_ERROR, 15, 9, 0));
	ck_assert(!arrives(UAE_EVENT_UA, 11, 4, 0));
}
END_TEST

/* Other groups' events in between are not losses of a subscriber of one. */
START_TEST(live_some_groups)
{
	start(ua_only, 10, 3, 5, 2);
	ck_assert(arrives(UAE_EVENT_UA, 111, 4, 0));
	ck_assert_uint_eq(lost, 0);
	/* A UA of its own group missed. */
	ck_assert(arrives(UAE_EVENT_UA, 120, 6, 0));
	ck_assert_uint_eq(lost, 1);
}
END_TEST

/* Event @seq, an NVMe one (in group "nvme") of @kind, @group_seq in that group. */
static bool nvme_arrives(enum uae_event_kind kind, uint64_t seq, uint64_t group_seq)
{
	struct uae_event ev = { .kind = kind, .seq = seq, .instance = INSTANCE,
				.group_seq = group_seq, .transport = UAEVENTS_TRANSPORT_NVME };
	bool r = uae_position_accept(&pos, &ev, &first, &lost);

	ck_assert_uint_eq(ev.gap, lost);
	return r;
}

/*
 * A failed NVMe request is kind error but numbered in group "nvme": the error group's
 * numbers do not move, and a gap in the nvme group is the nvme group's.
 */
START_TEST(nvme_group)
{
	static const bool with_nvme[UAE_GROUPS] = { true, true, true, true };

	start(with_nvme, 10, 3, 5, 2);
	ck_assert(nvme_arrives(UAE_EVENT_ERROR, 11, 1));
	ck_assert_uint_eq(lost, 0);
	ck_assert(arrives(UAE_EVENT_ERROR, 12, 6, 0));
	ck_assert_uint_eq(lost, 0);
	/* Number 13, an NVMe event, did not come. */
	ck_assert(nvme_arrives(UAE_EVENT_AEN, 14, 3));
	ck_assert_uint_eq(lost, 1);
	ck_assert_uint_eq(first, 13);
	/* A subscriber of the SCSI groups only: NVMe's numbers are none of its business. */
	start(all, 10, 3, 5, 2);
	ck_assert(arrives(UAE_EVENT_ERROR, 20, 6, 0));
	ck_assert_uint_eq(lost, 0);
}
END_TEST

/*
 * An overflow's replay goes on where the stream stopped and hands out another group's
 * event, 101 past the last of that group the monitor knew of: no loss of the monitor's.
 */
START_TEST(replay_through_other_groups)
{
	start(ua_only, 10, 3, 5, 2);
	ck_assert(arrives(UAE_EVENT_UA, 111, 4, 0));	/* 100 errors went by */
	uae_position_rewind(&pos, 111);
	ck_assert(arrives(UAE_EVENT_ERROR, 112, 106, 0));
	ck_assert_uint_eq(lost, 0);
	ck_assert(arrives(UAE_EVENT_UA, 113, 5, 0));
	ck_assert_uint_eq(lost, 0);
}
END_TEST

/*
 * A replay from a saved number: where the UA group stands is not known.  What the history
 * lacked before another group's event may have been UAs: told with the next UA.
 */
START_TEST(replay_from_saved_number)
{
	start(ua_only, 50, 20, 30, 0);
	uae_position_rewind(&pos, 5);
	ck_assert(arrives(UAE_EVENT_ERROR, 20, 9, 14));
	ck_assert_uint_eq(lost, 0);
	ck_assert(arrives(UAE_EVENT_UA, 21, 9, 0));
	ck_assert_uint_eq(lost, 14);
	ck_assert_uint_eq(first, 6);
	/* From then on the UA group's numbers tell. */
	ck_assert(arrives(UAE_EVENT_ERROR, 30, 12, 3));
	ck_assert_uint_eq(lost, 0);
	ck_assert(arrives(UAE_EVENT_UA, 31, 10, 0));
	ck_assert_uint_eq(lost, 0);
}
END_TEST

/* What fell out before a replayed event of a group whose place is unknown is a loss. */
START_TEST(replay_dump_lost)
{
	start(all, 50, 20, 30, 0);
	uae_position_rewind(&pos, 5);
	ck_assert(arrives(UAE_EVENT_UA, 20, 9, 14));
	ck_assert_uint_eq(lost, 14);
	ck_assert_uint_eq(first, 6);
	ck_assert(arrives(UAE_EVENT_UA, 21, 10, 0));
	ck_assert_uint_eq(lost, 0);
}
END_TEST

/* A group joined again starts where the stream stands: no loss from before. */
START_TEST(joined_again)
{
	start(all, 10, 3, 5, 2);
	uae_position_join(&pos, UAE_GROUP_ERROR, false, 0);
	ck_assert(arrives(UAE_EVENT_UA, 60, 4, 0));
	uae_position_join(&pos, UAE_GROUP_ERROR, true, 54);
	ck_assert(arrives(UAE_EVENT_ERROR, 61, 55, 0));
	ck_assert_uint_eq(lost, 0);
	ck_assert(arrives(UAE_EVENT_ERROR, 63, 57, 0));
	ck_assert_uint_eq(lost, 1);
}
END_TEST

/*
 * A replay from a saved number, all groups: once the UA group's place is known, what the
 * history lacked before a UA may still have been an error, whose place is not known yet:
 * told with the next error, from the first number missed.
 */
START_TEST(known_group_keeps_what_others_lost)
{
	start(all, 50, 20, 30, 0);
	uae_position_rewind(&pos, 5);
	ck_assert(arrives(UAE_EVENT_UA, 20, 9, 14));
	ck_assert_uint_eq(lost, 14);
	ck_assert_uint_eq(first, 6);
	/* Number 21 fell out (or was never captured): it may have been an error. */
	ck_assert(arrives(UAE_EVENT_UA, 22, 10, 1));
	ck_assert_uint_eq(lost, 0);
	ck_assert(arrives(UAE_EVENT_ERROR, 23, 3, 0));
	ck_assert_uint_eq(lost, 1);
	ck_assert_uint_eq(first, 21);
	/* The SG_IO group's place is still unknown: number 24 may have been one of it. */
	ck_assert(arrives(UAE_EVENT_UA, 25, 11, 1));
	ck_assert_uint_eq(lost, 0);
	ck_assert(arrives(UAE_EVENT_SGIO, 26, 1, 0));
	ck_assert_uint_eq(lost, 1);
	ck_assert_uint_eq(first, 24);
	/* Every group's place is known now: nothing is kept any more. */
	ck_assert(arrives(UAE_EVENT_UA, 28, 12, 1));
	ck_assert_uint_eq(lost, 0);
	ck_assert(arrives(UAE_EVENT_ERROR, 29, 4, 0));
	ck_assert_uint_eq(lost, 0);
	ck_assert(arrives(UAE_EVENT_SGIO, 30, 2, 0));
	ck_assert_uint_eq(lost, 0);
}
END_TEST

/* The module reloaded: another instance numbers from 1, nothing of the old one missed. */
START_TEST(new_instance)
{
	struct uae_event ev = { .kind = UAE_EVENT_UA, .seq = 1, .instance = INSTANCE + 1,
				.group_seq = 1 };

	start(all, 500, 100, 200, 300);
	ck_assert(uae_position_accept(&pos, &ev, &first, &lost));
	ck_assert_uint_eq(lost, 0);
	/* The first of the error group: number 2 was another group's, its own will tell. */
	ev.seq = 3;
	ev.group_seq = 1;
	ev.kind = UAE_EVENT_ERROR;
	ck_assert(uae_position_accept(&pos, &ev, &first, &lost));
	ck_assert_uint_eq(lost, 0);
	/* The second of the error group, after one of it went missing. */
	ev.seq = 6;
	ev.group_seq = 3;
	ck_assert(uae_position_accept(&pos, &ev, &first, &lost));
	ck_assert_uint_eq(lost, 1);
}
END_TEST

/* A module without group numbers: only the global one tells. */
START_TEST(no_group_numbers)
{
	start(ua_only, 10, 0, 0, 0);
	ck_assert(arrives(UAE_EVENT_UA, 14, 0, 0));
	ck_assert_uint_eq(lost, 3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("position");
	TCase *tc = tcase_create("position");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, live_all_groups);
	tcase_add_test(tc, live_some_groups);
	tcase_add_test(tc, nvme_group);
	tcase_add_test(tc, replay_through_other_groups);
	tcase_add_test(tc, replay_from_saved_number);
	tcase_add_test(tc, replay_dump_lost);
	tcase_add_test(tc, joined_again);
	tcase_add_test(tc, known_group_keeps_what_others_lost);
	tcase_add_test(tc, new_instance);
	tcase_add_test(tc, no_group_numbers);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
