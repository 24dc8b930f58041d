// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: LUN numbers that a target gave to another logical unit.
 *
 * An array may unmap a volume and map another one at the same LUN number.  The host's
 * device at that address keeps its name and the identity the kernel read when it was
 * scanned (sysfs vpd_pg83 and wwid), and the next write through it lands on the other
 * volume.  So after every LUN inventory change each LU that the target still lists is
 * asked for its identity again (INQUIRY, VPD page 83h: INQUIRY never returns a unit
 * attention) and its own designators are compared with the ones the kernel cached.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <scsi/sg_cmds_basic.h>
#include <scsi/sg_lib.h>
#include <scsi/sg_unaligned.h>
#include <systemd/sd-journal.h>

#include "identity.h"
#include "stale.h"

/* As much of page 83h as the kernel keeps (scsi_get_vpd_buf() grows to what is needed). */
#define PAGE_MAX 2048

struct ident {
	uint8_t d[PAGE_MAX];	/* the LU's designators, in the page's order */
	int len;
	char name[160];		/* the first NAA, EUI-64, SCSI name or T10 one, for people */
};

/* Designator types that name the LU: T10 vendor, EUI-64, NAA, SCSI name string. */
static bool names_lu(int type)
{
	return type == 1 || type == 2 || type == 3 || type == 8;
}

static void describe(const uint8_t *d, char *buf, size_t size)
{
	static const char *const prefix[] = { [1] = "t10.", [2] = "eui.", [3] = "naa.",
					      [8] = "" };
	int type = d[1] & 0xf, len = d[3];
	size_t at = (size_t)snprintf(buf, size, "%s", prefix[type]);

	for (int i = 0; i < len && at + 3 < size; i++) {
		uint8_t c = d[4 + i];

		if (type == 2 || type == 3)
			at += (size_t)snprintf(buf + at, size - at, "%02x", c);
		else if (c)
			buf[at++] = c >= 0x20 && c < 0x7f ? (char)c : '.';
	}
	buf[at < size ? at : size - 1] = '\0';
}

/* The LU's designators (association 0) of page 83h in @page, @len bytes; -EBADMSG. */
static int parse(const uint8_t *page, int len, struct ident *id)
{
	static const int rank[] = { [1] = 1, [2] = 3, [3] = 4, [8] = 2 };
	int off = -1, best = 0, r;

	if (len < 4 || page[1] != 0x83)
		return -EBADMSG;
	if (4 + sg_get_unaligned_be16(page + 2) < len)
		len = 4 + sg_get_unaligned_be16(page + 2);
	id->len = 0;
	while ((r = sg_vpd_dev_id_iter(page + 4, len - 4, &off, 0, -1, -1)) == 0) {
		const uint8_t *d = page + 4 + off;
		int type = d[1] & 0xf;

		if (!names_lu(type))
			continue;
		if (id->len + 4 + d[3] > (int)sizeof(id->d))
			return -EBADMSG;
		memcpy(id->d + id->len, d, 4 + d[3]);
		id->len += 4 + d[3];
		if (rank[type] > best) {
			best = rank[type];
			describe(d, id->name, sizeof(id->name));
		}
	}
	return r == -1 && id->len > 0 ? 0 : -EBADMSG;
}

/* What the kernel read when it scanned the LU. */
static int cached(const struct uaed_lun *l, struct ident *id)
{
	uint8_t page[PAGE_MAX];
	int fd = openat(l->dirfd, "vpd_pg83", O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = read(fd, page, sizeof(page));
	close(fd);
	if (len < 0)
		return -errno;
	return parse(page, (int)len, id);
}

/* What the LU at that address answers now, through sg node @fd. */
static int asked(int fd, struct ident *id)
{
	uint8_t page[PAGE_MAX];
	int r;

	memset(page, 0, sizeof(page));
	r = sg_ll_inquiry(fd, false, true, 0x83, page, sizeof(page), false, 0);
	if (r)
		return -EIO;
	return parse(page, sizeof(page), id);
}

static bool same(const struct ident *a, const struct ident *b)
{
	return a->len == b->len && !memcmp(a->d, b->d, a->len);
}

enum outcome { LOGGED, KEPT, REMOVED, FAILED };

static void log_reused(const struct uaed_lun *l, const char *disk, const char *was,
		       const char *now, enum outcome o, const char *why)
{
	static const char *const field[] = { "logged", "kept", "removed", "failed" };
	static const char *const text[] = {
		"; the device keeps the old identity ([rescan] stale_luns = log)",
		"; kept: ", "; removed, and its LUN number scanned again",
		"; removing it failed: " };

	sd_journal_send("MESSAGE=LUN %s (%s) now answers as another logical unit: %s, was %s "
			"(the target gave its number to another volume)%s%s", l->hctl,
			disk[0] ? disk : "no block device", now, was, text[o], why ? why : "",
			"PRIORITY=%d", o == FAILED ? LOG_ERR : LOG_WARNING,
			"SYSLOG_IDENTIFIER=uaeventd", "UAEVENTS_ACTION=lun-reused",
			"UAEVENTS_HCTL=%s", l->hctl, "UAEVENTS_OLD_WWID=%s", was,
			"UAEVENTS_NEW_WWID=%s", now, "UAEVENTS_REUSED=%s", field[o],
			"UAEVENTS_REASON=%s", why ? why : "", NULL);
}

/* Remove @l if it is held, unused and still answers as @now; true when removed. */
static bool remove_reused(const struct uaed_lun *l, const char *disk, const struct ident *was,
			  const struct ident *now)
{
	struct uaed_hold *h;
	struct ident again;
	char why[256];
	const char *kept = uaed_lu_hold(l, &h, why, sizeof(why));
	int r;

	/* The proof that it is another LU, taken again while nothing else can claim it. */
	if (!kept && (asked(uaed_hold_sg(h), &again) < 0 || !same(&again, now))) {
		snprintf(why, sizeof(why), "its identity could not be confirmed while held");
		kept = why;
		uaed_hold_free(h);
	}
	if (kept) {
		log_reused(l, disk, was->name, now->name, KEPT, kept);
		return false;
	}
	r = uaed_lu_delete(l, h);
	log_reused(l, disk, was->name, now->name, r < 0 ? FAILED : REMOVED,
		   r < 0 ? strerror(-r) : NULL);
	return r == 0;
}

int uaed_check_identity(const struct uaed_lun *luns, int n, const uint64_t *listed,
			int n_listed, bool remove, uint64_t *removed, int max_removed)
{
	int n_removed = 0;

	for (int i = 0; i < n; i++) {
		const struct uaed_lun *l = &luns[i];
		struct ident was, now;
		bool still = false;
		char disk[32];
		int fd, r;

		for (int j = 0; j < n_listed && !still; j++)
			still = listed[j] == l->lun;
		/* Gone ones are stale.c's; without a cached identity there is nothing to compare. */
		if (!still || cached(l, &was) < 0)
			continue;
		fd = uaed_lu_open_sg(l);
		r = fd < 0 ? fd : asked(fd, &now);
		if (fd >= 0)
			close(fd);
		if (r < 0) {
			sd_journal_send("MESSAGE=identity of LUN %s not checked: %s", l->hctl,
					fd < 0 ? "no sg device" : "INQUIRY failed",
					"PRIORITY=%d", LOG_INFO, "SYSLOG_IDENTIFIER=uaeventd",
					"UAEVENTS_ACTION=identity-check", "UAEVENTS_HCTL=%s",
					l->hctl, NULL);
			continue;
		}
		if (same(&was, &now))
			continue;
		uaed_lu_disk(l, disk, sizeof(disk));
		if (!remove)
			log_reused(l, disk, was.name, now.name, LOGGED, NULL);
		else if (remove_reused(l, disk, &was, &now) && n_removed++ < max_removed)
			removed[n_removed - 1] = l->lun;
	}
	return n_removed;
}
