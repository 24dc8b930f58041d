#!/bin/sh
# Run one stage of 'make check', keep its log, and count what it passed, failed and
# skipped, and how long it took.
#
#   run-stage.sh NAME RESULTS-DIR COMMAND...
#
# Counts Check's "Checks: N, Failures: F, Errors: E" lines and TAP "ok"/"not ok" lines
# ("ok ... # SKIP" as skipped); a command that fails without a counted failure counts as
# one failure of the stage.  RESULTS-DIR/NAME.count: "PASSED FAILED SKIPPED SECONDS".
#   UAE_STAGE_BUILD=1: a build, which has no tests of its own (one passed when it succeeds)
set -u
name=$1 results=$2
shift 2
mkdir -p "$results"
log=$results/$name.log
start=$(date +%s)
rm -f "$results/$name.count"
echo "$name" >"$results/$name.running"

# POSIX sh has no pipefail: the command's status travels through a file.  Lines go to the
# terminal with the stage's name in front (stages run side by side).
{ "$@" 2>&1; echo $? >"$log.status"; } | tee "$log" | sed -u "s/^/[$name] /"
status=$(cat "$log.status")
rm -f "$log.status"
seconds=$(($(date +%s) - start))

passed=0 failed=0
eval "$(sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/c=\1 f=\2 e=\3; passed=$((passed + c - f - e)); failed=$((failed + f + e));/p' "$log")"
# TAP lines may carry a "[kernel] " prefix (run-vm.sh) or ctest -V's "N: ".
tap=$(sed -E 's/^\[[^]]*\] //; s/^[0-9]+: //' "$log")
tap_ok=$(echo "$tap" | grep -c '^ok ' || true)
tap_skip=$(echo "$tap" | grep -c '^ok .*# SKIP' || true)
tap_fail=$(echo "$tap" | grep -c '^not ok ' || true)
passed=$((passed + tap_ok - tap_skip))
failed=$((failed + tap_fail))
# A build stage (UAE_STAGE_BUILD=1) that succeeded counts as one passed; any other stage
# that reported nothing has tested nothing, and fails.
if [ "$status" -eq 0 ] && [ $((passed + failed + tap_skip)) -eq 0 ]; then
	if [ "${UAE_STAGE_BUILD:-0}" = 1 ]; then
		passed=1
	else
		echo "run-stage: $name reported no test" | tee -a "$log" >&2
		status=1
	fi
fi
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "run-stage: $name failed (exit $status) before any test could report" | tee -a "$log" >&2
	failed=1
fi
echo "$passed $failed $tap_skip $seconds" >"$results/$name.count"
rm -f "$results/$name.running"
echo "[$name] $passed passed, $failed failed, $tap_skip skipped in ${seconds}s"
exit "$status"
