// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents: events, parsed and validated from netlink messages.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/uaevents.h>

#include "libuaevents.h"
#include "uae_private.h"
#include "uae_sense.h"

#define UAE_NAME_MAX 64

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
};

/* Attributes without which a message is not an event. */
static const int required_attrs[] = {
	UAEVENTS_ATTR_SEQ, UAEVENTS_ATTR_INSTANCE, UAEVENTS_ATTR_KIND,
	UAEVENTS_ATTR_HOST, UAEVENTS_ATTR_CHANNEL, UAEVENTS_ATTR_TARGET,
	UAEVENTS_ATTR_LUN, UAEVENTS_ATTR_SENSE_KEY, UAEVENTS_ATTR_ASC,
	UAEVENTS_ATTR_ASCQ,
};

/* A NUL-terminated string attribute of printable ASCII, copied into dst. */
static int copy_name(const struct nlattr *a, char *dst, size_t size)
{
	const char *s = nla_data(a);
	size_t len = strnlen(s, nla_len(a));

	if (len == 0 || len >= size || len == (size_t)nla_len(a))
		return -EBADMSG;
	for (size_t i = 0; i < len; i++)
		if (s[i] <= ' ' || s[i] > '~' || s[i] == '/')
			return -EBADMSG;
	memcpy(dst, s, len + 1);
	return 0;
}

int uae_event_from_nlmsg(struct nlmsghdr *nlh, struct uae_event **ret)
{
	struct nlattr *tb[UAEVENTS_ATTR_MAX + 1];
	struct genlmsghdr *ghdr = nlmsg_data(nlh);
	struct uae_event *ev;
	int r;

	*ret = NULL;
	if (!genlmsg_valid_hdr(nlh, 0))
		return -EBADMSG;
	if (ghdr->cmd != UAEVENTS_CMD_EVENT)
		return 0;
	if (genlmsg_parse(nlh, 0, tb, UAEVENTS_ATTR_MAX, event_policy) < 0)
		return -EBADMSG;
	for (size_t i = 0; i < sizeof(required_attrs) / sizeof(required_attrs[0]); i++)
		if (!tb[required_attrs[i]])
			return -EBADMSG;

	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->refcount = 1;
	ev->seq = nla_get_u64(tb[UAEVENTS_ATTR_SEQ]);
	ev->instance = nla_get_u64(tb[UAEVENTS_ATTR_INSTANCE]);
	if (tb[UAEVENTS_ATTR_TIMESTAMP_NS])
		ev->timestamp_ns = nla_get_u64(tb[UAEVENTS_ATTR_TIMESTAMP_NS]);
	ev->kind = nla_get_u8(tb[UAEVENTS_ATTR_KIND]);
	ev->host = nla_get_u32(tb[UAEVENTS_ATTR_HOST]);
	ev->channel = nla_get_u32(tb[UAEVENTS_ATTR_CHANNEL]);
	ev->target = nla_get_u32(tb[UAEVENTS_ATTR_TARGET]);
	ev->lun = nla_get_u64(tb[UAEVENTS_ATTR_LUN]);
	ev->sense_key = nla_get_u8(tb[UAEVENTS_ATTR_SENSE_KEY]) & 0x0f;
	ev->asc = nla_get_u8(tb[UAEVENTS_ATTR_ASC]);
	ev->ascq = nla_get_u8(tb[UAEVENTS_ATTR_ASCQ]);
	snprintf(ev->hctl, sizeof(ev->hctl), "%u:%u:%u:%" PRIu64,
		 ev->host, ev->channel, ev->target, ev->lun);

	r = 0;
	if (tb[UAEVENTS_ATTR_DEVNAME])
		r = copy_name(tb[UAEVENTS_ATTR_DEVNAME], ev->devname, sizeof(ev->devname));
	if (r == 0 && tb[UAEVENTS_ATTR_EVENT])
		r = copy_name(tb[UAEVENTS_ATTR_EVENT], ev->name, sizeof(ev->name));
	if (r < 0) {
		free(ev);
		return r;
	}
	if (tb[UAEVENTS_ATTR_SENSE]) {
		ev->sense_len = nla_len(tb[UAEVENTS_ATTR_SENSE]);
		memcpy(ev->sense, nla_data(tb[UAEVENTS_ATTR_SENSE]), ev->sense_len);
	}
	/* The shared decoder names what the kernel did not (older module, unknown UA). */
	if (!ev->name[0] && ev->sense_key == UAE_SENSE_KEY_UNIT_ATTENTION)
		snprintf(ev->name, sizeof(ev->name), "%s",
			 uae_ua_event_name(ev->asc, ev->ascq));
	ev->category = tb[UAEVENTS_ATTR_CATEGORY] ?
		nla_get_u8(tb[UAEVENTS_ATTR_CATEGORY]) :
		uae_ua_category(ev->asc, ev->ascq);

	*ret = ev;
	return 0;
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
	return ev->kind;
}

uint64_t uae_event_get_seq(const struct uae_event *ev)
{
	return ev->seq;
}

uint64_t uae_event_get_instance(const struct uae_event *ev)
{
	return ev->instance;
}

uint64_t uae_event_get_gap(const struct uae_event *ev)
{
	return ev->gap;
}

uint64_t uae_event_get_timestamp_ns(const struct uae_event *ev)
{
	return ev->timestamp_ns;
}

unsigned int uae_event_get_host(const struct uae_event *ev)
{
	return ev->host;
}

unsigned int uae_event_get_channel(const struct uae_event *ev)
{
	return ev->channel;
}

unsigned int uae_event_get_target(const struct uae_event *ev)
{
	return ev->target;
}

uint64_t uae_event_get_lun(const struct uae_event *ev)
{
	return ev->lun;
}

const char *uae_event_get_hctl(const struct uae_event *ev)
{
	return ev->hctl;
}

const char *uae_event_get_devname(const struct uae_event *ev)
{
	return ev->devname[0] ? ev->devname : NULL;
}

uint8_t uae_event_get_sense_key(const struct uae_event *ev)
{
	return ev->sense_key;
}

uint8_t uae_event_get_asc(const struct uae_event *ev)
{
	return ev->asc;
}

uint8_t uae_event_get_ascq(const struct uae_event *ev)
{
	return ev->ascq;
}

const uint8_t *uae_event_get_sense(const struct uae_event *ev, size_t *len)
{
	*len = ev->sense_len;
	return ev->sense;
}

const char *uae_event_get_name(const struct uae_event *ev)
{
	return ev->name[0] ? ev->name : "UNKNOWN";
}

const char *uae_event_get_category(const struct uae_event *ev)
{
	return uae_category_name(ev->category);
}

const char *uae_event_get_description(const struct uae_event *ev)
{
	return uae_asc_description(ev->asc, ev->ascq);
}

const char *uae_event_get_sense_key_name(const struct uae_event *ev)
{
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
		return "malformed message from the kernel";
	default:
		return strerror(abs(err));
	}
}
