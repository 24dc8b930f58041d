#!/usr/bin/env python3
"""Generate the tables of the shared sense decoder from its data files.

  gen-tables.py OUTPUT.h --asc FILE [FILE...] --ua FILE --classes FILE --nvme FILE \
                --nvme-aen FILE

--asc     ASC/ASCQ lists in T10's asc-num.txt format (sense/data/t10-asc-num.txt and
          sense/data/asc-additions.txt); a code listed twice is an error.
--ua      unit attention rules (sense/data/ua-events.txt).
--classes the classification tables (docs/classification.md): SCSI's under "## The table",
          NVMe's under "## NVMe status", each a Markdown table.
--nvme    NVMe status codes (sense/data/nvme-status.txt).
--nvme-aen NVMe asynchronous events (sense/data/nvme-aen.txt).

One header: uae_sense.c takes its tables with UAE_SENSE_TABLES defined, uae_nvme.c its own
with UAE_NVME_TABLES.

Build-time only: the decoder (uae_sense.c) stays freestanding C.
"""
import argparse
import re
import sys

CATEGORIES = ["none", "reset", "parameters", "space", "inventory", "microcode",
              "medium", "other"]

HOST_BYTES = {
    "DID_OK": 0x00, "DID_NO_CONNECT": 0x01, "DID_BUS_BUSY": 0x02, "DID_TIME_OUT": 0x03,
    "DID_BAD_TARGET": 0x04, "DID_ABORT": 0x05, "DID_PARITY": 0x06, "DID_ERROR": 0x07,
    "DID_RESET": 0x08, "DID_BAD_INTR": 0x09, "DID_PASSTHROUGH": 0x0a,
    "DID_SOFT_ERROR": 0x0b, "DID_IMM_RETRY": 0x0c, "DID_REQUEUE": 0x0d,
    "DID_TRANSPORT_DISRUPTED": 0x0e, "DID_TRANSPORT_FAILFAST": 0x0f,
    "DID_TRANSPORT_MARGINAL": 0x14,
}
STATUSES = {
    "GOOD": 0x00, "CHECK_CONDITION": 0x02, "CONDITION_MET": 0x04, "BUSY": 0x08,
    "INTERMEDIATE": 0x10, "INTERMEDIATE_CONDITION_MET": 0x14,
    "RESERVATION_CONFLICT": 0x18, "COMMAND_TERMINATED": 0x22, "TASK_SET_FULL": 0x28,
    "ACA_ACTIVE": 0x30, "TASK_ABORTED": 0x40,
}
SENSE_KEYS = ["NO_SENSE", "RECOVERED_ERROR", "NOT_READY", "MEDIUM_ERROR", "HARDWARE_ERROR",
              "ILLEGAL_REQUEST", "UNIT_ATTENTION", "DATA_PROTECT", "BLANK_CHECK",
              "VENDOR_SPECIFIC", "COPY_ABORTED", "ABORTED_COMMAND", "RESERVED_C",
              "VOLUME_OVERFLOW", "MISCOMPARE", "COMPLETED"]
KEY_NO_SENSE_DATA, KEY_DEFERRED = 16, 17       # bits beside the 16 sense keys
SEVERITIES = ["none", "retryable", "fatal"]
LOCI = ["none", "device", "transport", "host"]
# enum uae_blk_status: values are part of the netlink family (UAEVENTS_ATTR_BLK_STATUS),
# new ones only at the end.
BLK_STATUSES = ["OK", "IOERR", "TRANSPORT", "TARGET", "RESV_CONFLICT", "NOSPC", "MEDIUM",
                "PROTECTION", "ZONE_OPEN_RESOURCE", "NOTSUPP", "ZONE_ACTIVE_RESOURCE"]
# include/linux/blk_types.h: blk_path_error() is false for these, true for the rest.
NOT_PATH_ERRORS = {"OK", "NOTSUPP", "TARGET", "RESV_CONFLICT", "NOSPC", "MEDIUM",
                   "PROTECTION"}
NVME_SCTS = {0: "GENERIC", 1: "COMMAND_SPECIFIC", 2: "MEDIA_AND_DATA_INTEGRITY",
             3: "PATH_RELATED", 7: "VENDOR_SPECIFIC"}

ASC_ENTRY = re.compile(r"^([0-9A-F]{2})h/([0-9A-F]{2}|NN)h\s{2}.{13}\s+(\S.*)$")


def fail(msg):
    sys.exit(f"gen-tables: {msg}")


def ident(description):
    """'CAPACITY DATA HAS CHANGED' -> 'CAPACITY_DATA_HAS_CHANGED'."""
    text = re.sub(r"\([^)]*\)", "", description.upper())
    return re.sub(r"[^A-Z0-9]+", "_", text).strip("_")


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def read_asc(paths):
    exact, ranged = {}, []
    for path in paths:
        with open(path, encoding="latin-1") as f:
            for line in f:
                m = ASC_ENTRY.match(line.rstrip())
                if not m:
                    continue
                asc, ascq, desc = int(m.group(1), 16), m.group(2), m.group(3).strip()
                if ascq == "NN":
                    r = re.search(r"\(([0-9A-F]{2})h-([0-9A-F]{2})h\)", desc, re.I)
                    lo, hi = (int(r.group(1), 16), int(r.group(2), 16)) if r else (0, 0xff)
                    ranged.append((asc, lo, hi, desc))
                    continue
                key = (asc, int(ascq, 16))
                if key in exact:
                    fail(f"{path}: {asc:02X}h/{ascq}h listed twice")
                exact[key] = desc
    return exact, ranged


def read_ua_rules(path):
    rules = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) not in (3, 4) or words[2] not in CATEGORIES:
                fail(f"{path}:{n}: want 'ASC ASCQ CATEGORY [NAME]'")
            asc = int(words[0], 16)
            ascq = None if words[1] == "*" else int(words[1], 16)
            rules[(asc, ascq)] = (words[2], words[3] if len(words) == 4 else None)
    return rules


def byte_set(cell, names, where):
    """A match cell as the list of byte values it matches, or None for '*'."""
    if cell == "*":
        return None
    values = []
    for item in cell.split(","):
        item = item.strip()
        if names is not None:
            if item not in names:
                fail(f"{where}: unknown name '{item}'")
            values.append(names[item])
        else:
            values.append(int(item, 16))
    return values


def key_mask(cell, where):
    if cell == "*":
        return (1 << 18) - 1
    mask = 0
    for item in cell.split(","):
        item = item.strip()
        if item == "-":
            mask |= 1 << KEY_NO_SENSE_DATA
        elif item == "deferred":
            mask |= 1 << KEY_DEFERRED
        elif item in SENSE_KEYS:
            mask |= 1 << SENSE_KEYS.index(item)
        else:
            fail(f"{where}: unknown sense key '{item}'")
    return mask


def table_rows(path, section):
    """(line number, cells) of each numbered row of the Markdown table under '## SECTION'."""
    inside = False
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("## "):
                inside = line[3:].strip() == section
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if inside and line.startswith("|") and cells[0].isdigit():
                yield n, cells


def check_failover(where, failover, blk, reason):
    """Whether failover differs from blk_path_error(blk); the reason must say so."""
    path_error = blk not in NOT_PATH_ERRORS
    differs = (failover == "yes") != path_error
    if differs != reason.startswith("Differs:"):
        fail(f"{where}: failover '{failover}' vs blk_path_error({blk}) = "
             f"{path_error}: the reason must begin 'Differs:' exactly when they differ")
    return differs


def check_row(where, number, rows, sev, locus, failover, blk):
    """What both tables' rows must be: in order, of known classes."""
    if int(number) != len(rows) + 1:
        fail(f"{where}: rule {number} out of order")
    if sev not in SEVERITIES or locus not in LOCI or blk not in BLK_STATUSES \
            or failover not in ("yes", "no"):
        fail(f"{where}: bad severity, locus, failover or blk_status")


def read_classes(path):
    rows = []
    for n, cells in table_rows(path, "The table"):
        where = f"{path}:{n}"
        if len(cells) != 11:
            fail(f"{where}: want 11 cells, found {len(cells)}")
        number, host, status, key, asc, ascq, sev, locus, failover, blk, reason = cells
        check_row(where, number, rows, sev, locus, failover, blk)
        differs = check_failover(where, failover, blk, reason)
        rows.append(dict(number=int(number),
                         host=byte_set(host, HOST_BYTES, where),
                         status=byte_set(status, STATUSES, where),
                         keys=key_mask(key, where),
                         asc=byte_set(asc, None, where),
                         ascq=byte_set(ascq, None, where),
                         sev=sev, locus=locus, failover=failover == "yes", blk=blk,
                         differs=differs))
    if not rows:
        fail(f"{path}: no table rows")
    last = rows[-1]
    if any(last[k] is not None for k in ("host", "status", "asc", "ascq")):
        fail(f"{path}: the last rule must match everything")
    return rows


def read_nvme_pairs(path, name_re, want, what):
    """Lines 'N XX NAME' (N 0-7, XX two hex digits): {N << 8 | XX: NAME}, each key once."""
    pairs = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) != 3 or not re.fullmatch(r"[0-7]", words[0]) or \
                    not re.fullmatch(r"[0-9A-F]{2}", words[1]) or \
                    not re.fullmatch(name_re, words[2]):
                fail(f"{path}:{n}: want {want}")
            key = int(words[0]) << 8 | int(words[1], 16)
            if key in pairs:
                fail(f"{path}:{n}: {words[0]}/{words[1]}h listed twice")
            pairs[key] = words[2]
    if not pairs:
        fail(f"{path}: no {what}")
    return pairs


def read_nvme_codes(path):
    return read_nvme_pairs(path, r"[A-Z0-9_]+", "'SCT SC NAME' (SCT 0-7, SC two hex digits)",
                           "codes")


# An asynchronous event's type (bits 2:0 of its result): the name of the class, and the
# name of an event of that type that nvme-aen.txt does not list.
NVME_AEN_TYPES = {0: ("error", "NVME_ERROR_EVENT"), 1: ("smart", "NVME_SMART_EVENT"),
                  2: ("notice", "NVME_NOTICE"), 3: ("reserved", "NVME_RESERVED_EVENT"),
                  4: ("reserved", "NVME_RESERVED_EVENT"), 5: ("reserved", "NVME_RESERVED_EVENT"),
                  6: ("io_command_set", "NVME_IO_COMMAND_SET_EVENT"),
                  7: ("vendor", "NVME_VENDOR_EVENT")}


def read_nvme_aens(path):
    events = read_nvme_pairs(path, r"NVME_[A-Z0-9_]+",
                             "'TYPE INFO NVME_NAME' (TYPE 0-7, INFO two hex digits)", "events")
    generic, seen = set(name for _, name in NVME_AEN_TYPES.values()), set()
    for name in events.values():
        if name in generic or name in seen:
            fail(f"{path}: {name} names another event too")
        seen.add(name)
    return events


def sc_set(cell, where):
    """An SC cell ('*', '80,83', '60-6F') as the list of values it matches, or None."""
    if cell == "*":
        return None
    values = []
    for item in cell.split(","):
        m = re.fullmatch(r"\s*([0-9A-F]{2})(?:-([0-9A-F]{2}))?\s*", item)
        if not m:
            fail(f"{where}: bad status code '{item}'")
        lo = int(m.group(1), 16)
        hi = int(m.group(2), 16) if m.group(2) else lo
        if hi < lo:
            fail(f"{where}: empty range '{item}'")
        values.extend(range(lo, hi + 1))
    return values


def read_nvme_classes(path):
    rows = []
    for n, cells in table_rows(path, "NVMe status"):
        where = f"{path}:{n}"
        if len(cells) != 8:
            fail(f"{where}: want 8 cells, found {len(cells)}")
        number, sct, sc, sev, locus, failover, blk, reason = cells
        check_row(where, number, rows, sev, locus, failover, blk)
        if sct != "*" and not re.fullmatch(r"[0-7]", sct):
            fail(f"{where}: bad status code type '{sct}'")
        rows.append(dict(number=int(number), sct=None if sct == "*" else int(sct),
                         sc=sc_set(sc, where), sev=sev, locus=locus,
                         failover=failover == "yes", blk=blk,
                         differs=check_failover(where, failover, blk, reason)))
    if not rows:
        fail(f"{path}: no NVMe status table rows")
    if rows[-1]["sct"] is not None or rows[-1]["sc"] is not None:
        fail(f"{path}: the last NVMe rule must match everything")
    return rows


def c_set(values):
    """A 256-bit set as eight 32-bit words; None is the full set."""
    words = [0xffffffff] * 8 if values is None else [0] * 8
    for v in values or []:
        words[v // 32] |= 1 << (v % 32)
    return "{ .w = { " + ", ".join(f"0x{w:08x}" for w in words) + " } }"


def emit(out, exact, ranged, rules, classes):
    w = out.append
    # Each part once per translation unit: KUnit compiles both decoders into one.
    w("#if defined(UAE_SENSE_TABLES) && !defined(UAE_SENSE_TABLES_DONE)")
    w("#define UAE_SENSE_TABLES_DONE")
    w("static const struct uae_asc_entry uae_asc_table[] = {")
    for (asc, ascq), desc in sorted(exact.items()):
        w(f"\t{{ 0x{asc:02x}, 0x{ascq:02x}, {c_string(ident(desc))} }},")
    w("};")
    w("")
    w("static const struct uae_asc_range uae_asc_ranges[] = {")
    for asc, lo, hi, desc in ranged:
        w(f"\t{{ 0x{asc:02x}, 0x{lo:02x}, 0x{hi:02x}, {c_string(ident(desc))} }},")
    w("};")
    w("")
    # The module is built with UAE_SENSE_NO_TEXT: it never prints a description.
    w("#ifndef UAE_SENSE_NO_TEXT")
    w("/* T10's descriptions, in the order of uae_asc_table and of uae_asc_ranges. */")
    w("static const char *const uae_asc_descriptions[] = {")
    for _, desc in sorted(exact.items()):
        w(f"\t{c_string(desc)},")
    w("};")
    w("")
    w("static const char *const uae_asc_range_descriptions[] = {")
    for *_, desc in ranged:
        w(f"\t{c_string(desc)},")
    w("};")
    w("#endif")
    w("")
    w("static const struct uae_ua_rule uae_ua_rules[] = {")
    for (asc, ascq), (cat, name) in sorted(
            rules.items(), key=lambda r: (r[0][0], r[0][1] is None, r[0][1] or 0)):
        any_ascq = "true" if ascq is None else "false"
        w(f"\t{{ 0x{asc:02x}, 0x{(ascq or 0):02x}, {any_ascq}, UAE_CAT_{cat.upper()}, "
          f"{c_string(name) if name else 'NULL'} }},")
    w("};")
    w("")
    w("static const struct uae_class_rule uae_class_rules[] = {")
    for r in classes:
        w(f"\t{{ /* rule {r['number']} */")
        w(f"\t\t.host = {c_set(r['host'])},")
        w(f"\t\t.status = {c_set(r['status'])},")
        w(f"\t\t.asc = {c_set(r['asc'])},")
        w(f"\t\t.ascq = {c_set(r['ascq'])},")
        w(f"\t\t.keys = 0x{r['keys']:05x},")
        w(f"\t\t.severity = UAE_SEV_{r['sev'].upper()},")
        w(f"\t\t.locus = UAE_LOCUS_{r['locus'].upper()},")
        w(f"\t\t.blk_status = UAE_BLK_{r['blk']},")
        w(f"\t\t.failover = {'true' if r['failover'] else 'false'},")
        w(f"\t\t.differs = {'true' if r['differs'] else 'false'},")
        w(f"\t\t.number = {r['number']},")
        w("\t},")
    w("};")
    w("")
    w("static const char *const uae_host_byte_names[] = {")
    for name, value in sorted(HOST_BYTES.items(), key=lambda kv: kv[1]):
        w(f"\t[0x{value:02x}] = {c_string(name)},")
    w("};")
    w("")
    w("static const char *const uae_status_names[] = {")
    for name, value in sorted(STATUSES.items(), key=lambda kv: kv[1]):
        w(f"\t[0x{value:02x}] = {c_string(name)},")
    w("};")
    w("#endif /* UAE_SENSE_TABLES */")


def emit_nvme(out, codes, classes, aens):
    w = out.append
    w("#if defined(UAE_NVME_TABLES) && !defined(UAE_NVME_TABLES_DONE)")
    w("#define UAE_NVME_TABLES_DONE")
    w("/* Sorted by SCT << 8 | SC, for a binary search. */")
    w("static const struct uae_nvme_code uae_nvme_codes[] = {")
    for code, name in sorted(codes.items()):
        w(f"\t{{ 0x{code:03x}, {c_string(name)} }},")
    w("};")
    w("")
    w("static const char *const uae_nvme_sct_names[8] = {")
    for sct, name in sorted(NVME_SCTS.items()):
        w(f"\t[{sct}] = {c_string(name)},")
    w("};")
    w("")
    w("static const struct uae_nvme_rule uae_nvme_rules[] = {")
    for r in classes:
        sct_mask = 0xff if r["sct"] is None else 1 << r["sct"]
        w(f"\t{{ /* rule {r['number']} */")
        w(f"\t\t.sct = 0x{sct_mask:02x},")
        w(f"\t\t.sc = {c_set(r['sc'])},")
        w(f"\t\t.severity = UAE_SEV_{r['sev'].upper()},")
        w(f"\t\t.locus = UAE_LOCUS_{r['locus'].upper()},")
        w(f"\t\t.blk_status = UAE_BLK_{r['blk']},")
        w(f"\t\t.failover = {'true' if r['failover'] else 'false'},")
        w(f"\t\t.differs = {'true' if r['differs'] else 'false'},")
        w(f"\t\t.number = {r['number']},")
        w("\t},")
    w("};")
    w("")
    w("/* Sorted by TYPE << 8 | INFO, for a binary search. */")
    w("static const struct uae_nvme_code uae_nvme_aens[] = {")
    for key, name in sorted(aens.items()):
        w(f"\t{{ 0x{key:03x}, {c_string(name)} }},")
    w("};")
    w("")
    w("/* By type: its class, and the name of an event of it the list above lacks. */")
    w("static const char *const uae_nvme_aen_types[8][2] = {")
    for t, (cls, name) in sorted(NVME_AEN_TYPES.items()):
        w(f"\t[{t}] = {{ {c_string(cls)}, {c_string(name)} }},")
    w("};")
    w("#endif /* UAE_NVME_TABLES */")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("output")
    p.add_argument("--asc", nargs="+", required=True)
    p.add_argument("--ua", required=True)
    p.add_argument("--classes", required=True)
    p.add_argument("--nvme", required=True)
    p.add_argument("--nvme-aen", required=True)
    a = p.parse_args()
    exact, ranged = read_asc(a.asc)
    out = ["/* Generated by sense/gen-tables.py from sense/data/ and docs/: do not edit. */", ""]
    emit(out, exact, ranged, read_ua_rules(a.ua), read_classes(a.classes))
    out.append("")
    emit_nvme(out, read_nvme_codes(a.nvme), read_nvme_classes(a.classes),
              read_nvme_aens(a.nvme_aen))
    with open(a.output, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
