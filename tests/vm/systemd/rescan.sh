#!/bin/sh
# tap-plan: 10
# Sourced by run.sh.  Rescans that cannot hang and do not lose work, under the installed
# unit: a job past [rescan] timeout_s is killed with its process group and logged, and the
# next report is rescanned again; a LUN mapped just after a target scan (its report arrives
# in the window where echoes of the scan are expected) is still found.

conf=/etc/uaevents/uaeventd.conf
check "scsi_debug with one disk" sdebug_one_disk
udevadm settle
echo 1 >"/sys/class/scsi_device/$HCTL/device/evt_lun_change_reported"
echo 1 >"/sys/class/scsi_device/$HCTL/device/evt_capacity_change_reported"

# ---- a resize command that hangs, with a child of its own ----
mkdir -p /usr/local/sbin
cat >/etc/uaevents/uae-hang <<'EOC'
#!/bin/sh
echo "uae-hang: resizing $1"
sleep 1001 &
sleep 1002
EOC
chmod 0755 /etc/uaevents/uae-hang
sed -i 's|^#resize_command = .*|resize_command = /etc/uaevents/uae-hang|; s|^#timeout_s = 300$|timeout_s = 5|' "$conf"
cursor=$(journal_cursor)
systemctl reload uaeventd
check "reload: resize_command and timeout_s = 5 in force" \
	wait_for 20 reloaded_since "$cursor"

entries() {	# ACTION: uaeventd's entries of that action since the cursor, into $SAW
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		"UAEVENTS_ACTION=$1" >"$SAW"
	jq -s length "$SAW"
}
timed_out() {
	[ "$(entries rescan-timeout)" -ge 1 ] &&
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=rescan-failed >"$SAW" &&
	jq -n -e 'any(inputs; (.MESSAGE | test("timed out")) and .UAEVENTS_EXIT == "137")' \
		"$SAW" >/dev/null
}
# What it prints reaches the journal (uaeventd's standard output) as it runs: the check does
# not depend on catching the command in the seconds before its timeout.
hung() {
	pgrep -f 'sleep 100[12]' >"$SAW"
	journalctl --cursor "$cursor" -o cat --no-pager _SYSTEMD_UNIT=uaeventd.service |
		grep '^uae-hang: resizing ' >>"$SAW"
}
size=$(cat "/sys/block/$DISK/size")
echo 1 >"$SDEBUG/virtual_gb"
touch_disk "$DISK"
check "the capacity rescan ran the resize command, which hangs" wait_for 60 hung
check "after timeout_s the job is killed, and the journal says so" wait_for 60 timed_out
check "with everything it started" wait_for 10 sh -c "! pgrep -f 'sleep 100[12]' >'$SAW'"
check "the path was rescanned before that" \
	sh -c "[ \$(cat /sys/block/$DISK/size) -gt $size ]"
sed -i 's|^resize_command = /etc/uaevents/uae-hang|#resize_command = /usr/share/uaevents/hooks/multipath-resize|' "$conf"
systemctl reload uaeventd
sleep 3	# past the window of the killed job
cursor=$(journal_cursor)
echo 2 >"$SDEBUG/virtual_gb"
touch_disk "$DISK"
rescanned_once() { [ "$(entries rescan-paths)" -eq 1 ]; }
check "the next capacity change is rescanned again: the killed job held no slot" \
	wait_for 60 rescanned_once

# ---- a LUN mapped just after a target scan ----
# A window of 20 s, so that the second report surely arrives inside it.
sed -i 's|^#debounce_ms = 2000$|debounce_ms = 20000|' "$conf"
systemctl reload uaeventd
luns() { ls -d /sys/class/scsi_device/"${HCTL%:*}":* | wc -l; }
scans() { [ "$(entries scan-target)" -eq "$1" ] && [ "$(luns)" -eq "$2" ]; }
sleep 3
cursor=$(journal_cursor)
echo 2 >"$SDEBUG/max_luns"
touch_disk "$DISK"
check "the first LUN change: one scan, LUN 1 found" wait_for 60 scans 1 2
echo 3 >"$SDEBUG/max_luns"
touch_disk "$DISK"
check "a second change in the window after the scan: one more scan finds LUN 2" \
	wait_for 90 scans 2 3
sed -i 's|^timeout_s = 5$|#timeout_s = 300|; s|^debounce_ms = 20000$|#debounce_ms = 2000|' "$conf"
systemctl reload uaeventd
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
