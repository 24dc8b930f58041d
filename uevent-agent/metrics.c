// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: Prometheus metrics (see metrics.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "log.h"
#include "metrics.h"
#include "state.h"

/*
 * Distinct (host, kind, category, event) series of SCSI events and (controller, kind,
 * event) series of NVMe ones; beyond them, one "other" count.
 */
#define MAX_SERIES 1024
/* LUs whose last thin-provisioning event time is kept. */
#define MAX_LAST 4096
/* Journal entries read at start for those times. */
#define MAX_SEED 100000
#define MAX_JOBS 16
#define SOON_USEC 1000000ULL
#define HEARTBEAT_USEC 60000000ULL

struct series {
	unsigned int host;
	char nvme_ctrl[32];	/* an NVMe event's series: "nvme0"; "" for SCSI's */
	char kind[16], category[16], name[64];
	uint64_t n;
};

/* The time of the last event that says a thin pool runs low or out, per LU. */
struct last {
	char name[64], wwid[128];
	double when;		/* seconds since the epoch */
};

struct job {
	char name[32];
	uint64_t ok, failed;
};

struct uaed_metrics {
	char dir[256];
	sd_event_source *timer;
	bool soon;		/* the timer is armed to write a second after a change */
	bool failing;		/* the last write failed: said once */
	struct series *series;
	unsigned int n_series;
	uint64_t other;		/* occurrences of series beyond MAX_SERIES */
	uint64_t lost, gaps;	/* events lost, and the gap events that said so */
	struct last *last;
	unsigned int n_last;
	struct job jobs[MAX_JOBS];
	unsigned int n_jobs;
	double started;
};

static double now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A label value as the text format wants it: backslash and quote escaped.  A WWID is the
 * device's to choose: a byte that is not printable ASCII (a newline, or invalid UTF-8,
 * which would make node_exporter drop the whole file) is written as '?'.
 */
static void label(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v < 0x20 || *v > 0x7e)
			fputc('?', f);
		else
			fputc(*v, f);
	}
}

/* A sample's name and labels, up to its value: NAME{K1="V1",K2="V2"}, kv's values escaped. */
static void sample(FILE *f, const char *name, const char *const *kv, size_t n)
{
	fputs(name, f);
	for (size_t i = 0; i + 1 < n; i += 2) {
		fprintf(f, "%s%s=\"", i ? "," : "{", kv[i]);
		label(f, kv[i + 1]);
		fputc('"', f);
	}
	fputs("} ", f);
}

/* SAMPLE(f, NAME, K1, V1, K2, V2...): sample() with the pairs counted for it. */
#define SAMPLE(f, name, ...)                                                   \
	sample(f, name, (const char *const[]){ __VA_ARGS__ },                  \
	       sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))

static void header(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void counter(FILE *f, const char *name, const char *help, uint64_t value)
{
	header(f, name, "counter", help);
	fprintf(f, "%s %" PRIu64 "\n", name, value);
}

static void gauge(FILE *f, const char *name, const char *help, double value)
{
	header(f, name, "gauge", help);
	fprintf(f, "%s %.3f\n", name, value);
}

static void print(struct uaed_metrics *m, FILE *f)
{
	header(f, "uaevents_events_total", "counter", "SCSI events uaeventd received, by SCSI "
	       "host, kind, category and event; each occurrence of a coalesced storm counted.");
	for (unsigned int i = 0; i < m->n_series; i++) {
		const struct series *s = &m->series[i];
		char host[12];

		if (s->nvme_ctrl[0])
			continue;
		snprintf(host, sizeof(host), "%u", s->host);
		SAMPLE(f, "uaevents_events_total", "host", host, "kind", s->kind,
		       "category", s->category, "event", s->name);
		fprintf(f, "%" PRIu64 "\n", s->n);
	}
	header(f, "uaevents_nvme_events_total", "counter", "NVMe events uaeventd received, by "
	       "controller, kind and event; each occurrence of a coalesced storm counted.");
	for (unsigned int i = 0; i < m->n_series; i++) {
		const struct series *s = &m->series[i];

		if (!s->nvme_ctrl[0])
			continue;
		SAMPLE(f, "uaevents_nvme_events_total", "controller", s->nvme_ctrl,
		       "kind", s->kind, "event", s->name);
		fprintf(f, "%" PRIu64 "\n", s->n);
	}
	counter(f, "uaevents_events_untracked_total", "Occurrences of events beyond the series "
		"uaeventd keeps.", m->other);
	counter(f, "uaevents_events_lost_total", "Events the kernel reported lost to uaeventd "
		"(gaps no replay could fill).", m->lost);
	counter(f, "uaevents_gaps_total", "Gaps in the sequence numbers no replay could fill, "
		"each a run of lost events.", m->gaps);
	header(f, "uaevents_jobs_total", "counter", "Rescan jobs uaeventd ran, by job and result.");
	for (unsigned int i = 0; i < m->n_jobs; i++) {
		SAMPLE(f, "uaevents_jobs_total", "job", m->jobs[i].name, "result", "ok");
		fprintf(f, "%" PRIu64 "\n", m->jobs[i].ok);
		SAMPLE(f, "uaevents_jobs_total", "job", m->jobs[i].name, "result", "failed");
		fprintf(f, "%" PRIu64 "\n", m->jobs[i].failed);
	}
	header(f, "uaevents_last_event_timestamp_seconds", "gauge", "When an LU last reported "
	       "that its thin pool runs low (soft threshold) or out (space allocation failed).");
	for (unsigned int i = 0; i < m->n_last; i++) {
		SAMPLE(f, "uaevents_last_event_timestamp_seconds", "event", m->last[i].name,
		       "wwid", m->last[i].wwid);
		fprintf(f, "%.3f\n", m->last[i].when);
	}
	gauge(f, "uaeventd_start_time_seconds", "When uaeventd started (its counters with it).",
	      m->started);
	gauge(f, "uaeventd_metrics_timestamp_seconds", "When uaeventd wrote this file: it does "
	      "every minute while it runs.", now_real());
}

/* Beside the file, under a name the collector skips (it reads *.prom), then renamed. */
static int write_file(struct uaed_metrics *m)
{
	char tmp[sizeof(m->dir) + 32], path[sizeof(m->dir) + 32];
	int fd, r = 0;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/.uaevents.prom.XXXXXX", m->dir);
	snprintf(path, sizeof(path), "%s/uaevents.prom", m->dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		unlink(tmp);
		return r;
	}
	/* node_exporter runs as its own user: the file must be readable by others. */
	if (fchmod(fd, 0644) < 0)
		r = -errno;
	print(m, f);
	if (ferror(f) && !r)
		r = -EIO;
	if (fclose(f) && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

static void write_now(struct uaed_metrics *m)
{
	int r = write_file(m);

	if (r < 0 && !m->failing)
		uaed_log_errno(LOG_ERR, r, "uaeventd: cannot write its metrics to %s: %m; trying "
			       "again every minute", m->dir);
	else if (r == 0 && m->failing)
		uaed_log(LOG_INFO, "uaeventd: metrics written to %s again", m->dir);
	m->failing = r < 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct uaed_metrics *m = userdata;

	write_now(m);
	m->soon = false;
	sd_event_source_set_time_relative(s, HEARTBEAT_USEC);
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

static void changed(struct uaed_metrics *m)
{
	if (m->soon || !m->timer)
		return;
	/* A storm is one write a second, not one per event. */
	sd_event_source_set_time_relative(m->timer, SOON_USEC);
	sd_event_source_set_enabled(m->timer, SD_EVENT_ONESHOT);
	m->soon = true;
}

/* Events that say a thin pool is running low or out: their time is kept per LU. */
static const char *const space_events[] = {
	"THIN_PROVISIONING_SOFT_THRESHOLD_REACHED", "SPACE_ALLOCATION_FAILED_WRITE_PROTECT"
};

static bool space_event(const char *name)
{
	for (size_t i = 0; i < sizeof(space_events) / sizeof(space_events[0]); i++)
		if (!strcmp(name, space_events[i]))
			return true;
	return false;
}

/*
 * The LU's last time for @name.  From the journal (@seeding), newest first: only the first
 * one found.  An event now always sets it, even if the clock was set back since.
 */
static void note_last(struct uaed_metrics *m, const char *name, const char *wwid, double when,
		      bool seeding)
{
	struct last *x = NULL;

	for (unsigned int i = 0; i < m->n_last && !x; i++)
		if (!strcmp(m->last[i].name, name) && !strcmp(m->last[i].wwid, wwid))
			x = &m->last[i];
	if (!x) {
		if (m->n_last == MAX_LAST)
			return;		/* the events are still counted above */
		if (!m->last) {
			m->last = calloc(MAX_LAST, sizeof(*m->last));
			if (!m->last)
				return;
		}
		x = &m->last[m->n_last++];
		snprintf(x->name, sizeof(x->name), "%s", name);
		snprintf(x->wwid, sizeof(x->wwid), "%s", wwid);
	} else if (seeding) {
		return;
	}
	x->when = when;
}

/*
 * The last space events of earlier runs, from the journal: a restart (an upgrade, say) must
 * not make a thin pool that runs low look fine to an alert on these times.  Only uaeventd's
 * own entries count: _UID is journald's, from the socket, which no local user can fake.
 * Newest first, at most MAX_SEED entries, so that a start after months of storms stays
 * quick.
 */
static void seed_last(struct uaed_metrics *m)
{
	char match[sizeof(space_events) / sizeof(space_events[0])][96];
	const char *matches[sizeof(space_events) / sizeof(space_events[0])];
	const size_t n = sizeof(space_events) / sizeof(space_events[0]);
	unsigned int read = 0;
	sd_journal *j;
	int r;

	for (size_t i = 0; i < n; i++) {
		snprintf(match[i], sizeof(match[i]), "UAEVENTS_EVENT=%s", space_events[i]);
		matches[i] = match[i];
	}
	r = uaed_journal_open_own(&j, matches, n);
	if (r < 0) {
		uaed_log_errno(LOG_WARNING, r, "uaeventd: cannot search the journal for earlier "
			       "space events: %m");
		return;
	}
	SD_JOURNAL_FOREACH_BACKWARDS(j) {
		char name[64], wwid[128];
		uint64_t usec;

		if (++read > MAX_SEED)
			break;
		if (uaed_journal_field(j, "UAEVENTS_EVENT", name, sizeof(name)) && space_event(name) &&
		    uaed_journal_field(j, "UAEVENTS_WWID", wwid, sizeof(wwid)) &&
		    sd_journal_get_realtime_usec(j, &usec) >= 0)
			note_last(m, name, wwid, usec / 1e6, true);
	}
	sd_journal_close(j);
}

int uaed_metrics_new(struct uaed_metrics **ret, sd_event *loop, const char *dir)
{
	struct uaed_metrics *m;
	struct stat st;
	int r;

	*ret = NULL;
	if (!dir[0])
		return 0;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		uaed_log_action(LOG_INFO, "metrics-off",
				"MESSAGE=uaeventd: no metrics: %s is not there (install "
				"prometheus-node-exporter, or set [metrics] textfile_directory)",
				dir);
		return 0;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	snprintf(m->dir, sizeof(m->dir), "%s", dir);
	m->started = now_real();
	seed_last(m);
	r = sd_event_add_time_relative(loop, &m->timer, CLOCK_MONOTONIC, 0, 0, on_timer, m);
	if (r < 0) {
		uaed_metrics_free(m);
		return r;
	}
	m->soon = true;		/* the first write, with every series at 0, comes at once */
	*ret = m;
	return 0;
}

struct uaed_metrics *uaed_metrics_free(struct uaed_metrics *m)
{
	if (!m)
		return NULL;
	sd_event_source_disable_unref(m->timer);
	free(m->series);
	free(m->last);
	free(m);
	return NULL;
}

void uaed_metrics_flush(struct uaed_metrics *m)
{
	if (m && m->soon)
		write_now(m);
}

void uaed_metrics_event(struct uaed_metrics *m, const struct uaed_event *e, uint64_t count)
{
	struct series *s = NULL;

	if (!m)
		return;
	for (unsigned int i = 0; i < m->n_series && !s; i++)
		if (m->series[i].host == e->host && !strcmp(m->series[i].nvme_ctrl, e->nvme_ctrl) &&
		    !strcmp(m->series[i].name, e->name) &&
		    !strcmp(m->series[i].kind, e->kind) &&
		    !strcmp(m->series[i].category, e->category))
			s = &m->series[i];
	if (!s && m->n_series < MAX_SERIES) {
		if (!m->series)
			m->series = calloc(MAX_SERIES, sizeof(*m->series));
		if (m->series) {
			s = &m->series[m->n_series++];
			s->host = e->host;
			memcpy(s->nvme_ctrl, e->nvme_ctrl, sizeof(s->nvme_ctrl));
			memcpy(s->kind, e->kind, sizeof(s->kind));
			memcpy(s->category, e->category, sizeof(s->category));
			memcpy(s->name, e->name, sizeof(s->name));
		}
	}
	if (s)
		s->n += count;
	else
		m->other += count;
	if (space_event(e->name))
		note_last(m, e->name, e->wwid, now_real(), false);
	changed(m);
}

void uaed_metrics_lost(struct uaed_metrics *m, uint64_t count)
{
	if (!m)
		return;
	m->lost += count;
	m->gaps++;
	changed(m);
}

void uaed_metrics_job(struct uaed_metrics *m, const char *job, bool failed)
{
	struct job *j = NULL;

	if (!m)
		return;
	for (unsigned int i = 0; i < m->n_jobs && !j; i++)
		if (!strcmp(m->jobs[i].name, job))
			j = &m->jobs[i];
	if (!j && m->n_jobs < MAX_JOBS) {
		j = &m->jobs[m->n_jobs++];
		snprintf(j->name, sizeof(j->name), "%s", job);
	}
	if (!j)
		return;
	if (failed)
		j->failed++;
	else
		j->ok++;
	changed(m);
}
