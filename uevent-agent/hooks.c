// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: running hook scripts.  Each runs directly (execve, never a shell) in a process
 * group of its own, with its output going to the journal, and is killed with its whole
 * group when it outlives the timeout.  At most max_concurrent run at once; the rest wait.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "libuaevents.h"
#include "hooks.h"
#include "sysfs.h"

#define MAX_HOOKS 64
#define ENV_VARS 40

struct job {
	struct job *next;
	char path[512];
	char *envp[ENV_VARS + 1];
};

struct running {
	struct uaed_hooks *h;
	pid_t pid;
	char name[256];
	sd_event_source *child, *timer;
};

struct uaed_hooks {
	sd_event *loop;
	char dir[256];
	char names[MAX_HOOKS][256];
	unsigned int n;
	unsigned int timeout_s, max_running, running;
	char mail_to[256];
	struct job *queue, *queue_tail;
};

void uaed_sanitize(const char *in, char *out, size_t size)
{
	size_t i;

	if (!size)
		return;
	for (i = 0; in && in[i] && i < size - 1; i++) {
		unsigned char c = (unsigned char)in[i];

		out[i] = (c < 0x20 || c > 0x7e || strchr("$`;&|<>(){}\\\"'*?!~#", c)) ? '_' : c;
	}
	out[i] = '\0';
}

int uaed_hooks_new(struct uaed_hooks **ret, sd_event *loop)
{
	struct uaed_hooks *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	h->loop = sd_event_ref(loop);
	*ret = h;
	return 0;
}

static void free_job(struct job *j)
{
	for (int i = 0; j->envp[i]; i++)
		free(j->envp[i]);
	free(j);
}

void uaed_hooks_free(struct uaed_hooks *h)
{
	struct job *j;

	if (!h)
		return;
	while ((j = h->queue)) {
		h->queue = j->next;
		free_job(j);
	}
	sd_event_unref(h->loop);
	free(h);
}

/* Owned by root, a regular executable file, writable by nobody else. */
static const char *unsafe_reason(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != 0)
		return "not owned by root";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "writable by group or others";
	if (!(st->st_mode & S_IXUSR))
		return "not executable";
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

void uaed_hooks_scan(struct uaed_hooks *h, const struct uaed_config *cfg)
{
	struct dirent *de;
	struct stat st;
	const char *why;
	DIR *d;

	h->n = 0;
	h->timeout_s = cfg->hook_timeout_s;
	h->max_running = cfg->max_hooks;
	snprintf(h->mail_to, sizeof(h->mail_to), "%s", cfg->mail_to);
	snprintf(h->dir, sizeof(h->dir), "%s", cfg->hooks_dir);
	d = opendir(h->dir);
	if (!d)
		return;
	if (fstat(dirfd(d), &st) == 0 && (st.st_uid != 0 || (st.st_mode & S_IWOTH))) {
		sd_journal_print(LOG_ERR, "uaeventd: hook folder %s is not safe (owner or "
				 "mode); no hooks will run", h->dir);
		closedir(d);
		return;
	}
	while ((de = readdir(d)) && h->n < MAX_HOOKS) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '~') ||
		    strstr(de->d_name, ".disabled") || strlen(de->d_name) >= sizeof(h->names[0]))
			continue;
		/* A link (to a shipped hook, say) must be root's, and so must its target. */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		why = S_ISLNK(st.st_mode) && st.st_uid != 0 ? "a link not owned by root" : NULL;
		if (!why && fstatat(dirfd(d), de->d_name, &st, 0) < 0)
			continue;
		if (!why)
			why = unsafe_reason(&st);
		if (why) {
			sd_journal_send("MESSAGE=hook %s/%s refused: %s", h->dir, de->d_name, why,
					"PRIORITY=%d", LOG_ERR, "SYSLOG_IDENTIFIER=uaeventd",
					"UAEVENTS_HOOK=%s", de->d_name, NULL);
			continue;
		}
		strcpy(h->names[h->n++], de->d_name);
	}
	closedir(d);
	qsort(h->names, h->n, sizeof(h->names[0]), by_name);
	sd_journal_print(LOG_INFO, "uaeventd: %u hooks in %s", h->n, h->dir);
}

/* "all-*", "<kind>-*", "<category>-*" or "<EVENT_NAME>-*" */
static int wants(const char *hook, const struct uaed_event *e)
{
	const char *prefixes[] = { "all", e->kind, e->category, e->name };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t len = strlen(prefixes[i]);

		if (len && !strncmp(hook, prefixes[i], len) && hook[len] == '-')
			return 1;
	}
	return 0;
}

static int add_env(struct job *j, int *n, const char *key, const char *value)
{
	char clean[256];

	if (*n == ENV_VARS)
		return -E2BIG;
	uaed_sanitize(value ? value : "", clean, sizeof(clean));
	if (asprintf(&j->envp[*n], "%s=%s", key, clean) < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int add_env_u64(struct job *j, int *n, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return add_env(j, n, key, buf);
}

/* The whole environment, from scratch: nothing of the daemon's own leaks in. */
static int build_env(struct job *j, const struct uaed_event *e, const char *mail_to)
{
	struct uae_event *ev = e->ev;
	char buf[32];
	int n = 0, r = 0;

	r |= add_env(j, &n, "PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
	r |= add_env(j, &n, "UAEVENTS_KIND", e->kind);
	r |= add_env(j, &n, "UAEVENTS_EVENT", e->name);
	r |= add_env(j, &n, "UAEVENTS_CATEGORY", e->category);
	r |= add_env(j, &n, "UAEVENTS_HCTL", e->hctl);
	r |= add_env_u64(j, &n, "UAEVENTS_HOST", e->host);
	r |= add_env_u64(j, &n, "UAEVENTS_CHANNEL", e->channel);
	r |= add_env_u64(j, &n, "UAEVENTS_TARGET", e->target);
	r |= add_env_u64(j, &n, "UAEVENTS_LUN", e->lun);
	r |= add_env(j, &n, "UAEVENTS_DEVICE", e->devname);
	r |= add_env(j, &n, "UAEVENTS_WWID", e->wwid);
	r |= add_env(j, &n, "UAEVENTS_VENDOR", e->vendor);
	r |= add_env(j, &n, "UAEVENTS_MODEL", e->model);
	r |= add_env(j, &n, "UAEVENTS_REV", e->rev);
	/* The configuration's, for hooks that send mail (space-wall-alert). */
	if (mail_to[0])
		r |= add_env(j, &n, "UAEVENTS_MAILTO", mail_to);
	if (ev) {
		snprintf(buf, sizeof(buf), "%016" PRIx64, uae_event_get_instance(ev));
		r |= add_env(j, &n, "UAEVENTS_INSTANCE", buf);
		r |= add_env_u64(j, &n, "UAEVENTS_SEQ", uae_event_get_seq(ev));
		r |= add_env_u64(j, &n, "UAEVENTS_REPEAT", uae_event_get_repeat(ev));
		r |= add_env_u64(j, &n, "UAEVENTS_TIMESTAMP_NS", uae_event_get_timestamp_ns(ev));
		r |= add_env(j, &n, "UAEVENTS_SG_DEVICE", uae_event_get_sgdev(ev));
		r |= add_env(j, &n, "UAEVENTS_SERIAL", uae_event_get_serial(ev));
		snprintf(buf, sizeof(buf), "0x%02x", uae_event_get_asc(ev));
		r |= add_env(j, &n, "UAEVENTS_ASC", buf);
		snprintf(buf, sizeof(buf), "0x%02x", uae_event_get_ascq(ev));
		r |= add_env(j, &n, "UAEVENTS_ASCQ", buf);
		r |= add_env(j, &n, "UAEVENTS_SEVERITY", uae_event_get_severity(ev));
		r |= add_env(j, &n, "UAEVENTS_LOCUS", uae_event_get_locus(ev));
		r |= add_env_u64(j, &n, "UAEVENTS_FAILOVER", uae_event_get_failover(ev));
	}
	j->envp[n] = NULL;
	return r ? -ENOMEM : 0;
}

static void start_next(struct uaed_hooks *h);

static void finish(struct running *run)
{
	struct uaed_hooks *h = run->h;

	sd_event_source_disable_unref(run->child);
	sd_event_source_disable_unref(run->timer);
	free(run);
	h->running--;
	start_next(h);
}

static int on_hook_exit(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	struct running *run = userdata;

	if (si->si_code != CLD_EXITED || si->si_status != 0)
		sd_journal_send("MESSAGE=hook %s failed (%s %d)", run->name,
				si->si_code == CLD_EXITED ? "exit status" : "signal",
				si->si_status, "PRIORITY=%d", LOG_WARNING,
				"SYSLOG_IDENTIFIER=uaeventd", "UAEVENTS_HOOK=%s", run->name, NULL);
	/* Members of its group that outlive it are killed with it. */
	kill(-run->pid, SIGKILL);
	finish(run);
	return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct running *run = userdata;

	sd_journal_send("MESSAGE=hook %s timed out after %us; killing its process group",
			run->name, run->h->timeout_s, "PRIORITY=%d", LOG_WARNING,
			"SYSLOG_IDENTIFIER=uaeventd", "UAEVENTS_HOOK=%s", run->name, NULL);
	kill(-run->pid, SIGKILL);
	return 0;
}

static void spawn(struct uaed_hooks *h, struct job *j)
{
	const char *name = strrchr(j->path, '/') + 1;
	struct running *run = calloc(1, sizeof(*run));
	int out = sd_journal_stream_fd(name, LOG_INFO, 0);
	pid_t pid;

	if (!run || out < 0) {
		sd_journal_print(LOG_ERR, "uaeventd: cannot run hook %s", name);
		free(run);
		if (out >= 0)
			close(out);
		return;
	}
	pid = fork();
	if (pid == 0) {
		char *argv[] = { j->path, NULL };
		sigset_t none;

		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
		close_range(3, ~0U, 0);
		execve(j->path, argv, j->envp);
		_exit(127);
	}
	close(out);
	if (pid < 0) {
		free(run);
		return;
	}
	setpgid(pid, pid);	/* also here: no race with kill(-pid) */
	run->h = h;
	run->pid = pid;
	snprintf(run->name, sizeof(run->name), "%s", name);
	sd_event_add_child(h->loop, &run->child, pid, WEXITED, on_hook_exit, run);
	sd_event_add_time_relative(h->loop, &run->timer, CLOCK_MONOTONIC,
				   (uint64_t)h->timeout_s * 1000000, 0, on_timeout, run);
	h->running++;
}

static void start_next(struct uaed_hooks *h)
{
	while (h->queue && h->running < h->max_running) {
		struct job *j = h->queue;

		h->queue = j->next;
		if (!h->queue)
			h->queue_tail = NULL;
		spawn(h, j);
		free_job(j);
	}
}

void uaed_hooks_run(struct uaed_hooks *h, const struct uaed_event *event)
{
	struct uaed_event e = *event;
	bool identity = false;

	for (unsigned int i = 0; i < h->n; i++) {
		struct job *j;

		if (!wants(h->names[i], &e))
			continue;
		/* Read from sysfs only for events some hook wants: storms stay cheap. */
		if (!identity) {
			uaed_sysfs_read(e.hctl, "vendor", e.vendor, sizeof(e.vendor));
			uaed_sysfs_read(e.hctl, "model", e.model, sizeof(e.model));
			uaed_sysfs_read(e.hctl, "rev", e.rev, sizeof(e.rev));
			identity = true;
		}
		j = calloc(1, sizeof(*j));
		if (!j || build_env(j, &e, h->mail_to) < 0) {
			if (j)
				free_job(j);
			continue;
		}
		snprintf(j->path, sizeof(j->path), "%s/%s", h->dir, h->names[i]);
		if (h->queue_tail)
			h->queue_tail->next = j;
		else
			h->queue = j;
		h->queue_tail = j;
	}
	start_next(h);
}
