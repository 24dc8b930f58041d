#!/bin/sh
# tap-plan: 1
# make bench, figure 5: scale.  1,024 LUs (8 targets of 128 LUNs), each seen through two
# scsi_debug hosts with one WWID (vpd_use_hostno=0): 2,048 paths.  The host's I/O is one
# TEST UNIT READY on every path, the same in every round: that is how each path learns of
# a change.  uaevents (module, uaeventd with the shipped multipath-resize hook) against the
# stock kernel with libstoragemgmt's udev rule, and, for capacity, against sg3_utils'
# rescan-scsi-bus.sh -s run once by hand.  Rescans and scans are counted where the kernel
# does them (kprobes on scsi_rescan_device and scsi_scan_host_selected), whoever asks.
# uae.scale_tgts=N and uae.scale_luns=N on the kernel command line (UAE_VM_APPEND) change
# the size.
. /bin/lib.sh
. /bin/bench-lib.sh

TGTS=8 LUNS=128
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	uae.scale_tgts=*) TGTS=${arg#*=} ;;
	uae.scale_luns=*) LUNS=${arg#*=} ;;
	esac
done
LUS=$((TGTS * LUNS)) PATHS=$((2 * TGTS * LUNS)) NEXUS=$((2 * TGTS))

tap_diag "BENCH-KERNEL $(uname -r)"
start_journald >/dev/null 2>&1
kmod_load sd_mod
kmod_load sg
disks() { ls /sys/block | grep -c '^sd'; }
t0=$(now)
kmod_load scsi_debug dev_size_mb=8 delay=0 num_tgts="$TGTS" max_luns="$LUNS" add_host=2 \
	vpd_use_hostno=0
wait_for 1200 sh -c "[ \$(ls /sys/block | grep -c '^sd') -eq $PATHS ]" || {
	tap_result 1 "scsi_debug attached $PATHS paths (saw $(disks))"
	exit 1
}
figure scale-attach "$(elapsed "$t0" "$(now)")" "" "" s \
	"$PATHS paths of $LUS LUs ($TGTS targets of $LUNS LUNs, 2 hosts) attached by the stock scan"
tap_diag "stock event reporting on a path: $(cd "/sys/block/sda/device" && grep -H . evt_* | tr '\n' ' ')"
for d in /sys/class/scsi_device/*/device/scsi_generic/*; do basename "$d"; done >/tmp/sgs
# Every path's one command: a TEST UNIT READY, as the host's own I/O would send.
touch_all() { while read -r sg; do sg_turs "/dev/$sg" >/dev/null 2>&1; done </tmp/sgs; }
# Every unit attention still pending reported, with nothing listening: a clean start.
drain() { while read -r sg; do sg_turs -n 4 "/dev/$sg" >/dev/null 2>&1; done </tmp/sgs; }
at_size() { cat /sys/block/sd*/size | grep -c "^$1\$"; }
# evt_on EVENT: the stock kernel's SDEV_UA uevent for EVENT, on every path (off by default).
evt_on() { for f in /sys/block/sd*/device/evt_"$1"; do echo 1 >"$f"; done; }
/lib/systemd/systemd-udevd --daemon
wait_for 30 test -S /run/udev/control && udevadm settle --timeout=600

# The kernel's own counts: a kprobe's hits are counted with tracing off.
T=/sys/kernel/tracing
[ -e "$T/kprobe_events" ] || mount -t tracefs tracefs "$T"
echo 'p:uae_bench/rescan scsi_rescan_device' >>"$T/kprobe_events"
echo 'p:uae_bench/scan scsi_scan_host_selected' >>"$T/kprobe_events"
echo 0 >"$T/tracing_on"
echo 1 >"$T/events/uae_bench/enable"
hits() { awk -v e="$1" '$1 == e || $1 == "uae_bench/" e { print $2 }' "$T/kprobe_profile"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# The kernel's memory for events: what uaevents.ko allocated with vmalloc (pool, history).
kmem_kb() { awk '/\[uaevents\]/ { n += $2 } END { print int(n / 1024) }' /proc/vmallocinfo; }
# wait_size SIZE: until every path shows SIZE sectors, for at most 2 s per path (10 min at
# the least: the time grows with the host); sets $t_size, or leaves it empty and says so.
wait_size() {
	t_wait=$(now) limit=$((PATHS * 2 > 600 ? PATHS * 2 : 600)) t_size=""
	until [ "$(at_size "$1")" -eq "$PATHS" ]; do
		if [ "$(elapsed "$t_wait" "$(now)" | cut -d . -f 1)" -ge "$limit" ]; then
			tap_diag "gave up after $limit s: $(at_size "$1") of $PATHS paths at $1 sectors"
			return 0
		fi
		sleep 1
	done
	t_size=$(now)
}
# size_seconds T0: seconds from T0 until every path grew; null when the wait gave up.
size_seconds() { if [ -n "$t_size" ]; then elapsed "$1" "$t_size"; else echo null; fi; }
GB=2097152

# ---- uaevents: the module, uaeventd with the multipath-resize hook ----
mkdir -p /etc/uaevents
cat >/etc/uaevents/uaeventd.conf <<'EOC'
[rescan]
resize_command = /usr/share/uaevents/hooks/multipath-resize
EOC
insmod /modules/uaevents.ko
uaeventd 2>>/tmp/uaeventd.err &
UAED=$!
wait_for 60 sh -c "journalctl -t uaeventd -o cat | grep -q '^uaeventd: listening'"
rss0=$(rss_kb "$UAED") kmem0=$(kmem_kb)
journal_count() { journalctl -t uaeventd "UAEVENTS_ACTION=$1" -q -o cat 2>/dev/null | wc -l; }

# Where the time goes: the touching loop alone, nothing pending (the host's own cost);
# then, over the storm, the CPU of uaeventd, of the jobs and hooks it waited for, of
# journald and of the kernel, and the processes started.
JOURNALD=$(pidof systemd-journald)
t_bare=$(now)
touch_all
touch_bare=$(elapsed "$t_bare" "$(now)")
# cpu_snapshot: the counters above, as one line.
cpu_snapshot() {
	echo "$(cpu_of "$UAED") $(children_cpu_of "$UAED") $(cpu_of "$JOURNALD") $(kernel_cpu) $(forks)"
}
# per_lu BEFORE AFTER FIELD: milliseconds per LU of counter FIELD between two snapshots.
per_lu() {
	echo "$1 $2" | awk -v f="$3" -v n="$LUS" '{ printf "%.1f", ($(f + 5) - $f) * 1000 / n }'
}

# (a) capacity grows on every LU.
r0=$(hits rescan) t0=$(now) c0=$(cpu_snapshot) w0=$(journal_count paths-indexed)
# uae.perf (make bench-profile): the storm profiled with perf, system-wide.
PERF=""
if grep -qw uae.perf /proc/cmdline; then
	perf record -a -g -F 199 -o /tmp/perf.data >/tmp/perf.out 2>&1 &
	PERF=$!
	wait_for 10 test -s /tmp/perf.data || tap_diag "perf did not start: $(cat /tmp/perf.out)"
fi
echo 1 >"$SDEBUG/virtual_gb"
touch_all
t_touched=$(now)
wait_size $GB
settle journal_count resize
r1=$(hits rescan) c1=$(cpu_snapshot) w1=$(journal_count paths-indexed)
# Each report line as a diagnostic: the CPU by process and library, then uaeventd's and
# its jobs' (they keep its name until they run a program) by function, callers included.
# (Build with -fno-omit-frame-pointer for whole call chains.)
if [ -n "$PERF" ]; then
	kill -INT "$PERF"
	wait "$PERF"
	report() {
		perf report -i /tmp/perf.data --stdio "$@" 2>&1 | grep -v -e '^$' -e '^#' |
			head -80 | while IFS= read -r l; do tap_diag "perf: $l"; done
	}
	report --no-children -g none --sort comm,dso --percent-limit 0.5
	report --no-children -g none --sort sym --percent-limit 0.5
	report --children -g none --comm uaeventd --sort sym --percent-limit 0.4
fi
tap_diag "uaeventd's entries by UAEVENTS_ACTION: $(journalctl -t uaeventd -o json -q |
	jq -r '.UAEVENTS_ACTION // "none"' | sort | uniq -c | tr -s ' \n' ' ')"
journalctl -t uaeventd UAEVENTS_ACTION=resize -o json -q | jq -s '[group_by(.UAEVENTS_WWID)[] | length]' >/tmp/resizes.json
figure scale-capacity-paths "$(at_size $GB)" "==" "$PATHS" paths \
	"paths showing the new size, uaevents; every path touched once in $(elapsed "$t0" "$t_touched") s"
figure scale-capacity-seconds "$(size_seconds "$t0")" "" "" s \
	"from the capacity change until every path shows the new size, uaevents (null: not within 2 s per path)"
figure scale-rescans-per-path "$(ratio $((r1 - r0)) "$PATHS")" "==" 1 ratio \
	"$((r1 - r0)) rescans (scsi_rescan_device) of $PATHS paths, uaevents"
figure scale-resizes-per-wwid "$(ratio "$settled" "$LUS")" "==" 1 ratio \
	"$settled resize commands for $(jq length /tmp/resizes.json) of $LUS WWIDs, at most $(jq 'max // 0' /tmp/resizes.json) for one"
figure scale-touch-seconds-bare "$touch_bare" "" "" s \
	"the loop touching every path once with nothing pending: the host's own part of the figures above"
figure scale-index-walks "$((w1 - w0))" "" "" walks \
	"walks of every device's wwid for uaeventd's paths index over the capacity storm"
figure scale-uaeventd-cpu-ms-per-lu "$(per_lu "$c0" "$c1" 1)" "" "" ms \
	"uaeventd's own CPU (user + system) per LU over the capacity storm"
figure scale-jobs-cpu-ms-per-lu "$(per_lu "$c0" "$c1" 2)" "" "" ms \
	"CPU per LU of the job children uaeventd waited for, with the resize hooks they ran"
figure scale-journald-cpu-ms-per-lu "$(per_lu "$c0" "$c1" 3)" "" "" ms \
	"journald's CPU per LU over the capacity storm"
figure scale-kernel-cpu-ms-per-lu "$(per_lu "$c0" "$c1" 4)" "" "" ms \
	"the machine's system, irq and softirq time per LU over the capacity storm: the rescans, and the system part of the figures above"
figure scale-processes-per-lu "$(echo "$c0 $c1" | awk -v n="$LUS" '{ printf "%.2f", ($10 - $5) / n }')" "" "" ratio \
	"processes started per LU over the capacity storm (jobs, hooks and what they run)"

# (b) a LUN is added to every target.
s0=$(hits scan) t0=$(now)
echo $((LUNS + 1)) >"$SDEBUG/max_luns"
touch_all
wait_for 1200 sh -c "[ \$(ls /sys/block | grep -c '^sd') -eq $((PATHS + NEXUS)) ]"
t_added=$(now)
settle journal_count scan-target
s1=$(hits scan)
figure scale-added-luns "$(($(disks) - PATHS))" "==" "$NEXUS" paths \
	"new LUN paths found in $(elapsed "$t0" "$t_added") s, uaevents"
figure scale-scans-per-nexus "$(ratio "$settled" "$NEXUS")" "==" 1 ratio \
	"$settled target scans by uaeventd for $NEXUS I_T nexuses; $((s1 - s0)) host scan requests (one per new LUN), uaevents"
figure scale-uaeventd-rss "$(rss_kb "$UAED")" "" "" KiB \
	"uaeventd's resident memory with $PATHS paths, after both storms; $rss0 KiB when it started"
figure scale-kernel-event-memory "$(kmem_kb)" "" "" KiB \
	"vmalloc memory of uaevents.ko (event pool and history) after both storms; $kmem0 KiB at load"
kill "$UAED"
wait "$UAED" 2>/dev/null
rmmod uaevents
# Back to the start: the added LUNs gone, the old size.
for d in /sys/class/scsi_device/*:"$LUNS"/device/delete; do echo 1 >"$d"; done
echo "$LUNS" >"$SDEBUG/max_luns"
drain

# ---- the stock kernel with libstoragemgmt's rule (tools/udev/90-scsi-ua.rules) ----
# As it ships, its capacity rules are commented out; then with them on.  Its
# scan-scsi-target: a stand-in that records each call and scans as it does.
lsm_rule /tmp/lsm-scans scan
udevadm control --reload
evt_on capacity_change_reported
evt_on lun_change_reported

r0=$(hits rescan)
echo 2 >"$SDEBUG/virtual_gb"
touch_all
udevadm settle --timeout=600
sleep 5
figure scale-capacity-paths-rule-as-shipped "$(at_size $((2 * GB)))" "" "" paths \
	"paths at the new size, stock kernel with libstoragemgmt's rule as it ships; $(($(hits rescan) - r0)) rescans"

sed -i 's/^#ACTION/ACTION/' /usr/lib/udev/rules.d/90-scsi-ua.rules
udevadm control --reload
# udev_cpu: CPU seconds of udevd and its workers, the live ones and those it reaped.
udev_cpu() {
	for p in $(pidof systemd-udevd); do
		cpu_of "$p"
		echo
		children_cpu_of "$p"
		echo
	done | awk '{ s += $1 } END { printf "%.3f", s }'
}
r0=$(hits rescan) t0=$(now) u0=$(udev_cpu) k0=$(kernel_cpu) f0=$(forks)
echo 3 >"$SDEBUG/virtual_gb"
touch_all
wait_size $((3 * GB))
udevadm settle --timeout=600
u1=$(udev_cpu) k1=$(kernel_cpu) f1=$(forks)
figure scale-udev-cpu-ms-per-lu-rule "$(awk -v a="$u0" -v b="$u1" -v n="$LUS" 'BEGIN { printf "%.1f", (b - a) * 1000 / n }')" "" "" ms \
	"udevd's and its workers' CPU per LU over the capacity storm, libstoragemgmt's rule with its capacity lines on"
figure scale-kernel-cpu-ms-per-lu-rule "$(awk -v a="$k0" -v b="$k1" -v n="$LUS" 'BEGIN { printf "%.1f", (b - a) * 1000 / n }')" "" "" ms \
	"the machine's system, irq and softirq time per LU over the capacity storm, libstoragemgmt's rule: its rescans, and udev's system part"
figure scale-processes-per-lu-rule "$(awk -v a="$f0" -v b="$f1" -v n="$LUS" 'BEGIN { printf "%.2f", (b - a) / n }')" "" "" ratio \
	"processes started per LU over the capacity storm, libstoragemgmt's rule"
figure scale-capacity-paths-rule "$(at_size $((3 * GB)))" "" "" paths \
	"paths at the new size, libstoragemgmt's rule with its capacity lines on: no multipath resize"
figure scale-capacity-seconds-rule "$(size_seconds "$t0")" "" "" s \
	"until every path shows the new size, libstoragemgmt's rule with its capacity lines on (null: not within 2 s per path)"
figure scale-rescans-per-path-rule "$(ratio $(($(hits rescan) - r0)) "$PATHS")" "" "" ratio \
	"$(($(hits rescan) - r0)) rescans of $PATHS paths, libstoragemgmt's rule with its capacity lines on"

rm -f /tmp/lsm-scans
s0=$(hits scan) t0=$(now)
echo $((LUNS + 1)) >"$SDEBUG/max_luns"
touch_all
wait_for 1200 sh -c "[ \$(ls /sys/block | grep -c '^sd') -eq $((PATHS + NEXUS)) ]"
t_added=$(now)
udevadm settle --timeout=1200
figure scale-added-luns-rule "$(($(disks) - PATHS))" "" "" paths \
	"new LUN paths found in $(elapsed "$t0" "$t_added") s, libstoragemgmt's rule"
figure scale-scans-per-nexus-rule "$(ratio "$(wc -l </tmp/lsm-scans)" "$NEXUS")" "" "" ratio \
	"$(wc -l </tmp/lsm-scans) target scans by libstoragemgmt's rule, one per SDEV_UA uevent, for $NEXUS I_T nexuses; $(($(hits scan) - s0)) host scan requests"
rm -f /usr/lib/udev/rules.d/90-scsi-ua.rules
udevadm control --reload
for d in /sys/class/scsi_device/*:"$LUNS"/device/delete; do echo 1 >"$d"; done

# ---- sg3_utils' rescan-scsi-bus.sh -s, run once by hand ----
r0=$(hits rescan) t0=$(now)
echo 4 >"$SDEBUG/virtual_gb"
rescan-scsi-bus.sh -s >/tmp/rescan-scsi-bus.log 2>&1
t1=$(now)
figure scale-capacity-paths-rescan-scsi-bus "$(at_size $((4 * GB)))" "" "" paths \
	"paths at the new size after rescan-scsi-bus.sh -s (no multipath map resized here: none exist)"
figure scale-capacity-seconds-rescan-scsi-bus "$(elapsed "$t0" "$t1")" "" "" s \
	"rescan-scsi-bus.sh -s over $PATHS paths; $(($(hits rescan) - r0)) rescans"

tap_result 0 "scale benchmark ran"
