// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: KOBJ_CHANGE uevents on the scsi_device, with the event's fields as UAEVENTS_*
 * keys.  Never SDEV_UA=: the stock kernel sends that for the kinds it knows, and rules
 * written for it (libstoragemgmt's 90-scsi-ua.rules) must not fire twice.
 */
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_driver.h>

#include "uae.h"

#define UAE_UEVENT_VARS 20

static const char *const uae_kind_names[] = {
	[UAEVENTS_KIND_UA] = "ua",
	[UAEVENTS_KIND_ERROR] = "error",
	[UAEVENTS_KIND_TIMEOUT] = "timeout",
	[UAEVENTS_KIND_SGIO] = "sgio",
};

struct uae_env {
	char *envp[UAE_UEVENT_VARS + 1];
	int n;
	bool failed;
};

static __printf(2, 3) void uae_env_add(struct uae_env *env, const char *fmt, ...)
{
	va_list ap;

	if (env->n == UAE_UEVENT_VARS) {
		env->failed = true;
		return;
	}
	va_start(ap, fmt);
	env->envp[env->n] = kvasprintf(GFP_KERNEL, fmt, ap);
	va_end(ap);
	if (env->envp[env->n])
		env->n++;
	else
		env->failed = true;
}

static DEFINE_MUTEX(uae_uevent_lock);

/*
 * __scsi_remove_device() sets the state to SDEV_CANCEL (or SDEV_DEL), then unregisters
 * the scsi_device class device (@dev, sdev_dev), which calls this, and only then deletes
 * the device and sends its remove uevent.  A send that saw the device running is over
 * once this has taken the lock; any later one sees it leaving.  The coalescer learns of
 * it here too.  (Also called for every device when this module unregisters.)
 */
#ifdef UAE_REMOVE_DEV_DEV_ONLY
static void uae_uevent_removing(struct device *dev)
#else
static void uae_uevent_removing(struct device *dev, struct class_interface *intf)
#endif
{
	uae_capture_device_leaving(container_of(dev, struct scsi_device, sdev_dev));
	mutex_lock(&uae_uevent_lock);
	mutex_unlock(&uae_uevent_lock);
}

static struct class_interface uae_uevent_interface = {
	.remove_dev = uae_uevent_removing,
};

int uae_uevent_init(void)
{
	return scsi_register_interface(&uae_uevent_interface);
}

void uae_uevent_exit(void)
{
	scsi_unregister_interface(&uae_uevent_interface);
}

void uae_uevent_send(struct scsi_device *sdev, const struct uae_record *rec)
{
	enum scsi_device_state state;
	struct uae_env env = {};
	int i;

	uae_env_add(&env, "UAEVENTS_EVENT=%s", rec->name);
	uae_env_add(&env, "UAEVENTS_KIND=%s", uae_kind_names[rec->kind]);
	uae_env_add(&env, "UAEVENTS_CATEGORY=%s", uae_category_name(rec->category));
	uae_env_add(&env, "UAEVENTS_SEQ=%llu", rec->seq);
	uae_env_add(&env, "UAEVENTS_INSTANCE=%016llx", uae_instance_id);
	uae_env_add(&env, "UAEVENTS_HCTL=%u:%u:%u:%llu", rec->host, rec->channel,
		    rec->target, rec->lun);
	uae_env_add(&env, "UAEVENTS_REPEAT=%u", rec->repeat);
	if (rec->flags & UAEVENTS_FLAG_INJECTED)
		uae_env_add(&env, "UAEVENTS_INJECTED=1");
	if (rec->flags & UAEVENTS_FLAG_SUMMARY)
		uae_env_add(&env, "UAEVENTS_SUMMARY=1");
	if (rec->sense_len) {
		uae_env_add(&env, "UAEVENTS_SENSE_KEY=0x%02x", rec->sense_key);
		uae_env_add(&env, "UAEVENTS_ASC=0x%02x", rec->asc);
		uae_env_add(&env, "UAEVENTS_ASCQ=0x%02x", rec->ascq);
	}
	if (rec->devname[0])
		uae_env_add(&env, "UAEVENTS_DEVICE=%s", rec->devname);
	if (rec->wwid[0])
		uae_env_add(&env, "UAEVENTS_WWID=%s", rec->wwid);
	if (rec->kind != UAEVENTS_KIND_UA) {
		uae_env_add(&env, "UAEVENTS_SEVERITY=%s", uae_severity_name(rec->class.severity));
		uae_env_add(&env, "UAEVENTS_LOCUS=%s", uae_locus_name(rec->class.locus));
		uae_env_add(&env, "UAEVENTS_FAILOVER=%d", rec->class.failover);
	}
	/*
	 * Not for a device on its way out: its remove uevent is coming, and nothing of ours
	 * may follow it.  Not under state_mutex either: the midlayer takes it to unblock a
	 * transport, in the error handler and for a sysfs state write, which would then
	 * wait on our allocations, and every other device's events on whoever holds it.
	 * uae_uevent_lock orders the check and the send against the removal instead (see
	 * uae_uevent_removing()); only a removal ever waits on it.
	 */
	mutex_lock(&uae_uevent_lock);
	/* Set under state_mutex, read without it: before removal, ordered by our lock. */
	state = data_race(sdev->sdev_state);
	if (!env.failed && state != SDEV_DEL && state != SDEV_CANCEL &&
	    kobject_uevent_env(&sdev->sdev_gendev.kobj, KOBJ_CHANGE, env.envp))
		atomic64_inc(&uae_stats.alloc_failed);
	mutex_unlock(&uae_uevent_lock);
	for (i = 0; i < env.n; i++)
		kfree(env.envp[i]);
}
