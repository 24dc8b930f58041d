// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents: the monitor, a subscription to the uaevents generic netlink family.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/uaevents.h>

#include "libuaevents.h"
#include "uae_private.h"

struct uae_monitor {
	int refcount;
	struct nl_sock *sock;
	int family_id;
	/* The event the last message produced, handed out by uae_monitor_receive(). */
	struct uae_event *received;
	int parse_error;
	/* For gap detection. */
	uint64_t last_instance;
	uint64_t last_seq;
};

/* libnl's own error codes, as the errno they stand for. */
static int nlerr_to_errno(int nlerr)
{
	switch (abs(nlerr)) {
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_NOMEM:
		/* What nl_recv() makes of ENOBUFS (receive queue overflow). */
		return -ENOBUFS;
	case NLE_PERM:
		return -EPERM;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_MSG_TRUNC:
	case NLE_MSG_TOOSHORT:
	case NLE_INVAL:
	case NLE_PARSE_ERR:
		return -EBADMSG;
	case NLE_INTR:
		return -EINTR;
	default:
		return -EIO;
	}
}

static void note_gap(struct uae_monitor *m, struct uae_event *ev)
{
	if (ev->instance == m->last_instance && ev->seq > m->last_seq + 1)
		ev->gap = ev->seq - m->last_seq - 1;
	m->last_instance = ev->instance;
	m->last_seq = ev->seq;
}

static int on_message(struct nl_msg *msg, void *arg)
{
	struct uae_monitor *m = arg;
	struct uae_event *ev = NULL;
	int r;

	r = uae_event_from_nlmsg(nlmsg_hdr(msg), &ev);
	if (r < 0) {
		m->parse_error = r;
		return NL_SKIP;
	}
	if (!ev)		/* a command this version does not know */
		return NL_SKIP;
	note_gap(m, ev);
	uae_event_unref(m->received);
	m->received = ev;
	return NL_OK;
}

int uae_monitor_new(struct uae_monitor **ret)
{
	struct uae_monitor *m;
	int group, r;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->refcount = 1;

	m->sock = nl_socket_alloc();
	if (!m->sock) {
		free(m);
		return -ENOMEM;
	}
	/* Multicast notifications carry no sequence numbers of ours. */
	nl_socket_disable_seq_check(m->sock);
	nl_socket_modify_cb(m->sock, NL_CB_VALID, NL_CB_CUSTOM, on_message, m);

	r = genl_connect(m->sock);
	if (r < 0)
		goto fail;
	m->family_id = genl_ctrl_resolve(m->sock, UAEVENTS_GENL_NAME);
	if (m->family_id < 0) {
		r = m->family_id;
		goto fail;
	}
	group = genl_ctrl_resolve_grp(m->sock, UAEVENTS_GENL_NAME, UAEVENTS_MCGRP_UA);
	if (group < 0) {
		r = group;
		goto fail;
	}
	r = nl_socket_add_membership(m->sock, group);
	if (r < 0)
		goto fail;
	r = nl_socket_set_nonblocking(m->sock);
	if (r < 0)
		goto fail;

	*ret = m;
	return 0;
fail:
	nl_socket_free(m->sock);
	free(m);
	return nlerr_to_errno(r);
}

struct uae_monitor *uae_monitor_ref(struct uae_monitor *m)
{
	if (m)
		m->refcount++;
	return m;
}

struct uae_monitor *uae_monitor_unref(struct uae_monitor *m)
{
	if (!m || --m->refcount > 0)
		return NULL;
	uae_event_unref(m->received);
	nl_socket_free(m->sock);
	free(m);
	return NULL;
}

int uae_monitor_get_fd(struct uae_monitor *m)
{
	if (!m)
		return -EINVAL;
	return nl_socket_get_fd(m->sock);
}

int uae_monitor_receive(struct uae_monitor *m, struct uae_event **ret)
{
	int r;

	if (!m || !ret)
		return -EINVAL;

	/* Each datagram holds one notification; skip any that carry no event. */
	for (;;) {
		m->parse_error = 0;
		r = nl_recvmsgs_default(m->sock);
		if (r < 0)
			return nlerr_to_errno(r);
		if (m->parse_error < 0)
			return m->parse_error;
		if (m->received) {
			*ret = m->received;
			m->received = NULL;
			return 0;
		}
	}
}
