#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Print each thin pool running low or out, as it happens, and every loss of events.

Run as any user; with --since SEQ (as root), the kernel's history after SEQ first.
"""
import argparse
import sys

import uaevents

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("--since", type=int, help="replay the history after this sequence number")
args = p.parse_args()

events = ["THIN_PROVISIONING_SOFT_THRESHOLD_REACHED", "SPACE_ALLOCATION_FAILED_WRITE_PROTECT"]
try:
    with uaevents.Monitor(since=args.since, event=events) as m:
        print("low-space: waiting for thin pools running low or out (Ctrl-C to stop)",
              file=sys.stderr, flush=True)
        for ev in m:
            if ev.kind is uaevents.Kind.GAP:
                print(f"{ev.gap} events lost from {ev.seq} on: check the journal", flush=True)
            elif ev.kind is uaevents.Kind.MODULE:
                print(f"uaevents module: {ev.name}", flush=True)
            else:
                print(f"{ev.time:%Y-%m-%d %H:%M:%S} {ev.name} on {ev.devname or ev.hctl} "
                      f"(LU {ev.wwid}), seq {ev.seq}", flush=True)
except KeyboardInterrupt:
    pass
except OSError as e:
    sys.exit(f"low-space: {e}")
