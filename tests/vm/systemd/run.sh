#!/bin/sh
# The systemd guest's test unit runs this: each script named, in one shell and one TAP
# stream.  (Sourced scripts share lib.sh's counters.)  The plan comes first: the sum of the
# scripts' "# tap-plan: N" headers, so a check that never runs is a missing result.
cd "$(dirname "$0")" || exit 1
. ./lib.sh
. ./helpers.sh
plan=0
for script in "$@"; do
	n=$(sed -n 's/^# tap-plan: \([0-9]*\)$/\1/p' "./$script" | head -n 1)
	plan=$((plan + ${n:-0}))
done
# One result of its own: the scripts start once the unit they test is up.
echo "1..$((plan + 1))" >"$TAP"
check "uaeventd.service is active before the scripts run" \
	wait_for 60 systemctl is-active --quiet uaeventd
# Each script's seconds, to see where the guest's time goes.
times=
for script in "$@"; do
	tap_diag "---- $script ----"
	run_t0=$(date +%s)
	. "./$script"
	times="$times $script=$(($(date +%s) - run_t0))s"
done
tap_diag "run.sh: all scripts ran; seconds:$times"
