// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents' message parser: messages built as the kernel module builds them, and
 * bogus ones, which must be refused with -EBADMSG and never crash or overrun.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <libudev.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <linux/uaevents.h>

#include "libuaevents.h"
#include "uae_private.h"
#include "uae_sense.h"

static const uint8_t sense_capacity[18] = {
	0x70, 0, 0x06, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x2a, 0x09,
};

/* Attributes to leave out of, or spoil in, a built message. */
enum spoil {
	SPOIL_NONE,
	SPOIL_NO_SEQ,
	SPOIL_SHORT_U64,
	SPOIL_DEVNAME_SLASH,
	SPOIL_DEVNAME_NO_NUL,
	SPOIL_NO_NAME,
};

static struct nl_msg *build(uint8_t cmd, enum spoil spoil)
{
	struct nl_msg *msg = nlmsg_alloc();

	ck_assert_ptr_nonnull(genlmsg_put(msg, 0, 0, 0x42, 0, 0, cmd, UAEVENTS_GENL_VERSION));
	if (spoil == SPOIL_SHORT_U64)
		nla_put_u32(msg, UAEVENTS_ATTR_SEQ, 7);
	else if (spoil != SPOIL_NO_SEQ)
		nla_put_u64(msg, UAEVENTS_ATTR_SEQ, 7);
	nla_put_u64(msg, UAEVENTS_ATTR_INSTANCE, 0xabcdef);
	nla_put_u64(msg, UAEVENTS_ATTR_TIMESTAMP_NS, 1234567890);
	nla_put_u8(msg, UAEVENTS_ATTR_KIND, UAEVENTS_KIND_UA);
	nla_put_u32(msg, UAEVENTS_ATTR_HOST, 2);
	nla_put_u32(msg, UAEVENTS_ATTR_CHANNEL, 0);
	nla_put_u32(msg, UAEVENTS_ATTR_TARGET, 1);
	nla_put_u64(msg, UAEVENTS_ATTR_LUN, 3);
	if (spoil == SPOIL_DEVNAME_SLASH)
		nla_put_string(msg, UAEVENTS_ATTR_DEVNAME, "../sdb");
	else if (spoil == SPOIL_DEVNAME_NO_NUL)
		nla_put(msg, UAEVENTS_ATTR_DEVNAME, 3, "sdb");
	else
		nla_put_string(msg, UAEVENTS_ATTR_DEVNAME, "sdb");
	nla_put(msg, UAEVENTS_ATTR_SENSE, sizeof(sense_capacity), sense_capacity);
	nla_put_u8(msg, UAEVENTS_ATTR_SENSE_KEY, 6);
	nla_put_u8(msg, UAEVENTS_ATTR_ASC, 0x2a);
	nla_put_u8(msg, UAEVENTS_ATTR_ASCQ, 0x09);
	if (spoil != SPOIL_NO_NAME)
		nla_put_string(msg, UAEVENTS_ATTR_EVENT, "CAPACITY_DATA_HAS_CHANGED");
	nla_put_u8(msg, UAEVENTS_ATTR_CATEGORY, 2);
	return msg;
}

static int parse(struct nl_msg *msg, struct uae_event **ev)
{
	int r = uae_event_from_nlmsg(nlmsg_hdr(msg), ev);

	nlmsg_free(msg);
	return r;
}

START_TEST(valid_event)
{
	struct uae_event *ev;
	const uint8_t *sense;
	size_t len;

	ck_assert_int_eq(parse(build(UAEVENTS_CMD_EVENT, SPOIL_NONE), &ev), 0);
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(uae_event_get_seq(ev), 7);
	ck_assert_uint_eq(uae_event_get_instance(ev), 0xabcdef);
	ck_assert_uint_eq(uae_event_get_timestamp_ns(ev), 1234567890);
	ck_assert_int_eq(uae_event_get_kind(ev), UAE_EVENT_UA);
	ck_assert_str_eq(uae_event_get_hctl(ev), "2:0:1:3");
	ck_assert_str_eq(uae_event_get_devname(ev), "sdb");
	ck_assert_int_eq(uae_event_get_asc(ev), 0x2a);
	ck_assert_int_eq(uae_event_get_ascq(ev), 0x09);
	ck_assert_str_eq(uae_event_get_name(ev), "CAPACITY_DATA_HAS_CHANGED");
	ck_assert_str_eq(uae_event_get_category(ev), "parameters");
	ck_assert_str_eq(uae_event_get_description(ev), "CAPACITY DATA HAS CHANGED");
	ck_assert_str_eq(uae_event_get_sense_key_name(ev), "UNIT ATTENTION");
	sense = uae_event_get_sense(ev, &len);
	ck_assert_uint_eq(len, sizeof(sense_capacity));
	ck_assert_mem_eq(sense, sense_capacity, len);

	/* References: the second unref frees. */
	ck_assert_ptr_eq(uae_event_ref(ev), ev);
	ck_assert_ptr_null(uae_event_unref(ev));
	ck_assert_ptr_null(uae_event_unref(ev));
}
END_TEST

/* Getters take NULL (an event a caller failed to get) and a NULL length. */
START_TEST(getters_take_null)
{
	struct uae_event *ev;
	uint64_t lba = 7;
	size_t len = 99;

	ck_assert_ptr_null(uae_event_get_sense(NULL, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert_ptr_null(uae_event_get_sense(NULL, NULL));
	ck_assert_ptr_null(uae_event_get_hctl(NULL));
	ck_assert_ptr_null(uae_event_get_name(NULL));
	ck_assert_ptr_null(uae_event_get_kind_name(NULL));
	ck_assert_ptr_null(uae_event_get_category(NULL));
	ck_assert_ptr_null(uae_event_get_description(NULL));
	ck_assert_uint_eq(uae_event_get_seq(NULL), 0);
	ck_assert_int_eq(uae_event_get_kind(NULL), 0);
	ck_assert_int_eq(uae_event_get_lba(NULL, &lba, NULL), 0);
	ck_assert_int_lt(uae_event_get_req_op(NULL), 0);
	ck_assert_int_eq(parse(build(UAEVENTS_CMD_EVENT, SPOIL_NONE), &ev), 0);
	ck_assert_ptr_nonnull(uae_event_get_sense(ev, NULL));
	uae_event_unref(ev);
}
END_TEST

START_TEST(name_filled_by_shared_decoder)
{
	struct uae_event *ev;

	ck_assert_int_eq(parse(build(UAEVENTS_CMD_EVENT, SPOIL_NO_NAME), &ev), 0);
	ck_assert_str_eq(uae_event_get_name(ev), "CAPACITY_DATA_HAS_CHANGED");
	uae_event_unref(ev);
}
END_TEST

START_TEST(unknown_command_is_skipped)
{
	struct uae_event *ev = (struct uae_event *)1;

	ck_assert_int_eq(parse(build(UAEVENTS_CMD_MAX + 5, SPOIL_NONE), &ev), 0);
	ck_assert_ptr_null(ev);
}
END_TEST

START_TEST(bogus_messages_refused)
{
	static const enum spoil spoils[] = {
		SPOIL_NO_SEQ, SPOIL_SHORT_U64, SPOIL_DEVNAME_SLASH, SPOIL_DEVNAME_NO_NUL,
	};
	struct uae_event *ev;

	for (size_t i = 0; i < sizeof(spoils) / sizeof(spoils[0]); i++) {
		ck_assert_int_eq(parse(build(UAEVENTS_CMD_EVENT, spoils[i]), &ev), -EBADMSG);
		ck_assert_ptr_null(ev);
	}
}
END_TEST

/* A header that claims more than the message holds, and one too short for genetlink. */
START_TEST(truncated_headers_refused)
{
	struct nl_msg *msg = build(UAEVENTS_CMD_EVENT, SPOIL_NONE);
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct uae_event *ev;
	unsigned char raw[NLMSG_HDRLEN + 2];

	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	memcpy(raw, nlh, sizeof(raw));
	nlmsg_free(msg);
	ck_assert_int_eq(uae_event_from_nlmsg((struct nlmsghdr *)raw, &ev), -EBADMSG);
}
END_TEST

/* An error event as the module builds it: no sense data, a host byte, a classification. */
static struct nl_msg *build_error(const char *wwid, size_t wwid_len)
{
	struct nl_msg *msg = nlmsg_alloc();

	ck_assert_ptr_nonnull(genlmsg_put(msg, 0, 0, 0x42, 0, 0, UAEVENTS_CMD_EVENT, 1));
	nla_put_u64(msg, UAEVENTS_ATTR_SEQ, 9);
	nla_put_u64(msg, UAEVENTS_ATTR_INSTANCE, 1);
	nla_put_u8(msg, UAEVENTS_ATTR_KIND, UAEVENTS_KIND_ERROR);
	nla_put_u32(msg, UAEVENTS_ATTR_HOST, 0);
	nla_put_u32(msg, UAEVENTS_ATTR_CHANNEL, 0);
	nla_put_u32(msg, UAEVENTS_ATTR_TARGET, 0);
	nla_put_u64(msg, UAEVENTS_ATTR_LUN, 0);
	nla_put_u32(msg, UAEVENTS_ATTR_FLAGS, UAEVENTS_FLAG_INJECTED);
	nla_put_u32(msg, UAEVENTS_ATTR_REPEAT, 5);
	nla_put_string(msg, UAEVENTS_ATTR_EVENT, "DID_TRANSPORT_FAILFAST");
	nla_put(msg, UAEVENTS_ATTR_WWID, wwid_len, wwid);
	nla_put_u8(msg, UAEVENTS_ATTR_OPCODE, 0x28);
	nla_put_u8(msg, UAEVENTS_ATTR_HOST_BYTE, 0x0f);
	nla_put_u8(msg, UAEVENTS_ATTR_STATUS, 0);
	nla_put_u64(msg, UAEVENTS_ATTR_LBA, 4660);
	nla_put_u32(msg, UAEVENTS_ATTR_SECTORS, 8);
	nla_put_u32(msg, UAEVENTS_ATTR_ERRNO, 67);
	nla_put_u8(msg, UAEVENTS_ATTR_SEVERITY, 2);
	nla_put_u8(msg, UAEVENTS_ATTR_LOCUS, 2);
	nla_put_u8(msg, UAEVENTS_ATTR_FAILOVER, 1);
	nla_put_u16(msg, UAEVENTS_ATTR_CLASS_RULE, 15);
	nla_put_u8(msg, UAEVENTS_ATTR_BLK_STATUS, 2);
	return msg;
}

START_TEST(error_event)
{
	static const char wwid[] = "t10.Linux   scsi_debug      2000";
	struct uae_event *ev;
	uint64_t lba;
	uint32_t sectors;

	ck_assert_int_eq(parse(build_error(wwid, sizeof(wwid)), &ev), 0);
	ck_assert_int_eq(uae_event_get_kind(ev), UAE_EVENT_ERROR);
	ck_assert_str_eq(uae_event_get_kind_name(ev), "error");
	ck_assert_uint_eq(uae_event_get_repeat(ev), 5);
	ck_assert_uint_eq(uae_event_get_flags(ev), UAE_EVENT_FLAG_INJECTED);
	ck_assert_str_eq(uae_event_get_wwid(ev), wwid);
	ck_assert_ptr_null(uae_event_get_serial(ev));
	ck_assert(!uae_event_has_sense(ev));
	ck_assert_ptr_null(uae_event_get_description(ev));
	ck_assert_int_eq(uae_event_get_host_byte(ev), 0x0f);
	ck_assert(uae_event_get_lba(ev, &lba, &sectors));
	ck_assert_uint_eq(lba, 4660);
	ck_assert_uint_eq(sectors, 8);
	ck_assert_int_eq(uae_event_get_errno(ev), 67);
	ck_assert_str_eq(uae_event_get_severity(ev), "fatal");
	ck_assert_str_eq(uae_event_get_locus(ev), "transport");
	ck_assert(uae_event_get_failover(ev));
	ck_assert_str_eq(uae_event_get_blk_status(ev), "TRANSPORT");
	ck_assert_uint_eq(uae_event_get_class_rule(ev), 15);
	ck_assert_str_eq(uae_event_get_category(ev), "none");
	uae_event_unref(ev);
}
END_TEST

/*
 * An NVMe asynchronous event as the module builds it: transport NVMe, a controller, the
 * result, no SCSI address.  @transport, @kind and @with_result spoil it.
 */
static struct nl_msg *build_aen(int transport, uint8_t kind, bool with_result, const char *ctrl)
{
	struct nl_msg *msg = nlmsg_alloc();

	ck_assert_ptr_nonnull(genlmsg_put(msg, 0, 0, 0x42, 0, 0, UAEVENTS_CMD_EVENT,
					  UAEVENTS_GENL_VERSION));
	nla_put_u64(msg, UAEVENTS_ATTR_SEQ, 9);
	nla_put_u64(msg, UAEVENTS_ATTR_GROUP_SEQ, 1);
	nla_put_u64(msg, UAEVENTS_ATTR_INSTANCE, 0xabcdef);
	nla_put_u8(msg, UAEVENTS_ATTR_KIND, kind);
	nla_put_u32(msg, UAEVENTS_ATTR_REPEAT, 1);
	if (transport >= 0)
		nla_put_u8(msg, UAEVENTS_ATTR_TRANSPORT, transport);
	if (ctrl)
		nla_put_string(msg, UAEVENTS_ATTR_NVME_CTRL, ctrl);
	if (with_result)
		nla_put_u32(msg, UAEVENTS_ATTR_NVME_AEN_RESULT, 0x0c0302);
	return msg;
}

START_TEST(aen_event)
{
	struct uae_event *ev;

	ck_assert_int_eq(parse(build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_AEN, true, "nvme3"),
			       &ev), 0);
	ck_assert_int_eq(uae_event_get_kind(ev), UAE_EVENT_AEN);
	ck_assert_str_eq(uae_event_get_kind_name(ev), "aen");
	ck_assert_str_eq(uae_event_get_transport(ev), "nvme");
	ck_assert_str_eq(uae_event_get_nvme_controller(ev), "nvme3");
	ck_assert_uint_eq(uae_event_get_aen_result(ev), 0x0c0302);
	ck_assert_str_eq(uae_event_get_aen_class(ev), "notice");
	/* A module that names nothing: the shared decoder does. */
	ck_assert_str_eq(uae_event_get_name(ev), "NVME_ANA_CHANGE");
	ck_assert_str_eq(uae_event_get_hctl(ev), "");
	ck_assert_ptr_null(uae_event_get_devname(ev));
	uae_event_unref(ev);

	/* The controller may be unknown (the module could not tell it): still an event. */
	ck_assert_int_eq(parse(build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_AEN, true, NULL),
			       &ev), 0);
	ck_assert_ptr_null(uae_event_get_nvme_controller(ev));
	uae_event_unref(ev);

	/* A SCSI event is "scsi"; it has no asynchronous event class. */
	ck_assert_int_eq(parse(build(UAEVENTS_CMD_EVENT, SPOIL_NONE), &ev), 0);
	ck_assert_str_eq(uae_event_get_transport(ev), "scsi");
	ck_assert_ptr_null(uae_event_get_aen_class(ev));
	ck_assert_ptr_null(uae_event_get_nvme_controller(ev));
	uae_event_unref(ev);
	ck_assert_ptr_null(uae_event_get_transport(NULL));
	ck_assert_ptr_null(uae_event_get_aen_class(NULL));
	ck_assert_uint_eq(uae_event_get_aen_result(NULL), 0);
}
END_TEST

/* A failed NVMe request: its status, named by the module, classified; no SCSI address. */
START_TEST(nvme_error_event)
{
	struct nl_msg *msg = build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_ERROR, false, "nvme1");
	struct uae_event *ev;

	nla_put_string(msg, UAEVENTS_ATTR_DEVNAME, "nvme1c1n2");
	nla_put_string(msg, UAEVENTS_ATTR_EVENT, "INTERNAL_ERROR");
	nla_put_u8(msg, UAEVENTS_ATTR_OPCODE, 2);
	nla_put_u16(msg, UAEVENTS_ATTR_NVME_STATUS, 0x4006);
	nla_put_u8(msg, UAEVENTS_ATTR_SEVERITY, UAE_SEV_FATAL);
	nla_put_u16(msg, UAEVENTS_ATTR_CLASS_RULE, 3);
	ck_assert_int_eq(parse(msg, &ev), 0);
	ck_assert_int_eq(uae_event_get_kind(ev), UAE_EVENT_ERROR);
	ck_assert_str_eq(uae_event_get_transport(ev), "nvme");
	ck_assert_str_eq(uae_event_get_nvme_controller(ev), "nvme1");
	ck_assert_str_eq(uae_event_get_devname(ev), "nvme1c1n2");
	ck_assert_int_eq(uae_event_get_nvme_status(ev), 0x4006);
	ck_assert_str_eq(uae_event_get_severity(ev), "fatal");
	ck_assert_ptr_null(uae_event_get_aen_class(ev));
	uae_event_unref(ev);
	/* Without a status (the module could not read it): -ENODATA, never 0. */
	ck_assert_int_eq(parse(build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_ERROR, false,
					 "nvme1"), &ev), 0);
	ck_assert_int_eq(uae_event_get_nvme_status(ev), -ENODATA);
	uae_event_unref(ev);
	ck_assert_int_eq(uae_event_get_nvme_status(NULL), -EINVAL);
}
END_TEST

/* An ANA group's state through a controller; without its group or state, refused. */
START_TEST(ana_event)
{
	struct nl_msg *msg = build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_ANA, false, "nvme4");
	struct uae_event *ev = NULL;

	nla_put_u32(msg, UAEVENTS_ATTR_NVME_ANA_GROUP, 7);
	nla_put_u8(msg, UAEVENTS_ATTR_NVME_ANA_STATE, 3);
	ck_assert_int_eq(parse(msg, &ev), 0);
	ck_assert_int_eq(uae_event_get_kind(ev), UAE_EVENT_ANA);
	ck_assert_str_eq(uae_event_get_kind_name(ev), "ana");
	ck_assert_str_eq(uae_event_get_name(ev), "NVME_ANA_INACCESSIBLE");
	ck_assert_int_eq(uae_event_get_ana_group(ev), 7);
	ck_assert_str_eq(uae_event_get_ana_state(ev), "inaccessible");
	ck_assert_int_eq(uae_event_get_aen_log_page(ev), -ENODATA);
	uae_event_unref(ev);
	msg = build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_ANA, false, "nvme4");
	nla_put_u32(msg, UAEVENTS_ATTR_NVME_ANA_GROUP, 7);
	ck_assert_int_eq(parse(msg, &ev), -EBADMSG);
	msg = build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_ANA, false, "nvme4");
	nla_put_u32(msg, UAEVENTS_ATTR_NVME_ANA_GROUP, 0x80000000u);
	nla_put_u8(msg, UAEVENTS_ATTR_NVME_ANA_STATE, 1);
	ck_assert_int_eq(parse(msg, &ev), -EBADMSG);
	ck_assert_int_eq(uae_event_get_ana_group(NULL), -EINVAL);
	ck_assert_ptr_null(uae_event_get_ana_state(NULL));
}
END_TEST

/* A changed namespace list: @n IDs 1..@n carried, @listed as the log listed them. */
static struct nl_msg *build_nsids(unsigned int n, int bytes, int64_t listed)
{
	struct nl_msg *msg = build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_AEN, true, "nvme5");
	uint32_t ids[UAEVENTS_NSIDS_MAX + 1];

	for (unsigned int i = 0; i < n; i++)
		ids[i] = i + 1;
	nla_put_string(msg, UAEVENTS_ATTR_EVENT, "NVME_CHANGED_NAMESPACE_LIST");
	if (bytes >= 0)
		nla_put(msg, UAEVENTS_ATTR_NVME_NSIDS, bytes, ids);
	if (listed >= 0)
		nla_put_u32(msg, UAEVENTS_ATTR_NVME_NSIDS_LISTED, (uint32_t)listed);
	return msg;
}

START_TEST(nsid_list)
{
	const uint32_t *nsids;
	unsigned int count = 99;
	struct uae_event *ev;

	ck_assert_int_eq(parse(build_nsids(2, 8, 2), &ev), 0);
	ck_assert_str_eq(uae_event_get_name(ev), "NVME_CHANGED_NAMESPACE_LIST");
	ck_assert_int_eq(uae_event_get_nvme_nsids(ev, &nsids, &count), 2);
	ck_assert_uint_eq(count, 2);
	ck_assert_uint_eq(nsids[0], 1);
	ck_assert_uint_eq(nsids[1], 2);
	uae_event_unref(ev);
	/* The log listed more than the event carries: the first ones, and how many. */
	ck_assert_int_eq(parse(build_nsids(UAEVENTS_NSIDS_MAX, UAEVENTS_NSIDS_MAX * 4, 1000), &ev),
			 0);
	ck_assert_int_eq(uae_event_get_nvme_nsids(ev, &nsids, &count), 1000);
	ck_assert_uint_eq(count, UAE_NVME_NSIDS_MAX);
	ck_assert_uint_eq(nsids[UAEVENTS_NSIDS_MAX - 1], UAEVENTS_NSIDS_MAX);
	uae_event_unref(ev);
	/* More changed than the log can list. */
	ck_assert_int_eq(parse(build_nsids(0, 0, UAEVENTS_NSIDS_OVERFLOW), &ev), 0);
	ck_assert_int_eq(uae_event_get_nvme_nsids(ev, &nsids, &count), -EOVERFLOW);
	ck_assert_uint_eq(count, 0);
	uae_event_unref(ev);
	/* An event without a list. */
	ck_assert_int_eq(parse(build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_AEN, true, "nvme3"),
			       &ev), 0);
	ck_assert_int_eq(uae_event_get_nvme_nsids(ev, &nsids, &count), -ENODATA);
	ck_assert_uint_eq(count, 0);
	uae_event_unref(ev);
	ck_assert_int_eq(uae_event_get_nvme_nsids(NULL, &nsids, &count), -EINVAL);
}
END_TEST

/* Lists that do not add up are refused. */
START_TEST(bogus_nsid_list_refused)
{
	struct uae_event *ev = NULL;

	/* Half an ID; more IDs than an event carries; IDs without a count, a count alone. */
	ck_assert_int_eq(parse(build_nsids(2, 6, 2), &ev), -EBADMSG);
	ck_assert_int_eq(parse(build_nsids(UAEVENTS_NSIDS_MAX + 1, (UAEVENTS_NSIDS_MAX + 1) * 4,
					   UAEVENTS_NSIDS_MAX + 1), &ev), -EBADMSG);
	ck_assert_int_eq(parse(build_nsids(2, 8, -1), &ev), -EBADMSG);
	ck_assert_int_eq(parse(build_nsids(0, -1, 2), &ev), -EBADMSG);
	/* Fewer listed than carried; more carried than listed but not all; beyond a log. */
	ck_assert_int_eq(parse(build_nsids(3, 12, 2), &ev), -EBADMSG);
	ck_assert_int_eq(parse(build_nsids(3, 12, 5), &ev), -EBADMSG);
	ck_assert_int_eq(parse(build_nsids(UAEVENTS_NSIDS_MAX, UAEVENTS_NSIDS_MAX * 4, 1025), &ev),
			 -EBADMSG);
	/* "More than the log holds" with IDs. */
	ck_assert_int_eq(parse(build_nsids(1, 4, UAEVENTS_NSIDS_OVERFLOW), &ev), -EBADMSG);
	/* A list on any other event: an NVMe error, an ANA state, a SCSI event. */
	{
		uint32_t ids[1] = { 1 };
		struct nl_msg *msg[3] = {
			build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_ERROR, false, "nvme1"),
			build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_ANA, false, "nvme1"),
			build(UAEVENTS_CMD_EVENT, SPOIL_NONE),
		};

		nla_put_u32(msg[1], UAEVENTS_ATTR_NVME_ANA_GROUP, 1);
		nla_put_u8(msg[1], UAEVENTS_ATTR_NVME_ANA_STATE, 1);
		for (int i = 0; i < 3; i++) {
			nla_put(msg[i], UAEVENTS_ATTR_NVME_NSIDS, sizeof(ids), ids);
			nla_put_u32(msg[i], UAEVENTS_ATTR_NVME_NSIDS_LISTED, 1);
			ck_assert_int_eq(parse(msg[i], &ev), -EBADMSG);
		}
	}
	/* IDs without a count on an event of another kind: refused, not read. */
	{
		struct nl_msg *msg = build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_ERROR, false,
					       "nvme1");
		uint32_t ids[UAEVENTS_NSIDS_MAX * 4] = { 0 };

		nla_put(msg, UAEVENTS_ATTR_NVME_NSIDS, sizeof(ids), ids);
		ck_assert_int_eq(parse(msg, &ev), -EBADMSG);
	}
	ck_assert_ptr_null(ev);
}
END_TEST

START_TEST(bogus_aen_refused)
{
	struct uae_event *ev = NULL;

	/* No result; as SCSI's (no transport: SCSI, which has an address); an unknown transport. */
	ck_assert_int_eq(parse(build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_AEN, false, "nvme0"),
			       &ev), -EBADMSG);
	ck_assert_int_eq(parse(build_aen(-1, UAEVENTS_KIND_AEN, true, "nvme0"), &ev), -EBADMSG);
	ck_assert_int_eq(parse(build_aen(UAEVENTS_TRANSPORT_SCSI, UAEVENTS_KIND_AEN, true, "nvme0"),
			       &ev), -EBADMSG);
	ck_assert_int_eq(parse(build_aen(7, UAEVENTS_KIND_AEN, true, "nvme0"), &ev), -EBADMSG);
	/* A SCSI error without its address; a kind beyond the known ones; a hostile name. */
	ck_assert_int_eq(parse(build_aen(-1, UAEVENTS_KIND_ERROR, true, NULL), &ev), -EBADMSG);
	ck_assert_int_eq(parse(build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_ANA + 1, true,
					 "nvme0"), &ev), -EBADMSG);
	/* NVMe has no unit attention, timeout or SG_IO event. */
	ck_assert_int_eq(parse(build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_UA, true, "nvme0"),
			       &ev), -EBADMSG);
	ck_assert_int_eq(parse(build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_SGIO, true, "nvme0"),
			       &ev), -EBADMSG);
	ck_assert_int_eq(parse(build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_AEN, true,
					 "../nvme0"), &ev), -EBADMSG);
	ck_assert_ptr_null(ev);
}
END_TEST

/* Device-supplied strings with control characters are refused, never passed on. */
START_TEST(hostile_strings_refused)
{
	static const char shell[] = "naa.5000 $(rm -rf /);";
	char raw[] = "naa.5000\nx";
	struct uae_event *ev;

	raw[8] = '\n';
	ck_assert_int_eq(parse(build_error(raw, sizeof(raw)), &ev), -EBADMSG);
	raw[8] = '\x1b';
	ck_assert_int_eq(parse(build_error(raw, sizeof(raw)), &ev), -EBADMSG);
	/* Printable, if hostile: passed on as data, for consumers never to give to a shell. */
	ck_assert_int_eq(parse(build_error(shell, sizeof(shell)), &ev), 0);
	ck_assert_str_eq(uae_event_get_wwid(ev), shell);
	uae_event_unref(ev);
}
END_TEST

START_TEST(filters)
{
	struct uae_filter f = { 0 };
	struct uae_event *ua, *err, *aen;

	ck_assert_int_eq(parse(build(UAEVENTS_CMD_EVENT, SPOIL_NONE), &ua), 0);
	ck_assert_int_eq(parse(build_error("naa.1", 6), &err), 0);
	/* No filter: everything. */
	ck_assert(uae_filter_matches(&f, ua) && uae_filter_matches(&f, err));
	ck_assert(uae_filter_wants_kind(&f, "sgio"));
	/* Alternatives of one key. */
	ck_assert_int_eq(uae_filter_add(&f, "kind", "ua"), 0);
	ck_assert(uae_filter_matches(&f, ua) && !uae_filter_matches(&f, err));
	ck_assert(!uae_filter_wants_kind(&f, "error"));
	ck_assert_int_eq(uae_filter_add(&f, "kind", "error"), 0);
	ck_assert(uae_filter_matches(&f, ua) && uae_filter_matches(&f, err));
	/* And another key: both must match. */
	ck_assert_int_eq(uae_filter_add(&f, "failover", "yes"), 0);
	ck_assert(!uae_filter_matches(&f, ua));	/* a UA here carries no classification */
	ck_assert(uae_filter_matches(&f, err));
	uae_filter_clear(&f);
	ck_assert_int_eq(uae_filter_add(&f, "device", "sdb"), 0);
	ck_assert_int_eq(uae_filter_add(&f, "hctl", "2:0:1:3"), 0);
	ck_assert_int_eq(uae_filter_add(&f, "category", "parameters"), 0);
	ck_assert(uae_filter_matches(&f, ua));
	ck_assert_int_eq(uae_filter_add(&f, "wwid", "naa.1"), 0);
	ck_assert(!uae_filter_matches(&f, ua));
	ck_assert_int_eq(uae_filter_add(&f, "nosuchkey", "x"), -EINVAL);
	ck_assert_int_eq(uae_filter_add(&f, "kind", ""), -EINVAL);
	uae_filter_clear(&f);
	/* NVMe's: by transport and controller; a SCSI event has no controller. */
	ck_assert_int_eq(parse(build_aen(UAEVENTS_TRANSPORT_NVME, UAEVENTS_KIND_AEN, true, "nvme2"),
			       &aen), 0);
	ck_assert_int_eq(uae_filter_add(&f, "transport", "nvme"), 0);
	ck_assert(uae_filter_matches(&f, aen) && !uae_filter_matches(&f, ua));
	ck_assert_int_eq(uae_filter_add(&f, "controller", "nvme2"), 0);
	ck_assert(uae_filter_matches(&f, aen));
	uae_filter_clear(&f);
	ck_assert_int_eq(uae_filter_add(&f, "controller", "nvme1"), 0);
	ck_assert(!uae_filter_matches(&f, aen) && !uae_filter_matches(&f, ua));
	uae_filter_clear(&f);
	uae_event_unref(aen);
	uae_event_unref(ua);
	uae_event_unref(err);
}
END_TEST

/* The structs' size fields: checked before anything is sent to a kernel. */
START_TEST(struct_sizes_checked)
{
	struct uae_kernel_stats st = { 0 };
	struct {
		struct uae_inject in;
		uint32_t newer;		/* a field of a later version, set */
	} newer = { .in = { .size = sizeof(newer), .host_byte = -1, .status = -1 }, .newer = 1 };
	struct uae_inject in = { .size = 8 };

	ck_assert_int_eq(uae_kernel_stats(&st), -EINVAL);
	st.size = offsetof(struct uae_kernel_stats, coalesce_ms);
	ck_assert_int_eq(uae_kernel_stats(&st), -EINVAL);
	ck_assert_int_eq(uae_inject(&in), -EINVAL);
	ck_assert_int_eq(uae_inject(&newer.in), -E2BIG);
}
END_TEST

/*
 * The stock kernel's uevent as libudev hands it over: from this process's environment,
 * as a udev RUN program would see it (only DEVPATH's last part, the sysname, is read).
 * libudev makes one device from the environment per process (a second call fails with
 * EINVAL): each case is a loop test, in a process of its own (Check's fork mode).
 */
static struct uae_event *from_uevent(const char *subsystem, const char *devpath,
				     const char *key, const char *value)
{
	struct udev *udev = udev_new();
	struct udev_device *dev;
	struct uae_event *ev;

	ck_assert_ptr_nonnull(udev);
	setenv("ACTION", "change", 1);
	setenv("SEQNUM", "4242", 1);
	setenv("SUBSYSTEM", subsystem, 1);
	setenv("DEVPATH", devpath, 1);
	setenv(key, value, 1);
	dev = udev_device_new_from_environment(udev);
	ck_assert_msg(dev, "libudev made no device of %s %s %s=%s", subsystem, devpath, key,
		      value);
	ev = uae_event_from_udev(dev);
	udev_device_unref(dev);
	udev_unref(udev);
	return ev;
}

#define CTLS "/devices/virtual/nvme-fabrics/ctl/"
#define CTL CTLS "nvme3"
#define SDEV "/devices/virtual/uae-test/2:0:1:7"

/*
 * Without the module: an NVMe controller's NVME_AEN= (nvme_aen_uevent()) is an AEN event
 * as the module's is, a scsi_device's SDEV_UA= a UA; anything else none.
 */
static const struct {
	const char *subsystem, *devpath, *key, *value;
	const char *name;	/* NULL: no event */
	uint32_t aen_result;
} stock_cases[] = {
	{ "nvme", CTL, "NVME_AEN", "0x020201", "NVME_SPARE_BELOW_THRESHOLD", 0x020201 },
	/* A discovery log change, the one notice the driver sends on. */
	{ "nvme", CTL, "NVME_AEN", "0x70f002", "NVME_DISCOVERY_LOG_CHANGE", 0x70f002 },
	{ "scsi", SDEV, "SDEV_UA", "CAPACITY_DATA_HAS_CHANGED", "CAPACITY_DATA_HAS_CHANGED", 0 },
	{ "nvme", CTL, "NVME_AEN", "0x", NULL, 0 },
	{ "nvme", CTL, "NVME_AEN", "0x0", NULL, 0 },
	{ "nvme", CTL, "NVME_AEN", "020201", NULL, 0 },
	{ "nvme", CTL, "NVME_AEN", "0x02g201", NULL, 0 },
	{ "nvme", CTL, "NVME_AEN", "0x1ffffffff", NULL, 0 },
	{ "nvme", CTL, "NVME_AEN", " 0x020201", NULL, 0 },
	{ "nvme", CTL, "NVME_AEN", "0x-20201", NULL, 0 },
	{ "nvme", CTL, "NVME_AEN", "0x020201 ", NULL, 0 },
	{ "nvme", "/devices/virtual/misc/nvme-fabrics", "NVME_AEN", "0x020201", NULL, 0 },
	{ "nvme", CTL "n1", "NVME_AEN", "0x020201", NULL, 0 },
	{ "nvme", CTLS "nvme", "NVME_AEN", "0x020201", NULL, 0 },
	{ "nvme", CTLS "nvme3;reboot", "NVME_AEN", "0x020201", NULL, 0 },
	{ "nvme", CTLS "nvme-1", "NVME_AEN", "0x020201", NULL, 0 },
	{ "nvme", CTLS "nvme+3", "NVME_AEN", "0x020201", NULL, 0 },
	{ "nvme", CTLS "nvme03", "NVME_AEN", "0x020201", NULL, 0 },
	{ "nvme", CTLS "nvme12345678901", "NVME_AEN", "0x020201", NULL, 0 },
	{ "nvme", CTL, "NVME_AEN", "0x0x020201", NULL, 0 },
	{ "nvme", CTL, "NVME_AEN", "0x+20201", NULL, 0 },
	/* A controller's other change uevents; SDEV_UA= on one; NVME_AEN= on a scsi_device. */
	{ "nvme", CTL, "NVME_EVENT", "connected", NULL, 0 },
	{ "nvme", CTL, "SDEV_UA", "CAPACITY_DATA_HAS_CHANGED", NULL, 0 },
	{ "scsi", SDEV, "NVME_AEN", "0x020201", NULL, 0 },
	{ "scsi", SDEV, "SDEV_UA", "NO_SUCH_EVENT", NULL, 0 },
};

START_TEST(stock_uevent)
{
	struct uae_event *ev = from_uevent(stock_cases[_i].subsystem, stock_cases[_i].devpath,
					   stock_cases[_i].key, stock_cases[_i].value);
	bool nvme = !strcmp(stock_cases[_i].subsystem, "nvme");

	if (!stock_cases[_i].name) {
		ck_assert_msg(!ev, "%s %s %s=%s made an event (%s)", stock_cases[_i].subsystem,
			      stock_cases[_i].devpath, stock_cases[_i].key, stock_cases[_i].value,
			      uae_event_get_name(ev));
		return;
	}
	ck_assert_ptr_nonnull(ev);
	ck_assert_str_eq(uae_event_get_name(ev), stock_cases[_i].name);
	ck_assert_uint_eq(uae_event_get_flags(ev), UAE_EVENT_FLAG_STOCK);
	ck_assert_uint_eq(uae_event_get_seq(ev), 0);
	ck_assert_ptr_null(uae_event_get_devname(ev));
	if (nvme) {
		ck_assert_int_eq(uae_event_get_kind(ev), UAE_EVENT_AEN);
		ck_assert_str_eq(uae_event_get_transport(ev), "nvme");
		ck_assert_str_eq(uae_event_get_nvme_controller(ev), "nvme3");
		ck_assert_uint_eq(uae_event_get_aen_result(ev), stock_cases[_i].aen_result);
		ck_assert_int_eq(uae_event_get_aen_log_page(ev),
				 (stock_cases[_i].aen_result >> 16) & 0xff);
		ck_assert_str_eq(uae_event_get_hctl(ev), "");
	} else {
		ck_assert_int_eq(uae_event_get_kind(ev), UAE_EVENT_UA);
		ck_assert_str_eq(uae_event_get_transport(ev), "scsi");
		ck_assert_str_eq(uae_event_get_hctl(ev), "2:0:1:7");
		ck_assert_ptr_null(uae_event_get_nvme_controller(ev));
	}
	uae_event_unref(ev);
}
END_TEST

START_TEST(errors_have_messages)
{
	ck_assert_str_eq(uae_strerror(-ENOENT), "uaevents kernel module not loaded");
	ck_assert_str_eq(uae_strerror(-EPERM), "permission denied (needs CAP_SYS_ADMIN)");
	ck_assert_str_eq(uae_strerror(-EIO), strerror(EIO));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("event");
	TCase *tc = tcase_create("parse");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, valid_event);
	tcase_add_test(tc, getters_take_null);
	tcase_add_test(tc, name_filled_by_shared_decoder);
	tcase_add_test(tc, unknown_command_is_skipped);
	tcase_add_test(tc, bogus_messages_refused);
	tcase_add_test(tc, truncated_headers_refused);
	tcase_add_test(tc, error_event);
	tcase_add_test(tc, aen_event);
	tcase_add_test(tc, nvme_error_event);
	tcase_add_test(tc, ana_event);
	tcase_add_test(tc, bogus_aen_refused);
	tcase_add_test(tc, nsid_list);
	tcase_add_test(tc, bogus_nsid_list_refused);
	tcase_add_test(tc, hostile_strings_refused);
	tcase_add_test(tc, filters);
	tcase_add_loop_test(tc, stock_uevent, 0, sizeof(stock_cases) / sizeof(stock_cases[0]));
	tcase_add_test(tc, errors_have_messages);
	tcase_add_test(tc, struct_sizes_checked);
	suite_add_tcase(s, tc);

	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
