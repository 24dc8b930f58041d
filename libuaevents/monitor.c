// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents: the monitor, a subscription to the uaevents multicast groups.
 *
 * No silent loss: the monitor remembers the last sequence number it handed out.  When its
 * socket overflows (ENOBUFS) it replays what it missed from the kernel's history, and
 * drops what it already handed out; what the history no longer holds is reported as the
 * next event's gap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/uaevents.h>
#include <libudev.h>

#include "libuaevents.h"
#include "uae_private.h"

struct uae_monitor {
	int refcount;
	/* Without the module: the stock kernel's uevents. */
	struct udev *udev;
	struct udev_monitor *udev_monitor;
	struct uae_filter filter;
	struct nl_sock *sock;		/* subscription, non-blocking */
	struct nl_sock *control;	/* requests (replay), blocking; opened on demand */
	int family_id;
	/* Events received but not handed out yet, oldest first. */
	struct uae_event *head, *tail;
	int parse_error;
	/*
	 * The last event received, for replay and deduplication, and the last of each group,
	 * for gaps: a subscriber of some groups must not take the other groups' events,
	 * which it never receives, for losses.
	 */
	uint64_t last_instance;
	uint64_t last_seq;
	uint64_t last_group_seq[UAE_GROUPS];
	bool group_known[UAE_GROUPS];
	uint64_t overflows;
	/* An event accepted behind the gap event handed out just before it. */
	struct uae_event *after_gap;
};

/* Each multicast group, and the kind of events it carries. */
static const struct {
	const char *group, *kind;
} groups[] = {
	{ UAEVENTS_MCGRP_UA, "ua" },
	{ UAEVENTS_MCGRP_ERROR, "error" },	/* and "timeout" */
	{ UAEVENTS_MCGRP_SGIO, "sgio" },
};

static void enqueue(struct uae_monitor *m, struct uae_event *ev)
{
	ev->next = NULL;
	if (m->tail)
		m->tail->next = ev;
	else
		m->head = ev;
	m->tail = ev;
}

static struct uae_event *dequeue(struct uae_monitor *m)
{
	struct uae_event *ev = m->head;

	if (ev) {
		m->head = ev->next;
		if (!m->head)
			m->tail = NULL;
		ev->next = NULL;
	}
	return ev;
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
	if (ev)			/* NULL: a command this version does not know */
		enqueue(m, ev);
	return NL_OK;
}

/* A message some process sent to our port: skipped, and said (-EBADMSG), never an event. */
static int on_message_in(struct nl_msg *msg, void *arg)
{
	struct uae_monitor *m = arg;

	if (uae_nlmsg_from_kernel(msg, NULL) == NL_OK)
		return NL_OK;
	m->parse_error = -EBADMSG;
	return NL_SKIP;
}

/* Where the stream stands now, so that a replay knows where this monitor started. */
static int mark_start(struct uae_monitor *m)
{
	struct uae_kernel_stats st;
	int r = uae_kernel_stats_groups(&st, m->last_group_seq);

	if (r < 0)
		return r;
	for (int g = 0; g < UAE_GROUPS; g++)
		m->group_known[g] = true;
	m->last_instance = st.instance;
	m->last_seq = st.last_seq;
	return 0;
}

static int open_fallback(struct uae_monitor *m)
{
	m->udev = udev_new();
	if (!m->udev)
		return -ENOMEM;
	m->udev_monitor = udev_monitor_new_from_netlink(m->udev, "kernel");
	if (!m->udev_monitor ||
	    udev_monitor_filter_add_match_subsystem_devtype(m->udev_monitor, "scsi", NULL) < 0 ||
	    udev_monitor_enable_receiving(m->udev_monitor) < 0)
		return -EIO;
	return 0;
}

/* Join the groups whose events the filters let through, leave the others. */
static int update_groups(struct uae_monitor *m)
{
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		int group = genl_ctrl_resolve_grp(m->sock, UAEVENTS_GENL_NAME, groups[i].group);
		bool want = uae_filter_wants_kind(&m->filter, groups[i].kind) ||
			    (i == 1 && uae_filter_wants_kind(&m->filter, "timeout"));
		int r;

		if (group < 0)
			return uae_nlerr_to_errno(group);
		r = want ? nl_socket_add_membership(m->sock, group) :
			   nl_socket_drop_membership(m->sock, group);
		if (r < 0 && want)
			return uae_nlerr_to_errno(r);
	}
	return 0;
}

int uae_monitor_new(struct uae_monitor **ret)
{
	struct uae_monitor *m;
	int r;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->refcount = 1;

	r = uae_genl_open(&m->sock, &m->family_id);
	if (r == -ENOENT) {
		r = open_fallback(m);
		if (r < 0) {
			uae_monitor_unref(m);
			return r;
		}
		*ret = m;
		return 0;
	}
	if (r < 0) {
		free(m);
		return r;
	}
	/* Multicast notifications carry no sequence numbers of ours. */
	nl_socket_disable_seq_check(m->sock);
	nl_socket_modify_cb(m->sock, NL_CB_VALID, NL_CB_CUSTOM, on_message, m);
	nl_socket_modify_cb(m->sock, NL_CB_MSG_IN, NL_CB_CUSTOM, on_message_in, m);
	r = update_groups(m);
	if (r < 0)
		goto fail;
	r = nl_socket_set_nonblocking(m->sock);
	if (r < 0) {
		r = uae_nlerr_to_errno(r);
		goto fail;
	}
	/* Let the kernel know when this socket overflows: it counts it in its statistics. */
	setsockopt(nl_socket_get_fd(m->sock), SOL_NETLINK, NETLINK_BROADCAST_ERROR,
		   &(int){ 1 }, sizeof(int));
	r = mark_start(m);
	if (r < 0)
		goto fail;
	*ret = m;
	return 0;
fail:
	nl_socket_free(m->sock);
	free(m);
	return r;
}

struct uae_monitor *uae_monitor_ref(struct uae_monitor *m)
{
	if (m)
		m->refcount++;
	return m;
}

struct uae_monitor *uae_monitor_unref(struct uae_monitor *m)
{
	struct uae_event *ev;

	if (!m || --m->refcount > 0)
		return NULL;
	while ((ev = dequeue(m)))
		uae_event_unref(ev);
	uae_event_unref(m->after_gap);
	uae_filter_clear(&m->filter);
	udev_monitor_unref(m->udev_monitor);
	udev_unref(m->udev);
	if (m->sock)
		nl_socket_free(m->sock);
	if (m->control)
		nl_socket_free(m->control);
	free(m);
	return NULL;
}

int uae_monitor_get_fd(struct uae_monitor *m)
{
	if (!m)
		return -EINVAL;
	if (m->udev_monitor)
		return udev_monitor_get_fd(m->udev_monitor);
	return nl_socket_get_fd(m->sock);
}

int uae_monitor_is_fallback(struct uae_monitor *m)
{
	return m && m->udev_monitor;
}

int uae_monitor_filter_add_match(struct uae_monitor *m, const char *key, const char *value)
{
	int r;

	if (!m)
		return -EINVAL;
	r = uae_filter_add(&m->filter, key, value);
	if (r == 0 && !strcmp(key, "kind") && m->sock)
		r = update_groups(m);
	return r;
}

uint64_t uae_monitor_get_overflows(struct uae_monitor *m)
{
	return m ? m->overflows : 0;
}

int uae_monitor_replay(struct uae_monitor *m, uint64_t since)
{
	struct uae_kernel_stats st;
	struct nl_msg *msg;
	int family, r;

	if (!m)
		return -EINVAL;
	if (m->udev_monitor)
		return -EOPNOTSUPP;
	if (!m->control) {
		r = uae_genl_open(&m->control, &family);
		if (r < 0)
			return r;
	}
	/* A cursor past the module's last event would hide every event up to it. */
	r = uae_kernel_stats(&st);
	if (r < 0)
		return r;
	if (st.instance == m->last_instance && since > st.last_seq)
		since = st.last_seq;
	msg = uae_genl_request(m->family_id, UAEVENTS_CMD_GET_HISTORY, NLM_F_DUMP);
	if (!msg || nla_put_u64(msg, UAEVENTS_ATTR_SINCE_SEQ, since) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	/*
	 * Going back to @since, where the groups stood is not known: each group's first
	 * replayed event sets it.  A replay after an overflow goes on where the stream stopped.
	 */
	if (since != m->last_seq)
		for (int g = 0; g < UAE_GROUPS; g++)
			m->group_known[g] = false;
	m->last_seq = since;
	m->parse_error = 0;
	r = uae_genl_transact(m->control, msg, on_message, m);
	/* -EINTR: the history had moved past @since; the events' gap says by how much. */
	if (r == -EINTR)
		r = 0;
	return r < 0 ? r : m->parse_error;
}

/*
 * Hand out @ev unless it was handed out already (a replay overlaps the live stream) or the
 * filters keep it back; note how many events were missed before it.  Filtered events
 * count as seen, so that they make no gap.
 */
static bool accept_event(struct uae_monitor *m, struct uae_event *ev, uint64_t *first,
			 uint64_t *lost)
{
	int g = uae_group_of_kind(ev->kind);

	if (ev->instance == m->last_instance) {
		if (ev->seq <= m->last_seq)
			return false;
		/* Fell out of the kernel's history before a replay reached them. */
		if (ev->dump_lost)
			ev->gap = ev->dump_lost;
		/* A module without group numbers: only the global one tells. */
		else if (!ev->group_seq)
			ev->gap = ev->seq - m->last_seq - 1;
		else if (m->group_known[g] && ev->group_seq > m->last_group_seq[g])
			ev->gap = ev->group_seq - m->last_group_seq[g] - 1;
		*first = m->last_seq + 1;
		*lost = ev->gap;
	} else {
		/* Another instance: the module was reloaded and numbering starts again. */
		for (int i = 0; i < UAE_GROUPS; i++) {
			m->last_group_seq[i] = 0;
			m->group_known[i] = true;
		}
	}
	m->last_instance = ev->instance;
	m->last_seq = ev->seq;
	if (ev->group_seq) {
		m->last_group_seq[g] = ev->group_seq;
		m->group_known[g] = true;
	}
	return uae_filter_matches(&m->filter, ev);
}

static int receive_fallback(struct uae_monitor *m, struct uae_event **ret)
{
	struct udev_device *dev;

	while ((dev = udev_monitor_receive_device(m->udev_monitor))) {
		struct uae_event *ev = uae_event_from_udev(dev);

		udev_device_unref(dev);
		if (ev && uae_filter_matches(&m->filter, ev)) {
			*ret = ev;
			return 0;
		}
		uae_event_unref(ev);
	}
	return -EAGAIN;
}

int uae_monitor_receive(struct uae_monitor *m, struct uae_event **ret)
{
	struct uae_event *ev;
	int r;

	if (!m || !ret)
		return -EINVAL;
	if (m->udev_monitor)
		return receive_fallback(m, ret);
	if (m->after_gap) {
		*ret = m->after_gap;
		m->after_gap = NULL;
		return 0;
	}
	for (;;) {
		while ((ev = dequeue(m))) {
			uint64_t first = 0, lost = 0;
			bool wanted = accept_event(m, ev, &first, &lost);

			/* Events neither delivered nor replayable: said, never silent. */
			if (lost) {
				struct uae_event *gap = uae_event_new_gap(ev, first, lost);

				if (gap) {
					if (wanted)
						m->after_gap = ev;
					else
						uae_event_unref(ev);
					*ret = gap;
					return 0;
				}
			}
			if (wanted) {
				*ret = ev;
				return 0;
			}
			uae_event_unref(ev);
		}
		m->parse_error = 0;
		r = nl_recvmsgs_default(m->sock);
		if (r < 0) {
			r = uae_nlerr_to_errno(r);
			if (r != -ENOBUFS)
				return r;
			/* The socket overflowed: fetch what was lost from the history. */
			m->overflows++;
			r = uae_monitor_replay(m, m->last_seq);
			if (r < 0)
				return r;
			continue;
		}
		if (m->parse_error < 0)
			return m->parse_error;
	}
}
