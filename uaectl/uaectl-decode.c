// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaectl decode: sense data given in hex, decoded for a person (compare sg_decode_sense
 * from sg3_utils) or as JSON, with its classification.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "uae_nvme.h"
#include "uae_sense.h"
#include "uaectl.h"

#define SENSE_MAX 252	/* 8 + the largest additional length */

/*
 * Hex digits from the arguments, in pairs; spaces, colons and a leading "0x" between
 * bytes are allowed ("70 00 06", "700006", "0x70:0x00").  At most @size bytes.
 */
int uaectl_parse_hex(int argc, char **argv, uint8_t *buf, size_t size, size_t *len)
{
	*len = 0;
	for (int i = 0; i < argc; i++) {
		const char *p = argv[i];

		while (*p) {
			if (isspace((unsigned char)*p) || *p == ':' || *p == ',') {
				p++;
				continue;
			}
			if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
			    isxdigit((unsigned char)p[2]) && isxdigit((unsigned char)p[3])) {
				p += 2;
				continue;
			}
			if (isxdigit((unsigned char)p[0]) && !p[1]) {
				fprintf(stderr, "uaectl: odd number of hex digits\n");
				return -EINVAL;
			}
			if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1])) {
				fprintf(stderr, "uaectl: not a hex byte at '%.8s'\n", p);
				return -EINVAL;
			}
			if (*len == size) {
				fprintf(stderr, "uaectl: more than %zu bytes\n", size);
				return -E2BIG;
			}
			buf[(*len)++] = (uint8_t)strtoul((char[]){ p[0], p[1], 0 }, NULL, 16);
			p += 2;
		}
	}
	return 0;
}

int uaectl_parse_code(const char *arg, const char *(*name_of)(uint8_t), uint8_t *out)
{
	char *end;
	unsigned long v;

	for (unsigned int c = 0; c < 256; c++) {
		const char *name = name_of((uint8_t)c);

		if (name && strcasecmp(name, arg) == 0) {
			*out = (uint8_t)c;
			return 0;
		}
	}
	errno = 0;
	v = strtoul(arg, &end, 0);
	if (errno || *end || end == arg || v > 0xff)
		return -EINVAL;
	*out = (uint8_t)v;
	return 0;
}

static const char *status_text(enum uae_sense_status st)
{
	switch (st) {
	case UAE_SENSE_OK:
		return "complete";
	case UAE_SENSE_PARTIAL:
		return "partial (truncated or corrupt)";
	default:
		return "invalid";
	}
}

static const char *sks_kind_name(enum uae_sks_kind kind)
{
	static const char *const names[] = {
		"none", "field pointer", "actual retry count", "progress indication",
		"segment pointer", "unit attention queue overflow", "unknown",
	};

	return (unsigned int)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "unknown";
}

static const char *asc_text(const struct uae_sense *s)
{
	const char *desc = uae_asc_description(s->asc, s->ascq);

	if (desc)
		return desc;
	return uae_asc_kind(s->asc, s->ascq) == UAE_ASC_VENDOR ? "vendor specific" :
								  "reserved (not assigned)";
}

static void print_text(const struct uae_sense *s, size_t len, uint8_t host, uint8_t status,
		       const struct uae_class *cl)
{
	const char *host_name = uae_host_byte_name(host), *status_name = uae_status_name(status);

	if (s->status == UAE_SENSE_INVALID) {
		printf("Sense data: %s\n", len ? status_text(s->status) : "none given");
		goto classify;
	}
	printf("Sense data: %s, %s format, %s error (response code %02Xh)\n",
	       status_text(s->status), s->descriptor ? "descriptor" : "fixed",
	       s->deferred ? "deferred" : "current", s->response_code);
	printf("Sense key: %s (%Xh)\n", uae_sense_key_name(s->sense_key), s->sense_key);
	printf("Additional sense: %s (ASC/ASCQ %02Xh/%02Xh)\n", asc_text(s), s->asc, s->ascq);
	if (s->sense_key == UAE_SENSE_KEY_UNIT_ATTENTION)
		printf("Event: %s (category %s)\n", uae_ua_event_name(s->asc, s->ascq),
		       uae_category_name(uae_ua_category(s->asc, s->ascq)));
	if (s->info_valid)
		printf("Information: 0x%" PRIx64 "\n", s->information);
	if (s->command_info_valid && s->command_info)
		printf("Command-specific information: 0x%" PRIx64 "\n", s->command_info);
	if (s->fru_valid)
		printf("Field replaceable unit code: %u\n", s->fru);
	if (s->sks_valid) {
		printf("Sense-key specific: %s", sks_kind_name(s->sks.kind));
		switch (s->sks.kind) {
		case UAE_SKS_FIELD_POINTER:
		case UAE_SKS_SEGMENT_POINTER:
			printf(": byte %u", s->sks.field_pointer);
			if (s->sks.bit_pointer_valid)
				printf(" bit %u", s->sks.bit_pointer);
			printf(" of the %s", s->sks.kind == UAE_SKS_SEGMENT_POINTER ?
			       (s->sks.segment_descriptor ? "segment descriptor" : "parameter list") :
			       (s->sks.command ? "CDB" : "parameter data"));
			break;
		case UAE_SKS_RETRY_COUNT:
			printf(": %u", s->sks.retry_count);
			break;
		case UAE_SKS_PROGRESS:
			printf(": %u%%", (unsigned int)s->sks.progress * 100 / 65536);
			break;
		case UAE_SKS_UA_OVERFLOW:
			printf(": %s", s->sks.overflow ? "overflowed" : "no");
			break;
		default:
			printf(": %02x %02x %02x", s->sks.raw[0], s->sks.raw[1], s->sks.raw[2]);
			break;
		}
		putchar('\n');
	}
	if (s->filemark || s->eom || s->ili)
		printf("Flags:%s%s%s\n", s->filemark ? " FILEMARK" : "", s->eom ? " EOM" : "",
		       s->ili ? " ILI" : "");
	if (s->ata_valid)
		printf("ATA status return: extend %d error 0x%02x count 0x%04x lba 0x%012" PRIx64
		       " device 0x%02x status 0x%02x\n", s->ata.extend, s->ata.error,
		       s->ata.count, s->ata.lba, s->ata.device, s->ata.status);
	if (s->descriptor)
		printf("Descriptors: %u (%u of unknown type, skipped)\n", s->descriptors,
		       s->unknown_descriptors);
classify:
	printf("Classification (host byte %s, status %s): %s, %s error, another path %s, "
	       "kernel blk_status %s (rule %u%s)\n",
	       host_name ? host_name : "unknown", status_name ? status_name : "unknown",
	       uae_severity_name(cl->severity), uae_locus_name(cl->locus),
	       cl->failover ? "may help" : "does not help", uae_blk_status_name(cl->blk_status),
	       cl->rule, cl->differs ? ", differs from blk_path_error()" : "");
}

/* The classification's JSON object, as for sense data. */
static json_object *class_json(const struct uae_class *cl)
{
	json_object *c = json_object_new_object();

	json_object_object_add(c, "severity", json_object_new_string(uae_severity_name(cl->severity)));
	json_object_object_add(c, "locus", json_object_new_string(uae_locus_name(cl->locus)));
	json_object_object_add(c, "failover", json_object_new_boolean(cl->failover));
	json_object_object_add(c, "blk_status",
			       json_object_new_string(uae_blk_status_name(cl->blk_status)));
	json_object_object_add(c, "differs_from_kernel", json_object_new_boolean(cl->differs));
	json_object_object_add(c, "rule", json_object_new_int(cl->rule));
	return c;
}

static void print_json(const struct uae_sense *s, const struct uae_class *cl)
{
	json_object *o = json_object_new_object();
	const char *desc = uae_asc_description(s->asc, s->ascq);

	json_object_object_add(o, "status", json_object_new_string(
		s->status == UAE_SENSE_OK ? "ok" : s->status == UAE_SENSE_PARTIAL ? "partial" :
		"invalid"));
	json_object_object_add(o, "response_code", json_object_new_int(s->response_code));
	json_object_object_add(o, "format",
			       json_object_new_string(s->descriptor ? "descriptor" : "fixed"));
	json_object_object_add(o, "deferred", json_object_new_boolean(s->deferred));
	json_object_object_add(o, "sense_key", json_object_new_int(s->sense_key));
	json_object_object_add(o, "sense_key_name",
			       json_object_new_string(uae_sense_key_name(s->sense_key)));
	json_object_object_add(o, "asc", json_object_new_int(s->asc));
	json_object_object_add(o, "ascq", json_object_new_int(s->ascq));
	json_object_object_add(o, "description", desc ? json_object_new_string(desc) : NULL);
	json_object_object_add(o, "vendor_specific", json_object_new_boolean(
		uae_asc_kind(s->asc, s->ascq) == UAE_ASC_VENDOR));
	if (s->sense_key == UAE_SENSE_KEY_UNIT_ATTENTION) {
		json_object_object_add(o, "event", json_object_new_string(
			uae_ua_event_name(s->asc, s->ascq)));
		json_object_object_add(o, "category", json_object_new_string(
			uae_category_name(uae_ua_category(s->asc, s->ascq))));
	}
	if (s->info_valid)
		json_object_object_add(o, "information", json_object_new_uint64(s->information));
	if (s->command_info_valid)
		json_object_object_add(o, "command_specific",
				       json_object_new_uint64(s->command_info));
	if (s->fru_valid)
		json_object_object_add(o, "fru", json_object_new_int(s->fru));
	if (s->sks_valid) {
		json_object *k = json_object_new_object();

		json_object_object_add(k, "kind", json_object_new_string(sks_kind_name(s->sks.kind)));
		json_object_object_add(k, "field_pointer", json_object_new_int(s->sks.field_pointer));
		json_object_object_add(k, "bit_pointer", s->sks.bit_pointer_valid ?
				       json_object_new_int(s->sks.bit_pointer) : NULL);
		json_object_object_add(k, "in_cdb", json_object_new_boolean(s->sks.command));
		json_object_object_add(k, "retry_count", json_object_new_int(s->sks.retry_count));
		json_object_object_add(k, "progress", json_object_new_int(s->sks.progress));
		json_object_object_add(o, "sense_key_specific", k);
	}
	json_object_object_add(o, "filemark", json_object_new_boolean(s->filemark));
	json_object_object_add(o, "eom", json_object_new_boolean(s->eom));
	json_object_object_add(o, "ili", json_object_new_boolean(s->ili));
	if (s->ata_valid) {
		json_object *a = json_object_new_object();

		json_object_object_add(a, "extend", json_object_new_boolean(s->ata.extend));
		json_object_object_add(a, "error", json_object_new_int(s->ata.error));
		json_object_object_add(a, "count", json_object_new_int(s->ata.count));
		json_object_object_add(a, "lba", json_object_new_uint64(s->ata.lba));
		json_object_object_add(a, "device", json_object_new_int(s->ata.device));
		json_object_object_add(a, "status", json_object_new_int(s->ata.status));
		json_object_object_add(o, "ata_status", a);
	}
	json_object_object_add(o, "descriptors", json_object_new_int(s->descriptors));
	json_object_object_add(o, "classification", class_json(cl));
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

/*
 * An NVMe status in hex, as Linux keeps it (the completion's status field without the
 * phase tag, as the nvme_complete_rq tracepoint and nvme-cli show it: "4281", "0x4281"),
 * or as its kernel log line gives it, status code type and status code: "2/81" (then
 * without the flags, which the log line spells out).
 */
static int parse_nvme_status(const char *arg, unsigned int *out)
{
	unsigned long sct, sc, v;
	char *end;

	if (!arg[0] || arg[0] == '-' || arg[0] == '+')
		return -EINVAL;
	errno = 0;
	v = strtoul(arg, &end, 16);
	if (*end == '/') {
		sct = v;
		if (!end[1] || end[1] == '-' || end[1] == '+')
			return -EINVAL;
		sc = strtoul(end + 1, &end, 16);
		if (errno || *end || sct > 7 || sc > 0xff)
			return -EINVAL;
		*out = (unsigned int)(sct << 8 | sc);
		return 0;
	}
	if (errno || *end || v > 0x7fff)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

/* uaectl decode --nvme STATUS: named and classified by docs/classification.md's NVMe table. */
static int decode_nvme(const char *arg, bool json)
{
	const char *name, *sct;
	struct uae_class cl, base;
	unsigned int v;

	if (parse_nvme_status(arg, &v) < 0) {
		fprintf(stderr, "uaectl decode: bad NVMe status '%s' (hex, at most 7fff, or "
			"SCT/SC)\n", arg);
		return EXIT_USAGE;
	}
	name = uae_nvme_status_name((uint16_t)v);
	sct = uae_nvme_sct_name((uint16_t)v);
	uae_nvme_classify((uint16_t)v, &cl);
	uae_nvme_classify((uint16_t)(v & ~UAE_NVME_DNR), &base);
	if (json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "value", json_object_new_int((int)v));
		json_object_object_add(o, "sct", json_object_new_int(UAE_NVME_SCT(v)));
		json_object_object_add(o, "sct_name", sct ? json_object_new_string(sct) : NULL);
		json_object_object_add(o, "sc", json_object_new_int(UAE_NVME_SC(v)));
		json_object_object_add(o, "name", name ? json_object_new_string(name) : NULL);
		json_object_object_add(o, "crd", json_object_new_int(UAE_NVME_CRD(v)));
		json_object_object_add(o, "more", json_object_new_boolean(v & UAE_NVME_MORE));
		json_object_object_add(o, "dnr", json_object_new_boolean(v & UAE_NVME_DNR));
		json_object_object_add(o, "classification", class_json(&cl));
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		return EXIT_OK;
	}
	printf("NVMe status %04Xh: %s (status code type %u %s, status code %02Xh)\n", v,
	       name ? name : "not named", UAE_NVME_SCT(v), sct ? sct : "reserved",
	       UAE_NVME_SC(v));
	printf("Flags: DNR %s, More %s, CRD %u\n", v & UAE_NVME_DNR ? "set" : "clear",
	       v & UAE_NVME_MORE ? "set" : "clear", UAE_NVME_CRD(v));
	printf("Classification: %s%s, %s error, another path %s, kernel blk_status %s "
	       "(NVMe rule %u%s)\n", uae_severity_name(cl.severity),
	       cl.severity != base.severity ? " (DNR set)" : "", uae_locus_name(cl.locus),
	       cl.failover ? "may help" : "does not help", uae_blk_status_name(cl.blk_status),
	       cl.rule, cl.differs ? ", differs from blk_path_error()" : "");
	return EXIT_OK;
}

int cmd_decode(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "host-byte", required_argument, NULL, 'H' },
		{ "status", required_argument, NULL, 's' },
		{ "nvme", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	uint8_t buf[SENSE_MAX], host = UAE_DID_OK, status = UAE_SAM_STAT_CHECK_CONDITION;
	bool result_given = false;
	struct uae_sense sense;
	struct uae_class cl;
	const char *nvme = NULL;
	bool json = false;
	size_t len;
	int c;

	while ((c = getopt_long(argc, argv, "jH:s:n:h", options, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'H':
			result_given = true;
			if (uaectl_parse_code(optarg, uae_host_byte_name, &host) < 0) {
				fprintf(stderr, "uaectl decode: bad host byte '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			result_given = true;
			if (uaectl_parse_code(optarg, uae_status_name, &status) < 0) {
				fprintf(stderr, "uaectl decode: bad status '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			nvme = optarg;
			break;
		case 'h':
			puts("Usage: uaectl decode [--json] [--host-byte B] [--status S] HEX...\n"
			     "       uaectl decode [--json] --nvme STATUS");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (nvme) {
		if (result_given || optind != argc) {
			fprintf(stderr, "uaectl decode: --nvme takes a status alone\n");
			return EXIT_USAGE;
		}
		return decode_nvme(nvme, json);
	}
	if (uaectl_parse_hex(argc - optind, argv + optind, buf, sizeof(buf), &len) < 0)
		return EXIT_USAGE;
	/* Without sense data, only a host byte or status can be classified. */
	if (len == 0 && !result_given) {
		fprintf(stderr, "uaectl decode: no sense bytes given\n");
		return EXIT_USAGE;
	}

	uae_sense_decode(buf, len, &sense);
	uae_classify(host, status, &sense, &cl);
	if (json)
		print_json(&sense, &cl);
	else
		print_text(&sense, len, host, status, &cl);
	/* Sense bytes that are not sense data fail the command; the answer says why. */
	return len && sense.status == UAE_SENSE_INVALID ? EXIT_FAIL : EXIT_OK;
}
