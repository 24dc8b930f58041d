#!/bin/sh
# The documentation cannot drift from what it documents (issue 32).  TAP.
#  - docs/messages.md has a section (a heading naming it) for every MESSAGE_ID uaeventd
#    uses, and names no other;
#  - every relative link of README.md and docs/*.md reaches a file of the tree;
#  - every man page README.md, docs/*.md and the man pages send the reader to is shipped;
#  - README.md stays a front door: at most 160 lines.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/tap.sh"

ids=$(grep -o '"[0-9a-f]\{32\}"' "$top/uevent-agent/message_ids.h" | tr -d '"' | sort -u)
headed=$(grep -E '^#{2,4} ' "$top/docs/messages.md" | grep -o '[0-9a-f]\{32\}' | sort -u)
for id in $ids; do
	echo "$headed" | grep -qx "$id"
	result $? "docs/messages.md has a section for MESSAGE_ID $id"
done
extra=$(echo "$headed" | grep -vxF "$ids")
[ -z "$extra" ]
rc=$?
[ $rc -eq 0 ] || echo "# headed but not used by uaeventd: $extra"
result $rc "docs/messages.md heads no MESSAGE_ID uaeventd does not use"

# Relative links: [text](path) and [text](path#anchor), from the linking file's folder.
for f in "$top/README.md" "$top"/docs/*.md; do
	missing=
	for link in $(grep -o '](\([^)#:]*\)\(#[^)]*\)\?)' "$f" | sed 's/^](\([^)#]*\).*/\1/'); do
		[ -n "$link" ] && [ ! -e "$(dirname "$f")/$link" ] && missing="$missing $link"
	done
	[ -z "$missing" ]
	rc=$?
	[ $rc -eq 0 ] || echo "# missing:$missing"
	result $rc "every relative link of ${f#"$top"/} reaches a file"
done

# "`man uaeventd.conf`", "uaeventd.conf(5)": pages of this project the reader is sent to.
pages=$(cat "$top/README.md" "$top"/docs/*.md |
	grep -o '`man [a-z_.]*`\|\(uae\|libuae\)[a-z_.]*([1358])' | tr -d '`' |
	sed 's/^man //; s/(\([0-9]\))$/.\1/' | grep '^\(uae\|libuae\)' | sort -u)
missing=
for p in $pages; do
	case $p in
	*.[1358]) [ -e "$top/man/$p" ] || missing="$missing $p" ;;
	*) ls "$top/man/$p".[1358] >/dev/null 2>&1 || missing="$missing $p" ;;
	esac
done
[ -z "$missing" ]
rc=$?
[ $rc -eq 0 ] || echo "# no such page in man/:$missing"
result $rc "every uaevents man page the documentation names is shipped ($(echo $pages))"

# The man pages send the reader to each other: every page of this project one names is
# shipped.
# (A function of a family is a .so page man/CMakeLists.txt makes: "PAGE:NAME NAME...".)
aliases=$(sed -n 's/^ *"[a-z_]*:\([a-z_ ]*\)".*/\1/p' "$top/man/CMakeLists.txt" | tr ' ' '\n' | sed 's/$/.3/')
missing=
for ref in $(cat "$top"/man/*.[1358] | sed -n 's/^\.BR* \(\(uae\|libuae\)[a-z_.]*\) (\([1358]\)).*/\1.\3/p' | sort -u); do
	[ -e "$top/man/$ref" ] || echo "$aliases" | grep -qx "$ref" || missing="$missing $ref"
done
[ -z "$missing" ]
rc=$?
[ $rc -eq 0 ] || echo "# named in a man page, not in man/:$missing"
result $rc "every uaevents page a man page names is shipped"

lines=$(wc -l <"$top/README.md")
[ "$lines" -le 160 ]
rc=$?
[ $rc -eq 0 ] || echo "# README.md has $lines lines; its depth belongs in docs/"
result $rc "README.md is a front door of at most 160 lines ($lines)"
tap_end
