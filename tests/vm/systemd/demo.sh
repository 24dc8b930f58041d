#!/bin/sh
# Sourced by run.sh for make demo: the packages installed in Debian 12 with systemd, real
# UAs from scsi_debug, shown the way an administrator sees them.
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
pause() { sleep 3; }

say "Debian 12, kernel $(uname -r), $(systemctl --version | head -n 1)"
echo "installed: $(dpkg-query -W -f '${Package} ${Version}, ' uaevents uaevents-dkms libuaevents1)"
wait_for 60 systemctl is-active --quiet uaeventd || { echo "demo: uaeventd is not active"; exit 1; }
systemctl status --no-pager uaeventd | head -n 8
say "The array: scsi_debug with one LU"
sdebug_one_disk || { echo "demo: no scsi_debug disk"; exit 1; }
echo "disk /dev/$DISK at $HCTL, $(cat "/sys/block/$DISK/size") sectors"
uaectl monitor >/tmp/monitor.txt 2>&1 &
monitor=$!
pause

say "The array grows the LU (virtual_gb=1); the next I/O gets CAPACITY DATA HAS CHANGED"
raise_capacity_change
pause
echo "uaeventd rescanned the LU: /dev/$DISK now has $(cat "/sys/block/$DISK/size") sectors"
say "The array maps a second LUN (max_luns=2): REPORTED LUNS DATA HAS CHANGED"
raise_lun_change
pause
echo "uaeventd scanned the target: $(ls -d /sys/class/scsi_device/"${HCTL%:*}":* | wc -l) LUNs"
say "The thin pool behind the LU runs low: THIN PROVISIONING SOFT THRESHOLD REACHED"
if sdebug_error_file >/dev/null; then
	raise_soft_threshold	# scsi_debug's error injection: a real UA on a real READ
else
	uaectl inject --hctl "$HCTL" --sense 700006000000000a00000000380700000000
fi
pause

say "uaectl monitor (seq kind H:C:T:L device event ASC/ASCQ category)"
kill "$monitor"
cat /tmp/monitor.txt
say "journalctl -u uaeventd"
journalctl -o short-precise -u uaeventd --no-pager | tail -n 20
say "journalctl -x -u uaeventd -p warning (the low-space alert, explained by the catalog)"
SYSTEMD_COLORS=0 journalctl -x -u uaeventd -p warning --no-pager
say "journalctl UAEVENTS_CATEGORY=space -o verbose (structured fields to filter on)"
journalctl UAEVENTS_CATEGORY=space -o verbose --no-pager | tail -n 30
say "Done; powering off"
