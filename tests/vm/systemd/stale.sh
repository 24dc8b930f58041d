#!/bin/sh
# tap-plan: 41
# Sourced by run.sh.
# stale_luns = remove, from the installed unit: a LUN the target no longer reports is
# removed only when nothing uses it, in any way an administrator's host may use it (swap,
# a mount in another namespace, btrfs, device mapper, loop, a process of another user, its
# sg device, an nvmet namespace, a LIO fileio backstore, a process whose main thread has
# exited), and the journal says why each one stays.  One open for a moment only (a udev
# worker's probe, multipathd's checker) is looked at again, and removed once closed.  An
# empty REPORT LUNS answer, which arrays give while they reconfigure, removes nothing.

check "uaeventd.service is active" wait_for 60 systemctl is-active --quiet uaeventd
reload_with 's|^#stale_luns = log|stale_luns = remove|' "stale_luns = remove is in force"

check "no scsi_debug of an earlier test is left" wait_for 30 sdebug_gone
modprobe scsi_debug dev_size_mb=256 max_luns=3 num_tgts=1
DISK=$(wait_for 30 scsi_debug_disk)
HCTL=$(basename "$(readlink "/sys/block/$DISK/device")")
T=${HCTL%:*}
# lu_disk N: the block device of LUN N of the target ("sdc").
lu_disk() { ls "/sys/class/scsi_device/$T:$1/device/block/" 2>/dev/null; }
lus_present() {
	for n in "$@"; do test -e "/sys/class/scsi_device/$T:$n" || return 1; done
}
check "scsi_debug target $T with LUNs 0, 1 and 2" wait_for 30 lus_present 0 1 2
udevadm settle

# stale_entry LUN JQ-CONDITION: uaeventd's stale-lun entry for LUN, since the cursor.
stale_entry() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=stale-lun "UAEVENTS_HCTL=$T:$1" >"$SAW"
	jq -n -e "any(inputs; $2)" "$SAW" >/dev/null
}

# ---- an empty REPORT LUNS answer: nothing is stale ----
cursor=$(journal_cursor)
echo 1 >"$SDEBUG/no_lun_0"
echo 1 >"$SDEBUG/max_luns"	# lists max_luns - no_lun_0 = 0 LUNs
touch_disk "$DISK"
untrusted() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=stale-check >"$SAW"
	jq -n -e 'any(inputs; .UAEVENTS_REASON | test("no LUN at all"))' "$SAW" >/dev/null
}
check "an empty REPORT LUNS answer is not trusted, and the journal says so" wait_for 60 untrusted
check "no LUN was treated as stale" \
	sh -c "! journalctl --cursor '$cursor' _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=stale-lun -o cat | grep ."
check "all three LUNs are still there" lus_present 0 1 2
echo 0 >"$SDEBUG/no_lun_0"

# ---- thirteen LUNs, ten of them in use, one for a moment ----
sleep 3	# past the debounce window of the last scan
echo 13 >"$SDEBUG/max_luns"
touch_disk "$DISK"
check "uaeventd scanned the target: LUNs 0 to 12" \
	wait_for 90 lus_present 0 1 2 3 4 5 6 7 8 9 10 11 12
udevadm settle
for n in 1 2 3 4 5 6 7 8 9 10 11 12; do eval "D$n=$(lu_disk $n)"; done
tap_diag "LUN 1..12: $D1 $D2 $D3 $D4 $D5 $D6 $D7 $D8 $D9 $D10 $D11 $D12"

# The LUs share scsi_debug's one store: one partition table, a partition per use.
printf 'size=16M\nsize=16M\nsize=160M\n' | sfdisk -q "/dev/$D1" >/dev/null 2>&1
for n in 1 2 3; do eval "blockdev --rereadpt /dev/\$D$n"; done
udevadm settle
mkfs.ext4 -q -F "/dev/${D1}1" >/dev/null 2>&1
mkswap "/dev/${D2}2" >/dev/null 2>&1
mkfs.btrfs -q -f "/dev/${D3}3" >/dev/null 2>&1
udevadm settle
mkdir -p /mnt/ns /mnt/btrfs
# LUN 1: mounted only inside another mount namespace, as a container's volume is.
unshare -m --propagation private sh -c "mount '/dev/${D1}1' /mnt/ns && exec sleep 900" &
ns_pid=$!
# LUN 2: active swap.  LUN 3: a mounted btrfs (mountinfo shows 0:N, not the disk).
swapon "/dev/${D2}2"
# On disk before the LUNs go stale: writeback after it would fail (the LU no longer
# answers), abort btrfs' transaction and take the file with it, whatever uaeventd does.
mount -t btrfs "/dev/${D3}3" /mnt/btrfs && echo data >/mnt/btrfs/file && sync -f /mnt/btrfs/file
# LUN 4: under device mapper.  LUN 5: a loop device's backing file.
dmsetup create uae-stale --table "0 2048 linear /dev/$D4 0"
loopdev=$(losetup -r -f --show "/dev/$D5")
# LUN 6: open in a process of another user.  LUN 7: its sg device open.
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 900 3<"/dev/$D6" &
nobody_pid=$!
SG7=$(ls "/sys/class/scsi_device/$T:7/device/scsi_generic/")
sleep 900 3<>"/dev/$SG7" &
sg_pid=$!
# LUN 8: unused.  LUN 9: open until uaeventd has looked at it once, as a probe is.
sleep 900 3<"/dev/$D9" &
brief_pid=$!
# Kernel users that open a device without claiming it (the O_EXCL hold succeeds):
# LUN 10: an nvmet namespace's device (its block backend).  LUN 11: a LIO fileio
# backstore's file, made through configfs alone, as a script may (no udev_path).
modprobe nvmet
modprobe target_core_file
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
NV=/sys/kernel/config/nvmet/subsystems/uae-stale-test
FIO=/sys/kernel/config/target/core/fileio_9/uae_stale
mkdir -p "$NV/namespaces/1" && echo "/dev/$D10" >"$NV/namespaces/1/device_path" &&
	echo 1 >"$NV/namespaces/1/enable"
mkdir -p "$FIO" && echo "fd_dev_name=/dev/$D11" >"$FIO/control" && echo 1 >"$FIO/enable"
# LUN 12: open in a process whose main thread has exited (SYS_exit, that thread alone):
# its other thread holds the file, and /proc/PID/fd lists nothing.
python3 -c 'import ctypes, os, sys, threading, time
os.open(sys.argv[1], os.O_RDONLY)
threading.Thread(target=time.sleep, args=(900,)).start()
ctypes.CDLL(None).syscall(60, 0)' "/dev/$D12" &
thr_pid=$!
kernel_and_thread_users() {
	{
		echo "nvmet: $(cat "$NV/namespaces/1/device_path" "$NV/namespaces/1/enable" 2>&1)"
		echo "LIO: $(cat "$FIO/info" "$FIO/enable" 2>&1)"
		echo "process $thr_pid fd: '$(ls "/proc/$thr_pid/fd" 2>&1)'; its threads':"
		ls -l /proc/"$thr_pid"/task/*/fd/ 2>&1
	} >"$SAW"
	[ "$(cat "$NV/namespaces/1/enable")" = 1 ] && [ "$(cat "$FIO/enable")" = 1 ] &&
		grep -q "File: /dev/$D11 " "$FIO/info" &&
		[ -z "$(ls "/proc/$thr_pid/fd")" ] &&
		thread_holds "$thr_pid" "$D12"
}
thread_holds() {	# PID DEV: a thread of process PID has /dev/DEV open
	for f in /proc/"$1"/task/*/fd/*; do
		[ "$(readlink "$f")" = "/dev/$2" ] && return 0
	done
	return 1
}
check "LUNs 10 to 12 in use: nvmet, LIO fileio, a thread of process $thr_pid (none in /proc/$thr_pid/fd)" \
	wait_for 30 kernel_and_thread_users
# holds PID DEV: process PID has /dev/DEV open as its descriptor 3.
holds() { [ "$(readlink "/proc/$1/fd/3" 2>/dev/null)" = "/dev/$2" ]; }
# in_use: every use is in place, the background holders' too (not after a fixed wait: the
# namespace's mount is made, and the two files are opened, once those processes run).
in_use() {
	{
		echo "swap: $(grep "^/dev/${D2}2 " /proc/swaps)"
		echo "btrfs: $(mountpoint /mnt/btrfs 2>&1)"
		echo "dm: $(dmsetup info -c --noheadings uae-stale 2>&1)"
		echo "loop: '$loopdev'"
		echo "namespace of $ns_pid: $(nsenter -t "$ns_pid" -m mountpoint /mnt/ns 2>&1)"
		echo "process $nobody_pid fd 3: $(readlink "/proc/$nobody_pid/fd/3" 2>&1)"
		echo "process $sg_pid fd 3: $(readlink "/proc/$sg_pid/fd/3" 2>&1)"
	} >"$SAW"
	grep -q "^/dev/${D2}2 " /proc/swaps && mountpoint -q /mnt/btrfs &&
		dmsetup info uae-stale >/dev/null && [ -n "$loopdev" ] &&
		nsenter -t "$ns_pid" -m mountpoint -q /mnt/ns &&
		holds "$nobody_pid" "$D6" && holds "$sg_pid" "$SG7"
}
check "LUNs 1 to 7 in use: namespace mount, swap, btrfs, dm, loop ($loopdev), open files" \
	wait_for 30 in_use
check "the namespace's mount is not in this namespace" sh -c "! mountpoint -q /mnt/ns"
check "LUN 9 open in process $brief_pid" wait_for 30 holds "$brief_pid" "$D9"
udevadm settle

cursor=$(journal_cursor)
sleep 3
echo 1 >"$SDEBUG/max_luns"
# LUN 0's next command reports the change; a direct read, not touch_disk's drop_caches,
# so that the btrfs file stays in the page cache to be read back below.
dd if="/dev/$DISK" of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
check "the unused LUN 8 is removed" wait_for 90 stale_entry 8 '.UAEVENTS_STALE == "removed"'
check "and gone from sysfs" wait_for 10 sh -c "! test -e /sys/class/scsi_device/$T:8"
# stale_wait LUN [PID]: uaeventd said it looks at LUN again, open in process PID
# ($brief_pid), since the cursor.
stale_wait() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=stale-wait "UAEVENTS_HCTL=$T:$1" >"$SAW"
	jq -n -e "any(inputs; .UAEVENTS_REASON | test(\"open in process ${2:-$brief_pid} \"))" \
		"$SAW" >/dev/null
}
check "LUN 9, open in a process for now, is not removed yet and looked at again" \
	wait_for 60 stale_wait 9
kill "$brief_pid"
check "closed, it is removed" wait_for 60 stale_entry 9 '.UAEVENTS_STALE == "removed"'
for n in 1 2 3 4 5 6 7 10 11 12; do
	case $n in
	1) what="mounted in another mount namespace"; reason='claimed by the kernel' ;;
	2) what="active swap"; reason="an active swap area .${D2}2" ;;
	3) what="a mounted btrfs"; reason='claimed by the kernel' ;;
	4) what="under device mapper"; reason='held by dm-' ;;
	5) what="backing $loopdev"; reason="backing file of ${loopdev#/dev/}" ;;
	6) what="open in a process of uid 65534"; reason="open in process $nobody_pid " ;;
	7) what="its sg device ($SG7) open"; reason="open .$SG7" ;;
	10) what="an nvmet namespace's device"; reason="nvmet namespace uae-stale-test/namespaces/1" ;;
	11) what="a LIO fileio backstore's file"; reason="LIO backstore fileio_9/uae_stale" ;;
	12) what="open in a thread of process $thr_pid"; reason="open in process $thr_pid " ;;
	esac
	check "LUN $n ($what) is kept, and the journal says why" \
		wait_for 30 stale_entry $n ".UAEVENTS_STALE == \"kept\" and
			(.UAEVENTS_REASON | test(\"$reason\"))"
done
# Each entry also says what the LU holds up (issue 30), read before it was held.
for n in 1 2 3 4 5; do
	case $n in
	1) what="a filesystem mounted only in another namespace"; has='.UAEVENTS_STACK_OTHER_NS == "1"' ;;
	2) what="swap on ${D2}2"; has="[.UAEVENTS_SWAP] | flatten | index(\"${D2}2\")" ;;
	3) what="/mnt/btrfs, a btrfs mount (0:N) matched by its device"; has='[.UAEVENTS_MOUNT] | flatten | index("/mnt/btrfs")' ;;
	4) what="the device-mapper device uae-stale"; has='[.UAEVENTS_STACK_CHAIN] | flatten | any(startswith("uae-stale (dm) on "))' ;;
	5) what="the loop device ${loopdev#/dev/}"; has="[.UAEVENTS_LOOP] | flatten | index(\"${loopdev#/dev/}\")" ;;
	esac
	check "LUN $n's entry says what it holds up: $what" \
		stale_entry $n ".UAEVENTS_STALE == \"kept\" and ($has) != null and ($has) != false"
done
check "LUNs 1 to 7 and 10 to 12 are all still there" lus_present 1 2 3 4 5 6 7 10 11 12
check "and still in use" in_use
check "the btrfs still reads back" \
	sh -c "grep -q data /mnt/btrfs/file || { dmesg | tail -n 25 >'$SAW'; false; }"
check "uaeventd wrote no error" \
	no_daemon_error "$cursor"
# Their users gone, LUNs 10 to 12 are stale and unused: the next scan below removes them.
kill -KILL "$thr_pid"
echo 0 >"$NV/namespaces/1/enable"
rmdir "$NV/namespaces/1" "$NV" "$FIO" "${FIO%/*}"

# ---- a stop while a stale LUN waits to be looked at again: at once ----
# The stale check's child sleeps between its looks at a LUN open for now (1, 2, 4 and 8 s
# after it says so).  A stop's SIGTERM to the unit's processes ends it at once: it no
# longer keeps the daemon's blocked signals, for which systemd waited until the child was
# done (about 13 s here).
sleep 3	# past the debounce window of the last scan
echo 10 >"$SDEBUG/max_luns"
touch_disk "$DISK"
check "LUNs 8 and 9 are back after a scan" wait_for 90 lus_present 8 9
udevadm settle
D8=$(lu_disk 8)
sleep 900 3<"/dev/$D8" &
long_pid=$!
check "LUN 8 open in process $long_pid" wait_for 30 holds "$long_pid" "$D8"
cursor=$(journal_cursor)
sleep 3
echo 1 >"$SDEBUG/max_luns"
dd if="/dev/$DISK" of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
check "LUN 8, open, is to be looked at again" wait_for 60 stale_wait 8 "$long_pid"
stop_at_once() {
	t0=$(date +%s%N)
	systemctl stop uaeventd
	ms=$((($(date +%s%N) - t0) / 1000000))
	echo "systemctl stop took $ms ms; left: $(pgrep -a -x uaeventd)" >"$SAW"
	[ "$ms" -lt 8000 ] && ! pgrep -x uaeventd >/dev/null
}
check "systemctl stop meanwhile ends within 8 s, the waiting child too" stop_at_once
kill "$long_pid"
wait "$long_pid" 2>/dev/null
systemctl start uaeventd
check "uaeventd starts again" wait_for 60 systemctl is-active --quiet uaeventd

kill "$ns_pid" "$nobody_pid" "$sg_pid" 2>/dev/null
swapoff "/dev/${D2}2"
umount /mnt/btrfs
dmsetup remove uae-stale
losetup -d "$loopdev"
sed -i 's|^stale_luns = remove|#stale_luns = log|' /etc/uaevents/uaeventd.conf
systemctl reload uaeventd
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
