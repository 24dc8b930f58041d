#!/usr/bin/env python3
"""Carry out a guest's requests to QEMU's monitor (QMP), for what only the host can do.

  qmp-requests.py QMP-SOCKET REQUESTS-LOG

A guest script asks by writing, to the serial port whose output is REQUESTS-LOG (its
ttyS2: nothing else writes there), a line

  uae-qmp ID: qom-set PATH PROPERTY VALUE

(VALUE an integer): nvme.sh sets QEMU's NVMe controller's smart_critical_warning that
way, which raises a SMART / health asynchronous event as a failing drive would.  Each ID
is carried out once, in the order asked; the guest waits for the effect, never for an
answer.  Ends when QEMU closes the socket.
"""
import json
import os
import re
import socket
import sys
import time

REQUEST = re.compile(r"uae-qmp (\d+): qom-set (\S+) (\S+) (-?\d+)")


def connect(path):
    # QEMU creates the socket as it starts: wait for it a while.
    for _ in range(300):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        except OSError:
            time.sleep(0.2)
    sys.exit(f"qmp-requests: no QMP socket at {path}")


def command(f, execute, arguments=None):
    msg = {"execute": execute}
    if arguments is not None:
        msg["arguments"] = arguments
    f.write(json.dumps(msg) + "\n")
    f.flush()
    # Events may come first: skip them, up to the command's answer.
    while True:
        line = f.readline()
        if not line:
            sys.exit(0)
        reply = json.loads(line)
        if "return" in reply or "error" in reply:
            return reply


def main():
    sock, log = sys.argv[1], sys.argv[2]
    s = connect(sock)
    f = s.makefile("rw")
    json.loads(f.readline())  # the greeting
    command(f, "qmp_capabilities")
    done, offset = set(), 0
    while True:
        try:
            with open(log, "rb") as c:
                c.seek(offset)
                data = c.read()
        except FileNotFoundError:
            data = b""
        # Whole lines only: the rest is read again once its line has ended.
        data = data[:data.rfind(b"\n") + 1]
        offset += len(data)
        for m in REQUEST.finditer(data.decode(errors="replace")):
            rid, path, prop, value = m.group(1), m.group(2), m.group(3), int(m.group(4))
            if rid in done:
                continue
            done.add(rid)
            reply = command(f, "qom-set", {"path": path, "property": prop, "value": value})
            print(f"qmp-requests: {rid}: qom-set {path} {prop} {value}: {reply}", flush=True)
        # QEMU gone: the socket's peer closed it.
        if not os.path.exists(sock):
            return
        time.sleep(0.2)


if __name__ == "__main__":
    main()
