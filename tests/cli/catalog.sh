#!/bin/sh
# Every MESSAGE_ID uaeventd uses has an entry in the journal catalog, and every catalog
# entry is used.  TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
ids=$(grep -o '"[0-9a-f]\{32\}"' "$top/uevent-agent/message_ids.h" | tr -d '"' | sort)
catalog=$(sed -n 's/^-- \([0-9a-f]\{32\}\)$/\1/p' "$top/journald/uaevents.catalog" | sort)
n=0 failed=0
for id in $ids; do
	n=$((n + 1))
	if echo "$catalog" | grep -qx "$id"; then
		echo "ok $n - catalog explains MESSAGE_ID $id"
	else
		failed=$((failed + 1)); echo "not ok $n - catalog explains MESSAGE_ID $id"
	fi
done
for id in $catalog; do
	n=$((n + 1))
	if echo "$ids" | grep -qx "$id"; then
		echo "ok $n - catalog entry $id is used"
	else
		failed=$((failed + 1)); echo "not ok $n - catalog entry $id is used"
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ] && [ "$n" -gt 0 ]
