// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: where each path of an LU stands after ASYMMETRIC ACCESS STATE CHANGED.
 *
 * The unit attention says only that a target port group changed its state.  What an
 * administrator needs is each path's state now.  The kernel's ALUA handler (scsi_dh_alua)
 * asks the array again when it sees the unit attention and shows the answer in sysfs
 * (access_state); this runs after the rescan debounce, by when it has.  A path without
 * the handler is asked with REPORT TARGET PORT GROUPS (libsgutils2), a read-only command
 * that multipathd's prioritizers send all the time.  Each path's group comes from the
 * designators the kernel read at scan time (sysfs vpd_pg83), with no I/O.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <scsi/sg_cmds_extra.h>
#include <scsi/sg_unaligned.h>
#include <systemd/sd-journal.h>

#include "alua.h"
#include "log.h"
#include "paths.h"
#include "stack-fields.h"
#include "stale.h"
#include "sysfs.h"
#include "vpd.h"

struct path {
	struct uaed_lun lu;
	char disk[32];
	int tpg;		/* -1: the page names no target port group */
	char state[32];		/* "" when unknown */
	const char *source;	/* "kernel" (scsi_dh_alua) or "rtpg" */
	bool pref;
};

/* T10's asymmetric access states, named as scsi_dh_alua's access_state names them. */
static const char *state_name(unsigned int s)
{
	switch (s) {
	case 0x0: return "active/optimized";
	case 0x1: return "active/non-optimized";
	case 0x2: return "standby";
	case 0x3: return "unavailable";
	case 0x4: return "lba-dependent";
	case 0xe: return "offline";
	case 0xf: return "transitioning";
	}
	return "reserved";
}

/* The target port group designator (type 5h, associated with the target port) of page 83h. */
static int tpg_of(int dirfd)
{
	uint8_t page[UAED_VPD83_MAX];
	const uint8_t *d = NULL;
	int len = uaed_vpd83_cached(dirfd, page, sizeof(page));

	while (uaed_vpd83_next(page, len, &d, 1, 5) > 0)
		if (d[3] >= 4)
			return sg_get_unaligned_be16(d + 6);
	return -1;
}

/* Without the handler: the state of @p's group, from REPORT TARGET PORT GROUPS. */
static void ask_array(struct path *p)
{
	uint8_t resp[4096];
	int fd = uaed_lu_open_sg(&p->lu), len;

	if (fd < 0)
		return;
	memset(resp, 0, sizeof(resp));
	if (sg_ll_report_tgt_prt_grp2(fd, resp, sizeof(resp), false, false, 0)) {
		close(fd);
		return;
	}
	close(fd);
	len = 4 + (int)sg_get_unaligned_be32(resp);
	if (len > (int)sizeof(resp))
		len = sizeof(resp);
	for (int at = 4; at + 8 <= len; at += 8 + 4 * resp[at + 7]) {
		const uint8_t *g = resp + at;

		if (sg_get_unaligned_be16(g + 2) == p->tpg) {
			snprintf(p->state, sizeof(p->state), "%s", state_name(g[0] & 0xf));
			p->pref = g[0] & 0x80;
			p->source = "rtpg";
			return;
		}
	}
}

static void read_path(struct path *p)
{
	char dh[32], pref[8];

	p->tpg = tpg_of(p->lu.dirfd);
	p->source = "";
	if (!uaed_lu_disk(&p->lu, p->disk, sizeof(p->disk)))
		p->disk[0] = '\0';
	if (uaed_sysfs_readat(p->lu.dirfd, "dh_state", dh, sizeof(dh)) == 0 &&
	    !strcmp(dh, "alua") &&
	    uaed_sysfs_readat(p->lu.dirfd, "access_state", p->state, sizeof(p->state)) == 0) {
		p->source = "kernel";
		p->pref = uaed_sysfs_readat(p->lu.dirfd, "preferred_path", pref, sizeof(pref)) == 0 &&
			  pref[0] == '1';
	} else if (p->tpg >= 0) {
		ask_array(p);
	}
}

/* "sdc (1:0:0:0) standby, tpg 2", after "now" for the path that got the unit attention. */
static void append(char *o, size_t size, size_t *at, const struct path *p, bool now)
{
	char tpg[24] = "", name[128];

	if (*at >= size)
		return;
	if (p->tpg >= 0)
		snprintf(tpg, sizeof(tpg), ", tpg %d", p->tpg);
	if (p->disk[0])
		snprintf(name, sizeof(name), "%s (%s)", p->disk, p->lu.hctl);
	else
		snprintf(name, sizeof(name), "%s", p->lu.hctl);
	*at += snprintf(o + *at, size - *at, "%s%s%s %s%s%s%s", *at && o[*at - 1] != ' ' ? "; " : "",
			now ? "path " : "", name, now ? "now " : "",
			p->state[0] ? p->state : "state unknown", p->pref ? " (preferred)" : "",
			tpg);
}

int uaed_alua_report(const struct uaed_paths *index, const struct uaed_event *e)
{
	char hctl[UAED_LU_PATHS_MAX][32];
	struct path paths[UAED_LU_PATHS_MAX];
	struct uaed_fields stack = { 0 };
	char msg[4096], fields[2048];
	size_t m = 0, f = 0;
	int n = 0, first = -1, active = 0, r;
	/* Every path of the LU: its WWID as sysfs shows it, which the event carries. */
	int found = uaed_paths_find(index, e->wwid, e->hctl, hctl, UAED_LU_PATHS_MAX);

	if (found < 0)
		return found;
	for (int i = 0; i < found && i < UAED_LU_PATHS_MAX; i++) {
		struct path *p = &paths[n];

		memset(p, 0, sizeof(*p));
		memcpy(p->lu.hctl, hctl[i], sizeof(hctl[i]));
		p->lu.dirfd = uaed_sysfs_open_lu(hctl[i]);
		if (p->lu.dirfd < 0)
			continue;	/* removed meanwhile */
		snprintf(p->lu.wwid, sizeof(p->lu.wwid), "%s", e->wwid);
		read_path(p);
		if (!strcmp(p->lu.hctl, e->hctl))
			first = n;
		if (!strncmp(p->state, "active", 6))
			active++;
		n++;
	}
	/* The path that got the unit attention first: "path sdc (1:0:0:0) now standby". */
	m = snprintf(msg, sizeof(msg), "ALUA state of %s: ", e->wwid);
	if (first >= 0)
		append(msg, sizeof(msg), &m, &paths[first], true);
	for (int i = 0; i < n; i++)
		if (i != first)
			append(msg, sizeof(msg), &m, &paths[i], false);
	for (int i = 0; i < n && f < sizeof(fields); i++)
		f += snprintf(fields + f, sizeof(fields) - f, "%s%s=%s:%d:%s", f ? " " : "",
			      paths[i].lu.hctl, paths[i].state[0] ? paths[i].state : "unknown",
			      paths[i].tpg, paths[i].source[0] ? paths[i].source : "none");
	for (int i = 0; i < n; i++)
		close(paths[i].lu.dirfd);
	if (n == 0 && m < sizeof(msg))
		snprintf(msg + m, sizeof(msg) - m, "no path of the LU is left");
	/* What the reporting path holds up: a map over all of them, where there is one. */
	uaed_stack_fields_of(&stack, e->devname);
	r = uaed_log_action(active ? LOG_NOTICE : LOG_WARNING, "alua-state", "MESSAGE=%s", msg,
			    "UAEVENTS_WWID=%s", e->wwid, "UAEVENTS_HCTL=%s", e->hctl,
			    "UAEVENTS_ALUA_PATHS=%s", fields, "UAEVENTS_ACTIVE_PATHS=%d",
			    active, UAED_FIELDS, &stack);
	uaed_fields_free(&stack);
	return r;
}
