#!/bin/sh
# tap-plan: 11
# Sourced by run.sh.  Debian's prometheus-node-exporter reads uaeventd's metrics from its
# textfile collector folder; a scrape shows the series move when events happen.
check "uaeventd.service is active" wait_for 60 systemctl is-active --quiet uaeventd
check "prometheus-node-exporter.service is active" \
	wait_for 60 systemctl is-active --quiet prometheus-node-exporter
# scrape: node_exporter's answer on :9100 into /tmp/scrape (python3's urllib: no curl here).
scrape() {
	python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:9100/metrics", timeout=10).read().decode())' \
		>/tmp/scrape
}
# sum NAME LABEL...: the sum of the values of NAME's series with every LABEL ('k="v"'), as
# node_exporter serves them (labels in its order, values maybe in exponent notation).
sum() {
	awk -v n="$1" -v a="${2:-}" -v b="${3:-}" 'index($0, n "{") == 1 && index($0, a) &&
		index($0, b) { s += $NF } END { print s + 0 }' /tmp/scrape
}
scraped() {
	scrape && grep '^uaeventd_\|^node_textfile' /tmp/scrape >"$SAW" &&
		grep -q '^uaeventd_metrics_timestamp_seconds ' /tmp/scrape &&
		grep -q '^node_textfile_scrape_error 0$' /tmp/scrape
}
check "node_exporter serves uaeventd's metrics (uaevents.prom), with no textfile error" \
	wait_for 90 scraped
grep '^uaevents\|^uaeventd\|^node_textfile' /tmp/scrape | sed 's/^/# /' >"$TAP"
check "the file is root's, readable by node_exporter's user, and no temporary file is left" \
	sh -c "stat -c '%U %a' /var/lib/prometheus/node-exporter/uaevents.prom | grep -qx 'root 644' &&
		! ls -A /var/lib/prometheus/node-exporter | grep -q '^\.uaevents'"

check "scsi_debug with one disk" sdebug_one_disk
H=${HCTL%%:*}
WWID=$(cat "/sys/class/scsi_device/$HCTL/device/wwid")
soft() { sum uaevents_events_total "host=\"$H\"" 'event="THIN_PROVISIONING_SOFT_THRESHOLD_REACHED"'; }
scrape
soft_before=$(soft)
# A real soft threshold UA on 6.12 (scsi_debug's error injection, required there); an
# injected one on 6.1.  One result says which.
if real_ua "the soft threshold"; then
	raise_soft_threshold
else
	uaectl inject --hctl "$HCTL" --sense 700006000000000a00000000380700000000
fi
t_raised=$(date +%s)
# The LU's last soft-threshold time in the scrape, from the moment it was raised.
soft_time_scraped() {
	awk -v w="wwid=\"$WWID\"" -v t="$t_raised" '/^uaevents_last_event_timestamp_seconds/ &&
		/event="THIN_PROVISIONING_SOFT_THRESHOLD_REACHED"/ && index($0, w) &&
		$NF >= t - 5 && $NF <= t + 120 { ok = 1 } END { exit !ok }' /tmp/scrape
}
# counted: one more soft threshold for host H, and the LU's last-event time from now.
counted() {
	scrape || return 1
	grep "THIN_PROVISIONING" /tmp/scrape >"$SAW"
	[ "$(soft)" -eq $((soft_before + 1)) ] && soft_time_scraped
}
check "the soft threshold is scraped: +1 in uaevents_events_total, the LU's time in uaevents_last_event_timestamp_seconds" \
	wait_for 30 counted

# A capacity change (a real UA from scsi_debug on both kernels): uaeventd's rescan job.
jobs() { sum uaevents_jobs_total 'job="rescan-paths"' 'result="ok"'; }
scrape
jobs_before=$(jobs)
echo 1 >"$SDEBUG/virtual_gb"
touch_disk "$DISK"
rescan_counted() {
	scrape && grep '^uaevents_jobs_total' /tmp/scrape >"$SAW" &&
		[ "$(jobs)" -eq $((jobs_before + 1)) ]
}
check "the capacity change's rescan is scraped: +1 in uaevents_jobs_total{job=\"rescan-paths\",result=\"ok\"}" \
	wait_for 60 rescan_counted
check "uaevents_events_lost_total and uaevents_gaps_total are 0: nothing was lost" \
	sh -c "grep -qx 'uaevents_events_lost_total 0' /tmp/scrape &&
		grep -qx 'uaevents_gaps_total 0' /tmp/scrape"
# A restart (an upgrade, say) keeps the LU's time, read back from uaeventd's journal
# entries: an alert on it must not clear while the pool still runs low.
started=$(awk '/^uaeventd_start_time_seconds / { print $NF }' /tmp/scrape)
systemctl restart uaeventd
kept() {
	scrape || return 1
	grep '^uaeventd_start_time_seconds \|THIN_PROVISIONING' /tmp/scrape >"$SAW"
	awk -v s="$started" '/^uaeventd_start_time_seconds / && $NF > s { ok = 1 }
		END { exit !ok }' /tmp/scrape && soft_time_scraped
}
check "after systemctl restart uaeventd the LU's soft-threshold time is still scraped" \
	wait_for 60 kept
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
