/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libuaevents internals shared between its source files; not installed. */
#ifndef UAE_PRIVATE_H
#define UAE_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/netlink.h>
#include <linux/uaevents.h>

#include "libuaevents.h"

#define UAE_DEVNAME_MAX 32	/* the kernel's DISK_NAME_LEN */
#define UAE_SENSE_MAX 96	/* the kernel's SCSI_SENSE_BUFFERSIZE */
#define UAE_SGDEV_MAX 16
#define UAE_WWID_MAX 128
#define UAE_SERIAL_MAX 64
#define UAE_NAME_MAX 64

struct nl_sock;
struct nl_msg;

struct uae_event {
	int refcount;
	struct uae_event *next;		/* in a monitor's queue */
	enum uae_event_kind kind;
	uint32_t flags, repeat;
	uint64_t seq, instance, gap, timestamp_ns;
	uint64_t group_seq;		/* 0 from a module that sends none */
	uint64_t dump_lost;		/* replayed: numbers before it the history lacked */
	bool live;			/* from the socket, not a replay */
	unsigned int host, channel, target;
	uint64_t lun;
	char hctl[64];
	char devname[UAE_DEVNAME_MAX];
	char sgdev[UAE_SGDEV_MAX];
	char wwid[UAE_WWID_MAX];
	char serial[UAE_SERIAL_MAX];
	char name[UAE_NAME_MAX];
	bool has_sense;
	uint8_t sense_key, asc, ascq;
	int category;
	uint8_t sense[UAE_SENSE_MAX];
	size_t sense_len;
	bool has_command;
	uint8_t opcode, host_byte, status;
	bool has_req_op;
	uint8_t req_op;
	bool has_lba;
	uint64_t lba;
	uint32_t sectors;
	uint32_t error;
	bool has_class;
	uint8_t severity, locus, failover, blk_status;
	uint16_t rule;
	uint8_t transport;		/* enum uaevents_transport */
	char nvme_ctrl[UAE_DEVNAME_MAX];
	uint32_t aen_result;
	uint32_t ana_group;
	uint8_t ana_state;
	bool has_nvme_status;
	uint16_t nvme_status;
	bool has_nsids;			/* a changed namespace list */
	unsigned int nsid_count;
	uint32_t nsids[UAEVENTS_NSIDS_MAX];
	uint32_t nsids_listed;		/* or UAEVENTS_NSIDS_OVERFLOW */
};

/* The IDs a Changed Namespace List log page (4,096 bytes) can list. */
#define UAE_NSIDS_PER_LOG	1024

/*
 * Parse and validate one uaevents message.  0 with *ret NULL: a well-formed message that
 * is not an event; -EBADMSG: malformed.
 */
int uae_event_from_nlmsg(struct nlmsghdr *nlh, struct uae_event **ret);

struct uae_match {
	char *key, *value;
};

struct uae_filter {
	struct uae_match *matches;
	size_t n;
};

/*
 * The gap event handed out before @next: @lost events, the first of them numbered @first
 * or later, are gone for good.
 */
struct uae_event *uae_event_new_gap(const struct uae_event *next, uint64_t first,
				    uint64_t lost);

/* A UAE_EVENT_MODULE event named @name (MODULE_LOADED, ...) about module @instance. */
struct uae_event *uae_event_new_module(uint64_t instance, const char *name);

/* The multicast groups (uaevents.h), each with its own sequence numbers. */
enum { UAE_GROUP_UA, UAE_GROUP_ERROR, UAE_GROUP_SGIO, UAE_GROUP_NVME, UAE_GROUPS };

/* position.c: where a monitor stands in the module's stream, and what it missed. */
struct uae_position {
	uint64_t instance;		/* of the last event, 0: none */
	uint64_t seq;			/* the last event's, or where a replay starts */
	uint64_t group_seq[UAE_GROUPS];	/* the last of each group */
	bool group_known[UAE_GROUPS];	/* false: not known since a replay went back */
	bool joined[UAE_GROUPS];	/* subscribed to; a replay hands out the others' too */
	/*
	 * What the history lacked before events that could not tell whether it was a
	 * subscribed group's whose place is not known, not told yet, from pending_first.
	 */
	uint64_t pending_lost, pending_first;
};

/* The stream stands at @seq of @instance, each group at @group_seq (NULL: all 0). */
void uae_position_set(struct uae_position *p, uint64_t instance, uint64_t seq,
		      const uint64_t *group_seq);
/* Subscribed to group @g, or not; newly, when the group's last number was @group_seq. */
void uae_position_join(struct uae_position *p, int g, bool joined, uint64_t group_seq);
/* A replay goes back to the events after @since. */
void uae_position_rewind(struct uae_position *p, uint64_t since);
/*
 * @ev arrived.  false: it was seen already (a replay overlaps the live stream).  true:
 * new; @ev->gap and *@lost say how many events were missed before it, from *@first.
 */
bool uae_position_accept(struct uae_position *p, struct uae_event *ev, uint64_t *first,
			 uint64_t *lost);
/* The multicast group @ev came in: by its kind, and every NVMe event in "nvme". */
int uae_group_of(const struct uae_event *ev);

/* filter.c */
int uae_filter_add(struct uae_filter *f, const char *key, const char *value);
void uae_filter_clear(struct uae_filter *f);
bool uae_filter_matches(const struct uae_filter *f, const struct uae_event *ev);
bool uae_filter_wants_kind(const struct uae_filter *f, const char *kind);

/* fallback.c: the stock kernel's SDEV_UA= and NVME_AEN= uevents, without the module. */
struct udev_device;
/*
 * An event from a KOBJ_CHANGE uevent of a scsi_device with SDEV_UA= or of an NVMe
 * controller with NVME_AEN=; NULL if not one.
 */
struct uae_event *uae_event_from_udev(struct udev_device *dev);

/* control.c */
/* @group_last (may be NULL): the last sequence number of each group. */
int uae_kernel_stats_from_nlmsg(struct nlmsghdr *nlh, struct uae_kernel_stats *st,
				uint64_t *group_last);
int uae_kernel_stats_groups(struct uae_kernel_stats *st, uint64_t *group_last);

/* netlink.c: the family over libnl. */
int uae_nlerr_to_errno(int nlerr);
/* A connected generic netlink socket and the family's id; -ENOENT: module not loaded. */
/* NL_CB_MSG_IN: NL_SKIP for what a process, not the kernel, sent. */
int uae_nlmsg_from_kernel(struct nl_msg *msg, void *arg);
int uae_genl_open(struct nl_sock **sock, int *family);
/* A connected socket for requests to a family whose id is known. */
int uae_genl_connect(struct nl_sock **sock);
/*
 * The id of generic netlink @family (if @family_id) and of its multicast @groups, through a
 * socket of its own: a subscription's socket must not read replies among its events.
 * -ENOENT when the family or one of the first @required groups is not registered; a later
 * group that is not (one an older module lacks) gets id 0.
 */
int uae_genl_resolve(const char *family, int *family_id, const char *const *groups, int *ids,
		     size_t n, size_t required);
/* A request for @cmd, to add attributes to and send with uae_genl_transact(). */
struct nl_msg *uae_genl_request(int family, uint8_t cmd, int flags);
/*
 * Send @msg (consumed) and receive replies until the ack or the end of a dump, calling
 * @on_reply for each.  Returns 0 or a negative errno (the kernel's, e.g. -EPERM).
 */
int uae_genl_transact(struct nl_sock *sock, struct nl_msg *msg,
		      int (*on_reply)(struct nl_msg *msg, void *arg), void *arg);

#endif /* UAE_PRIVATE_H */
