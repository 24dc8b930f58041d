// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents: filters on events, applied before an event is handed out.  Like udev's
 * matches: values of one key are alternatives, different keys must all match.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uae_private.h"

static const char *const filter_keys[] = {
	"kind", "event", "category", "severity", "locus", "failover", "device", "wwid", "hctl",
	"transport", "controller",
};

static const char *field(const struct uae_event *ev, const char *key, char *buf, size_t size)
{
	if (!strcmp(key, "kind"))
		return uae_event_get_kind_name(ev);
	if (!strcmp(key, "event"))
		return uae_event_get_name(ev);
	if (!strcmp(key, "category"))
		return uae_event_get_category(ev);
	if (!strcmp(key, "severity"))
		return ev->has_class ? uae_event_get_severity(ev) : NULL;
	if (!strcmp(key, "locus"))
		return ev->has_class ? uae_event_get_locus(ev) : NULL;
	if (!strcmp(key, "failover")) {
		if (!ev->has_class)
			return NULL;
		snprintf(buf, size, "%s", ev->failover ? "yes" : "no");
		return buf;
	}
	if (!strcmp(key, "device"))
		return uae_event_get_devname(ev);
	if (!strcmp(key, "wwid"))
		return uae_event_get_wwid(ev);
	if (!strcmp(key, "hctl"))
		return uae_event_get_hctl(ev);
	if (!strcmp(key, "transport"))
		return uae_event_get_transport(ev);
	if (!strcmp(key, "controller"))
		return uae_event_get_nvme_controller(ev);
	return NULL;
}

int uae_filter_add(struct uae_filter *f, const char *key, const char *value)
{
	struct uae_match *m;
	bool known = false;

	if (!key || !value || !*value)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(filter_keys) / sizeof(filter_keys[0]); i++)
		known |= !strcmp(key, filter_keys[i]);
	if (!known)
		return -EINVAL;
	m = realloc(f->matches, (f->n + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	f->matches = m;
	m[f->n].key = strdup(key);
	m[f->n].value = strdup(value);
	if (!m[f->n].key || !m[f->n].value) {
		free(m[f->n].key);
		free(m[f->n].value);
		return -ENOMEM;
	}
	f->n++;
	return 0;
}

void uae_filter_clear(struct uae_filter *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->matches[i].key);
		free(f->matches[i].value);
	}
	free(f->matches);
	f->matches = NULL;
	f->n = 0;
}

bool uae_filter_matches(const struct uae_filter *f, const struct uae_event *ev)
{
	for (size_t i = 0; i < f->n; i++) {
		const char *key = f->matches[i].key;
		bool any = false;
		char buf[8];

		/* Decide each key once, at its first match entry. */
		for (size_t j = 0; j < i; j++)
			if (!strcmp(f->matches[j].key, key))
				goto next;
		for (size_t j = i; j < f->n && !any; j++) {
			const char *v;

			if (strcmp(f->matches[j].key, key))
				continue;
			v = field(ev, key, buf, sizeof(buf));
			any = v && !strcmp(v, f->matches[j].value);
		}
		if (!any)
			return false;
next:;
	}
	return true;
}

/* Whether events of @kind can pass at all: so that a monitor joins only useful groups. */
bool uae_filter_wants_kind(const struct uae_filter *f, const char *kind)
{
	bool has_kind = false;

	for (size_t i = 0; i < f->n; i++) {
		if (strcmp(f->matches[i].key, "kind"))
			continue;
		has_kind = true;
		if (!strcmp(f->matches[i].value, kind))
			return true;
	}
	return !has_kind;
}
