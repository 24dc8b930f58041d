/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef UAED_CHILDREN_H
#define UAED_CHILDREN_H
#include <stdbool.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

/*
 * uaeventd's children (hooks, rescan jobs), each in a cgroup of its own under the one
 * systemd delegated to the unit (Delegate=yes), so that killing a child kills all it
 * started: setsid() or a double fork leaves a process group, never a cgroup.  Without a
 * delegated cgroup (no systemd, or a unit without Delegate=), process groups.
 */
struct uaed_child {
	pid_t pid;
	int cgroup_fd;		/* its cgroup's directory; -1: a process group only */
	char cgroup[48];
};

/* At start, before any child: find the delegated cgroup and move the daemon into a leaf. */
void uaed_children_setup(sd_event *loop);
/* Whether children get cgroups. */
bool uaed_children_use_cgroups(void);

/* Before fork(): its cgroup, when there are cgroups. */
void uaed_child_prepare(struct uaed_child *c);
/*
 * In the child, first thing: no signal blocked (a stop ends it at once), into its cgroup
 * and its own process group; 0 or -errno.
 */
int uaed_child_enter(const struct uaed_child *c);
/* In the parent, after fork(). */
void uaed_child_started(struct uaed_child *c, pid_t pid);
/* Kill it and everything it started. */
void uaed_child_kill(const struct uaed_child *c);
/*
 * Its main process was reaped (or never ran): kill what it left behind and remove its
 * cgroup, at once or, while the killed processes still exit, a little later.
 */
void uaed_child_done(struct uaed_child *c);
/*
 * From a job child (a scan or rescan, itself killed with all it started on its timeout):
 * run @file (found in a fixed PATH unless absolute) with @argv and only that PATH in its
 * environment and no blocked signal, and wait for it.  Its output goes to @out (up to
 * @size, the first line kept) or, without @out, where the job's goes (the journal).
 * Returns its wait status, or -errno when it could not be started.
 */
int uaed_run_wait(const char *file, char *const argv[], char *out, size_t size);
#endif
