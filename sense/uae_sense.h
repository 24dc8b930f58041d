/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The shared SCSI sense decoder: one freestanding source compiled into both the kernel
 * module and libuaevents, so that the kernel and every tool agree on what sense data
 * means and on the name of every event.
 */
#ifndef UAE_SENSE_H
#define UAE_SENSE_H

#include "uae_types.h"

#define UAE_SENSE_KEY_UNIT_ATTENTION	0x6

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
	UAE_SENSE_PARTIAL,	/* truncated: the fields that fit were decoded */
	UAE_SENSE_INVALID,	/* not sense data (bad response code, too short) */
};

struct uae_sense {
	enum uae_sense_status status;
	uint8_t response_code;	/* 70h, 71h, 72h or 73h */
	bool descriptor;	/* descriptor format (72h/73h) */
	bool deferred;		/* deferred error (71h/73h) */
	uint8_t sense_key;
	uint8_t asc;
	uint8_t ascq;
};

/*
 * Decode @len bytes of sense data at @buf into @out.  Never reads past @len.
 * Returns out->status.
 */
enum uae_sense_status uae_sense_decode(const uint8_t *buf, size_t len,
				       struct uae_sense *out);

/* T10's description of an ASC/ASCQ pair, or NULL when it is not assigned. */
const char *uae_asc_description(uint8_t asc, uint8_t ascq);

/*
 * A stable, upper-case identifier for an ASC/ASCQ pair ("CAPACITY_DATA_HAS_CHANGED"),
 * or NULL when it is not assigned.
 */
const char *uae_asc_ident(uint8_t asc, uint8_t ascq);

/*
 * The stable event name of a unit attention: the kernel's SDEV_UA= name where the kernel
 * has one, else the T10 identifier, else "UNIT_ATTENTION".  Never NULL.
 */
const char *uae_ua_event_name(uint8_t asc, uint8_t ascq);

/* The category of a unit attention with this ASC/ASCQ. */
enum uae_category uae_ua_category(uint8_t asc, uint8_t ascq);

/* "space", "inventory", ...; "unknown" for out-of-range values. */
const char *uae_category_name(enum uae_category cat);

/* "UNIT ATTENTION", ...; "RESERVED" for out-of-range values. */
const char *uae_sense_key_name(uint8_t key);

#endif /* UAE_SENSE_H */
