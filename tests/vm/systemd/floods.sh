#!/bin/sh
# tap-plan: 6
# Sourced by run.sh.  A thin pool shared by 64 LUNs of one target runs low: each LU's soft
# threshold alert is logged with all its fields, a repeat within the window at notice
# priority, and once the window ends one summary names the target and every LU.
LUNS=64
# all_luns: the target's LUs are all there.
all_luns() {
	ls -d /sys/class/scsi_device/"$target":* | wc -l >"$SAW"
	[ "$(cat "$SAW")" -eq $LUNS ]
}
check "no scsi_debug of an earlier test is left" wait_for 30 sdebug_gone
# uaeventd's flood windows are its own, in memory, 60 s per target: an earlier script's
# space events on a target of the same number (host numbers are reused: readme.sh's on
# 2:0:0) would be counted in this one.  A restart starts them afresh.
check "uaeventd restarted: no flood window of an earlier script is open" \
	sh -c 'systemctl restart uaeventd && systemctl is-active --quiet uaeventd'
modprobe scsi_debug dev_size_mb=16 max_luns=$LUNS num_tgts=1
DISK=$(wait_for 30 scsi_debug_disk)
HCTL=$(basename "$(readlink "/sys/block/$DISK/device")")
target=${HCTL%:*}
check "scsi_debug with $LUNS LUNs behind target $target" wait_for 120 all_luns
cursor=$(journal_cursor)
soft=700006000000000a00000000380700000000
for l in $(seq 0 $((LUNS - 1))); do
	uaectl inject --hctl "$target:$l" --sense $soft >/dev/null || break
done
sleep 2	# past the module's coalescing window: the next one is an event of its own
uaectl inject --hctl "$target:0" --sense $soft >/dev/null
alerts() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_EVENT=THIN_PROVISIONING_SOFT_THRESHOLD_REACHED UAEVENTS_KIND=ua |
		jq -s -c '[length, (map(.UAEVENTS_HCTL) | unique | length),
			   (map(select(.PRIORITY == "5")) | length)]' >"$SAW"
	[ "$(cat "$SAW")" = "[$((LUNS + 1)),$LUNS,1]" ]
}
check "$((LUNS + 1)) soft threshold entries, one per LU and a repeat at notice priority" \
	wait_for 60 alerts
summary() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=flood-summary >"$SAW.json"
	jq -s -c 'map({MESSAGE, UAEVENTS_TARGET, UAEVENTS_LUNS, UAEVENTS_OCCURRENCES,
		n: (.UAEVENTS_HCTLS | split(" ") | length)})' "$SAW.json" >"$SAW"
	jq -e -s --arg t "$target" --argjson n $LUNS '
		length == 1 and .[0].UAEVENTS_TARGET == $t and
		.[0].UAEVENTS_LUNS == ($n | tostring) and
		.[0].UAEVENTS_OCCURRENCES == ($n + 1 | tostring) and
		(.[0].UAEVENTS_HCTLS | split(" ") | length) == $n and
		(.[0].MESSAGE | test("soft threshold reached on \($n) LUNs of target \($t)"))' \
		"$SAW.json" >/dev/null
}
check "after the window, one summary for the target naming all $LUNS LUs" \
	wait_for 120 summary
tap_diag "summary: $(jq -r .MESSAGE "$SAW.json" 2>/dev/null | head -n 1)"
# 64 disks keep udev busy a long while under TCG (blkid, multipath -u): each holds its disk,
# and scsi_debug with it, until udev is done.
udevadm settle --timeout=600
unloaded() {
	modprobe -r scsi_debug 2>"$SAW" && return 0
	{ echo "refcnt $(cat /sys/module/scsi_debug/refcnt 2>&1)"
	  ps -eo pid,comm,args | grep -E 'udev|multipath|blkid' | grep -v grep | head -n 5; } >>"$SAW"
	return 1
}
check "scsi_debug can be unloaded after the test" wait_for 120 unloaded
