#!/bin/sh
# The Debian packages that deb-build.sh built (dpkg-buildpackage, lintian): their contents
# as an administrator expects them, and DKMS building the module from uaevents-dkms for
# each test kernel's headers.  TAP.
#
#   deb-check.sh DEBDIR SERIES...
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "$1")
shift
. "$top/tests/tap.sh"

[ -f "$out/lintian.txt" ] || { echo "not ok 1 - no packages in $out (deb-build.sh builds them)"; exit 1; }
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)

# has PACKAGE PATH...: the package ships every PATH.
has() {
	pkg=$1
	shift
	deb=$(ls "$out/${pkg}_${version}_"*.deb 2>/dev/null) || { echo "# no $pkg package"; return 1; }
	list=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
	for p in "$@"; do
		echo "$list" | grep -qx "$p" || { echo "# $pkg lacks $p"; return 1; }
	done
}
has uaevents /usr/bin/uaectl /usr/sbin/uaeventd /lib/systemd/system/uaeventd.service \
	/lib/udev/rules.d/89-uaevents-handoff.rules /lib/udev/rules.d/91-uaevents.rules \
	/usr/lib/systemd/catalog/uaevents.catalog \
	/usr/share/uaevents/hooks/space-wall-alert /usr/share/uaevents/hooks/multipath-resize \
	/usr/libexec/uaevents/uaevents-mail \
	/etc/uaevents/uaeventd.conf /etc/uaevents/hooks.d/ \
	/usr/share/bash-completion/completions/uaectl \
	/usr/share/man/man1/uaectl.1.gz /usr/share/man/man5/uaeventd.conf.5.gz \
	/usr/share/man/man8/uaeventd.8.gz
result $? "uaevents ships the tools, unit, rules, catalog, hooks, configuration and man pages"
deb=$(ls "$out/uaevents_${version}_"*.deb 2>/dev/null)
# The library's version it needs is the newest its symbols file names (dpkg-shlibdeps).
needs=$(awk 'NR > 1 && $1 !~ /^\*/ { print $NF }' "$top/debian/libuaevents1.symbols" | sort -uV |
	tail -n 1)
dpkg-deb -f "$deb" Depends | grep -q "libuaevents1 (>= $needs)" &&
	dpkg-deb -I "$deb" conffiles | grep -qx /etc/uaevents/uaeventd.conf &&
	dpkg-deb -I "$deb" postinst | grep -q "journalctl --update-catalog" &&
	dpkg-deb -I "$deb" postinst | grep -q "deb-systemd-helper"
result $? "uaevents: the configuration is a conffile, the postinst updates the catalog and enables the unit"
has libuaevents1 "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libuaevents.so.1"
result $? "libuaevents1 ships the shared library"
# README.Debian: what the packages turned on and left off.  Each setting it tells an
# administrator to write is one the shipped configuration has, so that the two cannot drift.
readme=$(dpkg-deb --fsys-tarfile "$(ls "$out/uaevents_${version}_"*.deb)" |
	tar -xO ./usr/share/doc/uaevents/README.Debian 2>/dev/null)
missing=""
for setting in $(echo "$readme" |
	sed -n 's/.*"\([a-z_]*\) = [^"]*".*/\1/p; s/^ *\([a-z_]*\) = .*/\1/p' | sort -u); do
	grep -q "^#$setting =" "$top/uevent-agent/uaeventd.conf" || missing="$missing $setting"
done
[ -n "$readme" ] && [ -z "$missing" ] && echo "$readme" | grep -q "turned on" &&
	echo "$readme" | grep -q "left off"
rc=$?
shipped=missing
[ -z "$readme" ] || shipped=shipped
[ $rc -eq 0 ] || echo "# README.Debian $shipped; settings not in uaeventd.conf:${missing:- none}"
result $rc "uaevents ships README.Debian, whose settings are all uaeventd.conf's"
# The guides (issue 32), where README.Debian and the unit's Documentation= send the reader
# (dh_compress compresses those over 4 kB: either name here, the exact one where named).
doc=/usr/share/doc/uaevents
guides_shipped() {
	deb=$(ls "$out/uaevents_${version}_"*.deb) || return 1
	list=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
	for g in README admin-guide messages health metrics scripting design-module design-daemon; do
		echo "$list" | grep -qxE "$doc/$g\.md(\.gz)?" || { echo "# uaevents lacks $doc/$g.md"; return 1; }
	done
	for g in admin-guide messages health; do
		echo "$readme" | grep -qE "$doc/$g\.md(\.gz)?" ||
			{ echo "# README.Debian does not name $doc/$g.md"; return 1; }
	done
	# Each path README.Debian or the unit gives is shipped under exactly that name.
	for f in $(echo "$readme" | grep -o "$doc/[A-Za-z0-9_.-][A-Za-z0-9_.-]*") \
		$(sed -n 's/^Documentation=//p' "$top/uevent-agent/uaeventd.service" | tr ' ' '\n' |
		sed -n 's|^file:||p'); do
		echo "$list" | grep -qx "$f" || { echo "# $f is named, not shipped"; return 1; }
	done
}
guides_shipped
result $? "uaevents ships the guides in $doc; README.Debian and the unit name them"
has libuaevents-dev /usr/include/libuaevents.h /usr/share/man/man3/libuaevents.3.gz \
	"/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/pkgconfig/uaevents.pc"
result $? "libuaevents-dev ships the header, the pkg-config file and the API's man page"
has python3-uaevents /usr/lib/python3/dist-packages/uaevents/__init__.py \
	/usr/share/doc/python3-uaevents/examples/low-space.py &&
	dpkg-deb -f "$(ls "$out/python3-uaevents_${version}_all.deb")" Depends |
	grep -q "python3:any" &&
	dpkg-deb -f "$(ls "$out/python3-uaevents_${version}_all.deb")" Depends |
	grep -q "libuaevents1 (>= $version)"
result $? "python3-uaevents ships the module and its example, depending on python3 and libuaevents1"
# The file that loads the module at boot comes with the module: a host with uaevents alone
# would otherwise boot with a failed systemd-modules-load.service.
conf=/usr/lib/modules-load.d/uaevents.conf
has uaevents-dkms "$conf" &&
	! dpkg-deb -c "$(ls "$out/uaevents_${version}_"*.deb)" | grep -q "\.$conf\$" &&
	dpkg-deb -f "$out/uaevents-dkms_${version}_all.deb" Breaks | grep -q "uaevents (<< 0.1.1~)" &&
	dpkg-deb -f "$out/uaevents-dkms_${version}_all.deb" Replaces | grep -q "uaevents (<< 0.1.1~)"
result $? "uaevents-dkms ships $conf (uaevents no longer does: Breaks and Replaces older uaevents)"

# DKMS, as on an administrator's machine, but in a tree of its own: the host is untouched.
dk="$out/dkms"
rm -rf "$dk"
mkdir -p "$dk/root" "$dk/tree"
dpkg-deb -x "$out/uaevents-dkms_${version}_all.deb" "$dk/root"
for series in "$@"; do
	kroot=$("$top/tests/vm/fetch-kernel.sh" "$series")
	kver=$(basename "$kroot")
	dkms build -m uaevents -v "$version" -k "$kver" \
		--kernelsourcedir "$kroot/usr/src/linux-headers-$kver" \
		--sourcetree "$dk/root/usr/src" --dkmstree "$dk/tree" >"$dk/$kver.log" 2>&1
	# Where the host has Debian's headers of that kernel, DKMS signs and compresses the
	# module as it would install it (uaevents.ko.xz); elsewhere it leaves uaevents.ko.
	ko=$(ls "$dk/tree/uaevents/$version/$kver/x86_64/module/uaevents.ko"* 2>/dev/null | head -n 1)
	[ -n "$ko" ] && modinfo -F vermagic "$ko" | grep -q "^$kver "
	rc=$?
	[ $rc -eq 0 ] || tail -n 30 "$dk/$kver.log" | sed 's/^/# /'
	result $rc "DKMS builds uaevents.ko from uaevents-dkms for $kver"
done
tap_end
