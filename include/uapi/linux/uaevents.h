/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * uaevents: SCSI unit attentions and classified errors, published over generic netlink.
 *
 * The one definition of the netlink family, shared by the kernel module and user space.
 * Messages are attribute lists, never fixed structs: a reader skips attributes it does
 * not know, and new attributes are only ever appended.  UAEVENTS_GENL_VERSION changes
 * only when the meaning of an existing attribute changes.
 */
#ifndef _UAPI_LINUX_UAEVENTS_H
#define _UAPI_LINUX_UAEVENTS_H

#define UAEVENTS_GENL_NAME	"uaevents"
#define UAEVENTS_GENL_VERSION	1

/* Multicast groups. */
#define UAEVENTS_MCGRP_UA	"ua"	/* unit attentions */

enum uaevents_cmd {
	UAEVENTS_CMD_UNSPEC,
	UAEVENTS_CMD_EVENT,		/* notification: one event */

	__UAEVENTS_CMD_MAX,
	UAEVENTS_CMD_MAX = __UAEVENTS_CMD_MAX - 1
};

/* What kind of thing an event reports. */
enum uaevents_kind {
	UAEVENTS_KIND_UA = 1,		/* a unit attention (sense key 6h) */
};

enum uaevents_attr {
	UAEVENTS_ATTR_UNSPEC,
	UAEVENTS_ATTR_PAD,
	UAEVENTS_ATTR_SEQ,		/* u64: per-instance sequence number, from 1 */
	UAEVENTS_ATTR_INSTANCE,		/* u64: random id chosen at module load */
	UAEVENTS_ATTR_TIMESTAMP_NS,	/* u64: CLOCK_REALTIME when the kernel saw it */
	UAEVENTS_ATTR_KIND,		/* u8: enum uaevents_kind */
	UAEVENTS_ATTR_HOST,		/* u32: SCSI host number */
	UAEVENTS_ATTR_CHANNEL,		/* u32 */
	UAEVENTS_ATTR_TARGET,		/* u32 */
	UAEVENTS_ATTR_LUN,		/* u64 */
	UAEVENTS_ATTR_DEVNAME,		/* string: block device ("sda"), if any */
	UAEVENTS_ATTR_SENSE,		/* binary: raw sense data as received */
	UAEVENTS_ATTR_SENSE_KEY,	/* u8 */
	UAEVENTS_ATTR_ASC,		/* u8 */
	UAEVENTS_ATTR_ASCQ,		/* u8 */
	UAEVENTS_ATTR_EVENT,		/* string: stable event name */
	UAEVENTS_ATTR_CATEGORY,		/* u8: enum uae_category (uae_sense.h) */

	__UAEVENTS_ATTR_MAX,
	UAEVENTS_ATTR_MAX = __UAEVENTS_ATTR_MAX - 1
};

#endif /* _UAPI_LINUX_UAEVENTS_H */
