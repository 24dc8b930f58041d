// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper, never installed: make one function fail while uaevents.ko initialises, to
 * show that a failed init at any step unwinds what the steps before it did.  Debian's
 * kernels have no fault injection framework (CONFIG_FAULT_INJECTION is off), so this does
 * what bpf_override_return() does: a kprobe at the function's entry sends it to a stand-in
 * that returns @error to the caller, and the function itself never runs.
 *
 *   insmod uae_faultinj.ko func=genl_register_family error=-12
 *   insmod uaevents.ko        (fails with -12; the probe fired once: see "fired")
 *
 * @func is a kernel symbol or one of uaevents.ko's ("uaevents:uae_capture_init"); either
 * way the probe is armed only while uaevents.ko initialises, for the task loading it.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

static char *func = "";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "Function to fail while uaevents.ko initialises");

static int error = -ENOMEM;
module_param(error, int, 0444);
MODULE_PARM_DESC(error, "What the function returns instead (default -ENOMEM)");

static unsigned int fired;
module_param(fired, uint, 0444);
MODULE_PARM_DESC(fired, "How often the function was made to fail");

static struct task_struct *armed_task;
static struct kprobe probe;
static bool probe_live;

/* Runs in place of the probed function, with its return address: returns to its caller. */
static noinline long faultinj_return_error(void)
{
	return READ_ONCE(error);
}

static int faultinj_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (current != READ_ONCE(armed_task))
		return 0;
	fired++;
	instruction_pointer_set(regs, (unsigned long)faultinj_return_error);
	/* Non-zero: the handler moved the instruction pointer, do not single-step. */
	return 1;
}

static void faultinj_disarm(void)
{
	WRITE_ONCE(armed_task, NULL);
	if (probe_live)
		unregister_kprobe(&probe);
	probe_live = false;
}

static int faultinj_module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;
	int ret;

	if (strcmp(mod->name, "uaevents"))
		return NOTIFY_DONE;
	if (state == MODULE_STATE_COMING) {
		/* uaevents' own symbols exist from now on; its init runs in this task next. */
		memset(&probe, 0, sizeof(probe));
		probe.symbol_name = func;
		probe.pre_handler = faultinj_pre;
		ret = register_kprobe(&probe);
		if (ret) {
			pr_err("uae_faultinj: cannot probe %s: %d\n", func, ret);
			return NOTIFY_DONE;
		}
		probe_live = true;
		WRITE_ONCE(armed_task, current);
	} else {
		faultinj_disarm();
	}
	return NOTIFY_DONE;
}

static struct notifier_block faultinj_nb = {
	.notifier_call = faultinj_module_event,
};

static int __init faultinj_init(void)
{
	if (!func[0])
		return -EINVAL;
	return register_module_notifier(&faultinj_nb);
}

static void __exit faultinj_exit(void)
{
	unregister_module_notifier(&faultinj_nb);
	faultinj_disarm();
}

module_init(faultinj_init);
module_exit(faultinj_exit);

MODULE_DESCRIPTION("uaevents test helper: fail one function during uaevents.ko's init");
MODULE_LICENSE("GPL");
