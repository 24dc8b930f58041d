// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: where the last run stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>
#include <time.h>

#include "log.h"
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

int uaed_state_load_owed(const char *path, struct json_object **owed)
{
	FILE *f = fopen(path, "re");
	size_t size = 0;
	char *line = NULL;
	int bad = 0;

	*owed = NULL;
	if (!f)
		return -errno;
	/* The first line is the state's; a line cut short by a full disk does not parse. */
	for (bool first = true; getline(&line, &size, f) > 0; first = false) {
		struct json_object *o;

		if (first)
			continue;
		o = json_tokener_parse(line);
		if (!o || !json_object_is_type(o, json_type_object)) {
			json_object_put(o);
			bad++;
			continue;
		}
		if (!*owed)
			*owed = json_object_new_array();
		if (!*owed || json_object_array_add(*owed, o) < 0) {
			json_object_put(o);
			bad++;
		}
	}
	free(line);
	fclose(f);
	return bad;
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

/* Each piece of owed work on a line of its own: JSON's plain form has no newline. */
static int write_owed(int fd, struct json_object *owed)
{
	size_t n = owed ? json_object_array_length(owed) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *s = json_object_to_json_string_ext(json_object_array_get_idx(owed, i),
							      JSON_C_TO_STRING_PLAIN);

		if (!s)
			return -ENOMEM;
		if (dprintf(fd, "%s\n", s) < 0)
			return -errno;
	}
	return 0;
}

int uaed_state_save(const char *path, const struct uaed_state *st, struct json_object *owed)
{
	char tmp[512], dir[512];
	int fd, r = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(dir, sizeof(dir), "%s", path);
	mkdir(dirname(dir), 0755);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (dprintf(fd, "%016" PRIx64 " %" PRIu64 "\n", st->instance, st->seq) < 0)
		r = -errno;
	if (r == 0)
		r = write_owed(fd, owed);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	close(fd);
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);	/* a disk that is full: not a part-written file left behind */
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

/*
 * Set once a marker was not stored in time: journald keeps none of uaeventd's info entries
 * (its MaxLevelStore=, or it is too slow to be waited for).  Said once; from then on this
 * process and the children it forks do not wait again, each for nothing.
 */
static bool sync_off;

int uaed_journal_sync(uint64_t timeout_usec)
{
	uint64_t deadline = now_usec() + timeout_usec;
	static unsigned long long n_syncs;
	char match[128], id[96], boot[SD_ID128_STRING_MAX] = "";
	const char *m = match;
	sd_id128_t boot_id;
	sd_journal *j;
	int r;

	if (sync_off)
		return -ETIMEDOUT;
	/*
	 * Unique without random bytes: getrandom() blocks until the kernel's generator is
	 * ready, which early in a boot (and in a VM without a virtio-rng) kept uaeventd
	 * waiting and burning the CPU (try_to_generate_entropy).  Another user could log the
	 * same, but only uaeventd's own entries are searched (uaed_journal_open_own()).
	 */
	if (sd_id128_get_boot(&boot_id) == 0)
		sd_id128_to_string(boot_id, boot);
	snprintf(id, sizeof(id), "%s-%d-%llu-%" PRIu64, boot, (int)getpid(), ++n_syncs,
		 now_usec());
	/*
	 * journald reads its socket in order: once this entry is in the journal, so is
	 * every entry sent before it, by an earlier instance that was killed too.  At the
	 * priority of uaeventd's own routine entries: journald.conf's MaxLevelStore=info, a
	 * common setting, drops debug entries, and a marker never stored is a wait for nothing.
	 */
	r = sd_journal_send("MESSAGE=uaeventd: journal synchronization point",
			    "PRIORITY=%d", LOG_INFO, "SYSLOG_IDENTIFIER=uaeventd",
			    "UAEVENTS_SYNC=%s", id, NULL);
	if (r < 0)
		return r;
	snprintf(match, sizeof(match), "UAEVENTS_SYNC=%s", id);
	r = uaed_journal_open_own(&j, &m, 1);
	if (r < 0)
		return r;
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
	if (r == -ETIMEDOUT) {
		sync_off = true;
		/* Not through uaed_log(): it may wait for this very sync. */
		uaed_log_action(LOG_WARNING, "sync-off",
				"MESSAGE=uaeventd: journald did not store its synchronization "
				"point (an info entry) within %" PRIu64 " ms; it no longer waits for "
				"one: journald may drop its info entries (MaxLevelStore= in "
				"journald.conf), a killed instance's last entries may be logged "
				"again, and its jobs' entries may lack _SYSTEMD_UNIT",
				timeout_usec / 1000);
	}
	return r < 0 ? r : 0;
}

bool uaed_journal_field(sd_journal *j, const char *field, char *buf, size_t size)
{
	size_t len, skip = strlen(field) + 1;
	const void *data;

	if (sd_journal_get_data(j, field, &data, &len) < 0 || len < skip || len - skip >= size)
		return false;
	memcpy(buf, (const char *)data + skip, len - skip);
	buf[len - skip] = '\0';
	return true;
}

static bool field_u64(sd_journal *j, const char *field, uint64_t *v)
{
	char buf[32];

	if (!uaed_journal_field(j, field, buf, sizeof(buf)) || !buf[0])
		return false;
	*v = strtoull(buf, NULL, 10);
	return true;
}

struct range {
	uint64_t first, last;
};

static int by_first(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

int uaed_journal_open_own(sd_journal **ret, const char *const *matches, size_t n)
{
	char uid[32];
	sd_journal *j;
	int r;

	r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r >= 0; i++)
		r = sd_journal_add_match(j, matches[i], 0);
	if (r >= 0)
		r = sd_journal_add_match(j, "SYSLOG_IDENTIFIER=uaeventd", 0);
	/*
	 * Any local user can log uaeventd's fields (UAEVENTS_SEQ=<huge> under the public
	 * instance id); only journald's own fields are trusted.  _UID comes from the socket's
	 * credentials, so it is there even for the last entries of an instance that was killed
	 * (_SYSTEMD_UNIT is read from /proc and may be missing for those).
	 */
	snprintf(uid, sizeof(uid), "_UID=%u", (unsigned int)getuid());
	if (r >= 0)
		r = sd_journal_add_match(j, uid, 0);
	/* Without every match, other users' entries would count: none is used. */
	if (r < 0) {
		sd_journal_close(j);
		return r;
	}
	*ret = j;
	return 0;
}

/*
 * The journal, at the entries uaeventd logged of the events of module instance
 * @instance; 0, or -errno (said) when it cannot be searched.
 */
static int open_own_entries(sd_journal **ret, uint64_t instance)
{
	char match[64];
	const char *m = match;
	int r;

	snprintf(match, sizeof(match), "UAEVENTS_INSTANCE=%016" PRIx64, instance);
	r = uaed_journal_open_own(ret, &m, 1);
	if (r < 0)
		return uaed_log_errno(LOG_ERR, r, "uaeventd: cannot search the journal: %m");
	return 0;
}

/* Entries read back for it: an action's entry may name an earlier event than the last. */
#define NEWEST_WALK 10000

int uaed_journal_newest_logged(uint64_t instance, uint64_t *newest_ret)
{
	unsigned int read = 0;
	uint64_t newest = 0;
	sd_journal *j;
	int r;

	r = open_own_entries(&j, instance);
	if (r < 0)
		return r;
	SD_JOURNAL_FOREACH_BACKWARDS(j) {
		uint64_t seq, gap = 0;

		if (++read > NEWEST_WALK)
			break;
		if (!field_u64(j, "UAEVENTS_SEQ", &seq))
			continue;
		field_u64(j, "UAEVENTS_GAP", &gap);
		if (seq + (gap ? gap : 1) - 1 > newest)
			newest = seq + (gap ? gap : 1) - 1;
	}
	sd_journal_close(j);
	if (!newest)
		return -ENODATA;
	*newest_ret = newest;
	return 0;
}

uint64_t uaed_journal_logged_through(uint64_t instance, uint64_t from)
{
	struct range *ranges = NULL;
	size_t n = 0, cap = 0;
	uint64_t through = from;
	sd_journal *j;

	if (open_own_entries(&j, instance) < 0)
		return from;
	/*
	 * Not the newest entry's number: an event that could not be logged (journald away)
	 * leaves a hole below later ones, and the state stayed before it.  A gap entry covers
	 * the events it reports as lost.  From the newest back to the first at or below
	 * @from: every entry after it was logged by a replay from @from or later, so the walk
	 * costs what was logged since the state was written, not the instance's whole life.
	 */
	SD_JOURNAL_FOREACH_BACKWARDS(j) {
		uint64_t seq, gap = 0;

		if (!field_u64(j, "UAEVENTS_SEQ", &seq))
			continue;
		field_u64(j, "UAEVENTS_GAP", &gap);
		if (seq + (gap ? gap : 1) - 1 <= from)
			break;
		if (n == cap) {
			struct range *more = reallocarray(ranges, cap ? cap * 2 : 256,
							  sizeof(*ranges));

			if (!more)
				break;
			ranges = more;
			cap = cap ? cap * 2 : 256;
		}
		ranges[n].first = seq;
		ranges[n++].last = seq + (gap ? gap : 1) - 1;
	}
	sd_journal_close(j);
	qsort(ranges, n, sizeof(*ranges), by_first);
	for (size_t i = 0; i < n && ranges[i].first <= through + 1; i++)
		if (ranges[i].last > through)
			through = ranges[i].last;
	free(ranges);
	return through;
}
