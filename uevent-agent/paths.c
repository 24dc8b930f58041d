// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: the WWID-to-paths index (see paths.h for when it is walked again).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "paths.h"
#include "sysfs.h"

struct entry {
	char *wwid;
	char hctl[32];
};

struct uaed_paths {
	struct entry *e;	/* sorted by wwid */
	size_t n, size;
	bool fresh;		/* nothing has invalidated it since the walk */
	bool watched;
	struct timespec walked;	/* CLOCK_MONOTONIC */
};

static int by_wwid(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->wwid, ((const struct entry *)b)->wwid);
}

static void clear(struct uaed_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->e[i].wwid);
	p->n = 0;
	p->fresh = false;
}

int uaed_paths_new(struct uaed_paths **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

struct uaed_paths *uaed_paths_free(struct uaed_paths *p)
{
	if (p) {
		clear(p);
		free(p->e);
		free(p);
	}
	return NULL;
}

void uaed_paths_invalidate(struct uaed_paths *p)
{
	if (p)
		p->fresh = false;
}

void uaed_paths_set_watched(struct uaed_paths *p, bool watched)
{
	if (p)
		p->watched = watched;
}

static bool young(const struct uaed_paths *p)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - p->walked.tv_sec < UAED_PATHS_MAX_AGE_S;
}

/* Room for one more entry; false when there is no memory for it. */
static bool grow(struct uaed_paths *p)
{
	size_t size;
	struct entry *e;

	if (p->n < p->size)
		return true;
	size = p->size ? 2 * p->size : 256;
	e = reallocarray(p->e, size, sizeof(*e));
	if (!e)
		return false;
	p->e = e;
	p->size = size;
	return true;
}

int uaed_paths_refresh(struct uaed_paths *p)
{
	struct dirent *de;
	char wwid[256];
	DIR *d;
	int r = 0;

	if (p->fresh && p->watched && young(p))
		return 0;
	clear(p);
	clock_gettime(CLOCK_MONOTONIC, &p->walked);
	d = opendir("/sys/class/scsi_device");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct entry *x;

		/* H:C:T:L names only; one longer than an address is none. */
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(x->hctl))
			continue;
		/* Removed meanwhile, or no identifier (the LU has none): not a path of any WWID. */
		if (uaed_sysfs_read(de->d_name, "wwid", wwid, sizeof(wwid)) < 0 || !wwid[0])
			continue;
		if (!grow(p)) {
			r = -ENOMEM;
			break;
		}
		x = &p->e[p->n];
		x->wwid = strdup(wwid);
		if (!x->wwid) {
			r = -ENOMEM;
			break;
		}
		memcpy(x->hctl, de->d_name, strlen(de->d_name) + 1);
		p->n++;
	}
	closedir(d);
	if (r < 0) {
		clear(p);
		return r;
	}
	qsort(p->e, p->n, sizeof(*p->e), by_wwid);
	p->fresh = true;
	/* Counted by make bench: a walk reads every device, and a storm must not repeat it. */
	uaed_log_action(LOG_DEBUG, "paths-indexed",
			"MESSAGE=uaeventd: indexed the WWIDs of %zu SCSI device(s)", p->n,
			"UAEVENTS_PATHS=%zu", p->n);
	return 0;
}

void uaed_paths_update(struct uaed_paths *p, const char *hctl)
{
	struct entry key = { .wwid = NULL };
	size_t lo = 0, hi;
	char wwid[256];

	if (!p || !p->fresh)
		return;		/* walked whole when next asked */
	if (strlen(hctl) >= sizeof(key.hctl)) {
		uaed_paths_invalidate(p);
		return;
	}
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->e[i].hctl, hctl)) {
			free(p->e[i].wwid);
			memmove(&p->e[i], &p->e[i + 1], (p->n - i - 1) * sizeof(*p->e));
			p->n--;
			break;
		}
	/* Gone, or no identifier: listed for no WWID. */
	if (uaed_sysfs_read(hctl, "wwid", wwid, sizeof(wwid)) < 0 || !wwid[0])
		return;
	key.wwid = strdup(wwid);
	if (!key.wwid || !grow(p)) {
		free(key.wwid);
		uaed_paths_invalidate(p);
		return;
	}
	memcpy(key.hctl, hctl, strlen(hctl) + 1);
	/* Where it sorts: the first entry not below it. */
	for (hi = p->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (by_wwid(&p->e[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&p->e[lo + 1], &p->e[lo], (p->n - lo) * sizeof(*p->e));
	p->e[lo] = key;
	p->n++;
}

int uaed_paths_of(const struct uaed_paths *p, const char *wwid, char (*hctl)[32], int max)
{
	struct entry key = { .wwid = (char *)wwid };
	const struct entry *x;
	int n = 0;

	if (!p || !p->fresh)
		return -ENODATA;
	x = bsearch(&key, p->e, p->n, sizeof(*p->e), by_wwid);
	if (!x)
		return 0;
	/* bsearch finds one of them: back to the first. */
	while (x > p->e && !strcmp(x[-1].wwid, wwid))
		x--;
	for (; x < p->e + p->n && !strcmp(x->wwid, wwid); x++, n++)
		if (n < max)
			memcpy(hctl[n], x->hctl, sizeof(x->hctl));
	return n;
}

static bool shows(const char *hctl, const char *wwid)
{
	char now[256];

	return uaed_sysfs_read(hctl, "wwid", now, sizeof(now)) == 0 && !strcmp(now, wwid);
}

/* Every device, its wwid read now: what the index saves, for when it cannot be trusted. */
static int walk(const char *wwid, char (*hctl)[32], int max)
{
	DIR *d = opendir("/sys/class/scsi_device");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(hctl[0]) ||
		    !shows(de->d_name, wwid))
			continue;
		if (n < max)
			memcpy(hctl[n], de->d_name, strlen(de->d_name) + 1);
		n++;
	}
	closedir(d);
	return n;
}

int uaed_paths_find(const struct uaed_paths *p, const char *wwid, const char *reporter,
		    char (*hctl)[32], int max)
{
	int n = uaed_paths_of(p, wwid, hctl, max);
	bool listed = !reporter;

	if (n <= 0 || n > max)
		return walk(wwid, hctl, max);
	for (int i = 0; i < n; i++) {
		if (!shows(hctl[i], wwid))
			return walk(wwid, hctl, max);
		listed |= !strcmp(hctl[i], reporter);
	}
	if (!listed && shows(reporter, wwid))
		return walk(wwid, hctl, max);
	return n;
}
