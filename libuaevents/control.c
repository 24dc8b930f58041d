// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents: the module's counters and settings, and its test helper.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/uaevents.h>

#include "libuaevents.h"
#include "uae_private.h"

static struct nla_policy stats_policy[UAEVENTS_ATTR_MAX + 1] = {
	[UAEVENTS_ATTR_INSTANCE] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_STAT_LAST_SEQ] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_STAT_HISTORY_SIZE] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_STAT_HISTORY_FIRST_SEQ] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_STAT_LOST_UNREAD] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_STAT_COALESCED] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_STAT_ALLOC_FAILED] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_STAT_QUEUE_FULL] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_STAT_MCAST_OVERFLOW] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_COALESCE_MS] = { .type = NLA_U32 },
	[UAEVENTS_ATTR_UEVENTS] = { .type = NLA_U8 },
	[UAEVENTS_ATTR_STAT_UA_LAST_SEQ] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_STAT_ERROR_LAST_SEQ] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_STAT_SGIO_LAST_SEQ] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_STAT_PROBE_MISSED] = { .type = NLA_U64 },
	[UAEVENTS_ATTR_STAT_NVME_LAST_SEQ] = { .type = NLA_U64 },
};

static uint64_t get_u64(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u64(tb[attr]) : 0;
}

int uae_kernel_stats_from_nlmsg(struct nlmsghdr *nlh, struct uae_kernel_stats *st,
				uint64_t *group_last)
{
	struct nlattr *tb[UAEVENTS_ATTR_MAX + 1];

	if (genlmsg_parse(nlh, 0, tb, UAEVENTS_ATTR_MAX, stats_policy) < 0 ||
	    !tb[UAEVENTS_ATTR_INSTANCE] || !tb[UAEVENTS_ATTR_STAT_LAST_SEQ])
		return -EBADMSG;
	memset((char *)st + sizeof(st->size), 0, sizeof(*st) - sizeof(st->size));
	st->instance = get_u64(tb, UAEVENTS_ATTR_INSTANCE);
	st->last_seq = get_u64(tb, UAEVENTS_ATTR_STAT_LAST_SEQ);
	st->history_first_seq = get_u64(tb, UAEVENTS_ATTR_STAT_HISTORY_FIRST_SEQ);
	st->lost_unread = get_u64(tb, UAEVENTS_ATTR_STAT_LOST_UNREAD);
	st->coalesced = get_u64(tb, UAEVENTS_ATTR_STAT_COALESCED);
	st->alloc_failed = get_u64(tb, UAEVENTS_ATTR_STAT_ALLOC_FAILED);
	st->queue_full = get_u64(tb, UAEVENTS_ATTR_STAT_QUEUE_FULL);
	st->mcast_overflow = get_u64(tb, UAEVENTS_ATTR_STAT_MCAST_OVERFLOW);
	st->probe_missed = get_u64(tb, UAEVENTS_ATTR_STAT_PROBE_MISSED);
	st->nvme_last_seq = get_u64(tb, UAEVENTS_ATTR_STAT_NVME_LAST_SEQ);
	if (tb[UAEVENTS_ATTR_STAT_HISTORY_SIZE])
		st->history_size = nla_get_u32(tb[UAEVENTS_ATTR_STAT_HISTORY_SIZE]);
	if (tb[UAEVENTS_ATTR_COALESCE_MS])
		st->coalesce_ms = nla_get_u32(tb[UAEVENTS_ATTR_COALESCE_MS]);
	if (tb[UAEVENTS_ATTR_UEVENTS])
		st->uevents = nla_get_u8(tb[UAEVENTS_ATTR_UEVENTS]);
	if (group_last) {
		group_last[UAE_GROUP_UA] = get_u64(tb, UAEVENTS_ATTR_STAT_UA_LAST_SEQ);
		group_last[UAE_GROUP_ERROR] = get_u64(tb, UAEVENTS_ATTR_STAT_ERROR_LAST_SEQ);
		group_last[UAE_GROUP_SGIO] = get_u64(tb, UAEVENTS_ATTR_STAT_SGIO_LAST_SEQ);
		group_last[UAE_GROUP_NVME] = get_u64(tb, UAEVENTS_ATTR_STAT_NVME_LAST_SEQ);
	}
	return 0;
}

struct stats_reply {
	struct uae_kernel_stats *st;
	uint64_t *group_last;
};

static int on_stats(struct nl_msg *msg, void *arg)
{
	struct stats_reply *r = arg;

	return uae_kernel_stats_from_nlmsg(nlmsg_hdr(msg), r->st, r->group_last);
}

/* One request on a socket of its own: open, send, wait for the answer, close. */
static int request(uint8_t cmd, int (*add)(struct nl_msg *msg, const void *arg),
		   const void *add_arg, int (*on_reply)(struct nl_msg *msg, void *arg),
		   void *reply_arg)
{
	struct nl_sock *sock;
	struct nl_msg *msg;
	int family, r;

	r = uae_genl_open(&sock, &family);
	if (r < 0)
		return r;
	msg = uae_genl_request(family, cmd, 0);
	if (!msg)
		r = -ENOMEM;
	else if (add && add(msg, add_arg) < 0) {
		nlmsg_free(msg);
		r = -ENOMEM;
	} else {
		r = uae_genl_transact(sock, msg, on_reply, reply_arg);
	}
	nl_socket_free(sock);
	return r;
}

/* The first version's struct: what every caller's @size covers at least. */
#define STATS_SIZE_1 (offsetof(struct uae_kernel_stats, uevents) + sizeof(uint8_t))
#define INJECT_SIZE_1 (offsetof(struct uae_inject, count) + sizeof(uint32_t))

int uae_kernel_stats_groups(struct uae_kernel_stats *st, uint64_t *group_last)
{
	struct uae_kernel_stats all = { .size = sizeof(all) };
	struct stats_reply rep = { &all, group_last };
	size_t size;
	int r;

	if (!st || st->size < STATS_SIZE_1)
		return -EINVAL;
	r = request(UAEVENTS_CMD_GET_STATS, NULL, NULL, on_stats, &rep);
	if (r < 0)
		return r;
	/* A caller built against a newer library: its fields this one does not know are 0. */
	size = st->size;
	memcpy(st, &all, size < sizeof(all) ? size : sizeof(all));
	if (size > sizeof(all))
		memset((char *)st + sizeof(all), 0, size - sizeof(all));
	st->size = size;
	return 0;
}

int uae_kernel_stats(struct uae_kernel_stats *st)
{
	return uae_kernel_stats_groups(st, NULL);
}

int uae_clear_history(void)
{
	return request(UAEVENTS_CMD_CLEAR_HISTORY, NULL, NULL, NULL, NULL);
}

struct config {
	int coalesce_ms, uevents;
};

static int add_config(struct nl_msg *msg, const void *arg)
{
	const struct config *c = arg;

	if (c->coalesce_ms >= 0 && nla_put_u32(msg, UAEVENTS_ATTR_COALESCE_MS, c->coalesce_ms) < 0)
		return -ENOMEM;
	if (c->uevents >= 0 && nla_put_u8(msg, UAEVENTS_ATTR_UEVENTS, c->uevents) < 0)
		return -ENOMEM;
	return 0;
}

int uae_set_config(int coalesce_ms, int uevents)
{
	struct config c = { coalesce_ms, uevents };

	return request(UAEVENTS_CMD_SET_CONFIG, add_config, &c, NULL, NULL);
}

static int add_inject(struct nl_msg *msg, const void *arg)
{
	const struct uae_inject *in = arg;

	if (nla_put_u32(msg, UAEVENTS_ATTR_HOST, in->host) < 0 ||
	    nla_put_u32(msg, UAEVENTS_ATTR_CHANNEL, in->channel) < 0 ||
	    nla_put_u32(msg, UAEVENTS_ATTR_TARGET, in->target) < 0 ||
	    nla_put_u64(msg, UAEVENTS_ATTR_LUN, in->lun) < 0 ||
	    (in->sense_len && nla_put(msg, UAEVENTS_ATTR_SENSE, in->sense_len, in->sense) < 0) ||
	    (in->host_byte >= 0 && nla_put_u8(msg, UAEVENTS_ATTR_HOST_BYTE, in->host_byte) < 0) ||
	    (in->status >= 0 && nla_put_u8(msg, UAEVENTS_ATTR_STATUS, in->status) < 0) ||
	    (in->kind && nla_put_u8(msg, UAEVENTS_ATTR_KIND, in->kind) < 0) ||
	    (in->count && nla_put_u32(msg, UAEVENTS_ATTR_COUNT, in->count) < 0))
		return -ENOMEM;
	return 0;
}

int uae_inject(const struct uae_inject *in)
{
	struct uae_inject all = { 0 };

	if (!in || in->size < INJECT_SIZE_1)
		return -EINVAL;
	/* Set fields this library does not know would be ignored, silently. */
	for (size_t i = sizeof(all); i < in->size; i++)
		if (((const unsigned char *)in)[i])
			return -E2BIG;
	memcpy(&all, in, in->size < sizeof(all) ? in->size : sizeof(all));
	if (all.sense_len > UAE_SENSE_MAX)
		return -EINVAL;
	return request(UAEVENTS_CMD_INJECT, add_inject, &all, NULL, NULL);
}
