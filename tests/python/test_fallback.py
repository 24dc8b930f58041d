# SPDX-License-Identifier: LGPL-2.1-or-later
"""python3-uaevents without the kernel module: what a script sees on a host without it."""
import errno
import os

import pytest

import uaevents


def test_module_is_absent_here():
    # These tests are about the library's fallback: a loaded module would make them moot.
    assert not os.path.exists("/sys/module/uaevents")


def test_monitor_falls_back_and_polls_empty():
    with uaevents.Monitor(event="CAPACITY_DATA_HAS_CHANGED") as m:
        assert m.fallback
        assert m.fileno() >= 0
        assert m.receive(timeout=0) is None
        assert m.overflows == 0


def test_unknown_filter_key_is_einval():
    with pytest.raises(OSError) as e:
        uaevents.Monitor(bogus="x")
    assert e.value.errno == errno.EINVAL
    assert "bogus=x" in str(e.value)


def test_replay_needs_the_module():
    with pytest.raises(OSError) as e:
        uaevents.Monitor(since=0)
    assert e.value.errno == errno.EOPNOTSUPP


def test_kernel_stats_need_the_module():
    with pytest.raises(OSError) as e:
        uaevents.kernel_stats()
    assert "not loaded" in str(e.value)


def test_closed_monitor_refuses():
    m = uaevents.Monitor()
    m.close()
    m.close()  # twice is fine
    with pytest.raises(ValueError):
        m.receive(timeout=0)
    with pytest.raises(ValueError):
        m.fileno()


def test_several_values_of_one_key_are_alternatives():
    with uaevents.Monitor(kind=["ua", "error"], severity="fatal") as m:
        assert m.receive(timeout=0) is None


def test_close_during_receive_is_refused():
    """close() while another thread waits in receive() raises, and frees nothing under
    it; once receive() has returned, close() works."""
    import threading
    import time

    m = uaevents.Monitor(event="CAPACITY_DATA_HAS_CHANGED")
    got, tid = [], []

    def receiver():
        tid.append(threading.get_native_id())
        got.append(m.receive(timeout=3))

    t = threading.Thread(target=receiver)
    t.start()
    # Until the receiver waits in poll(2) (system call 7 on x86-64), on the monitor's fd.
    deadline = time.monotonic() + 10
    while True:
        try:
            with open(f"/proc/self/task/{tid[0]}/syscall") as f:
                if f.read().split()[0] == "7":
                    break
        except (IndexError, OSError):
            pass
        assert time.monotonic() < deadline, "receive() never waited in poll()"
        time.sleep(0.01)
    with pytest.raises(RuntimeError, match="receive"):
        m.close()
    with pytest.raises(RuntimeError, match="receive"):
        m.receive(timeout=0)
    t.join(10)
    assert not t.is_alive()
    assert got == [None]
    assert m.fileno() >= 0  # still subscribed
    m.close()
    with pytest.raises(ValueError):
        m.receive(timeout=0)
