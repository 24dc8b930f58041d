// SPDX-License-Identifier: LGPL-2.1-or-later
/* uaeventd: ownership and mode checks of what it runs (trust.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trust.h"

bool uaed_trusted_owner(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

const char *uaed_unsafe_file(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (!uaed_trusted_owner(st->st_uid))
		return "not owned by root";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "writable by group or others";
	if (!(st->st_mode & S_IXUSR))
		return "not executable";
	return NULL;
}

const char *uaed_unsafe_folder(const char *dir, char *which, size_t size)
{
	char path[PATH_MAX];
	struct stat st;
	char *slash;

	snprintf(path, sizeof(path), "%s", dir);
	for (;;) {
		snprintf(which, size, "%s", path[0] ? path : "/");
		if (stat(path[0] ? path : "/", &st) < 0)
			return "cannot be read";
		if (!S_ISDIR(st.st_mode))
			return "not a folder";
		if (!uaed_trusted_owner(st.st_uid))
			return "not owned by root";
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
			return "writable by group or others";
		slash = strrchr(path, '/');
		if (!slash || !path[0])
			return NULL;
		*slash = '\0';
	}
}

/* The folder of @path (which has a slash), checked. */
static const char *unsafe_parent(const char *path, char *which, size_t size)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	return uaed_unsafe_folder(dir, which, size);
}

const char *uaed_unsafe_command(const char *path, char *which, size_t size)
{
	char real[PATH_MAX];
	struct stat st;
	const char *why;

	snprintf(which, size, "%s", path);
	if (path[0] != '/')
		return "not an absolute path";
	/* A link's folder decides where it points, the target's folders what it holds. */
	why = unsafe_parent(path, which, size);
	if (why)
		return why;
	if (!realpath(path, real) || stat(real, &st) < 0) {
		snprintf(which, size, "%s", path);
		return "cannot be read";
	}
	why = unsafe_parent(real, which, size);
	if (why)
		return why;
	snprintf(which, size, "%s", real);
	return uaed_unsafe_file(&st);
}
