// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents: requests to the uaevents generic netlink family, over libnl.
 */
#include <errno.h>
#include <stdlib.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/uaevents.h>

#include "uae_private.h"

/* libnl's own error codes, as the errno they stand for. */
int uae_nlerr_to_errno(int nlerr)
{
	switch (abs(nlerr)) {
	case 0:
		return 0;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_NOMEM:
		/* What nl_recv() makes of ENOBUFS (receive queue overflow). */
		return -ENOBUFS;
	case NLE_PERM:
		return -EPERM;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_NODEV:
		return -ENODEV;
	case NLE_RANGE:
	case NLE_INVAL:
		return -EINVAL;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_MSG_TRUNC:
	case NLE_MSG_TOOSHORT:
	case NLE_PARSE_ERR:
		return -EBADMSG;
	case NLE_INTR:
		return -EINTR;
	case NLE_DUMP_INTR:
		return -EINTR;
	default:
		return -EIO;
	}
}

/*
 * A local process with CAP_NET_ADMIN may send a unicast message to our socket's port
 * (without it, netlink_sendmsg() refuses: generic netlink does not allow NONROOT_SEND):
 * only the kernel's (source port 0, which no process can have) are read, replies and
 * the family's resolution included.
 */
int uae_nlmsg_from_kernel(struct nl_msg *msg, void *arg)
{
	return nlmsg_get_src(msg)->nl_pid == 0 ? NL_OK : NL_SKIP;
}

/* A connected generic netlink socket, and the id of @family unless @family_id is NULL. */
static int open_as(struct nl_sock **sock, const char *family, int *family_id)
{
	struct nl_sock *s = nl_socket_alloc();
	int r;

	*sock = NULL;
	if (!s)
		return -ENOMEM;
	/* Before the first receive: genl_ctrl_resolve() clones the socket's callbacks. */
	nl_socket_modify_cb(s, NL_CB_MSG_IN, NL_CB_CUSTOM, uae_nlmsg_from_kernel, NULL);
	r = genl_connect(s);
	/*
	 * The kernel answers a request while it is sent, so its answer is waiting when it is
	 * read; a full socket would drop it, and a blocking read would then wait for good.
	 */
	if (r >= 0)
		r = nl_socket_set_nonblocking(s);
	if (r >= 0 && family_id) {
		r = genl_ctrl_resolve(s, family);
		if (r >= 0)
			*family_id = r;
	}
	if (r < 0) {
		nl_socket_free(s);
		return uae_nlerr_to_errno(r);
	}
	*sock = s;
	return 0;
}

int uae_genl_resolve(const char *family, int *family_id, const char *const *groups, int *ids,
		     size_t n, size_t required)
{
	struct nl_sock *s;
	int r = open_as(&s, family, family_id);

	for (size_t i = 0; r == 0 && i < n; i++) {
		int id = genl_ctrl_resolve_grp(s, family, groups[i]);

		if (id >= 0)
			ids[i] = id;
		else if (i >= required && uae_nlerr_to_errno(id) == -ENOENT)
			ids[i] = 0;
		else
			r = uae_nlerr_to_errno(id);
	}
	if (s)
		nl_socket_free(s);
	return r;
}

int uae_genl_connect(struct nl_sock **sock)
{
	return open_as(sock, NULL, NULL);
}

int uae_genl_open(struct nl_sock **sock, int *family)
{
	return open_as(sock, UAEVENTS_GENL_NAME, family);
}

struct nl_msg *uae_genl_request(int family, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
				NLM_F_REQUEST | NLM_F_ACK | flags, cmd, UAEVENTS_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct transact {
	int (*on_reply)(struct nl_msg *msg, void *arg);
	void *arg;
	int error;
	int done;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct transact *t = arg;
	int r;

	if (!t->on_reply)
		return NL_OK;
	r = t->on_reply(msg, t->arg);
	if (r < 0 && !t->error)
		t->error = r;
	return NL_OK;
}

static int on_finish(struct nl_msg *msg, void *arg)
{
	struct transact *t = arg;

	t->done = 1;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct transact *t = arg;

	t->error = err->error;
	t->done = 1;
	return NL_STOP;
}

int uae_genl_transact(struct nl_sock *sock, struct nl_msg *msg,
		      int (*on_reply)(struct nl_msg *msg, void *arg), void *arg)
{
	struct transact t = { .on_reply = on_reply, .arg = arg };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int r;

	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_MSG_IN, NL_CB_CUSTOM, uae_nlmsg_from_kernel, NULL);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &t);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &t);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_finish, &t);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &t);

	r = nl_send_auto(sock, msg);
	nlmsg_free(msg);
	while (r >= 0 && !t.done)
		r = nl_recvmsgs(sock, cb);
	nl_cb_put(cb);
	if (t.error)
		return t.error;
	return r < 0 ? uae_nlerr_to_errno(r) : 0;
}
