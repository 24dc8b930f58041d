#!/bin/sh
# make bench: successful I/O with uaevents.ko loaded against the stock path, in one VM.
# fio 4k random reads on scsi_debug (delay=0: no simulated latency, so any cost shows),
# runs alternating without and with the module (and a subscriber), medians compared.
. /bin/lib.sh

RUNS=${RUNS:-9}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-4}

start_journald >/dev/null 2>&1
kmod_load sd_mod
kmod_load sg
kmod_load scsi_debug dev_size_mb=64 delay=0 max_luns=1 num_tgts=1
wait_for 30 scsi_debug_disk >/dev/null || { tap_result 1 "scsi_debug disk"; exit 1; }
DISK=$(scsi_debug_disk)

iops() {
	fio --name=bench --filename="/dev/$DISK" --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --runtime="$SECONDS_PER_RUN" --time_based --output-format=json |
		jq '.jobs[0].read.iops | floor'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# with_module COMMAND...: COMMAND with uaevents.ko loaded and a subscriber reading.
with_module() {
	insmod /modules/uaevents.ko
	uaectl monitor --json >/dev/null &
	mon=$!
	"$@"
	kill "$mon"
	rmmod uaevents
}

# alternate RUNS STOCK LOADED COMMAND...: COMMAND's figures without and with the module,
# RUNS each, alternating which goes first so that drift in the emulator favours neither.
alternate() {
	runs=$1 stock_out=$2 loaded_out=$3
	shift 3
	: >"$stock_out"
	: >"$loaded_out"
	for i in $(seq "$runs"); do
		if [ $((i % 2)) -eq 1 ]; then
			"$@" >>"$stock_out"
			with_module "$@" >>"$loaded_out"
		else
			with_module "$@" >>"$loaded_out"
			"$@" >>"$stock_out"
		fi
	done
}

iops >/dev/null	# warm-up: caches, page tables, the emulator's translation cache
alternate "$RUNS" /tmp/stock /tmp/loaded iops
stock=$(median </tmp/stock)
loaded=$(median </tmp/loaded)
tap_diag "stock IOPS per run:  $(tr '\n' ' ' </tmp/stock)"
tap_diag "loaded IOPS per run: $(tr '\n' ' ' </tmp/loaded)"
tap_diag "$(awk -v s="$stock" -v l="$loaded" 'BEGIN { printf "median IOPS: stock %d, with uaevents.ko %d, ratio %.3f", s, l, l / s }')"
tap_result $([ "$stock" -gt 0 ] && [ "$loaded" -gt 0 ]; echo $?) "benchmark ran ($RUNS runs of ${SECONDS_PER_RUN}s each way)"

# ---- the failure path: a sustained storm of failing pass-through commands ----
# Every TEST UNIT READY fails with ILLEGAL REQUEST (6.12's scsi_debug error injection);
# failing commands per second with the module, its default coalescing and a subscriber,
# against without.  Goal: at least 0.9.
HCTL=$(basename "$(readlink "/sys/block/$DISK/device")")
SG=$(ls "/sys/block/$DISK/device/scsi_generic/")
ERRFILE=$(sdebug_error_file)
FAIL_CMDS=${FAIL_CMDS:-20000}
turs_per_s() {
	sg_turs -t -n "$FAIL_CMDS" "/dev/$SG" 2>&1 |
		sed -n 's/.*; \([0-9.]*\) operations\/sec.*/\1/p' | cut -d. -f1
}
if [ -n "$ERRFILE" ]; then
	# scsi_debug logs every injected failure: keep the serial console out of the figure.
	dmesg -n 1
	echo "2 1 0x00 0 0 0x2 0x5 0x24 0x00" >"$ERRFILE"
	turs_per_s >/dev/null	# warm-up
	alternate "${FAIL_RUNS:-5}" /tmp/fstock /tmp/floaded turs_per_s
	echo "- 0x00" >"$ERRFILE"
	fstock=$(median </tmp/fstock)
	floaded=$(median </tmp/floaded)
	tap_diag "failing commands/s per run, stock:  $(tr '\n' ' ' </tmp/fstock)"
	tap_diag "failing commands/s per run, loaded: $(tr '\n' ' ' </tmp/floaded)"
	tap_diag "$(awk -v s="$fstock" -v l="$floaded" 'BEGIN { printf "failure path: median %d failing commands/s stock, %d with uaevents.ko, ratio %.3f (goal >= 0.9)", s, l, l / s }')"
	tap_result $([ "${fstock:-0}" -gt 0 ] && [ "${floaded:-0}" -gt 0 ]; echo $?) \
		"failure-path benchmark ran ($FAIL_CMDS failing commands per run)"
else
	tap_diag "no scsi_debug error injection on $(uname -r): failure path not measured"
fi

# ---- kernel memory held for queued events: the pool, as /proc/vmallocinfo shows it ----
insmod /modules/uaevents.ko
pool=$(grep -m 1 'uae_capture_init' /proc/vmallocinfo | awk '{ print $2 }')
pending=$(cat /sys/module/uaevents/parameters/max_pending)
tap_diag "$(awk -v b="$pool" -v n="$pending" 'BEGIN { printf "event pool: %d bytes for max_pending %d: %d bytes per 1,000 queued events (allocated at load)", b, n, b / n * 1000 }')"
tap_result $([ "${pool:-0}" -gt 0 ]; echo $?) "the event pool shows in /proc/vmallocinfo"
rmmod uaevents
echo "1..$tap_n" >"$TAP"
