// SPDX-License-Identifier: GPL-2.0
/*
 * uaevents: where events come from.  Only failure paths are hooked, so successful I/O
 * pays nothing:
 *  - an entry hook on scsi_check_sense(), called for every CHECK CONDITION: unit
 *    attentions;
 *  - the block_rq_error tracepoint, hit only when a request fails for good (not for
 *    pass-through or RQF_QUIET requests, whose failures the kernel expects): the
 *    midlayer's final answer, with host byte, status and sense still in the command;
 *  - a kretprobe on scsi_timeout(), called when a command's timer expires: an event
 *    only when the midlayer gave up on it (see uae_timeout_ret());
 *  - an entry hook on scsi_command_normalize_sense(), which scsi_io_completion() calls
 *    only for a command that did not succeed: failed SG_IO pass-through commands and
 *    cache flushes, once final (see uae_normalize_sense_hit()).
 * Every handler runs in atomic context.  The two entry hooks run for every failing
 * command, up to three times for one: where ftrace passes a function's arguments
 * (DYNAMIC_FTRACE_WITH_ARGS), each is an ftrace_ops of its own, which saves only the
 * argument registers and calls its handler straight from the function's own trampoline;
 * a kprobe there (on ftrace too) saves every register and goes through the kprobe
 * table first.  Elsewhere, kprobes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <scsi/scsi.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_eh.h>
#include <scsi/scsi_host.h>
#include <scsi/scsi_proto.h>

#include "uae.h"

/* ftrace_ops with the probed function's arguments (6.1's x86 ftrace_regs is a pt_regs). */
#if defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS) && \
	(defined(ftrace_regs_get_argument) || defined(CONFIG_X86))
#define UAE_FTRACE_HOOKS 1
#ifdef ftrace_regs_get_argument
#define uae_fregs_arg0(fregs)	ftrace_regs_get_argument(fregs, 0)
#else
#define uae_fregs_arg0(fregs)	regs_get_kernel_argument(&(fregs)->regs, 0)
#endif
#else
#define UAE_FTRACE_HOOKS 0
#endif

/*
 * Whether failed pass-through commands come from uae_normalize_sense_hit(), which needs
 * the caller's address; elsewhere uae_check_sense_hit() reports those with a CHECK
 * CONDITION, as each attempt fails.
 */
static const bool uae_pass_hook = UAE_FTRACE_HOOKS || IS_ENABLED(CONFIG_X86) ||
				  IS_ENABLED(CONFIG_ARM64);

static u32 uae_rq_flags(struct request *rq)
{
	u32 flags = 0;

	if (blk_rq_is_passthrough(rq))
		flags |= UAEVENTS_FLAG_PASSTHROUGH;
	if (rq->rq_flags & RQF_QUIET)
		flags |= UAEVENTS_FLAG_QUIET;
	return flags;
}

/*
 * Unit attentions the midlayer expects, by its own tests in scsi_check_sense() (which
 * then retries the command without telling anyone) and scsi_report_sense() (which does
 * not print them):
 *  - a power-on or reset (29h) while runtime PM powers the device down and up
 *    (silence_suspend): its expected side effect;
 *  - after its own reset (expecting_cc_ua), any but 28h/00h, which it passes up because
 *    some devices queue a medium change behind the reset's UA;
 *  - the 3Fh/0Eh every other LUN of a target repeats once one has reported it
 *    (expecting_lun_change);
 *  - 04h/01h, the LU becoming ready.
 * The last three not for a TEST UNIT READY of anyone but the error handler, which gets
 * its sense back untouched.  A device handler's UAs (ALUA's 2Ah/06h) are not marked: it
 * acts on them, but they are news.
 */
static bool uae_ua_expected(struct scsi_cmnd *cmd, const struct uae_sense *s)
{
	struct scsi_device *sdev = cmd->device;

	if (s->asc == 0x29 && sdev->silence_suspend)
		return true;
	if (cmd->cmnd[0] == TEST_UNIT_READY && cmd->submitter != SUBMITTED_BY_SCSI_ERROR_HANDLER)
		return false;
	if (sdev->expecting_cc_ua && !(s->asc == 0x28 && s->ascq == 0x00))
		return true;
	if (s->asc == 0x3f && s->ascq == 0x0e && sdev->sdev_target->expecting_lun_change)
		return true;
	return s->asc == 0x04 && s->ascq == 0x01;
}

static void uae_check_sense_hit(struct scsi_cmnd *cmd, unsigned long from)
{
	struct request *rq = scsi_cmd_to_rq(cmd);
	struct uae_sense s;
	struct uae_capture in = {
		.sdev = cmd->device, .rq = rq, .flags = uae_rq_flags(rq), .sense = &s,
		.sense_buf = cmd->sense_buffer, .sense_len = SCSI_SENSE_BUFFERSIZE,
		.opcode = cmd->cmnd[0], .host_byte = host_byte(cmd->result),
		.status = get_status_byte(cmd),
	};

	if (uae_sense_decode(cmd->sense_buffer, SCSI_SENSE_BUFFERSIZE, &s) == UAE_SENSE_INVALID)
		return;
	/*
	 * The error handler's thread: either its own command (TEST UNIT READY, START STOP,
	 * REQUEST SENSE) completed, with cmnd[] its own but the request still the failed
	 * one, or it re-checks sense that was reported when the command failed
	 * (scsi_eh_stu()).  Only a unit attention is news there, the device reports it once;
	 * it carries the error handler's opcode and nothing of the request.  Errors are
	 * reported once final, by block_rq_error.
	 */
	if (current == cmd->device->host->ehandler) {
		if (s.sense_key != UAE_SENSE_KEY_UNIT_ATTENTION)
			return;
		in.rq = NULL;
		in.flags = UAEVENTS_FLAG_ERROR_HANDLER;
	}
	/*
	 * Other sense is reported once final: block I/O by block_rq_error, pass-through
	 * commands and cache flushes by uae_normalize_sense_hit() (where it runs).
	 */
	if (s.sense_key == UAE_SENSE_KEY_UNIT_ATTENTION) {
		in.kind = UAEVENTS_KIND_UA;
		if (uae_ua_expected(cmd, &s))
			in.flags |= UAEVENTS_FLAG_QUIET;
	} else if (!uae_pass_hook && (in.flags & UAEVENTS_FLAG_PASSTHROUGH) &&
		   !(in.flags & UAEVENTS_FLAG_QUIET) &&
		   s.sense_key != UAE_SENSE_KEY_NO_SENSE &&
		   s.sense_key != UAE_SENSE_KEY_RECOVERED_ERROR) {
		in.kind = UAEVENTS_KIND_SGIO;
	} else {
		return;
	}
	uae_capture(&in);
}

/*
 * drivers/scsi/scsi_priv.h, the same in 6.1 and 6.12: scsi_abort_command() queued.  Not
 * in the header packages: kernel/Kbuild checks it in full source trees,
 * tests/checkpatch.sh in 6.1's, and kernel.sh's timeout event on each test kernel.
 */
#define UAE_EH_ABORT_SCHEDULED	0x0002
/* scsi_priv.h's SCSI_CMD_RETRIES_NO_LIMIT, checked the same way. */
#define UAE_CMD_RETRIES_NO_LIMIT	-1

struct uae_timeout_data {
	struct request *rq;
};

static int uae_timeout_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct uae_timeout_data *d = (struct uae_timeout_data *)ri->data;

	d->rq = (struct request *)regs_get_kernel_argument(regs, 0);
	return 0;
}

/*
 * An expired timer is not yet a timeout: the LLD's eh_timed_out() may reset it
 * (virtio_scsi, storvsc, FC and iSCSI with a blocked port do), or the command may have
 * completed meanwhile.  Only once scsi_timeout() has returned do we know whether the
 * midlayer gave up on the command: an abort scheduled, or DID_TIME_OUT set for the
 * error handler.
 */
static int uae_timeout_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct uae_timeout_data *d = (struct uae_timeout_data *)ri->data;
	struct scsi_cmnd *cmd = blk_mq_rq_to_pdu(d->rq);
	struct uae_capture in = {
		.sdev = cmd->device, .rq = d->rq, .kind = UAEVENTS_KIND_TIMEOUT,
		.flags = uae_rq_flags(d->rq), .opcode = cmd->cmnd[0], .host_byte = DID_TIME_OUT,
	};

	if (regs_return_value(regs) != BLK_EH_DONE)
		return 0;
	if (!(READ_ONCE(cmd->eh_eflags) & UAE_EH_ABORT_SCHEDULED) &&
	    host_byte(cmd->result) != DID_TIME_OUT)
		return 0;
	uae_capture(&in);
	return 0;
}

static void uae_block_rq_error(void *data, struct request *rq, blk_status_t error,
			       unsigned int nr_bytes)
{
	struct gendisk *disk = rq->q->disk;
	struct device *parent = disk ? disk_to_dev(disk)->parent : NULL;
	struct scsi_cmnd *cmd;
	struct uae_sense s;
	struct uae_capture in;

	if (parent && uae_nvme_rq_error(rq, error, parent))
		return;
	/* Only requests of SCSI disks carry a scsi_cmnd. */
	if (!parent || !scsi_is_sdev_device(parent))
		return;
	cmd = blk_mq_rq_to_pdu(rq);
	in = (struct uae_capture){
		.sdev = to_scsi_device(parent), .rq = rq, .kind = UAEVENTS_KIND_ERROR,
		.flags = uae_rq_flags(rq), .error = -blk_status_to_errno(error),
	};
	/*
	 * scsi_prepare_cmd() never ran for this request (an empty flush completed by the
	 * flush machinery, a request refused by scsi_queue_rq()): its scsi_cmnd still holds
	 * an earlier request's result, CDB and sense.  Only the errno and the request are its.
	 */
	if (!(rq->rq_flags & RQF_DONTPREP)) {
		in.flags |= UAEVENTS_FLAG_NO_COMMAND;
		uae_capture(&in);
		return;
	}
	in.opcode = cmd->cmnd[0];
	in.host_byte = host_byte(cmd->result);
	in.status = get_status_byte(cmd);
	if (in.status == SAM_STAT_CHECK_CONDITION &&
	    uae_sense_decode(cmd->sense_buffer, SCSI_SENSE_BUFFERSIZE, &s) != UAE_SENSE_INVALID) {
		in.sense = &s;
		in.sense_buf = cmd->sense_buffer;
		in.sense_len = SCSI_SENSE_BUFFERSIZE;
	}
	uae_capture(&in);
}

/*
 * A failed pass-through command (or cache flush, see uae_normalize_sense_hit()):
 * block_rq_error leaves pass-through requests out, and
 * scsi_check_sense() sees only a CHECK CONDITION with DID_OK, as often as the midlayer
 * retries it, and not at all where the device was offline; one failing with a host byte
 * (DID_TRANSPORT_*, DID_ERROR), RESERVATION CONFLICT or BUSY reaches neither.  Every one
 * that was sent reaches scsi_io_completion(), and within it, only for a nonzero result,
 * scsi_command_normalize_sense():
 * once from scsi_io_completion_nz_result(), and a second time from
 * scsi_io_completion_action() when a failed command that moves no data may be retried
 * (both inlined into scsi_io_completion() in Debian's kernels).  Its other callers
 * (sd_done(), scsi_execute_cmd(), trace events; scsi_check_sense() has it inlined) are
 * told apart by the return address: only calls that return into scsi_io_completion()
 * (or its helpers, where a kernel keeps them apart) count.  Of those, the second of a
 * completion is told from the first by uae_second_call() and the sites it learns.
 */

/* Return addresses seen, each with what it is. */
enum uae_site {
	UAE_SITE_OTHER, UAE_SITE_IO_COMPLETION, UAE_SITE_TRAMPOLINE,
	UAE_SITE_SECOND,	/* in scsi_io_completion(), the second call (learned) */
};
#define UAE_SITES	16
static unsigned long uae_site_addr[UAE_SITES];
static u8 uae_site_kind[UAE_SITES];
static DEFINE_RAW_SPINLOCK(uae_site_lock);
/*
 * Calls that returned into a tracer's trampoline: whose they are is unknown, so their
 * failures are lost, and counted in probe_missed.  Only a kprobe hook can see one (a
 * kretprobe or function_graph on scsi_command_normalize_sense() that ran before it
 * has replaced the return address on the stack); ftrace hands an ftrace_ops the return
 * address it read before any tracer ran.
 */
static atomic64_t uae_site_hidden = ATOMIC64_INIT(0);

static enum uae_site uae_site_of(unsigned long from)
{
	/* Not on the stack: this may run in a hard interrupt's completion. */
	static char name[KSYM_SYMBOL_LEN];
	enum uae_site kind = UAE_SITE_OTHER;
	unsigned long flags;
	const char *rest;
	int i;

	for (i = 0; i < UAE_SITES; i++) {
		/* Pairs with the release below: the kind is read after its address. */
		unsigned long a = smp_load_acquire(&uae_site_addr[i]);

		if (a == from)
			return READ_ONCE(uae_site_kind[i]);
		if (!a)
			break;
	}
	/* A call site not seen yet: kallsyms names it ("scsi_io_completion+0x98/0x6c0"). */
	raw_spin_lock_irqsave(&uae_site_lock, flags);
	sprint_symbol(name, from);
	rest = str_has_prefix(name, "scsi_io_completion") ? name + 18 : NULL;
	/* Its helpers too, where a kernel keeps them apart, and compiler clones (.cold). */
	if (rest && (*rest == '+' || *rest == '_' || *rest == '.'))
		kind = UAE_SITE_IO_COMPLETION;
	else if (strstr(name, "trampoline") || str_has_prefix(name, "return_to_handler"))
		kind = UAE_SITE_TRAMPOLINE;
	for (i = 0; i < UAE_SITES; i++) {
		if (READ_ONCE(uae_site_addr[i]) == from)
			break;
		if (!READ_ONCE(uae_site_addr[i])) {
			WRITE_ONCE(uae_site_kind[i], kind);
			/* The kind is visible before the address that finds it. */
			smp_store_release(&uae_site_addr[i], from);
			break;
		}
	}
	raw_spin_unlock_irqrestore(&uae_site_lock, flags);
	return kind;
}

/*
 * The first calls of completions that may make a second: a ring, since a first whose
 * second never comes (a guess of scsi_noretry_cmd() that was wrong) must not stay.  The
 * two calls of one completion come from two call sites, microseconds apart; a later
 * completion of the same command starts again from the first site, which tells its first
 * call from the second of an earlier one.  Only a second call with 64 first calls between
 * it and its own first (none of the kernel's completions nest that deep) would be taken
 * for a first: the command counted twice, never lost.
 */
#define UAE_SECOND_SLOTS	64
struct uae_first_call {
	struct scsi_cmnd *cmd;
	unsigned long from;
};
static struct uae_first_call uae_first_calls[UAE_SECOND_SLOTS];
static unsigned int uae_first_next;
static DEFINE_RAW_SPINLOCK(uae_first_lock);

/*
 * Once the second call's site is certain, the ring is not needed any more.  A pairing
 * can be wrong (a first call missed: the module loaded between the two, the ring
 * wrapped), so a site is taken for the second only after UAE_SECOND_PROOF pairs named it
 * so and none named it the first: were a first call's site taken for the second, every
 * failure reported there would be lost.  Counted under uae_first_lock.
 */
#define UAE_SECOND_PROOF	8
static bool uae_second_site_known;
static unsigned int uae_site_as_first[UAE_SITES], uae_site_as_second[UAE_SITES];

static int uae_site_index(unsigned long from)
{
	for (int i = 0; i < UAE_SITES; i++)
		if (READ_ONCE(uae_site_addr[i]) == from)
			return i;
	return -1;
}

/* A pair: @first's call, then @second's, of one command (under uae_first_lock). */
static void uae_site_pair(unsigned long first, unsigned long second)
{
	int f = uae_site_index(first), s = uae_site_index(second);

	if (f < 0 || s < 0 || uae_second_site_known)
		return;
	uae_site_as_first[f]++;
	if (++uae_site_as_second[s] < UAE_SECOND_PROOF || uae_site_as_first[s])
		return;
	WRITE_ONCE(uae_site_kind[s], UAE_SITE_SECOND);
	/* Pairs with the handler's acquire: known, then its site's kind seen. */
	smp_store_release(&uae_second_site_known, true);
}

/* The second call of @cmd's completion (from another site than its first): forgotten. */
static bool uae_second_call(struct scsi_cmnd *cmd, unsigned long from)
{
	unsigned long flags;
	bool second = false;

	raw_spin_lock_irqsave(&uae_first_lock, flags);
	for (int i = 0; i < UAE_SECOND_SLOTS; i++) {
		struct uae_first_call *f = &uae_first_calls[i];

		if (f->cmd != cmd)
			continue;
		second = f->from != from;
		if (second)
			uae_site_pair(f->from, from);
		f->cmd = NULL;
		break;
	}
	raw_spin_unlock_irqrestore(&uae_first_lock, flags);
	return second;
}

static void uae_first_call(struct scsi_cmnd *cmd, unsigned long from)
{
	unsigned long flags;

	if (READ_ONCE(uae_second_site_known))
		return;

	raw_spin_lock_irqsave(&uae_first_lock, flags);
	uae_first_calls[uae_first_next] = (struct uae_first_call){ .cmd = cmd, .from = from };
	uae_first_next = (uae_first_next + 1) % UAE_SECOND_SLOTS;
	raw_spin_unlock_irqrestore(&uae_first_lock, flags);
}

/*
 * scsi_noretry_cmd() (not exported), for a command without DID_OK and CHECK CONDITION:
 * whether scsi_io_completion() fails a command that moves no data at once, without the
 * second call.  A wrong answer costs nothing (uae_first_call()).  6.12's test of a
 * command duration limit (SCSIML_STAT_DL_TIMEOUT) is left out: only commands with a
 * duration limit descriptor get it, and pass-through commands or cache flushes have none.
 */
static bool uae_noretry(struct scsi_cmnd *cmd, struct request *rq)
{
	bool fail_at_once = rq->cmd_flags & REQ_FAILFAST_DEV || blk_rq_is_passthrough(rq);

	switch (host_byte(cmd->result)) {
	case DID_TIME_OUT:
		return fail_at_once;
	case DID_BUS_BUSY:
		return rq->cmd_flags & REQ_FAILFAST_TRANSPORT;
	case DID_PARITY:
		return rq->cmd_flags & REQ_FAILFAST_DEV;
	case DID_ERROR:
		if (get_status_byte(cmd) == SAM_STAT_RESERVATION_CONFLICT)
			return false;
		fallthrough;
	case DID_SOFT_ERROR:
		return rq->cmd_flags & REQ_FAILFAST_DRIVER;
	}
	return scsi_status_is_check_condition(cmd->result) && fail_at_once;
}

/*
 * Whether scsi_io_completion_action() will send the command again: a retry or a re-prep
 * (scsi_lib.c, the same in 6.1 and 6.12), for this sense (@s, NULL without a current
 * one), until the command's time runs out: scsi_cmd_runtime_exceeced()'s own test, which
 * the midlayer makes microseconds later (only a clock tick in between, at the very end
 * of a command's time, would make them differ).
 */
static bool uae_action_retries(struct scsi_cmnd *cmd, struct request *rq,
			       const struct uae_sense *s)
{
	bool retry = false;

	if (host_byte(cmd->result) == DID_RESET) {
		retry = true;
	} else if (s) {
		switch (s->sense_key) {
		case UAE_SENSE_KEY_UNIT_ATTENTION:
			retry = !cmd->device->removable;
			break;
		case UAE_SENSE_KEY_ILLEGAL_REQUEST:
			retry = cmd->device->use_10_for_rw && s->asc == 0x20 && s->ascq == 0x00 &&
				(cmd->cmnd[0] == READ_10 || cmd->cmnd[0] == WRITE_10);
			break;
		case UAE_SENSE_KEY_NOT_READY:
			if (s->asc != 0x04)
				break;
			switch (s->ascq) {
			case 0x01: case 0x04: case 0x05: case 0x06: case 0x07: case 0x08:
			case 0x09: case 0x0a: case 0x11: case 0x14: case 0x1a: case 0x1b:
			case 0x1d:
				retry = true;
				break;
			}
			break;
		}
	}
	if (!retry || cmd->allowed == UAE_CMD_RETRIES_NO_LIMIT)
		return retry;
	return !time_before(cmd->jiffies_at_alloc + (cmd->allowed + 1) * rq->timeout, jiffies);
}

static void uae_normalize_sense_hit(struct scsi_cmnd *cmd, unsigned long from)
{
	struct request *rq = scsi_cmd_to_rq(cmd);
	bool pass = blk_rq_is_passthrough(rq);
	bool has_sense, second_known;
	struct uae_sense s;
	struct uae_capture in = {
		.sdev = cmd->device, .rq = rq, .flags = uae_rq_flags(rq),
		.kind = pass ? UAEVENTS_KIND_SGIO : UAEVENTS_KIND_ERROR, .opcode = cmd->cmnd[0],
		.host_byte = host_byte(cmd->result), .status = get_status_byte(cmd),
	};

	/*
	 * A user's pass-through command, or a cache flush: the flush machinery's own
	 * request (REQ_OP_FLUSH, SYNCHRONIZE CACHE) has no bio, and blk_update_request()
	 * returns before block_rq_error for a request without one; the requests that waited
	 * for it fail with it there, without a command of their own.  Other block I/O is
	 * block_rq_error's.  The kernel's own requests (RQF_QUIET) expect to fail, and
	 * block_rq_error is silent for a dead disk.
	 */
	if (rq->rq_flags & RQF_QUIET)
		return;
	if (!pass && (req_op(rq) != REQ_OP_FLUSH || rq->bio || !rq->q->disk ||
		      test_bit(GD_DEAD, &rq->q->disk->state)))
		return;
	/*
	 * Not a failure: CONDITION MET and the like count as good, whatever the host byte
	 * (scsi_io_completion_nz_result()); GOOD only with DID_OK.
	 */
	if ((in.host_byte == DID_OK || in.status) && scsi_status_is_good(cmd->result))
		return;
	/* Before the site's kind is read: once known, that kind says SECOND (release). */
	second_known = smp_load_acquire(&uae_second_site_known);
	switch (from ? uae_site_of(from) : UAE_SITE_OTHER) {
	case UAE_SITE_IO_COMPLETION:
		break;
	case UAE_SITE_TRAMPOLINE:
		atomic64_inc(&uae_site_hidden);
		return;
	default:
		return;
	}
	if (!second_known && uae_second_call(cmd, from))
		return;
	/* Like the midlayer, whatever the status: the buffer holds sense or it does not. */
	has_sense = uae_sense_decode(cmd->sense_buffer, SCSI_SENSE_BUFFERSIZE, &s) !=
		    UAE_SENSE_INVALID;
	/*
	 * scsi_io_completion_nz_result() takes RECOVERED ERROR for success, and a flush's
	 * deferred sense too (it concerns an earlier command; SG_IO hands it to its user).
	 */
	if (has_sense && (s.sense_key == UAE_SENSE_KEY_RECOVERED_ERROR || (!pass && s.deferred)))
		return;
	/*
	 * A CHECK CONDITION's unit attention is news of its own, reported as one by
	 * uae_check_sense_hit() where it saw it (DID_OK); its NO SENSE reports nothing.
	 */
	if (has_sense && in.status == SAM_STAT_CHECK_CONDITION && in.host_byte == DID_OK &&
	    (s.sense_key == UAE_SENSE_KEY_UNIT_ATTENTION || s.sense_key == UAE_SENSE_KEY_NO_SENSE))
		return;
	/*
	 * A failed command that moves no data and may be retried goes on to
	 * scsi_io_completion_action(), the second call, which may send it again: that
	 * attempt is not the final answer, and not reported.
	 */
	if (blk_rq_bytes(rq) == 0 && !uae_noretry(cmd, rq)) {
		uae_first_call(cmd, from);
		if (uae_action_retries(cmd, rq, has_sense && !s.deferred ? &s : NULL))
			return;
	}
	/* Sense belongs to a CHECK CONDITION; without one the buffer holds nothing of this. */
	if (has_sense && in.status == SAM_STAT_CHECK_CONDITION) {
		in.sense = &s;
		in.sense_buf = cmd->sense_buffer;
		in.sense_len = SCSI_SENSE_BUFFERSIZE;
	}
	uae_capture(&in);
}

/*
 * An entry hook: @fn gets the probed function's first argument and where it returns
 * to (0 where that is unknown).  A hit that the kernel will not hand over is skipped
 * and counted: for an ftrace op, one inside other ftrace callbacks already nested in
 * the same context (the recursion guard is shared by every ftrace user); for a kprobe,
 * one while any kprobe handler runs on the CPU.
 */
struct uae_entry_hook {
	void *addr;
	void (*fn)(struct scsi_cmnd *cmd, unsigned long from);
#if UAE_FTRACE_HOOKS
	struct ftrace_ops ops;
	atomic64_t missed;
#else
	struct kprobe kp;
#endif
};

#if UAE_FTRACE_HOOKS
static void notrace uae_entry_ftrace(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct uae_entry_hook *hook = container_of(op, struct uae_entry_hook, ops);
	int bit;

	/* Also keeps preemption off while the handler runs, as a kprobe's would. */
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0 || !fregs) {
		atomic64_inc(&hook->missed);
		if (bit >= 0)
			ftrace_test_recursion_unlock(bit);
		return;
	}
	hook->fn((struct scsi_cmnd *)uae_fregs_arg0(fregs), parent_ip);
	ftrace_test_recursion_unlock(bit);
}

static int uae_entry_hook_register(struct uae_entry_hook *hook)
{
	int ret;

	hook->ops.func = uae_entry_ftrace;
	/* kernel.ftrace_enabled=0 would silence it: refused (EBUSY) while it is registered. */
	hook->ops.flags = FTRACE_OPS_FL_PERMANENT;
	/* The function's start: ftrace finds its __fentry__ call past an ENDBR. */
	ret = ftrace_set_filter_ip(&hook->ops, (unsigned long)hook->addr, 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_function(&hook->ops);
	if (ret)
		ftrace_free_filter(&hook->ops);
	return ret;
}

static void uae_entry_hook_unregister(struct uae_entry_hook *hook)
{
	/*
	 * Returns once no handler runs any more (the ops lives in a module).  It fails only
	 * when ftrace itself was shut down by an ftrace_bug(): say so, the call sites may
	 * still lead here.
	 */
	WARN_ON(unregister_ftrace_function(&hook->ops));
	ftrace_free_filter(&hook->ops);
}

static u64 uae_entry_hook_missed(struct uae_entry_hook *hook)
{
	return atomic64_read(&hook->missed);
}
#else
/* Where the probed function returns to: its caller (uae_pass_hook: known here). */
static unsigned long uae_return_address(struct pt_regs *regs)
{
#if defined(CONFIG_X86)
	return regs_get_kernel_stack_nth(regs, 0);
#elif defined(CONFIG_ARM64)
	return procedure_link_pointer(regs);
#else
	return 0;
#endif
}

static int uae_entry_kprobe(struct kprobe *kp, struct pt_regs *regs)
{
	struct uae_entry_hook *hook = container_of(kp, struct uae_entry_hook, kp);

	hook->fn((struct scsi_cmnd *)regs_get_kernel_argument(regs, 0),
		 uae_return_address(regs));
	return 0;
}

static int uae_entry_hook_register(struct uae_entry_hook *hook)
{
	hook->kp.addr = (kprobe_opcode_t *)hook->addr;
	hook->kp.pre_handler = uae_entry_kprobe;
	return register_kprobe(&hook->kp);
}

static void uae_entry_hook_unregister(struct uae_entry_hook *hook)
{
	/* Returns once no handler runs any more. */
	unregister_kprobe(&hook->kp);
}

static u64 uae_entry_hook_missed(struct uae_entry_hook *hook)
{
	/* The kernel's own counter, read without its lock (it only grows). */
	return data_race(hook->kp.nmissed);
}
#endif

/* Taking the addresses makes scsi_mod a hard dependency of this module. */
static struct uae_entry_hook uae_check_sense_hook = {
	.addr = scsi_check_sense, .fn = uae_check_sense_hit,
};

static struct uae_entry_hook uae_normalize_sense_hook = {
	.addr = scsi_command_normalize_sense, .fn = uae_normalize_sense_hit,
};

static struct kretprobe uae_timeout_probe = {
	.kp.symbol_name = "scsi_timeout",
	.entry_handler = uae_timeout_entry,
	.handler = uae_timeout_ret,
	.data_size = sizeof(struct uae_timeout_data),
	/* .maxactive: set at init, from the number of CPUs. */
};

static struct tracepoint *uae_rq_error_tp;

static void uae_find_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "block_rq_error"))
		uae_rq_error_tp = tp;
}

int uae_hooks_init(void)
{
	int ret;

	ret = uae_entry_hook_register(&uae_check_sense_hook);
	if (ret) {
		pr_err("cannot hook scsi_check_sense: %d%s\n", ret,
		       ret == -EBUSY ? " (kernel.ftrace_enabled is 0)" : "");
		return ret;
	}
	/*
	 * Timers expire from kblockd's work items, at most a few running per CPU at once.
	 * The kernel's default, twice the CPUs, leaves no slack; a call that finds no free
	 * instance is skipped and counted in nmissed, which GET_STATS reports as a loss.
	 */
	uae_timeout_probe.maxactive = max_t(int, 64, 4 * num_possible_cpus());
	ret = register_kretprobe(&uae_timeout_probe);
	if (ret) {
		pr_err("cannot probe scsi_timeout: %d\n", ret);
		goto out_sense;
	}
	ret = uae_pass_hook ? uae_entry_hook_register(&uae_normalize_sense_hook) : 0;
	if (ret) {
		pr_err("cannot hook scsi_command_normalize_sense: %d\n", ret);
		goto out_timeout;
	}
	for_each_kernel_tracepoint(uae_find_tracepoint, NULL);
	if (!uae_rq_error_tp) {
		pr_err("no block_rq_error tracepoint in this kernel\n");
		ret = -ENOENT;
		goto out_normalize;
	}
	ret = tracepoint_probe_register(uae_rq_error_tp, uae_block_rq_error, NULL);
	if (ret) {
		pr_err("cannot attach to block_rq_error: %d\n", ret);
		goto out_normalize;
	}
	return 0;

out_normalize:
	if (uae_pass_hook)
		uae_entry_hook_unregister(&uae_normalize_sense_hook);
out_timeout:
	unregister_kretprobe(&uae_timeout_probe);
out_sense:
	uae_entry_hook_unregister(&uae_check_sense_hook);
	return ret;
}

u64 uae_hooks_missed(void)
{
	u64 timeouts;

	/*
	 * Timeouts that found no free kretprobe instance: the kernel's own counters, read
	 * without its locks (they only grow).
	 */
	timeouts = data_race((u64)uae_timeout_probe.kp.nmissed + uae_timeout_probe.nmissed);
	/* And hits the kernel did not hand over (struct uae_entry_hook). */
	return timeouts + uae_entry_hook_missed(&uae_check_sense_hook) +
	       uae_entry_hook_missed(&uae_normalize_sense_hook) + atomic64_read(&uae_site_hidden);
}

void uae_hooks_exit(void)
{
	tracepoint_probe_unregister(uae_rq_error_tp, uae_block_rq_error, NULL);
	/* Each returns once no handler runs any more. */
	if (uae_pass_hook)
		uae_entry_hook_unregister(&uae_normalize_sense_hook);
	unregister_kretprobe(&uae_timeout_probe);
	uae_entry_hook_unregister(&uae_check_sense_hook);
	tracepoint_synchronize_unregister();
}
