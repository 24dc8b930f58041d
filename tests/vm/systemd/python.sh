#!/bin/sh
# tap-plan: 18
# Sourced by run.sh.  python3-uaevents as installed from its package, with Debian's
# python3 and pytest, against the loaded module: tests/python/test_module.py.
check "python3-uaevents is installed from its package" \
	sh -c "dpkg -s python3-uaevents >/dev/null && python3 -c 'import uaevents' 2>'$SAW'"
check "scsi_debug with one disk" sdebug_one_disk
# Each test of test_module.py is one result, by name: the list is the plan's (its count is
# in the header above), and a test added there without being listed here fails below.
PYTESTS="module_is_loaded event_fields_are_typed filters_select replay_from_a_sequence_number
kernel_stats_are_the_modules gap_is_an_event block_error_has_lba_and_sectors context_manager_closes
iterating_yields_events failed_follow_keeps_the_fd_readable device_stack_of_a_plain_disk
monitor_gives_each_event_its_stack"
# Every test ends on its own deadline (test_module.py); timeout ends a pytest that still
# hangs, which then fails every test below instead of holding up the guest.
rm -f /tmp/pytest.xml
(cd /usr/local/lib/uae-test &&
	UAEVENTS_TEST_HCTL=$HCTL timeout -k 10 600 python3 -m pytest -v -rA -p no:cacheprovider \
		--junitxml=/tmp/pytest.xml test_module.py) >/tmp/pytest.out 2>&1
pytest_rc=$?
sed 's/^/# /' /tmp/pytest.out | tail -n 40 >"$TAP"
# pytest_case [NAME]: test NAME ran and passed, as pytest's JUnit XML report says (what it
# said of a failure into $SAW); without NAME, the report holds exactly the tests listed.
pytest_case() {
	python3 - "$1" /tmp/pytest.xml "$PYTESTS" >"$SAW" 2>&1 <<'EOP'
import sys
import xml.etree.ElementTree as ET

name, path, listed = sys.argv[1], sys.argv[2], sorted(sys.argv[3].split())
try:
    cases = list(ET.parse(path).iter("testcase"))
except (OSError, ET.ParseError) as e:
    sys.exit(f"no report from pytest ({e}): it did not finish")
if not name:
    ran = sorted(c.get("name", "")[len("test_"):] for c in cases)
    if ran != listed:
        sys.exit(f"pytest ran {ran}; python.sh lists {listed}")
    sys.exit(0)
mine = [c for c in cases if c.get("name") == "test_" + name]
if not mine:
    sys.exit(f"test_{name} was not run")
bad = [e for c in mine for e in c if e.tag in ("failure", "error", "skipped")]
for e in bad:
    print(f"{e.tag}: {e.get('message', '')}")
    print((e.text or "").strip()[-1500:])
sys.exit(1 if bad else 0)
EOP
}
for t in $PYTESTS; do
	check "pytest: test_$t passed" pytest_case "$t"
done
check "pytest ran exactly the tests listed in python.sh" pytest_case ""
check "pytest exits 0 (no failure, no error)" test "$pytest_rc" -eq 0
# The example, as shipped: it subscribes, says so, waits, and leaves quietly on SIGINT.
# SIGINT only once it has subscribed: a fixed 3 s caught python3 still importing on a
# loaded VM.  (env: a background job of this shell starts with SIGINT ignored.)  Neither
# wait is open-ended: an example that does not leave is killed, and fails.
example() {
	env --default-signal=INT /usr/share/doc/python3-uaevents/examples/low-space.py \
		>"$SAW" 2>&1 &
	pid=$!
	wait_for 60 grep -q '^low-space: waiting' "$SAW"
	subscribed=$?
	kill -INT "$pid"
	reap 30 "$pid"
	rc=$?
	[ "$subscribed" -eq 0 ] && [ "$rc" -eq 0 ] && ! grep -q Traceback "$SAW"
}
check "the example script subscribes and stops cleanly on SIGINT" example
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
