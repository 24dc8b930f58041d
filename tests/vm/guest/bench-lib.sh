# Sourced by the make bench scripts (bench.sh, bench-scale.sh, bench-nvme.sh): how a
# figure is printed, the clocks and counters the figures are read from, and the pipeline
# with and without which one is taken.

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

# ---- the pipeline with and without which a figure is taken (bench.sh, bench-nvme.sh) ----
listening() { journalctl -t uaeventd -o cat 2>/dev/null | grep -c '^uaeventd: listening'; }
# The whole pipeline: uaevents.ko, uaeventd logging to the journal, a subscriber.
pipeline_up() {
	before=$(listening)
	# shellcheck disable=SC2086
	insmod /modules/uaevents.ko $1
	uaeventd 2>>/tmp/uaeventd.err &
	UAED=$!
	uaectl monitor --json >"${2:-/dev/null}" 2>/dev/null &
	MON=$!
	wait_for 30 sh -c "[ \$(journalctl -t uaeventd -o cat | grep -c '^uaeventd: listening') -gt $before ]"
}
pipeline_down() {
	kill "$MON" "$UAED" 2>/dev/null
	wait "$MON" "$UAED" 2>/dev/null
	rmmod uaevents
}
with_pipeline() {
	pipeline_up >/dev/null 2>&1
	"$@"
	pipeline_down
}
# The module and one subscriber, as a script subscribes (the issue's pattern, no uaeventd).
with_subscriber() {
	insmod /modules/uaevents.ko
	uaectl monitor --json >/dev/null 2>&1 &
	sub=$!
	wait_for 10 waits_in_poll "$sub"
	"$@"
	kill "$sub" 2>/dev/null
	wait "$sub" 2>/dev/null
	rmmod uaevents
}
# The module alone, no consumer: what the kernel side costs by itself.
with_module() {
	insmod /modules/uaevents.ko
	"$@"
	rmmod uaevents
}

# after_settle COMMAND...: COMMAND, $SETTLE seconds (0 unless set) after whatever came
# before it, a module's load or unload among them.  Right after uaevents.ko is loaded, the
# run on nvmet's loop transport at queue depth 32 batched requests between fio and the
# workqueues the slower way for its whole length (more context switches per I/O), 2 to 7%
# fewer IOPS, while no handler of the module ran; the cause is not isolated (a trace of
# load, run and unload showed SRCU callbacks, deferred vfree and workqueue flushes;
# docs/benchmarks.md, "NVMe").  A host loads the module once: what it runs is the settled
# state, and both sides of a round wait alike.
after_settle() {
	case ${SETTLE:-0} in
	0) ;;
	*) sleep "$SETTLE" ;;
	esac
	"$@"
}

# alternate RUNS STOCK LOADED COMMAND...: COMMAND's figures without and with the pipeline
# ($WITH: with_pipeline unless set), RUNS each, alternating which goes first so that drift
# in the emulator favours neither; each run after_settle (above).
alternate() {
	runs=$1 stock_out=$2 loaded_out=$3
	shift 3
	: >"$stock_out"
	: >"$loaded_out"
	for i in $(seq "$runs"); do
		if [ $((i % 2)) -eq 1 ]; then
			after_settle "$@" >>"$stock_out"
			${WITH:-with_pipeline} after_settle "$@" >>"$loaded_out"
		else
			${WITH:-with_pipeline} after_settle "$@" >>"$loaded_out"
			after_settle "$@" >>"$stock_out"
		fi
	done
}

# compare NAME UNIT GOAL STOCK LOADED WHAT: the median ratio of loaded to stock, with the
# spread of the per-round ratios (each round's loaded run against its own stock run).
compare() {
	paste "$4" "$5" | awk '$1 > 0 { printf "%.4f\n", $2 / $1 }' >/tmp/ratios
	s=$(median <"$4") l=$(median <"$5")
	spread=$(quartiles </tmp/ratios)
	ratio=$(awk -v s="$s" -v l="$l" 'BEGIN { printf "%.3f", (s > 0 ? l / s : 0) }')
	figure "$1" "$ratio" "${3:+>=}" "$3" ratio "$6: median $l with the pipeline against $s stock ($2); per-round ratios p25-p75 $(echo "$spread" | tr ' ' '-'), $(wc -l </tmp/ratios) rounds: $(tr '\n' ' ' </tmp/ratios)"
}

# iops RW QD: IOPS of one fio run on /dev/$DISK.
iops() {
	fio --name=bench --filename="/dev/$DISK" --rw="$1" --bs=4k --direct=1 --ioengine=libaio \
		--iodepth="$2" --runtime="$SECONDS_PER_RUN" --time_based --output-format=json |
		jq '[.jobs[0].read.iops, .jobs[0].write.iops] | add | floor'
}
