/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd's view of an event, from either source: the module or, without it, the stock
 * kernel's SDEV_UA= and NVME_AEN= uevents (fewer fields), both through libuaevents.
 */
#ifndef UAED_EVENT_H
#define UAED_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uae_event;

struct uaed_event {
	struct uae_event *ev;		/* the library's event; NULL in a job's copy */
	char kind[16];			/* "ua", "error", ... */
	char name[64];			/* "CAPACITY_DATA_HAS_CHANGED" */
	char category[16];		/* "inventory", ...; "none" */
	unsigned int host, channel, target;
	uint64_t lun;
	char hctl[64];			/* "" for NVMe */
	char nvme_ctrl[32];		/* NVMe: the controller, "nvme0"; "" for SCSI */
	char devname[32];
	char wwid[128];
	/* What sits above the LU when the event came (uae_stack_get_summary()); "" unknown. */
	char stack[512];
	/* Device-supplied; read from sysfs only when a hook is to run for the event. */
	char vendor[32], model[32], rev[16];
	/*
	 * Replayed, and in the journal already: a previous run logged it and left its actions
	 * to this one, which owes them (rescan.h) but does not count it as a report of its own.
	 */
	bool logged_earlier;
};

#endif /* UAED_EVENT_H */
