#!/bin/sh
# make bench: successful I/O with uaevents.ko loaded against the stock path, in one VM.
# fio 4k random reads on scsi_debug (delay=0: no simulated latency, so any cost shows),
# runs alternating without and with the module (and a subscriber), medians compared.
. /bin/lib.sh

RUNS=${RUNS:-9}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-4}

start_journald >/dev/null 2>&1
kmod_load sd_mod
kmod_load scsi_debug dev_size_mb=64 delay=0 max_luns=1 num_tgts=1
wait_for 30 scsi_debug_disk >/dev/null || { tap_result 1 "scsi_debug disk"; exit 1; }
DISK=$(scsi_debug_disk)

iops() {
	fio --name=bench --filename="/dev/$DISK" --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --runtime="$SECONDS_PER_RUN" --time_based --output-format=json |
		jq '.jobs[0].read.iops | floor'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

iops >/dev/null	# warm-up: caches, page tables, the emulator's translation cache
: >/tmp/stock
: >/tmp/loaded
measure_loaded() {
	insmod /modules/uaevents.ko
	uaectl monitor --json >/dev/null &
	mon=$!
	iops >>/tmp/loaded
	kill "$mon"
	rmmod uaevents
}

# Alternate which goes first, so that drift in the emulator favours neither.
for i in $(seq "$RUNS"); do
	if [ $((i % 2)) -eq 1 ]; then
		iops >>/tmp/stock
		measure_loaded
	else
		measure_loaded
		iops >>/tmp/stock
	fi
done
stock=$(median </tmp/stock)
loaded=$(median </tmp/loaded)
tap_diag "stock IOPS per run:  $(tr '\n' ' ' </tmp/stock)"
tap_diag "loaded IOPS per run: $(tr '\n' ' ' </tmp/loaded)"
tap_diag "$(awk -v s="$stock" -v l="$loaded" 'BEGIN { printf "median IOPS: stock %d, with uaevents.ko %d, ratio %.3f", s, l, l / s }')"
tap_result $([ "$stock" -gt 0 ] && [ "$loaded" -gt 0 ]; echo $?) "benchmark ran ($RUNS runs of ${SECONDS_PER_RUN}s each way)"
echo "1..$tap_n" >"$TAP"
