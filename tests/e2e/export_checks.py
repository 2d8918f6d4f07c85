#!/usr/bin/env python3
"""Structural checks of sbt-bpf's exports, against the JSON report of the
same trace.

  export_checks.py chrome TRACE.json REPORT.json THREADS PHASES
  export_checks.py csv TRACE.csv REPORT.json
  export_checks.py png IMAGE.png
Exit status 0 when every check holds; each failure is printed.
"""
import collections
import csv
import json
import struct
import sys
import zlib

failures = []
APPROX = 1 << 22


def check(cond, what):
    if not cond:
        failures.append(what)


def ns(us):
    """'12.345' us as written by the exporter -> exact integer ns"""
    return round(us * 1000)


def chrome(path, report_path, threads, phases):
    d = json.load(open(path))
    r = json.load(open(report_path))
    ev = d["traceEvents"]
    names = {(e["pid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    check(any(n.startswith("measured:") for n in names.values()), f"no measured process: {names}")
    check(any(n.startswith("approximated:") for n in names.values()), f"no approximated process: {names}")
    slices = [e for e in ev if e["ph"] == "X"]
    check(all(e["dur"] >= 0 for e in slices), "negative duration")
    # per view and thread: the phase slices (compute, barrier) follow each other
    # without overlap, in time order; one compute slice per phase
    track = collections.defaultdict(list)
    for e in slices:
        if e["cat"] in ("phase", "barrier"):
            track[(e["pid"], e["tid"])].append(e)
    computes = collections.Counter()
    for key, lst in track.items():
        lst.sort(key=lambda e: (e["ts"], e["cat"] != "phase"))
        for a, b in zip(lst, lst[1:]):
            check(ns(a["ts"] + a["dur"]) <= ns(b["ts"]) + 1,
                  f"overlap on {key}: {a} / {b}")
        computes[key[0] >= APPROX] += sum(e["cat"] == "phase" for e in lst)
    check(computes[False] == threads * phases, f"measured compute slices {computes[False]}")
    check(computes[True] == threads * phases, f"approximated compute slices {computes[True]}")
    # approximated never later than measured, per thread
    end = collections.defaultdict(int)
    for (pid, tid), lst in track.items():
        end[(pid >= APPROX, tid % APPROX)] = max(ns(e["ts"] + e["dur"]) for e in lst)
    for (approx, tid), t in end.items():
        if approx:
            check(t <= end[(False, tid)], f"thread {tid}: approximated end {t} > measured")
    # flows: every start has its finish
    s = collections.Counter(e["id"] for e in ev if e["ph"] == "s")
    f = collections.Counter(e["id"] for e in ev if e["ph"] == "f")
    check(s == f and len(s) > 0, "unpaired flow events")
    # exact to the ns: each measured compute slice is a report phase's window
    want = {(t["tid"], t["arrive_ns"] - t["compute_ns"], t["compute_ns"])
            for p in r["phases"] for t in p["threads"]}
    got = {(e["tid"], ns(e["ts"]), ns(e["dur"])) for e in slices
           if e["cat"] == "phase" and e["pid"] < APPROX}
    check(got == want, f"compute slices differ from the report: {sorted(got ^ want)[:4]}")
    wanta = {(t["tid"], t["approximated"]["arrive_ns"] - t["approximated"]["compute_ns"],
              t["approximated"]["compute_ns"]) for p in r["phases"] for t in p["threads"]}
    gota = {(e["tid"] - APPROX, ns(e["ts"]), ns(e["dur"])) for e in slices
            if e["cat"] == "phase" and e["pid"] >= APPROX}
    check(gota == wanta, f"approximated slices differ: {sorted(gota ^ wanta)[:4]}")
    check(d["otherData"]["phases"] == len(r["phases"]), "phase count in otherData")


def csv_check(path, report_path):
    rows = list(csv.DictReader(open(path)))
    r = json.load(open(report_path))
    want = {(p["index"], t["tid"]): t for p in r["phases"] for t in p["threads"]}
    check(len(rows) == len(want), f"{len(rows)} rows, {len(want)} phase x thread")
    for row in rows:
        t = want.get((int(row["phase"]), int(row["tid"])))
        if not t:
            check(False, f"row not in the report: {row}")
            continue
        for k in ("arrive_ns", "compute_ns", "wait_ns", "late_wait_ns", "blocked_ns"):
            check(int(row[k]) == t[k], f"{k}: csv {row[k]} report {t[k]}")
        check(int(row["a_compute_ns"]) == t["approximated"]["compute_ns"], "a_compute_ns")
        check(int(row["a_compute_ns"]) <= int(row["compute_ns"]), "approximated > measured")


def png(path):
    """Decode the PNG (8-bit RGB/RGBA, no interlace) and count coloured pixels."""
    data = open(path, "rb").read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            bpp = {2: 3, 6: 4}.get(ctype)
            check(depth == 8 and bpp, f"unsupported PNG depth {depth} type {ctype}")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride, prev, coloured = w * bpp, bytearray(w * bpp), 0
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(w):
            r_, g, b_ = line[x * bpp:x * bpp + 3]
            coloured += abs(r_ - g) > 60 or abs(g - b_) > 60  # the red and green cells
        prev = line
    check(coloured > 2000, f"only {coloured} coloured pixels: the timeline did not render")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    kind = argv[1]
    if kind == "chrome":
        chrome(argv[2], argv[3], int(argv[4]), int(argv[5]))
    elif kind == "csv":
        csv_check(argv[2], argv[3])
    elif kind == "png":
        png(argv[2])
    else:
        sys.exit(__doc__)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main(sys.argv)
