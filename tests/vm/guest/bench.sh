#!/bin/sh
# tap-plan: 1
# make bench: what uaevents costs and how it behaves under load, each figure measured in
# this one VM against the stock path (docs/benchmarks.md says how to read them).  Every
# figure is printed as a TAP diagnostic "# BENCH {json}", which tests/bench/report.sh turns
# into the table and the JSON file.
. /bin/lib.sh

RUNS=${RUNS:-7}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}

. /bin/bench-lib.sh

tap_diag "BENCH-KERNEL $(uname -r)"
# The kernel's random pool initialised before any figure: the VM has no entropy source, and
# the first getrandom() (json-c seeds its hash tables from it: uaectl, uaeventd) would
# spend half a second generating entropy inside whichever figure made it first.
dd if=/dev/random of=/dev/null bs=1 count=1 2>/dev/null
start_journald >/dev/null 2>&1
kmod_load sd_mod
kmod_load sg
# delay=0: no simulated latency, so any cost shows.  Four LUs for the storm of figure 3.
kmod_load scsi_debug dev_size_mb=64 delay=0 max_luns=4 num_tgts=1
wait_for 30 scsi_debug_disk >/dev/null || { tap_result 1 "scsi_debug disk"; exit 1; }
DISK=$(scsi_debug_disk)
HCTL=$(basename "$(readlink "/sys/block/$DISK/device")")
JOURNALD=$(pidof systemd-journald)

# A kprobe on scsi_check_sense whose event a filter discards: the probe mechanism alone.
with_bare_kprobe() {
	echo 'p:uae_bench/uae_bench_bare scsi_check_sense' >>"$TRACEFS/kprobe_events"
	echo 'common_pid < 0' >"$TRACEFS/events/uae_bench/uae_bench_bare/filter"
	echo 1 >"$TRACEFS/events/uae_bench/uae_bench_bare/enable"
	"$@"
	echo 0 >"$TRACEFS/events/uae_bench/uae_bench_bare/enable"
	echo '-:uae_bench/uae_bench_bare' >>"$TRACEFS/kprobe_events"
}

# ---- 1. successful I/O: 4k random reads and writes, queue depth 1 and 32 ----
iops randread 1 >/dev/null	# warm-up: caches, page tables, the emulator's translation cache
# The ratios cannot show a cost of 1 % under TCG; what shows that successful I/O pays
# nothing is that none of the functions the module hooks runs during it.  The kernel
# counts that itself: a kprobe event on each hooked function (kprobe_profile's hits) and
# the block_rq_error tracepoint's own event (lines in the trace buffer).
TRACEFS=/sys/kernel/tracing
[ -e "$TRACEFS/kprobe_events" ] || mount -t tracefs nodev "$TRACEFS" 2>/dev/null
hook_counts_on() {
	echo 'p:uae_bench/uae_bench_check_sense scsi_check_sense' >"$TRACEFS/kprobe_events" &&
		echo 'p:uae_bench/uae_bench_timeout scsi_timeout' >>"$TRACEFS/kprobe_events" &&
		echo 'p:uae_bench/uae_bench_normalize scsi_command_normalize_sense' \
			>>"$TRACEFS/kprobe_events" &&
		echo 1 >"$TRACEFS/events/uae_bench/enable" &&
		echo 1 >"$TRACEFS/events/block/block_rq_error/enable" && : >"$TRACEFS/trace"
}
# hook_calls: calls of the hooked functions since hook_counts_on.
hook_calls() {
	# kprobe_profile: "EVENT HITS MISSES", the event without its group.
	probes=$(awk '$1 ~ /^uae_bench_/ { n += $2 } END { print n + 0 }' "$TRACEFS/kprobe_profile")
	tp=$(grep -c 'block_rq_error:' "$TRACEFS/trace")
	echo $((probes + tp))
}
hook_counts_off() {
	echo 0 >"$TRACEFS/events/uae_bench/enable"
	echo 0 >"$TRACEFS/events/block/block_rq_error/enable"
	echo >"$TRACEFS/kprobe_events"
}
hook_counts_on
counting=$?
for rw in randread randwrite; do
	for qd in 1 32; do
		alternate "$RUNS" /tmp/stock /tmp/loaded iops "$rw" "$qd"
		compare "io-$rw-qd$qd" IOPS 0.99 /tmp/stock /tmp/loaded "4k $rw, queue depth $qd"
	done
done
if [ "$counting" -eq 0 ]; then
	figure io-hook-calls "$(hook_calls)" "==" 0 calls \
		"calls of scsi_check_sense, scsi_timeout, scsi_command_normalize_sense and block_rq_error during all the successful I/O runs above, as the kernel counted them (kprobe_profile, the trace buffer): the module's handlers run on nothing else"
else
	figure io-hook-calls -1 "==" 0 calls "tracefs' kprobe events could not be set up: not counted"
fi
hook_counts_off

# ---- 2. the failure path: a sustained storm of failing pass-through commands ----
# Every TEST UNIT READY fails with ILLEGAL REQUEST (6.12's scsi_debug error injection):
# failing commands per second with the pipeline against without.
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
	WITH=with_subscriber
	alternate "${FAIL_RUNS:-7}" /tmp/fstock /tmp/floaded turs_per_s
	WITH=
	compare failure-path "failing commands/s" 0.9 /tmp/fstock /tmp/floaded \
		"$FAIL_CMDS failing TEST UNIT READYs a run, uaevents.ko and one uaectl monitor"
	fp=$ratio
	# The whole pipeline: uaeventd and journald too, on the same one virtual CPU.
	alternate "${FAIL_RUNS:-7}" /tmp/fstock /tmp/floaded turs_per_s
	compare failure-path-pipeline "failing commands/s" "" /tmp/fstock /tmp/floaded \
		"the same with uaeventd logging to the journal and the subscriber"
	# Where the time goes: the same with uaevents.ko alone (no subscriber), and with
	# nothing but a kprobe on scsi_check_sense whose event a filter discards (the probe
	# mechanism, an upper bound of what any kprobe costs there).
	WITH=with_module
	alternate "${FAIL_RUNS:-7}" /tmp/fstock /tmp/floaded turs_per_s
	WITH=
	compare failure-path-module "failing commands/s" 0.9 /tmp/fstock /tmp/floaded \
		"the same with uaevents.ko alone, no uaeventd or subscriber"
	fpm=$ratio
	if [ "$counting" -eq 0 ]; then
		WITH=with_bare_kprobe
		alternate "${FAIL_RUNS:-7}" /tmp/fstock /tmp/floaded turs_per_s
		WITH=
		compare failure-path-kprobe "failing commands/s" "" /tmp/fstock /tmp/floaded \
			"the same with only a kprobe on scsi_check_sense whose trace event (fetched, then filtered) is discarded"
		fpk=$ratio
	else
		figure failure-path-kprobe -1 "" "" ratio "tracefs' kprobe events could not be set up: not measured"
		fpk=1
	fi
	figure failure-path-where "$(awk -v a="$fp" -v b="$fpm" -v c="$fpk" 'BEGIN {
		loss = 1 - a; if (loss <= 0) { print 0; exit } printf "%.2f", (1 - c) / loss }')" \
		"" "" "share" "of the time lost per failing command with the module and a subscriber (1 - $fp), the kprobe mechanism's (1 - $fpk); uaevents.ko's handlers the rest of the module's (1 - $fpm), the subscriber what is left"
	echo "- 0x00" >"$ERRFILE"
else
	tap_diag "no scsi_debug error injection on $(uname -r): figures 2 and 3 not measured"
fi

# ---- 3. delivery under load: distinct events as fast as the VM raises them ----
# Four LUs, each failing every TEST UNIT READY with its own ILLEGAL REQUEST code, driven
# at once.  Coalescing is off, so each failing command is an event of its own, as distinct
# events are under the default window.  Counted: events raised (commands failed), reaching
# the subscriber, reaching the journal through uaeventd, the losses and the gaps reported,
# and CPU seconds per 1,000 events: the kernel's (against the same storm without the
# module), uaeventd's and journald's.
STORM_CMDS=${STORM_CMDS:-2000}
LUS=$(ls -d /sys/class/scsi_device/"${HCTL%:*}":* | xargs -n 1 basename)
# storm: prints how many commands failed.
storm() {
	for lu in $LUS; do
		sg_turs -n "$STORM_CMDS" "/dev/$(ls "/sys/class/scsi_device/$lu/device/scsi_generic/")" \
			>"/tmp/turs.$lu" 2>&1 &
	done
	wait
	cat /tmp/turs.* | sed -n 's/.* with \([0-9]*\) errors.*/\1/p' | awk '{ n += $1 } END { print n + 0 }'
}
# inject_storm CODE...: each LU fails every TEST UNIT READY with its own ASC; none: stop.
inject_storm() {
	for lu in $LUS; do
		if [ $# -gt 0 ]; then
			echo "2 1 0x00 0 0 0x2 0x5 $1 0x00"
			shift
		else
			echo "- 0x00"
		fi >"/sys/kernel/debug/scsi_debug/$lu/error"
	done
}
at_subscriber() { grep -c '"kind": *"sgio"' /tmp/storm.json; }
in_journal() { journalctl -t uaeventd UAEVENTS_KIND=sgio -q -o cat 2>/dev/null | wc -l; }
if [ -n "$ERRFILE" ]; then
	inject_storm 0x24 0x20 0x26 0x1a
	k0=$(kernel_cpu); t0=$(now); stock_raised=$(storm); t1=$(now); k1=$(kernel_cpu)
	stock_kernel=$(elapsed "$k0" "$k1") stock_s=$(elapsed "$t0" "$t1")
	pipeline_up coalesce_ms=0 /tmp/storm.json >/dev/null 2>&1
	j_before=$(in_journal)
	u0=$(cpu_of "$UAED") j0=$(cpu_of "$JOURNALD")
	k0=$(kernel_cpu); t0=$(now); raised=$(storm); t1=$(now); k1=$(kernel_cpu)
	# One more event of the group after the storm: a hole at the storm's end shows as a gap.
	uaectl inject --hctl "$HCTL" --kind sgio --sense 700005000000000a00000000210000000000 >/dev/null
	settle at_subscriber
	got=$((settled - 1)) t_sub=$settled_at
	settle in_journal
	inj=$((settled - j_before)) t_jrn=$settled_at
	u1=$(cpu_of "$UAED") j1=$(cpu_of "$JOURNALD")
	gaps=$(jq -s 'map(select(.kind == "gap") | .gap) | add // 0' /tmp/storm.json)
	status=$(uaectl status --json | jq -c '{lost_unread, queue_full, mcast_overflow, coalesced}')
	pipeline_down
	inject_storm
	per_k() { awk -v c="$1" -v n="$raised" 'BEGIN { printf "%.3f", (n > 0 ? c / n * 1000 : 0) }'; }
	rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }'; }
	kern=$(awk -v a="$(elapsed "$k0" "$k1")" -v b="$stock_kernel" 'BEGIN { printf "%.3f", a - b }')
	figure delivery-subscriber "$(rate "$got" "$(elapsed "$t0" "$t_sub")")" "" "" "events/s" \
		"$got of $raised events reached the subscriber in $(elapsed "$t0" "$t_sub") s; the storm took $(elapsed "$t0" "$t1") s ($stock_s s and $stock_raised failures without the module)"
	figure delivery-journal "$(rate "$inj" "$(elapsed "$t0" "$t_jrn")")" "" "" "events/s" \
		"$inj of $raised events in the journal after $(elapsed "$t0" "$t_jrn") s"
	figure delivery-losses "$((raised - got - gaps))" "==" 0 events \
		"raised $raised, received $got, reported as gaps $gaps; module counters $status"
	figure cpu-kernel "$(per_k "$kern")" "" "" "s/1000 events" \
		"kernel CPU for the storm with the pipeline minus without: $(elapsed "$k0" "$k1") - $stock_kernel s"
	figure cpu-uaeventd "$(per_k "$(elapsed "$u0" "$u1")")" "" "" "s/1000 events" \
		"uaeventd: $(elapsed "$u0" "$u1") CPU s for $raised events"
	figure cpu-journald "$(per_k "$(elapsed "$j0" "$j1")")" "" "" "s/1000 events" \
		"systemd-journald: $(elapsed "$j0" "$j1") CPU s for $inj entries"
fi

# ---- 4. latency: from the CHECK CONDITION to the subscriber, the journal, and udev ----
# LAT_N capacity changes on the disk, a little over a coalescing window apart (so each is
# published at once, as the first of its kind).  The module stamps each event when the
# midlayer gets the CHECK CONDITION; uae-latency stamps its arrival at a libuaevents
# subscriber, journald stamps uaeventd's entry, and uae-latency run by a udev rule stamps
# the stock kernel's SDEV_UA uevent, each against the capture just before it.
LAT_N=${LAT_N:-40}
# percentiles FILE: "P50 P99" of the milliseconds in FILE.
percentiles() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR == 0) { print "0 0"; exit }
		i = int(NR * 0.99 + 0.99); if (i > NR) i = NR
		printf "%.2f %.2f\n", v[int((NR + 1) / 2)], v[i] }'
}
mkdir -p /run/udev /etc/udev/rules.d
cat >/etc/udev/rules.d/50-sdev-ua-latency.rules <<'EOC'
ACTION=="change", SUBSYSTEM=="scsi", ENV{SDEV_UA}=="CAPACITY_DATA_HAS_CHANGED", RUN+="/usr/bin/uae-latency stamp /tmp/lat-udev"
EOC
/lib/systemd/systemd-udevd --daemon
if wait_for 10 test -S /run/udev/control; then
	udevadm settle
	echo 1 >"/sys/block/$DISK/device/evt_capacity_change_reported"
	pipeline_up "" /dev/null >/dev/null 2>&1
	instance=$(uaectl status --json | jq -r '.instance')
	rm -f /tmp/lat-udev
	uae-latency subscribe "$LAT_N" /tmp/lat-sub >/tmp/lat-ready 2>&1 &
	lat_pid=$!
	wait_for 10 grep -q ready /tmp/lat-ready
	for i in $(seq "$LAT_N"); do
		echo $((i % 2 + 1)) >"$SDEBUG/virtual_gb"
		touch_disk "$DISK"
		sleep 1.2
	done
	settle sh -c 'journalctl -t uaeventd UAEVENTS_EVENT=CAPACITY_DATA_HAS_CHANGED -q -o cat | wc -l'
	kill "$lat_pid" 2>/dev/null
	pipeline_down
	# Milliseconds from capture: to the subscriber, to the journal, to udev's RUN program.
	awk '{ printf "%.3f\n", ($3 - $2) / 1e6 }' /tmp/lat-sub >/tmp/lat-sub.ms
	journalctl -t uaeventd UAEVENTS_EVENT=CAPACITY_DATA_HAS_CHANGED -o json |
		jq -r --arg i "$instance" 'select(.UAEVENTS_INSTANCE == $i and .UAEVENTS_HCTL == "'"$HCTL"'") |
		"\(.__REALTIME_TIMESTAMP) \(.UAEVENTS_TIMESTAMP_NS)"' |
		awk '{ printf "%.3f\n", ($1 * 1000 - $2) / 1e6 }' >/tmp/lat-jrn.ms
	awk '{ print $2 }' /tmp/lat-sub | sort -n >/tmp/lat-captured
	sort -n /tmp/lat-udev 2>/dev/null | awk 'NR == FNR { c[++n] = $1; next }
		{ best = 0; for (i = 1; i <= n; i++) if (c[i] <= $1) best = c[i]
		  if (best) printf "%.3f\n", ($1 - best) / 1e6 }' /tmp/lat-captured - >/tmp/lat-udev.ms
	set -- $(percentiles /tmp/lat-sub.ms)
	sub50=$1 sub99=$2
	set -- $(percentiles /tmp/lat-jrn.ms)
	jrn50=$1 jrn99=$2
	set -- $(percentiles /tmp/lat-udev.ms)
	udev50=$1 udev99=$2
	n_sub=$(wc -l </tmp/lat-sub.ms) n_jrn=$(wc -l </tmp/lat-jrn.ms) n_udev=$(wc -l </tmp/lat-udev.ms)
	figure latency-subscriber-p50 "$sub50" "" "" ms "$n_sub capacity changes; p99 $sub99 ms"
	figure latency-journal-p50 "$jrn50" "" "" ms "$n_jrn journal entries of uaeventd; p99 $jrn99 ms"
	figure latency-stock-udev-p50 "$udev50" "" "" ms \
		"$n_udev SDEV_UA uevents to a udev RUN program (the stock path); p99 $udev99 ms"
	if [ "$n_sub" -gt 0 ] && [ "$n_udev" -gt 0 ]; then
		figure latency-subscriber-vs-stock \
			"$(awk -v a="$sub50" -v b="$udev50" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')" \
			"<=" 1 ratio "p50 to the subscriber over p50 to udev's RUN program; p99s $sub99 and $udev99 ms"
	fi
else
	tap_diag "systemd-udevd did not start: latency not measured"
fi

# ---- 6. history and replay: a subscriber that overflowed reads the whole history ----
# The history is filled with synthetic events (uaectl inject, coalescing off), then a new
# subscriber replays it from its first sequence number: seconds until it has them all.
replay() {
	size=$1
	insmod /modules/uaevents.ko history_size="$size" coalesce_ms=0
	uaectl inject --hctl "$HCTL" --sense 700005000000000a00000000240000000000 --count "$size" >/dev/null
	first=$(uaectl status --json | jq '.history_first_seq')
	t0=$(now)
	uaectl monitor --json --since "$((first - 1))" >/tmp/replay.json 2>/dev/null &
	mon=$!
	replayed() { wc -l </tmp/replay.json; }
	settle replayed
	kill "$mon"
	rmmod uaevents
	figure "replay-$size" "$(elapsed "$t0" "$settled_at")" "" "" s \
		"$settled of $size events in the history (from sequence number $first) replayed to a new subscriber"
}
replay 4096
replay 65536

# ---- kernel memory held for queued events: the pool, as /proc/vmallocinfo shows it ----
insmod /modules/uaevents.ko
pool=$(grep -m 1 'uae_capture_init' /proc/vmallocinfo | awk '{ print $2 }')
pending=$(cat /sys/module/uaevents/parameters/max_pending)
figure memory-event-pool "$(awk -v b="${pool:-0}" -v n="$pending" 'BEGIN { printf "%d", b / n * 1000 }')" "" "" "bytes/1000 queued events" \
	"the pool allocated at load: ${pool:-0} bytes for max_pending $pending"
rmmod uaevents
tap_result $([ -n "$pool" ]; echo $?) "benchmark ran"
