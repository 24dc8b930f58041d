#!/bin/sh
# uaeventd.conf(5) and the shipped uaeventd.conf cannot drift: every setting the file
# lists (commented out, with its default) has its entry in the man page's section for it,
# saying that default, and the page describes no setting the file lacks.  A setting whose
# line in the file is a suggestion (resize_command) is "Default empty" in the page, which
# says the file suggests that value.  TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
conf=$top/uevent-agent/uaeventd.conf
page=$top/man/uaeventd.conf.5
. "$top/tests/tap.sh"
# "section name default" per setting of the file ("-" for an empty default).
settings=$(awk '/^\[/ { s = substr($0, 2, length($0) - 2) }
	/^#[a-z_]+ =/ { n = substr($1, 2); v = $0; sub(/^#[a-z_]+ = ?/, "", v)
		print s, n, (v == "" ? "-" : v) }' "$conf")
# "section name: text" per entry of a [section] of the page (a .TP, then .B NAME), its
# roff markup taken out.
entries=$(awk 'function flush() { if (n != "") print sec, n ":", t; n = ""; t = "" }
	/^\.SH \[/ { flush(); s = $2; gsub(/[][]/, "", s); want = 0; next }
	/^\.SH/ { flush(); s = ""; want = 0; next }
	/^\.TP/ { flush(); want = (s != ""); next }
	want && /^\.B / { n = $2; sec = s; want = 0; next }
	{ want = 0 }
	n != "" { l = $0; sub(/^\.[A-Z]+ /, "", l); gsub(/\\-/, "-", l); gsub(/"/, "", l)
		t = t " " l }
	END { flush() }' "$page" | sed 's/  */ /g')
[ -n "$settings" ] && [ -n "$entries" ]
result $? "the shipped file lists settings and the page describes them"
while read -r section name default; do
	line=$(echo "$entries" | grep "^$section $name: ")
	if [ "$default" = - ]; then want="Default empty"; else want="Default $default"; fi
	echo "$line" | grep -qF "$want" ||
		{ echo "$line" | grep -qF "Default empty" && echo "$line" | grep -qF "suggests $default"; }
	result $? "uaeventd.conf(5) gives [$section] $name with its default ($want)"
done <<EOS
$settings
EOS
while read -r section name _; do
	name=${name%:}
	echo "$settings" | grep -q "^$section $name "
	result $? "[$section] $name of uaeventd.conf(5) is in the shipped uaeventd.conf"
done <<EOS
$entries
EOS
tap_end
