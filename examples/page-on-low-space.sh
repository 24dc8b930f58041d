#!/bin/bash
# Example: page someone when a thin pool runs low on space or out of it, from
# `uaectl monitor --json` (by the events' names: a full pool's failed write is an error,
# which has no category).
#
#   page-on-low-space.sh [PAGER-COMMAND...]     (default: logger -p user.warning)
#
# Each alert is handed to the pager command as one argument.  Device-supplied strings
# (WWID, serial) stay data: jq extracts them, bash quotes them, nothing evaluates them.
set -euo pipefail
pager=("${@:-logger}")
[ $# -gt 0 ] || pager+=(-p user.warning -t uaevents-page)

uaectl monitor --json --filter event=THIN_PROVISIONING_SOFT_THRESHOLD_REACHED \
	--filter event=SPACE_ALLOCATION_FAILED_WRITE_PROTECT |
while IFS= read -r event; do
	message=$(jq -r '"Thin pool low on or out of space behind \(.device // "?") (\(.hctl), WWID \(.wwid // "unknown")): \(.event), seq \(.seq)"' <<<"$event")
	"${pager[@]}" "$message"
done
