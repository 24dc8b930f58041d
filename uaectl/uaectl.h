/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uaectl: what its command files share. */
#ifndef UAECTL_H
#define UAECTL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

enum uaectl_exit {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_NO_MODULE = 3,
	EXIT_PERMISSION = 4,
};

extern volatile sig_atomic_t uaectl_stop;

/* The exit status for a negative errno from libuaevents. */
int uaectl_exit_code(int err);

/* Bytes in hex from arguments ("70 00 06", "700006", "0x70:0x00"); -errno, with a message. */
int uaectl_parse_hex(int argc, char **argv, uint8_t *buf, size_t size, size_t *len);
/* A host byte or status by name ("DID_ERROR", "BUSY") or number ("7", "0x18"). */
int uaectl_parse_code(const char *arg, const char *(*name_of)(uint8_t), uint8_t *out);

/* A decimal or 0x-hex number; -EINVAL if it is not one. */
int uaectl_parse_u64(const char *arg, uint64_t *out);

struct uae_event;
struct uae_monitor;
/* --filter KEY=VALUE arguments; -EINVAL, with a message, for a bad one. */
int uaectl_add_filters(struct uae_monitor *m, char **filters, int n);
struct uae_stack;
/*
 * One event: a line for a person, or a JSON object; flushed.  With @stack (what sits
 * above its device, uaectl monitor --stack), the line ends "behind ..." and the object
 * has "stack" (uaectl_stack_json()).
 */
void uaectl_print_event(struct uae_event *ev, bool json, struct uae_stack *stack);

int cmd_monitor(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_clear_history(int argc, char **argv);
int cmd_stack(int argc, char **argv);

/* A stack as JSON: {summary, empty, entries: [{type, name, devname, uuid, fstype, below,
 * properties}]}, "below" an index into entries. */
struct json_object *uaectl_stack_json(struct uae_stack *s);

#endif /* UAECTL_H */
