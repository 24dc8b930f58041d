/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Journal MESSAGE_IDs, one per event kind.  journald/uaevents.catalog explains each one;
 * an ID once published never changes meaning.
 */
#ifndef UAE_MESSAGE_IDS_H
#define UAE_MESSAGE_IDS_H

struct uae_message_id {
	const char *event;	/* event name, NULL: the fallback for any other UA */
	const char *id;		/* 32 lower-case hex digits */
	int priority;		/* syslog priority */
};

#define UAE_MID_UA_OTHER "9b807f9352c64ec29e836f9502dbd495"

static const struct uae_message_id uae_message_ids[] = {
	{ "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED", "dbef670c0acc4a518e8986b26be121b1", 4 },
	{ "CAPACITY_DATA_HAS_CHANGED",		"3fc6d976d4e94141be96e8426bfd1878", 5 },
	{ "REPORTED_LUNS_DATA_HAS_CHANGED",	"1478cebde0674ffbacb87993cfc12337", 5 },
	{ "INQUIRY_DATA_HAS_CHANGED",		"ced5eb244eca4c08b541e61e1983af7d", 5 },
	{ "DEVICE_IDENTIFIER_CHANGED",		"74320fdc24b4476ba075a886b83c7ad7", 5 },
	{ "ASYMMETRIC_ACCESS_STATE_CHANGED",	"75dbb847422f4da1abe7b12c8db9f78e", 5 },
	{ "MODE_PARAMETERS_CHANGED",		"545a44b5f6fc487fae778777f8a0b074", 5 },
	{ "POWER_ON_RESET_OCCURRED",		"9640fe2a4eb74091a57f66bde2f1788c", 6 },
	{ "MICROCODE_HAS_BEEN_CHANGED",		"0ceb8cd3060f457e90e7b5c476acd1ec", 5 },
	{ "MICROCODE_HAS_BEEN_CHANGED_WITHOUT_RESET", "532d9646275e4f509c0eed948d3073bc", 5 },
	{ NULL,					UAE_MID_UA_OTHER, 5 },
};

#endif /* UAE_MESSAGE_IDS_H */
