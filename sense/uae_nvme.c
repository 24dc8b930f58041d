// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The shared NVMe completion status decoder and error classifier.  Freestanding: no libc,
 * no kernel API.  The tables come from sense/data/nvme-status.txt, sense/data/nvme-aen.txt
 * and docs/classification.md through gen-tables.py.
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

/* The name of @code in @tab (sorted by code), or NULL. */
static const char *uae_nvme_find(const struct uae_nvme_code *tab, size_t n, uint16_t code)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab[mid].code == code)
			return tab[mid].name;
		if (tab[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *uae_nvme_status_name(uint16_t status)
{
	return uae_nvme_find(uae_nvme_codes, UAE_NVME_ARRAY_SIZE(uae_nvme_codes), status & 0x7ff);
}

const char *uae_nvme_aen_name(uint32_t result)
{
	uint8_t type = UAE_NVME_AEN_TYPE(result);
	const char *name;

	name = uae_nvme_find(uae_nvme_aens, UAE_NVME_ARRAY_SIZE(uae_nvme_aens),
			     (uint16_t)(type << 8 | UAE_NVME_AEN_INFO(result)));
	return name ? name : uae_nvme_aen_types[type][1];
}

const char *uae_nvme_aen_class(uint32_t result)
{
	return uae_nvme_aen_types[UAE_NVME_AEN_TYPE(result)][0];
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

/* As Linux's nvme_ana_state_names[] (drivers/nvme/host/multipath.c) spells them. */
static const struct {
	uint8_t state;
	const char *event, *name;
} uae_nvme_ana_states[] = {
	{ 0x01, "NVME_ANA_OPTIMIZED", "optimized" },
	{ 0x02, "NVME_ANA_NON_OPTIMIZED", "non-optimized" },
	{ 0x03, "NVME_ANA_INACCESSIBLE", "inaccessible" },
	{ 0x04, "NVME_ANA_PERSISTENT_LOSS", "persistent-loss" },
	{ 0x0f, "NVME_ANA_CHANGE_STATE", "change" },
};

const char *uae_nvme_ana_event_name(uint8_t state)
{
	size_t i;

	for (i = 0; i < UAE_NVME_ARRAY_SIZE(uae_nvme_ana_states); i++)
		if (uae_nvme_ana_states[i].state == state)
			return uae_nvme_ana_states[i].event;
	return NULL;
}

const char *uae_nvme_ana_state_name(uint8_t state)
{
	size_t i;

	for (i = 0; i < UAE_NVME_ARRAY_SIZE(uae_nvme_ana_states); i++)
		if (uae_nvme_ana_states[i].state == state)
			return uae_nvme_ana_states[i].name;
	return NULL;
}

/*
 * The SMART / Health Information log's Critical Warning bits (NVM Express Base
 * Specification, log page 02h, byte 0), bit 0 first.
 */
static const char *const uae_nvme_crit_warnings[] = {
	"spare-below-threshold", "temperature", "reliability-degraded", "read-only",
	"volatile-backup-failed", "pmr-read-only",
};

bool uae_nvme_controller_name_valid(const char *name)
{
	size_t n = 0;

	if (name[0] != 'n' || name[1] != 'v' || name[2] != 'm' || name[3] != 'e')
		return false;
	name += 4;
	while (name[n] >= '0' && name[n] <= '9')
		n++;
	return n > 0 && n <= 10 && name[n] == '\0' && (name[0] != '0' || n == 1);
}

const char *uae_nvme_crit_warning_name(unsigned int bit)
{
	return bit < UAE_NVME_ARRAY_SIZE(uae_nvme_crit_warnings) ? uae_nvme_crit_warnings[bit] :
	       NULL;
}

int uae_nvme_smart_parse(const uint8_t *log, size_t len, struct uae_nvme_smart *out)
{
	if (!log || len < UAE_NVME_SMART_LOG_LEN)
		return -1;
	out->crit_warning = log[0];
	out->temperature_k = (uint16_t)(log[1] | log[2] << 8);
	out->avail_spare = log[3];
	out->spare_thresh = log[4];
	out->percent_used = log[5];
	out->endurance_crit = log[6];
	return 0;
}

unsigned int uae_nvme_class_rule_count(void)
{
	return UAE_NVME_ARRAY_SIZE(uae_nvme_rules);
}
