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
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
