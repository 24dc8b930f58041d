// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the shared sense decoder and classifier, compiled into the kernel as the
 * module compiles it (with T10's descriptions, which the module leaves out), and checked
 * against the kernel's own definitions: the DID_* and SAM status values, and
 * blk_path_error(); and of the NVMe status decoder beside it, against the NVME_SC_* codes
 * and what the NVMe driver makes of them.
 */
#include <kunit/test.h>
#include <linux/blk_types.h>
#include <linux/log2.h>
#include <linux/nvme.h>
#include <scsi/scsi_proto.h>
#include <scsi/scsi_status.h>

#include "uae_sense.c"
#include "uae_nvme.c"

static void fixed_sense(u8 *b, u8 key, u8 asc, u8 ascq)
{
	memset(b, 0, 18);
	b[0] = 0x70;
	b[2] = key;
	b[7] = 10;
	b[12] = asc;
	b[13] = ascq;
}

static void uae_kunit_fixed_ua(struct kunit *test)
{
	struct uae_sense s;
	u8 b[18];

	fixed_sense(b, UAE_SENSE_KEY_UNIT_ATTENTION, 0x2a, 0x09);
	KUNIT_EXPECT_EQ(test, uae_sense_decode(b, sizeof(b), &s), UAE_SENSE_OK);
	KUNIT_EXPECT_EQ(test, s.sense_key, 6);
	KUNIT_EXPECT_EQ(test, s.asc, 0x2a);
	KUNIT_EXPECT_EQ(test, s.ascq, 0x09);
	KUNIT_EXPECT_STREQ(test, uae_ua_event_name(s.asc, s.ascq), "CAPACITY_DATA_HAS_CHANGED");
	KUNIT_EXPECT_EQ(test, uae_ua_category(s.asc, s.ascq), UAE_CAT_PARAMETERS);
}

static void uae_kunit_descriptor(struct kunit *test)
{
	static const u8 b[] = {
		0x72, 0x03, 0x11, 0x00, 0, 0, 0, 16,
		0x00, 0x0a, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34,
		0x03, 0x02, 0, 0x07,
	};
	struct uae_sense s;

	KUNIT_EXPECT_EQ(test, uae_sense_decode(b, sizeof(b), &s), UAE_SENSE_OK);
	KUNIT_EXPECT_TRUE(test, s.descriptor);
	KUNIT_EXPECT_TRUE(test, s.info_valid);
	KUNIT_EXPECT_EQ(test, s.information, 0x1234ULL);
	KUNIT_EXPECT_TRUE(test, s.fru_valid);
	KUNIT_EXPECT_EQ(test, s.fru, 7);
	KUNIT_EXPECT_EQ(test, s.descriptors, 2);
}

/* Every truncation decodes from a buffer of exactly that size (KASAN would see overruns). */
static void uae_kunit_truncated(struct kunit *test)
{
	static const u8 b[] = {
		0x72, 0x05, 0x20, 0x00, 0, 0, 0, 8, 0x02, 0x06, 0, 0, 0xc0, 0x00, 0x01, 0,
	};
	struct uae_sense s;
	size_t len;

	for (len = 0; len <= sizeof(b); len++) {
		u8 *copy = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, copy);
		memcpy(copy, b, len);
		uae_sense_decode(copy, len, &s);
		if (len < sizeof(b))
			KUNIT_EXPECT_NE(test, s.status, UAE_SENSE_OK);
		else
			KUNIT_EXPECT_EQ(test, s.status, UAE_SENSE_OK);
	}
}

static void uae_kunit_overrun(struct kunit *test)
{
	static const u8 b[] = {
		0x72, 0x05, 0x24, 0x00, 0, 0, 0, 8, 0x03, 0x02, 0, 0x07, 0x00, 0x0a, 0x80, 0,
	};
	struct uae_sense s;

	KUNIT_EXPECT_EQ(test, uae_sense_decode(b, sizeof(b), &s), UAE_SENSE_PARTIAL);
	KUNIT_EXPECT_TRUE(test, s.fru_valid);
	KUNIT_EXPECT_FALSE(test, s.info_valid);
}

/* The names of the kernel's own SDEV_UA= uevents (scsi_lib.c: scsi_evt_emit()). */
static void uae_kunit_sdev_ua_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, uae_ua_event_name(0x3f, 0x03), "INQUIRY_DATA_HAS_CHANGED");
	KUNIT_EXPECT_STREQ(test, uae_ua_event_name(0x2a, 0x09), "CAPACITY_DATA_HAS_CHANGED");
	KUNIT_EXPECT_STREQ(test, uae_ua_event_name(0x38, 0x07),
			   "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED");
	KUNIT_EXPECT_STREQ(test, uae_ua_event_name(0x2a, 0x01), "MODE_PARAMETERS_CHANGED");
	KUNIT_EXPECT_STREQ(test, uae_ua_event_name(0x3f, 0x0e), "REPORTED_LUNS_DATA_HAS_CHANGED");
	KUNIT_EXPECT_STREQ(test, uae_ua_event_name(0x2a, 0x06), "ASYMMETRIC_ACCESS_STATE_CHANGED");
	KUNIT_EXPECT_STREQ(test, uae_ua_event_name(0x29, 0x02), "POWER_ON_RESET_OCCURRED");
}

/* The generator's numeric tables agree with the kernel's enums. */
static void uae_kunit_kernel_codes(struct kunit *test)
{
	static const struct {
		u8 value;
		const char *name;
	} hosts[] = {
		{ DID_OK, "DID_OK" }, { DID_NO_CONNECT, "DID_NO_CONNECT" },
		{ DID_BUS_BUSY, "DID_BUS_BUSY" }, { DID_TIME_OUT, "DID_TIME_OUT" },
		{ DID_BAD_TARGET, "DID_BAD_TARGET" }, { DID_ABORT, "DID_ABORT" },
		{ DID_PARITY, "DID_PARITY" }, { DID_ERROR, "DID_ERROR" },
		{ DID_RESET, "DID_RESET" }, { DID_BAD_INTR, "DID_BAD_INTR" },
		{ DID_PASSTHROUGH, "DID_PASSTHROUGH" }, { DID_SOFT_ERROR, "DID_SOFT_ERROR" },
		{ DID_IMM_RETRY, "DID_IMM_RETRY" }, { DID_REQUEUE, "DID_REQUEUE" },
		{ DID_TRANSPORT_DISRUPTED, "DID_TRANSPORT_DISRUPTED" },
		{ DID_TRANSPORT_FAILFAST, "DID_TRANSPORT_FAILFAST" },
		{ DID_TRANSPORT_MARGINAL, "DID_TRANSPORT_MARGINAL" },
	}, statuses[] = {
		{ SAM_STAT_GOOD, "GOOD" }, { SAM_STAT_CHECK_CONDITION, "CHECK_CONDITION" },
		{ SAM_STAT_CONDITION_MET, "CONDITION_MET" }, { SAM_STAT_BUSY, "BUSY" },
		{ SAM_STAT_INTERMEDIATE, "INTERMEDIATE" },
		{ SAM_STAT_INTERMEDIATE_CONDITION_MET, "INTERMEDIATE_CONDITION_MET" },
		{ SAM_STAT_RESERVATION_CONFLICT, "RESERVATION_CONFLICT" },
		{ SAM_STAT_COMMAND_TERMINATED, "COMMAND_TERMINATED" },
		{ SAM_STAT_TASK_SET_FULL, "TASK_SET_FULL" },
		{ SAM_STAT_ACA_ACTIVE, "ACA_ACTIVE" },
		{ SAM_STAT_TASK_ABORTED, "TASK_ABORTED" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hosts); i++)
		KUNIT_EXPECT_STREQ(test, uae_host_byte_name(hosts[i].value), hosts[i].name);
	for (i = 0; i < ARRAY_SIZE(statuses); i++)
		KUNIT_EXPECT_STREQ(test, uae_status_name(statuses[i].value), statuses[i].name);
	KUNIT_EXPECT_EQ(test, UAE_DID_PASSTHROUGH, DID_PASSTHROUGH);
	KUNIT_EXPECT_EQ(test, UAE_SAM_STAT_CHECK_CONDITION, SAM_STAT_CHECK_CONDITION);
}

#ifdef BLK_STS_RESV_CONFLICT
#define UAE_KUNIT_BLK_RESV_CONFLICT BLK_STS_RESV_CONFLICT
#else
#define UAE_KUNIT_BLK_RESV_CONFLICT BLK_STS_NEXUS
#endif

/* uae_blk_status_is_path_error() is the kernel's own blk_path_error(). */
static void uae_kunit_path_error(struct kunit *test)
{
	static const struct {
		enum uae_blk_status uae;
		blk_status_t blk;
	} map[] = {
		{ UAE_BLK_NOTSUPP, BLK_STS_NOTSUPP },
		{ UAE_BLK_ZONE_ACTIVE_RESOURCE, BLK_STS_ZONE_ACTIVE_RESOURCE },
		{ UAE_BLK_OK, BLK_STS_OK },
		{ UAE_BLK_IOERR, BLK_STS_IOERR },
		{ UAE_BLK_TRANSPORT, BLK_STS_TRANSPORT },
		{ UAE_BLK_TARGET, BLK_STS_TARGET },
		{ UAE_BLK_RESV_CONFLICT, UAE_KUNIT_BLK_RESV_CONFLICT },
		{ UAE_BLK_NOSPC, BLK_STS_NOSPC },
		{ UAE_BLK_MEDIUM, BLK_STS_MEDIUM },
		{ UAE_BLK_PROTECTION, BLK_STS_PROTECTION },
		{ UAE_BLK_ZONE_OPEN_RESOURCE, BLK_STS_ZONE_OPEN_RESOURCE },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		/* BLK_STS_OK is no error at all; blk_path_error() is only asked of errors. */
		if (map[i].uae == UAE_BLK_OK)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, uae_blk_status_is_path_error(map[i].uae),
				    blk_path_error(map[i].blk), "blk_status %s",
				    uae_blk_status_name(map[i].uae));
	}
}

/* Rows the issue names, and the consistency of every row with blk_path_error(). */
static void uae_kunit_classify(struct kunit *test)
{
	struct uae_sense s;
	struct uae_class cl;
	unsigned int h, st;
	u8 b[18];

	uae_classify(DID_TRANSPORT_FAILFAST, SAM_STAT_GOOD, NULL, &cl);
	KUNIT_EXPECT_EQ(test, cl.blk_status, UAE_BLK_TRANSPORT);
	KUNIT_EXPECT_EQ(test, cl.locus, UAE_LOCUS_TRANSPORT);
	KUNIT_EXPECT_TRUE(test, cl.failover);
	uae_classify(DID_TRANSPORT_MARGINAL, SAM_STAT_GOOD, NULL, &cl);
	KUNIT_EXPECT_EQ(test, cl.blk_status, UAE_BLK_TRANSPORT);

	fixed_sense(b, UAE_SENSE_KEY_DATA_PROTECT, 0x27, 0x07);
	uae_sense_decode(b, sizeof(b), &s);
	uae_classify(DID_OK, SAM_STAT_CHECK_CONDITION, &s, &cl);
	KUNIT_EXPECT_EQ(test, cl.blk_status, UAE_BLK_NOSPC);
	KUNIT_EXPECT_FALSE(test, cl.failover);

	fixed_sense(b, UAE_SENSE_KEY_MEDIUM_ERROR, 0x14, 0x01);
	uae_sense_decode(b, sizeof(b), &s);
	uae_classify(DID_OK, SAM_STAT_CHECK_CONDITION, &s, &cl);
	KUNIT_EXPECT_EQ(test, cl.blk_status, UAE_BLK_MEDIUM);
	KUNIT_EXPECT_EQ(test, cl.severity, UAE_SEV_FATAL);

	fixed_sense(b, UAE_SENSE_KEY_NOT_READY, 0x04, 0x0a);
	uae_sense_decode(b, sizeof(b), &s);
	uae_classify(DID_OK, SAM_STAT_CHECK_CONDITION, &s, &cl);
	KUNIT_EXPECT_EQ(test, cl.severity, UAE_SEV_RETRYABLE);
	KUNIT_EXPECT_TRUE(test, cl.failover);

	for (h = 0; h < 256; h++) {
		for (st = 0; st < 256; st++) {
			uae_classify(h, st, &s, &cl);
			KUNIT_ASSERT_EQ(test, cl.differs,
					cl.failover != uae_blk_status_is_path_error(cl.blk_status));
		}
	}
}

/* The kernel's value of each enum uae_blk_status. */
static blk_status_t uae_kunit_blk(enum uae_blk_status blk)
{
	switch (blk) {
	case UAE_BLK_OK:
		return BLK_STS_OK;
	case UAE_BLK_TRANSPORT:
		return BLK_STS_TRANSPORT;
	case UAE_BLK_TARGET:
		return BLK_STS_TARGET;
	case UAE_BLK_RESV_CONFLICT:
		return UAE_KUNIT_BLK_RESV_CONFLICT;
	case UAE_BLK_NOSPC:
		return BLK_STS_NOSPC;
	case UAE_BLK_MEDIUM:
		return BLK_STS_MEDIUM;
	case UAE_BLK_PROTECTION:
		return BLK_STS_PROTECTION;
	case UAE_BLK_ZONE_OPEN_RESOURCE:
		return BLK_STS_ZONE_OPEN_RESOURCE;
	case UAE_BLK_NOTSUPP:
		return BLK_STS_NOTSUPP;
	case UAE_BLK_ZONE_ACTIVE_RESOURCE:
		return BLK_STS_ZONE_ACTIVE_RESOURCE;
	default:
		return BLK_STS_IOERR;
	}
}

/*
 * drivers/nvme/host/core.c's nvme_error_status() of this tree (static there), as the
 * oracle: the table must give the block status the NVMe driver gives, for every code.
 * tests/checkpatch.sh holds this copy to the source's (183h by value: 6.12 renamed it).
 */
static blk_status_t uae_kunit_nvme_error_status(u16 status)
{
	switch (status & 0x7ff) {
	case NVME_SC_SUCCESS:
		return BLK_STS_OK;
	case NVME_SC_CAP_EXCEEDED:
		return BLK_STS_NOSPC;
	case NVME_SC_LBA_RANGE:
	case NVME_SC_CMD_INTERRUPTED:
	case NVME_SC_NS_NOT_READY:
		return BLK_STS_TARGET;
	case NVME_SC_BAD_ATTRIBUTES:
	case 0x183:
	case NVME_SC_INVALID_OPCODE:
	case NVME_SC_INVALID_FIELD:
	case NVME_SC_INVALID_NS:
		return BLK_STS_NOTSUPP;
	case NVME_SC_WRITE_FAULT:
	case NVME_SC_READ_ERROR:
	case NVME_SC_UNWRITTEN_BLOCK:
	case NVME_SC_ACCESS_DENIED:
	case NVME_SC_READ_ONLY:
	case NVME_SC_COMPARE_FAILED:
		return BLK_STS_MEDIUM;
	case NVME_SC_GUARD_CHECK:
	case NVME_SC_APPTAG_CHECK:
	case NVME_SC_REFTAG_CHECK:
	case NVME_SC_INVALID_PI:
		return BLK_STS_PROTECTION;
	case NVME_SC_RESERVATION_CONFLICT:
		return UAE_KUNIT_BLK_RESV_CONFLICT;
	case NVME_SC_HOST_PATH_ERROR:
		return BLK_STS_TRANSPORT;
	case NVME_SC_ZONE_TOO_MANY_ACTIVE:
		return BLK_STS_ZONE_ACTIVE_RESOURCE;
	case NVME_SC_ZONE_TOO_MANY_OPEN:
		return BLK_STS_ZONE_OPEN_RESOURCE;
	default:
		return BLK_STS_IOERR;
	}
}

/* The names of sense/data/nvme-status.txt are at the kernel's values. */
static void uae_kunit_nvme_codes(struct kunit *test)
{
	static const struct {
		u16 code;
		const char *name;
	} codes[] = {
		{ NVME_SC_SUCCESS, "SUCCESSFUL_COMPLETION" },
		{ NVME_SC_INVALID_OPCODE, "INVALID_COMMAND_OPCODE" },
		{ NVME_SC_INVALID_FIELD, "INVALID_FIELD_IN_COMMAND" },
		{ NVME_SC_CMDID_CONFLICT, "COMMAND_ID_CONFLICT" },
		{ NVME_SC_DATA_XFER_ERROR, "DATA_TRANSFER_ERROR" },
		{ NVME_SC_POWER_LOSS, "COMMANDS_ABORTED_DUE_TO_POWER_LOSS_NOTIFICATION" },
		{ NVME_SC_INTERNAL, "INTERNAL_ERROR" },
		{ NVME_SC_ABORT_REQ, "COMMAND_ABORT_REQUESTED" },
		{ NVME_SC_ABORT_QUEUE, "COMMAND_ABORTED_DUE_TO_SQ_DELETION" },
		{ NVME_SC_FUSED_FAIL, "COMMAND_ABORTED_DUE_TO_FAILED_FUSED_COMMAND" },
		{ NVME_SC_FUSED_MISSING, "COMMAND_ABORTED_DUE_TO_MISSING_FUSED_COMMAND" },
		{ NVME_SC_INVALID_NS, "INVALID_NAMESPACE_OR_FORMAT" },
		{ NVME_SC_CMD_SEQ_ERROR, "COMMAND_SEQUENCE_ERROR" },
		{ NVME_SC_SGL_INVALID_LAST, "INVALID_SGL_SEGMENT_DESCRIPTOR" },
		{ NVME_SC_SGL_INVALID_COUNT, "INVALID_NUMBER_OF_SGL_DESCRIPTORS" },
		{ NVME_SC_SGL_INVALID_DATA, "DATA_SGL_LENGTH_INVALID" },
		{ NVME_SC_SGL_INVALID_METADATA, "METADATA_SGL_LENGTH_INVALID" },
		{ NVME_SC_SGL_INVALID_TYPE, "SGL_DESCRIPTOR_TYPE_INVALID" },
		{ NVME_SC_CMB_INVALID_USE, "INVALID_USE_OF_CONTROLLER_MEMORY_BUFFER" },
		{ NVME_SC_PRP_INVALID_OFFSET, "PRP_OFFSET_INVALID" },
		{ NVME_SC_ATOMIC_WU_EXCEEDED, "ATOMIC_WRITE_UNIT_EXCEEDED" },
		{ NVME_SC_OP_DENIED, "OPERATION_DENIED" },
		{ NVME_SC_SGL_INVALID_OFFSET, "SGL_OFFSET_INVALID" },
		{ NVME_SC_HOST_ID_INCONSIST, "HOST_IDENTIFIER_INCONSISTENT_FORMAT" },
		{ NVME_SC_KA_TIMEOUT_EXPIRED, "KEEP_ALIVE_TIMER_EXPIRED" },
		{ NVME_SC_KA_TIMEOUT_INVALID, "KEEP_ALIVE_TIMEOUT_INVALID" },
		{ NVME_SC_ABORTED_PREEMPT_ABORT, "COMMAND_ABORTED_DUE_TO_PREEMPT_AND_ABORT" },
		{ NVME_SC_SANITIZE_FAILED, "SANITIZE_FAILED" },
		{ NVME_SC_SANITIZE_IN_PROGRESS, "SANITIZE_IN_PROGRESS" },
		{ NVME_SC_SGL_INVALID_GRANULARITY, "SGL_DATA_BLOCK_GRANULARITY_INVALID" },
		{ NVME_SC_CMD_NOT_SUP_CMB_QUEUE, "COMMAND_NOT_SUPPORTED_FOR_QUEUE_IN_CMB" },
		{ NVME_SC_ADMIN_COMMAND_MEDIA_NOT_READY, "ADMIN_COMMAND_MEDIA_NOT_READY" },
		{ NVME_SC_NS_WRITE_PROTECTED, "NAMESPACE_IS_WRITE_PROTECTED" },
		{ NVME_SC_CMD_INTERRUPTED, "COMMAND_INTERRUPTED" },
		{ NVME_SC_TRANSIENT_TR_ERR, "TRANSIENT_TRANSPORT_ERROR" },
		{ NVME_SC_LBA_RANGE, "LBA_OUT_OF_RANGE" },
		{ NVME_SC_CAP_EXCEEDED, "CAPACITY_EXCEEDED" },
		{ NVME_SC_NS_NOT_READY, "NAMESPACE_NOT_READY" },
		{ NVME_SC_RESERVATION_CONFLICT, "RESERVATION_CONFLICT" },
		{ NVME_SC_FORMAT_IN_PROGRESS, "FORMAT_IN_PROGRESS" },
		{ NVME_SC_BAD_ATTRIBUTES, "CONFLICTING_ATTRIBUTES" },
		{ NVME_SC_INVALID_PI, "INVALID_PROTECTION_INFORMATION" },
		{ NVME_SC_READ_ONLY, "ATTEMPTED_WRITE_TO_READ_ONLY_RANGE" },
		{ 0x183, "COMMAND_SIZE_LIMIT_EXCEEDED" },
		{ NVME_SC_AUTH_REQUIRED, "AUTHENTICATION_REQUIRED" },
		{ NVME_SC_ZONE_BOUNDARY_ERROR, "ZONED_BOUNDARY_ERROR" },
		{ NVME_SC_ZONE_FULL, "ZONE_IS_FULL" },
		{ NVME_SC_ZONE_READ_ONLY, "ZONE_IS_READ_ONLY" },
		{ NVME_SC_ZONE_OFFLINE, "ZONE_IS_OFFLINE" },
		{ NVME_SC_ZONE_INVALID_WRITE, "ZONE_INVALID_WRITE" },
		{ NVME_SC_ZONE_TOO_MANY_ACTIVE, "TOO_MANY_ACTIVE_ZONES" },
		{ NVME_SC_ZONE_TOO_MANY_OPEN, "TOO_MANY_OPEN_ZONES" },
		{ NVME_SC_ZONE_INVALID_TRANSITION, "INVALID_ZONE_STATE_TRANSITION" },
		{ NVME_SC_WRITE_FAULT, "WRITE_FAULT" },
		{ NVME_SC_READ_ERROR, "UNRECOVERED_READ_ERROR" },
		{ NVME_SC_GUARD_CHECK, "END_TO_END_GUARD_CHECK_ERROR" },
		{ NVME_SC_APPTAG_CHECK, "END_TO_END_APPLICATION_TAG_CHECK_ERROR" },
		{ NVME_SC_REFTAG_CHECK, "END_TO_END_REFERENCE_TAG_CHECK_ERROR" },
		{ NVME_SC_COMPARE_FAILED, "COMPARE_FAILURE" },
		{ NVME_SC_ACCESS_DENIED, "ACCESS_DENIED" },
		{ NVME_SC_UNWRITTEN_BLOCK, "DEALLOCATED_OR_UNWRITTEN_LOGICAL_BLOCK" },
		{ NVME_SC_INTERNAL_PATH_ERROR, "INTERNAL_PATH_ERROR" },
		{ NVME_SC_ANA_PERSISTENT_LOSS, "ASYMMETRIC_ACCESS_PERSISTENT_LOSS" },
		{ NVME_SC_ANA_INACCESSIBLE, "ASYMMETRIC_ACCESS_INACCESSIBLE" },
		{ NVME_SC_ANA_TRANSITION, "ASYMMETRIC_ACCESS_TRANSITION" },
		{ NVME_SC_CTRL_PATH_ERROR, "CONTROLLER_PATHING_ERROR" },
		{ NVME_SC_HOST_PATH_ERROR, "HOST_PATHING_ERROR" },
		{ NVME_SC_HOST_ABORTED_CMD, "COMMAND_ABORTED_BY_HOST" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(codes); i++)
		KUNIT_EXPECT_STREQ_MSG(test, uae_nvme_status_name(codes[i].code) ?: "(none)",
				       codes[i].name, "status %03xh", codes[i].code);
	KUNIT_EXPECT_EQ(test, UAE_NVME_DNR, NVME_STATUS_DNR);
	KUNIT_EXPECT_EQ(test, UAE_NVME_MORE, NVME_STATUS_MORE);
	KUNIT_EXPECT_EQ(test, UAE_NVME_CRD(NVME_STATUS_CRD), 3);
}

/*
 * For every status code: the block status of nvme_error_status(), and "failover: yes"
 * wherever the native multipath fails over (nvme_is_path_error(): SCT 3); with DNR, no
 * retryable class.
 */
static void uae_kunit_nvme_classify(struct kunit *test)
{
	struct uae_class cl;
	u16 code;

	for (code = 0; code < 0x800; code++) {
		uae_nvme_classify(code, &cl);
		KUNIT_EXPECT_EQ_MSG(test, uae_kunit_blk(cl.blk_status),
				    uae_kunit_nvme_error_status(code), "status %03xh", code);
		if ((code & 0x700) == 0x300)
			KUNIT_EXPECT_TRUE_MSG(test, cl.failover, "status %03xh", code);
		KUNIT_EXPECT_EQ_MSG(test, cl.differs,
				    cl.failover != uae_blk_status_is_path_error(cl.blk_status),
				    "status %03xh", code);
		uae_nvme_classify(code | NVME_STATUS_DNR, &cl);
		KUNIT_EXPECT_NE_MSG(test, cl.severity, UAE_SEV_RETRYABLE, "status %03xh", code);
	}
}

/* An asynchronous event's result: type in bits 2:0, information in 15:8, log page 23:16. */
static u32 uae_kunit_aen(u8 type, u8 info, u8 log)
{
	return type | info << 8 | log << 16;
}

/* Each event Linux gives a constant is named at that constant's value. */
static void uae_kunit_nvme_aens(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, uae_nvme_aen_name(uae_kunit_aen(NVME_AER_NOTICE,
			   NVME_AER_NOTICE_NS_CHANGED, NVME_LOG_CHANGED_NS)),
			   "NVME_NAMESPACE_ATTRIBUTE_CHANGED");
	KUNIT_EXPECT_STREQ(test, uae_nvme_aen_name(uae_kunit_aen(NVME_AER_NOTICE,
			   NVME_AER_NOTICE_FW_ACT_STARTING, NVME_LOG_FW_SLOT)),
			   "NVME_FIRMWARE_ACTIVATION_STARTING");
	KUNIT_EXPECT_STREQ(test, uae_nvme_aen_name(uae_kunit_aen(NVME_AER_NOTICE,
			   NVME_AER_NOTICE_ANA, NVME_LOG_ANA)), "NVME_ANA_CHANGE");
	KUNIT_EXPECT_STREQ(test, uae_nvme_aen_name(uae_kunit_aen(NVME_AER_NOTICE,
			   NVME_AER_NOTICE_DISC_CHANGED, NVME_LOG_DISC)),
			   "NVME_DISCOVERY_LOG_CHANGE");
	KUNIT_EXPECT_STREQ(test, uae_nvme_aen_name(uae_kunit_aen(NVME_AER_ERROR,
			   NVME_AER_ERROR_PERSIST_INT_ERR, NVME_LOG_ERROR)),
			   "NVME_PERSISTENT_INTERNAL_ERROR");
	KUNIT_EXPECT_STREQ(test, uae_nvme_aen_class(uae_kunit_aen(NVME_AER_SMART, 0, NVME_LOG_SMART)),
			   "smart");
	KUNIT_EXPECT_STREQ(test, uae_nvme_aen_class(uae_kunit_aen(NVME_AER_CSS, 0, 0)),
			   "io_command_set");
	KUNIT_EXPECT_STREQ(test, uae_nvme_aen_class(uae_kunit_aen(NVME_AER_VS, 0, 0)), "vendor");
	/* ANA states at Linux's values, spelled as its sysfs ana_state spells them. */
	KUNIT_EXPECT_STREQ(test, uae_nvme_ana_state_name(NVME_ANA_OPTIMIZED), "optimized");
	KUNIT_EXPECT_STREQ(test, uae_nvme_ana_state_name(NVME_ANA_NONOPTIMIZED), "non-optimized");
	KUNIT_EXPECT_STREQ(test, uae_nvme_ana_state_name(NVME_ANA_INACCESSIBLE), "inaccessible");
	KUNIT_EXPECT_STREQ(test, uae_nvme_ana_state_name(NVME_ANA_PERSISTENT_LOSS),
			   "persistent-loss");
	KUNIT_EXPECT_STREQ(test, uae_nvme_ana_state_name(NVME_ANA_CHANGE), "change");
	/* The SMART log's critical warning bits at Linux's values (ilog2 of each mask). */
	KUNIT_EXPECT_STREQ(test, uae_nvme_crit_warning_name(ilog2(NVME_SMART_CRIT_SPARE)),
			   "spare-below-threshold");
	KUNIT_EXPECT_STREQ(test, uae_nvme_crit_warning_name(ilog2(NVME_SMART_CRIT_TEMPERATURE)),
			   "temperature");
	KUNIT_EXPECT_STREQ(test, uae_nvme_crit_warning_name(ilog2(NVME_SMART_CRIT_RELIABILITY)),
			   "reliability-degraded");
	KUNIT_EXPECT_STREQ(test, uae_nvme_crit_warning_name(ilog2(NVME_SMART_CRIT_MEDIA)),
			   "read-only");
	KUNIT_EXPECT_STREQ(test,
			   uae_nvme_crit_warning_name(ilog2(NVME_SMART_CRIT_VOLATILE_MEMORY)),
			   "volatile-backup-failed");
}

static struct kunit_case uae_nvme_cases[] = {
	KUNIT_CASE(uae_kunit_nvme_codes),
	KUNIT_CASE(uae_kunit_nvme_classify),
	KUNIT_CASE(uae_kunit_nvme_aens),
	{}
};

static struct kunit_suite uae_nvme_suite = {
	.name = "uaevents-nvme",
	.test_cases = uae_nvme_cases,
};

static struct kunit_case uae_sense_cases[] = {
	KUNIT_CASE(uae_kunit_fixed_ua),
	KUNIT_CASE(uae_kunit_descriptor),
	KUNIT_CASE(uae_kunit_truncated),
	KUNIT_CASE(uae_kunit_overrun),
	KUNIT_CASE(uae_kunit_sdev_ua_names),
	KUNIT_CASE(uae_kunit_kernel_codes),
	KUNIT_CASE(uae_kunit_path_error),
	KUNIT_CASE(uae_kunit_classify),
	{}
};

static struct kunit_suite uae_sense_suite = {
	.name = "uaevents-sense",
	.test_cases = uae_sense_cases,
};
kunit_test_suites(&uae_sense_suite, &uae_nvme_suite);

MODULE_DESCRIPTION("KUnit tests for the uaevents sense and NVMe status decoders");
MODULE_LICENSE("GPL");
