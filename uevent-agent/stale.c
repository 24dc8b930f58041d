// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: after a target scan, the LUNs that the target no longer reports (REPORT LUNS,
 * through libsgutils2), logged, and removed under the "remove" policy only while this
 * process holds the LU and has found nothing else using it.
 *
 * The hold is an exclusive open (O_EXCL) of the disk and every partition, and of the sg
 * device.  The kernel refuses it while anything has claimed the device, whether or not
 * this process can see the claim: a mount in any mount namespace, a swap area, a btrfs,
 * ZFS, md, DRBD or device-mapper member, a LIO iblock or pscsi backstore.  Once held,
 * nothing else can claim it until the delete.  Plain opens are not claims: those are looked
 * for in every thread's open files (a process whose files cannot be read keeps the LU), in
 * the loop devices' backing files, and in the kernel's own users that open a device without
 * claiming it, named in configfs: LIO fileio backstores and nvmet namespaces.  None of those
 * looks waits on a server: a file on a dead NFS or FUSE mount is asked for its cached type
 * only, and paths are looked up only below /dev.  Every check and the delete go through the
 * directory fd taken before the scan: a device re-added at the same address is never the
 * one deleted.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glob.h>
#include <linux/kcmp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <unistd.h>

#include <libmount/libmount.h>
#include <libudev.h>
#include <scsi/sg_cmds_basic.h>
#include <scsi/sg_pt.h>
#include <scsi/sg_unaligned.h>
#include <systemd/sd-journal.h>

#include "log.h"
#include "removals.h"
#include "stack-fields.h"
#include "stale.h"
#include "sysfs.h"

/* As many LUNs as the kernel's own scan takes by default (scsi_mod.max_report_luns). */
#define MAX_REPORT 16383
/* Device nodes of one LU: the disk, its partitions, sg, bsg... */
#define MAX_NODES 64

struct node {
	char rel[96];		/* "block/sdc/sdc1", relative to the LU's directory */
	dev_t dev;
	bool blk;
	int fd;			/* held, or -1 */
};

struct lu_nodes {
	struct node n[MAX_NODES];
	int count;
	bool overflow;
};

/* The kernel's scsilun_to_int(): the 8-byte LUN as Linux numbers it. */
static uint64_t lun_to_int(const uint8_t *b)
{
	uint64_t lun = 0;

	for (int i = 0; i < 8; i += 2)
		lun |= (uint64_t)sg_get_unaligned_be16(b + i) << (i * 8);
	return lun;
}

int uaed_target_luns(const char *target, struct uaed_lun **ret)
{
	struct udev *udev = udev_new();
	struct udev_enumerate *en = udev ? udev_enumerate_new(udev) : NULL;
	struct udev_list_entry *le;
	struct uaed_lun *luns = NULL;
	char sysname[64];
	int n = 0, r = -ENOMEM;

	snprintf(sysname, sizeof(sysname), "%s:*", target);
	if (en) {
		r = udev_enumerate_add_match_subsystem(en, "scsi");
		if (r >= 0)
			r = udev_enumerate_add_match_sysname(en, sysname);
		if (r >= 0)
			r = udev_enumerate_scan_devices(en);
	}
	udev_list_entry_foreach(le, r >= 0 ? udev_enumerate_get_list_entry(en) : NULL) {
		const char *syspath = udev_list_entry_get_name(le);
		struct uaed_lun *l, *grown = realloc(luns, (n + 1) * sizeof(*luns));

		if (!grown) {
			r = -ENOMEM;
			break;
		}
		luns = grown;
		l = &luns[n];
		l->dirfd = open(syspath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (l->dirfd < 0)
			continue;	/* removed meanwhile */
		snprintf(l->hctl, sizeof(l->hctl), "%s", strrchr(syspath, '/') + 1);
		l->lun = strtoull(strrchr(l->hctl, ':') + 1, NULL, 10);
		if (uaed_sysfs_readat(l->dirfd, "wwid", l->wwid, sizeof(l->wwid)) < 0)
			l->wwid[0] = '\0';
		n++;
	}
	udev_enumerate_unref(en);
	udev_unref(udev);
	if (r < 0) {
		uaed_target_luns_free(luns, n);
		return r;
	}
	*ret = luns;
	return n;
}

void uaed_target_luns_free(struct uaed_lun *luns, int n)
{
	for (int i = 0; i < n; i++)
		close(luns[i].dirfd);
	free(luns);
}

/* Every device node below the LU's directory ("dev" attributes), three levels deep. */
static void walk(int dirfd, const char *rel, int depth, struct lu_nodes *ln)
{
	char path[96], attr[112], buf[32];
	unsigned int ma, mi;
	struct dirent *de;
	DIR *d;
	int fd;

	fd = openat(dirfd, rel[0] ? rel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		/* Real directories only: the links lead to parents, drivers, holders. */
		if (de->d_type != DT_DIR || de->d_name[0] == '.' || !strcmp(de->d_name, "power"))
			continue;
		if (snprintf(path, sizeof(path), "%s%s%s", rel, rel[0] ? "/" : "",
			     de->d_name) >= (int)sizeof(path))
			continue;
		snprintf(attr, sizeof(attr), "%s/dev", path);
		if (uaed_sysfs_readat(dirfd, attr, buf, sizeof(buf)) == 0 &&
		    sscanf(buf, "%u:%u", &ma, &mi) == 2) {
			struct node *nd = &ln->n[ln->count];

			if (ln->count == MAX_NODES) {
				ln->overflow = true;
				break;
			}
			snprintf(nd->rel, sizeof(nd->rel), "%s", path);
			nd->dev = makedev(ma, mi);
			nd->blk = !strncmp(path, "block/", 6);
			nd->fd = -1;
			ln->count++;
		}
		if (depth > 1)
			walk(dirfd, path, depth - 1, ln);
	}
	closedir(d);
}

static const char *node_name(const struct node *nd)
{
	return strrchr(nd->rel, '/') + 1;
}

static bool is_sg(const struct node *nd)
{
	return !strncmp(nd->rel, "scsi_generic/", 13);
}

/* Open the node of @nd through /dev, and only if it is that very device. */
static int open_node(const struct node *nd, int flags)
{
	struct stat st;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/%s/%u:%u", nd->blk ? "block" : "char",
		 major(nd->dev), minor(nd->dev));
	fd = open(path, flags | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT) {	/* no udev: devtmpfs names only */
		snprintf(path, sizeof(path), "/dev/%s", node_name(nd));
		fd = open(path, flags | O_CLOEXEC | O_NONBLOCK);
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_rdev != nd->dev ||
	    (nd->blk ? !S_ISBLK(st.st_mode) : !S_ISCHR(st.st_mode))) {
		close(fd);
		return -ENXIO;
	}
	return fd;
}

static bool same_blk(const char *path, dev_t dev)
{
	struct stat st;

	return path && stat(path, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == dev;
}

/* The claim one block node of the LU shows, if this process can see it. */
static bool claim_of(int dirfd, const struct node *nd, char *why, size_t size)
{
	struct libmnt_table *tb;
	struct libmnt_iter *it;
	struct libmnt_fs *fs;
	char rel[128], name[64];
	bool found = false;

	snprintf(rel, sizeof(rel), "%s/holders", nd->rel);
	if (uaed_sysfs_first_entry(dirfd, rel, name, sizeof(name))) {
		snprintf(why, size, "held by %s (%s)", name, node_name(nd));
		return true;
	}
	tb = mnt_new_table();
	it = mnt_new_iter(MNT_ITER_FORWARD);
	if (tb && it && mnt_table_parse_swaps(tb, NULL) == 0) {
		while (!found && mnt_table_next_fs(tb, it, &fs) == 0) {
			/* A swap file is no device node; its path may be on a dead server. */
			const char *type = mnt_fs_get_swaptype(fs);

			if (type && !strcmp(type, "file"))
				continue;
			found = same_blk(mnt_fs_get_srcpath(fs), nd->dev);
			if (found)
				snprintf(why, size, "an active swap area (%s)", node_name(nd));
		}
	}
	mnt_unref_table(tb);
	tb = found ? NULL : mnt_new_table_from_file("/proc/self/mountinfo");
	fs = tb ? mnt_table_find_devno(tb, nd->dev, MNT_ITER_FORWARD) : NULL;
	if (fs) {
		snprintf(why, size, "mounted on %s (%s)", mnt_fs_get_target(fs), node_name(nd));
		found = true;
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return found;
}

/*
 * Why the kernel refused to let this process claim block node @nd (EBUSY).  A whole disk
 * is refused when one of its partitions is claimed: look at every block node of the LU.
 * False when nothing this process can see explains it.
 */
static bool why_claimed(int dirfd, const struct lu_nodes *ln, const struct node *nd,
			char *why, size_t size)
{
	if (claim_of(dirfd, nd, why, size))
		return true;
	for (int i = 0; i < ln->count; i++)
		if (&ln->n[i] != nd && ln->n[i].blk && claim_of(dirfd, &ln->n[i], why, size))
			return true;
	snprintf(why, size, "claimed by the kernel: mounted in another mount namespace, or a "
		 "btrfs, ZFS, md, DRBD or LIO member (%s)", node_name(nd));
	return false;
}

static bool in_nodes(const struct lu_nodes *ln, const struct stat *st)
{
	for (int i = 0; i < ln->count; i++)
		if (ln->n[i].dev == st->st_rdev &&
		    (ln->n[i].blk ? S_ISBLK(st->st_mode) : S_ISCHR(st->st_mode)))
			return true;
	return false;
}

/*
 * @name (below @dirfd) is one of the LU's nodes.  Its type and device number only, from
 * what the kernel has cached (AT_STATX_DONT_SYNC): an open file on a dead NFS or FUSE
 * server answers without a round trip to it.
 */
static bool is_node(int dirfd, const char *name, const struct lu_nodes *ln)
{
	struct statx stx;
	struct stat st;

	if (statx(dirfd, name, AT_STATX_DONT_SYNC, STATX_TYPE, &stx) < 0)
		return false;
	st.st_mode = stx.stx_mode;
	st.st_rdev = makedev(stx.stx_rdev_major, stx.stx_rdev_minor);
	return in_nodes(ln, &st);
}

/*
 * A path a kernel user was given (a loop device's backing file, a backstore's device) is
 * one of the LU's nodes.  Device nodes live in /dev, whose lookups never wait on a server;
 * a path elsewhere is not looked up (a node made elsewhere is not seen).
 */
static bool path_is_node(const char *path, const struct lu_nodes *ln)
{
	return !strncmp(path, "/dev/", 5) && is_node(AT_FDCWD, path, ln);
}

/* A loop device whose backing file is one of the LU's block devices. */
static bool loop_user(const struct lu_nodes *ln, char *why, size_t size)
{
	char path[300], backing[4096];
	struct dirent *de;
	bool found = false;
	DIR *d = opendir("/sys/block");

	while (d && !found && (de = readdir(d))) {
		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", de->d_name);
		if (uaed_sysfs_readat(AT_FDCWD, path, backing, sizeof(backing)) < 0 ||
		    !path_is_node(backing, ln))
			continue;
		snprintf(why, size, "the backing file of %.32s", de->d_name);
		found = true;
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * The device a LIO backstore's configfs directory @dir names: its udev_path (targetcli
 * writes it), else, for fileio, the file its info shows ("... File: PATH  Size: ...").
 * 1, 0 when it names none, -errno when it cannot be read.
 */
static int lio_device(const char *dir, char *dev, size_t size)
{
	char path[4200], info[4096], *file, *end;
	int r;

	snprintf(path, sizeof(path), "%s/udev_path", dir);
	r = uaed_sysfs_readat(AT_FDCWD, path, dev, size);
	if (r == 0 && dev[0])
		return 1;
	snprintf(path, sizeof(path), "%s/info", dir);
	r = r < 0 ? r : uaed_sysfs_readat(AT_FDCWD, path, info, sizeof(info));
	if (r < 0)
		return r;
	if (!(file = strstr(info, " File: ")) || !(end = strstr(file, "  Size: ")))
		return 0;
	file += strlen(" File: ");
	snprintf(dev, size, "%.*s", (int)(end - file), file);
	return 1;
}

/* "fileio_0/name/" of ".../core/fileio_0/name/" (@prefix), for the journal. */
static const char *configfs_name(char *path, const char *prefix)
{
	size_t len = strlen(path);

	if (len && path[len - 1] == '/')
		path[len - 1] = '\0';
	return path + strlen(prefix);
}

/* A folder of configfs that cannot be read ends the look; one that is not there is none. */
static int configfs_error(const char *path, int err)
{
	return err != ENOENT && err != ENOTDIR;
}

/* The device an nvmet namespace's folder names: 1 (into @dev), 0 if none, -errno. */
static int nvmet_device(const char *folder, char *dev, size_t size)
{
	char path[4200];
	int r;

	snprintf(path, sizeof(path), "%sdevice_path", folder);
	r = uaed_sysfs_readat(AT_FDCWD, path, dev, size);
	return r < 0 ? r : dev[0] != '\0';
}

/* A kind of kernel user, as configfs shows it: its folders, and the device each names. */
struct kernel_user_kind {
	const char *what;	/* one of them, for the journal */
	const char *all;	/* all of them */
	const char *folders;	/* glob(3) pattern */
	const char *prefix;	/* what of a folder's path the journal leaves out */
	int (*device)(const char *folder, char *dev, size_t size);	/* 1, 0 or -errno */
};

/*
 * The kernel's users that open a device without claiming it, as configfs names them: a
 * LIO backstore's device (fileio opens it as a plain file; iblock and pscsi claim it, and
 * are named here too) and an nvmet namespace's (its block backend does not claim).
 */
static const struct kernel_user_kind kernel_users[] = {
	{ "LIO backstore", "LIO's backstores", "/sys/kernel/config/target/core/*/*/",
	  "/sys/kernel/config/target/core/", lio_device },
	{ "nvmet namespace", "nvmet's namespaces",
	  "/sys/kernel/config/nvmet/subsystems/*/namespaces/*/",
	  "/sys/kernel/config/nvmet/subsystems/", nvmet_device },
};

/*
 * Whether a kernel user of kind @k names the LU.  One configured but not enabled counts:
 * someone means to use the LU.  1 (and @why) when one does; -1 when configfs cannot be
 * read, since nothing then proves that none does; 0 when none.
 */
static int kernel_user_of(const struct kernel_user_kind *k, const struct lu_nodes *ln,
			  char *why, size_t size)
{
	char dev[4096];
	int found = 0, r;
	glob_t g;

	r = glob(k->folders, GLOB_NOSORT, configfs_error, &g);
	for (size_t i = 0; r == 0 && i < g.gl_pathc && !found; i++) {
		int d = k->device(g.gl_pathv[i], dev, sizeof(dev));

		if (d == -ENOENT || d == 0 || (d > 0 && !path_is_node(dev, ln)))
			continue;	/* gone meanwhile, none, or another device */
		if (d < 0)
			snprintf(why, size, "cannot read %s %.120s: %s", k->what,
				 configfs_name(g.gl_pathv[i], k->prefix), strerror(-d));
		else
			snprintf(why, size, "the device of %s %.120s", k->what,
				 configfs_name(g.gl_pathv[i], k->prefix));
		found = d < 0 ? -1 : 1;
	}
	if (r == 0 || r == GLOB_NOMATCH)
		globfree(&g);
	if (r != 0 && r != GLOB_NOMATCH && !found) {
		snprintf(why, size, "cannot read %s in configfs", k->all);
		return -1;
	}
	return found;
}

/* Whether any kernel user that takes no claim names the LU: as kernel_user_of(). */
static int kernel_user(const struct lu_nodes *ln, char *why, size_t size)
{
	int found = 0;

	for (size_t i = 0; i < sizeof(kernel_users) / sizeof(kernel_users[0]) && !found; i++)
		found = kernel_user_of(&kernel_users[i], ln, why, size);
	return found;
}

static void comm_of(int procfd, const char *pid, char *comm, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/comm", pid);
	if (uaed_sysfs_readat(procfd, path, comm, size) < 0)
		snprintf(comm, size, "?");
}

/*
 * The open files of thread @tid of process @pid: 1 when one is one of the LU's nodes, -1
 * (and @why) when they cannot be read, 0 otherwise (or the thread is gone).
 */
static int thread_user(int procfd, long pid, const char *tid, const struct lu_nodes *ln,
		       char *why, size_t size)
{
	char path[300], comm[32], pidname[24];
	struct dirent *f;
	int fdd, found = 0;
	DIR *fds;

	snprintf(pidname, sizeof(pidname), "%ld", pid);
	snprintf(path, sizeof(path), "%ld/task/%s/fd", pid, tid);
	fdd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fdd < 0 && errno == ENOENT)
		return 0;	/* exited */
	if (fdd < 0 || !(fds = fdopendir(fdd))) {
		int err = errno;

		if (fdd >= 0)
			close(fdd);
		comm_of(procfd, pidname, comm, sizeof(comm));
		snprintf(why, size, "cannot see the open files of process %ld (%s): %s", pid,
			 comm, strerror(err));
		return -1;
	}
	while (!found && (f = readdir(fds))) {
		if (f->d_name[0] == '.' || !is_node(fdd, f->d_name, ln))
			continue;
		comm_of(procfd, pidname, comm, sizeof(comm));
		snprintf(why, size, "open in process %ld (%s)", pid, comm);
		found = 1;
	}
	closedir(fds);
	return found;
}

/*
 * Every thread of process @pid that has a table of open files of its own: the leader's is
 * gone once it has exited (its other threads live on, /proc/PID/fd then lists nothing),
 * and a thread may have unshared its own (CLONE_FILES).  Threads that share a table already
 * read are skipped (kcmp), so a process of a thousand threads is read once.
 */
static int task_user(int procfd, long pid, const struct lu_nodes *ln, char *why, size_t size)
{
	long seen[8];
	unsigned int n_seen = 0;
	char path[48];
	struct dirent *t;
	int tfd, found = 0;
	DIR *tasks;

	snprintf(path, sizeof(path), "%ld/task", pid);
	tfd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0 && errno == ENOENT)
		return 0;
	if (tfd < 0 || !(tasks = fdopendir(tfd))) {
		int err = errno;
		char comm[32];

		if (tfd >= 0)
			close(tfd);
		snprintf(path, sizeof(path), "%ld", pid);
		comm_of(procfd, path, comm, sizeof(comm));
		snprintf(why, size, "cannot see the threads of process %ld (%s): %s", pid, comm,
			 strerror(err));
		return -1;
	}
	while (!found && (t = readdir(tasks))) {
		char *end;
		long tid = strtol(t->d_name, &end, 10);
		bool shared = false;

		if (*end || tid <= 0)
			continue;
		for (unsigned int i = 0; i < n_seen && !shared; i++)
			shared = syscall(SYS_kcmp, (pid_t)seen[i], (pid_t)tid, KCMP_FILES, 0, 0) == 0;
		if (shared)
			continue;
		found = thread_user(procfd, pid, t->d_name, ln, why, size);
		if (n_seen < sizeof(seen) / sizeof(seen[0]))
			seen[n_seen++] = tid;
	}
	closedir(tasks);
	return found;
}

/*
 * A process other than this one with one of the LU's device nodes open in any of its
 * threads: 1, and which in @why.  A process whose open files cannot be read counts as one,
 * since nothing proves that it does not: -1.  None: 0.
 */
static int process_user(const struct lu_nodes *ln, char *why, size_t size)
{
	DIR *proc = opendir("/proc");
	long self = (long)getpid();
	struct dirent *de;
	int found = 0;

	if (!proc) {
		snprintf(why, size, "cannot read /proc: %s", strerror(errno));
		return -1;
	}
	while (!found && (de = readdir(proc))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == self)
			continue;
		found = task_user(dirfd(proc), pid, ln, why, size);
	}
	closedir(proc);
	return found;
}

/*
 * An exclusive open that no holder, mount or swap explains is the kernel's (a mount in
 * another namespace, a btrfs, md or LIO member) and lasts, unless a process has the node
 * open: a program's (mkfs, fsck, a partitioner), which ends.  True then, @why saying which.
 */
static bool program_claim(const struct lu_nodes *ln, char *why, size_t size)
{
	char opener[256];

	if (process_user(ln, opener, sizeof(opener)) <= 0)
		return false;
	snprintf(why, size, "claimed, %s", opener);
	return true;
}

static void release(struct lu_nodes *ln)
{
	for (int i = 0; i < ln->count; i++) {
		if (ln->n[i].fd >= 0)
			close(ln->n[i].fd);
		ln->n[i].fd = -1;
	}
}

/*
 * Take the LU: every block node exclusively, the sg node exclusively, the whole disk's
 * BSD lock (systemd's convention for "a tool is working on this disk", udev included).
 * NULL when held and nothing else uses it; else why not (and nothing is held), and in
 * *@passing whether that may pass within seconds: another program's open file, lock or
 * exclusive open (a udev worker probing the disk, multipathd's checker looking at a path
 * it does not map, mkfs), or the node going away; not a holder, a mount in any namespace,
 * swap, a loop device, a process whose files cannot be read, or another LU.
 */
static const char *hold(const struct uaed_lun *l, struct lu_nodes *ln, bool *passing,
			char *why, size_t size)
{
	char wwid[128], held[MAX_NODES][96];
	int nheld, r;

	*passing = false;
	memset(ln, 0, sizeof(*ln));
	walk(l->dirfd, "", 3, ln);
	if (ln->overflow) {
		snprintf(why, size, "more than %d device nodes", MAX_NODES);
		return why;
	}
	for (int i = 0; i < ln->count; i++) {
		struct node *nd = &ln->n[i];
		int fd;

		if (!nd->blk && !is_sg(nd))
			continue;	/* tape and others: opening one has side effects */
		fd = open_node(nd, nd->blk ? O_RDONLY | O_EXCL : O_RDWR | O_EXCL);
		if (fd == -EBUSY && nd->blk)
			*passing = !why_claimed(l->dirfd, ln, nd, why, size) &&
				   program_claim(ln, why, size);
		else if (fd == -EBUSY)
			snprintf(why, size, "open (%s)", node_name(nd));
		else if (fd < 0)
			snprintf(why, size, "cannot hold %s: %s", node_name(nd), strerror(-fd));
		if (fd < 0) {
			*passing |= (!nd->blk && fd == -EBUSY) || fd == -ENOENT || fd == -ENXIO;
			goto fail;
		}
		nd->fd = fd;
		if (nd->blk && !strchr(nd->rel + 6, '/') && flock(fd, LOCK_EX | LOCK_NB) < 0) {
			snprintf(why, size, "locked by another program (%s)", node_name(nd));
			*passing = true;
			goto fail;
		}
	}
	for (int i = 0; i < ln->count; i++) {
		char rel[128], name[64];

		snprintf(rel, sizeof(rel), "%s/holders", ln->n[i].rel);
		if (ln->n[i].blk && uaed_sysfs_first_entry(l->dirfd, rel, name, sizeof(name))) {
			snprintf(why, size, "held by %s (%s)", name, node_name(&ln->n[i]));
			goto fail;
		}
	}
	if (loop_user(ln, why, size) || kernel_user(ln, why, size))
		goto fail;	/* a kernel user that cannot be read lasts as one that is */
	r = process_user(ln, why, size);
	if (r) {
		*passing = r > 0;
		goto fail;
	}
	/* Held: still the LU it was, and no node appeared that is not held. */
	if (uaed_sysfs_readat(l->dirfd, "wwid", wwid, sizeof(wwid)) < 0)
		wwid[0] = '\0';
	if (strcmp(wwid, l->wwid)) {
		snprintf(why, size, "not the LU it was: WWID '%s', was '%s'", wwid, l->wwid);
		goto fail;
	}
	nheld = ln->count;
	for (int i = 0; i < nheld; i++)
		snprintf(held[i], sizeof(held[i]), "%s", ln->n[i].rel);
	{
		struct lu_nodes now = { .count = 0 };

		walk(l->dirfd, "", 3, &now);
		for (int i = 0; i < now.count; i++) {
			bool known = false;

			for (int j = 0; j < nheld && !known; j++)
				known = !strcmp(now.n[i].rel, held[j]);
			if (!known) {
				snprintf(why, size, "%s appeared while it was checked",
					 node_name(&now.n[i]));
				*passing = true;
				goto fail;
			}
		}
	}
	return NULL;
fail:
	release(ln);
	return why;
}

int uaed_report_luns_count(const uint8_t *resp, uint32_t alloc, uint32_t got)
{
	uint32_t len;

	if (got < 8 || got > alloc)
		return -EBADMSG;
	len = sg_get_unaligned_be32(resp);
	if (len % 8)
		return -EBADMSG;
	if (len / 8 > MAX_REPORT)
		return -E2BIG;
	if (len + 8 > alloc)
		return -EAGAIN;
	/*
	 * Fewer bytes than the list says it has: the zeroed rest would read as LUN 0 and
	 * the LUNs missing from it as gone, so none of it is trusted.
	 */
	if (got < len + 8)
		return -EBADMSG;
	return (int)(len / 8);
}

/* REPORT LUNS through the sg device of @via, the whole list; the count, or -errno. */
static int report_luns(const struct uaed_lun *via, uint64_t **out)
{
	uint32_t alloc = 8 + 8 * 512;
	struct sg_pt_base *pt;
	uint8_t *resp = NULL;
	int fd = uaed_lu_open_sg(via), r;

	if (fd < 0)
		return fd;
	pt = construct_scsi_pt_obj_with_fd(fd, 0);
	r = pt ? 0 : -ENOMEM;
	while (r == 0) {
		uint8_t *grown = realloc(resp, alloc);
		int resid;

		r = -ENOMEM;
		if (!grown)
			break;
		resp = grown;
		memset(resp, 0, alloc);
		r = sg_ll_report_luns_pt(pt, 0, resp, (int)alloc, false, 0) ? -EIO : 0;
		if (r < 0)
			break;
		resid = get_scsi_pt_resid(pt);
		/* A residual beyond what was asked for: nothing of it is trusted. */
		r = uaed_report_luns_count(resp, alloc, resid <= 0 ? alloc :
					   (uint32_t)resid <= alloc ? alloc - resid : 0);
		/* Longer than asked for: ask again for all of it. */
		if (r == -EAGAIN) {
			alloc = sg_get_unaligned_be32(resp) + 8;
			r = 0;
		} else {
			break;
		}
	}
	if (pt)
		destruct_scsi_pt_obj(pt);
	close(fd);
	if (r > 0) {
		int n = r;

		*out = calloc((size_t)n + 1, sizeof(**out));
		r = *out ? n : -ENOMEM;
		for (int i = 0; i < r; i++)
			(*out)[i] = lun_to_int(resp + 8 + 8 * i);
	} else if (r == 0) {
		*out = calloc(1, sizeof(**out));
		r = *out ? 0 : -ENOMEM;
	}
	free(resp);
	return r;
}

const char *uaed_outcome_name(enum uaed_outcome o)
{
	static const char *const name[] = { "logged", "kept", "removed", "failed" };

	return name[o];
}

/* @stack: what the LU held up when it was looked at, before any removal (stack-fields.h). */
static void log_stale(const struct uaed_lun *l, const char *disk, enum uaed_outcome o,
		      const char *why, const struct uaed_fields *stack)
{
	static const char *const text[] = { "", "; kept: ", "; removed",
					    "; removing it failed: " };
	static const int priority[] = { LOG_WARNING, LOG_WARNING, LOG_NOTICE, LOG_ERR };

	uaed_log_action(priority[o], "stale-lun",
			"MESSAGE=LUN %s (%s, %s) is no longer reported by its target%s%s", l->hctl,
			disk[0] ? disk : "no block device", l->wwid[0] ? l->wwid : "no WWID",
			text[o], why ? why : "", "UAEVENTS_HCTL=%s", l->hctl, "UAEVENTS_WWID=%s",
			l->wwid, "UAEVENTS_STALE=%s", uaed_outcome_name(o), "UAEVENTS_REASON=%s",
			why ? why : "", UAED_FIELDS, stack);
}

struct uaed_hold {
	struct lu_nodes ln;
};

const char *uaed_lu_hold(const struct uaed_lun *l, struct uaed_hold **ret, bool *passing,
			 char *why, size_t size)
{
	struct uaed_hold *h = malloc(sizeof(*h));
	const char *kept;

	*passing = true;	/* out of memory now, maybe not in a moment */
	kept = h ? hold(l, &h->ln, passing, why, size) : "out of memory";

	*ret = kept ? NULL : h;
	if (kept)
		free(h);
	return kept;
}

int uaed_hold_sg(const struct uaed_hold *h)
{
	for (int i = 0; i < h->ln.count; i++)
		if (is_sg(&h->ln.n[i]) && h->ln.n[i].fd >= 0)
			return h->ln.n[i].fd;
	return -ENODEV;
}

void uaed_hold_free(struct uaed_hold *h)
{
	if (!h)
		return;
	release(&h->ln);
	free(h);
}

int uaed_lu_delete(const struct uaed_lun *l, struct uaed_hold *h)
{
	/* Not to be taken for another tool's deliberate removal (removals.h). */
	int r = uaed_removals_mark_own(l->hctl);

	if (r < 0)
		uaed_log_errno(LOG_WARNING, r, "uaeventd: cannot mark the removal of %s as its "
			       "own: %m; target scans leave it out for removal_grace_s", l->hctl);
	/* Through the directory of the LU that was checked, while it is held. */
	r = uaed_sysfs_writeat(l->dirfd, "delete", "1");
	uaed_hold_free(h);
	if (r < 0)
		uaed_removals_unmark_own(l->hctl);
	return r;
}

int uaed_lu_open_sg(const struct uaed_lun *l)
{
	struct lu_nodes ln = { .count = 0 };
	int fd = -ENODEV;

	walk(l->dirfd, "", 2, &ln);
	for (int i = 0; i < ln.count && fd == -ENODEV; i++)
		if (is_sg(&ln.n[i]))
			fd = open_node(&ln.n[i], O_RDWR);
	return fd;
}

bool uaed_lu_disk(const struct uaed_lun *l, char *disk, size_t size)
{
	if (uaed_sysfs_first_entry(l->dirfd, "block", disk, size))
		return true;
	disk[0] = '\0';
	return false;
}

/* An answer that would make LUs stale on its own say-so only if it is plausible. */
static const char *implausible(const uint64_t *reported, int n, const struct uaed_lun *before,
			       int n_before, char *why, size_t size)
{
	int known = 0;

	if (n == 0)
		return "it lists no LUN at all (arrays do so briefly while they reconfigure)";
	for (int i = 0; i < n_before; i++)
		for (int j = 0; j < n; j++)
			if (reported[j] == before[i].lun) {
				known++;
				break;
			}
	if (known == 0 && n_before > 0) {
		snprintf(why, size, "it lists %d LUN(s), none of the %d this host knows on the "
			 "target", n, n_before);
		return why;
	}
	return NULL;
}

/*
 * One try at a stale LU; true to be tried again in a moment (the hold was refused for a
 * reason that may pass, and this is not the @last try), else it is logged.  That it waits
 * is said once, on the first try (@round 0).
 */
static bool handle_stale(const struct uaed_lun *l, bool remove_stale, int round, bool last)
{
	struct uaed_fields stack = { 0 };
	struct uaed_hold *h;
	char disk[32], why[256];
	const char *kept;
	bool passing;
	int r;

	if (!uaed_lu_disk(l, disk, sizeof(disk)))
		disk[0] = '\0';
	/* Before it is held or removed: what it holds up, which is why it stays or may go. */
	uaed_stack_fields_of(&stack, disk);
	if (!remove_stale) {
		log_stale(l, disk, UAED_LOGGED, NULL, &stack);
		uaed_fields_free(&stack);
		return false;
	}
	kept = uaed_lu_hold(l, &h, &passing, why, sizeof(why));
	if (kept && passing && !last) {
		if (round == 0)
			uaed_log_action(LOG_INFO, "stale-wait",
					"MESSAGE=LUN %s (%s) is no longer reported by its target; "
					"not removed yet: %s; looking again", l->hctl,
					disk[0] ? disk : "no block device", kept,
					"UAEVENTS_HCTL=%s", l->hctl, "UAEVENTS_WWID=%s", l->wwid,
					"UAEVENTS_REASON=%s", kept, UAED_FIELDS, &stack);
		uaed_fields_free(&stack);
		return true;
	}
	if (kept) {
		log_stale(l, disk, UAED_KEPT, kept, &stack);
		uaed_fields_free(&stack);
		return false;
	}
	r = uaed_lu_delete(l, h);
	if (r < 0)
		log_stale(l, disk, UAED_FAILED, strerror(-r), &stack);
	else
		log_stale(l, disk, UAED_REMOVED, NULL, &stack);
	uaed_fields_free(&stack);
	return false;
}

void uaed_hold_rounds(int n, unsigned int budget_s, bool (*refresh)(void *ctx),
		      bool (*attempt)(int i, int round, bool last, void *ctx), void *ctx)
{
	/* Seconds before each further look: a probe or a checker's open lasts less. */
	static const unsigned int pause_s[] = { 1, 2, 4, 8 };
	bool *again = n > 0 ? calloc((size_t)n, sizeof(*again)) : NULL;
	unsigned int spent = 0;
	int rounds = 0, left = 0;

	/* As many as the budget holds: the job that looks must end well within its timeout. */
	while (rounds < (int)(sizeof(pause_s) / sizeof(pause_s[0])) &&
	       spent + pause_s[rounds] <= budget_s)
		spent += pause_s[rounds++];
	for (int i = 0; i < n; i++) {
		bool a = attempt(i, 0, !again || rounds == 0, ctx);

		if (again) {
			again[i] = a;
			left += a;
		}
	}
	for (int round = 1; left && round <= rounds; round++) {
		bool last = round == rounds;

		sleep(pause_s[round - 1]);
		if (refresh && !refresh(ctx))
			last = true;
		left = 0;
		for (int i = 0; i < n; i++) {
			if (!again[i])
				continue;
			again[i] = attempt(i, round, last, ctx);
			left += again[i];
		}
	}
	free(again);
}

struct stale_round {
	const struct uaed_lun *luns;
	int n;
	bool *gone;			/* not listed by the target, and not settled yet */
	bool remove;
	const char *unconfirmed;	/* why the target's list could not be read again */
	char why[160];
};

/*
 * Before each further look: what the target lists now.  A LUN listed again is no longer
 * stale (an array reconfiguring); a list that cannot be read again leaves every one that
 * waits unproven, kept.
 */
static bool stale_refresh(void *ctx)
{
	struct stale_round *sr = ctx;
	uint64_t *reported = NULL;
	int n = uaed_target_report_luns(sr->luns, sr->n, &reported);

	sr->unconfirmed = n < 0 ? "REPORT LUNS failed when looked at again" :
			  implausible(reported, n, sr->luns, sr->n, sr->why, sizeof(sr->why));
	for (int i = 0; !sr->unconfirmed && i < sr->n; i++) {
		if (!sr->gone[i])
			continue;
		for (int j = 0; j < n && sr->gone[i]; j++)
			sr->gone[i] = reported[j] != sr->luns[i].lun;
		if (!sr->gone[i]) {
			uaed_log_action(LOG_INFO, "stale-lun",
					"MESSAGE=LUN %s is reported by its target again: not "
					"stale", sr->luns[i].hctl, "UAEVENTS_HCTL=%s",
					sr->luns[i].hctl, "UAEVENTS_WWID=%s", sr->luns[i].wwid,
					"UAEVENTS_STALE=listed-again");
		}
	}
	free(reported);
	return !sr->unconfirmed;
}

static bool stale_attempt(int i, int round, bool last, void *ctx)
{
	struct stale_round *sr = ctx;
	char disk[32];

	if (!sr->gone[i])
		return false;
	if (sr->unconfirmed) {
		struct uaed_fields stack = { 0 };

		if (!uaed_lu_disk(&sr->luns[i], disk, sizeof(disk)))
			disk[0] = '\0';
		uaed_stack_fields_of(&stack, disk);
		log_stale(&sr->luns[i], disk, UAED_KEPT, sr->unconfirmed, &stack);
		uaed_fields_free(&stack);
		sr->gone[i] = false;
		return false;
	}
	/* Settled (logged) ones are left out of the next list's comparison. */
	sr->gone[i] = handle_stale(&sr->luns[i], sr->remove, round, last);
	return sr->gone[i];
}

int uaed_target_report_luns(const struct uaed_lun *luns, int n_luns, uint64_t **reported)
{
	int n = -ENODEV;

	/* Ask any LU of the target that is still there. */
	for (int i = 0; i < n_luns && n < 0; i++)
		n = report_luns(&luns[i], reported);
	return n;
}

void uaed_check_stale(const struct uaed_lun *before, int n_before, bool remove_stale,
		      unsigned int budget_s)
{
	uint64_t *reported = NULL;
	struct stale_round sr;
	const char *bad;
	bool *gone;
	char why[160];
	int n;

	if (n_before == 0)
		return;
	n = uaed_target_report_luns(before, n_before, &reported);
	if (n < 0) {
		uaed_log_action(LOG_WARNING, "stale-check",
				"MESSAGE=REPORT LUNS failed on target %.*s: %s; stale LUNs not "
				"checked", (int)(strrchr(before[0].hctl, ':') - before[0].hctl),
				before[0].hctl, strerror(-n));
		return;
	}
	bad = implausible(reported, n, before, n_before, why, sizeof(why));
	if (bad) {
		uaed_log_action(LOG_WARNING, "stale-check",
				"MESSAGE=REPORT LUNS answer of target %.*s not trusted: %s; "
				"no LUN treated as stale", (int)(strrchr(before[0].hctl, ':') -
				before[0].hctl), before[0].hctl, bad, "UAEVENTS_REASON=%s", bad);
		free(reported);
		return;
	}
	gone = calloc((size_t)n_before, sizeof(*gone));
	for (int i = 0; i < n_before; i++) {
		bool found = false;

		for (int j = 0; j < n && !found; j++)
			found = reported[j] == before[i].lun;
		if (gone)
			gone[i] = !found;
		else if (!found)	/* out of memory: one look each, as the last */
			handle_stale(&before[i], remove_stale, 0, true);
	}
	free(reported);
	if (!gone)
		return;
	sr = (struct stale_round){ .luns = before, .n = n_before, .gone = gone,
				   .remove = remove_stale };
	uaed_hold_rounds(n_before, budget_s, stale_refresh, stale_attempt, &sr);
	free(gone);
}
