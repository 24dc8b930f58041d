// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaeventd: an event's device stack as journal fields (stack-fields.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libuaevents.h>

#include "stack-fields.h"

static void add_chain(struct uaed_fields *f, struct uae_stack_entry *e)
{
	char chain[1024];
	size_t len = 0;

	chain[0] = '\0';
	for (; e && len < sizeof(chain); e = uae_stack_entry_get_below(e)) {
		const char *fs = uae_stack_entry_get_fstype(e);

		len += snprintf(chain + len, sizeof(chain) - len, "%s%s (%s%s%s)", len ? " on " : "",
				uae_stack_entry_get_name(e), uae_stack_entry_get_type_name(e),
				fs ? " " : "", fs ? fs : "");
	}
	uaed_fields_add(f, "UAEVENTS_STACK_CHAIN", chain);
}

void uaed_stack_fields_of(struct uaed_fields *f, const char *disk)
{
	struct uae_stack *s = NULL;
	int r = disk && disk[0] ? uae_device_stack_new(NULL, disk, 0, &s) : -ENODEV;

	uaed_stack_fields(f, s, r);
	uae_stack_unref(s);
}

void uaed_stack_fields(struct uaed_fields *f, struct uae_stack *s, int err)
{
	char why[128];

	if (!s) {
		/* Gone already, or a tape's or changer's: nothing to walk. */
		snprintf(why, sizeof(why), "unknown: %s", err == -ENODEV ? "no block device" :
			 err == -ESTALE ? "its name is another LU's now" : uae_strerror(err));
		uaed_fields_add(f, "UAEVENTS_STACK", why);
		return;
	}
	uaed_fields_add(f, "UAEVENTS_STACK", uae_stack_get_summary(s));
	for (struct uae_stack_entry *e = uae_stack_get_first(s); e;
	     e = uae_stack_entry_get_next(e)) {
		const char *name = uae_stack_entry_get_name(e);
		bool internal = uae_stack_entry_get_property(e, "internal");

		switch (uae_stack_entry_get_type(e)) {
		case UAE_STACK_MPATH:
			uaed_fields_add(f, "UAEVENTS_MAP", name);
			uaed_fields_add(f, "UAEVENTS_MAP_WWID", uae_stack_entry_get_uuid(e));
			break;
		case UAE_STACK_LVM:
			if (!internal)
				uaed_fields_add(f, "UAEVENTS_LV", name);
			break;
		case UAE_STACK_CRYPT:
			if (!internal)
				uaed_fields_add(f, "UAEVENTS_CRYPT", name);
			break;
		case UAE_STACK_MD:
			uaed_fields_add(f, "UAEVENTS_MD", name);
			break;
		case UAE_STACK_LOOP:
			uaed_fields_add(f, "UAEVENTS_LOOP", uae_stack_entry_get_devname(e));
			break;
		case UAE_STACK_MOUNT:
			uaed_fields_add(f, "UAEVENTS_MOUNT", name);
			uaed_fields_add(f, "UAEVENTS_K8S_VOLUME",
					uae_stack_entry_get_property(e, "k8s_volume"));
			uaed_fields_add(f, "UAEVENTS_K8S_POD_UID",
					uae_stack_entry_get_property(e, "k8s_pod_uid"));
			break;
		case UAE_STACK_SWAP:
			uaed_fields_add(f, "UAEVENTS_SWAP", name);
			break;
		default:
			break;
		}
		/* A filesystem's UUID, on the device it is on (a mount repeats it). */
		if (uae_stack_entry_get_type(e) != UAE_STACK_MOUNT &&
		    uae_stack_entry_get_type(e) != UAE_STACK_MPATH &&
		    uae_stack_entry_get_type(e) != UAE_STACK_MD && uae_stack_entry_get_fstype(e))
			uaed_fields_add(f, "UAEVENTS_FS_UUID", uae_stack_entry_get_uuid(e));
		if (uae_stack_entry_get_property(e, "other_namespaces"))
			uaed_fields_add(f, "UAEVENTS_STACK_OTHER_NS", "1");
		if (uae_stack_entry_get_below(e) && uae_stack_entry_is_top(e))
			add_chain(f, e);
	}
	/* The first fields came first: the summary, then the stack from the LU up. */
	if (f->truncated) {
		free(f->field[f->n - 1]);
		f->field[f->n - 1] = strdup("UAEVENTS_STACK_TRUNCATED=1");
		if (!f->field[f->n - 1])
			f->n--;
	}
}
