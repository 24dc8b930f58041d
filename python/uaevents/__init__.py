# SPDX-License-Identifier: LGPL-2.1-or-later
"""SCSI unit attentions and classified errors from the uaevents kernel module.

A thin layer over libuaevents (ctypes): the same events, filters, replay and gap reports
as the C library and ``uaectl monitor``.

    import uaevents

    with uaevents.Monitor(event="THIN_PROVISIONING_SOFT_THRESHOLD_REACHED") as m:
        for ev in m:
            if ev.kind is uaevents.Kind.GAP:
                print(f"{ev.gap} events lost from {ev.seq} on")
            else:
                print(ev.name, ev.hctl, ev.wwid)

What sits above a device (maps, volumes, mounts, swap, Kubernetes volumes), as uaeventd's
journal entries say it: ``uaevents.device_stack("sdc").summary``, or ``Monitor(stack=True)``
for each event's ``Event.stack``.

Iterating blocks until the next event; ``Monitor.receive(timeout)`` waits at most that
long and returns None.  ``Monitor.fileno()`` is a descriptor for select/poll/asyncio.
Errors are ``OSError`` with the library's message.

Threads: a Monitor may be used from any thread, by one at a time.  ``receive()`` (and
iterating) while another thread is in ``receive()``, or ``close()`` while one is, raises
``RuntimeError`` rather than free the subscription under it: stop the receiver first
(give it a timeout, or close the monitor from the thread that receives).  Events are
plain data, safe to hand to other threads.
"""

import ctypes
import dataclasses
import datetime
import enum
import errno as _errno
import os
import select
import threading
from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping, Optional, Tuple, Union

__all__ = ["Kind", "Flag", "Event", "Monitor", "kernel_stats", "inject", "Stack", "StackEntry",
           "device_stack"]

_lib = ctypes.CDLL("libuaevents.so.1", use_errno=True)


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_p = ctypes.c_void_p
_str = ctypes.c_char_p
_monitor_new = _fn("uae_monitor_new", ctypes.c_int, ctypes.POINTER(_p))
_monitor_unref = _fn("uae_monitor_unref", _p, _p)
_monitor_is_fallback = _fn("uae_monitor_is_fallback", ctypes.c_int, _p)
_monitor_filter = _fn("uae_monitor_filter_add_match", ctypes.c_int, _p, _str, _str)
_monitor_fd = _fn("uae_monitor_get_fd", ctypes.c_int, _p)
_monitor_replay = _fn("uae_monitor_replay", ctypes.c_int, _p, ctypes.c_uint64)
_monitor_receive = _fn("uae_monitor_receive", ctypes.c_int, _p, ctypes.POINTER(_p))
_monitor_overflows = _fn("uae_monitor_get_overflows", ctypes.c_uint64, _p)
_event_unref = _fn("uae_event_unref", _p, _p)
_strerror = _fn("uae_strerror", _str, ctypes.c_int)
_get_sense = _fn("uae_event_get_sense", ctypes.POINTER(ctypes.c_uint8), _p,
                 ctypes.POINTER(ctypes.c_size_t))
_get_lba = _fn("uae_event_get_lba", ctypes.c_int, _p, ctypes.POINTER(ctypes.c_uint64),
               ctypes.POINTER(ctypes.c_uint32))

# Getters: the field's name in Event, and the C type they return.
_GETTERS = {
    "kind": ctypes.c_int, "flags": ctypes.c_uint32, "seq": ctypes.c_uint64,
    "instance": ctypes.c_uint64, "gap": ctypes.c_uint64, "repeat": ctypes.c_uint32,
    "timestamp_ns": ctypes.c_uint64, "host": ctypes.c_uint, "channel": ctypes.c_uint,
    "target": ctypes.c_uint, "lun": ctypes.c_uint64, "hctl": _str, "devname": _str,
    "sgdev": _str, "wwid": _str, "serial": _str, "sense_key": ctypes.c_uint8,
    "asc": ctypes.c_uint8, "ascq": ctypes.c_uint8, "opcode": ctypes.c_uint8,
    "host_byte": ctypes.c_uint8, "status": ctypes.c_uint8, "req_op_name": _str,
    "errno": ctypes.c_int, "severity": _str, "locus": _str, "failover": ctypes.c_int,
    "blk_status": _str, "class_rule": ctypes.c_uint, "name": _str, "category": _str,
    "description": _str, "sense_key_name": _str, "kind_name": _str,
    "transport": _str, "nvme_controller": _str, "aen_result": ctypes.c_uint32,
    "aen_class": _str, "nvme_status": ctypes.c_int, "ana_group": ctypes.c_int,
    "ana_state": _str,
}
_get_nsids = _fn("uae_event_get_nvme_nsids", ctypes.c_int, _p,
                 ctypes.POINTER(ctypes.POINTER(ctypes.c_uint32)), ctypes.POINTER(ctypes.c_uint))
_get = {k: _fn("uae_event_get_" + k, t, _p) for k, t in _GETTERS.items()}
_has_sense = _fn("uae_event_has_sense", ctypes.c_int, _p)
_stack_cache_new = _fn("uae_stack_cache_new", ctypes.c_int, ctypes.POINTER(_p))
_stack_cache_unref = _fn("uae_stack_cache_unref", _p, _p)
_stack_new = _fn("uae_device_stack_new", ctypes.c_int, _p, _str, ctypes.c_uint,
                 ctypes.POINTER(_p))
_stack_unref = _fn("uae_stack_unref", _p, _p)
_stack_summary = _fn("uae_stack_get_summary", _str, _p)
_stack_is_empty = _fn("uae_stack_is_empty", ctypes.c_int, _p)
_stack_first = _fn("uae_stack_get_first", _p, _p)
_entry_next = _fn("uae_stack_entry_get_next", _p, _p)
_entry_below = _fn("uae_stack_entry_get_below", _p, _p)
_entry_property = _fn("uae_stack_entry_get_property", _str, _p, _str)
_entry_property_key = _fn("uae_stack_entry_get_property_key", _str, _p, ctypes.c_uint)
_entry_get = {k: _fn("uae_stack_entry_get_" + k, _str, _p)
              for k in ("type_name", "name", "devname", "uuid", "fstype")}


def _error(r: int, what: str) -> OSError:
    return OSError(-r, f"{what}: {_strerror(r).decode()}")


class Kind(enum.IntEnum):
    """What an event is (enum uae_event_kind)."""
    UA = 1          #: a unit attention
    ERROR = 2       #: block I/O failed: the midlayer's final answer
    TIMEOUT = 3     #: a command timed out
    SGIO = 4        #: an SG_IO pass-through command failed
    AEN = 5         #: an NVMe controller's asynchronous event
    ANA = 6         #: an NVMe ANA group's state through one controller
    GAP = 100       #: events were lost and could not be replayed (``gap`` of them)
    MODULE = 101    #: the module was loaded, unloaded or missed (``name`` says which)


class Flag(enum.IntFlag):
    """UAE_EVENT_FLAG_*."""
    PASSTHROUGH = 0x1
    QUIET = 0x2
    INJECTED = 0x4
    STOCK = 0x8
    NO_COMMAND = 0x10
    ERROR_HANDLER = 0x20
    SUMMARY = 0x40


@dataclass(frozen=True)
class Event:
    """One event, its fields read once from the library's event."""
    kind: Kind
    name: str                       #: "CAPACITY_DATA_HAS_CHANGED", "DID_TRANSPORT_FAILFAST"
    category: str                   #: "space", "inventory", ...; "none"
    seq: int                        #: from 1 per module instance; 0 for MODULE events
    instance: int                   #: the module instance; changes at each load
    gap: int                        #: GAP: how many were lost; else those missed before it
    repeat: int                     #: occurrences a coalesced storm's event stands for
    flags: Flag
    time: datetime.datetime         #: when the kernel saw it (UTC)
    host: int
    channel: int
    target: int
    lun: int
    hctl: str                       #: "2:0:0:1"
    devname: Optional[str]          #: "sdb"
    sgdev: Optional[str]            #: "sg1"
    wwid: Optional[str]
    serial: Optional[str]
    sense: Optional[bytes]          #: raw sense data as the device sent it
    sense_key: int
    asc: int
    ascq: int
    sense_key_name: Optional[str]
    description: Optional[str]      #: T10's text for the ASC/ASCQ
    opcode: int
    host_byte: int
    status: int
    lba: Optional[int]
    sectors: Optional[int]
    req_op: Optional[str]           #: "read", "write", ...
    errno: int
    severity: str                   #: "none", "retryable", "fatal"
    locus: str                      #: "none", "device", "transport", "host"
    failover: bool                  #: another path to the LU may help
    blk_status: Optional[str]
    class_rule: int
    transport: Optional[str] = None         #: "scsi", "nvme"; None for GAP and MODULE
    nvme_controller: Optional[str] = None   #: NVMe: "nvme0"
    aen_result: int = 0                     #: AEN: completion dword 0 (0x040002...)
    aen_class: Optional[str] = None         #: AEN: "notice", "smart", "error", ...
    nvme_status: Optional[int] = None       #: a failed NVMe request's (0x4006...)
    ana_group: Optional[int] = None         #: ANA: the group
    ana_state: Optional[str] = None         #: ANA: "optimized", "inaccessible", ...
    #: NVME_CHANGED_NAMESPACE_LIST: the namespace IDs it carries (the log's first 24)
    nsids: Optional[Tuple[int, ...]] = None
    #: and how many the log listed; -1: more than it can hold (any may have changed)
    nsids_listed: Optional[int] = None
    #: what sits above the device when the event was received (Monitor(stack=True));
    #: None otherwise, or when it has no block device (gone, a tape)
    stack: Optional["Stack"] = dataclasses.field(default=None, compare=False)

    @classmethod
    def _from(cls, ev) -> "Event":
        v = {k: g(ev) for k, g in _get.items()}
        for k, t in _GETTERS.items():
            if t is _str and v[k] is not None:
                v[k] = v[k].decode("ascii", "replace")
        sense = None
        if _has_sense(ev):
            n = ctypes.c_size_t()
            p = _get_sense(ev, ctypes.byref(n))
            sense = ctypes.string_at(p, n.value) if p else None
        lba, sectors = ctypes.c_uint64(), ctypes.c_uint32()
        # 1: filled; 0: the event has no block request range.
        has_lba = _get_lba(ev, ctypes.byref(lba), ctypes.byref(sectors)) == 1
        ids, count = ctypes.POINTER(ctypes.c_uint32)(), ctypes.c_uint()
        listed = _get_nsids(ev, ctypes.byref(ids), ctypes.byref(count))
        nsids = tuple(ids[i] for i in range(count.value)) if listed != -_errno.ENODATA else None
        ns = v["timestamp_ns"]
        return cls(
            kind=Kind(v["kind"]), name=v["name"], category=v["category"], seq=v["seq"],
            instance=v["instance"], gap=v["gap"], repeat=v["repeat"], flags=Flag(v["flags"]),
            time=datetime.datetime.fromtimestamp(ns / 1e9, datetime.timezone.utc),
            host=v["host"], channel=v["channel"], target=v["target"], lun=v["lun"],
            hctl=v["hctl"] or "", devname=v["devname"], sgdev=v["sgdev"], wwid=v["wwid"],
            serial=v["serial"], sense=sense, sense_key=v["sense_key"], asc=v["asc"],
            ascq=v["ascq"], sense_key_name=v["sense_key_name"],
            description=v["description"], opcode=v["opcode"], host_byte=v["host_byte"],
            status=v["status"], lba=lba.value if has_lba else None,
            sectors=sectors.value if has_lba else None, req_op=v["req_op_name"],
            errno=v["errno"], severity=v["severity"], locus=v["locus"],
            failover=bool(v["failover"]), blk_status=v["blk_status"],
            class_rule=v["class_rule"], transport=v["transport"],
            nvme_controller=v["nvme_controller"], aen_result=v["aen_result"],
            aen_class=v["aen_class"],
            nvme_status=v["nvme_status"] if v["nvme_status"] >= 0 else None,
            ana_group=v["ana_group"] if v["ana_group"] >= 0 else None,
            ana_state=v["ana_state"], nsids=nsids,
            nsids_listed=None if nsids is None else listed if listed >= 0 else -1)


@dataclass(frozen=True)
class StackEntry:
    """One thing in a device's stack."""
    type: str                       #: "disk", "partition", "mpath", "lvm", "crypt", "md",
                                    #: "dm", "loop", "mount", "swap"
    name: str                       #: "mpatha", "vg0/data", "/srv/data"
    devname: Optional[str]          #: "dm-3"; None for mounts and swap files
    uuid: Optional[str]             #: a map's WWID, a filesystem's or LUKS UUID
    fstype: Optional[str]           #: "ext4", "LVM2_member", "swap"
    below: Optional[int]            #: index of the entry it sits on; None for the device
    #: "fs_root", "k8s_pod_uid", "k8s_volume", ... (not compared: entries stay hashable)
    properties: Mapping[str, str] = dataclasses.field(compare=False)


@dataclass(frozen=True)
class Stack:
    """What sits above a device on this host, read from sysfs, /proc and udev's database,
    never from the device (uae_device_stack_new(3))."""
    summary: str                    #: "/srv/data (ext4 on vg0/data on mpatha)", "nothing"
    empty: bool                     #: nothing at all above the device
    entries: Tuple[StackEntry, ...]  #: the device first; each after the one it sits on

    def of_type(self, type_name: str) -> Tuple[StackEntry, ...]:
        return tuple(e for e in self.entries if e.type == type_name)

    @property
    def mounts(self) -> Tuple[str, ...]:
        """The mount points, in the host's mount namespace."""
        return tuple(e.name for e in self.of_type("mount"))

    @property
    def maps(self) -> Tuple[str, ...]:
        """The multipath maps' names."""
        return tuple(e.name for e in self.of_type("mpath"))


def _stack_from(s) -> Stack:
    index, entries, e = {}, [], _stack_first(s)
    while e:
        index[e] = len(entries)
        v = {k: g(e) for k, g in _entry_get.items()}
        v = {k: x.decode("utf-8", "replace") if x is not None else None for k, x in v.items()}
        props = {}
        i = 0
        while (key := _entry_property_key(e, i)) is not None:
            x = _entry_property(e, key)
            if x is not None:
                props[key.decode()] = x.decode("utf-8", "replace")
            i += 1
        below = _entry_below(e)
        entries.append(StackEntry(type=v["type_name"], name=v["name"] or "",
                                  devname=v["devname"], uuid=v["uuid"], fstype=v["fstype"],
                                  below=index.get(below) if below else None,
                                  properties=props))
        e = _entry_next(e)
    return Stack(summary=_stack_summary(s).decode("utf-8", "replace"),
                 empty=bool(_stack_is_empty(s)), entries=tuple(entries))


def _device_stack(cache, device: str) -> Stack:
    s = _p()
    r = _stack_new(cache, device.encode(), 0, ctypes.byref(s))
    if r < 0:
        raise _error(r, f"cannot read the stack of {device}")
    try:
        return _stack_from(s)
    finally:
        _stack_unref(s)


def device_stack(device: str) -> Stack:
    """What sits above ``device``: a block device's name ("sdc"), its node ("/dev/sdc") or a
    SCSI address ("2:0:0:1").  OSError (ENODEV) when there is no such block device."""
    return _device_stack(None, device)


Filter = Union[str, Iterable[str]]


class Monitor:
    """A subscription to the module's events (or, without it, the stock kernel's SDEV_UA
    and NVME_AEN uevents: see ``fallback``).

    Filters are keyword arguments, as ``uae_monitor_filter_add_match()`` takes them:
    kind, event, category, severity, locus, failover ("yes"/"no"), device, wwid, hctl; a
    list gives alternatives.  ``since``: replay the kernel's history after that sequence
    number first (a subscriber's last one, or 0 for all of it), then the live stream; no
    event twice.  Gap and module events are handed out whatever the filters.
    ``stack``: each event also carries ``Event.stack``, read when it is received.
    """

    _m = None  # until subscribed: close() and __del__ then have nothing to do
    _receiving = False  # a thread is in receive(): the subscription is in use
    _lock = None
    _stacks = None  # a stack cache (stack=True): the mount tables are read on change only

    def __init__(self, since: Optional[int] = None, stack: bool = False, **filters: Filter):
        self._lock = threading.Lock()
        if stack:
            c = _p()
            r = _stack_cache_new(ctypes.byref(c))
            if r < 0:
                raise _error(r, "cannot make a stack cache")
            self._stacks = c
        m = _p()
        r = _monitor_new(ctypes.byref(m))
        if r < 0:
            raise _error(r, "cannot subscribe")
        self._m = m
        try:
            for key, values in filters.items():
                for value in [values] if isinstance(values, str) else values:
                    r = _monitor_filter(m, key.encode(), str(value).encode())
                    if r < 0:
                        raise _error(r, f"filter {key}={value}")
            if since is not None:
                r = _monitor_replay(m, since)
                if r < 0:
                    raise _error(r, f"cannot replay from {since}")
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Unsubscribe; twice is fine.  RuntimeError while another thread is in receive()."""
        if not self._lock:
            return
        with self._lock:
            if self._receiving:
                raise RuntimeError("the monitor is in receive() in another thread; "
                                   "stop that first")
            if self._m:
                _monitor_unref(self._m)
                self._m = None
            if self._stacks:
                _stack_cache_unref(self._stacks)
                self._stacks = None

    def __enter__(self) -> "Monitor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        self.close()

    def fileno(self) -> int:
        return _monitor_fd(self._live())

    @property
    def fallback(self) -> bool:
        """True while the module is not loaded and the stock uevents are read instead."""
        return bool(_monitor_is_fallback(self._live()))

    @property
    def overflows(self) -> int:
        """How often the socket overflowed and the missed events were replayed."""
        return _monitor_overflows(self._live())

    def _live(self):
        if not self._m:
            raise ValueError("the monitor is closed")
        return self._m

    def receive(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event: waits up to ``timeout`` seconds (None: for ever, 0: not at all);
        None when none came.  A malformed message is skipped (the library says so).
        RuntimeError while another thread is in receive() on this monitor."""
        with self._lock:
            m = self._live()
            if self._receiving:
                raise RuntimeError("the monitor is in receive() in another thread")
            self._receiving = True
        try:
            return self._receive(m, timeout)
        finally:
            with self._lock:
                self._receiving = False

    def _receive(self, m, timeout: Optional[float]) -> Optional[Event]:
        poller = select.poll()
        poller.register(_monitor_fd(m), select.POLLIN)
        while True:
            ev = _p()
            r = _monitor_receive(m, ctypes.byref(ev))
            if r == 0:
                try:
                    event = Event._from(ev)
                finally:
                    _event_unref(ev)
                return self._with_stack(event)
            if r == -_errno.EBADMSG:
                continue
            if r != -_errno.EAGAIN:
                raise _error(r, "cannot receive")
            if not poller.poll(None if timeout is None else int(timeout * 1000)):
                return None

    def _with_stack(self, event: Event) -> Event:
        if not self._stacks or event.kind in (Kind.GAP, Kind.MODULE):
            return event
        try:
            stack = _device_stack(self._stacks, event.devname or event.hctl)
        except OSError:
            return event    # gone already, or no block device
        return dataclasses.replace(event, stack=stack)

    def __iter__(self) -> Iterator[Event]:
        while True:
            ev = self.receive()
            if ev is not None:
                yield ev


def kernel_stats() -> Mapping[str, int]:
    """The module's counters and settings (struct uae_kernel_stats); any user may read."""
    fields = [("size", ctypes.c_size_t), ("instance", ctypes.c_uint64),
              ("last_seq", ctypes.c_uint64), ("history_first_seq", ctypes.c_uint64),
              ("history_size", ctypes.c_uint32), ("lost_unread", ctypes.c_uint64),
              ("coalesced", ctypes.c_uint64), ("alloc_failed", ctypes.c_uint64),
              ("queue_full", ctypes.c_uint64), ("mcast_overflow", ctypes.c_uint64),
              ("coalesce_ms", ctypes.c_uint32), ("uevents", ctypes.c_uint8),
              ("probe_missed", ctypes.c_uint64)]
    st = type("uae_kernel_stats", (ctypes.Structure,), {"_fields_": fields})()
    st.size = ctypes.sizeof(st)
    r = _lib.uae_kernel_stats(ctypes.byref(st))
    if r < 0:
        raise _error(r, "cannot read the module's counters")
    return {name: getattr(st, name) for name, _ in fields[1:]}


def inject(hctl: str, sense: bytes, count: int = 1) -> None:
    """A test event for a real device through the module's capture path (CAP_SYS_ADMIN),
    flagged INJECTED: what uaectl inject does."""
    h, c, t, lun = (int(x) for x in hctl.split(":"))

    class _Inject(ctypes.Structure):
        _fields_ = [("size", ctypes.c_size_t), ("host", ctypes.c_uint),
                    ("channel", ctypes.c_uint), ("target", ctypes.c_uint),
                    ("lun", ctypes.c_uint64), ("sense", ctypes.POINTER(ctypes.c_uint8)),
                    ("sense_len", ctypes.c_size_t), ("host_byte", ctypes.c_int),
                    ("status", ctypes.c_int), ("kind", ctypes.c_int),
                    ("count", ctypes.c_uint32)]
    buf = (ctypes.c_uint8 * len(sense)).from_buffer_copy(sense)
    req = _Inject(ctypes.sizeof(_Inject), h, c, t, lun, buf, len(sense), -1, -1, 0, count)
    r = _lib.uae_inject(ctypes.byref(req))
    if r < 0:
        raise _error(r, f"cannot inject into {hctl}")
