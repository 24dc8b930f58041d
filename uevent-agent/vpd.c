// SPDX-License-Identifier: LGPL-2.1-or-later
/* uaeventd: reading page 83h and walking its designators (see vpd.h). */

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <scsi/sg_lib.h>
#include <scsi/sg_unaligned.h>

#include "vpd.h"

int uaed_vpd83_len(const uint8_t *page, int n)
{
	int len;

	if (n < 4 || page[1] != 0x83)
		return -EBADMSG;
	len = 4 + sg_get_unaligned_be16(page + 2);
	return len < n ? len : n;
}

int uaed_vpd83_cached(int dirfd, uint8_t *page, size_t size)
{
	int fd = openat(dirfd, "vpd_pg83", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, page, size);
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : uaed_vpd83_len(page, (int)n);
}

int uaed_vpd83_next(const uint8_t *page, int len, const uint8_t **d, int assoc, int type)
{
	int off = *d ? (int)(*d - (page + 4)) : -1, r;

	if (len < 4)
		return -EBADMSG;
	r = sg_vpd_dev_id_iter(page + 4, len - 4, &off, assoc, type, -1);
	if (r == -1)
		return 0;
	/* It checks that a designator's header fits in the page, not the rest of it. */
	if (r != 0 || off + 4 + page[4 + off + 3] > len - 4)
		return -EBADMSG;
	*d = page + 4 + off;
	return 1;
}
