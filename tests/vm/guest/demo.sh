#!/bin/sh
# make demo: the whole pipeline on a real kernel, shown the way an administrator sees it.
. /bin/lib.sh

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
pause() { sleep 2; }

say "Kernel $(uname -r); loading uaevents.ko, starting journald, uaeventd and 'uaectl monitor'"
setup_pipeline || { echo "demo: setup failed"; exit 1; }
uaectl monitor >/tmp/monitor.txt 2>&1 &
echo "scsi_debug disk: /dev/$DISK at $HCTL"
pause

say "The array changes the LUN's capacity (scsi_debug virtual_gb=1), then I/O reaches the LUN"
raise_capacity_change
pause
say "The array adds a LUN to the target (scsi_debug max_luns=2)"
raise_lun_change
pause
say "The thin pool behind the LUN runs low: THIN PROVISIONING SOFT THRESHOLD REACHED"
if sdebug_error_file >/dev/null; then
	raise_soft_threshold	# scsi_debug's error injection: a real UA on a real READ
else
	uaectl inject --hctl "$HCTL" --sense 700006000000000a00000000380700000000
fi
pause

say "uaectl monitor (one line per event: seq H:C:T:L device event ASC/ASCQ category)"
cat /tmp/monitor.txt
say "uaectl monitor --json (for scripts)"
cat /tmp/monitor.json
say "journalctl -t uaeventd (what the administrator reads)"
journalctl -o short-precise -t uaeventd --no-pager
say "journalctl -x UAEVENTS_CATEGORY=space (the low-space alert, explained by the catalog)"
journalctl --update-catalog
SYSTEMD_COLORS=0 journalctl -x --no-pager UAEVENTS_CATEGORY=space
say "journalctl UAEVENTS_CATEGORY=space -o verbose (structured fields to filter on)"
journalctl UAEVENTS_CATEGORY=space -o verbose --no-pager
say "Done; powering off"
