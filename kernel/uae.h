/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uaevents: what the module's source files share.
 *
 * An event is captured in atomic context (a kprobe or a tracepoint in the SCSI and block
 * completion paths), queued, and delivered by a work item: recorded in the history,
 * multicast over generic netlink, and sent as a uevent.
 */
#ifndef UAE_H
#define UAE_H

#include <linux/blkdev.h>
#include <linux/list.h>
#include <linux/types.h>
#include <scsi/scsi_cmnd.h>

#include <uapi/linux/uaevents.h>

#include "uae_sense.h"

struct scsi_device;
struct sk_buff;

#define UAE_SGDEV_LEN	16
#define UAE_WWID_LEN	128
#define UAE_SERIAL_LEN	64
#define UAE_NVME_CTRL_LEN	16	/* "nvme%d" */

/* One event, as published and as kept in the history: plain data, no pointers to free. */
struct uae_record {
	u64 seq;
	u64 group_seq;		/* sequence number within its multicast group */
	u64 timestamp_ns;
	u8 kind;		/* enum uaevents_kind */
	u32 flags;		/* UAEVENTS_FLAG_* */
	u32 repeat;		/* occurrences this event stands for */
	u32 host, channel, target;
	u64 lun;
	char devname[DISK_NAME_LEN];
	union {
		char sgdev[UAE_SGDEV_LEN];		/* SCSI: the LU's sg device */
		char nvme_ctrl[UAE_NVME_CTRL_LEN];	/* NVMe: its controller, "" unknown */
	};
	char wwid[UAE_WWID_LEN];
	char serial[UAE_SERIAL_LEN];
	union {
		u8 sense[SCSI_SENSE_BUFFERSIZE];
		u32 nsids[UAEVENTS_NSIDS_MAX];	/* NVMe: a changed namespace list's */
	};
	u8 sense_len;
	u8 sense_key, asc, ascq;
	u8 category;		/* enum uae_category */
	const char *name;	/* static string from the shared tables */
	u8 opcode;
	u8 req_op;		/* REQ_OP_* of the block request, if any */
	bool has_req_op;	/* a block request's (not pass-through) */
	bool has_lba;		/* a block request's with a range (not a cache flush) */
	u64 lba;
	u32 sectors;
	u8 host_byte, status;
	u32 error;		/* errno the block layer returned, 0 if none */
	struct uae_class class;
	u8 transport;		/* enum uaevents_transport */
	bool has_nvme_status;	/* a failed NVMe request's status was read */
	u16 nvme_status;
	u8 ana_state;		/* UAEVENTS_KIND_ANA: the group's state */
	u32 aen_result;		/* UAEVENTS_KIND_AEN: completion dword 0 */
	u32 ana_group;		/* UAEVENTS_KIND_ANA: the ANA group */
	bool has_nsids;		/* a changed namespace list: @nsids, @nsid_count */
	u8 nsid_count;
	u32 nsids_listed;	/* how many the log listed, or UAEVENTS_NSIDS_OVERFLOW */
};

/*
 * What a hook saw; uae_capture() turns it into an event.  A SCSI event's @sdev is set; an
 * NVMe event (@transport) has none, only its controller.
 */
struct uae_capture {
	struct scsi_device *sdev;
	struct request *rq;	/* NULL for injected events */
	u8 kind;
	u32 flags;
	const struct uae_sense *sense;	/* @sense_buf decoded, NULL if there is none */
	const u8 *sense_buf;
	size_t sense_len;
	u8 opcode;		/* CDB operation code, 0 without a command */
	u8 host_byte, status;
	u32 error;
	u8 transport;			/* enum uaevents_transport */
	const void *nvme_ctrl;		/* the struct nvme_ctrl: compared, never followed */
	const char *nvme_ctrl_name;	/* its device's name, NULL if not known */
	u32 aen_result;
	bool has_nvme_status;		/* a failed NVMe request: @nvme_status and @opcode */
	u16 nvme_status;
	u32 ana_group;			/* an ANA group's state: which, and what */
	u8 ana_state;
	const u32 *nsids;		/* a changed namespace list (kind AEN), or NULL */
	unsigned int nsid_count;	/* at most UAEVENTS_NSIDS_MAX */
	u32 nsids_listed;
};

/* The multicast groups, each with its own sequence numbers. */
enum uae_group {
	UAE_GROUP_UA,
	UAE_GROUP_ERROR,	/* errors and timeouts */
	UAE_GROUP_SGIO,
	UAE_GROUP_NVME,		/* every NVMe event: subscribers of the others see none */
	UAE_GROUPS
};

static inline u8 uae_group_of(u8 kind, u8 transport)
{
	if (transport != UAEVENTS_TRANSPORT_SCSI)
		return UAE_GROUP_NVME;
	switch (kind) {
	case UAEVENTS_KIND_UA:
		return UAE_GROUP_UA;
	case UAEVENTS_KIND_SGIO:
		return UAE_GROUP_SGIO;
	default:
		return UAE_GROUP_ERROR;
	}
}

/*
 * What two occurrences must share to be coalesced into one event: the device (its host,
 * for a host's summary), what happened and to which command, and the flags, which tell a
 * user's command from the kernel's and an expected failure from news.  The device is its
 * object and its address: a device that never became visible (a scan's probe of a LUN)
 * is freed without a removal to forget it by, and the allocator may hand its memory to
 * the probe of the next LUN.  NVMe's have no removal to forget them by either: an
 * asynchronous event's device is its controller (its host too) and its instance number
 * (@id), what happened its result (@detail); a failed request's device is its
 * namespace's disk and that disk's sequence number (@lun: never reused), in its
 * controller, what happened its status or, without one, its errno; an ANA group's state
 * is its controller's, the group (@lun) and the state (@detail).
 */
struct uae_coalesce_key {
	const void *origin;	/* the scsi_device (or NVMe's, above); its host in a summary */
	const void *host;	/* the Scsi_Host: what a summary's origin becomes */
	u64 lun;		/* the address: H:C:T:L, only H in a summary */
	u32 host_no, channel, id;
	u32 flags;		/* UAEVENTS_FLAG_*, UAEVENTS_FLAG_SUMMARY in a summary */
	u8 kind, host_byte, status, sense_key, asc, ascq, opcode;
	u8 transport;		/* enum uaevents_transport */
	u32 detail;
};

/* An event on its way: a record plus the device reference it holds. */
struct uae_event {
	struct list_head node;		/* free or pending list */
	struct list_head held_node;	/* held, its device not yet let go */
	struct scsi_device *sdev;	/* pinned (scsi_device_get()), or NULL */
	const void *origin;		/* the device it came from: compared, never followed */
	bool identified;		/* identity read while held, device let go */
	struct uae_record rec;
};

/* The storm window of one kind of occurrence (uae_coalesce.c). */
struct uae_recent {
	struct hlist_node hash;		/* in its bucket while in use */
	struct hlist_node by_origin;	/* in its origin's bucket until the origin leaves */
	struct list_head by_time;	/* free list, or recent list by last_ns */
	struct list_head idle;		/* on the idle list while it holds nothing */
	struct uae_coalesce_key key;
	u64 last_ns;		/* when it was last published */
	struct uae_event *held;	/* occurrences since, waiting for the window to end */
};

/*
 * The coalescer's slots, allocated at load: as many as events in the pool (a slot
 * holds at most one), found by hash.  A slot holding nothing whose window has ended
 * knows nothing its absence would not: it is reused.  When the slots or the pool run
 * short, new storms are counted in one summary per host and kind of failure instead.
 */
struct uae_coalescer {
	struct uae_recent *slot;
	struct hlist_head *bucket;
	struct hlist_head *origin_bucket;	/* the same slots, by origin alone */
	unsigned int bits;		/* 1 << bits buckets of each */
	unsigned int nr;		/* slots */
	unsigned int fine, fine_max;	/* slots of devices' keys in use, and their limit */
	unsigned int held, held_max;	/* slots holding an event, devices' limit */
	struct list_head free;
	struct list_head recent;	/* slots in use, the one published longest ago first */
	struct list_head idle;		/* slots in use holding nothing, same order */
};

enum uae_coalesce_verdict {
	UAE_COALESCE_PUBLISH,	/* new: publish now */
	UAE_COALESCE_HOLD,	/* repeats a recent event: hold it until the window ends */
	UAE_COALESCE_FOLD,	/* repeats a held event: count it there */
};

/* What the capture path knows of an occurrence besides its key (uae_coalesce()'s @state). */
#define UAE_COALESCE_SHORT	0x1	/* the pool runs low: a new storm is summarized */
#define UAE_COALESCE_LEAVING	0x2	/* its device (or host) is being removed */

int uae_coalescer_init(struct uae_coalescer *c, unsigned int nr);
void uae_coalescer_free(struct uae_coalescer *c);
/*
 * What to do with an occurrence of @key at @now_ns.  FOLD: it was counted in a held
 * event, nothing more to do.  PUBLISH: build an event and publish it.  HOLD: build an
 * event and give it to uae_coalesce_hold(@c, *@slot, ev).  Whatever the verdict, *@due
 * is a held event whose window has ended, to be published before this occurrence, or
 * NULL.  @state: UAE_COALESCE_*.  When the occurrence goes to its host's summary, @key
 * becomes the summary's key (its flags have UAEVENTS_FLAG_SUMMARY).
 */
enum uae_coalesce_verdict uae_coalesce(struct uae_coalescer *c, struct uae_coalesce_key *key,
				       u64 now_ns, u64 window_ns, unsigned int state,
				       struct uae_recent **slot, struct uae_event **due);
/*
 * @origin is being removed (and its host, if @host): no later occurrence, of a device
 * the allocator may place at the same address, is counted in what it left.  Its held
 * events are published when their windows end, as usual.  A few slots a call: call
 * again, with interrupts on in between, while it returns true.
 */
bool uae_coalesce_forget(struct uae_coalescer *c, const void *origin, const void *host);
void uae_coalesce_hold(struct uae_coalescer *c, struct uae_recent *slot,
		       struct uae_event *ev);
struct uae_event *uae_coalesce_take_due(struct uae_coalescer *c, u64 now_ns, u64 window_ns);
u64 uae_coalesce_next_due(const struct uae_coalescer *c, u64 window_ns);

/* Settings (module parameters, also set by UAEVENTS_CMD_SET_CONFIG). */
extern unsigned int uae_coalesce_ms;
extern unsigned int uae_max_pending;
extern unsigned int uae_uevents;
extern u64 uae_instance_id;

/* Counters, reported by UAEVENTS_CMD_GET_STATS. */
struct uae_stats {
	atomic64_t coalesced;
	atomic64_t alloc_failed;
	atomic64_t queue_full;
	atomic64_t mcast_overflow;
	atomic64_t lost_unread;
};

extern struct uae_stats uae_stats;

/* uae_capture.c */
int uae_capture_init(unsigned int max_pending);
void uae_capture(const struct uae_capture *in);
void uae_capture_flush(void);
void uae_capture_window_changed(void);
void uae_capture_device_leaving(struct scsi_device *sdev);
u64 uae_last_seq(void);
/* The last sequence number of each group, in @group_seq[UAE_GROUPS]; the global one. */
u64 uae_last_seqs(u64 *group_seq);
void uae_capture_exit(void);

/* uae_hooks.c */
int uae_hooks_init(void);
void uae_hooks_exit(void);
/* Hits the kprobe machinery skipped: each may have been an event. */
u64 uae_hooks_missed(void);

/* uae_nvme_hooks.c: NVMe asynchronous events, while nvme_core is loaded. */
int uae_nvme_init(void);
void uae_nvme_exit(void);
/* Hits the kprobe machinery skipped of the NVMe hooks', as uae_hooks_missed(). */
u64 uae_nvme_missed(void);
/* block_rq_error: true if @parent (the disk's) is an NVMe controller's, and handled. */
bool uae_nvme_rq_error(struct request *rq, blk_status_t error, struct device *parent);

/* uae_history.c */
int uae_history_init(unsigned int size);
void uae_history_exit(void);
void uae_history_add(const struct uae_record *rec);
/* Every subscriber, or a dump, got event @seq: it is not lost if it falls out unread. */
void uae_history_mark_read(u64 seq);
void uae_history_clear(void);
unsigned int uae_history_size(void);
u64 uae_history_first_seq(void);
/*
 * Copy the oldest event with seq > @after into @rec.  Returns 0, or -ENOENT when there
 * is none.  *@lost: the numbers after @after and before this event that the history
 * cannot give: events that fell out of it, and those never captured (queue_full),
 * which took a number too.
 */
int uae_history_next(u64 after, struct uae_record *rec, u64 *lost);

/* uae_message.c */
int uae_put_record(struct sk_buff *skb, const struct uae_record *rec, u64 instance);

/* uae_netlink.c */
int uae_netlink_init(void);
void uae_netlink_exit(void);
/* Multicast @rec to its group; true if every subscriber got it. */
bool uae_netlink_publish(const struct uae_record *rec);

/* uae_uevent.c */
int uae_uevent_init(void);
void uae_uevent_exit(void);
void uae_uevent_send(struct scsi_device *sdev, const struct uae_record *rec);

/* uae_identity.c */
bool uae_identity_same(struct scsi_device *sdev, const struct uae_record *rec);
void uae_identity_fill(struct scsi_device *sdev, struct uae_record *rec);

#endif /* UAE_H */
