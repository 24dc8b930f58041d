// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "log.h"
#include "state.h"

static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long dev, ino;
	struct stat st;

	return e && sscanf(e, "%lu:%lu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
	       st.st_dev == dev && st.st_ino == ino;
}

static int log_errno_v(int priority, int err, bool at_start, const char *fmt, va_list ap)
{
	char buf[LINE_MAX];

	err = abs(err);
	/* What %m prints. */
	errno = err;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* Started by hand: whoever started it reads stderr. */
	if (at_start && !stderr_is_journal()) {
		fprintf(stderr, "%s\n", buf);
		return -err;
	}
	sd_journal_send("MESSAGE=%s", buf, "PRIORITY=%i", priority, "ERRNO=%i", err,
			"SYSLOG_IDENTIFIER=uaeventd", NULL);
	/*
	 * journald learns an entry's unit from the sender's /proc entry, gone once the sender
	 * has exited: before an exit, wait until the entry is stored, so that journalctl -u
	 * shows it.
	 */
	if (at_start)
		uaed_journal_sync(2 * 1000000ULL);
	return -err;
}

void uaed_log_at(const char *file, int line, const char *func, int priority, const char *fmt,
		 ...)
{
	char buf[LINE_MAX], code_file[256], code_line[32];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(code_file, sizeof(code_file), "CODE_FILE=%s", file);
	snprintf(code_line, sizeof(code_line), "CODE_LINE=%d", line);
	sd_journal_send_with_location(code_file, code_line, func, "MESSAGE=%s", buf,
				      "PRIORITY=%i", priority, "SYSLOG_IDENTIFIER=uaeventd", NULL);
}

int uaed_log_errno(int priority, int err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = log_errno_v(priority, err, false, fmt, ap);
	va_end(ap);
	return r;
}

int uaed_log_fatal_errno(int err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = log_errno_v(LOG_ERR, err, true, fmt, ap);
	va_end(ap);
	return r;
}

int uaed_log_result(int r, const char *action)
{
	if (r < 0)
		fprintf(stderr, "uaeventd: cannot log an entry of UAEVENTS_ACTION=%s: %s\n", action,
			strerror(-r));
	return r;
}
