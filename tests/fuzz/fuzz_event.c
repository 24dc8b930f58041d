// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target over libuaevents' netlink message parser: any bytes, taken as one
 * netlink message, are parsed and validated; every accessor of an accepted event works.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/netlink.h>

#include "libuaevents.h"
#include "uae_private.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uae_event *ev = NULL;
	struct nlmsghdr *nlh;
	size_t len;
	uint64_t lba;
	uint32_t sectors;
	int r;

	if (size < sizeof(*nlh) || size > 65536)
		return 0;
	/* As the kernel would deliver it: nlmsg_len never exceeds the datagram. */
	nlh = malloc(size);
	memcpy(nlh, data, size);
	if (nlh->nlmsg_len > size)
		nlh->nlmsg_len = size;

	r = uae_event_from_nlmsg(nlh, &ev);
	CHECK(r == 0 || r == -EBADMSG || r == -ENOMEM);
	if (ev) {
		CHECK(r == 0);
		CHECK(uae_event_get_name(ev) && uae_event_get_category(ev));
		CHECK(uae_event_get_kind_name(ev) && uae_event_get_hctl(ev));
		CHECK(strlen(uae_event_get_hctl(ev)) < 64);
		uae_event_get_sense(ev, &len);
		CHECK(len <= 96);
		uae_event_get_lba(ev, &lba, &sectors);
		uae_event_get_devname(ev);
		uae_event_get_wwid(ev);
		uae_event_get_description(ev);
		uae_event_get_severity(ev);
		uae_event_get_blk_status(ev);
		/* NVMe's: a transport for every device event, a known ANA state or none. */
		CHECK(uae_event_get_transport(ev));
		uae_event_get_nvme_controller(ev);
		uae_event_get_nvme_status(ev);
		uae_event_get_aen_class(ev);
		uae_event_get_aen_log_page(ev);
		CHECK(uae_event_get_kind(ev) != UAE_EVENT_ANA || uae_event_get_ana_group(ev) >= 0);
		uae_event_get_ana_state(ev);
		{
			const uint32_t *nsids;
			unsigned int count;
			int listed = uae_event_get_nvme_nsids(ev, &nsids, &count);

			/* What the event carries: its count, at most what the log listed. */
			CHECK(count <= UAEVENTS_NSIDS_MAX);
			CHECK(listed < 0 || (unsigned int)listed >= count);
			for (unsigned int i = 0; i < count; i++)
				(void)nsids[i];
		}
		uae_event_unref(ev);
	}
	free(nlh);
	return 0;
}
