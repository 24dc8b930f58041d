#!/bin/sh
# tap-plan: 13
# Sourced by run.sh.
# In Debian 12 with systemd as PID 1 and the packages installed: uaeventd from its own
# unit, its hardening, journald and the package's catalog.

tap_diag "kernel $(uname -r), $(systemctl --version | head -n 1)"
check "uaevents.ko was loaded at boot (modules-load.d of the uaevents-dkms package)" \
	test -d /sys/module/uaevents
check "uaeventd.service is active, started by systemd from the installed unit" \
	wait_for 60 systemctl is-active --quiet uaeventd
tap_diag "$(systemctl status --no-pager uaeventd 2>&1 | head -n 12 | tr '\n' '|')"

# QEMU's default machine has an ATAPI CD-ROM (sr0) that the kernel polls.  uaeventd
# reports no timeout for it that the kernel did not count: on a host loaded enough for
# sr's 30 s to run out under TCG, scsi_timeout() runs and the midlayer counts it in the
# device's iotmo_cnt; a report beyond that count would be one uaeventd made up.  Checked
# once uaeventd has logged every event the module had raised (a positive sync: its state
# file is at the module's last sequence number), so a slow daemon cannot make it pass.
cdroms() {
	for d in /sys/class/scsi_device/*; do
		[ "$(cat "$d/device/type" 2>/dev/null)" = 5 ] && basename "$d"
	done
}
caught_up() {
	st=$(uaectl status --json) || return 1
	last=$(echo "$st" | jq .last_seq) inst=$(echo "$st" | jq -r .instance)
	[ "$last" -eq 0 ] && return 0
	read -r i s <"$STATE" && [ "$i" = "$inst" ] && [ "$s" -ge "$last" ]
}
no_false_boot_timeout() {
	cds=$(cdroms)
	{
		echo "QEMU's CD-ROM: ${cds:-none found}"
		for h in $cds; do
			echo "$h: the kernel counted iotmo_cnt $(cat "/sys/class/scsi_device/$h/device/iotmo_cnt"), ioerr_cnt $(cat "/sys/class/scsi_device/$h/device/ioerr_cnt")"
		done
	} >"$SAW"
	[ -n "$cds" ] || return 1
	if ! wait_for 60 caught_up; then
		echo "uaeventd did not catch up with the module: $(uaectl status --json | jq -c '{instance, last_seq}'), state file: $(cat "$STATE" 2>&1)" >>"$SAW"
		return 1
	fi
	# Before scsi_debug, the CD-ROM is the only SCSI device (the root disk is virtio-blk): every
	# timeout entry so far is theirs, and so is every timeout the kernel counted.  The journal
	# first, the kernel's count second: a timeout between the two only adds to the count.
	journalctl -b -o json _SYSTEMD_UNIT=uaeventd.service UAEVENTS_KIND=timeout |
		jq -r '"\(.UAEVENTS_HCTL) \(.MESSAGE)"' >/tmp/boot-timeouts
	counted=0
	for t in /sys/class/scsi_device/*/device/iotmo_cnt; do
		counted=$((counted + $(($(cat "$t")))))
	done
	n=$(grep -c . /tmp/boot-timeouts)
	cat /tmp/boot-timeouts >>"$SAW"
	echo "uaeventd reported $n timeout(s) for it this boot, the kernel counted $counted" >>"$SAW"
	tap_diag "CD-ROM at boot: uaeventd reported $n timeout(s), the kernel counted $counted"
	[ "$n" -le "$counted" ]
}
check "no timeout reported at boot for QEMU's CD-ROM that the kernel did not count (uaeventd caught up first)" \
	no_false_boot_timeout

check "scsi_debug with one disk" sdebug_one_disk
tap_diag "disk $DISK at $HCTL"

# Real UAs on 6.12 (scsi_debug's error injection, required there); on 6.1 injected ones,
# which uaeventd logs like any other (it does not act on them).  One result says which.
real=no
real_ua "the soft threshold and the 2Ah UAs below" && real=yes
if [ $real = yes ]; then
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
# A write the full pool refused, sent through SG_IO (a database's or a cluster's own I/O):
# the same alert as through the block layer, not SG_IO's generic notice.
sgio_cursor=$(journal_cursor)
uaectl inject --hctl "$HCTL" --sense 700007000000000a00000000270700000000 --kind sgio
space_alert_via_sgio() {
	journalctl --cursor "$sgio_cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_KIND=sgio >"$SAW"
	jq -e -s 'any(.[]; .MESSAGE_ID == "97ab5a4c3f8b4deb81576f77c61a4dbf" and
		.PRIORITY == "2")' "$SAW" >/dev/null
}
check "space allocation failed through SG_IO: the pool-full MESSAGE_ID, at crit" \
	wait_for 30 space_alert_via_sgio
# The UAs that need an administrator: a cluster node fenced from the LU, an ALUA transition
# the array could not make.  Each has its own MESSAGE_ID, priority and catalog text.
# ua_entry ASCQ MESSAGE_ID PRIORITY CATALOG-LINE: a 2Ah/ASCQ UA (real on 6.12, injected on
# 6.1) gives journal entries with that MESSAGE_ID, every one at PRIORITY, and journalctl -x shows
# the catalog entry's line.
ua_entry() {
	if [ $real = yes ]; then
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
