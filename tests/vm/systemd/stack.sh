#!/bin/sh
# tap-plan: 25
# Sourced by run.sh.  Every alert says what it touches (issue 30): four LUs seen through two
# paths each, used as a host uses them, each get a thin-provisioning alert, and each entry
# names exactly what sits above its LU on this host, read without touching the device.
#   LU0  a multipath map (Debian's multipathd), a device-mapper volume on it (a partition's
#        stand-in), an LVM volume group on that, ext4 on its volume mounted on /srv/data, a
#        bind mount laid out like a kubelet CSI volume, a loop device and a swap file on
#        that filesystem
#   LU1  a device-mapper volume, LUKS2 on it, swap on that
#   LU2  a device-mapper volume with ext4 mounted only in another mount namespace
#   LU3  nothing
# scsi_debug's LUs share one store: each use lives at an offset of its own, none at 0, so
# that no LU shows another's signature.

check "no scsi_debug of an earlier test is left" wait_for 30 sdebug_gone
modprobe scsi_debug dev_size_mb=160 max_luns=4 num_tgts=1 add_host=2 vpd_use_hostno=0
eight_paths() {
	ls -d /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/* >"$SAW" 2>&1
	[ "$(wc -l <"$SAW")" -eq 8 ]
}
check "scsi_debug shows 4 LUs through two paths each" wait_for 60 eight_paths
udevadm settle --timeout=120
set -- $(for h in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*; do basename "$h"; done |
	sed 's/^host//' | sort -n)
H1=$1 H2=$2
disk_of() { basename "$(ls -d /sys/class/scsi_device/"$1"/device/block/*)"; }
A0=$(disk_of "$H1:0:0:0") B0=$(disk_of "$H2:0:0:0")
# LUs 1 to 3 through the last host's paths: on 6.1, scsi_debug's first host answers no
# I/O (DID_NO_CONNECT) once a second host shares its store; LU0's map fails over.
B1=$(disk_of "$H2:0:0:1") B2=$(disk_of "$H2:0:0:2") B3=$(disk_of "$H2:0:0:3")
tap_diag "LU0 $A0 $B0, LU1 $B1, LU2 $B2, LU3 $B3"

# LU0: the map, a volume at 1 MiB, LVM, ext4, the kubelet-like bind, a loop, a swap file.
multipath -a "/dev/$A0" >/dev/null
multipath -r >/dev/null 2>&1
map_made() { [ -n "$(ls "/sys/block/$A0/holders/")" ]; }
check "multipath made a map of LU0" wait_for 30 map_made
DM=$(ls "/sys/block/$A0/holders/")
MAP=$(cat "/sys/block/$DM/dm/name")
MAP_WWID=$(cat "/sys/block/$DM/dm/uuid"); MAP_WWID=${MAP_WWID#mpath-}
# By device number: /dev/mapper's names come with udev, later.
dmsetup create uaetest-data --table "0 131072 linear $(cat "/sys/block/$DM/dev") 2048"
udevadm settle --timeout=120
# LVM sees the volume only (not the map's paths, nor the other LUs' share of the store).
mkdir -p /run/uaetest
echo 'devices { global_filter = [ "a|^/dev/mapper/uaetest-data$|", "r|.*|" ] use_devicesfile = 0 }' \
	>/run/uaetest/lvm.conf
export LVM_SYSTEM_DIR=/run/uaetest
pvcreate -q /dev/mapper/uaetest-data && vgcreate -q uaetest-vg0 /dev/mapper/uaetest-data &&
	lvcreate -q -y -L 48M -n data uaetest-vg0 >/dev/null
udevadm settle --timeout=120
mkfs.ext4 -q -F /dev/uaetest-vg0/data
mkdir -p /srv/data && mount /dev/uaetest-vg0/data /srv/data
POD=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 PV=pvc-5b6c7d8e-9fa0-4b1c-8d2e-3f4a5b6c7d8e
KUBE=/var/lib/kubelet/pods/$POD/volumes/kubernetes.io~csi/$PV/mount
mkdir -p /srv/data/vol "$KUBE" && mount --bind /srv/data/vol "$KUBE"
truncate -s 8M /srv/data/loop.img && LOOP=$(losetup -f --show /srv/data/loop.img)
dd if=/dev/zero of=/srv/data/swapfile bs=1M count=16 status=none && chmod 600 /srv/data/swapfile
mkswap -q /srv/data/swapfile && swapon /srv/data/swapfile
# LU1: LUKS2 on a volume at 70 MiB (its header takes 16 MiB), swap on that.
dmsetup create uaetest-swap --table "0 81920 linear $(cat "/sys/block/$B1/dev") 143360"
head -c 32 /dev/urandom >/run/uaetest/key
cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
	--key-file /run/uaetest/key /dev/mapper/uaetest-swap &&
	cryptsetup open --key-file /run/uaetest/key /dev/mapper/uaetest-swap uaetest-crypt
udevadm settle --timeout=120
mkswap -q /dev/mapper/uaetest-crypt && swapon /dev/mapper/uaetest-crypt
# LU2: ext4 on a volume at 115 MiB, mounted in a mount namespace of its own only.
dmsetup create uaetest-ns --table "0 61440 linear $(cat "/sys/block/$B2/dev") 235520"
mkfs.ext4 -q -F /dev/mapper/uaetest-ns
mkdir -p /mnt/uaetest-ns
unshare -m --propagation private sh -c 'mount /dev/mapper/uaetest-ns /mnt/uaetest-ns &&
	exec sleep 900' &
NS_PID=$!
NS_DM=$(basename "$(readlink -f /dev/mapper/uaetest-ns)")
check "LU2's filesystem is mounted in another mount namespace only" \
	wait_for 20 sh -c "test -d /sys/fs/ext4/$NS_DM && ! grep -q ' /mnt/uaetest-ns ' /proc/1/mountinfo"
udevadm settle --timeout=120
tap_diag "map $MAP ($DM), loop $LOOP, swaps: $(tail -n +2 /proc/swaps | awk '{ print $1 }' | tr '\n' ' ')"

# A hook gets the summary (test events run hooks only with act_on_injected).
mkdir -p /etc/uaevents/hooks.d
cat >/etc/uaevents/hooks.d/THIN_PROVISIONING_SOFT_THRESHOLD_REACHED-uaetest-stack <<'EOH'
#!/bin/sh
echo "uaetest stack hook: $UAEVENTS_HCTL: $UAEVENTS_STACK"
EOH
chmod 0755 /etc/uaevents/hooks.d/THIN_PROVISIONING_SOFT_THRESHOLD_REACHED-uaetest-stack
reload_with 's|^#act_on_injected = no$|act_on_injected = yes|' "a hook, and test events act"
# A script subscribes with the stack of each event (from the history: none is missed
# while it subscribes).
uaectl monitor --json --stack --since "$(last_seq)" --filter "hctl=$H1:0:0:0" \
	>/tmp/stack-monitor.json &
SUB=$!

# Reading the stacks must open no device for writing: udev would see a change event (its
# inotify watch).  The module's own uevents are off meanwhile: udev's 60-block.rules passes
# each change of a scsi_device on to its disk.
UEVENTS=$(uaectl status --json | jq -r .uevents)
uaectl config --uevents none
udevadm monitor --udev -s block >/tmp/stack-udev.log 2>&1 &
MON=$!
monitoring() { grep -q '^UDEV - ' /tmp/stack-udev.log; }
check "udevadm monitor listens" wait_for 10 monitoring
cursor=$(journal_cursor)
soft=700006000000000a00000000380700000000
for hctl in "$H1:0:0:0" "$H2:0:0:0" "$H2:0:0:1" "$H2:0:0:2" "$H2:0:0:3"; do
	uaectl inject --hctl "$hctl" --sense $soft >/dev/null
done
# entry HCTL: uaeventd's alert for HCTL since the cursor, its fields as sorted arrays.
entry() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_EVENT=THIN_PROVISIONING_SOFT_THRESHOLD_REACHED "UAEVENTS_HCTL=$1" |
		jq -s -c 'last | with_entries(select(.key | test("^UAEVENTS_(STACK|MAP|LV|CRYPT|MD|LOOP|MOUNT|FS_UUID|SWAP|K8S)|^MESSAGE$|^__REALTIME_TIMESTAMP$")))
			| map_values(if type == "array" then sort else [.] end)' >"$SAW.entry"
	test -s "$SAW.entry" && [ "$(cat "$SAW.entry")" != null ]
}
# has HCTL JQ [SECONDS]: the entry (within SECONDS, 30 unless given) satisfies JQ (with
# $ARGS); otherwise it is what the check saw.
has() {
	wait_for "${3:-30}" entry "$1" || { echo "no entry for $1 within ${3:-30} s" >"$SAW"; return 1; }
	# shellcheck disable=SC2086
	jq -e $ARGS "$2" "$SAW.entry" >/dev/null && return 0
	cp "$SAW.entry" "$SAW"
	return 1
}
ARGS="--arg map $MAP --arg wwid $MAP_WWID --arg kube $KUBE --arg loop ${LOOP#/dev/} --arg pv $PV
	--arg pod $POD --arg a0 $A0"
LU0='.UAEVENTS_MAP == [$map] and .UAEVENTS_MAP_WWID == [$wwid] and
	.UAEVENTS_MOUNT == ([$kube, "/srv/data"] | sort) and
	.UAEVENTS_SWAP == ["/srv/data/swapfile"] and .UAEVENTS_LOOP == [$loop] and
	.UAEVENTS_K8S_VOLUME == [$pv] and .UAEVENTS_K8S_POD_UID == [$pod] and
	.UAEVENTS_LV == ["uaetest-vg0/data"] and
	(.UAEVENTS_STACK[0] | startswith("/srv/data (ext4 on uaetest-vg0/data on uaetest-data on \($map))")) and
	(.MESSAGE[0] | contains("behind /srv/data (ext4 on uaetest-vg0/data on uaetest-data on \($map))"))'
check "LU0, path 1: the map, the LV, both mounts, the kubelet volume and pod, the loop, the swap file" \
	has "$H1:0:0:0" "$LU0"
tap_diag "LU0's alert: $(jq -r '.MESSAGE[0]' "$SAW.entry" 2>/dev/null)"
check "LU0, path 2: the same" has "$H2:0:0:0" "$LU0"
hook_said() {
	journalctl --cursor "$cursor" -o cat --no-pager _SYSTEMD_UNIT=uaeventd.service |
		grep 'uaetest stack hook' >"$SAW"
	grep -qF "uaetest stack hook: $H1:0:0:0: /srv/data _ext4 on uaetest-vg0/data on uaetest-data on ${MAP}_" "$SAW"
}
check "the hook got UAEVENTS_STACK (shell-special characters as _)" wait_for 30 hook_said
subscribed() {
	jq -e -s --arg map "$MAP" 'any(.[]; .stack.summary | startswith("/srv/data (ext4 on uaetest-vg0/data on uaetest-data on \($map))"))' \
		/tmp/stack-monitor.json >/dev/null && return 0
	cp /tmp/stack-monitor.json "$SAW"
	return 1
}
check "uaectl monitor --json --stack: the event came with its stack" wait_for 30 subscribed
kill "$SUB" 2>/dev/null; wait "$SUB" 2>/dev/null
check "LU1: swap on dm-crypt on its volume, nothing else" has "$H2:0:0:1" \
	'.UAEVENTS_STACK == ["swap on uaetest-crypt on uaetest-swap"] and
	 .UAEVENTS_SWAP == ["uaetest-crypt"] and .UAEVENTS_CRYPT == ["uaetest-crypt"] and
	 ([keys[] | select(test("MAP|MOUNT|LOOP|LV|K8S|OTHER_NS"))] | length) == 0'
check "LU2: a filesystem mounted only in another mount namespace, and no mount of the host's" \
	has "$H2:0:0:2" \
	'.UAEVENTS_STACK_OTHER_NS == ["1"] and .UAEVENTS_MOUNT == null and
	 .UAEVENTS_STACK == ["ext4 on uaetest-ns, mounted only in another mount namespace"]'
check "LU3: nothing above it, said in the message, and no other stack field" has "$H2:0:0:3" \
	'.UAEVENTS_STACK == ["nothing"] and (.MESSAGE[0] | contains("; nothing above it")) and
	 ([keys[] | select(test("MAP|MOUNT|LOOP|LV|K8S|OTHER_NS|SWAP|CHAIN"))] | length) == 0'
check "LU0's chains: the swap file's, down to the disk" has "$H1:0:0:0" \
	'.UAEVENTS_STACK_CHAIN | any(startswith("/srv/data/swapfile (swap) on /srv/data (mount ext4) on uaetest-vg0/data (lvm ext4) on uaetest-data (dm LVM2_member) on \($map) (mpath) on \($a0) (disk"))'
udevadm settle --timeout=120
kill "$MON" 2>/dev/null; wait "$MON" 2>/dev/null
no_change() {
	grep -E '^UDEV.* change ' /tmp/stack-udev.log >"$SAW"
	! test -s "$SAW"
}
check "udev saw no change event while the stacks were read (no device opened for writing)" \
	no_change
uaectl config --uevents "$(echo none ua all | cut -d ' ' -f $((UEVENTS + 1)))"

# Freshness: the stack is read when the event comes (the tables again after a change).
umount "$KUBE"
swapoff /dev/mapper/uaetest-crypt
cursor=$(journal_cursor)
uaectl inject --hctl "$H1:0:0:0" --sense $soft >/dev/null
uaectl inject --hctl "$H2:0:0:1" --sense $soft >/dev/null
check "after the kubelet volume went: LU0's next alert names /srv/data only" has "$H1:0:0:0" \
	'.UAEVENTS_MOUNT == ["/srv/data"] and .UAEVENTS_K8S_VOLUME == null'
check "after swapoff: LU1's next alert says no user of its swap volume is seen" has "$H2:0:0:1" \
	'.UAEVENTS_STACK == ["swap on uaetest-crypt on uaetest-swap, no user seen"] and
	 .UAEVENTS_SWAP == null'
uaectl stack --json "$A0" >"$SAW.json" 2>&1
check "uaectl stack --json: the disk, its map, the volumes, the mount, the loop and the swap file" \
	sh -c "jq -e --arg map '$MAP' '[.entries[] | .type] | sort ==
		([\"disk\", \"mpath\", \"dm\", \"lvm\", \"mount\", \"loop\", \"swap\"] | sort) and
		(.entries | any(.type == \"mpath\" and .name == \$map and .below == 0))' \
		'$SAW.json' >/dev/null || cp '$SAW.json' '$SAW'"
# Properties, listed by the library (uae_stack_entry_get_property_key()): the loop's backing
# file, the mount's root, LVM's own layer marked internal.
check "uaectl stack --json: each entry's properties (the loop's file, the mount's root)" \
	sh -c "jq -e '(.entries | any(.type == \"loop\" and
			.properties.backing_file == \"/srv/data/loop.img\")) and
		(.entries | any(.type == \"mount\" and .name == \"/srv/data\" and
			.properties.fs_root == \"/\"))' \
		'$SAW.json' >/dev/null || cp '$SAW.json' '$SAW'"
check "uaeventd wrote no error to its journal" no_daemon_error "$cursor"

# Everything back as it was, in reverse.
rm /etc/uaevents/hooks.d/THIN_PROVISIONING_SOFT_THRESHOLD_REACHED-uaetest-stack
reload_with 's|^act_on_injected = yes$|#act_on_injected = no|' "the hook gone, test events act no more"
kill "$NS_PID" 2>/dev/null; wait "$NS_PID" 2>/dev/null
swapoff /srv/data/swapfile
losetup -d "$LOOP"
umount /srv/data
vgremove -q -f uaetest-vg0 >/dev/null
cryptsetup close uaetest-crypt
for v in uaetest-data uaetest-swap uaetest-ns; do dmsetup remove "$v"; done
unset LVM_SYSTEM_DIR
multipath -f "$MAP" >/dev/null 2>&1
multipath -w "/dev/$A0" >/dev/null 2>&1
udevadm settle --timeout=120
check "scsi_debug can be unloaded after the test" wait_for 60 sdebug_gone

# A hung LU: every command it gets goes unanswered (scsi_debug's opts=4 with every_nth=1;
# sd's timeout is 30 s).  Its alert still comes at once, with its stack: nothing of the
# stack is read from the device.  The module's uevents stay off, so that udev does not
# probe it meanwhile; answering again before it goes, so that its removal does not wait.
# Only on a scsi_debug of its own: hanging the one above would hang its map and volumes.
SDEBUG=/sys/bus/pseudo/drivers/scsi_debug
if check "scsi_debug with one disk, to hang" sdebug_one_disk; then
	udevadm settle --timeout=120
	uaectl config --uevents none
	echo 1 >"$SDEBUG/every_nth" && echo 4 >"$SDEBUG/opts"
	cursor=$(journal_cursor)
	t0=$(($(date +%s%N) / 1000))
	uaectl inject --hctl "$HCTL" --sense $soft >/dev/null
	ARGS="--argjson t0 $t0"
	check "a hung LU's alert is logged within 10 s, with its stack" \
		has "$HCTL" '.UAEVENTS_STACK == ["nothing"] and
			(.__REALTIME_TIMESTAMP[0] | tonumber) - $t0 < 10000000'
	echo 0 >"$SDEBUG/opts" && echo 0 >"$SDEBUG/every_nth"
	uaectl config --uevents "$(echo none ua all | cut -d ' ' -f $((UEVENTS + 1)))"
	check "scsi_debug can be unloaded after the hung LU" wait_for 60 sdebug_gone
else
	tap_result 1 "a hung LU's alert is logged within 10 s, with its stack"
	tap_result 1 "scsi_debug can be unloaded after the hung LU"
fi
