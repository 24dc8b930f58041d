// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: KOBJ_CHANGE uevents on the scsi_device, with the event's fields as UAEVENTS_*
 * keys.  Never SDEV_UA=: the stock kernel sends that for the kinds it knows, and rules
 * written for it (libstoragemgmt's 90-scsi-ua.rules) must not fire twice.
 */
#include <linux/kobject.h>
#include <linux/slab.h>
#include <scsi/scsi_device.h>

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

void uae_uevent_send(struct scsi_device *sdev, const struct uae_record *rec)
{
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
	 * Not for a device on its way out (its remove uevent is coming).  No lock: the
	 * midlayer takes state_mutex to unblock a transport, in the error handler and for a
	 * sysfs state write, and sending under it would make them wait on our allocations,
	 * and every other device's events wait on whoever holds it.  Like the midlayer's own
	 * SDEV_UA uevents (scsi_evt_emit()), a change may then cross a removal.
	 */
	if (!env.failed && READ_ONCE(sdev->sdev_state) != SDEV_DEL &&
	    READ_ONCE(sdev->sdev_state) != SDEV_CANCEL)
		kobject_uevent_env(&sdev->sdev_gendev.kobj, KOBJ_CHANGE, env.envp);
	for (i = 0; i < env.n; i++)
		kfree(env.envp[i]);
}
