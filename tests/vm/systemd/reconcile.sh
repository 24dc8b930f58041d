#!/bin/sh
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
sleep 12	# two rounds: the LU is counted, then known to be idle
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
sleep 12	# idle again after the rescan's commands
cursor=$(journal_cursor)
echo 2 >"$SDEBUG/max_luns"
has_lun1() { test -e "/sys/class/scsi_device/$target:1"; }
check "an idle target's new LUN is reported through the reconciler, and scanned" \
	wait_for 60 has_lun1
check "the LUN change is in the journal" event_logged REPORTED_LUNS_DATA_HAS_CHANGED
sed -i 's|^reconcile_s = 5$|#reconcile_s = 0|' "$conf"
systemctl reload uaeventd
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
