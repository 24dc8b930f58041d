#!/bin/sh
# Build the libFuzzer targets (clang, ASan + UBSan) and run each for a while.  TAP.
#
#   run-fuzz.sh BUILD-DIR GENERATED-HEADERS-DIR SECONDS [TARGET...]
#     TARGET  sense, event (default: both, in turn; make check runs each as its own stage)
#
# New inputs go to BUILD-DIR/corpus/<target>, seeded from tests/fuzz/corpus/<target>,
# so the committed seed corpus changes only by hand.  A crash keeps its input in
# BUILD-DIR and fails the run.
set -u
out=$1 gen=$2 seconds=$3
shift 3
targets=${*:-sense event}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
gen=$(cd "$gen" && pwd)
n=0 failed=0

# The sources and libraries of each target, beside its own fuzz_<target>.c.
sources_sense="$top/sense/uae_sense.c"
sources_event="$top/sense/uae_sense.c $top/sense/uae_nvme.c $top/libuaevents/event.c"
flags_event="-I$top/libuaevents -I$top/include/uapi $(pkg-config --cflags libnl-genl-3.0)"
libs_event="$(pkg-config --libs libnl-genl-3.0)"

for target in $targets; do
	n=$((n + 1))
	bin=$out/fuzz_$target
	eval "sources=\$sources_$target flags=\${flags_$target:-} libs=\${libs_$target:-}"
	# shellcheck disable=SC2086
	if ! clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-I"$top/sense" -I"$gen" $flags "$here/fuzz_$target.c" $sources $libs \
		-o "$bin"; then
		echo "not ok $n - fuzz_$target builds"
		failed=$((failed + 1))
		continue
	fi
	mkdir -p "$out/corpus/$target"
	log=$out/fuzz_$target.log
	(cd "$out" && "$bin" -max_total_time="$seconds" -print_final_stats=1 \
		"$out/corpus/$target" "$here/corpus/$target") >"$log" 2>&1
	status=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ "$status" -eq 0 ] && [ -n "$runs" ]; then
		echo "ok $n - fuzz_$target: $runs executions in ${seconds}s, 0 crashes"
	else
		failed=$((failed + 1))
		echo "not ok $n - fuzz_$target: exit $status after ${runs:-?} executions"
		grep -E "ERROR|SUMMARY|Test unit written" "$log" | sed 's/^/# /'
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
