#!/bin/sh
# The Debian packages for the checks after it, each built once a run: the release (with
# lintian) for deb-check.sh and the systemd guests, and the same tree as a newer version
# for the guests' upgrade.sh.  ctest ran in its own stage: dpkg-buildpackage skips it here
# (nocheck).  TAP.
#
#   deb-build.sh DEBDIR NEXTDIR
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "$1") next=$(realpath -m "$2")
. "$top/tests/tap.sh"
export DEB_BUILD_OPTIONS="nocheck${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}"
mkdir -p "$(dirname "$out")"

"$top/scripts/build-deb.sh" "$out" >"$out.log" 2>&1
rc=$?
[ $rc -eq 0 ] || sed 's/^/# /' "$out.log"
result $rc "dpkg-buildpackage builds the packages and lintian reports no error"
lintian_tags=$(grep -v "root privileges" "$out/lintian.txt" 2>/dev/null)
[ -n "$lintian_tags" ] && echo "$lintian_tags" | sed 's/^/# lintian: /'

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)+upgrade1
UAE_DEB_LINTIAN=0 "$top/scripts/build-deb.sh" "$next" "$version" >"$next.log" 2>&1
rc=$?
[ $rc -eq 0 ] || tail -n 30 "$next.log" | sed 's/^/# /'
result $rc "the same tree builds as version $version (the upgrade's packages)"
tap_end
