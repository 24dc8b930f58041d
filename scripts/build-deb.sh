#!/bin/sh
# Build the Debian packages with Debian's own tooling, then run lintian over them.
#
#   build-deb.sh OUTDIR [VERSION]
#
# VERSION (greater than debian/changelog's) builds the same tree as that version, with a
# changelog entry saying so: the packages the upgrade test installs over the real ones.
#
# The packages are built from a copy of the tree in OUTDIR (the source tree stays clean:
# no debian/ build folders, no ../*.deb beside the clone); OUTDIR ends up holding the
# .debs, the .changes and lintian.txt.  Fails if dpkg-buildpackage fails or lintian
# reports an error; warnings are either fixed or explained in debian/*.lintian-overrides.
#   UAE_DEB_LINTIAN=0: no lintian (the upgrade test's second build of the same tree)
#   DEB_BUILD_OPTIONS=nocheck: as dpkg-buildpackage has it (make check runs ctest itself)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
version=${2:-$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)}
src="$out/uaevents-$version"

rm -rf "$out"
mkdir -p "$src"
out=$(cd "$out" && pwd)
src="$out/uaevents-$version"
(cd "$top" && tar --exclude=./build --exclude=./.git -cf - .) | tar -xf - -C "$src"
if [ -n "${2:-}" ]; then
	{
		printf 'uaevents (%s) unstable; urgency=medium\n\n' "$version"
		printf '  * Test build: the tree of %s as a newer version.\n\n' \
			"$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)"
		printf ' -- %s  %s\n\n' \
			"$(dpkg-parsechangelog -l "$top/debian/changelog" -S Maintainer)" \
			"$(date -R)"
		cat "$top/debian/changelog"
	} >"$src/debian/changelog"
fi

(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -n 60 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed; the whole log is $out/build.log" >&2
	exit 1
}
changes=$(ls "$out"/uaevents_*.changes)
if [ "${UAE_DEB_LINTIAN:-1}" = 0 ]; then
	ls "$out"/*.deb
	exit 0
fi
lintian --fail-on error --info "$changes" >"$out/lintian.txt" 2>&1 || {
	cat "$out/lintian.txt" >&2
	echo "build-deb: lintian reports errors" >&2
	exit 1
}
cat "$out/lintian.txt"
ls "$out"/*.deb
