// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uae-forge: what any local user can do to a netlink subscriber, for the VM tests.  Sends
 * a well-formed uaevents event (a soft threshold on HOST:0:0:0, sequence number SEQ of
 * INSTANCE) as a unicast message to every generic netlink socket of the host, as listed
 * in /proc/net/netlink.  The kernel lets only CAP_NET_ADMIN send unicast on generic
 * netlink; a subscriber must take none of it all the same.
 *
 *   uae-forge INSTANCE-HEX SEQ HOST
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/uaevents.h>

int main(int argc, char **argv)
{
	struct nl_sock *sk = nl_socket_alloc();
	unsigned int sent = 0, proto, portid;
	char line[512];
	int family, r;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: uae-forge INSTANCE-HEX SEQ HOST\n");
		return 2;
	}
	if (!sk || genl_connect(sk) < 0)
		return 1;
	/* The family id, as anyone may read it. */
	family = genl_ctrl_resolve(sk, UAEVENTS_GENL_NAME);
	if (family < 0) {
		fprintf(stderr, "uae-forge: no uaevents family: %s\n", nl_geterror(family));
		return 1;
	}
	f = fopen("/proc/net/netlink", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		struct nl_msg *msg;

		/* sk Eth Pid Groups ...: generic netlink (16), a process's socket, not ours. */
		if (sscanf(line, "%*s %u %u", &proto, &portid) != 2 || proto != NETLINK_GENERIC ||
		    portid == 0 || portid == nl_socket_get_local_port(sk))
			continue;
		msg = nlmsg_alloc();
		if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0,
					 UAEVENTS_CMD_EVENT, UAEVENTS_GENL_VERSION) ||
		    nla_put_u64(msg, UAEVENTS_ATTR_SEQ, strtoull(argv[2], NULL, 0)) < 0 ||
		    nla_put_u64(msg, UAEVENTS_ATTR_INSTANCE, strtoull(argv[1], NULL, 16)) < 0 ||
		    nla_put_u8(msg, UAEVENTS_ATTR_KIND, UAEVENTS_KIND_UA) < 0 ||
		    nla_put_u32(msg, UAEVENTS_ATTR_HOST, strtoul(argv[3], NULL, 0)) < 0 ||
		    nla_put_u32(msg, UAEVENTS_ATTR_CHANNEL, 0) < 0 ||
		    nla_put_u32(msg, UAEVENTS_ATTR_TARGET, 0) < 0 ||
		    nla_put_u64(msg, UAEVENTS_ATTR_LUN, 0) < 0 ||
		    nla_put_u8(msg, UAEVENTS_ATTR_SENSE_KEY, 6) < 0 ||
		    nla_put_u8(msg, UAEVENTS_ATTR_ASC, 0x38) < 0 ||
		    nla_put_u8(msg, UAEVENTS_ATTR_ASCQ, 0x07) < 0 ||
		    nla_put_string(msg, UAEVENTS_ATTR_DEVNAME, "forged") < 0) {
			fprintf(stderr, "uae-forge: cannot build the message\n");
			return 1;
		}
		nl_socket_set_peer_port(sk, portid);
		r = nl_send_auto(sk, msg);
		if (r >= 0)
			sent++;
		else
			fprintf(stderr, "uae-forge: port %u: %s\n", portid, nl_geterror(r));
		nlmsg_free(msg);
	}
	fclose(f);
	printf("%u\n", sent);
	return sent ? 0 : 1;
}
