/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Journal MESSAGE_IDs, one per event kind.  journald/uaevents.catalog explains each one;
 * an ID once published never changes meaning.
 */
#ifndef UAE_MESSAGE_IDS_H
#define UAE_MESSAGE_IDS_H

#include <syslog.h>

#include "libuaevents.h"

struct uae_message_id {
	enum uae_event_kind kind;
	const char *event;	/* event name; NULL: any other event of this kind */
	const char *id;		/* 32 lower-case hex digits */
	int priority;		/* syslog priority; -1: from the classification */
};

static const struct uae_message_id uae_message_ids[] = {
	{ UAE_EVENT_UA, "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED",
	  "dbef670c0acc4a518e8986b26be121b1", LOG_WARNING },
	{ UAE_EVENT_UA, "CAPACITY_DATA_HAS_CHANGED", "3fc6d976d4e94141be96e8426bfd1878", LOG_NOTICE },
	{ UAE_EVENT_UA, "REPORTED_LUNS_DATA_HAS_CHANGED",
	  "1478cebde0674ffbacb87993cfc12337", LOG_NOTICE },
	{ UAE_EVENT_UA, "INQUIRY_DATA_HAS_CHANGED", "ced5eb244eca4c08b541e61e1983af7d", LOG_NOTICE },
	{ UAE_EVENT_UA, "DEVICE_IDENTIFIER_CHANGED", "74320fdc24b4476ba075a886b83c7ad7", LOG_NOTICE },
	{ UAE_EVENT_UA, "ASYMMETRIC_ACCESS_STATE_CHANGED",
	  "75dbb847422f4da1abe7b12c8db9f78e", LOG_NOTICE },
	{ UAE_EVENT_UA, "IMPLICIT_ASYMMETRIC_ACCESS_STATE_TRANSITION_FAILED",
	  "83d8aa45e34d4e8a989d27c58ad53687", LOG_ERR },
	/*
	 * Another initiator took this host's registration away, or cleared them all: the host
	 * was fenced from the LU.  A released reservation takes nothing from this host.
	 */
	{ UAE_EVENT_UA, "REGISTRATIONS_PREEMPTED", "675cfdcee0da40a3a5223ca4fb589362", LOG_ALERT },
	{ UAE_EVENT_UA, "RESERVATIONS_PREEMPTED", "94de3d2e5ba140f5830d7258d13c0024", LOG_ALERT },
	{ UAE_EVENT_UA, "RESERVATIONS_RELEASED", "429547156c1d4364aece86b1e6deffb6", LOG_WARNING },
	{ UAE_EVENT_UA, "MODE_PARAMETERS_CHANGED", "545a44b5f6fc487fae778777f8a0b074", LOG_NOTICE },
	{ UAE_EVENT_UA, "POWER_ON_RESET_OCCURRED", "9640fe2a4eb74091a57f66bde2f1788c", LOG_INFO },
	{ UAE_EVENT_UA, "MICROCODE_HAS_BEEN_CHANGED", "0ceb8cd3060f457e90e7b5c476acd1ec", LOG_NOTICE },
	{ UAE_EVENT_UA, "MICROCODE_HAS_BEEN_CHANGED_WITHOUT_RESET",
	  "532d9646275e4f509c0eed948d3073bc", LOG_NOTICE },
	{ UAE_EVENT_UA, NULL, "9b807f9352c64ec29e836f9502dbd495", LOG_NOTICE },
	{ UAE_EVENT_ERROR, "SPACE_ALLOCATION_FAILED_WRITE_PROTECT",
	  "97ab5a4c3f8b4deb81576f77c61a4dbf", LOG_CRIT },
	{ UAE_EVENT_ERROR, NULL, "a427f555eda44779ab72fd6962f178ea", -1 },
	{ UAE_EVENT_TIMEOUT, NULL, "b838bd1fe3b64cb0ae93fcfcbee190f3", LOG_WARNING },
	/* The pool is full whichever path the write took: the same entry, through SG_IO too. */
	{ UAE_EVENT_SGIO, "SPACE_ALLOCATION_FAILED_WRITE_PROTECT",
	  "97ab5a4c3f8b4deb81576f77c61a4dbf", LOG_CRIT },
	{ UAE_EVENT_SGIO, NULL, "88259f26cb6b4282b9a4d58ab2dd8b3d", LOG_NOTICE },
	/*
	 * NVMe asynchronous events.  The driver acts on a namespace change and an ANA change
	 * itself (it rescans, it reads the ANA log): the entry says what changed.  A SMART
	 * critical warning is the drive's own alarm.  Any other: by its class (an error
	 * event is an error, a SMART one critical, the rest notices).
	 */
	{ UAE_EVENT_AEN, "NVME_SPARE_BELOW_THRESHOLD", "cbab1d3157c84ba797b648e23c4fb956",
	  LOG_ALERT },
	{ UAE_EVENT_AEN, "NVME_SUBSYSTEM_RELIABILITY_DEGRADED", "34e321bd22bd4d768f2cbcf114c84ca5",
	  LOG_CRIT },
	{ UAE_EVENT_AEN, "NVME_TEMPERATURE_THRESHOLD", "d288e5c8b9e1444dbaf213058e575cb1",
	  LOG_WARNING },
	{ UAE_EVENT_AEN, "NVME_NAMESPACE_ATTRIBUTE_CHANGED", "5e40d1d288b449f7be9d088858511965",
	  LOG_NOTICE },
	/* Which namespaces: the list the driver read after that event. */
	{ UAE_EVENT_AEN, "NVME_CHANGED_NAMESPACE_LIST", "ff4a0eb02efc478ca1e764161f90a85e", LOG_NOTICE },
	{ UAE_EVENT_AEN, "NVME_ANA_CHANGE", "923248ae95eb4dfba14fc0964f25a19a", LOG_NOTICE },
	{ UAE_EVENT_AEN, "NVME_FIRMWARE_ACTIVATION_STARTING", "c08d6436a0234736b4cb2c9f2ffd08c2",
	  LOG_NOTICE },
	{ UAE_EVENT_AEN, NULL, "13f1f7b6048049209e8b685c104faa7f", -1 },
	/* A path's ANA state: by the state (inaccessible or lost: a warning). */
	{ UAE_EVENT_ANA, NULL, "e7b31123ada44f1fb648234faffbf609", -1 },
	{ UAE_EVENT_GAP, NULL, "4c634f9d338d4bffad10e699b1bf4a31", LOG_ERR },
};

#endif /* UAE_MESSAGE_IDS_H */
