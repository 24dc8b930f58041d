#!/bin/sh
# tap-plan: 32
# Sourced by run.sh.  The hand-off that makes libstoragemgmt's rule stand down
# (/run/uaevents/running, rules/89-uaevents-handoff.rules) exists exactly while uaeventd
# runs with rescans on, under its own unit and sandbox; a crash that is not restarted
# removes it.  It names the targets uaeventd scans, and other rules' RUN entries still run.
flag=/run/uaevents/running
check "uaeventd is active and $flag exists (rescans are on by default)" \
	wait_for 30 sh -c "systemctl is-active --quiet uaeventd && test -e $flag"
systemctl stop uaeventd
check "after systemctl stop uaeventd, $flag is gone" wait_for 10 sh -c "! test -e $flag"
systemctl start uaeventd
check "after systemctl start, it is back" wait_for 30 test -e "$flag"
systemctl kill -s KILL uaeventd
check "killed with SIGKILL, systemd restarts uaeventd and the flag is there again" \
	wait_for 30 sh -c "systemctl is-active --quiet uaeventd && test -e $flag"
# A crash that is not restarted (Restart=no for this test, as after too many restarts).
mkdir -p /run/systemd/system/uaeventd.service.d
printf '[Service]\nRestart=no\n' >/run/systemd/system/uaeventd.service.d/no-restart.conf
systemctl daemon-reload
systemctl kill -s KILL uaeventd
check "a crash that is not restarted leaves no flag: libstoragemgmt's rule works again" \
	wait_for 10 sh -c "! systemctl is-active --quiet uaeventd && ! test -e $flag"
rm /run/systemd/system/uaeventd.service.d/no-restart.conf
systemctl daemon-reload
systemctl reset-failed uaeventd
systemctl start uaeventd
check "started again" wait_for 30 test -e "$flag"
check "uaeventd logged no error about the flag" \
	sh -c "! journalctl -u uaeventd -p err --no-pager -o cat | grep -F '$flag'"

# ---- libstoragemgmt's rule, as it ships, beside the package's rules ----
# Its 90-scsi-ua.rules (tools/udev/ of libstoragemgmt; Debian 12 has no package of it),
# and a stand-in for its scan-scsi-target that records each call and scans like it.
lsm_rule /run/lsm-scans scan
# A recorder sorting after every other rule: one line per LUN-change uevent udev is done
# with (RUN entries run in order, so every other rule's ran before it).  The sync point for
# "this rule did not run": not a fixed wait.
mkdir -p /usr/local/sbin
printf '#!/bin/sh\necho "$2" >>"$1"\n' >/usr/local/sbin/uae-record
chmod 0755 /usr/local/sbin/uae-record
cat >/usr/lib/udev/rules.d/99-uae-test-sync.rules <<'EOC'
ACTION=="change", SUBSYSTEM=="scsi", ENV{SDEV_UA}=="REPORTED_LUNS_DATA_HAS_CHANGED", RUN+="/usr/local/sbin/uae-record /run/uae-lun-uevents $env{SDEV_UA}"
EOC
udevadm control --reload
check "scsi_debug with one disk" sdebug_one_disk
echo 1 >"/sys/class/scsi_device/$HCTL/device/evt_lun_change_reported"
udevadm settle
tgt=${HCTL%:*}
target_scans() {
	journalctl --cursor "$cursor" -o json _SYSTEMD_UNIT=uaeventd.service \
		UAEVENTS_ACTION=scan-target "UAEVENTS_TARGET=$tgt" | jq -s length
}
lsm_scans() { cat /run/lsm-scans 2>/dev/null | wc -l; }
luns() { ls -d /sys/class/scsi_device/"$tgt":* | wc -l; }
uaeventd_state() { systemctl show -P ActiveState uaeventd; }
# now WANT FUNCTION [WANT FUNCTION]...: each FUNCTION prints WANT; else what they printed.
now() {
	: >"$SAW"
	ok=0
	while [ $# -ge 2 ]; do
		got=$($2)
		echo "$2: $got (want $1)" >>"$SAW"
		[ "$got" = "$1" ] || ok=1
		shift 2
	done
	return $ok
}
uevents=0
lun_change() {	# N: the target now has N LUNs; the UA reaches the host with the next READ
	echo "$1" >/sys/bus/pseudo/drivers/scsi_debug/max_luns
	uevents=$((uevents + 1))	# LUN 0 reports it, with one SDEV_UA uevent
	echo 3 >/proc/sys/vm/drop_caches
	dd if="/dev/$DISK" of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
}
# after_udev WANT FUNCTION...: once udev is done with every LUN-change uevent so far (and
# has no other event queued), now WANT FUNCTION...
after_udev() {
	if [ "$(grep -c . /run/uae-lun-uevents 2>/dev/null)" -lt "$uevents" ]; then
		echo "udev is not done with LUN change uevent $uevents yet" >"$SAW"
		return 1
	fi
	udevadm settle && now "$@"
}
# scanned_once: uaeventd answered every LUN change the target reported since the cursor
# (reports_answered: none pending, not after a fixed wait) with one scan, or at most one
# per report: LUN 0's read is one report; another LU's echo of the change, if a command
# reached it after the scan's window, would be one more.
scanned_once() {
	reports_answered "$cursor" "$tgt" || return 1
	scans=$(target_scans)
	echo "$scans scan(s) of the target" >>"$SAW"
	[ "$scans" -ge 1 ] && [ "$scans" -le "$REPORTS" ]
}

cursor=$(journal_cursor)
lun_change 2
check "while uaeventd runs: the new LUN is found" wait_for 60 now 2 luns 0 lsm_scans
check "uaeventd scanned the target once" wait_for 60 scanned_once
check "libstoragemgmt's rule stood down" wait_for 60 after_udev 0 lsm_scans

systemctl stop uaeventd
cursor=$(journal_cursor)
lun_change 3
check "after systemctl stop uaeventd: libstoragemgmt's rule scans, the new LUN is found" \
	wait_for 60 now 3 luns 1 lsm_scans
check "and uaeventd stays stopped, as the administrator left it" \
	wait_for 60 after_udev 0 target_scans inactive uaeventd_state

printf '[Service]\nRestart=no\n' >/run/systemd/system/uaeventd.service.d/no-restart.conf
systemctl daemon-reload
systemctl start uaeventd
check "uaeventd started without Restart=, $flag exists" wait_for 30 test -e "$flag"
systemctl kill -s KILL uaeventd
check "killed, it is not restarted: $flag is gone" wait_for 10 sh -c "! test -e $flag"
cursor=$(journal_cursor)
lun_change 4
check "after a crash that is not restarted: libstoragemgmt's rule scans again" \
	wait_for 60 now 4 luns 2 lsm_scans
rm /run/systemd/system/uaeventd.service.d/no-restart.conf
systemctl daemon-reload
systemctl reset-failed uaeventd
cursor=$(journal_cursor)
systemctl start uaeventd
# It replays the LUN change raised while it was down, from the module's history, and
# scans: done before the next one, so that the counts below are the next one's alone.
# (At least one report: none logged yet would pass as "all answered".)
running_again() { test -e "$flag" && reports_answered "$cursor" "$tgt" && [ "$REPORTS" -ge 1 ]; }
check "uaeventd runs again, and answered the LUN change it missed" wait_for 60 running_again

# ---- The hand-off leaves other rules alone, and covers only what uaeventd scans ----
# Another package's rule on the same uevent, and one sorting after uaevents' rules: their
# RUN still runs, with SDEV_UA as the kernel sent it.
cat >/usr/lib/udev/rules.d/80-uae-test-other.rules <<'EOC'
ACTION=="change", SUBSYSTEM=="scsi", ENV{SDEV_UA}=="REPORTED_LUNS_DATA_HAS_CHANGED", RUN+="/usr/local/sbin/uae-record /run/other-runs $env{SDEV_UA}"
EOC
cat >/usr/lib/udev/rules.d/99-uae-test-late.rules <<'EOC'
ACTION=="change", SUBSYSTEM=="scsi", ENV{SDEV_UA}=="REPORTED_LUNS_DATA_HAS_CHANGED", RUN+="/usr/local/sbin/uae-record /run/late-runs $env{SDEV_UA}"
EOC
udevadm control --reload
other_runs() { cat /run/other-runs 2>/dev/null | wc -l; }
late_runs() { sort -u /run/late-runs 2>/dev/null | tr '\n' ' '; }
handoff() { ls "$flag" 2>/dev/null | tr '\n' ' '; }
check "rescans on, no allow-list: the hand-off covers every target" now "all " handoff
cursor=$(journal_cursor)
lun_change 5
check "uaeventd scans: the new LUN is found, libstoragemgmt's rule stands down" \
	wait_for 60 now 5 luns 2 lsm_scans
other_ran_once() { after_udev 1 other_runs && scanned_once; }
check "another rule's RUN for the same uevent still ran, once" wait_for 60 other_ran_once
check "a rule after uaevents' rules saw SDEV_UA as the kernel sent it" \
	wait_for 60 after_udev "REPORTED_LUNS_DATA_HAS_CHANGED " late_runs

# An allow-list without this target: uaeventd will not scan it, so libstoragemgmt's must.
conf=/etc/uaevents/uaeventd.conf
sed -i 's|^#allow =$|allow = 999|' "$conf"
systemctl reload uaeventd
check "reload with allow = 999: the hand-off names host 999 only" wait_for 10 now "host999 " handoff
cursor=$(journal_cursor)
lun_change 6
check "a target outside the allow-list: libstoragemgmt's rule scans it, the LUN is found" \
	wait_for 60 now 6 luns 3 lsm_scans
# not_scanned: uaeventd logged the report and its decision not to act on it (a positive
# sync point: a scan would have been requested right there), and made no scan.
not_scanned() {
	journalctl --cursor "$cursor" -o cat --no-pager _SYSTEMD_UNIT=uaeventd.service |
		grep -q "^REPORTED_LUNS_DATA_HAS_CHANGED on $tgt:[0-9]*: observe only, no rescan$" || {
		echo "uaeventd has not logged that it will not act on the report yet" >"$SAW"
		return 1
	}
	now 0 target_scans
}
check "and uaeventd did not scan it" wait_for 60 not_scanned
sed -i "s|^allow = 999\$|allow = 999 $tgt|" "$conf"
systemctl reload uaeventd
check "allow = 999 $tgt: the hand-off names both" wait_for 10 now "host999 target$tgt " handoff
cursor=$(journal_cursor)
lun_change 7
check "the allowed target: uaeventd scans it, libstoragemgmt's rule stands down" \
	wait_for 60 now 7 luns 3 lsm_scans
scanned_once_lsm() { scanned_once && after_udev 3 lsm_scans; }
check "uaeventd scanned it once" wait_for 60 scanned_once_lsm
sed -i "s|^allow = 999 $tgt\$|#allow =|; s|^#enabled = yes\$|enabled = no|" "$conf"
systemctl reload uaeventd
check "reload with rescans off: the hand-off is gone while uaeventd runs on" \
	wait_for 10 sh -c "! test -e $flag && systemctl is-active --quiet uaeventd"
cursor=$(journal_cursor)
lun_change 8
check "rescans off: libstoragemgmt's rule scans again" wait_for 60 now 8 luns 4 lsm_scans
sed -i 's|^enabled = no$|#enabled = yes|' "$conf"
systemctl reload uaeventd
check "rescans on again: the hand-off is back" wait_for 10 now "all " handoff
check "uaeventd logged no error about the hand-off" \
	sh -c "! journalctl -u uaeventd -p err --no-pager -o cat | grep -F '$flag'"
rm /usr/lib/udev/rules.d/90-scsi-ua.rules /usr/lib/udev/rules.d/80-uae-test-other.rules \
	/usr/lib/udev/rules.d/99-uae-test-late.rules /usr/lib/udev/rules.d/99-uae-test-sync.rules
udevadm control --reload
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
