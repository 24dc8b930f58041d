#!/bin/sh
# tap-plan: 6
# Sourced by run.sh.  Never deaf: the module is unloaded and loaded again CYCLES times (10
# for make check, 100 for make soak) under uaeventd, run by its unit, and under uaectl
# monitor, with a storm of errors and one event from each instance; every tenth time, and
# the last, the test waits until both have that instance's event and restarts the daemon
# with systemctl.  An instance loaded and unloaded again before a subscriber could look is
# reported missed (its events went with it); every other instance's event arrives.
# Nothing is silent: logged + missed = reloads, for the daemon and for the monitor, the
# instances waited for are among the logged (so "all missed" fails), and systemd never had
# to step in.
check "scsi_debug with one disk" sdebug_one_disk
cursor=$(journal_cursor)
restarts_before=$(systemctl show -P NRestarts uaeventd)
uaectl monitor --json >/tmp/follow.json 2>/tmp/follow.err &
follow_pid=$!
# The monitor is subscribed once it prints a test event raised after it started (not after
# a fixed wait): MICROCODE HAS BEEN CHANGED, which the accounting below does not count.
# Raised again at each try: one raised before it subscribed never reaches it.
subscribed() {
	uaectl inject --hctl "$HCTL" --sense 700006000000000a000000003f0100000000 >/dev/null
	jq -n -e 'any(inputs; .event == "MICROCODE_HAS_BEEN_CHANGED")' /tmp/follow.json \
		>/dev/null
}
check "uaectl monitor is subscribed: it printed a test event raised after it started" \
	wait_for 30 subscribed
: >/tmp/instances
: >/tmp/waited
i=0 restarts=0
# event_logged INSTANCE: uaeventd logged that instance's event.
event_logged() {
	journalctl -u uaeventd -o json UAEVENTS_INSTANCE="$1" \
		UAEVENTS_EVENT=MODE_PARAMETERS_CHANGED | jq -e -s 'length == 1' >/dev/null
}
# event_printed INSTANCE: the monitor printed that instance's event.
event_printed() {
	jq -n -e --arg i "$1" 'any(inputs; .event == "MODE_PARAMETERS_CHANGED" and
		.instance == $i)' /tmp/follow.json >/dev/null
}
while [ $i -lt "$CYCLES" ]; do
	modprobe -r uaevents && modprobe uaevents || break
	uaectl inject --hctl "$HCTL" --host-byte DID_ERROR --status GOOD --kind error \
		--count 50 >/dev/null || break
	uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000 || break
	inst=$(uaectl status --json | jq -r .instance)
	echo "$inst" >>/tmp/instances
	if [ $((i % 10)) -eq 9 ] || [ $((i + 1)) -eq "$CYCLES" ]; then
		wait_for 30 event_logged "$inst" || break
		wait_for 30 event_printed "$inst" || break
		echo "$inst" >>/tmp/waited
		systemctl restart uaeventd || break
		restarts=$((restarts + 1))
	fi
	i=$((i + 1))
done
tap_diag "$i reloads done, uaeventd restarted $restarts times"
# reload_accounted WHO: every instance's event was logged (daemon) or printed (monitor)
# exactly once, or the instance was counted as missed; the instances waited for were
# logged (printed).  One query each, not one an instance.
reload_accounted() {
	if [ "$1" = daemon ]; then
		journalctl --cursor "$cursor" -u uaeventd -o json \
			UAEVENTS_EVENT=MODE_PARAMETERS_CHANGED | jq -s 'map(.UAEVENTS_INSTANCE)' \
			>/tmp/accounted.json
		missed=$(journalctl --cursor "$cursor" -u uaeventd -o json \
			UAEVENTS_ACTION=module-missed | jq -s 'map(.UAEVENTS_MISSED | tonumber) | add // 0')
	else
		missed=$(monitor_instances /tmp/follow.json /tmp/accounted.json)
	fi
	logged=$(accounted_once /tmp/instances /tmp/accounted.json)
	waited=$(grep -c . /tmp/waited)
	waited_logged=$(accounted_once /tmp/waited /tmp/accounted.json)
	echo "$1: $logged logged, $missed missed, of $CYCLES reloads ($i done); of the $waited waited for, $waited_logged logged" >"$SAW"
	[ "$i" -eq "$CYCLES" ] && [ $((logged + missed)) -eq "$CYCLES" ] &&
		[ "$waited" -ge 1 ] && [ "$waited_logged" -eq "$waited" ]
}
check "$CYCLES reloads under uaeventd's unit, $restarts restarts: each instance's event is logged once or the instance reported missed" \
	wait_for 60 reload_accounted daemon
tap_diag "$(cat "$SAW")"
check "and under uaectl monitor: each printed once or reported missed" \
	wait_for 60 reload_accounted monitor
tap_diag "$(cat "$SAW")"
check "systemd never restarted uaeventd on its own (watchdog, failure): NRestarts stays $restarts_before" \
	sh -c "[ \"\$(systemctl show -P NRestarts uaeventd)\" = $restarts_before ] &&
		systemctl is-active --quiet uaeventd"
check "uaeventd logged no error of its own during the reloads" no_daemon_error "$cursor"
kill "$follow_pid" 2>/dev/null
