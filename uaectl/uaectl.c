// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uaectl: SCSI unit attentions and sense data from the command line.
 *
 *   uaectl monitor|history|status|config|inject|decode|stack ...
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uaectl.h"

volatile sig_atomic_t uaectl_stop;

static void on_signal(int sig)
{
	(void)sig;
	uaectl_stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uaectl COMMAND [OPTIONS]\n"
		"\n"
		"Commands:\n"
		"  monitor [--json] [--stack] [--since SEQ] [--filter KEY=VALUE]...\n"
		"                              print events as they arrive, one per line\n"
		"  history [--json] [--since SEQ] [--filter KEY=VALUE]...\n"
		"                              print the events the kernel still holds\n"
		"  status [--json]             the module's counters and settings\n"
		"  config [--coalesce-ms MS] [--uevents none|ua|all]   change settings (root)\n"
		"  clear-history               forget the kernel's history (root)\n"
		"  inject --hctl H:C:T:L|--device DEV [--sense HEX] [--host-byte B] [--status S]\n"
		"         [--kind ua|error|timeout|sgio] [--count N]\n"
		"                              a synthetic event for testing (root)\n"
		"  decode [--json] [--host-byte B] [--status S] HEX...\n"
		"                              decode sense data given in hex, and classify it\n"
		"  stack [--json] DEVICE|H:C:T:L\n"
		"                              what sits above a device: maps, volumes, mounts\n"
		"\n"
		"Exit status: 0 ok, 1 failure, 2 bad arguments or input, 3 module not loaded,\n"
		"4 permission denied.\n");
}

int uaectl_exit_code(int err)
{
	switch (err) {
	case -ENOENT:
		return EXIT_NO_MODULE;
	case -EPERM:
	case -EACCES:
		return EXIT_PERMISSION;
	default:
		return EXIT_FAIL;
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (strcmp(argv[1], "monitor") == 0)
		return cmd_monitor(argc - 1, argv + 1);
	if (strcmp(argv[1], "decode") == 0)
		return cmd_decode(argc - 1, argv + 1);
	if (strcmp(argv[1], "history") == 0)
		return cmd_history(argc - 1, argv + 1);
	if (strcmp(argv[1], "status") == 0)
		return cmd_status(argc - 1, argv + 1);
	if (strcmp(argv[1], "inject") == 0)
		return cmd_inject(argc - 1, argv + 1);
	if (strcmp(argv[1], "config") == 0)
		return cmd_config(argc - 1, argv + 1);
	if (strcmp(argv[1], "stack") == 0)
		return cmd_stack(argc - 1, argv + 1);
	if (strcmp(argv[1], "clear-history") == 0)
		return cmd_clear_history(argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	fprintf(stderr, "uaectl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
