/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uaeventd: each path's ALUA state after ASYMMETRIC ACCESS STATE CHANGED (see alua.c). */
#ifndef UAED_ALUA_H
#define UAED_ALUA_H

#include "event.h"

struct uaed_paths;

/* In a child: one journal entry with the state of every path of @e's LU (@index: paths.h). */
int uaed_alua_report(const struct uaed_paths *index, const struct uaed_event *e);

#endif /* UAED_ALUA_H */
