#!/bin/sh
# The kernel module in the VM, on the real kernel: error and timeout events classified,
# the LU's identity, SG_IO apart, no event held up by a device's held state_mutex, no
# noise, storm coalescing, a 10,000-event burst replayed from the history, permissions,
# and hot-remove and reload cycles.
# tap-plan: 88
. /bin/lib.sh

UAE_PARAMS="history_size=16384"
NOBODY="/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups"

tap_diag "kernel $(uname -r)"
check "pipeline set up (history_size=16384)" setup_pipeline
# Where ftrace passes arguments (x86's DYNAMIC_FTRACE_WITH_ARGS, on every test kernel), the
# two hooks every failing command runs are ftrace ops of uaevents' own, not kprobes.
# (enabled_functions names an op's callback while it is the function's only ftrace user,
# as it is here.)
ftrace_hooks() {
	f=/sys/kernel/debug/tracing/enabled_functions
	[ -r "$f" ] || { echo "no $f"; return 1; }
	for fn in scsi_check_sense scsi_command_normalize_sense; do
		grep -E "^$fn( |$)" "$f" | grep -q uae_entry_ftrace ||
			{ echo "$fn not hooked by uae_entry_ftrace:"; cat "$f"; return 1; }
	done
}
check "scsi_check_sense and scsi_command_normalize_sense: ftrace ops of uaevents" ftrace_hooks
# Switching ftrace off would silence them: refused while they are there (and allowed once
# uaevents.ko is gone: see the end).  Switched back on if it ever went through.
ftrace_stays_on() {
	if echo 0 2>/dev/null >/proc/sys/kernel/ftrace_enabled; then
		echo 1 >/proc/sys/kernel/ftrace_enabled
		echo "kernel.ftrace_enabled=0 was accepted under the hooks" >"$SAW"
		return 1
	fi
	[ "$(cat /proc/sys/kernel/ftrace_enabled)" = 1 ]
}
check "kernel.ftrace_enabled cannot be switched off under them" ftrace_stays_on
SG=$(ls "/sys/block/$DISK/device/scsi_generic/")
ERRFILE=$(sdebug_error_file)
tap_diag "disk $DISK ($SG) at $HCTL, error injection: ${ERRFILE:-none}"

# A subscriber of the error group alone: the UAs and SG_IO events in between are not its
# losses, so it must never report a gap.
uaectl monitor --json --filter kind=error >/tmp/errmon.json 2>/tmp/errmon.err &
ERRMON_PID=$!

# has FILTER: the monitor printed an event matching the jq filter.
has() { jq -e -s "map(select($1)) | length > 0" /tmp/monitor.json >/dev/null; }
stat_of() { uaectl status --json | jq -r ".$1"; }

# ---- sync points: a check that something did not happen, or that a subscriber saw
# something, first proves that the pipeline got that far; never a fixed sleep ----

# delivered_so_far: a marker UA (INQUIRY DATA HAS CHANGED) injected now on $HCTL reached
# the JSON monitor.  The module delivers in sequence order, each event to the history,
# the subscribers and udev before the next: everything captured before the marker has
# been published, and its uevent sent or not.  (A marker coalesced with the one before
# is published when its window ends, after it: still a sync point.)
MARKER=700006000000000a000000003f0300000000
markers() {
	jq -s --arg h "$HCTL" \
		'map(select(.event == "INQUIRY_DATA_HAS_CHANGED" and .hctl == $h)) | length' \
		/tmp/monitor.json
}
more_markers() { [ "$(markers)" -gt "$1" ]; }
delivered_so_far() {
	marks=$(markers)
	uaectl inject --hctl "$HCTL" --sense "$MARKER" >/dev/null || return 1
	wait_for 10 more_markers "$marks"
}

# uevents_printed SECONDS: udevadm monitor printed every uevent sent so far (lib.sh).
uevents_printed() { udev_printed /tmp/uevents.txt "/sys/block/$DISK/device" "$1"; }

# ---- uevents: the kernel's own netlink uevents, as udev would receive them ----
udevadm monitor --kernel --property --subsystem-match=scsi >/tmp/uevents.txt 2>&1 &
UDEVMON_PID=$!

# Both listen before anything they must see is raised: the kind=error subscriber waits in
# poll(), and udevadm monitor printed a synthetic uevent (one written before it listened
# is lost: write another).
listening() {
	wait_for 10 waits_in_poll "$ERRMON_PID" ||
		{ echo "the kind=error subscriber never waited in poll()" >"$SAW"; return 1; }
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		uevents_printed 2 && return 0
	done
	echo "udevadm monitor printed none of 10 synthetic uevents" >"$SAW"
	return 1
}
check "the kind=error subscriber and udevadm monitor listen" listening

# ---- no noise: attaching scsi_debug gave unit attentions only ----
# After a read of the disk (its open waits for the partition scan) and a marker behind
# everything the probing raised.
probing_quiet() {
	touch_disk "$DISK"
	delivered_so_far || { echo "the marker UA never reached the monitor" >"$SAW"; return 1; }
	jq -e -s 'map(select(.kind != "ua")) | length == 0' /tmp/monitor.json >/dev/null && return 0
	jq -c -s 'map(select(.kind != "ua") | {seq, kind, event, opcode})' /tmp/monitor.json >"$SAW"
	return 1
}
check "the kernel's own probing raised no error or SG_IO events" probing_quiet

# ---- identity ----
raise_capacity_change
WWID=$(cat "/sys/block/$DISK/device/wwid")
SERIAL=$(dd if="/sys/block/$DISK/device/vpd_pg80" bs=1 skip=4 2>/dev/null | tr -d ' ')
tap_diag "wwid '$WWID', serial '$SERIAL'"
check "events carry the LU's WWID (as sysfs shows it), serial and sg device" \
	wait_for 10 has ".event == \"CAPACITY_DATA_HAS_CHANGED\" and .wwid == \"$WWID\"
		and .serial == \"$SERIAL\" and .sg_device == \"$SG\" and .device == \"$DISK\""

# Our KOBJ_CHANGE carries UAEVENTS_* keys and never SDEV_UA=: with the stock kernel's own
# capacity event switched on, SDEV_UA= must arrive exactly once.
uevent_count() { grep -c "^$1\$" /tmp/uevents.txt; }
check "the UA became a KOBJ_CHANGE uevent on the scsi_device with UAEVENTS_* keys" \
	wait_for 10 grep -q "^UAEVENTS_EVENT=CAPACITY_DATA_HAS_CHANGED$" /tmp/uevents.txt
check "the uevent names the device, H:C:T:L, ASC/ASCQ and WWID" \
	sh -c "grep -q '^UAEVENTS_HCTL=$HCTL\$' /tmp/uevents.txt &&
		grep -q '^UAEVENTS_ASC=0x2a\$' /tmp/uevents.txt &&
		grep -q '^UAEVENTS_DEVICE=$DISK\$' /tmp/uevents.txt &&
		grep -q '^UAEVENTS_WWID=$WWID\$' /tmp/uevents.txt"
echo 1 >"/sys/block/$DISK/device/evt_capacity_change_reported"
# Coalescing off while the uevents are counted: each capacity UA is its own event at once,
# not one held for a window that would be published after the sync points below.
uaectl config --coalesce-ms 0
echo 2 >"$SDEBUG/virtual_gb"
touch_disk "$DISK"
# uevents_are EVENT-LINE N: udevadm printed exactly N uevents with that line.
uevents_are() { [ "$(uevent_count "$1")" -eq "$2" ]; }
check "the stock kernel's SDEV_UA uevent still comes, once per capacity UA" \
	wait_for 10 uevents_are SDEV_UA=CAPACITY_DATA_HAS_CHANGED 2
tap_diag "uevents: $(grep -E '^(SDEV_UA|UAEVENTS_EVENT)=' /tmp/uevents.txt | tr '\n' ' ')"
# Both uevents of both UAs printed: ours for the second UA, then every uevent before a
# synthetic one written after it.
ours_without_sdev_ua() {
	wait_for 10 uevents_are UAEVENTS_EVENT=CAPACITY_DATA_HAS_CHANGED 2 ||
		{ echo "$(uevent_count UAEVENTS_EVENT=CAPACITY_DATA_HAS_CHANGED) UAEVENTS uevents for 2 capacity UAs" >"$SAW"; return 1; }
	uevents_printed 10 || { echo "udevadm monitor printed no synthetic uevent" >"$SAW"; return 1; }
	awk -v RS= '/UAEVENTS_EVENT=/ && /SDEV_UA=/ { bad = 1 } END { exit bad }' /tmp/uevents.txt
}
check "no uevent of uaevents carries SDEV_UA= (rules for it must not fire twice)" \
	ours_without_sdev_ua
uaectl config --uevents none
echo 3 >"$SDEBUG/virtual_gb"
touch_disk "$DISK"
# The UA happened (the stock uevent for it came), a marker behind it reached the monitor
# (the UA's own uevent, if any, was sent before the marker was published: uevents are
# still off), and udevadm printed every uevent sent before a synthetic one.
uevents_off() {
	wait_for 10 uevents_are SDEV_UA=CAPACITY_DATA_HAS_CHANGED 3 ||
		{ echo "no third SDEV_UA uevent: the third capacity UA did not come" >"$SAW"; return 1; }
	delivered_so_far || { echo "the marker UA after it never reached the monitor" >"$SAW"; return 1; }
	uevents_printed 10 || { echo "udevadm monitor printed no synthetic uevent" >"$SAW"; return 1; }
	uevents_are UAEVENTS_EVENT=CAPACITY_DATA_HAS_CHANGED 2
}
check "uevents switched off: no UAEVENTS uevent for the next UA" uevents_off
# Any user reads uevents: a failed SG_IO command never becomes one, even with uevents=2.
# has_n N FILTER: the monitor printed at least N events that match the jq filter.
has_n() { [ "$(jq -s "map(select($2)) | length" /tmp/monitor.json)" -ge "$1" ]; }
sgio_no_uevent() {
	delivered_so_far || { echo "the marker UA never reached the monitor" >"$SAW"; return 1; }
	uevents_printed 10 || { echo "udevadm monitor printed no synthetic uevent" >"$SAW"; return 1; }
	if grep -q '^UAEVENTS_KIND=sgio$' /tmp/uevents.txt; then
		grep -B12 '^UAEVENTS_KIND=sgio$' /tmp/uevents.txt >"$SAW"
		return 1
	fi
}
check "uaectl config --uevents all" uaectl config --uevents all
sg_raw "/dev/$SG" ff 00 00 00 00 00 >/dev/null 2>&1
check "with uevents=2, a failed SG_IO command arrives" \
	wait_for 10 has_n 1 '.kind == "sgio" and .opcode == 255'
check "and no uevent of any SG_IO failure: any user could read it" sgio_no_uevent
uaectl config --uevents ua
uaectl config --coalesce-ms 1000
kill "$UDEVMON_PID"

# ---- a medium error (scsi_debug opts=2: reads of sector 0x1234 fail) ----
echo 2 >"$SDEBUG/opts"
echo 3 >/proc/sys/vm/drop_caches
dd if="/dev/$DISK" of=/dev/null bs=512 skip=4660 count=1 2>/dev/null
echo 0 >"$SDEBUG/opts"
check "a medium error arrives: error, 11h/00h, fatal device error, no failover, MEDIUM" \
	wait_for 10 has '.kind == "error" and .event == "UNRECOVERED_READ_ERROR" and .asc == 17
		and .classification.severity == "fatal" and .classification.locus == "device"
		and (.classification.failover | not) and .classification.blk_status == "MEDIUM"
		and .errno == 61 and .opcode == 40 and .lba <= 4660 and .lba + .sectors > 4660'

# ---- 6.12's scsi_debug error injection ----
inject_error() {	# LINE: fail the next matching command, then touch the disk
	echo "$1" >"$ERRFILE"
	touch_disk "$DISK"
}
if injection_or_skip 5 "transport error, NOSPC, timeout, error handler"; then
	inject_error "2 -1 0x28 0x0f 0 0 0 0 0"
	check "a transport error arrives: DID_TRANSPORT_FAILFAST, fatal transport error, failover, TRANSPORT" \
		wait_for 10 has '.kind == "error" and .event == "DID_TRANSPORT_FAILFAST"
			and .host_byte == 15 and .classification.locus == "transport"
			and .classification.failover and .classification.blk_status == "TRANSPORT"
			and .errno == 67'

	echo "2 -1 0x2a 0 0 0x2 0x7 0x27 0x07" >"$ERRFILE"
	dd if=/dev/zero of="/dev/$DISK" bs=4096 count=1 conv=fsync 2>/dev/null
	check "thin pool out of space: SPACE ALLOCATION FAILED WRITE PROTECT, fatal, NOSPC" \
		wait_for 10 has '.kind == "error" and .event == "SPACE_ALLOCATION_FAILED_WRITE_PROTECT"
			and .opcode == 42 and .classification.blk_status == "NOSPC"
			and (.classification.failover | not) and .errno == 28'

	echo 3 >"/sys/block/$DISK/device/timeout"
	inject_error "0 -1 0x28"
	check "a command timeout arrives: COMMAND_TIMEOUT, READ(10)" \
		wait_for 30 has '.kind == "timeout" and .event == "COMMAND_TIMEOUT" and .opcode == 40'

	# The error handler's own commands: a READ times out and aborting it fails, so the
	# handler resets the LU and sends TEST UNIT READY, which gets scsi_debug's reset UA.
	echo "3 -10 0x28" >"$ERRFILE"
	inject_error "0 -1 0x28"
	eh_ua='.kind == "ua" and .asc == 41 and ((.flags / 32 | floor) % 2 == 1)'
	check "a UA the error handler's TEST UNIT READY got: flagged error_handler, op code 00h" \
		wait_for 60 has "$eh_ua and .opcode == 0"
	tap_diag "error handler events: $(jq -c -s "map(select($eh_ua)) | map({event, opcode, flags, lba})" /tmp/monitor.json)"
	check "it carries nothing of the request being recovered (no LBA) and is quiet (expected)" \
		has "$eh_ua and (has(\"lba\") | not) and ((.flags / 2 | floor) % 2 == 1)"
	echo 30 >"/sys/block/$DISK/device/timeout"
fi

# ---- a driver that resets the timer of a slow command: no timeout event ----
# run-vm.sh gives this VM a virtio-scsi disk that QEMU throttles to one I/O per second.
# virtio_scsi answers a timeout with "reset the timer", as storvsc and FC or iSCSI with a
# blocked port do: the command is slow, nothing is aborted, there is nothing to report.
virtio_disk() {
	for d in /sys/block/sd*; do
		case "$(cat "$d/device/model" 2>/dev/null)" in
		uae-slow*) basename "$d" && return 0 ;;
		esac
	done
	return 1
}
kmod_load virtio_pci 2>/dev/null
kmod_load virtio_scsi
if VDISK=$(wait_for 30 virtio_disk); then
	echo 1 >"/sys/block/$VDISK/device/timeout"
	tmo_before=$(($(cat "/sys/block/$VDISK/device/iotmo_cnt")))
	# Eight reads at once on a disk that serves one a second: the last waits 8 s.
	readers=
	for i in 1 2 3 4 5 6 7 8; do
		dd if="/dev/$VDISK" of=/dev/null bs=4096 count=1 skip=$((i * 64)) iflag=direct \
			2>/dev/null &
		readers="$readers $!"
	done
	# shellcheck disable=SC2086
	wait $readers
	tmo=$(($(cat "/sys/block/$VDISK/device/iotmo_cnt") - tmo_before))
	echo 30 >"/sys/block/$VDISK/device/timeout"
	tap_diag "virtio-scsi disk $VDISK: the midlayer's timeout handler ran $tmo times"
	check "the slow reads on $VDISK ran into the 1 s command timeout" [ "$tmo" -gt 0 ]
	# After the reads, a marker UA for the disk: once it is delivered, so is anything the
	# reads raised before it.
	timer_reset() {
		if ! uaectl inject --hctl "$(basename "$(readlink "/sys/block/$VDISK/device")")" \
			--sense "$MARKER" >/dev/null ||
		   ! wait_for 10 has ".device == \"$VDISK\" and .event == \"INQUIRY_DATA_HAS_CHANGED\""; then
			echo "the marker UA for $VDISK never reached the monitor" >"$SAW"
			return 1
		fi
		jq -e -s "map(select(.device == \"$VDISK\" and .kind != \"ua\")) | length == 0" \
			/tmp/monitor.json >/dev/null
	}
	check "virtio_scsi reset the timer: no timeout event for $VDISK" timer_reset
else
	tap_fail 2 "the throttled virtio-scsi disk appeared (its timeout checks cannot run)"
fi

# ---- SG_IO pass-through failures go to their own group ----
sg_raw "/dev/$SG" ff 00 00 00 00 00 >/dev/null 2>&1
check "a failed SG_IO command arrives as kind sgio, flagged pass-through" \
	wait_for 10 has '.kind == "sgio" and .event == "INVALID_COMMAND_OPERATION_CODE"
		and .opcode == 255 and (.flags % 2) == 1'
# nothing_since FILTER: no event the monitor printed matches the jq filter, once a marker
# behind everything captured so far reached it.
nothing_since() {
	delivered_so_far || { echo "the marker UA never reached the monitor" >"$SAW"; return 1; }
	jq -e -s "map(select($1)) | length == 0" /tmp/monitor.json >/dev/null && return 0
	jq -c -s "map(select($1))" /tmp/monitor.json >"$SAW"
	return 1
}
check "and not as a block I/O error" nothing_since '.kind == "error" and .opcode == 255'

# ---- a device whose state_mutex is held holds up nobody's events ----
# uae_holdlock.ko holds $HCTL's state_mutex until it is unloaded (as a transport's
# unblock or the error handler would find it).  A UA of that device and then one of the virtio disk:
# both reach the monitor, and the first its uevent, while the mutex is still held.
if [ -n "${VDISK:-}" ]; then
	VHCTL=$(basename "$(readlink "/sys/block/$VDISK/device")")
	udevadm monitor --kernel --property --subsystem-match=scsi >/tmp/hold-uevents.txt 2>&1 &
	HOLDMON_PID=$!
	# Listening once it printed a synthetic uevent written after it started.
	hold_listens() {
		echo change >"/sys/block/$DISK/device/uevent"
		wait_for 2 grep -q '^SYNTH_UUID=' /tmp/hold-uevents.txt
	}
	check "udevadm monitor listens" wait_for 20 hold_listens
	insmod /modules/uae_holdlock.ko hctl="$HCTL"
	holding() { grep -qx Y /sys/module/uae_holdlock/parameters/held; }
	check "the test helper holds $HCTL's state_mutex" wait_for 10 holding
	vmarks() {
		jq -s --arg h "$VHCTL" 'map(select(.hctl == $h and .event == "INQUIRY_DATA_HAS_CHANGED"))
			| length' /tmp/monitor.json
	}
	vmarks_before=$(vmarks)
	uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
	uaectl inject --hctl "$VHCTL" --sense "$MARKER"
	not_held_up() {
		echo "$VHCTL's markers: $(vmarks), $vmarks_before before;" \
			"uevents: $(grep '^UAEVENTS_EVENT=' /tmp/hold-uevents.txt | tr '\n' ' ')" >"$SAW"
		[ "$(vmarks)" -gt "$vmarks_before" ] &&
			grep -q '^UAEVENTS_EVENT=MODE_PARAMETERS_CHANGED$' /tmp/hold-uevents.txt
	}
	check "meanwhile the other device's event and this one's uevent are delivered" \
		wait_for 5 not_held_up
	check "while the mutex was still held" holding
	check "the helper lets it go and unloads" rmmod uae_holdlock
	kill "$HOLDMON_PID"
else
	tap_fail 5 "the virtio disk appeared (the held state_mutex checks cannot run)"
fi

# ---- a request refused before it became a SCSI command carries no other command's data ----
# Writes and the flush after them reach an offline device: scsi_queue_rq() refuses them
# before scsi_prepare_cmd(), and an empty PREFLUSH is never prepared at all.  Their
# scsi_cmnd still holds an earlier command's result and CDB.
exec 3>"/dev/$DISK"	# opened while online: sd refuses to open an offline device
echo offline >"/sys/block/$DISK/device/state"
dd if=/dev/zero bs=4096 count=4 conv=fsync >&3 2>/dev/null
echo running >"/sys/block/$DISK/device/state"
exec 3>&-
nocmd() {
	jq -e -s 'map(select(.kind == "error" and .event == "REQUEST_FAILED"
		and (.flags / 16 | floor) % 2 == 1 and .opcode == null and .host_byte == null
		and .errno == 5 and (.req_op == "write" or .req_op == "flush"))) | length > 0' \
		/tmp/monitor.json >/dev/null
}
check "a write refused by an offline device: REQUEST_FAILED, flagged no-command, errno and request op only" \
	wait_for 10 nocmd
tap_diag "refused requests: $(jq -c -s 'map(select(.errno == 5) | {event, flags, req_op, opcode,
	host_byte, status, errno})' /tmp/monitor.json)"
check "no error event claims a GOOD command (another command's status)" \
	nothing_since '.kind == "error" and .status == 0 and .host_byte == 0
		and .event != "REQUEST_FAILED"'

# ---- storm coalescing: 50 identical UAs in one window ----
coalesced_before=$(stat_of coalesced)
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a1000000000 --count 50
timestamp_events() {
	jq -e -s 'map(select(.event == "TIMESTAMP_CHANGED")) |
		length == 2 and (map(.repeat) | add) == 50' /tmp/monitor.json >/dev/null
}
check "a storm of 50 identical UAs gives 2 events whose repeat counts add up to 50" \
	wait_for 10 timestamp_events
check "the module counted 48 occurrences as coalesced" \
	sh -c "[ \$(uaectl status --json | jq .coalesced) -eq $((coalesced_before + 48)) ]"

# ---- a sustained storm of failed pass-through commands over many windows ----
# Every TEST UNIT READY fails (6.12's scsi_debug, count > 0: until removed).  The repeat
# counts of the published events must add up to the failed commands exactly, and the
# statistics must say the same: no occurrence lost when a window ends before its flush.
if injection_or_skip 3 "sustained storm of failed TEST UNIT READYs"; then
	uaectl config --coalesce-ms 200
	coalesced_before=$(stat_of coalesced)
	full_before=$(stat_of queue_full)
	echo "2 1 0x00 0 0 0x2 0x5 0x24 0x00" >"$ERRFILE"
	storm_start=$(uptime_ms)
	sg_turs -n 20000 "/dev/$SG" >/tmp/turs.txt 2>&1
	storm_ms=$(($(uptime_ms) - storm_start))
	echo "- 0x00" >"$ERRFILE"
	failed=$(sed -n 's/.*with \([0-9]*\) errors.*/\1/p' /tmp/turs.txt)
	storm_events() {
		jq -s 'map(select(.kind == "sgio" and .opcode == 0 and .asc == 36))' /tmp/monitor.json
	}
	# The last window's event is published when the window ends: wait for the repeat
	# counts to reach every failed command (they never exceed it), not a fixed time.
	storm_published() {
		published=$(storm_events | jq 'map(.repeat) | add')
		[ "${failed:-0}" -ge 1000 ] && [ "$published" = "$failed" ]
	}
	check "sustained storm: the repeat counts add up to every failed command (${failed:-?})" \
		wait_for 30 storm_published
	nevents=$(storm_events | jq length)
	coalesced=$(($(stat_of coalesced) - coalesced_before))
	tap_diag "storm: sg_turs: $(tail -n 1 /tmp/turs.txt); $nevents events, repeats adding up to $published; coalesced $coalesced, queue_full $(($(stat_of queue_full) - full_before))"
	check "and the statistics agree: events + coalesced = failed commands" \
		[ $((nevents + coalesced)) -eq "${failed:-0}" ]
	# How many windows the storm spans depends on how fast it runs: bounded by its time,
	# not counted.  Each event of a key opens a window of 200 ms, the storm's last one
	# is published when its window ends: at most one per 200 ms of storm, and two more.
	windows=$((storm_ms / 200 + 2))
	check "a storm over many windows gave one event per window, not one per command ($nevents events in $storm_ms ms, at most $windows)" \
		sh -c "[ '$nevents' -ge 2 ] && [ '$nevents' -le $windows ] && [ '$nevents' -lt '${failed:-0}' ]"
	uaectl config --coalesce-ms 1000
fi
# ---- pass-through commands that fail without a CHECK CONDITION ----
# A host byte (DID_TRANSPORT_FAILFAST, as a lost path gives) and RESERVATION CONFLICT
# reach neither scsi_check_sense() nor block_rq_error: each failed command is still one
# sgio event with its host byte or status, none twice (scsi_io_completion() looks at a
# failed command without data twice), and an attempt the midlayer retries (DID_RESET) is
# not one.  Coalescing off, so that each occurrence is an event of its own; counted after
# a marker event injected later has arrived (delivered_so_far).
# sgio_turs LINE WHAT JQ N: 200 TEST UNIT READYs through sg under injection LINE (sg_turs
# counts only failures with sense, so its count is not used); N sgio events match JQ.
sgio_turs() {
	echo "$1" >"$ERRFILE"
	sg_turs -n 200 "/dev/$SG" >/tmp/sgio-turs.txt 2>&1
	echo "- 0x00" >"$ERRFILE"
	delivered_so_far
	sgio_got=$(jq -s "map(select(.kind == \"sgio\" and .opcode == 0 and $3)) | length" \
		/tmp/monitor.json)
	echo "sg_turs: $(tail -n 1 /tmp/sgio-turs.txt); $sgio_got events" >"$SAW"
	check "$2 ($sgio_got)" [ "$sgio_got" = "$4" ]
}
if injection_or_skip 7 "pass-through failures without CHECK CONDITION, a failed cache flush"; then
	uaectl config --coalesce-ms 0
	sgio_turs "2 1 0x00 0x0f 0 0 0 0 0" \
		"200 pass-through commands failing with DID_TRANSPORT_FAILFAST: 200 sgio events" \
		'.host_byte == 15 and .status == 0 and ((.flags % 2) == 1)' 200
	sgio_turs "2 1 0x00 0 0 0x18 0 0 0" \
		"200 failing with RESERVATION CONFLICT: 200 sgio events" \
		'.host_byte == 0 and .status == 24' 200
	# DID_RESET 200 times (scsi_debug counts them over all commands: the first TEST UNIT
	# READY takes them all as the midlayer retries it, then succeeds): no final failure.
	sgio_turs "2 -200 0x00 0x08 0 0 0 0 0" \
		"200 resets retried until the command succeeds: no sgio event" \
		'.host_byte == 8' 0
	# DID_RESET on every try: retried until the command's 2 s run out, then one event.
	echo "2 1 0x00 0x08 0 0 0 0 0" >"$ERRFILE"
	sg_raw -t 2 "/dev/$SG" 00 00 00 00 00 00 >/tmp/sgio-raw.txt 2>&1
	echo "- 0x00" >"$ERRFILE"
	delivered_so_far
	sgio_got=$(jq -s 'map(select(.kind == "sgio" and .opcode == 0 and .host_byte == 8)) |
		length' /tmp/monitor.json)
	tail -n 2 /tmp/sgio-raw.txt >"$SAW"
	check "a command reset on every try until its time ran out: one sgio event ($sgio_got)" \
		[ "$sgio_got" = 1 ]
	# A failed cache flush: the flush machinery's own request has no bio, so the block
	# layer reports only the fsync's request that waited for it, without a command.
	# Every SYNCHRONIZE CACHE(10) fails with MEDIUM ERROR, WRITE ERROR, which the
	# midlayer tries 6 times: one error event with the flush's own command and sense.
	flush_from=$(($(stat_of last_seq) + 1))
	echo "2 1 0x35 0 0 0x2 0x3 0x0c 0x00" >"$ERRFILE"
	dd if=/dev/zero of="/dev/$DISK" bs=4096 count=1 conv=fsync 2>/tmp/flush-dd.txt
	echo "- 0x35" >"$ERRFILE"
	delivered_so_far
	# flush_events N: N error events of SYNCHRONIZE CACHE(10) matching the jq filter $2.
	flush_events() {
		got=$(jq -s "map(select(.kind == \"error\" and .opcode == 53 and $2)) | length" \
			/tmp/monitor.json)
		[ "$got" = "$1" ] && return 0
		{ echo "$got events; dd: $(tail -n 1 /tmp/flush-dd.txt);" \
			"write cache: $(cat "/sys/block/$DISK/queue/write_cache")"
		  jq -c -s 'map(select(.kind == "error" and (.opcode == 53 or .opcode == null)) |
			{event, opcode, req_op, lba, status, sense_key, asc, ascq, errno, flags,
			 repeat})' /tmp/monitor.json; } >"$SAW"
		return 1
	}
	check "a cache flush failing on every try: one error event of SYNCHRONIZE CACHE" \
		flush_events 1 true
	check "with its sense and status, request op flush and no LBA range" flush_events 1 \
		'.event == "WRITE_ERROR" and .sense_key == 3 and .asc == 12 and .ascq == 0
		 and .status == 2 and .req_op == "flush" and .lba == null and (.flags % 2) == 0'
	# The fsync's own request, which waited for the flush, failed with it: no command.
	waiter_failed() {
		jq -e -s --argjson from "$flush_from" 'map(select(.seq >= $from and
			.kind == "error" and .event == "REQUEST_FAILED" and .opcode == null and
			.errno == 5)) | length >= 1' /tmp/monitor.json >/dev/null && return 0
		jq -c -s --argjson from "$flush_from" 'map(select(.seq >= $from))' \
			/tmp/monitor.json >"$SAW"
		return 1
	}
	check "and the fsync that waited for it failed without a command, errno 5" waiter_failed
	uaectl config --coalesce-ms 1000
fi
# The timeouts, the error handler and the storms above: none of the hooks' calls skipped.
check "the kernel skipped no call of the hooks: probe_missed is 0" \
	test "$(stat_of probe_missed)" = 0

# ---- permissions ----
tap_diag "as nobody: $($NOBODY uaectl status 2>&1 | head -n 2 | tr "\n" " ")"
check "an unprivileged user can read the status" $NOBODY uaectl status
# Events name devices, LBAs of failed I/O and serials, which dmesg_restrict=1 keeps from
# users: subscribing and replaying need CAP_SYS_ADMIN, like changing anything.
for cmd in "config --coalesce-ms 5" "inject --hctl $HCTL --host-byte DID_ERROR" \
	   "clear-history" "monitor" "history"; do
	# shellcheck disable=SC2086
	timeout 10 $NOBODY uaectl $cmd >/dev/null 2>&1
	tap_result $(($? == 4 ? 0 : 1)) "an unprivileged user cannot: uaectl $cmd (exit 4)"
done
# CAP_NET_ADMIN, which network daemons and host-network containers hold, is not enough.
# (root with a bounding set of CAP_NET_ADMIN alone has that capability alone.)
/usr/bin/setpriv --inh-caps=-all --bounding-set=-all,+net_admin uaectl inject --hctl "$HCTL" --host-byte DID_ERROR >/dev/null 2>&1
tap_result $(($? == 4 ? 0 : 1)) "CAP_NET_ADMIN alone cannot inject (exit 4)"

# ---- a 10,000-event burst while a subscriber does not read ----
kill "$UAEVENTD_PID" 2>/dev/null
uaectl config --coalesce-ms 0
uaectl monitor --json >/tmp/burst.json 2>/tmp/burst.err &
burst_pid=$!
# Stopped only once subscribed: a subscriber stopped before it joined would miss the burst
# (and the overflow below could be the other subscribers').
wait_for 10 waits_in_poll "$burst_pid"
burst_listening=$?
kill -STOP "$burst_pid"
start=$(stat_of last_seq)
overflow_before=$(stat_of mcast_overflow)
uaectl inject --hctl "$HCTL" --host-byte DID_ERROR --status GOOD --kind error --count 10000
end=$(stat_of last_seq)
kill -CONT "$burst_pid"
tap_diag "burst: sequence numbers $((start + 1))..$end"
burst_done() { jq -n -e --argjson last "$end" 'any(inputs; .seq == $last)' /tmp/burst.json >/dev/null; }
check "the burst gave 10000 events" [ $((end - start)) -eq 10000 ]
stopped_overflowed() {
	[ "$burst_listening" -eq 0 ] ||
		{ echo "the subscriber never waited in poll(): not subscribed when stopped" >"$SAW"; return 1; }
	[ "$(stat_of mcast_overflow)" -gt "$overflow_before" ]
}
check "the kernel saw the stopped subscriber's socket overflow (ENOBUFS)" stopped_overflowed
check "after the burst the subscriber caught up" wait_for 120 burst_done
# Said once the catching up is done, which may be just after the last event is printed.
check "the subscriber says it overflowed and replayed from the history" \
	wait_for 10 grep -q "overflowed; the missed events were replayed" /tmp/burst.err
check "every sequence number of the burst arrived exactly once, no gap" \
	jq -e -s --argjson s "$start" --argjson e "$end" \
		'map(select(.seq > $s and .seq <= $e)) | (map(.seq) == [range($s + 1; $e + 1)])
		 and all(.gap == 0)' /tmp/burst.json
tap_diag "burst subscriber: $(cat /tmp/burst.err | tr '\n' ' ')"
kill "$burst_pid" 2>/dev/null
# A subscriber of the UA group alone: 100 errors pass it by (it never subscribed to
# them), a UA reaches it, then it overflows in a burst of UAs with an error in front.
# Its replay passes through that error, whose group number is 101 past the last one the
# subscriber knew of: none of them are its losses.
uaectl monitor --json --filter kind=ua >/tmp/uamon.json 2>/tmp/uamon.err &
uamon_pid=$!
wait_for 10 waits_in_poll "$uamon_pid"
uamon_listening=$?
uaectl inject --hctl "$HCTL" --host-byte DID_ERROR --status GOOD --kind error --count 100
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a1000000000
ua_first=$(stat_of last_seq)
uamon_has() { jq -n -e --argjson s "$1" 'any(inputs; .seq == $s)' /tmp/uamon.json >/dev/null; }
wait_for 10 uamon_has "$ua_first"
uamon_got_first=$?
kill -STOP "$uamon_pid"
overflow_before=$(stat_of mcast_overflow)
uaectl inject --hctl "$HCTL" --host-byte DID_ERROR --status GOOD --kind error
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a1000000000 --count 5000
ua_end=$(stat_of last_seq)
kill -CONT "$uamon_pid"
uamon_overflowed() {
	[ "$uamon_listening" -eq 0 ] ||
		{ echo "the kind=ua subscriber never waited in poll()" >"$SAW"; return 1; }
	[ "$uamon_got_first" -eq 0 ] ||
		{ echo "the kind=ua subscriber never printed UA $ua_first" >"$SAW"; return 1; }
	[ "$(stat_of mcast_overflow)" -gt "$overflow_before" ]
}
check "a kind=ua subscriber stopped during 5000 UAs overflowed" uamon_overflowed
check "it caught up on the UAs from the history" wait_for 120 uamon_has "$ua_end"
check "and reported no gap: the 100 errors its replay passed are not its losses" \
	jq -e -s 'map(select(.kind == "ua")) | length >= 5000 and
		(map(select(.kind == "gap" or .gap > 0)) | length == 0)' /tmp/uamon.json
tap_diag "kind=ua subscriber: $(jq -s -c 'map(select(.kind == "gap" or .gap > 0)) | .[0:3]' /tmp/uamon.json) $(head -c 300 /tmp/uamon.err)"
kill "$uamon_pid" 2>/dev/null
# The history is replayed a page at a time, a bounded amount of work per receive: the
# whole of it still arrives, once each and in order, filtered or not.
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000003f0e00000000 --count 2 >/dev/null
last=$(stat_of last_seq)
# in_history SEQ: event SEQ was delivered to the history (an inject returns before the
# delivery of its last events).
in_history() {
	uaectl history --json --since $(($1 - 1)) |
		jq -n -e --argjson s "$1" 'any(inputs; .seq == $s and .kind != "gap")' >/dev/null
}
wait_for 10 in_history "$last"
history_synced=$?
first=$(stat_of history_first_seq)
history_dump() {
	[ "$history_synced" -eq 0 ] || { echo "event $last never reached the history" >"$SAW"; return 1; }
	uaectl history --json >/tmp/history.json 2>/tmp/history.err
}
check "uaectl history exits 0 after a history of $((last - first + 1)) events" history_dump
check "uaectl history prints every event of the history once, in order ($first..$last)" \
	jq -e -s --argjson f "$first" --argjson l "$last" \
		'map(select(.seq <= $l)) | map(.seq) == [range($f; $l + 1)]' /tmp/history.json
timeout 60 uaectl history --json --filter kind=ua >/tmp/history-ua.json 2>>/tmp/history.err
tap_result $? "uaectl history --filter kind=ua pages through the errors and exits 0"
check "the filtered history holds the unit attentions of the history, and nothing else" \
	jq -e -n --argjson l "$last" --slurpfile all /tmp/history.json \
		--slurpfile ua /tmp/history-ua.json \
		'($all | map(select(.kind == "ua" and .seq <= $l) | .seq)) as $want |
		 ($want | length) >= 1 and ($ua | map(select(.seq <= $l) | .seq)) == $want'

tap_diag "history: $(jq -s -c '[length, .[0].seq, .[-1].seq]' /tmp/history.json) \
ua: $(jq -s -c '[length, .[0].seq, .[-1].seq]' /tmp/history-ua.json) $(head -c 300 /tmp/history.err)"
uaectl config --coalesce-ms 1000

# ---- hot-remove and re-add scsi_debug hosts while events are raised ----
# The newest scsi_debug host's LU 0 (added by add_host, scanned asynchronously).
newest_sdebug_hctl() {
	h=$(ls -d "$SDEBUG"/adapter*/host* | sed 's/.*host//' | sort -n | tail -n 1)
	d=$(ls -d /sys/bus/scsi/devices/"$h":*:*:0 2>/dev/null | head -n 1)
	[ -n "$d" ] && basename "$d"
}
# Each cycle raises events on the host it is about to remove, among them a storm held
# for a window of 10 minutes (coalesce-ms): the removal must not wait for it.
hot_cycles() {
	uaectl config --coalesce-ms 600000
	for i in $(seq "$CYCLES"); do
		echo 1 >"$SDEBUG/add_host" || return 1
		new=$(wait_for 10 newest_sdebug_hctl) || { echo "cycle $i: no new LU"; return 1; }
		uaectl inject --hctl "$HCTL" --sense 700006000000000a000000003f0e00000000 \
			>/dev/null || return 1
		uaectl inject --hctl "$new" --sense 700006000000000a000000003f0e00000000 \
			--count 3 >/dev/null || return 1
		echo -1 >"$SDEBUG/add_host" || return 1
		! [ -e "/sys/bus/scsi/devices/$new" ] || { echo "cycle $i: $new still there"; return 1; }
	done
	uaectl config --coalesce-ms 1000
}
check "$CYCLES cycles of adding and removing a scsi_debug host with events raised and held" \
	hot_cycles

# ---- events the pool cannot hold: counted, and a gap for subscribers ----
# A storm faster than delivery into the smallest pool (max_pending=16), coalescing off.
# An event dropped at capture is counted (queue_full) and keeps its sequence numbers, so
# the subscriber's events and the gaps it is told of add up to every failed command.  A
# last event after the storm shows a hole at its end.
# Whether the pool overflows depends on the scheduler; what holds either way is checked:
# every command is accounted for, every drop is a gap, and the first 16 failures, which
# find the pool empty, are events the subscriber receives (or all gaps would pass).
if injection_or_skip 2 "the 16-event pool"; then
	# The largest history: the subscriber, if its socket overflows, replays from it what
	# it missed, so the first 16 events are never lost to the history wrapping.
	rmmod uaevents && insmod /modules/uaevents.ko max_pending=16 coalesce_ms=0 history_size=65536
	uaectl monitor --json >/tmp/pool.json 2>/tmp/pool.err &
	pool_mon=$!
	wait_for 10 waits_in_poll "$pool_mon"
	pool_sync=$?
	echo "2 1 0x00 0 0 0x2 0x5 0x24 0x00" >"$ERRFILE"
	# Whether two producers outrun the delivery work on the one virtual CPU depends on the
	# scheduler (a loaded host once gave 4,000 events with none dropped): storm again, up
	# to five times, until the pool overflowed.  Every storm's commands are counted below.
	for try in 1 2 3 4 5; do
		sg_turs -n 2000 "/dev/$SG" >"/tmp/pool-turs.$try.1" 2>&1 &
		t1=$!
		sg_turs -n 2000 "/dev/$SG" >"/tmp/pool-turs.$try.2" 2>&1 &
		t2=$!
		wait "$t1" "$t2"
		[ "$(stat_of queue_full)" -gt 0 ] && break
	done
	tap_diag "pool storm: $try storm(s) of 4000 commands"
	echo "- 0x00" >"$ERRFILE"
	# The last event, of the same group (a hole is seen in the numbers of the subscriber's
	# groups).  The storm is over, but its last events may still fill the pool: a marker
	# dropped for that is counted (and is a gap of its own), and another is raised.
	pool_full_storm=$(stat_of queue_full)
	pool_mark() {
		full=$(stat_of queue_full)
		uaectl inject --hctl "$HCTL" --kind sgio --sense 700005000000000a00000000200000000000 \
			>/dev/null && [ "$(stat_of queue_full)" = "$full" ]
	}
	wait_for 10 pool_mark || pool_sync=1
	pool_last=$(stat_of last_seq)
	pool_done() { jq -n -e --argjson l "$pool_last" 'any(inputs; .seq == $l)' /tmp/pool.json >/dev/null; }
	wait_for 60 pool_done || pool_sync=1
	kill "$pool_mon"
	wait_for 10 gone "$pool_mon" || pool_sync=1
	pool_failed=$(sed -n 's/.*with \([0-9]*\) errors.*/\1/p' /tmp/pool-turs.* | awk '{ n += $1 } END { print n + 0 }')
	pool_full=$(stat_of queue_full)
	pool_marks_lost=$((pool_full - pool_full_storm))
	pool_got=$(jq -s 'map(select(.kind == "sgio" and .asc == 36)) | length' /tmp/pool.json)
	pool_gaps=$(jq -s 'map(select(.kind == "gap") | .gap) | add // 0' /tmp/pool.json)
	tap_diag "pool storm: $pool_failed failed commands, $pool_got events received, gaps of $pool_gaps reported, queue_full $pool_full ($pool_marks_lost of them end markers), last seq $pool_last"
	pool_saw() {
		echo "subscribed, last event received, exited: $([ "$pool_sync" -eq 0 ] && echo yes || echo no);" \
			"$pool_failed failed commands, $pool_got received, gaps of $pool_gaps," \
			"queue_full $pool_full ($pool_marks_lost end markers)" >"$SAW"
		[ "$pool_sync" -eq 0 ]
	}
	pool_drops_are_gaps() { pool_saw && [ "$pool_gaps" -ge "$pool_full" ]; }
	pool_accounted() {
		pool_saw && [ "$pool_got" -ge 16 ] &&
			[ $((pool_got + pool_gaps)) -eq $((pool_failed + pool_marks_lost)) ]
	}
	if [ "$pool_full" = 0 ]; then
		tap_skip 1 "the storm overran the 16-event pool: not in $try storms this run (scheduling)"
	else
		check "the storm overran the 16-event pool (queue_full > 0), each drop a gap for the subscriber" \
			pool_drops_are_gaps
	fi
	check "events received (at least the 16 the empty pool holds) and gaps reported add up to every failed command" \
		pool_accounted
	rmmod uaevents && insmod /modules/uaevents.ko
fi

# ---- rmmod/insmod with live subscribers ----
RELOAD_MONS=
reload_cycles() {
	for i in $(seq "$CYCLES"); do
		uaectl monitor --json >/dev/null 2>&1 &
		mon=$!
		RELOAD_MONS="$RELOAD_MONS $mon"
		uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0900000000 \
			>/dev/null 2>&1
		rmmod uaevents || { echo "rmmod failed in cycle $i"; return 1; }
		insmod /modules/uaevents.ko || { echo "insmod failed in cycle $i"; return 1; }
		# The subscriber may have gone already (it started after the rmmod): fine.
		kill "$mon" 2>/dev/null || true
	done
	return 0
}
check "$CYCLES cycles of rmmod/insmod uaevents with live subscribers; rmmod always succeeds" \
	reload_cycles
# ---- a subscriber of one group sees no false gaps ----
kill "$ERRMON_PID" 2>/dev/null
# Read once it has exited: all it printed is in the file, no line half written.
errmon_no_gap() {
	wait_for 10 gone "$ERRMON_PID" ||
		{ echo "the kind=error subscriber did not exit on SIGTERM" >"$SAW"; return 1; }
	jq -e -s 'map(select(.kind == "error")) | length > 0 and
		(map(select(.kind == "gap" or .gap > 0)) | length == 0)' /tmp/errmon.json >/dev/null
}
check "a kind=error subscriber got error events and not one gap, with UAs and SG_IO in between" \
	errmon_no_gap
tap_diag "kind=error subscriber: $(jq -s 'group_by(.kind) | map("\(.[0].kind): \(length)") | join(", ")' /tmp/errmon.json)"

# ---- events that fall out of the history unread are counted, and a replay reports them ----
kill "$MONITOR_PID" 2>/dev/null	# no subscriber at all now
# Every subscriber this script started has exited, not only been signalled: one still
# there would follow the module below and read the events.
# shellcheck disable=SC2086
wait_for 10 gone "$MONITOR_PID" "$ERRMON_PID" "$UAEVENTD_PID" "$burst_pid" "$uamon_pid" ${pool_mon:-} \
	$RELOAD_MONS
nobody=$?
rmmod uaevents
insmod /modules/uaevents.ko history_size=16
uaectl config --coalesce-ms 0
uaectl inject --hctl "$HCTL" --host-byte DID_ERROR --status GOOD --kind error --count 40
# Counted as the events are delivered, after the inject returns: 24 is where it stops.
lost_unread_is() { [ "$(stat_of lost_unread)" -eq "$1" ]; }
lost_unread_24() {
	[ "$nobody" -eq 0 ] || { echo "a subscriber of this script was still running" >"$SAW"; return 1; }
	wait_for 10 lost_unread_is 24 && return 0
	echo "lost_unread $(stat_of lost_unread)" >"$SAW"
	return 1
}
check "40 events nobody read through a history of 16: 24 counted as lost unread" lost_unread_24
uaectl history --json >/tmp/history.json 2>/tmp/history.err
check "the history replays the last 16, after a gap event for the 24 lost before them" \
	sh -c "jq -e -s '(.[0] | .kind == \"gap\" and .seq == 1 and .gap == 24)
		and (.[1:] | map(.seq)) == [range(25; 41)]' /tmp/history.json >/dev/null &&
		grep -q '24 events lost from seq 1 on' /tmp/history.err"

# ---- rmmod while INJECT, SET_CONFIG, dumps and a storm of failing I/O run ----
# A dump in progress holds a module reference (netlink's own, until the dump ends), so a
# busy rmmod is retried; it must succeed within 10 s and insmod right after it.
rmmod_retry() {
	for t in $(seq 100); do
		rmmod "$1" 2>/dev/null && { echo "$t"; return 0; }
		sleep 0.1
	done
	rmmod "$1"
	return 1
}
# Each loop ends after its current command once /tmp/load.stop exists: a loop killed
# instead leaves that command running (an INJECT of 5,000 events) into the checks after.
LOAD_STOP=/tmp/load.stop
load_loops() {
	LOAD_PIDS=
	rm -f "$LOAD_STOP"
	while [ ! -e "$LOAD_STOP" ]; do uaectl inject --hctl "$HCTL" --host-byte DID_ERROR \
		--status GOOD --kind error --count 5000 >/dev/null 2>&1; done &
	LOAD_PIDS="$LOAD_PIDS $!"
	while [ ! -e "$LOAD_STOP" ]; do uaectl config --coalesce-ms 0 >/dev/null 2>&1
		uaectl config --coalesce-ms 50 --uevents all >/dev/null 2>&1
		uaectl config --uevents ua >/dev/null 2>&1; done &
	LOAD_PIDS="$LOAD_PIDS $!"
	while [ ! -e "$LOAD_STOP" ]; do uaectl history --json >/dev/null 2>&1; done &
	LOAD_PIDS="$LOAD_PIDS $!"
	# Real failures through the hooks: scsi_debug opts=2 fails reads of sector 0x1234.
	echo 2 >"$SDEBUG/opts"
	while [ ! -e "$LOAD_STOP" ]; do dd if="/dev/$DISK" of=/dev/null bs=512 skip=4660 count=1 \
		iflag=direct 2>/dev/null; done &
	LOAD_PIDS="$LOAD_PIDS $!"
}
busy_reload_cycles() {
	tries=0
	for i in $(seq "$CYCLES"); do
		sleep 0.$((i % 5))
		t=$(rmmod_retry uaevents) || { echo "cycle $i: rmmod failed"; return 1; }
		tries=$((tries + t))
		insmod /modules/uaevents.ko || { echo "cycle $i: insmod failed"; return 1; }
	done
	tap_diag "rmmod attempts in $CYCLES cycles: $tries"
}
load_loops
check "$CYCLES cycles of rmmod/insmod uaevents during INJECT, SET_CONFIG, dumps and failing I/O" \
	busy_reload_cycles
touch "$LOAD_STOP"
# shellcheck disable=SC2086
wait_for 60 gone $LOAD_PIDS
load_stopped=$?
# shellcheck disable=SC2086
[ "$load_stopped" -eq 0 ] || kill $LOAD_PIDS
echo 0 >"$SDEBUG/opts"
uaectl inject --hctl "$HCTL" --sense "$MARKER" >/dev/null
# The inject returns before its event is delivered to the history.
inquiry_in_history() {
	uaectl history --json | jq -e -s 'map(select(.event == "INQUIRY_DATA_HAS_CHANGED"))
		| length == 1' >/dev/null
}
after_cycles() {
	[ "$load_stopped" -eq 0 ] ||
		{ echo "the load loops did not stop within 60 s" >"$SAW"; return 1; }
	wait_for 10 inquiry_in_history
}
check "after the cycles an event still reaches the history" after_cycles

# ---- rmmod of the low-level driver with events queued and held ----
# scsi_debug itself goes and comes back, each time just after events for its LU were
# raised, among them a storm held for 10 minutes.
lld_cycles() {
	uaectl config --coalesce-ms 600000
	for i in $(seq "$CYCLES"); do
		uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0900000000 \
			--count 3 >/dev/null || { echo "cycle $i: inject failed"; return 1; }
		rmmod_retry scsi_debug >/dev/null || { echo "cycle $i: rmmod scsi_debug failed"; return 1; }
		kmod_load scsi_debug dev_size_mb=16 max_luns=1 num_tgts=1 ||
			{ echo "cycle $i: insmod scsi_debug failed"; return 1; }
		wait_for 30 scsi_debug_disk >/dev/null || { echo "cycle $i: no disk"; return 1; }
		DISK=$(scsi_debug_disk)
		HCTL=$(basename "$(readlink "/sys/block/$DISK/device")")
	done
	uaectl config --coalesce-ms 1000
}
check "$CYCLES cycles of rmmod/insmod scsi_debug just after events for its LU were raised" \
	lld_cycles

check "rmmod at the end" rmmod uaevents
# What refused it was uaevents.ko's hooks: without them ftrace switches off, and on again.
check "without uaevents.ko kernel.ftrace_enabled can be switched off and on" \
	sh -c 'echo 0 >/proc/sys/kernel/ftrace_enabled && echo 1 >/proc/sys/kernel/ftrace_enabled'

# ---- a failed init at each step unwinds every step before it ----
# uae_faultinj.ko (tests/vm/faultinj/) makes one function fail while uaevents.ko
# initialises.  After each failed load a real I/O error goes where the hooks were: a probe
# left behind would run unloaded code.
failed_init() {
	fn=$1
	insmod /modules/uae_faultinj.ko func="$fn" || { echo "no fault injector for $fn"; return 1; }
	echo 2 >"$SDEBUG/opts"
	for i in $(seq "$CYCLES"); do
		if insmod /modules/uaevents.ko 2>/tmp/insmod.err; then
			echo "cycle $i: insmod succeeded"
			rmmod uaevents
			break
		fi
		grep -q "Cannot allocate memory" /tmp/insmod.err ||
			{ echo "cycle $i: not ENOMEM: $(cat /tmp/insmod.err)"; break; }
		dd if="/dev/$DISK" of=/dev/null bs=512 skip=4660 count=1 iflag=direct 2>/dev/null
	done
	echo 0 >"$SDEBUG/opts"
	fired=$(cat /sys/module/uae_faultinj/parameters/fired)
	rmmod uae_faultinj
	# busybox insmod tries finit_module(), then init_module(): two failed inits each.
	[ "$fired" -ge "$CYCLES" ] || { echo "$fn failed $fired times in $CYCLES loads"; return 1; }
	# What can be seen of a hook left behind: a registered kprobe or ftrace op (a filter
	# hash never registered leaks nothing that either shows).
	for f in /sys/kernel/debug/kprobes/list /sys/kernel/debug/tracing/enabled_functions; do
		[ -r "$f" ] || { echo "no $f"; return 1; }
	done
	if grep -E "scsi_check_sense|scsi_timeout|scsi_command_normalize_sense" \
		/sys/kernel/debug/kprobes/list /sys/kernel/debug/tracing/enabled_functions; then
		echo "probes or ftrace hooks left behind"
		return 1
	fi
	! uaectl status >/dev/null 2>&1 || { echo "the netlink family is still registered"; return 1; }
}
for fn in uaevents:uae_history_init scsi_register_interface uaevents:uae_capture_init \
	  genl_register_family ftrace_set_filter_ip register_ftrace_function register_kretprobe \
	  tracepoint_probe_register register_tracepoint_module_notifier; do
	check "$CYCLES loads failing at $fn: ENOMEM, nothing left behind" failed_init "$fn"
done
history_has() {
	uaectl history --json 2>/dev/null | jq -e -s "map(select(.event == \"$1\")) | length == 1" \
		>/dev/null
}
healthy_after() {
	insmod /modules/uaevents.ko || return 1
	echo 2 >"$SDEBUG/opts"
	dd if="/dev/$DISK" of=/dev/null bs=512 skip=4660 count=1 iflag=direct 2>/dev/null
	echo 0 >"$SDEBUG/opts"
	wait_for 10 history_has UNRECOVERED_READ_ERROR || { echo "no event"; return 1; }
	rmmod uaevents
}
check "after the failed loads uaevents.ko loads, reports a real error and unloads" healthy_after
# An area allocated by a module that is gone shows its caller as a bare address.
check "no vmalloc area left behind by an unloaded module (history, event pool)" \
	sh -c '! awk "\$3 ~ /^0x/" /proc/vmallocinfo | grep .'
check "rmmod scsi_debug after the storms (no device or module reference left behind)" \
	rmmod scsi_debug
check "no oops, BUG or WARNING in the kernel log" \
	sh -c '! dmesg | grep -E "BUG:|WARNING:|Oops|Call Trace"'
