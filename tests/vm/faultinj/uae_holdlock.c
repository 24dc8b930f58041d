// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper, never installed: hold one SCSI device's state_mutex until rmmod, as a
 * transport's unblock, the error handler or a sysfs state write would find it held, to
 * show that uaevents delivers the other devices' events, and this one's uevent,
 * meanwhile.  "held" reads Y while the mutex is held; at most @seconds, so that a test
 * that dies cannot keep the device's removal and error handling waiting forever.
 *
 *   insmod uae_holdlock.ko hctl=2:0:0:0
 *   ...
 *   rmmod uae_holdlock
 */
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/workqueue.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

static char *hctl = "";
module_param(hctl, charp, 0444);
MODULE_PARM_DESC(hctl, "The device whose state_mutex to hold, H:C:T:L");

static unsigned int seconds = 120;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "How long to hold it at most, unless unloaded (default 120)");

static bool held;
module_param(held, bool, 0444);
MODULE_PARM_DESC(held, "Whether the mutex is held now");

static struct scsi_device *sdev;
static DECLARE_COMPLETION(holdlock_release);

static void holdlock_hold(struct work_struct *work)
{
	mutex_lock(&sdev->state_mutex);
	WRITE_ONCE(held, true);
	wait_for_completion_timeout(&holdlock_release, msecs_to_jiffies(seconds * MSEC_PER_SEC));
	WRITE_ONCE(held, false);
	mutex_unlock(&sdev->state_mutex);
}

static DECLARE_WORK(holdlock_work, holdlock_hold);

static int __init holdlock_init(void)
{
	struct Scsi_Host *shost;
	unsigned int h, c, t;
	u64 l;

	if (sscanf(hctl, "%u:%u:%u:%llu", &h, &c, &t, &l) != 4)
		return -EINVAL;
	shost = scsi_host_lookup(h);
	if (!shost)
		return -ENODEV;
	/* Pins the device and its driver until exit. */
	sdev = scsi_device_lookup(shost, c, t, l);
	scsi_host_put(shost);
	if (!sdev)
		return -ENODEV;
	/* Long: not on system_wq, where it would hold up a worker others wait for. */
	queue_work(system_long_wq, &holdlock_work);
	return 0;
}

static void __exit holdlock_exit(void)
{
	complete(&holdlock_release);
	flush_work(&holdlock_work);
	scsi_device_put(sdev);
}

module_init(holdlock_init);
module_exit(holdlock_exit);

MODULE_DESCRIPTION("uaevents test helper: hold a SCSI device's state_mutex");
MODULE_LICENSE("GPL");
