// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: from what a hook saw to a delivered event.
 *
 * uae_capture() runs in atomic context: it decodes and classifies with the shared
 * decoder, takes a reference on the scsi_device, and queues the event (or folds it into
 * a storm) under a spinlock.  A work item delivers queued events in sequence order.
 */
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include "uae.h"

static unsigned int max_pending = 4096;
module_param(max_pending, uint, 0644);
MODULE_PARM_DESC(max_pending,
		 "Events captured but not yet delivered before new ones are dropped and counted (default 4096)");

static DEFINE_SPINLOCK(uae_lock);	/* everything below */
static LIST_HEAD(uae_pending);
static unsigned int uae_pending_count;
static u64 uae_seq;
static struct uae_coalescer uae_coalescer;

static void uae_deliver(struct work_struct *work);
static DECLARE_WORK(uae_deliver_work, uae_deliver);
static void uae_flush_held(struct work_struct *work);
static DECLARE_DELAYED_WORK(uae_flush_work, uae_flush_held);

u64 uae_last_seq(void)
{
	unsigned long flags;
	u64 seq;

	spin_lock_irqsave(&uae_lock, flags);
	seq = uae_seq;
	spin_unlock_irqrestore(&uae_lock, flags);
	return seq;
}

static u64 uae_window_ns(void)
{
	return (u64)READ_ONCE(uae_coalesce_ms) * NSEC_PER_MSEC;
}

static void uae_event_free(struct uae_event *ev)
{
	put_device(&ev->sdev->sdev_gendev);
	kfree(ev);
}

/* Under uae_lock: number the event and queue it for delivery. */
static void uae_enqueue_locked(struct uae_event *ev)
{
	/* Numbered under the lock, so delivery order is sequence order. */
	ev->rec.seq = ++uae_seq;
	list_add_tail(&ev->node, &uae_pending);
	uae_pending_count++;
}

static void uae_schedule_flush_locked(void)
{
	u64 due = uae_coalesce_next_due(&uae_coalescer, uae_window_ns());
	u64 now = ktime_get_ns();

	if (due == U64_MAX)
		return;
	/* Harmless if already pending: it rescans and re-arms itself. */
	schedule_delayed_work(&uae_flush_work,
			      due > now ? nsecs_to_jiffies(due - now) + 1 : 0);
}

static void uae_flush_held(struct work_struct *work)
{
	u64 now = ktime_get_ns(), window = uae_window_ns();
	struct uae_event *ev;
	unsigned long flags;
	bool queued = false;

	spin_lock_irqsave(&uae_lock, flags);
	while ((ev = uae_coalesce_take_due(&uae_coalescer, now, window))) {
		uae_enqueue_locked(ev);
		queued = true;
	}
	uae_schedule_flush_locked();
	spin_unlock_irqrestore(&uae_lock, flags);
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
		rec->name = uae_error_name(rec->host_byte, rec->status, s);
		break;
	}
}

static void uae_fill_request(struct uae_record *rec, struct request *rq)
{
	struct scsi_cmnd *cmd = blk_mq_rq_to_pdu(rq);
	struct gendisk *disk;

	rec->opcode = cmd->cmnd[0];
	if (!blk_rq_is_passthrough(rq)) {
		rec->has_lba = true;
		rec->lba = blk_rq_pos(rq);
		rec->sectors = blk_rq_sectors(rq);
	}
	/* The disk cannot go away under an in-flight command: del_gendisk freezes the queue. */
	disk = READ_ONCE(rq->q->disk);
	if (disk)
		strscpy(rec->devname, disk->disk_name, sizeof(rec->devname));
}

/* Atomic context: no sleeping, GFP_ATOMIC only. */
void uae_capture(const struct uae_capture *in)
{
	struct scsi_device *sdev = in->sdev;
	struct uae_sense sense;
	struct uae_event *ev;
	struct uae_record *rec;
	unsigned long flags;
	bool deliver = false;

	ev = kzalloc(sizeof(*ev), GFP_ATOMIC);
	if (!ev) {
		atomic64_inc(&uae_stats.alloc_failed);
		return;
	}
	rec = &ev->rec;
	rec->kind = in->kind;
	rec->flags = in->flags;
	rec->repeat = 1;
	rec->timestamp_ns = ktime_get_real_ns();
	rec->host = sdev->host->host_no;
	rec->channel = sdev->channel;
	rec->target = sdev->id;
	rec->lun = sdev->lun;
	rec->host_byte = in->host_byte;
	rec->status = in->status;
	rec->error = in->error;
	if (in->rq)
		uae_fill_request(rec, in->rq);

	uae_sense_decode(in->sense, in->sense ? in->sense_len : 0, &sense);
	if (sense.status != UAE_SENSE_INVALID) {
		rec->sense_len = min_t(size_t, uae_sense_length(in->sense, in->sense_len),
				       sizeof(rec->sense));
		memcpy(rec->sense, in->sense, rec->sense_len);
		rec->sense_key = sense.sense_key;
		rec->asc = sense.asc;
		rec->ascq = sense.ascq;
	}
	uae_fill_name(rec, &sense);
	uae_classify(rec->host_byte, rec->status, &sense, &rec->class);

	ev->key = (struct uae_coalesce_key){
		.sdev = sdev, .kind = rec->kind, .host_byte = rec->host_byte,
		.status = rec->status, .sense_key = rec->sense_key, .asc = rec->asc,
		.ascq = rec->ascq, .opcode = rec->opcode,
	};
	get_device(&sdev->sdev_gendev);
	ev->sdev = sdev;

	spin_lock_irqsave(&uae_lock, flags);
	if (uae_pending_count >= READ_ONCE(max_pending)) {
		spin_unlock_irqrestore(&uae_lock, flags);
		atomic64_inc(&uae_stats.queue_full);
		uae_event_free(ev);
		return;
	}
	switch (uae_coalesce(&uae_coalescer, ev, ktime_get_ns(), uae_window_ns())) {
	case UAE_COALESCE_PUBLISH:
		uae_enqueue_locked(ev);
		deliver = true;
		break;
	case UAE_COALESCE_HOLD:
		uae_schedule_flush_locked();
		break;
	case UAE_COALESCE_FOLD:
		atomic64_inc(&uae_stats.coalesced);
		spin_unlock_irqrestore(&uae_lock, flags);
		uae_event_free(ev);
		return;
	}
	spin_unlock_irqrestore(&uae_lock, flags);
	if (deliver)
		queue_work(system_unbound_wq, &uae_deliver_work);
}

static bool uae_wants_uevent(const struct uae_record *rec)
{
	unsigned int mode = READ_ONCE(uae_uevents);

	return mode == UAEVENTS_UEVENTS_ALL ||
	       (mode == UAEVENTS_UEVENTS_UA && rec->kind == UAEVENTS_KIND_UA);
}

static void uae_deliver(struct work_struct *work)
{
	struct uae_event *ev, *tmp;
	LIST_HEAD(batch);

	spin_lock_irq(&uae_lock);
	list_splice_init(&uae_pending, &batch);
	uae_pending_count = 0;
	spin_unlock_irq(&uae_lock);

	list_for_each_entry_safe(ev, tmp, &batch, node) {
		list_del(&ev->node);
		uae_identity_fill(ev->sdev, &ev->rec);
		uae_history_add(&ev->rec, uae_netlink_publish(&ev->rec));
		if (uae_wants_uevent(&ev->rec))
			uae_uevent_send(ev->sdev, &ev->rec);
		uae_event_free(ev);
		cond_resched();
	}
}

/* Deliver everything queued so far (process context). */
void uae_capture_flush(void)
{
	flush_work(&uae_deliver_work);
}

/* After the hooks are gone: publish held storms, deliver everything, stop. */
void uae_capture_exit(void)
{
	struct uae_event *ev;

	cancel_delayed_work_sync(&uae_flush_work);
	spin_lock_irq(&uae_lock);
	while ((ev = uae_coalesce_take_due(&uae_coalescer, ktime_get_ns(), 0)))
		uae_enqueue_locked(ev);
	spin_unlock_irq(&uae_lock);
	queue_work(system_unbound_wq, &uae_deliver_work);
	flush_work(&uae_deliver_work);
}
