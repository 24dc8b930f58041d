#!/bin/sh
# make bench's results: the figures a guest printed ("# BENCH {json}" in its TAP log) as one
# JSON file per kernel, with the kernel and the machine, and as a table; or two such files
# side by side.
#
#   report.sh KERNEL OUT.json TAP-LOG...  the JSON file, then the table
#   report.sh --compare OLD.json NEW.json  each figure of both, and the change
set -eu

table() {
	jq -r '"\(.kernel) on \(.machine.cpu), \(.machine.cores) cores, QEMU TCG \(.machine.qemu), \(.date)",
		(.figures[] | [.name, (.value | tostring) + " " + .unit, (.goal // "-"),
		 (if .pass == null then "-" elif .pass then "pass" else "FAIL" end)] | @tsv)' "$1" |
		awk -F '\t' 'NR == 1 { print; printf "%-24s %-32s %-10s %s\n", "figure", "value", "goal", "result"; next }
			{ printf "%-24s %-32s %-10s %s\n", $1, $2, $3, $4 }'
}

if [ "${1:-}" = --compare ]; then
	old=${2:?usage: report.sh --compare OLD.json NEW.json} new=${3:?}
	echo "old: $(jq -r '"\(.kernel), \(.date)"' "$old")"
	echo "new: $(jq -r '"\(.kernel), \(.date)"' "$new")"
	printf "%-24s %14s %14s %9s\n" figure old new change
	jq -rn --slurpfile o "$old" --slurpfile n "$new" '
		($o[0].figures | map({(.name): .value}) | add // {}) as $ov |
		$n[0].figures[] | [.name, ($ov[.name] // "-"), (.value // "null"),
			(if (.value | type) == "number" and (($ov[.name] // 0) | type) == "number" and ($ov[.name] // 0) != 0 then ((.value / $ov[.name] - 1) * 100 | . * 10 | round / 10 | tostring) + "%" else "-" end)] | @tsv' |
		awk -F '\t' '{ printf "%-24s %14s %14s %9s\n", $1, $2, $3, $4 }'
	exit 0
fi

kernel=${1:?usage: report.sh KERNEL OUT.json TAP-LOG...} out=${2:?}
shift 2
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
qemu=$(qemu-system-x86_64 --version | sed -n 's/^QEMU emulator version \([^ ]*\).*/\1/p')
release=$(cat "$@" | sed -n 's/^# BENCH-KERNEL //p' | head -n 1)
cat "$@" | sed -n 's/^# BENCH //p' | jq -s --arg k "$kernel${release:+ ($release)}" --arg cpu "$cpu" --arg q "$qemu" \
	--argjson cores "$(nproc)" --arg date "$(date -u +%Y-%m-%dT%H:%MZ)" \
	'{kernel: $k, date: $date, machine: {cpu: $cpu, cores: $cores, qemu: $q}, figures: .}' >"$out"
if [ "$(jq '.figures | length' "$out")" -eq 0 ]; then
	echo "report.sh: no figures in $*" >&2
	exit 1
fi
table "$out"
