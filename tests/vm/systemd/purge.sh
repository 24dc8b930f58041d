#!/bin/sh
# tap-plan: 4
# Sourced by run.sh, last of its set: purging the package leaves nothing of uaeventd's
# behind (its state, its metrics file).
check "uaeventd has its state directory and metrics file before the purge" \
	sh -c 'test -d /var/lib/uaevents && test -e /var/lib/prometheus/node-exporter/uaevents.prom'
purge() { DEBIAN_FRONTEND=noninteractive apt-get purge -y uaevents >"$SAW" 2>&1; }
check "apt-get purge uaevents" purge
check "uaeventd is gone" sh -c '! systemctl is-active --quiet uaeventd && ! command -v uaeventd'
check "its state (/var/lib/uaevents) and metrics file are removed" \
	sh -c '! test -e /var/lib/uaevents && ! test -e /var/lib/prometheus/node-exporter/uaevents.prom'
