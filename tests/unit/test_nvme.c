// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The shared NVMe status decoder and classifier (issue 31): the names of
 * sense/data/nvme-status.txt, one case per rule of docs/classification.md's NVMe table,
 * the DNR bit, and every one of the 65,536 possible status values (which makes a fuzz
 * target of this input pointless: this test is exhaustive).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "uae_nvme.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define STATUS(sct, sc) ((uint16_t)((sct) << 8 | (sc)))

START_TEST(names)
{
	/* Values Linux names in include/linux/nvme.h (NVME_SC_*), checked in KUnit too. */
	ck_assert_str_eq(uae_nvme_status_name(STATUS(0, 0x00)), "SUCCESSFUL_COMPLETION");
	ck_assert_str_eq(uae_nvme_status_name(STATUS(0, 0x80)), "LBA_OUT_OF_RANGE");
	ck_assert_str_eq(uae_nvme_status_name(STATUS(0, 0x81)), "CAPACITY_EXCEEDED");
	ck_assert_str_eq(uae_nvme_status_name(STATUS(0, 0x22)), "TRANSIENT_TRANSPORT_ERROR");
	ck_assert_str_eq(uae_nvme_status_name(STATUS(1, 0xbe)), "TOO_MANY_OPEN_ZONES");
	ck_assert_str_eq(uae_nvme_status_name(STATUS(2, 0x81)), "UNRECOVERED_READ_ERROR");
	ck_assert_str_eq(uae_nvme_status_name(STATUS(3, 0x03)), "ASYMMETRIC_ACCESS_TRANSITION");
	ck_assert_str_eq(uae_nvme_status_name(STATUS(3, 0x71)), "COMMAND_ABORTED_BY_HOST");
	/* The flag bits do not change the name. */
	ck_assert_str_eq(uae_nvme_status_name(STATUS(2, 0x81) | UAE_NVME_DNR | UAE_NVME_MORE |
					      0x1800), "UNRECOVERED_READ_ERROR");
	/* Unnamed: reserved, vendor specific, admin-only command specific. */
	ck_assert_ptr_null(uae_nvme_status_name(STATUS(0, 0x17)));
	ck_assert_ptr_null(uae_nvme_status_name(STATUS(7, 0x01)));
	ck_assert_ptr_null(uae_nvme_status_name(STATUS(1, 0x00)));
	ck_assert_str_eq(uae_nvme_sct_name(STATUS(3, 0x02)), "PATH_RELATED");
	ck_assert_str_eq(uae_nvme_sct_name(STATUS(7, 0xc0)), "VENDOR_SPECIFIC");
	ck_assert_ptr_null(uae_nvme_sct_name(STATUS(5, 0x00)));
}
END_TEST

START_TEST(status_fields)
{
	uint16_t st = STATUS(3, 0x02) | UAE_NVME_DNR | UAE_NVME_MORE | (2 << 11);

	ck_assert_uint_eq(UAE_NVME_SCT(st), 3);
	ck_assert_uint_eq(UAE_NVME_SC(st), 0x02);
	ck_assert_uint_eq(UAE_NVME_CRD(st), 2);
}
END_TEST

/* One status per rule of the NVMe table, in order, with what the table says. */
static const struct nvme_case {
	uint16_t status;
	unsigned int rule;
	enum uae_severity sev;
	enum uae_locus locus;
	bool failover;
	enum uae_blk_status blk;
} nvme_cases[] = {
	{ STATUS(0, 0x00), 1, UAE_SEV_NONE, UAE_LOCUS_NONE, false, UAE_BLK_OK },
	{ STATUS(0, 0x81), 2, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_NOSPC },
	{ STATUS(0, 0x80), 3, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_TARGET },
	{ STATUS(0, 0x82), 4, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, false, UAE_BLK_TARGET },
	{ STATUS(0, 0x21), 5, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, false, UAE_BLK_TARGET },
	{ STATUS(0, 0x0b), 6, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_NOTSUPP },
	{ STATUS(0, 0x83), 7, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_RESV_CONFLICT },
	{ STATUS(1, 0x83), 8, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_NOTSUPP },
	{ STATUS(1, 0x81), 9, UAE_SEV_FATAL, UAE_LOCUS_HOST, false, UAE_BLK_PROTECTION },
	{ STATUS(1, 0x82), 10, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_MEDIUM },
	{ STATUS(1, 0xbd), 11, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false,
	  UAE_BLK_ZONE_ACTIVE_RESOURCE },
	{ STATUS(1, 0x91), 12, UAE_SEV_RETRYABLE, UAE_LOCUS_HOST, true, UAE_BLK_IOERR },
	{ STATUS(1, 0xbe), 13, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false,
	  UAE_BLK_ZONE_OPEN_RESOURCE },
	{ STATUS(1, 0xb9), 14, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ STATUS(2, 0x81), 15, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_MEDIUM },
	{ STATUS(2, 0x86), 16, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_MEDIUM },
	{ STATUS(2, 0x84), 17, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_PROTECTION },
	{ STATUS(2, 0x88), 18, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ STATUS(3, 0x01), 19, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ STATUS(3, 0x02), 20, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ STATUS(3, 0x03), 21, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ STATUS(3, 0x70), 22, UAE_SEV_FATAL, UAE_LOCUS_TRANSPORT, true, UAE_BLK_TRANSPORT },
	{ STATUS(3, 0x71), 23, UAE_SEV_RETRYABLE, UAE_LOCUS_HOST, true, UAE_BLK_IOERR },
	{ STATUS(3, 0x60), 24, UAE_SEV_RETRYABLE, UAE_LOCUS_TRANSPORT, true, UAE_BLK_IOERR },
	{ STATUS(0, 0x22), 25, UAE_SEV_RETRYABLE, UAE_LOCUS_TRANSPORT, true, UAE_BLK_IOERR },
	{ STATUS(0, 0x19), 26, UAE_SEV_FATAL, UAE_LOCUS_TRANSPORT, true, UAE_BLK_IOERR },
	{ STATUS(0, 0x08), 27, UAE_SEV_RETRYABLE, UAE_LOCUS_HOST, true, UAE_BLK_IOERR },
	{ STATUS(0, 0x0f), 28, UAE_SEV_FATAL, UAE_LOCUS_HOST, true, UAE_BLK_IOERR },
	{ STATUS(0, 0x1d), 29, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ STATUS(0, 0x1c), 30, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ STATUS(0, 0x15), 31, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, false, UAE_BLK_IOERR },
	{ STATUS(0, 0x06), 32, UAE_SEV_RETRYABLE, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
	{ STATUS(7, 0x42), 33, UAE_SEV_FATAL, UAE_LOCUS_DEVICE, true, UAE_BLK_IOERR },
};

START_TEST(classification_rule)
{
	const struct nvme_case *c = &nvme_cases[_i];
	struct uae_class cl;

	uae_nvme_classify(c->status, &cl);
	ck_assert_msg(cl.rule == c->rule, "status %03xh: rule %u, want %u", c->status, cl.rule,
		      c->rule);
	ck_assert_int_eq(cl.severity, c->sev);
	ck_assert_int_eq(cl.locus, c->locus);
	ck_assert_int_eq(cl.failover, c->failover);
	ck_assert_int_eq(cl.blk_status, c->blk);
	ck_assert_int_eq(cl.differs, cl.failover != uae_blk_status_is_path_error(cl.blk_status));
}
END_TEST

START_TEST(classification_covers_every_rule)
{
	ck_assert_uint_eq(N_ELEMS(nvme_cases), uae_nvme_class_rule_count());
	for (size_t i = 0; i < N_ELEMS(nvme_cases); i++)
		ck_assert_uint_eq(nvme_cases[i].rule, i + 1);
}
END_TEST

/*
 * Every value a status word can hold: a class from the table, the flags never changing
 * the rule, DNR making a retryable status fatal and nothing else, Linux's native
 * multipath test (a path related status) always a "failover: yes", and a name for the
 * data file's codes only.  status_fault() checks one value: NULL if it holds, else what
 * did not.  (Not a ck_assert per value: each one reports its place to Check's parent
 * process, and 65,536 values' half a million took over Check's 4 s on a busy machine.)
 */
static const char *status_fault(uint16_t st)
{
	uint16_t code = st & 0x7ff;
	struct uae_class cl, base;
	enum uae_severity severity;

	uae_nvme_classify(st, &cl);
	uae_nvme_classify(code, &base);
	if (cl.rule < 1 || cl.rule > uae_nvme_class_rule_count())
		return "a rule outside the table";
	if (cl.rule != base.rule)
		return "the flags changed the rule";
	if (cl.locus != base.locus)
		return "the flags changed the locus";
	if (cl.failover != base.failover)
		return "the flags changed failover";
	if (cl.blk_status != base.blk_status)
		return "the flags changed the blk_status_t";
	severity = (st & UAE_NVME_DNR) && base.severity == UAE_SEV_RETRYABLE ? UAE_SEV_FATAL :
									       base.severity;
	if (cl.severity != severity)
		return "a severity other than the code's (fatal for a retryable one with DNR)";
	if (UAE_NVME_SCT(st) == 3 && !cl.failover)
		return "path related without failover";
	return NULL;
}

START_TEST(every_status)
{
	unsigned int named = 0, faults = 0;
	uint16_t first = 0;
	const char *why = NULL;

	for (uint32_t v = 0; v <= 0xffff; v++) {
		uint16_t st = (uint16_t)v;
		const char *fault = status_fault(st);

		if (fault && !faults++) {
			first = st;
			why = fault;
		}
		if (st == (st & 0x7ff) && uae_nvme_status_name(st))
			named++;
	}
	ck_assert_msg(!faults, "%u status words fail, the first %04xh: %s", faults, first, why);
	/* The 70 codes of sense/data/nvme-status.txt, and no other value. */
	ck_assert_uint_eq(named, 70);
}
END_TEST

/* Asynchronous events: the spec's, the kernel's values (tests/vm/guest/nvme.sh's too). */
START_TEST(aen_names)
{
	ck_assert_str_eq(uae_nvme_aen_name(0x040002), "NVME_NAMESPACE_ATTRIBUTE_CHANGED");
	ck_assert_str_eq(uae_nvme_aen_name(0x0c0302), "NVME_ANA_CHANGE");
	ck_assert_str_eq(uae_nvme_aen_name(0x030102), "NVME_FIRMWARE_ACTIVATION_STARTING");
	ck_assert_str_eq(uae_nvme_aen_name(0x70f002), "NVME_DISCOVERY_LOG_CHANGE");
	ck_assert_str_eq(uae_nvme_aen_name(0x020201), "NVME_SPARE_BELOW_THRESHOLD");
	ck_assert_str_eq(uae_nvme_aen_name(0x020101), "NVME_TEMPERATURE_THRESHOLD");
	ck_assert_str_eq(uae_nvme_aen_name(0x020001), "NVME_SUBSYSTEM_RELIABILITY_DEGRADED");
	ck_assert_str_eq(uae_nvme_aen_name(0x010300), "NVME_PERSISTENT_INTERNAL_ERROR");
	ck_assert_str_eq(uae_nvme_aen_name(0x800006), "NVME_RESERVATION_LOG_PAGE_AVAILABLE");
	/* The log page does not name the event: the type and information do. */
	ck_assert_str_eq(uae_nvme_aen_name(0xff0302), "NVME_ANA_CHANGE");
	/* One the list lacks is named by its type: never NULL, never another's name. */
	ck_assert_str_eq(uae_nvme_aen_name(0x00ee02), "NVME_NOTICE");
	ck_assert_str_eq(uae_nvme_aen_name(0x00ee00), "NVME_ERROR_EVENT");
	ck_assert_str_eq(uae_nvme_aen_name(0x00ee01), "NVME_SMART_EVENT");
	ck_assert_str_eq(uae_nvme_aen_name(0x000107), "NVME_VENDOR_EVENT");
	ck_assert_str_eq(uae_nvme_aen_name(0x000003), "NVME_RESERVED_EVENT");
	ck_assert_str_eq(uae_nvme_aen_class(0x020201), "smart");
	ck_assert_str_eq(uae_nvme_aen_class(0x0c0302), "notice");
	ck_assert_str_eq(uae_nvme_aen_class(0x000000), "error");
	ck_assert_str_eq(uae_nvme_aen_class(0x800006), "io_command_set");
	ck_assert_str_eq(uae_nvme_aen_class(0x000007), "vendor");
	ck_assert_str_eq(uae_nvme_aen_class(0x000004), "reserved");
}
END_TEST

/* ANA states as the spec numbers them and Linux's sysfs spells them. */
START_TEST(ana_states)
{
	ck_assert_str_eq(uae_nvme_ana_state_name(1), "optimized");
	ck_assert_str_eq(uae_nvme_ana_state_name(2), "non-optimized");
	ck_assert_str_eq(uae_nvme_ana_state_name(3), "inaccessible");
	ck_assert_str_eq(uae_nvme_ana_state_name(4), "persistent-loss");
	ck_assert_str_eq(uae_nvme_ana_state_name(15), "change");
	ck_assert_str_eq(uae_nvme_ana_event_name(3), "NVME_ANA_INACCESSIBLE");
	ck_assert_ptr_null(uae_nvme_ana_state_name(0));
	ck_assert_ptr_null(uae_nvme_ana_event_name(5));
}
END_TEST

/* The SMART / health log: its first bytes, little-endian, and what is too short for one. */
START_TEST(smart_log)
{
	uint8_t log[UAE_NVME_SMART_LOG_LEN] = { 0x05, 0x38, 0x01, 4, 10, 120, 0x02 };
	struct uae_nvme_smart s;

	ck_assert_int_eq(uae_nvme_smart_parse(log, sizeof(log), &s), 0);
	ck_assert_uint_eq(s.crit_warning, 0x05);
	ck_assert_uint_eq(s.temperature_k, 0x0138);
	ck_assert_uint_eq(s.avail_spare, 4);
	ck_assert_uint_eq(s.spare_thresh, 10);
	ck_assert_uint_eq(s.percent_used, 120);
	ck_assert_uint_eq(s.endurance_crit, 2);
	ck_assert_int_eq(uae_nvme_smart_parse(log, sizeof(log) - 1, &s), -1);
	ck_assert_int_eq(uae_nvme_smart_parse(NULL, sizeof(log), &s), -1);
	ck_assert_str_eq(uae_nvme_crit_warning_name(0), "spare-below-threshold");
	ck_assert_str_eq(uae_nvme_crit_warning_name(2), "reliability-degraded");
	ck_assert_str_eq(uae_nvme_crit_warning_name(5), "pmr-read-only");
	ck_assert_ptr_null(uae_nvme_crit_warning_name(6));
}
END_TEST

/* Every result has a name and a class, each event of the list its own name. */
START_TEST(every_aen)
{
	unsigned int listed = 0;

	for (uint32_t type = 0; type < 8; type++)
		for (uint32_t info = 0; info < 256; info++) {
			uint32_t result = info << 8 | type;
			const char *name = uae_nvme_aen_name(result);

			ck_assert_ptr_nonnull(name);
			ck_assert_ptr_nonnull(uae_nvme_aen_class(result));
			ck_assert_str_eq(name, uae_nvme_aen_name(result | 0xff0000));
			/* Information FFh is listed for no type: its name is the type's. */
			if (strcmp(name, uae_nvme_aen_name(0xff00 | type)) != 0)
				listed++;
		}
	/* The 20 events of sense/data/nvme-aen.txt, and no other value. */
	ck_assert_uint_eq(listed, 20);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nvme");
	TCase *names_tc = tcase_create("names");
	TCase *class_tc = tcase_create("classification");
	SRunner *sr;
	int failed;

	tcase_add_test(names_tc, names);
	tcase_add_test(names_tc, status_fields);
	tcase_add_test(names_tc, aen_names);
	tcase_add_test(names_tc, every_aen);
	tcase_add_test(names_tc, ana_states);
	tcase_add_test(names_tc, smart_log);
	tcase_add_loop_test(class_tc, classification_rule, 0, N_ELEMS(nvme_cases));
	tcase_add_test(class_tc, classification_covers_every_rule);
	tcase_add_test(class_tc, every_status);
	suite_add_tcase(s, names_tc);
	suite_add_tcase(s, class_tc);

	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
