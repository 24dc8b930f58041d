#!/bin/bash
# Example: page someone when a thin pool runs low on space, from `uaectl monitor --json`.
#
#   page-on-low-space.sh [PAGER-COMMAND...]     (default: logger -p user.warning)
#
# Each alert is handed to the pager command as one argument.  Device-supplied strings
# (WWID, serial) stay data: jq extracts them, bash quotes them, nothing evaluates them.
set -euo pipefail
pager=("${@:-logger}")
[ $# -gt 0 ] || pager+=(-p user.warning -t uaevents-page)

uaectl monitor --json --filter category=space |
while IFS= read -r event; do
	message=$(jq -r '"Thin pool low on space behind \(.device // "?") (\(.hctl), WWID \(.wwid // "unknown")): \(.event), seq \(.seq)"' <<<"$event")
	"${pager[@]}" "$message"
done
