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
