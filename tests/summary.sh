#!/bin/sh
# The closing lines of 'make check': every failed test with what it saw, each stage's
# counts and seconds, the slowest five, then the totals.  The failures come first so that a
# CI log cut to its tail still names them, and the totals last.
#
#   summary.sh RESULTS-DIR STATUS STAGE...
#     STATUS  make's exit status for the stages (nonzero: something failed; 124: the run
#             was stopped at its time limit)
#     STAGE   every stage the run was to have: one without counts (a prerequisite failed,
#             or the run was stopped at its time limit) is a failure
set -u
results=$1 status=$2
shift 2
passed=0 failed=0 skipped=0
for name in "$@"; do
	f=$results/$name.count
	[ -e "$f" ] || continue
	read -r p fl sk s <"$f"
	[ "$fl" -gt 0 ] || continue
	echo "---- $name: failed ----"
	# A TAP "not ok" line and the "# " diagnostics that follow it (what the test saw), and
	# Check's failure lines; at most 60 lines a stage.
	sed -E 's/^\[[^]]*\] //; s/^[0-9]+: //' "$results/$name.log" | awk '
		/^not ok / { show = 1; print; next }
		/^ok / || /^1\.\./ { show = 0; next }
		show && /^#/ { print; next }
		/:[0-9]+:[EF]:/ || /^run-stage: / || / on .*: .* passed .*failed: / { print }
	' | head -n 60
done
: >"$results/times"
for name in "$@"; do
	f=$results/$name.count
	if [ -e "$f" ]; then
		read -r p fl sk s <"$f"
		printf '%-22s %4d passed, %d failed, %d skipped  %5ss\n' "$name" "$p" "$fl" "$sk" "$s"
		echo "$s $name" >>"$results/times"
	elif [ -e "$results/$name.running" ]; then
		printf '%-22s stopped unfinished (time limit)\n' "$name"
		p=0 fl=1 sk=0
	elif [ "$status" -eq 124 ]; then
		printf '%-22s not started before the time limit\n' "$name"
		p=0 fl=1 sk=0
	else
		printf '%-22s did not run (a stage it needs failed)\n' "$name"
		p=0 fl=1 sk=0
	fi
	passed=$((passed + p))
	failed=$((failed + fl))
	skipped=$((skipped + sk))
done
echo "slowest stages:"
sort -rn "$results/times" | head -n 5 | while read -r s name; do
	printf '  %-22s %5ss\n' "$name" "$s"
done
[ -f "$results/started" ] &&
	echo "wall time: $(($(date +%s) - $(cat "$results/started")))s"
# make failed although every stage counted passed: count that too, so the closing line
# never says "0 failed" beside a failed make.
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "make failed (exit $status) outside any counted stage"
	failed=1
fi
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
