/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uaeventd's failures, logged as systemd's daemons log them: once, with the errno in the
 * message (%m in @fmt stands for it) and in the entry's ERRNO= field, and handed back, so
 * that a caller returns what it logged:
 *
 *	if (r < 0)
 *		return uaed_log_errno(LOG_ERR, r, "uaeventd: cannot write %s: %m", path);
 */
#ifndef UAED_LOG_H
#define UAED_LOG_H

#include <syslog.h>

/*
 * An entry of uaeventd's (SYSLOG_IDENTIFIER=uaeventd), with the caller's CODE_FILE,
 * CODE_LINE and CODE_FUNC as sd_journal_print() gives them; %m in @fmt is errno's text.
 */
#define uaed_log(priority, ...) uaed_log_at(__FILE__, __LINE__, __func__, priority, __VA_ARGS__)
void uaed_log_at(const char *file, int line, const char *func, int priority, const char *fmt,
		 ...) __attribute__((format(printf, 5, 6)));

/* Returns -|@err|. */
int uaed_log_errno(int priority, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Why the daemon will not start: an error entry of its own under systemd, else a line on
 * stderr, for whoever started it by hand.  Returns -|@err|.
 */
int uaed_log_fatal_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* UAED_LOG_H */
