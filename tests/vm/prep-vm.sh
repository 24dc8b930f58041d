#!/bin/sh
# What every busybox VM of one test kernel boots with, built once per kernel and run:
# uaevents.ko and the test helpers (tests/vm/faultinj/) built against its headers, and
# the initramfs (which script runs is chosen on the kernel command line, so one image
# serves all).
#
#   prep-vm.sh SERIES USERBIN OUTDIR     writes OUTDIR/initramfs.cpio.gz, prints its path
set -eu
series=$1 userbin=$(cd "$2" && pwd) out=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

kroot=$("$here/fetch-kernel.sh" "$series")
kver=$(basename "$kroot")
kdir=$kroot/usr/src/linux-headers-$kver
mkdir -p "$out"
out=$(cd "$out" && pwd)

# One build of a kernel's module at a time (two runs of the same kernel share build/kmod).
mkdir -p "$top/build"
exec 9>"$top/build/.kmod-$kver.lock"
flock 9
make -s -C "$top/kernel" KDIR="$kdir" MODDIR="$top/build/kmod/$kver" >"$out/kmod-build.log" 2>&1 || {
	cat "$out/kmod-build.log" >&2
	exit 1
}
# The test helpers (tests/vm/faultinj/): one makes uaevents.ko's init fail at a chosen step,
# one holds a device's state_mutex.
fi="$top/build/faultinj/$kver"
mkdir -p "$fi"
ln -sf "$here/faultinj/Kbuild" "$here/faultinj/uae_faultinj.c" "$here/faultinj/uae_holdlock.c" \
	"$fi/"
make -s -C "$kdir" M="$fi" modules >>"$out/kmod-build.log" 2>&1 || {
	cat "$out/kmod-build.log" >&2
	exit 1
}
"$here/mkinitramfs.sh" "$kroot" "$kver" "$top/build/kmod/$kver/uaevents.ko" "$userbin" \
	"$out/initramfs.cpio.gz.tmp" "$fi/uae_faultinj.ko" "$fi/uae_holdlock.ko"
flock -u 9
mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
echo "$out/initramfs.cpio.gz"
