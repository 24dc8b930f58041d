// SPDX-License-Identifier: LGPL-2.1-or-later
/* The udev rules' sign of which targets uaeventd scans; see handoff.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handoff.h"

/* The entry for allow-list entry A ("2" or "2:0:1", canonical: see config.c). */
static void entry_name(const char *a, char *name, size_t len)
{
	snprintf(name, len, "%s%s", strchr(a, ':') ? "target" : "host", a);
}

static bool wanted(const struct uaed_config *cfg, const char *name)
{
	char e[48];

	if (!cfg->rescan)
		return false;
	if (cfg->n_allow == 0)
		return !strcmp(name, "all");
	for (unsigned int i = 0; i < cfg->n_allow; i++) {
		entry_name(cfg->allow[i], e, sizeof(e));
		if (!strcmp(name, e))
			return true;
	}
	return false;
}

static int touch_at(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Unlink every entry of DFD that CFG does not want (CFG NULL: every entry). */
static int prune(int dfd, const struct uaed_config *cfg)
{
	int fd = dup(dfd), r = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && !(cfg && wanted(cfg, de->d_name)) &&
		    unlinkat(dfd, de->d_name, 0) < 0 && errno != ENOENT)
			r = -errno;
	closedir(d);
	return r;
}

int uaed_handoff_apply(const char *dir, const struct uaed_config *cfg)
{
	char e[48];
	int dfd, r = 0;

	if (!cfg->rescan)
		return uaed_handoff_clear(dir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0)
		return -errno;
	/* New entries before old ones go: a target allowed before and after never loses it. */
	if (cfg->n_allow == 0)
		r = touch_at(dfd, "all");
	for (unsigned int i = 0; i < cfg->n_allow && r == 0; i++) {
		entry_name(cfg->allow[i], e, sizeof(e));
		r = touch_at(dfd, e);
	}
	if (r == 0)
		r = prune(dfd, cfg);
	close(dfd);
	return r;
}

int uaed_handoff_clear(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW), r;

	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;
	r = prune(dfd, NULL);
	close(dfd);
	if (r == 0 && rmdir(dir) < 0 && errno != ENOENT)
		r = -errno;
	return r;
}
