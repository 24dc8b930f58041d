/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uaectl: what its command files share. */
#ifndef UAECTL_H
#define UAECTL_H

#include <signal.h>

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

int cmd_monitor(int argc, char **argv);
int cmd_decode(int argc, char **argv);

#endif /* UAECTL_H */
