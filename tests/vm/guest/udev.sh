#!/bin/sh
# The udev rules under a real systemd-udevd: the module's uevents are tagged, and
# libstoragemgmt's 90-scsi-ua.rules does not scan a target that uaeventd scans already.
# tap-plan: 13
. /bin/lib.sh

# libstoragemgmt's rule as it ships; its scan-scsi-target records each call, no scan.
lsm_rule /tmp/lsm-scans
# Proof that udev saw the stock kernel's SDEV_UA uevent at all (PROGRAM runs at once, so
# no later RUN= assignment can drop it).
cat >/etc/udev/rules.d/50-record-sdev-ua.rules <<'EOC'
ACTION=="change", SUBSYSTEM=="scsi", ENV{SDEV_UA}=="?*", PROGRAM="/lib/udev/record-sdev-ua $env{SDEV_UA}"
EOC
cat >/lib/udev/record-sdev-ua <<'EOC'
#!/bin/sh
echo "$1" >>/tmp/sdev-ua
EOC
chmod 0755 /lib/udev/record-sdev-ua

tap_diag "kernel $(uname -r)"
check "journald starts" start_journald
mkdir -p /run/udev
/lib/systemd/systemd-udevd --daemon
check "systemd-udevd runs" wait_for 10 test -S /run/udev/control
UAE_PARAMS="coalesce_ms=0"
check "pipeline set up (uaeventd running)" setup_pipeline
check "udev has handled the devices' events" udevadm settle --timeout=60
sdev=/sys/class/scsi_device/$HCTL/device
echo 1 >"$sdev/evt_lun_change_reported"

lun_change() {	# N: raise max_luns to N, then let the UA reach the LU
	echo "$1" >"$SDEBUG/max_luns"
	touch_disk "$DISK"
}

# What udevd made of each event, after its rules ran.
udevadm monitor --udev --property --subsystem-match=scsi >/tmp/udev-events.txt 2>&1 &
udevmon=$!
# It says so (line-buffered) once it listens to udevd's events.
check "udevadm monitor listens" wait_for 10 grep -q '^UDEV - ' /tmp/udev-events.txt
lun_change 2
# udevd passes an event on to its listeners once its rules and their RUN programs are done:
# both uevents in the monitor's output are the sync point for what the rules did, or did not.
# udev_event_has KEY=VALUE: an event in the monitor's output has that property.
udev_event_has() {
	awk -v RS= -v kv="$1" '{ n = split($0, l, "\n"); for (i = 2; i <= n; i++) if (l[i] == kv) f = 1 }
		END { exit !f }' /tmp/udev-events.txt
}
both_uevents() {
	udev_event_has UAEVENTS_EVENT=REPORTED_LUNS_DATA_HAS_CHANGED &&
		udev_event_has SDEV_UA=REPORTED_LUNS_DATA_HAS_CHANGED
}
check "udev passed on the module's uevent and the stock kernel's SDEV_UA one" wait_for 20 both_uevents
kill "$udevmon"
check "the module's uevent is tagged uaevents by the rules" \
	sh -c "awk -v RS= '/UAEVENTS_EVENT=/' /tmp/udev-events.txt | grep -q '^TAGS=.*:uaevents:'"
check "and does not ask systemd to start uaeventd (which would undo systemctl stop)" \
	sh -c "! awk -v RS= '/UAEVENTS_EVENT=/' /tmp/udev-events.txt | grep -q '^SYSTEMD_WANTS='"
check "uaeventd scanned the target once" \
	wait_for 10 sh -c "[ \$(journalctl -o json -t uaeventd UAEVENTS_ACTION=scan-target | jq -s length) -eq 1 ]"
check "udev saw the stock kernel's SDEV_UA=REPORTED_LUNS_DATA_HAS_CHANGED" \
	grep -q REPORTED_LUNS_DATA_HAS_CHANGED /tmp/sdev-ua
check "libstoragemgmt's rule did not scan it again while uaeventd runs" test ! -e /tmp/lsm-scans

kill "$UAEVENTD_PID"
check "uaeventd stops, and withdraws its hand-off to the rules" wait_for 10 test ! -e /run/uaevents/running
lun_change 3
check "without uaeventd, libstoragemgmt's rule scans as before" \
	wait_for 10 sh -c '[ $(wc -l </tmp/lsm-scans) -eq 1 ]'
