#!/bin/sh
# Build the test VM's initramfs: busybox, the test kernel's SCSI modules, uaevents.ko,
# the project's binaries, and the host's real systemd-journald and journalctl, each with
# the shared libraries it needs.
#
#   mkinitramfs.sh KROOT KVER KMOD USERBIN OUT [TESTKO...]
#     KROOT    unpacked kernel (fetch-kernel.sh)    KVER     its release
#     KMOD     uaevents.ko built for it            USERBIN  CMake build folder
#     OUT      the .cpio.gz to write                TESTKO   test helper modules for /modules
set -eu

kroot=$1 kver=$2 kmod=$3 userbin=$4 out=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/bin "$stage"/sbin "$stage"/etc "$stage"/proc "$stage"/sys "$stage"/dev \
	"$stage"/run "$stage"/tmp "$stage"/var/log "$stage"/modules "$stage"/usr/bin \
	"$stage"/usr/sbin "$stage"/usr/lib "$stage"/lib/systemd

# busybox, with a link for every applet it has.
cp /bin/busybox "$stage/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$stage/bin/$applet" ] || ln -s busybox "$stage/bin/$applet"
done

# A binary and every shared library it loads, at the same paths as on the host.
copy_elf() {
	cp -L "$1" "$stage$2"
	ldd "$1" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p' |
	while read -r lib; do
		case "$lib" in
		"$userbin"/*) dest=/usr/lib/$(basename "$lib") ;;
		*) dest=$lib ;;
		esac
		[ -e "$stage$dest" ] && continue
		mkdir -p "$stage$(dirname "$dest")"
		cp -L "$lib" "$stage$dest"
	done
}
copy_elf "$userbin/uaectl/uaectl" /usr/bin/uaectl
copy_elf "$userbin/uevent-agent/uaeventd" /usr/sbin/uaeventd
copy_elf /lib/systemd/systemd-journald /lib/systemd/systemd-journald
copy_elf /bin/journalctl /usr/bin/journalctl
copy_elf /usr/bin/jq /usr/bin/jq
copy_elf /bin/bash /bin/bash
copy_elf "$userbin/examples/monitor-poll" /usr/bin/monitor-poll
copy_elf "$userbin/tests/uae-forge" /usr/bin/uae-forge
copy_elf "$userbin/tests/uae-latency" /usr/bin/uae-latency
copy_elf "$userbin/tests/uae-nvme-admin" /usr/bin/uae-nvme-admin
copy_elf /usr/bin/sg_raw /usr/bin/sg_raw
copy_elf /usr/bin/sg_turs /usr/bin/sg_turs
# sg3_utils' rescan-scsi-bus.sh, the hand-run tool bench-scale.sh compares against.
copy_elf /usr/bin/sg_inq /usr/bin/sg_inq
cp /usr/bin/rescan-scsi-bus.sh "$stage/usr/bin/"
copy_elf /usr/bin/fio /usr/bin/fio
copy_elf /usr/bin/setpriv /usr/bin/setpriv
copy_elf /bin/udevadm /usr/bin/udevadm
copy_elf /lib/systemd/systemd-udevd /lib/systemd/systemd-udevd
# UAE_VM_PERF=1: perf too, for make bench-profile (linux-perf on the host).
[ -z "${UAE_VM_PERF:-}" ] || copy_elf /usr/bin/perf /usr/bin/perf
cat >"$stage/etc/ld.so.conf" <<EOC
/usr/lib
/lib/x86_64-linux-gnu
/usr/lib/x86_64-linux-gnu
/usr/lib/x86_64-linux-gnu/systemd
EOC
ldconfig -r "$stage"

# journald wants a machine id and users for its groups.
echo 0123456789abcdef0123456789abcdef >"$stage/etc/machine-id"
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$stage/etc/passwd"
printf 'root:x:0:\nsystemd-journal:x:101:\nnogroup:x:65534:\n' >"$stage/etc/group"

# Kernel modules, decompressed (busybox insmod reads plain .ko), and for each module the
# ordered list of what it needs, as modprobe would load it.
[ -f "$kroot/lib/modules/$kver/modules.dep" ] || depmod -b "$kroot" "$kver"
# nvme.sh's: the NVMe target and host, over loop where the kernel has it (not Debian's
# 6.1), over TCP everywhere; null_blk, a namespace with bad blocks; nvme, QEMU's
# controller's driver.
for mod in scsi_debug sd_mod sg ext4 virtio_pci virtio_scsi nvmet nvme-loop nvmet-tcp nvme-tcp \
	null_blk nvme; do
	# Only nvme-loop may be missing (Debian's 6.1 has none); any other is an error.
	if [ "$mod" = nvme-loop ] &&
		! modprobe -d "$kroot" -S "$kver" --show-depends "$mod" >/dev/null 2>&1; then
		continue
	fi
	modprobe -d "$kroot" -S "$kver" --show-depends "$mod" | while read -r verb path _; do
		[ "$verb" = insmod ] || continue
		name=$(basename "$path")
		name=${name%.xz}
		name=${name%.zst}
		case "$path" in
		*.xz) xz -dc "$path" >"$stage/modules/$name" ;;
		*.zst) zstd -qdc "$path" >"$stage/modules/$name" ;;
		*) cp "$path" "$stage/modules/$name" ;;
		esac
		echo "$name" >>"$stage/modules/$mod.deps"
	done
done
cp "$kmod" "$stage/modules/uaevents.ko"
for ko in "$@"; do
	cp "$ko" "$stage/modules/"
done
echo "$kver" >"$stage/etc/kernel-release"

# The project's data files, where the packages would install them.
mkdir -p "$stage/usr/lib/systemd/catalog" "$stage/var/lib/systemd/catalog" \
	"$stage/usr/share/uaevents/hooks" "$stage/etc/uaevents/hooks.d"
cp "$here/../../journald/uaevents.catalog" "$stage/usr/lib/systemd/catalog/"
cp "$here"/../../hooks/* "$stage/usr/share/uaevents/hooks/"
cp "$here/../../examples/page-on-low-space.sh" "$stage/usr/bin/"
mkdir -p "$stage/etc/udev/rules.d" "$stage/usr/lib/udev/rules.d"
cp "$here"/../../rules/*.rules "$stage/usr/lib/udev/rules.d/"

# The guest side of the tests.
cp "$here/guest/init" "$stage/init"
cp "$here"/guest/*.sh "$stage/bin/"
chmod 0755 "$stage/init" "$stage"/bin/*.sh

chmod 0755 "$stage"
(cd "$stage" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
