/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libuaevents internals shared between its source files; not installed. */
#ifndef UAE_PRIVATE_H
#define UAE_PRIVATE_H

#include <stdint.h>

#include <linux/netlink.h>

#include "libuaevents.h"

#define UAE_DEVNAME_MAX 32	/* the kernel's DISK_NAME_LEN */
#define UAE_SENSE_MAX 96	/* the kernel's SCSI_SENSE_BUFFERSIZE */

struct uae_event {
	int refcount;
	enum uae_event_kind kind;
	uint64_t seq, instance, gap, timestamp_ns;
	unsigned int host, channel, target;
	uint64_t lun;
	char hctl[64];
	char devname[UAE_DEVNAME_MAX];
	char name[64];
	uint8_t sense_key, asc, ascq;
	int category;
	uint8_t sense[UAE_SENSE_MAX];
	size_t sense_len;
};

/*
 * Parse and validate one uaevents message.  0 with *ret NULL: a well-formed message that
 * is not an event; -EBADMSG: malformed.
 */
int uae_event_from_nlmsg(struct nlmsghdr *nlh, struct uae_event **ret);

#endif /* UAE_PRIVATE_H */
