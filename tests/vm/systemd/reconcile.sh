#!/bin/sh
# tap-plan: 11
# Sourced by run.sh.  A device reports a unit attention only with the next command it gets:
# a change on a LU nobody uses stays unseen.  With [rescan] reconcile_s, uaeventd sends one
# TEST UNIT READY per interval to each idle LU, so that a capacity change or a new LUN on
# an idle LU reaches the journal, and is acted on, within an interval or two.
conf=/etc/uaevents/uaeventd.conf
cursor=$(journal_cursor)
sed -i 's|^#reconcile_s = 0$|reconcile_s = 5|' "$conf"
systemctl reload uaeventd
check "reload: reconcile_s = 5 in force" wait_for 20 reloaded_since "$cursor"
check "scsi_debug with one disk" sdebug_one_disk
udevadm settle
target=${HCTL%:*}
# idle_probed: since the cursor, a round of the reconciler found an idle LU and sent it a
# TEST UNIT READY.  The scsi_debug disk is the only disk here (the earlier scripts'
# are gone; QEMU's CD-ROM is no disk): it was counted by one round after its last command
# and found idle by the next, so the one after the change below probes it too.
idle_probed() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=reconcile >"$SAW"
	jq -n -e 'any(inputs; (.UAEVENTS_PROBED | tonumber) >= 1)' "$SAW" >/dev/null
}
cursor=$(journal_cursor)
check "two rounds of the reconciler: the LU is counted, then known to be idle and probed" \
	wait_for 30 idle_probed
cursor=$(journal_cursor)
size=$(cat "/sys/block/$DISK/size")
# From here on nothing reads or writes the disk.
echo 1 >"$SDEBUG/virtual_gb"
event_logged() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_EVENT="$1" UAEVENTS_HCTL="$HCTL" | jq -s length >"$SAW"
	[ "$(cat "$SAW")" -ge 1 ]
}
check "an idle LU's capacity change reaches the journal, through the reconciler" \
	wait_for 30 event_logged CAPACITY_DATA_HAS_CHANGED
check "and uaeventd rescanned it: the disk has the new size" \
	wait_for 30 sh -c "[ \$(cat /sys/block/$DISK/size) -gt $size ]"
check "the journal holds the reconciler's rounds (UAEVENTS_ACTION=reconcile)" \
	sh -c "journalctl --cursor '$cursor' -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=reconcile | jq -e -s 'length >= 1' >/dev/null"
# Idle again after the rescan's commands (and udev's, for the new size): probed once more.
udevadm settle
cursor=$(journal_cursor)
check "after the rescan the LU is found idle again and probed" wait_for 30 idle_probed
cursor=$(journal_cursor)
echo 2 >"$SDEBUG/max_luns"
has_lun1() { test -e "/sys/class/scsi_device/$target:1"; }
check "an idle target's new LUN is reported through the reconciler, and scanned" \
	wait_for 60 has_lun1
check "the LUN change is in the journal" event_logged REPORTED_LUNS_DATA_HAS_CHANGED
reload_with 's|^reconcile_s = 5$|#reconcile_s = 0|' "the reconciler is off again"
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
