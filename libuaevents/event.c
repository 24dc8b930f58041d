// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents: events, parsed and validated from netlink messages.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/uaevents.h>

#include "libuaevents.h"
#include "uae_private.h"
#include "uae_nvme.h"
#include "uae_sense.h"

static struct nla_policy event_policy[UAEVENTS_ATTR_MAX + 1] = {
	[UAEVENTS_ATTR_SEQ] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_INSTANCE] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_TIMESTAMP_NS] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_KIND] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_HOST] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_CHANNEL] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_TARGET] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_LUN] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_DEVNAME] = { .type = NLA_STRING, .maxlen = UAE_DEVNAME_MAX },
	[UAEVENTS_ATTR_SENSE] = { .type = NLA_UNSPEC, .maxlen = UAE_SENSE_MAX },
	[UAEVENTS_ATTR_SENSE_KEY] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_ASC] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_ASCQ] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_EVENT] = { .type = NLA_STRING, .maxlen = UAE_NAME_MAX },
	[UAEVENTS_ATTR_CATEGORY] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_SGDEV] = { .type = NLA_STRING, .maxlen = UAE_SGDEV_MAX },
	[UAEVENTS_ATTR_WWID] = { .type = NLA_STRING, .maxlen = UAE_WWID_MAX },
	[UAEVENTS_ATTR_SERIAL] = { .type = NLA_STRING, .maxlen = UAE_SERIAL_MAX },
	[UAEVENTS_ATTR_FLAGS] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_REPEAT] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_OPCODE] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_LBA] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_SECTORS] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_HOST_BYTE] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_STATUS] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_ERRNO] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_SEVERITY] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_LOCUS] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_FAILOVER] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_CLASS_RULE] = { .type = NLA_U16 },
	[UAEVENTS_ATTR_BLK_STATUS] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_REQ_OP] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_GROUP_SEQ] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_DUMP_LOST] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_TRANSPORT] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_NVME_CTRL] = { .type = NLA_STRING, .maxlen = UAE_DEVNAME_MAX },
	[UAEVENTS_ATTR_NVME_AEN_RESULT] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_NVME_STATUS] = { .type = NLA_U16 },
	[UAEVENTS_ATTR_NVME_ANA_GROUP] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_NVME_ANA_STATE] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_NVME_NSIDS] = { .type = NLA_UNSPEC,
					.maxlen = UAEVENTS_NSIDS_MAX * sizeof(uint32_t) },
	[UAEVENTS_ATTR_NVME_NSIDS_LISTED] = { .type = NLA_U32 },
};

/* Attributes without which a message is not an event. */
static const int required_attrs[] = {
	UAEVENTS_ATTR_SEQ, UAEVENTS_ATTR_INSTANCE, UAEVENTS_ATTR_KIND,
};

/* And those of a SCSI event: its address. */
static const int required_scsi_attrs[] = {
	UAEVENTS_ATTR_HOST, UAEVENTS_ATTR_CHANNEL, UAEVENTS_ATTR_TARGET, UAEVENTS_ATTR_LUN,
};

static bool has_all(struct nlattr **tb, const int *attrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!tb[attrs[i]])
			return false;
	return true;
}

#define HAS_ALL(tb, attrs) has_all(tb, attrs, sizeof(attrs) / sizeof(attrs[0]))

/*
 * A NUL-terminated string attribute of printable ASCII without '/', copied into dst.
 * Names from the kernel must be plain; device-supplied strings were made printable by
 * the kernel, and anything else is refused.
 */
static int copy_string(const struct nlattr *a, char *dst, size_t size, bool spaces)
{
	const char *s;
	size_t len;

	if (!a)
		return 0;
	s = nla_data(a);
	len = strnlen(s, nla_len(a));
	if (len == 0 || len >= size || len == (size_t)nla_len(a))
		return -EBADMSG;
	for (size_t i = 0; i < len; i++)
		if (s[i] < ' ' || s[i] > '~' || (!spaces && (s[i] == ' ' || s[i] == '/')))
			return -EBADMSG;
	memcpy(dst, s, len + 1);
	return 0;
}

static uint8_t get_u8(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u8(tb[attr]) : 0;
}

_Static_assert(UAE_NVME_NSIDS_MAX == UAEVENTS_NSIDS_MAX, "the library carries what the module sends");

/*
 * A changed namespace list, if the event has one: whole IDs, at most UAEVENTS_NSIDS_MAX,
 * with how many the log listed (at least those, at most the 1,024 a page holds, or "more").
 */
static bool nsids_valid(struct nlattr **tb)
{
	const struct nlattr *ids = tb[UAEVENTS_ATTR_NVME_NSIDS];
	uint32_t listed;
	int len;

	if (!ids && !tb[UAEVENTS_ATTR_NVME_NSIDS_LISTED])
		return true;
	if (!ids || !tb[UAEVENTS_ATTR_NVME_NSIDS_LISTED])
		return false;
	len = nla_len(ids);
	listed = nla_get_u32(tb[UAEVENTS_ATTR_NVME_NSIDS_LISTED]);
	if (len % sizeof(uint32_t) || len > UAEVENTS_NSIDS_MAX * (int)sizeof(uint32_t))
		return false;
	if (listed == UAEVENTS_NSIDS_OVERFLOW)
		return len == 0;
	return listed >= len / sizeof(uint32_t) && listed <= UAE_NSIDS_PER_LOG &&
	       (listed > UAEVENTS_NSIDS_MAX || listed == len / sizeof(uint32_t));
}

/*
 * An NVMe event: an asynchronous event with its result, an ANA group's state with the
 * group and state, or a failed request; NVMe has no other kind.
 */
static bool nvme_event_valid(struct nlattr **tb)
{
	switch (get_u8(tb, UAEVENTS_ATTR_KIND)) {
	case UAE_EVENT_AEN:
		return tb[UAEVENTS_ATTR_NVME_AEN_RESULT] && nsids_valid(tb);
	case UAE_EVENT_ANA:
		/* A group id is at most the controller's ANAGRPMAX: an int's worth here. */
		return tb[UAEVENTS_ATTR_NVME_ANA_GROUP] && tb[UAEVENTS_ATTR_NVME_ANA_STATE] &&
		       nla_get_u32(tb[UAEVENTS_ATTR_NVME_ANA_GROUP]) <= INT32_MAX;
	case UAE_EVENT_ERROR:
		return true;
	default:
		return false;
	}
}

static int fill_strings(struct uae_event *ev, struct nlattr **tb)
{
	int r = copy_string(tb[UAEVENTS_ATTR_DEVNAME], ev->devname, sizeof(ev->devname), false);

	if (!r)
		r = copy_string(tb[UAEVENTS_ATTR_EVENT], ev->name, sizeof(ev->name), false);
	if (!r)
		r = copy_string(tb[UAEVENTS_ATTR_SGDEV], ev->sgdev, sizeof(ev->sgdev), false);
	if (!r)
		r = copy_string(tb[UAEVENTS_ATTR_WWID], ev->wwid, sizeof(ev->wwid), true);
	if (!r)
		r = copy_string(tb[UAEVENTS_ATTR_SERIAL], ev->serial, sizeof(ev->serial), true);
	if (!r)
		r = copy_string(tb[UAEVENTS_ATTR_NVME_CTRL], ev->nvme_ctrl, sizeof(ev->nvme_ctrl),
				false);
	return r;
}

static void fill_command(struct uae_event *ev, struct nlattr **tb)
{
	ev->has_sense = tb[UAEVENTS_ATTR_SENSE_KEY] && tb[UAEVENTS_ATTR_ASC] &&
			tb[UAEVENTS_ATTR_ASCQ];
	ev->sense_key = get_u8(tb, UAEVENTS_ATTR_SENSE_KEY) & 0x0f;
	ev->asc = get_u8(tb, UAEVENTS_ATTR_ASC);
	ev->ascq = get_u8(tb, UAEVENTS_ATTR_ASCQ);
	if (tb[UAEVENTS_ATTR_SENSE]) {
		ev->sense_len = nla_len(tb[UAEVENTS_ATTR_SENSE]);
		memcpy(ev->sense, nla_data(tb[UAEVENTS_ATTR_SENSE]), ev->sense_len);
	}
	ev->opcode = get_u8(tb, UAEVENTS_ATTR_OPCODE);
	ev->host_byte = get_u8(tb, UAEVENTS_ATTR_HOST_BYTE);
	ev->status = get_u8(tb, UAEVENTS_ATTR_STATUS);
	ev->has_req_op = tb[UAEVENTS_ATTR_REQ_OP] != NULL;
	ev->req_op = get_u8(tb, UAEVENTS_ATTR_REQ_OP);
	ev->has_lba = tb[UAEVENTS_ATTR_LBA] != NULL;
	if (ev->has_lba)
		ev->lba = nla_get_u64(tb[UAEVENTS_ATTR_LBA]);
	if (tb[UAEVENTS_ATTR_SECTORS])
		ev->sectors = nla_get_u32(tb[UAEVENTS_ATTR_SECTORS]);
	if (tb[UAEVENTS_ATTR_ERRNO])
		ev->error = nla_get_u32(tb[UAEVENTS_ATTR_ERRNO]);
	ev->has_class = tb[UAEVENTS_ATTR_SEVERITY] != NULL;
	ev->severity = get_u8(tb, UAEVENTS_ATTR_SEVERITY);
	ev->locus = get_u8(tb, UAEVENTS_ATTR_LOCUS);
	ev->failover = get_u8(tb, UAEVENTS_ATTR_FAILOVER);
	ev->blk_status = get_u8(tb, UAEVENTS_ATTR_BLK_STATUS);
	if (tb[UAEVENTS_ATTR_CLASS_RULE])
		ev->rule = nla_get_u16(tb[UAEVENTS_ATTR_CLASS_RULE]);
}

int uae_event_from_nlmsg(struct nlmsghdr *nlh, struct uae_event **ret)
{
	struct nlattr *tb[UAEVENTS_ATTR_MAX + 1];
	struct genlmsghdr *ghdr = nlmsg_data(nlh);
	struct uae_event *ev;

	*ret = NULL;
	if (!genlmsg_valid_hdr(nlh, 0))
		return -EBADMSG;
	if (ghdr->cmd != UAEVENTS_CMD_EVENT)
		return 0;
	if (genlmsg_parse(nlh, 0, tb, UAEVENTS_ATTR_MAX, event_policy) < 0)
		return -EBADMSG;
	if (!HAS_ALL(tb, required_attrs))
		return -EBADMSG;
	if (get_u8(tb, UAEVENTS_ATTR_KIND) < UAE_EVENT_UA ||
	    get_u8(tb, UAEVENTS_ATTR_KIND) > UAE_EVENT_ANA)
		return -EBADMSG;
	/*
	 * A SCSI event has its address.  An NVMe one has none, and is an asynchronous event
	 * (with its result), an ANA group's state (with both) or a failed request.
	 */
	/* A namespace list belongs to an NVMe asynchronous event, and to nothing else. */
	if ((tb[UAEVENTS_ATTR_NVME_NSIDS] || tb[UAEVENTS_ATTR_NVME_NSIDS_LISTED]) &&
	    (get_u8(tb, UAEVENTS_ATTR_TRANSPORT) != UAEVENTS_TRANSPORT_NVME ||
	     get_u8(tb, UAEVENTS_ATTR_KIND) != UAE_EVENT_AEN))
		return -EBADMSG;
	switch (get_u8(tb, UAEVENTS_ATTR_TRANSPORT)) {
	case UAEVENTS_TRANSPORT_SCSI:
		if (!HAS_ALL(tb, required_scsi_attrs) || get_u8(tb, UAEVENTS_ATTR_KIND) > UAE_EVENT_SGIO)
			return -EBADMSG;
		break;
	case UAEVENTS_TRANSPORT_NVME:
		if (!nvme_event_valid(tb))
			return -EBADMSG;
		break;
	default:
		return -EBADMSG;
	}

	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->refcount = 1;
	ev->seq = nla_get_u64(tb[UAEVENTS_ATTR_SEQ]);
	if (tb[UAEVENTS_ATTR_GROUP_SEQ])
		ev->group_seq = nla_get_u64(tb[UAEVENTS_ATTR_GROUP_SEQ]);
	if (tb[UAEVENTS_ATTR_DUMP_LOST])
		ev->dump_lost = nla_get_u64(tb[UAEVENTS_ATTR_DUMP_LOST]);
	ev->instance = nla_get_u64(tb[UAEVENTS_ATTR_INSTANCE]);
	if (tb[UAEVENTS_ATTR_TIMESTAMP_NS])
		ev->timestamp_ns = nla_get_u64(tb[UAEVENTS_ATTR_TIMESTAMP_NS]);
	ev->kind = nla_get_u8(tb[UAEVENTS_ATTR_KIND]);
	ev->flags = tb[UAEVENTS_ATTR_FLAGS] ? nla_get_u32(tb[UAEVENTS_ATTR_FLAGS]) : 0;
	ev->repeat = tb[UAEVENTS_ATTR_REPEAT] ? nla_get_u32(tb[UAEVENTS_ATTR_REPEAT]) : 1;
	ev->transport = get_u8(tb, UAEVENTS_ATTR_TRANSPORT);
	if (ev->transport == UAEVENTS_TRANSPORT_SCSI) {
		ev->host = nla_get_u32(tb[UAEVENTS_ATTR_HOST]);
		ev->channel = nla_get_u32(tb[UAEVENTS_ATTR_CHANNEL]);
		ev->target = nla_get_u32(tb[UAEVENTS_ATTR_TARGET]);
		ev->lun = nla_get_u64(tb[UAEVENTS_ATTR_LUN]);
		snprintf(ev->hctl, sizeof(ev->hctl), "%u:%u:%u:%" PRIu64,
			 ev->host, ev->channel, ev->target, ev->lun);
	}
	if (tb[UAEVENTS_ATTR_NVME_AEN_RESULT])
		ev->aen_result = nla_get_u32(tb[UAEVENTS_ATTR_NVME_AEN_RESULT]);
	if (tb[UAEVENTS_ATTR_NVME_NSIDS]) {
		ev->has_nsids = true;
		ev->nsid_count = nla_len(tb[UAEVENTS_ATTR_NVME_NSIDS]) / sizeof(uint32_t);
		memcpy(ev->nsids, nla_data(tb[UAEVENTS_ATTR_NVME_NSIDS]),
		       ev->nsid_count * sizeof(uint32_t));
		ev->nsids_listed = nla_get_u32(tb[UAEVENTS_ATTR_NVME_NSIDS_LISTED]);
	}
	if (ev->kind == UAE_EVENT_ANA) {
		ev->ana_group = nla_get_u32(tb[UAEVENTS_ATTR_NVME_ANA_GROUP]);
		ev->ana_state = nla_get_u8(tb[UAEVENTS_ATTR_NVME_ANA_STATE]);
	}
	ev->has_nvme_status = tb[UAEVENTS_ATTR_NVME_STATUS] != NULL;
	if (ev->has_nvme_status)
		ev->nvme_status = nla_get_u16(tb[UAEVENTS_ATTR_NVME_STATUS]);
	if (fill_strings(ev, tb) < 0) {
		free(ev);
		return -EBADMSG;
	}
	fill_command(ev, tb);
	/* The shared decoder names what the kernel did not (an older module). */
	if (!ev->name[0] && ev->kind == UAE_EVENT_UA)
		snprintf(ev->name, sizeof(ev->name), "%s",
			 uae_ua_event_name(ev->asc, ev->ascq));
	if (!ev->name[0] && ev->kind == UAE_EVENT_AEN)
		snprintf(ev->name, sizeof(ev->name), "%s", uae_nvme_aen_name(ev->aen_result));
	if (!ev->name[0] && ev->kind == UAE_EVENT_ANA)
		snprintf(ev->name, sizeof(ev->name), "%s",
			 uae_nvme_ana_event_name(ev->ana_state) ?: "NVME_ANA_UNKNOWN_STATE");
	ev->category = tb[UAEVENTS_ATTR_CATEGORY] ? nla_get_u8(tb[UAEVENTS_ATTR_CATEGORY]) :
		       ev->kind == UAE_EVENT_UA ? (int)uae_ua_category(ev->asc, ev->ascq) : 0;
	*ret = ev;
	return 0;
}

struct uae_event *uae_event_new_gap(const struct uae_event *next, uint64_t first,
				    uint64_t lost)
{
	struct uae_event *gap = calloc(1, sizeof(*gap));

	if (!gap)
		return NULL;
	gap->refcount = 1;
	gap->kind = UAE_EVENT_GAP;
	gap->instance = next->instance;
	gap->seq = first;
	gap->gap = lost;
	gap->repeat = 1;
	gap->timestamp_ns = next->timestamp_ns;
	snprintf(gap->name, sizeof(gap->name), "EVENTS_LOST");
	return gap;
}

struct uae_event *uae_event_new_module(uint64_t instance, const char *name)
{
	struct uae_event *ev = calloc(1, sizeof(*ev));
	struct timespec ts;

	if (!ev)
		return NULL;
	ev->refcount = 1;
	ev->kind = UAE_EVENT_MODULE;
	ev->instance = instance;
	ev->repeat = 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	ev->timestamp_ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	return ev;
}

int uae_group_of(const struct uae_event *ev)
{
	if (ev->transport != UAEVENTS_TRANSPORT_SCSI)
		return UAE_GROUP_NVME;
	switch (ev->kind) {
	case UAE_EVENT_UA:
		return UAE_GROUP_UA;
	case UAE_EVENT_SGIO:
		return UAE_GROUP_SGIO;
	default:
		return UAE_GROUP_ERROR;
	}
}

struct uae_event *uae_event_ref(struct uae_event *ev)
{
	if (ev)
		ev->refcount++;
	return ev;
}

struct uae_event *uae_event_unref(struct uae_event *ev)
{
	if (ev && --ev->refcount == 0)
		free(ev);
	return NULL;
}

enum uae_event_kind uae_event_get_kind(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->kind;
}

const char *uae_event_get_kind_name(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	static const char *const names[] = {
		[UAE_EVENT_UA] = "ua", [UAE_EVENT_ERROR] = "error",
		[UAE_EVENT_TIMEOUT] = "timeout", [UAE_EVENT_SGIO] = "sgio",
		[UAE_EVENT_AEN] = "aen", [UAE_EVENT_ANA] = "ana",
	};

	if (ev->kind == UAE_EVENT_GAP)
		return "gap";
	if (ev->kind == UAE_EVENT_MODULE)
		return "module";
	return ev->kind >= UAE_EVENT_UA && ev->kind <= UAE_EVENT_ANA ? names[ev->kind] :
								       "unknown";
}

uint32_t uae_event_get_flags(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->flags;
}

uint32_t uae_event_get_repeat(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->repeat;
}

const char *uae_event_get_sgdev(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return ev->sgdev[0] ? ev->sgdev : NULL;
}

const char *uae_event_get_wwid(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return ev->wwid[0] ? ev->wwid : NULL;
}

const char *uae_event_get_serial(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return ev->serial[0] ? ev->serial : NULL;
}

int uae_event_has_sense(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->has_sense;
}

uint8_t uae_event_get_opcode(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->opcode;
}

uint8_t uae_event_get_host_byte(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->host_byte;
}

uint8_t uae_event_get_status(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->status;
}

int uae_event_get_lba(const struct uae_event *ev, uint64_t *lba, uint32_t *sectors)
{
	if (!ev)
		return 0;
	if (lba)
		*lba = ev->lba;
	if (sectors)
		*sectors = ev->sectors;
	return ev->has_lba;
}

int uae_event_get_req_op(const struct uae_event *ev)
{
	if (!ev)
		return -EINVAL;
	return ev->has_req_op ? ev->req_op : -ENODATA;
}

const char *uae_event_get_req_op_name(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	/* The kernel's enum req_op (include/linux/blk_types.h), stable since 5.x. */
	static const char *const names[] = {
		[0] = "read", [1] = "write", [2] = "flush", [3] = "discard",
		[5] = "secure-erase", [9] = "write-zeroes",
	};

	if (!ev->has_req_op)
		return NULL;
	return ev->req_op < sizeof(names) / sizeof(names[0]) && names[ev->req_op] ?
	       names[ev->req_op] : "other";
}

int uae_event_get_errno(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return (int)ev->error;
}

const char *uae_event_get_severity(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return uae_severity_name(ev->severity);
}

const char *uae_event_get_locus(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return uae_locus_name(ev->locus);
}

int uae_event_get_failover(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->failover;
}

const char *uae_event_get_blk_status(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return uae_blk_status_name(ev->blk_status);
}

unsigned int uae_event_get_class_rule(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->rule;
}

uint64_t uae_event_get_seq(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->seq;
}

uint64_t uae_event_get_instance(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->instance;
}

uint64_t uae_event_get_gap(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->gap;
}

uint64_t uae_event_get_timestamp_ns(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->timestamp_ns;
}

unsigned int uae_event_get_host(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->host;
}

unsigned int uae_event_get_channel(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->channel;
}

unsigned int uae_event_get_target(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->target;
}

uint64_t uae_event_get_lun(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->lun;
}

const char *uae_event_get_transport(const struct uae_event *ev)
{
	if (!ev || ev->kind == UAE_EVENT_GAP || ev->kind == UAE_EVENT_MODULE)
		return NULL;
	return ev->transport == UAEVENTS_TRANSPORT_NVME ? "nvme" : "scsi";
}

const char *uae_event_get_nvme_controller(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return ev->nvme_ctrl[0] ? ev->nvme_ctrl : NULL;
}

uint32_t uae_event_get_aen_result(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->aen_result;
}

int uae_event_get_aen_log_page(const struct uae_event *ev)
{
	if (!ev)
		return -EINVAL;
	return ev->kind == UAE_EVENT_AEN ? (int)UAE_NVME_AEN_LOG_PAGE(ev->aen_result) : -ENODATA;
}

int uae_event_get_nvme_nsids(const struct uae_event *ev, const uint32_t **nsids,
			     unsigned int *count)
{
	if (!ev || !nsids || !count)
		return -EINVAL;
	*nsids = ev->nsids;
	*count = ev->has_nsids ? ev->nsid_count : 0;
	if (!ev->has_nsids)
		return -ENODATA;
	return ev->nsids_listed == UAEVENTS_NSIDS_OVERFLOW ? -EOVERFLOW : (int)ev->nsids_listed;
}

int uae_event_get_ana_group(const struct uae_event *ev)
{
	if (!ev)
		return -EINVAL;
	return ev->kind == UAE_EVENT_ANA ? (int)ev->ana_group : -ENODATA;
}

const char *uae_event_get_ana_state(const struct uae_event *ev)
{
	if (!ev || ev->kind != UAE_EVENT_ANA)
		return NULL;
	return uae_nvme_ana_state_name(ev->ana_state);
}

int uae_event_get_nvme_status(const struct uae_event *ev)
{
	if (!ev)
		return -EINVAL;
	return ev->has_nvme_status ? ev->nvme_status : -ENODATA;
}

const char *uae_event_get_aen_class(const struct uae_event *ev)
{
	if (!ev || ev->kind != UAE_EVENT_AEN)
		return NULL;
	return uae_nvme_aen_class(ev->aen_result);
}

const char *uae_event_get_hctl(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return ev->hctl;
}

const char *uae_event_get_devname(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return ev->devname[0] ? ev->devname : NULL;
}

uint8_t uae_event_get_sense_key(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->sense_key;
}

uint8_t uae_event_get_asc(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->asc;
}

uint8_t uae_event_get_ascq(const struct uae_event *ev)
{
	if (!ev)
		return 0;
	return ev->ascq;
}

const uint8_t *uae_event_get_sense(const struct uae_event *ev, size_t *len)
{
	if (len)
		*len = ev ? ev->sense_len : 0;
	if (!ev)
		return NULL;
	return ev->sense;
}

const char *uae_event_get_name(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return ev->name[0] ? ev->name : "UNKNOWN";
}

const char *uae_event_get_category(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return uae_category_name(ev->category);
}

const char *uae_event_get_description(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return ev->has_sense ? uae_asc_description(ev->asc, ev->ascq) : NULL;
}

const char *uae_event_get_sense_key_name(const struct uae_event *ev)
{
	if (!ev)
		return NULL;
	return uae_sense_key_name(ev->sense_key);
}

const char *uae_strerror(int err)
{
	switch (err) {
	case -ENOENT:
		return "uaevents kernel module not loaded";
	case -ENOBUFS:
		return "event socket overflowed, events were lost";
	case -EBADMSG:
		return "malformed message, or one not sent by the kernel, skipped";
	case -EPERM:
		return "permission denied (needs CAP_SYS_ADMIN)";
	case -ENODEV:
		return "no such SCSI device";
	default:
		return strerror(abs(err));
	}
}
