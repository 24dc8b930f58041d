/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * uaevents: SCSI unit attentions and classified errors, published over generic netlink.
 *
 * The one definition of the netlink family, shared by the kernel module and user space.
 * Messages are attribute lists, never fixed structs: a reader skips attributes it does
 * not know, and new attributes are only ever appended.  UAEVENTS_GENL_VERSION changes
 * only when the meaning of an existing attribute changes.
 *
 * Permissions: events name devices, serial numbers and the LBAs of failed I/O, which a
 * host with dmesg_restrict=1 (Debian's default) keeps from users, and pass-through
 * failures never reach the kernel log at all.  So subscribing to the groups and
 * UAEVENTS_CMD_GET_HISTORY need CAP_SYS_ADMIN, and so do the commands that change state
 * or make events that uaeventd acts on (CLEAR_HISTORY, SET_CONFIG, INJECT): CAP_NET_ADMIN,
 * which network daemons and host-network containers hold, is not enough.  GET_STATS,
 * counters and settings only, is open to every user.
 */
#ifndef _UAPI_LINUX_UAEVENTS_H
#define _UAPI_LINUX_UAEVENTS_H

#define UAEVENTS_GENL_NAME	"uaevents"
#define UAEVENTS_GENL_VERSION	1

/* Multicast groups. */
#define UAEVENTS_MCGRP_UA	"ua"	/* unit attentions */
#define UAEVENTS_MCGRP_ERROR	"error"	/* failed block I/O and command timeouts */
#define UAEVENTS_MCGRP_SGIO	"sgio"	/* failed SG_IO pass-through commands */
/*
 * Since 0.2: every NVMe event, asynchronous events and failed NVMe requests alike, so that
 * a subscriber of the groups above sees nothing new.
 */
#define UAEVENTS_MCGRP_NVME	"nvme"

enum uaevents_cmd {
	UAEVENTS_CMD_UNSPEC,
	UAEVENTS_CMD_EVENT,		/* notification, and each reply of GET_HISTORY */
	UAEVENTS_CMD_GET_STATS,		/* do: counters and settings */
	UAEVENTS_CMD_GET_HISTORY,	/* dump: events after UAEVENTS_ATTR_SINCE_SEQ */
	UAEVENTS_CMD_CLEAR_HISTORY,	/* do, CAP_SYS_ADMIN */
	UAEVENTS_CMD_SET_CONFIG,	/* do, CAP_SYS_ADMIN: COALESCE_MS, UEVENTS */
	UAEVENTS_CMD_INJECT,		/* do, CAP_SYS_ADMIN: a synthetic event, see below */

	__UAEVENTS_CMD_MAX,
	UAEVENTS_CMD_MAX = __UAEVENTS_CMD_MAX - 1
};

/* What kind of thing an event reports. */
enum uaevents_kind {
	UAEVENTS_KIND_UA = 1,		/* a unit attention (sense key 6h) */
	UAEVENTS_KIND_ERROR,		/* block I/O failed: the midlayer's final answer */
	UAEVENTS_KIND_TIMEOUT,		/* a command timed out (error handling follows) */
	/*
	 * An SG_IO / sg pass-through command failed: with a CHECK CONDITION (its sense), or
	 * without one (its host byte or status), once its failure is final.
	 */
	UAEVENTS_KIND_SGIO,
	/*
	 * An NVMe controller's asynchronous event (since 0.2): UAEVENTS_ATTR_NVME_AEN_RESULT,
	 * the controller (UAEVENTS_ATTR_NVME_CTRL, unless the module could not tell it), no
	 * SCSI address.  In group "nvme".  Also (since 0.2) the list of changed namespaces
	 * the driver read from the Changed Namespace List log page that a "namespace
	 * attribute changed" event pointed it to: UAEVENTS_ATTR_EVENT
	 * "NVME_CHANGED_NAMESPACE_LIST", NVME_AEN_RESULT that event's, UAEVENTS_ATTR_NVME_NSIDS.
	 */
	UAEVENTS_KIND_AEN,
	/*
	 * An NVMe ANA group's state, as one controller (a path) read it from its ANA log
	 * (since 0.2): when it is first read and each time it changes, never for a read
	 * that finds it unchanged.  UAEVENTS_ATTR_NVME_CTRL, UAEVENTS_ATTR_NVME_ANA_GROUP,
	 * UAEVENTS_ATTR_NVME_ANA_STATE.  In group "nvme".
	 */
	UAEVENTS_KIND_ANA,
};

/* UAEVENTS_ATTR_TRANSPORT: the protocol an event's device speaks; absent means SCSI. */
enum uaevents_transport {
	UAEVENTS_TRANSPORT_SCSI = 0,
	UAEVENTS_TRANSPORT_NVME,
};

/* UAEVENTS_ATTR_NVME_NSIDS: the most an event carries; NVME_NSIDS_LISTED's "more". */
#define UAEVENTS_NSIDS_MAX		24
#define UAEVENTS_NSIDS_OVERFLOW		0xffffffffU

/* UAEVENTS_ATTR_FLAGS */
#define UAEVENTS_FLAG_PASSTHROUGH	0x1	/* a pass-through (SCSI command) request */
#define UAEVENTS_FLAG_QUIET		0x2	/* the kernel expects and handles it */
#define UAEVENTS_FLAG_INJECTED		0x4	/* made by UAEVENTS_CMD_INJECT */
/* 0x8 is taken by libuaevents' UAE_EVENT_FLAG_STOCK (an event from a stock uevent). */
/*
 * The block request failed before a SCSI command was built for it: no opcode, host byte,
 * status or sense, only its errno and UAEVENTS_ATTR_REQ_OP.
 */
#define UAEVENTS_FLAG_NO_COMMAND	0x10
/* Seen by a command of the SCSI error handler's own: no request fields. */
#define UAEVENTS_FLAG_ERROR_HANDLER	0x20
/*
 * A storm summarized for its host: more devices failed at once than the module keeps a
 * window for, and the repeat count stands for this kind of failure on any device of the
 * host (and any command).  The device fields are those of the first occurrence.
 */
#define UAEVENTS_FLAG_SUMMARY		0x40

/*
 * UAEVENTS_ATTR_UEVENTS: which events also become KOBJ_CHANGE uevents.  Any user reads
 * uevents: they carry no LBA, sense bytes or serial, and a failed SG_IO command (kind
 * SGIO) never becomes one, whatever the mode.
 */
enum uaevents_uevent_mode {
	UAEVENTS_UEVENTS_NONE = 0,
	UAEVENTS_UEVENTS_UA,		/* unit attentions (default) */
	UAEVENTS_UEVENTS_ALL,		/* unit attentions, errors and timeouts */
};

/* Limits of the settings, also enforced on the module's parameters. */
#define UAEVENTS_COALESCE_MAX_MS	3600000	/* one hour */
#define UAEVENTS_HISTORY_MIN		16
#define UAEVENTS_HISTORY_MAX		65536	/* records of about 450 bytes: 29 MiB */
#define UAEVENTS_PENDING_MIN		16
#define UAEVENTS_PENDING_MAX		65536

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
	UAEVENTS_ATTR_CATEGORY,		/* u8: enum uae_category (sense/uae_sense.h) */
	/* Identity of the logical unit. */
	UAEVENTS_ATTR_SGDEV,		/* string: sg device ("sg1"), if any */
	UAEVENTS_ATTR_WWID,		/* string: as sysfs "wwid" shows it (VPD 83h) */
	UAEVENTS_ATTR_SERIAL,		/* string: unit serial number (VPD 80h) */
	/* The command and its result. */
	UAEVENTS_ATTR_FLAGS,		/* u32: UAEVENTS_FLAG_* */
	UAEVENTS_ATTR_REPEAT,		/* u32: occurrences this event stands for (>= 1) */
	UAEVENTS_ATTR_OPCODE,		/* u8: CDB operation code */
	UAEVENTS_ATTR_LBA,		/* u64: first sector (512 bytes) of the request */
	UAEVENTS_ATTR_SECTORS,		/* u32: its length in sectors */
	UAEVENTS_ATTR_HOST_BYTE,	/* u8: DID_* */
	UAEVENTS_ATTR_STATUS,		/* u8: SAM status */
	UAEVENTS_ATTR_ERRNO,		/* u32: what the block layer returned, as errno */
	/* Classification (docs/classification.md). */
	UAEVENTS_ATTR_SEVERITY,		/* u8: enum uae_severity */
	UAEVENTS_ATTR_LOCUS,		/* u8: enum uae_locus */
	UAEVENTS_ATTR_FAILOVER,		/* u8: 1 if another path may help */
	UAEVENTS_ATTR_CLASS_RULE,	/* u16: the rule that matched */
	UAEVENTS_ATTR_BLK_STATUS,	/* u8: enum uae_blk_status, the kernel's answer */
	/* Control. */
	UAEVENTS_ATTR_SINCE_SEQ,	/* u64: GET_HISTORY: events with seq > this */
	UAEVENTS_ATTR_COUNT,		/* u32: INJECT: how many events */
	UAEVENTS_ATTR_COALESCE_MS,	/* u32: storm window, 0 = off */
	UAEVENTS_ATTR_UEVENTS,		/* u8: enum uaevents_uevent_mode */
	/* GET_STATS. */
	UAEVENTS_ATTR_STAT_LAST_SEQ,		/* u64 */
	UAEVENTS_ATTR_STAT_HISTORY_SIZE,	/* u32: slots */
	UAEVENTS_ATTR_STAT_HISTORY_FIRST_SEQ,	/* u64: oldest event held, 0 if none */
	UAEVENTS_ATTR_STAT_LOST_UNREAD,		/* u64: fell out of the history unread */
	UAEVENTS_ATTR_STAT_COALESCED,		/* u64: occurrences folded into others */
	UAEVENTS_ATTR_STAT_ALLOC_FAILED,	/* u64: not multicast, or no uevent: no memory */
	UAEVENTS_ATTR_STAT_QUEUE_FULL,		/* u64: not captured: max_pending */
	UAEVENTS_ATTR_STAT_MCAST_OVERFLOW,	/* u64: a subscriber's socket overflowed */
	/*
	 * Appended in 0.2.  REQ_OP: the block request's REQ_OP_* (0 read, 1 write, 2 flush,
	 * 3 discard...), for block requests.  GROUP_SEQ: the sequence number within the
	 * event's multicast group, from 1, by which a subscriber of some groups tells a loss
	 * from the other groups' events.  STAT_*_LAST_SEQ: GET_STATS, the last GROUP_SEQ of
	 * each group.  DUMP_LOST: on a GET_HISTORY event, the sequence numbers between
	 * SINCE_SEQ (or the dump's event before it) and it that the history cannot give:
	 * events that fell out of it unread (STAT_LOST_UNREAD) or read, and events never
	 * captured (STAT_QUEUE_FULL), which take their numbers too.  All of any group.
	 * REQ_OP: a block request's REQ_OP_*, a cache flush's too (which has no LBA or
	 * SECTORS), never a pass-through command's.
	 */
	UAEVENTS_ATTR_REQ_OP,			/* u8 */
	UAEVENTS_ATTR_GROUP_SEQ,		/* u64 */
	UAEVENTS_ATTR_STAT_UA_LAST_SEQ,		/* u64 */
	UAEVENTS_ATTR_STAT_ERROR_LAST_SEQ,	/* u64 */
	UAEVENTS_ATTR_STAT_SGIO_LAST_SEQ,	/* u64 */
	UAEVENTS_ATTR_DUMP_LOST,		/* u64 */
	/*
	 * Appended in 0.2 too.  GET_STATS: occurrences the hooks could not see because the
	 * kernel skipped a handler (no free kretprobe instance, a hook hit inside another
	 * tracer's or probe's handler); each may have been an event, so it counts as a loss.
	 */
	UAEVENTS_ATTR_STAT_PROBE_MISSED,	/* u64 */
	/*
	 * Appended in 0.2 too: NVMe.  An event of transport NVMe (kind AEN, or ERROR in
	 * group "nvme") has no HOST, CHANNEL, TARGET or LUN.  NVME_CTRL: the controller
	 * ("nvme0"); DEVNAME then names its namespace's block device when the event is
	 * about one (a failed request's: a path's "nvme0c0n1" under native multipath).
	 * NVME_AEN_RESULT: an asynchronous event's completion dword 0 as the controller sent
	 * it: type in bits 2:0, information in 15:8, the log page to read in 23:16 (NVM
	 * Express Base Specification, "Asynchronous Event Request command").
	 * STAT_NVME_LAST_SEQ: the last GROUP_SEQ of group "nvme".  NVME_STATUS: a failed
	 * NVMe request's status as Linux keeps it, the completion's status field without
	 * its phase bit: SC in bits 7:0, SCT 10:8, CRD 12:11, MORE 13, DNR 14; then OPCODE
	 * is the NVMe command's and the classification is docs/classification.md's NVMe
	 * table's.  A failed NVMe request without NVME_STATUS had none the module could
	 * read (it failed before the driver set it up): only its errno and request.
	 * DUMP_NVME: GET_HISTORY, flag: NVMe events too; without it a dump leaves them out,
	 * as a reader of 0.1 would not know them, and what it leaves out is not lost.
	 */
	UAEVENTS_ATTR_TRANSPORT,		/* u8: enum uaevents_transport */
	UAEVENTS_ATTR_NVME_CTRL,		/* string */
	UAEVENTS_ATTR_NVME_AEN_RESULT,		/* u32 */
	UAEVENTS_ATTR_STAT_NVME_LAST_SEQ,	/* u64 */
	UAEVENTS_ATTR_NVME_STATUS,		/* u16 */
	UAEVENTS_ATTR_DUMP_NVME,		/* flag */
	UAEVENTS_ATTR_NVME_ANA_GROUP,		/* u32: ANA group id */
	/* u8: 1 optimized, 2 non-optimized, 3 inaccessible, 4 persistent loss, 15 change */
	UAEVENTS_ATTR_NVME_ANA_STATE,
	/*
	 * Appended in 0.2 too.  NVME_NSIDS: the namespace IDs a Changed Namespace List log page
	 * listed, in its order, at most UAEVENTS_NSIDS_MAX of them.  NVME_NSIDS_LISTED: how
	 * many it listed, more than NVME_NSIDS carries when it listed more than that;
	 * UAEVENTS_NSIDS_OVERFLOW when more namespaces changed than the page can hold (its
	 * first entry FFFFFFFFh): every namespace may have changed.
	 */
	UAEVENTS_ATTR_NVME_NSIDS,		/* binary: u32 array, host order */
	UAEVENTS_ATTR_NVME_NSIDS_LISTED,	/* u32 */

	__UAEVENTS_ATTR_MAX,
	UAEVENTS_ATTR_MAX = __UAEVENTS_ATTR_MAX - 1
};

#endif /* _UAPI_LINUX_UAEVENTS_H */
