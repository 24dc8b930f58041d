#!/bin/sh
# tap-plan: 15
# Sourced by run.sh.
# In Debian 12 with systemd and Debian's multipathd (multipath-tools, default settings): a
# capacity change on a LU seen through two paths ends with the multipath map at the new
# size, through uaeventd's path rescans and the package's multipath-resize hook, with
# everything uaeventd writes done inside its sandbox.

tap_diag "kernel $(uname -r), $(multipath -h 2>&1 | head -n 1)"
check "multipathd.service is active" wait_for 60 systemctl is-active --quiet multipathd
check "uaeventd.service is active" wait_for 60 systemctl is-active --quiet uaeventd
# What uaeventd logs from here on: earlier scripts provoke errors (rescan.sh's timeouts).
cursor=$(journal_cursor)

# Two scsi_debug hosts presenting one LU (vpd_use_hostno=0: one WWID): two paths.
check "no scsi_debug of an earlier test is left" wait_for 30 sdebug_gone
modprobe scsi_debug dev_size_mb=16 max_luns=1 num_tgts=1 add_host=2 vpd_use_hostno=0
two_paths() {
	ls -d /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/* >"$SAW" 2>&1
	[ "$(wc -l <"$SAW")" -eq 2 ]
}
check "scsi_debug shows two paths" wait_for 60 two_paths
PATHS=$(for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do basename "$d"; done)
set -- $PATHS
WWID=$(cat "/sys/block/$1/device/wwid")
tap_diag "paths $PATHS, wwid $WWID"

# Debian's default find_multipaths (strict) multipaths only known WWIDs: an administrator
# adds the LU with multipath -a, then has the map made.
multipath -a "/dev/$1" >/dev/null
multipath -r >/dev/null 2>&1
map_of() { for h in /sys/block/"$1"/holders/*; do cat "$h/dm/name"; done 2>/dev/null; }
check "multipath made one map of both paths" \
	wait_for 30 sh -c "[ -n \"\$(ls /sys/block/$1/holders/)\" ] && [ \"\$(ls /sys/block/$1/holders/)\" = \"\$(ls /sys/block/$2/holders/)\" ]"
MAP=$(map_of "$1")
DM=$(ls "/sys/block/$1/holders/")
before=$(cat "/sys/block/$DM/size")
tap_diag "map $MAP ($DM), $before sectors; multipath -ll: $(multipath -ll 2>&1 | tr '\n' '|')"

# The administrator turns the resize hook on and reloads the daemon.
sed -i 's|^#resize_command = .*|resize_command = /usr/share/uaevents/hooks/multipath-resize|' \
	/etc/uaevents/uaeventd.conf
systemctl reload uaeventd
check "systemctl reload uaeventd: the daemon reloaded its configuration" \
	wait_for 10 reloaded_since "$cursor"

echo 1 >/sys/bus/pseudo/drivers/scsi_debug/virtual_gb
for p in $PATHS; do
	dd if="/dev/$p" of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
done
grown() { [ "$(cat "/sys/block/$DM/size")" -gt "$before" ]; }
check "the multipath map $MAP grew to the new size (through multipathd resize map)" \
	wait_for 60 grown
tap_diag "after: $(cat "/sys/block/$DM/size") sectors; multipath -ll: $(multipath -ll 2>&1 | tr '\n' '|')"
# Two results whatever was found (set -- above): a missing path fails its own.
for p in "$1" "$2"; do
	check "path $p is at the new size too" \
		sh -c "[ \$(cat /sys/block/$p/size) -eq \$(cat /sys/block/$DM/size) ]"
done
journalctl --cursor "$cursor" -u uaeventd -o cat --no-pager | tail -n 15 | sed 's/^/# /' >"$TAP"
check "the journal says the resize command succeeded for $WWID" \
	sh -c "journalctl -o json -t uaeventd UAEVENTS_ACTION=resize | jq -e -s 'map(select(.UAEVENTS_WWID == \"$WWID\" and .UAEVENTS_EXIT == \"0\")) | length == 1' >/dev/null"
check "uaeventd wrote no error to its journal (every write worked inside its sandbox)" \
	no_daemon_error "$cursor"
# ---- paths that disagree on the size: the hook leaves the map alone, and says why ----
# The test plays uaeventd's part by hand, with the daemon stopped: one path rescanned only.
systemctl stop uaeventd
size=$(cat "/sys/block/$DM/size")
echo 2 >/sys/bus/pseudo/drivers/scsi_debug/virtual_gb
echo 1 >"/sys/block/$1/device/rescan"
hook=/usr/share/uaevents/hooks/multipath-resize
out=$("$hook" "$WWID" 2>&1); st=$?
tap_diag "hook, one path rescanned: exit $st: $out"
check "one path rescanned only: the hook leaves the map alone (exit 2) and says the paths disagree" \
	sh -c "[ $st -eq 2 ] && [ \$(cat /sys/block/$DM/size) -eq $size ] &&
		echo '$out' | grep -q 'disagree on the size'"
echo 1 >"/sys/block/$2/device/rescan"
out=$("$hook" "$WWID" 2>&1); st=$?
tap_diag "hook, both paths rescanned: exit $st: $out"
check "both paths rescanned: the hook resizes the map (exit 0)" \
	sh -c "[ $st -eq 0 ] && [ \$(cat /sys/block/$DM/size) -gt $size ]"
systemctl start uaeventd
# What the daemon replays of the changes it missed is done before the cleanup: it has
# handled every event raised so far (its state file), and no resize command runs.
settled() {
	echo "uaeventd $(systemctl is-active uaeventd), state $(cat "$STATE" 2>/dev/null)," \
		"module's last event $(last_seq), resize commands running: $(pgrep -fc multipath-resize)" >"$SAW"
	systemctl is-active --quiet uaeventd &&
		[ "$(head -n 1 "$STATE" 2>/dev/null | cut -d' ' -f2)" -ge "$(last_seq)" ] &&
		! pgrep -f multipath-resize >/dev/null
}
check "uaeventd started again and handled what it missed" wait_for 30 settled
# Leave no map and no scsi_debug for the next script: the LU is forgotten (wwids file) so
# that multipathd does not make the map again, the map flushed, the module unloaded.
multipath -w "/dev/$1" >/dev/null 2>&1
unmapped() { multipath -f "$MAP" >/dev/null 2>&1; modprobe -r scsi_debug; }
check "after the test, the map is flushed and scsi_debug unloaded" wait_for 30 unmapped
# ... and the configuration as the next script expects it (rescan.sh sets its own command).
sed -i 's|^resize_command = /usr/share/uaevents/hooks/multipath-resize$|#resize_command = /usr/share/uaevents/hooks/multipath-resize|' \
	/etc/uaevents/uaeventd.conf
systemctl reload uaeventd
