/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libuaevents: subscribe to SCSI unit attentions published by the uaevents kernel module.
 *
 * Handles are opaque and reference counted, in the style of libudev.  Calls that can fail
 * return a negative errno; uae_strerror() turns it into a message.
 *
 *	struct uae_monitor *m;
 *	struct uae_event *ev;
 *
 *	uae_monitor_new(&m);
 *	poll on uae_monitor_get_fd(m) for POLLIN, then
 *	while (uae_monitor_receive(m, &ev) == 0) {
 *		printf("%s on %s\n", uae_event_get_name(ev), uae_event_get_devname(ev));
 *		uae_event_unref(ev);
 *	}
 */
#ifndef LIBUAEVENTS_H
#define LIBUAEVENTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct uae_monitor;
struct uae_event;

/* Kinds of event (the values of UAEVENTS_ATTR_KIND). */
enum uae_event_kind {
	UAE_EVENT_UA = 1,
};

/*
 * Connect to the kernel module's generic netlink family and subscribe to its events.
 * -ENOENT: the module is not loaded.  The socket is non-blocking.
 */
int uae_monitor_new(struct uae_monitor **ret);
struct uae_monitor *uae_monitor_ref(struct uae_monitor *m);
struct uae_monitor *uae_monitor_unref(struct uae_monitor *m);

/* A file descriptor that polls readable when events may be waiting. */
int uae_monitor_get_fd(struct uae_monitor *m);

/*
 * The next event, without blocking.  Returns 0 and a new reference in *ret, -EAGAIN when
 * none is waiting, -ENOBUFS when the socket overflowed (events were lost; the next event
 * reports the gap), -EBADMSG for a message that failed validation (it is skipped).
 */
int uae_monitor_receive(struct uae_monitor *m, struct uae_event **ret);

struct uae_event *uae_event_ref(struct uae_event *ev);
struct uae_event *uae_event_unref(struct uae_event *ev);

enum uae_event_kind uae_event_get_kind(const struct uae_event *ev);
/* Sequence number, from 1 per module instance; the instance id changes at each load. */
uint64_t uae_event_get_seq(const struct uae_event *ev);
uint64_t uae_event_get_instance(const struct uae_event *ev);
/*
 * Events of this instance missed just before this one (0 normally): a jump in the
 * sequence numbers that this monitor saw.
 */
uint64_t uae_event_get_gap(const struct uae_event *ev);
/* CLOCK_REALTIME in nanoseconds, when the kernel saw the sense data. */
uint64_t uae_event_get_timestamp_ns(const struct uae_event *ev);

unsigned int uae_event_get_host(const struct uae_event *ev);
unsigned int uae_event_get_channel(const struct uae_event *ev);
unsigned int uae_event_get_target(const struct uae_event *ev);
uint64_t uae_event_get_lun(const struct uae_event *ev);
/* "2:0:0:1" */
const char *uae_event_get_hctl(const struct uae_event *ev);
/* Block device name ("sdb"), or NULL when the LU has none. */
const char *uae_event_get_devname(const struct uae_event *ev);

uint8_t uae_event_get_sense_key(const struct uae_event *ev);
uint8_t uae_event_get_asc(const struct uae_event *ev);
uint8_t uae_event_get_ascq(const struct uae_event *ev);
/* The raw sense data as the device sent it. */
const uint8_t *uae_event_get_sense(const struct uae_event *ev, size_t *len);

/* Stable name ("CAPACITY_DATA_HAS_CHANGED"); never NULL. */
const char *uae_event_get_name(const struct uae_event *ev);
/* Category ("space", "inventory", ...); never NULL. */
const char *uae_event_get_category(const struct uae_event *ev);
/* T10's description of the ASC/ASCQ, or NULL when it is not assigned. */
const char *uae_event_get_description(const struct uae_event *ev);
/* "UNIT ATTENTION", ... */
const char *uae_event_get_sense_key_name(const struct uae_event *ev);

/* A message for a negative errno returned by this library. */
const char *uae_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* LIBUAEVENTS_H */
