/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd: what sits above an event's LU (libuaevents' uae_device_stack_new()), as the
 * fields of its journal entry.  Each value stands alone (journald neither keeps the order
 * of fields nor pairs them), so that each can be matched on:
 *   UAEVENTS_STACK            the summary ("/srv/data (ext4 on vg0/data on mpatha)",
 *                             "nothing"), or "unknown: WHY"
 *   UAEVENTS_MAP, UAEVENTS_MAP_WWID, UAEVENTS_LV, UAEVENTS_CRYPT, UAEVENTS_MD,
 *   UAEVENTS_LOOP, UAEVENTS_MOUNT, UAEVENTS_FS_UUID, UAEVENTS_SWAP, UAEVENTS_K8S_VOLUME,
 *   UAEVENTS_K8S_POD_UID      once per value
 *   UAEVENTS_STACK_OTHER_NS=1 a filesystem on it is mounted only outside the host's
 *                             mount namespace
 *   UAEVENTS_STACK_CHAIN      once per top of the stack: "/srv/data (mount ext4) on
 *                             vg0/data (lvm) on ... on sdc (disk)"
 *   UAEVENTS_STACK_TRUNCATED=1  more than UAED_FIELDS_MAX fields: the last ones left out
 */
#ifndef UAED_STACK_FIELDS_H
#define UAED_STACK_FIELDS_H

#include "log.h"

struct uae_stack;

/* The fields of @s, or, when it is NULL, of why it is not known (@err, a negative errno). */
void uaed_stack_fields(struct uaed_fields *f, struct uae_stack *s, int err);
/* The same for block device @disk ("" when there is none), read now, with no cache. */
void uaed_stack_fields_of(struct uaed_fields *f, const char *disk);

#endif /* UAED_STACK_FIELDS_H */
