#!/bin/sh
# tap-plan: 18
# Sourced by run.sh.
# An administrator upgrades the packages with apt while events flow: uaeventd is
# restarted by the package, its state and the administrator's configuration are kept, no
# event is lost or logged twice, and (make soak) DKMS builds the new module for the running
# kernel.
# run-guest.sh puts the newer packages (UAE_UPGRADE_DEBDIR) in /var/cache/uaevents-upgrade.

UP=/var/cache/uaevents-upgrade
check "the newer packages are in $UP" sh -c "ls $UP/uaevents_*.deb >'$SAW' 2>&1"
check "uaeventd.service is active" wait_for 60 systemctl is-active --quiet uaeventd
check "scsi_debug with one disk" sdebug_one_disk
old=$(dpkg-query -W -f '${Version}' uaevents)
new=$(dpkg-deb -f "$(ls $UP/uaevents_*.deb | head -n 1)" Version)
pid=$(systemctl show -P MainPID uaeventd)
echo "# kept across upgrades (uaevents test)" >>/etc/uaevents/uaeventd.conf
check "uaeventd has written its state file before the upgrade" wait_for 30 test -s "$STATE"
cursor=$(journal_cursor)
instance=$(head -n 1 "$STATE" | cut -d' ' -f1)
tap_diag "upgrading $old -> $new; uaeventd $pid; state $(cat "$STATE")"

# A capacity change whose rescan is owed when the package restarts uaeventd: its window is
# longer than the upgrade, so the old daemon cannot have done it.
conf=/etc/uaevents/uaeventd.conf
sed -i 's|^#debounce_ms = 2000$|debounce_ms = 600000|' "$conf"
reload_cursor=$(journal_cursor)
systemctl reload uaeventd
check "reload: a window of 10 minutes" wait_for 20 reloaded_since "$reload_cursor"
WWID=$(cat "/sys/block/$DISK/device/wwid")
size=$(cat "/sys/block/$DISK/size")
echo 1 >"$SDEBUG/virtual_gb"
touch_disk "$DISK"
check "the state file holds the rescan of $WWID as owed work" \
	wait_for 60 sh -c "cp $STATE '$SAW'; grep -q '\"job\":\"rescan-paths\"' $STATE"

# Events flow during the whole upgrade: an error event every 0.2 s.
rm -f /tmp/stop-flow
first=$(($(last_seq) + 1))
(
	while [ ! -e /tmp/stop-flow ]; do
		uaectl inject --hctl "$HCTL" --host-byte DID_ERROR --status GOOD --kind error
		sleep 0.2
	done
) &
flow=$!
sleep 2
# The module's package is upgraded too only in make soak (UAE_UPGRADE_DKMS=1): DKMS then
# compiles it under TCG for about seven minutes, and make check's deb-check.sh has DKMS
# build it from the package for every test kernel already.  uaevents recommends
# uaevents-dkms without a version, so the user-space upgrade alone is one an
# administrator can make.
upgrade_debs="$UP/libuaevents1_*.deb $UP/uaevents_*.deb"
upgraded="uaevents libuaevents1"
if [ "${UAE_UPGRADE_DKMS:-0}" = 1 ]; then
	upgrade_debs="$UP/uaevents-dkms_*.deb $upgrade_debs"
	upgraded="$upgraded uaevents-dkms"
fi
# Bounded, as every wait here: past 15 minutes apt is killed and the check below fails
# with exit status 124.
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive timeout -k 30 900 apt-get install -y -q \
	--no-install-recommends $upgrade_debs >/tmp/upgrade.log 2>&1
rc=$?
sleep 2
touch /tmp/stop-flow
reap 30 "$flow"
last=$(last_seq)
cp /tmp/upgrade.log "$SAW"
check "apt-get install of the newer packages succeeds" test "$rc" -eq 0
tail -n 8 /tmp/upgrade.log | sed 's/^/# /' >"$TAP"
check "dpkg has $upgraded at $new" \
	sh -c "dpkg-query -W -f '\${Version}\n' $upgraded >'$SAW';
		[ \$(grep -cx '$new' '$SAW') -eq $(echo $upgraded | wc -w) ]"
check "the upgrade restarted uaeventd" \
	wait_for 30 sh -c "systemctl is-active --quiet uaeventd &&
		[ \$(systemctl show -P MainPID uaeventd) != $pid ]"
tap_diag "events $first..$last while upgrading; state now $(cat "$STATE")"
check "every event raised during the upgrade is in the journal exactly once" \
	wait_for 60 logged_once "$first" "$last" error
check "the state file kept its instance and holds the last event (or a later one)" \
	wait_for 30 sh -c "read i s <$STATE && [ \$i = $instance ] && [ \$s -ge $last ]"
resumed_and_grown() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=owed-resumed >"$SAW.json"
	{
		echo "size $(cat "/sys/block/$DISK/size"), was $size; taken up:"
		jq -r .MESSAGE "$SAW.json"
	} >"$SAW"
	jq -e -s --arg w "wwid $WWID" 'any(.[]; .UAEVENTS_JOB == $w)' "$SAW.json" >/dev/null &&
		[ "$(cat "/sys/block/$DISK/size")" -gt "$size" ]
}
check "the new uaeventd takes up the owed rescan: the path reaches the new size" \
	wait_for 90 resumed_and_grown
rescanned_once() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=rescan-paths "UAEVENTS_WWID=$WWID" >"$SAW"
	[ "$(jq -s length "$SAW")" -eq 1 ]
}
check "with one path rescan" rescanned_once
sed -i 's|^debounce_ms = 600000$|#debounce_ms = 2000|' "$conf"
systemctl reload uaeventd
check "the administrator's edit of uaeventd.conf is kept (a conffile)" \
	grep -qx "# kept across upgrades (uaevents test)" /etc/uaevents/uaeventd.conf
kver=$(uname -r)
if [ "${UAE_UPGRADE_DKMS:-0}" = 1 ]; then
	check "DKMS built and installed uaevents $new for the running kernel" \
		sh -c "dkms status uaevents/${new%-*} -k $kver >'$SAW' 2>&1; grep -q ': installed' '$SAW'"
	check "the old version's DKMS tree is gone" \
		sh -c "! dkms status uaevents/$old 2>/dev/null | grep -q ."
else
	tap_skip 2 "uaevents-dkms upgraded under TCG: make soak (UAE_UPGRADE_DKMS=1)"
fi
check "uaeventd wrote no error during the upgrade" \
	no_daemon_error "$cursor" 'cannot write its state file'
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
