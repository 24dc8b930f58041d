// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The shared sense decoder and classifier: both sense formats and every descriptor it
 * knows, malformed input, the T10 tables, UA names, and one case per classification rule.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "uae_sense.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Decode from an exact-size heap copy, so valgrind or ASan sees any overrun. */
static enum uae_sense_status decode(const uint8_t *buf, size_t len, struct uae_sense *s)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum uae_sense_status st;

	memcpy(copy, buf, len);
	st = uae_sense_decode(copy, len, s);
	free(copy);
	return st;
}

/* 18-byte fixed-format sense data. */
static void fixed(uint8_t *b, uint8_t key, uint8_t asc, uint8_t ascq)
{
	memset(b, 0, 18);
	b[0] = 0x70;
	b[2] = key;
	b[7] = 10;
	b[12] = asc;
	b[13] = ascq;
}

/* ---- fixed format ---- */

START_TEST(fixed_all_fields)
{
	uint8_t b[18];
	struct uae_sense s;

	fixed(b, 0x3, 0x11, 0x00);
	b[0] |= 0x80;				/* VALID */
	b[2] |= 0x20;				/* ILI */
	b[3] = 0x12, b[4] = 0x34, b[5] = 0x56, b[6] = 0x78;
	b[8] = 0xde, b[9] = 0xad, b[10] = 0xbe, b[11] = 0xef;
	b[14] = 0x42;				/* FRU */
	b[15] = 0x80, b[16] = 0x00, b[17] = 0x07; /* SKSV, retry count 7 */
	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_OK);
	ck_assert_int_eq(s.response_code, 0x70);
	ck_assert(!s.descriptor && !s.deferred);
	ck_assert_int_eq(s.sense_key, 3);
	ck_assert_int_eq(s.asc, 0x11);
	ck_assert(s.info_valid);
	ck_assert_uint_eq(s.information, 0x12345678);
	ck_assert(s.command_info_valid);
	ck_assert_uint_eq(s.command_info, 0xdeadbeef);
	ck_assert(s.fru_valid);
	ck_assert_int_eq(s.fru, 0x42);
	ck_assert(s.ili && !s.filemark && !s.eom);
	ck_assert(s.sks_valid);
	ck_assert_int_eq(s.sks.kind, UAE_SKS_RETRY_COUNT);
	ck_assert_int_eq(s.sks.retry_count, 7);
}
END_TEST

START_TEST(fixed_deferred_invalid_information)
{
	uint8_t b[18];
	struct uae_sense s;

	fixed(b, 0x6, 0x2a, 0x09);
	b[0] = 0x71;				/* deferred, VALID clear */
	b[3] = 0xff;
	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_OK);
	ck_assert(s.deferred);
	ck_assert(!s.info_valid);
	ck_assert(!s.fru_valid);
	ck_assert(!s.sks_valid);		/* SKSV clear */
}
END_TEST

/* The sense-key-specific field means something else for each sense key. */
START_TEST(fixed_sks_kinds)
{
	uint8_t b[18];
	struct uae_sense s;

	/* ILLEGAL REQUEST: field pointer into the CDB, bit 5 of byte 2. */
	fixed(b, 0x5, 0x24, 0x00);
	b[15] = 0x80 | 0x40 | 0x08 | 5, b[16] = 0x00, b[17] = 0x02;
	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_OK);
	ck_assert_int_eq(s.sks.kind, UAE_SKS_FIELD_POINTER);
	ck_assert(s.sks.command && s.sks.bit_pointer_valid);
	ck_assert_int_eq(s.sks.bit_pointer, 5);
	ck_assert_int_eq(s.sks.field_pointer, 2);

	/* NOT READY: progress indication, half way. */
	fixed(b, 0x2, 0x04, 0x04);
	b[15] = 0x80, b[16] = 0x80, b[17] = 0x00;
	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_OK);
	ck_assert_int_eq(s.sks.kind, UAE_SKS_PROGRESS);
	ck_assert_int_eq(s.sks.progress, 0x8000);

	/* COPY ABORTED: segment pointer into a segment descriptor. */
	fixed(b, 0xa, 0x0d, 0x00);
	b[15] = 0x80 | 0x20, b[16] = 0x01, b[17] = 0x10;
	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_OK);
	ck_assert_int_eq(s.sks.kind, UAE_SKS_SEGMENT_POINTER);
	ck_assert(s.sks.segment_descriptor && !s.sks.bit_pointer_valid);
	ck_assert_int_eq(s.sks.field_pointer, 0x110);

	/* UNIT ATTENTION: the condition queue overflowed. */
	fixed(b, 0x6, 0x29, 0x00);
	b[15] = 0x81;
	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_OK);
	ck_assert_int_eq(s.sks.kind, UAE_SKS_UA_OVERFLOW);
	ck_assert(s.sks.overflow);

	/* A key without a defined meaning: raw bytes only. */
	fixed(b, 0x7, 0x27, 0x00);
	b[15] = 0x80, b[16] = 0xab, b[17] = 0xcd;
	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_OK);
	ck_assert_int_eq(s.sks.kind, UAE_SKS_OTHER);
	ck_assert_int_eq(s.sks.raw[2], 0xcd);
}
END_TEST

START_TEST(fixed_stream_bits)
{
	uint8_t b[18];
	struct uae_sense s;

	fixed(b, 0x0, 0x00, 0x01);
	b[2] |= 0xc0;				/* FILEMARK, EOM */
	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_OK);
	ck_assert(s.filemark && s.eom && !s.ili);
}
END_TEST

/* Every truncation of a valid buffer decodes without reading past it. */
START_TEST(fixed_truncated)
{
	uint8_t b[18];
	struct uae_sense s;

	fixed(b, 0x6, 0x2a, 0x09);
	for (size_t len = 0; len < sizeof(b); len++) {
		enum uae_sense_status st = decode(b, len, &s);

		ck_assert_int_eq(st, len < 3 ? UAE_SENSE_INVALID : UAE_SENSE_PARTIAL);
		if (len > 13)
			ck_assert_int_eq(s.ascq, 0x09);
	}
}
END_TEST

START_TEST(fixed_additional_length_lies)
{
	uint8_t b[18];
	struct uae_sense s;

	/* Claims 2 bytes only: ASC/ASCQ lie beyond what the device says it sent. */
	fixed(b, 0x6, 0x2a, 0x09);
	b[7] = 2;
	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_PARTIAL);
	ck_assert_int_eq(s.asc, 0);
	ck_assert(!s.command_info_valid);
	/* Claims more than the buffer holds: decoded from what is there, marked partial. */
	b[7] = 0xff;
	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_PARTIAL);
	ck_assert_int_eq(s.asc, 0x2a);
	/* A short but honest buffer (14 bytes, additional length 6) is complete. */
	b[7] = 6;
	ck_assert_int_eq(decode(b, 14, &s), UAE_SENSE_OK);
	ck_assert(!s.sks_valid && !s.fru_valid);
	ck_assert_uint_eq(uae_sense_length(b, sizeof(b)), 14);
}
END_TEST

START_TEST(invalid_response_codes)
{
	static const uint8_t bad[][4] = { { 0x00 }, { 0x7f }, { 0x74, 6, 0x2a, 9 }, { 0x6f } };
	struct uae_sense s;

	for (size_t i = 0; i < N_ELEMS(bad); i++)
		ck_assert_int_eq(decode(bad[i], sizeof(bad[i]), &s), UAE_SENSE_INVALID);
	ck_assert_int_eq(uae_sense_decode(NULL, 18, &s), UAE_SENSE_INVALID);
	/* Bit 7 (VALID in fixed format) does not change the response code. */
	ck_assert_int_eq(decode((const uint8_t[]){ 0xf2, 6, 0x3f, 0x0e, 0, 0, 0, 0 }, 8, &s),
			 UAE_SENSE_OK);
	ck_assert_int_eq(s.response_code, 0x72);
}
END_TEST

/* ---- descriptor format ---- */

START_TEST(descriptor_header_only)
{
	static const uint8_t b[8] = { 0x73, 0x06, 0x3f, 0x0e, 0, 0, 0, 0 };
	struct uae_sense s;

	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_OK);
	ck_assert(s.descriptor && s.deferred);
	ck_assert_int_eq(s.sense_key, 6);
	ck_assert_int_eq(s.asc, 0x3f);
	ck_assert_int_eq(s.ascq, 0x0e);
	ck_assert_int_eq(s.descriptors, 0);
}
END_TEST

/* Every descriptor type the decoder knows, and one it does not, in one buffer. */
START_TEST(descriptor_all_types)
{
	static const uint8_t b[] = {
		0x72, 0x03, 0x11, 0x00, 0, 0, 0, 62,
		/* 00h information, VALID */
		0x00, 0x0a, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34,
		/* 01h command-specific */
		0x01, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x99,
		/* 02h sense-key-specific: retry count 3 */
		0x02, 0x06, 0, 0, 0x80, 0x00, 0x03, 0,
		/* 03h FRU */
		0x03, 0x02, 0, 0x07,
		/* 04h stream commands: FILEMARK */
		0x04, 0x02, 0, 0x80,
		/* 05h block commands: ILI */
		0x05, 0x02, 0, 0x20,
		/* 80h vendor specific: skipped by its length */
		0x80, 0x02, 0xaa, 0xbb,
		/* 09h ATA status return */
		0x09, 0x0c, 0x01, 0x04, 0x00, 0x10, 0x00, 0x44, 0x00, 0x55, 0x00, 0x66,
		0x40, 0x51,
	};
	struct uae_sense s;

	ck_assert_int_eq(sizeof(b), 8 + 62);
	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_OK);
	ck_assert_int_eq(s.descriptors, 8);
	ck_assert_int_eq(s.unknown_descriptors, 1);
	ck_assert(s.info_valid);
	ck_assert_uint_eq(s.information, 0x1234);
	ck_assert(s.command_info_valid);
	ck_assert_uint_eq(s.command_info, 0x99);
	ck_assert(s.sks_valid);
	ck_assert_int_eq(s.sks.kind, UAE_SKS_RETRY_COUNT);
	ck_assert_int_eq(s.sks.retry_count, 3);
	ck_assert(s.fru_valid);
	ck_assert_int_eq(s.fru, 7);
	ck_assert(s.filemark && s.ili && !s.eom);
	ck_assert(s.ata_valid);
	ck_assert(s.ata.extend);
	ck_assert_int_eq(s.ata.error, 0x04);
	ck_assert_int_eq(s.ata.count, 0x0010);
	ck_assert_uint_eq(s.ata.lba, 0x665544ULL);
	ck_assert_int_eq(s.ata.device, 0x40);
	ck_assert_int_eq(s.ata.status, 0x51);
}
END_TEST

START_TEST(descriptor_overrun)
{
	/* The second descriptor claims 10 bytes; 4 are there. */
	static const uint8_t b[] = {
		0x72, 0x05, 0x24, 0x00, 0, 0, 0, 10,
		0x03, 0x02, 0, 0x07,
		0x00, 0x0a, 0x80, 0,
		0, 0,
	};
	struct uae_sense s;

	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_PARTIAL);
	ck_assert_int_eq(s.asc, 0x24);
	ck_assert(s.fru_valid);
	ck_assert(!s.info_valid);
}
END_TEST

START_TEST(descriptor_too_short_for_type)
{
	/* An information descriptor with additional length 2 instead of 10. */
	static const uint8_t b[] = { 0x72, 0x03, 0x11, 0x00, 0, 0, 0, 4, 0x00, 0x02, 0x80, 0 };
	struct uae_sense s;

	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_PARTIAL);
	ck_assert(!s.info_valid);
	ck_assert_int_eq(s.descriptors, 1);
}
END_TEST

START_TEST(descriptor_truncated)
{
	static const uint8_t b[] = {
		0x72, 0x05, 0x20, 0x00, 0, 0, 0, 8, 0x02, 0x06, 0, 0, 0xc0, 0x00, 0x01, 0,
	};
	struct uae_sense s;

	for (size_t len = 0; len < sizeof(b); len++) {
		enum uae_sense_status st = decode(b, len, &s);

		if (len < 2)
			ck_assert_int_eq(st, UAE_SENSE_INVALID);
		else
			ck_assert_int_eq(st, UAE_SENSE_PARTIAL);
		ck_assert(!s.sks_valid);
	}
	ck_assert_int_eq(decode(b, sizeof(b), &s), UAE_SENSE_OK);
	ck_assert(s.sks_valid && s.sks.command);
	/* A lone byte after the last descriptor: a header that cannot fit. */
	{
		uint8_t c[17];

		memcpy(c, b, sizeof(b));
		c[7] = 9;
		c[16] = 0x00;
		ck_assert_int_eq(decode(c, sizeof(c), &s), UAE_SENSE_PARTIAL);
	}
}
END_TEST

/* ---- tables ---- */

START_TEST(asc_table)
{
	ck_assert_str_eq(uae_asc_description(0x2a, 0x09), "CAPACITY DATA HAS CHANGED");
	ck_assert_str_eq(uae_asc_ident(0x38, 0x07), "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED");
	ck_assert_str_eq(uae_asc_description(0x00, 0x00), "NO ADDITIONAL SENSE INFORMATION");
	ck_assert_str_eq(uae_asc_ident(0x74, 0x79), "SECURITY_CONFLICT_IN_TRANSLATED_DEVICE");
	ck_assert_int_eq(uae_asc_kind(0x2a, 0x09), UAE_ASC_ASSIGNED);
	/* Assigned after 2015 (sense/data/asc-additions.txt). */
	ck_assert_str_eq(uae_asc_description(0x04, 0x24), "DEPOPULATION IN PROGRESS");
	ck_assert_str_eq(uae_asc_ident(0x55, 0x0f), "INSUFFICIENT_ZONE_RESOURCES_TO_COMPLETE_WRITE");
	/* Reserved. */
	ck_assert_ptr_null(uae_asc_description(0x0f, 0x00));
	ck_assert_int_eq(uae_asc_kind(0x0f, 0x00), UAE_ASC_RESERVED);
	/* Ranged entries: 40h/NNh only from 80h. */
	ck_assert_str_eq(uae_asc_ident(0x40, 0x85), "DIAGNOSTIC_FAILURE_ON_COMPONENT_NN");
	ck_assert_int_eq(uae_asc_kind(0x40, 0x85), UAE_ASC_RANGED);
	ck_assert_str_eq(uae_asc_ident(0x40, 0x00), "RAM_FAILURE");
	ck_assert_ptr_null(uae_asc_ident(0x40, 0x10));
	ck_assert_str_eq(uae_asc_ident(0x4d, 0x42), "TAGGED_OVERLAPPED_COMMANDS");
	ck_assert_str_eq(uae_asc_ident(0x70, 0x01), "DECOMPRESSION_EXCEPTION_SHORT_ALGORITHM_ID_OF_NN");
	/* Vendor specific: ASC or ASCQ from 80h, where not assigned. */
	ck_assert_int_eq(uae_asc_kind(0x80, 0x00), UAE_ASC_VENDOR);
	ck_assert_int_eq(uae_asc_kind(0x04, 0x80), UAE_ASC_VENDOR);
	ck_assert_int_eq(uae_asc_kind(0xff, 0xff), UAE_ASC_VENDOR);
	ck_assert_ptr_null(uae_asc_description(0xc1, 0x01));
}
END_TEST

/* The names the stock kernel sends as SDEV_UA= must be ours too. */
START_TEST(ua_names_and_categories)
{
	static const struct {
		uint8_t asc, ascq;
		const char *name;
		enum uae_category cat;
	} cases[] = {
		{ 0x2a, 0x09, "CAPACITY_DATA_HAS_CHANGED", UAE_CAT_PARAMETERS },
		{ 0x3f, 0x0e, "REPORTED_LUNS_DATA_HAS_CHANGED", UAE_CAT_INVENTORY },
		{ 0x3f, 0x03, "INQUIRY_DATA_HAS_CHANGED", UAE_CAT_INVENTORY },
		{ 0x2a, 0x01, "MODE_PARAMETERS_CHANGED", UAE_CAT_PARAMETERS },
		{ 0x2a, 0x06, "ASYMMETRIC_ACCESS_STATE_CHANGED", UAE_CAT_PARAMETERS },
		{ 0x38, 0x07, "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED", UAE_CAT_SPACE },
		{ 0x29, 0x00, "POWER_ON_RESET_OCCURRED", UAE_CAT_RESET },
		{ 0x29, 0x07, "POWER_ON_RESET_OCCURRED", UAE_CAT_RESET },
		{ 0x3f, 0x01, "MICROCODE_HAS_BEEN_CHANGED", UAE_CAT_MICROCODE },
		{ 0x3f, 0x16, "MICROCODE_HAS_BEEN_CHANGED_WITHOUT_RESET", UAE_CAT_MICROCODE },
		{ 0x3f, 0x05, "DEVICE_IDENTIFIER_CHANGED", UAE_CAT_INVENTORY },
		{ 0x2a, 0x10, "TIMESTAMP_CHANGED", UAE_CAT_PARAMETERS },
		{ 0x2a, 0x03, "RESERVATIONS_PREEMPTED", UAE_CAT_PARAMETERS },
		{ 0x28, 0x00, "NOT_READY_TO_READY_CHANGE_MEDIUM_MAY_HAVE_CHANGED",
		  UAE_CAT_MEDIUM },
		{ 0x2f, 0x00, "COMMANDS_CLEARED_BY_ANOTHER_INITIATOR", UAE_CAT_OTHER },
		{ 0x3f, 0x1a, "SUBSIDIARY_BINDING_CHANGED", UAE_CAT_INVENTORY },
		{ 0xc0, 0x01, "VENDOR_SPECIFIC_UNIT_ATTENTION", UAE_CAT_OTHER },
		{ 0x0f, 0x00, "UNIT_ATTENTION", UAE_CAT_OTHER },
	};

	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		ck_assert_str_eq(uae_ua_event_name(cases[i].asc, cases[i].ascq), cases[i].name);
		ck_assert_int_eq(uae_ua_category(cases[i].asc, cases[i].ascq), cases[i].cat);
	}
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(uae_sense_key_name(6), "UNIT ATTENTION");
	ck_assert_str_eq(uae_sense_key_name(0xf), "COMPLETED");
	ck_assert_str_eq(uae_sense_key_name(0x10), "RESERVED");
	ck_assert_str_eq(uae_category_name(UAE_CAT_SPACE), "space");
	ck_assert_str_eq(uae_category_name((enum uae_category)99), "unknown");
	ck_assert_str_eq(uae_host_byte_name(0x0f), "DID_TRANSPORT_FAILFAST");
	ck_assert_str_eq(uae_host_byte_name(0x14), "DID_TRANSPORT_MARGINAL");
	ck_assert_ptr_null(uae_host_byte_name(0x11));
	ck_assert_ptr_null(uae_host_byte_name(0xff));
	ck_assert_str_eq(uae_status_name(0x02), "CHECK_CONDITION");
	ck_assert_str_eq(uae_status_name(0x18), "RESERVATION_CONFLICT");
	ck_assert_ptr_null(uae_status_name(0x03));
	ck_assert_str_eq(uae_severity_name(UAE_SEV_RETRYABLE), "retryable");
	ck_assert_str_eq(uae_locus_name(UAE_LOCUS_TRANSPORT), "transport");
	ck_assert_str_eq(uae_blk_status_name(UAE_BLK_NOSPC), "NOSPC");
	ck_assert_str_eq(uae_blk_status_name((enum uae_blk_status)77), "unknown");
}
END_TEST

/* ---- classification: one case per rule of docs/classification.md ---- */

enum { NOSENSE = -1, DEFERRED = -2 };

static const struct class_case {
	uint8_t host, status;
	int key;		/* sense key, or NOSENSE / DEFERRED */
	uint8_t asc, ascq;
	unsigned int rule;
	enum uae_severity sev;
	enum uae_locus locus;
	bool failover;
	enum uae_blk_status blk;
} class_cases[] = {
	{ 0x07, 0x18, NOSENSE, 0, 0, 1, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_RESV_CONFLICT },
	{ 0x01, 0x00, NOSENSE, 0, 0, 2, UAE_SEV_FATAL, UAE_LOCUS_TRANSPORT, true, UAE_BLK_IOERR },
	{ 0x02, 0x00, NOSENSE, 0, 0, 3, UAE_SEV_RETRYABLE, UAE_LOCUS_TRANSPORT, true, UAE_BLK_IOERR },
	{ 0x03, 0x00, NOSENSE, 0, 0, 4, UAE_SEV_RETRYABLE, UAE_LOCUS_TRANSPORT, true, UAE_BLK_IOERR },
	{ 0x04, 0x00, NOSENSE, 0, 0, 5, UAE_SEV_FATAL, UAE_LOCUS_TRANSPORT, true, UAE_BLK_IOERR },
	{ 0x05, 0x00, NOSENSE, 0, 0, 6, UAE_SEV_RETRYABLE, UAE_LOCUS_HOST, true, UAE_BLK_IOERR },
	{ 0x06, 0x00, NOSENSE, 0, 0, 7, UAE_SEV_RETRYABLE, UAE_LOCUS_TRANSPORT, true, UAE_BLK_IOERR },
	{ 0x07, 0x02, 0x3, 0x11, 0, 8, UAE_SEV_RETRYABLE, UAE_LOCUS_HOST, true, UAE_BLK_IOERR },
	{ 0x08, 0x00, NOSENSE, 0, 0, 9, UAE_SEV_RETRYABLE, UAE_LOCUS_TRANSPORT, true, UAE_BLK_IOERR },
	{ 0x09, 0x00, NOSENSE, 0, 0, 10, UAE_SEV_RETRYABLE, UAE_LOCUS_HOST, true, UAE_BLK_IOERR },
	{ 0x0b, 0x00, NOSENSE, 0, 0, 11, UAE_SEV_RETRYABLE, UAE_LOCUS_HOST, true, UAE_BLK_IOERR },
	{ 0x0c, 0x00, NOSENSE, 0, 0, 12, UAE_SEV_RETRYABLE, UAE_LOCUS_HOST, true, UAE_BLK_IOERR },
	{ 0x0d, 0x00, NOSENSE, 0, 0, 13, UAE_SEV_RETRYABLE, UAE_LOCUS_HOST, true, UAE_BLK_IOERR },
	{ 0x0e, 0x00, NOSENSE, 0, 0, 14, UAE_SEV_RETRYABLE, UAE_LOCUS_TRANSPORT, true, UAE_BLK_IOERR },
	{ 0x0f, 0x00, NOSENSE, 0, 0, 15, UAE_SEV_FATAL, UAE_LOCUS_TRANSPORT, true, UAE_BLK_TRANSPORT },
	{ 0x14, 0x00, NOSENSE, 0, 0, 16, UAE_SEV_FATAL, UAE_LOCUS_TRANSPORT, true, UAE_BLK_TRANSPORT },
	{ 0x00, 0x00, NOSENSE, 0, 0, 17, UAE_SEV_NONE, UAE_LOCUS_NONE, false, UAE_BLK_OK },
	{ 0x00, 0x08, NOSENSE, 0, 0, 18, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ 0x00, 0x28, NOSENSE, 0, 0, 19, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ 0x00, 0x18, NOSENSE, 0, 0, 20, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_RESV_CONFLICT },
	{ 0x00, 0x40, NOSENSE, 0, 0, 21, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ 0x00, 0x30, NOSENSE, 0, 0, 22, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ 0x00, 0x22, NOSENSE, 0, 0, 23, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ 0x00, 0x02, NOSENSE, 0, 0, 24, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ 0x00, 0x02, DEFERRED, 0x11, 0, 25, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x0, 0x00, 0, 26, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x1, 0x17, 0x01, 27, UAE_SEV_NONE, UAE_LOCUS_DEVICE, false, UAE_BLK_OK },
	{ 0x00, 0x02, 0x2, 0x04, 0x1b, 28, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x2, 0x04, 0x0a, 29, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x2, 0x04, 0x0b, 30, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x2, 0x04, 0x02, 31, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x2, 0x04, 0x24, 32, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x2, 0x3a, 0x01, 33, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x2, 0x04, 0x03, 34, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x3, 0x11, 0x00, 35, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_MEDIUM },
	{ 0x00, 0x02, 0x3, 0x0c, 0x00, 36, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x4, 0x44, 0x00, 37, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_TARGET },
	{ 0x00, 0x02, 0x5, 0x10, 0x01, 38, UAE_SEV_FATAL, UAE_LOCUS_HOST, false, UAE_BLK_PROTECTION },
	{ 0x00, 0x02, 0x5, 0x24, 0x00, 39, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_TARGET },
	{ 0x00, 0x02, 0x5, 0x25, 0x00, 40, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x5, 0x1a, 0x00, 41, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x6, 0x38, 0x07, 42, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x7, 0x27, 0x07, 43, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_NOSPC },
	{ 0x00, 0x02, 0x7, 0x0c, 0x12, 44, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_ZONE_OPEN_RESOURCE },
	{ 0x00, 0x02, 0x7, 0x55, 0x0e, 45, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_ZONE_OPEN_RESOURCE },
	{ 0x00, 0x02, 0x7, 0x27, 0x00, 46, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_TARGET },
	{ 0x00, 0x02, 0xe, 0x1d, 0x00, 47, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_TARGET },
	{ 0x00, 0x02, 0xb, 0x10, 0x01, 48, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_PROTECTION },
	{ 0x00, 0x02, 0xb, 0x4b, 0x07, 49, UAE_SEV_RETRYABLE, UAE_LOCUS_TRANSPORT, true, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0xb, 0x44, 0x00, 50, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ 0x00, 0x02, 0x9, 0x80, 0x00, 51, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ 0x00, 0x06, NOSENSE, 0, 0, 52, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ 0x12, 0x00, NOSENSE, 0, 0, 53, UAE_SEV_FATAL, UAE_LOCUS_HOST, true, UAE_BLK_IOERR },
};

static void classify_case(const struct class_case *c, struct uae_class *out)
{
	uint8_t b[18];
	struct uae_sense s;

	if (c->key == NOSENSE) {
		uae_classify(c->host, c->status, NULL, out);
		return;
	}
	fixed(b, c->key == DEFERRED ? 0x3 : (uint8_t)c->key, c->asc, c->ascq);
	if (c->key == DEFERRED)
		b[0] = 0x71;
	ck_assert_int_ne(uae_sense_decode(b, sizeof(b), &s), UAE_SENSE_INVALID);
	uae_classify(c->host, c->status, &s, out);
}

START_TEST(classification_rule)
{
	const struct class_case *c = &class_cases[_i];
	struct uae_class cl;

	classify_case(c, &cl);
	ck_assert_msg(cl.rule == c->rule, "case %d: rule %u, want %u", _i, cl.rule, c->rule);
	ck_assert_int_eq(cl.severity, c->sev);
	ck_assert_int_eq(cl.locus, c->locus);
	ck_assert_int_eq(cl.failover, c->failover);
	ck_assert_int_eq(cl.blk_status, c->blk);
	/* Every difference from the kernel's path-error rule is a documented one. */
	ck_assert_int_eq(cl.differs,
			 cl.failover != uae_blk_status_is_path_error(cl.blk_status));
}
END_TEST

START_TEST(classification_covers_every_rule)
{
	unsigned int n = uae_class_rule_count();
	bool *seen = calloc(n + 1, sizeof(*seen));

	ck_assert_uint_eq(N_ELEMS(class_cases), n);
	for (size_t i = 0; i < N_ELEMS(class_cases); i++)
		seen[class_cases[i].rule] = true;
	for (unsigned int r = 1; r <= n; r++)
		ck_assert_msg(seen[r], "no test case for rule %u", r);
	free(seen);
}
END_TEST

START_TEST(classification_edge_cases)
{
	struct uae_class cl;
	struct uae_sense s;
	uint8_t b[18];

	/* DID_PASSTHROUGH is classified as DID_OK. */
	uae_classify(0x0a, 0x00, NULL, &cl);
	ck_assert_int_eq(cl.rule, 17);
	/* Invalid sense data counts as none. */
	memset(b, 0, sizeof(b));
	uae_sense_decode(b, sizeof(b), &s);
	uae_classify(0x00, 0x02, &s, &cl);
	ck_assert_int_eq(cl.rule, 24);
	/* Sense data does not matter for a host byte error. */
	fixed(b, 0x3, 0x11, 0x00);
	uae_sense_decode(b, sizeof(b), &s);
	uae_classify(0x0f, 0x02, &s, &cl);
	ck_assert_int_eq(cl.rule, 15);
	/* Every host byte and status has some class. */
	for (unsigned int h = 0; h < 256; h++)
		for (unsigned int st = 0; st < 256; st += 2) {
			uae_classify((uint8_t)h, (uint8_t)st, NULL, &cl);
			ck_assert(cl.rule >= 1 && cl.rule <= uae_class_rule_count());
		}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sense");
	TCase *fixed_tc = tcase_create("fixed");
	TCase *desc_tc = tcase_create("descriptor");
	TCase *tables_tc = tcase_create("tables");
	TCase *class_tc = tcase_create("classification");
	SRunner *sr;
	int failed;

	tcase_add_test(fixed_tc, fixed_all_fields);
	tcase_add_test(fixed_tc, fixed_deferred_invalid_information);
	tcase_add_test(fixed_tc, fixed_sks_kinds);
	tcase_add_test(fixed_tc, fixed_stream_bits);
	tcase_add_test(fixed_tc, fixed_truncated);
	tcase_add_test(fixed_tc, fixed_additional_length_lies);
	tcase_add_test(fixed_tc, invalid_response_codes);
	tcase_add_test(desc_tc, descriptor_header_only);
	tcase_add_test(desc_tc, descriptor_all_types);
	tcase_add_test(desc_tc, descriptor_overrun);
	tcase_add_test(desc_tc, descriptor_too_short_for_type);
	tcase_add_test(desc_tc, descriptor_truncated);
	tcase_add_test(tables_tc, asc_table);
	tcase_add_test(tables_tc, ua_names_and_categories);
	tcase_add_test(tables_tc, names);
	tcase_add_loop_test(class_tc, classification_rule, 0, N_ELEMS(class_cases));
	tcase_add_test(class_tc, classification_covers_every_rule);
	tcase_add_test(class_tc, classification_edge_cases);
	suite_add_tcase(s, fixed_tc);
	suite_add_tcase(s, desc_tc);
	suite_add_tcase(s, tables_tc);
	suite_add_tcase(s, class_tc);

	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
