#!/bin/sh
# tap-plan: 26
# Sourced by run.sh.
# uaeventd's memory across restarts, under its own unit: without its state directory it
# fails once and says why; journald's rate limit cannot drop what the state file records
# as logged; killed during a storm and restarted by systemd, it logs every event once.

check "uaeventd.service is active" wait_for 60 systemctl is-active --quiet uaeventd
check "scsi_debug with one disk" sdebug_one_disk
tap_diag "disk $DISK at $HCTL"

# ---- without the unit's StateDirectory=: one clear error, a failed unit, no restart loop ----
mkdir -p "$DROPIN"
printf '[Service]\nStateDirectory=\n' >"$DROPIN/no-state.conf"
systemctl daemon-reload
cursor=$(journal_cursor)
systemctl restart uaeventd 2>/dev/null
# Not after a fixed wait: a unit systemd is going to restart waits in "activating"
# (auto-restart), never "failed"; once it is failed, no restart comes.
failed_for_good() {
	for p in ActiveState SubState ExecMainStatus NRestarts; do
		echo "$p=$(systemctl show -P $p uaeventd)"
	done >"$SAW"
	grep -qx ActiveState=failed "$SAW" && grep -qx ExecMainStatus=78 "$SAW" &&
		grep -qx NRestarts=0 "$SAW"
}
check "without StateDirectory= the unit fails (exit status 78) and is not restarted" \
	wait_for 30 failed_for_good
missing_state_errors() {
	journalctl --cursor "$cursor" _SYSTEMD_UNIT=uaeventd.service -p err -o cat \
		--no-pager >"$SAW"
	[ "$(grep -c "cannot write its state file $STATE: Read-only file system" "$SAW")" -eq 1 ]
}
check "and says why, once, in its journal" missing_state_errors
# As systemd's daemons do: the errno in a field of its own, for journalctl ERRNO=30.
check "the entry carries the errno (ERRNO=30, EROFS)" \
	sh -c "journalctl --cursor '$cursor' _SYSTEMD_UNIT=uaeventd.service -p err ERRNO=30 \
		-o cat --no-pager | grep -q 'cannot write its state file'"
# An event while it is down waits in the module's history.
down_seq=$(($(last_seq) + 1))
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
rm "$DROPIN/no-state.conf"
systemctl daemon-reload
systemctl reset-failed uaeventd
systemctl start uaeventd
check "with StateDirectory= back, it starts" wait_for 30 systemctl is-active --quiet uaeventd
check "and logs the event raised while it was down, once" \
	wait_for 30 logged_once "$down_seq" "$down_seq" ua

# ---- journald's rate limit during a storm ----
# An administrator's tight journald setting, which is global (journald.conf).  journald
# scales the burst with free disk space (a few times 20 here); 400 events exceed it.
mkdir -p /etc/systemd/journald.conf.d
printf '[Journal]\nRateLimitIntervalSec=60s\nRateLimitBurst=20\n' \
	>/etc/systemd/journald.conf.d/50-uae-test-tight.conf
systemctl restart systemd-journald
# A storm of 400 error events, in the module's history.  Coalescing off (as an
# administrator may set it), so that each is an event of its own: the worst case.
coalesce_ms=$(uaectl status --json | jq .coalesce_ms)
uaectl config --coalesce-ms 0
storm() {	# N events
	uaectl inject --hctl "$HCTL" --host-byte DID_ERROR --status GOOD --kind error --count "$1"
}
# Control: with the same limit on the unit (the shipped unit lifts it),
# journald drops entries of the storm: the setting matters at this rate.
printf '[Service]\nLogRateLimitIntervalSec=60s\nLogRateLimitBurst=20\n' >"$DROPIN/limit.conf"
systemctl daemon-reload
systemctl restart uaeventd
check "uaeventd restarted under the rate limit" wait_for 30 systemctl is-active --quiet uaeventd
first=$(($(last_seq) + 1))
storm 400
last=$(last_seq)
# dropped: once uaeventd has logged the storm to its end (its state file), fewer of its
# entries than events are in the journal.
dropped() {
	if ! wait_for 60 sh -c "[ \$(head -n 1 $STATE | cut -d' ' -f2) -ge $last ]"; then
		echo "uaeventd did not log the storm $first..$last to its end: state $(cat "$STATE"), unit $(systemctl show -P ActiveState uaeventd)" >"$SAW"
		return 1
	fi
	journalctl --sync
	n=$(journalctl -o json _SYSTEMD_UNIT=uaeventd.service UAEVENTS_KIND=error |
		jq -s --argjson f "$first" '[.[] | select((.UAEVENTS_SEQ | tonumber) >= $f)] | length')
	echo "$n of $((last - first + 1)) entries of the storm kept" >"$SAW"
	[ "$n" -lt $((last - first + 1)) ]
}
check "control: rate-limited by the unit, journald drops entries of the storm" dropped
tap_diag "control, unit limited: $(cat "$SAW"); $(journalctl -t systemd-journald -o cat --no-pager | grep Suppressed | tail -n 1)"
rm "$DROPIN/limit.conf"
systemctl daemon-reload
# A fresh journald forgets the control's rate-limit state (and its pending notice).
systemctl restart systemd-journald
cursor2=$(journal_cursor)
systemctl restart uaeventd
check "restarted, the shipped unit lets uaeventd log a million entries a second" \
	wait_for 30 sh -c 'systemctl is-active --quiet uaeventd &&
		[ "$(systemctl show -P LogRateLimitIntervalUSec uaeventd)" = 1s ] &&
		[ "$(systemctl show -P LogRateLimitBurst uaeventd)" = 1000000 ]'

# ---- the shipped unit: killed during a storm, restarted by systemd ----
# (Half the history: whatever the killed daemon had not logged is replayed.)
pid=$(systemctl show -P MainPID uaeventd)
first=$(($(last_seq) + 1))
# 2,000 events, and uaeventd killed with a backlog however fast the host: the first 1,000
# while it runs (it may be logging them when it is stopped), the other 1,000 while it is
# stopped (SIGSTOP), so that it cannot have logged the storm to its end; then SIGKILL.
storm 1000
systemctl kill -s STOP uaeventd
storm 1000
systemctl kill -s KILL uaeventd
at_kill=$(head -n 1 "$STATE" | cut -d' ' -f2)
last=$(last_seq)
tap_diag "storm $first..$last; uaeventd $pid killed with the state file at $at_kill"
check "the kill landed before uaeventd had logged the storm to its end" \
	test "$at_kill" -lt "$last"
check "systemd restarts uaeventd" \
	wait_for 30 sh -c "systemctl is-active --quiet uaeventd && [ \$(systemctl show -P MainPID uaeventd) != $pid ]"
check "every event of the storm is in the journal exactly once, despite journald's limit" \
	wait_for 90 logged_once "$first" "$last" error
check "the state file holds the last event (or a later one)" \
	sh -c "[ \$(head -n 1 $STATE | cut -d' ' -f2) -ge $last ]"
check "journald suppressed nothing of uaeventd.service after the control" \
	sh -c "! journalctl --cursor '$cursor2' -t systemd-journald -o cat --no-pager | grep 'Suppressed.*uaeventd'"
uaectl config --coalesce-ms "$coalesce_ms"
rm /etc/systemd/journald.conf.d/50-uae-test-tight.conf
systemctl restart systemd-journald
check "uaeventd wrote no error since it came back" \
	no_daemon_error "$cursor" 'cannot write its state file'
# ---- a local user's forged entry cannot silence uaeventd ----
# The instance id is public (uaectl status); anyone can log fields of their choosing.
inst=$(uaectl status --json | jq -r .instance)
printf 'MESSAGE=forged\nSYSLOG_IDENTIFIER=uaeventd\nUAEVENTS_INSTANCE=%s\nUAEVENTS_SEQ=%s\n' \
	"$inst" 18446744073709551615 |
	setpriv --reuid=1000 --regid=1000 --clear-groups logger --journald
check "user 1000 logged an entry claiming event 2^64-1 of instance $inst" \
	wait_for 10 sh -c "journalctl _UID=1000 UAEVENTS_INSTANCE=$inst -o cat | grep -q forged"
pid=$(systemctl show -P MainPID uaeventd)
systemctl restart uaeventd
check "uaeventd restarted" wait_for 30 sh -c \
	"systemctl is-active --quiet uaeventd && [ \$(systemctl show -P MainPID uaeventd) != $pid ]"
# Active (Type=notify) means subscribed, with what it replayed logged: no wait needed.
next=$(($(last_seq) + 1))
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
check "after the restart it still logs new events (event $next)" \
	wait_for 30 logged_once "$next" "$next" ua
# A forged entry that follows straight on from what the state file says was logged: an
# event raised while uaeventd was down is still logged at start, since the replay trusts
# only the journal entries uaeventd wrote itself (its UID), not any that look like them.
systemctl stop uaeventd
skip=$(($(last_seq) + 1))
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
printf 'MESSAGE=forged\nSYSLOG_IDENTIFIER=uaeventd\nUAEVENTS_INSTANCE=%s\nUAEVENTS_SEQ=%s\n' \
	"$inst" "$skip" |
	setpriv --reuid=1000 --regid=1000 --clear-groups logger --journald
check "user 1000 logged an entry claiming event $skip, raised while uaeventd was stopped" \
	wait_for 10 sh -c "journalctl _UID=1000 UAEVENTS_SEQ=$skip -o cat | grep -q forged"
systemctl start uaeventd
check "event $skip is logged at start all the same (the forged entry is not uaeventd's)" \
	wait_for 30 logged_once "$skip" "$skip" ua
# ---- a corrupt state file: not taken for a first start ----
# Where uaeventd was is where its newest journal entry is: what came after is logged,
# nothing before it again.
systemctl stop uaeventd
lost=$(($(last_seq) + 1))
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
echo "not a state" >/var/lib/uaevents/state
cursor=$(journal_cursor)
systemctl start uaeventd
check "with its state file corrupt it starts, and says so" wait_for 30 sh -c \
	"journalctl --cursor '$cursor' _SYSTEMD_UNIT=uaeventd.service -p warning -o cat |
		grep -q 'state file .* cannot be read'"
lost_and_skip_once() { logged_once "$lost" "$lost" ua && logged_once "$skip" "$skip" ua; }
check "event $lost, raised while it was down, is logged, and event $skip before it only once" \
	wait_for 30 lost_and_skip_once
# ---- journald storing nothing below info (MaxLevelStore=info, a common setting) ----
# uaeventd waits for its own marker entry to be stored at start (a killed predecessor's last
# entries first) and before a job exits; a marker journald drops is a wait for nothing.
printf '[Journal]\nMaxLevelStore=info\n' >/etc/systemd/journald.conf.d/50-uae-test-info.conf
systemctl restart systemd-journald
cursor=$(journal_cursor)
t0=$(date +%s)
systemctl restart uaeventd
took=$(($(date +%s) - t0))
check "under MaxLevelStore=info uaeventd restarts in under 8 s (took $took s; a lost marker waits 10 s)" \
	test "$took" -lt 8
synced() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		-t uaeventd >"$SAW.json"
	jq -r '.MESSAGE' "$SAW.json" >"$SAW"
	jq -e -s 'any(.[]; .UAEVENTS_SYNC != null)' "$SAW.json" >/dev/null &&
		! jq -e -s 'any(.[]; .UAEVENTS_ACTION == "sync-off")' "$SAW.json" >/dev/null
}
check "its synchronization point is stored, and it does not say syncs are off" synced
rm /etc/systemd/journald.conf.d/50-uae-test-info.conf
systemctl restart systemd-journald

check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
