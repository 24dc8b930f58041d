// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: SCSI unit attentions and classified errors, from the midlayer to user space.
 *
 * Hooks (uae_hooks.c) capture events in atomic context; uae_capture.c coalesces storms
 * and queues them; a work item records each in the history (uae_history.c), multicasts it
 * over generic netlink (uae_netlink.c) and sends a uevent (uae_uevent.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/random.h>

#include "uae.h"

u64 uae_instance_id __read_mostly;
struct uae_stats uae_stats;

/*
 * Every parameter is range checked, at load and when written in sysfs, with the same
 * limits as UAEVENTS_CMD_SET_CONFIG (include/uapi/linux/uaevents.h).
 */
static int uae_param_set_range(const char *val, const struct kernel_param *kp,
			       unsigned int min, unsigned int max)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

#define UAE_PARAM_RANGE(name, min, max)						\
static int uae_param_set_##name(const char *val, const struct kernel_param *kp)	\
{										\
	return uae_param_set_range(val, kp, min, max);				\
}										\
static const struct kernel_param_ops uae_param_ops_##name = {			\
	.set = uae_param_set_##name,						\
	.get = param_get_uint,							\
}

UAE_PARAM_RANGE(history_size, UAEVENTS_HISTORY_MIN, UAEVENTS_HISTORY_MAX);
UAE_PARAM_RANGE(max_pending, UAEVENTS_PENDING_MIN, UAEVENTS_PENDING_MAX);
UAE_PARAM_RANGE(uevents, UAEVENTS_UEVENTS_NONE, UAEVENTS_UEVENTS_ALL);

static unsigned int history_size = 4096;
module_param_cb(history_size, &uae_param_ops_history_size, &history_size, 0444);
__MODULE_PARM_TYPE(history_size, "uint");
MODULE_PARM_DESC(history_size,
		 "Events kept for replay (UAEVENTS_CMD_GET_HISTORY), 16 to 65536 (default 4096)");

unsigned int uae_max_pending = 4096;
module_param_cb(max_pending, &uae_param_ops_max_pending, &uae_max_pending, 0444);
__MODULE_PARM_TYPE(max_pending, "uint");
MODULE_PARM_DESC(max_pending,
		 "Events captured but not yet delivered before new ones are dropped and counted, 16 to 65536, allocated at load (default 4096)");

/* A shorter window applies at once to the storms held now. */
static int uae_param_set_coalesce_ms(const char *val, const struct kernel_param *kp)
{
	int ret = uae_param_set_range(val, kp, 0, UAEVENTS_COALESCE_MAX_MS);

	if (!ret)
		uae_capture_window_changed();
	return ret;
}

static const struct kernel_param_ops uae_param_ops_coalesce_ms = {
	.set = uae_param_set_coalesce_ms,
	.get = param_get_uint,
};

unsigned int uae_coalesce_ms = 1000;
module_param_cb(coalesce_ms, &uae_param_ops_coalesce_ms, &uae_coalesce_ms, 0644);
__MODULE_PARM_TYPE(coalesce_ms, "uint");
MODULE_PARM_DESC(coalesce_ms,
		 "Window in which identical events of one device are coalesced, 0 = off, at most 3600000 (default 1000)");

unsigned int uae_uevents = UAEVENTS_UEVENTS_UA;
module_param_cb(uevents, &uae_param_ops_uevents, &uae_uevents, 0644);
__MODULE_PARM_TYPE(uevents, "uint");
MODULE_PARM_DESC(uevents,
		 "Send KOBJ_CHANGE uevents: 0 never, 1 for unit attentions, 2 for errors and timeouts too, never for SG_IO failures (default 1)");

static int __init uae_init(void)
{
	int ret;

	uae_instance_id = get_random_u64();
	ret = uae_history_init(history_size);
	if (ret)
		return ret;
	ret = uae_uevent_init();
	if (ret)
		goto out_history;
	ret = uae_capture_init(uae_max_pending);
	if (ret)
		goto out_uevent;
	ret = uae_netlink_init();
	if (ret)
		goto out_capture;
	ret = uae_hooks_init();
	if (ret)
		goto out_netlink;
	ret = uae_nvme_init();
	if (ret)
		goto out_hooks;
	pr_info("loaded, instance %016llx\n", uae_instance_id);
	return 0;

out_hooks:
	uae_hooks_exit();
out_netlink:
	uae_netlink_exit();
out_capture:
	/* A hook that was live for a moment may have queued work or armed the flush. */
	uae_capture_exit();
out_uevent:
	uae_uevent_exit();
out_history:
	uae_history_exit();
	return ret;
}

/*
 * Sources first, the sink last: no hook fires and no netlink operation runs (both
 * capture, INJECT does) once uae_capture_exit() drains the queue.
 */
static void __exit uae_exit(void)
{
	uae_nvme_exit();
	uae_hooks_exit();
	uae_netlink_exit();
	uae_capture_exit();
	uae_uevent_exit();
	uae_history_exit();
	pr_info("unloaded after %llu events\n", uae_last_seq());
}

module_init(uae_init);
module_exit(uae_exit);

MODULE_DESCRIPTION("SCSI unit attentions, NVMe asynchronous events and classified errors over generic netlink");
MODULE_AUTHOR("The uaevents developers");
MODULE_LICENSE("GPL");
