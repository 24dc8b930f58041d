/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd: what it runs as root (hooks, resize_command) must be what root put there.
 * A file, and every folder above it, owned by root and writable by nobody else; or a
 * sticky folder such as /tmp, where others cannot rename or remove root's entries.
 */
#ifndef UAED_TRUST_H
#define UAED_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/*
 * Root, or the user uaeventd runs as, who controls it anyway (the shipped unit runs it as
 * root; a package build runs the unit tests as a user).
 */
bool uaed_trusted_owner(uid_t uid);
/* NULL, or why the file is not safe to run: a regular executable file, root's alone. */
const char *uaed_unsafe_file(const struct stat *st);
/* NULL, or why @dir or a folder above it (named in @which) is not safe. */
const char *uaed_unsafe_folder(const char *dir, char *which, size_t size);
/*
 * NULL, or why the command at @path is not safe to run by its path: absolute, the file it
 * resolves to safe, and every folder above the path and above that file (@which names
 * what failed).
 */
const char *uaed_unsafe_command(const char *path, char *which, size_t size);

#endif /* UAED_TRUST_H */
