// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: the generic netlink family, its operations and multicast groups.
 * The layout is in include/uapi/linux/uaevents.h.
 */
#include <linux/module.h>
#include <net/genetlink.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include "uae.h"

static const struct genl_multicast_group uae_mcgrps[] = {
	[UAE_GROUP_UA] = { .name = UAEVENTS_MCGRP_UA, .flags = GENL_MCAST_CAP_SYS_ADMIN },
	[UAE_GROUP_ERROR] = { .name = UAEVENTS_MCGRP_ERROR, .flags = GENL_MCAST_CAP_SYS_ADMIN },
	[UAE_GROUP_SGIO] = { .name = UAEVENTS_MCGRP_SGIO, .flags = GENL_MCAST_CAP_SYS_ADMIN },
	[UAE_GROUP_NVME] = { .name = UAEVENTS_MCGRP_NVME, .flags = GENL_MCAST_CAP_SYS_ADMIN },
};

#define UAE_INJECT_MAX 100000

static struct netlink_range_validation uae_count_range = {
	.min = 1, .max = UAE_INJECT_MAX,
};

static struct netlink_range_validation uae_coalesce_range = {
	.max = UAEVENTS_COALESCE_MAX_MS,
};

static const struct nla_policy uae_history_policy[UAEVENTS_ATTR_MAX + 1] = {
	[UAEVENTS_ATTR_SINCE_SEQ] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_DUMP_NVME] = { .type = NLA_FLAG },
};

static const struct nla_policy uae_config_policy[UAEVENTS_ATTR_MAX + 1] = {
	[UAEVENTS_ATTR_COALESCE_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &uae_coalesce_range),
	[UAEVENTS_ATTR_UEVENTS] = NLA_POLICY_MAX(NLA_U8, UAEVENTS_UEVENTS_ALL),
};

static const struct nla_policy uae_inject_policy[UAEVENTS_ATTR_MAX + 1] = {
	[UAEVENTS_ATTR_HOST] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_CHANNEL] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_TARGET] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_LUN] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_KIND] = NLA_POLICY_RANGE(NLA_U8, UAEVENTS_KIND_UA, UAEVENTS_KIND_SGIO),
	[UAEVENTS_ATTR_SENSE] = { .type = NLA_BINARY, .len = SCSI_SENSE_BUFFERSIZE },
	[UAEVENTS_ATTR_HOST_BYTE] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_STATUS] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_COUNT] = NLA_POLICY_FULL_RANGE(NLA_U32, &uae_count_range),
};

static struct genl_family uae_family;

/* What pre_doit is given, and where a dump's parsed attributes are (kernel/Kbuild). */
#ifdef UAE_GENL_SPLIT_OPS
#define uae_genl_op genl_split_ops
#else
#define uae_genl_op genl_ops
#endif
#ifdef UAE_GENL_INFO_DUMP
#define uae_dump_attrs(cb) (genl_info_dump(cb)->attrs)
#else
#define uae_dump_attrs(cb) (genl_dumpit_info(cb)->attrs)
#endif

/* An operation's internal_flags. */
#define UAE_OP_SYS_ADMIN	BIT(0)	/* needs CAP_SYS_ADMIN, see the UAPI header */

static int uae_check_sys_admin(struct sk_buff *skb, struct netlink_ext_ack *extack)
{
	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return 0;
	NL_SET_ERR_MSG(extack, "needs CAP_SYS_ADMIN");
	return -EPERM;
}

/* Permissions for every doit, by its flags (GENL_ADMIN_PERM means CAP_NET_ADMIN). */
static int uae_pre_doit(const struct uae_genl_op *ops, struct sk_buff *skb, struct genl_info *info)
{
	if (!(ops->internal_flags & UAE_OP_SYS_ADMIN))
		return 0;
	return uae_check_sys_admin(skb, info->extack);
}

static int uae_fill_event(struct sk_buff *skb, const struct uae_record *rec,
			  u32 portid, u32 seq, int flags, u64 lost)
{
	void *hdr = genlmsg_put(skb, portid, seq, &uae_family, flags, UAEVENTS_CMD_EVENT);

	if (!hdr)
		return -EMSGSIZE;
	if (uae_put_record(skb, rec, uae_instance_id) ||
	    (lost && nla_put_u64_64bit(skb, UAEVENTS_ATTR_DUMP_LOST, lost, UAEVENTS_ATTR_PAD))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

bool uae_netlink_publish(const struct uae_record *rec)
{
	u8 group = uae_group_of(rec->kind, rec->transport);
	struct sk_buff *skb;
	int ret;

	/* Build nothing for a group nobody listens to. */
	if (!genl_has_listeners(&uae_family, &init_net, group))
		return false;
	skb = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb) {
		atomic64_inc(&uae_stats.alloc_failed);
		return false;
	}
	if (uae_fill_event(skb, rec, 0, 0, 0, 0)) {
		nlmsg_free(skb);
		return false;
	}
	ret = genlmsg_multicast(&uae_family, skb, 0, group, GFP_KERNEL);
	/* -ENOBUFS: some subscriber's socket was full; it can replay from the history. */
	if (ret == -ENOBUFS)
		atomic64_inc(&uae_stats.mcast_overflow);
	return ret == 0;
}

static int uae_cmd_get_stats(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	u64 last_seq, group_seq[UAE_GROUPS];
	void *hdr;

	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &uae_family, 0, UAEVENTS_CMD_GET_STATS);
	if (!hdr)
		goto nospace;
	last_seq = uae_last_seqs(group_seq);
	if (nla_put_u64_64bit(msg, UAEVENTS_ATTR_INSTANCE, uae_instance_id, UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, UAEVENTS_ATTR_STAT_LAST_SEQ, last_seq, UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, UAEVENTS_ATTR_STAT_UA_LAST_SEQ, group_seq[UAE_GROUP_UA],
			      UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, UAEVENTS_ATTR_STAT_ERROR_LAST_SEQ, group_seq[UAE_GROUP_ERROR],
			      UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, UAEVENTS_ATTR_STAT_SGIO_LAST_SEQ, group_seq[UAE_GROUP_SGIO],
			      UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, UAEVENTS_ATTR_STAT_NVME_LAST_SEQ, group_seq[UAE_GROUP_NVME],
			      UAEVENTS_ATTR_PAD) ||
	    nla_put_u32(msg, UAEVENTS_ATTR_STAT_HISTORY_SIZE, uae_history_size()) ||
	    nla_put_u64_64bit(msg, UAEVENTS_ATTR_STAT_HISTORY_FIRST_SEQ, uae_history_first_seq(),
			      UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, UAEVENTS_ATTR_STAT_LOST_UNREAD,
			      atomic64_read(&uae_stats.lost_unread), UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, UAEVENTS_ATTR_STAT_COALESCED,
			      atomic64_read(&uae_stats.coalesced), UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, UAEVENTS_ATTR_STAT_ALLOC_FAILED,
			      atomic64_read(&uae_stats.alloc_failed), UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, UAEVENTS_ATTR_STAT_QUEUE_FULL,
			      atomic64_read(&uae_stats.queue_full), UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, UAEVENTS_ATTR_STAT_MCAST_OVERFLOW,
			      atomic64_read(&uae_stats.mcast_overflow), UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, UAEVENTS_ATTR_STAT_PROBE_MISSED,
			      uae_hooks_missed() + uae_nvme_missed(),
			      UAEVENTS_ATTR_PAD) ||
	    nla_put_u32(msg, UAEVENTS_ATTR_COALESCE_MS, READ_ONCE(uae_coalesce_ms)) ||
	    nla_put_u8(msg, UAEVENTS_ATTR_UEVENTS, READ_ONCE(uae_uevents)))
		goto nospace;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* Where a history dump stands, between its calls. */
struct uae_dump_ctx {
	u64 last_seq;		/* the sequence number last sent, or left out */
	u64 lost;		/* what the history lacked before events left out, still to tell */
	bool nvme;		/* the reader asked for NVMe's events (UAEVENTS_ATTR_DUMP_NVME) */
};

static_assert(sizeof(struct uae_dump_ctx) <= sizeof_field(struct netlink_callback, ctx));

/* pre_doit is not called for dumps: a dump checks in its start. */
static int uae_history_start(struct netlink_callback *cb)
{
	struct uae_dump_ctx *ctx = (struct uae_dump_ctx *)cb->ctx;
	/* Parsed and validated against uae_history_policy by the genetlink core. */
	struct nlattr *since = uae_dump_attrs(cb)[UAEVENTS_ATTR_SINCE_SEQ];
	int ret;

	/* Events name devices, LBAs of failed I/O and serials: see the UAPI header. */
	ret = uae_check_sys_admin(cb->skb, cb->extack);
	if (ret)
		return ret;
	ctx->last_seq = since ? nla_get_u64(since) : 0;
	ctx->nvme = !!uae_dump_attrs(cb)[UAEVENTS_ATTR_DUMP_NVME];
	return 0;
}

static int uae_history_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct uae_dump_ctx *ctx = (struct uae_dump_ctx *)cb->ctx;
	struct uae_record *rec = kmalloc(sizeof(*rec), GFP_KERNEL);
	u64 lost;

	if (!rec)
		return -ENOMEM;
	while (uae_history_next(ctx->last_seq, rec, &lost) == 0) {
		lost += ctx->lost;
		/*
		 * A reader of 0.1 would refuse an NVMe event and, a page of them only, stop
		 * its replay: left out, neither sent nor lost, what the history lacked before
		 * it told with the next event sent.
		 */
		if (rec->transport != UAEVENTS_TRANSPORT_SCSI && !ctx->nvme) {
			ctx->lost = lost;
			ctx->last_seq = rec->seq;
			continue;
		}
		if (uae_fill_event(skb, rec, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				   NLM_F_MULTI, lost))
			break;
		/* In the reply, which goes to the reader's socket when this returns. */
		uae_history_mark_read(rec->seq);
		ctx->last_seq = rec->seq;
		ctx->lost = 0;
	}
	kfree(rec);
	return skb->len;
}

static int uae_cmd_clear_history(struct sk_buff *skb, struct genl_info *info)
{
	uae_history_clear();
	return 0;
}

static int uae_cmd_set_config(struct sk_buff *skb, struct genl_info *info)
{
	if (info->attrs[UAEVENTS_ATTR_COALESCE_MS]) {
		WRITE_ONCE(uae_coalesce_ms, nla_get_u32(info->attrs[UAEVENTS_ATTR_COALESCE_MS]));
		uae_capture_window_changed();
	}
	if (info->attrs[UAEVENTS_ATTR_UEVENTS])
		WRITE_ONCE(uae_uevents, nla_get_u8(info->attrs[UAEVENTS_ATTR_UEVENTS]));
	return 0;
}

/* A synthetic event for a real device, through the same path as the hooks' events. */
static int uae_cmd_inject(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct uae_capture in = {};
	struct Scsi_Host *shost;
	struct scsi_device *sdev;
	struct uae_sense sense;
	u32 i, count;

	if (GENL_REQ_ATTR_CHECK(info, UAEVENTS_ATTR_HOST) ||
	    GENL_REQ_ATTR_CHECK(info, UAEVENTS_ATTR_CHANNEL) ||
	    GENL_REQ_ATTR_CHECK(info, UAEVENTS_ATTR_TARGET) ||
	    GENL_REQ_ATTR_CHECK(info, UAEVENTS_ATTR_LUN))
		return -EINVAL;
	if (tb[UAEVENTS_ATTR_SENSE]) {
		in.sense_buf = nla_data(tb[UAEVENTS_ATTR_SENSE]);
		in.sense_len = nla_len(tb[UAEVENTS_ATTR_SENSE]);
		in.status = SAM_STAT_CHECK_CONDITION;
	}
	if (uae_sense_decode(in.sense_buf, in.sense_len, &sense) != UAE_SENSE_INVALID)
		in.sense = &sense;
	if (tb[UAEVENTS_ATTR_HOST_BYTE])
		in.host_byte = nla_get_u8(tb[UAEVENTS_ATTR_HOST_BYTE]);
	if (tb[UAEVENTS_ATTR_STATUS])
		in.status = nla_get_u8(tb[UAEVENTS_ATTR_STATUS]);
	if (tb[UAEVENTS_ATTR_KIND])
		in.kind = nla_get_u8(tb[UAEVENTS_ATTR_KIND]);
	else if (sense.status != UAE_SENSE_INVALID &&
		 sense.sense_key == UAE_SENSE_KEY_UNIT_ATTENTION)
		in.kind = UAEVENTS_KIND_UA;
	else
		in.kind = UAEVENTS_KIND_ERROR;
	in.flags = UAEVENTS_FLAG_INJECTED;
	count = tb[UAEVENTS_ATTR_COUNT] ? nla_get_u32(tb[UAEVENTS_ATTR_COUNT]) : 1;

	shost = scsi_host_lookup(nla_get_u32(tb[UAEVENTS_ATTR_HOST]));
	if (!shost) {
		GENL_SET_ERR_MSG(info, "no such SCSI host");
		return -ENODEV;
	}
	sdev = scsi_device_lookup(shost, nla_get_u32(tb[UAEVENTS_ATTR_CHANNEL]),
				  nla_get_u32(tb[UAEVENTS_ATTR_TARGET]),
				  nla_get_u64(tb[UAEVENTS_ATTR_LUN]));
	scsi_host_put(shost);
	if (!sdev) {
		GENL_SET_ERR_MSG(info, "no such SCSI device");
		return -ENODEV;
	}
	in.sdev = sdev;
	for (i = 0; i < count; i++) {
		uae_capture(&in);
		/* Let delivery keep up, as it would between real events. */
		if (i % 256 == 255)
			uae_capture_flush();
	}
	scsi_device_put(sdev);
	return 0;
}

static const struct genl_ops uae_ops[] = {
	{
		.cmd = UAEVENTS_CMD_GET_STATS,
		.doit = uae_cmd_get_stats,
	},
	{
		.cmd = UAEVENTS_CMD_GET_HISTORY,
		.start = uae_history_start,
		.dumpit = uae_history_dump,
		.policy = uae_history_policy,
		.maxattr = UAEVENTS_ATTR_MAX,
	},
	/* Changing the module's behaviour, or making events that make uaeventd act. */
	{
		.cmd = UAEVENTS_CMD_CLEAR_HISTORY,
		.doit = uae_cmd_clear_history,
		.internal_flags = UAE_OP_SYS_ADMIN,
	},
	{
		.cmd = UAEVENTS_CMD_SET_CONFIG,
		.doit = uae_cmd_set_config,
		.policy = uae_config_policy,
		.maxattr = UAEVENTS_ATTR_MAX,
		.internal_flags = UAE_OP_SYS_ADMIN,
	},
	{
		.cmd = UAEVENTS_CMD_INJECT,
		.doit = uae_cmd_inject,
		.policy = uae_inject_policy,
		.maxattr = UAEVENTS_ATTR_MAX,
		.internal_flags = UAE_OP_SYS_ADMIN,
	},
};

static struct genl_family uae_family __ro_after_init = {
	.name = UAEVENTS_GENL_NAME,
	.version = UAEVENTS_GENL_VERSION,
	.module = THIS_MODULE,
	/*
	 * No genl_mutex: an INJECT of 100,000 events or a dump of a large history must not
	 * stall other families.  The module's own locks suffice (uae_lock, the history's
	 * mutex); genl_unregister_family() still waits for running operations.
	 */
	.parallel_ops = true,
	.pre_doit = uae_pre_doit,
	.ops = uae_ops,
	.n_ops = ARRAY_SIZE(uae_ops),
	.mcgrps = uae_mcgrps,
	.n_mcgrps = ARRAY_SIZE(uae_mcgrps),
};

int __init uae_netlink_init(void)
{
	return genl_register_family(&uae_family);
}

void uae_netlink_exit(void)
{
	genl_unregister_family(&uae_family);
}
