#!/bin/sh
# tap-plan: 19
# Sourced by run.sh, first of its set: README's tour is written for a host whose first SCSI
# disk is sda.  The front door cannot rot (issue 32): every command of README.md's tour
# (each sh block after a "<!-- tour -->" line) runs here as written, in order, each in
# its own sh -c, once scsi_debug has given the guest its disk sda.  Each must exit 0 and
# print something; a subscriber ("until Ctrl-C") runs in the background until it has
# printed the injected event.  The points the tour makes are checked in what the commands
# printed.  Then make demo's guest script runs, as make demo runs it.  (README's install
# command is run by run-guest.sh: it installs the packages of every guest.)

README=/usr/local/lib/uae-test/README.md
# The tour's length as this plan counts it: a tour of another length fails the count below
# (then change this and the plan).
TOUR_COMMANDS=10

# sda_first: scsi_debug's disk is the guest's first SCSI disk, sda.
sda_first() {
	sdebug_one_disk && [ "$DISK" = sda ] && return 0
	echo "disk: ${DISK:-none}; SCSI disks: $(ls /sys/class/scsi_disk 2>/dev/null)" >"$SAW"
	return 1
}
check "scsi_debug gives the guest its first SCSI disk, sda, as README's tour expects" sda_first

# tour_commands: README's tour, one command per line (a line ending in \ joined to the
# next), comments kept (sh skips them).
tour_commands() {
	awk '/^<!-- tour -->$/ { want = 1; next }
	     want && /^```sh$/ { inside = 1; next }
	     inside && /^```$/ { inside = 0; want = 0; next }
	     inside && /\\$/ { sub(/\\$/, ""); held = held $0; next }
	     inside && NF { print held $0; held = "" }' "$README"
}
tour_commands >/tmp/tour.cmds
check "README's tour has the $TOUR_COMMANDS commands this test counts" \
	sh -c '[ "$(wc -l </tmp/tour.cmds)" -eq '"$TOUR_COMMANDS"' ] ||
		{ echo "README.md tour:"; cat /tmp/tour.cmds; exit 1; } >"$1"' sh "$SAW"

# inject_logged: uaeventd's entry for the newest module event (the injected one) is in the
# journal, so that the tour's journalctl commands read it as an administrator would.
inject_logged() {
	st=$(uaectl status --json) || return 1
	journalctl -q -o cat -u uaeventd "UAEVENTS_SEQ=$(echo "$st" | jq .last_seq)" \
		"UAEVENTS_INSTANCE=$(echo "$st" | jq -r .instance)" \
		UAEVENTS_EVENT=THIN_PROVISIONING_SOFT_THRESHOLD_REACHED | grep -q .
}
# ran N CMD: command N, CMD, exited 0 and printed something (uaectl inject, silent when
# it succeeds, only exited 0).
ran() {
	{ echo "ran: $2 (exit status $(cat "/tmp/tour.$1.rc"))"; head -n 20 "/tmp/tour.$1.out"; } >"$SAW"
	[ "$(cat "/tmp/tour.$1.rc")" = 0 ] || return 1
	case $2 in "uaectl inject "*) return 0 ;; esac
	[ -s "/tmp/tour.$1.out" ]
}
# subscriber_saw N: background command N printed the injected event.
subscriber_saw() { grep 'THIN_PROVISIONING_SOFT_THRESHOLD_REACHED' "/tmp/tour.$1.out" | grep -q sda; }
n=0
head -n "$TOUR_COMMANDS" /tmp/tour.cmds >/tmp/tour.run
while IFS= read -r cmd; do
	n=$((n + 1))
	rm -f "/tmp/tour.$n.out" "/tmp/tour.$n.rc"
	case $cmd in
	*"until Ctrl-C"*)
		timeout -k 5 60 sh -c "$cmd" >"/tmp/tour.$n.out" 2>&1 </dev/null &
		pid=$!
		wait_for 30 subscriber_saw "$n"
		rc=$?
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		tap_result $rc "README tour: \`$cmd\` prints the injected event before it is stopped"
		[ $rc -eq 0 ] || { echo "ran: $cmd"; head -n 20 "/tmp/tour.$n.out"; } |
			sed 's/^/# saw: /' >"$TAP"
		;;
	*)
		timeout -k 5 60 sh -c "$cmd" >"/tmp/tour.$n.out" 2>&1 </dev/null
		echo $? >"/tmp/tour.$n.rc"
		check "README tour: \`$cmd\` succeeds" ran "$n" "$cmd"
		;;
	esac
	case $cmd in
	"uaectl inject "*)
		[ -n "${injected:-}" ] && continue
		injected=1
		check "the injected alert is in uaeventd's journal entries before the tour reads them" \
			wait_for 30 inject_logged
		;;
	esac
done </tmp/tour.run
[ -n "${injected:-}" ] || tap_result 1 "README's tour injects an event (uaectl inject) to read"
# A short tour leaves results missing; say which.
while [ "$n" -lt "$TOUR_COMMANDS" ]; do
	n=$((n + 1))
	tap_result 1 "README tour: command $n of $TOUR_COMMANDS is missing"
done

# out_of CMD-PREFIX: what the tour's command starting with CMD-PREFIX printed, into $SAW.
out_of() {
	i=$(grep -n -m 1 -F -- "$1" /tmp/tour.run | cut -d: -f1)
	[ -n "$i" ] && cp "/tmp/tour.$i.out" "$SAW"
}
history_lists_it() {
	out_of "uaectl history" && grep THIN_PROVISIONING_SOFT_THRESHOLD_REACHED "$SAW" | grep -q sda
}
journal_explains_it() {
	out_of "journalctl -x" && grep -q "THIN PROVISIONING SOFT THRESHOLD REACHED" "$SAW" &&
		grep -q "Thin provisioning soft threshold reached on sda" "$SAW"
}
fields_shown() {
	out_of "journalctl -o verbose" && grep -q "UAEVENTS_HCTL=$HCTL" "$SAW" &&
		grep -q "UAEVENTS_STACK=nothing" "$SAW"
}
not_scsi_refused() {
	uaectl inject --device vda --sense 700006000000000a00000000380700000000 >"$SAW" 2>&1
	[ $? -eq 2 ] && grep -q "vda: not a SCSI disk" "$SAW"
}
check "the tour's \`uaectl history\` lists the injected soft threshold on sda" history_lists_it
check "the tour's \`journalctl -x\` shows the alert with the catalog's explanation" \
	journal_explains_it
check "the tour's \`journalctl -o verbose\` shows the fields to filter on, the stack's too" \
	fields_shown
check "uaectl inject --device refuses a disk that is not SCSI (vda) with exit status 2" \
	not_scsi_refused

# make demo: its guest script, as run-guest.sh runs it for make demo (sourced, after
# lib.sh and helpers.sh).  It raises a capacity change, a LUN inventory change and a
# soft threshold, and shows them.
# The demo's own alert, logged after it started (its journalctl -x shows the tour's too,
# maybe on a disk of the same name and address).
demo_ran() {
	demo_cursor=$(journal_cursor)
	(cd /usr/local/lib/uae-test && . ./demo.sh) >/tmp/demo.out 2>&1
	rc=$?
	# A demo that failed half-way leaves its monitor: the next scripts must not share it.
	pkill -xf 'uaectl monitor'
	{ echo "exit status $rc"; tail -n 40 /tmp/demo.out; } >"$SAW"
	[ $rc -eq 0 ] && grep -q "== Done" /tmp/demo.out &&
		grep -q "Thin provisioning soft threshold reached on" /tmp/demo.out &&
		journalctl --cursor "$demo_cursor" -o cat -u uaeventd \
			UAEVENTS_EVENT=THIN_PROVISIONING_SOFT_THRESHOLD_REACHED | grep -q .
}
check "make demo's script runs to its end and shows the low-space alert with its catalog text" \
	demo_ran
check "scsi_debug unloaded for the next script" wait_for 30 sdebug_gone
