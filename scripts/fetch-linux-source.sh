#!/bin/sh
# Fetch Debian's linux-source-6.1 (the source of the 6.1 test kernel) and unpack it under
# $UAE_CACHE (default /var/cache/uaevents) once; print the source tree's path.
# Used for scripts/checkpatch.pl and for the KUnit build under User-Mode Linux.
set -eu
cache=${UAE_CACHE:-/var/cache/uaevents}
pkg=linux-source-6.1
tree=$cache/src/$pkg

if [ -f "$tree/.complete" ]; then
	echo "$tree"
	exit 0
fi
mkdir -p "$cache/debs" "$cache/src"
# Runs of several clones (or kunit and checkpatch) at once: one unpacks, under a lock.
exec 9>"$cache/src/.$pkg.lock"
flock 9
if [ -f "$tree/.complete" ]; then
	echo "$tree"
	exit 0
fi
(cd "$cache/debs" && { ls "$pkg"_*.deb >/dev/null 2>&1 || apt-get download -q "$pkg" >&2; })
deb=$(ls "$cache/debs/$pkg"_*.deb | sort -V | tail -n 1)
tmp=$(mktemp -d "$cache/src/unpack.XXXXXX")
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './usr/src/linux-source-6.1.tar.xz'
rm -rf "$tree"
mkdir -p "$tree"
tar -xJf "$tmp/usr/src/linux-source-6.1.tar.xz" -C "$tree" --strip-components=1
rm -rf "$tmp"
touch "$tree/.complete"
echo "$tree"
