#!/bin/sh
# tap-plan: 20
# Sourced by run.sh.  A LUN removed on this host by someone else (here an administrator
# writing "delete", as CSI drivers do) and still reported by its target is not added back
# by uaeventd's target scan within [rescan] removal_grace_s, also after a restart of the
# daemon, and the journal says so; a LUN mapped at the same time is added, by its number.
check "scsi_debug with one disk" sdebug_one_disk
udevadm settle
echo 1 >"/sys/class/scsi_device/$HCTL/device/evt_lun_change_reported"
target=${HCTL%:*}
# has_luns "0 1": the LUNs of the target this host has, in order.
has_luns() {
	ls -d /sys/class/scsi_device/"$target":* | sed 's/.*://' | sort -n | tr '\n' ' ' |
		sed 's/ $//' >"$SAW"
	echo >>"$SAW"
	[ "$(cat "$SAW")" = "$1" ]
}
# entry ACTION HCTL: uaeventd logged ACTION for device HCTL since the cursor.
entry() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		"UAEVENTS_ACTION=$1" "UAEVENTS_HCTL=$2" | jq -s length >"$SAW"
	[ "$(cat "$SAW")" -ge 1 ]
}
cursor=$(journal_cursor)
echo 2 >"$SDEBUG/max_luns"
touch_disk "$DISK"
check "LUN 1 mapped: uaeventd's scan adds it" wait_for 60 has_luns "0 1"
sleep 3	# past the debounce window of that scan
echo 1 >"/sys/class/scsi_device/$target:1/device/delete"
check "LUN 1 deleted by hand: uaeventd notes a removal it did not make" \
	wait_for 20 entry removed-elsewhere "$target:1"
echo 3 >"$SDEBUG/max_luns"
touch_disk "$DISK"
check "LUN 2, mapped meanwhile, is added" wait_for 60 has_luns "0 2"
check "LUN 1, still reported by the target, is left out, and the journal says why" \
	entry scan-left-out "$target:1"
scanned() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=scan-target UAEVENTS_TARGET="$target" |
		jq -r '"\(.UAEVENTS_ADDED)|\(.UAEVENTS_LEFT_OUT)"' >"$SAW"
	grep -qx '2|1' "$SAW"
}
check "the scan's entry names what it added (2) and what it left out (1)" scanned
# stays_away LUNS: once every LUN change the target reported since the cursor has been
# answered by uaeventd's scans (none pending: not after a fixed wait), the LUNs are LUNS.
stays_away() { reports_answered "$cursor" "$target" && has_luns "$1"; }
check "and LUN 1 stays away" wait_for 60 stays_away "0 2"
# A restart of the daemon (a crash, an upgrade) does not forget the removal.
systemctl restart uaeventd
check "uaeventd restarted" wait_for 60 systemctl is-active --quiet uaeventd
cursor=$(journal_cursor)
echo 4 >"$SDEBUG/max_luns"
touch_disk "$DISK"
check "after a restart of uaeventd, LUN 3, mapped meanwhile, is added" \
	wait_for 60 has_luns "0 2 3"
check "and LUN 1 is still left out, and the journal says why" entry scan-left-out "$target:1"
check "and LUN 1 stays away" wait_for 60 stays_away "0 2 3"
# A removal made while no uaeventd runs (a CSI driver detaching during an upgrade) is
# seen at its next start, from the devices the host had when it stopped.
systemctl stop uaeventd
echo 1 >"/sys/class/scsi_device/$target:2/device/delete"
check "uaeventd stopped, LUN 2 deleted by hand" \
	wait_for 20 sh -c "! test -e /sys/class/scsi_device/$target:2"
cursor=$(journal_cursor)
systemctl start uaeventd
check "started again, uaeventd notes the removal of LUN 2, made while it was down" \
	wait_for 30 entry removed-elsewhere "$target:2"
echo 5 >"$SDEBUG/max_luns"
touch_disk "$DISK"
check "LUN 4, mapped meanwhile, is added" wait_for 60 has_luns "0 3 4"
check "and LUN 2 is left out, and the journal says why" entry scan-left-out "$target:2"
check "and LUN 2 stays away" wait_for 60 stays_away "0 3 4"
# The host goes (its number is reused by the next one): what was removed behind it is
# forgotten, and a new scsi_debug host's LUN 1 at the same address is scanned as usual.
check "scsi_debug unloaded" wait_for 30 modprobe -r scsi_debug
check "scsi_debug again, one disk" sdebug_one_disk
tap_diag "new host: $HCTL"
udevadm settle
echo 1 >"/sys/class/scsi_device/$HCTL/device/evt_lun_change_reported"
target=${HCTL%:*}
cursor=$(journal_cursor)
echo 2 >"$SDEBUG/max_luns"
touch_disk "$DISK"
check "on the new host, LUN 1 is added" wait_for 60 has_luns "0 1"
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
