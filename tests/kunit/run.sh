#!/bin/sh
# Run the KUnit suites in kunit/ under User-Mode Linux, built from Debian's linux-source-6.1
# (Debian's kernels have no CONFIG_KUNIT).  The source tree and the UML build folder are
# cached in /var/cache/uaevents; the first build takes minutes, later ones seconds.
# Prints one TAP line per KUnit case; fails when any case fails.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${UAE_CACHE:-/var/cache/uaevents}
src=$("$top/scripts/fetch-linux-source.sh") || exit 1
build=$cache/kunit-build

# The tree and the build folder are shared by every clone on this machine: one run at a
# time, each linking its own suite in, so no run builds another clone's code.
exec 9>"$cache/.kunit.lock"
flock 9
# Link the suite into the tree (the link follows whichever clone runs this).
ln -sfn "$top/kunit" "$src/drivers/misc/uaevents"
grep -q 'drivers/misc/uaevents/Kconfig' "$src/drivers/misc/Kconfig" ||
	echo 'source "drivers/misc/uaevents/Kconfig"' >>"$src/drivers/misc/Kconfig"
grep -q '^obj-y += uaevents/' "$src/drivers/misc/Makefile" ||
	echo 'obj-y += uaevents/' >>"$src/drivers/misc/Makefile"

mkdir -p "$build"
log=$build/kunit.log
(cd "$src" && python3 tools/testing/kunit/kunit.py run --kunitconfig "$top/kunit/.kunitconfig" \
	--build_dir "$build" --jobs "$(nproc)") >"$log" 2>&1
status=$?

# kunit.py's summary: "[PASSED] case" / "[FAILED] case" per case.
n=0 failed=0
for verdict in $(grep -v '====' "$log" | sed -n 's/.*\[\(PASSED\|FAILED\|CRASHED\|SKIPPED\)\] \([A-Za-z0-9_]*\).*/\1:\2/p'); do
	n=$((n + 1))
	case "$verdict" in
	PASSED:*) echo "ok $n - kunit ${verdict#*:}" ;;
	*) failed=$((failed + 1)); echo "not ok $n - kunit ${verdict#*:} (${verdict%%:*})" ;;
	esac
done
echo "1..$n"
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$n" -eq 0 ]; then
	echo "kunit: kunit.py exit $status, $failed failed of $n; last lines of $log:" >&2
	tail -n 40 "$log" >&2
	exit 1
fi
