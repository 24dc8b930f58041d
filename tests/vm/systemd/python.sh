#!/bin/sh
# Sourced by run.sh.  python3-uaevents as installed from its package, with Debian's
# python3 and pytest, against the loaded module: tests/python/test_module.py.
check "python3-uaevents is installed from its package" \
	sh -c "dpkg -s python3-uaevents >/dev/null && python3 -c 'import uaevents' 2>'$SAW'"
check "scsi_debug with one disk" sdebug_one_disk
cd /usr/local/lib/uae-test || exit 1
UAEVENTS_TEST_HCTL=$HCTL python3 -m pytest -v -p no:cacheprovider test_module.py \
	>/tmp/pytest.out 2>&1
pytest_rc=$?
sed 's/^/# /' /tmp/pytest.out | tail -n 40 >"$TAP"
# One check per test, by name, so that a test that was not collected fails as missing.
for t in module_is_loaded event_fields_are_typed filters_select \
	replay_from_a_sequence_number kernel_stats_are_the_modules gap_is_an_event \
	context_manager_closes iterating_yields_events; do
	check "pytest: test_$t passed" grep -q "::test_$t PASSED" /tmp/pytest.out
done
check "pytest exits 0 (no failure, no error)" test "$pytest_rc" -eq 0
# The example, as shipped: it subscribes, says so, waits, and leaves quietly on SIGINT.
# SIGINT only once it has subscribed: a fixed 3 s caught python3 still importing on a
# loaded VM.  (env: a background job of this shell starts with SIGINT ignored.)
example() {
	env --default-signal=INT /usr/share/doc/python3-uaevents/examples/low-space.py \
		>"$SAW" 2>&1 &
	pid=$!
	wait_for 60 grep -q '^low-space: waiting' "$SAW"
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	grep -q '^low-space: waiting' "$SAW" && [ "$rc" -eq 0 ] && ! grep -q Traceback "$SAW"
}
check "the example script subscribes and stops cleanly on SIGINT" example
cd / || exit 1
check "scsi_debug can be unloaded after the test" wait_for 30 modprobe -r scsi_debug
