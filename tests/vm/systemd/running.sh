#!/bin/sh
# Sourced by run.sh.  The flag that makes libstoragemgmt's rule stand down
# (/run/uaevents/running, rules/91-uaevents.rules) exists exactly while uaeventd runs with
# rescans on, under its own unit and sandbox; a crash that is not restarted removes it.
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
