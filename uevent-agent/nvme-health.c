// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: an NVMe controller's SMART / Health Information log, after it raised a SMART /
 * health asynchronous event.
 *
 * The event says which warning came (spare, temperature, reliability); the log says every
 * warning on now (its Critical Warning bits), how much spare is left and how hot the drive
 * is.  And the controller holds every further event of that type until the host reads the
 * log (NVM Express Base Specification, Asynchronous Event Request: masked until a Get Log
 * Page without Retain Asynchronous Event), which Linux does not: without this read a second
 * warning, a worse one, would never be reported.  Get Log Page reads; it changes nothing on
 * the drive (smartd and nvme-cli send it all the time).  It runs in a job's child: an admin
 * command may wait for the driver's admin timeout on a controller that has stopped
 * answering, and the daemon must not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/nvme_ioctl.h>

#include "log.h"
#include "nvme-health.h"
#include "uae_nvme.h"

#define NVME_ADMIN_GET_LOG_PAGE	0x02
#define NVME_LOG_SMART		0x02
#define NVME_NSID_ALL		0xffffffffU

/*
 * /dev/@name, opened and checked to be the character device sysfs gives @name now: a
 * controller removed and another created under the same name since the event is still
 * the one named (its events are its own), but never some other node.
 */
static int open_controller(const char *name)
{
	char path[64], dev[32];
	unsigned int major, minor;
	struct stat st;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/nvme/%s/dev", name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(dev, sizeof(dev), f) || sscanf(dev, "%u:%u", &major, &minor) != 2) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(major, minor)) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

/* Get Log Page 02h, all namespaces, Retain Asynchronous Event clear: 0, or -errno. */
static int read_smart_log(int fd, uint8_t *log, size_t len)
{
	struct nvme_admin_cmd cmd = {
		.opcode = NVME_ADMIN_GET_LOG_PAGE,
		.nsid = NVME_NSID_ALL,
		.addr = (uintptr_t)log,
		.data_len = (uint32_t)len,
		/* NUMDL (dwords, 0-based) in bits 31:16, the log page in 7:0, RAE (15) 0. */
		.cdw10 = (uint32_t)(len / 4 - 1) << 16 | NVME_LOG_SMART,
	};
	int r = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);

	if (r < 0)
		return -errno;
	/* Positive: the controller's status for the command. */
	return r ? -EIO : 0;
}

/* "spare-below-threshold temperature": the Critical Warning bits set, by name. */
static void warning_names(uint8_t bits, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int bit = 0; bit < 8 && n < size; bit++) {
		const char *name = uae_nvme_crit_warning_name(bit);
		char reserved[16];

		if (!(bits & 1U << bit))
			continue;
		if (!name) {
			snprintf(reserved, sizeof(reserved), "bit%u", bit);
			name = reserved;
		}
		n += snprintf(buf + n, size - n, "%s%s", n ? " " : "", name);
	}
}

int uaed_nvme_health_report(const struct uaed_event *e, unsigned int budget_s)
{
	uint8_t log[UAE_NVME_SMART_LOG_LEN] = { 0 };
	struct uae_nvme_smart s;
	char names[128], temp[32];
	int fd, r;

	if (!uae_nvme_controller_name_valid(e->nvme_ctrl))
		return uaed_log_errno(LOG_ERR, EINVAL, "uaeventd: no SMART / health log read "
				      "after %s: no NVMe controller known", e->name);
	/*
	 * A controller that is not live (resetting, reconnecting: the driver refuses to open
	 * it meanwhile, EWOULDBLOCK) is asked again a little later, for at most a quarter of
	 * the job's time: its events stay held back until the log is read.  A command that
	 * was sent and failed is not sent again.
	 */
	for (unsigned int tries = 0, slept = 0;; tries++) {
		unsigned int pause = 1U << (tries < 4 ? tries : 4);

		fd = open_controller(e->nvme_ctrl);
		r = fd < 0 ? fd : read_smart_log(fd, log, sizeof(log));
		if (fd >= 0)
			close(fd);
		if (fd != -EWOULDBLOCK || slept + pause > budget_s)
			break;
		sleep(pause);
		slept += pause;
	}
	if (r < 0)
		return uaed_log_errno(LOG_WARNING, r, "uaeventd: cannot read %s's SMART / health "
				      "log after %s: %m", e->nvme_ctrl, e->name);
	uae_nvme_smart_parse(log, sizeof(log), &s);
	warning_names(s.crit_warning, names, sizeof(names));
	if (s.temperature_k)
		snprintf(temp, sizeof(temp), "%d", (int)s.temperature_k - 273);
	else
		snprintf(temp, sizeof(temp), "unknown");
	/* A warning still on is critical; one gone by the time of the read, a notice. */
	return uaed_log_action(s.crit_warning ? LOG_CRIT : LOG_NOTICE, "nvme-health",
			       "MESSAGE=%s: SMART / health log after %s: critical warning 0x%02x "
			       "(%s); available spare %u%% (threshold %u%%), %u%% of its rated "
			       "endurance used, %s °C",
			       e->nvme_ctrl, e->name, s.crit_warning,
			       s.crit_warning ? names : "none", s.avail_spare, s.spare_thresh,
			       s.percent_used, temp,
			       "UAEVENTS_TRANSPORT=nvme", "UAEVENTS_NVME_CONTROLLER=%s", e->nvme_ctrl,
			       "UAEVENTS_EVENT=%s", e->name,
			       "UAEVENTS_NVME_CRIT_WARNING=0x%02x", s.crit_warning,
			       "UAEVENTS_NVME_CRIT_WARNINGS=%s", s.crit_warning ? names : "none",
			       "UAEVENTS_NVME_AVAILABLE_SPARE=%u", s.avail_spare,
			       "UAEVENTS_NVME_SPARE_THRESHOLD=%u", s.spare_thresh,
			       "UAEVENTS_NVME_PERCENT_USED=%u", s.percent_used,
			       "UAEVENTS_NVME_TEMPERATURE_C=%s", temp);
}
