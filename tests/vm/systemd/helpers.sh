#!/bin/sh
# Sourced by run.sh after lib.sh: what several systemd-guest scripts share.

STATE=/var/lib/uaevents/state
DROPIN=/run/systemd/system/uaeventd.service.d

sdebug_gone() { ! test -d /sys/module/scsi_debug || modprobe -r scsi_debug; }

# sdebug_one_disk: scsi_debug with one LU; sets DISK and HCTL.
sdebug_one_disk() {
	DISK= HCTL=
	wait_for 30 sdebug_gone || return 1
	modprobe scsi_debug dev_size_mb=16 max_luns=1 num_tgts=1 || return 1
	DISK=$(wait_for 30 scsi_debug_disk) || return 1
	HCTL=$(basename "$(readlink "/sys/block/$DISK/device")")
}

last_seq() { uaectl status --json | jq .last_seq; }

# logged_once FIRST LAST KIND: uaeventd's journal entries of KIND, of the module instance
# loaded now, hold every sequence number from FIRST to LAST exactly once.  (Its own entries:
# journald sets _SYSTEMD_UNIT, not the sender.  Other instances, reload.sh's, number from 1
# too.)
logged_once() {
	journalctl -o json _SYSTEMD_UNIT=uaeventd.service "UAEVENTS_KIND=$3" \
		"UAEVENTS_INSTANCE=$(uaectl status --json | jq -r .instance)" |
		jq -s --argjson f "$1" --argjson l "$2" \
			'[.[] | .UAEVENTS_SEQ | tonumber | select(. >= $f and . <= $l)] | sort' \
			>"$SAW.seqs"
	jq -e --argjson f "$1" --argjson l "$2" '. == [range($f; $l + 1)]' "$SAW.seqs" \
		>/dev/null && return 0
	jq -r --argjson f "$1" --argjson l "$2" '"want \($f)..\($l) once each; got \(length)
entries, missing \([range($f; $l + 1)] - . | .[:20]), twice \(group_by(.) |
map(select(length > 1) | .[0]) | .[:20])"' "$SAW.seqs" >"$SAW"
	return 1
}

# reloaded_since CURSOR: uaeventd said it reloaded its configuration after CURSOR.
reloaded_since() {
	journalctl --cursor "$1" -t uaeventd -o cat --no-pager | grep -q 'configuration reloaded'
}

# journal_cursor: a mark in the journal from now on; read what follows it with
# "journalctl --cursor", never "--after-cursor": with a match that the cursor's entry does
# not satisfy, Debian 12's journalctl (252) skips the first matching entry after it.  The
# mark is an entry of its own (uae-test-mark), which none of the tests' matches take in.
journal_cursor() {
	mark="uae-test mark $(date +%s%N)"
	echo "$mark" | systemd-cat -t uae-test-mark
	wait_for 10 mark_cursor "$mark"
}
mark_cursor() {
	c=$(journalctl -t uae-test-mark -o json | jq -r --arg m "$1" 'select(.MESSAGE == $m) | .__CURSOR')
	[ -n "$c" ] && echo "$c"
}

# no_daemon_error CURSOR [IGNORE]: since CURSOR, uaeventd logged no error of its own (a
# failed write, a refused hook...).  Its entries for SCSI events (UAEVENTS_KIND) are not
# its errors: an I/O error on a LUN the target stopped reporting is logged at that
# priority.  Lines matching the regex IGNORE do not count either.
no_daemon_error() {
	journalctl --cursor "$1" _SYSTEMD_UNIT=uaeventd.service -p err -o json --no-pager |
		jq -r 'select(.UAEVENTS_KIND == null) | .MESSAGE' |
		grep -v -e "${2:-^\$}" -e '^$' >"$SAW"
	! test -s "$SAW"
}

# reload_with SED-EXPR DESCRIPTION: edit uaeventd.conf, systemctl reload, and check that the
# daemon took it.
reload_with() {
	sed -i "$1" /etc/uaevents/uaeventd.conf
	reload_cursor=$(journal_cursor)
	systemctl reload uaeventd
	check "systemctl reload: $2" wait_for 20 reloaded_since "$reload_cursor"
}

# real_ua WHAT: one result for whether this kernel's scsi_debug raises WHAT as a real unit
# attention (6.12's error injection): passed where it can, skipped on a kernel without it
# (6.1), failed where it should be there (injection_or_skip); true only where it can.
# Otherwise the caller injects the same sense with uaectl, so that what the daemon does
# with it is still checked on every kernel, and a 6.12 without injection does not pass
# silently.
real_ua() {
	injection_or_skip 1 "$1: a real unit attention from scsi_debug's error injection" ||
		return 1
	tap_result 0 "$1: a real unit attention from scsi_debug's error injection"
}

# reports_answered CURSOR TARGET: every report of changed LUN inventory from a LU of
# TARGET ("2:0:0") that uaeventd logged since CURSOR has been answered by a scan: the
# report counts its scan-target and scan-verify entries give ("after N report(s)", "N more
# report(s)") add up to them, so no scan of them is pending and whatever they make the
# daemon do is done.  (Reports count toward the run that starts after them; the entry of
# each run comes after its reports'.)  Sets REPORTS; what was counted goes to $SAW.
reports_answered() {
	REPORTS=$(journalctl --cursor "$1" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_KIND=ua UAEVENTS_EVENT=REPORTED_LUNS_DATA_HAS_CHANGED |
		jq -s --arg t "$2:" 'map(select(.UAEVENTS_HCTL | startswith($t))) | length')
	answered=$(journalctl --cursor "$1" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=scan-target UAEVENTS_ACTION=scan-verify "UAEVENTS_TARGET=$2" |
		jq -s '[.[].MESSAGE | capture("(after |: )(?<n>[0-9]+) (more )?report") |
			.n | tonumber] | add // 0')
	echo "target $2: $REPORTS report(s) of changed LUN inventory logged, $answered answered by its scans" >"$SAW"
	[ -n "$REPORTS" ] && [ "$answered" = "$REPORTS" ]
}

# reap SECONDS PID: wait for PID, a background job of this shell, at most SECONDS; past
# that it is killed (SIGKILL).  Returns its exit status (137 when it had to be killed).
reap() {
	n=$(($1 * 5))
	while [ "$n" -gt 0 ]; do
		# Done: a zombie until waited for (or gone).
		case $(sed -n 's/^.*) \(.\).*$/\1/p' "/proc/$2/stat" 2>/dev/null) in
		Z | "") wait "$2"; return ;;
		esac
		n=$((n - 1))
		sleep 0.2
	done
	kill -KILL "$2" 2>/dev/null
	wait "$2"
	return 137
}
