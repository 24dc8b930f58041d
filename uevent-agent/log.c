// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "log.h"
#include "state.h"

static void format(char *buf, size_t size, int err, const char *fmt, va_list ap)
{
	/* What %m prints. */
	errno = err;
	vsnprintf(buf, size, fmt, ap);
}

int uaed_log_errno(int priority, int err, const char *fmt, ...)
{
	char buf[LINE_MAX];
	va_list ap;

	err = abs(err);
	va_start(ap, fmt);
	format(buf, sizeof(buf), err, fmt, ap);
	va_end(ap);
	sd_journal_send("MESSAGE=%s", buf, "PRIORITY=%i", priority, "ERRNO=%i", err, NULL);
	return -err;
}

static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long dev, ino;
	struct stat st;

	return e && sscanf(e, "%lu:%lu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
	       st.st_dev == dev && st.st_ino == ino;
}

int uaed_log_fatal_errno(int err, const char *fmt, ...)
{
	char buf[LINE_MAX];
	va_list ap;

	err = abs(err);
	va_start(ap, fmt);
	format(buf, sizeof(buf), err, fmt, ap);
	va_end(ap);
	if (!stderr_is_journal()) {
		fprintf(stderr, "%s\n", buf);
		return -err;
	}
	sd_journal_send("MESSAGE=%s", buf, "PRIORITY=%i", LOG_ERR, "ERRNO=%i", err,
			"SYSLOG_IDENTIFIER=uaeventd", NULL);
	/*
	 * journald learns an entry's unit from the sender's /proc entry, gone once the sender
	 * has exited: wait until the entry is stored, so that journalctl -u shows it.
	 */
	uaed_journal_sync(2 * 1000000ULL);
	return -err;
}
