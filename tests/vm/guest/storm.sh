#!/bin/sh
# Many devices failing at once, as a lost path or an array controller's reboot looks on a
# host with many LUs: 64 scsi_debug LUs whose upper half fails reads with a MEDIUM ERROR
# (opts=2, medium_error_start/count), each read sector by sector, all at once: 64 storms
# together over many coalescing windows, twice the coalescer's old 32 slots.  Every
# occurrence is counted exactly, none is dropped for lack of room, and the events (and
# with uevents=2 the uevents) stay bounded by one per device per window.  The same for
# failing pass-through commands (another hook), and an unload in the middle of both.
# tap-plan: 30
. /bin/lib.sh

LUNS=64
WINDOW_MS=200
BAD=256	# sectors 256 to 511 of each 1 MB LU fail

tap_diag "kernel $(uname -r)"
kmod_load sd_mod
kmod_load sg
# The largest history: a subscriber starved of CPU by the storm replays what its socket
# could not hold from it, and never loses events to the history wrapping.
check "uaevents.ko loads with a window of $WINDOW_MS ms, no uevents" \
	insmod /modules/uaevents.ko coalesce_ms=$WINDOW_MS uevents=0 history_size=65536
uaectl monitor --json >/tmp/storm.json 2>/tmp/storm.err &
MONITOR_PID=$!
check "uaectl monitor is subscribed" wait_for 10 waits_in_poll "$MONITOR_PID"
kmod_load scsi_debug dev_size_mb=1 max_luns=$LUNS num_tgts=1 opts=2 \
	medium_error_start=$BAD medium_error_count=$BAD
# disks: "sdX H:C:T:L" for each of scsi_debug's LUs, in /tmp/luns.
disks() {
	for d in "$SDEBUG"/adapter*/host*/target*/*/block/*; do
		[ -e "$d" ] && echo "$(basename "$d") $(basename "$(dirname "$(dirname "$d")")")"
	done >/tmp/luns
	echo "$(wc -l </tmp/luns) of $LUNS LUs with a disk" >"$SAW"
	[ "$(wc -l </tmp/luns)" -eq $LUNS ]
}
check "scsi_debug presents $LUNS LUs" wait_for 120 disks
first_disk=$(head -n 1 /tmp/luns | cut -d' ' -f1)

stat_of() { uaectl status --json | jq ".$1"; }

# storm ROUND: every LU's failing sectors read one by one (direct I/O, each read one
# request that fails), all LUs at once; each reader's errors go to /tmp/ROUND.SDX (busybox
# dd, conv=noerror: "dd: /dev/sdX: No data available" for each failed read, then on to
# the next sector).  The readers are niced: 64 processes that never block would take
# all of the one virtual CPU from the subscriber and the delivery work, which on a real
# host wait on I/O, not on a CPU.  Sets STORM_MS, how long it lasted.
storm_start() {
	pids=
	start=$(uptime_ms)
	while read -r disk _; do
		dd if="/dev/$disk" of=/dev/null bs=512 skip=$BAD count=$BAD iflag=direct \
			conv=noerror 2>"/tmp/$1.$disk" &
		pids="$pids $!"
		renice -n 19 -p $! >/dev/null
	done </tmp/luns
}
storm_wait() {
	# shellcheck disable=SC2086
	wait_for 300 gone $pids
	storm_stopped=$?
	STORM_MS=$(($(uptime_ms) - start))
}
storm() {
	storm_start "$1"
	storm_wait
}
# failed ROUND: the reads that failed in the round.
failed() { cat /tmp/"$1".sd* | grep -c '^dd: /dev/'; }

# The storm's events in the monitor's output from seq $1 on: the block layer's medium
# errors of scsi_debug's LUs.
storm_events() {
	jq -s --argjson from "$1" --rawfile luns /tmp/luns '
		($luns | split("\n") | map(select(. != "") | split(" ")[1])) as $h |
		map(select(.seq >= $from and .kind == "error" and .asc == 17 and
			(.hctl | IN($h[]))))' /tmp/storm.json
}
# Every failed read is in the events' repeat counts (the last windows' events come when
# those windows end): waited for, never a fixed time.
all_counted() {
	counted=$(storm_events "$1" | jq 'map(.repeat) | add // 0')
	echo "failed reads $(failed "$2"), counted $counted; the module's last event" \
		"$(stat_of last_seq), the monitor's $(jq -s 'map(.seq) | max' /tmp/storm.json)," \
		"gaps $(jq -c -s 'map(select(.kind == "gap") | {seq, gap})' /tmp/storm.json)" >"$SAW"
	[ "$(failed "$2")" -eq $((LUNS * BAD)) ] && [ "$counted" -eq $((LUNS * BAD)) ]
}
# bounded FROM: at most one event per LU per window (a key's events are a window apart;
# the last is published when its window ends), at least one per LU, and no summary: 64
# keys are far below what the coalescer keeps apart.
bounded() {
	windows=$((STORM_MS / WINDOW_MS + 2))
	n=$(storm_events "$1" | jq length)
	summaries=$(storm_events "$1" | jq 'map(select((.flags / 64 | floor) % 2 == 1)) | length')
	echo "$n events for $LUNS LUs in $STORM_MS ms ($windows windows at most)," \
		"$summaries summaries" >"$SAW"
	[ "$n" -ge $LUNS ] && [ "$n" -le $((LUNS * windows)) ] && [ "$summaries" -eq 0 ]
}

# ---- the storm ----
from=$(($(stat_of last_seq) + 1))
full_before=$(stat_of queue_full)
coalesced_before=$(stat_of coalesced)
storm a
check "the $LUNS readers ended" [ "$storm_stopped" -eq 0 ]
tap_diag "storm a: $STORM_MS ms, $(failed a) reads failed; $first_disk's dd said: $(sort /tmp/a.$first_disk | uniq -c | head -n 3 | tr '\n' ' ')"
check "every failed read of the $LUNS LUs ($((LUNS * BAD))) is counted in the events' repeat counts" \
	wait_for 30 all_counted "$from" a
check "one event per LU per window, at most" bounded "$from"
check "no event dropped for lack of room (queue_full)" \
	[ "$(stat_of queue_full)" -eq "$full_before" ]
events=$(storm_events "$from" | jq length)
check "the statistics agree: events + coalesced = failed reads" \
	[ $((events + $(stat_of coalesced) - coalesced_before)) -eq "$(failed a)" ]
no_gap() { jq -n -e '[inputs | select(.kind == "gap")] | length == 0' /tmp/storm.json; }
check "no gap reported to the subscriber" no_gap

# ---- pass-through commands failing on every LU at once ----
# scsi_debug fails every command with ABORTED COMMAND, TRANSPORT PROBLEM (opts 0x10,
# every_nth=1; 6.1 has it too) while every LU's sg device gets PT_CMDS TEST UNIT READYs,
# all LUs at once: each failure is final (SG_IO does not retry), one sgio occurrence of
# scsi_io_completion()'s hook.  pt_start ROUND [N]: N commands each (PT_CMDS); sets PT_PIDS.
PT_CMDS=400
pt_start() {
	echo 1 >"$SDEBUG/every_nth"
	echo 0x12 >"$SDEBUG/opts"
	PT_PIDS=
	while read -r _ hctl; do
		sg=$(ls "/sys/class/scsi_device/$hctl/device/scsi_generic/")
		sg_turs -n "${2:-$PT_CMDS}" "/dev/$sg" >"/tmp/$1.$hctl" 2>&1 &
		PT_PIDS="$PT_PIDS $!"
		renice -n 19 -p $! >/dev/null
	done </tmp/luns
}
pt_stop() {
	# shellcheck disable=SC2086
	wait_for 300 gone $PT_PIDS
	pt_stopped=$?
	echo 2 >"$SDEBUG/opts"
	echo 0 >"$SDEBUG/every_nth"
}
# pt_failed ROUND: the TEST UNIT READYs that failed, as sg_turs counted them.
pt_failed() {
	cat /tmp/"$1".[0-9]* | sed -n 's/.* with \([0-9]*\) errors.*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }'
}
pt_events() {
	jq -s --argjson from "$1" --rawfile luns /tmp/luns '
		($luns | split("\n") | map(select(. != "") | split(" ")[1])) as $h |
		map(select(.seq >= $from and .kind == "sgio" and .opcode == 0 and
			.sense_key == 11 and .asc == 75 and (.hctl | IN($h[]))))' /tmp/storm.json
}
# Every failure sg_turs saw is counted.  scsi_debug's injection flag is one for all its
# commands: one that takes its CPU between another's setting and taking it may pass.
pt_counted() {
	counted=$(pt_events "$1" | jq 'map(.repeat) | add // 0')
	echo "failed $(pt_failed "$2") of $((LUNS * PT_CMDS)), counted $counted" >"$SAW"
	[ "$(pt_failed "$2")" -gt $((LUNS * PT_CMDS / 2)) ] && [ "$counted" -eq "$(pt_failed "$2")" ]
}
from=$(($(stat_of last_seq) + 1))
full_before=$(stat_of queue_full)
start=$(uptime_ms)
pt_start p
pt_stop
STORM_MS=$(($(uptime_ms) - start))
check "the $LUNS pass-through storms ended" [ "$pt_stopped" -eq 0 ]
tap_diag "pass-through storm: $STORM_MS ms, $(pt_failed p) failed; $(tail -n 1 "$(ls /tmp/p.[0-9]* | head -n 1)")"
check "every failed pass-through command of the $LUNS LUs is counted in sgio events" \
	wait_for 30 pt_counted "$from" p
pt_bounded() {
	windows=$((STORM_MS / WINDOW_MS + 2))
	n=$(pt_events "$1" | jq length)
	echo "$n sgio events for $LUNS LUs in $STORM_MS ms ($windows windows at most)" >"$SAW"
	[ "$n" -ge $LUNS ] && [ "$n" -le $((LUNS * windows)) ]
}
check "one sgio event per LU per window, at most" pt_bounded "$from"
check "no pass-through failure dropped for lack of room (queue_full), no gap" \
	sh -c "[ \$(uaectl status --json | jq .queue_full) -eq $full_before ] && jq -n -e '[inputs | select(.kind == \"gap\")] | length == 0' /tmp/storm.json"

# ---- the same with a uevent for every event: udev gets as few ----
check "uaectl config --uevents all" uaectl config --uevents all
udevadm monitor --kernel --property --subsystem-match=scsi >/tmp/storm-uevents.txt 2>&1 &
UDEV_PID=$!
# Listening once it printed a synthetic uevent written after it started (lib.sh).
udev_listens() { udev_printed /tmp/storm-uevents.txt "/sys/block/$first_disk/device" 2; }
check "udevadm monitor listens" wait_for 20 udev_listens
from=$(($(stat_of last_seq) + 1))
full_before=$(stat_of queue_full)
storm b
check "the readers ended again" [ "$storm_stopped" -eq 0 ]
tap_diag "storm b: $STORM_MS ms, $(failed b) reads failed"
check "with uevents=2: every failed read counted" wait_for 30 all_counted "$from" b
check "with uevents=2: one event per LU per window, at most" bounded "$from"
check "with uevents=2: nothing dropped for lack of room" \
	[ "$(stat_of queue_full)" -eq "$full_before" ]
check "with uevents=2: no gap reported to the subscriber" no_gap
# uevents_sent: udev received one uevent per event of the storm (the last come with
# their windows' ends), and so no more than the events' bound.
uevents_sent() {
	events=$(storm_events "$from" | jq length)
	got=$(grep -c '^UAEVENTS_ASC=0x11$' /tmp/storm-uevents.txt)
	echo "$got uevents for $events events" >"$SAW"
	[ "$events" -ge $LUNS ] && [ "$got" -eq "$events" ]
}
check "udev received one uevent per event, not one per failure" wait_for 30 uevents_sent

# ---- half of the LUs removed in the middle of a storm (a path lost for good) ----
# Their commands in flight fail while they leave, and their uevents race the removal
# (uevents=2 still).  A LU's storm is its own until it leaves; what it raises on its way
# out is counted in its host's summary.  The kept LUs' counts stay exact; the removed
# ones' may lack medium errors that completed after their disk was marked dead, which
# the block layer does not report (no block_rq_error).
# medium_errors ROUND FILE: the reads of the LUs in FILE that failed with a medium error.
medium_errors() {
	n=0
	while read -r disk _; do
		n=$((n + $(grep -c 'No data available' "/tmp/$1.$disk")))
	done <"$2"
	echo "$n"
}
# counted_for FROM FILE: the repeat counts of the storm's events of the LUs in FILE, not
# summaries (a summary names its first occurrence's LU, and counts others' too).
counted_for() {
	jq -s --argjson from "$1" --rawfile luns "$2" '
		($luns | split("\n") | map(select(. != "") | split(" ")[1])) as $h |
		map(select(.seq >= $from and .kind == "error" and .asc == 17 and
			(.flags / 64 | floor) % 2 == 0 and (.hctl | IN($h[])))) |
		map(.repeat) | add // 0' /tmp/storm.json
}
summaries_since() {
	jq -s --argjson from "$1" 'map(select(.seq >= $from and .kind == "error" and
		.asc == 17 and (.flags / 64 | floor) % 2 == 1)) | map(.repeat) | add // 0' \
		/tmp/storm.json
}
head -n $((LUNS / 2)) /tmp/luns >/tmp/kept
tail -n $((LUNS / 2)) /tmp/luns >/tmp/removed
from=$(($(stat_of last_seq) + 1))
full_before=$(stat_of queue_full)
storm_start c
some_failed() { [ "$(cat /tmp/c.sd* | grep -c 'No data available')" -ge 2000 ]; }
wait_for 60 some_failed
removing=$?
# All at once, as a transport removes a lost path's LUs; waited for by their own PIDs (a
# bare wait would wait for the subscribers too).
deleters=
while read -r _ hctl; do
	echo 1 >"/sys/class/scsi_device/$hctl/device/delete" &
	deleters="$deleters $!"
done </tmp/removed
# shellcheck disable=SC2086
wait_for 60 gone $deleters
deleted=$?
storm_wait
gone_luns() {
	while read -r _ hctl; do
		[ ! -e "/sys/class/scsi_device/$hctl" ] || return 1
	done </tmp/removed
}
# While the storm ran: the removed LUs' readers were cut short of their 256 medium errors.
removed_mid_storm() {
	echo "after 2000 failures: $removing; deleters done: $deleted; readers ended: $storm_stopped;" \
		"removed LUs' medium errors $(medium_errors c /tmp/removed) of $((LUNS / 2 * BAD))" >"$SAW"
	[ "$removing" -eq 0 ] && [ "$deleted" -eq 0 ] && [ "$storm_stopped" -eq 0 ] &&
		[ "$(medium_errors c /tmp/removed)" -lt $((LUNS / 2 * BAD)) ]
}
check "$((LUNS / 2)) LUs removed while the storm ran, the readers ended" removed_mid_storm
check "they are gone" wait_for 30 gone_luns
kept_counted() {
	want=$(medium_errors c /tmp/kept) got=$(counted_for "$from" /tmp/kept)
	echo "kept LUs: $want medium errors, $got counted" >"$SAW"
	[ "$want" -eq $((LUNS / 2 * BAD)) ] && [ "$got" -eq "$want" ]
}
check "every medium error of the kept LUs is counted, none in a summary" wait_for 30 kept_counted
removed_counted() {
	want=$(medium_errors c /tmp/removed)
	got=$(($(counted_for "$from" /tmp/removed) + $(summaries_since "$from")))
	echo "removed LUs: $want medium errors, $got counted (summaries $(summaries_since "$from"))" >"$SAW"
	[ "$got" -gt 0 ] && [ "$got" -le "$want" ]
}
check "the removed LUs' are counted, none twice" removed_counted
tap_diag "storm c: $STORM_MS ms; kept $(medium_errors c /tmp/kept), removed $(medium_errors c /tmp/removed) medium errors; counted $(counted_for "$from" /tmp/kept) and $(counted_for "$from" /tmp/removed), summaries $(summaries_since "$from")"
undropped() {
	echo "queue_full $(stat_of queue_full) (was $full_before)" >"$SAW"
	[ "$(stat_of queue_full)" -eq "$full_before" ] && no_gap
}
check "nothing dropped for lack of room, no gap" undropped

# ---- uaevents.ko unloaded in the middle of a storm ----
cp /tmp/kept /tmp/luns
storm_start d
pt_start q 100000	# more than the unload waits for; stopped after it
some_failed_d() { [ "$(cat /tmp/d.sd* | grep -c 'No data available')" -ge 1000 ]; }
wait_for 60 some_failed_d
mid_storm=$?
# With its subscribers still there: they hold no reference on the module.
unload_mid_storm() {
	[ "$mid_storm" -eq 0 ] || { echo "the storm never got 1000 failures in" >"$SAW"; return 1; }
	# shellcheck disable=SC2086
	! gone $pids || { echo "the readers had ended: not the middle of a storm" >"$SAW"; return 1; }
	# shellcheck disable=SC2086
	! gone $PT_PIDS || { echo "the pass-through storm had ended" >"$SAW"; return 1; }
	timeout 60 rmmod uaevents
}
check "uaevents.ko unloads in the middle of a storm of block and pass-through failures, its subscribers still there" \
	unload_mid_storm
kill "$MONITOR_PID" "$UDEV_PID"
check "the subscribers exited" wait_for 10 gone "$MONITOR_PID" "$UDEV_PID"
storm_wait
# shellcheck disable=SC2086
kill $PT_PIDS 2>/dev/null
pt_stop
check "the readers ended, and uaevents.ko loads and unloads again" \
	sh -c "[ $storm_stopped -eq 0 ] && [ $pt_stopped -eq 0 ] && insmod /modules/uaevents.ko && rmmod uaevents"
check "no oops, BUG or WARNING in the kernel log" \
	sh -c '! dmesg | grep -E "BUG:|WARNING:|Oops|Call Trace"'
