// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <printf.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <systemd/sd-journal.h>

#include "log.h"
#include "state.h"

/* Fields of one entry: more than any of uaeventd's has. */
/* An event's entry: 23 fields of its own and UAED_FIELDS_MAX of its stack's. */
#define LOG_FIELDS_MAX 96

/* In a job's child: where its entries go (uaed_log_forward()); -1: to journald. */
static int forward_fd = -1;
/* This child sent an entry to journald itself: it waits for journald before its exit. */
static bool sent_directly;

void uaed_log_forward(int fd)
{
	forward_fd = fd;
}

void uaed_log_child_exit(void)
{
	if (forward_fd < 0 || sent_directly)
		uaed_journal_sync(5 * 1000000ULL);
}

/* One entry, to the daemon that forwards it, or to journald. */
static int send_fields(const struct iovec *iov, unsigned int n)
{
	/* A child's: one message a record; the daemon's socket has room for the largest. */
	static char buf[65536];
	size_t len = 0;

	if (forward_fd >= 0) {
		for (unsigned int i = 0; i < n && len <= sizeof(buf); i++) {
			if (iov[i].iov_len >= sizeof(buf) - len) {
				len = sizeof(buf) + 1;	/* too long: sent directly */
				break;
			}
			memcpy(buf + len, iov[i].iov_base, iov[i].iov_len);
			len += iov[i].iov_len;
			buf[len++] = '\0';
		}
		/* Not taken (EPIPE: the daemon is gone; EAGAIN: far behind): sent directly. */
		if (len <= sizeof(buf) &&
		    send(forward_fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)len)
			return 0;
		sent_directly = true;
	}
	return sd_journal_sendv(iov, (int)n);
}

int uaed_log_forwarded(const char *buf, size_t len)
{
	struct iovec iov[LOG_FIELDS_MAX];
	unsigned int n = 0;

	for (size_t at = 0; at < len && n < LOG_FIELDS_MAX; n++) {
		const char *end = memchr(buf + at, '\0', len - at);

		if (!end)
			return -EBADMSG;
		iov[n].iov_base = (void *)(buf + at);
		iov[n].iov_len = (size_t)(end - (buf + at));
		at += iov[n].iov_len + 1;
	}
	return n ? sd_journal_sendv(iov, (int)n) : -EBADMSG;
}

/* Past the arguments @format takes, as sd_journal_send() steps from field to field. */
static void skip_args(const char *format, va_list *ap)
{
	int types[32];
	size_t n = parse_printf_format(format, 32, types);

	for (size_t i = 0; i < n && i < 32; i++) {
		int t = types[i];

		if (t & PA_FLAG_PTR) {
			(void)va_arg(*ap, void *);
			continue;
		}
		switch (t & ~PA_FLAG_MASK) {
		case PA_INT:
		case PA_CHAR:
		case PA_WCHAR:
			if (t & PA_FLAG_LONG_LONG)
				(void)va_arg(*ap, long long);
			else if (t & PA_FLAG_LONG)
				(void)va_arg(*ap, long);
			else
				(void)va_arg(*ap, int);
			break;
		case PA_FLOAT:
		case PA_DOUBLE:
			if (t & PA_FLAG_LONG_DOUBLE)
				(void)va_arg(*ap, long double);
			else
				(void)va_arg(*ap, double);
			break;
		default:	/* strings, pointers */
			(void)va_arg(*ap, void *);
			break;
		}
	}
}

/* Told apart by its address: contents of its own, so that no constant is merged with it. */
const char UAED_FIELDS[] = "UAED_FIELDS";

int uaed_fields_add(struct uaed_fields *f, const char *name, const char *value)
{
	char *field;

	if (!value || !value[0])
		return 0;
	if (asprintf(&field, "%s=%s", name, value) < 0)
		return -ENOMEM;
	for (unsigned int i = 0; i < f->n; i++)
		if (!strcmp(f->field[i], field)) {
			free(field);
			return 0;
		}
	if (f->n == UAED_FIELDS_MAX) {
		free(field);
		f->truncated = true;
		return -E2BIG;
	}
	f->field[f->n++] = field;
	return 0;
}

void uaed_fields_free(struct uaed_fields *f)
{
	for (unsigned int i = 0; i < f->n; i++)
		free(f->field[i]);
	f->n = 0;
	f->truncated = false;
}

int uaed_journal_send(const char *format, ...)
{
	struct iovec iov[LOG_FIELDS_MAX];
	unsigned int n = 0;
	int saved = errno, r = 0;
	va_list ap;

	va_start(ap, format);
	for (; format; format = va_arg(ap, const char *)) {
		char *field;
		va_list aq;

		if (format == UAED_FIELDS) {
			const struct uaed_fields *f = va_arg(ap, const struct uaed_fields *);

			for (unsigned int i = 0; r == 0 && i < f->n; i++) {
				if (n == LOG_FIELDS_MAX)
					r = -E2BIG;
				else if (!(iov[n].iov_base = strdup(f->field[i])))
					r = -ENOMEM;
				else
					iov[n++].iov_len = strlen(f->field[i]);
			}
			if (r < 0)
				break;
			continue;
		}
		if (n == LOG_FIELDS_MAX) {
			r = -E2BIG;
			break;
		}
		/* %m is the caller's errno in every field. */
		errno = saved;
		va_copy(aq, ap);
		if (vasprintf(&field, format, aq) < 0)
			r = -ENOMEM;
		va_end(aq);
		if (r < 0)
			break;
		skip_args(format, &ap);
		iov[n].iov_base = field;
		iov[n++].iov_len = strlen(field);
	}
	va_end(ap);
	if (r == 0)
		r = send_fields(iov, n);
	for (unsigned int i = 0; i < n; i++)
		free(iov[i].iov_base);
	errno = saved;
	return r;
}

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
	uaed_journal_send("MESSAGE=%s", buf, "PRIORITY=%i", priority, "ERRNO=%i", err,
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
	char buf[LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	uaed_journal_send("CODE_FILE=%s", file, "CODE_LINE=%d", line, "CODE_FUNC=%s", func,
			  "MESSAGE=%s", buf, "PRIORITY=%i", priority, "SYSLOG_IDENTIFIER=uaeventd",
			  NULL);
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
