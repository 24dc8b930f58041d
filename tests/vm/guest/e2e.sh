#!/bin/sh
# End-to-end test in the VM: real UAs from scsi_debug reach uaectl monitor and the journal.
# tap-plan: 24
. /bin/lib.sh


tap_diag "kernel $(uname -r)"
check "pipeline set up (journald, uaevents.ko, monitor, uaeventd, scsi_debug)" setup_pipeline
tap_diag "disk $DISK at $HCTL"
check "uaectl monitor is subscribed" wait_for 10 waits_in_poll "$MONITOR_PID"
check "uaeventd is running" kill -0 "$UAEVENTD_PID"

# monitor_event EVENT ASC ASCQ CATEGORY: the monitor printed EVENT with these fields, for
# our disk.
monitor_event() {
	jq -n -e --arg e "$1" --argjson asc "$2" --argjson ascq "$3" --arg cat "$4" \
		--arg hctl "$HCTL" --arg dev "$DISK" \
		'any(inputs; .event == $e and .kind == "ua" and .sense_key == 6 and .asc == $asc
			and .ascq == $ascq and .category == $cat and .hctl == $hctl
			and .device == $dev and (.sense | startswith("70") or startswith("72")))' \
		/tmp/monitor.json >/dev/null && return 0
	{ echo "the monitor's $1 events (want $HCTL, $DISK, $2/$3, $4):"
	  jq -c --arg e "$1" 'select(.event == $e)' /tmp/monitor.json; } >"$SAW" 2>&1
	return 1
}

# journal_event EVENT ASC ASCQ PRIORITY MESSAGE_ID: one journal entry for EVENT with these
# fields, whose sequence number is the one the monitor saw.
journal_event() {
	seq=$(jq -r --arg e "$1" 'select(.event == $e) | .seq' /tmp/monitor.json | head -n 1)
	journalctl -o json "UAEVENTS_EVENT=$1" | jq -e -s --arg hctl "$HCTL" --arg dev "$DISK" \
		--arg asc "$2" --arg ascq "$3" --arg prio "$4" --arg mid "$5" --arg seq "$seq" \
		'length == 1 and (.[0] | .UAEVENTS_HCTL == $hctl and .UAEVENTS_DEVICE == $dev
			and .UAEVENTS_ASC == $asc and .UAEVENTS_ASCQ == $ascq
			and .UAEVENTS_SENSE_KEY == "0x06" and .PRIORITY == $prio
			and .MESSAGE_ID == $mid and .UAEVENTS_SEQ == $seq
			and .SYSLOG_IDENTIFIER == "uaeventd" and (.MESSAGE | contains($dev)))' \
		>/dev/null
}

check "POWER ON UA from scsi_debug's attach reaches the monitor" \
	wait_for 15 monitor_has POWER_ON_RESET_OCCURRED

raise_capacity_change
check "capacity change UA reaches the monitor" \
	wait_for 15 monitor_has CAPACITY_DATA_HAS_CHANGED
check "capacity change event: 2Ah/09h, parameters, $HCTL, $DISK" \
	wait_for 5 monitor_event CAPACITY_DATA_HAS_CHANGED 42 9 parameters
check "capacity change is in the journal with its fields" \
	wait_for 10 journal_event CAPACITY_DATA_HAS_CHANGED 0x2a 0x09 5 \
	3fc6d976d4e94141be96e8426bfd1878

raise_lun_change
check "LUN inventory change UA reaches the monitor" \
	wait_for 15 monitor_has REPORTED_LUNS_DATA_HAS_CHANGED
check "LUN change event: 3Fh/0Eh, inventory, $HCTL, $DISK" \
	wait_for 5 monitor_event REPORTED_LUNS_DATA_HAS_CHANGED 63 14 inventory
check "LUN change is in the journal with its fields" \
	wait_for 10 journal_event REPORTED_LUNS_DATA_HAS_CHANGED 0x3f 0x0e 5 \
	1478cebde0674ffbacb87993cfc12337

if injection_or_skip 3 "soft threshold UA"; then
	raise_soft_threshold
	check "soft threshold UA (injected) reaches the monitor" \
		wait_for 15 monitor_has THIN_PROVISIONING_SOFT_THRESHOLD_REACHED
	check "soft threshold event: 38h/07h, space, $HCTL, $DISK" \
		wait_for 5 monitor_event THIN_PROVISIONING_SOFT_THRESHOLD_REACHED 56 7 space
	check "soft threshold is a warning in the journal with its fields" \
		wait_for 10 journal_event THIN_PROVISIONING_SOFT_THRESHOLD_REACHED 0x38 0x07 4 \
		dbef670c0acc4a518e8986b26be121b1
fi

# ---- the examples: a C program with poll, and a pager script on uaectl monitor --json ----
monitor-poll 1 category=space >/tmp/example.out 2>&1 &
example_pid=$!
printf '#!/bin/sh\nprintf "%%s\\n" "$1" >>/tmp/pages\n' >/tmp/record-page
chmod +x /tmp/record-page
page-on-low-space.sh /tmp/record-page >/dev/null 2>&1 &
pager_pid=$!
# Both subscribed before the event is raised: monitor-poll, and the pager's own
# "uaectl monitor", each wait in poll().
pager_monitor_waits() {
	for p in /proc/[0-9]*; do
		case "$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)" in
		"uaectl monitor --json --filter event=THIN_PROVISIONING_SOFT_THRESHOLD_REACHED "*)
			pager_mon=${p#/proc/}
			waits_in_poll "$pager_mon" && return 0 ;;
		esac
	done
	return 1
}
examples_subscribed() {
	waits_in_poll "$example_pid" && pager_monitor_waits
}
check "the C example and the pager script's uaectl monitor are subscribed" \
	wait_for 30 examples_subscribed
uaectl inject --hctl "$HCTL" --sense 700006000000000a00000000380700000000
check "the C example received the low-space event through its filter, and exited" \
	wait_for 15 sh -c "grep -q 'THIN_PROVISIONING_SOFT_THRESHOLD_REACHED on $DISK ($HCTL), category space' /tmp/example.out && ! kill -0 $example_pid 2>/dev/null"
check "the pager script paged once, with the device" \
	wait_for 15 sh -c "grep -q '^Thin pool low on or out of space behind $DISK ($HCTL' /tmp/pages"
# A full pool fails writes: an error event (27h/07h) with no category, which the pager
# must not miss.
uaectl inject --hctl "$HCTL" --kind error --sense 700007000000000a00000000270700000000
paged_full() {
	grep -c '^Thin pool low on or out of space behind' /tmp/pages >"$SAW"
	grep -q "SPACE_ALLOCATION_FAILED_WRITE_PROTECT" /tmp/pages
}
check "the pager script paged again for a pool out of space (an error, no category)" \
	wait_for 15 paged_full
# The script and its pipeline's uaectl monitor (a TERM to the script leaves it running):
# a subscriber left behind would read the events of the checks below.
kill "$pager_pid" ${pager_mon:-} 2>/dev/null
check "the pager script and its uaectl monitor have exited" \
	wait_for 10 gone "$pager_pid" ${pager_mon:-}

# Once the monitor printed the module's last event (the examples' one): all of them.
monitor_has_last() {
	last=$(uaectl status --json | jq .last_seq) &&
		jq -n -e --argjson l "$last" 'any(inputs; .seq == $l)' /tmp/monitor.json >/dev/null
}
seq_complete() {
	wait_for 15 monitor_has_last ||
		{ echo "the monitor never printed the module's last event (${last:-?})" >"$SAW"; return 1; }
	jq -e -s 'map(.seq) == [range(1; length + 1)]
		and (map(.instance) | unique | length) == 1
		and all(.gap == 0)' /tmp/monitor.json >/dev/null
}
check "sequence numbers run 1..n without a gap, one instance, gap 0" seq_complete
n=$(jq -s length /tmp/monitor.json)
# uaeventd logs each event on its own time: wait for the last entry; more than n fails.
# (Two matches of one field are alternatives: the UAs and the pager's out-of-space error.)
journal_holds() {
	[ "$(journalctl -o json UAEVENTS_KIND=ua UAEVENTS_KIND=error | jq -s length)" -eq "$1" ]
}
check "the journal holds one entry per event ($n)" wait_for 15 journal_holds "$n"

# A replay is queued in the library, on no socket: the monitor's fd must still poll
# readable, or "uaectl monitor --since" shows the history only after the next new event.
since_at_once() {
	timeout 10 uaectl monitor --json --since 0 >/tmp/since.json 2>/dev/null
	{ echo "uaectl monitor --since 0 printed $(jq -s length /tmp/since.json) of $n events"
	  jq -c '{seq, event}' /tmp/since.json; } >"$SAW"
	[ "$(jq -s length /tmp/since.json)" -eq "$n" ]
}
check "uaectl monitor --since 0 prints the history at once, before any new event" since_at_once

check "rmmod uaevents succeeds with subscribers attached" rmmod uaevents
uaectl status >/dev/null 2>/tmp/status.err
check "without the module, uaectl status exits 3 and says why" \
	sh -c "[ $? -eq 3 ] && grep -q 'uaevents kernel module not loaded' /tmp/status.err"
check "no oops, BUG or WARNING in the kernel log" \
	sh -c '! dmesg | grep -E "BUG:|WARNING:|Oops|Call Trace"'

tap_diag "monitor output:"
while read -r line; do tap_diag "$line"; done </tmp/monitor.json
