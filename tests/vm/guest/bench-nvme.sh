#!/bin/sh
# tap-plan: 1
# make bench's NVMe figures, each against the stock path in this one VM, on namespaces of
# the kernel's NVMe target (nvmet over loop on 6.12, over TCP on 127.0.0.1 on 6.1; each on
# a null_blk device: no I/O leaves the guest, whose clock counts instructions):
# successful I/O with and without uaevents, with the kernel's count of the module's NVMe
# hooks run meanwhile; and the failure path, failing reads of a bad block, with and
# without the module and a subscriber.  (QEMU's emulated NVMe controller loses commands
# under queue depth 32 in TCG: timeouts and controller resets, no figure to trust.)
. /bin/lib.sh

RUNS=${RUNS:-7}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
# Each run 3 s after the last module load or unload (bench-lib.sh's after_settle says why); the
# guest clock skips idle time, so the wait costs no host time.
SETTLE=${SETTLE:-3}

. /bin/bench-lib.sh
. /bin/nvme-lib.sh

tap_diag "BENCH-KERNEL $(uname -r)"
# The random pool first (bench.sh says why).
dd if=/dev/random of=/dev/null bs=1 count=1 2>/dev/null
start_journald >/dev/null 2>&1
# uaevents.ko needs the SCSI midlayer, as every kernel here has it.
kmod_load sd_mod
# fast_namespace: namespace 3 on null_blk without backing memory (reads return what they
# return, writes go nowhere): the NVMe host path's cost alone.
fast_namespace() {
	nb=/sys/kernel/config/nullb/nullb1
	mkdir "$nb" && echo 64 >"$nb/size" && echo 1 >"$nb/power" || return 1
	wait_for 10 test -b /dev/nullb1 || return 1
	mkdir "$CFG/subsystems/$NQN/namespaces/3" &&
		echo -n /dev/nullb1 >"$CFG/subsystems/$NQN/namespaces/3/device_path" &&
		echo 1 >"$CFG/subsystems/$NQN/namespaces/3/enable"
}
# nullb_namespace (nvme-lib.sh) loads null_blk, and makes namespace 2 with its bad blocks.
if ! { target_setup && host_load && connect && nullb_namespace && fast_namespace &&
	wait_for 30 our_disk 2 >/dev/null && wait_for 30 our_disk 3 >/dev/null; }; then
	tap_result 1 "nvmet's namespaces on null_blk over $TRANSPORT"
	exit 1
fi
DISK=$(our_disk 3)
BAD=$(our_disk 2)
tap_diag "nvmet over $TRANSPORT: namespace 3 $DISK, namespace 2 (bad blocks) $BAD"

# ---- 1. successful I/O on the NVMe namespace: 4k random reads and writes, QD 1 and 32 ----
iops randread 1 >/dev/null	# warm-up
# What shows that successful NVMe I/O pays nothing: none of the module's NVMe hooks runs
# during it, as the kernel counts (kprobe_profile's hits of a kprobe event on each probed
# function, the trace buffer's lines of each tracepoint the module attaches to).
TRACEFS=/sys/kernel/tracing
[ -e "$TRACEFS/kprobe_events" ] || mount -t tracefs nodev "$TRACEFS" 2>/dev/null
hook_counts_on() {
	echo 'p:uae_bench/uae_bench_ana nvme_update_ana_state' >"$TRACEFS/kprobe_events" &&
		echo 'p:uae_bench/uae_bench_uninit nvme_uninit_ctrl' >>"$TRACEFS/kprobe_events" &&
		echo 'p:uae_bench/uae_bench_sync __nvme_submit_sync_cmd' >>"$TRACEFS/kprobe_events" &&
		echo 1 >"$TRACEFS/events/uae_bench/enable" &&
		echo 1 >"$TRACEFS/events/block/block_rq_error/enable" &&
		echo 1 >"$TRACEFS/events/nvme/nvme_async_event/enable" && : >"$TRACEFS/trace"
}
hook_calls() {
	probes=$(awk '$1 ~ /^uae_bench_/ { n += $2 } END { print n + 0 }' "$TRACEFS/kprobe_profile")
	tp=$(grep -c -E 'block_rq_error:|nvme_async_event:' "$TRACEFS/trace")
	echo $((probes + tp))
}
# Each one's count, for the figure's detail.
hook_calls_each() {
	awk '$1 ~ /^uae_bench_/ { printf "%s %s, ", $1, $2 }' "$TRACEFS/kprobe_profile"
	echo "block_rq_error $(grep -c 'block_rq_error:' "$TRACEFS/trace"), nvme_async_event $(grep -c 'nvme_async_event:' "$TRACEFS/trace")"
}
hook_counts_off() {
	# The trigger keeps its event in use: off first, or the probes cannot be removed.
	echo '!stacktrace:3' >"$TRACEFS/events/uae_bench/uae_bench_sync/trigger" 2>/dev/null
	echo 0 >"$TRACEFS/events/uae_bench/enable"
	echo 0 >"$TRACEFS/events/block/block_rq_error/enable"
	echo 0 >"$TRACEFS/events/nvme/nvme_async_event/enable"
	echo >"$TRACEFS/kprobe_events"
}
hook_counts_on
counting=$?
# Who calls __nvme_submit_sync_cmd meanwhile, if anything does: its first stacks.
echo 'stacktrace:3' >"$TRACEFS/events/uae_bench/uae_bench_sync/trigger" 2>/dev/null
WITH=${IO_WITH:-}
for rw in randread randwrite; do
	for qd in 1 32; do
		alternate "$RUNS" /tmp/stock /tmp/loaded iops "$rw" "$qd"
		compare "nvme-io-$rw-qd$qd" IOPS 0.99 /tmp/stock /tmp/loaded \
			"4k $rw on an NVMe namespace (nvmet over $TRANSPORT, null_blk), queue depth $qd, ${WITH:-with_pipeline}"
	done
done
WITH=
if [ "$counting" -eq 0 ]; then
	figure nvme-io-hook-calls "$(hook_calls)" "==" 0 calls \
		"calls of nvme_update_ana_state, nvme_uninit_ctrl and __nvme_submit_sync_cmd, and the block_rq_error and nvme_async_event tracepoints, during all the successful NVMe I/O runs above, as the kernel counted them ($(hook_calls_each)): the module's NVMe handlers run on nothing else"
else
	figure nvme-io-hook-calls -1 "==" 0 calls "tracefs' kprobe events could not be set up: not counted"
fi
grep -A 12 'uae_bench_sync' "$TRACEFS/trace" | head -n 40 | while read -r line; do
	tap_diag "sync command: $line"
done
hook_counts_off

# ---- 2. the failure path: reads failing for good (INTERNAL ERROR with DNR: no retry) ----
# Failed reads per second of one bad block of nvmet's namespace 2 (nvme-lib.sh), with the
# module and one subscriber against without.  Each is a block_rq_error the module captures
# and coalesces.
# The kernel logs each failed read (rate-limited): keep the serial console out of it.
dmesg -n 1
# failed_per_s: one run's failed reads per second (fio counts them, going on after each).
failed_per_s() {
	fio --name=bad --filename="/dev/$BAD" --rw=read --bs=4k --offset=1m --size=4k \
		--direct=1 --ioengine=psync --continue_on_error=all --runtime="$SECONDS_PER_RUN" \
		--time_based --output-format=json --output=/tmp/fio-bad.json >/dev/null 2>&1
	jq '.jobs[0] | (.total_err / (.job_runtime / 1000)) | floor' /tmp/fio-bad.json
}
f=$(failed_per_s)
tap_diag "failed reads per second, stock, warm-up: $f"
WITH=with_subscriber
alternate "${FAIL_RUNS:-7}" /tmp/fstock /tmp/floaded failed_per_s
compare nvme-failure-path "failed reads/s" 0.9 /tmp/fstock /tmp/floaded \
	"reads of a bad block of an nvmet namespace (null_blk, over $TRANSPORT), failing with INTERNAL ERROR and DNR; uaevents.ko and one uaectl monitor"
WITH=with_pipeline
alternate "${FAIL_RUNS:-7}" /tmp/fstock /tmp/floaded failed_per_s
WITH=
compare nvme-failure-path-pipeline "failed reads/s" "" /tmp/fstock /tmp/floaded \
	"the same with uaeventd logging to the journal and the subscriber"
tap_result "$([ "${f:-0}" -gt 0 ]; echo $?)" "NVMe benchmark ran (failing reads counted: ${f:-none})"
