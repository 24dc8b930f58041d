// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: owed work to and from JSON.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <inttypes.h>

#include <systemd/sd-id128.h>

#include "hooks.h"
#include "nvme-health.h"
#include "owed.h"

static int add_str(struct json_object *o, const char *key, const char *value)
{
	struct json_object *v = json_object_new_string(value);

	if (!v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static int add_u64(struct json_object *o, const char *key, uint64_t value)
{
	struct json_object *v = json_object_new_uint64(value);

	if (!v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

struct json_object *uaed_owed_job(const char *job, unsigned int reports,
				  const struct uaed_event *e)
{
	struct json_object *o = json_object_new_object(), *ev = json_object_new_object();
	int r = o && ev ? 0 : -ENOMEM;

	r = r ?: add_str(ev, "kind", e->kind);
	r = r ?: add_str(ev, "name", e->name);
	r = r ?: add_str(ev, "category", e->category);
	r = r ?: add_u64(ev, "host", e->host);
	r = r ?: add_u64(ev, "channel", e->channel);
	r = r ?: add_u64(ev, "target", e->target);
	r = r ?: add_u64(ev, "lun", e->lun);
	r = r ?: add_str(ev, "hctl", e->hctl);
	r = r ?: add_str(ev, "devname", e->devname);
	r = r ?: add_str(ev, "wwid", e->wwid);
	if (e->nvme_ctrl[0])
		r = r ?: add_str(ev, "nvme_ctrl", e->nvme_ctrl);
	r = r ?: add_str(o, "job", job);
	r = r ?: add_u64(o, "reports", reports);
	if (r == 0 && json_object_object_add(o, "event", ev) == 0)
		return o;
	json_object_put(ev);
	json_object_put(o);
	return NULL;
}

/* A string member that fits @size; false if missing, not a string, or too long. */
static bool get_str(struct json_object *o, const char *key, char *buf, size_t size)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string) ||
	    (size_t)json_object_get_string_len(v) >= size)
		return false;
	memcpy(buf, json_object_get_string(v), json_object_get_string_len(v) + 1);
	return strlen(buf) == (size_t)json_object_get_string_len(v);
}

static bool get_u64(struct json_object *o, const char *key, uint64_t max, uint64_t *value)
{
	struct json_object *v;

	/* json-c keeps a negative number as int64: json_object_get_uint64() would give 0. */
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0)
		return false;
	*value = json_object_get_uint64(v);
	return *value <= max;
}

int uaed_owed_job_parse(struct json_object *o, const char **job, unsigned int *reports,
			struct uaed_event *e)
{
	struct json_object *j, *ev;
	uint64_t host, channel, target, n = 1;
	char hctl[sizeof(e->hctl)];

	memset(e, 0, sizeof(*e));
	if (!json_object_object_get_ex(o, "job", &j) || !json_object_is_type(j, json_type_string) ||
	    !json_object_object_get_ex(o, "event", &ev) ||
	    !json_object_is_type(ev, json_type_object))
		return -EINVAL;
	if (!get_str(ev, "kind", e->kind, sizeof(e->kind)) ||
	    !get_str(ev, "name", e->name, sizeof(e->name)) ||
	    !get_str(ev, "category", e->category, sizeof(e->category)) ||
	    !get_u64(ev, "host", UINT32_MAX, &host) ||
	    !get_u64(ev, "channel", UINT32_MAX, &channel) ||
	    !get_u64(ev, "target", UINT32_MAX, &target) ||
	    !get_u64(ev, "lun", UINT64_MAX, &e->lun) ||
	    !get_str(ev, "hctl", e->hctl, sizeof(e->hctl)) ||
	    !get_str(ev, "devname", e->devname, sizeof(e->devname)) ||
	    !get_str(ev, "wwid", e->wwid, sizeof(e->wwid)))
		return -EINVAL;
	if (json_object_object_get_ex(o, "reports", NULL) && !get_u64(o, "reports", UINT32_MAX, &n))
		return -EINVAL;
	/* An NVMe controller's ("nvme0"): it has no SCSI address, and its name is a path. */
	if (json_object_object_get_ex(ev, "nvme_ctrl", NULL)) {
		if (!get_str(ev, "nvme_ctrl", e->nvme_ctrl, sizeof(e->nvme_ctrl)) ||
		    !uae_nvme_controller_name_valid(e->nvme_ctrl) || e->hctl[0] ||
		    strchr(e->devname, '/') ||
		    strcmp(json_object_get_string(j), "nvme-health"))
			return -EINVAL;
		*reports = n;
		*job = json_object_get_string(j);
		return 0;
	}
	e->host = host;
	e->channel = channel;
	e->target = target;
	/* Its address is the one its numbers give, its disk a name: both go into sysfs paths. */
	snprintf(hctl, sizeof(hctl), "%u:%u:%u:%" PRIu64, e->host, e->channel, e->target, e->lun);
	if (strcmp(hctl, e->hctl) || strchr(e->devname, '/') || !strcmp(e->devname, "..") ||
	    !strcmp(e->devname, "."))
		return -EINVAL;
	*reports = n;
	*job = json_object_get_string(j);
	return 0;
}

struct json_object *uaed_owed_hook(const char *name, char *const *envp)
{
	struct json_object *o = json_object_new_object(), *env = json_object_new_array();
	int r = o && env ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && envp[i]; i++) {
		struct json_object *v = json_object_new_string(envp[i]);

		if (!v || json_object_array_add(env, v) < 0) {
			json_object_put(v);
			r = -ENOMEM;
		}
	}
	r = r ?: add_str(o, "hook", name);
	if (r == 0 && json_object_object_add(o, "env", env) == 0)
		return o;
	json_object_put(env);
	json_object_put(o);
	return NULL;
}

/*
 * What a hook's environment holds (hooks.c): PATH as uaeventd sets it, and UAEVENTS_*
 * variables whose values are as uaed_sanitize() leaves them (printable, no shell's
 * characters).  Nothing else (LD_PRELOAD=, BASH_ENV=...) reaches a hook from the file.
 */
static bool env_string(const char *s)
{
	const char *eq = strchr(s, '=');
	char clean[256];

	if (!strcmp(s, UAED_HOOK_PATH))
		return true;
	if (!eq || strncmp(s, "UAEVENTS_", 9) || eq - s == 9)
		return false;
	for (const char *c = s; c < eq; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	uaed_sanitize(eq + 1, clean, sizeof(clean));
	return !strcmp(clean, eq + 1);
}

int uaed_owed_hook_parse(struct json_object *o, const char **name, char **envp, size_t max)
{
	struct json_object *h, *env;
	size_t n;

	envp[0] = NULL;
	if (!json_object_object_get_ex(o, "hook", &h) || !json_object_is_type(h, json_type_string) ||
	    !json_object_object_get_ex(o, "env", &env) ||
	    !json_object_is_type(env, json_type_array))
		return -EINVAL;
	n = json_object_array_length(env);
	if (n > max)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(env, i);
		const char *s = json_object_get_string(v);

		if (!json_object_is_type(v, json_type_string) || !env_string(s) ||
		    !(envp[i] = strdup(s))) {
			while (i--)
				free(envp[i]);
			envp[0] = NULL;
			return -EINVAL;
		}
		envp[i + 1] = NULL;
	}
	*name = json_object_get_string(h);
	return 0;
}

int uaed_owed_meta(struct json_object *owed, const struct uaed_state *acted)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_object();
	char boot[SD_ID128_STRING_MAX], instance[17];
	sd_id128_t id;
	int r = o && a ? 0 : -ENOMEM;

	r = r ?: sd_id128_get_boot(&id);
	snprintf(instance, sizeof(instance), "%016" PRIx64, acted->instance);
	r = r ?: add_str(a, "instance", instance);
	r = r ?: add_u64(a, "seq", acted->seq);
	r = r ?: add_str(o, "boot", r ? "" : sd_id128_to_string(id, boot));
	if (r == 0 && json_object_object_add(o, "acted", a) == 0) {
		a = NULL;
		if (json_object_array_add(owed, o) == 0)
			return 0;
		r = -ENOMEM;
	}
	json_object_put(a);
	json_object_put(o);
	return r < 0 ? r : -ENOMEM;
}

int uaed_owed_meta_parse(struct json_object *o, struct uaed_state *acted)
{
	char boot[SD_ID128_STRING_MAX], now[SD_ID128_STRING_MAX], instance[17], *end;
	struct json_object *a;
	sd_id128_t id;
	uint64_t seq;

	if (!get_str(o, "boot", boot, sizeof(boot)) ||
	    !json_object_object_get_ex(o, "acted", &a) ||
	    !get_str(a, "instance", instance, sizeof(instance)) ||
	    !get_u64(a, "seq", UINT64_MAX, &seq))
		return -EINVAL;
	if (sd_id128_get_boot(&id) < 0 || strcmp(boot, sd_id128_to_string(id, now)))
		return -ESTALE;
	errno = 0;
	acted->instance = strtoull(instance, &end, 16);
	if (errno || *end || !instance[0])
		return -EINVAL;
	acted->seq = seq;
	return 0;
}
