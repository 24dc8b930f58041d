# SPDX-License-Identifier: LGPL-2.1-or-later
"""python3-uaevents with the kernel module loaded (the systemd guest, python.sh).

UAEVENTS_TEST_HCTL names a scsi_debug disk to inject events into.  Every test ends, with a
failure if need be, however long what it waits for takes: receive() has a timeout, and
what has none (iterating a Monitor) runs under a deadline.
"""
import contextlib
import datetime
import os
import resource
import select
import shutil
import signal
import subprocess
import time

import pytest

import uaevents

HCTL = os.environ["UAEVENTS_TEST_HCTL"]
SYSFS = f"/sys/class/scsi_device/{HCTL}/device"
# Fixed-format sense data: UNIT ATTENTION, ASC/ASCQ as given.
def ua_sense(asc, ascq):
    return bytes([0x70, 0, 6, 0, 0, 0, 0, 10, 0, 0, 0, 0, asc, ascq, 0, 0, 0, 0])


SOFT = ua_sense(0x38, 0x07)
CAPACITY = ua_sense(0x2A, 0x09)


@contextlib.contextmanager
def deadline(seconds, what):
    """Raise TimeoutError in the block once it has run for SECONDS (SIGALRM: the main
    thread, where pytest runs tests), naming WHAT; an outer deadline goes on after it."""
    def expired(signum, frame):
        raise TimeoutError(f"{what}: not done within {seconds} s")

    old_handler = signal.signal(signal.SIGALRM, expired)
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        if outer:
            left = outer - (time.monotonic() - start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001))


@pytest.fixture(autouse=True)
def per_test_deadline(request):
    """No test waits for ever: each fails after 120 s, or the seconds its function's
    ``deadline`` attribute gives (python.sh's timeout is the last resort, for a hang this
    cannot interrupt)."""
    with deadline(getattr(request.function, "deadline", 120), request.node.name):
        yield


def first(m, timeout=10):
    ev = m.receive(timeout=timeout)
    assert ev is not None, f"no event within {timeout} s"
    return ev


def test_module_is_loaded():
    assert os.path.isdir("/sys/module/uaevents")
    with uaevents.Monitor() as m:
        assert not m.fallback


def test_event_fields_are_typed():
    with uaevents.Monitor(event="THIN_PROVISIONING_SOFT_THRESHOLD_REACHED", hctl=HCTL) as m:
        before = datetime.datetime.now(datetime.timezone.utc)
        uaevents.inject(HCTL, SOFT)
        ev = first(m)
    assert ev.kind is uaevents.Kind.UA
    assert ev.name == "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED"
    assert ev.category == "space"
    assert (ev.asc, ev.ascq, ev.sense_key) == (0x38, 0x07, 6)
    assert ev.sense == SOFT
    assert ev.sense_key_name == "UNIT ATTENTION"
    assert uaevents.Flag.INJECTED in ev.flags
    assert ev.hctl == HCTL
    assert (ev.host, ev.channel, ev.target, ev.lun) == tuple(int(x) for x in HCTL.split(":"))
    with open(f"{SYSFS}/wwid") as f:
        assert ev.wwid == f.read().rstrip("\n")
    assert ev.devname == os.listdir(f"{SYSFS}/block")[0]
    assert ev.seq > 0 and ev.instance != 0
    assert abs((ev.time - before).total_seconds()) < 30
    assert isinstance(ev.failover, bool)
    assert ev.description and "SOFT THRESHOLD" in ev.description


def test_filters_select():
    with uaevents.Monitor(event="CAPACITY_DATA_HAS_CHANGED", hctl=HCTL) as m:
        uaevents.inject(HCTL, SOFT)
        uaevents.inject(HCTL, CAPACITY)
        ev = first(m)
        assert ev.name == "CAPACITY_DATA_HAS_CHANGED"
        assert m.receive(timeout=2) is None


def test_replay_from_a_sequence_number():
    with uaevents.Monitor(hctl=HCTL, event="THIN_PROVISIONING_SOFT_THRESHOLD_REACHED") as m:
        uaevents.inject(HCTL, SOFT)
        live = first(m)
    with uaevents.Monitor(since=live.seq - 1, hctl=HCTL) as again:
        ev = first(again)
    assert (ev.seq, ev.instance, ev.name) == (live.seq, live.instance, live.name)


def test_kernel_stats_are_the_modules():
    with uaevents.Monitor(hctl=HCTL) as m:
        uaevents.inject(HCTL, SOFT)
        ev = first(m)
    st = uaevents.kernel_stats()
    assert st["instance"] == ev.instance
    assert st["last_seq"] >= ev.seq


def test_gap_is_an_event():
    """A replay from before what the history holds: the events no longer there are a gap,
    handed out first, whatever the filters."""
    st = uaevents.kernel_stats()
    if st["history_first_seq"] <= 2:
        # Push the first events out of the history: more distinct events than it holds.
        subprocess.run(["uaectl", "config", "--coalesce-ms", "0"], check=True)
        try:
            for _ in range(st["history_size"] + 8):
                uaevents.inject(HCTL, SOFT)
        finally:
            subprocess.run(["uaectl", "config", "--coalesce-ms", str(st["coalesce_ms"])],
                           check=True)
        st = uaevents.kernel_stats()
    assert st["history_first_seq"] > 2, st
    with uaevents.Monitor(since=1, event="MICROCODE_HAS_BEEN_CHANGED") as m:
        ev = first(m)
    assert ev.kind is uaevents.Kind.GAP
    assert ev.seq == 2
    assert ev.gap == st["history_first_seq"] - 2


# 4,104 injections, each an event uaeventd logs on the same virtual CPU: 120 s ran out
# under TCG on a loaded host.
test_gap_is_an_event.deadline = 300


def test_block_error_has_lba_and_sectors():
    """A failed block read carries its request's first sector, length and operation:
    scsi_debug's medium error range (opts=2, sectors 4660 to 4669 by default)."""
    opts = "/sys/bus/pseudo/drivers/scsi_debug/opts"
    dev = os.listdir(f"{SYSFS}/block")[0]
    with open(opts) as f:
        before = f.read().strip()
    with uaevents.Monitor(hctl=HCTL, event="UNRECOVERED_READ_ERROR") as m:
        with open(opts, "w") as f:
            f.write("2")
        try:
            subprocess.run(["dd", f"if=/dev/{dev}", "of=/dev/null", "bs=512", "skip=4660",
                            "count=1", "iflag=direct"], capture_output=True, check=False)
        finally:
            with open(opts, "w") as f:
                f.write(before)
        ev = first(m)
    assert ev.kind is uaevents.Kind.ERROR
    assert (ev.lba, ev.sectors, ev.req_op) == (4660, 1, "read")
    assert ev.errno is not None and ev.errno > 0


def test_context_manager_closes():
    with uaevents.Monitor() as m:
        fd = m.fileno()
        assert fd >= 0
    with pytest.raises(ValueError):
        m.fileno()


def test_iterating_yields_events():
    # Iterating blocks until an event comes: with none, the deadline fails the test.
    with uaevents.Monitor(hctl=HCTL, event="CAPACITY_DATA_HAS_CHANGED") as m:
        uaevents.inject(HCTL, CAPACITY)
        with deadline(10, "iterating the monitor for the injected event"):
            ev = next(iter(m))
    assert ev.name == "CAPACITY_DATA_HAS_CHANGED"



def test_failed_follow_keeps_the_fd_readable():
    """The module is unloaded while the monitor can open no socket (every descriptor below
    RLIMIT_NOFILE taken): following it fails, is said, and is tried again at a receive
    once a short wait is over, so the monitor's fd must be readable again by then, or a
    caller that polls first waits for an event that may never come.  The controller's last
    word on an unload is the family's removal: nothing else on the socket keeps it
    readable.  Last in this file: it unloads the module, and loads it again."""
    was = uaevents.kernel_stats()["instance"]
    modprobe = shutil.which("modprobe")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    held = []

    def release():
        while held:
            os.close(held.pop())
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    try:
        with uaevents.Monitor(hctl=HCTL, event="CAPACITY_DATA_HAS_CHANGED") as m:
            assert m.receive(timeout=0) is None
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (max(int(n) for n in os.listdir("/proc/self/fd")) + 1, hard))
            with contextlib.suppress(OSError):
                while True:
                    held.append(os.open("/dev/null", os.O_RDONLY))
            # posix_spawn needs no descriptor; modprobe gets the ones its exec frees.
            pid = os.posix_spawn(modprobe, [modprobe, "-r", "uaevents"], os.environ)
            status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            with pytest.raises(OSError) as failed:
                m.receive(timeout=0)
            # Not at once: a failure that lasts would make callers spin.  After a short
            # wait the follow is due again, and the fd says so.
            readable = select.select([m.fileno()], [], [], 5)[0]
            release()
            assert status == 0, f"modprobe -r uaevents exited {status}"
            assert readable, f"after the failed follow ({failed.value}) the fd is not readable"
            ev = first(m)
            assert (ev.name, ev.instance) == ("MODULE_UNLOADED", was)
    finally:
        release()
        subprocess.run(["modprobe", "uaevents"], check=True)


def test_device_stack_of_a_plain_disk():
    disk = os.listdir(f"{SYSFS}/block")[0]
    for name in (disk, f"/dev/{disk}", HCTL):
        s = uaevents.device_stack(name)
        assert s.summary == "nothing" and s.empty, (name, s)
        assert [(e.type, e.name, e.below) for e in s.entries] == [("disk", disk, None)]
    with pytest.raises(OSError) as e:
        uaevents.device_stack("uaetest-no-such-disk")
    assert e.value.errno == 19


def test_monitor_gives_each_event_its_stack(tmp_path):
    """A filesystem mounted on the disk: the event's stack names it; without stack=True,
    no stack."""
    disk = os.listdir(f"{SYSFS}/block")[0]
    subprocess.run(["mkfs.ext4", "-q", "-F", f"/dev/{disk}"], check=True)
    subprocess.run(["mount", f"/dev/{disk}", str(tmp_path)], check=True)
    try:
        with uaevents.Monitor(stack=True, hctl=HCTL,
                              event="THIN_PROVISIONING_SOFT_THRESHOLD_REACHED") as m, \
             uaevents.Monitor(hctl=HCTL, event="THIN_PROVISIONING_SOFT_THRESHOLD_REACHED") as bare:
            uaevents.inject(HCTL, SOFT)
            ev, plain = first(m), first(bare)
        assert ev.stack is not None
        assert ev.stack.summary == f"{tmp_path} (ext4)", ev.stack
        assert ev.stack.mounts == (str(tmp_path),)
        assert ev.stack.entries[1].below == 0 and ev.stack.entries[1].fstype == "ext4"
        assert plain.stack is None
    finally:
        subprocess.run(["umount", str(tmp_path)], check=True)
        subprocess.run(["wipefs", "-q", "-a", f"/dev/{disk}"], check=True)
