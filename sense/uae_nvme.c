// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The shared NVMe completion status decoder and error classifier.  Freestanding: no libc,
 * no kernel API.  The tables come from sense/data/nvme-status.txt and
 * docs/classification.md through gen-tables.py.
 */
#include "uae_nvme.h"

struct uae_nvme_code {
	uint16_t code;		/* SCT << 8 | SC */
	const char *name;
};

struct uae_nvme_rule {
	uint8_t sct;		/* a bit per status code type */
	struct {
		uint32_t w[8];
	} sc;			/* a bit per status code */
	enum uae_severity severity;
	enum uae_locus locus;
	enum uae_blk_status blk_status;
	bool failover;
	bool differs;
	uint16_t number;
};

#define UAE_NVME_TABLES
#include "uae_sense_tables.h"

#define UAE_NVME_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *uae_nvme_status_name(uint16_t status)
{
	uint16_t code = status & 0x7ff;
	size_t lo = 0, hi = UAE_NVME_ARRAY_SIZE(uae_nvme_codes);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (uae_nvme_codes[mid].code == code)
			return uae_nvme_codes[mid].name;
		if (uae_nvme_codes[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *uae_nvme_sct_name(uint16_t status)
{
	return uae_nvme_sct_names[UAE_NVME_SCT(status)];
}

void uae_nvme_classify(uint16_t status, struct uae_class *out)
{
	uint8_t sct = UAE_NVME_SCT(status), sc = UAE_NVME_SC(status);
	const struct uae_nvme_rule *r = NULL;
	size_t i;

	for (i = 0; i < UAE_NVME_ARRAY_SIZE(uae_nvme_rules); i++) {
		r = &uae_nvme_rules[i];
		if ((r->sct & (1u << sct)) && (r->sc.w[sc / 32] & (1u << (sc % 32))))
			break;
	}
	/* gen-tables.py guarantees that the last rule matches everything. */
	out->severity = r->severity;
	if ((status & UAE_NVME_DNR) && out->severity == UAE_SEV_RETRYABLE)
		out->severity = UAE_SEV_FATAL;
	out->locus = r->locus;
	out->failover = r->failover;
	out->blk_status = r->blk_status;
	out->differs = r->differs;
	out->rule = r->number;
}

unsigned int uae_nvme_class_rule_count(void)
{
	return UAE_NVME_ARRAY_SIZE(uae_nvme_rules);
}
