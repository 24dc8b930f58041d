#!/bin/sh
# Fetch and unpack a Debian kernel image and its headers, without touching the host kernel.
#
#   fetch-kernel.sh SERIES   (SERIES: 6.1, 6.1-rt (PREEMPT_RT) or 6.12)
#
# Resolves the newest version with apt-cache (security updates move it), keeps the .debs and
# the unpacked tree under $UAE_CACHE (default /var/cache/uaevents) so reruns fetch nothing,
# and prints the unpacked root.  Layout of the root:
#   boot/vmlinuz-$KVER, lib/modules/$KVER/..., usr/src/linux-headers-$KVER (KDIR)
set -eu

series=${1:?usage: fetch-kernel.sh 6.1|6.1-rt|6.12}
cache=${UAE_CACHE:-/var/cache/uaevents}

case "$series" in
6.1)  pattern='^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
6.1-rt) pattern='^linux-image-6\.1\.0-[0-9]+-rt-amd64$' ;;
6.12) pattern='^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' ;;
*) echo "fetch-kernel: unknown series '$series' (want 6.1, 6.1-rt or 6.12)" >&2; exit 2 ;;
esac

newest_image() {
	apt-cache search --names-only "$pattern" | cut -d' ' -f1 | sort -V | tail -n 1
}
image=$(newest_image)
if [ -z "$image" ] && [ "$(id -u)" -eq 0 ]; then
	apt-get update -q >&2
	image=$(newest_image)
fi
if [ -z "$image" ]; then
	echo "fetch-kernel: no $series kernel in the apt lists; run apt-get update" >&2
	exit 1
fi
kver=${image#linux-image-}
kver=${kver%-unsigned}
root="$cache/kernels/$kver"

if [ -f "$root/.complete" ]; then
	echo "$root"
	exit 0
fi

headers="linux-headers-$kver"
# The arch headers package depends on its -common package and on linux-kbuild-X.Y.
deps=$(apt-cache depends "$headers" | sed -n 's/^ *Depends: \(linux-\(headers\|kbuild\)-[^ ]*\)$/\1/p')
debs="$cache/debs"
mkdir -p "$debs"
(cd "$debs" && for p in $image $headers $deps; do
	ls "${p}"_*.deb >/dev/null 2>&1 || apt-get download -q "$p" >&2
done)

rm -rf "$root"
mkdir -p "$root"
for p in $image $headers $deps; do
	deb=$(ls "$debs/${p}"_*.deb | sort -V | tail -n 1)
	dpkg-deb -x "$deb" "$root"
done

# The headers carry absolute symlinks (into /usr/src and /usr/lib/linux-kbuild-*);
# point them into the unpacked root instead of the host's filesystem.
find "$root/usr" -type l | while read -r link; do
	target=$(readlink "$link")
	case "$target" in
	/*) ln -sfn "$root$target" "$link" ;;
	esac
done

# The arch headers' Makefile includes the -common one by absolute path too.
for mk in "$root"/usr/src/linux-headers-*/Makefile; do
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$mk"
done

touch "$root/.complete"
echo "$root"
