#!/bin/sh
# The closing line of 'make check': totals over every stage's counts (run-stage.sh).
set -u
results=$1
passed=0 failed=0
for f in "$results"/*.count; do
	[ -e "$f" ] || continue
	read -r p fl <"$f"
	printf '%-12s %4d passed, %d failed\n' "$(basename "$f" .count)" "$p" "$fl"
	passed=$((passed + p))
	failed=$((failed + fl))
done
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
