// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <systemd/sd-journal.h>

#include "floods.h"
#include "log.h"

/* Windows open at once, and LUs named per window; beyond them events are logged as usual. */
#define WINDOWS 64
#define LUS 4096

static const struct {
	const char *event, *what;
} conditions[] = {
	{ "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED", "thin provisioning soft threshold reached" },
	{ "SPACE_ALLOCATION_FAILED_WRITE_PROTECT", "space allocation failed (write protect)" },
};

struct window {
	struct uaed_floods *f;
	bool used;
	char target[48];	/* "H:C:T" */
	int condition;
	int priority;
	unsigned int n, size, occurrences;
	char (*hctl)[32];
	char (*wwid)[128];
	uint64_t *hooked;	/* per LU, the hooks that took its alert in this window */
	sd_event_source *timer;
};

struct uaed_floods {
	sd_event *loop;
	struct window w[WINDOWS];
};

static int condition_of(const char *event)
{
	for (size_t i = 0; i < sizeof(conditions) / sizeof(conditions[0]); i++)
		if (!strcmp(conditions[i].event, event))
			return (int)i;
	return -1;
}

bool uaed_floods_covers(const char *event)
{
	return condition_of(event) >= 0;
}

static void close_window(struct window *w)
{
	w->timer = sd_event_source_disable_unref(w->timer);
	free(w->hctl);
	free(w->wwid);
	free(w->hooked);
	w->hctl = NULL;
	w->wwid = NULL;
	w->hooked = NULL;
	w->used = false;
}

/* A list of the window's names, space-separated, in a buffer to free. */
static char *joined(const struct window *w, bool wwids)
{
	size_t size = (size_t)w->n * (wwids ? 129 : 33) + 1, len = 0;
	char *s = malloc(size);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (unsigned int i = 0; i < w->n; i++)
		len += snprintf(s + len, size - len, "%s%s", i ? " " : "",
				wwids ? w->wwid[i] : w->hctl[i]);
	return s;
}

static int on_window_end(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct window *w = userdata;
	char *hctls, *wwids;

	/* One LU alone was said by its own alert. */
	if (w->n < 2) {
		close_window(w);
		return 0;
	}
	hctls = joined(w, false);
	wwids = joined(w, true);
	uaed_log_action(w->priority, "flood-summary",
			"MESSAGE=%s on %u LUNs of target %s within %d s (%u events)",
			conditions[w->condition].what, w->n, w->target, UAED_FLOOD_WINDOW_S,
			w->occurrences, "UAEVENTS_EVENT=%s", conditions[w->condition].event,
			"UAEVENTS_TARGET=%s", w->target, "UAEVENTS_LUNS=%u", w->n,
			"UAEVENTS_OCCURRENCES=%u", w->occurrences, "UAEVENTS_HCTLS=%s",
			hctls ? hctls : "", "UAEVENTS_WWIDS=%s", wwids ? wwids : "");
	free(hctls);
	free(wwids);
	close_window(w);
	return 0;
}

static struct window *open_window(struct uaed_floods *f, const char *target, int condition,
				  int priority)
{
	for (int i = 0; i < WINDOWS; i++) {
		struct window *w = &f->w[i];
		int r;

		if (w->used)
			continue;
		memset(w, 0, sizeof(*w));
		w->f = f;
		r = sd_event_add_time_relative(f->loop, &w->timer, CLOCK_MONOTONIC,
						       UAED_FLOOD_WINDOW_S * 1000000ULL, 0,
						       on_window_end, w);
		if (r < 0) {
			uaed_log_errno(LOG_WARNING, r, "uaeventd: cannot summarize %s on target "
				       "%s: %m; each event is logged as an alert",
				       conditions[condition].event, target);
			close_window(w);
			return NULL;
		}
		w->used = true;
		snprintf(w->target, sizeof(w->target), "%s", target);
		w->condition = condition;
		w->priority = priority;
		return w;
	}
	return NULL;
}

bool uaed_floods_note(struct uaed_floods *f, const char *event, const char *hctl,
		      const char *wwid, int priority)
{
	int condition = condition_of(event);
	struct window *w = NULL;
	char target[48];
	char *colon;

	if (!f || condition < 0)
		return true;
	snprintf(target, sizeof(target), "%s", hctl);
	colon = strrchr(target, ':');
	if (!colon)
		return true;
	*colon = '\0';
	for (int i = 0; i < WINDOWS && !w; i++)
		if (f->w[i].used && f->w[i].condition == condition &&
		    !strcmp(f->w[i].target, target))
			w = &f->w[i];
	if (!w)
		w = open_window(f, target, condition, priority);
	if (!w)
		return true;
	w->occurrences++;
	for (unsigned int i = 0; i < w->n; i++) {
		if (strcmp(w->hctl[i], hctl))
			continue;
		/*
		 * The same address, another volume (a LUN reused, a device removed and added):
		 * a first of its own, which no hook has alerted for yet.
		 */
		if (wwid && wwid[0] && w->wwid[i][0] && strcmp(w->wwid[i], wwid)) {
			snprintf(w->wwid[i], sizeof(w->wwid[0]), "%s", wwid);
			w->hooked[i] = 0;
			return true;
		}
		return false;
	}
	if (w->n == w->size && w->size < LUS) {
		unsigned int size = w->size ? 2 * w->size : 16;
		void *h = realloc(w->hctl, size * sizeof(*w->hctl));

		if (h)
			w->hctl = h;
		h = h ? realloc(w->wwid, size * sizeof(*w->wwid)) : NULL;
		if (h)
			w->wwid = h;
		h = h ? realloc(w->hooked, size * sizeof(*w->hooked)) : NULL;
		if (h) {
			w->hooked = h;
			w->size = size;
		}
	}
	if (w->n < w->size) {
		snprintf(w->hctl[w->n], sizeof(w->hctl[0]), "%s", hctl);
		snprintf(w->wwid[w->n], sizeof(w->wwid[0]), "%s", wwid ? wwid : "");
		w->hooked[w->n] = 0;
		w->n++;
	}
	return true;
}

/* Where the window of @event's target keeps LU @hctl's hooks; NULL: not followed. */
static uint64_t *hooked_of(struct uaed_floods *f, const char *event, const char *hctl)
{
	int condition = condition_of(event);
	const char *colon = strrchr(hctl, ':');

	if (!f || condition < 0 || !colon)
		return NULL;
	for (int i = 0; i < WINDOWS; i++) {
		struct window *w = &f->w[i];

		if (!w->used || w->condition != condition ||
		    strncmp(w->target, hctl, (size_t)(colon - hctl)) ||
		    w->target[colon - hctl] != '\0')
			continue;
		for (unsigned int j = 0; j < w->n; j++)
			if (!strcmp(w->hctl[j], hctl))
				return &w->hooked[j];
		return NULL;
	}
	return NULL;
}

uint64_t uaed_floods_hooked(struct uaed_floods *f, const char *event, const char *hctl)
{
	uint64_t *hooked = hooked_of(f, event, hctl);

	return hooked ? *hooked : 0;
}

void uaed_floods_add_hooked(struct uaed_floods *f, const char *event, const char *hctl,
			    uint64_t hooks)
{
	uint64_t *hooked = hooked_of(f, event, hctl);

	if (hooked)
		*hooked |= hooks;
}

void uaed_floods_forget_hooks(struct uaed_floods *f)
{
	for (int i = 0; f && i < WINDOWS; i++)
		for (unsigned int j = 0; f->w[i].used && j < f->w[i].n; j++)
			f->w[i].hooked[j] = 0;
}

int uaed_floods_new(struct uaed_floods **ret, sd_event *loop)
{
	struct uaed_floods *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->loop = sd_event_ref(loop);
	*ret = f;
	return 0;
}

struct uaed_floods *uaed_floods_free(struct uaed_floods *f)
{
	if (!f)
		return NULL;
	/* Said before the daemon goes, not lost with it. */
	for (int i = 0; i < WINDOWS; i++)
		if (f->w[i].used)
			on_window_end(NULL, 0, &f->w[i]);
	sd_event_unref(f->loop);
	free(f);
	return NULL;
}
