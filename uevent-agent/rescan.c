// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: rescans after LUN inventory, capacity and identity changes.
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
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <libudev.h>
#include <scsi/sg_cmds_basic.h>
#include <systemd/sd-journal.h>

#include "alua.h"
#include "children.h"
#include "identity.h"
#include "log.h"
#include "metrics.h"
#include "owed.h"
#include "paths.h"
#include "removals.h"
#include "rescan.h"
#include "state.h"
#include "stale.h"
#include "sysfs.h"

/*
 * Jobs (children) running at once.  Every LU of a big array can report at the same
 * moment (1,024 capacity changes in make bench's figure 5): each job waits its turn, in
 * the order it came, rather than a fork and a cgroup per LU at once.
 */
#define MAX_RUNNING 16

/* EMPTY_TARGET: the reconciler's scan of a target with no LU here (no report came). */
enum action { SCAN_TARGET, EMPTY_TARGET, RESCAN_WWID, RESCAN_DEVICE, RECONCILE, ALUA_STATE };
/* As the metrics name them, after the journal entries each writes. */
static const char *const job_names[] = {
	[SCAN_TARGET] = "scan-target", [EMPTY_TARGET] = "scan-empty-target",
	[RESCAN_WWID] = "rescan-paths", [RESCAN_DEVICE] = "rescan-device",
	[RECONCILE] = "reconcile", [ALUA_STATE] = "alua-state",
};

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

void uaed_rescan_free(struct uaed_rescan *r)
{
	if (!r)
		return;
	for (unsigned int i = 0; i < r->n_slot; i++) {
		sd_event_source_disable_unref(r->slot[i]->timer);
		sd_event_source_disable_unref(r->slot[i]->child);
		sd_event_source_disable_unref(r->slot[i]->deadline);
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

/* LUN numbers a target lists that this host has no device for, or has no more. */
struct inventory {
	uint64_t *listed;
	int n_listed;
	uint64_t add[64];		/* to scan, each by its number */
	unsigned int n_add;
	bool more;			/* more new LUNs than fit in add[]: scan the target */
	char left_out[512];		/* "1 7": removed here by someone else lately */
	bool gone;			/* a LU here that the target no longer lists */
};

static bool has_lun(const struct uaed_lun *luns, int n, uint64_t lun)
{
	for (int i = 0; i < n; i++)
		if (luns[i].lun == lun)
			return true;
	return false;
}

/*
 * How long a scan may spend looking again at LUs held back for a moment, each of its two
 * such checks (identities, stale LUNs): a quarter of its timeout, so that it ends within it.
 */
static unsigned int hold_budget_s(const struct uaed_rescan *ctx)
{
	return ctx->cfg->rescan_timeout_s / 4;
}

/*
 * One REPORT LUNS, through a LU of the target, against what this host has: the LUNs to
 * add, the ones left out because someone removed them here lately (each said in the
 * journal), and whether a LU here is gone from the list.  -errno if it cannot be asked.
 */
static int take_inventory(const struct uaed_rescan *ctx, const char *target,
			  const struct uaed_lun *luns, int n, struct inventory *inv)
{
	int m = n > 0 ? uaed_target_report_luns(luns, n, &inv->listed) : -ENODEV;

	if (m < 0)
		return m;
	inv->n_listed = m;
	/* Removals the daemon saw since this child started count too (a CSI driver's). */
	uaed_removals_reload(ctx->removals);
	for (int j = 0; j < m; j++) {
		char hctl[80];
		long ago;

		if (has_lun(luns, n, inv->listed[j]))
			continue;
		snprintf(hctl, sizeof(hctl), "%s:%" PRIu64, target, inv->listed[j]);
		ago = uaed_removals_recent(ctx->removals, hctl, ctx->cfg->removal_grace_s);
		if (ago >= 0) {
			size_t len = strlen(inv->left_out);

			snprintf(inv->left_out + len, sizeof(inv->left_out) - len, "%s%" PRIu64,
				 len ? " " : "", inv->listed[j]);
			uaed_log_action(LOG_NOTICE, "scan-left-out",
					"MESSAGE=LUN %s is reported by its target but was removed "
					"on this host %ld s ago, not by uaeventd: not added back "
					"([rescan] removal_grace_s = %u)", hctl, ago,
					ctx->cfg->removal_grace_s, "UAEVENTS_HCTL=%s", hctl);
		} else if (inv->n_add < sizeof(inv->add) / sizeof(inv->add[0])) {
			inv->add[inv->n_add++] = inv->listed[j];
		} else {
			inv->more = true;
		}
	}
	for (int i = 0; i < n && !inv->gone; i++) {
		bool still = false;

		for (int j = 0; j < m && !still; j++)
			still = luns[i].lun == inv->listed[j];
		inv->gone = !still;
	}
	return 0;
}

/*
 * In the child: add the LUNs the target lists and this host lacks, each by its number
 * ("echo 'C T L' > /sys/class/scsi_host/hostH/scan"), then look for LUNs it no longer
 * lists.  Never a wildcard over the target while a LUN of it was removed here lately: the
 * kernel would add that one back too.  @verify: reports that came while a scan ran or in
 * the window after it, which may be its echo (every LU of the target reports one change,
 * each with its next command) or a newer change: nothing new listed, no scan.
 */
static int do_scan_target(const struct uaed_rescan *ctx, const struct uaed_event *e,
			  unsigned int reports, unsigned int owed, bool verify)
{
	struct inventory inv = { .listed = NULL };
	struct uaed_lun *before = NULL;
	char path[128], value[64], target[48], added[512] = "";
	int r = 0, n, failed = 0, why = 0;
	/* The reconciler's scan of a target with no LU here: no report, and quiet if in vain. */
	bool probe = reports == 0 && owed == 0, wildcard;
	char lead[160];

	/* Before the scan: each LU pinned by its sysfs directory, with the WWID it has. */
	snprintf(target, sizeof(target), "%u:%u:%u", e->host, e->channel, e->target);
	n = uaed_target_luns(target, &before);
	if (n < 0)
		uaed_log_errno(LOG_WARNING, n, "uaeventd: cannot list the LUNs of target %s: %m; "
			       "stale LUNs not checked", target);
	r = take_inventory(ctx, target, before, n, &inv);
	/* A LU here whose number now names another volume: removed when unused, added anew. */
	if (r == 0) {
		int max = (int)(sizeof(inv.add) / sizeof(inv.add[0]) - inv.n_add);
		int gone = uaed_check_identity(before, n, inv.listed, inv.n_listed,
					       ctx->cfg->remove_stale, hold_budget_s(ctx),
					       inv.add + inv.n_add, max);

		inv.more |= gone > max;
		inv.n_add += (unsigned int)(gone < max ? gone : max);
	}
	/* Without a list (no LU left to ask, an error): the kernel's scan of the target. */
	wildcard = r < 0 || inv.more;
	if (wildcard && inv.left_out[0] == '\0') {
		char prefix[64];
		bool recent = false;

		/* ... unless a LUN of it was removed here lately: the kernel would add it back. */
		snprintf(prefix, sizeof(prefix), "%s:", target);
		recent = uaed_removals_recent_prefix(ctx->removals, prefix,
						     ctx->cfg->removal_grace_s);
		if (recent && probe) {
			uaed_log_action(LOG_DEBUG, "scan-target",
					"MESSAGE=target %s, which has no LU on this host, not "
					"scanned: a LUN of it was removed here lately", target,
					"UAEVENTS_TARGET=%s", target);
			goto out;
		}
		if (recent) {
			uaed_log_action(LOG_WARNING, "scan-target",
					"MESSAGE=target %s not scanned: REPORT LUNS failed (%s) "
					"and a LUN of it was removed on this host lately; the next "
					"report tries again", target, strerror(r < 0 ? -r : E2BIG),
					"UAEVENTS_TARGET=%s", target);
			goto out;
		}
	}
	if (verify && !wildcard && inv.n_add == 0) {
		uaed_log_action(LOG_INFO, "scan-verify",
				"MESSAGE=target %s: %u more report(s) of changed LUN inventory "
				"after its scan; REPORT LUNS lists no LUN this host lacks%s",
				target, reports,
				inv.gone ? ", checking the ones it no longer lists" : "",
				"UAEVENTS_TARGET=%s", target);
		if (inv.gone)
			uaed_check_stale(before, n, ctx->cfg->remove_stale, hold_budget_s(ctx));
		goto out;
	}
	snprintf(path, sizeof(path), "/sys/class/scsi_host/host%u/scan", e->host);
	if (wildcard) {
		snprintf(value, sizeof(value), "%u %u -", e->channel, e->target);
		r = uaed_sysfs_writeat(AT_FDCWD, path, value);
		snprintf(added, sizeof(added), "every LUN it lists");
		failed = r < 0;
		why = r;
	}
	for (unsigned int i = 0; !wildcard && i < inv.n_add; i++) {
		size_t len = strlen(added);

		snprintf(value, sizeof(value), "%u %u %" PRIu64, e->channel, e->target, inv.add[i]);
		r = uaed_sysfs_writeat(AT_FDCWD, path, value);
		if (r < 0) {
			/* The host's own limits (max_lun) answer EINVAL: said, not guessed at. */
			why = why ? why : r;
			failed++;
			continue;
		}
		snprintf(added + len, sizeof(added) - len, "%s%" PRIu64, len ? " " : "",
			 inv.add[i]);
	}
	/* What the kernel's scan of a target that had none added, by number. */
	if (probe && wildcard && !failed) {
		struct uaed_lun *now = NULL;
		int m = uaed_target_luns(target, &now);

		added[0] = '\0';
		for (int i = 0; i < m; i++) {
			size_t len = strlen(added);

			snprintf(added + len, sizeof(added) - len, "%s%" PRIu64, len ? " " : "",
				 now[i].lun);
		}
		if (m > 0)
			uaed_target_luns_free(now, m);
	}
	if (probe)
		snprintf(lead, sizeof(lead), "target %s, which had no LU on this host, "
			 "scanned by the reconciler", target);
	else
		snprintf(lead, sizeof(lead), "scanned target %s after %u report(s) of changed "
			 "LUN inventory%s", target, reports,
			 owed ? " and the ones the last run owed" : "");
	uaed_log_action(failed ? LOG_ERR : probe && !added[0] ? LOG_DEBUG : LOG_INFO, "scan-target",
			"MESSAGE=%s: added %s%s%s%s%s%s", lead, added[0] ? added : "none",
			inv.left_out[0] ? "; left out (removed here lately) " : "", inv.left_out,
			failed ? "; some could not be added (" : "", failed ? strerror(-why) : "",
			failed ? ")" : "", "UAEVENTS_TARGET=%s", target, "UAEVENTS_ADDED=%s",
			added, "UAEVENTS_LEFT_OUT=%s", inv.left_out);
	if (!failed && n > 0 && (wildcard || inv.gone))
		uaed_check_stale(before, n, ctx->cfg->remove_stale, hold_budget_s(ctx));
	r = failed ? -EIO : 0;
out:
	free(inv.listed);
	if (n >= 0)
		uaed_target_luns_free(before, n);
	return r;
}

static void log_resize(const char *command, const char *wwid, int status)
{
	bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	char how[64];

	if (WIFEXITED(status))
		snprintf(how, sizeof(how), "exit status %d", WEXITSTATUS(status));
	else
		snprintf(how, sizeof(how), "killed by signal %d", WTERMSIG(status));
	uaed_log_action(ok ? LOG_INFO : LOG_ERR, "resize",
			"MESSAGE=resize command %s for %s %s: %s", command, wwid,
			ok ? "succeeded" : "failed", how, "UAEVENTS_WWID=%s", wwid,
			"UAEVENTS_EXIT=%d",
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/*
 * In the child, for a second look (reports came while the rescan ran or cooled): the
 * device's capacity as READ CAPACITY(16) gives it now is what the host shows on this path.
 * An echo of the rescan (another path's report of the same change, its unit attention
 * taken by the rescan's own commands) leaves it so; a newer change does not.  When it
 * cannot be told (no sg node or disk, a failed command): false, and the path is rescanned.
 */
static bool capacity_current(int dirfd)
{
	struct uaed_lun l = { .dirfd = dirfd };
	unsigned char cap[32];
	char disk[32], attr[96], size[32], map[32];
	unsigned long long sectors, map_sectors;
	uint64_t last = 0;
	uint32_t block = 0;
	int fd, res;

	if (!uaed_lu_disk(&l, disk, sizeof(disk)))
		return false;
	/*
	 * A map over it (multipath) of another size: its resize is still due, whoever
	 * rescanned the path (a job stopped in its resize, the kernel, an administrator).
	 */
	snprintf(attr, sizeof(attr), "block/%s/holders", disk);
	if (uaed_sysfs_first_entry(dirfd, attr, map, sizeof(map))) {
		char map_size[32], path[96];

		snprintf(attr, sizeof(attr), "block/%s/size", disk);
		snprintf(path, sizeof(path), "/sys/block/%s/size", map);
		if (uaed_sysfs_readat(dirfd, attr, size, sizeof(size)) < 0 ||
		    uaed_sysfs_readat(AT_FDCWD, path, map_size, sizeof(map_size)) < 0 ||
		    sscanf(size, "%llu", &sectors) != 1 ||
		    sscanf(map_size, "%llu", &map_sectors) != 1 || sectors != map_sectors)
			return false;
	}
	fd = uaed_lu_open_sg(&l);
	if (fd < 0)
		return false;
	res = sg_ll_readcap_16(fd, false, 0, cap, sizeof(cap), false, 0);
	close(fd);
	snprintf(attr, sizeof(attr), "block/%s/size", disk);
	if (res || uaed_sysfs_readat(dirfd, attr, size, sizeof(size)) < 0 ||
	    sscanf(size, "%llu", &sectors) != 1)
		return false;
	for (int i = 0; i < 8; i++)
		last = last << 8 | cap[i];
	for (int i = 8; i < 12; i++)
		block = block << 8 | cap[i];
	return block && last < UINT64_MAX / block && (last + 1) * block == sectors * 512;
}

/*
 * In the child: rescan every path whose WWID is this LU's, on the targets the allow-list
 * lets uaeventd touch, then the follow-up (resize_command) once, when no path was left out:
 * a map over paths of two sizes cannot grow.  The paths come from the daemon's index
 * (paths.h), each checked again here: not a walk over every device of the host per LU.
 * A second look (@verify) does all that only when some path's size is not the device's.
 */
static int do_rescan_wwid(const struct uaed_rescan *r, const struct uaed_event *e, bool verify)
{
	const struct uaed_config *cfg = r->cfg;
	unsigned int paths = 0, skipped = 0, host, channel, target;
	char hctl[UAED_LU_PATHS_MAX][32];
	int n = uaed_paths_find(r->paths, e->wwid, hctl, UAED_LU_PATHS_MAX);

	if (n < 0)
		uaed_log_errno(LOG_ERR, n, "uaeventd: cannot list SCSI devices for %s: %m",
			       e->wwid);
	if (n > UAED_LU_PATHS_MAX) {
		uaed_log(LOG_WARNING, "uaeventd: %s has %d paths; only %d are rescanned",
			 e->wwid, n, UAED_LU_PATHS_MAX);
		skipped += n - UAED_LU_PATHS_MAX;
		n = UAED_LU_PATHS_MAX;
	}
	/*
	 * Only the paths it may touch are asked; with none to ask (none found, or none
	 * allowed), nothing tells an echo from a change: the rescan below is made.
	 */
	if (n <= 0)
		verify = false;
	for (int i = 0; verify && i < n; i++) {
		int dirfd;
		bool current;

		if (sscanf(hctl[i], "%u:%u:%u:", &host, &channel, &target) != 3 ||
		    !uaed_config_allows(cfg, host, channel, target)) {
			verify = false;
			break;
		}
		dirfd = uaed_sysfs_open_lu(hctl[i]);
		current = dirfd < 0 || capacity_current(dirfd);
		if (dirfd >= 0)
			close(dirfd);
		if (!current)
			verify = false;
	}
	if (verify) {
		uaed_log_action(LOG_INFO, "rescan-paths-verify",
				"MESSAGE=capacity of %s unchanged since its rescan on %d path(s): "
				"the reports after it were its echo", e->wwid, n,
				"UAEVENTS_WWID=%s", e->wwid, "UAEVENTS_PATHS=%d", n);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		int dirfd = uaed_sysfs_open_lu(hctl[i]);

		if (dirfd < 0)
			continue;	/* removed meanwhile */
		if (sscanf(hctl[i], "%u:%u:%u:", &host, &channel, &target) != 3 ||
		    !uaed_config_allows(cfg, host, channel, target))
			skipped++;
		else if (uaed_sysfs_writeat(dirfd, "rescan", "1") == 0)
			paths++;
		close(dirfd);
	}
	uaed_log_action(skipped ? LOG_WARNING : LOG_INFO, "rescan-paths",
			"MESSAGE=rescanned %u path(s) of %s after a capacity change%s", paths,
			e->wwid, skipped ? "; paths outside [rescan] allow were left alone" : "",
			"UAEVENTS_WWID=%s", e->wwid, "UAEVENTS_PATHS=%u", paths,
			"UAEVENTS_SKIPPED=%u", skipped);
	if (cfg->resize_command[0] && skipped) {
		uaed_log_action(LOG_WARNING, "resize-skipped",
				"MESSAGE=resize command %s for %s not run: %u path(s) outside "
				"[rescan] allow keep the old size", cfg->resize_command, e->wwid,
				skipped, "UAEVENTS_WWID=%s", e->wwid);
	} else if (cfg->resize_command[0]) {
		/* The WWID, then its paths: a hook need not walk the host for them either. */
		char *argv[2 + UAED_LU_PATHS_MAX + 1] = { (char *)cfg->resize_command,
							  (char *)e->wwid };
		int status;

		for (int i = 0; i < n; i++)
			argv[2 + i] = hctl[i];
		status = uaed_run_wait(cfg->resize_command, argv, NULL, 0);

		/* Its own output goes to the daemon's (the journal); its verdict too. */
		if (status >= 0)
			log_resize(cfg->resize_command, e->wwid, status);
	}
	return 0;
}

/* In the child: rescan one device whose identity changed, and log old and new. */
static int do_rescan_device(const struct uaed_event *e)
{
	char old_id[3][128], new_id[3][128], path[128];
	static const char *const attrs[] = { "vendor", "model", "wwid" };
	/* The WWID as the module's events carry it; the INQUIRY fields without padding. */
	int (*const get[])(const char *, const char *, char *, size_t) = {
		uaed_sysfs_read_padded, uaed_sysfs_read_padded, uaed_sysfs_read
	};

	for (int i = 0; i < 3; i++)
		if (get[i](e->hctl, attrs[i], old_id[i], sizeof(old_id[i])) < 0)
			old_id[i][0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/scsi_device/%s/device/rescan", e->hctl);
	uaed_sysfs_writeat(AT_FDCWD, path, "1");
	for (int i = 0; i < 3; i++)
		if (get[i](e->hctl, attrs[i], new_id[i], sizeof(new_id[i])) < 0)
			new_id[i][0] = '\0';
	uaed_log_action(LOG_NOTICE, "rescan-device",
			"MESSAGE=rescanned %s after %s: was %s %s %s, now %s %s %s", e->hctl,
			e->name, old_id[0], old_id[1], old_id[2], new_id[0], new_id[1], new_id[2],
			"UAEVENTS_HCTL=%s", e->hctl, "UAEVENTS_OLD_WWID=%s", old_id[2],
			"UAEVENTS_NEW_WWID=%s", new_id[2]);
	return 0;
}

/*
 * In the child: one TEST UNIT READY to each LU the round found idle.  A pending unit
 * attention comes back with it and takes the usual path (the module's hooks, uaeventd).
 */
static int do_reconcile(const struct uaed_rescan *r)
{
	unsigned int sent = 0;

	for (unsigned int i = 0; i < r->n_idle; i++) {
		char path[32];
		int fd;

		snprintf(path, sizeof(path), "/dev/%s", r->idle[i]);
		fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;	/* removed meanwhile */
		sg_ll_test_unit_ready(fd, 0, false, 0);
		close(fd);
		sent++;
	}
	uaed_log_action(LOG_DEBUG, "reconcile",
			"MESSAGE=reconciler: TEST UNIT READY sent to %u idle LU(s)", sent,
			"UAEVENTS_PROBED=%u", sent);
	return 0;
}

static void run_now(struct pending *p);
static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* Targets the job works on: the reporting one; a WWID's paths also by their WWID. */
static bool conflict(const struct pending *p, const struct pending *q)
{
	/* TEST UNIT READYs and ALUA reports change nothing: they may go beside any job. */
	if (p->action == RECONCILE || q->action == RECONCILE || p->action == ALUA_STATE ||
	    q->action == ALUA_STATE)
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
	}
}

static int on_child(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	struct pending *p = userdata;
	bool timed_out = p->killed;

	p->child = sd_event_source_disable_unref(p->child);
	p->deadline = sd_event_source_disable_unref(p->deadline);
	p->running = 0;
	for (unsigned int i = 0; i < p->r->n_running; i++)
		if (p->r->run[i] == p)
			p->r->run[i] = p->r->run[--p->r->n_running];
	uaed_child_done(&p->proc);
	uaed_metrics_job(p->r->metrics, job_names[p->action],
			 si->si_code != CLD_EXITED || si->si_status != 0);
	/* Scans add devices, identity rescans change WWIDs: the index may be out of date. */
	if (p->action != RESCAN_WWID && p->action != ALUA_STATE)
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
	switch (p->action) {
	case SCAN_TARGET:
	case EMPTY_TARGET:
		return do_scan_target(p->r, &p->e, p->reports, p->owed, p->verify);
	case RESCAN_WWID:
		return do_rescan_wwid(p->r, &p->e, p->verify);
	case RESCAN_DEVICE:
		return do_rescan_device(&p->e);
	case RECONCILE:
		return do_reconcile(p->r);
	case ALUA_STATE:
		return uaed_alua_report(p->r->paths, &p->e);
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
	pid_t pid;
	int r;

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
	uaed_child_prepare(&p->proc);
	pid = fork();
	if (pid == 0) {
		/* Its own cgroup, so that a timeout kills what it started too. */
		r = uaed_child_enter(&p->proc);
		if (r < 0) {
			uaed_log_errno(LOG_ERR, r, "uaeventd: %s: cannot enter its cgroup: %m",
				       p->key);
			uaed_journal_sync(5 * 1000000ULL);
			_exit(1);
		}
		r = run_action(p);
		/*
		 * journald learns an entry's unit (journalctl -u uaeventd) from the sender's
		 * /proc entry: exit only once what this child logged is stored.
		 */
		uaed_journal_sync(5 * 1000000ULL);
		_exit(r < 0);
	}
	if (pid < 0) {
		r = errno;
		uaed_child_done(&p->proc);
		retry(p, "cannot fork", r);
		return;
	}
	uaed_child_started(&p->proc, pid);
	r = sd_event_add_child(p->r->loop, &p->child, pid, WEXITED, on_child, p);
	if (r < 0) {
		uaed_child_kill(&p->proc);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		uaed_child_done(&p->proc);
		retry(p, "cannot watch its child", -r);
		return;
	}
	p->running = pid;
	p->r->run[p->r->n_running++] = p;
	p->reports = 0;
	p->owed = 0;
	p->verify = false;
	p->killed = false;
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
		/*
		 * A state read before this report may be older than it: read once more.  A
		 * capacity report then is the rescan's echo (checked, not rescanned) or a
		 * newer change (rescanned).
		 */
		if ((action == SCAN_TARGET || action == ALUA_STATE || action == RESCAN_WWID) &&
		    (p->running || p->cooling))
			p->again = true;
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
	return action == ALUA_STATE ||
	       (r->cfg->rescan && uaed_config_allows(r->cfg, e->host, e->channel, e->target));
}

void uaed_rescan_event(struct uaed_rescan *r, const struct uaed_event *e)
{
	enum action action;
	char key[160];

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
	request(r, action, key, e, 0);
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
	    action != ALUA_STATE)
		return -EINVAL;
	if ((action == ALUA_STATE || action == RESCAN_WWID) && !e.wwid[0])
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
