#!/bin/sh
# Judge a guest's TAP: a plan, as many results as planned, none failed.  Prints the TAP
# with the kernel release in front; on failure also the end of the guest console.
#
#   judge-tap.sh OUTDIR KVER SCRIPT      (OUTDIR holds tap.log and console.log)
set -eu
out=$1 kver=$2 script=$3

# The serial line turned every newline into CR LF.
tr -d '\r' <"$out/tap.log" >"$out/tap.txt" && mv "$out/tap.txt" "$out/tap.log"
sed "s/^/[$kver] /" "$out/tap.log"
planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out/tap.log" | tail -n 1)
passed=$(grep -c '^ok ' "$out/tap.log" || true)
failed=$(grep -c '^not ok ' "$out/tap.log" || true)
if [ -z "$planned" ] || [ $((passed + failed)) -ne "$planned" ] || [ "$failed" -ne 0 ]; then
	echo "$script on $kver: $passed passed, $failed failed, ${planned:-no} plan" >&2
	echo "last lines of the guest console ($out/console.log):" >&2
	tail -n 60 "$out/console.log" >&2 || true
	exit 1
fi
echo "$script on $kver: all $passed passed"
