/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uaevents: one captured event on its way from the SCSI midlayer to netlink.
 */
#ifndef UAE_EVENT_H
#define UAE_EVENT_H

#include <linux/blkdev.h>
#include <linux/list.h>
#include <linux/types.h>
#include <scsi/scsi_cmnd.h>

#include <uapi/linux/uaevents.h>

#include "uae_sense.h"

struct scsi_device;

/*
 * Captured in atomic context by the kprobe, delivered later from a work item.
 * Holds a reference on @sdev's device until it is freed.
 */
struct uae_event {
	struct list_head node;
	struct scsi_device *sdev;
	u64 seq;
	u64 timestamp_ns;
	enum uaevents_kind kind;
	u32 host, channel, target;
	u64 lun;
	char devname[DISK_NAME_LEN];
	u8 sense[SCSI_SENSE_BUFFERSIZE];
	u8 sense_len;
	struct uae_sense decoded;
	enum uae_category category;
	const char *name;	/* static string from the shared tables */
};

extern u64 uae_instance_id;

int uae_netlink_init(void);
void uae_netlink_exit(void);
void uae_netlink_publish(const struct uae_event *ev);

#endif /* UAE_EVENT_H */
