#!/bin/sh
# Kernel coding style: scripts/checkpatch.pl from Debian's linux-source-6.1 over every file
# that is compiled into the kernel module.  TAP, one line per file; fails on any warning.
# Then modinfo: every module parameter of the built modules is described.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=$("$top/scripts/fetch-linux-source.sh")
cd "$top"

files="$(ls kernel/*.c kernel/*.h kunit/*.c tests/vm/faultinj/*.c 2>/dev/null || true)
sense/uae_sense.c sense/uae_sense.h
sense/uae_types.h include/uapi/linux/uaevents.h"
n=0 failed=0
for f in $files; do
	n=$((n + 1))
	if out=$("$src/scripts/checkpatch.pl" --no-tree --quiet --show-types -f "$f" 2>&1); then
		echo "ok $n - checkpatch $f"
	else
		failed=$((failed + 1))
		echo "not ok $n - checkpatch $f"
		echo "$out" | sed 's/^/# /'
	fi
done
# modinfo describes every parameter of every module built (make modules).
for ko in build/kmod/*/uaevents.ko; do
	[ -e "$ko" ] || continue
	for parm in history_size max_pending coalesce_ms uevents; do
		n=$((n + 1))
		if modinfo -F parm "$ko" | grep -q "^$parm:[A-Z].* (uint)$"; then
			echo "ok $n - modinfo describes $parm ($ko)"
		else
			failed=$((failed + 1))
			echo "not ok $n - modinfo describes $parm ($ko)"
		fi
	done
	# The module names events by T10 identifier; T10's descriptions are user space's.
	n=$((n + 1))
	ids=$(strings "$ko" | grep -c '^CAPACITY_DATA_HAS_CHANGED$' || true)
	descs=$(strings "$ko" | grep -c 'DATA HAS CHANGED' || true)
	if [ "$ids" -eq 1 ] && [ "$descs" -eq 0 ]; then
		echo "ok $n - $ko has identifiers, no T10 descriptions"
	else
		failed=$((failed + 1))
		echo "not ok $n - $ko has identifiers, no T10 descriptions"
		echo "# identifier CAPACITY_DATA_HAS_CHANGED $ids times, descriptions: $descs"
	fi
	n=$((n + 1))
	if nm "$ko" | grep -q 'uae_asc_description\|uae_blk_status_is_path_error'; then
		failed=$((failed + 1))
		echo "not ok $n - $ko links no code it never calls"
		nm "$ko" | grep 'uae_asc_description\|uae_blk_status_is_path_error' | sed 's/^/# /'
	else
		echo "ok $n - $ko links no code it never calls"
	fi
	n=$((n + 1))
	if [ -e "$(dirname "$ko")/uae_sense.o" ] &&
	   nm "$(dirname "$ko")/uae_sense.o" | grep -q ' T uae_sense_decode$'; then
		echo "ok $n - the decoder is its own object in $ko"
	else
		failed=$((failed + 1))
		echo "not ok $n - the decoder is its own object in $ko"
		ls "$(dirname "$ko")" | sed 's/^/# /'
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
