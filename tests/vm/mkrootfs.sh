#!/bin/sh
# A Debian 12 root filesystem for the systemd guest, made from Debian's packages with
# mmdebstrap: systemd as PID 1, udev, multipath-tools, sg3-utils, DKMS and a compiler, and
# the Debian kernel of SERIES with its headers (update-initramfs makes its initrd), and the
# libraries the project's packages depend on, so that installing them needs no network.
# The package lists stay, so apt can still resolve a dependency added later.
# Cached as a tarball under $UAE_CACHE (default /var/cache/uaevents); prints its path.
#
#   mkrootfs.sh SERIES        (6.1, 6.1-rt or 6.12; see fetch-kernel.sh)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
series=${1:?usage: mkrootfs.sh SERIES}
cache=${UAE_CACHE:-/var/cache/uaevents}

kroot=$("$here/fetch-kernel.sh" "$series")
kver=$(basename "$kroot")

# The kernel's image package: signed for 6.1 and 6.1-rt, -unsigned for 6.12.
image=linux-image-$kver
apt-cache show "$image" >/dev/null 2>&1 || image=$image-unsigned

# btrfs-progs, dmsetup and fdisk: the ways a host uses a LUN that stale.sh puts in the way;
# open-iscsi: the initiator of empty-target.sh; prometheus-node-exporter: metrics.sh's;
# python3-pytest: python.sh's; exim4-daemon-light, Debian's MTA: the mail of sandbox.sh;
# lvm2 and cryptsetup-bin: the volumes stack.sh puts on a map.
pkgs="systemd-sysv,udev,dbus,kmod,procps,iproute2,util-linux,e2fsprogs,less
multipath-tools,open-iscsi,sg3-utils,jq,lsscsi,initramfs-tools,$image,linux-headers-$kver
dkms,make,gcc,libc6-dev,python3,python3-pytest,btrfs-progs,dmsetup,fdisk,prometheus-node-exporter
exim4-daemon-light,libnl-3-200,libnl-genl-3-200,libinih1,libjson-c5,libsgutils2-1.46-2
lvm2,cryptsetup-bin"
# A new package list is a new root filesystem.
tarball="$cache/rootfs/debian12-$kver-$(echo "$pkgs" | md5sum | cut -c1-8).tar"
[ -f "$tarball" ] && { echo "$tarball"; exit 0; }
mkdir -p "$cache/rootfs"
# Runs of several clones at once: one builds, the others wait for it.
exec 9>"$tarball.lock"
flock 9
[ -f "$tarball" ] && { echo "$tarball"; exit 0; }
mmdebstrap --variant=minbase --format=tar --skip=cleanup/apt/lists --include="$(echo "$pkgs" | tr '\n' ',')" \
	--customize-hook='echo uaevents-guest >"$1/etc/hostname"' \
	--customize-hook='chroot "$1" passwd -d root' \
	bookworm "$tarball.tmp" \
	"deb http://deb.debian.org/debian bookworm main" \
	"deb http://deb.debian.org/debian bookworm-updates main" \
	"deb http://deb.debian.org/debian-security bookworm-security main" >&2
mv "$tarball.tmp" "$tarball"
echo "$tarball"
