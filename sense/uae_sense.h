/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The shared SCSI sense decoder and error classifier: one freestanding source compiled
 * into both the kernel module and libuaevents, so that the kernel and every tool agree
 * on what sense data means, on the name of every event and on every classification.
 */
#ifndef UAE_SENSE_H
#define UAE_SENSE_H

#include "uae_types.h"

#define UAE_SENSE_KEY_NO_SENSE		0x0
#define UAE_SENSE_KEY_RECOVERED_ERROR	0x1
#define UAE_SENSE_KEY_NOT_READY		0x2
#define UAE_SENSE_KEY_MEDIUM_ERROR	0x3
#define UAE_SENSE_KEY_HARDWARE_ERROR	0x4
#define UAE_SENSE_KEY_ILLEGAL_REQUEST	0x5
#define UAE_SENSE_KEY_UNIT_ATTENTION	0x6
#define UAE_SENSE_KEY_DATA_PROTECT	0x7
#define UAE_SENSE_KEY_COPY_ABORTED	0xa
#define UAE_SENSE_KEY_ABORTED_COMMAND	0xb

#define UAE_SAM_STAT_CHECK_CONDITION	0x02

/* Event categories of unit attentions; the values are part of the netlink ABI. */
enum uae_category {
	UAE_CAT_NONE = 0,	/* not a unit attention */
	UAE_CAT_RESET,		/* 29h/xx: power on, reset, I_T nexus loss */
	UAE_CAT_PARAMETERS,	/* 2Ah/xx: capacity, mode, ALUA state, reservations... */
	UAE_CAT_SPACE,		/* 38h/07h: thin provisioning soft threshold reached */
	UAE_CAT_INVENTORY,	/* 3Fh/xx: LUNs, inquiry data, device identifier... */
	UAE_CAT_MICROCODE,	/* 3Fh/01h, 3Fh/16h */
	UAE_CAT_MEDIUM,		/* 28h/xx, 3Ah/xx, 5Ah/xx: medium changed or removed */
	UAE_CAT_OTHER,		/* any other unit attention */
	UAE_CAT_MAX = UAE_CAT_OTHER
};

/* What a decode call could make of a buffer. */
enum uae_sense_status {
	UAE_SENSE_OK = 0,	/* complete and well formed */
	UAE_SENSE_PARTIAL,	/* truncated or corrupt: the fields that fit were decoded */
	UAE_SENSE_INVALID,	/* not sense data (bad response code, too short) */
};

/* How to read the 3 bytes of the sense-key-specific field (SPC-4 4.5.2.4). */
enum uae_sks_kind {
	UAE_SKS_NONE = 0,
	UAE_SKS_FIELD_POINTER,		/* ILLEGAL REQUEST */
	UAE_SKS_RETRY_COUNT,		/* RECOVERED, MEDIUM or HARDWARE ERROR */
	UAE_SKS_PROGRESS,		/* NO SENSE, NOT READY */
	UAE_SKS_SEGMENT_POINTER,	/* COPY ABORTED */
	UAE_SKS_UA_OVERFLOW,		/* UNIT ATTENTION: condition queue overflowed */
	UAE_SKS_OTHER,			/* any other key: raw bytes only */
};

struct uae_sks {
	enum uae_sks_kind kind;
	uint8_t raw[3];
	bool command;		/* field pointer: into the CDB, else parameter data */
	bool segment_descriptor; /* segment pointer: into a segment descriptor */
	bool bit_pointer_valid;
	uint8_t bit_pointer;
	uint16_t field_pointer;	/* field and segment pointers: byte offset */
	uint16_t retry_count;	/* actual retry count */
	uint16_t progress;	/* progress indication, in 1/65536 */
	bool overflow;		/* unit attention condition queue overflow */
};

/* ATA Status Return descriptor (09h, SAT). */
struct uae_ata_status {
	bool extend;
	uint8_t error;
	uint16_t count;
	uint64_t lba;		/* 48 bits */
	uint8_t device;
	uint8_t status;
};

struct uae_sense {
	enum uae_sense_status status;
	uint8_t response_code;	/* 70h, 71h, 72h or 73h */
	bool descriptor;	/* descriptor format (72h/73h) */
	bool deferred;		/* deferred error (71h/73h) */
	uint8_t sense_key;
	uint8_t asc;
	uint8_t ascq;

	bool info_valid;	/* INFORMATION: VALID bit (fixed) or descriptor 00h */
	uint64_t information;
	bool command_info_valid; /* COMMAND-SPECIFIC INFORMATION, field or descriptor 01h */
	uint64_t command_info;
	bool sks_valid;		/* SKSV: field or descriptor 02h */
	struct uae_sks sks;
	bool fru_valid;		/* a non-zero FIELD REPLACEABLE UNIT code, or descriptor 03h */
	uint8_t fru;
	bool filemark, eom, ili; /* fixed byte 2, or descriptors 04h/05h */
	bool ata_valid;		/* descriptor 09h */
	struct uae_ata_status ata;

	uint8_t descriptors;	/* descriptors found (descriptor format) */
	uint8_t unknown_descriptors; /* of which of types this decoder skips */
};

/*
 * Decode @len bytes of sense data at @buf into @out.  Never reads past @len nor past what
 * the additional length field claims.  Returns out->status.
 */
enum uae_sense_status uae_sense_decode(const uint8_t *buf, size_t len,
				       struct uae_sense *out);

/* Bytes of a sense buffer worth keeping: the header plus what its additional length says. */
size_t uae_sense_length(const uint8_t *buf, size_t len);

/* How an ASC/ASCQ pair is assigned. */
enum uae_asc_kind {
	UAE_ASC_ASSIGNED = 0,	/* listed by T10 */
	UAE_ASC_RANGED,		/* ASCQ is a parameter ("40h/NNh") */
	UAE_ASC_VENDOR,		/* ASC or ASCQ >= 80h and not listed: vendor specific */
	UAE_ASC_RESERVED,	/* not assigned */
};

enum uae_asc_kind uae_asc_kind(uint8_t asc, uint8_t ascq);

/*
 * T10's description of an ASC/ASCQ pair, or NULL when it is not assigned.  Not in builds
 * with UAE_SENSE_NO_TEXT (the kernel module, which never prints one): 40 KB of strings.
 */
#ifndef UAE_SENSE_NO_TEXT
const char *uae_asc_description(uint8_t asc, uint8_t ascq);
#endif

/*
 * A stable, upper-case identifier for an ASC/ASCQ pair ("CAPACITY_DATA_HAS_CHANGED"),
 * or NULL when it is not assigned.
 */
const char *uae_asc_ident(uint8_t asc, uint8_t ascq);

/*
 * The stable event name of a unit attention: the kernel's SDEV_UA= name where the kernel
 * has one, else the T10 identifier, else "VENDOR_SPECIFIC_UNIT_ATTENTION" or
 * "UNIT_ATTENTION".  Never NULL.
 */
const char *uae_ua_event_name(uint8_t asc, uint8_t ascq);

/*
 * A stable name for a failed command: the host byte's name for a host byte error
 * ("DID_TRANSPORT_FAILFAST"), the T10 identifier of the ASC/ASCQ for CHECK CONDITION
 * ("UNRECOVERED_READ_ERROR", else the sense key: "MEDIUM_ERROR"), the status otherwise
 * ("RESERVATION_CONFLICT").  Never NULL.
 */
const char *uae_error_name(uint8_t host_byte, uint8_t status, const struct uae_sense *sense);

/* The category of a unit attention with this ASC/ASCQ. */
enum uae_category uae_ua_category(uint8_t asc, uint8_t ascq);

/* "space", "inventory", ...; "unknown" for out-of-range values. */
const char *uae_category_name(enum uae_category cat);

/* "UNIT ATTENTION", ...; "RESERVED" for out-of-range values. */
const char *uae_sense_key_name(uint8_t key);

/* Classification of a command's result: see docs/classification.md. */
enum uae_severity {
	UAE_SEV_NONE = 0,	/* not an error */
	UAE_SEV_RETRYABLE,	/* may succeed if retried on the same path */
	UAE_SEV_FATAL,		/* will not succeed by retrying on this path */
};

enum uae_locus {
	UAE_LOCUS_NONE = 0,
	UAE_LOCUS_DEVICE,	/* the logical unit or its target port */
	UAE_LOCUS_TRANSPORT,	/* the link or fabric between host and target */
	UAE_LOCUS_HOST,		/* the HBA, its driver or the host's error handling */
};

/* The block status the kernel gives such a result (blk_status_t, by name). */
enum uae_blk_status {
	UAE_BLK_OK = 0,
	UAE_BLK_IOERR,
	UAE_BLK_TRANSPORT,
	UAE_BLK_TARGET,
	UAE_BLK_RESV_CONFLICT,	/* BLK_STS_NEXUS before Linux 6.4 */
	UAE_BLK_NOSPC,
	UAE_BLK_MEDIUM,
	UAE_BLK_PROTECTION,
	UAE_BLK_ZONE_OPEN_RESOURCE,
	/* Values go out over netlink (UAEVENTS_ATTR_BLK_STATUS): new ones at the end. */
	UAE_BLK_NOTSUPP,
	UAE_BLK_ZONE_ACTIVE_RESOURCE,
};

struct uae_class {
	enum uae_severity severity;
	enum uae_locus locus;
	bool failover;		/* would another path to the LU help? */
	enum uae_blk_status blk_status;
	bool differs;		/* failover differs from the kernel's blk_path_error() */
	/* The row that matched: docs/classification.md's SCSI table, or its NVMe table. */
	uint16_t rule;
};

#define UAE_DID_OK		0x00
#define UAE_DID_PASSTHROUGH	0x0a

/*
 * Classify a command's result from its host byte, its status byte and its sense data
 * (@sense may be NULL).  Every input has a class: the table's last rule matches all.
 */
void uae_classify(uint8_t host_byte, uint8_t status, const struct uae_sense *sense,
		  struct uae_class *out);

/* Rows in the classification table (rules are numbered from 1). */
unsigned int uae_class_rule_count(void);

/*
 * The kernel's blk_path_error() for a block status: for user space and the tests (the
 * kernel has its own).
 */
#ifndef UAE_SENSE_NO_TEXT
bool uae_blk_status_is_path_error(enum uae_blk_status blk);
#endif

const char *uae_severity_name(enum uae_severity sev);
const char *uae_locus_name(enum uae_locus locus);
const char *uae_blk_status_name(enum uae_blk_status blk);
/* "DID_TRANSPORT_FAILFAST", ...; NULL when the value has no name. */
const char *uae_host_byte_name(uint8_t host_byte);
/* "CHECK_CONDITION", ...; NULL when the value has no name. */
const char *uae_status_name(uint8_t status);

#endif /* UAE_SENSE_H */
