#!/bin/sh
# The closing lines of 'make check': every failed test with what it saw, then totals over
# every stage's counts (run-stage.sh). The failures come last but one so that a CI log cut
# to its tail still names them.
set -u
results=$1
passed=0 failed=0
for f in "$results"/*.count; do
	[ -e "$f" ] || continue
	read -r p fl <"$f"
	[ "$fl" -gt 0 ] || continue
	name=$(basename "$f" .count)
	echo "---- $name: failed ----"
	# A TAP "not ok" line and the "# " diagnostics that follow it (what the test saw), and
	# Check's failure lines; at most 60 lines a stage.
	sed -E 's/^\[[^]]*\] //; s/^[0-9]+: //' "$results/$name.log" | awk '
		/^not ok / { show = 1; print; next }
		/^ok / || /^1\.\./ { show = 0; next }
		show && /^#/ { print; next }
		/:[0-9]+:[EF]:/ || /^run-stage: / { print }
	' | head -n 60
done
for f in "$results"/*.count; do
	[ -e "$f" ] || continue
	read -r p fl <"$f"
	printf '%-12s %4d passed, %d failed\n' "$(basename "$f" .count)" "$p" "$fl"
	passed=$((passed + p))
	failed=$((failed + fl))
done
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
