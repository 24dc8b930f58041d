#!/bin/sh
# Every MESSAGE_ID uaeventd uses has an entry in the journal catalog, and every catalog
# entry is used.  TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
ids=$(grep -o '"[0-9a-f]\{32\}"' "$top/uevent-agent/message_ids.h" | tr -d '"' | sort)
catalog=$(sed -n 's/^-- \([0-9a-f]\{32\}\)$/\1/p' "$top/journald/uaevents.catalog" | sort)
. "$top/tests/tap.sh"
for id in $ids; do
	echo "$catalog" | grep -qx "$id"
	result $? "catalog explains MESSAGE_ID $id"
done
for id in $catalog; do
	echo "$ids" | grep -qx "$id"
	result $? "catalog entry $id is used"
done
tap_end
