#!/bin/sh
# tap-plan: 30
# Sourced by run.sh.
# Every action an event calls for is done once, whenever uaeventd is restarted or killed
# between the event and the action's end: in the debounce window before a rescan job runs,
# while its resize command runs, while a hook runs, and between logging an event and
# writing the state file.  The state file keeps the work owed (owed.h); the next start
# takes it up and says so.  (upgrade.sh: the same across a package upgrade.)

conf=/etc/uaevents/uaeventd.conf
cp "$conf" /tmp/owed-conf.orig
check "uaeventd.service is active" wait_for 60 systemctl is-active --quiet uaeventd
check "scsi_debug with one disk" sdebug_one_disk
udevadm settle
WWID=$(cat "/sys/block/$DISK/device/wwid")
tap_diag "disk $DISK at $HCTL, $WWID"

# A resize command (6 s) and a hook (12 s, or what uae-hook-seconds says) that say when
# they start and end: what they print reaches the journal through uaeventd.  The hook
# names the event it runs for.
cat >/etc/uaevents/uae-slow-resize <<'EOC'
#!/bin/sh
echo "uae-slow-resize: start $1"
sleep 6
echo "uae-slow-resize: done $1"
EOC
mkdir -p /etc/uaevents/hooks.d
cat >/etc/uaevents/hooks.d/CAPACITY_DATA_HAS_CHANGED-uaetest <<'EOC'
#!/bin/sh
echo "uae-slow-hook: start $UAEVENTS_SEQ"
sleep "$(cat /etc/uaevents/uae-hook-seconds 2>/dev/null || echo 12)"
echo "uae-slow-hook: done $UAEVENTS_SEQ"
EOC
chmod 0755 /etc/uaevents/uae-slow-resize /etc/uaevents/hooks.d/CAPACITY_DATA_HAS_CHANGED-uaetest
# A window of 15 s: a restart surely falls inside it.
reload_with 's|^#resize_command = .*|resize_command = /etc/uaevents/uae-slow-resize|;
	s|^#debounce_ms = 2000$|debounce_ms = 15000|' "resize command, hook and a 15 s window"

lines() {	# PATTERN: uaeventd's output lines since $cursor matching PATTERN, counted
	journalctl --cursor "$cursor" -o cat --no-pager _SYSTEMD_UNIT=uaeventd.service \
		>"$SAW.all"
	grep -c -- "$1" "$SAW.all"
}
entries() {	# ACTION: uaeventd's entries of that action since $cursor, counted
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		"UAEVENTS_ACTION=$1" >"$SAW.entries"
	jq -s length "$SAW.entries"
}
# The capacity change's UA is in the journal; sets SEQ.
capacity_ua_logged() {
	SEQ=$(journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_EVENT=CAPACITY_DATA_HAS_CHANGED | jq -r .UAEVENTS_SEQ | tail -n 1)
	echo "capacity UA logged as event '$SEQ'" >"$SAW"
	[ -n "$SEQ" ]
}
# The state file holds a rescan job of the LU as owed work.
owes_rescan() {
	cp "$STATE" "$SAW"
	grep -q '"job": *"rescan-paths"' "$STATE"
}
# Nothing is owed: the state file holds no job and no hook run (its first line, and the
# piece that says which boot and event it is at, stay).
owes_nothing() {
	cp "$STATE" "$SAW"
	! grep -q -e '"job":' -e '"hook":' "$STATE"
}
resumed() {	# WHAT: the start took up WHAT ("wwid ...", "hook NAME")
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=owed-resumed >"$SAW"
	jq -e -s --arg w "$1" 'any(.[]; .UAEVENTS_JOB == $w)' "$SAW" >/dev/null
}
grow() {	# GB: the LU to GB, and a read that makes it report the change
	echo "$1" >"$SDEBUG/virtual_gb"
	touch_disk "$DISK"
}
size_is() { [ "$(cat "/sys/block/$DISK/size")" -eq $(($1 * 2097152)) ]; }
restarted() {	# OLD-PID: systemd runs a new uaeventd, up and ready
	systemctl is-active --quiet uaeventd && [ "$(systemctl show -P MainPID uaeventd)" != "$1" ]
}
# Once the owed work is done: RESCANS path rescans (default 1), one resize run to its end.
# The resize's end first: the state file is written within a second of a change, so until
# the work is seen done, a file that owes nothing may be one not written yet.
resized_to_end() { [ "$(lines "^uae-slow-resize: done $WWID")" -ge 1 ]; }
done_once() {
	wait_for 60 resized_to_end || return 1
	wait_for 60 owes_nothing || return 1
	rescans=$(entries rescan-paths)
	resizes=$(lines "^uae-slow-resize: done $WWID")
	echo "$rescans rescan-paths entries, $resizes resize run(s) to their end" >"$SAW"
	[ "$rescans" -eq "${1:-1}" ] && [ "$resizes" -eq 1 ]
}
# The hook ran to its end once since $cursor, for event $SEQ (and no other).
hook_done_once() {
	for_seq=$(lines "^uae-slow-hook: done $SEQ\$")
	all=$(lines '^uae-slow-hook: done')
	echo "hook runs to their end: $for_seq for event $SEQ, $all in all" >"$SAW"
	[ "$for_seq" -eq 1 ] && [ "$all" -eq 1 ]
}

# ---- 1. a restart in the debounce window: the rescan is owed, and done after it ----
cursor=$(journal_cursor)
grow 1
check "1: the capacity change is logged" wait_for 60 capacity_ua_logged
check "1: the state file holds the rescan as owed work" wait_for 10 owes_rescan
pid=$(systemctl show -P MainPID uaeventd)
systemctl restart uaeventd
check "1: the next start takes up the rescan of $WWID" wait_for 30 resumed "wwid $WWID"
check "1: the path reaches the new size" wait_for 90 size_is 1
check "1: one path rescan and one resize, nothing owed after" done_once

# ---- 2. uaeventd killed (SIGKILL) in the window: the same ----
# The change comes within the first job's window after its run, where the other paths'
# echoes of it arrive: it is owed a second look, kept as owed work; the next start runs it
# as a whole rescan.
cursor=$(journal_cursor)
grow 2
check "2: the capacity change is logged" wait_for 60 capacity_ua_logged
check "2: the state file holds the rescan as owed work" wait_for 10 owes_rescan
pid=$(systemctl show -P MainPID uaeventd)
kill -KILL "$pid"
check "2: systemd starts uaeventd again" wait_for 30 restarted "$pid"
check "2: which takes up the rescan" wait_for 30 resumed "wwid $WWID"
check "2: the path reaches the new size" wait_for 90 size_is 2
check "2: one path rescan and one resize, nothing owed after" done_once

# ---- 3. killed after logging an event, before its state write ----
# The state file cannot be written (its temporary name is a folder): the journal has the
# event, the state file neither it nor its work.  The next start replays it from the
# module's history and acts on it, without logging it again.
mkdir "$STATE.tmp"
cursor=$(journal_cursor)
grow 3
check "3: the capacity change is logged" wait_for 60 capacity_ua_logged
check "3: its state write fails, and says so" \
	wait_for 10 sh -c "journalctl --cursor '$cursor' -o cat --no-pager -t uaeventd >'$SAW';
		grep -q 'cannot write $STATE' '$SAW'"
pid=$(systemctl show -P MainPID uaeventd)
kill -KILL "$pid"
rmdir "$STATE.tmp"
check "3: systemd starts uaeventd again" wait_for 30 restarted "$pid"
check "3: the path reaches the new size" wait_for 90 size_is 3
check "3: one path rescan and one resize, nothing owed after" done_once
logged_once_since() {
	n=$(journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		"UAEVENTS_SEQ=$SEQ" UAEVENTS_KIND=ua | jq -s length)
	echo "event $SEQ logged $n time(s)" >"$SAW"
	[ "$n" -eq 1 ]
}
check "3: the event is logged once" logged_once_since
check "3: the hook ran to its end once, for the event it was run for" hook_done_once


# ---- 4. a restart while the resize command and the hook run ----
# The job may wait for the end of the last one's window (15 s) first: the hook runs 25 s,
# so that it still runs when the resize command does (hooks time out at 30 s).
reload_with 's|^debounce_ms = 15000$|debounce_ms = 1000|' "a window of 1 s"
echo 25 >/etc/uaevents/uae-hook-seconds
cursor=$(journal_cursor)
grow 4
check "4: the resize command and the hook run" wait_for 60 sh -c "
	journalctl --cursor '$cursor' -o cat --no-pager _SYSTEMD_UNIT=uaeventd.service >'$SAW';
	grep -q '^uae-slow-resize: start' '$SAW' && grep -q '^uae-slow-hook: start' '$SAW'"
capacity_ua_logged
pid=$(systemctl show -P MainPID uaeventd)
t0=$(date +%s)
systemctl restart uaeventd
took=$(($(date +%s) - t0))
check "4: the restart takes a few seconds, not the jobs' (took $took s, under 8 s)" \
	test "$took" -lt 8
check "4: the next start takes up the rescan" wait_for 30 resumed "wwid $WWID"
check "4: and the hook's run" wait_for 30 resumed "hook CAPACITY_DATA_HAS_CHANGED-uaetest"
# The job runs again from its start: the paths, rescanned before the restart, once more.
check "4: a second path rescan and one resize, nothing owed after" done_once 2
check "4: the hook ran to its end once, for the event it was run for" hook_done_once

rm -f /etc/uaevents/hooks.d/CAPACITY_DATA_HAS_CHANGED-uaetest /etc/uaevents/uae-slow-resize \
	/etc/uaevents/uae-hook-seconds
cp /tmp/owed-conf.orig "$conf"
reload_with '' "the configuration as it was"
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
