// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The shared SCSI sense decoder (SPC-4 4.5).  Freestanding: no libc, no kernel API,
 * only what uae_types.h supplies.  Tables come from sense/data/ via gen-tables.py.
 */
#include "uae_sense.h"

struct uae_asc_entry {
	uint8_t asc;
	uint8_t ascq;
	const char *ident;
	const char *description;
};

/* An ASC whose ASCQ is a parameter ("40h/NNh DIAGNOSTIC FAILURE ON COMPONENT NN"). */
struct uae_asc_range {
	uint8_t asc;
	uint8_t ascq_lo;
	uint8_t ascq_hi;
	const char *ident;
	const char *description;
};

struct uae_ua_rule {
	uint8_t asc;
	uint8_t ascq;
	bool any_ascq;
	enum uae_category category;
	const char *name;	/* NULL: use the T10 identifier */
};

#include "uae_sense_tables.h"

#define UAE_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Fixed format (70h/71h): byte offsets, SPC-4 table 49. */
#define FIXED_SENSE_KEY		2
#define FIXED_ADD_LEN		7
#define FIXED_ASC		12
#define FIXED_ASCQ		13
#define FIXED_MIN_COMPLETE	18

/* Descriptor format (72h/73h): SPC-4 table 28. */
#define DESC_SENSE_KEY		1
#define DESC_ASC		2
#define DESC_ASCQ		3
#define DESC_ADD_LEN		7
#define DESC_HEADER_LEN		8

static enum uae_sense_status decode_fixed(const uint8_t *buf, size_t len,
					  struct uae_sense *out)
{
	size_t avail = len;

	if (len <= FIXED_SENSE_KEY)
		return UAE_SENSE_INVALID;
	out->sense_key = buf[FIXED_SENSE_KEY] & 0x0f;
	if (len <= FIXED_ADD_LEN)
		return UAE_SENSE_PARTIAL;

	/* The device says how much follows; believe it only as far as the buffer goes. */
	if ((size_t)buf[FIXED_ADD_LEN] + FIXED_ADD_LEN + 1 < avail)
		avail = (size_t)buf[FIXED_ADD_LEN] + FIXED_ADD_LEN + 1;
	if (avail > FIXED_ASC)
		out->asc = buf[FIXED_ASC];
	if (avail > FIXED_ASCQ)
		out->ascq = buf[FIXED_ASCQ];
	return avail > FIXED_ASCQ ? UAE_SENSE_OK : UAE_SENSE_PARTIAL;
}

static enum uae_sense_status decode_descriptor(const uint8_t *buf, size_t len,
					       struct uae_sense *out)
{
	if (len <= DESC_ASCQ)
		return len > DESC_SENSE_KEY ? UAE_SENSE_PARTIAL : UAE_SENSE_INVALID;
	out->sense_key = buf[DESC_SENSE_KEY] & 0x0f;
	out->asc = buf[DESC_ASC];
	out->ascq = buf[DESC_ASCQ];
	if (len < DESC_HEADER_LEN)
		return UAE_SENSE_PARTIAL;
	if ((size_t)buf[DESC_ADD_LEN] + DESC_HEADER_LEN > len)
		return UAE_SENSE_PARTIAL;
	return UAE_SENSE_OK;
}

enum uae_sense_status uae_sense_decode(const uint8_t *buf, size_t len,
				       struct uae_sense *out)
{
	*out = (struct uae_sense){ .status = UAE_SENSE_INVALID };
	if (!buf || len == 0)
		return out->status;

	out->response_code = buf[0] & 0x7f;
	switch (out->response_code) {
	case 0x70:
	case 0x71:
		out->deferred = out->response_code == 0x71;
		out->status = decode_fixed(buf, len, out);
		break;
	case 0x72:
	case 0x73:
		out->descriptor = true;
		out->deferred = out->response_code == 0x73;
		out->status = decode_descriptor(buf, len, out);
		break;
	default:
		out->status = UAE_SENSE_INVALID;
		break;
	}
	return out->status;
}

static const struct uae_asc_entry *asc_lookup(uint8_t asc, uint8_t ascq)
{
	size_t lo = 0, hi = UAE_ARRAY_SIZE(uae_asc_table);
	unsigned int key = (unsigned int)asc << 8 | ascq;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct uae_asc_entry *e = &uae_asc_table[mid];
		unsigned int ekey = (unsigned int)e->asc << 8 | e->ascq;

		if (ekey == key)
			return e;
		if (ekey < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const struct uae_asc_range *asc_range_lookup(uint8_t asc, uint8_t ascq)
{
	size_t i;

	for (i = 0; i < UAE_ARRAY_SIZE(uae_asc_ranges); i++) {
		const struct uae_asc_range *r = &uae_asc_ranges[i];

		if (r->asc == asc && ascq >= r->ascq_lo && ascq <= r->ascq_hi)
			return r;
	}
	return NULL;
}

const char *uae_asc_description(uint8_t asc, uint8_t ascq)
{
	const struct uae_asc_entry *e = asc_lookup(asc, ascq);
	const struct uae_asc_range *r;

	if (e)
		return e->description;
	r = asc_range_lookup(asc, ascq);
	return r ? r->description : NULL;
}

const char *uae_asc_ident(uint8_t asc, uint8_t ascq)
{
	const struct uae_asc_entry *e = asc_lookup(asc, ascq);
	const struct uae_asc_range *r;

	if (e)
		return e->ident;
	r = asc_range_lookup(asc, ascq);
	return r ? r->ident : NULL;
}

/* The exact rule for ASC/ASCQ if there is one, else the ASC's wildcard rule. */
static const struct uae_ua_rule *ua_rule_lookup(uint8_t asc, uint8_t ascq)
{
	const struct uae_ua_rule *any = NULL;
	size_t i;

	for (i = 0; i < UAE_ARRAY_SIZE(uae_ua_rules); i++) {
		const struct uae_ua_rule *r = &uae_ua_rules[i];

		if (r->asc != asc)
			continue;
		if (!r->any_ascq && r->ascq == ascq)
			return r;
		if (r->any_ascq)
			any = r;
	}
	return any;
}

const char *uae_ua_event_name(uint8_t asc, uint8_t ascq)
{
	const struct uae_ua_rule *rule = ua_rule_lookup(asc, ascq);
	const char *ident;

	if (rule && rule->name)
		return rule->name;
	ident = uae_asc_ident(asc, ascq);
	return ident ? ident : "UNIT_ATTENTION";
}

enum uae_category uae_ua_category(uint8_t asc, uint8_t ascq)
{
	const struct uae_ua_rule *rule = ua_rule_lookup(asc, ascq);

	return rule ? rule->category : UAE_CAT_OTHER;
}

const char *uae_category_name(enum uae_category cat)
{
	static const char *const names[] = {
		[UAE_CAT_NONE] = "none",
		[UAE_CAT_RESET] = "reset",
		[UAE_CAT_PARAMETERS] = "parameters",
		[UAE_CAT_SPACE] = "space",
		[UAE_CAT_INVENTORY] = "inventory",
		[UAE_CAT_MICROCODE] = "microcode",
		[UAE_CAT_MEDIUM] = "medium",
		[UAE_CAT_OTHER] = "other",
	};

	if ((unsigned int)cat >= UAE_ARRAY_SIZE(names))
		return "unknown";
	return names[cat];
}

const char *uae_sense_key_name(uint8_t key)
{
	static const char *const names[] = {
		"NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR",
		"HARDWARE ERROR", "ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT",
		"BLANK CHECK", "VENDOR SPECIFIC", "COPY ABORTED", "ABORTED COMMAND",
		"RESERVED", "VOLUME OVERFLOW", "MISCOMPARE", "COMPLETED",
	};

	if (key >= UAE_ARRAY_SIZE(names))
		return "RESERVED";
	return names[key];
}
