// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: the rescan jobs' work, done in their children (see jobs.h); rescan.c decides
 * when each runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <scsi/sg_cmds_basic.h>

#include "libuaevents.h"

#include "children.h"
#include "identity.h"
#include "jobs.h"
#include "log.h"
#include "paths.h"
#include "removals.h"
#include "stale.h"
#include "sysfs.h"

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
static unsigned int hold_budget_s(const struct uaed_job_ctx *ctx)
{
	return ctx->cfg->rescan_timeout_s / 4;
}

/*
 * One REPORT LUNS, through a LU of the target, against what this host has: the LUNs to
 * add, the ones left out because someone removed them here lately (each said in the
 * journal), and whether a LU here is gone from the list.  -errno if it cannot be asked.
 */
static int take_inventory(const struct uaed_job_ctx *ctx, const char *target,
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
int uaed_job_scan_target(const struct uaed_job_ctx *ctx, const struct uaed_event *e,
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
 * Every path in @hctl is one uaeventd may touch and shows the device's capacity now
 * (capacity_current); a path removed meanwhile counts as showing it.
 */
static bool paths_current(const struct uaed_config *cfg, char (*hctl)[32], int n)
{
	unsigned int host, channel, target;

	for (int i = 0; i < n; i++) {
		int dirfd;
		bool current;

		if (sscanf(hctl[i], "%u:%u:%u:", &host, &channel, &target) != 3 ||
		    !uaed_config_allows(cfg, host, channel, target))
			return false;
		dirfd = uaed_sysfs_open_lu(hctl[i]);
		current = dirfd < 0 || capacity_current(dirfd);
		if (dirfd >= 0)
			close(dirfd);
		if (!current)
			return false;
	}
	return n > 0;
}

/* The module's newest event, read before the capacities a proof rests on; false: unknown. */
static bool newest_event(uint64_t *instance, uint64_t *seq)
{
	struct uae_kernel_stats ks = { .size = sizeof(ks) };

	if (uae_kernel_stats(&ks) < 0 || !ks.instance)
		return false;
	*instance = ks.instance;
	*seq = ks.last_seq;
	return true;
}

/*
 * Whether @hctl's @n paths are all current (paths_current); if so, and the module's newest
 * event was known before their capacities were read, that is in @proof (if not NULL).
 */
static bool prove(struct uaed_job_proof *proof, const struct uaed_config *cfg,
		  char (*hctl)[32], int n)
{
	uint64_t instance = 0, seq = 0;
	bool known = proof && newest_event(&instance, &seq);

	if (!paths_current(cfg, hctl, n))
		return false;
	if (known) {
		proof->n = (unsigned int)n;
		memcpy(proof->hctl, hctl, (size_t)n * sizeof(hctl[0]));
		proof->seq = seq;
		proof->instance = instance;
	}
	return true;
}

/*
 * In the child: rescan every path whose WWID is this LU's, on the targets the allow-list
 * lets uaeventd touch, then the follow-up (resize_command) once, when no path was left out:
 * a map over paths of two sizes cannot grow.  The paths come from the daemon's index
 * (paths.h), each checked again here: not a walk over every device of the host per LU.
 * A second look (@verify) does all that only when some path's size is not the device's.
 * At the end, each path's capacity is read once more (@proof): the other paths' reports
 * of the change, which the rescan's own commands make, then need no second look, and
 * no second child.
 */
int uaed_job_rescan_paths(const struct uaed_job_ctx *ctx, const struct uaed_event *e, bool verify,
			  struct uaed_job_proof *proof)
{
	const struct uaed_config *cfg = ctx->cfg;
	unsigned int paths = 0, skipped = 0, host, channel, target;
	char hctl[UAED_LU_PATHS_MAX][32];
	int n = uaed_paths_find(ctx->paths, e->wwid, e->hctl, hctl, UAED_LU_PATHS_MAX);

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
	if (verify && !skipped && n > 0 && prove(proof, cfg, hctl, n)) {
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
		else
			uaed_log_errno(LOG_ERR, status, "uaeventd: resize command %s for %s not "
				       "started: %m", cfg->resize_command, e->wwid);
	}
	/* After the resize: a map not grown yet is a difference (capacity_current). */
	if (proof && !skipped && n > 0)
		prove(proof, cfg, hctl, n);
	return 0;
}

/* In the child: rescan one device whose identity changed, and log old and new. */
int uaed_job_rescan_device(const struct uaed_event *e)
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
int uaed_job_reconcile(const struct uaed_job_ctx *ctx)
{
	unsigned int sent = 0;

	for (unsigned int i = 0; i < ctx->n_idle; i++) {
		char path[32];
		int fd;

		snprintf(path, sizeof(path), "/dev/%s", ctx->idle[i]);
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
