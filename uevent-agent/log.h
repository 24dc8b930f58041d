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

#include <stdbool.h>
#include <syslog.h>

#include <systemd/sd-journal.h>

/*
 * An entry of what uaeventd did: UAEVENTS_ACTION=@action at @priority, with the entry's own
 * fields (formats and arguments in pairs, as sd_journal_send() takes them, MESSAGE= among
 * them).  The fields every entry of uaeventd's carries are set here and in uaed_log_at(),
 * nowhere else.  Returns sd_journal_send()'s result; a failure is said on stderr (the
 * journal's stream, another way in), with its errno.
 */
#define uaed_log_action(priority, action, ...)						\
	uaed_log_result(uaed_journal_send("PRIORITY=%i", (priority),			\
					  "SYSLOG_IDENTIFIER=uaeventd",			\
					  "UAEVENTS_ACTION=%s", (action), __VA_ARGS__, NULL), \
			(action))
int uaed_log_result(int r, const char *action);

/* Fields of an entry built at run time: "NAME=value" each, a NAME possibly repeated. */
#define UAED_FIELDS_MAX 32
struct uaed_fields {
	char *field[UAED_FIELDS_MAX];
	unsigned int n;
	bool truncated;		/* a field was left out: there was no room */
};
extern const char UAED_FIELDS[];
/* Adds NAME=@value (unless empty, or the same field is there); -E2BIG when full. */
int uaed_fields_add(struct uaed_fields *f, const char *name, const char *value);
void uaed_fields_free(struct uaed_fields *f);
/*
 * sd_journal_send(), through the daemon when called in a job's child (uaed_log_forward()).
 * Every entry of uaeventd's goes through here.  In place of a format, UAED_FIELDS followed
 * by a struct uaed_fields * adds fields made beforehand (a field given several times).
 */
int uaed_journal_send(const char *format, ...) __attribute__((format(printf, 1, 0), sentinel));
/*
 * In a job's child: its entries go to @fd, a SOCK_SEQPACKET socket whose other end the
 * daemon reads, and the daemon logs them (uaed_log_forwarded()).  journald learns an
 * entry's unit (journalctl -u) from its sender's /proc entry, gone once a short-lived
 * child has exited; sent by the daemon, an entry needs no wait for journald before the
 * child may exit.  An entry the daemon does not take at once (it is gone, or far behind)
 * goes to journald directly.  Entries the daemon has not read when it is killed are lost
 * with it; a stop reads them first.
 */
void uaed_log_forward(int fd);
/*
 * In a child, before its exit: when entries went to journald directly (no socket, or the
 * daemon did not take one), wait until journald has stored them (uaed_journal_sync()).
 */
void uaed_log_child_exit(void);
/* In the daemon: one entry a child forwarded, @len bytes of NUL-terminated fields. */
int uaed_log_forwarded(const char *buf, size_t len);

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
