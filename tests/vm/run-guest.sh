#!/bin/sh
# Boot Debian 12 with systemd as PID 1 under QEMU, with the project installed from its
# Debian packages as an administrator installs them, and run a test script in it.
#
#   run-guest.sh SERIES DEBDIR OUTDIR SCRIPT...
#     SERIES  6.1, 6.1-rt or 6.12       SCRIPT  scripts of tests/vm/systemd/, run in order
#     DEBDIR  the built packages (make deb)  OUTDIR  console.log, tap.log, the disk image
#   UAE_UPGRADE_DEBDIR: newer packages, copied into the guest for upgrade.sh
#   UAE_CONSOLE=1: the guest's console on stdout (make demo), no TAP verdict
#   CYCLES: rounds of the loop tests (lib.sh's default when unset)
#   UAE_UPGRADE_DKMS=1: upgrade.sh upgrades uaevents-dkms too (DKMS under TCG: make soak)
#   UAE_VM_TIMEOUT: seconds before QEMU is stopped; the test unit is stopped 180 s before,
#     so a hang ends as missing results and the guest's journal says where
#
# The root filesystem comes from mmdebstrap (mkrootfs.sh, cached).  Into a copy of it,
# apt installs uaevents-dkms, libuaevents1 and uaevents (DKMS builds uaevents.ko for the
# guest's kernel there, at native speed); the tests run in one boot, as a systemd unit
# after boot, which powers the guest off.  Prints the guest's TAP; non-zero unless every test passed.
set -eu
series=$1 debdir=$(cd "$2" && pwd) out=$3
shift 3
scripts="$*"
here=$(cd "$(dirname "$0")" && pwd)

tarball=$("$here/mkrootfs.sh" "$series")
kver=$(basename "$("$here/fetch-kernel.sh" "$series")")
mkdir -p "$out"
out=$(cd "$out" && pwd)
root="$out/root"

cleanup() {
	for m in dev/pts dev sys proc; do
		mountpoint -q "$root/$m" && umount -l "$root/$m"
	done
	return 0
}
trap cleanup EXIT
# dash runs no EXIT trap when a signal kills it: exit through it, so the bind mounts of
# /dev, /proc and /sys never outlive a stopped run (rm -rf build would walk into /dev).
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP
cleanup
rm -rf "$root" "$out/disk.img" "$out/tap.log" "$out/console.log"
mkdir -p "$root"
tar -xf "$tarball" -C "$root"

# As an administrator would, with README.md's own command, so that it cannot rot: apt
# installs the packages from ./build/deb and pulls in what they need.  Only its question
# is answered (APT::Get::Assume-Yes), as a person at the terminal would.
install_cmd=$(awk '/^<!-- install: /{ want = 1; next } want && /^```sh$/{ inside = 1; next }
	inside && /^```$/{ exit } inside { print }' "$here/../../README.md" | sed 's/\\$//' | tr -s ' \n' '  ')
case $install_cmd in
"apt install ./build/deb/"*) ;;
*)
	echo "run-guest: README.md has no apt install command after its <!-- install: --> line" >&2
	exit 1
	;;
esac
mkdir -p "$root/tmp/uaevents/build/deb"
for p in uaevents-dkms libuaevents1 uaevents python3-uaevents; do
	cp "$debdir/${p}_"*.deb "$root/tmp/uaevents/build/deb/"
done
echo 'APT::Get::Assume-Yes "true";' >"$root/tmp/uaevents/yes.conf"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
echo "run-guest: README's command: $install_cmd" >"$out/install.log"
chroot "$root" sh -c "cd /tmp/uaevents && APT_CONFIG=/tmp/uaevents/yes.conf \
	DEBIAN_FRONTEND=noninteractive $install_cmd" >>"$out/install.log" 2>&1 </dev/null || {
	tail -n 40 "$out/install.log" >&2
	echo "run-guest: installing the packages with README's command failed" >&2
	exit 1
}
cleanup
rm -rf "$root/tmp/uaevents"
# Newer packages for upgrade.sh, which installs them as an upgrade while events flow.
if [ -n "${UAE_UPGRADE_DEBDIR:-}" ]; then
	mkdir -p "$root/var/cache/uaevents-upgrade"
	for p in uaevents-dkms libuaevents1 uaevents; do
		cp "$UAE_UPGRADE_DEBDIR/${p}_"*.deb "$root/var/cache/uaevents-upgrade/"
	done
fi
[ -n "$(find "$root/lib/modules/$kver" -name 'uaevents.ko*')" ] || {
	tail -n 40 "$out/install.log" >&2
	echo "run-guest: DKMS did not install uaevents.ko for $kver" >&2
	exit 1
}

# The test: a unit that runs after boot, reports TAP on the second serial port and
# powers the guest off.
mkdir -p "$root/usr/local/lib/uae-test"
cp "$here/guest/lib.sh" "$here/systemd/"*.sh "$here/../python/"*.py "$here/../../README.md" \
	"$root/usr/local/lib/uae-test/"
limit=${UAE_VM_TIMEOUT:-2400}
cat >"$root/etc/systemd/system/uae-test.service" <<UNIT
[Unit]
Description=uaevents tests: $scripts
After=multi-user.target uaeventd.service
[Service]
Type=oneshot
ExecStart=/bin/sh /usr/local/lib/uae-test/run.sh $scripts
ExecStopPost=/bin/systemctl poweroff --no-block
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=$((limit - 180))
${CYCLES:+Environment=CYCLES=$CYCLES}
${UAE_UPGRADE_DKMS:+Environment=UAE_UPGRADE_DKMS=$UAE_UPGRADE_DKMS}
[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/uae-test.service \
	"$root/etc/systemd/system/multi-user.target.wants/uae-test.service"
echo "/dev/vda / ext4 defaults 0 1" >"$root/etc/fstab"

cp "$root/boot/vmlinuz-$kver" "$out/vmlinuz"
cp "$root/boot/initrd.img-$kver" "$out/initrd.img"
mkfs.ext4 -q -F -L root -d "$root" "$out/disk.img" 4G
rm -rf "$root"

# UAE_CONSOLE=1 (make demo): the guest's console here, quiet boot, no verdict.
if [ "${UAE_CONSOLE:-}" = 1 ]; then
	console="-serial stdio" quiet=quiet
else
	console="-serial file:$out/console.log" quiet=
fi
timeout --foreground -k 30 "$limit" qemu-system-x86_64 \
	-machine pc -accel tcg -m 1536 -smp 1 \
	-kernel "$out/vmlinuz" -initrd "$out/initrd.img" \
	-append "root=/dev/vda rw console=ttyS0 panic=-1 systemd.show_status=0 $quiet" \
	-drive file="$out/disk.img",format=raw,if=virtio \
	-display none -monitor none -nic none -no-reboot \
	$console -serial "file:$out/tap.log" || {
	echo "run-guest: QEMU failed or timed out (kernel $kver)" >&2
}
[ "${UAE_CONSOLE:-}" = 1 ] && exit 0
exec "$here/judge-tap.sh" "$out" "$kver" "$scripts"
