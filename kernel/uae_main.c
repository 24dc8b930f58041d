// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: SCSI unit attentions and classified errors, from the midlayer to user space.
 *
 * Hooks (uae_hooks.c) capture events in atomic context; uae_capture.c coalesces storms
 * and queues them; a work item records each in the history (uae_history.c), multicasts it
 * over generic netlink (uae_netlink.c) and sends a uevent (uae_uevent.c).
 */
#include <linux/module.h>
#include <linux/random.h>

#include "uae.h"

u64 uae_instance_id __read_mostly;
struct uae_stats uae_stats;

static unsigned int history_size = 4096;
module_param(history_size, uint, 0444);
MODULE_PARM_DESC(history_size, "Events kept for replay (UAEVENTS_CMD_GET_HISTORY) (default 4096)");

unsigned int uae_coalesce_ms = 1000;
module_param_named(coalesce_ms, uae_coalesce_ms, uint, 0644);
MODULE_PARM_DESC(coalesce_ms,
		 "Window in which identical events of one device are coalesced, 0 = off (default 1000)");

unsigned int uae_uevents = UAEVENTS_UEVENTS_UA;
module_param_named(uevents, uae_uevents, uint, 0644);
MODULE_PARM_DESC(uevents,
		 "Send KOBJ_CHANGE uevents: 0 never, 1 for unit attentions, 2 for every event (default 1)");

static int __init uae_init(void)
{
	int ret;

	if (history_size < 16 || history_size > (1U << 20)) {
		pr_err("uaevents: history_size must be between 16 and 1048576\n");
		return -EINVAL;
	}
	uae_instance_id = get_random_u64();
	ret = uae_history_init(history_size);
	if (ret)
		return ret;
	ret = uae_netlink_init();
	if (ret)
		goto out_history;
	ret = uae_hooks_init();
	if (ret)
		goto out_netlink;
	pr_info("uaevents: loaded, instance %016llx\n", uae_instance_id);
	return 0;

out_netlink:
	uae_netlink_exit();
out_history:
	uae_history_exit();
	return ret;
}

static void __exit uae_exit(void)
{
	uae_hooks_exit();
	uae_capture_exit();
	uae_netlink_exit();
	uae_history_exit();
	pr_info("uaevents: unloaded after %llu events\n", uae_last_seq());
}

module_init(uae_init);
module_exit(uae_exit);

MODULE_DESCRIPTION("SCSI unit attentions and classified errors over generic netlink");
MODULE_AUTHOR("The uaevents developers");
MODULE_LICENSE("GPL");
