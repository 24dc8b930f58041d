// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: rescans after LUN inventory, capacity and identity changes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "rescan.h"
#include "state.h"
#include "stale.h"

#define SLOTS 64

enum action { SCAN_TARGET, RESCAN_WWID, RESCAN_DEVICE };

/* One debounced piece of work: a target scan, or the rescan of one LU's paths. */
struct pending {
	struct uaed_rescan *r;
	bool used;
	enum action action;
	char key[160];			/* "scan 2:0:0", "wwid naa...." or "dev 2:0:0:1" */
	struct uaed_event e;		/* the first event that asked for it */
	unsigned int reports;		/* events folded into it */
	sd_event_source *timer;
	pid_t running;			/* the child doing it, 0 if none */
	bool again;			/* asked for again while it ran */
	bool cooling;			/* done; repeats within the window are its echo */
	sd_event_source *child;
};

struct uaed_rescan {
	sd_event *loop;
	const struct uaed_config *cfg;
	struct pending slot[SLOTS];
};

int uaed_sysfs_read(const char *hctl, const char *attr, char *buf, size_t size)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/scsi_device/%s/device/%s", hctl, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

static int write_sysfs(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		r = -errno;
	close(fd);
	return r;
}

int uaed_rescan_new(struct uaed_rescan **ret, sd_event *loop, const struct uaed_config *cfg)
{
	struct uaed_rescan *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->loop = sd_event_ref(loop);
	r->cfg = cfg;
	*ret = r;
	return 0;
}

void uaed_rescan_free(struct uaed_rescan *r)
{
	if (!r)
		return;
	for (int i = 0; i < SLOTS; i++) {
		sd_event_source_disable_unref(r->slot[i].timer);
		sd_event_source_disable_unref(r->slot[i].child);
	}
	sd_event_unref(r->loop);
	free(r);
}

/*
 * In the child: scan the target, as "echo 'C T -' > /sys/class/scsi_host/hostH/scan",
 * then look for LUNs it no longer reports.
 */
static int do_scan_target(const struct uaed_config *cfg, const struct uaed_event *e,
			  unsigned int reports)
{
	static struct uaed_lun before[256];
	char path[128], value[64], target[48];
	int r, n;

	snprintf(target, sizeof(target), "%u:%u:%u", e->host, e->channel, e->target);
	n = uaed_target_luns(target, before, 256);

	snprintf(path, sizeof(path), "/sys/class/scsi_host/host%u/scan", e->host);
	snprintf(value, sizeof(value), "%u %u -", e->channel, e->target);
	r = write_sysfs(path, value);
	sd_journal_send("MESSAGE=scanned target %u:%u:%u after %u report(s) of changed LUN "
			"inventory%s%s", e->host, e->channel, e->target, reports,
			r < 0 ? ": " : "", r < 0 ? strerror(-r) : "",
			"PRIORITY=%d", r < 0 ? LOG_ERR : LOG_INFO, "SYSLOG_IDENTIFIER=uaeventd",
			"UAEVENTS_ACTION=scan-target", "UAEVENTS_TARGET=%u:%u:%u", e->host,
			e->channel, e->target, NULL);
	if (r == 0)
		uaed_check_stale(before, n, cfg->remove_stale);
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
	sd_journal_send("MESSAGE=resize command %s for %s %s: %s", command, wwid,
			ok ? "succeeded" : "failed", how, "PRIORITY=%d", ok ? LOG_INFO : LOG_ERR,
			"SYSLOG_IDENTIFIER=uaeventd", "UAEVENTS_ACTION=resize",
			"UAEVENTS_WWID=%s", wwid, "UAEVENTS_EXIT=%d",
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), NULL);
}

/* In the child: rescan every path whose WWID is this LU's, then the follow-up, once. */
static int do_rescan_wwid(const struct uaed_config *cfg, const struct uaed_event *e)
{
	unsigned int paths = 0;
	glob_t g;
	char wwid[256], path[512];

	if (glob("/sys/class/scsi_device/*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *hctl = strrchr(g.gl_pathv[i], '/') + 1;

			if (uaed_sysfs_read(hctl, "wwid", wwid, sizeof(wwid)) < 0 ||
			    strcmp(wwid, e->wwid))
				continue;
			snprintf(path, sizeof(path), "%s/device/rescan", g.gl_pathv[i]);
			if (write_sysfs(path, "1") == 0)
				paths++;
		}
		globfree(&g);
	}
	sd_journal_send("MESSAGE=rescanned %u path(s) of %s after a capacity change", paths,
			e->wwid, "PRIORITY=%d", LOG_INFO, "SYSLOG_IDENTIFIER=uaeventd",
			"UAEVENTS_ACTION=rescan-paths", "UAEVENTS_WWID=%s", e->wwid,
			"UAEVENTS_PATHS=%u", paths, NULL);
	if (cfg->resize_command[0]) {
		pid_t pid = fork();

		if (pid == 0) {
			char *argv[] = { (char *)cfg->resize_command, (char *)e->wwid, NULL };
			char *envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };

			execve(cfg->resize_command, argv, envp);
			_exit(127);
		}
		if (pid > 0) {
			int status = 0;

			waitpid(pid, &status, 0);
			/* Its own output goes to the daemon's (the journal); its verdict too. */
			log_resize(cfg->resize_command, e->wwid, status);
		}
	}
	return 0;
}

/* In the child: rescan one device whose identity changed, and log old and new. */
static int do_rescan_device(const struct uaed_event *e)
{
	char old_id[3][128], new_id[3][128], path[128];
	static const char *const attrs[] = { "vendor", "model", "wwid" };

	for (int i = 0; i < 3; i++)
		if (uaed_sysfs_read(e->hctl, attrs[i], old_id[i], sizeof(old_id[i])) < 0)
			old_id[i][0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/scsi_device/%s/device/rescan", e->hctl);
	write_sysfs(path, "1");
	for (int i = 0; i < 3; i++)
		if (uaed_sysfs_read(e->hctl, attrs[i], new_id[i], sizeof(new_id[i])) < 0)
			new_id[i][0] = '\0';
	sd_journal_send("MESSAGE=rescanned %s after %s: was %s %s %s, now %s %s %s", e->hctl,
			e->name, old_id[0], old_id[1], old_id[2], new_id[0], new_id[1],
			new_id[2], "PRIORITY=%d", LOG_NOTICE, "SYSLOG_IDENTIFIER=uaeventd",
			"UAEVENTS_ACTION=rescan-device", "UAEVENTS_HCTL=%s", e->hctl,
			"UAEVENTS_OLD_WWID=%s", old_id[2], "UAEVENTS_NEW_WWID=%s", new_id[2],
			NULL);
	return 0;
}

static void run_now(struct pending *p);

static int on_cooled(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct pending *p = userdata;

	p->timer = sd_event_source_disable_unref(p->timer);
	p->used = false;
	return 0;
}

static int on_child(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	struct pending *p = userdata;

	p->child = sd_event_source_disable_unref(p->child);
	p->running = 0;
	if (p->again) {
		p->again = false;
		run_now(p);
		return 0;
	}
	/*
	 * A rescan makes the other paths report the same change (their next command gets
	 * the UA): those reports, within one window, are this rescan's echo, not new work.
	 */
	p->cooling = true;
	sd_event_add_time_relative(p->r->loop, &p->timer, CLOCK_MONOTONIC,
				   (uint64_t)p->r->cfg->debounce_ms * 1000, 0, on_cooled, p);
	return 0;
}

static int run_action(struct pending *p)
{
	switch (p->action) {
	case SCAN_TARGET:
		return do_scan_target(p->r->cfg, &p->e, p->reports);
	case RESCAN_WWID:
		return do_rescan_wwid(p->r->cfg, &p->e);
	case RESCAN_DEVICE:
		return do_rescan_device(&p->e);
	}
	return -EINVAL;
}

static void run_now(struct pending *p)
{
	pid_t pid = fork();

	if (pid == 0) {
		int r = run_action(p);

		/*
		 * journald learns an entry's unit (journalctl -u uaeventd) from the sender's
		 * /proc entry: exit only once what this child logged is stored.
		 */
		uaed_journal_sync(5 * 1000000ULL);
		_exit(r < 0);
	}
	if (pid < 0) {
		p->used = false;
		return;
	}
	p->running = pid;
	p->reports = 0;
	sd_event_add_child(p->r->loop, &p->child, pid, WEXITED, on_child, p);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct pending *p = userdata;

	p->timer = sd_event_source_disable_unref(p->timer);
	if (p->running)
		p->again = true;	/* never two at once on one target */
	else
		run_now(p);
	return 0;
}

static void request(struct uaed_rescan *r, enum action action, const char *key,
		    const struct uaed_event *e)
{
	struct pending *p = NULL, *free_slot = NULL;

	for (int i = 0; i < SLOTS; i++) {
		if (r->slot[i].used && !strcmp(r->slot[i].key, key))
			p = &r->slot[i];
		else if (!r->slot[i].used && !free_slot)
			free_slot = &r->slot[i];
	}
	/*
	 * Due within the window, running, or just done: either way the work that answers
	 * this report is under way (a scan or rescan reads the state as it is when it runs).
	 */
	if (p) {
		p->reports++;
		return;
	}
	if (!free_slot) {
		sd_journal_print(LOG_WARNING, "uaeventd: too many rescans pending; %s skipped", key);
		return;
	}
	p = free_slot;
	memset(p, 0, sizeof(*p));
	p->r = r;
	p->used = true;
	p->action = action;
	p->reports = 1;
	p->e = *e;
	p->e.ev = NULL;
	snprintf(p->key, sizeof(p->key), "%s", key);
	sd_event_add_time_relative(r->loop, &p->timer, CLOCK_MONOTONIC,
				   (uint64_t)r->cfg->debounce_ms * 1000, 0, on_timer, p);
}

void uaed_rescan_event(struct uaed_rescan *r, const struct uaed_event *e)
{
	char key[160];

	if (strcmp(e->kind, "ua"))
		return;
	if (!r->cfg->rescan || !uaed_config_allows(r->cfg, e->host, e->channel, e->target)) {
		if (!strcmp(e->name, "REPORTED_LUNS_DATA_HAS_CHANGED") ||
		    !strcmp(e->name, "CAPACITY_DATA_HAS_CHANGED"))
			sd_journal_send("MESSAGE=%s on %s: observe only, no rescan", e->name,
					e->hctl, "PRIORITY=%d", LOG_INFO,
					"SYSLOG_IDENTIFIER=uaeventd", NULL);
		return;
	}
	if (!strcmp(e->name, "REPORTED_LUNS_DATA_HAS_CHANGED")) {
		snprintf(key, sizeof(key), "scan %u:%u:%u", e->host, e->channel, e->target);
		request(r, SCAN_TARGET, key, e);
	} else if (!strcmp(e->name, "CAPACITY_DATA_HAS_CHANGED") && e->wwid[0]) {
		snprintf(key, sizeof(key), "wwid %s", e->wwid);
		request(r, RESCAN_WWID, key, e);
	} else if (!strcmp(e->name, "INQUIRY_DATA_HAS_CHANGED") ||
		   !strcmp(e->name, "DEVICE_IDENTIFIER_CHANGED")) {
		snprintf(key, sizeof(key), "dev %s", e->hctl);
		request(r, RESCAN_DEVICE, key, e);
	}
}
