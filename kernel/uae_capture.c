// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: from what a hook saw to a delivered event.
 *
 * uae_capture() runs in atomic context, also on PREEMPT_RT where a kprobe or tracepoint
 * handler must neither take a sleeping lock nor call the allocator: one raw spinlock
 * guards the queue, and events come from a pool allocated at load.  The coalescer's
 * verdict comes first, so that an occurrence folded into a storm costs no event, no
 * device reference and no classification.  A work item delivers queued events in
 * sequence order: into the history first, then to subscribers and udev.
 *
 * An event pins its device and the low-level driver's module only until the work item
 * runs: a held storm may wait a whole coalescing window (up to an hour) to be published,
 * and neither hot-remove nor rmmod of the driver should wait for it.  The work item reads
 * a held event's identity and lets the device go; at publication the device gets its
 * uevent only if it is still the same one.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include "uae.h"
#include "uae_nvme.h"

static DEFINE_RAW_SPINLOCK(uae_lock);	/* everything below */
static struct uae_event *uae_pool;	/* uae_max_pending events, allocated at load */
static LIST_HEAD(uae_free);
static unsigned int uae_nr_free, uae_pool_size;
static LIST_HEAD(uae_pending);
static LIST_HEAD(uae_held);		/* held events still pinning their device */
static u64 uae_seq;
static u64 uae_group_seq[UAE_GROUPS];
static struct uae_coalescer uae_coalescer;
static bool uae_capture_live;		/* the coalescer exists */

static void uae_deliver(struct work_struct *work);
static DECLARE_WORK(uae_deliver_work, uae_deliver);
static void uae_flush_held(struct work_struct *work);
static DECLARE_DELAYED_WORK(uae_flush_work, uae_flush_held);

u64 uae_last_seq(void)
{
	unsigned long flags;
	u64 seq;

	raw_spin_lock_irqsave(&uae_lock, flags);
	seq = uae_seq;
	raw_spin_unlock_irqrestore(&uae_lock, flags);
	return seq;
}

u64 uae_last_seqs(u64 *group_seq)
{
	unsigned long flags;
	u64 seq;

	raw_spin_lock_irqsave(&uae_lock, flags);
	seq = uae_seq;
	memcpy(group_seq, uae_group_seq, sizeof(uae_group_seq));
	raw_spin_unlock_irqrestore(&uae_lock, flags);
	return seq;
}

static u64 uae_window_ns(void)
{
	return (u64)READ_ONCE(uae_coalesce_ms) * NSEC_PER_MSEC;
}

int uae_capture_init(unsigned int max_pending)
{
	unsigned int i;
	int ret;

	uae_pool = vcalloc(max_pending, sizeof(*uae_pool));
	if (!uae_pool)
		return -ENOMEM;
	/* A slot per event: a slot holds at most one. */
	ret = uae_coalescer_init(&uae_coalescer, max_pending);
	if (ret) {
		vfree(uae_pool);
		uae_pool = NULL;
		return ret;
	}
	for (i = 0; i < max_pending; i++)
		list_add_tail(&uae_pool[i].node, &uae_free);
	uae_nr_free = uae_pool_size = max_pending;
	raw_spin_lock_irq(&uae_lock);
	uae_capture_live = true;
	raw_spin_unlock_irq(&uae_lock);
	return 0;
}

/* @shost is being removed. */
static bool uae_host_leaving(struct Scsi_Host *shost)
{
	enum scsi_host_state state;

	/*
	 * Set under host_lock, read without it: scsi_remove_host() sets it before it removes
	 * the devices, each removal calls uae_capture_device_leaving(), which takes uae_lock,
	 * so an occurrence counted after that sees it.
	 */
	state = data_race(shost->shost_state);

	return state == SHOST_CANCEL || state == SHOST_DEL || state == SHOST_CANCEL_RECOVERY ||
	       state == SHOST_DEL_RECOVERY;
}

/* What an NVMe occurrence's key is made of (struct uae_coalesce_key). */
static void uae_nvme_coalesce_key(const struct uae_capture *in, struct uae_coalesce_key *key)
{
	struct gendisk *disk = in->rq ? READ_ONCE(in->rq->q->disk) : NULL;
	unsigned int instance;

	key->transport = in->transport;
	key->host = in->nvme_ctrl;
	if (in->nvme_ctrl_name && !strncmp(in->nvme_ctrl_name, "nvme", 4) &&
	    !kstrtouint(in->nvme_ctrl_name + 4, 10, &instance))
		key->id = instance;
	if (in->kind == UAEVENTS_KIND_AEN) {
		static atomic64_t lists = ATOMIC64_INIT(0);

		key->origin = in->nvme_ctrl;
		key->detail = in->aen_result;
		/* Each list is news: no two are ever one event. */
		if (in->nsids)
			key->lun = atomic64_inc_return(&lists);
		return;
	}
	if (in->kind == UAEVENTS_KIND_ANA) {
		key->origin = in->nvme_ctrl;
		key->lun = in->ana_group;
		key->detail = in->ana_state;
		return;
	}
	key->origin = disk;
	key->lun = disk ? disk->diskseq : 0;
	key->detail = in->has_nvme_status ? in->nvme_status : in->error;
}

/* Under uae_lock: UAE_COALESCE_* for an occurrence on @sdev (NULL: an NVMe controller). */
static unsigned int uae_coalesce_state_locked(struct scsi_device *sdev)
{
	enum scsi_device_state state;
	unsigned int ret = 0;

	if (uae_nr_free < uae_pool_size / 4)
		ret |= UAE_COALESCE_SHORT;
	if (!sdev)
		return ret;
	/* Set under state_mutex, read without it: as for the host's, above. */
	state = data_race(sdev->sdev_state);
	if (state == SDEV_CANCEL || state == SDEV_DEL || uae_host_leaving(sdev->host))
		ret |= UAE_COALESCE_LEAVING;
	return ret;
}

/*
 * @sdev is being removed (its state is SDEV_CANCEL or SDEV_DEL): what the coalescer
 * holds of it, and of its host if that goes too, counts nothing of a device or host that
 * may come at its address next.
 */
void uae_capture_device_leaving(struct scsi_device *sdev)
{
	const void *host = uae_host_leaving(sdev->host) ? sdev->host : NULL;
	bool more;

	do {
		raw_spin_lock_irq(&uae_lock);
		more = uae_capture_live && uae_coalesce_forget(&uae_coalescer, sdev, host);
		raw_spin_unlock_irq(&uae_lock);
	} while (more);
}

/* Under uae_lock: @ev goes back to the pool. */
static void uae_event_free_locked(struct uae_event *ev)
{
	list_add(&ev->node, &uae_free);
	uae_nr_free++;
}

/* Under uae_lock: number the event and queue it for delivery. */
static void uae_enqueue_locked(struct uae_event *ev)
{
	u8 group = uae_group_of(ev->rec.kind, ev->rec.transport);

	/* Numbered under the lock, so delivery order is sequence order. */
	ev->rec.seq = ++uae_seq;
	ev->rec.group_seq = ++uae_group_seq[group];
	list_add_tail(&ev->node, &uae_pending);
}

/* Under uae_lock: make the flush work run when the earliest held event falls due. */
static void uae_schedule_flush_locked(void)
{
	u64 due = uae_coalesce_next_due(&uae_coalescer, uae_window_ns());
	u64 now = ktime_get_ns();

	if (due == U64_MAX)
		return;
	/* mod_, not schedule_: an earlier due time must pull a pending flush forward. */
	mod_delayed_work(system_wq, &uae_flush_work,
			 due > now ? nsecs_to_jiffies(due - now) + 1 : 0);
}

/* The window changed: a held event whose new window has ended goes out now, not later. */
void uae_capture_window_changed(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&uae_lock, flags);
	uae_schedule_flush_locked();
	raw_spin_unlock_irqrestore(&uae_lock, flags);
}

static void uae_flush_held(struct work_struct *work)
{
	u64 now, window = uae_window_ns();
	struct uae_event *ev;
	bool queued = false;
	unsigned int n = 0;

	raw_spin_lock_irq(&uae_lock);
	/* Read under the lock: the coalescer's slots are in the order of their times. */
	now = ktime_get_ns();
	while ((ev = uae_coalesce_take_due(&uae_coalescer, now, window))) {
		uae_enqueue_locked(ev);
		queued = true;
		/* Interrupts on now and then: thousands of storms may end at once. */
		if (++n % 64 == 0) {
			raw_spin_unlock_irq(&uae_lock);
			cond_resched();
			raw_spin_lock_irq(&uae_lock);
			now = ktime_get_ns();
		}
	}
	uae_schedule_flush_locked();
	raw_spin_unlock_irq(&uae_lock);
	if (queued)
		queue_work(system_unbound_wq, &uae_deliver_work);
}

static void uae_fill_name(struct uae_record *rec, const struct uae_sense *s)
{
	switch (rec->kind) {
	case UAEVENTS_KIND_UA:
		rec->name = uae_ua_event_name(s->asc, s->ascq);
		rec->category = uae_ua_category(s->asc, s->ascq);
		break;
	case UAEVENTS_KIND_TIMEOUT:
		rec->name = "COMMAND_TIMEOUT";
		break;
	default:
		rec->name = (rec->flags & UAEVENTS_FLAG_NO_COMMAND) ? "REQUEST_FAILED" :
			    uae_error_name(rec->host_byte, rec->status, s);
		break;
	}
}

static void uae_fill_request(struct uae_record *rec, struct request *rq)
{
	struct gendisk *disk;

	rec->req_op = req_op(rq);
	rec->has_req_op = !blk_rq_is_passthrough(rq);
	/* A cache flush (REQ_OP_FLUSH) has no range: its position is blk_rq_init()'s -1. */
	if (rec->has_req_op && req_op(rq) != REQ_OP_FLUSH) {
		rec->has_lba = true;
		rec->lba = blk_rq_pos(rq);
		rec->sectors = blk_rq_sectors(rq);
	}
	/* The disk cannot go away under an in-flight command: del_gendisk freezes the queue. */
	disk = READ_ONCE(rq->q->disk);
	if (disk)
		strscpy(rec->devname, disk->disk_name, sizeof(rec->devname));
}

/*
 * Under uae_lock: the record of an NVMe event.  Nothing is pinned: a reference on the
 * controller's device would make its last put, which frees the controller through its
 * transport's module, wait for delivery without pinning that module.  Its name is copied
 * instead, and uaeventd reads the rest from sysfs.
 */
static void uae_fill_nvme(struct uae_event *ev, const struct uae_capture *in)
{
	struct uae_record *rec = &ev->rec;

	rec->transport = UAEVENTS_TRANSPORT_NVME;
	if (in->nvme_ctrl_name)
		strscpy(rec->nvme_ctrl, in->nvme_ctrl_name, sizeof(rec->nvme_ctrl));
	if (in->kind == UAEVENTS_KIND_AEN) {
		rec->aen_result = in->aen_result;
		rec->name = uae_nvme_aen_name(in->aen_result);
		if (in->nsids) {
			rec->name = "NVME_CHANGED_NAMESPACE_LIST";
			rec->has_nsids = true;
			rec->nsid_count = min_t(unsigned int, in->nsid_count, UAEVENTS_NSIDS_MAX);
			memcpy(rec->nsids, in->nsids, rec->nsid_count * sizeof(u32));
			rec->nsids_listed = in->nsids_listed;
		}
	} else if (in->kind == UAEVENTS_KIND_ANA) {
		rec->ana_group = in->ana_group;
		rec->ana_state = in->ana_state;
		rec->name = uae_nvme_ana_event_name(in->ana_state) ?: "NVME_ANA_UNKNOWN_STATE";
	} else {
		/* A failed request: its status named and classified, or only its errno. */
		uae_fill_request(rec, in->rq);
		rec->error = in->error;
		rec->opcode = in->opcode;
		rec->has_nvme_status = in->has_nvme_status;
		rec->nvme_status = in->nvme_status;
		if (in->has_nvme_status) {
			rec->name = uae_nvme_status_name(in->nvme_status);
			uae_nvme_classify(in->nvme_status, &rec->class);
		}
		if (!rec->name)
			rec->name = in->has_nvme_status ? "NVME_STATUS_UNKNOWN" : "REQUEST_FAILED";
	}
	ev->sdev = NULL;
	ev->origin = in->nvme_ctrl;
	ev->identified = false;
}

/* Under uae_lock: the record of one occurrence. */
static void uae_fill(struct uae_event *ev, const struct uae_capture *in,
		     const struct uae_sense *sense)
{
	struct scsi_device *sdev = in->sdev;
	struct uae_record *rec = &ev->rec;

	memset(rec, 0, sizeof(*rec));
	rec->kind = in->kind;
	rec->flags = in->flags;
	rec->repeat = 1;
	rec->timestamp_ns = ktime_get_real_ns();
	if (!sdev) {
		uae_fill_nvme(ev, in);
		return;
	}
	rec->host = sdev->host->host_no;
	rec->channel = sdev->channel;
	rec->target = sdev->id;
	rec->lun = sdev->lun;
	rec->opcode = in->opcode;
	rec->host_byte = in->host_byte;
	rec->status = in->status;
	rec->error = in->error;
	if (in->rq)
		uae_fill_request(rec, in->rq);
	if (sense->status != UAE_SENSE_INVALID) {
		rec->sense_len = min_t(size_t, uae_sense_length(in->sense_buf, in->sense_len),
				       sizeof(rec->sense));
		memcpy(rec->sense, in->sense_buf, rec->sense_len);
		rec->sense_key = sense->sense_key;
		rec->asc = sense->asc;
		rec->ascq = sense->ascq;
	}
	uae_fill_name(rec, sense);
	uae_classify(rec->host_byte, rec->status, sense, &rec->class);
	/*
	 * Pins the device and its low-level driver's module until delivery (atomic, never
	 * sleeps); a device on its way out still has its event published, without identity
	 * or uevent.
	 */
	ev->sdev = scsi_device_get(sdev) ? NULL : sdev;
	ev->origin = sdev;
	ev->identified = false;
}

/*
 * Under uae_lock: a pool event filled from @in, or NULL when max_pending are in flight.
 * A dropped event is counted, and still takes its sequence numbers (global and of its
 * group): subscribers, replay and uaeventd then see the hole as a gap, not nothing.
 */
static struct uae_event *uae_event_new_locked(const struct uae_capture *in,
					      const struct uae_sense *sense)
{
	struct uae_event *ev = list_first_entry_or_null(&uae_free, struct uae_event, node);

	if (!ev) {
		atomic64_inc(&uae_stats.queue_full);
		uae_seq++;
		uae_group_seq[uae_group_of(in->kind, in->transport)]++;
		return NULL;
	}
	list_del(&ev->node);
	uae_nr_free--;
	uae_fill(ev, in, sense);
	return ev;
}

/*
 * Atomic context, raw: no sleeping lock, no allocation.  @in->sense is what the hook
 * decoded from @in->sense_buf (NULL if there is no sense): nothing is decoded twice.
 */
void uae_capture(const struct uae_capture *in)
{
	static const struct uae_sense none = { .status = UAE_SENSE_INVALID };
	const struct uae_sense *sense = in->sense ? in->sense : &none;
	struct uae_coalesce_key key = {
		.flags = in->flags,
		.kind = in->kind, .host_byte = in->host_byte, .status = in->status,
		.opcode = in->opcode,
	};
	enum uae_coalesce_verdict verdict;
	struct uae_capture summary;
	struct uae_event *ev, *due;
	struct uae_recent *slot;
	unsigned long flags;
	bool queued;

	if (in->sdev) {
		key.origin = in->sdev;
		key.host = in->sdev->host;
		key.host_no = in->sdev->host->host_no;
		key.channel = in->sdev->channel;
		key.id = in->sdev->id;
		key.lun = in->sdev->lun;
	} else {
		uae_nvme_coalesce_key(in, &key);
	}
	if (sense->status != UAE_SENSE_INVALID) {
		key.sense_key = sense->sense_key;
		key.asc = sense->asc;
		key.ascq = sense->ascq;
	}

	raw_spin_lock_irqsave(&uae_lock, flags);
	/* Short of events: a quarter of the pool is left, new storms are summarized. */
	verdict = uae_coalesce(&uae_coalescer, &key, ktime_get_ns(), uae_window_ns(),
			       uae_coalesce_state_locked(in->sdev), &slot, &due);
	/* Counted in its host's summary: the event says so. */
	if (key.flags & UAEVENTS_FLAG_SUMMARY) {
		summary = *in;
		summary.flags = key.flags;
		in = &summary;
	}
	switch (verdict) {
	case UAE_COALESCE_FOLD:
		atomic64_inc(&uae_stats.coalesced);
		break;
	case UAE_COALESCE_HOLD:
		ev = uae_event_new_locked(in, sense);
		if (!ev)
			break;
		uae_coalesce_hold(&uae_coalescer, slot, ev);
		if (ev->sdev)
			list_add_tail(&ev->held_node, &uae_held);
		uae_schedule_flush_locked();
		break;
	case UAE_COALESCE_PUBLISH:
		ev = uae_event_new_locked(in, sense);
		if (!ev)
			break;
		/* A late held event of the same kind goes first: sequence order is time order. */
		if (due)
			uae_enqueue_locked(due);
		due = NULL;
		uae_enqueue_locked(ev);
		break;
	}
	if (due)
		uae_enqueue_locked(due);
	queued = !list_empty(&uae_pending) || !list_empty(&uae_held);
	raw_spin_unlock_irqrestore(&uae_lock, flags);
	if (queued)
		queue_work(system_unbound_wq, &uae_deliver_work);
}

/*
 * Any user may read uevents: never one for a failed pass-through command, which stays
 * with the subscribers of the sgio group (CAP_SYS_ADMIN; the kernel does not log it).
 */
static bool uae_wants_uevent(const struct uae_record *rec)
{
	unsigned int mode = READ_ONCE(uae_uevents);

	if (rec->kind == UAEVENTS_KIND_SGIO)
		return false;
	/* NVMe: the driver sends its own NVME_AEN uevents; nothing is pinned to send ours. */
	if (rec->transport != UAEVENTS_TRANSPORT_SCSI)
		return false;
	return mode == UAEVENTS_UEVENTS_ALL ||
	       (mode == UAEVENTS_UEVENTS_UA && rec->kind == UAEVENTS_KIND_UA);
}

/*
 * The device of an event that let its device go while held, if it is still the same one:
 * the same object at the same address, with the same WWID (a LU re-added there gets
 * another object, though the allocator may hand it the same address).
 */
static struct scsi_device *uae_origin_get(const struct uae_event *ev)
{
	struct Scsi_Host *shost = scsi_host_lookup(ev->rec.host);
	struct scsi_device *sdev;

	if (!shost)
		return NULL;
	sdev = scsi_device_lookup(shost, ev->rec.channel, ev->rec.target, ev->rec.lun);
	scsi_host_put(shost);
	if (!sdev)
		return NULL;
	if (sdev != ev->origin || !uae_identity_same(sdev, &ev->rec)) {
		scsi_device_put(sdev);
		return NULL;
	}
	return sdev;
}

static void uae_deliver(struct work_struct *work)
{
	struct uae_event *ev, *tmp;
	struct scsi_device *sdev;
	unsigned int noio;
	LIST_HEAD(held);
	LIST_HEAD(batch);

	/*
	 * Whatever delivery allocates (messages, uevents) must not wait on I/O: the device
	 * an event is about may be blocked, with swap or a filesystem on it.
	 */
	noio = memalloc_noio_save();

	raw_spin_lock_irq(&uae_lock);
	list_splice_init(&uae_held, &held);
	list_splice_init(&uae_pending, &batch);
	raw_spin_unlock_irq(&uae_lock);

	/*
	 * Held events first: one may already be in @batch, and this work item never runs
	 * twice at once, so it has let its device go before it is published below.
	 */
	list_for_each_entry_safe(ev, tmp, &held, held_node) {
		list_del(&ev->held_node);
		uae_identity_fill(ev->sdev, &ev->rec);
		scsi_device_put(ev->sdev);
		ev->sdev = NULL;
		ev->identified = true;
	}

	list_for_each_entry_safe(ev, tmp, &batch, node) {
		list_del(&ev->node);
		if (ev->sdev)
			uae_identity_fill(ev->sdev, &ev->rec);
		/* In the history before any subscriber can see it, so a replay finds it. */
		uae_history_add(&ev->rec);
		if (uae_netlink_publish(&ev->rec))
			uae_history_mark_read(ev->rec.seq);
		sdev = ev->sdev;
		if (!sdev && ev->identified && uae_wants_uevent(&ev->rec))
			sdev = uae_origin_get(ev);
		if (sdev) {
			if (uae_wants_uevent(&ev->rec))
				uae_uevent_send(sdev, &ev->rec);
			scsi_device_put(sdev);
		}
		ev->sdev = NULL;
		raw_spin_lock_irq(&uae_lock);
		uae_event_free_locked(ev);
		raw_spin_unlock_irq(&uae_lock);
		cond_resched();
	}
	memalloc_noio_restore(noio);
}

/* Deliver everything queued so far (process context). */
void uae_capture_flush(void)
{
	flush_work(&uae_deliver_work);
}

/*
 * After the hooks and the netlink family are gone, so that nothing captures any more:
 * publish held storms, deliver everything, free the pool.
 */
void uae_capture_exit(void)
{
	struct uae_event *ev;

	/*
	 * Held events out first, then the flush work cancelled: with none held, a write of
	 * the coalesce_ms parameter (its sysfs file outlives exit) arms nothing.
	 */
	raw_spin_lock_irq(&uae_lock);
	while ((ev = uae_coalesce_take_due(&uae_coalescer, ktime_get_ns(), 0)))
		uae_enqueue_locked(ev);
	raw_spin_unlock_irq(&uae_lock);
	cancel_delayed_work_sync(&uae_flush_work);
	queue_work(system_unbound_wq, &uae_deliver_work);
	flush_work(&uae_deliver_work);
	/* A device removed from now on finds no coalescer to tell. */
	raw_spin_lock_irq(&uae_lock);
	uae_capture_live = false;
	raw_spin_unlock_irq(&uae_lock);
	uae_coalescer_free(&uae_coalescer);
	vfree(uae_pool);
	uae_pool = NULL;
}
