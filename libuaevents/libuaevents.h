/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libuaevents: subscribe to SCSI unit attentions and classified errors published by the
 * uaevents kernel module.
 *
 * Handles are opaque and reference counted, in the style of libudev.  Calls that can fail
 * return a negative errno; uae_strerror() turns it into a message.
 *
 *	struct uae_monitor *m;
 *	struct uae_event *ev;
 *
 *	uae_monitor_new(&m);
 *	poll on uae_monitor_get_fd(m) for POLLIN, then
 *	while (uae_monitor_receive(m, &ev) == 0) {
 *		printf("%s on %s\n", uae_event_get_name(ev), uae_event_get_devname(ev));
 *		uae_event_unref(ev);
 *	}
 */
#ifndef LIBUAEVENTS_H
#define LIBUAEVENTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct uae_monitor;
struct uae_event;

/* Kinds of event (the values of UAEVENTS_ATTR_KIND). */
enum uae_event_kind {
	UAE_EVENT_UA = 1,	/* a unit attention */
	UAE_EVENT_ERROR,	/* block I/O failed: the midlayer's final answer */
	UAE_EVENT_TIMEOUT,	/* a command timed out */
	UAE_EVENT_SGIO,		/* an SG_IO pass-through command failed */
	UAE_EVENT_AEN,		/* an NVMe controller's asynchronous event (since 0.2) */
	UAE_EVENT_ANA,		/* an NVMe ANA group's state through a controller (0.2) */
	/*
	 * Not from the kernel: events were lost and could not be replayed.  Its sequence
	 * number is the first one lost, uae_event_get_gap() how many; it is handed out,
	 * whatever the filters, just before the event that revealed the gap.
	 */
	UAE_EVENT_GAP = 100,
	/*
	 * Not from the kernel: the module was loaded (name MODULE_LOADED, the new instance)
	 * or unloaded (MODULE_UNLOADED, the instance that went), and the monitor followed
	 * it, whatever the filters.  After MODULE_LOADED come the new instance's events from
	 * its first; after MODULE_UNLOADED, until the next MODULE_LOADED, the stock kernel's
	 * SDEV_UA= and NVME_AEN= uevents (uae_monitor_is_fallback()).  MODULE_MISSED:
	 * instances loaded and unloaded again before the monitor could follow them, as many
	 * as uae_event_get_repeat(); whatever events they had are lost.  Sequence number 0.
	 */
	UAE_EVENT_MODULE = 101,
};

/* uae_event_get_flags() */
#define UAE_EVENT_FLAG_PASSTHROUGH	0x1
#define UAE_EVENT_FLAG_QUIET		0x2	/* expected; the kernel handles it */
#define UAE_EVENT_FLAG_INJECTED		0x4	/* a test event (uae_inject()) */
#define UAE_EVENT_FLAG_STOCK		0x8	/* from the stock kernel's SDEV_UA= or
						 * NVME_AEN= uevent */
#define UAE_EVENT_FLAG_NO_COMMAND	0x10	/* the block request failed before a SCSI
						 * command was built: errno and request only */
#define UAE_EVENT_FLAG_ERROR_HANDLER	0x20	/* seen by the error handler's own command */
#define UAE_EVENT_FLAG_SUMMARY		0x40	/* the repeat count is of this failure on
						 * any device of the host: a storm over more
						 * devices than the module tracks one by one */

/*
 * Connect to the kernel module's generic netlink family and subscribe to all its events
 * from now on; the socket is non-blocking.  Without the module, the monitor falls back to
 * the stock kernel's uevents (through libudev): a scsi_device's SDEV_UA=, unit attentions
 * of the kinds the kernel names, and an NVMe controller's NVME_AEN=, the asynchronous
 * events the NVMe driver leaves to user space (UAE_EVENT_AEN: SMART / health, errors, a
 * discovery log change); without sense data, sequence numbers or history.  The monitor
 * follows the module as it is unloaded and loaded again (UAE_EVENT_MODULE); its fd stays
 * the same.
 */
int uae_monitor_new(struct uae_monitor **ret);
/*
 * 1 when the monitor reads the stock kernel's uevents, because the module is not loaded
 * (now: it changes with UAE_EVENT_MODULE events).
 */
int uae_monitor_is_fallback(struct uae_monitor *m);

/*
 * Hand out only events whose @key is @value.  Keys: "kind", "event", "category",
 * "severity", "locus", "failover" ("yes"/"no"), "device", "wwid", "hctl", and since 0.2
 * "transport" ("scsi"/"nvme") and "controller" (an NVMe one: "nvme0").  Values of one key
 * are alternatives; different keys must all match.  -EINVAL for an unknown key.
 */
int uae_monitor_filter_add_match(struct uae_monitor *m, const char *key, const char *value);
struct uae_monitor *uae_monitor_ref(struct uae_monitor *m);
struct uae_monitor *uae_monitor_unref(struct uae_monitor *m);

/* A file descriptor that polls readable when events may be waiting. */
int uae_monitor_get_fd(struct uae_monitor *m);

/*
 * Hand out the kernel history's events with sequence numbers above @since first, then
 * the live stream; nothing is handed out twice.  The replayed events wait in the monitor,
 * whose fd polls readable until they are received.  -EOPNOTSUPP in fallback mode.
 */
int uae_monitor_replay(struct uae_monitor *m, uint64_t since);

/*
 * The next event, without blocking.  Returns 0 and a new reference in *ret, -EAGAIN when
 * none is waiting, -EBADMSG for a message that failed validation (it is skipped).
 * When the socket overflows, the missed events are replayed from the kernel's history;
 * those the history no longer holds show as the next event's gap.
 */
int uae_monitor_receive(struct uae_monitor *m, struct uae_event **ret);

/* How often the socket overflowed and a replay was needed. */
uint64_t uae_monitor_get_overflows(struct uae_monitor *m);

struct uae_event *uae_event_ref(struct uae_event *ev);
struct uae_event *uae_event_unref(struct uae_event *ev);

enum uae_event_kind uae_event_get_kind(const struct uae_event *ev);
/* "ua", "error", "timeout", "sgio", "aen", "ana", "gap", "module" */
const char *uae_event_get_kind_name(const struct uae_event *ev);
uint32_t uae_event_get_flags(const struct uae_event *ev);
/* Sequence number, from 1 per module instance; the instance id changes at each load. */
uint64_t uae_event_get_seq(const struct uae_event *ev);
uint64_t uae_event_get_instance(const struct uae_event *ev);
/*
 * Events of this instance missed just before this one and not replayable (0 normally);
 * a UAE_EVENT_GAP event saying so comes just before it.
 */
uint64_t uae_event_get_gap(const struct uae_event *ev);
/* Occurrences this event stands for: more than 1 when a storm was coalesced. */
uint32_t uae_event_get_repeat(const struct uae_event *ev);
/* CLOCK_REALTIME in nanoseconds, when the kernel saw it. */
uint64_t uae_event_get_timestamp_ns(const struct uae_event *ev);

unsigned int uae_event_get_host(const struct uae_event *ev);
unsigned int uae_event_get_channel(const struct uae_event *ev);
unsigned int uae_event_get_target(const struct uae_event *ev);
uint64_t uae_event_get_lun(const struct uae_event *ev);
/* "2:0:0:1"; "" for an NVMe event, which has no SCSI address. */
const char *uae_event_get_hctl(const struct uae_event *ev);
/* Block device name ("sdb"), or NULL when the LU has none. */
const char *uae_event_get_devname(const struct uae_event *ev);
/* sg device name ("sg1"), or NULL. */
const char *uae_event_get_sgdev(const struct uae_event *ev);
/* The LU's WWID as sysfs "wwid" shows it, or NULL.  Device-supplied: printable ASCII. */
const char *uae_event_get_wwid(const struct uae_event *ev);
/* The LU's serial number (VPD 80h), or NULL.  Device-supplied: printable ASCII. */
const char *uae_event_get_serial(const struct uae_event *ev);

/*
 * NVMe (since 0.2).  The protocol of the event's device: "scsi" or "nvme"; NULL for a gap
 * or module event, which is about no device.
 */
const char *uae_event_get_transport(const struct uae_event *ev);
/* The NVMe controller ("nvme0"), or NULL: not NVMe, or the module could not tell it. */
const char *uae_event_get_nvme_controller(const struct uae_event *ev);
/*
 * An asynchronous event's (UAE_EVENT_AEN) completion dword 0, as the controller sent it:
 * type in bits 2:0, information in 15:8, the log page that tells more in 23:16; 0 for
 * another kind.  Its name is uae_event_get_name()'s ("NVME_ANA_CHANGE"...).
 */
uint32_t uae_event_get_aen_result(const struct uae_event *ev);
/* Its log page (bits 23:16 of the result), -ENODATA for another kind. */
int uae_event_get_aen_log_page(const struct uae_event *ev);
/*
 * A failed NVMe request's status (SC in bits 7:0, SCT 10:8, DNR 14, as Linux keeps it);
 * its name is uae_event_get_name()'s, its class the NVMe table's.  -ENODATA: not a failed
 * NVMe request, or one whose status the module could not read.
 */
int uae_event_get_nvme_status(const struct uae_event *ev);
/*
 * The namespaces that changed, as the Changed Namespace List log page the driver read
 * after a namespace attribute changed event listed them (an UAE_EVENT_AEN named
 * "NVME_CHANGED_NAMESPACE_LIST"): *nsids and *count the IDs the event carries, the first 24 in
 * the log's order.  Returns how many the log listed (more than *count when it listed
 * more), -EOVERFLOW when more changed than the log can list (every namespace may have),
 * -ENODATA for an event without a list.
 */
int uae_event_get_nvme_nsids(const struct uae_event *ev, const uint32_t **nsids,
			     unsigned int *count);
/* The most IDs uae_event_get_nvme_nsids() gives (*count). */
#define UAE_NVME_NSIDS_MAX 24
/*
 * An ANA state event's (UAE_EVENT_ANA) group, -ENODATA for another kind; and its state as
 * sysfs' ana_state names it: "optimized", "non-optimized", "inaccessible",
 * "persistent-loss", "change", or NULL (another kind, or a state the library does not know).
 */
int uae_event_get_ana_group(const struct uae_event *ev);
const char *uae_event_get_ana_state(const struct uae_event *ev);
/*
 * The class of an asynchronous event, by its type: "error", "smart", "notice",
 * "io_command_set", "vendor" or "reserved"; NULL for another kind.
 */
const char *uae_event_get_aen_class(const struct uae_event *ev);

/* Sense data; 0 for sense key, ASC and ASCQ when the event has none. */
int uae_event_has_sense(const struct uae_event *ev);
uint8_t uae_event_get_sense_key(const struct uae_event *ev);
uint8_t uae_event_get_asc(const struct uae_event *ev);
uint8_t uae_event_get_ascq(const struct uae_event *ev);
/* The raw sense data as the device sent it. */
const uint8_t *uae_event_get_sense(const struct uae_event *ev, size_t *len);

/* The failed command (errors, timeouts, SG_IO): 0 when not known. */
uint8_t uae_event_get_opcode(const struct uae_event *ev);
uint8_t uae_event_get_host_byte(const struct uae_event *ev);
uint8_t uae_event_get_status(const struct uae_event *ev);
/* First sector and length of the failed block request; 0 if it had none. */
int uae_event_get_lba(const struct uae_event *ev, uint64_t *lba, uint32_t *sectors);
/* The block request's operation (REQ_OP_*), -ENODATA for events without one. */
int uae_event_get_req_op(const struct uae_event *ev);
/* "read", "write", "flush", "discard", "secure-erase", "write-zeroes", "other"; or NULL. */
const char *uae_event_get_req_op_name(const struct uae_event *ev);
/* The errno the block layer returned for it, 0 if none. */
int uae_event_get_errno(const struct uae_event *ev);

/* Classification (docs/classification.md): "none", "retryable", "fatal". */
const char *uae_event_get_severity(const struct uae_event *ev);
/* "none", "device", "transport", "host" */
const char *uae_event_get_locus(const struct uae_event *ev);
/* 1 when another path to the LU may help. */
int uae_event_get_failover(const struct uae_event *ev);
/* The kernel's block status for it: "IOERR", "TRANSPORT", "NOSPC", ... */
const char *uae_event_get_blk_status(const struct uae_event *ev);
/* The classification rule that matched, 0 if none was sent. */
unsigned int uae_event_get_class_rule(const struct uae_event *ev);

/* Stable name ("CAPACITY_DATA_HAS_CHANGED", "DID_TRANSPORT_FAILFAST"); never NULL. */
const char *uae_event_get_name(const struct uae_event *ev);
/* Category of a UA ("space", "inventory", ...; "none" for other events); never NULL. */
const char *uae_event_get_category(const struct uae_event *ev);
/* T10's description of the ASC/ASCQ, or NULL. */
const char *uae_event_get_description(const struct uae_event *ev);
/* "UNIT ATTENTION", ... */
const char *uae_event_get_sense_key_name(const struct uae_event *ev);

/*
 * The structs below grow at their end, never change in between: the caller sets @size to
 * sizeof() of the struct it was built with, so that a library newer or older than the
 * caller reads and writes only what both know.  A field added later is 0 when unset.
 */

/* The module's counters and settings (any user may read them). */
struct uae_kernel_stats {
	size_t size;			/* sizeof(struct uae_kernel_stats), set by the caller */
	uint64_t instance;
	uint64_t last_seq;		/* last sequence number assigned */
	uint64_t history_first_seq;	/* oldest event the history holds, 0 if none */
	uint32_t history_size;
	uint64_t lost_unread;		/* fell out of the history before anyone read them */
	uint64_t coalesced;		/* occurrences folded into a storm's event */
	uint64_t alloc_failed;		/* not multicast or no uevent sent: no memory */
	uint64_t queue_full;		/* not captured: too many waiting for delivery (a gap) */
	uint64_t mcast_overflow;	/* a subscriber's socket overflowed */
	uint32_t coalesce_ms;
	uint8_t uevents;		/* 0 none, 1 unit attentions, 2 all */
	/* Added in 0.2: a module of 0.1 leaves them 0. */
	uint64_t probe_missed;		/* hook calls the kernel skipped: possible events lost */
	uint64_t nvme_last_seq;		/* last group sequence number of group "nvme" */
};

/* -EINVAL: @size is too small for the fields of the first version. */
int uae_kernel_stats(struct uae_kernel_stats *st);

/* Settings, CAP_SYS_ADMIN: pass -1 to leave one unchanged. */
int uae_set_config(int coalesce_ms, int uevents);
/* Forget the history (CAP_SYS_ADMIN). */
int uae_clear_history(void);

/* A synthetic event for a real device, through the module's own capture path. */
struct uae_inject {
	size_t size;		/* sizeof(struct uae_inject), set by the caller */
	unsigned int host, channel, target;
	uint64_t lun;
	const uint8_t *sense;
	size_t sense_len;
	int host_byte;		/* -1: DID_OK */
	int status;		/* -1: CHECK CONDITION with sense, else GOOD */
	enum uae_event_kind kind; /* 0: UA for UA sense data, else error */
	uint32_t count;		/* 0 or 1: one event */
};

/*
 * CAP_SYS_ADMIN; -ENODEV: no such device; -E2BIG: a field this library does not know is set
 * (@size larger than the library's struct, and not zero beyond it).
 */
int uae_inject(const struct uae_inject *in);

/*
 * What sits above a block device on this host (its "stack"): partitions, multipath maps,
 * LVM volumes, dm-crypt and md devices, loop devices backed by it, mounted filesystems in
 * the host's mount namespace (PID 1's), swap, and the Kubernetes volumes kubelet's mount
 * paths show.  Read from sysfs, /proc and the udev database only: never from the device
 * (a hung LU cannot block it; nothing is opened for writing, so udev sees no change).
 * Entries form a tree rooted at the device: each but the first has one entry below it.
 */
struct uae_stack;
struct uae_stack_entry;
/* Keeps what the stacks of many devices share (the mount and swap tables) between calls. */
struct uae_stack_cache;

enum uae_stack_type {
	UAE_STACK_DISK = 1,	/* the device asked for */
	UAE_STACK_PARTITION,	/* a partition (or a kpartx map over one) */
	UAE_STACK_MPATH,	/* a multipath map: name, uuid its WWID */
	UAE_STACK_LVM,		/* an LVM volume: name "vg/lv"; property "internal" for LVM's own */
	UAE_STACK_CRYPT,	/* a dm-crypt device */
	UAE_STACK_MD,		/* an md array: property "md_level" */
	UAE_STACK_DM,		/* another device-mapper device */
	UAE_STACK_LOOP,		/* a loop device: property "backing_file" */
	UAE_STACK_MOUNT,	/* a mount: name its target; properties "fs_root", "ro", and
				 * "k8s_pod_uid", "k8s_volume", "k8s_plugin", "k8s_driver",
				 * "k8s_staging" where kubelet's layout shows them */
	UAE_STACK_SWAP,		/* an active swap area: name the device or file */
};

/* uae_device_stack_new() flags: none yet. */

/*
 * A cache for uae_device_stack_new(): the host's mount and swap tables are read again
 * only after they changed (poll on /proc/1/mountinfo and /proc/swaps).  Not for use by
 * two threads at once.
 */
int uae_stack_cache_new(struct uae_stack_cache **ret);
struct uae_stack_cache *uae_stack_cache_ref(struct uae_stack_cache *c);
struct uae_stack_cache *uae_stack_cache_unref(struct uae_stack_cache *c);

/*
 * The stack above @device: a block device's name ("sdc"), its node ("/dev/sdc") or a SCSI
 * device's H:C:T:L (its disk).  @cache may be NULL.  -ENODEV: no such block device.
 */
int uae_device_stack_new(struct uae_stack_cache *cache, const char *device, unsigned int flags,
			 struct uae_stack **ret);
struct uae_stack *uae_stack_ref(struct uae_stack *s);
struct uae_stack *uae_stack_unref(struct uae_stack *s);
/*
 * One line for a message: "/srv/data (ext4 on vg0/data on mpatha)", "swap on sdc2",
 * "ext4 on vg0/data on mpatha, no user seen", "nothing"; "ext4 on sdc1, mounted only in
 * another mount namespace" where the host's mount table lacks a live filesystem on it.
 */
const char *uae_stack_get_summary(struct uae_stack *s);
/* 1 when nothing sits above the device (no partition, holder, mount, swap, loop). */
int uae_stack_is_empty(struct uae_stack *s);
/* The first entry (the device itself); the others follow, each after the one below it. */
struct uae_stack_entry *uae_stack_get_first(struct uae_stack *s);
struct uae_stack_entry *uae_stack_entry_get_next(struct uae_stack_entry *e);
/* The entry this one sits on; NULL for the first. */
struct uae_stack_entry *uae_stack_entry_get_below(struct uae_stack_entry *e);
enum uae_stack_type uae_stack_entry_get_type(struct uae_stack_entry *e);
/* "disk", "partition", "mpath", "lvm", "crypt", "md", "dm", "loop", "mount", "swap". */
const char *uae_stack_entry_get_type_name(struct uae_stack_entry *e);
/* "mpatha", "vg0/data", "/srv/data": what an administrator knows it by. */
const char *uae_stack_entry_get_name(struct uae_stack_entry *e);
/* The block device's kernel name ("dm-3"); NULL for mounts and swap files. */
const char *uae_stack_entry_get_devname(struct uae_stack_entry *e);
/* A map's WWID, a filesystem's, LUKS or md UUID; NULL when there is none. */
const char *uae_stack_entry_get_uuid(struct uae_stack_entry *e);
/* The filesystem on a device (udev's ID_FS_TYPE: "ext4", "LVM2_member", "swap") or mounted. */
const char *uae_stack_entry_get_fstype(struct uae_stack_entry *e);
/* An open-ended property (see enum uae_stack_type), or NULL. */
const char *uae_stack_entry_get_property(struct uae_stack_entry *e, const char *key);
/* The key of the entry's property number @i (from 0) that is set; NULL past the last. */
const char *uae_stack_entry_get_property_key(struct uae_stack_entry *e, unsigned int i);
/* 1 when nothing else of its stack sits on @e: it tops a chain (a mount or swap may too). */
int uae_stack_entry_is_top(struct uae_stack_entry *e);

/* A message for a negative errno returned by this library. */
const char *uae_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* LIBUAEVENTS_H */
