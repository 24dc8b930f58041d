// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: SCSI unit attentions from the midlayer to user space.
 *
 * A kprobe on scsi_check_sense(), which the midlayer calls for every CHECK CONDITION,
 * captures unit attentions.  The probe runs in atomic context (often softirq), so it
 * only copies what it needs and takes a device reference; a work item then builds and
 * multicasts the netlink message.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_eh.h>
#include <scsi/scsi_host.h>

#include "uae_event.h"

u64 uae_instance_id __read_mostly;

static unsigned int max_pending = 4096;
module_param(max_pending, uint, 0644);
MODULE_PARM_DESC(max_pending,
		 "Events captured but not yet delivered before new ones are dropped (default 4096)");

static DEFINE_SPINLOCK(uae_pending_lock);
static LIST_HEAD(uae_pending);
static unsigned int uae_pending_count;
static u64 uae_last_seq;
static atomic64_t uae_dropped = ATOMIC64_INIT(0);

static void uae_deliver(struct work_struct *work);
static DECLARE_WORK(uae_deliver_work, uae_deliver);

static void uae_event_free(struct uae_event *ev)
{
	put_device(&ev->sdev->sdev_gendev);
	kfree(ev);
}

static void uae_deliver(struct work_struct *work)
{
	struct uae_event *ev, *tmp;
	LIST_HEAD(batch);

	spin_lock_irq(&uae_pending_lock);
	list_splice_init(&uae_pending, &batch);
	uae_pending_count = 0;
	spin_unlock_irq(&uae_pending_lock);

	list_for_each_entry_safe(ev, tmp, &batch, node) {
		list_del(&ev->node);
		uae_netlink_publish(ev);
		uae_event_free(ev);
	}
}

static void uae_copy_devname(struct uae_event *ev, struct scsi_cmnd *cmd)
{
	/* The disk cannot go away under an in-flight command: del_gendisk freezes the queue. */
	struct gendisk *disk = READ_ONCE(scsi_cmd_to_rq(cmd)->q->disk);

	if (disk)
		strscpy(ev->devname, disk->disk_name, sizeof(ev->devname));
}

/* Atomic context: no sleeping, GFP_ATOMIC only. */
static void uae_capture(struct scsi_cmnd *cmd)
{
	struct scsi_device *sdev = cmd->device;
	struct uae_sense decoded;
	struct uae_event *ev;
	unsigned long flags;

	if (!cmd->sense_buffer ||
	    uae_sense_decode(cmd->sense_buffer, SCSI_SENSE_BUFFERSIZE, &decoded) ==
	    UAE_SENSE_INVALID ||
	    decoded.sense_key != UAE_SENSE_KEY_UNIT_ATTENTION)
		return;

	ev = kzalloc(sizeof(*ev), GFP_ATOMIC);
	if (!ev) {
		atomic64_inc(&uae_dropped);
		return;
	}
	ev->kind = UAEVENTS_KIND_UA;
	ev->decoded = decoded;
	ev->sense_len = uae_sense_length(cmd->sense_buffer, SCSI_SENSE_BUFFERSIZE);
	memcpy(ev->sense, cmd->sense_buffer, ev->sense_len);
	ev->name = uae_ua_event_name(decoded.asc, decoded.ascq);
	ev->category = uae_ua_category(decoded.asc, decoded.ascq);
	ev->host = sdev->host->host_no;
	ev->channel = sdev->channel;
	ev->target = sdev->id;
	ev->lun = sdev->lun;
	uae_copy_devname(ev, cmd);
	ev->timestamp_ns = ktime_get_real_ns();
	get_device(&sdev->sdev_gendev);
	ev->sdev = sdev;

	spin_lock_irqsave(&uae_pending_lock, flags);
	if (uae_pending_count >= READ_ONCE(max_pending)) {
		spin_unlock_irqrestore(&uae_pending_lock, flags);
		atomic64_inc(&uae_dropped);
		uae_event_free(ev);
		return;
	}
	/* Numbered under the lock, so delivery order is sequence order. */
	ev->seq = ++uae_last_seq;
	list_add_tail(&ev->node, &uae_pending);
	uae_pending_count++;
	spin_unlock_irqrestore(&uae_pending_lock, flags);

	queue_work(system_unbound_wq, &uae_deliver_work);
}

static int uae_check_sense_pre(struct kprobe *kp, struct pt_regs *regs)
{
	uae_capture((struct scsi_cmnd *)regs_get_kernel_argument(regs, 0));
	return 0;
}

static struct kprobe uae_check_sense_probe = {
	.pre_handler = uae_check_sense_pre,
};

static int __init uae_init(void)
{
	int ret;

	uae_instance_id = get_random_u64();

	ret = uae_netlink_init();
	if (ret)
		return ret;

	/* Taking the address makes scsi_mod a hard dependency of this module. */
	uae_check_sense_probe.addr = (kprobe_opcode_t *)scsi_check_sense;
	ret = register_kprobe(&uae_check_sense_probe);
	if (ret) {
		pr_err("uaevents: cannot probe scsi_check_sense: %d\n", ret);
		uae_netlink_exit();
		return ret;
	}
	pr_info("uaevents: loaded, instance %016llx\n", uae_instance_id);
	return 0;
}

static void __exit uae_exit(void)
{
	/* Returns only once no probe handler runs any more. */
	unregister_kprobe(&uae_check_sense_probe);
	flush_work(&uae_deliver_work);
	uae_netlink_exit();
	pr_info("uaevents: unloaded, %lld events dropped\n",
		(long long)atomic64_read(&uae_dropped));
}

module_init(uae_init);
module_exit(uae_exit);

MODULE_DESCRIPTION("SCSI unit attentions published over generic netlink");
MODULE_AUTHOR("The uaevents developers");
MODULE_LICENSE("GPL");
