#!/bin/sh
# tap-plan: 12
# Sourced by run.sh.  A first LUN on an empty target is scanned.  The kernel's own target,
# LIO, exports an iSCSI target on 127.0.0.1 with no LUN, and Debian's open-iscsi logs in to
# it: a session, no device.  A ramdisk is then mapped as its LUN 0.  No unit attention can
# tell this host (it has no LU of that target to get one with): without the reconciler
# the LUN stays unseen, as open-iscsi users report; with [rescan] reconcile_s, uaeventd
# scans each allowed target of an iSCSI session that has no LU here, and the LU appears.
C=/sys/kernel/config/target
IQN=iqn.2026-12.org.uaevents:empty
TPG=$C/iscsi/$IQN/tpgt_1
BS=$C/core/rd_mcp_1/empty0

check "uaeventd.service is active" wait_for 60 systemctl is-active --quiet uaeventd
iscsi_target() {
	modprobe iscsi_target_mod || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mkdir -p "$TPG/np/127.0.0.1:3260" || return 1
	# Demo mode: any initiator, no CHAP, LUNs writable (a lab target, on loopback only).
	echo 0 >"$TPG/attrib/authentication" && echo 1 >"$TPG/attrib/generate_node_acls" &&
		echo 0 >"$TPG/attrib/demo_mode_write_protect" &&
		echo 1 >"$TPG/attrib/cache_dynamic_acls" && echo 1 >"$TPG/enable"
}
check "LIO: an iSCSI target with no LUN on 127.0.0.1:3260" iscsi_target
login() {
	iscsiadm -m discovery -t sendtargets -p 127.0.0.1 >"$SAW" 2>&1 &&
		iscsiadm -m node -T "$IQN" -p 127.0.0.1 --login >>"$SAW" 2>&1
}
check "open-iscsi logs in to it" login
session_host() {
	for s in /sys/class/iscsi_session/session*; do
		[ "$(cat "$s/targetname" 2>/dev/null)" = "$IQN" ] || continue
		readlink -f "$s/device" | sed -n 's|.*/host\([0-9]*\)/session[0-9]*$|\1|p'
	done >"$SAW"
	test -s "$SAW"
}
check "the session has a SCSI host" wait_for 30 session_host
H=$(cat "$SAW")
S=$(ls -d /sys/class/iscsi_session/session* | head -n 1)
tap_diag "host $H, $S: $(for a in state target_id; do printf '%s=%s ' $a "$(cat "$S/$a" 2>&1)"; done)"
udevadm settle
lus() { ls -d /sys/class/scsi_device/"$H":* >"$SAW" 2>/dev/null; test -s "$SAW"; }
no_lus() { ! lus; }
check "and no LU: the target is empty" no_lus

cursor=$(journal_cursor)
mkdir -p "$BS" && echo rd_pages=4096 >"$BS/control" && echo 1 >"$BS/enable"
mkdir "$TPG/lun/lun_0" && ln -s "$BS" "$TPG/lun/lun_0/to"
# Not after a fixed wait: the LUN is unseen once udev is done with whatever the mapping
# caused, and the reconciler's entry below is the positive proof that it stayed unseen
# until then: its round found the target with no LU on this host.
udevadm settle
check "without the reconciler, the LUN mapped to the empty target stays unseen" no_lus
reload_with 's|^#reconcile_s = 0$|reconcile_s = 5|' "reconcile_s = 5 is in force"
check "with it, the empty target is scanned and the LU appears" wait_for 60 lus
# A scan of the target since the mapping is the reconciler's, of a target that still had
# no LU here, and it added LUN 0: nothing else (no unit attention, no other tool) had.
probe_entry() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=scan-target "UAEVENTS_TARGET=$H:0:0" >"$SAW"
	jq -s -e 'any(.[]; .UAEVENTS_ADDED == "0" and
		(.MESSAGE | test("had no LU on this host")))' "$SAW" >/dev/null
}
check "the journal says the reconciler scanned the empty target, which had no LU here until then, and added LUN 0" \
	wait_for 30 probe_entry
check "and no error of uaeventd's own" no_daemon_error "$cursor"

# Out again: the session first (its LU goes with it), then the target.
iscsi_teardown() {
	iscsiadm -m node -T "$IQN" -p 127.0.0.1 --logout >"$SAW" 2>&1 &&
		iscsiadm -m node -o delete -T "$IQN" >>"$SAW" 2>&1 || return 1
	rm "$TPG/lun/lun_0/to" && rmdir "$TPG/lun/lun_0" "$TPG/np/127.0.0.1:3260" "$TPG" \
		"$C/iscsi/$IQN" "$BS" || return 1
	! ls -d /sys/class/scsi_device/"$H":* >>"$SAW" 2>&1
}
check "logged out, the target taken down, no device left" iscsi_teardown
reload_with 's|^reconcile_s = 5$|#reconcile_s = 0|' "the reconciler is off again"
