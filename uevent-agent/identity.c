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
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <libudev.h>
#include <scsi/sg_cmds_basic.h>
#include <scsi/sg_lib.h>
#include <scsi/sg_unaligned.h>
#include <systemd/sd-journal.h>

#include "children.h"
#include "identity.h"
#include "log.h"
#include "stack-fields.h"
#include "stale.h"
#include "sysfs.h"
#include "vpd.h"

struct ident {
	uint8_t d[UAED_VPD83_MAX];	/* the LU's designators, in the page's order */
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

/*
 * The LU's designators (association 0) of page 83h in @page, @len bytes (a negative @len,
 * a failed read, is returned); -EBADMSG.
 */
static int parse(const uint8_t *page, int len, struct ident *id)
{
	static const int rank[] = { [1] = 1, [2] = 3, [3] = 4, [8] = 2 };
	const uint8_t *d = NULL;
	int best = 0, r;

	if (len < 0)
		return len;
	id->len = 0;
	while ((r = uaed_vpd83_next(page, len, &d, 0, -1)) > 0) {
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
	return r == 0 && id->len > 0 ? 0 : -EBADMSG;
}

/* What the kernel read when it scanned the LU. */
static int cached(const struct uaed_lun *l, struct ident *id)
{
	uint8_t page[UAED_VPD83_MAX];
	int len = uaed_vpd83_cached(l->dirfd, page, sizeof(page));

	return parse(page, len, id);
}

/* What the LU at that address answers now, through sg node @fd. */
static int asked(int fd, struct ident *id)
{
	uint8_t page[UAED_VPD83_MAX];
	int r;

	memset(page, 0, sizeof(page));
	r = sg_ll_inquiry(fd, false, true, 0x83, page, sizeof(page), false, 0);
	if (r)
		return -EIO;
	return parse(page, uaed_vpd83_len(page, sizeof(page)), id);
}

static bool same(const struct ident *a, const struct ident *b)
{
	return a->len == b->len && !memcmp(a->d, b->d, a->len);
}

/* @stack: what the LU held up when it was looked at, before any removal (stack-fields.h). */
static void log_reused(const struct uaed_lun *l, const char *disk, const char *was,
		       const char *now, enum uaed_outcome o, const char *why,
		       const struct uaed_fields *stack)
{
	static const char *const text[] = {
		"; the device keeps the old identity ([rescan] stale_luns = log)",
		"; kept: ", "; removed, and its LUN number scanned again",
		"; removing it failed: " };

	uaed_log_action(o == UAED_FAILED ? LOG_ERR : LOG_WARNING, "lun-reused",
			"MESSAGE=LUN %s (%s) now answers as another logical unit: %s, was %s "
			"(the target gave its number to another volume)%s%s", l->hctl,
			disk[0] ? disk : "no block device", now, was, text[o], why ? why : "",
			"UAEVENTS_HCTL=%s", l->hctl, "UAEVENTS_OLD_WWID=%s", was,
			"UAEVENTS_NEW_WWID=%s", now, "UAEVENTS_REUSED=%s", uaed_outcome_name(o),
			"UAEVENTS_REASON=%s", why ? why : "", UAED_FIELDS, stack);
}

enum reused_try { REUSED_DONE, REUSED_REMOVED, REUSED_AGAIN };

/*
 * Remove @l if it is held, unused and still answers as @now.  Held back for a reason that
 * may pass (stale.h) and not the @last try: REUSED_AGAIN, said on the first (@round 0).
 */
static enum reused_try remove_reused(const struct uaed_lun *l, const char *disk,
				     const struct ident *was, const struct ident *now, int round,
				     bool last, const struct uaed_fields *stack)
{
	struct uaed_hold *h;
	struct ident again;
	char why[256];
	bool passing;
	const char *kept = uaed_lu_hold(l, &h, &passing, why, sizeof(why));
	int r;


	/* The proof that it is another LU, taken again while nothing else can claim it. */
	if (!kept && (uaed_hold_sg(h) < 0 || asked(uaed_hold_sg(h), &again) < 0 ||
		      !same(&again, now))) {
		snprintf(why, sizeof(why), "its identity could not be confirmed while held");
		kept = why;
		passing = false;
		uaed_hold_free(h);
	}
	if (kept && passing && !last) {
		if (round == 0)
			uaed_log_action(LOG_INFO, "lun-reused-wait",
					"MESSAGE=LUN %s (%s) now answers as another logical unit: "
					"%s, was %s; not removed yet: %s; looking again", l->hctl,
					disk[0] ? disk : "no block device", now->name, was->name,
					kept, "UAEVENTS_HCTL=%s", l->hctl, "UAEVENTS_OLD_WWID=%s",
					was->name, "UAEVENTS_NEW_WWID=%s", now->name,
					"UAEVENTS_REASON=%s", kept, UAED_FIELDS, stack);
		return REUSED_AGAIN;
	}
	if (kept) {
		log_reused(l, disk, was->name, now->name, UAED_KEPT, kept, stack);
		return REUSED_DONE;
	}
	r = uaed_lu_delete(l, h);
	log_reused(l, disk, was->name, now->name, r < 0 ? UAED_FAILED : UAED_REMOVED,
		   r < 0 ? strerror(-r) : NULL, stack);
	return r == 0 ? REUSED_REMOVED : REUSED_DONE;
}

/*
 * Whether multipath's WWID @w (udev's ID_SERIAL: the designator type as a digit, then an
 * NAA or EUI-64 in hex, or a T10 or SCSI name text with its blanks as one "_") names one
 * of the designators of @id.
 */
static bool names(const struct ident *id, const char *w)
{
	for (int at = 0; at < id->len; at += 4 + id->d[at + 3]) {
		const uint8_t *d = id->d + at;
		int type = d[1] & 0xf, len = d[3];
		char text[2 * 255 + 2], *o = text;

		if (w[0] != '0' + type)
			continue;
		for (int i = 0; i < len; i++) {
			uint8_t c = d[4 + i];

			if (type == 2 || type == 3)
				o += sprintf(o, "%02x", c);
			else if (c != ' ' && c != '\0')
				*o++ = (char)c;
			else if (o > text && o[-1] != '_')
				*o++ = '_';
		}
		while (o > text && o[-1] == '_')
			o--;
		*o = '\0';
		if (!strcasecmp(text, w + 1))
			return true;
	}
	return false;
}

bool uaed_wwid_names_lu(const uint8_t *page, int len, const char *wwid)
{
	struct ident id;

	return parse(page, uaed_vpd83_len(page, len), &id) == 0 && names(&id, wwid);
}

/* The multipath map holding @disk, if any: its name and its WWID (dm uuid "mpath-WWID"). */
static bool mpath_of(const struct uaed_lun *l, const char *disk, char *map, size_t msize,
		     char *wwid, size_t wsize)
{
	char rel[128], uuid[192];
	struct dirent *de;
	bool found = false;
	DIR *d;
	int fd;

	snprintf(rel, sizeof(rel), "block/%s/holders", disk);
	fd = disk[0] ? openat(l->dirfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && (de = readdir(d))) {
		char attr[300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(attr, sizeof(attr), "%s/dm/uuid", de->d_name);
		if (uaed_sysfs_readat(dirfd(d), attr, uuid, sizeof(uuid)) < 0 ||
		    strncmp(uuid, "mpath-", 6))
			continue;
		snprintf(attr, sizeof(attr), "%s/dm/name", de->d_name);
		if (uaed_sysfs_readat(dirfd(d), attr, map, msize) < 0)
			snprintf(map, msize, "%.*s", (int)msize - 1, de->d_name);
		snprintf(wwid, wsize, "%s", uuid + 6);
		found = true;
	}
	closedir(d);
	return found;
}

/* multipathd's client with @argv, its answer in @out; 0 when it answered "ok". */
static int multipathd(char *const argv[], char *out, size_t size)
{
	int status = uaed_run_wait("multipathd", argv, out, size);

	/* Its exit status is 0 also when the daemon answers "fail". */
	return status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status) &&
	       !strncmp(out, "ok", 2) ? 0 : -EIO;
}

/*
 * multipathd has udev look at a path it let go (a change uevent, so that other users may
 * claim it); udev's workers open the disk meanwhile.  Up to 10 s for udev's queue to empty
 * before the LU is held, as "udevadm settle" would, after a second for that uevent to
 * reach udevd (multipathd may answer before it sends it).
 */
static void settle(void)
{
	struct udev *udev = udev_new();
	struct udev_queue *q = udev ? udev_queue_new(udev) : NULL;

	sleep(1);
	for (int i = 0; q && i < 100 && !udev_queue_get_queue_is_empty(q); i++)
		usleep(100 * 1000);
	udev_queue_unref(q);
	udev_unref(udev);
}

/*
 * A path of a multipath map that now reaches another volume is taken out of the map, whatever
 * stale_luns says: the map's I/O must not go on landing there.  multipathd removes the map
 * too when that was its last path and nothing has it open.
 */
static void out_of_map(const struct uaed_lun *l, const char *disk, const struct ident *now)
{
	char map[128], wwid[192], out[256];
	char *argv[] = { "multipathd", "del", "path", (char *)disk, NULL };
	int r;

	if (!mpath_of(l, disk, map, sizeof(map), wwid, sizeof(wwid)) || names(now, wwid))
		return;
	r = multipathd(argv, out, sizeof(out));
	if (!r)
		settle();
	uaed_log_action(r ? LOG_ERR : LOG_WARNING, "path-out-of-map",
			"MESSAGE=path %s (%s) %s multipath map %s (%s): it now reaches another "
			"volume, %s%s%s", disk, l->hctl, r ? "could not be taken out of" :
			"taken out of", map, wwid, now->name, r ? "; multipathd: " : "",
			r ? out : "", "UAEVENTS_HCTL=%s", l->hctl, "UAEVENTS_MAP=%s", map,
			"UAEVENTS_MAP_WWID=%s", wwid, "UAEVENTS_NEW_WWID=%s", now->name,
			"UAEVENTS_RESULT=%s", r ? "failed" : "removed");
}

/* One LU that answers as another, while its removal waits for a moment. */
struct reused {
	struct ident was, now;
	char disk[32];
	/* What it held up when found, before out_of_map() took it out of its map. */
	struct uaed_fields stack;
};

static void reused_free(struct reused *u)
{
	if (u) {
		uaed_fields_free(&u->stack);
		free(u);
	}
}

struct identity_round {
	const struct uaed_lun *luns;
	const uint64_t *listed;
	int n_listed;
	bool remove;
	struct reused **waiting;	/* per LU, while it is tried again */
	uint64_t *removed;
	int max_removed, n_removed;
};

static bool identity_removal(struct identity_round *ir, int i, const struct reused *u,
			     int round, bool last)
{
	enum reused_try t = remove_reused(&ir->luns[i], u->disk, &u->was, &u->now, round, last,
					  &u->stack);

	if (t == REUSED_REMOVED && ir->n_removed++ < ir->max_removed)
		ir->removed[ir->n_removed - 1] = ir->luns[i].lun;
	return t == REUSED_AGAIN;
}

static bool identity_attempt(int i, int round, bool last, void *ctx)
{
	struct identity_round *ir = ctx;
	const struct uaed_lun *l = &ir->luns[i];
	struct reused u, *keep;
	bool still = false;
	int fd, r;

	if (ir->waiting && ir->waiting[i]) {
		if (identity_removal(ir, i, ir->waiting[i], round, last))
			return true;
		reused_free(ir->waiting[i]);
		ir->waiting[i] = NULL;
		return false;
	}
	for (int j = 0; j < ir->n_listed && !still; j++)
		still = ir->listed[j] == l->lun;
	/* Gone ones are stale.c's; without a cached identity there is nothing to compare. */
	if (!still || cached(l, &u.was) < 0)
		return false;
	fd = uaed_lu_open_sg(l);
	r = fd < 0 ? fd : asked(fd, &u.now);
	if (fd >= 0)
		close(fd);
	if (r < 0) {
		uaed_log_action(LOG_INFO, "identity-check",
				"MESSAGE=identity of LUN %s not checked: %s", l->hctl,
				fd < 0 ? "no sg device" : "INQUIRY failed", "UAEVENTS_HCTL=%s",
				l->hctl);
		return false;
	}
	if (same(&u.was, &u.now))
		return false;
	if (!uaed_lu_disk(l, u.disk, sizeof(u.disk)))
		u.disk[0] = '\0';
	/* Before it is taken out of its map, held or removed: what it holds up. */
	memset(&u.stack, 0, sizeof(u.stack));
	uaed_stack_fields_of(&u.stack, u.disk);
	out_of_map(l, u.disk, &u.now);
	if (!ir->remove) {
		log_reused(l, u.disk, u.was.name, u.now.name, UAED_LOGGED, NULL, &u.stack);
		uaed_fields_free(&u.stack);
		return false;
	}
	/* Kept for the next look only if there is room to keep what it was asked. */
	keep = last || !ir->waiting ? NULL : malloc(sizeof(*keep));
	if (!identity_removal(ir, i, &u, round, !keep)) {
		free(keep);
		uaed_fields_free(&u.stack);
		return false;
	}
	*keep = u;
	ir->waiting[i] = keep;
	return true;
}

int uaed_check_identity(const struct uaed_lun *luns, int n, const uint64_t *listed,
			int n_listed, bool remove, unsigned int budget_s, uint64_t *removed,
			int max_removed)
{
	struct identity_round ir = {
		.luns = luns, .listed = listed, .n_listed = n_listed, .remove = remove,
		.waiting = n > 0 ? calloc((size_t)n, sizeof(*ir.waiting)) : NULL,
		.removed = removed, .max_removed = max_removed,
	};

	/* Out of memory: one look each, as the last. */
	uaed_hold_rounds(n, ir.waiting ? budget_s : 0, NULL, identity_attempt, &ir);
	for (int i = 0; ir.waiting && i < n; i++)
		reused_free(ir.waiting[i]);
	free(ir.waiting);
	return ir.n_removed;
}
