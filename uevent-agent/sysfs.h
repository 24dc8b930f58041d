/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd: reading and writing the attributes of SCSI devices in sysfs, by address or
 * through a directory fd that pins one device (a device re-added at the same address is
 * another directory: the fd of the old one then finds nothing).
 */
#ifndef UAED_SYSFS_H
#define UAED_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Sysfs strings of the scsi_device at @hctl ("wwid", "state"...) as sysfs shows them,
 * without the newline.
 */
int uaed_sysfs_read(const char *hctl, const char *attr, char *buf, size_t size);
/* The same, relative to the directory fd of one device (an attribute or "block/sdc/dev"). */
int uaed_sysfs_readat(int dirfd, const char *attr, char *buf, size_t size);
/* INQUIRY's space-padded fields ("vendor", "model", "rev"), without the padding. */
int uaed_sysfs_read_padded(const char *hctl, const char *attr, char *buf, size_t size);
/* Write @value to the attribute at @path (relative to @dirfd unless AT_FDCWD). */
int uaed_sysfs_writeat(int dirfd, const char *path, const char *value);
/* The first entry of directory @rel below @dirfd ("holders/dm-3"), if any, into @name. */
bool uaed_sysfs_first_entry(int dirfd, const char *rel, char *name, size_t size);
/* The directory fd of the scsi_device at @hctl (its "device" directory), or -errno. */
int uaed_sysfs_open_lu(const char *hctl);

#endif /* UAED_SYSFS_H */
