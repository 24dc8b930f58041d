// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: the generic netlink family.  Layout in include/uapi/linux/uaevents.h.
 */
#include <linux/module.h>
#include <net/genetlink.h>

#include "uae_event.h"

enum uae_mcgrp_index {
	UAE_MCGRP_UA_INDEX,
};

static const struct genl_multicast_group uae_mcgrps[] = {
	[UAE_MCGRP_UA_INDEX] = { .name = UAEVENTS_MCGRP_UA },
};

static struct genl_family uae_family;

static u8 uae_event_group(const struct uae_event *ev)
{
	return UAE_MCGRP_UA_INDEX;
}

static int uae_fill_event(struct sk_buff *skb, const struct uae_event *ev)
{
	void *hdr = genlmsg_put(skb, 0, 0, &uae_family, 0, UAEVENTS_CMD_EVENT);

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, UAEVENTS_ATTR_SEQ, ev->seq, UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, UAEVENTS_ATTR_INSTANCE, uae_instance_id,
			      UAEVENTS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, UAEVENTS_ATTR_TIMESTAMP_NS, ev->timestamp_ns,
			      UAEVENTS_ATTR_PAD) ||
	    nla_put_u8(skb, UAEVENTS_ATTR_KIND, ev->kind) ||
	    nla_put_u32(skb, UAEVENTS_ATTR_HOST, ev->host) ||
	    nla_put_u32(skb, UAEVENTS_ATTR_CHANNEL, ev->channel) ||
	    nla_put_u32(skb, UAEVENTS_ATTR_TARGET, ev->target) ||
	    nla_put_u64_64bit(skb, UAEVENTS_ATTR_LUN, ev->lun, UAEVENTS_ATTR_PAD) ||
	    (ev->devname[0] &&
	     nla_put_string(skb, UAEVENTS_ATTR_DEVNAME, ev->devname)) ||
	    nla_put(skb, UAEVENTS_ATTR_SENSE, ev->sense_len, ev->sense) ||
	    nla_put_u8(skb, UAEVENTS_ATTR_SENSE_KEY, ev->decoded.sense_key) ||
	    nla_put_u8(skb, UAEVENTS_ATTR_ASC, ev->decoded.asc) ||
	    nla_put_u8(skb, UAEVENTS_ATTR_ASCQ, ev->decoded.ascq) ||
	    nla_put_string(skb, UAEVENTS_ATTR_EVENT, ev->name) ||
	    nla_put_u8(skb, UAEVENTS_ATTR_CATEGORY, ev->category)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* Process context: called from the delivery work item. */
void uae_netlink_publish(const struct uae_event *ev)
{
	u8 group = uae_event_group(ev);
	struct sk_buff *skb;

	/* Build nothing for a group nobody listens to. */
	if (!genl_has_listeners(&uae_family, &init_net, group))
		return;

	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (uae_fill_event(skb, ev)) {
		nlmsg_free(skb);
		return;
	}
	/* -ESRCH only means the last listener left meanwhile. */
	genlmsg_multicast(&uae_family, skb, 0, group, GFP_KERNEL);
}

static struct genl_family uae_family __ro_after_init = {
	.name = UAEVENTS_GENL_NAME,
	.version = UAEVENTS_GENL_VERSION,
	.maxattr = UAEVENTS_ATTR_MAX,
	.module = THIS_MODULE,
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
