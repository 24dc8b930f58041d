#!/bin/sh
# The systemd guest's test unit runs this: each script named, in one shell and one TAP
# stream, then the plan.  (Sourced scripts share lib.sh's counters.)
cd "$(dirname "$0")" || exit 1
. ./lib.sh
. ./helpers.sh
for script in "$@"; do
	tap_diag "---- $script ----"
	. "./$script"
done
echo "1..$tap_n" >"$TAP"
