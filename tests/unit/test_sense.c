// SPDX-License-Identifier: LGPL-2.1-or-later
/* The shared sense decoder: formats, truncation, tables, UA names and categories. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "uae_sense.h"

/* Fixed-format UA as scsi_debug sends it for CAPACITY DATA HAS CHANGED. */
static const uint8_t fixed_capacity[18] = {
	0x70, 0, 0x06, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x2a, 0x09, 0, 0, 0, 0,
};

/* Descriptor-format UA, REPORTED LUNS DATA HAS CHANGED, no descriptors. */
static const uint8_t desc_luns[8] = { 0x72, 0x06, 0x3f, 0x0e, 0, 0, 0, 0 };

START_TEST(fixed_format)
{
	struct uae_sense s;

	ck_assert_int_eq(uae_sense_decode(fixed_capacity, sizeof(fixed_capacity), &s),
			 UAE_SENSE_OK);
	ck_assert_int_eq(s.response_code, 0x70);
	ck_assert(!s.descriptor);
	ck_assert(!s.deferred);
	ck_assert_int_eq(s.sense_key, UAE_SENSE_KEY_UNIT_ATTENTION);
	ck_assert_int_eq(s.asc, 0x2a);
	ck_assert_int_eq(s.ascq, 0x09);
}
END_TEST

START_TEST(descriptor_format_deferred)
{
	uint8_t buf[8];
	struct uae_sense s;

	memcpy(buf, desc_luns, sizeof(buf));
	buf[0] = 0x73;
	ck_assert_int_eq(uae_sense_decode(buf, sizeof(buf), &s), UAE_SENSE_OK);
	ck_assert(s.descriptor);
	ck_assert(s.deferred);
	ck_assert_int_eq(s.sense_key, 6);
	ck_assert_int_eq(s.asc, 0x3f);
	ck_assert_int_eq(s.ascq, 0x0e);
}
END_TEST

START_TEST(invalid_response_codes)
{
	static const uint8_t bad[][4] = { { 0x00 }, { 0x7f }, { 0x74, 6, 0x2a, 9 } };
	struct uae_sense s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(uae_sense_decode(bad[i], sizeof(bad[i]), &s),
				 UAE_SENSE_INVALID);
	ck_assert_int_eq(uae_sense_decode(NULL, 18, &s), UAE_SENSE_INVALID);
	ck_assert_int_eq(uae_sense_decode(fixed_capacity, 0, &s), UAE_SENSE_INVALID);
}
END_TEST

/* Every truncation of a valid buffer decodes without reading past it. */
START_TEST(truncated_fixed)
{
	struct uae_sense s;

	for (size_t len = 1; len < sizeof(fixed_capacity); len++) {
		/* An exact-size heap copy, so valgrind or ASan sees any overrun. */
		uint8_t *copy = malloc(len);

		memcpy(copy, fixed_capacity, len);
		enum uae_sense_status st = uae_sense_decode(copy, len, &s);

		if (len < 3)
			ck_assert_int_eq(st, UAE_SENSE_INVALID);
		else if (len < 14)
			ck_assert_int_eq(st, UAE_SENSE_PARTIAL);
		else
			ck_assert_int_eq(st, UAE_SENSE_OK);
		free(copy);
	}
}
END_TEST

START_TEST(additional_length_lies)
{
	uint8_t buf[18];
	struct uae_sense s;

	/* Claims 2 more bytes only: ASC/ASCQ are beyond what the device says it sent. */
	memcpy(buf, fixed_capacity, sizeof(buf));
	buf[7] = 2;
	ck_assert_int_eq(uae_sense_decode(buf, sizeof(buf), &s), UAE_SENSE_PARTIAL);
	ck_assert_int_eq(s.asc, 0);
	/* Claims more than the buffer holds: decoded from what is there. */
	buf[7] = 0xff;
	ck_assert_int_eq(uae_sense_decode(buf, sizeof(buf), &s), UAE_SENSE_OK);
	ck_assert_int_eq(s.asc, 0x2a);
	/* A descriptor header claiming descriptors that are not there. */
	memcpy(buf, desc_luns, 8);
	buf[7] = 40;
	ck_assert_int_eq(uae_sense_decode(buf, 8, &s), UAE_SENSE_PARTIAL);
	ck_assert_int_eq(s.asc, 0x3f);
}
END_TEST

START_TEST(asc_table)
{
	ck_assert_str_eq(uae_asc_description(0x2a, 0x09), "CAPACITY DATA HAS CHANGED");
	ck_assert_str_eq(uae_asc_ident(0x38, 0x07), "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED");
	ck_assert_str_eq(uae_asc_description(0x00, 0x00), "NO ADDITIONAL SENSE INFORMATION");
	/* The last assigned entry, and a reserved code. */
	ck_assert_str_eq(uae_asc_ident(0x74, 0x79), "SECURITY_CONFLICT_IN_TRANSLATED_DEVICE");
	ck_assert_ptr_null(uae_asc_description(0x0f, 0x00));
	/* Ranged entries: 40h/NNh only from 80h. */
	ck_assert_str_eq(uae_asc_ident(0x40, 0x85), "DIAGNOSTIC_FAILURE_ON_COMPONENT_NN");
	ck_assert_str_eq(uae_asc_ident(0x40, 0x00), "RAM_FAILURE");
	ck_assert_ptr_null(uae_asc_ident(0x40, 0x10));
	ck_assert_str_eq(uae_asc_ident(0x4d, 0x42), "TAGGED_OVERLAPPED_COMMANDS");
}
END_TEST

/* The names the stock kernel sends as SDEV_UA= must be ours too. */
START_TEST(ua_names_match_kernel)
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
		{ 0x28, 0x00, "NOT_READY_TO_READY_CHANGE_MEDIUM_MAY_HAVE_CHANGED",
		  UAE_CAT_MEDIUM },
		{ 0x2f, 0x00, "COMMANDS_CLEARED_BY_ANOTHER_INITIATOR", UAE_CAT_OTHER },
		{ 0xc0, 0x01, "UNIT_ATTENTION", UAE_CAT_OTHER },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_str_eq(uae_ua_event_name(cases[i].asc, cases[i].ascq), cases[i].name);
		ck_assert_int_eq(uae_ua_category(cases[i].asc, cases[i].ascq), cases[i].cat);
	}
}
END_TEST

START_TEST(names_of_keys_and_categories)
{
	ck_assert_str_eq(uae_sense_key_name(6), "UNIT ATTENTION");
	ck_assert_str_eq(uae_sense_key_name(0xf), "COMPLETED");
	ck_assert_str_eq(uae_sense_key_name(0x10), "RESERVED");
	ck_assert_str_eq(uae_category_name(UAE_CAT_SPACE), "space");
	ck_assert_str_eq(uae_category_name((enum uae_category)99), "unknown");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sense");
	TCase *tc = tcase_create("decode");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, fixed_format);
	tcase_add_test(tc, descriptor_format_deferred);
	tcase_add_test(tc, invalid_response_codes);
	tcase_add_test(tc, truncated_fixed);
	tcase_add_test(tc, additional_length_lies);
	tcase_add_test(tc, asc_table);
	tcase_add_test(tc, ua_names_match_kernel);
	tcase_add_test(tc, names_of_keys_and_categories);
	suite_add_tcase(s, tc);

	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
