// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: an event's netlink attributes (include/uapi/linux/uaevents.h).  Shared by
 * multicast notifications and history dumps, and tested by KUnit.
 */
#include <net/netlink.h>

#include "uae.h"

static int put_str(struct sk_buff *skb, int type, const char *s)
{
	return s[0] ? nla_put_string(skb, type, s) : 0;
}

static int put_identity(struct sk_buff *skb, const struct uae_record *rec)
{
	/* Absent means SCSI: a SCSI event's message is what it was before NVMe's. */
	if (rec->transport != UAEVENTS_TRANSPORT_SCSI)
		return nla_put_u8(skb, UAEVENTS_ATTR_TRANSPORT, rec->transport) ||
		       put_str(skb, UAEVENTS_ATTR_NVME_CTRL, rec->nvme_ctrl) ||
		       put_str(skb, UAEVENTS_ATTR_DEVNAME, rec->devname) ? -EMSGSIZE : 0;
	if (nla_put_u32(skb, UAEVENTS_ATTR_HOST, rec->host) ||
	    nla_put_u32(skb, UAEVENTS_ATTR_CHANNEL, rec->channel) ||
	    nla_put_u32(skb, UAEVENTS_ATTR_TARGET, rec->target) ||
	    nla_put_u64_64bit(skb, UAEVENTS_ATTR_LUN, rec->lun, UAEVENTS_ATTR_PAD) ||
	    put_str(skb, UAEVENTS_ATTR_DEVNAME, rec->devname) ||
	    put_str(skb, UAEVENTS_ATTR_SGDEV, rec->sgdev) ||
	    put_str(skb, UAEVENTS_ATTR_WWID, rec->wwid) ||
	    put_str(skb, UAEVENTS_ATTR_SERIAL, rec->serial))
		return -EMSGSIZE;
	return 0;
}

/* The block request, if any: its operation, range and the errno it failed with. */
static int put_request(struct sk_buff *skb, const struct uae_record *rec)
{
	if (rec->has_req_op && nla_put_u8(skb, UAEVENTS_ATTR_REQ_OP, rec->req_op))
		return -EMSGSIZE;
	if (rec->has_lba &&
	    (nla_put_u64_64bit(skb, UAEVENTS_ATTR_LBA, rec->lba, UAEVENTS_ATTR_PAD) ||
	     nla_put_u32(skb, UAEVENTS_ATTR_SECTORS, rec->sectors)))
		return -EMSGSIZE;
	if (rec->error && nla_put_u32(skb, UAEVENTS_ATTR_ERRNO, rec->error))
		return -EMSGSIZE;
	return 0;
}

static int put_command(struct sk_buff *skb, const struct uae_record *rec)
{
	if (put_request(skb, rec))
		return -EMSGSIZE;
	/* Without a command there is no opcode, host byte or status to tell. */
	if (rec->kind != UAEVENTS_KIND_UA && !(rec->flags & UAEVENTS_FLAG_NO_COMMAND) &&
	    (nla_put_u8(skb, UAEVENTS_ATTR_OPCODE, rec->opcode) ||
	     nla_put_u8(skb, UAEVENTS_ATTR_HOST_BYTE, rec->host_byte) ||
	     nla_put_u8(skb, UAEVENTS_ATTR_STATUS, rec->status)))
		return -EMSGSIZE;
	if (rec->sense_len &&
	    (nla_put(skb, UAEVENTS_ATTR_SENSE, rec->sense_len, rec->sense) ||
	     nla_put_u8(skb, UAEVENTS_ATTR_SENSE_KEY, rec->sense_key) ||
	     nla_put_u8(skb, UAEVENTS_ATTR_ASC, rec->asc) ||
	     nla_put_u8(skb, UAEVENTS_ATTR_ASCQ, rec->ascq)))
		return -EMSGSIZE;
	return 0;
}

static int put_class(struct sk_buff *skb, const struct uae_record *rec)
{
	if (nla_put_u8(skb, UAEVENTS_ATTR_SEVERITY, rec->class.severity) ||
	    nla_put_u8(skb, UAEVENTS_ATTR_LOCUS, rec->class.locus) ||
	    nla_put_u8(skb, UAEVENTS_ATTR_FAILOVER, rec->class.failover) ||
	    nla_put_u16(skb, UAEVENTS_ATTR_CLASS_RULE, rec->class.rule) ||
	    nla_put_u8(skb, UAEVENTS_ATTR_BLK_STATUS, rec->class.blk_status))
		return -EMSGSIZE;
	return 0;
}

/* A failed NVMe request: the request, and its status and class where it was read. */
static int put_nvme_command(struct sk_buff *skb, const struct uae_record *rec)
{
	if (put_request(skb, rec))
		return -EMSGSIZE;
	if (!rec->has_nvme_status)
		return 0;
	if (nla_put_u8(skb, UAEVENTS_ATTR_OPCODE, rec->opcode) ||
	    nla_put_u16(skb, UAEVENTS_ATTR_NVME_STATUS, rec->nvme_status) ||
	    put_class(skb, rec))
		return -EMSGSIZE;
	return 0;
}

/* A changed namespace list: the IDs it carries, and how many the log listed. */
static int put_nsids(struct sk_buff *skb, const struct uae_record *rec)
{
	if (!rec->has_nsids)
		return 0;
	return nla_put(skb, UAEVENTS_ATTR_NVME_NSIDS, rec->nsid_count * sizeof(u32), rec->nsids) ||
	       nla_put_u32(skb, UAEVENTS_ATTR_NVME_NSIDS_LISTED, rec->nsids_listed);
}

int uae_put_record(struct sk_buff *skb, const struct uae_record *rec, u64 instance)
{
	if (nla_put_u64_64bit(skb, UAEVENTS_ATTR_SEQ, rec->seq, UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, UAEVENTS_ATTR_GROUP_SEQ, rec->group_seq, UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, UAEVENTS_ATTR_INSTANCE, instance, UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, UAEVENTS_ATTR_TIMESTAMP_NS, rec->timestamp_ns,
			      UAEVENTS_ATTR_PAD) ||
	    nla_put_u8(skb, UAEVENTS_ATTR_KIND, rec->kind) ||
	    nla_put_u32(skb, UAEVENTS_ATTR_FLAGS, rec->flags) ||
	    nla_put_u32(skb, UAEVENTS_ATTR_REPEAT, rec->repeat) ||
	    nla_put_string(skb, UAEVENTS_ATTR_EVENT, rec->name) ||
	    nla_put_u8(skb, UAEVENTS_ATTR_CATEGORY, rec->category))
		return -EMSGSIZE;
	if (put_identity(skb, rec))
		return -EMSGSIZE;
	/* An asynchronous event or an ANA state is no command's result: it has no class. */
	if (rec->kind == UAEVENTS_KIND_AEN)
		return nla_put_u32(skb, UAEVENTS_ATTR_NVME_AEN_RESULT, rec->aen_result) ||
		       put_nsids(skb, rec) ? -EMSGSIZE : 0;
	if (rec->kind == UAEVENTS_KIND_ANA)
		return nla_put_u32(skb, UAEVENTS_ATTR_NVME_ANA_GROUP, rec->ana_group) ||
		       nla_put_u8(skb, UAEVENTS_ATTR_NVME_ANA_STATE, rec->ana_state) ?
		       -EMSGSIZE : 0;
	if (rec->transport == UAEVENTS_TRANSPORT_NVME)
		return put_nvme_command(skb, rec);
	if (put_command(skb, rec) || put_class(skb, rec))
		return -EMSGSIZE;
	return 0;
}
