#!/bin/sh
# tap-plan: 21
# Sourced by run.sh.  The kernel's own SCSI target, LIO, as a second, independent target:
# one ramdisk LU exported through two tcm_loop ports, so that this host sees it on two
# paths (two SCSI hosts) with one WWID, and the kernel's ALUA handler attaches to both.
# Real target-side changes through configfs; each must reach the journal with its fields.
C=/sys/kernel/config/target
BS=$C/core/rd_mcp_1/lio0
# Ports and initiators of their own: reuse.sh, before this script, leaves its port
# (naa.50014050000a0001, with its nexus) in place.
PORT1=naa.50014050000c0001 PORT2=naa.50014050000c0002

check "uaeventd.service is active" wait_for 60 systemctl is-active --quiet uaeventd
lio_two_paths() {
	modprobe tcm_loop && modprobe scsi_dh_alua || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	# A unit serial of its own: LIO builds the LU's NAA designator (sysfs wwid) from it.
	mkdir -p "$BS" && echo rd_pages=2048 >"$BS/control" &&
		echo 5a1e0000-0000-4000-8000-000000000001 >"$BS/wwn/vpd_unit_serial" &&
		echo 1 >"$BS/enable" || return 1
	for p in $PORT1 $PORT2; do
		# The I_T nexus first: a LUN linked before it is probed and refused.
		mkdir -p "$C/loopback/$p/tpgt_1" &&
			echo "naa.50014050000d${p#naa.50014050000c}" >"$C/loopback/$p/tpgt_1/nexus" &&
			mkdir "$C/loopback/$p/tpgt_1/lun/lun_0" &&
			ln -s "$BS" "$C/loopback/$p/tpgt_1/lun/lun_0/lio0" || return 1
	done
	wait_for 60 lio_paths
}
# lio_paths: the LIO LU's paths (H:C:T:L), port 1's then port 2's, into $SAW (a path's
# page 83h names its target port); true once both have a disk and the ALUA handler.
lio_paths() {
	for p in $PORT1 $PORT2; do
		for d in /sys/class/scsi_device/*/device; do
			grep -qaF "$p," "$d/vpd_pg83" 2>/dev/null && basename "$(dirname "$d")"
		done | head -n 1
	done >"$SAW"
	for h in $(cat "$SAW"); do
		ls "/sys/class/scsi_device/$h/device/block" >/dev/null 2>&1 &&
			[ "$(cat "/sys/class/scsi_device/$h/device/dh_state")" = alua ] || return 1
	done
	[ "$(wc -l <"$SAW")" -eq 2 ]
}
check "LIO: one ramdisk LU through two tcm_loop ports, two paths with the ALUA handler" \
	lio_two_paths
H1=$(sed -n 1p "$SAW") H2=$(sed -n 2p "$SAW")
dev() { ls "/sys/class/scsi_device/$1/device/block"; }
WWID=$(cat "/sys/class/scsi_device/$H1/device/wwid")
tap_diag "port 1: $H1 $(dev "$H1"), port 2: $H2 $(dev "$H2"), wwid $WWID"
check "both paths show one WWID" \
	test -n "$WWID" -a "$WWID" = "$(cat "/sys/class/scsi_device/$H2/device/wwid")"
# touch HCTL: one TEST UNIT READY through the path's sg node, so that the target's pending
# UA comes back.  Not a read: the ALUA handler fails reads of a standby path before they
# reach the target; pass-through commands go, as multipathd's path checker's do.
touch_path() { sg_turs "/dev/$(ls "/sys/class/scsi_device/$1/device/scsi_generic")" 2>/dev/null; }
# entry CURSOR FIELD=VALUE... : uaeventd logged an entry with those fields since CURSOR.
entry() {
	c=$1
	shift
	journalctl --cursor "$c" _SYSTEMD_UNIT=uaeventd.service "$@" -o json >"$SAW"
	test -s "$SAW"
}

# ---- a port moved to another target port group: 3Fh/03h, and the path rescanned ----
cursor=$(journal_cursor)
mkdir "$BS/alua/grp2" && echo 2 >"$BS/alua/grp2/tg_pt_gp_id"
echo grp2 >"$C/loopback/$PORT2/tpgt_1/lun/lun_0/alua_tg_pt_gp"
touch_path "$H2"
check "port 2 moved to port group 2: INQUIRY DATA HAS CHANGED (3Fh/03h) from path $H2" \
	wait_for 30 entry "$cursor" UAEVENTS_EVENT=INQUIRY_DATA_HAS_CHANGED "UAEVENTS_HCTL=$H2"
check "and uaeventd rescanned that path" \
	wait_for 60 entry "$cursor" UAEVENTS_ACTION=rescan-device "UAEVENTS_HCTL=$H2"

# ---- group 2 goes standby: 2Ah/06h, then every path's new state ----
# alua_state STATE-OF-PATH-2: the entry after the UA names path 2 first with its new state
# and group, path 1 active/optimized in group 0; $SAW shows what was logged.
alua_state() {
	entry "$cursor" UAEVENTS_ACTION=alua-state "UAEVENTS_WWID=$WWID" || return 1
	tail -n 1 "$SAW" >/tmp/alua.json
	jq -r .MESSAGE /tmp/alua.json >/tmp/alua.msg
	jq -r '.UAEVENTS_ALUA_PATHS + " active=" + .UAEVENTS_ACTIVE_PATHS' "$SAW" >>"$SAW"
	grep -qF "path $(dev "$H2") ($H2) now $1, tpg 2; $(dev "$H1") ($H1) active/optimized, tpg 0" \
		/tmp/alua.msg
}
cursor=$(journal_cursor)
echo 2 >"$BS/alua/grp2/alua_access_state"
touch_path "$H2"
check "group 2 standby: ASYMMETRIC ACCESS STATE CHANGED (2Ah/06h) from path $H2" \
	wait_for 30 entry "$cursor" UAEVENTS_EVENT=ASYMMETRIC_ACCESS_STATE_CHANGED \
	"UAEVENTS_HCTL=$H2"
check "the journal says: path $H2 now standby, tpg 2; $H1 active/optimized, tpg 0" \
	wait_for 60 alua_state standby
tap_diag "$(cat /tmp/alua.msg)"
check "with one path active (UAEVENTS_ACTIVE_PATHS)" \
	sh -c "jq -r .UAEVENTS_ACTIVE_PATHS /tmp/alua.json | grep -qx 1 || cat /tmp/alua.json >$SAW"

cursor=$(journal_cursor)
echo 0 >"$BS/alua/grp2/alua_access_state"
touch_path "$H2"
check "group 2 active again: path $H2 now active/optimized, tpg 2" \
	wait_for 60 alua_state active/optimized
check "and no error of uaeventd's own" no_daemon_error "$cursor"

# ---- persistent reservations taken from the other path: alerts on the path that lost ----
# The ALUA changes left unit attentions pending, and port 2 may still be leaving the
# transitioning state (NOT READY): both drained first, so that each command below and the
# next touch see only what the reservation changes raise.
sg_of() { echo "/dev/$(ls "/sys/class/scsi_device/$1/device/scsi_generic")"; }
drain() { wait_for 20 touch_path "$1"; }
both_ready() { drain "$H1" && drain "$H2"; }
check "both paths ready: pending unit attentions drained (TEST UNIT READY succeeds)" both_ready
# pr PATH OUT-ARGS...: one PERSISTENT RESERVE OUT on PATH; what it did goes into $SAW.
pr() {
	p=$1
	shift
	out=$(sg_persist --out "$@" "$(sg_of "$p")" 2>&1)
	rc=$?
	echo "on $p, sg_persist --out $*: exit $rc $(echo "$out" | grep -v '^ ' | tr '\n' ' ')" >>"$SAW"
	return $rc
}
# LIO records the registrations (APTPL metadata) under its dbroot, as targetcli sets it up;
# without the folder a registration is made but answered NOT READY.
mkdir -p "$(cat "$C/dbroot")/pr"
sleep 3
cursor=$(journal_cursor)
since_pr=$cursor
preempt() {
	pr "$H1" --register --param-sark=0x1 && pr "$H2" --register --param-sark=0x2 &&
		pr "$H1" --reserve --param-rk=0x1 --prout-type=1 &&
		pr "$H2" --preempt --param-rk=0x2 --param-sark=0x1 --prout-type=1
}
check "path 2 preempts path 1's registration and reservation (sg_persist)" preempt
touch_path "$H1"
check "path 1 is told REGISTRATIONS PREEMPTED (2Ah/05h): an alert-priority entry" \
	wait_for 30 entry "$cursor" UAEVENTS_EVENT=REGISTRATIONS_PREEMPTED "UAEVENTS_HCTL=$H1" \
	PRIORITY=1
drain "$H1"
cursor=$(journal_cursor)
clear_all() {
	pr "$H1" --register --param-sark=0x3 && pr "$H2" --clear --param-rk=0x2
}
check "path 1 registers again; path 2 clears every registration (sg_persist)" clear_all
touch_path "$H1"
check "path 1 is told RESERVATIONS PREEMPTED (2Ah/03h): an alert-priority entry" \
	wait_for 30 entry "$cursor" UAEVENTS_EVENT=RESERVATIONS_PREEMPTED "UAEVENTS_HCTL=$H1" \
	PRIORITY=1

# ---- a LUN mapped to both ports and unmapped: 3Fh/0Eh on the LU already there ----
# tcm_loop adds a LUN's device to the host itself when it is linked to a port, and removes
# it when unlinked: uaeventd's scan finds it there, and its removal is another tool's.
BS1=$C/core/rd_mcp_1/lio1
drain "$H1"
drain "$H2"
mkdir -p "$BS1" && echo rd_pages=2048 >"$BS1/control" &&
	echo 5a1e0000-0000-4000-8000-000000000002 >"$BS1/wwn/vpd_unit_serial" &&
	echo 1 >"$BS1/enable"
# luns_changed CURSOR: both paths of LUN 0 reported the change, and uaeventd answered each
# target with one scan-target entry.
luns_changed() {
	for h in "$H1" "$H2"; do
		entry "$1" UAEVENTS_EVENT=REPORTED_LUNS_DATA_HAS_CHANGED "UAEVENTS_HCTL=$h" &&
			entry "$1" UAEVENTS_ACTION=scan-target "UAEVENTS_TARGET=${h%:*}" || return 1
	done
}
cursor=$(journal_cursor)
for p in $PORT1 $PORT2; do
	mkdir "$C/loopback/$p/tpgt_1/lun/lun_1" && ln -s "$BS1" "$C/loopback/$p/tpgt_1/lun/lun_1/lio1"
done
check "LUN 1 mapped to both ports: tcm_loop adds ${H1%:*}:1 and ${H2%:*}:1" \
	wait_for 30 test -e "/sys/class/scsi_device/${H1%:*}:1" -a -e "/sys/class/scsi_device/${H2%:*}:1"
touch_path "$H1"
touch_path "$H2"
check "REPORTED LUNS DATA HAS CHANGED (3Fh/0Eh) from both paths of LUN 0, each target scanned" \
	wait_for 60 luns_changed "$cursor"
check "each target scanned once" sh -c "[ \$(journalctl --cursor '$cursor' \
	_SYSTEMD_UNIT=uaeventd.service UAEVENTS_ACTION=scan-target -o cat | wc -l) -eq 2 ]"
drain "$H1"
drain "$H2"
sleep 3
cursor=$(journal_cursor)
for p in $PORT1 $PORT2; do
	rm "$C/loopback/$p/tpgt_1/lun/lun_1/lio1" && rmdir "$C/loopback/$p/tpgt_1/lun/lun_1"
done
touch_path "$H1"
touch_path "$H2"
check "LUN 1 unmapped: 3Fh/0Eh from both paths again, each target scanned" \
	wait_for 60 luns_changed "$cursor"
check "uaeventd logs LUN 1's removal as another tool's (tcm_loop's)" \
	wait_for 30 entry "$cursor" UAEVENTS_ACTION=removed-elsewhere "UAEVENTS_HCTL=${H1%:*}:1"
check "and no error of uaeventd's own through the reservations and LUN changes" \
	no_daemon_error "$since_pr"
