// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaectl stack: what sits above a device (uae_device_stack_new()), as a tree for a person
 * or one JSON object for a script.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "libuaevents.h"
#include "uaectl.h"

static unsigned int index_of(struct uae_stack *s, struct uae_stack_entry *e)
{
	unsigned int i = 0;

	for (struct uae_stack_entry *x = uae_stack_get_first(s); x && x != e;
	     x = uae_stack_entry_get_next(x))
		i++;
	return i;
}

static void add_str(json_object *o, const char *key, const char *value)
{
	json_object_object_add(o, key, value ? json_object_new_string(value) : NULL);
}

json_object *uaectl_stack_json(struct uae_stack *s)
{
	json_object *o = json_object_new_object(), *entries = json_object_new_array();

	add_str(o, "summary", uae_stack_get_summary(s));
	json_object_object_add(o, "empty", json_object_new_boolean(uae_stack_is_empty(s)));
	for (struct uae_stack_entry *e = uae_stack_get_first(s); e;
	     e = uae_stack_entry_get_next(e)) {
		json_object *j = json_object_new_object(), *p = json_object_new_object();
		struct uae_stack_entry *below = uae_stack_entry_get_below(e);

		add_str(j, "type", uae_stack_entry_get_type_name(e));
		add_str(j, "name", uae_stack_entry_get_name(e));
		add_str(j, "devname", uae_stack_entry_get_devname(e));
		add_str(j, "uuid", uae_stack_entry_get_uuid(e));
		add_str(j, "fstype", uae_stack_entry_get_fstype(e));
		json_object_object_add(j, "below", below ?
				       json_object_new_int((int)index_of(s, below)) : NULL);
		for (unsigned int i = 0; uae_stack_entry_get_property_key(e, i); i++) {
			const char *key = uae_stack_entry_get_property_key(e, i);

			add_str(p, key, uae_stack_entry_get_property(e, key));
		}
		json_object_object_add(j, "properties", p);
		json_object_array_add(entries, j);
	}
	json_object_object_add(o, "entries", entries);
	return o;
}

static unsigned int depth(struct uae_stack_entry *e)
{
	unsigned int d = 0;

	while ((e = uae_stack_entry_get_below(e)))
		d++;
	return d;
}

static void print_tree(struct uae_stack *s)
{
	printf("%s\n", uae_stack_get_summary(s));
	for (struct uae_stack_entry *e = uae_stack_get_first(s); e;
	     e = uae_stack_entry_get_next(e)) {
		const char *dev = uae_stack_entry_get_devname(e), *fs = uae_stack_entry_get_fstype(e);

		printf("%*s%s %s", 2 * depth(e) + 2, "", uae_stack_entry_get_type_name(e),
		       uae_stack_entry_get_name(e));
		if (dev && strcmp(dev, uae_stack_entry_get_name(e)))
			printf(" (%s)", dev);
		if (fs)
			printf(" %s", fs);
		if (uae_stack_entry_get_property(e, "internal"))
			printf(" [internal]");
		putchar('\n');
	}
}

int cmd_stack(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct uae_stack *s;
	bool json = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			printf("Usage: uaectl stack [--json] DEVICE|H:C:T:L\n");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "Usage: uaectl stack [--json] DEVICE|H:C:T:L\n");
		return EXIT_USAGE;
	}
	r = uae_device_stack_new(NULL, argv[optind], 0, &s);
	if (r < 0) {
		fprintf(stderr, "uaectl: %s: %s\n", argv[optind], uae_strerror(r));
		return r == -ENODEV || r == -ENOTBLK || r == -ENOENT ? EXIT_USAGE : EXIT_FAIL;
	}
	if (json) {
		json_object *o = uaectl_stack_json(s);

		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else {
		print_tree(s);
	}
	uae_stack_unref(s);
	return EXIT_OK;
}
