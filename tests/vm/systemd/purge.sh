#!/bin/sh
# tap-plan: 6
# Sourced by run.sh, last of its set (it removes the package): removing uaevents takes
# its metrics file, which would go on saying uaeventd runs; purging it, its state too.
M=/var/lib/prometheus/node-exporter/uaevents.prom
check "uaeventd has its state directory and metrics file" \
	sh -c "test -d /var/lib/uaevents && test -e $M"
apt_do() { DEBIAN_FRONTEND=noninteractive apt-get "$@" >"$SAW" 2>&1; }
check "apt-get remove uaevents" apt_do remove -y uaevents
check "uaeventd is gone, its metrics file too, its state kept" \
	sh -c "! systemctl is-active --quiet uaeventd && ! command -v uaeventd &&
		! test -e $M && test -d /var/lib/uaevents"
check "apt-get purge uaevents" apt_do purge -y uaevents
check "its state (/var/lib/uaevents) is removed" sh -c '! test -e /var/lib/uaevents'
check "dpkg knows nothing of uaevents any more" sh -c '! dpkg -s uaevents >/dev/null 2>&1'
