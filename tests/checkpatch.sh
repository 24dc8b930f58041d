#!/bin/sh
# Kernel coding style: scripts/checkpatch.pl from Debian's linux-source-6.1 over every file
# that is compiled into the kernel module.  TAP, one line per file; fails on any warning.
# Then modinfo: every module parameter of the built modules is described.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
src=$("$top/scripts/fetch-linux-source.sh") || exit 1
cd "$top"

files="$(ls kernel/*.c kernel/*.h kunit/*.c tests/vm/faultinj/*.c 2>/dev/null || true)
sense/uae_sense.c sense/uae_sense.h
sense/uae_types.h include/uapi/linux/uaevents.h"
. "$top/tests/tap.sh"
for f in $files; do
	out=$("$src/scripts/checkpatch.pl" --no-tree --quiet --show-types -f "$f" 2>&1)
	result $? "checkpatch $f"
	[ -z "$out" ] || echo "$out" | sed 's/^/# /'
done
# modinfo describes every parameter of every module built (make modules).
for ko in build/kmod/*/uaevents.ko; do
	[ -e "$ko" ] || continue
	for parm in history_size max_pending coalesce_ms uevents; do
		modinfo -F parm "$ko" | grep -q "^$parm:[A-Z].* (uint)$"
		result $? "modinfo describes $parm ($ko)"
	done
	# The module names events by T10 identifier; T10's descriptions are user space's.
	ids=$(strings "$ko" | grep -c '^CAPACITY_DATA_HAS_CHANGED$' || true)
	descs=$(strings "$ko" | grep -c 'DATA HAS CHANGED' || true)
	[ "$ids" -eq 1 ] && [ "$descs" -eq 0 ]
	result $? "$ko has identifiers, no T10 descriptions"
	echo "# identifier CAPACITY_DATA_HAS_CHANGED $ids times, descriptions: $descs"
	unused=$(nm "$ko" | grep 'uae_asc_description\|uae_blk_status_is_path_error')
	[ -z "$unused" ]
	result $? "$ko links no code it never calls"
	[ -z "$unused" ] || echo "$unused" | sed 's/^/# /'
	obj="$(dirname "$ko")/uae_sense.o"
	[ -e "$obj" ] && nm "$obj" | grep -q ' T uae_sense_decode$'
	result $? "the decoder is its own object in $ko"
done
tap_end
