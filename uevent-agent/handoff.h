/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef UAED_HANDOFF_H
#define UAED_HANDOFF_H

#include "config.h"

/*
 * The hand-off to the udev rules (rules/89-uaevents-handoff.rules): while uaeventd scans
 * targets itself, DIR holds one entry per allow-list entry ("host2", "target2:0:1"), or
 * "all" when every target is allowed, and libstoragemgmt's rule stands down for exactly
 * those targets.  Without rescans DIR does not exist.
 */
#define UAED_HANDOFF_DIR "/run/uaevents/running"

/* Make DIR say what CFG scans: new entries first, then the old ones go.  0 or -errno. */
int uaed_handoff_apply(const char *dir, const struct uaed_config *cfg);
/* Remove DIR and what it holds.  0 or -errno. */
int uaed_handoff_clear(const char *dir);

#endif
