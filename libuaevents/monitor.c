// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents: the monitor, a subscription to the uaevents multicast groups.
 *
 * No silent loss: the monitor remembers the last sequence number it handed out.  When its
 * socket overflows (ENOBUFS) it empties the socket (netlink reports an overflow once,
 * then drops silently until the queue is empty), replays what it missed from the
 * kernel's history, and drops what it already handed out; what the history no longer
 * holds is reported as the next event's gap.
 *
 * The module can be unloaded and loaded again under a monitor (an upgrade, an
 * administrator): its multicast groups go with it, and a subscription to the old instance
 * would hear nothing, silently.  The monitor's socket also listens to the generic netlink
 * controller, which announces every family that comes and goes; on each announcement for
 * uaevents the monitor asks the kernel where the module stands and follows it.  Its fd,
 * an epoll fd over the socket and, without the module, libudev's monitor, stays the same.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

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
	int epoll_fd;			/* what the caller polls: sock, ready_fd, udev_monitor */
	/*
	 * Events queued here (a replay, the event behind a gap) are on no socket: this
	 * eventfd keeps the monitor's fd readable until they are handed out.
	 */
	int ready_fd;
	bool ready;
	/* Without the module: the stock kernel's uevents. */
	struct udev *udev;
	struct udev_monitor *udev_monitor;
	struct uae_filter filter;
	struct nl_sock *sock;		/* subscription, non-blocking */
	/*
	 * A replay under way: the history after replay_after is fetched a page at a time,
	 * as the queue empties, so that a receive does a bounded amount of work.
	 */
	bool replaying;
	uint64_t replay_after;
	int family_id;			/* 0: the module is not loaded */
	int group_ids[UAE_GROUPS];
	uint64_t instance;		/* the module instance followed; 0: none */
	bool follow;			/* the controller announced uaevents: look again */
	/*
	 * A follow that failed (no descriptor or memory left, a module going meanwhile) is
	 * tried again once this timerfd fires, after a wait that doubles up to 10 s: the
	 * monitor's fd is readable again then, and not before, so that a caller polling first
	 * neither waits for good nor spins on a failure that lasts.
	 */
	int retry_fd;
	unsigned int retry_ms;
	bool retry_armed;
	bool overflowed;		/* since the last replay: the socket lost events */
	/*
	 * The family ids of the instances followed lately.  The kernel gives each
	 * registration a new id (idr_alloc_cyclic()): an instance whose unregistration is
	 * announced under an id never followed came and went before the monitor could look,
	 * and its events are unknown.  How many, said with the next UAE_EVENT_MODULE.
	 */
	int followed_ids[16];
	unsigned int n_followed;
	uint32_t missed;
	/* Events received but not handed out yet, oldest first. */
	struct uae_event *head, *tail;
	int parse_error;
	/* The last event received, for replay, deduplication and gaps (position.c). */
	struct uae_position pos;
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
	{ UAEVENTS_MCGRP_NVME, "aen" },	/* "ana" and NVMe's "error" too; not in a 0.1 module */
};

/* The groups every module has: those of 0.1. */
#define UAE_GROUPS_REQUIRED 3

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

/*
 * Readable while events are queued here, a replay has pages to go or the module is still to
 * be followed (a follow that failed: once its retry is due, retry_fd says when), so that a
 * caller that polls first comes back for them.
 */
static void update_ready(struct uae_monitor *m)
{
	uint64_t v = 1;

	bool pending = m->head || m->after_gap || m->replaying || (m->follow && !m->retry_armed);

	if (pending && !m->ready)
		m->ready = write(m->ready_fd, &v, sizeof(v)) == sizeof(v);
	else if (!pending && m->ready)
		m->ready = read(m->ready_fd, &v, sizeof(v)) != sizeof(v);
}

/* A failed follow: try again after the next wait (100 ms, doubling up to 10 s). */
static void arm_retry(struct uae_monitor *m)
{
	struct itimerspec its = { 0 };

	m->retry_ms = m->retry_ms ? m->retry_ms * 2 : 100;
	if (m->retry_ms > 10000)
		m->retry_ms = 10000;
	its.it_value.tv_sec = m->retry_ms / 1000;
	its.it_value.tv_nsec = (long)(m->retry_ms % 1000) * 1000000;
	/* Without the timer, at once: a caller spinning beats one waiting for good. */
	m->retry_armed = timerfd_settime(m->retry_fd, 0, &its, NULL) == 0;
}

/* Whether a failed follow may be tried again now (its wait is over, or it had none). */
static bool retry_due(struct uae_monitor *m)
{
	uint64_t n;

	if (m->retry_armed && read(m->retry_fd, &n, sizeof(n)) == sizeof(n))
		m->retry_armed = false;
	return !m->retry_armed;
}

static void note_followed(struct uae_monitor *m)
{
	size_t n = sizeof(m->followed_ids) / sizeof(m->followed_ids[0]);

	m->followed_ids[m->n_followed++ % n] = m->family_id;
}

static bool was_followed(const struct uae_monitor *m, int id)
{
	size_t n = sizeof(m->followed_ids) / sizeof(m->followed_ids[0]);

	for (size_t i = 0; i < n && i < m->n_followed; i++)
		if (m->followed_ids[i] == id)
			return true;
	return false;
}

/* The controller's announcement of a family registered or unregistered: is it ours? */
static void on_controller(struct uae_monitor *m, struct nlmsghdr *nlh)
{
	static struct nla_policy policy[CTRL_ATTR_MAX + 1] = {
		[CTRL_ATTR_FAMILY_ID] = { .type = NLA_U16 },
		[CTRL_ATTR_FAMILY_NAME] = { .type = NLA_STRING },
	};
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (!genlmsg_valid_hdr(nlh, 0) ||
	    (gh->cmd != CTRL_CMD_NEWFAMILY && gh->cmd != CTRL_CMD_DELFAMILY) ||
	    genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, policy) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_NAME] || !tb[CTRL_ATTR_FAMILY_ID] ||
	    strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), UAEVENTS_GENL_NAME))
		return;
	if (gh->cmd == CTRL_CMD_DELFAMILY && !was_followed(m, nla_get_u16(tb[CTRL_ATTR_FAMILY_ID])))
		m->missed++;
	m->follow = true;
}

static int on_message(struct nl_msg *msg, void *arg)
{
	struct uae_monitor *m = arg;
	struct uae_event *ev = NULL;
	int r;

	if (nlmsg_hdr(msg)->nlmsg_type == GENL_ID_CTRL) {
		on_controller(m, nlmsg_hdr(msg));
		return NL_OK;
	}
	/* A family id another instance of the module had: nothing of ours. */
	if (nlmsg_hdr(msg)->nlmsg_type != m->family_id)
		return NL_SKIP;
	r = uae_event_from_nlmsg(nlmsg_hdr(msg), &ev);
	if (r < 0) {
		m->parse_error = r;
		return NL_SKIP;
	}
	if (ev) {		/* NULL: a command this version does not know */
		ev->live = true;
		enqueue(m, ev);
	}
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
	struct uae_kernel_stats st = { .size = sizeof(st) };
	uint64_t group_seq[UAE_GROUPS];
	int r = uae_kernel_stats_groups(&st, group_seq);

	if (r < 0)
		return r;
	m->instance = st.instance;
	uae_position_set(&m->pos, st.instance, st.last_seq, group_seq);
	note_followed(m);
	return 0;
}

static void fallback_stop(struct uae_monitor *m)
{
	if (m->udev_monitor)
		epoll_ctl(m->epoll_fd, EPOLL_CTL_DEL, udev_monitor_get_fd(m->udev_monitor), NULL);
	m->udev_monitor = udev_monitor_unref(m->udev_monitor);
	m->udev = udev_unref(m->udev);
}

static int fallback_start(struct uae_monitor *m)
{
	struct epoll_event ee = { .events = EPOLLIN };
	int r = -EIO;

	m->udev = udev_new();
	if (!m->udev)
		return -ENOMEM;
	m->udev_monitor = udev_monitor_new_from_netlink(m->udev, "kernel");
	if (m->udev_monitor &&
	    udev_monitor_filter_add_match_subsystem_devtype(m->udev_monitor, "scsi", NULL) >= 0 &&
	    udev_monitor_filter_add_match_subsystem_devtype(m->udev_monitor, "nvme", NULL) >= 0 &&
	    udev_monitor_enable_receiving(m->udev_monitor) >= 0)
		r = epoll_ctl(m->epoll_fd, EPOLL_CTL_ADD, udev_monitor_get_fd(m->udev_monitor),
			      &ee) < 0 ? -errno : 0;
	if (r < 0) {
		/* Not in the epoll set: fallback_stop's EPOLL_CTL_DEL fails harmlessly. */
		fallback_stop(m);
	}
	return r;
}

/* The family's id and its groups' ids now; -ENOENT without the module. */
static int resolve(struct uae_monitor *m)
{
	const char *names[UAE_GROUPS];
	int r;

	for (int i = 0; i < UAE_GROUPS; i++)
		names[i] = groups[i].group;
	r = uae_genl_resolve(UAEVENTS_GENL_NAME, &m->family_id, names, m->group_ids,
			     UAE_GROUPS, UAE_GROUPS_REQUIRED);
	if (r < 0)
		m->family_id = 0;
	return r;
}

/* Join the groups whose events the filters let through, leave the others. */
static int update_groups(struct uae_monitor *m)
{
	struct uae_kernel_stats st = { .size = sizeof(st) };
	uint64_t group_seq[UAE_GROUPS] = { 0 };
	bool want[UAE_GROUPS], newly = false;

	if (!m->family_id)
		return 0;
	for (int i = 0; i < UAE_GROUPS; i++) {
		int r;

		/* A group the module does not have (id 0) has no events to miss. */
		want[i] = m->group_ids[i] &&
			  (uae_filter_wants_kind(&m->filter, groups[i].kind) ||
			   (i == UAE_GROUP_ERROR && uae_filter_wants_kind(&m->filter, "timeout")) ||
			   (i == UAE_GROUP_NVME && (uae_filter_wants_kind(&m->filter, "error") ||
						     uae_filter_wants_kind(&m->filter, "ana"))));
		r = want[i] ? nl_socket_add_membership(m->sock, m->group_ids[i]) :
		    m->group_ids[i] ? nl_socket_drop_membership(m->sock, m->group_ids[i]) : 0;
		if (r < 0 && want[i])
			return uae_nlerr_to_errno(r);
		newly |= want[i] && !m->pos.joined[i];
	}
	/* A group joined now starts where the stream stands, asked once it is joined. */
	if (newly) {
		int r = uae_kernel_stats_groups(&st, group_seq);

		if (r < 0)
			return r;
	}
	for (int i = 0; i < UAE_GROUPS; i++)
		uae_position_join(&m->pos, i, want[i], group_seq[i]);
	return 0;
}

static int enqueue_module(struct uae_monitor *m, uint64_t instance, const char *what)
{
	struct uae_event *ev = uae_event_new_module(instance, what);

	if (!ev)
		return -ENOMEM;
	enqueue(m, ev);
	return 0;
}

/*
 * The controller announced uaevents, or an overflow may have hidden an announcement: follow
 * the module to where it stands now.  Called with nothing queued, so that every event of
 * an instance that went is handed out before the event saying it went.  The groups are
 * joined before the kernel is asked where its stream stands, so that nothing falls between.
 */
static int follow(struct uae_monitor *m)
{
	struct uae_kernel_stats st = { .size = sizeof(st) };
	uint64_t was = m->instance;
	int r;

	m->follow = false;
	if (m->missed) {
		struct uae_event *ev = uae_event_new_module(0, "MODULE_MISSED");

		if (!ev) {
			m->follow = true;
			return -ENOMEM;
		}
		ev->repeat = m->missed;
		m->missed = 0;
		enqueue(m, ev);
	}
	r = resolve(m);
	if (r == 0)
		r = update_groups(m);
	if (r == 0)
		r = uae_kernel_stats(&st);
	if (r == -ENOENT) {
		m->family_id = 0;
		m->instance = 0;
		r = was ? enqueue_module(m, was, "MODULE_UNLOADED") : 0;
		if (r == 0 && !m->udev_monitor)
			r = fallback_start(m);
		goto out;
	}
	if (r < 0)
		goto out;
	/*
	 * The same instance: an announcement already followed (nothing was missed), or an
	 * overflow (catch up on the history).
	 */
	if (st.instance == was) {
		r = m->overflowed ? uae_monitor_replay(m, m->pos.seq) : 0;
		goto out;
	}
	if (was)
		r = enqueue_module(m, was, "MODULE_UNLOADED");
	if (r == 0)
		r = enqueue_module(m, st.instance, "MODULE_LOADED");
	if (r < 0)
		goto out;
	fallback_stop(m);
	note_followed(m);
	/* A new instance numbers from 1: all of its history is new to this monitor. */
	m->instance = st.instance;
	uae_position_set(&m->pos, st.instance, 0, NULL);
	r = uae_monitor_replay(m, 0);
out:
	/* Tried again at a receive once the wait is over. */
	if (r < 0) {
		m->follow = true;
		arm_retry(m);
	} else {
		m->retry_ms = 0;
	}
	return r;
}

/* Listen to the generic netlink controller's announcements of families. */
static int listen_to_controller(struct uae_monitor *m)
{
	const char *notify = "notify";
	struct epoll_event ee = { .events = EPOLLIN };
	int id, r;

	m->sock = nl_socket_alloc();
	if (!m->sock)
		return -ENOMEM;
	/* Multicast notifications carry no sequence numbers of ours. */
	nl_socket_disable_seq_check(m->sock);
	nl_socket_modify_cb(m->sock, NL_CB_VALID, NL_CB_CUSTOM, on_message, m);
	nl_socket_modify_cb(m->sock, NL_CB_MSG_IN, NL_CB_CUSTOM, on_message_in, m);
	r = genl_connect(m->sock);
	if (r < 0)
		return uae_nlerr_to_errno(r);
	r = uae_genl_resolve("nlctrl", NULL, &notify, &id, 1, 1);
	if (r < 0)
		return r;
	r = nl_socket_add_membership(m->sock, id);
	if (r >= 0)
		r = nl_socket_set_nonblocking(m->sock);
	if (r < 0)
		return uae_nlerr_to_errno(r);
	/* Let the kernel know when this socket overflows: it counts it in its statistics. */
	setsockopt(nl_socket_get_fd(m->sock), SOL_NETLINK, NETLINK_BROADCAST_ERROR,
		   &(int){ 1 }, sizeof(int));
	if (epoll_ctl(m->epoll_fd, EPOLL_CTL_ADD, nl_socket_get_fd(m->sock), &ee) < 0)
		return -errno;
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
	m->ready_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	m->retry_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	m->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (m->epoll_fd < 0 || m->ready_fd < 0 || m->retry_fd < 0 ||
	    epoll_ctl(m->epoll_fd, EPOLL_CTL_ADD, m->ready_fd,
		      &(struct epoll_event){ .events = EPOLLIN }) < 0 ||
	    epoll_ctl(m->epoll_fd, EPOLL_CTL_ADD, m->retry_fd,
		      &(struct epoll_event){ .events = EPOLLIN }) < 0) {
		r = -errno;
		goto fail;
	}
	/* First the announcements, so that a module loaded from now on is seen. */
	r = listen_to_controller(m);
	if (r < 0)
		goto fail;
	r = resolve(m);
	if (r == 0)
		r = update_groups(m);
	if (r == 0)
		r = mark_start(m);
	if (r == -ENOENT)
		r = fallback_start(m);
	if (r < 0)
		goto fail;
	*ret = m;
	return 0;
fail:
	uae_monitor_unref(m);
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
	fallback_stop(m);
	if (m->sock)
		nl_socket_free(m->sock);
	if (m->epoll_fd >= 0)
		close(m->epoll_fd);
	if (m->ready_fd >= 0)
		close(m->ready_fd);
	if (m->retry_fd >= 0)
		close(m->retry_fd);
	free(m);
	return NULL;
}

int uae_monitor_get_fd(struct uae_monitor *m)
{
	if (!m)
		return -EINVAL;
	return m->epoll_fd;
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
	if (r == 0 && !strcmp(key, "kind"))
		r = update_groups(m);
	return r;
}

uint64_t uae_monitor_get_overflows(struct uae_monitor *m)
{
	return m ? m->overflows : 0;
}

/*
 * One page of the history after replay_after: what the kernel puts in the first message of
 * a dump, queued while the request is sent.  The dump is then abandoned with its socket: an
 * open dump holds a reference on the module, and a caller that stops reading must not keep
 * the module from being unloaded.  The kernel finds where a page starts by a binary search.
 */
static int replay_page(struct uae_monitor *m)
{
	uint64_t was = m->replay_after;
	struct sockaddr_nl peer = { 0 };
	unsigned char *buf = NULL;
	struct nl_sock *sock;
	struct nlmsghdr *nlh;
	struct nl_msg *msg;
	bool done = false, stuck;
	int n, r;

	r = uae_genl_connect(&sock);
	if (r < 0)
		goto retry;
	msg = uae_genl_request(m->family_id, UAEVENTS_CMD_GET_HISTORY, NLM_F_DUMP);
	/* NVMe's events too, from a module that has them (one of 0.1 refuses the flag). */
	if (!msg || nla_put_u64(msg, UAEVENTS_ATTR_SINCE_SEQ, m->replay_after) < 0 ||
	    (m->group_ids[UAE_GROUP_NVME] && nla_put_flag(msg, UAEVENTS_ATTR_DUMP_NVME) < 0)) {
		nlmsg_free(msg);
		nl_socket_free(sock);
		r = -ENOMEM;
		goto retry;
	}
	n = nl_send_auto(sock, msg);
	nlmsg_free(msg);
	/* What another process sent to this port is skipped, never taken for the answer. */
	while (n >= 0 && ((n = nl_recv(sock, &peer, &buf, NULL)) > 0) && peer.nl_pid != 0) {
		free(buf);
		buf = NULL;
	}
	nl_socket_free(sock);
	if (n <= 0) {
		free(buf);
		r = n < 0 ? uae_nlerr_to_errno(n) : -EIO;
		goto retry;
	}
	for (nlh = (struct nlmsghdr *)buf; !done && nlmsg_ok(nlh, n); nlh = nlmsg_next(nlh, &n)) {
		struct uae_event *ev = NULL;

		if (nlh->nlmsg_type == NLMSG_DONE) {
			done = true;
		} else if (nlh->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = nlmsg_data(nlh);

			r = nlh->nlmsg_len >= (unsigned int)nlmsg_size(sizeof(*e)) ? e->error : -EBADMSG;
			done = true;
		} else if (nlh->nlmsg_type == m->family_id) {
			int e = uae_event_from_nlmsg(nlh, &ev);

			if (e < 0)
				m->parse_error = e;
			if (ev) {
				m->replay_after = ev->seq;
				enqueue(m, ev);
			}
		}
	}
	free(buf);
	/* The module went meanwhile: its announcement is on the socket, follow it from there. */
	if (r == -ENOENT) {
		r = 0;
		m->follow = true;
	}
	/* A page this library could not read a single event of would come again and again. */
	stuck = !done && r == 0 && m->replay_after == was;
	if (done || stuck || r < 0)
		m->replaying = false;
	/* Said once; what could be read is queued, and the gap shows what could not. */
	if (r == 0 && (stuck || m->parse_error < 0))
		r = m->parse_error < 0 ? m->parse_error : -EBADMSG;
	m->parse_error = 0;
	return r;
retry:
	/*
	 * Said to the caller once, and tried again at the next receive, from the last event
	 * handed out: what this replay queued meanwhile is handed out once all the same.
	 */
	m->replaying = false;
	m->overflowed = true;
	m->follow = true;
	return r;
}

int uae_monitor_replay(struct uae_monitor *m, uint64_t since)
{
	struct uae_kernel_stats st = { .size = sizeof(st) };
	int r;

	if (!m)
		return -EINVAL;
	if (!m->family_id)
		return -EOPNOTSUPP;
	/* A cursor past the module's last event would hide every event up to it. */
	r = uae_kernel_stats(&st);
	if (r < 0)
		return r;
	if (st.instance == m->pos.instance && since > st.last_seq)
		since = st.last_seq;
	uae_position_rewind(&m->pos, since);
	m->replay_after = since;
	m->replaying = true;
	m->overflowed = false;
	m->parse_error = 0;
	/* The first page at once, so that a refusal (-EPERM) is this call's to return. */
	r = replay_page(m);
	update_ready(m);
	return r;
}

/*
 * Hand out @ev unless it was handed out already (a replay overlaps the live stream) or the
 * filters keep it back; note how many events were missed before it.  Filtered events
 * count as seen, so that they make no gap.
 */
static bool accept_event(struct uae_monitor *m, struct uae_event *ev, uint64_t *first,
			 uint64_t *lost)
{
	return uae_position_accept(&m->pos, ev, first, lost) &&
	       uae_filter_matches(&m->filter, ev);
}

/* The events queued from the live socket go: a replay brings them again. */
static void drop_live(struct uae_monitor *m)
{
	struct uae_event *ev, *keep = NULL, **tail = &keep;

	while ((ev = dequeue(m))) {
		if (ev->live) {
			uae_event_unref(ev);
			continue;
		}
		*tail = ev;
		tail = &ev->next;
	}
	while (keep) {
		ev = keep;
		keep = ev->next;
		ev->next = NULL;
		enqueue(m, ev);
	}
}

/* Queue everything the socket holds, until it has none. */
static int drain(struct uae_monitor *m)
{
	for (;;) {
		int r = nl_recvmsgs_default(m->sock);

		if (r >= 0)
			continue;
		r = uae_nlerr_to_errno(r);
		if (r == -EAGAIN)
			return 0;
		if (r != -ENOBUFS)
			return r;
	}
}

/* The next stock uevent the filters let through; -EAGAIN when none is waiting. */
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

/* Pages of a replay one receive fetches while the filters let nothing through. */
#define REPLAY_PAGES 8

static int receive(struct uae_monitor *m, struct uae_event **ret)
{
	struct uae_kernel_stats st = { .size = sizeof(st) };
	unsigned int pages = 0;
	struct uae_event *ev;
	int r;

	if (m->after_gap) {
		*ret = m->after_gap;
		m->after_gap = NULL;
		return 0;
	}
	for (;;) {
		while ((ev = dequeue(m))) {
			uint64_t first = 0, lost = 0;
			bool wanted;

			/* About the stream itself, like a gap: whatever the filters. */
			if (ev->kind == UAE_EVENT_MODULE) {
				*ret = ev;
				return 0;
			}
			wanted = accept_event(m, ev, &first, &lost);
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
		/* Before the live stream: its events are newer than what the replay has to go. */
		if (m->replaying) {
			/* The fd stays readable: the caller comes back for the rest. */
			if (pages++ == REPLAY_PAGES)
				return -EAGAIN;
			r = replay_page(m);
			if (r < 0)
				return r;
			continue;
		}
		if (m->follow) {
			if (!retry_due(m))
				return -EAGAIN;
			r = follow(m);
			if (r < 0)
				return r;
			continue;
		}
		if (m->udev_monitor && receive_fallback(m, ret) == 0)
			return 0;
		m->parse_error = 0;
		r = nl_recvmsgs_default(m->sock);
		if (r < 0) {
			r = uae_nlerr_to_errno(r);
			if (r != -ENOBUFS)
				return r;
			m->overflows++;
			m->overflowed = true;
			/*
			 * The socket overflowed.  Netlink says so once, then drops silently
			 * until the socket's queue is empty: drain it first, so that the next
			 * overflow is said too, then fetch what was lost from the history,
			 * which holds what was drained as well (an event is recorded before it
			 * is sent).  If the module was reloaded meanwhile (its announcement may
			 * be among what was lost), first hand out what the socket held of the
			 * instance that went, then follow.
			 */
			r = drain(m);
			if (r < 0)
				return r;
			if (uae_kernel_stats(&st) == 0 && st.instance == m->instance)
				drop_live(m);
			m->follow = true;
			continue;
		}
		if (m->parse_error < 0)
			return m->parse_error;
	}
}

int uae_monitor_receive(struct uae_monitor *m, struct uae_event **ret)
{
	int r;

	if (!m || !ret)
		return -EINVAL;
	r = receive(m, ret);
	update_ready(m);
	return r;
}
