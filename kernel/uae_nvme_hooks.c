// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: NVMe asynchronous events, from nvme_core's nvme_async_event tracepoint.
 *
 * The tracepoint fires once for each event a controller completes an Asynchronous Event
 * Request with, before the driver acts on it, including those the driver sends no
 * uevent for (namespace attribute changed, ANA change, firmware activation).  nvme_core
 * does not export it, and uaevents must not depend on nvme_core, which would load it on
 * every host and keep it from being unloaded: the tracepoint module notifier says when
 * nvme_core comes (also when it is there already) and goes, and the probe is attached
 * and detached from there, under the notifier's mutex.  The probe runs with preemption
 * off, on PREEMPT_RT too: it takes only uae_capture()'s raw lock.
 *
 * struct nvme_ctrl is private, and where its device sits differs between Debian's
 * kernels (PREEMPT_RT's locks are larger).  It is found by what nvme_init_ctrl() makes
 * true of it instead of by an offset built in: ctrl->device points to ctrl->ctrl_device,
 * the struct device just before it, whose driver data is the controller and whose class
 * is "nvme".  The offset found is checked again on every event; an event whose controller
 * it does not fit is published without a name, never with a guessed one.
 *
 * A failed NVMe block request reaches block_rq_error (uae_hooks.c) like a SCSI one: only
 * when it fails for good, never on success.  Its status is in struct nvme_request, first
 * in every transport's per-request data and private too: status at 20 bytes, the
 * controller at 24 (6.1) or 32 (6.12, with the multipath start time before it).  Which
 * one holds is learned from the controller the disk belongs to, and checked on every
 * request; a request it does not fit is published with its errno alone.  So is one the
 * driver never set up (RQF_DONTPREP clear, or status 0: failed in the flush machinery,
 * refused before it was sent): its request data still holds an earlier request's.
 *
 * An ANA group's state, as each controller (a path) reads it from its ANA log: a kprobe on
 * nvme_update_ana_state(), which nvme_parse_ana_log() calls for each group descriptor it
 * has checked (its address is taken, so no build inlines it).  The log is read at each
 * connect, ANA change and ANA error, and again as a controller starts
 * (nvme_mpath_update()): the last state of each group and controller is kept, and only a
 * first reading and a change are published; a controller's are forgotten as it goes
 * (nvme_uninit_ctrl()), as the next one may come at its address with its number.  Beyond
 * UAE_ANA_SLOTS groups and controllers the one read longest ago is forgotten, and its next
 * reading published again: at least once, never lost.  Attached beside the tracepoint;
 * without native multipath (nvme_core.multipath=N, or not built) there are no ANA states.
 *
 * Which namespaces changed: after a "namespace attribute changed" event the driver reads
 * the Changed Namespace List log page (to clear the event; it rescans every namespace
 * anyway).  nvme_get_log() is inlined there on 6.12, so a kretprobe on
 * __nvme_submit_sync_cmd(), every synchronous command's and no block I/O's, keeps the
 * list from the buffer it returns into: only a Get Log Page of that log at offset 0 on
 * the admin queue (no queuedata; a namespace's queue has its namespace) goes further
 * than the entry handler.  The controller is the admin tag set's driver data on every
 * transport but 6.1's PCIe, where it is the struct nvme_dev the controller lies in (and
 * other drivers' may be anything): it is never followed, only compared with the
 * controllers whose asynchronous events were seen (one always comes first: the driver
 * reads the list because of it), whose names were copied then.  An empty list (another
 * reader cleared the log first) is no news.  A list whose controller is not known is
 * published without a name.
 */
#include <linux/blk-mq.h>
#include <linux/device.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "uae.h"

#define UAE_NVME_CORE		"nvme_core"
#define UAE_NVME_AEN_TP		"nvme_async_event"
/* Where to look for ctrl->device: struct nvme_ctrl is larger (2928 bytes or more). */
#define UAE_NVME_CTRL_SCAN	2048

/* struct nvme_request (drivers/nvme/host/nvme.h): its status, and where its ctrl may be. */
#define UAE_NVME_RQ_CMD		0
#define UAE_NVME_RQ_STATUS	20
static const unsigned int uae_nvme_rq_ctrl_offs[] = { 24, 32 };

#define UAE_NVME_ANA_FN		"nvme_update_ana_state"
#define UAE_NVME_SYNC_FN	"__nvme_submit_sync_cmd"
/* The event a changed namespace list answers: notice, namespace attribute changed, 04h. */
#define UAE_NS_CHANGED_RESULT	(NVME_AER_NOTICE | NVME_AER_NOTICE_NS_CHANGED << 8 | \
				 NVME_LOG_CHANGED_NS << 16)
/* The groups' last states kept, of any controllers: the oldest goes first. */
#define UAE_ANA_SLOTS		64

struct uae_ana_slot {
	const void *ctrl;	/* compared, never followed */
	unsigned int instance;	/* and its number: another controller at a freed address */
	u32 grpid;
	u8 state;
	u64 used;		/* when last read, by uae_ana_clock; 0: free */
};

static DEFINE_RAW_SPINLOCK(uae_ana_lock);
static struct uae_ana_slot uae_ana_slots[UAE_ANA_SLOTS];

/* Controllers an asynchronous event came from, and their names; under uae_ana_lock. */
#define UAE_CTRL_SLOTS		64
/* 6.1's PCIe: how far into its struct nvme_dev (the admin tag set's data) a controller is. */
#define UAE_NVME_DEV_SPAN	2048
struct uae_ctrl_slot {
	const void *ctrl;	/* compared, never followed */
	char name[UAE_NVME_CTRL_LEN];
	u64 used;		/* by uae_ana_clock; 0: free */
};
static struct uae_ctrl_slot uae_ctrl_slots[UAE_CTRL_SLOTS];
static u64 uae_ana_clock;
/* Hits the kprobes of earlier nvme_core loads skipped (a kprobe's count starts at 0). */
static atomic64_t uae_missed_before = ATOMIC64_INIT(0);

/* nvme_core's tracepoint while the probe is on it; under tracepoint_module_list_mutex. */
static struct tracepoint *uae_aen_tp;
/* The same, of an nvme_core built into the kernel: from init to exit. */
static struct tracepoint *uae_builtin_tp;
/* offsetof(struct nvme_ctrl, device) in the nvme_core loaded, 0 until found. */
static unsigned long uae_ctrl_dev_off;
/* offsetof(struct nvme_request, ctrl) in the nvme_core loaded, 0 until found. */
static unsigned int uae_rq_ctrl_off;

/* The controller's device, if @ctrl has its pointer to it at @off. */
static struct device *uae_ctrl_device_at(const void *ctrl, unsigned long off)
{
	struct device *dev = *(struct device * const *)(ctrl + off);

	if (dev != (struct device *)(ctrl + off - sizeof(struct device)))
		return NULL;
	if (dev_get_drvdata(dev) != ctrl || !dev->class || strcmp(dev->class->name, "nvme"))
		return NULL;
	return dev;
}

/* @ctrl's device (whose name is "nvme%d"), or NULL if it cannot be told for sure. */
static struct device *uae_ctrl_device(const void *ctrl)
{
	unsigned long off = READ_ONCE(uae_ctrl_dev_off);
	struct device *dev;

	if (off)
		return uae_ctrl_device_at(ctrl, off);
	/* Every read stays inside the controller: each offset is below its size. */
	for (off = ALIGN(sizeof(struct device), sizeof(void *)); off < UAE_NVME_CTRL_SCAN;
	     off += sizeof(void *)) {
		dev = uae_ctrl_device_at(ctrl, off);
		if (dev) {
			WRITE_ONCE(uae_ctrl_dev_off, off);
			return dev;
		}
	}
	return NULL;
}

/* @ctrl, proven a controller named @name: kept, the one seen longest ago making room. */
static void uae_ctrl_remember(const void *ctrl, const char *name)
{
	struct uae_ctrl_slot *s, *slot = NULL, *oldest = &uae_ctrl_slots[0];
	unsigned long flags;

	raw_spin_lock_irqsave(&uae_ana_lock, flags);
	for (s = uae_ctrl_slots; s < uae_ctrl_slots + UAE_CTRL_SLOTS && !slot; s++) {
		if (s->used && s->ctrl == ctrl)
			slot = s;
		else if (s->used < oldest->used)
			oldest = s;
	}
	slot = slot ?: oldest;
	slot->ctrl = ctrl;
	strscpy(slot->name, name, sizeof(slot->name));
	slot->used = ++uae_ana_clock;
	raw_spin_unlock_irqrestore(&uae_ana_lock, flags);
}

/*
 * The controller whose admin tag set's driver data is @data, and its name into @name: the
 * controller itself, or the one controller known to lie within UAE_NVME_DEV_SPAN of it
 * (6.1's PCIe).  NULL if none is known for sure.
 */
static const void *uae_ctrl_of_tagset(const void *data, char *name, size_t size)
{
	const struct uae_ctrl_slot *s, *found = NULL;
	unsigned int inside = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&uae_ana_lock, flags);
	for (s = uae_ctrl_slots; s < uae_ctrl_slots + UAE_CTRL_SLOTS; s++) {
		if (!s->used)
			continue;
		if (s->ctrl == data) {
			found = s;
			inside = 1;
			break;
		}
		if ((unsigned long)s->ctrl > (unsigned long)data &&
		    (unsigned long)s->ctrl < (unsigned long)data + UAE_NVME_DEV_SPAN) {
			found = s;
			inside++;
		}
	}
	if (inside != 1)
		found = NULL;
	if (found)
		strscpy(name, found->name, size);
	raw_spin_unlock_irqrestore(&uae_ana_lock, flags);
	return found ? found->ctrl : NULL;
}

/* TP_PROTO(struct nvme_ctrl *ctrl, u32 result), drivers/nvme/host/trace.h. */
static void uae_nvme_async_event(void *data, void *ctrl, u32 result)
{
	struct device *dev = uae_ctrl_device(ctrl);
	struct uae_capture in = {
		.kind = UAEVENTS_KIND_AEN,
		.transport = UAEVENTS_TRANSPORT_NVME,
		.nvme_ctrl = ctrl,
		.nvme_ctrl_name = dev ? dev_name(dev) : NULL,
		.aen_result = result,
	};

	if (!dev)
		pr_warn_once("cannot tell the NVMe controller of an asynchronous event: published without its name\n");
	else
		uae_ctrl_remember(ctrl, dev_name(dev));
	uae_capture(&in);
}

/* Whether @pdu is a struct nvme_request of @ctrl with its ctrl pointer at @off. */
static bool uae_nvme_rq_fits(const void *pdu, const void *ctrl, unsigned int off)
{
	return *(void * const *)(pdu + off) == ctrl;
}

/*
 * Atomic (a request's completion).  @parent is the failed request's disk's parent: an
 * NVMe namespace's disk (a path's, nvme0c0n1, under native multipath; nvme0n1 without)
 * hangs off its controller's device, whose driver data is the controller.  A multipath
 * head's disk passes bios on and fails no request of its own.
 */
bool uae_nvme_rq_error(struct request *rq, blk_status_t error, struct device *parent)
{
	const void *ctrl, *pdu = blk_mq_rq_to_pdu(rq);
	unsigned int off = READ_ONCE(uae_rq_ctrl_off), i;
	struct uae_capture in;

	if (!parent->class || strcmp(parent->class->name, "nvme"))
		return false;
	ctrl = dev_get_drvdata(parent);
	in = (struct uae_capture){
		.rq = rq, .kind = UAEVENTS_KIND_ERROR, .error = -blk_status_to_errno(error),
		.transport = UAEVENTS_TRANSPORT_NVME, .nvme_ctrl = ctrl,
		.nvme_ctrl_name = dev_name(parent),
	};
	for (i = 0; !off && i < ARRAY_SIZE(uae_nvme_rq_ctrl_offs); i++)
		if (uae_nvme_rq_fits(pdu, ctrl, uae_nvme_rq_ctrl_offs[i])) {
			off = uae_nvme_rq_ctrl_offs[i];
			WRITE_ONCE(uae_rq_ctrl_off, off);
		}
	if (!off || !uae_nvme_rq_fits(pdu, ctrl, off)) {
		pr_warn_once("cannot read a failed NVMe request's status: published with its errno alone\n");
	} else if ((rq->rq_flags & RQF_DONTPREP) && *(const u16 *)(pdu + UAE_NVME_RQ_STATUS)) {
		/* Set up by nvme_setup_cmd() (nvme_clear_nvme_request()), then completed. */
		const struct nvme_command *cmd = *(struct nvme_command * const *)
						 (pdu + UAE_NVME_RQ_CMD);

		in.has_nvme_status = true;
		in.nvme_status = *(const u16 *)(pdu + UAE_NVME_RQ_STATUS);
		in.opcode = cmd ? cmd->common.opcode : 0;
	}
	if (!in.has_nvme_status)
		in.flags |= UAEVENTS_FLAG_NO_COMMAND;
	uae_capture(&in);
	return true;
}

/* "nvme3": 3.  The controller's number; 0 when there is no name. */
static unsigned int uae_ctrl_instance(const char *name)
{
	unsigned int instance;

	if (!name || strncmp(name, "nvme", 4) || kstrtouint(name + 4, 10, &instance))
		return 0;
	return instance;
}

/* Whether @state is news of group @grpid through @ctrl: read first, or changed. */
static bool uae_ana_news(const void *ctrl, unsigned int instance, u32 grpid, u8 state)
{
	struct uae_ana_slot *s, *oldest = &uae_ana_slots[0];
	unsigned long flags;
	bool news = true;

	raw_spin_lock_irqsave(&uae_ana_lock, flags);
	for (s = uae_ana_slots; s < uae_ana_slots + UAE_ANA_SLOTS; s++) {
		if (s->used && s->ctrl == ctrl && s->instance == instance && s->grpid == grpid)
			break;
		if (s->used < oldest->used)
			oldest = s;
	}
	if (s == uae_ana_slots + UAE_ANA_SLOTS) {
		s = oldest;
		s->ctrl = ctrl;
		s->instance = instance;
		s->grpid = grpid;
	} else {
		news = s->state != state;
	}
	s->state = state;
	s->used = ++uae_ana_clock;
	raw_spin_unlock_irqrestore(&uae_ana_lock, flags);
	return news;
}

/* Forget what @ctrl read, and its name (every controller's if NULL). */
static void uae_ana_forget(const void *ctrl)
{
	struct uae_ctrl_slot *c;
	struct uae_ana_slot *s;
	unsigned long flags;

	raw_spin_lock_irqsave(&uae_ana_lock, flags);
	for (s = uae_ana_slots; s < uae_ana_slots + UAE_ANA_SLOTS; s++)
		if (!ctrl || s->ctrl == ctrl)
			memset(s, 0, sizeof(*s));
	for (c = uae_ctrl_slots; c < uae_ctrl_slots + UAE_CTRL_SLOTS; c++)
		if (!ctrl || c->ctrl == ctrl)
			memset(c, 0, sizeof(*c));
	raw_spin_unlock_irqrestore(&uae_ana_lock, flags);
}

/*
 * nvme_update_ana_state(struct nvme_ctrl *ctrl, struct nvme_ana_group_desc *desc, void
 * *data), in process context under the controller's ana_lock; the handler runs with
 * preemption off.  The descriptor was checked by nvme_parse_ana_log() (its group id, state
 * and size within the log).
 */
static int uae_ana_hit(struct kprobe *kp, struct pt_regs *regs)
{
	const void *ctrl = (const void *)regs_get_kernel_argument(regs, 0);
	const struct nvme_ana_group_desc *desc =
		(const void *)regs_get_kernel_argument(regs, 1);
	struct device *dev = uae_ctrl_device(ctrl);
	const char *name = dev ? dev_name(dev) : NULL;
	struct uae_capture in = {
		.kind = UAEVENTS_KIND_ANA, .transport = UAEVENTS_TRANSPORT_NVME,
		.nvme_ctrl = ctrl, .nvme_ctrl_name = name,
		.ana_group = le32_to_cpu(desc->grpid), .ana_state = desc->state,
	};

	if (uae_ana_news(ctrl, uae_ctrl_instance(name), in.ana_group, in.ana_state))
		uae_capture(&in);
	return 0;
}

/* nvme_uninit_ctrl(struct nvme_ctrl *ctrl): the controller is being removed. */
static int uae_ana_ctrl_gone(struct kprobe *kp, struct pt_regs *regs)
{
	uae_ana_forget((const void *)regs_get_kernel_argument(regs, 0));
	return 0;
}

/* What __nvme_submit_sync_cmd()'s entry saw, for its return. */
struct uae_nslist_call {
	const void *ctrl;		/* the controller, or the tag set's data if not known */
	char name[UAE_NVME_CTRL_LEN];	/* "" if not known */
	const __le32 *log;
	unsigned int len;
};

/*
 * __nvme_submit_sync_cmd(struct request_queue *q, struct nvme_command *cmd, union
 * nvme_result *result, void *buffer, unsigned int bufflen, ...), the same five first
 * arguments on 6.1 and 6.12.  Returns 0 to be called back at the return.
 */
static int uae_nslist_enter(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct request_queue *q = (struct request_queue *)regs_get_kernel_argument(regs, 0);
	const struct nvme_command *cmd = (const void *)regs_get_kernel_argument(regs, 1);
	struct uae_nslist_call *call = (struct uae_nslist_call *)ri->data;
	const void *data;

	if (q->queuedata || cmd->common.opcode != nvme_admin_get_log_page ||
	    cmd->get_log_page.lid != NVME_LOG_CHANGED_NS || cmd->get_log_page.lpol ||
	    cmd->get_log_page.lpou)
		return 1;
	call->log = (const __le32 *)regs_get_kernel_argument(regs, 3);
	call->len = regs_get_kernel_argument(regs, 4);
	data = q->tag_set ? q->tag_set->driver_data : NULL;
	call->name[0] = '\0';
	call->ctrl = uae_ctrl_of_tagset(data, call->name, sizeof(call->name)) ?: data;
	return call->log ? 0 : 1;
}

/* The log page is in the caller's buffer: its IDs up to the first 0, FFFFFFFFh "more". */
static int uae_nslist_done(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct uae_nslist_call *call = (const struct uae_nslist_call *)ri->data;
	u32 nsids[UAEVENTS_NSIDS_MAX];
	struct uae_capture in = {
		.kind = UAEVENTS_KIND_AEN, .transport = UAEVENTS_TRANSPORT_NVME,
		.nvme_ctrl = call->ctrl, .nvme_ctrl_name = call->name[0] ? call->name : NULL,
		.aen_result = UAE_NS_CHANGED_RESULT, .nsids = nsids,
	};
	unsigned int i;

	/* Negative: an errno; positive: the command's NVMe status. */
	if ((int)regs_return_value(regs))
		return 0;
	for (i = 0; i < call->len / sizeof(__le32) && call->log[i]; i++)
		if (i < UAEVENTS_NSIDS_MAX)
			nsids[i] = le32_to_cpu(call->log[i]);
	if (!i)
		return 0;
	in.nsids_listed = i;
	in.nsid_count = min_t(unsigned int, i, UAEVENTS_NSIDS_MAX);
	if (nsids[0] == UAEVENTS_NSIDS_OVERFLOW) {
		in.nsids_listed = UAEVENTS_NSIDS_OVERFLOW;
		in.nsid_count = 0;
	}
	uae_capture(&in);
	return 0;
}

static struct kretprobe uae_nslist_probe;
static bool uae_nslist_live;	/* under tracepoint_module_list_mutex */

/* @mod: "nvme_core", or NULL where it is built in. */
static void uae_nslist_attach(const char *mod)
{
	static char name[64];
	int ret;

	if (uae_nslist_live)
		return;
	memset(&uae_nslist_probe, 0, sizeof(uae_nslist_probe));
	snprintf(name, sizeof(name), "%s%s%s", mod ?: "", mod ? ":" : "", UAE_NVME_SYNC_FN);
	uae_nslist_probe.kp.symbol_name = name;
	uae_nslist_probe.entry_handler = uae_nslist_enter;
	uae_nslist_probe.handler = uae_nslist_done;
	uae_nslist_probe.data_size = sizeof(struct uae_nslist_call);
	/*
	 * Every synchronous command in flight holds an instance until its entry handler
	 * lets it go, and a read of the list until the command completes: one per controller
	 * a namespace change reaches at once (every path of an NVMe-oF subsystem's), beside
	 * the Connect commands of a reconnect storm; not the default's one per CPU or two.
	 */
	uae_nslist_probe.maxactive = max_t(int, 64, 4 * num_possible_cpus());
	ret = register_kretprobe(&uae_nslist_probe);
	if (ret)
		pr_err("cannot probe %s (%d): no NVMe changed namespace lists\n",
		       UAE_NVME_SYNC_FN, ret);
	uae_nslist_live = !ret;
}

static void uae_nslist_detach(void)
{
	if (uae_nslist_live) {
		unregister_kretprobe(&uae_nslist_probe);
		atomic64_add(uae_nslist_probe.nmissed + uae_nslist_probe.kp.nmissed,
			     &uae_missed_before);
	}
	WRITE_ONCE(uae_nslist_live, false);
}

static struct kprobe uae_ana_probe, uae_ana_gone_probe;
static bool uae_ana_live;	/* under tracepoint_module_list_mutex */

static int uae_probe_fn(struct kprobe *kp, const char *mod, const char *fn,
			kprobe_pre_handler_t handler)
{
	static char names[2][64];
	char *name = names[kp == &uae_ana_gone_probe];

	memset(kp, 0, sizeof(*kp));
	snprintf(name, sizeof(names[0]), "%s%s%s", mod ?: "", mod ? ":" : "", fn);
	kp->symbol_name = name;
	kp->pre_handler = handler;
	return register_kprobe(kp);
}

/* @mod: "nvme_core", or NULL where it is built in. */
static void uae_ana_attach(const char *mod)
{
	int ret;

	if (uae_ana_live)
		return;
	ret = uae_probe_fn(&uae_ana_gone_probe, mod, "nvme_uninit_ctrl", uae_ana_ctrl_gone);
	if (!ret) {
		ret = uae_probe_fn(&uae_ana_probe, mod, UAE_NVME_ANA_FN, uae_ana_hit);
		if (ret)
			unregister_kprobe(&uae_ana_gone_probe);
	}
	if (ret == -ENOENT)
		pr_info("no %s in this NVMe driver (no native multipath): no ANA states\n",
			UAE_NVME_ANA_FN);
	else if (ret)
		pr_err("cannot probe %s (%d): no NVMe ANA states\n", UAE_NVME_ANA_FN, ret);
	uae_ana_live = !ret;
}

static void uae_ana_detach(void)
{
	struct kprobe *kps[] = { &uae_ana_probe, &uae_ana_gone_probe };

	if (uae_ana_live) {
		unregister_kprobes(kps, ARRAY_SIZE(kps));
		atomic64_add(uae_ana_probe.nmissed + uae_ana_gone_probe.nmissed,
			     &uae_missed_before);
	}
	WRITE_ONCE(uae_ana_live, false);
	uae_ana_forget(NULL);
}

/* Occurrences the kprobe machinery skipped (another probe's handler running). */
u64 uae_nvme_missed(void)
{
	u64 n = atomic64_read(&uae_missed_before);

	if (READ_ONCE(uae_ana_live))
		n += READ_ONCE(uae_ana_probe.nmissed) + READ_ONCE(uae_ana_gone_probe.nmissed);
	if (READ_ONCE(uae_nslist_live))
		n += READ_ONCE(uae_nslist_probe.nmissed) + READ_ONCE(uae_nslist_probe.kp.nmissed);
	return n;
}

static void uae_nvme_attach(struct module *mod)
{
	unsigned int i;
	int ret;

	for (i = 0; i < mod->num_tracepoints && !uae_aen_tp; i++) {
		struct tracepoint *tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

		if (strcmp(tp->name, UAE_NVME_AEN_TP))
			continue;
		ret = tracepoint_probe_register(tp, uae_nvme_async_event, NULL);
		if (ret) {
			pr_err("cannot attach to %s:%s (%d): no NVMe asynchronous events\n",
			       UAE_NVME_CORE, UAE_NVME_AEN_TP, ret);
			return;
		}
		uae_aen_tp = tp;
	}
	if (!uae_aen_tp)
		pr_err("no %s tracepoint in %s: no NVMe asynchronous events\n",
		       UAE_NVME_AEN_TP, UAE_NVME_CORE);
}

/*
 * Called under tracepoint_module_list_mutex: for each module with tracepoints as it
 * comes and goes, and for those loaded already when the notifier is registered and
 * unregistered.  A probe still on a going module's tracepoint would trip the kernel's
 * check (tp_module_going_check_quiescent()): it comes off here.
 */
static int uae_nvme_tp_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct tp_module *tp_mod = data;

	if (strcmp(tp_mod->mod->name, UAE_NVME_CORE))
		return NOTIFY_DONE;
	if (val == MODULE_STATE_COMING) {
		uae_nvme_attach(tp_mod->mod);
		uae_ana_attach(UAE_NVME_CORE);
		uae_nslist_attach(UAE_NVME_CORE);
	} else if (val == MODULE_STATE_GOING) {
		uae_nslist_detach();
		uae_ana_detach();
		if (uae_aen_tp)
			tracepoint_probe_unregister(uae_aen_tp, uae_nvme_async_event, NULL);
		uae_aen_tp = NULL;
		/* The next nvme_core may be another build. */
		WRITE_ONCE(uae_ctrl_dev_off, 0);
		WRITE_ONCE(uae_rq_ctrl_off, 0);
	}
	return NOTIFY_OK;
}

static struct notifier_block uae_nvme_tp_nb = {
	.notifier_call = uae_nvme_tp_notify,
};

/* nvme_core built in (CONFIG_NVME_CORE=y): its tracepoint is the kernel's own. */
static void uae_find_builtin_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, UAE_NVME_AEN_TP))
		*(struct tracepoint **)priv = tp;
}

int uae_nvme_init(void)
{
	struct tracepoint *tp = NULL;
	int ret;

	for_each_kernel_tracepoint(uae_find_builtin_tp, &tp);
	if (tp) {
		ret = tracepoint_probe_register(tp, uae_nvme_async_event, NULL);
		if (ret)
			return ret;
		uae_builtin_tp = tp;
		uae_ana_attach(NULL);
		uae_nslist_attach(NULL);
	}
	ret = register_tracepoint_module_notifier(&uae_nvme_tp_nb);
	if (ret && uae_builtin_tp) {
		uae_nslist_detach();
		uae_ana_detach();
		tracepoint_probe_unregister(uae_builtin_tp, uae_nvme_async_event, NULL);
		uae_builtin_tp = NULL;
		tracepoint_synchronize_unregister();
	}
	return ret;
}

void uae_nvme_exit(void)
{
	unregister_tracepoint_module_notifier(&uae_nvme_tp_nb);
	if (uae_builtin_tp) {
		uae_nslist_detach();
		uae_ana_detach();
		tracepoint_probe_unregister(uae_builtin_tp, uae_nvme_async_event, NULL);
	}
	uae_builtin_tp = NULL;
	/* A probe still running finishes before the capture it calls goes. */
	tracepoint_synchronize_unregister();
}
