# Sourced by the make bench scripts (bench.sh, bench-scale.sh): how a figure is printed,
# and the clocks and counters the figures are read from.

# figure NAME VALUE OP GOAL UNIT DETAIL: one figure; OP ">=", "<=" or "==" against GOAL, or
# "" for a figure with no goal (a cost to read, not to pass).
figure() {
	jq -cn --arg name "$1" --argjson value "$2" --arg op "$3" --argjson goal "${4:-null}" \
		--arg unit "$5" --arg detail "$6" '{name: $name, value: $value, unit: $unit,
		goal: (if $op == "" then null else "\($op) \($goal)" end),
		pass: (if $op == "" then null elif $op == ">=" then $value >= $goal
		       elif $op == "<=" then $value <= $goal else $value == $goal end),
		detail: $detail}' >/tmp/figure.json || return 1
	tap_diag "BENCH $(cat /tmp/figure.json)"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] + 0 }'; }
# quartiles: "P25 P75" of the numbers on stdin.
quartiles() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 3) / 4)] + 0, v[int((3 * NR + 3) / 4)] + 0 }'
}
# Seconds since boot, to the hundredth (busybox's date has no %N).
now() { cut -d ' ' -f 1 /proc/uptime; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# CPU seconds (user + system) a process has used so far; /proc counts in USER_HZ, 100 on x86.
cpu_of() { awk -v hz=100 '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$1/stat"; }
# CPU seconds a process's children used, those it waited for (and theirs) so far.
children_cpu_of() { awk -v hz=100 '{ printf "%.3f", ($16 + $17) / hz }' "/proc/$1/stat"; }
# Processes created since boot (/proc/stat's "processes").
forks() { awk '/^processes/ { print $2 }' /proc/stat; }
# CPU seconds the kernel spent (system, irq, softirq) on all CPUs so far.
kernel_cpu() {
	awk -v hz=100 '/^cpu / { printf "%.3f", ($4 + $7 + $8) / hz }' /proc/stat
}
# settle COUNTER...: wait until COUNTER's number has not grown for 3 s (at most 10 min);
# sets $settled to it and $settled_at to when it last grew.
settle() {
	settled=-1 settled_at=$(now) quiet=0 start=$(now)
	while [ "$quiet" -lt 3 ] && [ "$(elapsed "$start" "$(now)" | cut -d. -f1)" -lt 600 ]; do
		n=$("$@")
		if [ "$n" != "$settled" ]; then
			settled=$n settled_at=$(now) quiet=0
		else
			quiet=$((quiet + 1))
		fi
		sleep 1
	done
}
