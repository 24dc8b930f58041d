#!/bin/sh
# Judge a guest's TAP: one plan, written before the first result, as many results as
# planned, none failed.  Prints the TAP with the kernel release in front; on failure also
# the end of the guest console.
#
#   judge-tap.sh OUTDIR KVER SCRIPT      (OUTDIR holds tap.log and console.log)
set -eu
out=$1 kver=$2 script=$3

# The serial line turned every newline into CR LF.
touch "$out/tap.log"
tr -d '\r' <"$out/tap.log" >"$out/tap.txt" && mv "$out/tap.txt" "$out/tap.log"
sed "s/^/[$kver] /" "$out/tap.log"
plans=$(grep -c '^1\.\.[0-9]*$' "$out/tap.log" || true)
planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out/tap.log" | head -n 1)
first=$(grep -v '^#' "$out/tap.log" | grep -v '^$' | head -n 1)
passed=$(grep -c '^ok ' "$out/tap.log" || true)
failed=$(grep -c '^not ok ' "$out/tap.log" || true)
skipped=$(grep -c '^ok .*# SKIP' "$out/tap.log" || true)
why=
if [ "$plans" -ne 1 ] || [ "$first" != "1..$planned" ]; then
	why="want one plan before the first result, got $plans plan line(s), first line '$first'"
elif [ "$planned" -eq 0 ]; then
	why="the plan is empty: nothing was tested"
elif [ $((passed + failed)) -ne "$planned" ]; then
	why="planned $planned, got $((passed + failed)) results: a check did not run"
	# A missing result is a failure of its own in the stage's count (run-stage.sh).
	echo "not ok - $script on $kver: planned $planned results, got $((passed + failed))"
elif [ "$failed" -ne 0 ]; then
	why="$failed failed"
fi
if [ -n "$why" ]; then
	echo "$script on $kver: $passed passed ($skipped skipped), $failed failed: $why" >&2
	echo "last lines of the guest console ($out/console.log):" >&2
	tail -n 60 "$out/console.log" >&2 || true
	# Last, so that the end of a long log (all CI shows) names what failed: the failed
	# results with what they saw, and the numbers of results that never came.
	# (Indented: run-stage.sh counts the lines that start with "not ok".)
	echo "$script on $kver: what failed:" >&2
	awk '/^not ok / { on = 1; print "  " $0; next } /^ok / { on = 0 } on && /^#/ { print "  " $0 }' \
		"$out/tap.log" >&2
	missing=$(grep -o '^\(not \)\?ok [0-9]*' "$out/tap.log" | awk '{ print $NF }' |
		awk -v n="$planned" '{ seen[$1] = 1 } END { for (i = 1; i <= n; i++) if (!seen[i]) printf " %d", i }')
	[ -z "$missing" ] || echo "$script on $kver: no result numbered$missing" >&2
	exit 1
fi
echo "$script on $kver: all $passed passed ($skipped skipped)"
