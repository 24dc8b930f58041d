// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: its children's cgroups (children.h), and commands run from a job child.
 *
 * cgroup v2's rule: a cgroup with children cgroups holds no processes of its own once
 * controllers are enabled, so the daemon moves itself into a leaf ("daemon") next to its
 * children's.  A cgroup is killed with cgroup.kill (Linux 5.14), all its processes at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <systemd/sd-event.h>
#include <systemd/sd-journal.h>

#include "children.h"
#include "log.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
/* Cgroups still populated when their child ended: removed later. */
#define MAX_LINGERING 64

static int base_fd = -1;
static unsigned long next_id;
static char lingering[MAX_LINGERING][48];
static unsigned int n_lingering;
static sd_event_source *sweep;	/* removes the lingering cgroups, every second */

static int write_at(int dir, const char *file, const char *value)
{
	int fd = openat(dir, file, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* The daemon's own cgroup, if systemd delegated it: "0::/system.slice/uaeventd.service". */
static int delegated_cgroup(char *path, size_t size)
{
	char line[4096], flag[8];
	FILE *f = fopen("/proc/self/cgroup", "re");
	bool found = false;

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "0::/", 4) && line[4] != '\n';
	fclose(f);
	if (!found)
		return -ENOENT;
	line[strcspn(line, "\n")] = '\0';
	if ((size_t)snprintf(path, size, CGROUP_ROOT "%s", line + 3) >= size)
		return -ENAMETOOLONG;
	/* systemd marks what it delegates (the unit's Delegate=yes). */
	if (getxattr(path, "trusted.delegate", flag, sizeof(flag)) != 1 || flag[0] != '1')
		return -EPERM;
	return 0;
}

static void remove_lingering(void);

static int on_sweep(sd_event_source *s, uint64_t usec, void *userdata)
{
	remove_lingering();
	if (n_lingering) {
		sd_event_source_set_time_relative(s, 1000000);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	}
	return 0;
}

void uaed_children_setup(sd_event *loop)
{
	char path[4200];
	int r, fd;

	r = delegated_cgroup(path, sizeof(path));
	if (r < 0) {
		uaed_log_errno(LOG_INFO, r, "uaeventd: no delegated cgroup (%m): a hook or rescan "
			       "is killed with its process group, which a child that calls "
			       "setsid() leaves");
		return;
	}
	fd = open(path, O_DIRECTORY | O_CLOEXEC);
	r = fd < 0 ? -errno : 0;
	if (r == 0 && mkdirat(fd, "daemon", 0755) < 0 && errno != EEXIST)
		r = -errno;
	if (r == 0) {
		int daemon = openat(fd, "daemon", O_DIRECTORY | O_CLOEXEC);

		r = daemon < 0 ? -errno : write_at(daemon, "cgroup.procs", "0");
		if (daemon >= 0)
			close(daemon);
	}
	if (r < 0) {
		uaed_log_errno(LOG_WARNING, r, "uaeventd: cannot use its cgroup %s: %m; a hook or "
			       "rescan is killed with its process group only", path);
		if (fd >= 0)
			close(fd);
		return;
	}
	if (sd_event_add_time_relative(loop, &sweep, CLOCK_MONOTONIC, 1000000, 0, on_sweep,
				       NULL) >= 0)
		sd_event_source_set_enabled(sweep, SD_EVENT_OFF);
	base_fd = fd;
	uaed_log(LOG_INFO, "uaeventd: hooks and rescans each run in a cgroup of their "
		 "own under %s", path);
}

bool uaed_children_use_cgroups(void)
{
	return base_fd >= 0;
}

static void remove_lingering(void)
{
	unsigned int kept = 0;

	for (unsigned int i = 0; i < n_lingering; i++) {
		if (unlinkat(base_fd, lingering[i], AT_REMOVEDIR) < 0 && errno == EBUSY)
			memmove(lingering[kept++], lingering[i], sizeof(lingering[i]));
	}
	n_lingering = kept;
}

void uaed_child_prepare(struct uaed_child *c)
{
	c->pid = 0;
	c->cgroup_fd = -1;
	c->cgroup[0] = '\0';
	if (base_fd < 0)
		return;
	remove_lingering();
	snprintf(c->cgroup, sizeof(c->cgroup), "child-%d-%lu", (int)getpid(), next_id++);
	if (mkdirat(base_fd, c->cgroup, 0755) < 0 && errno != EEXIST) {
		uaed_log(LOG_WARNING, "uaeventd: cannot create cgroup %s: %m; this child "
			 "is killed with its process group only", c->cgroup);
		c->cgroup[0] = '\0';
		return;
	}
	c->cgroup_fd = openat(base_fd, c->cgroup, O_DIRECTORY | O_CLOEXEC);
	if (c->cgroup_fd < 0) {
		unlinkat(base_fd, c->cgroup, AT_REMOVEDIR);
		c->cgroup[0] = '\0';
	}
}

int uaed_child_enter(const struct uaed_child *c)
{
	sigset_t none;

	/*
	 * Not the daemon's blocked signals (sd-event reads them from a signalfd): a stop's
	 * SIGTERM to the unit's cgroup ends its children at once, not after TimeoutStopSec.
	 */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
	/* Not run outside of it: a timeout could not reach what it starts. */
	return c->cgroup_fd >= 0 ? write_at(c->cgroup_fd, "cgroup.procs", "0") : 0;
}

void uaed_child_started(struct uaed_child *c, pid_t pid)
{
	c->pid = pid;
	setpgid(pid, pid);	/* also here: no race with a kill(-pid) */
}

void uaed_child_kill(const struct uaed_child *c)
{
	if (c->cgroup_fd >= 0 && write_at(c->cgroup_fd, "cgroup.kill", "1") == 0)
		return;
	if (c->pid > 0)
		kill(-c->pid, SIGKILL);
}

void uaed_child_done(struct uaed_child *c)
{
	uaed_child_kill(c);
	if (c->cgroup_fd >= 0) {
		close(c->cgroup_fd);
		/* Its killed processes may still be exiting (or stuck in the kernel). */
		if (unlinkat(base_fd, c->cgroup, AT_REMOVEDIR) < 0 && errno == EBUSY &&
		    n_lingering < MAX_LINGERING) {
			memcpy(lingering[n_lingering++], c->cgroup, sizeof(c->cgroup));
			if (sweep) {
				sd_event_source_set_time_relative(sweep, 100000);
				sd_event_source_set_enabled(sweep, SD_EVENT_ONESHOT);
			}
		}
	}
	c->cgroup_fd = -1;
	c->pid = 0;
}

/* The fixed PATH of what jobs run; a name without '/' is looked up there, as execvp() would. */
#define RUN_PATH "/usr/sbin:/usr/bin:/sbin:/bin"

/*
 * Start @path as execvp() would: a file without "#!" (ENOEXEC) through /bin/sh.  0 or the
 * errno of the failure.
 */
static int spawn_one(pid_t *pid, const char *path, char *const argv[],
		     const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
		     char *const env[])
{
	char *sh_argv[64] = { "/bin/sh", (char *)path };
	size_t n = 2;
	int err = posix_spawn(pid, path, actions, attr, argv, env);

	if (err != ENOEXEC)
		return err;
	for (size_t i = 1; argv[0] && argv[i] && n < sizeof(sh_argv) / sizeof(sh_argv[0]) - 1;
	     i++)
		sh_argv[n++] = argv[i];
	sh_argv[n] = NULL;
	return posix_spawn(pid, "/bin/sh", actions, attr, sh_argv, env);
}

/* @file found as execvp() finds it in RUN_PATH (the next folder after EACCES or ENOENT). */
static int spawn(pid_t *pid, const char *file, char *const argv[],
		 const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
		 char *const env[])
{
	char dirs[] = RUN_PATH, *save = NULL, path[PATH_MAX];
	bool denied = false;
	int err;

	if (strchr(file, '/'))
		return spawn_one(pid, file, argv, actions, attr, env);
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (snprintf(path, sizeof(path), "%s/%s", d, file) >= (int)sizeof(path))
			return ENAMETOOLONG;
		err = spawn_one(pid, path, argv, actions, attr, env);
		if (err != ENOENT && err != ENOTDIR && err != EACCES)
			return err;
		denied |= err == EACCES;
	}
	return denied ? EACCES : ENOENT;
}

int uaed_run_wait(const char *file, char *const argv[], char *out, size_t size)
{
	static char *const env[] = { "PATH=" RUN_PATH, NULL };
	int p[2] = { -1, -1 }, status = 0, err;
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	size_t got = 0;
	sigset_t none;
	ssize_t n;
	pid_t pid;

	if (out && pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	/*
	 * posix_spawn(), not fork(): glibc's shares the caller's memory until the exec
	 * (CLONE_VM | CLONE_VFORK), where a fork of the job's child copied its page tables,
	 * once per LU in a storm (make bench-profile).  Not the daemon's blocked signals:
	 * the command may wait for children.
	 */
	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	posix_spawn_file_actions_init(&actions);
	if (out) {
		posix_spawn_file_actions_adddup2(&actions, p[1], STDOUT_FILENO);
		posix_spawn_file_actions_adddup2(&actions, p[1], STDERR_FILENO);
	}
	err = spawn(&pid, file, argv, &actions, &attr, env);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	if (out) {
		close(p[1]);
		while (!err && (n = read(p[0], out + got, size - 1 - got)) > 0)
			got += (size_t)n;
		close(p[0]);
		out[got] = '\0';
		out[strcspn(out, "\n")] = '\0';
	}
	/* Not started: as a shell says it, exit status 127 and the reason, where output goes. */
	if (err) {
		if (out)
			snprintf(out, size, "cannot run %s: %s", file, strerror(err));
		else
			dprintf(STDERR_FILENO, "cannot run %s: %s\n", file, strerror(err));
		return 127 << 8;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return status;
}
