// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: the identity of a logical unit, so that events from several paths to one LU
 * can be grouped: WWID (as sysfs "wwid" shows it), serial number, sg and block devices.
 * Process context; the caller holds a reference on the device.
 */
#include <linux/device.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <scsi/scsi_device.h>

#include "uae.h"

/* Device-supplied strings: printable ASCII only, so no consumer is surprised. */
static void uae_sanitize(char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			*s = '_';
}

static void uae_serial(struct scsi_device *sdev, char *buf, size_t size)
{
	const struct scsi_vpd *vpd;
	size_t len = 0;
	char *trimmed;

	rcu_read_lock();
	vpd = rcu_dereference(sdev->vpd_pg80);
	/* VPD 80h: 4-byte header, byte 3 the length of the serial number. */
	if (vpd && vpd->len >= 4) {
		len = min3((size_t)vpd->data[3], (size_t)vpd->len - 4, size - 1);
		memcpy(buf, vpd->data + 4, len);
	}
	rcu_read_unlock();
	buf[len] = '\0';
	trimmed = strim(buf);
	memmove(buf, trimmed, strlen(trimmed) + 1);
}

struct uae_child_match {
	const char *class;
	char *name;
	size_t size;
};

static int uae_match_child(struct device *dev, void *data)
{
	struct uae_child_match *m = data;

	if (!dev->class || strcmp(dev->class->name, m->class))
		return 0;
	strscpy(m->name, dev_name(dev), m->size);
	return 1;
}

/* The name of @sdev's child device of class @class ("sg1", "sdb"). */
static void uae_child_name(struct scsi_device *sdev, const char *class, char *buf,
			   size_t size)
{
	struct uae_child_match m = { .class = class, .name = buf, .size = size };

	device_for_each_child(&sdev->sdev_gendev, &m, uae_match_child);
}

static void uae_wwid(struct scsi_device *sdev, char *buf, size_t size)
{
	if (scsi_vpd_lun_id(sdev, buf, size) <= 0)
		buf[0] = '\0';
	uae_sanitize(buf);
}

/* Whether @sdev still has the WWID recorded in @rec (an empty one included). */
bool uae_identity_same(struct scsi_device *sdev, const struct uae_record *rec)
{
	char wwid[UAE_WWID_LEN];

	uae_wwid(sdev, wwid, sizeof(wwid));
	return !strcmp(wwid, rec->wwid);
}

void uae_identity_fill(struct scsi_device *sdev, struct uae_record *rec)
{
	uae_wwid(sdev, rec->wwid, sizeof(rec->wwid));
	uae_serial(sdev, rec->serial, sizeof(rec->serial));
	uae_sanitize(rec->serial);
	uae_child_name(sdev, "scsi_generic", rec->sgdev, sizeof(rec->sgdev));
	if (!rec->devname[0])
		uae_child_name(sdev, "block", rec->devname, sizeof(rec->devname));
}
