# TAP for the host-side test scripts (sourced): result STATUS DESCRIPTION, one line per
# test; tap_end prints the plan and succeeds if there were tests and none failed.
n=0 failed=0

result() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
	fi
}

tap_end() {
	echo "1..$n"
	[ "$failed" -eq 0 ] && [ "$n" -gt 0 ]
}
