#!/bin/sh
# Kernel coding style: scripts/checkpatch.pl from Debian's linux-source-6.1 over every C
# source and header of kernel/, sense/, kunit/ and the test helpers (tests/vm/faultinj/),
# and the UAPI header.  TAP, one line per file; fails on any warning.  Then the module
# built for each test kernel named (make check's prep stages built them; a missing one
# fails): every parameter described, identifiers without T10's text, no dead code.
#
#   checkpatch.sh SERIES...
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
src=$("$top/scripts/fetch-linux-source.sh") || exit 1
cd "$top"

files=$(ls kernel/*.[ch] sense/*.[ch] kunit/*.[ch] tests/vm/faultinj/*.[ch] \
	include/uapi/linux/*.h 2>/dev/null)
. "$top/tests/tap.sh"
for f in $files; do
	out=$("$src/scripts/checkpatch.pl" --no-tree --quiet --show-types -f "$f" 2>&1)
	result $? "checkpatch $f"
	[ -z "$out" ] || echo "$out" | sed 's/^/# /'
done
# The two private values the module reads (uae_hooks.c) are in drivers/scsi/scsi_priv.h,
# which Debian's header packages leave out: here, against the source of 6.1; kernel/Kbuild
# checks it in any full source tree it builds in; on 6.12, kernel.sh's timeout event
# needs it.
want=$(sed -n 's/^#define UAE_EH_ABORT_SCHEDULED[[:space:]]*\(0x[0-9a-f]*\).*/\1/p' kernel/uae_hooks.c)
have=$(sed -n 's/^#define SCSI_EH_ABORT_SCHEDULED[[:space:]]*\(0x[0-9a-f]*\).*/\1/p' \
	"$src/drivers/scsi/scsi_priv.h")
[ -n "$want" ] && [ "$want" = "$have" ]
result $? "uae_hooks.c's UAE_EH_ABORT_SCHEDULED ($want) is scsi_priv.h's ($have)"
want=$(sed -n 's/^#define UAE_CMD_RETRIES_NO_LIMIT[[:space:]]*\(-\{0,1\}[0-9]*\).*/\1/p' kernel/uae_hooks.c)
have=$(sed -n 's/^#define SCSI_CMD_RETRIES_NO_LIMIT[[:space:]]*\(-\{0,1\}[0-9]*\).*/\1/p' \
	"$src/drivers/scsi/scsi_priv.h")
[ -n "$want" ] && [ "$want" = "$have" ]
result $? "uae_hooks.c's UAE_CMD_RETRIES_NO_LIMIT ($want) is scsi_priv.h's ($have)"
# The KUnit suite's copy of nvme_error_status() (static in drivers/nvme/host/core.c), its
# oracle for the NVMe table, is the source's: the same cases and answers in the same order
# (183h by value, as 6.12 renamed it; the reservation status by its older name).
nvme_cases() {
	sed -n "/^static blk_status_t $2(u16 status)/,/^}/p" "$1" |
		sed -n 's/^[[:space:]]*\(case .*:\|return .*;\)[[:space:]]*$/\1/p' |
		sed 's/case 0x183:/case NVME_SC_ONCS_NOT_SUPPORTED:/;
			s/UAE_KUNIT_BLK_RESV_CONFLICT/BLK_STS_NEXUS/; s/BLK_STS_RESV_CONFLICT/BLK_STS_NEXUS/'
}
theirs=$(nvme_cases "$src/drivers/nvme/host/core.c" nvme_error_status)
ours=$(nvme_cases kunit/uae_sense_kunit.c uae_kunit_nvme_error_status)
[ -n "$theirs" ] && [ "$theirs" = "$ours" ]
rc=$?
if [ $rc -ne 0 ]; then
	echo "$theirs" >/tmp/uae-nvme-theirs.$$
	echo "$ours" >/tmp/uae-nvme-ours.$$
	diff /tmp/uae-nvme-theirs.$$ /tmp/uae-nvme-ours.$$ | sed 's/^/# /'
	rm -f /tmp/uae-nvme-theirs.$$ /tmp/uae-nvme-ours.$$
fi
result $rc "kunit's copy of nvme_error_status() is the kernel source's ($(echo "$theirs" | grep -c '^case') cases)"
kos=
for series in "$@"; do
	kver=$(basename "$("$top/tests/vm/fetch-kernel.sh" "$series")")
	ko=build/kmod/$kver/uaevents.ko
	[ -e "$ko" ]
	result $? "uaevents.ko was built for $series ($kver)"
	[ -e "$ko" ] && kos="$kos $ko"
done
# modinfo describes every parameter of every module built.
for ko in $kos; do
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
