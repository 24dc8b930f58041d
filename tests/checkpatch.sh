#!/bin/sh
# Kernel coding style: scripts/checkpatch.pl from Debian's linux-source-6.1 over every file
# that is compiled into the kernel module.  TAP, one line per file; fails on any warning.
# Then modinfo: every module parameter of the built modules is described.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=$("$top/scripts/fetch-linux-source.sh")
cd "$top"

files="$(ls kernel/*.c kernel/*.h kunit/*.c 2>/dev/null || true) sense/uae_sense.c sense/uae_sense.h
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
done
echo "1..$n"
[ "$failed" -eq 0 ]
