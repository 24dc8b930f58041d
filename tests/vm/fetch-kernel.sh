#!/bin/sh
# Fetch and unpack a Debian kernel image and its headers, without touching the host kernel.
#
#   fetch-kernel.sh SERIES   (SERIES: 6.1, 6.1-rt (PREEMPT_RT) or 6.12)
#   fetch-kernel.sh --newer  for each series, the pinned release and Debian's newest
#
# The release is the one tests/vm/kernels pins.  The .debs and the unpacked tree stay under
# $UAE_CACHE (default /var/cache/uaevents), so reruns fetch nothing, and prints the unpacked
# root.  Runs of several clones at once share the cache: one unpacks, under a lock.
# Layout of the root:
#   boot/vmlinuz-$KVER, lib/modules/$KVER/..., usr/src/linux-headers-$KVER (KDIR)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
series=${1:?usage: fetch-kernel.sh 6.1|6.1-rt|6.12|--newer}
cache=${UAE_CACHE:-/var/cache/uaevents}

pattern_of() {
	case "$1" in
	6.1)  echo '^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
	6.1-rt) echo '^linux-image-6\.1\.0-[0-9]+-rt-amd64$' ;;
	6.12) echo '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' ;;
	*) echo "fetch-kernel: unknown series '$1' (want 6.1, 6.1-rt or 6.12)" >&2; return 2 ;;
	esac
}
pinned() { awk -v s="$1" '$1 == s { print $2 }' "$here/kernels"; }

if [ "$series" = --newer ]; then
	for s in $(awk '!/^#/ && NF { print $1 }' "$here/kernels"); do
		newest=$(apt-cache search --names-only "$(pattern_of "$s")" | cut -d' ' -f1 |
			sort -V | tail -n 1 | sed 's/^linux-image-//; s/-unsigned$//')
		if [ "$newest" = "$(pinned "$s")" ]; then
			echo "$s: $(pinned "$s") (Debian's newest)"
		else
			echo "$s: $(pinned "$s"), Debian has ${newest:-nothing}: update tests/vm/kernels"
		fi
	done
	exit 0
fi

pattern_of "$series" >/dev/null
kver=$(pinned "$series")
[ -n "$kver" ] || { echo "fetch-kernel: $series is not in $here/kernels" >&2; exit 2; }
root="$cache/kernels/$kver"

if [ -f "$root/.complete" ]; then
	echo "$root"
	exit 0
fi

# One lock for the whole cache: apt-get update and downloads of packages two kernels share
# (linux-kbuild-6.1) must not run twice at once.
mkdir -p "$cache/kernels"
exec 9>"$cache/kernels/.fetch.lock"
flock 9
if [ -f "$root/.complete" ]; then
	echo "$root"
	exit 0
fi

image=linux-image-$kver
[ "$series" != 6.12 ] || image=$image-unsigned
if ! apt-cache show "$image" >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	apt-get update -q >&2
fi
if ! ls "$cache/debs/${image}"_*.deb >/dev/null 2>&1 && ! apt-cache show "$image" >/dev/null 2>&1; then
	echo "fetch-kernel: $image, pinned in tests/vm/kernels, is not in the apt lists (nor in" \
		"$cache/debs): Debian has moved on; 'make kernel-versions' names the newer one" >&2
	exit 1
fi

headers="linux-headers-$kver"
# The arch headers package depends on its -common package and on linux-kbuild-X.Y.
deps=$(apt-cache depends "$headers" | sed -n 's/^ *Depends: \(linux-\(headers\|kbuild\)-[^ ]*\)$/\1/p')
# linux-kbuild-X.Y has no ABI in its name: take the version the headers were built with,
# not whichever one an earlier pin left in the cache.
hver=$(apt-cache show --no-all-versions "$headers" | sed -n 's/^Version: //p' | head -n 1)
# deb_of PACKAGE: its .deb file name pattern in the cache.
deb_of() {
	case "$1" in
	linux-kbuild-*) echo "${1}_${hver}_*.deb" ;;
	*) echo "${1}_*.deb" ;;
	esac
}
debs="$cache/debs"
mkdir -p "$debs"
(cd "$debs" && for p in $image $headers $deps; do
	# shellcheck disable=SC2046
	ls $(deb_of "$p") >/dev/null 2>&1 && continue
	case "$p" in
	linux-kbuild-*) apt-get download -q "$p=$hver" >&2 ;;
	*) apt-get download -q "$p" >&2 ;;
	esac
done)

rm -rf "$root"
mkdir -p "$root"
for p in $image $headers $deps; do
	# shellcheck disable=SC2046
	deb=$(cd "$debs" && ls $(deb_of "$p") | sort -V | tail -n 1)
	dpkg-deb -x "$debs/$deb" "$root"
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
