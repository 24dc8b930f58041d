#!/bin/bash
# What a packager and a user of the library meet: 'make install DESTDIR=...', then
# pkg-config, a program built against the installed header and library, the exported
# symbols and their version, the man pages, bash completion.  TAP.
set -u
userbin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
. "$top/tests/tap.sh"

DESTDIR=$dest cmake --install "$userbin" >"$dest.log" 2>&1
result $? "make install DESTDIR=... installs"
pc=$(find "$dest" -name uaevents.pc | head -n 1)
export PKG_CONFIG_PATH=$(dirname "${pc:-/nonexistent}") PKG_CONFIG_SYSROOT_DIR=$dest
flags=$(pkg-config --cflags --libs uaevents 2>&1)
result $? "pkg-config --cflags --libs uaevents: $flags"
# shellcheck disable=SC2086
cc -Wall -Werror -o "$dest/monitor-poll" "$top/examples/monitor-poll.c" $flags \
	-Wl,-rpath-link,"$(dirname "$(find "$dest" -name 'libuaevents.so' | head -n 1)")"
result $? "the example builds against the installed header and library"

lib=$(find "$dest" -name 'libuaevents.so.1' | head -n 1)
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }')
echo "$exported" | grep -qvE '^uae_.*@@LIBUAEVENTS_1(\.[0-9]+)?$'
result $((! $?)) "every exported function is uae_* in version LIBUAEVENTS_1 or a later 1.x ($(echo "$exported" | wc -l) of them)"
for sym in uae_monitor_new uae_monitor_receive uae_monitor_filter_add_match uae_event_get_wwid \
	   uae_kernel_stats uae_strerror; do
	echo "$exported" | grep -q "^$sym@@LIBUAEVENTS_1$"
	result $? "exports $sym"
done
echo "$exported" | grep -q 'uae_sense_decode\|uae_event_from_nlmsg\|uae_filter_add'
result $((! $?)) "internals stay internal"

man3=$(cd "$top/man" && ls ./*.3 | sed 's|^\./|man3/|')
# shellcheck disable=SC2086
for page in man1/uaectl.1 man5/uaeventd.conf.5 man8/uaeventd.8 $man3; do
	file=$(find "$dest" -path "*/man/$page" | head -n 1)
	warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$file" 2>&1 >/dev/null)
	[ -n "$file" ] && [ -z "$warnings" ] && LC_ALL=C.UTF-8 man -l "$file" 2>/dev/null | grep -q NAME
	result $? "man -l renders $page without warnings"
done

# Every function has its page, as "man FUNCTION" finds it: the family's, or a .so to it.
missing=
for sym in $(echo "$exported" | sed 's/@.*//'); do
	page=$(find "$dest" -path "*/man/man3/$sym.3" | head -n 1)
	target=$([ -n "$page" ] && sed -n 's|^\.so man3/||p' "$page")
	if [ -z "$page" ] || { [ -n "$target" ] && [ ! -f "$(dirname "$page")/$target" ]; }; then
		missing="$missing $sym"
	fi
done
[ -z "$missing" ]
result $? "every exported function has a man page (missing:${missing:- none})"

completion=$(find "$dest" -path '*bash-completion/completions/uaectl' | head -n 1)
words=$(bash -c "source '$completion'; COMP_WORDS=(uaectl mon); COMP_CWORD=1; _uaectl; echo \${COMPREPLY[*]}")
[ "$words" = monitor ]
result $? "bash completion completes 'uaectl mon' to 'monitor'"
for f in lib/systemd/system/uaeventd.service lib/udev/rules.d/91-uaevents.rules \
	 lib/udev/rules.d/89-uaevents-handoff.rules \
	 lib/systemd/catalog/uaevents.catalog etc/uaevents/uaeventd.conf; do
	find "$dest" -path "*/$f" | grep -q .
	result $? "installs $f"
done
# The installed unit, pointed at the installed daemon: valid, and hardened.
unit=$(find "$dest" -name uaeventd.service | head -n 1)
daemon=$(find "$dest" -name uaeventd -type f | head -n 1)
mkdir -p "$dest/units"
sed "s|/usr/sbin/uaeventd|$daemon|" "$unit" >"$dest/units/uaeventd.service"
systemd-analyze verify --man=no "$dest/units/uaeventd.service" >/dev/null 2>&1
result $? "systemd-analyze verify accepts uaeventd.service"
exposure=$(systemd-analyze security --offline=yes --threshold=30 "$dest/units/uaeventd.service" 2>&1 |
	sed -n 's/.*Overall exposure level for uaeventd.service: \([0-9.]*\).*/\1/p')
systemd-analyze security --offline=yes --threshold=30 "$dest/units/uaeventd.service" >/dev/null 2>&1
result $? "uaeventd.service is hardened: systemd-analyze security exposure ${exposure:-?} (at most 3.0)"
tap_end
