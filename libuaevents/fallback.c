// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents: without the module, the stock kernel's own uevents, read through libudev:
 * a scsi_device's SDEV_UA= and an NVMe controller's NVME_AEN=.  They carry only the kinds
 * the kernel names and no sense data, sequence number or classification; the device is
 * identified from sysfs.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libudev.h>

#include "uae_nvme.h"
#include "uae_private.h"
#include "uae_sense.h"

/* The ASC/ASCQ behind each SDEV_UA name (drivers/scsi/scsi_error.c: scsi_report_sense()). */
static const struct {
	const char *name;
	uint8_t asc, ascq;
} sdev_ua[] = {
	{ "INQUIRY_DATA_HAS_CHANGED", 0x3f, 0x03 },
	{ "CAPACITY_DATA_HAS_CHANGED", 0x2a, 0x09 },
	{ "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED", 0x38, 0x07 },
	{ "MODE_PARAMETERS_CHANGED", 0x2a, 0x01 },
	{ "REPORTED_LUNS_DATA_HAS_CHANGED", 0x3f, 0x0e },
	{ "ASYMMETRIC_ACCESS_STATE_CHANGED", 0x2a, 0x06 },
	{ "POWER_ON_RESET_OCCURRED", 0x29, 0x00 },
};

static void copy_attr(struct udev_device *dev, const char *attr, char *dst, size_t size)
{
	const char *v = udev_device_get_sysattr_value(dev, attr);
	size_t n = 0, len = v ? strlen(v) : 0;

	/*
	 * As the module sends it: printable ASCII only, without the newline, trailing blanks
	 * kept (a T10 vendor designator can end in them).
	 */
	if (len > 0 && v[len - 1] == '\n')
		len--;
	for (; n < len && n < size - 1; n++)
		dst[n] = v[n] < ' ' || v[n] > '~' ? '_' : v[n];
	dst[n] = '\0';
}

/* The scsi_device's block device ("sdb"): its child in class "block". */
static void block_name(struct udev_device *dev, char *dst, size_t size)
{
	char path[512];
	DIR *d;
	struct dirent *de;

	dst[0] = '\0';
	snprintf(path, sizeof(path), "%s/block", udev_device_get_syspath(dev));
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && strlen(de->d_name) < size) {
			strcpy(dst, de->d_name);
			break;
		}
	closedir(d);
}

/*
 * An NVMe controller's NVME_AEN=0x... (drivers/nvme/host/core.c, nvme_aen_uevent()): the
 * completion's dword 0 of an asynchronous event the driver leaves to user space (SMART /
 * health, errors, command set and vendor events, a discovery log change), as the module's
 * AEN events carry it.  Namespace and ANA changes and firmware activation send none.
 */
static struct uae_event *aen_from_udev(const char *aen, const char *sysname)
{
	static const char hex[] = "0123456789abcdefABCDEF";
	struct uae_event *ev;
	unsigned long v;
	char *end;

	/* The name a job later opens under /dev: the driver's, exactly. */
	if (!uae_nvme_controller_name_valid(sysname))
		return NULL;
	/* "0x" and hex digits, as the driver prints it ("%#08x"): nothing strtoul would skip. */
	if (strncmp(aen, "0x", 2) || !aen[2] || strspn(aen + 2, hex) != strlen(aen + 2))
		return NULL;
	errno = 0;
	v = strtoul(aen + 2, &end, 16);
	if (errno || *end || v == 0 || v > UINT32_MAX)
		return NULL;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return NULL;
	ev->refcount = 1;
	ev->kind = UAE_EVENT_AEN;
	ev->repeat = 1;
	ev->transport = UAEVENTS_TRANSPORT_NVME;
	ev->aen_result = (uint32_t)v;
	snprintf(ev->nvme_ctrl, sizeof(ev->nvme_ctrl), "%s", sysname);
	snprintf(ev->name, sizeof(ev->name), "%s", uae_nvme_aen_name(ev->aen_result));
	ev->flags = UAE_EVENT_FLAG_STOCK;
	return ev;
}

struct uae_event *uae_event_from_udev(struct udev_device *dev)
{
	const char *ua = udev_device_get_property_value(dev, "SDEV_UA");
	const char *aen = udev_device_get_property_value(dev, "NVME_AEN");
	const char *subsystem = udev_device_get_subsystem(dev);
	const char *sysname = udev_device_get_sysname(dev);
	unsigned long long lun;
	struct uae_event *ev;
	size_t i;

	if (!sysname || !subsystem)
		return NULL;
	if (!strcmp(subsystem, "nvme"))
		return aen ? aen_from_udev(aen, sysname) : NULL;
	if (!ua || strcmp(subsystem, "scsi"))
		return NULL;
	for (i = 0; i < sizeof(sdev_ua) / sizeof(sdev_ua[0]); i++)
		if (!strcmp(ua, sdev_ua[i].name))
			break;
	if (i == sizeof(sdev_ua) / sizeof(sdev_ua[0]))
		return NULL;	/* a name this version does not know */
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return NULL;
	if (sscanf(sysname, "%u:%u:%u:%llu", &ev->host, &ev->channel, &ev->target, &lun) != 4) {
		free(ev);
		return NULL;
	}
	ev->refcount = 1;
	ev->kind = UAE_EVENT_UA;
	ev->repeat = 1;
	ev->lun = lun;
	snprintf(ev->hctl, sizeof(ev->hctl), "%s", sysname);
	snprintf(ev->name, sizeof(ev->name), "%s", sdev_ua[i].name);
	ev->has_sense = true;
	ev->sense_key = UAE_SENSE_KEY_UNIT_ATTENTION;
	ev->asc = sdev_ua[i].asc;
	ev->ascq = sdev_ua[i].ascq;
	ev->category = uae_ua_category(ev->asc, ev->ascq);
	copy_attr(dev, "wwid", ev->wwid, sizeof(ev->wwid));
	block_name(dev, ev->devname, sizeof(ev->devname));
	ev->flags = UAE_EVENT_FLAG_STOCK;
	return ev;
}
