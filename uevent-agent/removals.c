// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <libudev.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>

#include "log.h"
#include "paths.h"
#include "removals.h"

/* Removals remembered; the oldest is forgotten first.  More than CSI drivers do at once. */
#define REMEMBERED 1024
/* SCSI devices this host had at the last look: beyond that, removals may go unseen. */
#define PRESENT_MAX 16384
/* A mark older than this is left over from a child killed before it cleaned up. */
#define OWN_MARK_S 120

struct removal {
	char hctl[32];
	uint64_t usec;		/* CLOCK_MONOTONIC; 0: unused */
};

struct uaed_removals {
	char file[256];		/* kept across restarts of the daemon, for this boot */
	struct udev *udev;
	struct udev_monitor *monitor;
	sd_event_source *source;
	struct uaed_paths *paths;	/* told of every device added, removed or changed */
	unsigned int next;
	struct removal seen[REMEMBERED];
	/*
	 * The devices the host had as of the last uevent or look (sorted): one of them gone
	 * with no remove uevent seen (lost to an overflow, or while no uaeventd ran) was
	 * removed all the same.
	 */
	char (*present)[32];
	unsigned int n_present;
};

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Whether uaeventd marked this removal as its own; the mark is used up. */
static bool own(const char *hctl)
{
	char path[128];
	struct stat st;
	bool fresh;

	snprintf(path, sizeof(path), "%s/%s", UAED_OWN_REMOVALS_DIR, hctl);
	if (stat(path, &st) < 0)
		return false;
	fresh = time(NULL) - st.st_mtime <= OWN_MARK_S;
	unlink(path);
	return fresh;
}

static bool note(struct uaed_removals *r, const char *hctl, const char *when)
{
	struct removal *slot = NULL;

	if (strlen(hctl) >= sizeof(slot->hctl) || own(hctl))
		return false;
	for (unsigned int i = 0; i < REMEMBERED && !slot; i++)
		if (r->seen[i].usec && !strcmp(r->seen[i].hctl, hctl))
			slot = &r->seen[i];
	if (!slot)
		slot = &r->seen[r->next++ % REMEMBERED];
	snprintf(slot->hctl, sizeof(slot->hctl), "%s", hctl);
	slot->usec = now_usec();
	uaed_log_action(LOG_INFO, "removed-elsewhere",
			"MESSAGE=LUN %s was removed on this host%s, not by uaeventd: target "
			"scans leave it out for [rescan] removal_grace_s", hctl, when,
			"UAEVENTS_HCTL=%s", hctl);
	return true;
}

/* Host "hostN" went, with all its devices: what was removed behind it no longer matters. */
static bool forget_host(struct uaed_removals *r, const char *sysname)
{
	unsigned int host;
	char prefix[24];
	bool forgot = false;

	if (sscanf(sysname, "host%u", &host) != 1)
		return false;
	snprintf(prefix, sizeof(prefix), "%u:", host);
	for (unsigned int i = 0; i < REMEMBERED; i++) {
		if (r->seen[i].usec && !strncmp(r->seen[i].hctl, prefix, strlen(prefix))) {
			r->seen[i].usec = 0;
			forgot = true;
		}
	}
	return forgot;
}

/*
 * The removals are written next to the state file, with the boot they belong to
 * (CLOCK_MONOTONIC counts from it), so that a restart of the daemon (a crash, an upgrade)
 * does not forget them while a CSI driver is still finishing its detach.
 */
static void save(const struct uaed_removals *r)
{
	char tmp[272], boot[SD_ID128_STRING_MAX];
	sd_id128_t id;
	FILE *f;
	int err;

	if (!r->file[0] || sd_id128_get_boot(&id) < 0)
		return;
	snprintf(tmp, sizeof(tmp), "%s.new", r->file);
	f = fopen(tmp, "we");
	if (!f) {
		uaed_log_errno(LOG_WARNING, errno, "uaeventd: cannot write %s: %m; a restart "
			       "forgets the LUNs removed by other tools", tmp);
		return;
	}
	fprintf(f, "%s\n", sd_id128_to_string(id, boot));
	for (unsigned int i = 0; i < REMEMBERED; i++)
		if (r->seen[i].usec)
			fprintf(f, "%s %" PRIu64 "\n", r->seen[i].hctl, r->seen[i].usec);
	/* A line an older uaeventd skips (its second word is no number). */
	for (unsigned int i = 0; i < r->n_present; i++)
		fprintf(f, "present %s\n", r->present[i]);
	err = ferror(f) ? EIO : 0;
	if (fclose(f) && !err)
		err = errno;
	if (!err && rename(tmp, r->file) < 0)
		err = errno;
	if (err) {
		unlink(tmp);
		uaed_log_errno(LOG_WARNING, err, "uaeventd: cannot write %s: %m; a restart "
			       "forgets the LUNs removed by other tools", r->file);
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static bool is_present(const struct uaed_removals *r, const char *hctl)
{
	return r->n_present &&
	       bsearch(hctl, r->present, r->n_present, sizeof(r->present[0]), by_name);
}

static void add_present(struct uaed_removals *r, const char *hctl)
{
	unsigned int i;

	if (strlen(hctl) >= sizeof(r->present[0]) || is_present(r, hctl) ||
	    r->n_present == PRESENT_MAX)
		return;
	if (!r->present) {
		r->present = calloc(PRESENT_MAX, sizeof(r->present[0]));
		if (!r->present)
			return;
	}
	for (i = r->n_present; i > 0 && strcmp(r->present[i - 1], hctl) > 0; i--)
		memcpy(r->present[i], r->present[i - 1], sizeof(r->present[0]));
	snprintf(r->present[i], sizeof(r->present[0]), "%s", hctl);
	r->n_present++;
}

static void drop_present(struct uaed_removals *r, const char *hctl)
{
	char (*at)[32] = r->n_present ? bsearch(hctl, r->present, r->n_present,
						 sizeof(r->present[0]), by_name) : NULL;

	if (!at)
		return;
	memmove(at, at + 1, (r->present + r->n_present - (at + 1)) * sizeof(*at));
	r->n_present--;
}

/*
 * The devices the host has now against those it had at the last look: one gone without a
 * remove uevent seen (@when says why it could not be) was removed, by someone other than
 * uaeventd unless it marked it as its own; one whose host went is not (forget_host).  True
 * when a removal was noted.  Then the host's devices as they are now.
 */
static bool look_again(struct uaed_removals *r, const char *when)
{
	DIR *d = opendir("/sys/bus/scsi/devices");
	char (*was)[32] = r->present;
	unsigned int n_was = r->n_present;
	struct dirent *de;
	bool noted = false;

	if (!d)
		return false;
	r->present = calloc(PRESENT_MAX, sizeof(r->present[0]));
	r->n_present = 0;
	while (r->present && (de = readdir(d)) && r->n_present < PRESENT_MAX) {
		unsigned int h, c, t;
		unsigned long long l;
		char end;

		if (sscanf(de->d_name, "%u:%u:%u:%llu%c", &h, &c, &t, &l, &end) == 4 &&
		    strlen(de->d_name) < sizeof(r->present[0]))
			snprintf(r->present[r->n_present++], sizeof(r->present[0]), "%s",
				 de->d_name);
	}
	closedir(d);
	if (!r->present) {	/* no memory: as it was */
		r->present = was;
		r->n_present = n_was;
		return false;
	}
	qsort(r->present, r->n_present, sizeof(r->present[0]), by_name);
	for (unsigned int i = 0; i < n_was; i++) {
		unsigned int host;
		char path[64];

		if (is_present(r, was[i]) || sscanf(was[i], "%u:", &host) != 1)
			continue;
		snprintf(path, sizeof(path), "/sys/class/scsi_host/host%u", host);
		if (access(path, F_OK) == 0)
			noted |= note(r, was[i], when);
	}
	free(was);
	return noted;
}

/* What an earlier instance saw in this boot, on hosts that are still there. */
static void load(struct uaed_removals *r)
{
	char line[128], boot[SD_ID128_STRING_MAX], hctl[32];
	FILE *f = fopen(r->file, "re");
	struct removal *slot;
	sd_id128_t id;
	uint64_t usec;
	unsigned int host;

	if (!f)
		return;
	if (fgets(line, sizeof(line), f))
		line[strcspn(line, "\n")] = '\0';
	else
		line[0] = '\0';
	if (sd_id128_get_boot(&id) < 0 || strcmp(line, sd_id128_to_string(id, boot))) {
		fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char path[64];

		if (sscanf(line, "present %31s", hctl) == 1) {
			add_present(r, hctl);
			continue;
		}
		if (sscanf(line, "%31s %" SCNu64, hctl, &usec) != 2 || !usec ||
		    sscanf(hctl, "%u:", &host) != 1)
			continue;
		snprintf(path, sizeof(path), "/sys/class/scsi_host/host%u", host);
		if (access(path, F_OK) < 0)
			continue;
		/* Known already (a reload): the newer time. */
		slot = NULL;
		for (unsigned int i = 0; i < REMEMBERED && !slot; i++)
			if (r->seen[i].usec && !strcmp(r->seen[i].hctl, hctl))
				slot = &r->seen[i];
		if (!slot) {
			slot = &r->seen[r->next++ % REMEMBERED];
			slot->usec = 0;
		}
		snprintf(slot->hctl, sizeof(slot->hctl), "%s", hctl);
		if (usec > slot->usec)
			slot->usec = usec;
	}
	fclose(f);
}

/*
 * Whether a uevent of a scsi_device may change which devices show which WWID: an add or a
 * removal does, an INQUIRY DATA HAS CHANGED may; the other unit attentions the kernel
 * reports as uevents (SDEV_UA, one per path when enabled, as for capacity) do not, and
 * must not make a storm of them walk the host once per event.
 */
static bool may_move_wwids(struct udev_device *dev, const char *action)
{
	const char *ua = udev_device_get_property_value(dev, "SDEV_UA");

	if (!strcmp(action, "bind") || !strcmp(action, "unbind"))
		return false;
	return strcmp(action, "change") || !ua || !strcmp(ua, "INQUIRY_DATA_HAS_CHANGED");
}

static int on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct uaed_removals *r = userdata;
	struct udev_device *dev;
	/* Bounded, like every dispatch: the socket stays readable for the next turn. */
	int n = 0;
	bool changed = false;

	while (n++ < 256 && (dev = udev_monitor_receive_device(r->monitor))) {
		const char *action = udev_device_get_action(dev);
		const char *devtype = udev_device_get_devtype(dev);

		/*
		 * INQUIRY DATA HAS CHANGED: the WWID changes at a rescan after it, by uaeventd
		 * (which updates the index then) or by someone else (which no uevent says).
		 */
		if (action && devtype && !strcmp(devtype, "scsi_device") &&
		    may_move_wwids(dev, action)) {
			if (udev_device_get_property_value(dev, "SDEV_UA"))
				uaed_paths_invalidate(r->paths);
			else
				uaed_paths_update(r->paths, udev_device_get_sysname(dev));
		}
		if (action && devtype && !strcmp(action, "add") && !strcmp(devtype, "scsi_device")) {
			add_present(r, udev_device_get_sysname(dev));
			changed = true;
		}
		if (action && devtype && !strcmp(action, "remove") &&
		    !strcmp(devtype, "scsi_device")) {
			changed |= note(r, udev_device_get_sysname(dev), "");
			drop_present(r, udev_device_get_sysname(dev));
		}
		/* Its number is given to the next host added, which is other storage. */
		else if (action && devtype && !strcmp(action, "remove") &&
			 !strcmp(devtype, "scsi_host"))
			changed |= forget_host(r, udev_device_get_sysname(dev));
		udev_device_unref(dev);
	}
	/* The socket overflowed (ENOBUFS): what was lost may have been a device's. */
	if (n <= 256 && errno != EAGAIN && errno != EINTR) {
		uaed_paths_invalidate(r->paths);
		changed |= look_again(r, " (its uevent was lost to an overflow)");
		changed = true;
	}
	/* Once per batch: a CSI driver removing hundreds is one write, not hundreds. */
	if (changed)
		save(r);
	return 0;
}

int uaed_removals_new(struct uaed_removals **ret, sd_event *loop, const char *state_file,
		      struct uaed_paths *paths)
{
	struct uaed_removals *r = calloc(1, sizeof(*r));
	char dir[sizeof(r->file)];
	int rc = -ENOMEM;

	if (!r)
		return -ENOMEM;
	r->paths = paths;
	snprintf(dir, sizeof(dir), "%s", state_file);
	snprintf(r->file, sizeof(r->file), "%s/removals", dirname(dir));
	load(r);
	/* Its own marks go here, in the unit's RuntimeDirectory= (made here without one). */
	if ((mkdir("/run/uaevents", 0755) < 0 && errno != EEXIST) ||
	    (mkdir(UAED_OWN_REMOVALS_DIR, 0700) < 0 && errno != EEXIST))
		uaed_log_errno(LOG_WARNING, errno, "uaeventd: cannot create %s: %m; its own "
			       "removals of stale LUNs will look like another tool's",
			       UAED_OWN_REMOVALS_DIR);
	/* The kernel's uevents, not udev's: a removal needs no rule, and udevd may be absent. */
	r->udev = udev_new();
	r->monitor = r->udev ? udev_monitor_new_from_netlink(r->udev, "kernel") : NULL;
	if (r->monitor) {
		/* A CSI driver may remove hundreds at once: room for them (best effort). */
		udev_monitor_set_receive_buffer_size(r->monitor, 4 * 1024 * 1024);
		rc = udev_monitor_filter_add_match_subsystem_devtype(r->monitor, "scsi",
								     "scsi_device");
		if (rc >= 0)
			rc = udev_monitor_filter_add_match_subsystem_devtype(r->monitor, "scsi",
									     "scsi_host");
		if (rc >= 0)
			rc = udev_monitor_enable_receiving(r->monitor);
		if (rc >= 0)
			rc = sd_event_add_io(loop, &r->source, udev_monitor_get_fd(r->monitor),
					     EPOLLIN, on_uevent, r);
	}
	if (rc < 0) {
		uaed_removals_free(r);
		return rc;
	}
	/*
	 * What went while no uaeventd ran (in this boot: load() knew the devices then), once
	 * the uevents are received: a removal meanwhile is in one or the other.
	 */
	look_again(r, " while uaeventd was not running");
	save(r);
	uaed_paths_set_watched(paths, true);
	*ret = r;
	return 0;
}

struct uaed_removals *uaed_removals_free(struct uaed_removals *r)
{
	if (!r)
		return NULL;
	sd_event_source_disable_unref(r->source);
	udev_monitor_unref(r->monitor);
	udev_unref(r->udev);
	free(r->present);
	free(r);
	return NULL;
}

void uaed_removals_reload(struct uaed_removals *r)
{
	/*
	 * Added to what it knew (a removal seen twice counts once: the newest is not older
	 * than the one it knew), not instead of it: the daemon's last write may have failed.
	 */
	if (r)
		load(r);
}

long uaed_removals_recent(const struct uaed_removals *r, const char *hctl, unsigned int grace_s)
{
	uint64_t now = now_usec();

	for (unsigned int i = 0; r && i < REMEMBERED; i++) {
		const struct removal *x = &r->seen[i];

		if (x->usec && !strcmp(x->hctl, hctl) && now - x->usec <= grace_s * 1000000ULL)
			return (long)((now - x->usec) / 1000000);
	}
	return -1;
}

bool uaed_removals_recent_prefix(const struct uaed_removals *r, const char *prefix,
				 unsigned int grace_s)
{
	uint64_t now = now_usec();

	for (unsigned int i = 0; r && i < REMEMBERED; i++) {
		const struct removal *x = &r->seen[i];

		if (x->usec && !strncmp(x->hctl, prefix, strlen(prefix)) &&
		    now - x->usec <= grace_s * 1000000ULL)
			return true;
	}
	return false;
}

int uaed_removals_mark_own(const char *hctl)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", UAED_OWN_REMOVALS_DIR, hctl);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

void uaed_removals_unmark_own(const char *hctl)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", UAED_OWN_REMOVALS_DIR, hctl);
	unlink(path);
}
