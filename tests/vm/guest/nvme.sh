#!/bin/sh
# NVMe asynchronous events from the kernel's own NVMe target (nvmet) to uaectl: a
# namespace resized, disabled and enabled, an ANA group's state changed, each one a real
# AEN the host's driver acts on by itself.  nvmet's loop transport where the kernel has
# one (6.12); over TCP on 127.0.0.1 where it does not (Debian's 6.1 kernels build no
# nvme-loop).  Then nvme_core unloaded and loaded again under uaevents, and uaevents
# unloaded and loaded again over nvme_core: the events still come, nothing warns.  And a
# failed read, from a namespace on a null_blk device with bad blocks: its status named
# and classified.  Then SMART / health warnings from QEMU's emulated NVMe controller;
# last, one without uaevents, from the stock kernel's NVME_AEN uevent.
# tap-plan: 51
. /bin/lib.sh
. /bin/nvme-lib.sh

tap_diag "kernel $(uname -r)"
tap_diag "nvmet over $TRANSPORT"

# The monitor's events are read from line MARK + 1 on.
start_monitor() {
	MARK=0
	uaectl monitor --json >"/tmp/monitor.json" 2>/tmp/monitor.err &
	MONITOR_PID=$!
	wait_for 10 waits_in_poll "$MONITOR_PID"
}

# aen_seen EVENT RESULT [MIN]: the monitor printed at least MIN (1) occurrences of the
# asynchronous event EVENT with this result, on our controller, as NVMe's: no SCSI address.
aen_seen() {
	tail -n "+$((MARK + 1))" /tmp/monitor.json | jq -n -e --arg e "$1" --argjson r "$2" \
		--arg c "$CTRL" --argjson min "${3:-1}" \
		'[inputs | select(.event == $e and .kind == "aen" and .aen_result == $r
			and .controller == $c and .transport == "nvme" and .hctl == null
			and .log_page == (($r / 65536 | floor) % 256)) | .repeat] | (add // 0) >= $min' \
		>/dev/null && return 0
	{ echo "want $1 ($2) on $CTRL, ${3:-1} time(s); the monitor's events:"
	  jq -c '{seq, kind, event, controller, aen_result, aen_class, repeat}' /tmp/monitor.json
	  cat /tmp/monitor.err; } >"$SAW" 2>&1
	return 1
}

# nslists_seen MIN: at least MIN changed namespace lists on our controller, the ones the
# driver read after each namespace event, and each names namespace 1 alone.
nslists_seen() {
	tail -n "+$((MARK + 1))" /tmp/monitor.json | jq -n -e --arg c "$CTRL" --argjson min "$1" \
		'[inputs | select(.event == "NVME_CHANGED_NAMESPACE_LIST")] as $l
		| ($l | length) >= $min and all($l[]; .kind == "aen" and .controller == $c
			and .nsids == [1] and .nsids_listed == 1 and .aen_result == 262146
			and .log_page == 4 and .repeat == 1)' >/dev/null && return 0
	{ echo "want $1 or more lists of namespace 1 alone on $CTRL; the monitor's:"
	  jq -c 'select(.event == "NVME_CHANGED_NAMESPACE_LIST")' /tmp/monitor.json
	  cat /tmp/monitor.err; } >"$SAW" 2>&1
	return 1
}

# sectors_are N: the host's driver rescanned the namespace by itself.
sectors_are() { [ "$(cat "/sys/block/$DISK/size")" = "$1" ]; }

# ana_state_is STATE: the path's ANA state, as the host's driver read it by itself.
ana_state_is() {
	for s in /sys/block/nvme*c*n1/ana_state "/sys/block/$DISK/device/ana_state"; do
		[ -e "$s" ] && [ "$(cat "$s")" = "$1" ] && return 0
	done
	return 1
}

# no_kernel_warning: nothing in the kernel log says a tracepoint or a probe was left behind.
no_kernel_warning() {
	dmesg | grep -E 'WARNING|BUG|Oops|uaevents: (cannot|no )' >"$SAW" && return 1
	return 0
}

check "journald runs" start_journald
# uaevents.ko needs the SCSI midlayer (scsi_mod), as every kernel here has it.
kmod_load sd_mod
insmod /modules/uaevents.ko || tap_diag "insmod uaevents.ko failed"
check "uaectl monitor is subscribed" start_monitor
uaeventd 2>/tmp/uaeventd.err &
UAEVENTD_PID=$!
# uaeventd logs events from the moment it listens: the entries checked below come after.
uaeventd_listening() { journalctl -t uaeventd -o cat | grep -q '^uaeventd: listening'; }
check "uaeventd listens" wait_for 30 uaeventd_listening
check "nvmet target set up (subsystem, namespace 1 on a file, port over $TRANSPORT)" \
	target_setup
host_load
check "the host connects: a controller and namespace 1's disk" connect
tap_diag "controller $CTRL, disk $DISK"

# 1. A namespace resized: nvmet sends NS attribute changed (notice 00h, log page 04h).
truncate -s 128M "$IMG"
echo 1 >"$CFG/subsystems/$NQN/namespaces/1/revalidate_size"
check "resize: NVME_NAMESPACE_ATTRIBUTE_CHANGED (0x040002) on $CTRL" \
	wait_for 20 aen_seen NVME_NAMESPACE_ATTRIBUTE_CHANGED 262146
check "resize: the driver rescanned by itself (262144 sectors)" wait_for 20 sectors_are 262144
check "resize: the changed namespace list the driver read names namespace 1 alone" \
	wait_for 20 nslists_seen 1

# 2. Disabled, then enabled: one event each, once the host has read the changed
# namespace list (nvmet holds the next event of a kind until then: its disk's going
# and coming back say so).
echo 0 >"$CFG/subsystems/$NQN/namespaces/1/enable"
check "disable: the namespace's disk goes" wait_for 30 eval '[ ! -e "/sys/block/$DISK" ]'
echo 1 >"$CFG/subsystems/$NQN/namespaces/1/enable"
check "enable: the namespace's disk comes back" wait_for 30 our_disk
DISK=$(our_disk)
check "disable and enable: 3 namespace events in all, as many as the target sent" \
	wait_for 20 aen_seen NVME_NAMESPACE_ATTRIBUTE_CHANGED 262146 3
check "disable and enable: a changed namespace list after each event, each of namespace 1" \
	wait_for 20 nslists_seen 3

# 3. An ANA group's state on the port: ANA change (notice 03h, log page 0Ch), then the
# group's new state as the controller read it.  The controller read its ANA log as it
# connected and again as it started (nvme_mpath_update()): published once.
# ana_count EVENT GROUP: occurrences of the ANA state event EVENT of GROUP on our controller.
ana_count() {
	tail -n "+$((MARK + 1))" /tmp/monitor.json | jq -n --arg e "$1" --argjson g "$2" \
		--arg c "$CTRL" '[inputs | select(.kind == "ana" and .event == $e
			and .ana_group == $g and .controller == $c and .transport == "nvme"
			and .hctl == null) | .repeat] | add // 0'
}
# ana_seen EVENT GROUP [N]: at least one (exactly N) of them.
ana_seen() {
	n=$(ana_count "$1" "$2")
	if [ -n "${3:-}" ]; then [ "$n" = "$3" ]; else [ "${n:-0}" -ge 1 ]; fi && return 0
	{ echo "want ${3:-some} $1 of group $2 on $CTRL, saw $n; the monitor's ANA events:"
	  jq -c 'select(.kind == "ana")' /tmp/monitor.json; } >"$SAW" 2>&1
	return 1
}
check "ANA: group 1's first reading on $CTRL, NVME_ANA_OPTIMIZED, once despite the scans" \
	ana_seen NVME_ANA_OPTIMIZED 1 1
echo non-optimized >"$CFG/ports/1/ana_groups/1/ana_state"
check "ANA: NVME_ANA_CHANGE (0x0c0302) on $CTRL" wait_for 20 aen_seen NVME_ANA_CHANGE 787202
check "ANA: the driver read the new state by itself (non-optimized)" \
	wait_for 20 ana_state_is non-optimized
check "ANA: group 1 is NVME_ANA_NON_OPTIMIZED through $CTRL" \
	wait_for 20 ana_seen NVME_ANA_NON_OPTIMIZED 1

# 3b. A read that fails for good: namespace 2 on null_blk with bad sectors (nvme-lib.sh).
# read_failed: the monitor printed the failed read: a path of namespace 2, its status
# (INTERNAL ERROR, SCT 0 SC 06h, with DNR; nvmet sets MORE too: its error log has it), name
# and class, the request.
read_failed() {
	jq -n -e --arg c "$CTRL" \
		'any(inputs; .kind == "error" and .transport == "nvme" and .controller == $c
			and (.device | test("^nvme[0-9]+(c[0-9]+)?n2$"))
			and .nvme_status % 2048 == 6 and (.nvme_status / 16384 | floor) % 2 == 1
			and .event == "INTERNAL_ERROR" and .classification.severity == "fatal"
			and .opcode == 2 and .req_op == "read" and .errno == 5
			and .lba <= 2048 and .lba + .sectors > 2048 and .hctl == null)' \
		/tmp/monitor.json >/dev/null && return 0
	{ echo "want a failed read of namespace 2 on $CTRL, SC 06h with DNR; the monitor's errors:"
	  jq -c 'select(.kind == "error")' /tmp/monitor.json; } >"$SAW" 2>&1
	return 1
}
check "namespace 2 on null_blk with bad sectors, seen by the host" \
	eval 'nullb_namespace && wait_for 30 our_disk 2 >/dev/null'
DISK2=$(our_disk 2)
# read_bad: a direct read of sector 2048 fails with EIO (what the program sees).
read_bad() {
	! dd if="/dev/$DISK2" of=/dev/null bs=4096 skip=256 count=1 iflag=direct 2>"$SAW" &&
		grep -qi 'input/output error' "$SAW"
}
check "a direct read of a bad sector of $DISK2 fails with an I/O error" read_bad
check "the failed read: INTERNAL_ERROR (SC 06h, DNR), fatal, read of LBA 2048 on $CTRL" \
	wait_for 20 read_failed

# 3c. uaeventd's entries: each event its own MESSAGE_ID and priority, the controller, and
# no action taken (the driver rescans and follows ANA itself).
# journal_has EVENT MESSAGE_ID PRIORITY JQ-CONDITION
journal_has() {
	journalctl -o json "UAEVENTS_EVENT=$1" | jq -e -s --arg mid "$2" --arg prio "$3" \
		--arg c "$CTRL" "any(.MESSAGE_ID == \$mid and .PRIORITY == \$prio
			and .UAEVENTS_TRANSPORT == \"nvme\" and .UAEVENTS_NVME_CONTROLLER == \$c
			and (.MESSAGE | startswith(\$c) or contains(\"[\" + \$c + \"]\")) and $4)" \
		>/dev/null && return 0
	{ echo "want a $1 entry ($2, priority $3, $CTRL, $4); uaeventd's:"
	  journalctl -o json SYSLOG_IDENTIFIER=uaeventd |
		jq -c '{MESSAGE, MESSAGE_ID, PRIORITY, UAEVENTS_EVENT, UAEVENTS_NVME_CONTROLLER}'
	  cat /tmp/uaeventd.err; } >"$SAW" 2>&1
	return 1
}
check "journal: the namespace change, its MESSAGE_ID, notice, result 0x040002" \
	wait_for 20 journal_has NVME_NAMESPACE_ATTRIBUTE_CHANGED 5e40d1d288b449f7be9d088858511965 5 \
	'.UAEVENTS_AEN_RESULT == "0x040002" and .UAEVENTS_LOG_PAGE == "0x04"'
check "journal: the changed namespace list, its MESSAGE_ID, notice, namespace 1" \
	wait_for 20 journal_has NVME_CHANGED_NAMESPACE_LIST ff4a0eb02efc478ca1e764161f90a85e 5 \
	'.UAEVENTS_NVME_NSIDS == "1" and .UAEVENTS_NVME_NSIDS_LISTED == "1"'
check "journal: the ANA change, its MESSAGE_ID, notice" \
	wait_for 20 journal_has NVME_ANA_CHANGE 923248ae95eb4dfba14fc0964f25a19a 5 \
	'.UAEVENTS_AEN_CLASS == "notice"'
check "journal: the path's new ANA state, a notice, group 1 non-optimized" \
	wait_for 20 journal_has NVME_ANA_NON_OPTIMIZED e7b31123ada44f1fb648234faffbf609 5 \
	'.UAEVENTS_ANA_GROUP == "1" and .UAEVENTS_ANA_STATE == "non-optimized"'
check "journal: the failed read, an I/O error with its status, an error (fatal)" \
	wait_for 20 journal_has INTERNAL_ERROR a427f555eda44779ab72fd6962f178ea 3 \
	'(.UAEVENTS_NVME_STATUS | test("^0x[46]006$")) and .UAEVENTS_SEVERITY == "fatal"'
# After those entries (the sync point): uaeventd took no action about any NVMe device (an
# action's entry names what it acted on).
no_action_taken() {
	journalctl -o json SYSLOG_IDENTIFIER=uaeventd |
		jq -e -s '[.[] | select(.UAEVENTS_ACTION and (tostring | test("nvme")))] | length == 0' \
		>/dev/null && return 0
	journalctl -o json SYSLOG_IDENTIFIER=uaeventd | jq -c 'select(.UAEVENTS_ACTION)' >"$SAW"
	return 1
}
check "uaeventd rescanned nothing and changed nothing for NVMe's events" no_action_taken
check "uaeventd is still running" kill -0 "$UAEVENTD_PID"

# 4. The history keeps them, numbered in group "nvme", and a dump parses them.
history_has_aens() {
	uaectl history --json >/tmp/history.json 2>&1 &&
		jq -n -e --arg c "$CTRL" \
			'[inputs | select(.kind == "aen" and .controller == $c)] | length >= 3' \
			/tmp/history.json >/dev/null && return 0
	{ echo "uaectl history:"; cat /tmp/history.json; } >"$SAW"
	return 1
}
check "uaectl history replays the asynchronous events" history_has_aens
last_seq_is_historys() {
	last=$(jq -n '[inputs | .seq] | max' /tmp/history.json)
	uaectl status --json >/tmp/status.json 2>&1 &&
		jq -e --argjson last "$last" '.last_seq == $last' /tmp/status.json >/dev/null &&
		return 0
	{ echo "history's last seq $last; uaectl status:"; cat /tmp/status.json; } >"$SAW"
	return 1
}
check "uaectl status's last sequence number is the history's last event's" \
	last_seq_is_historys

# 5. nvme_core unloaded under uaevents (which must not pin it), with the target, which
# needs it on 6.12; then loaded, set up and connected again: the probes come off and go
# back on, and the next events are seen.
MARK=$(wc -l </tmp/monitor.json)
check "disconnect, the target's configuration removed" eval 'disconnect && target_teardown'
check "nvme_core unloads while uaevents is loaded (no module keeps it)" unload_all
check "nvme_core loaded again: the target set up, the host connects" \
	eval 'target_setup && host_load && connect'
echo non-optimized >"$CFG/ports/1/ana_groups/1/ana_state"
check "after nvme_core's reload: NVME_ANA_CHANGE on $CTRL" \
	wait_for 20 aen_seen NVME_ANA_CHANGE 787202
check "after nvme_core's reload: group 1 NVME_ANA_NON_OPTIMIZED through $CTRL" \
	wait_for 20 ana_seen NVME_ANA_NON_OPTIMIZED 1

# 6. uaevents unloaded and loaded over a live nvme_core: attached at load.
kill "$MONITOR_PID" 2>/dev/null
wait_for 10 gone "$MONITOR_PID"
check "uaevents unloads with nvme_core live" rmmod uaevents
check "uaevents loads again" insmod /modules/uaevents.ko
check "uaectl monitor is subscribed again" start_monitor
echo inaccessible >"$CFG/ports/1/ana_groups/1/ana_state"
check "after uaevents' reload: NVME_ANA_CHANGE on $CTRL" \
	wait_for 20 aen_seen NVME_ANA_CHANGE 787202
check "journal: an inaccessible path is a warning" \
	wait_for 20 journal_has NVME_ANA_INACCESSIBLE e7b31123ada44f1fb648234faffbf609 4 \
	'.UAEVENTS_ANA_STATE == "inaccessible"'
# 7. SMART / health warnings, from QEMU's NVMe controller: the host sets its
# smart_critical_warning through QMP (run-vm.sh's qmp-requests.py), as a drive whose
# spare runs out, then whose reliability degrades, would.
# The PCIe controller (the only one: nvmet's are fabrics'), once it is live: its serial
# and its character device are read only then (before identify, sysfs' serial is not
# there to read, and /dev/nvmeN refuses to open).
qemu_ctrl() {
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/transport" 2>/dev/null)" = pcie ] &&
			[ "$(cat "$c/state" 2>/dev/null)" = live ] &&
			[ "$(tr -d ' ' <"$c/serial")" = uae-smart ] && basename "$c" && return 0
	done
	return 1
}
# Requests to the host, on a serial port of their own (the console is shared with the
# kernel's messages, which could split a line): run-vm.sh's qmp-requests.py.
QMP_ID=0
qom_set_warning() {
	QMP_ID=$((QMP_ID + 1))
	echo "uae-qmp $QMP_ID: qom-set /machine/peripheral/nvme0 smart_critical_warning $1" \
		>/dev/ttyS2
}
# Linux enables no SMART events: Asynchronous Event Configuration 1FFh, as
# "nvme set-feature -f 0x0b -v 0x1ff" would; set once the driver has set its own (it
# does as the controller starts), and read back.
aec_is_1ff() {
	uae-nvme-admin "/dev/$CTRL" set-feature 0x0b 0x1ff 2>"$SAW" &&
		[ "$(uae-nvme-admin "/dev/$CTRL" get-feature 0x0b 2>>"$SAW")" = 0x1ff ]
}
smart_setup() {
	kmod_load nvme || return 1
	wait_for 30 qemu_ctrl >/dev/null || return 1
	CTRL=$(qemu_ctrl)
	wait_for 10 aec_is_1ff
}
check "QEMU's NVMe controller, SMART warnings enabled" smart_setup
tap_diag "QEMU's controller: $CTRL"
qom_set_warning 1
check "SMART: NVME_SPARE_BELOW_THRESHOLD (0x020201) on $CTRL" \
	wait_for 30 aen_seen NVME_SPARE_BELOW_THRESHOLD 131585
check "journal: the spare warning is an alert, its MESSAGE_ID" \
	wait_for 20 journal_has NVME_SPARE_BELOW_THRESHOLD cbab1d3157c84ba797b648e23c4fb956 1 \
	'.UAEVENTS_AEN_CLASS == "smart"'
# uaeventd read the SMART / health log after the event: its nvme-health entry.
# health_logged EVENT WARNING NAMES: the entry after EVENT, critical warning WARNING.
health_logged() {
	journalctl -o json UAEVENTS_ACTION=nvme-health | jq -e -s --arg e "$1" --arg w "$2" \
		--arg n "$3" --arg c "$CTRL" 'any(.UAEVENTS_EVENT == $e
			and .UAEVENTS_NVME_CONTROLLER == $c and .UAEVENTS_NVME_CRIT_WARNING == $w
			and .UAEVENTS_NVME_CRIT_WARNINGS == $n and .PRIORITY == "2"
			and (.UAEVENTS_NVME_AVAILABLE_SPARE | test("^[0-9]+$"))
			and (.MESSAGE | startswith($c + ": SMART / health log")))' >/dev/null &&
		return 0
	{ echo "want uaeventd's SMART / health log entry after $1 on $CTRL, warning $2 ($3):"
	  journalctl -o json SYSLOG_IDENTIFIER=uaeventd | jq -c 'select(.UAEVENTS_ACTION
		or .UAEVENTS_AEN_CLASS == "smart") | {MESSAGE, PRIORITY, UAEVENTS_ACTION}'
	  cat /tmp/uaeventd.err; } >"$SAW" 2>&1
	return 1
}
check "uaeventd read the SMART log: critical warning 0x01, spare-below-threshold" \
	wait_for 30 health_logged NVME_SPARE_BELOW_THRESHOLD 0x01 spare-below-threshold
# The controller sends no further SMART event until its log is read with RAE clear:
# read here with it set, so that only uaeventd's read lets the next one come.
smart_log_says() {
	[ "$(uae-nvme-admin "/dev/$CTRL" get-log 2 retain 2>"$SAW")" = "$1" ]
}
check "the SMART log's critical warning is 0x01" smart_log_says 0x01
qom_set_warning 0
qom_set_warning 4
check "SMART: NVME_SUBSYSTEM_RELIABILITY_DEGRADED (0x020001) on $CTRL" \
	wait_for 30 aen_seen NVME_SUBSYSTEM_RELIABILITY_DEGRADED 131073
check "journal: the reliability warning is critical, its MESSAGE_ID" \
	wait_for 20 journal_has NVME_SUBSYSTEM_RELIABILITY_DEGRADED \
	34e321bd22bd4d768f2cbcf114c84ca5 2 '.UAEVENTS_LOG_PAGE == "0x02"'
check "uaeventd read the SMART log again: critical warning 0x04, reliability-degraded" \
	wait_for 30 health_logged NVME_SUBSYSTEM_RELIABILITY_DEGRADED 0x04 reliability-degraded

# 8. Without the module: the stock kernel's NVME_AEN= uevent of a SMART / health event.
# uaeventd and uaectl monitor follow uaevents out and read the stock uevents instead;
# uaeventd still logs the warning and reads the controller's log after it (without that
# read no further SMART event would come).
# fell_back UAEVENTD MONITOR: uaeventd and the monitor each said they fell back more
# often than these counts (fallbacks' before).
STOCK_UEVENTS="the stock kernel's SDEV_UA and NVME_AEN uevents"
fallbacks() {
	echo "$(journalctl -t uaeventd -o cat |
		grep -c "was unloaded (instance [0-9a-f]*); falling back to $STOCK_UEVENTS")" \
		"$(grep -c "unloaded; showing $STOCK_UEVENTS" /tmp/monitor.err)"
}
fell_back() {
	# shellcheck disable=SC2046 # two counts, split on purpose
	set -- "$1" "$2" $(fallbacks)
	[ "$3" -gt "$1" ] && [ "$4" -gt "$2" ] && return 0
	{ echo "want uaeventd and uaectl monitor to say they fell back (before: $1 $2, now: $3 $4):"
	  journalctl -t uaeventd -o cat | tail -n 5; cat /tmp/monitor.err; } >"$SAW" 2>&1
	return 1
}
before=$(fallbacks)
check "uaevents unloads; uaeventd and uaectl monitor fall back to the stock uevents" \
	eval "rmmod uaevents && wait_for 20 fell_back $before"
MARK=$(wc -l </tmp/monitor.json)
# stock_aen_seen EVENT RESULT: aen_seen's event, flagged as from the stock uevent (8).
stock_aen_seen() {
	aen_seen "$1" "$2" || return 1
	tail -n "+$((MARK + 1))" /tmp/monitor.json |
		jq -n -e --arg e "$1" '[inputs | select(.event == $e)] | all(.flags == 8)' \
		>/dev/null && return 0
	{ echo "want $1 flagged stock (8):"; tail -n "+$((MARK + 1))" /tmp/monitor.json; } >"$SAW"
	return 1
}
qom_set_warning 0
qom_set_warning 2
check "stock: NVME_TEMPERATURE_THRESHOLD (0x020101) on $CTRL, from the NVME_AEN uevent" \
	wait_for 30 stock_aen_seen NVME_TEMPERATURE_THRESHOLD 131329
check "journal: the temperature warning from the stock uevent, a warning, its MESSAGE_ID" \
	wait_for 20 journal_has NVME_TEMPERATURE_THRESHOLD d288e5c8b9e1444dbaf213058e575cb1 4 \
	'.UAEVENTS_SOURCE == "nvme_aen" and .UAEVENTS_LOG_PAGE == "0x02"'
check "uaeventd read the SMART log without the module: critical warning 0x02, temperature" \
	wait_for 30 health_logged NVME_TEMPERATURE_THRESHOLD 0x02 temperature

check "the kernel warned of nothing (no probe left on a tracepoint)" no_kernel_warning

log "nvme.sh: $tap_failed of $tap_n failed"
