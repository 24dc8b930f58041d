#!/bin/sh
# uaectl decode against an independent decoder, sg_decode_sense from sg3_utils: for each
# buffer both must agree on format, current/deferred, sense key and additional sense.
# Then uaectl's own answers: JSON fields, classification, errors and exit codes.  TAP.
#
#   decode.sh UAECTL
set -u
uaectl=$1
. "$(dirname "$0")/../tap.sh"

lower() { tr -d "<>" | tr "A-Z" "a-z" | tr -s " "; }

# Agreement with sg_decode_sense on one buffer (bytes as separate hex arguments).
agree() {
	sg=$(sg_decode_sense "$@" 2>&1)
	ours=$("$uaectl" decode --json "$@")
	format=$(echo "$ours" | jq -r '.format + " format, " + (if .deferred then "deferred" else "current" end)')
	key=$(echo "$ours" | jq -r '.sense_key_name')
	adesc=$(echo "$ours" | jq -r ".description // empty")
	first=$(echo "$sg" | head -n 1 | lower)
	echo "$first" | grep -qF "$(echo "$format" | lower)" &&
		echo "$first" | grep -qF "$(echo "$key" | lower | cut -c1-12)" &&
		{ [ -z "$adesc" ] || echo "$sg" | lower | grep -qF "additional sense: $(echo "$adesc" | lower)"; }
}

check_agree() {
	desc=$1
	shift
	if agree "$@"; then
		result 0 "agrees with sg_decode_sense: $desc"
	else
		result 1 "agrees with sg_decode_sense: $desc"
		echo "# sg_decode_sense: $(sg_decode_sense "$@" 2>&1 | tr '\n' '|')"
		echo "# uaectl: $("$uaectl" decode "$@" 2>&1 | tr '\n' '|')"
	fi
}

check_agree "UA capacity changed, fixed" 70 00 06 00 00 00 00 0a 00 00 00 00 2a 09 00 00 00 00
check_agree "UA LUNs changed, descriptor" 72 06 3f 0e 00 00 00 00
check_agree "soft threshold, deferred fixed" 71 00 06 00 00 00 00 0a 00 00 00 00 38 07 00 00 00 00
check_agree "medium error with information descriptor" \
	72 03 11 00 00 00 00 0c 00 0a 80 00 00 00 00 00 00 00 12 34
check_agree "illegal request, field pointer" \
	f0 00 05 00 00 12 34 0a 00 00 00 00 24 00 00 c8 00 02
check_agree "data protect, space allocation failed" \
	70 00 07 00 00 00 00 0a 00 00 00 00 27 07 00 00 00 00
check_agree "ALUA transitioning" 70 00 02 00 00 00 00 0a 00 00 00 00 04 0a 00 00 00 00
check_agree "aborted command, deferred descriptor" 73 0b 47 03 00 00 00 00
check_agree "post-2015 code: depopulation in progress" 72 02 04 24 00 00 00 00

json() { "$uaectl" decode --json "$@"; }

json 70 00 06 00 00 00 00 0a 00 00 00 00 2a 09 00 00 00 00 |
	jq -e '.event == "CAPACITY_DATA_HAS_CHANGED" and .category == "parameters"
		and .classification.rule == 42' >/dev/null
result $? "JSON: a UA carries its event name, category and classification rule"

json f0 00 05 00 00 12 34 0a 00 00 00 00 24 00 00 c8 00 02 |
	jq -e '.information == 4660 and .sense_key_specific.kind == "field pointer"
		and .sense_key_specific.field_pointer == 2 and .sense_key_specific.in_cdb' >/dev/null
result $? "JSON: information and sense-key-specific field pointer"

json 70 00 09 00 00 00 00 0a 00 00 00 00 c1 01 00 00 00 00 |
	jq -e '.vendor_specific and .description == null' >/dev/null
result $? "JSON: vendor-specific ASC reported as such"

json 72 03 11 00 00 00 00 28 00 0a 80 00 00 00 00 00 00 00 12 34 |
	jq -e '.status == "partial"' >/dev/null
result $? "JSON: additional length beyond the buffer is partial"

json --host-byte DID_TRANSPORT_FAILFAST --status GOOD |
	jq -e '.classification | .locus == "transport" and .failover and .blk_status == "TRANSPORT"' \
	>/dev/null
result $? "classification by host byte alone: DID_TRANSPORT_FAILFAST"

json --host-byte 0 --status 0x18 |
	jq -e '.classification | .severity == "fatal" and (.failover | not)
		and .blk_status == "RESV_CONFLICT"' >/dev/null
result $? "classification by status number: RESERVATION CONFLICT"

"$uaectl" decode 70 00 0 >/dev/null 2>&1
result $(($? == 2 ? 0 : 1)) "odd hex digits: exit 2"
"$uaectl" decode 70 zz >/dev/null 2>&1
result $(($? == 2 ? 0 : 1)) "malformed hex: exit 2"
"$uaectl" decode >/dev/null 2>&1
result $(($? == 2 ? 0 : 1)) "nothing to decode: exit 2"
"$uaectl" decode --status NOPE 70 >/dev/null 2>&1
result $(($? == 2 ? 0 : 1)) "unknown status name: exit 2"
"$uaectl" decode 00 01 02 >/dev/null 2>&1
result $(($? == 1 ? 0 : 1)) "bytes that are not sense data: exit 1"
"$uaectl" decode "$(printf '%0512d' 0)" >/dev/null 2>&1
result $(($? == 2 ? 0 : 1)) "more than 252 bytes: exit 2"
# NVMe completion statuses (issue 31's decoder): a name, the flags, the NVMe table's class.
"$uaectl" decode --json --nvme 0x4281 |
	jq -e '.name == "UNRECOVERED_READ_ERROR" and .sct_name == "MEDIA_AND_DATA_INTEGRITY"
		and .dnr and (.more | not) and .classification.blk_status == "MEDIUM"
		and .classification.severity == "fatal" and (.classification.failover | not)' >/dev/null
result $? "NVMe status 4281h: unrecovered read error, DNR, fatal, MEDIUM"
"$uaectl" decode --json --nvme 0x303 |
	jq -e '.name == "ASYMMETRIC_ACCESS_TRANSITION" and .classification.failover and
		.classification.severity == "retryable"' >/dev/null
result $? "NVMe status 303h: ANA transition, another path may help"
"$uaectl" decode --json --nvme 0x0081 |
	jq -e '.name == "CAPACITY_EXCEEDED" and .classification.blk_status == "NOSPC"' >/dev/null
result $? "NVMe status 81h: capacity exceeded, the thin pool's NOSPC"
[ "$("$uaectl" decode --json --nvme 4281)" = "$("$uaectl" decode --json --nvme 0x4281)" ]
result $? "an NVMe status is hex with or without 0x"
"$uaectl" decode --json --nvme 0x2/0x81 |
	jq -e '.value == 641 and .name == "UNRECOVERED_READ_ERROR" and (.dnr | not)' >/dev/null
result $? "an NVMe status as the kernel log gives it: sct 0x2 / sc 0x81"
"$uaectl" decode --nvme 4303 | grep -q '^Classification: fatal (DNR set),'
result $? "DNR turns ANA transition's retryable into fatal, and says so"
"$uaectl" decode --nvme 8/00 >/dev/null 2>&1
result $(($? == 2 ? 0 : 1)) "an NVMe status code type past 7: exit 2"
"$uaectl" decode --nvme 0x8000 >/dev/null 2>&1
result $(($? == 2 ? 0 : 1)) "an NVMe status past 15 bits: exit 2"
"$uaectl" decode --nvme 0x81 70 00 >/dev/null 2>&1
result $(($? == 2 ? 0 : 1)) "an NVMe status with sense bytes: exit 2"
"$uaectl" frobnicate >/dev/null 2>&1
result $(($? == 2 ? 0 : 1)) "unknown command: exit 2"

tap_end
