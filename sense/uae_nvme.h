/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The shared NVMe completion status decoder and error classifier: the status of a failed
 * NVMe block request named and classified as docs/classification.md's "NVMe status"
 * table says, for the kernel module, libuaevents and the KUnit suite alike.  Freestanding,
 * as uae_sense.c.
 */
#ifndef UAE_NVME_H
#define UAE_NVME_H

#include "uae_sense.h"

/*
 * A status as Linux keeps it (nvme_req(req)->status): the completion queue entry's status
 * field without its phase tag.
 */
#define UAE_NVME_SC(status)	((status) & 0xff)
#define UAE_NVME_SCT(status)	(((status) >> 8) & 0x7)
#define UAE_NVME_CRD(status)	(((status) >> 11) & 0x3)	/* Command Retry Delay */
#define UAE_NVME_MORE		0x2000
#define UAE_NVME_DNR		0x4000				/* Do Not Retry */

/* "LBA_OUT_OF_RANGE", ... from SCT and SC; NULL for a code the table does not name. */
const char *uae_nvme_status_name(uint16_t status);
/*
 * "GENERIC", "COMMAND_SPECIFIC", "MEDIA_AND_DATA_INTEGRITY", "PATH_RELATED",
 * "VENDOR_SPECIFIC"; NULL for a reserved status code type.
 */
const char *uae_nvme_sct_name(uint16_t status);

/*
 * Classify a failed request's status.  Every status has a class: the table's last rule
 * matches all.  With DNR set, a retryable row is fatal (the controller says the command
 * fails again; Linux does not retry it).  out->rule numbers the NVMe table's rows.
 */
void uae_nvme_classify(uint16_t status, struct uae_class *out);

/* Rows in the NVMe classification table (rules are numbered from 1). */
unsigned int uae_nvme_class_rule_count(void);

/*
 * An asynchronous event's result (completion dword 0 of an Asynchronous Event Request, as
 * the nvme_async_event tracepoint and NVME_AEN= give it): its type, information and the
 * log page that tells more (reading it with RAE clear re-arms the event).
 */
#define UAE_NVME_AEN_TYPE(result)	((result) & 0x7)
#define UAE_NVME_AEN_INFO(result)	(((result) >> 8) & 0xff)
#define UAE_NVME_AEN_LOG_PAGE(result)	(((result) >> 16) & 0xff)

/*
 * "NVME_NAMESPACE_ATTRIBUTE_CHANGED", "NVME_SPARE_BELOW_THRESHOLD", ... from the type and
 * information (sense/data/nvme-aen.txt); an event the list lacks is named by its type
 * ("NVME_NOTICE", "NVME_VENDOR_EVENT", ...): never NULL.
 */
const char *uae_nvme_aen_name(uint32_t result);
/* The class of its type: "error", "smart", "notice", "io_command_set", "vendor", "reserved". */
const char *uae_nvme_aen_class(uint32_t result);

/*
 * An ANA group's state (the ANA log's, 1-4 and 0Fh): as the event names it
 * ("NVME_ANA_INACCESSIBLE"), and as sysfs' ana_state shows it ("inaccessible"); NULL for
 * a state the specification does not define.
 */
const char *uae_nvme_ana_event_name(uint8_t state);
const char *uae_nvme_ana_state_name(uint8_t state);

/*
 * The SMART / Health Information log (page 02h): what its first bytes say.  Temperature in
 * kelvins (0: the controller reports none); percentages as the controller sent them (the
 * spare 0-100, used up to 255: beyond 100 the drive is past its rated endurance).
 */
#define UAE_NVME_SMART_LOG_LEN	512
struct uae_nvme_smart {
	uint8_t crit_warning;		/* bit 0: spare, 1: temperature, 2: reliability, ... */
	uint16_t temperature_k;		/* composite temperature */
	uint8_t avail_spare, spare_thresh, percent_used;
	uint8_t endurance_crit;		/* endurance group critical warning summary */
};
/* @log's first UAE_NVME_SMART_LOG_LEN bytes into @out: 0, or -1 if @len is short. */
int uae_nvme_smart_parse(const uint8_t *log, size_t len, struct uae_nvme_smart *out);
/* A Critical Warning bit's name ("spare-below-threshold"), NULL for a reserved one. */
const char *uae_nvme_crit_warning_name(unsigned int bit);

/*
 * Whether @name is a controller's name as the NVMe driver makes them ("nvme%d" of an
 * instance number: digits only, no leading zero, at most 10): the name a stock uevent or
 * a state file gives, before anything opens /dev/@name.
 */
bool uae_nvme_controller_name_valid(const char *name);

#endif /* UAE_NVME_H */
