// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: its configuration file, an INI file parsed by libinih.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "config.h"

static void set_defaults(struct uaed_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->state_file, sizeof(cfg->state_file), "/var/lib/uaevents/state");
	cfg->rescan = true;
	cfg->debounce_ms = 2000;
	snprintf(cfg->hooks_dir, sizeof(cfg->hooks_dir), "/etc/uaevents/hooks.d");
	cfg->hook_timeout_s = 30;
	cfg->rescan_timeout_s = 300;
	cfg->removal_grace_s = 600;
	cfg->max_hooks = 4;
	/* Debian's prometheus-node-exporter reads this one (its --collector.textfile.directory). */
	snprintf(cfg->metrics_dir, sizeof(cfg->metrics_dir), "/var/lib/prometheus/node-exporter");
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return -1;
	return 0;
}

static int parse_uint(const char *v, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || end == v || n > max)
		return -1;
	*out = (unsigned int)n;
	return 0;
}

static int copy_str(const char *v, char *dst, size_t size)
{
	if (strlen(v) >= size)
		return -1;
	strcpy(dst, v);
	return 0;
}

/*
 * "mail_to = storage@example.com, root": mail recipients for hooks, which hand them to
 * mail(1) as arguments.  Address characters only, and no word that reads as an option.
 */
static int parse_mail_to(const char *v, char *dst, size_t size)
{
	if (copy_str(v, dst, size) < 0 || v[strspn(v, "abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@._+-=, ")] != '\0')
		return -1;
	for (const char *p = v; *p; p++)
		if (*p == '-' && (p == v || p[-1] == ',' || p[-1] == ' '))
			return -1;
	return 0;
}

/* "allow = 2 3:0:1": hosts, or H:C:T targets, separated by spaces. */
static int parse_allow(const char *v, struct uaed_config *cfg)
{
	char buf[1024], *tok, *save;
	unsigned int a, b, c;
	char tail;

	if (copy_str(v, buf, sizeof(buf)) < 0)
		return -1;
	for (tok = strtok_r(buf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
		/*
		 * Digits and colons only (sscanf alone takes "+2" and "-1"), stored as sysfs
		 * spells it ("02" is "2"): compared by string, and named in the hand-off.
		 */
		if (cfg->n_allow == UAED_MAX_ALLOW || strspn(tok, "0123456789:") != strlen(tok))
			return -1;
		if (sscanf(tok, "%u:%u:%u%c", &a, &b, &c, &tail) == 3)
			snprintf(cfg->allow[cfg->n_allow++], sizeof(cfg->allow[0]), "%u:%u:%u",
				 a, b, c);
		else if (sscanf(tok, "%u%c", &a, &tail) == 1)
			snprintf(cfg->allow[cfg->n_allow++], sizeof(cfg->allow[0]), "%u", a);
		else
			return -1;
	}
	return 0;
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	struct uaed_config *cfg = user;
	int r = -1;

	if (!strcmp(section, "daemon") && !strcmp(name, "state_file"))
		r = copy_str(value, cfg->state_file, sizeof(cfg->state_file));
	else if (!strcmp(section, "daemon") && !strcmp(name, "act_on_injected"))
		r = parse_bool(value, &cfg->act_on_injected);
	else if (!strcmp(section, "rescan") && !strcmp(name, "enabled"))
		r = parse_bool(value, &cfg->rescan);
	else if (!strcmp(section, "rescan") && !strcmp(name, "debounce_ms"))
		r = parse_uint(value, 600000, &cfg->debounce_ms);
	else if (!strcmp(section, "rescan") && !strcmp(name, "allow"))
		r = parse_allow(value, cfg);
	else if (!strcmp(section, "rescan") && !strcmp(name, "stale_luns")) {
		r = !strcmp(value, "log") || !strcmp(value, "remove") ? 0 : -1;
		cfg->remove_stale = !strcmp(value, "remove");
	} else if (!strcmp(section, "rescan") && !strcmp(name, "timeout_s"))
		r = parse_uint(value, 3600, &cfg->rescan_timeout_s);
	else if (!strcmp(section, "rescan") && !strcmp(name, "removal_grace_s"))
		r = parse_uint(value, 86400, &cfg->removal_grace_s);
	else if (!strcmp(section, "rescan") && !strcmp(name, "reconcile_s"))
		r = parse_uint(value, 86400, &cfg->reconcile_s);
	else if (!strcmp(section, "rescan") && !strcmp(name, "resize_command"))
		r = copy_str(value, cfg->resize_command, sizeof(cfg->resize_command));
	else if (!strcmp(section, "hooks") && !strcmp(name, "directory"))
		r = copy_str(value, cfg->hooks_dir, sizeof(cfg->hooks_dir));
	else if (!strcmp(section, "hooks") && !strcmp(name, "timeout_s"))
		r = parse_uint(value, 3600, &cfg->hook_timeout_s);
	else if (!strcmp(section, "hooks") && !strcmp(name, "max_concurrent"))
		r = parse_uint(value, 64, &cfg->max_hooks);
	else if (!strcmp(section, "hooks") && !strcmp(name, "mail_to"))
		r = parse_mail_to(value, cfg->mail_to, sizeof(cfg->mail_to));
	else if (!strcmp(section, "metrics") && !strcmp(name, "textfile_directory"))
		r = copy_str(value, cfg->metrics_dir, sizeof(cfg->metrics_dir));
	if (r < 0)
		fprintf(stderr, "uaeventd: [%s] %s = %s: unknown setting or bad value\n",
			section, name, value);
	return r == 0;	/* inih: nonzero is success */
}

int uaed_config_load(struct uaed_config *cfg, const char *path)
{
	FILE *f;
	int line;

	set_defaults(cfg);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	line = ini_parse_file(f, on_entry, cfg);
	fclose(f);
	if (line != 0) {
		fprintf(stderr, "uaeventd: %s: error on line %d\n", path, line);
		return -EINVAL;
	}
	if (cfg->max_hooks == 0)
		cfg->max_hooks = 1;
	if (cfg->rescan_timeout_s == 0)	/* no job may hold its target for good */
		cfg->rescan_timeout_s = 1;
	return 0;
}

bool uaed_config_allows(const struct uaed_config *cfg, unsigned int host, unsigned int channel,
			unsigned int target)
{
	char hctl[32], h[16];

	if (cfg->n_allow == 0)
		return true;
	snprintf(hctl, sizeof(hctl), "%u:%u:%u", host, channel, target);
	snprintf(h, sizeof(h), "%u", host);
	for (unsigned int i = 0; i < cfg->n_allow; i++)
		if (!strcmp(cfg->allow[i], hctl) || !strcmp(cfg->allow[i], h))
			return true;
	return false;
}
