// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: running hook scripts.  Each runs directly (never through a shell) in a cgroup
 * and process group of its own (children.h), with its output going to the journal, and is
 * killed with all it started when it outlives the timeout or exits.  At most
 * max_concurrent run at once; up to MAX_QUEUE more wait, and runs past that are counted and
 * logged, never silently dropped.
 *
 * Each hook is opened once, when the folder is read (at start and on SIGHUP), checked on
 * the open file and executed from it (execveat): a file swapped in at its path afterwards
 * is not what runs.  Editing a hook takes effect with the next reload.
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
#include "children.h"
#include "hooks.h"
#include "log.h"
#include "owed.h"
#include "sysfs.h"
#include "trust.h"

#define MAX_HOOKS 64
#define ENV_VARS 40
/* Runs waiting for a free slot; a storm past this is counted, not queued. */
#define MAX_QUEUE 256

struct job {
	struct job *next;
	char dir[256];
	char name[256];
	int fd;				/* the hook as checked; its own descriptor */
	char *envp[ENV_VARS + 1];
};

struct running {
	struct running *next;		/* in uaed_hooks.runs, oldest first */
	struct uaed_hooks *h;
	struct uaed_child proc;		/* the hook and all it starts */
	char name[256];
	char *envp[ENV_VARS + 1];	/* what it runs with: owed until it exits */
	/* Its standard output and error, a pipe read here and logged line by line. */
	int out_fd;
	sd_event_source *output;
	char line[1024];
	size_t len;
	unsigned int lines;
	sd_event_source *child, *timer;
};

struct uaed_hooks {
	sd_event *loop;
	char dir[256];
	struct hook {
		char name[256];
		int fd;		/* the file checked, run from (execveat) */
	} hooks[MAX_HOOKS];
	unsigned int n;
	unsigned int timeout_s, max_running, running;
	char mail_to[256];
	struct job *queue, *queue_tail;
	struct running *runs;
	unsigned int queued;
	uint64_t changes;	/* what uaed_hooks_owed() gives may have changed */
	uint64_t dropped;		/* runs not made since the queue last filled up */
	uint64_t dropped_total;
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
	if (j->fd >= 0)
		close(j->fd);
	free(j);
}

static void close_hooks(struct uaed_hooks *h)
{
	for (unsigned int i = 0; i < h->n; i++)
		close(h->hooks[i].fd);
	h->n = 0;
}

static void close_output(struct running *run);
static void free_running(struct running *run);

void uaed_hooks_free(struct uaed_hooks *h)
{
	struct job *j;

	if (!h)
		return;
	while ((j = h->queue)) {
		h->queue = j->next;
		free_job(j);
	}
	/* Still running at exit: their children are the unit's to stop. */
	while (h->runs) {
		struct running *run = h->runs;

		h->runs = run->next;
		close_output(run);
		sd_event_source_disable_unref(run->child);
		sd_event_source_disable_unref(run->timer);
		free_running(run);
	}
	close_hooks(h);
	sd_event_unref(h->loop);
	free(h);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct hook *)a)->name, ((const struct hook *)b)->name);
}

void uaed_hooks_scan(struct uaed_hooks *h, const struct uaed_config *cfg)
{
	char which[256];
	struct dirent *de;
	struct stat st;
	const char *why;
	DIR *d;
	int fd;

	close_hooks(h);
	h->timeout_s = cfg->hook_timeout_s;
	h->max_running = cfg->max_hooks;
	snprintf(h->mail_to, sizeof(h->mail_to), "%s", cfg->mail_to);
	snprintf(h->dir, sizeof(h->dir), "%s", cfg->hooks_dir);
	d = opendir(h->dir);
	if (!d) {
		if (errno != ENOENT)
			uaed_log(LOG_ERR, "uaeventd: cannot read hook folder %s: %m; no "
				 "hooks will run", h->dir);
		return;
	}
	why = uaed_unsafe_folder(h->dir, which, sizeof(which));
	if (why) {
		uaed_log(LOG_ERR, "uaeventd: hook folder %s is not safe: %s %s; no hooks "
			 "will run", h->dir, which, why);
		closedir(d);
		return;
	}
	while ((de = readdir(d)) && h->n < MAX_HOOKS) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '~') ||
		    strstr(de->d_name, ".disabled") || strlen(de->d_name) >= sizeof(h->hooks[0].name))
			continue;
		/* A link (to a shipped hook, say) must be root's, and so must its target. */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		why = S_ISLNK(st.st_mode) && !uaed_trusted_owner(st.st_uid) ?
		      "a link not owned by root" : NULL;
		fd = -1;
		if (!why) {
			/* Non-blocking: a FIFO named like a hook must not hang the daemon. */
			fd = openat(dirfd(d), de->d_name, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
				    O_NOCTTY);
			if (fd < 0)
				why = "cannot be opened";
			else if (fstat(fd, &st) < 0)
				why = "cannot be read";
			else
				why = uaed_unsafe_file(&st);
		}
		if (why) {
			uaed_log_action(LOG_ERR, "hook-refused",
					"MESSAGE=hook %s/%s refused: %s", h->dir, de->d_name, why,
					"UAEVENTS_HOOK=%s", de->d_name);
			if (fd >= 0)
				close(fd);
			continue;
		}
		h->hooks[h->n].fd = fd;
		strcpy(h->hooks[h->n++].name, de->d_name);
	}
	closedir(d);
	/* Sorted by name, each with its descriptor: run in a predictable order. */
	qsort(h->hooks, h->n, sizeof(h->hooks[0]), by_name);
	uaed_log(LOG_INFO, "uaeventd: %u hooks in %s", h->n, h->dir);
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
	char clean[512];

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
static int build_env(struct job *j, const struct uaed_event *e, const char *mail_to,
		     bool flood_repeat)
{
	struct uae_event *ev = e->ev;
	char buf[32];
	int n = 0, r = 0;

	r |= add_env(j, &n, "PATH", UAED_HOOK_PATH + strlen("PATH="));
	r |= add_env(j, &n, "UAEVENTS_KIND", e->kind);
	r |= add_env(j, &n, "UAEVENTS_EVENT", e->name);
	r |= add_env(j, &n, "UAEVENTS_CATEGORY", e->category);
	/* An NVMe event has no SCSI address: none, rather than 0:0:0:0. */
	if (!e->nvme_ctrl[0]) {
		r |= add_env(j, &n, "UAEVENTS_HCTL", e->hctl);
		r |= add_env_u64(j, &n, "UAEVENTS_HOST", e->host);
		r |= add_env_u64(j, &n, "UAEVENTS_CHANNEL", e->channel);
		r |= add_env_u64(j, &n, "UAEVENTS_TARGET", e->target);
		r |= add_env_u64(j, &n, "UAEVENTS_LUN", e->lun);
	}
	r |= add_env(j, &n, "UAEVENTS_DEVICE", e->devname);
	r |= add_env(j, &n, "UAEVENTS_WWID", e->wwid);
	r |= add_env(j, &n, "UAEVENTS_VENDOR", e->vendor);
	r |= add_env(j, &n, "UAEVENTS_MODEL", e->model);
	r |= add_env(j, &n, "UAEVENTS_REV", e->rev);
	/* The summary only: the entry's UAEVENTS_STACK_* fields, or uaectl stack, say all. */
	if (e->stack[0])
		r |= add_env(j, &n, "UAEVENTS_STACK", e->stack);
	/* This hook took this LU path's space alert in its target's window already (floods.h). */
	if (flood_repeat)
		r |= add_env(j, &n, "UAEVENTS_FLOOD_REPEAT", "1");
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
		/* NVMe: the controller, and an asynchronous event's result ("0x040002"). */
		r |= add_env(j, &n, "UAEVENTS_TRANSPORT", uae_event_get_transport(ev));
		if (e->nvme_ctrl[0])
			r |= add_env(j, &n, "UAEVENTS_NVME_CONTROLLER", e->nvme_ctrl);
		if (uae_event_get_kind(ev) == UAE_EVENT_AEN) {
			snprintf(buf, sizeof(buf), "0x%06" PRIx32, uae_event_get_aen_result(ev));
			r |= add_env(j, &n, "UAEVENTS_AEN_RESULT", buf);
		}
		if (uae_event_get_kind(ev) == UAE_EVENT_ANA) {
			r |= add_env_u64(j, &n, "UAEVENTS_ANA_GROUP", uae_event_get_ana_group(ev));
			r |= add_env(j, &n, "UAEVENTS_ANA_STATE", uae_event_get_ana_state(ev));
		}
	}
	j->envp[n] = NULL;
	return r ? -ENOMEM : 0;
}

static void start_next(struct uaed_hooks *h);

/* A hook that prints more is cut off: one entry says so. */
#define MAX_OUTPUT_LINES 1000

/*
 * One line of a hook's output, sent by uaeventd itself, so that journald attributes it to
 * the unit (journalctl -u uaeventd).  Written to a journal stream by the hook, it was
 * attributed to the writer, whose unit journald reads from /proc: a hook that printed one
 * line and exited was gone by then, and its line belonged to no unit.
 */
static void log_output_line(struct running *run, const char *text)
{
	if (++run->lines == MAX_OUTPUT_LINES + 1)
		uaed_log_action(LOG_WARNING, "hook-output-cut",
				"MESSAGE=hook %s printed more than %d lines; the rest is not logged",
				run->name, MAX_OUTPUT_LINES, "UAEVENTS_HOOK=%s", run->name);
	if (run->lines > MAX_OUTPUT_LINES)
		return;
	sd_journal_send("MESSAGE=%s", text, "PRIORITY=%d", LOG_INFO, "SYSLOG_IDENTIFIER=%s",
			run->name, "UAEVENTS_HOOK=%s", run->name, NULL);
}

static void close_output(struct running *run)
{
	if (run->len) {
		run->line[run->len] = '\0';
		log_output_line(run, run->line);
		run->len = 0;
	}
	run->output = sd_event_source_disable_unref(run->output);
	if (run->out_fd >= 0)
		close(run->out_fd);
	run->out_fd = -1;
}

/* What the pipe holds now, line by line; at its end, the last part line too. */
static void read_output(struct running *run)
{
	while (run->out_fd >= 0) {
		ssize_t n = read(run->out_fd, run->line + run->len, sizeof(run->line) - 1 - run->len);
		char *start = run->line, *nl;
		size_t rest;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close_output(run);
			return;
		}
		run->len += n;
		while ((nl = memchr(start, '\n', run->len - (start - run->line)))) {
			*nl = '\0';
			log_output_line(run, start);
			start = nl + 1;
		}
		rest = run->len - (start - run->line);
		memmove(run->line, start, rest);
		run->len = rest;
		/* A line longer than the buffer: logged in parts. */
		if (run->len == sizeof(run->line) - 1) {
			run->line[run->len] = '\0';
			log_output_line(run, run->line);
			run->len = 0;
		}
	}
}

static int on_output(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	read_output(userdata);
	return 0;
}

static void free_running(struct running *run)
{
	for (int i = 0; run->envp[i]; i++)
		free(run->envp[i]);
	free(run);
}

static void finish(struct running *run)
{
	struct uaed_hooks *h = run->h;

	/* What it printed before it exited; what it left behind was killed. */
	read_output(run);
	close_output(run);
	sd_event_source_disable_unref(run->child);
	sd_event_source_disable_unref(run->timer);
	for (struct running **pp = &h->runs; *pp; pp = &(*pp)->next)
		if (*pp == run) {
			*pp = run->next;
			break;
		}
	free_running(run);
	h->running--;
	h->changes++;
	start_next(h);
}

static int on_hook_exit(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	struct running *run = userdata;

	if (si->si_code != CLD_EXITED || si->si_status != 0)
		uaed_log_action(LOG_WARNING, "hook-failed", "MESSAGE=hook %s failed (%s %d)",
				run->name, si->si_code == CLD_EXITED ? "exit status" : "signal",
				si->si_status, "UAEVENTS_HOOK=%s", run->name);
	/* What it started and left running is killed with it. */
	uaed_child_done(&run->proc);
	finish(run);
	return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct running *run = userdata;

	uaed_log_action(LOG_WARNING, "hook-timeout",
			"MESSAGE=hook %s timed out after %us; killing it and all it started",
			run->name, run->h->timeout_s, "UAEVENTS_HOOK=%s", run->name);
	uaed_child_kill(&run->proc);
	return 0;
}

static bool same_file(const char *path, const struct stat *st)
{
	struct stat now;

	return stat(path, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

/* In the child: run the hook from the file that was checked, not from its path. */
static void exec_hook(struct job *j, const struct uaed_child *proc, int out)
{
	char *argv[] = { j->name, NULL }, path[600];
	struct stat checked;
	int fd, r;

	r = uaed_child_enter(proc);
	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
	/* Nothing of the daemon's leaks in; the hook's own descriptor stays (a script's
	 * interpreter reads it as /dev/fd/N). */
	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	if (r < 0) {
		fprintf(stderr, "cannot run hook %s in its cgroup: %s\n", j->name, strerror(-r));
		_exit(127);
	}
	fd = dup(j->fd);
	if (fd < 0 || fstat(fd, &checked) < 0) {
		fprintf(stderr, "cannot execute hook %s: %m\n", j->name);
		_exit(127);
	}
	/* A script's interpreter opens /dev/fd/N, which a minimal /dev may lack. */
	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	if (same_file(path, &checked))
		execveat(fd, "", argv, j->envp, AT_EMPTY_PATH);
	/* Else by its path, only while that is still the file that was checked. */
	snprintf(path, sizeof(path), "%s/%s", j->dir, j->name);
	if (same_file(path, &checked))
		execve(path, argv, j->envp);
	else
		errno = ESTALE;
	fprintf(stderr, "cannot execute hook %s: %m\n", j->name);
	_exit(127);
}

static void spawn(struct uaed_hooks *h, struct job *j)
{
	struct running *run = calloc(1, sizeof(*run));
	int out[2], r;
	pid_t pid;

	if (!run || pipe2(out, O_CLOEXEC) < 0) {
		uaed_log_errno(LOG_ERR, run ? errno : ENOMEM, "uaeventd: cannot run hook %s: %m",
			       j->name);
		free(run);
		return;
	}
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	uaed_child_prepare(&run->proc);
	pid = fork();
	if (pid == 0)
		exec_hook(j, &run->proc, out[1]);
	r = -errno;
	close(out[1]);
	if (pid < 0) {
		uaed_log_errno(LOG_ERR, r, "uaeventd: cannot run hook %s: fork: %m", j->name);
		close(out[0]);
		uaed_child_done(&run->proc);
		free(run);
		return;
	}
	uaed_child_started(&run->proc, pid);
	run->h = h;
	snprintf(run->name, sizeof(run->name), "%s", j->name);
	run->out_fd = out[0];
	/* Without it the output is read when the hook exits; a long one may fill the pipe. */
	r = sd_event_add_io(h->loop, &run->output, out[0], EPOLLIN, on_output, run);
	if (r < 0)
		uaed_log_errno(LOG_WARNING, r, "uaeventd: hook %s: its output is read only when "
			       "it exits: %m", j->name);
	r = sd_event_add_child(h->loop, &run->child, pid, WEXITED, on_hook_exit, run);
	if (r < 0) {
		/* Not watched, it would hold a slot for good: stop it now. */
		uaed_log_errno(LOG_ERR, r, "uaeventd: hook %s stopped: cannot watch it: %m",
			       j->name);
		uaed_child_kill(&run->proc);
		waitpid(pid, NULL, 0);
		uaed_child_done(&run->proc);
		close_output(run);
		free(run);
		return;
	}
	r = sd_event_add_time_relative(h->loop, &run->timer, CLOCK_MONOTONIC,
				       (uint64_t)h->timeout_s * 1000000, 0, on_timeout, run);
	if (r < 0) {
		/* Without its timeout a hung hook would hold its slot for good. */
		uaed_log_errno(LOG_ERR, r, "uaeventd: hook %s stopped: cannot arm its timeout: %m",
			       j->name);
		uaed_child_kill(&run->proc);
	}
	/* Owed until it exits: a stop kills it, and the next start runs it again. */
	memcpy(run->envp, j->envp, sizeof(run->envp));
	memset(j->envp, 0, sizeof(j->envp));
	for (struct running **pp = &h->runs;; pp = &(*pp)->next)
		if (!*pp) {
			*pp = run;
			break;
		}
	h->running++;
}

static void enqueue(struct uaed_hooks *h, struct job *j)
{
	snprintf(j->dir, sizeof(j->dir), "%s", h->dir);
	if (h->queue_tail)
		h->queue_tail->next = j;
	else
		h->queue = j;
	h->queue_tail = j;
	h->queued++;
	h->changes++;
}

static void start_next(struct uaed_hooks *h)
{
	while (h->queue && h->running < h->max_running) {
		struct job *j = h->queue;

		h->queue = j->next;
		if (!h->queue)
			h->queue_tail = NULL;
		h->queued--;
		h->changes++;
		spawn(h, j);
		free_job(j);
	}
	/* The storm is over: say how many runs it cost, once. */
	if (!h->queued && h->dropped) {
		uaed_log_action(LOG_WARNING, "hooks-dropped",
				"MESSAGE=hook queue has room again; %" PRIu64 " hook run(s) were "
				"not made while it was full (%d waiting)", h->dropped, MAX_QUEUE,
				"UAEVENTS_DROPPED=%" PRIu64, h->dropped);
		h->dropped = 0;
	}
}

uint64_t uaed_hooks_run(struct uaed_hooks *h, const struct uaed_event *event, uint64_t repeat)
{
	struct uaed_event e = *event;
	uint64_t queued = 0;
	bool identity = false;
	int r;

	for (unsigned int i = 0; i < h->n; i++) {
		struct job *j;

		if (!wants(h->hooks[i].name, &e))
			continue;
		if (h->queued >= MAX_QUEUE) {
			if (!h->dropped++)
				uaed_log(LOG_WARNING, "uaeventd: hook queue full (%d waiting); "
					 "runs are counted, not made, until it has room",
					 MAX_QUEUE);
			h->dropped_total++;
			continue;
		}
		/* Read from sysfs only for events some hook wants: storms stay cheap. */
		if (!identity) {
			uaed_sysfs_read_padded(e.hctl, "vendor", e.vendor, sizeof(e.vendor));
			uaed_sysfs_read_padded(e.hctl, "model", e.model, sizeof(e.model));
			uaed_sysfs_read_padded(e.hctl, "rev", e.rev, sizeof(e.rev));
			identity = true;
		}
		j = calloc(1, sizeof(*j));
		r = j ? build_env(j, &e, h->mail_to, repeat & (1ULL << i)) : -ENOMEM;
		if (r == 0) {
			j->fd = fcntl(h->hooks[i].fd, F_DUPFD_CLOEXEC, 3);
			r = j->fd < 0 ? -errno : 0;
		} else if (j) {
			j->fd = -1;
		}
		if (r < 0) {
			uaed_log_errno(LOG_ERR, r, "uaeventd: hook %s not run for %s on %s: %m",
				       h->hooks[i].name, e.name, e.hctl);
			if (j)
				free_job(j);
			h->dropped_total++;
			continue;
		}
		snprintf(j->name, sizeof(j->name), "%s", h->hooks[i].name);
		enqueue(h, j);
		queued |= 1ULL << i;
	}
	start_next(h);
	return queued;
}

uint64_t uaed_hooks_changes(const struct uaed_hooks *h)
{
	return h->changes;
}

static int owe(struct json_object *owed, const char *name, char *const *envp)
{
	struct json_object *o = uaed_owed_hook(name, envp);

	if (!o || json_object_array_add(owed, o) < 0) {
		json_object_put(o);
		return -ENOMEM;
	}
	return 0;
}

int uaed_hooks_owed(const struct uaed_hooks *h, struct json_object *owed)
{
	int r = 0;

	/* In the order they were due: those running first, then the queue. */
	for (const struct running *run = h->runs; run && r == 0; run = run->next)
		r = owe(owed, run->name, run->envp);
	for (const struct job *j = h->queue; j && r == 0; j = j->next)
		r = owe(owed, j->name, j->envp);
	return r;
}

int uaed_hooks_resume(struct uaed_hooks *h, struct json_object *owed, char *what, size_t size,
		      bool this_boot)
{
	struct job *j = calloc(1, sizeof(*j));
	const char *name;
	int r;

	if (!j)
		return -ENOMEM;
	j->fd = -1;
	r = uaed_owed_hook_parse(owed, &name, j->envp, ENV_VARS);
	if (r < 0) {
		free_job(j);
		return r;
	}
	snprintf(what, size, "hook %s", name);
	r = this_boot ? -ENOENT : -ESTALE;
	for (unsigned int i = 0; this_boot && i < h->n; i++)
		if (!strcmp(h->hooks[i].name, name)) {
			j->fd = fcntl(h->hooks[i].fd, F_DUPFD_CLOEXEC, 3);
			r = j->fd < 0 ? -errno : 0;
			break;
		}
	if (r == 0 && h->queued >= MAX_QUEUE)
		r = -ENOBUFS;
	if (r < 0) {
		free_job(j);
		return r;
	}
	snprintf(j->name, sizeof(j->name), "%s", name);
	enqueue(h, j);
	start_next(h);
	return 0;
}

void uaed_hooks_get_stats(const struct uaed_hooks *h, struct uaed_hooks_stats *st)
{
	st->running = h->running;
	st->queued = h->queued;
	st->dropped = h->dropped_total;
}
