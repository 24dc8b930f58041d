// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: where the last run stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>
#include <time.h>

#include "state.h"

int uaed_state_load(const char *path, struct uaed_state *st)
{
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return -errno;
	n = fscanf(f, "%" SCNx64 " %" SCNu64, &st->instance, &st->seq);
	fclose(f);
	return n == 2 ? 0 : -EBADMSG;
}

int uaed_state_check(const char *path)
{
	char tmp[512], dir[512];
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%s", path);
	mkdir(dirname(dir), 0755);
	fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return unlink(tmp) < 0 ? -errno : 0;
}

int uaed_state_save(const char *path, const struct uaed_state *st)
{
	char tmp[512], dir[512];
	int fd, r = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(dir, sizeof(dir), "%s", path);
	mkdir(dirname(dir), 0755);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (dprintf(fd, "%016" PRIx64 " %" PRIu64 "\n", st->instance, st->seq) < 0 ||
	    fsync(fd) < 0)
		r = -errno;
	close(fd);
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r == 0) {
		snprintf(dir, sizeof(dir), "%s", path);
		fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			fsync(fd);
			close(fd);
		}
	}
	return r;
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int uaed_journal_sync(uint64_t timeout_usec)
{
	uint64_t deadline = now_usec() + timeout_usec;
	char match[64], id[SD_ID128_STRING_MAX];
	sd_id128_t marker;
	sd_journal *j;
	int r;

	r = sd_id128_randomize(&marker);
	if (r < 0)
		return r;
	sd_id128_to_string(marker, id);
	/*
	 * journald reads its socket in order: once this entry is in the journal, so is
	 * every entry sent before it, by an earlier instance that was killed too.
	 */
	r = sd_journal_send("MESSAGE=uaeventd: journal synchronization point",
			    "PRIORITY=7", "SYSLOG_IDENTIFIER=uaeventd", "UAEVENTS_SYNC=%s", id,
			    NULL);
	if (r < 0)
		return r;
	r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
	if (r < 0)
		return r;
	snprintf(match, sizeof(match), "UAEVENTS_SYNC=%s", id);
	r = sd_journal_add_match(j, match, 0);
	while (r >= 0) {
		uint64_t now = now_usec();

		r = sd_journal_seek_head(j);
		if (r >= 0)
			r = sd_journal_next(j);
		if (r != 0)
			break;
		if (now >= deadline) {
			r = -ETIMEDOUT;
			break;
		}
		r = sd_journal_wait(j, deadline - now);
	}
	sd_journal_close(j);
	return r < 0 ? r : 0;
}

uint64_t uaed_journal_last_seq(uint64_t instance)
{
	sd_journal *j;
	uint64_t best = 0;
	char match[64];
	const void *data;
	size_t len;

	if (sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY) < 0)
		return 0;
	snprintf(match, sizeof(match), "UAEVENTS_INSTANCE=%016" PRIx64, instance);
	sd_journal_add_match(j, match, 0);
	sd_journal_add_match(j, "SYSLOG_IDENTIFIER=uaeventd", 0);
	/*
	 * Any local user can log UAEVENTS_SEQ=<huge> under the public instance id; only
	 * journald's own fields are trusted.  _UID comes from the socket's credentials, so it
	 * is there even for the last entries of an instance that was killed (_SYSTEMD_UNIT is
	 * read from /proc and may be missing for those).
	 */
	snprintf(match, sizeof(match), "_UID=%u", (unsigned int)getuid());
	sd_journal_add_match(j, match, 0);
	/* Entries of one instance are logged in sequence order: the newest holds the highest. */
	if (sd_journal_seek_tail(j) >= 0 && sd_journal_previous(j) > 0 &&
	    sd_journal_get_data(j, "UAEVENTS_SEQ", &data, &len) >= 0) {
		char buf[32];
		size_t n = len - strlen("UAEVENTS_SEQ=");

		if (n < sizeof(buf)) {
			memcpy(buf, (const char *)data + strlen("UAEVENTS_SEQ="), n);
			buf[n] = '\0';
			best = strtoull(buf, NULL, 10);
		}
	}
	sd_journal_close(j);
	return best;
}
