/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uaeventd's configuration: /etc/uaevents/uaeventd.conf, see uaeventd.conf. */
#ifndef UAED_CONFIG_H
#define UAED_CONFIG_H

#include <stdbool.h>

#define UAED_MAX_ALLOW 32

struct uaed_config {
	char state_file[256];
	/*
	 * Events made by UAEVENTS_CMD_INJECT are logged, flagged; rescans, stale LUN removal
	 * and hooks act on them only when this is set (for tests).
	 */
	bool act_on_injected;
	/* [rescan] */
	bool rescan;			/* false: observe only, log and run hooks */
	unsigned int debounce_ms;	/* one target scan per target per window */
	char allow[UAED_MAX_ALLOW][32];	/* "H" or "H:C:T" entries; none: every target */
	unsigned int n_allow;
	char resize_command[256];	/* after a capacity rescan, once per WWID; "" none */
	bool remove_stale;		/* delete LUNs the target no longer reports */
	unsigned int rescan_timeout_s;	/* a scan or rescan job, resize command included */
	/* A LUN removed on this host by someone else is not scanned back for this long. */
	unsigned int removal_grace_s;
	/* Every this many seconds one TEST UNIT READY to each idle LU; 0: never. */
	unsigned int reconcile_s;
	/* [hooks] */
	char hooks_dir[256];
	unsigned int hook_timeout_s;
	unsigned int max_hooks;
	char mail_to[256];		/* hooks' UAEVENTS_MAILTO; "" none */
	/* [metrics] node_exporter's textfile collector directory; "" none (at start only) */
	char metrics_dir[256];
};

/* Defaults, then @path if it exists.  -errno, with a message on stderr, if it is bad. */
int uaed_config_load(struct uaed_config *cfg, const char *path);

/* Whether rescans may touch this target under the allow-list. */
bool uaed_config_allows(const struct uaed_config *cfg, unsigned int host, unsigned int channel,
			unsigned int target);

#endif /* UAED_CONFIG_H */
