#!/bin/sh
# Install the Debian 12 packages uaevents needs to build, test and run its VM.
# Idempotent: only missing packages are installed.
set -eu

PKGS="build-essential cmake pkg-config git
libnl-3-dev libnl-genl-3-dev libsystemd-dev libudev-dev libmount-dev libjson-c-dev libinih-dev
check libsgutils2-dev
clang llvm libclang-rt-14-dev
qemu-system-x86 busybox-static cpio xz-utils zstd kmod
systemd udev
flex bison bc libelf-dev libssl-dev python3 perl dwarves
jq sg3-utils fio man-db groff-base bash-completion
debhelper dh-dkms dh-python dkms lintian mmdebstrap e2fsprogs python3-pytest"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: need root to install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
