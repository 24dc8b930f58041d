// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The shared SCSI sense decoder (SPC-4 4.5) and error classifier.  Freestanding: no libc,
 * no kernel API, only what uae_types.h supplies.  The tables come from sense/data/ and
 * docs/classification.md through gen-tables.py.
 */
#include "uae_sense.h"

struct uae_asc_entry {
	uint8_t asc;
	uint8_t ascq;
	const char *ident;
};

/* An ASC whose ASCQ is a parameter ("40h/NNh DIAGNOSTIC FAILURE ON COMPONENT NN"). */
struct uae_asc_range {
	uint8_t asc;
	uint8_t ascq_lo;
	uint8_t ascq_hi;
	const char *ident;
};

struct uae_ua_rule {
	uint8_t asc;
	uint8_t ascq;
	bool any_ascq;
	enum uae_category category;
	const char *name;	/* NULL: use the T10 identifier */
};

/* A set of byte values. */
struct uae_byte_set {
	uint32_t w[8];
};

/* Bits of uae_class_rule.keys beyond the 16 sense keys. */
#define UAE_KEYBIT_NO_SENSE_DATA	(1u << 16)
#define UAE_KEYBIT_DEFERRED		(1u << 17)

struct uae_class_rule {
	struct uae_byte_set host, status, asc, ascq;
	uint32_t keys;
	enum uae_severity severity;
	enum uae_locus locus;
	enum uae_blk_status blk_status;
	bool failover;
	bool differs;
	uint16_t number;
};

#define UAE_SENSE_TABLES
#include "uae_sense_tables.h"

#define UAE_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint64_t get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/* Fixed format (70h/71h): byte offsets, SPC-4 table 49. */
#define FIXED_VALID_BIT		0x80
#define FIXED_FLAGS		2	/* FILEMARK, EOM, ILI, sense key */
#define FIXED_INFORMATION	3
#define FIXED_ADD_LEN		7
#define FIXED_COMMAND_INFO	8
#define FIXED_ASC		12
#define FIXED_ASCQ		13
#define FIXED_FRU		14
#define FIXED_SKS		15
#define SKSV_BIT		0x80

/* Descriptor format (72h/73h): SPC-4 table 28. */
#define DESC_SENSE_KEY		1
#define DESC_ASC		2
#define DESC_ASCQ		3
#define DESC_ADD_LEN		7
#define DESC_HEADER_LEN		8

enum {
	DESC_INFORMATION = 0x00,
	DESC_COMMAND_INFO = 0x01,
	DESC_SKS = 0x02,
	DESC_FRU = 0x03,
	DESC_STREAM = 0x04,
	DESC_BLOCK = 0x05,
	DESC_ATA_STATUS = 0x09,
};

size_t uae_sense_length(const uint8_t *buf, size_t len)
{
	size_t claimed;

	if (!buf || len < 8)
		return len;
	claimed = (size_t)buf[7] + 8;
	return claimed < len ? claimed : len;
}

static void decode_sks(const uint8_t *p, uint8_t sense_key, struct uae_sks *sks)
{
	sks->raw[0] = p[0];
	sks->raw[1] = p[1];
	sks->raw[2] = p[2];
	switch (sense_key) {
	case UAE_SENSE_KEY_ILLEGAL_REQUEST:
		sks->kind = UAE_SKS_FIELD_POINTER;
		sks->command = p[0] & 0x40;
		sks->bit_pointer_valid = p[0] & 0x08;
		sks->bit_pointer = p[0] & 0x07;
		sks->field_pointer = get_be16(p + 1);
		break;
	case UAE_SENSE_KEY_RECOVERED_ERROR:
	case UAE_SENSE_KEY_MEDIUM_ERROR:
	case UAE_SENSE_KEY_HARDWARE_ERROR:
		sks->kind = UAE_SKS_RETRY_COUNT;
		sks->retry_count = get_be16(p + 1);
		break;
	case UAE_SENSE_KEY_NO_SENSE:
	case UAE_SENSE_KEY_NOT_READY:
		sks->kind = UAE_SKS_PROGRESS;
		sks->progress = get_be16(p + 1);
		break;
	case UAE_SENSE_KEY_COPY_ABORTED:
		sks->kind = UAE_SKS_SEGMENT_POINTER;
		sks->segment_descriptor = p[0] & 0x20;
		sks->bit_pointer_valid = p[0] & 0x08;
		sks->bit_pointer = p[0] & 0x07;
		sks->field_pointer = get_be16(p + 1);
		break;
	case UAE_SENSE_KEY_UNIT_ATTENTION:
		sks->kind = UAE_SKS_UA_OVERFLOW;
		sks->overflow = p[0] & 0x01;
		break;
	default:
		sks->kind = UAE_SKS_OTHER;
		break;
	}
}

static enum uae_sense_status decode_fixed(const uint8_t *buf, size_t len,
					  struct uae_sense *out)
{
	size_t avail;

	if (len <= FIXED_FLAGS)
		return UAE_SENSE_INVALID;
	out->sense_key = buf[FIXED_FLAGS] & 0x0f;
	out->filemark = buf[FIXED_FLAGS] & 0x80;
	out->eom = buf[FIXED_FLAGS] & 0x40;
	out->ili = buf[FIXED_FLAGS] & 0x20;
	if (len <= FIXED_ADD_LEN)
		return UAE_SENSE_PARTIAL;

	if (buf[0] & FIXED_VALID_BIT) {
		out->info_valid = true;
		out->information = get_be(buf + FIXED_INFORMATION, 4);
	}
	/* The device says how much follows; believe it only as far as the buffer goes. */
	avail = uae_sense_length(buf, len);
	if (avail >= FIXED_COMMAND_INFO + 4) {
		out->command_info_valid = true;
		out->command_info = get_be(buf + FIXED_COMMAND_INFO, 4);
	}
	if (avail > FIXED_ASC)
		out->asc = buf[FIXED_ASC];
	if (avail > FIXED_ASCQ)
		out->ascq = buf[FIXED_ASCQ];
	if (avail > FIXED_FRU && buf[FIXED_FRU]) {
		out->fru_valid = true;
		out->fru = buf[FIXED_FRU];
	}
	if (avail >= FIXED_SKS + 3 && (buf[FIXED_SKS] & SKSV_BIT)) {
		out->sks_valid = true;
		decode_sks(buf + FIXED_SKS, out->sense_key, &out->sks);
	}
	if (avail <= FIXED_ASCQ || avail < (size_t)buf[FIXED_ADD_LEN] + FIXED_ADD_LEN + 1)
		return UAE_SENSE_PARTIAL;
	return UAE_SENSE_OK;
}

/* One descriptor of @dlen bytes (header included); false if too short for its type. */
static bool decode_one_descriptor(const uint8_t *d, size_t dlen, struct uae_sense *out)
{
	switch (d[0]) {
	case DESC_INFORMATION:
		if (dlen < 12)
			return false;
		out->info_valid = d[2] & 0x80;
		out->information = get_be(d + 4, 8);
		break;
	case DESC_COMMAND_INFO:
		if (dlen < 12)
			return false;
		out->command_info_valid = true;
		out->command_info = get_be(d + 4, 8);
		break;
	case DESC_SKS:
		if (dlen < 7)
			return false;
		if (d[4] & SKSV_BIT) {
			out->sks_valid = true;
			decode_sks(d + 4, out->sense_key, &out->sks);
		}
		break;
	case DESC_FRU:
		if (dlen < 4)
			return false;
		out->fru_valid = true;
		out->fru = d[3];
		break;
	case DESC_STREAM:
		if (dlen < 4)
			return false;
		out->filemark = d[3] & 0x80;
		out->eom = d[3] & 0x40;
		out->ili = d[3] & 0x20;
		break;
	case DESC_BLOCK:
		if (dlen < 4)
			return false;
		out->ili = d[3] & 0x20;
		break;
	case DESC_ATA_STATUS:
		if (dlen < 14)
			return false;
		out->ata_valid = true;
		out->ata.extend = d[2] & 0x01;
		out->ata.error = d[3];
		out->ata.count = get_be16(d + 4);
		/* LBA bytes come high/low interleaved: 47:40 7:0 15:8 23:16 31:24 39:32. */
		out->ata.lba = (uint64_t)d[6] << 40 | (uint64_t)d[7] |
			       (uint64_t)d[8] << 32 | (uint64_t)d[9] << 8 |
			       (uint64_t)d[10] << 24 | (uint64_t)d[11] << 16;
		out->ata.device = d[12];
		out->ata.status = d[13];
		break;
	default:
		out->unknown_descriptors++;
		break;
	}
	return true;
}

static enum uae_sense_status decode_descriptor(const uint8_t *buf, size_t len,
					       struct uae_sense *out)
{
	enum uae_sense_status status = UAE_SENSE_OK;
	size_t pos, end;

	if (len <= DESC_ASCQ)
		return len > DESC_SENSE_KEY ? UAE_SENSE_PARTIAL : UAE_SENSE_INVALID;
	out->sense_key = buf[DESC_SENSE_KEY] & 0x0f;
	out->asc = buf[DESC_ASC];
	out->ascq = buf[DESC_ASCQ];
	if (len < DESC_HEADER_LEN)
		return UAE_SENSE_PARTIAL;

	end = (size_t)buf[DESC_ADD_LEN] + DESC_HEADER_LEN;
	if (end > len) {
		end = len;
		status = UAE_SENSE_PARTIAL;
	}
	/* Each descriptor: type, additional length, then that many bytes. */
	for (pos = DESC_HEADER_LEN; pos < end;) {
		size_t dlen;

		if (end - pos < 2)
			return UAE_SENSE_PARTIAL;
		dlen = (size_t)buf[pos + 1] + 2;
		if (dlen > end - pos)
			return UAE_SENSE_PARTIAL;
		if (out->descriptors < 0xff)
			out->descriptors++;
		if (!decode_one_descriptor(buf + pos, dlen, out))
			status = UAE_SENSE_PARTIAL;
		pos += dlen;
	}
	return status;
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

enum uae_asc_kind uae_asc_kind(uint8_t asc, uint8_t ascq)
{
	if (asc_lookup(asc, ascq))
		return UAE_ASC_ASSIGNED;
	if (asc_range_lookup(asc, ascq))
		return UAE_ASC_RANGED;
	if (asc >= 0x80 || ascq >= 0x80)
		return UAE_ASC_VENDOR;
	return UAE_ASC_RESERVED;
}

#ifndef UAE_SENSE_NO_TEXT
const char *uae_asc_description(uint8_t asc, uint8_t ascq)
{
	const struct uae_asc_entry *e = asc_lookup(asc, ascq);
	const struct uae_asc_range *r;

	if (e)
		return uae_asc_descriptions[e - uae_asc_table];
	r = asc_range_lookup(asc, ascq);
	return r ? uae_asc_range_descriptions[r - uae_asc_ranges] : NULL;
}
#endif

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
	if (ident)
		return ident;
	if (uae_asc_kind(asc, ascq) == UAE_ASC_VENDOR)
		return "VENDOR_SPECIFIC_UNIT_ATTENTION";
	return "UNIT_ATTENTION";
}

const char *uae_error_name(uint8_t host_byte, uint8_t status, const struct uae_sense *sense)
{
	static const char *const key_names[] = {
		"NO_SENSE", "RECOVERED_ERROR", "NOT_READY", "MEDIUM_ERROR",
		"HARDWARE_ERROR", "ILLEGAL_REQUEST", "UNIT_ATTENTION", "DATA_PROTECT",
		"BLANK_CHECK", "VENDOR_SPECIFIC_ERROR", "COPY_ABORTED", "ABORTED_COMMAND",
		"RESERVED_SENSE_KEY", "VOLUME_OVERFLOW", "MISCOMPARE", "COMPLETED",
	};
	const char *name;

	if (host_byte != UAE_DID_OK && host_byte != UAE_DID_PASSTHROUGH) {
		name = uae_host_byte_name(host_byte);
		return name ? name : "HOST_ERROR";
	}
	if (sense && sense->status != UAE_SENSE_INVALID) {
		name = uae_asc_ident(sense->asc, sense->ascq);
		if (name && (sense->asc || sense->ascq))
			return name;
		return key_names[sense->sense_key & 0x0f];
	}
	name = uae_status_name(status);
	return name ? name : "SCSI_ERROR";
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

static bool set_has(const struct uae_byte_set *set, uint8_t v)
{
	return set->w[v / 32] & (1u << (v % 32));
}

/* What of the sense data the table's "key" column matches. */
static uint32_t sense_key_bit(const struct uae_sense *sense)
{
	if (!sense || sense->status == UAE_SENSE_INVALID)
		return UAE_KEYBIT_NO_SENSE_DATA;
	if (sense->deferred)
		return UAE_KEYBIT_DEFERRED;
	return 1u << sense->sense_key;
}

void uae_classify(uint8_t host_byte, uint8_t status, const struct uae_sense *sense,
		  struct uae_class *out)
{
	uint32_t key_bit = sense_key_bit(sense);
	uint8_t asc = key_bit < UAE_KEYBIT_NO_SENSE_DATA ? sense->asc : 0;
	uint8_t ascq = key_bit < UAE_KEYBIT_NO_SENSE_DATA ? sense->ascq : 0;
	const struct uae_class_rule *r = NULL;
	size_t i;

	/* The midlayer strips DID_PASSTHROUGH and goes on as for DID_OK. */
	if (host_byte == UAE_DID_PASSTHROUGH)
		host_byte = UAE_DID_OK;

	for (i = 0; i < UAE_ARRAY_SIZE(uae_class_rules); i++) {
		r = &uae_class_rules[i];
		if (set_has(&r->host, host_byte) && set_has(&r->status, status) &&
		    (r->keys & key_bit) && set_has(&r->asc, asc) && set_has(&r->ascq, ascq))
			break;
	}
	/* gen-tables.py guarantees that the last rule matches everything. */
	out->severity = r->severity;
	out->locus = r->locus;
	out->failover = r->failover;
	out->blk_status = r->blk_status;
	out->differs = r->differs;
	out->rule = r->number;
}

unsigned int uae_class_rule_count(void)
{
	return UAE_ARRAY_SIZE(uae_class_rules);
}

#ifndef UAE_SENSE_NO_TEXT
bool uae_blk_status_is_path_error(enum uae_blk_status blk)
{
	switch (blk) {
	case UAE_BLK_OK:
	case UAE_BLK_NOTSUPP:
	case UAE_BLK_TARGET:
	case UAE_BLK_RESV_CONFLICT:
	case UAE_BLK_NOSPC:
	case UAE_BLK_MEDIUM:
	case UAE_BLK_PROTECTION:
		return false;
	default:
		return true;
	}
}
#endif

const char *uae_severity_name(enum uae_severity sev)
{
	static const char *const names[] = { "none", "retryable", "fatal" };

	return (unsigned int)sev < UAE_ARRAY_SIZE(names) ? names[sev] : "unknown";
}

const char *uae_locus_name(enum uae_locus locus)
{
	static const char *const names[] = { "none", "device", "transport", "host" };

	return (unsigned int)locus < UAE_ARRAY_SIZE(names) ? names[locus] : "unknown";
}

const char *uae_blk_status_name(enum uae_blk_status blk)
{
	static const char *const names[] = {
		[UAE_BLK_OK] = "OK",
		[UAE_BLK_IOERR] = "IOERR",
		[UAE_BLK_TRANSPORT] = "TRANSPORT",
		[UAE_BLK_TARGET] = "TARGET",
		[UAE_BLK_RESV_CONFLICT] = "RESV_CONFLICT",
		[UAE_BLK_NOSPC] = "NOSPC",
		[UAE_BLK_MEDIUM] = "MEDIUM",
		[UAE_BLK_PROTECTION] = "PROTECTION",
		[UAE_BLK_ZONE_OPEN_RESOURCE] = "ZONE_OPEN_RESOURCE",
		[UAE_BLK_NOTSUPP] = "NOTSUPP",
		[UAE_BLK_ZONE_ACTIVE_RESOURCE] = "ZONE_ACTIVE_RESOURCE",
	};

	return (unsigned int)blk < UAE_ARRAY_SIZE(names) ? names[blk] : "unknown";
}

const char *uae_host_byte_name(uint8_t host_byte)
{
	if (host_byte >= UAE_ARRAY_SIZE(uae_host_byte_names))
		return NULL;
	return uae_host_byte_names[host_byte];
}

const char *uae_status_name(uint8_t status)
{
	if (status >= UAE_ARRAY_SIZE(uae_status_names))
		return NULL;
	return uae_status_names[status];
}
