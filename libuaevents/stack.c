// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents: what sits above a block device (libuaevents.h, uae_device_stack_new()).
 *
 * Everything is read from sysfs, /proc and the udev database, never from a device: a hung
 * LU must not hang whoever asks (uaeventd logs its alerts through here), and a device
 * opened for writing makes udev send a change event.  So no libblkid probing and no
 * libmount cache (both read devices and resolve tags); mounts are matched by device
 * number, swap areas and loop devices by the path the kernel shows, looked up only in
 * /dev (a path elsewhere may be on a dead NFS server).
 */
#define _GNU_SOURCE	/* statx, reallocarray */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <libmount.h>
#include <libudev.h>

#include "libuaevents.h"
#include "stack-parse.h"

#define MAX_ENTRIES 256
#define MAX_PROPS 6
#define SUMMARY_MAX 512

struct prop {
	const char *key;	/* a literal */
	char *value;
};

struct uae_stack_entry {
	struct uae_stack *stack;
	unsigned int index;
	int below;		/* index, -1 for the first */
	enum uae_stack_type type;
	dev_t devno;		/* 0 for mounts and swap files */
	char *name, *devname, *uuid, *fstype;
	char *fs_uuid;		/* the filesystem's (udev's ID_FS_UUID), whatever uuid says */
	bool internal;		/* LVM's own layer: not in the summary */
	bool other_ns;		/* a live filesystem on it that no host mount shows */
	struct prop props[MAX_PROPS];
	unsigned int n_props;
};

struct uae_stack {
	int refcount;
	struct uae_stack_entry *e;
	unsigned int n;
	char summary[SUMMARY_MAX];
};

struct uae_stack_cache {
	int refcount;
	pid_t owner;		/* a forked child must not poll (and so reset) the parent's fds */
	struct udev *udev;
	int mounts_fd, swaps_fd;
	struct libmnt_table *mounts, *swaps;
};

/* What one walk uses: the cache's, or its own. */
struct sources {
	struct udev *udev;
	struct libmnt_table *mounts, *swaps;
};

static const char *const type_names[] = {
	[UAE_STACK_DISK] = "disk",	[UAE_STACK_PARTITION] = "partition",
	[UAE_STACK_MPATH] = "mpath",	[UAE_STACK_LVM] = "lvm",
	[UAE_STACK_CRYPT] = "crypt",	[UAE_STACK_MD] = "md",
	[UAE_STACK_DM] = "dm",		[UAE_STACK_LOOP] = "loop",
	[UAE_STACK_MOUNT] = "mount",	[UAE_STACK_SWAP] = "swap",
};

/* The host's mounts are PID 1's: a caller may be in a namespace of its own (uaeventd is). */
static struct libmnt_table *read_mounts(void)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/1/mountinfo");

	return tb ? tb : mnt_new_table_from_file("/proc/self/mountinfo");
}

static struct libmnt_table *read_swaps(void)
{
	struct libmnt_table *tb = mnt_new_table();

	if (tb && mnt_table_parse_swaps(tb, NULL) < 0)
		tb = (mnt_unref_table(tb), NULL);
	return tb;
}

int uae_stack_cache_new(struct uae_stack_cache **ret)
{
	struct uae_stack_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->refcount = 1;
	c->owner = getpid();
	/* Opened before the first read: a change after this shows as POLLPRI on the fd. */
	c->mounts_fd = open("/proc/1/mountinfo", O_RDONLY | O_CLOEXEC);
	if (c->mounts_fd < 0)
		c->mounts_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	c->swaps_fd = open("/proc/swaps", O_RDONLY | O_CLOEXEC);
	c->udev = udev_new();
	if (!c->udev) {
		uae_stack_cache_unref(c);
		return -ENOMEM;
	}
	*ret = c;
	return 0;
}

struct uae_stack_cache *uae_stack_cache_ref(struct uae_stack_cache *c)
{
	if (c)
		c->refcount++;
	return c;
}

struct uae_stack_cache *uae_stack_cache_unref(struct uae_stack_cache *c)
{
	if (!c || --c->refcount > 0)
		return NULL;
	if (c->mounts_fd >= 0)
		close(c->mounts_fd);
	if (c->swaps_fd >= 0)
		close(c->swaps_fd);
	mnt_unref_table(c->mounts);
	mnt_unref_table(c->swaps);
	udev_unref(c->udev);
	free(c);
	return NULL;
}

/* Whether the table behind @fd changed since the last look (the kernel's poll on it). */
static bool changed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };

	return fd < 0 || (poll(&p, 1, 0) > 0 && (p.revents & (POLLPRI | POLLERR)));
}

/* The cache's tables, read again if they changed; a failed read is tried again next time. */
static void cache_sources(struct uae_stack_cache *c, struct sources *src)
{
	if (!c->mounts || changed(c->mounts_fd)) {
		mnt_unref_table(c->mounts);
		c->mounts = read_mounts();
	}
	if (!c->swaps || changed(c->swaps_fd)) {
		mnt_unref_table(c->swaps);
		c->swaps = read_swaps();
	}
	src->udev = c->udev;
	src->mounts = c->mounts;
	src->swaps = c->swaps;
}

static struct uae_stack_entry *add(struct uae_stack *s, enum uae_stack_type type, int below,
				   const char *name)
{
	struct uae_stack_entry *e;

	if (s->n == MAX_ENTRIES)
		return NULL;
	if (!(s->n % 16)) {
		e = reallocarray(s->e, s->n + 16, sizeof(*e));
		if (!e)
			return NULL;
		s->e = e;
	}
	e = &s->e[s->n];
	memset(e, 0, sizeof(*e));
	e->index = s->n++;
	e->below = below;
	e->type = type;
	e->name = strdup(name);
	if (!e->name) {
		s->n--;
		return NULL;
	}
	return e;
}

static void set(char **field, const char *value)
{
	free(*field);
	*field = value && value[0] ? strdup(value) : NULL;
}

static void add_prop(struct uae_stack_entry *e, const char *key, const char *value)
{
	if (value && value[0] && e->n_props < MAX_PROPS) {
		e->props[e->n_props].value = strdup(value);
		if (e->props[e->n_props].value)
			e->props[e->n_props++].key = key;
	}
}

static struct uae_stack_entry *find_devno(struct uae_stack *s, dev_t devno)
{
	for (unsigned int i = 0; i < s->n; i++)
		if (s->e[i].devno && s->e[i].devno == devno)
			return &s->e[i];
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names in directory @path that start with @prefix, sorted (a stack reads the same
 * each time); their count, at most @max.
 */
static int list_dir(const char *path, const char *prefix, bool partitions, int max, char ***ret)
{
	char **names = NULL, attr[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(path);

	*ret = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		char **grown;

		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		/* A disk's partitions are the folders of its own with a "partition" file. */
		if (partitions && (snprintf(attr, sizeof(attr), "%s/%s/partition", path,
					    de->d_name) >= (int)sizeof(attr) ||
				   access(attr, F_OK) < 0))
			continue;
		grown = reallocarray(names, n + 1, sizeof(*names));
		if (!grown)
			break;
		names = grown;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	*ret = names;
	return n;
}

static void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * A live filesystem on entry @e (one the host's mount table lacks): ext4, XFS and F2FS name
 * a folder after the device, btrfs after its UUID with a link per device.
 */
static bool superblock_of(const struct uae_stack_entry *e)
{
	static const char *const kinds[] = { "ext4", "xfs", "f2fs" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		snprintf(path, sizeof(path), "/sys/fs/%s/%s", kinds[i], e->devname);
		if (access(path, F_OK) == 0)
			return true;
	}
	if (!e->fstype || strcmp(e->fstype, "btrfs") || !e->fs_uuid || strchr(e->fs_uuid, '/'))
		return false;
	snprintf(path, sizeof(path), "/sys/fs/btrfs/%s/devices/%s", e->fs_uuid, e->devname);
	return access(path, F_OK) == 0;
}

/*
 * A block device @name as an entry of @type (UAE_STACK_DM: told by its dm uuid), on
 * @below; NULL when it is listed already (reached twice) or unknown.
 */
static struct uae_stack_entry *add_device(struct uae_stack *s, const struct sources *src,
					  enum uae_stack_type type, int below, const char *name)
{
	struct udev_device *d = udev_device_new_from_subsystem_sysname(src->udev, "block", name);
	struct uae_stack_entry *e = NULL;
	char lv[256];
	const char *v, *layer = NULL;

	if (!d || !major(udev_device_get_devnum(d)) ||
	    find_devno(s, udev_device_get_devnum(d)))
		goto out;
	/* udev's record of an md array: reading md/level may wait on the array's lock. */
	if (type == UAE_STACK_DM && !strncmp(name, "md", 2) &&
	    udev_device_get_property_value(d, "MD_LEVEL"))
		type = UAE_STACK_MD;
	else if (type == UAE_STACK_DM && !strncmp(name, "loop", 4))
		type = UAE_STACK_LOOP;
	if (type == UAE_STACK_DM) {
		const char *uuid = udev_device_get_sysattr_value(d, "dm/uuid");
		const char *dm_name = udev_device_get_sysattr_value(d, "dm/name");

		switch (uae_dm_classify(uuid)) {
		case UAE_DM_MPATH:
			type = UAE_STACK_MPATH;
			break;
		case UAE_DM_PART:
			type = UAE_STACK_PARTITION;
			break;
		case UAE_DM_LVM:
			type = UAE_STACK_LVM;
			break;
		case UAE_DM_CRYPT:
			type = UAE_STACK_CRYPT;
			break;
		default:
			break;
		}
		e = add(s, type, below, dm_name ? dm_name : name);
		if (!e)
			goto out;
		if (type == UAE_STACK_MPATH)
			set(&e->uuid, uae_dm_mpath_wwid(uuid));
		if (type == UAE_STACK_LVM && dm_name &&
		    uae_lvm_name(dm_name, lv, sizeof(lv), &layer)) {
			set(&e->name, lv);
			e->internal = layer || uae_dm_lvm_layer(uuid) ||
				      uae_lvm_internal_lv(strchr(lv, '/') + 1);
		}
		if (type == UAE_STACK_CRYPT)
			e->internal = uae_dm_crypt_internal(uuid);
	} else {
		v = type == UAE_STACK_MD ? udev_device_get_property_value(d, "MD_DEVNAME") : NULL;
		e = add(s, type, below, v ? v : name);
		if (!e)
			goto out;
		if (type == UAE_STACK_MD) {
			add_prop(e, "md_level", udev_device_get_property_value(d, "MD_LEVEL"));
			set(&e->uuid, udev_device_get_property_value(d, "MD_UUID"));
		}
		if (type == UAE_STACK_LOOP)
			add_prop(e, "backing_file",
				 udev_device_get_sysattr_value(d, "loop/backing_file"));
	}
	e->devno = udev_device_get_devnum(d);
	set(&e->devname, name);
	/* The udev database: what udev's blkid found when the device appeared or changed. */
	set(&e->fstype, udev_device_get_property_value(d, "ID_FS_TYPE"));
	set(&e->fs_uuid, udev_device_get_property_value(d, "ID_FS_UUID"));
	if (!e->uuid)
		set(&e->uuid, e->fs_uuid);
	add_prop(e, "label", udev_device_get_property_value(d, "ID_FS_LABEL"));
out:
	udev_device_unref(d);
	return e;
}

/* The partitions of whole device @at (a disk's, an md array's, a loop device's). */
static void add_partitions(struct uae_stack *s, const struct sources *src, unsigned int at)
{
	char path[PATH_MAX], **names;
	int n;

	snprintf(path, sizeof(path), "/sys/class/block/%s", s->e[at].devname);
	n = list_dir(path, s->e[at].devname, true, MAX_ENTRIES, &names);
	for (int i = 0; i < n; i++)
		add_device(s, src, UAE_STACK_PARTITION, (int)at, names[i]);
	free_names(names, n);
}

/*
 * Everything held above the devices from entry @from on: partitions, then holders (maps,
 * volumes, arrays), breadth first, each new one in turn; a device reached twice is
 * listed once, so this ends.
 */
static void add_devices_above(struct uae_stack *s, const struct sources *src, unsigned int from)
{
	char path[PATH_MAX], **names;
	int n;

	for (unsigned int at = from; at < s->n; at++) {
		if (!s->e[at].devno)
			continue;	/* a mount or a swap file */
		if (s->e[at].type != UAE_STACK_PARTITION)
			add_partitions(s, src, at);
		snprintf(path, sizeof(path), "/sys/class/block/%s/holders", s->e[at].devname);
		n = list_dir(path, "", false, MAX_ENTRIES, &names);
		for (int i = 0; i < n; i++)
			add_device(s, src, UAE_STACK_DM, (int)at, names[i]);
		free_names(names, n);
	}
}

static void add_mount_props(struct uae_stack_entry *e, struct libmnt_fs *fs)
{
	struct uae_k8s_ref k8s;
	const char *opts = mnt_fs_get_vfs_options(fs);

	set(&e->fstype, mnt_fs_get_fstype(fs));
	add_prop(e, "fs_root", mnt_fs_get_root(fs));
	if (opts && (!strcmp(opts, "ro") || !strncmp(opts, "ro,", 3)))
		add_prop(e, "ro", "1");
	if (uae_k8s_parse_path(e->name, &k8s)) {
		add_prop(e, "k8s_pod_uid", k8s.pod_uid);
		add_prop(e, "k8s_volume", k8s.volume);
		add_prop(e, "k8s_plugin", k8s.plugin);
		add_prop(e, k8s.staging ? "k8s_staging" : "k8s_driver",
			 k8s.staging ? "1" : k8s.driver);
	}
}

/* The block device the node at @path is, looked up in /dev only (no waiting there); 0. */
static dev_t node_devno(const char *path)
{
	struct statx stx;

	if (strncmp(path, "/dev/", 5) ||
	    statx(AT_FDCWD, path, AT_STATX_DONT_SYNC, STATX_TYPE, &stx) < 0 ||
	    !S_ISBLK(stx.stx_mode))
		return 0;
	return makedev(stx.stx_rdev_major, stx.stx_rdev_minor);
}

/*
 * A mount of device entry @e: by its device number, or, for btrfs, whose mounts show an
 * anonymous one (0:N), by the device node it was mounted from or one of the same btrfs.
 */
static bool mount_of(const struct sources *src, struct libmnt_fs *fs,
		     const struct uae_stack_entry *e)
{
	const char *type = mnt_fs_get_fstype(fs), *source = mnt_fs_get_srcpath(fs);
	struct udev_device *d;
	dev_t devno;
	bool same;

	if (mnt_fs_get_devno(fs) == e->devno)
		return true;
	if (major(mnt_fs_get_devno(fs)) || !type || strcmp(type, "btrfs") || !source)
		return false;
	devno = node_devno(source);
	if (devno == e->devno)
		return true;
	/* Another device of the same btrfs (mountinfo names one of them). */
	if (!devno || !e->fstype || strcmp(e->fstype, "btrfs") || !e->fs_uuid)
		return false;
	d = udev_device_new_from_devnum(src->udev, 'b', devno);
	same = d && udev_device_get_property_value(d, "ID_FS_UUID") &&
	       !strcmp(udev_device_get_property_value(d, "ID_FS_UUID"), e->fs_uuid);
	udev_device_unref(d);
	return same;
}

/* The host mounts of the device entries from @from on (mount_of()). */
static void add_mounts(struct uae_stack *s, const struct sources *src, unsigned int from)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	unsigned int end = s->n;

	for (unsigned int i = from; it && src->mounts && i < end; i++) {
		bool mounted = false;

		if (!s->e[i].devno)
			continue;
		mnt_reset_iter(it, MNT_ITER_FORWARD);
		while (mnt_table_next_fs(src->mounts, it, &fs) == 0) {
			struct uae_stack_entry *e;

			if (!mount_of(src, fs, &s->e[i]) || !mnt_fs_get_target(fs))
				continue;
			mounted = true;
			e = add(s, UAE_STACK_MOUNT, (int)i, mnt_fs_get_target(fs));
			if (e)
				add_mount_props(e, fs);
		}
		s->e[i].other_ns = !mounted && superblock_of(&s->e[i]);
	}
	mnt_free_iter(it);
}

/*
 * The entry of the host mount that holds @path (the longest target: a file under
 * /srv/data/x is on x's filesystem when x is a mount of its own), if that mount is one of
 * the stack's; else -1.  A swap file or a loop device's backing file lives there.  Never
 * a lookup of @path itself.
 */
static int mount_holding(struct uae_stack *s, const struct sources *src, const char *path)
{
	struct libmnt_iter *it;
	struct libmnt_fs *fs, *best = NULL;
	size_t best_len = 0;
	unsigned int i;

	for (i = 0; i < s->n && s->e[i].type != UAE_STACK_MOUNT; i++)
		;
	if (i == s->n)
		return -1;	/* no mount of its own: no file can be on it */
	it = mnt_new_iter(MNT_ITER_FORWARD);
	while (it && src->mounts && mnt_table_next_fs(src->mounts, it, &fs) == 0) {
		const char *target = mnt_fs_get_target(fs);

		/* On the same target the later mount is the one on top: >=. */
		if (target && uae_path_below(path, target) && strlen(target) >= best_len) {
			best = fs;
			best_len = strlen(target);
		}
	}
	mnt_free_iter(it);
	for (unsigned int i = 0; best && i < s->n; i++)
		if (s->e[i].type == UAE_STACK_MOUNT && !strcmp(s->e[i].name, mnt_fs_get_target(best)) &&
		    mount_of(src, best, &s->e[s->e[i].below]))
			return (int)i;
	return -1;
}

/* The entry that the device node at @path is (node_devno()), or -1. */
static int node_entry(struct uae_stack *s, const char *path)
{
	dev_t devno = node_devno(path);
	struct uae_stack_entry *e = devno ? find_devno(s, devno) : NULL;

	return e ? (int)e->index : -1;
}

/*
 * Where a path the kernel shows (a swap area, a backing file) sits in the stack, or -1: a
 * node in /dev by its device number, a file by the mount that holds it.
 */
static int entry_of_path(struct uae_stack *s, const struct sources *src, const char *path)
{
	return !strncmp(path, "/dev/", 5) ? node_entry(s, path) : mount_holding(s, src, path);
}

static void add_swaps(struct uae_stack *s, const struct sources *src)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;

	while (it && src->swaps && mnt_table_next_fs(src->swaps, it, &fs) == 0) {
		const char *path = mnt_fs_get_srcpath(fs);
		int at = path ? entry_of_path(s, src, path) : -1;
		struct uae_stack_entry *e;

		if (at < 0)
			continue;
		/* A swap file by its path; a swap device by the name of the entry it is. */
		e = add(s, UAE_STACK_SWAP, at, s->e[at].type == UAE_STACK_MOUNT ? path :
			s->e[at].name);
		if (e)
			set(&e->devname, s->e[at].type == UAE_STACK_MOUNT ? NULL : s->e[at].devname);
	}
	mnt_free_iter(it);
}

/* Loop devices backed by one of the stack's devices or by a file on one of its mounts. */
static bool add_loops(struct uae_stack *s, const struct sources *src)
{
	char **names, path[PATH_MAX], backing[PATH_MAX];
	bool added = false;
	/* Not /sys/block, which lists every disk: loop devices are virtual (so are dm and md). */
	int n = list_dir("/sys/devices/virtual/block", "loop", false, 1 << 16, &names);

	for (int i = 0; i < n; i++) {
		struct uae_stack_entry *e;
		FILE *f;
		char *end;
		int at;

		snprintf(path, sizeof(path), "/sys/devices/virtual/block/%s/loop/backing_file",
			 names[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(backing, sizeof(backing), f))
			backing[0] = '\0';
		fclose(f);
		backing[strcspn(backing, "\n")] = '\0';
		/* A file removed while the loop device holds it. */
		end = strstr(backing, " (deleted)");
		if (end && !end[10])
			*end = '\0';
		at = backing[0] ? entry_of_path(s, src, backing) : -1;
		if (at < 0)
			continue;
		e = add_device(s, src, UAE_STACK_LOOP, at, names[i]);
		if (e) {
			add_devices_above(s, src, e->index);
			added = true;
		}
	}
	free_names(names, n);
	return added;
}

/* A mount of the filesystem's root, not of a folder in it (a bind mount's). */
static bool own_root(const struct uae_stack_entry *e)
{
	for (unsigned int i = 0; i < e->n_props; i++)
		if (!strcmp(e->props[i].key, "fs_root"))
			return !strcmp(e->props[i].value, "/");
	return true;
}

/*
 * " on vg0/data on mpatha": the entries below @at down to the device asked for, without
 * LVM's own layers, and partitions only where nothing else is named.
 */
static void chain(struct uae_stack *s, int at, char *buf, size_t size)
{
	size_t len = strlen(buf);
	bool named = false;

	for (int i = at; i > 0 && len < size; i = s->e[i].below) {
		const struct uae_stack_entry *e = &s->e[i];

		if (e->internal || e->type == UAE_STACK_MOUNT || e->type == UAE_STACK_SWAP)
			continue;
		if (e->type == UAE_STACK_PARTITION && named)
			continue;
		len += snprintf(buf + len, size - len, " on %s", e->name);
		named = true;
	}
}

/* A device nothing sits on: the top of a chain the summary names. */
static bool is_top(struct uae_stack *s, unsigned int i)
{
	return uae_stack_entry_is_top(&s->e[i]) && s->e[i].type != UAE_STACK_MOUNT &&
	       s->e[i].type != UAE_STACK_SWAP;
}

static void summarize(struct uae_stack *s)
{
	char *buf = s->summary;
	size_t size = sizeof(s->summary);
	int primary = -1, mounts = 0, swap = -1, top = -1, top_any = -1;
	bool other_ns = false;

	for (unsigned int i = 0; i < s->n; i++) {
		const struct uae_stack_entry *e = &s->e[i];

		other_ns |= e->other_ns;
		if (e->type == UAE_STACK_SWAP && swap < 0)
			swap = (int)i;
		/* The last device added is the highest one reached. */
		if (i && e->type != UAE_STACK_MOUNT && e->type != UAE_STACK_SWAP) {
			top_any = (int)i;
			if (!e->internal)
				top = (int)i;
		}
		if (e->type != UAE_STACK_MOUNT)
			continue;
		mounts++;
		/* The filesystem's own root, mounted at the shortest path: what people call it. */
		if (primary < 0 || own_root(e) > own_root(&s->e[primary]) ||
		    (own_root(e) == own_root(&s->e[primary]) &&
		     strlen(e->name) < strlen(s->e[primary].name)))
			primary = (int)i;
	}
	if (primary >= 0) {
		snprintf(buf, size, "%s (%s", s->e[primary].name, s->e[primary].fstype ?: "mounted");
		chain(s, s->e[primary].below, buf, size);
		snprintf(buf + strlen(buf), size - strlen(buf), ")");
		if (mounts > 1)
			snprintf(buf + strlen(buf), size - strlen(buf), " and %d more mount%s",
				 mounts - 1, mounts > 2 ? "s" : "");
	} else if (swap >= 0) {
		snprintf(buf, size, "swap");
		chain(s, s->e[swap].below, buf, size);
		if (s->e[swap].below >= 0 && s->e[s->e[swap].below].type == UAE_STACK_MOUNT)
			snprintf(buf + strlen(buf), size - strlen(buf), " (file %s)", s->e[swap].name);
	} else if (top > 0 || top_any > 0 || s->e[0].fstype) {
		/*
		 * "ext4 on vg0/data on mpatha, no user seen": each top of the stack (what
		 * nothing sits on), and that nothing seen uses it.  Not "unused": a ZFS pool,
		 * say, shows in no table read here.
		 */
		bool internal = top <= 0;
		size_t len;

		buf[0] = '\0';
		for (unsigned int i = 0; i < s->n; i++) {
			const struct uae_stack_entry *e = &s->e[i];

			if ((i || top_any > 0) && (!is_top(s, i) || e->internal != internal))
				continue;
			len = strlen(buf);
			snprintf(buf + len, size - len, "%s%s%s%s", len ? ", " : "", e->fstype ?: "",
				 e->fstype ? " on " : "", e->name);
			chain(s, e->below, buf, size);
		}
		if (!buf[0]) {	/* LVM's own layers on every named device: the highest named */
			const struct uae_stack_entry *e = &s->e[top > 0 ? top : top_any];

			snprintf(buf, size, "%s%s%s", e->fstype ?: "", e->fstype ? " on " : "",
				 e->name);
			chain(s, e->below, buf, size);
		}
		snprintf(buf + strlen(buf), size - strlen(buf), other_ns ?
			 ", mounted only in another mount namespace" : ", no user seen");
		other_ns = false;
	} else if (!other_ns) {
		snprintf(buf, size, "nothing");
	}
	if (other_ns)
		snprintf(buf + strlen(buf), size - strlen(buf), "%sa filesystem mounted only in "
			 "another mount namespace", buf[0] ? "; " : "");
	if (primary >= 0 && swap >= 0)
		snprintf(buf + strlen(buf), size - strlen(buf), "; and swap");
}

/* The block device @device names: "sdc", "/dev/sdc" or a SCSI device's "H:C:T:L". */
static int resolve(const char *device, char *name, size_t size)
{
	char path[PATH_MAX], link[PATH_MAX], **names;
	struct statx stx;
	unsigned int h, c, t;
	unsigned long long l;
	char end;
	ssize_t len;
	int n;

	if (!strncmp(device, "/dev/", 5)) {
		if (statx(AT_FDCWD, device, AT_STATX_DONT_SYNC, STATX_TYPE, &stx) < 0)
			return -errno;
		if (!S_ISBLK(stx.stx_mode))
			return -ENOTBLK;
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", stx.stx_rdev_major,
			 stx.stx_rdev_minor);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			return -ENODEV;
		link[len] = '\0';
		device = strrchr(link, '/') + 1;
	} else if (sscanf(device, "%u:%u:%u:%llu%c", &h, &c, &t, &l, &end) == 4) {
		snprintf(path, sizeof(path), "/sys/class/scsi_device/%s/device/block", device);
		n = list_dir(path, "", false, 1, &names);
		if (n > 0)
			snprintf(name, size, "%s", names[0]);
		free_names(names, n);
		return n > 0 ? 0 : -ENODEV;
	}
	if (!device[0] || strchr(device, '/') || strlen(device) >= size)
		return -ENODEV;
	snprintf(path, sizeof(path), "/sys/class/block/%s", device);
	if (access(path, F_OK) < 0)
		return -ENODEV;
	snprintf(name, size, "%s", device);
	return 0;
}

int uae_device_stack_new(struct uae_stack_cache *cache, const char *device, unsigned int flags,
			 struct uae_stack **ret)
{
	struct sources src = { 0 };
	struct uae_stack *s;
	char name[64];
	unsigned int devices;
	int r;

	if (!device || !ret || flags)
		return -EINVAL;
	r = resolve(device, name, sizeof(name));
	if (r < 0)
		return r;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->refcount = 1;
	if (cache && cache->owner == getpid()) {
		cache_sources(cache, &src);
	} else {
		src.udev = udev_new();
		src.mounts = read_mounts();
		src.swaps = read_swaps();
	}
	r = -ENOMEM;
	if (!src.udev || !add_device(s, &src, UAE_STACK_DISK, -1, name))
		goto out;
	add_devices_above(s, &src, 0);
	/* Mounts of them; then loop devices over them or over files on those mounts, and so on. */
	devices = 0;
	for (int round = 0; round < 8; round++) {
		unsigned int from = devices;

		devices = s->n;
		add_mounts(s, &src, from);
		if (!add_loops(s, &src))
			break;
	}
	add_swaps(s, &src);
	/* Set once the array no longer moves: the summary walks entries through it. */
	for (unsigned int i = 0; i < s->n; i++)
		s->e[i].stack = s;
	summarize(s);
	*ret = s;
	s = NULL;
	r = 0;
out:
	if (!cache || cache->owner != getpid()) {
		udev_unref(src.udev);
		mnt_unref_table(src.mounts);
		mnt_unref_table(src.swaps);
	}
	uae_stack_unref(s);
	return r;
}

struct uae_stack *uae_stack_ref(struct uae_stack *s)
{
	if (s)
		s->refcount++;
	return s;
}

struct uae_stack *uae_stack_unref(struct uae_stack *s)
{
	if (!s || --s->refcount > 0)
		return NULL;
	for (unsigned int i = 0; i < s->n; i++) {
		struct uae_stack_entry *e = &s->e[i];

		free(e->name);
		free(e->devname);
		free(e->uuid);
		free(e->fstype);
		free(e->fs_uuid);
		for (unsigned int j = 0; j < e->n_props; j++)
			free(e->props[j].value);
	}
	free(s->e);
	free(s);
	return NULL;
}

const char *uae_stack_get_summary(struct uae_stack *s)
{
	return s ? s->summary : NULL;
}

int uae_stack_is_empty(struct uae_stack *s)
{
	return s && s->n == 1 && !s->e[0].fstype && !s->e[0].other_ns;
}

struct uae_stack_entry *uae_stack_get_first(struct uae_stack *s)
{
	return s && s->n ? &s->e[0] : NULL;
}

struct uae_stack_entry *uae_stack_entry_get_next(struct uae_stack_entry *e)
{
	struct uae_stack *s = e ? e->stack : NULL;

	return s && e->index + 1 < s->n ? &s->e[e->index + 1] : NULL;
}

struct uae_stack_entry *uae_stack_entry_get_below(struct uae_stack_entry *e)
{
	return e && e->below >= 0 ? &e->stack->e[e->below] : NULL;
}

enum uae_stack_type uae_stack_entry_get_type(struct uae_stack_entry *e)
{
	return e ? e->type : 0;
}

const char *uae_stack_entry_get_type_name(struct uae_stack_entry *e)
{
	return e ? type_names[e->type] : NULL;
}

const char *uae_stack_entry_get_name(struct uae_stack_entry *e)
{
	return e ? e->name : NULL;
}

const char *uae_stack_entry_get_devname(struct uae_stack_entry *e)
{
	return e ? e->devname : NULL;
}

const char *uae_stack_entry_get_uuid(struct uae_stack_entry *e)
{
	return e ? e->uuid : NULL;
}

const char *uae_stack_entry_get_fstype(struct uae_stack_entry *e)
{
	return e ? e->fstype : NULL;
}

/* Entries are added above what they sit on: only a later one can sit on @e. */
int uae_stack_entry_is_top(struct uae_stack_entry *e)
{
	if (!e)
		return 0;
	for (unsigned int j = e->index + 1; j < e->stack->n; j++)
		if (e->stack->e[j].below == (int)e->index)
			return 0;
	return 1;
}

const char *uae_stack_entry_get_property_key(struct uae_stack_entry *e, unsigned int i)
{
	if (!e)
		return NULL;
	/* The two kept as flags come first, when set. */
	if (e->internal && i-- == 0)
		return "internal";
	if (e->other_ns && i-- == 0)
		return "other_namespaces";
	return i < e->n_props ? e->props[i].key : NULL;
}

const char *uae_stack_entry_get_property(struct uae_stack_entry *e, const char *key)
{
	if (!e || !key)
		return NULL;
	if (!strcmp(key, "internal"))
		return e->internal ? "1" : NULL;
	if (!strcmp(key, "other_namespaces"))
		return e->other_ns ? "1" : NULL;
	for (unsigned int i = 0; i < e->n_props; i++)
		if (!strcmp(e->props[i].key, key))
			return e->props[i].value;
	return NULL;
}
