# Helpers for the guest-side test scripts (sourced, busybox sh).

# Results go to the second serial port, apart from the kernel's console.
TAP=/dev/ttyS1
tap_n=0
tap_failed=0

# The plan is not written by the scripts: each declares how many results it reports in a
# header line "# tap-plan: N" (the same N on every kernel and for any CYCLES), and the
# runner (init, run.sh) writes the sum before the first check runs.  A check that did not
# run is then a missing result, never a silent skip.

# CYCLES: how many rounds a loop test (hot-remove, rmmod, reload...) runs: a few for
# 'make check', 100 for 'make soak' (uae.cycles= on the kernel command line, or the
# systemd guest's unit environment).
CYCLES=${CYCLES:-10}

# ok CONDITION-EXIT-STATUS DESCRIPTION
tap_result() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2" >"$TAP"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n - $2" >"$TAP"
	fi
}

# check DESCRIPTION COMMAND...: one TAP line for whether COMMAND succeeds.  A command that
# can say what it saw instead writes that to $SAW; a failed check prints it.
SAW=/tmp/check.saw
check() {
	desc=$1
	shift
	rm -f "$SAW"
	"$@"
	rc=$?
	tap_result $rc "$desc"
	if [ $rc -ne 0 ] && [ -s "$SAW" ]; then
		sed 's/^/# saw: /' "$SAW" >"$TAP"
	fi
}

tap_diag() { echo "# $*" >"$TAP"; }

# tap_skip N REASON: N results that cannot be had on this kernel, reported as skipped.
tap_skip() {
	i=0
	while [ "$i" -lt "$1" ]; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n - $2 # SKIP" >"$TAP"
		i=$((i + 1))
	done
}

# tap_fail N REASON: N results that should have run here and could not: failures.
tap_fail() {
	i=0
	while [ "$i" -lt "$1" ]; do
		tap_result 1 "$2"
		i=$((i + 1))
	done
}

log() { echo "uae-vm: $*"; }

# kmod_load MODULE [PARAMS...]: insmod MODULE after everything it depends on.
# A dependency that is already loaded, or has no hardware here (crct10dif-pclmul under
# TCG), fails harmlessly.
kmod_load() {
	mod=$1
	shift
	last=$(tail -n 1 "/modules/$mod.deps")
	while read -r ko; do
		[ "$ko" = "$last" ] && break
		insmod "/modules/$ko" 2>/dev/null
	done <"/modules/$mod.deps"
	insmod "/modules/$last" "$@"
}

# wait_for SECONDS COMMAND...: retry COMMAND every 0.2 s until it succeeds, SECONDS * 5
# times; a slow COMMAND (jq over a big journal, under TCG) gets at most 3 * SECONDS of
# wall time in all.  (Its counters are local: COMMAND may wait_for too.)
wait_for() {
	local tries deadline
	tries=$(($1 * 5))
	deadline=$(($(date +%s) + 3 * $1))
	shift
	while ! "$@" 2>/dev/null; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] && [ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}

# waits_in_poll PID: the process is blocked in poll(2) (or ppoll).  uaectl monitor and
# monitor-poll get there only after uae_monitor_new() has joined the multicast groups and
# their filters are set: from then on they receive every event published, so a test may
# raise them.
waits_in_poll() {
	read -r nr _ <"/proc/$1/syscall" || return 1
	[ "$nr" = 7 ] || [ "$nr" = 271 ]
}

# gone PID...: none of these processes runs any more (exited, perhaps not yet reaped: a
# zombie has closed its sockets and files).
gone() {
	for p in "$@"; do
		[ -e "/proc/$p/stat" ] || continue
		case "$(cut -d ' ' -f 3 "/proc/$p/stat" 2>/dev/null)" in
		Z | X | "") ;;
		*) return 1 ;;
		esac
	done
}

# uptime_ms: milliseconds since boot, to the hundredth of a second (busybox's date has no
# %N).  (1xx - 100: a fraction of "05" is not read as octal.)
uptime_ms() {
	read -r up _ </proc/uptime
	echo $((${up%.*} * 1000 + (1${up#*.} - 100) * 10))
}

# udev_printed FILE DEVICE SECONDS: the `udevadm monitor --property` writing FILE printed a
# synthetic "change" uevent written now to DEVICE's sysfs uevent file (one with
# SYNTH_UUID=), and so every uevent the kernel sent before it.  Also its "listening": a
# synthetic uevent written before it subscribed is lost, one written after is printed.
synth_printed() { grep -c '^SYNTH_UUID=' "$1"; }
more_synth_printed() { [ "$(synth_printed "$1")" -gt "$2" ]; }
udev_printed() {
	local printed
	printed=$(synth_printed "$1")
	echo change >"$2/uevent" || return 1
	wait_for "$3" more_synth_printed "$1" "$printed"
}

start_journald() {
	mkdir -p /run/systemd/journal /var/log
	/lib/systemd/systemd-journald &
	wait_for 20 test -S /run/systemd/journal/socket || return 1
	ln -sf /run/systemd/journal/dev-log /dev/log
}

# The first sd disk of a scsi_debug host: "sda".
scsi_debug_disk() {
	for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
		[ -e "$d" ] && basename "$d" && return 0
	done
	return 1
}

# Read a block straight from the device, so the command reaches the LU.
touch_disk() {
	echo 3 >/proc/sys/vm/drop_caches
	dd if="/dev/$1" of=/dev/null bs=4096 count=1 2>/dev/null
}

SDEBUG=/sys/bus/pseudo/drivers/scsi_debug

# The pipeline under test: journald, uaevents.ko, a JSON monitor, uaeventd, then
# scsi_debug with one LUN.  Sets DISK ("sda") and HCTL ("2:0:0:0").
setup_pipeline() {
	start_journald || return 1
	kmod_load sd_mod
	kmod_load sg
	# shellcheck disable=SC2086
	insmod /modules/uaevents.ko $UAE_PARAMS || return 1
	uaectl monitor --json >/tmp/monitor.json 2>/tmp/monitor.err &
	MONITOR_PID=$!
	# Subscribed before scsi_debug's first UA (POWER ON), which it must see.
	wait_for 10 waits_in_poll "$MONITOR_PID" || return 1
	uaeventd 2>/tmp/uaeventd.err &
	UAEVENTD_PID=$!
	kmod_load scsi_debug dev_size_mb=16 max_luns=1 num_tgts=1 || return 1
	wait_for 30 scsi_debug_disk >/dev/null || return 1
	DISK=$(scsi_debug_disk)
	HCTL=$(basename "$(readlink "/sys/block/$DISK/device")")
}

# Real UAs from scsi_debug, each reported on the next command to the LU.
raise_capacity_change() {
	echo 1 >"$SDEBUG/virtual_gb" && touch_disk "$DISK"
}

raise_lun_change() {
	echo 2 >"$SDEBUG/max_luns" && touch_disk "$DISK"
}

# monitor_has EVENT: the JSON monitor printed an event of that name.
# Never "jq -e 'select(...)'" over a stream of events: jq 1.6 sets -e's exit status from
# the last input alone, so a match followed by any other event reads as "none" (4).
monitor_has() {
	jq -n -e --arg e "$1" 'any(inputs; .event == $e)' /tmp/monitor.json >/dev/null && return 0
	{ echo "no $1 among the monitor's events:"; jq -c '{seq, event, hctl}' /tmp/monitor.json; } \
		>"$SAW" 2>&1
	return 1
}

# The per-device error injection file of 6.12's scsi_debug, if this kernel has one.
sdebug_error_file() {
	f=/sys/kernel/debug/scsi_debug/$HCTL/error
	[ -e "$f" ] && echo "$f"
}

# injection_expected: this kernel's scsi_debug has per-device error injection (6.10 on;
# the test kernels: 6.12, not 6.1).
injection_expected() {
	set -- $(uname -r | tr '.-' '  ')
	[ "$1" -gt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -ge 10 ]; }
}

# injection_or_skip N WHAT: true when scsi_debug's error injection is there for $HCTL.
# Otherwise it reports the N checks of WHAT that need it: skipped on a kernel without it,
# failed on one that should have it (a scenario that cannot run where it should is a
# failure), and is false.  Use: if injection_or_skip 3 "soft threshold"; then ...3 checks; fi
injection_or_skip() {
	sdebug_error_file >/dev/null && return 0
	if injection_expected; then
		tap_fail "$1" "$2: scsi_debug's error injection is missing on $(uname -r)"
	else
		tap_skip "$1" "$2: no scsi_debug error injection on $(uname -r)"
	fi
	return 1
}

# raise_ua ASC ASCQ: a UNIT ATTENTION with ASC/ASCQ (hex) on $DISK's next READ(10), once
# (count -1: see shared test-kernels.md on count semantics).  6.12's scsi_debug only.
raise_ua() {
	f=$(sdebug_error_file) || return 1
	echo "2 -1 0x28 0 0 0x2 0x6 0x$1 0x$2" >"$f" && touch_disk "$DISK"
}

# A THIN PROVISIONING SOFT THRESHOLD REACHED (38h/07h) UA on the next READ(10), once.
raise_soft_threshold() { raise_ua 38 07; }

# accounted_once INSTANCES SEEN: how many of the module instances listed in file INSTANCES
# (one a line) the JSON array of instance ids in file SEEN holds exactly once.
accounted_once() {
	jq -r --rawfile want "$1" '. as $seen | [$want | split("\n")[] | select(. != "") |
		. as $i | select([$seen[] | select(. == $i)] | length == 1)] | length' "$2"
}

# monitor_instances JSON OUT: into OUT, the JSON array of the module instances whose
# MODE_PARAMETERS_CHANGED event "uaectl monitor --json" printed to file JSON; prints how
# many instances the monitor reported missed.
monitor_instances() {
	jq -s 'map(select(.event == "MODE_PARAMETERS_CHANGED") | .instance)' "$1" >"$2"
	jq -s 'map(select(.event == "MODULE_MISSED") | .repeat) | add // 0' "$1"
}

# lsm_rule LOG [scan]: libstoragemgmt's 90-scsi-ua.rules as it ships (its tools/udev/;
# Debian 12 has no package of it), capacity line commented out as upstream has it, and a
# stand-in for its scan-scsi-target that appends each call to LOG and, given "scan", scans
# the target as the real one does.  The caller reloads udev.
lsm_rule() {
	mkdir -p /usr/lib/udev/rules.d /lib/udev
	cat >/usr/lib/udev/rules.d/90-scsi-ua.rules <<'EOC'
#ACTION=="change", SUBSYSTEM=="scsi", ENV{SDEV_UA}=="CAPACITY_DATA_HAS_CHANGED", TEST=="rescan", ATTR{rescan}="x"
ACTION=="change", SUBSYSTEM=="scsi", ENV{SDEV_UA}=="REPORTED_LUNS_DATA_HAS_CHANGED", RUN+="scan-scsi-target $env{DEVPATH}"
EOC
	{
		echo '#!/bin/sh'
		echo "echo \"\$1\" >>$1"
		if [ "$2" = scan ]; then
			cat <<'EOC'
set -- $(echo "$1" | sed -n 's|.*/host\([0-9]*\)/target[0-9]*:\([0-9]*\):\([0-9]*\)/.*|\1 \2 \3|p')
echo "$2 $3 -" >"/sys/class/scsi_host/host$1/scan"
EOC
		fi
	} >/usr/lib/udev/scan-scsi-target
	chmod 0755 /usr/lib/udev/scan-scsi-target
	# The busybox guest's udevd runs programs from /lib/udev, a directory of its own there.
	[ -e /lib/udev/scan-scsi-target ] || ln -s /usr/lib/udev/scan-scsi-target /lib/udev/
}
