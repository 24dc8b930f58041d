#!/bin/sh
# uaeventd in the VM, with a real journald: journal entries and the catalog, LUN scans,
# capacity rescans of every path, identity rescans, hook scripts and hostile device
# strings, a crash during a storm, and the fallback to the stock kernel's uevents.
# tap-plan: 89
. /bin/lib.sh

HOOKS=/etc/uaevents/hooks.d
CONF=/etc/uaevents/uaeventd.conf
STATE=/var/lib/uaevents/state

# Device-supplied strings that would run something if they ever reached a shell.
HOSTILE_VENDOR='a;id>/v'
HOSTILE_MODEL='$(mkdir${IFS}/p)'

cat >"$CONF" <<EOC
[rescan]
debounce_ms = 1500
resize_command = /etc/uaevents/record-resize
[hooks]
directory = $HOOKS
timeout_s = 3
EOC
cat >/etc/uaevents/record-resize <<'EOC'
#!/bin/sh
echo "$1" >>/tmp/resize.log
shift
echo "$*" >>/tmp/resize-paths.log
EOC
# A hook that records its whole environment, one file per event.
cat >"$HOOKS/all-record" <<'EOC'
#!/bin/sh
env >"/tmp/hook-$UAEVENTS_SEQ.env"
EOC
# A hook that leaves a child behind and outlives its timeout.
cat >"$HOOKS/TIMESTAMP_CHANGED-sleeper" <<'EOC'
#!/bin/sh
sleep 1000 &
sleep 1000
EOC
# A hook anybody may rewrite: refused.
cat >"$HOOKS/all-unsafe" <<'EOC'
#!/bin/sh
touch /tmp/unsafe-ran
EOC
chmod 0755 /etc/uaevents/record-resize "$HOOKS/all-record" "$HOOKS/TIMESTAMP_CHANGED-sleeper"
chmod 0777 "$HOOKS/all-unsafe"

# SIGHUP, then wait until the daemon says it reloaded (once more than before).
reload_daemon() {
	reloads=$(journal_count 'select(.MESSAGE == "uaeventd: configuration reloaded")')
	kill -HUP "$UAEVENTD_PID"
	wait_for 10 sh -c "[ \$(journalctl -o json -t uaeventd | jq -s 'map(select(.MESSAGE ==
		\"uaeventd: configuration reloaded\")) | length') -gt $reloads ]"
}

# listening_count: how often uaeventd has said it listens (once a start).
listening_count() { journal_count 'select(.MESSAGE | startswith("uaeventd: listening"))'; }
listening_more_than() { [ "$(listening_count)" -gt "$1" ]; }
# Start uaeventd, and wait until this one says it listens: once more than before (a
# restart's own entry, not the first start's).
start_daemon() {
	listened=$(listening_count)
	uaeventd --config "$CONF" 2>>/tmp/uaeventd.err &
	UAEVENTD_PID=$!
	wait_for 30 listening_more_than "$listened"
}

# journal_has JQ: some entry of uaeventd's matches.
journal_has() {
	journalctl -o json -t uaeventd | jq -e -s "map($1) | length > 0" >/dev/null
}
journal_count() { journalctl -o json -t uaeventd | jq -s "map($1) | length"; }

# identity_marker: a sync point before a "nothing happened" check.  An injected INQUIRY DATA
# HAS CHANGED on $HCTL (acted on: act_on_injected = yes), which uaeventd handles after every
# event before it, runs the hooks for (/tmp/hook-$MARKER_SEQ.env; hooks start in the order of
# their events) and answers after debounce_ms with a rescan of the device: a job that never
# runs beside another on the LU's target or WWID.  Its rescan-device entry comes after the
# work that events before it asked for had its turn.  False if it does not come.
identity_marker() {
	rescans=$(journal_count "select(.UAEVENTS_ACTION == \"rescan-device\" and .UAEVENTS_HCTL == \"$HCTL\")")
	marker_from=$(uaectl status --json | jq .last_seq)
	uaectl inject --hctl "$HCTL" --sense 700006000000000a000000003f0300000000 || return 1
	# Its sequence number from its own entry, not the module's last: another event may
	# have come since.
	marker_logged() {
		MARKER_SEQ=$(journalctl -o json -t uaeventd UAEVENTS_EVENT=INQUIRY_DATA_HAS_CHANGED \
			"UAEVENTS_HCTL=$HCTL" | jq -r -s --argjson f "$marker_from" \
			'map(.UAEVENTS_SEQ | tonumber | select(. > $f)) | first // empty')
		[ -n "$MARKER_SEQ" ]
	}
	rescanned() {
		[ "$(journal_count "select(.UAEVENTS_ACTION == \"rescan-device\" and .UAEVENTS_HCTL == \"$HCTL\")")" -gt "$rescans" ]
	}
	wait_for 20 marker_logged && wait_for 20 rescanned &&
		wait_for 10 test -e "/tmp/hook-$MARKER_SEQ.env"
}

# monitor_subscribed FILE: the "uaectl monitor --json" writing FILE has subscribed: an event
# raised now reaches it.  One MODE_PARAMETERS_CHANGED (which nothing acts on) a try, until
# the monitor prints something.
monitor_subscribed() {
	pings=0
	while [ ! -s "$1" ]; do
		if [ "$pings" -ge 15 ]; then
			echo "uaectl monitor printed nothing of $pings events raised" >"$SAW"
			return 1
		fi
		uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
		pings=$((pings + 1))
		# (Longer than the module's default coalescing window, 1 s: a repeat held
		# back in it comes out by then.)
		wait_for 2 test -s "$1"
	done
}

# scan_entries TARGET: uaeventd's entries for its scans of TARGET (scan-target) and for its
# looks at the reports that came while one ran or just after (scan-verify), oldest first.
scan_entries() {
	journalctl -o json -t uaeventd UAEVENTS_TARGET="$1" | jq -s 'map(select(
		.UAEVENTS_ACTION == "scan-target" or .UAEVENTS_ACTION == "scan-verify"))'
}
# one_scan_for TARGET SKIP REPORTS: past the first SKIP scan entries of TARGET, REPORTS
# reports (or more) are accounted for, each in a scan's entry ("after N report(s)") or in a
# later look's ("N more report(s)"), and one of the entries is a scan of the target.
one_scan_for() {
	scan_entries "$1" | jq --argjson k "$2" '.[$k:]' >/tmp/scans.json
	jq -r '.[] | "\(.UAEVENTS_ACTION): \(.MESSAGE)"' /tmp/scans.json >"$SAW"
	jq -e --argjson n "$3" '(map(select(.UAEVENTS_ACTION == "scan-target")) | length == 1)
		and ([.[].MESSAGE | capture("(?<n>[0-9]+) (more )?report") | .n | tonumber]
		| add // 0) >= $n' /tmp/scans.json >/dev/null
}

tap_diag "kernel $(uname -r)"
check "journald starts" start_journald
journalctl --update-catalog
kmod_load sd_mod
kmod_load sg
insmod /modules/uaevents.ko history_size=16384
check "uaeventd starts" start_daemon
# Two hosts, one LU each, the same WWID: two paths to one logical unit.
kmod_load scsi_debug dev_size_mb=16 max_luns=1 num_tgts=1 add_host=2 vpd_use_hostno=0 \
	"inq_vendor=$HOSTILE_VENDOR" "inq_product=$HOSTILE_MODEL"
check "scsi_debug adds two hosts' disks" \
	wait_for 30 sh -c '[ $(ls /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block | grep -c sd) -ge 2 ]'
DISK=$(scsi_debug_disk)
HCTL=$(basename "$(readlink "/sys/block/$DISK/device")")
HOST=${HCTL%%:*}
WWID=$(cat "/sys/block/$DISK/device/wwid")
tap_diag "paths: $(for d in /sys/block/sd*; do echo "$(basename "$d")=$(cat "$d/device/wwid")"; done | tr '\n' ' ')"
check "two paths share one WWID" \
	sh -c "[ \$(cat /sys/block/sd*/device/wwid | sort -u | wc -l) -eq 1 ]"

# ---- the unsafe hook was refused ----
check "a hook writable by others is refused and logged" \
	journal_has 'select(.MESSAGE | test("all-unsafe refused: writable by group or others"))'

# ---- soft threshold: a warning, explained by the catalog ----
# A real UA where scsi_debug can raise one (error injection: 6.12); an injected one on 6.1,
# or when 6.12's injection is missing (a failure then, said by injection_or_skip).
if injection_or_skip 1 "a soft threshold raised by scsi_debug is logged as a real event"; then
	raise_soft_threshold
	check "a soft threshold raised by scsi_debug is logged as a real event" \
		wait_for 10 journal_has 'select(.UAEVENTS_EVENT == "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED"
			and .UAEVENTS_INJECTED == "0")'
else
	uaectl inject --hctl "$HCTL" --sense 700006000000000a00000000380700000000
fi
check "soft threshold: a warning entry with its MESSAGE_ID and fields" \
	wait_for 10 journal_has 'select(.UAEVENTS_EVENT == "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED"
		and .PRIORITY == "4" and .MESSAGE_ID == "dbef670c0acc4a518e8986b26be121b1"
		and .UAEVENTS_CATEGORY == "space")'
journalctl -x --no-pager UAEVENTS_EVENT=THIN_PROVISIONING_SOFT_THRESHOLD_REACHED >/tmp/x.txt
check "journalctl -x explains it with the catalog text" \
	grep -q "is low on physical space" /tmp/x.txt
tap_diag "$(grep -m 3 -E 'Subject|thin pool' /tmp/x.txt | tr '\n' ' ')"

# ---- an injected event is logged, flagged, and moves nothing (act_on_injected = no) ----
uaectl config --coalesce-ms 0
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000003f0e00000000
check "an injected LUN change is logged with UAEVENTS_INJECTED=1 and says so" \
	wait_for 10 journal_has 'select(.UAEVENTS_EVENT == "REPORTED_LUNS_DATA_HAS_CHANGED"
		and .UAEVENTS_INJECTED == "1" and (.MESSAGE | endswith("[injected test event]")))'
inj_seq=$(journalctl -o json -t uaeventd UAEVENTS_INJECTED=1 | jq -r -s 'last | .UAEVENTS_SEQ')
# The rest of this script drives the daemon with injected events: act on them.
sed -i '1i [daemon]\nact_on_injected = yes' "$CONF"
check "uaeventd reloads its configuration: act_on_injected = yes" reload_daemon
# An event acted on, after the one that must not be (identity_marker): its rescan and its
# hook have come, so the LUN change's scan and hook would have too.
ignored() {
	identity_marker
	synced=$?
	scans=$(journalctl -o json -t uaeventd UAEVENTS_ACTION=scan-target | jq -s length)
	{ echo "injected seq $inj_seq, marker seq $MARKER_SEQ (its rescan and hook seen: $synced = 0)"
	  echo "scans: $scans; hooks ran for: $(for h in /tmp/hook-*.env; do h=${h#/tmp/hook-}; printf '%s ' "${h%.env}"; done)"
	} >"$SAW"
	[ "$synced" -eq 0 ] && [ "$scans" -eq 0 ] && [ -n "$inj_seq" ] && [ ! -e "/tmp/hook-$inj_seq.env" ]
}
check "by default it makes no target scan and runs no hook" ignored
tap_diag "$(tr '\n' ' ' <"$SAW")"

# ---- a LUN added: exactly one target scan, however many reports ----
uaectl config --coalesce-ms 0
scans_k=$(scan_entries "${HCTL%:*}" | jq length)
echo 2 >"$SDEBUG/max_luns"
touch_disk "$DISK"
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000003f0e00000000 --count 20
check "the new LUN appears after the scan" wait_for 20 test -e "/sys/class/scsi_device/${HCTL%:*}:1"
# Not a count after a while: every one of the 21 reports is accounted for (in the scan, or
# in a look at the ones that came while it ran or cooled), by one scan.
check "exactly one scan of the target for 21 reports" \
	wait_for 20 one_scan_for "${HCTL%:*}" "$scans_k" 21

# ---- capacity: every path rescanned, the resize command once ----
size_before=$(cat "/sys/block/$DISK/size")
echo 1 >"$SDEBUG/virtual_gb"
touch_disk "$DISK"
check "the disk's size in /sys/block follows the new capacity" \
	wait_for 20 sh -c "[ \$(cat /sys/block/$DISK/size) -gt $size_before ]"
# paths_sizes: the size of every block device whose WWID is the LU's, one line each.
paths_sizes() {
	for d in /sys/block/sd*; do
		[ "$(cat "$d/device/wwid")" = "$WWID" ] && cat "$d/size"
	done
}
all_paths_grown() {
	[ "$(paths_sizes | wc -l)" -eq 2 ] && [ "$(paths_sizes | sort -u | wc -l)" -eq 1 ] &&
		[ "$(paths_sizes | head -n 1)" -gt "$size_before" ]
}
check "every path of the LU was rescanned: two paths, both at the new size" \
	wait_for 20 all_paths_grown
# Once the resize command's entry is there, and then a marker's rescan (identity_marker):
# the other path's report of the change, an echo of the rescan, came before the marker and
# was taken for what it is within the job's window, or a second job would have run by then.
resized_once() {
	wait_for 20 journal_has "select(.UAEVENTS_ACTION == \"resize\" and .UAEVENTS_WWID == \"$WWID\")"
	resized=$?
	identity_marker
	synced=$?
	echo "resize entry: $resized = 0, marker's rescan: $synced = 0; resize.log: $(tr '\n' ' ' </tmp/resize.log)" >"$SAW"
	[ "$resized" -eq 0 ] && [ "$synced" -eq 0 ] && [ "$(grep -c "^$WWID\$" /tmp/resize.log)" -eq 1 ]
}
check "the resize command ran once for the WWID" resized_once
# The other path's report, made by the rescan's own commands, is older than what the job's
# end proved (each path's capacity read once more): no second look, no second child.  A
# second look would have been logged (rescan-paths-verify) before the marker's rescan,
# which waited for it on the same target.
no_second_look() {
	journalctl -o json -t uaeventd UAEVENTS_ACTION=rescan-paths-verify "UAEVENTS_WWID=$WWID" \
		>"$SAW"
	[ ! -s "$SAW" ]
}
check "the other path's report, the rescan's echo, gets no second look" no_second_look
# lu_paths: the H:C:T:L of every device showing the LU's WWID, sorted, on one line.
lu_paths() {
	for d in /sys/class/scsi_device/*; do
		[ "$(cat "$d/device/wwid")" = "$WWID" ] && echo "${d##*/}"
	done | sort | tr '\n' ' '
}
given_paths() {
	{ echo "given: $(tail -n 1 /tmp/resize-paths.log)"; echo "paths: $(lu_paths)"; } >"$SAW"
	[ "$(tail -n 1 /tmp/resize-paths.log | tr ' ' '\n' | sort | tr '\n' ' ')" = "$(lu_paths)" ]
}
check "the resize command is given the LU's two paths after the WWID" given_paths
check "its result is in the journal (UAEVENTS_ACTION=resize, exit status 0)" \
	wait_for 10 sh -c "journalctl -o json -t uaeventd UAEVENTS_ACTION=resize UAEVENTS_WWID='$WWID' |
		jq -e -s 'length == 1 and .[0].UAEVENTS_EXIT == \"0\"' >/dev/null"

# ---- capacity with an allow-list of one host: the other host's path is left alone ----
OTHER=
for d in /sys/block/sd*; do
	[ "$(cat "$d/device/wwid")" = "$WWID" ] && [ "${d#/sys/block/}" != "$DISK" ] &&
		OTHER=${d#/sys/block/}
done
sed -i "s/^\[rescan\]\$/[rescan]\nallow = $HOST/" "$CONF"
check "uaeventd reloads its configuration: allow = $HOST" reload_daemon
other_before=$(cat "/sys/block/$OTHER/size")
resizes_before=$(grep -c "^$WWID\$" /tmp/resize.log)
size_before=$(cat "/sys/block/$DISK/size")
echo 3 >"$SDEBUG/virtual_gb"	# (the fallback test below changes it to 2)
touch_disk "$DISK"
check "allow = $HOST: the path on host $HOST ($DISK) is rescanned to the new size" \
	wait_for 20 sh -c "[ \$(cat /sys/block/$DISK/size) -gt $size_before ]"
left_alone() {
	journalctl -o json -t uaeventd UAEVENTS_ACTION=rescan-paths | jq -c -s 'last |
		{UAEVENTS_PATHS, UAEVENTS_SKIPPED, MESSAGE}' >/tmp/rescan-paths.json
	{ cat /tmp/rescan-paths.json
	  echo "$OTHER: $(cat "/sys/block/$OTHER/size") sectors, was $other_before"; } >"$SAW"
	jq -e '.UAEVENTS_PATHS == "1" and .UAEVENTS_SKIPPED == "1"' /tmp/rescan-paths.json \
		>/dev/null && [ "$(cat "/sys/block/$OTHER/size")" -eq "$other_before" ]
}
check "the path on the other host ($OTHER) is not rescanned, and the journal says so" \
	wait_for 20 left_alone
check "the resize command is not run while a path keeps the old size, and the journal says so" \
	wait_for 10 sh -c "journalctl -o json -t uaeventd UAEVENTS_ACTION=resize-skipped |
		jq -e -s 'length == 1' >/dev/null && [ \$(grep -c '^$WWID\$' /tmp/resize.log) -eq $resizes_before ]"
sed -i "/^allow = $HOST\$/d" "$CONF"
check "uaeventd reloads its configuration: no allow-list" reload_daemon
echo 1 >"/sys/block/$OTHER/device/rescan"

# ---- a resize_command others may rewrite is refused: it would run as root ----
chmod 0777 /etc/uaevents/record-resize
check "uaeventd reloads its configuration: resize_command writable by others" reload_daemon
check "a resize_command writable by others is refused, and the journal says why" \
	journal_has 'select(.UAEVENTS_ACTION == "resize-refused" and
		(.MESSAGE | test("record-resize writable by group or others")))'
chmod 0755 /etc/uaevents/record-resize
check "uaeventd reloads its configuration: resize_command root's alone again" reload_daemon

# ---- a LUN removed: stale; kept while mounted, removed (remove policy) once unused ----
LUN1=${HCTL%:*}:1
DISK1=$(ls "/sys/class/scsi_device/$LUN1/device/block/")
kmod_load ext4
mke2fs -q -F "/dev/$DISK1" 4096 >/dev/null 2>&1
mkdir -p /mnt
check "a filesystem on the second LUN ($DISK1) is mounted" mount -t ext4 "/dev/$DISK1" /mnt
sed -i 's/^\[rescan\]$/[rescan]\nstale_luns = remove/' "$CONF"
check "uaeventd reloads its configuration: stale_luns = remove" reload_daemon
sleep 2
echo 1 >"$SDEBUG/max_luns"
touch_disk "$DISK"
check "the LUN the target no longer reports is logged stale, and kept: mounted" \
	wait_for 20 journal_has "select(.UAEVENTS_ACTION == \"stale-lun\" and .UAEVENTS_HCTL == \"$LUN1\"
		and .UAEVENTS_STALE == \"kept\" and (.MESSAGE | test(\"kept: mounted\")))"
check "it is still there" test -e "/sys/class/scsi_device/$LUN1"
umount /mnt
sh -c "exec 3<\"/dev/$DISK1\"; exec sleep 600" &
holder=$!
holds_open() { [ "$(readlink "/proc/$holder/fd/3")" = "/dev/$DISK1" ]; }
check "a process ($holder) holds the unmounted LUN open" wait_for 10 holds_open
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000003f0e00000000
check "unmounted but open in a process, it is kept" \
	wait_for 20 journal_has "select(.UAEVENTS_ACTION == \"stale-lun\" and .UAEVENTS_HCTL == \"$LUN1\"
		and (.MESSAGE | test(\"kept: open in process $holder\")))"
kill "$holder"
wait "$holder" 2>/dev/null	# gone, and its descriptor closed with it
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000003f0e00000000
check "unused now, the stale LUN is removed under the remove policy" \
	wait_for 20 journal_has "select(.UAEVENTS_ACTION == \"stale-lun\" and .UAEVENTS_HCTL == \"$LUN1\"
		and .UAEVENTS_STALE == \"removed\")"
check "and gone from sysfs" wait_for 10 sh -c "! test -e /sys/class/scsi_device/$LUN1"

# ---- inquiry data changed: rescan and old and new identity logged ----
# (One more such entry than before: identity_marker's events above made some.)
identity_logged="select(.UAEVENTS_ACTION == \"rescan-device\" and .UAEVENTS_HCTL == \"$HCTL\"
	and .UAEVENTS_OLD_WWID == \"$WWID\")"
identity_before=$(journal_count "$identity_logged")
identity_more() { [ "$(journal_count "$identity_logged")" -gt "$identity_before" ]; }
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000003f0300000000
check "inquiry data changed: device rescanned, identity before and after logged" \
	wait_for 10 identity_more

# ---- observe only: alerts and hooks, no rescans ----
scans_before=$(journalctl -o json -t uaeventd UAEVENTS_ACTION=scan-target | jq -s length)
sed -i 's/^\[rescan\]$/[rescan]\nenabled = no/' "$CONF"
check "uaeventd reloads its configuration: enabled = no" reload_daemon
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000003f0e00000000
check "observe-only mode logs the LUN change without scanning" \
	wait_for 10 journal_has 'select(.MESSAGE | test("REPORTED_LUNS_DATA_HAS_CHANGED on .*: observe only"))'
sed -i '/^enabled = no$/d' "$CONF"
check "uaeventd reloads its configuration: rescans on again" reload_daemon
# Rescans on again, a marker's rescan (identity_marker): a scan asked for in observe-only
# mode would have had its turn by then.
no_scan_ran() {
	identity_marker
	synced=$?
	scans=$(journalctl -o json -t uaeventd UAEVENTS_ACTION=scan-target | jq -s length)
	echo "scans: $scans, $scans_before before; marker's rescan seen: $synced = 0" >"$SAW"
	[ "$synced" -eq 0 ] && [ "$scans" -eq "$scans_before" ]
}
check "and no scan ran" no_scan_ran

# ---- hooks: environment from scratch, hostile strings inert ----
seq=$(journalctl -o json -t uaeventd UAEVENTS_EVENT=INQUIRY_DATA_HAS_CHANGED | jq -r -s 'last | .UAEVENTS_SEQ')
check "a hook ran with the event's environment (seq, instance, event, WWID)" \
	wait_for 10 sh -c "grep -q '^UAEVENTS_EVENT=INQUIRY_DATA_HAS_CHANGED\$' /tmp/hook-$seq.env &&
		grep -q '^UAEVENTS_SEQ=$seq\$' /tmp/hook-$seq.env &&
		grep -q '^UAEVENTS_INSTANCE=[0-9a-f]\\{16\\}\$' /tmp/hook-$seq.env &&
		grep -q '^UAEVENTS_WWID=$WWID\$' /tmp/hook-$seq.env"
check "and nothing of the daemon's own environment" \
	sh -c "! grep -qv -E '^(PATH|PWD|SHLVL|_|UAEVENTS_[A-Z_]+)=' /tmp/hook-$seq.env"
tap_diag "hook saw: $(grep -E 'VENDOR|MODEL' /tmp/hook-$seq.env | tr '\n' ' ')"
check "device strings with \$(...) and ; reach the hook sanitized" \
	sh -c "grep -q '^UAEVENTS_MODEL=__mkdir__IFS_/p_\$' /tmp/hook-$seq.env &&
		grep -q '^UAEVENTS_VENDOR=a_id_/v\$' /tmp/hook-$seq.env"
check "and ran nothing" sh -c '! test -e /p && ! test -e /v && ! test -e /tmp/unsafe-ran'

# ---- a hook past its timeout is killed with its whole process group ----
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a1000000000
check "the timed-out hook is logged" \
	wait_for 15 journal_has 'select(.MESSAGE | test("TIMESTAMP_CHANGED-sleeper timed out"))'
check "and neither it nor its child is left" \
	wait_for 5 sh -c '! ps -o args | grep -q "^sleep 1000"'

# ---- forged netlink messages: never events ----
# A process with CAP_NET_ADMIN may send a unicast message to another netlink socket's port.  A forged soft
# threshold, numbered ahead of the module, would be an alert nobody raised and would make
# the next real events look like duplicates.
uaectl monitor --json >/tmp/forge-mon.json 2>/tmp/forge-mon.err &
forge_mon=$!
check "uaectl monitor subscribes: an event raised now reaches it" \
	monitor_subscribed /tmp/forge-mon.json
instance=$(uaectl status --json | jq -r .instance)
ahead=$(($(uaectl status --json | jq .last_seq) + 1000))
# forge WANT SETPRIV-ARGS...: uae-forge reaches at least WANT sockets (0: none).
forge() {
	want=$1
	shift
	sent=$(/usr/bin/setpriv "$@" uae-forge "$instance" "$ahead" 77 2>"$SAW")
	echo "sent to ${sent:-0} sockets" >>"$SAW"
	if [ "$want" -eq 0 ]; then [ "${sent:-0}" -eq 0 ]; else [ "${sent:-0}" -ge "$want" ]; fi
}
check "as nobody, the kernel refuses to carry it (unicast needs CAP_NET_ADMIN)" \
	forge 0 --reuid=65534 --regid=65534 --clear-groups
# A process with CAP_NET_ADMIN only (as network daemons have) can.
check "with CAP_NET_ADMIN only, uae-forge reaches the subscribers' sockets (uaeventd, uaectl)" \
	forge 2 --inh-caps=-all --bounding-set=-all,+net_admin
check "uaeventd says it skipped them" \
	wait_for 10 journal_has 'select(.MESSAGE | test("message\\(s\\) skipped"))'
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
real=$(uaectl status --json | jq .last_seq)
check "a real event after them is logged" \
	wait_for 15 journal_has "select(.UAEVENTS_SEQ == \"$real\")"
check "and no forged one" sh -c "! journalctl -o json -t uaeventd UAEVENTS_DEVICE=forged | grep . >'$SAW'"
check "uaectl monitor shows the real event, not the forged one" \
	wait_for 10 sh -c "jq -e -s 'map(select(.seq == $real)) | length == 1' /tmp/forge-mon.json >/dev/null &&
		! grep -q forged /tmp/forge-mon.json"
check "and says on stderr that it skipped a message" grep -q "skipped" /tmp/forge-mon.err
kill "$forge_mon" 2>/dev/null
wait "$forge_mon" 2>/dev/null

# ---- journald away when an event comes: the state stays before it, a restart logs it ----
kill "$(pidof systemd-journald)"
check "journald stops" wait_for 10 sh -c '! pidof systemd-journald >/dev/null'
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
unlogged=$(uaectl status --json | jq .last_seq)
check "uaeventd says on stderr that it could not log event $unlogged" \
	wait_for 10 grep -q "cannot write event $unlogged " /tmp/uaeventd.err
journald_back() { start_journald && wait_for 20 sh -c 'journalctl -n 1 >/dev/null'; }
check "journald starts again" journald_back
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
after=$(uaectl status --json | jq .last_seq)
check "the next event is logged again" \
	wait_for 15 journal_has "select(.UAEVENTS_SEQ == \"$after\")"
state_before() { cat "$STATE" >"$SAW"; [ "$(head -n 1 "$STATE" | cut -d' ' -f2)" -lt "$unlogged" ]; }
check "the state stays before the event that was not logged" state_before
kill "$UAEVENTD_PID"
wait "$UAEVENTD_PID" 2>/dev/null
check "uaeventd restarts" start_daemon
logged_once_seq() {
	journalctl -o json -t uaeventd UAEVENTS_INSTANCE="$instance" |
		jq -r '.UAEVENTS_SEQ' | grep -cx "$1" >"$SAW"
	[ "$(cat "$SAW")" -eq 1 ]
}
check "and logs event $unlogged, once" wait_for 15 logged_once_seq "$unlogged"

# ---- kill -9 during a storm, restart: every event logged exactly once ----
# Whatever the host's speed, the kill lands in the storm: it goes on (20 errors every 50 ms)
# until uaeventd, killed once it has logged some of it, is gone and more of it has come.
first=$(($(uaectl status --json | jq .last_seq) + 1))
rm -f /tmp/storm.stop
(
	while [ ! -e /tmp/storm.stop ]; do
		uaectl inject --hctl "$HCTL" --host-byte DID_ERROR --status GOOD --kind error \
			--count 20 || break
		sleep 0.05
	done
) &
storm_pid=$!
# The state file: the last event uaeventd logged (written after each batch it handles).
storm_reached_daemon() { [ "$(head -n 1 "$STATE" | cut -d' ' -f2)" -ge "$first" ]; }
wait_for 30 storm_reached_daemon
reached=$?
if kill -0 "$storm_pid" 2>/dev/null; then storm_at_kill=running; else storm_at_kill=over; fi
kill -9 "$UAEVENTD_PID"
wait "$UAEVENTD_PID" 2>/dev/null
at_kill=$(uaectl status --json | jq .last_seq)
wait_for 30 sh -c "[ \$(uaectl status --json | jq .last_seq) -gt $at_kill ]"
raised_after=$?
touch /tmp/storm.stop
wait "$storm_pid"
last=$(uaectl status --json | jq .last_seq)
journalctl --sync
logged_at_kill=$(journalctl -o json -t uaeventd UAEVENTS_KIND=error | jq -s --argjson f "$first" \
	'map(.UAEVENTS_SEQ | tonumber | select(. >= $f)) | length')
tap_diag "storm: $first..$last, uaeventd killed at $at_kill with $logged_at_kill logged, state: $(cat $STATE)"
killed_in_storm() {
	echo "storm $first..$last: $logged_at_kill of $((last - first + 1)) events logged before the" \
		"kill, the storm $storm_at_kill at it, $((last - at_kill)) events raised after it;" \
		"waits: uaeventd logged some $reached = 0, more raised after the kill $raised_after = 0" >"$SAW"
	[ "$reached" -eq 0 ] && [ "$raised_after" -eq 0 ] && [ "$storm_at_kill" = running ] && [ "$logged_at_kill" -gt 0 ] &&
		[ "$logged_at_kill" -lt $((last - first + 1)) ] && [ "$last" -gt "$at_kill" ]
}
check "the kill landed during the storm: some of it logged, more of it raised after" killed_in_storm
check "uaeventd restarts" start_daemon
storm_logged() {
	journalctl -o json -t uaeventd UAEVENTS_KIND=error | jq -e -s --argjson f "$first" \
		--argjson l "$last" '[.[] | .UAEVENTS_SEQ | tonumber | select(. >= $f and . <= $l)]
		| sort == [range($f; $l + 1)]' >/dev/null
}
check "every event of the storm is in the journal exactly once" wait_for 60 storm_logged
check "the state file holds the last event" \
	wait_for 10 sh -c "[ \$(head -n 1 $STATE | cut -d' ' -f2) -ge $last ]"

# ---- events gone from the history while uaeventd was away: one gap entry, with its size ----
kill "$UAEVENTD_PID"
wait "$UAEVENTD_PID" 2>/dev/null
gap_from=$(($(uaectl status --json | jq .last_seq) + 1))
uaectl inject --hctl "$HCTL" --host-byte DID_ERROR --status GOOD --kind error --count 5
uaectl clear-history
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
check "uaeventd restarts after the history was cleared" start_daemon
check "uaeventd logs once that 5 events were lost, from where" \
	wait_for 15 sh -c "[ \$(journalctl -o json -t uaeventd UAEVENTS_KIND=gap | jq -s 'map(select(.UAEVENTS_GAP == \"5\" and .UAEVENTS_SEQ == \"$gap_from\")) | length') -eq 1 ]"
check "and logs the event after the gap" \
	wait_for 15 journal_has 'select(.UAEVENTS_EVENT == "MODE_PARAMETERS_CHANGED")'

# ---- without the module: the stock kernel's SDEV_UA uevents ----
kill "$UAEVENTD_PID"
wait "$UAEVENTD_PID" 2>/dev/null
rmmod uaevents
check "without the module uaeventd starts, and says it falls back" start_daemon
check "the fallback is logged" \
	journal_has 'select(.MESSAGE | test("falling back to the stock kernel"))'
echo 1 >"/sys/block/$DISK/device/evt_capacity_change_reported"
echo 2 >"$SDEBUG/virtual_gb"
touch_disk "$DISK"
check "a capacity change arrives through SDEV_UA and is logged" \
	wait_for 15 journal_has 'select(.UAEVENTS_SOURCE == "sdev_ua" and .UAEVENTS_EVENT == "CAPACITY_DATA_HAS_CHANGED")'

# ---- the module loaded, then reloaded, under a running uaeventd: never deaf ----
# An event raised at once, before the daemon has followed the module, comes from the new
# instance's history.
# new_instance_event: the module's latest event is in uaeventd's journal entries.
new_instance_event() {
	inst=$(uaectl status --json | jq -r .instance)
	last=$(uaectl status --json | jq -r .last_seq)
	journalctl -o json -t uaeventd UAEVENTS_INSTANCE="$inst" >"$SAW.all"
	jq -r '"\(.UAEVENTS_SEQ) \(.UAEVENTS_EVENT)"' "$SAW.all" >"$SAW"
	echo "want instance $inst seq $last" >>"$SAW"
	jq -e -s --arg l "$last" 'map(select(.UAEVENTS_SEQ == $l)) | length == 1' "$SAW.all" >/dev/null
}
insmod /modules/uaevents.ko history_size=16384
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
check "the module loaded after uaeventd: it subscribes, and says so" \
	wait_for 15 journal_has 'select(.UAEVENTS_ACTION == "resubscribe" and (.MESSAGE | test("was loaded")))'
check "the event raised before it subscribed is logged (replayed from the start)" \
	wait_for 15 new_instance_event
# (Reloaded, or, if it looked in between, unloaded and then loaded.)
came='select(.UAEVENTS_ACTION == "resubscribe" and (.MESSAGE | test("was (re)?loaded")))'
n=$(journal_count "$came")
rmmod uaevents
insmod /modules/uaevents.ko history_size=16384
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
check "the module reloaded under uaeventd: it subscribes to the new one, and says so" \
	wait_for 15 sh -c "[ \$(journalctl -o json -t uaeventd | jq -s 'map($came) | length') -gt $n ]"
check "the new module's event is logged" wait_for 15 new_instance_event
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
check "and the next one, live" wait_for 15 new_instance_event

# ---- CYCLES reloads in a row under uaeventd and uaectl monitor, a storm and an event from
# each, uaeventd restarted every fifth and after the last ----
# An instance loaded and unloaded again before a subscriber could look is reported as
# missed (its events are gone with it); every other instance's event arrives.  Nothing is
# silent: logged + missed = reloads, for the daemon and for the monitor; and at least the
# instances whose event the script waited for before a restart are logged, not missed.
RELOADS=$CYCLES
uaectl monitor --json >/tmp/follow.json 2>/tmp/follow.err &
FOLLOW_PID=$!
check "uaectl monitor subscribes before the reloads: an event raised now reaches it" \
	monitor_subscribed /tmp/follow.json
missed_before=$(journal_count 'select(.UAEVENTS_ACTION == "module-missed")')
# daemon_errors: uaeventd's own error entries (events have UAEVENTS_KIND), but for the
# refusal of this script's unsafe hook, said again at each start.
not_event='.UAEVENTS_KIND == null and .UAEVENTS_HOOK != "all-unsafe"'
daemon_errors() {
	journalctl -o json -t uaeventd -p err | jq -s "map(select($not_event)) | length"
}
errors_before=$(daemon_errors)
: >/tmp/instances
i=0
restarts=0
while [ $i -lt "$RELOADS" ]; do
	rmmod uaevents && insmod /modules/uaevents.ko history_size=16384 || break
	# A storm of errors, then the event each instance is accounted by.
	uaectl inject --hctl "$HCTL" --host-byte DID_ERROR --status GOOD --kind error --count 50
	uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
	inst=$(uaectl status --json | jq -r .instance)
	echo "$inst" >>/tmp/instances
	# Every fifth cycle and the last, uaeventd restarts once it and the monitor have this
	# instance's event.
	if [ $((i % 5)) -eq 2 ] || [ $((i + 1)) -eq "$RELOADS" ]; then
		wait_for 30 sh -c "journalctl -o json -t uaeventd UAEVENTS_INSTANCE=$inst |
			jq -e -s 'map(select(.UAEVENTS_EVENT == \"MODE_PARAMETERS_CHANGED\")) |
			length == 1' >/dev/null" || break
		wait_for 30 sh -c "jq -e -s --arg i $inst 'map(select(.instance == \$i and
			.event == \"MODE_PARAMETERS_CHANGED\")) | length == 1' /tmp/follow.json >/dev/null" ||
			break
		kill "$UAEVENTD_PID"
		wait "$UAEVENTD_PID" 2>/dev/null
		start_daemon || break
		restarts=$((restarts + 1))
	fi
	i=$((i + 1))
done
tap_diag "$i reloads done, uaeventd restarted $restarts times"
[ "$i" -eq "$RELOADS" ] ||
	journalctl -t uaeventd -o cat --no-pager | grep -v 'synchronization point' | tail -n 25 |
	sed 's/^/# uaeventd: /' >"$TAP"
# reload_accounted WHO: every instance's event was logged (daemon) or printed (monitor),
# or counted as missed.
reload_accounted() {
	if [ "$1" = daemon ]; then
		journalctl -o json -t uaeventd UAEVENTS_EVENT=MODE_PARAMETERS_CHANGED |
			jq -s 'map(.UAEVENTS_INSTANCE)' >/tmp/accounted.json
		missed=$(journalctl -o json -t uaeventd UAEVENTS_ACTION=module-missed |
			jq -s "map(.UAEVENTS_MISSED | tonumber) | add // 0")
		missed=$((missed - missed_before))
	else
		missed=$(monitor_instances /tmp/follow.json /tmp/accounted.json)
	fi
	# One query, not one an instance: each instance's event exactly once.
	logged=$(accounted_once /tmp/instances /tmp/accounted.json)
	echo "$1: $logged logged, $missed missed, of $RELOADS reloads ($i done);" \
		"at least $restarts waited for before a restart" >"$SAW"
	[ "$i" -eq "$RELOADS" ] && [ $((logged + missed)) -eq "$RELOADS" ] &&
		[ "$restarts" -ge 1 ] && [ "$logged" -ge "$restarts" ]
}
check "$RELOADS reloads and $restarts restarts of uaeventd: each instance's event is logged or the instance is reported missed" \
	wait_for 60 reload_accounted daemon
tap_diag "$(cat "$SAW" 2>/dev/null)"
check "and under uaectl monitor: each is printed or reported missed" \
	wait_for 60 reload_accounted monitor
tap_diag "$(cat "$SAW" 2>/dev/null)"
# A monitor that cannot read (stopped) while the module is reloaded twice never sees the
# middle instance: it says so once (MODULE_MISSED), then hands out the last one's event.
seen=$(wc -l </tmp/follow.json)
kill -STOP "$FOLLOW_PID"
rmmod uaevents
insmod /modules/uaevents.ko history_size=16384
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
middle=$(uaectl status --json | jq -r .instance)
rmmod uaevents
insmod /modules/uaevents.ko history_size=16384
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
newest=$(uaectl status --json | jq -r .instance)
kill -CONT "$FOLLOW_PID"
missed_reported() {
	tail -n +$((seen + 1)) /tmp/follow.json >/tmp/follow-new.json
	{ cat /tmp/follow-new.json; echo "middle instance $middle, newest $newest"; } >"$SAW"
	jq -e -s --arg m "$middle" --arg n "$newest" '
		(map(select(.event == "MODULE_MISSED") | .repeat) == [1]) and
		(map(select(.instance == $m)) | length == 0) and
		(map(select(.instance == $n) | .event) == ["MODULE_LOADED", "MODE_PARAMETERS_CHANGED"])
	' /tmp/follow-new.json >/dev/null
}
check "a monitor stopped across two reloads reports the instance it never saw as missed" \
	wait_for 15 missed_reported
uaectl inject --hctl "$HCTL" --sense 700006000000000a000000002a0100000000
check "after the reloads uaeventd logs the next event, live" wait_for 15 new_instance_event
last_inst=$(uaectl status --json | jq -r .instance)
printed_then_unloaded() {
	jq -e -s --arg i "$last_inst" 'map(select(.instance == $i)) | map(.event) |
		.[-2:] == ["MODE_PARAMETERS_CHANGED", "MODULE_UNLOADED"]' /tmp/follow.json >/dev/null
}
unloaded_seen() { rmmod uaevents && wait_for 15 printed_then_unloaded; }
check "and uaectl monitor prints it, then MODULE_UNLOADED at rmmod" unloaded_seen
kill "$FOLLOW_PID"
# Once uaeventd has followed the module to that unload (the sync point), none of its own
# errors since the reloads began.
no_new_errors() {
	if ! wait_for 15 journal_has "select(.UAEVENTS_ACTION == \"resubscribe\" and
		.UAEVENTS_MODULE_INSTANCE == \"$last_inst\" and (.MESSAGE | test(\"was unloaded\")))"; then
		echo "uaeventd did not log the unload of instance $last_inst" >"$SAW"
		return 1
	fi
	journalctl -o json -t uaeventd -p err | jq -c "select($not_event) | .MESSAGE" \
		| tail -n +$((errors_before + 1)) >"$SAW"
	[ "$(daemon_errors)" -eq "$errors_before" ]
}
check "uaeventd reported no error while following the module" no_new_errors

# ---- 100 LUs change capacity at once: every one rescanned and resized, none skipped ----
# More jobs than uaeventd ever held pending before (64: the rest were skipped) and than
# it runs at once (16): they wait their turn.
insmod /modules/uaevents.ko
check "the earlier scsi_debug unloads" rmmod scsi_debug
kmod_load scsi_debug dev_size_mb=16 max_luns=100 num_tgts=1
check "scsi_debug with 100 LUs" \
	wait_for 120 sh -c '[ $(ls /sys/block | grep -c "^sd") -eq 100 ]'
rm -f /tmp/resize.log
many_before=$(journal_count 'select(.UAEVENTS_ACTION == "rescan-paths")')
# Every read of a wwid attribute in sysfs, by anyone, counted by the kernel (tracing off).
T=/sys/kernel/tracing
[ -e "$T/kprobe_events" ] || mount -t tracefs tracefs "$T"
echo 'p:uae_daemon/wwid sdev_show_wwid' >>"$T/kprobe_events"
echo 0 >"$T/tracing_on"
echo 1 >"$T/events/uae_daemon/enable"
wwid_reads() { awk '$1 == "wwid" || $1 == "uae_daemon/wwid" { print $2 }' "$T/kprobe_profile"; }
reads_before=$(wwid_reads)
echo 1 >"$SDEBUG/virtual_gb"
pids=""
for sg in /sys/class/scsi_device/*/device/scsi_generic/*; do
	sg_turs "/dev/${sg##*/}" >/dev/null 2>&1 &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
all_grown() {
	cat /sys/block/sd*/size | sort | uniq -c >"$SAW"
	{ echo "resize commands: $(sort -u /tmp/resize.log | wc -l) WWIDs, $(wc -l </tmp/resize.log) runs"
	  journalctl -t uaeventd -p warning -o cat | tail -n 5; } >>"$SAW" 2>&1
	[ "$(grep -c '^2097152$' /sys/block/sd*/size | grep -c ':1$')" -eq 100 ] &&
		[ "$(sort -u /tmp/resize.log | wc -l)" -eq 100 ] && [ "$(wc -l </tmp/resize.log)" -eq 100 ]
}
check "100 capacity changes at once: every LU rescanned and resized once" wait_for 240 all_grown
check "one path rescan entry per LU" \
	sh -c "[ \$(journalctl -o json -t uaeventd | jq -s 'map(select(.UAEVENTS_ACTION == \"rescan-paths\")) | length') -eq $((many_before + 100)) ]"
# A walk over the host's 100 devices for each LU would be 10,000 reads; the index is one
# walk per change of the host's devices (and per UAED_PATHS_MAX_AGE_S), then one read per path.
few_walks() {
	echo "wwid reads for 100 LUs: $(($(wwid_reads) - reads_before))" >"$SAW"
	[ $(($(wwid_reads) - reads_before)) -le 2500 ]
}
check "the storm read each device's wwid far fewer times than once per LU" few_walks
tap_diag "wwid reads during the 100-LU storm: $(($(wwid_reads) - reads_before))"
echo 0 >"$T/events/uae_daemon/enable"
rmmod uaevents
insmod /modules/uaevents.ko history_size=16384
kill "$UAEVENTD_PID"
check "no oops, BUG or WARNING in the kernel log" \
	sh -c '! dmesg | grep -E "BUG:|WARNING:|Oops|Call Trace"'
