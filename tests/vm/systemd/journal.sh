#!/bin/sh
# Sourced by run.sh.
# In Debian 12 with systemd as PID 1 and the packages installed: uaeventd from its own
# unit, its hardening, journald and the package's catalog.

tap_diag "kernel $(uname -r), $(systemctl --version | head -n 1)"
check "uaevents.ko was loaded at boot (modules-load.d of the uaevents package)" \
	test -d /sys/module/uaevents
check "uaeventd.service is active, started by systemd from the installed unit" \
	wait_for 60 systemctl is-active --quiet uaeventd
tap_diag "$(systemctl status --no-pager uaeventd 2>&1 | head -n 12 | tr '\n' '|')"

# QEMU's default machine has an ATAPI CD-ROM (sr0) that the kernel polls.  On a loaded
# host its TEST UNIT READY can outlive sr's 30 s timeout under TCG: scsi_timeout() runs,
# libata's error handler finds the command completed.  Shown, not judged: it depends on
# the host's load, not on uaevents.
tap_diag "timeouts at boot: $(journalctl -u uaeventd -o cat --no-pager | grep -c "timed out"); sr0 iotmo_cnt $(cat /sys/class/scsi_generic/sg0/device/iotmo_cnt 2>/dev/null)"

check "scsi_debug with one disk" sdebug_one_disk
tap_diag "disk $DISK at $HCTL"

# A real soft threshold UA on 6.12 (scsi_debug's error injection); on 6.1 an injected one,
# which uaeventd logs like any other (it does not act on it).
if [ -e "/sys/kernel/debug/scsi_debug/$HCTL/error" ]; then
	raise_soft_threshold
else
	uaectl inject --hctl "$HCTL" --sense 700006000000000a00000000380700000000
fi
low_space() {
	journalctl -x -u uaeventd --no-pager -o cat |
		grep -q "THIN PROVISIONING SOFT THRESHOLD REACHED"
}
check "the low-space alert is in journalctl -x -u uaeventd" wait_for 60 low_space
journalctl -x -u uaeventd --no-pager -o cat | tail -n 30 | sed 's/^/# /' >"$TAP"
catalog_text=$(grep -m 1 "^Add capacity to the pool" /usr/lib/systemd/catalog/uaevents.catalog |
	cut -c 1-40)
check "journalctl -x shows the package's catalog text with it ('$catalog_text')" \
	sh -c "journalctl -x -u uaeventd --no-pager | grep -qF '$catalog_text'"
# The UAs that need an administrator: a cluster node fenced from the LU, an ALUA transition
# the array could not make.  Each has its own MESSAGE_ID, priority and catalog text.
# ua_entry ASCQ MESSAGE_ID PRIORITY CATALOG-LINE: a 2Ah/ASCQ UA (real on 6.12, injected on
# 6.1) gives journal entries with that MESSAGE_ID, every one at PRIORITY, and journalctl -x shows
# the catalog entry's line.
ua_entry() {
	if [ -n "$(sdebug_error_file)" ]; then
		raise_ua 2a "$1"
	else
		uaectl inject --hctl "$HCTL" --sense "700006000000000a000000002a${1}00000000"
	fi
	wait_for 60 sh -c "journalctl -u uaeventd MESSAGE_ID=$2 -o json | grep -q ." || true
	journalctl -x -u uaeventd MESSAGE_ID="$2" --no-pager >/tmp/ua-entry.x
	got=$(journalctl -u uaeventd MESSAGE_ID="$2" -o json | jq -r .PRIORITY | sort -u | tr '\n' ' ')
	echo "MESSAGE_ID=$2: priorities '$got'; journalctl -x:" >"$SAW"
	cat /tmp/ua-entry.x >>"$SAW"
	[ "$got" = "$3 " ] && grep -qF "$4" /tmp/ua-entry.x
}
check "REGISTRATIONS PREEMPTED (2Ah/05h): an alert, the catalog says the host was fenced" \
	ua_entry 05 675cfdcee0da40a3a5223ca4fb589362 1 "This is how a cluster fences a node"
check "RESERVATIONS PREEMPTED (2Ah/03h): an alert, with its catalog text" \
	ua_entry 03 94de3d2e5ba140f5830d7258d13c0024 1 "took the LU's persistent reservation"
check "RESERVATIONS RELEASED (2Ah/04h): a warning, with its catalog text" \
	ua_entry 04 429547156c1d4364aece86b1e6deffb6 4 "host's registration is still there"
check "IMPLICIT ASYMMETRIC ACCESS STATE TRANSITION FAILED (2Ah/07h): an error, with its text" \
	ua_entry 07 83d8aa45e34d4e8a989d27c58ad53687 3 "and could not complete it"
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
