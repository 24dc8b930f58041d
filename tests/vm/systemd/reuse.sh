#!/bin/sh
# tap-plan: 16
# Sourced by run.sh.  A LUN number that the target gives to another volume is caught: the
# kernel's own target, LIO, through its loopback fabric tcm_loop, maps LUNs 1 and 2 of this
# host's initiator to other backstores at the same numbers (an ACL's mapped LUNs, as an
# array's host group would; tcm_loop itself removes the host's device when a LUN of its
# target port goes, which no array does).  Under stale_luns = remove, the unused LU is
# removed and its number scanned again, so the host now sees the new volume by its own
# WWID; the one in use (a device-mapper table on it) is kept, and the journal says why.
# LUN 3, the path of a multipath map (Debian's multipathd), is reused too: it is taken out
# of the map, which then has no path left and goes, and is removed.
C=/sys/kernel/config/target
W=naa.50014050000a0001	# the target port
I=naa.50014050000b0001	# this host's initiator port
TPG=$C/loopback/$W/tpgt_1
ACL=$TPG/acls/$I

check "uaeventd.service is active" wait_for 60 systemctl is-active --quiet uaeventd
reload_with 's|^#stale_luns = log|stale_luns = remove|' "stale_luns = remove is in force"

# backstore NAME: a 16 MiB ramdisk with its own unit serial (so its own NAA WWID).
backstore() {
	mkdir -p "$C/core/rd_mcp_0" && mkdir "$C/core/rd_mcp_0/$1" &&
		echo rd_pages=4096 >"$C/core/rd_mcp_0/$1/control" &&
		echo 1 >"$C/core/rd_mcp_0/$1/enable" &&
		echo "uae-$1" >"$C/core/rd_mcp_0/$1/wwn/vpd_unit_serial"
}
# map MAPPED TPG-LUN: the initiator's LUN MAPPED is the target port's LUN TPG-LUN.
map() {
	mkdir "$ACL/lun_$1" && ln -s "$TPG/lun/lun_$2" "$ACL/lun_$1/to"
}
unmap() {
	rm "$ACL/lun_$1/to" && rmdir "$ACL/lun_$1"
}
lio_setup() {
	modprobe tcm_loop || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mkdir -p "$TPG" || return 1
	for b in a b c d e f g; do backstore $b || return 1; done
	# tcm_loop adds the host's device of a LUN when the LUN is linked, and no other way
	# (its host takes no scan of LUNs above 0): the nexus first, its ACL made by LIO.
	echo "$I" >"$TPG/nexus" || { echo "nexus: $?" >"$SAW"; return 1; }
	link 0 a && link 1 b && link 2 d && link 3 f || return 1
	# The ACL made explicit, with the same LUNs; LUNs linked later are not this host's.
	mkdir "$ACL" && map 0 0 && map 1 1 && map 2 2 && map 3 3 ||
		{ echo "ACL: $?" >"$SAW"; return 1; }
	link 4 c && link 5 e && link 6 g || return 1
	H=$(grep -l '^tcm_loopback$' /sys/class/scsi_host/host*/proc_name |
		sed 's|.*/host\([0-9]*\)/.*|\1|')
	[ -n "$H" ]
}
link() {
	mkdir "$TPG/lun/lun_$1" && ln -s "$C/core/rd_mcp_0/$2" "$TPG/lun/lun_$1/to" ||
		{ echo "link $1 $2: $?" >"$SAW"; return 1; }
}
check "LIO: seven ramdisks behind one tcm_loop port, LUNs 0 to 3 mapped for this host" lio_setup
T=$H:0:1
lu_wwid() { cat "/sys/class/scsi_device/$T:$1/device/wwid" 2>/dev/null; }
lu_disk() { ls "/sys/class/scsi_device/$T:$1/device/block/" 2>/dev/null; }
lus_present() {
	for n in "$@"; do test -e "/sys/class/scsi_device/$T:$n/device/block" || return 1; done
}
check "the host sees LUNs 0 to 3 of target $T" wait_for 60 lus_present 0 1 2 3
udevadm settle
# Mapping the LUNs raised 3Fh/0Eh on LUN 0: let uaeventd's scan of that pass first.
touch_disk "$(lu_disk 0)"
sleep 5
old1=$(lu_wwid 1) old2=$(lu_wwid 2) disk1=$(lu_disk 1) disk2=$(lu_disk 2)
tap_diag "LUN 1 $disk1 $old1, LUN 2 $disk2 $old2"
check "LUN 2 is in use: a device-mapper table over it" \
	dmsetup create uae-reuse --table "0 8192 linear /dev/$disk2 0"
# Debian's find_multipaths (strict): the administrator adds the LU, then has the map made.
disk3=$(lu_disk 3)
multipath -a "/dev/$disk3" >/dev/null
multipath -r >/dev/null 2>&1
map_of() {
	for h in /sys/block/"$1"/holders/*; do
		case "$(cat "$h/dm/uuid" 2>/dev/null)" in mpath-*) cat "$h/dm/name" ;; esac
	done 2>/dev/null >"$SAW"
	test -s "$SAW"
}
check "LUN 3 ($disk3) is the path of a multipath map" wait_for 30 map_of "$disk3"
MAP=$(cat "$SAW")
MAP_WWID=$(sed -n 's/^mpath-//p' /sys/block/"$disk3"/holders/*/dm/uuid)
tap_diag "map $MAP: $(multipath -ll "$MAP" 2>&1 | tr '\n' '|')"

cursor=$(journal_cursor)
# The array gives LUN numbers 1, 2 and 3 to other volumes (c, e, g), and says so on LUN 0.
unmap 1 && map 1 4 && unmap 2 && map 2 5 && unmap 3 && map 3 6
touch_disk "$(lu_disk 0)"
# reused_entry LUN JQ-CONDITION: uaeventd's lun-reused entry for LUN since the cursor.
reused_entry() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=lun-reused "UAEVENTS_HCTL=$T:$1" >"$SAW"
	jq -n -e "any(inputs; $2)" "$SAW" >/dev/null
}
lu1_gone() {
	ls -d "/sys/class/scsi_device/$T:1" "/sys/class/scsi_device/$T:1/device/block/"* \
		>"$SAW" 2>/dev/null
	! test -s "$SAW"
}
check "LUN 1, unused, is removed" wait_for 60 lu1_gone
check "the journal says LUN 1 was reused, with old and new WWID, at warning priority" \
	wait_for 30 reused_entry 1 ".UAEVENTS_REUSED == \"removed\" and
		.UAEVENTS_OLD_WWID == \"$old1\" and (.UAEVENTS_NEW_WWID | startswith(\"naa.\")) and
		.UAEVENTS_NEW_WWID != \"$old1\" and .PRIORITY == \"4\""
check "LUN 2, under device mapper, is kept, and the journal says why" \
	wait_for 30 reused_entry 2 '.UAEVENTS_REUSED == "kept" and
		(.UAEVENTS_REASON | test("held by dm-")) and .PRIORITY == "4"'
out_of_map() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=path-out-of-map "UAEVENTS_HCTL=$T:3" >"$SAW"
	jq -n -e "any(inputs; .UAEVENTS_MAP == \"$MAP\" and .UAEVENTS_RESULT == \"removed\"
		and .PRIORITY == \"4\")" "$SAW" >/dev/null
}
check "LUN 3 is taken out of multipath map $MAP, and the journal says so" wait_for 60 out_of_map
no_path() {
	{ dmsetup deps -o devname "$MAP" 2>&1; ls /sys/block/"$disk3"/holders/ 2>/dev/null; } >"$SAW"
	! grep -q "$disk3\|dm-" "$SAW"
}
check "no map keeps $disk3" wait_for 30 no_path
check "LUN 3 is then removed, as unused" \
	wait_for 30 reused_entry 3 '.UAEVENTS_REUSED == "removed"'
kept_disk() {
	echo "LUN 2: '$(lu_disk 2)', was '$disk2'" >"$SAW"
	[ -n "$disk2" ] && [ "$(lu_disk 2)" = "$disk2" ]
}
check "LUN 2 keeps its device" kept_disk
# Its number is scanned again, which tcm_loop's host refuses (max_lun 0): said, as an error.
check "and no error of uaeventd's own but that" no_daemon_error "$cursor" \
	'could not be added (Invalid argument)$\|^scan .* failed: exit status 1$'
refused_scan() {
	journalctl --cursor "$cursor" -o cat _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=scan-target "UAEVENTS_TARGET=$T" >"$SAW"
	grep -q 'added none; some could not be added (Invalid argument)' "$SAW"
}
check "the scan's entry names the refusal" refused_scan

# The LUNs go, and with them the host's devices.  The empty port stays: tcm_loop counts a
# LUN whose host device was gone when it was unlinked as still linked, and so refuses to
# drop the nexus (6.1 and 6.12).
lio_teardown() {
	dmsetup remove uae-reuse || return 1
	multipath -f "$MAP" >/dev/null 2>&1
	[ -z "$MAP_WWID" ] || sed -i "\|/$MAP_WWID/|d" /etc/multipath/wwids
	for m in 0 1 2 3; do unmap $m || return 1; done
	for n in 0 1 2 3 4 5 6; do
		rm "$TPG/lun/lun_$n/to" && rmdir "$TPG/lun/lun_$n" || return 1
	done
	ls -d /sys/class/scsi_device/"$T":* >"$SAW" 2>/dev/null
	! test -s "$SAW"
}
check "LIO's LUNs taken down, no device of them left" lio_teardown
