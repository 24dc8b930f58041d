#!/bin/sh
# Run one stage of 'make check', keep its log, and count what it passed and failed.
#
#   run-stage.sh NAME RESULTS-DIR COMMAND...
#
# Counts Check's "Checks: N, Failures: F, Errors: E" lines and TAP "ok"/"not ok" lines;
# a command that fails without a counted failure counts as one failure of the stage.
set -u
name=$1 results=$2
shift 2
mkdir -p "$results"
log=$results/$name.log

# POSIX sh has no pipefail: the command's status travels through a file.
{ "$@" 2>&1; echo $? >"$log.status"; } | tee "$log"
status=$(cat "$log.status")
rm -f "$log.status"

passed=0 failed=0
eval "$(sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/c=\1 f=\2 e=\3; passed=$((passed + c - f - e)); failed=$((failed + f + e));/p' "$log")"
# TAP lines may carry a "[kernel] " prefix (run-vm.sh) or ctest -V's "N: ".
tap=$(sed -E 's/^\[[^]]*\] //; s/^[0-9]+: //' "$log")
tap_ok=$(echo "$tap" | grep -c '^ok ' || true)
tap_fail=$(echo "$tap" | grep -c '^not ok ' || true)
passed=$((passed + tap_ok))
failed=$((failed + tap_fail))
echo "$passed $failed" >"$results/$name.count"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "run-stage: $name failed (exit $status) before any test could report" >&2
	failed=1
	echo "$passed $failed" >"$results/$name.count"
fi
exit "$status"
