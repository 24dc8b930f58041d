// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: rescans after LUN inventory, capacity and identity changes: when each job
 * runs (debounced, one at a time per target, at most MAX_RUNNING at once, each in a child
 * with a deadline, owed across restarts) and the reconciler; jobs.c does their work.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <libudev.h>

#include "alua.h"
#include "nvme-health.h"
#include "libuaevents.h"
#include "children.h"
#include "jobs.h"
#include "log.h"
#include "metrics.h"
#include "owed.h"
#include "paths.h"
#include "removals.h"
#include "rescan.h"

/*
 * Jobs (children) running at once.  Every LU of a big array can report at the same
 * moment (1,024 capacity changes in make bench's figure 5): each job waits its turn, in
 * the order it came, rather than a fork and a cgroup per LU at once.
 */
#define MAX_RUNNING 16

/* EMPTY_TARGET: the reconciler's scan of a target with no LU here (no report came). */
enum action {
	SCAN_TARGET, EMPTY_TARGET, RESCAN_WWID, RESCAN_DEVICE, RECONCILE, ALUA_STATE,
	NVME_HEALTH,		/* an NVMe controller's SMART / health log, after its event */
};
/* As the metrics name them, after the journal entries each writes. */
static const char *const job_names[] = {
	[SCAN_TARGET] = "scan-target", [EMPTY_TARGET] = "scan-empty-target",
	[RESCAN_WWID] = "rescan-paths", [RESCAN_DEVICE] = "rescan-device",
	[RECONCILE] = "reconcile", [ALUA_STATE] = "alua-state", [NVME_HEALTH] = "nvme-health",
};

/* Reports: they read, change nothing, and are made whatever the rescan settings say. */
static bool is_report(enum action action)
{
	return action == ALUA_STATE || action == NVME_HEALTH;
}

/* A LU's command count at the reconciler's last round, to tell whether it is idle. */
struct counted {
	char hctl[32];
	unsigned long long count;
	bool seen;		/* in this round's listing */
};

/* One debounced piece of work: a target scan, or the rescan of one LU's paths. */
struct pending {
	struct uaed_rescan *r;
	bool used;
	enum action action;
	char key[160];			/* "scan 2:0:0", "wwid naa...." or "dev 2:0:0:1" */
	struct uaed_event e;		/* the first event that asked for it */
	unsigned int reports;		/* events folded into it */
	unsigned int owed;		/* reports a previous run logged and left it to answer */
	sd_event_source *timer;
	pid_t running;			/* the child doing it, 0 if none */
	struct uaed_child proc;		/* that child and all it starts */
	bool again;			/* a target reported a change while it ran or cooled */
	/*
	 * Path rescans: the reports that set @again while it ran, to be held against what
	 * the run proves (jobs.h): their instance, newest number and paths, or that one
	 * cannot be (no number: a stock uevent; too many paths).
	 */
	uint64_t again_instance, again_seq;
	char again_hctl[4][32];
	unsigned int n_again_hctl;
	bool again_unproven;
	/* Where its child writes its proof; kept with it until it is done cooling. */
	struct uaed_job_proof *proof;
	bool proof_final;		/* the child has exited */
	sd_event_source *log;		/* the running child's entries (log.h) */
	bool cooling;			/* done; the window in which its echoes arrive */
	bool verify;			/* this run answers reports after a scan */
	bool waiting;			/* due, but another job runs on its target */
	unsigned long long due;		/* when it began waiting: the order jobs start in */
	bool killed;			/* by its deadline */
	sd_event_source *child;
	sd_event_source *deadline;	/* kills the child after rescan_timeout_s */
};

struct uaed_rescan {
	sd_event *loop;
	const struct uaed_config *cfg;
	struct uaed_removals *removals;	/* LUNs removed here by someone else, lately */
	struct uaed_paths *paths;	/* which devices show which WWID; NULL: walk each time */
	struct uaed_metrics *metrics;	/* jobs counted; NULL: not */
	/* The reconciler: its timer, the LUs it counted, and the idle ones' sg devices. */
	sd_event_source *reconcile_timer;
	struct counted *counted;
	unsigned int n_counted;
	char (*idle)[16];
	unsigned int n_idle;
	/* Pending work, one per key; each allocated once and reused, never moved. */
	struct pending **slot;
	unsigned int n_slot;
	struct pending *run[MAX_RUNNING];	/* the jobs running now */
	unsigned int n_running;
	unsigned long long n_due;
	uint64_t changes;	/* what uaed_rescan_owed() gives may have changed */
};

static int on_reconcile(sd_event_source *s, uint64_t usec, void *userdata);

int uaed_rescan_new(struct uaed_rescan **ret, sd_event *loop, const struct uaed_config *cfg)
{
	struct uaed_rescan *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	r->loop = sd_event_ref(loop);
	r->cfg = cfg;
	rc = sd_event_add_time_relative(loop, &r->reconcile_timer, CLOCK_MONOTONIC,
					(uint64_t)(cfg->reconcile_s ? cfg->reconcile_s : 60) * 1000000,
					0, on_reconcile, r);
	if (rc < 0)
		uaed_log_errno(LOG_WARNING, rc, "uaeventd: cannot arm the reconciler: %m; changes "
			       "of idle LUs are seen at their next command");
	/* Without it, each job walks the host for the paths it needs (paths.h). */
	if (uaed_paths_new(&r->paths) < 0)
		r->paths = NULL;
	/* Without it, scans work as the kernel's would: said, not fatal. */
	rc = uaed_removals_new(&r->removals, loop, cfg->state_file, r->paths);
	if (rc < 0)
		uaed_log_errno(LOG_WARNING, rc, "uaeventd: cannot watch for LUNs removed by other "
			       "tools: %m; target scans may add them back");
	*ret = r;
	return 0;
}

void uaed_rescan_set_metrics(struct uaed_rescan *r, struct uaed_metrics *m)
{
	r->metrics = m;
}

static void read_log(struct pending *p, unsigned int max);

/* A path rescan's proof is of no more use: cooled, failed to start, or the slot reused. */
static void drop_proof(struct pending *p)
{
	if (p->proof)
		munmap(p->proof, sizeof(*p->proof));
	p->proof = NULL;
	p->proof_final = false;
}

void uaed_rescan_free(struct uaed_rescan *r)
{
	if (!r)
		return;
	for (unsigned int i = 0; i < r->n_slot; i++) {
		sd_event_source_disable_unref(r->slot[i]->timer);
		sd_event_source_disable_unref(r->slot[i]->child);
		sd_event_source_disable_unref(r->slot[i]->deadline);
		read_log(r->slot[i], UINT_MAX);
		sd_event_source_disable_unref(r->slot[i]->log);
		drop_proof(r->slot[i]);
		free(r->slot[i]);
	}
	free(r->slot);
	uaed_removals_free(r->removals);
	uaed_paths_free(r->paths);
	sd_event_source_disable_unref(r->reconcile_timer);
	free(r->counted);
	free(r->idle);
	sd_event_unref(r->loop);
	free(r);
}

static void run_now(struct pending *p);
static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* Targets the job works on: the reporting one; a WWID's paths also by their WWID. */
static bool conflict(const struct pending *p, const struct pending *q)
{
	/* TEST UNIT READYs and reports change nothing: they may go beside any job. */
	if (p->action == RECONCILE || q->action == RECONCILE || is_report(p->action) ||
	    is_report(q->action))
		return false;
	if (p->e.host == q->e.host && p->e.channel == q->e.channel && p->e.target == q->e.target)
		return true;
	return (p->action == RESCAN_WWID || q->action == RESCAN_WWID) && p->e.wwid[0] &&
	       !strcmp(p->e.wwid, q->e.wwid);
}

/*
 * Another job runs on one of its targets (one at a time per target, as documented), or
 * MAX_RUNNING jobs run already.
 */
static bool busy(const struct pending *p)
{
	if (p->r->n_running >= MAX_RUNNING)
		return true;
	for (unsigned int i = 0; i < p->r->n_running; i++)
		if (p->r->run[i] != p && conflict(p, p->r->run[i]))
			return true;
	return false;
}

/* The jobs that were due first go first. */
static void start_waiting(struct uaed_rescan *r)
{
	struct pending *next;

	do {
		next = NULL;
		for (unsigned int i = 0; i < r->n_slot; i++) {
			struct pending *p = r->slot[i];

			if (p->used && p->waiting && !busy(p) &&
			    (!next || p->due < next->due))
				next = p;
		}
		if (next) {
			next->waiting = false;
			run_now(next);
		}
	} while (next);
}

static int on_cooled(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct pending *p = userdata;

	p->timer = sd_event_source_disable_unref(p->timer);
	p->cooling = false;
	p->r->changes++;
	if (p->again) {
		/* Reports came while it ran or cooled: look once more. */
		p->again = false;
		p->verify = true;
		run_now(p);
		return 0;
	}
	p->used = false;
	drop_proof(p);
	return 0;
}

static void cool(struct pending *p)
{
	int r;

	p->cooling = true;
	p->r->changes++;
	r = sd_event_add_time_relative(p->r->loop, &p->timer, CLOCK_MONOTONIC,
				       (uint64_t)p->r->cfg->debounce_ms * 1000, 0, on_cooled, p);
	if (r < 0) {
		uaed_log_errno(LOG_ERR, r, "uaeventd: %s: cannot arm a timer: %m; reports of it "
			       "are taken as new from now on", p->key);
		p->used = false;
		drop_proof(p);
	}
}

/*
 * Log the entries the running child sent (at most @max, or until it closed its end: then
 * the source goes).  Its socket is read before its exit is handled, so that what it
 * logged comes before what the daemon logs of its end.
 */
static void read_log(struct pending *p, unsigned int max)
{
	static char buf[65536];
	ssize_t n = -1;

	for (unsigned int i = 0; p->log && i < max; i++) {
		n = recv(sd_event_source_get_io_fd(p->log), buf, sizeof(buf), MSG_DONTWAIT);
		if (n <= 0)
			break;
		if (uaed_log_forwarded(buf, (size_t)n) < 0)
			fprintf(stderr, "uaeventd: %s: cannot log an entry of its child\n", p->key);
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		p->log = sd_event_source_disable_unref(p->log);
}

static int on_log(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	/* Bounded, like every dispatch: the rest at the next turn. */
	read_log(userdata, 64);
	return 0;
}

/* @hctl's report, number @seq of @instance, is among what the ended run proved. */
static bool covered(const struct pending *p, uint64_t instance, uint64_t seq, const char *hctl)
{
	const struct uaed_job_proof *f = p->proof;

	if (!f || !p->proof_final || !f->instance || instance != f->instance || seq > f->seq)
		return false;
	for (unsigned int i = 0; i < f->n && i < UAED_LU_PATHS_MAX; i++)
		if (!strncmp(f->hctl[i], hctl, sizeof(f->hctl[i])))
			return true;
	return false;
}

/* Every report that came while the run went is covered by its proof: its echo. */
static bool all_echoes(const struct pending *p)
{
	if (p->again_unproven || !p->again_instance)
		return false;
	for (unsigned int i = 0; i < p->n_again_hctl; i++)
		if (!covered(p, p->again_instance, p->again_seq, p->again_hctl[i]))
			return false;
	return true;
}

static int on_child(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	struct pending *p = userdata;
	bool timed_out = p->killed;

	p->child = sd_event_source_disable_unref(p->child);
	p->deadline = sd_event_source_disable_unref(p->deadline);
	p->running = 0;
	read_log(p, UINT_MAX);
	p->log = sd_event_source_disable_unref(p->log);
	p->proof_final = true;
	if (p->again && all_echoes(p))
		p->again = false;
	for (unsigned int i = 0; i < p->r->n_running; i++)
		if (p->r->run[i] == p)
			p->r->run[i] = p->r->run[--p->r->n_running];
	uaed_child_done(&p->proc);
	uaed_metrics_job(p->r->metrics, job_names[p->action],
			 si->si_code != CLD_EXITED || si->si_status != 0);
	/*
	 * An identity rescan changes its device's WWID, and says so in no uevent.  Scans
	 * add devices (their uevents update the index, but an index walked again after a
	 * scan does not depend on them).
	 */
	if (p->action == RESCAN_DEVICE)
		uaed_paths_update(p->r->paths, p->e.hctl);
	else if (p->action != RESCAN_WWID && !is_report(p->action))
		uaed_paths_invalidate(p->r->paths);
	if (si->si_code != CLD_EXITED || si->si_status != 0)
		uaed_log_action(LOG_ERR, "rescan-failed", "MESSAGE=%s failed: %s %d%s", p->key,
				si->si_code == CLD_EXITED ? "exit status" : "killed by signal",
				si->si_status, timed_out ? " (timed out)" : "", "UAEVENTS_JOB=%s",
				p->key, "UAEVENTS_EXIT=%d",
				si->si_code == CLD_EXITED ? si->si_status :
				128 + si->si_status);
	/*
	 * A rescan makes the other paths report the same change (their next command gets
	 * the UA): those reports, within one window, are its echo.  A target scan's are
	 * checked once after the window (verify_target): a newer change may hide among them.
	 */
	cool(p);
	start_waiting(p->r);
	return 0;
}

/* Past rescan_timeout_s: kill the job and all it started (its resize command too). */
static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct pending *p = userdata;

	if (p->running) {
		/* What it logged so far goes before the entry of its end. */
		read_log(p, UINT_MAX);
		uaed_log_action(LOG_ERR, "rescan-timeout",
				"MESSAGE=%s still running after %u s: killed", p->key,
				p->r->cfg->rescan_timeout_s, "UAEVENTS_JOB=%s", p->key);
		uaed_child_kill(&p->proc);
		p->killed = true;
	}
	return 0;
}

static int run_action(struct pending *p)
{
	const struct uaed_job_ctx ctx = {
		.cfg = p->r->cfg, .removals = p->r->removals, .paths = p->r->paths,
		.idle = p->r->idle, .n_idle = p->r->n_idle,
	};

	switch (p->action) {
	case SCAN_TARGET:
	case EMPTY_TARGET:
		return uaed_job_scan_target(&ctx, &p->e, p->reports, p->owed, p->verify);
	case RESCAN_WWID:
		return uaed_job_rescan_paths(&ctx, &p->e, p->verify, p->proof);
	case RESCAN_DEVICE:
		return uaed_job_rescan_device(&p->e);
	case RECONCILE:
		return uaed_job_reconcile(&ctx);
	case ALUA_STATE:
		return uaed_alua_report(p->r->paths, &p->e);
	case NVME_HEALTH:
		return uaed_nvme_health_report(&p->e, p->r->cfg->rescan_timeout_s / 4);
	}
	return -EINVAL;
}

/* Start it later: a failed fork or event source must not lose the work or its slot. */
static void retry(struct pending *p, const char *what, int err)
{
	uaed_log_errno(LOG_ERR, err, "uaeventd: %s: %s: %m; retrying in %u ms", p->key, what,
		       p->r->cfg->debounce_ms);
	if (sd_event_add_time_relative(p->r->loop, &p->timer, CLOCK_MONOTONIC,
				       (uint64_t)p->r->cfg->debounce_ms * 1000 + 1000, 0,
				       on_timer, p) < 0) {
		uaed_log(LOG_ERR, "uaeventd: %s dropped: no timer either", p->key);
		p->used = false;
		p->r->changes++;
	}
}

static void run_now(struct pending *p)
{
	int r, sv[2];
	pid_t pid;

	if (busy(p)) {
		if (!p->waiting)
			p->due = ++p->r->n_due;
		p->waiting = true;
		return;
	}
	/*
	 * The child finds the LU's paths in the index as it is now: walked here, in the
	 * daemon, at most once per change of the host's devices (paths.h), not once per job.
	 */
	if ((p->action == RESCAN_WWID || p->action == ALUA_STATE) && p->r->paths) {
		r = uaed_paths_refresh(p->r->paths);
		if (r < 0)
			uaed_log_errno(LOG_WARNING, r, "uaeventd: cannot index the paths of the "
				       "host's LUs: %m; %s walks the host itself", p->key);
	}
	/*
	 * A path rescan's proof (jobs.h): without this memory there is none, and its echoes
	 * get their second look.
	 */
	drop_proof(p);
	if (p->action == RESCAN_WWID) {
		p->proof = mmap(NULL, sizeof(*p->proof), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (p->proof == MAP_FAILED)
			p->proof = NULL;
	}
	/* The child's entries come through the daemon (log.h); without, it logs itself. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		sv[0] = sv[1] = -1;
	uaed_child_prepare(&p->proc);
	pid = fork();
	if (pid == 0) {
		if (sv[1] >= 0) {
			close(sv[0]);
			uaed_log_forward(sv[1]);
		}
		/*
		 * Not the other jobs' ends, which the daemon reads: with them open here, their
		 * children could not tell that the daemon is gone (log.h).
		 */
		for (unsigned int i = 0; i < p->r->n_slot; i++)
			if (p->r->slot[i]->log)
				close(sd_event_source_get_io_fd(p->r->slot[i]->log));
		/* Its own cgroup, so that a timeout kills what it started too. */
		r = uaed_child_enter(&p->proc);
		if (r < 0)
			uaed_log_errno(LOG_ERR, r, "uaeventd: %s: cannot enter its cgroup: %m",
				       p->key);
		else
			r = run_action(p);
		uaed_log_child_exit();
		_exit(r < 0);
	}
	if (sv[1] >= 0)
		close(sv[1]);
	if (pid < 0) {
		r = errno;
		if (sv[0] >= 0)
			close(sv[0]);
		uaed_child_done(&p->proc);
		drop_proof(p);
		retry(p, "cannot fork", r);
		return;
	}
	/* Closed with its source; without one, the child's entries go to journald itself. */
	if (sv[0] >= 0 &&
	    (sd_event_add_io(p->r->loop, &p->log, sv[0], EPOLLIN, on_log, p) < 0 ||
	     sd_event_source_set_io_fd_own(p->log, true) < 0)) {
		p->log = sd_event_source_disable_unref(p->log);
		close(sv[0]);
	}
	uaed_child_started(&p->proc, pid);
	r = sd_event_add_child(p->r->loop, &p->child, pid, WEXITED, on_child, p);
	if (r < 0) {
		uaed_child_kill(&p->proc);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		uaed_child_done(&p->proc);
		read_log(p, UINT_MAX);
		p->log = sd_event_source_disable_unref(p->log);
		drop_proof(p);
		retry(p, "cannot watch its child", -r);
		return;
	}
	p->running = pid;
	p->r->run[p->r->n_running++] = p;
	p->reports = 0;
	p->owed = 0;
	p->verify = false;
	p->killed = false;
	p->again_instance = 0;
	p->again_seq = 0;
	p->n_again_hctl = 0;
	p->again_unproven = false;
	r = sd_event_add_time_relative(p->r->loop, &p->deadline, CLOCK_MONOTONIC,
				       (uint64_t)p->r->cfg->rescan_timeout_s * 1000000, 0,
				       on_deadline, p);
	if (r < 0)
		uaed_log_errno(LOG_ERR, r, "uaeventd: %s: cannot arm its timeout: %m", p->key);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct pending *p = userdata;

	p->timer = sd_event_source_disable_unref(p->timer);
	run_now(p);
	return 0;
}

/*
 * A report of @e came while @p ran or cooled: a second look, unless @p is a path rescan
 * whose end proved the report older than what the host shows (jobs.h).  While it runs,
 * the newest such report is kept for the proof to come.
 */
static void again(struct pending *p, enum action action, const struct uaed_event *e)
{
	uint64_t instance = 0, seq = 0;
	unsigned int i;

	if (p->action != RESCAN_WWID) {
		p->again = true;
		return;
	}
	if (action == RESCAN_WWID && e->ev &&
	    !(uae_event_get_flags(e->ev) & UAE_EVENT_FLAG_STOCK)) {
		instance = uae_event_get_instance(e->ev);
		seq = uae_event_get_seq(e->ev);
	}
	if (p->cooling) {
		if (!instance || !covered(p, instance, seq, e->hctl))
			p->again = true;
		return;
	}
	p->again = true;
	if (!instance || (p->again_instance && p->again_instance != instance)) {
		p->again_unproven = true;
		return;
	}
	p->again_instance = instance;
	if (seq > p->again_seq)
		p->again_seq = seq;
	for (i = 0; i < p->n_again_hctl; i++)
		if (!strcmp(p->again_hctl[i], e->hctl))
			break;
	if (i < p->n_again_hctl)
		return;
	if (i == sizeof(p->again_hctl) / sizeof(p->again_hctl[0]) ||
	    strlen(e->hctl) >= sizeof(p->again_hctl[i]))
		p->again_unproven = true;
	else
		snprintf(p->again_hctl[p->n_again_hctl++], sizeof(p->again_hctl[0]), "%s", e->hctl);
}

/*
 * A report asks for work (@owed 0), or a previous run left work owed that answers @owed
 * reports it logged (they are not this run's to count).
 */
static void request(struct uaed_rescan *r, enum action action, const char *key,
		    const struct uaed_event *e, unsigned int owed)
{
	struct pending *p = NULL, *free_slot = NULL;

	for (unsigned int i = 0; i < r->n_slot; i++) {
		if (r->slot[i]->used && !strcmp(r->slot[i]->key, key))
			p = r->slot[i];
		else if (!r->slot[i]->used && !free_slot)
			free_slot = r->slot[i];
	}
	/*
	 * Due within the window: the work that answers this report is ahead (a scan or
	 * rescan reads the state as it is when it runs).  Running or just done: a target scan
	 * is checked once more after its window; a path rescan's echo is not new work.
	 */
	if (p) {
		/* A probe of an empty target adds nothing to a scan already on its way. */
		if (action == EMPTY_TARGET)
			return;
		if (owed)
			p->owed += owed;
		else
			p->reports++;
		r->changes++;
		if (p->action == EMPTY_TARGET)
			p->action = SCAN_TARGET;
		/* A controller's log read (again) answers its newest SMART event: named so. */
		if (action == NVME_HEALTH) {
			p->e = *e;
			p->e.ev = NULL;
		}
		/*
		 * A state read before this report may be older than it: read once more.  A
		 * capacity report then is the rescan's echo (checked, not rescanned) or a
		 * newer change (rescanned).
		 */
		if ((action == SCAN_TARGET || is_report(action) || action == RESCAN_WWID) &&
		    (p->running || p->cooling))
			again(p, action, e);
		return;
	}
	/* One per key, so no more than the host has targets and LUs (and three kinds). */
	if (!free_slot) {
		struct pending **grown = reallocarray(r->slot, r->n_slot + 1, sizeof(*grown));

		free_slot = grown ? calloc(1, sizeof(*free_slot)) : NULL;
		if (grown)
			r->slot = grown;
		if (!free_slot) {
			uaed_log(LOG_ERR, "uaeventd: out of memory: %s not done", key);
			return;
		}
		r->slot[r->n_slot++] = free_slot;
	}
	p = free_slot;
	drop_proof(p);
	memset(p, 0, sizeof(*p));
	p->r = r;
	p->used = true;
	r->changes++;
	p->action = action;
	p->reports = action == EMPTY_TARGET || owed ? 0 : 1;
	p->owed = owed;
	p->e = *e;
	p->e.ev = NULL;
	snprintf(p->key, sizeof(p->key), "%s", key);
	/*
	 * Owed work waited its window in the last run: it starts with the loop.  Reports the
	 * replay brings fold into it, or, once it runs, ask for a second look.
	 */
	if (sd_event_add_time_relative(r->loop, &p->timer, CLOCK_MONOTONIC,
				       owed ? 0 : (uint64_t)r->cfg->debounce_ms * 1000, 0, on_timer,
				       p) < 0)
		run_now(p);	/* no window then, but no report lost either */
}

static struct counted *counted_of(struct uaed_rescan *r, const char *hctl)
{
	struct counted *c;

	for (unsigned int i = 0; i < r->n_counted; i++)
		if (!strcmp(r->counted[i].hctl, hctl))
			return &r->counted[i];
	c = realloc(r->counted, (r->n_counted + 1) * sizeof(*c));
	if (!c)
		return NULL;
	r->counted = c;
	c = &r->counted[r->n_counted++];
	memset(c, 0, sizeof(*c));
	snprintf(c->hctl, sizeof(c->hctl), "%s", hctl);
	c->count = ~0ULL;	/* not counted before: not known to be idle */
	return c;
}

/* The sg device of the scsi_device at @syspath, into @sg. */
static bool sg_of(const char *syspath, char *sg, size_t size)
{
	char path[PATH_MAX];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/scsi_generic", syspath);
	d = opendir(path);
	while (d && !found && (de = readdir(d)))
		if (!strncmp(de->d_name, "sg", 2))
			found = snprintf(sg, size, "%s", de->d_name) < (int)size;
	if (d)
		closedir(d);
	return found;
}

/* Whether this host has a LU of target H:C:T. */
static bool target_has_lus(unsigned int host, unsigned int channel, unsigned int target)
{
	char pattern[96];
	glob_t g;
	bool has;

	snprintf(pattern, sizeof(pattern), "/sys/class/scsi_device/%u:%u:%u:*", host, channel,
		 target);
	has = glob(pattern, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);
	return has;
}

/*
 * The target of a logged-in iSCSI session or of an online FC remote port with the target
 * role, into @e; false for anything else.
 */
static bool transport_target(struct udev_device *dev, struct uaed_event *e)
{
	const char *sys = udev_device_get_subsystem(dev);
	const char *name = udev_device_get_sysname(dev);
	const char *state, *id;
	struct udev_device *host;
	int t;

	if (sys && !strcmp(sys, "iscsi_session")) {
		state = udev_device_get_sysattr_value(dev, "state");
		id = udev_device_get_sysattr_value(dev, "target_id");
		host = udev_device_get_parent_with_subsystem_devtype(dev, "scsi", "scsi_host");
		if (!state || strcmp(state, "LOGGED_IN") || !id || !host ||
		    sscanf(udev_device_get_sysname(host), "host%u", &e->host) != 1)
			return false;
		e->channel = 0;
	} else if (sys && !strcmp(sys, "fc_remote_ports")) {
		const char *roles = udev_device_get_sysattr_value(dev, "roles");

		state = udev_device_get_sysattr_value(dev, "port_state");
		id = udev_device_get_sysattr_value(dev, "scsi_target_id");
		if (!state || strcmp(state, "Online") || !roles || !strstr(roles, "FCP Target") ||
		    !id || sscanf(name, "rport-%u:%u-", &e->host, &e->channel) != 2)
			return false;
	} else {
		return false;
	}
	if (sscanf(id, "%d", &t) != 1 || t < 0)
		return false;
	e->target = (unsigned int)t;
	return true;
}

/*
 * A target with no LU on this host gets no command, so a LUN mapped to it raises no unit
 * attention here (the open-iscsi case: a first LUN on an empty target stays unseen until
 * someone scans).  Each round scans every allowed target of an iSCSI session or FC remote
 * port that has no LU here: one REPORT LUNS, from the kernel, per target and interval.
 */
static void probe_empty_targets(struct uaed_rescan *r, struct udev *udev)
{
	static const char *const classes[] = { "iscsi_session", "fc_remote_ports" };

	/* A scan: not in observe-only mode. */
	if (!r->cfg->rescan)
		return;
	for (size_t c = 0; udev && c < sizeof(classes) / sizeof(classes[0]); c++) {
		struct udev_enumerate *en = udev_enumerate_new(udev);
		struct udev_list_entry *le;

		if (!en || udev_enumerate_add_match_subsystem(en, classes[c]) < 0 ||
		    udev_enumerate_scan_devices(en) < 0) {
			udev_enumerate_unref(en);
			continue;
		}
		udev_list_entry_foreach(le, udev_enumerate_get_list_entry(en)) {
			struct udev_device *dev = udev_device_new_from_syspath(udev,
						udev_list_entry_get_name(le));
			struct uaed_event e = { .host = 0 };
			char key[160];

			if (dev && transport_target(dev, &e) &&
			    uaed_config_allows(r->cfg, e.host, e.channel, e.target) &&
			    !target_has_lus(e.host, e.channel, e.target)) {
				snprintf(key, sizeof(key), "scan %u:%u:%u", e.host, e.channel,
					 e.target);
				request(r, EMPTY_TARGET, key, &e, 0);
			}
			udev_device_unref(dev);
		}
		udev_enumerate_unref(en);
	}
}

/*
 * A round of the reconciler, in the daemon: sysfs only (no command), to find the LUs that
 * got at most one command (the last round's TEST UNIT READY) since the last round.
 */
static void reconcile_round(struct uaed_rescan *r)
{
	struct udev *udev = udev_new();
	struct udev_enumerate *en = udev ? udev_enumerate_new(udev) : NULL;
	struct udev_list_entry *le;
	unsigned int host, channel, target, n = 0;
	struct uaed_event none = { .host = ~0U };
	unsigned int k = 0;

	r->n_idle = 0;
	for (unsigned int i = 0; i < r->n_counted; i++)
		r->counted[i].seen = false;
	if (en && udev_enumerate_add_match_subsystem(en, "scsi") >= 0 &&
	    udev_enumerate_add_match_sysname(en, "*:*:*:*") >= 0 &&
	    udev_enumerate_scan_devices(en) >= 0)
		udev_list_entry_foreach(le, udev_enumerate_get_list_entry(en))
			n++;
	free(r->idle);
	r->idle = n ? calloc(n, sizeof(*r->idle)) : NULL;
	udev_list_entry_foreach(le, r->idle ? udev_enumerate_get_list_entry(en) : NULL) {
		const char *syspath = udev_list_entry_get_name(le);
		const char *hctl = strrchr(syspath, '/') + 1;
		struct udev_device *dev;
		const char *cnt, *type;
		struct counted *c;
		unsigned long long now;

		if (sscanf(hctl, "%u:%u:%u:", &host, &channel, &target) != 3 ||
		    !uaed_config_allows(r->cfg, host, channel, target))
			continue;
		dev = udev_device_new_from_syspath(udev, syspath);
		type = dev ? udev_device_get_sysattr_value(dev, "type") : NULL;
		/*
		 * Disks only: the midlayer acts on a disk's unit attentions whoever's command
		 * gets them; a tape drive's or a changer's would be taken from their driver.
		 */
		cnt = type && !strcmp(type, "0") ?
		      udev_device_get_sysattr_value(dev, "iorequest_cnt") : NULL;
		c = cnt ? counted_of(r, hctl) : NULL;
		if (c) {
			now = strtoull(cnt, NULL, 16);
			c->seen = true;
			if (now - c->count <= 1 && k < n && sg_of(syspath, r->idle[k], sizeof(r->idle[k])))
				k++;
			c->count = now;
		}
		udev_device_unref(dev);
	}
	r->n_idle = k;
	/* Forget the LUs that are gone. */
	for (unsigned int i = 0; i < r->n_counted;)
		if (!r->counted[i].seen)
			r->counted[i] = r->counted[--r->n_counted];
		else
			i++;
	udev_enumerate_unref(en);
	probe_empty_targets(r, udev);
	udev_unref(udev);
	if (r->n_idle)
		request(r, RECONCILE, "reconcile", &none, 0);
}

static int on_reconcile(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct uaed_rescan *r = userdata;
	unsigned int every = r->cfg->reconcile_s ? r->cfg->reconcile_s : 60;

	/* Off (0) it only looks again later: a reload may turn it on. */
	if (r->cfg->reconcile_s)
		reconcile_round(r);
	sd_event_source_set_time_relative(s, (uint64_t)every * 1000000);
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

/* A job's key, one per target or LU: the reports it answers fold into one job. */
static void key_of(enum action action, const struct uaed_event *e, char *key, size_t size)
{
	switch (action) {
	case ALUA_STATE:
		snprintf(key, size, "alua %s", e->wwid);
		break;
	case NVME_HEALTH:
		snprintf(key, size, "health %s", e->nvme_ctrl);
		break;
	case SCAN_TARGET:
	case EMPTY_TARGET:
		snprintf(key, size, "scan %u:%u:%u", e->host, e->channel, e->target);
		break;
	case RESCAN_WWID:
		snprintf(key, size, "wwid %s", e->wwid);
		break;
	case RESCAN_DEVICE:
		snprintf(key, size, "dev %s", e->hctl);
		break;
	case RECONCILE:
		snprintf(key, size, "reconcile");
		break;
	}
}

/* Rescans of what the configuration allows now: an owed job too, after a restart. */
static bool allowed(const struct uaed_rescan *r, enum action action, const struct uaed_event *e)
{
	return is_report(action) ||
	       (r->cfg->rescan && uaed_config_allows(r->cfg, e->host, e->channel, e->target));
}

void uaed_rescan_event(struct uaed_rescan *r, const struct uaed_event *e)
{
	enum action action;
	char key[160];

	/* An NVMe SMART / health event: the log it points to (nvme-health.c). */
	if (!strcmp(e->kind, "aen") && e->ev && uae_event_get_aen_log_page(e->ev) == 0x02 &&
	    uae_nvme_controller_name_valid(e->nvme_ctrl)) {
		key_of(NVME_HEALTH, e, key, sizeof(key));
		request(r, NVME_HEALTH, key, e, e->logged_earlier ? 1 : 0);
		return;
	}
	if (strcmp(e->kind, "ua"))
		return;
	/* A report, not a rescan: also where rescans are off or not allowed. */
	if (!strcmp(e->name, "ASYMMETRIC_ACCESS_STATE_CHANGED"))
		action = ALUA_STATE;
	else if (!strcmp(e->name, "REPORTED_LUNS_DATA_HAS_CHANGED"))
		action = SCAN_TARGET;
	else if (!strcmp(e->name, "CAPACITY_DATA_HAS_CHANGED"))
		action = RESCAN_WWID;
	else if (!strcmp(e->name, "INQUIRY_DATA_HAS_CHANGED") ||
		 !strcmp(e->name, "DEVICE_IDENTIFIER_CHANGED"))
		action = RESCAN_DEVICE;
	else
		return;
	if (!allowed(r, action, e)) {
		if (action == SCAN_TARGET || action == RESCAN_WWID)
			uaed_log_action(LOG_INFO, "observe-only",
					"MESSAGE=%s on %s: observe only, no rescan", e->name,
					e->hctl, "UAEVENTS_HCTL=%s", e->hctl);
		return;
	}
	/* Both find the LU's paths by its WWID. */
	if ((action == ALUA_STATE || action == RESCAN_WWID) && !e->wwid[0])
		return;
	key_of(action, e, key, sizeof(key));
	/* Logged by the last run, which left its work undone: owed, as after a clean stop. */
	request(r, action, key, e, e->logged_earlier ? 1 : 0);
}

/*
 * Work an event asked for and not done yet: due, waiting, running, or owed a second look
 * (reports came while it ran).  The reconciler's own rounds and probes are not owed: it
 * makes them again.  A job that failed or timed out is done (its failure was logged).
 */
static bool owed(const struct pending *p)
{
	return p->used && p->action != RECONCILE && p->action != EMPTY_TARGET &&
	       (!p->cooling || p->again);
}

uint64_t uaed_rescan_changes(const struct uaed_rescan *r)
{
	return r->changes;
}

int uaed_rescan_owed(const struct uaed_rescan *r, struct json_object *owed_work)
{
	for (unsigned int i = 0; i < r->n_slot; i++) {
		struct json_object *o;

		if (!owed(r->slot[i]))
			continue;
		o = uaed_owed_job(job_names[r->slot[i]->action],
				  r->slot[i]->reports + r->slot[i]->owed, &r->slot[i]->e);
		if (!o || json_object_array_add(owed_work, o) < 0) {
			json_object_put(o);
			return -ENOMEM;
		}
	}
	return 0;
}

int uaed_rescan_resume(struct uaed_rescan *r, struct json_object *o, char *what, size_t size,
		       bool this_boot)
{
	unsigned int reports;
	struct uaed_event e;
	const char *job;
	char key[160];
	int action;

	if (uaed_owed_job_parse(o, &job, &reports, &e) < 0)
		return -EINVAL;
	for (action = 0; action < (int)(sizeof(job_names) / sizeof(job_names[0])); action++)
		if (!strcmp(job, job_names[action]))
			break;
	if (action != SCAN_TARGET && action != RESCAN_WWID && action != RESCAN_DEVICE &&
	    !is_report(action))
		return -EINVAL;
	if ((action == ALUA_STATE || action == RESCAN_WWID) && !e.wwid[0])
		return -EINVAL;
	if ((action == NVME_HEALTH) != (e.nvme_ctrl[0] != '\0'))
		return -EINVAL;
	key_of(action, &e, key, sizeof(key));
	snprintf(what, size, "%s", key);
	if (!this_boot)
		return -ESTALE;
	if (!allowed(r, action, &e))
		return -EPERM;
	/* At least one: a job with none would be taken for the reconciler's probe. */
	request(r, action, key, &e, reports ?: 1);
	return 0;
}
