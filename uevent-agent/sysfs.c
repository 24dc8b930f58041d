// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: sysfs attributes of SCSI devices.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sysfs.h"

int uaed_sysfs_readat(int dirfd, const char *attr, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = openat(dirfd, attr, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	/*
	 * The newline only: a WWID made of a T10 vendor designator can end in blanks, and the
	 * module's events carry it as the kernel gives it.
	 */
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return 0;
}

int uaed_sysfs_read(const char *hctl, const char *attr, char *buf, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/scsi_device/%s/device/%s", hctl, attr);
	return uaed_sysfs_readat(AT_FDCWD, path, buf, size);
}

int uaed_sysfs_read_padded(const char *hctl, const char *attr, char *buf, size_t size)
{
	int r = uaed_sysfs_read(hctl, attr, buf, size);
	size_t n = r < 0 ? 0 : strlen(buf);

	while (n > 0 && buf[n - 1] == ' ')
		buf[--n] = '\0';
	return r;
}

int uaed_sysfs_writeat(int dirfd, const char *path, const char *value)
{
	int fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		r = -errno;
	close(fd);
	return r;
}

int uaed_sysfs_open_lu(const char *hctl)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/sys/class/scsi_device/%s/device", hctl);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

bool uaed_sysfs_first_entry(int dirfd, const char *rel, char *name, size_t size)
{
	int fd = openat(dirfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (fd < 0)
		return false;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] != '.') {
			size_t len = strnlen(de->d_name, size - 1);

			memcpy(name, de->d_name, len);
			name[len] = '\0';
			found = true;
		}
	}
	closedir(d);
	return found;
}
