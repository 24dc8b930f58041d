/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd: the Device Identification VPD page (83h), as the kernel cached it at scan time
 * (sysfs vpd_pg83) or as a LU answers now.  One walker over its designators, libsgutils'.
 */
#ifndef UAED_VPD_H
#define UAED_VPD_H

#include <stddef.h>
#include <stdint.h>

/* As much of page 83h as is read (the kernel's scsi_get_vpd_buf() grows to what is needed). */
#define UAED_VPD83_MAX 2048

/*
 * The length of page 83h in @page, @n bytes read: its header's, if the read holds it all,
 * or -EBADMSG (not page 83h, or shorter than its header).
 */
int uaed_vpd83_len(const uint8_t *page, int n);
/* Page 83h as the kernel cached it for the LU at directory fd @dirfd: its length, -errno. */
int uaed_vpd83_cached(int dirfd, uint8_t *page, size_t size);
/*
 * Step *@d to the next designator of @page (@len bytes, from uaed_vpd83_len()) with
 * association @assoc and type @type (-1: any), from the first if *@d is NULL: 1, 0 after
 * the last one, -EBADMSG at one that overruns the page.
 */
int uaed_vpd83_next(const uint8_t *page, int len, const uint8_t **d, int assoc, int type);

#endif /* UAED_VPD_H */
