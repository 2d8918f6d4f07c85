#!/usr/bin/env python3
"""Structural checks of sbt-bpf's exports, against the JSON report of the
same trace.

  export_checks.py chrome TRACE.json REPORT.json THREADS PHASES
  export_checks.py csv TRACE.csv REPORT.json
  export_checks.py png IMAGE.png
  export_checks.py svg PICTURE.svg REPORT.json ROWSETS   (1, 2 or auto)
Exit status 0 when every check holds; each failure is printed.
"""
import collections
import csv
import json
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib
from decimal import Decimal

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
    # each phase's efficiencies on its site's counter track, from its start
    keys = ("load_balance", "sync_efficiency", "parallel_efficiency")
    for approx in (False, True):
        want = collections.Counter(
            (f"efficiency {p['call_site']}", (p["approximated"] if approx else p)["start_ns"])
            + tuple((p["efficiency"]["approximated"] if approx else p["efficiency"])[k]
                    for k in keys) for p in r["phases"])
        got = collections.Counter((e["name"], ns(e["ts"])) + tuple(e["args"][k] for k in keys)
                                  for e in ev if e["ph"] == "C" and e.get("cat") == "efficiency"
                                  and (e["pid"] >= APPROX) == approx)
        check(got == want, f"efficiency counters (approximated {approx}) differ from the "
              f"report: {sorted((got - want).elements())[:2]} / {sorted((want - got).elements())[:2]}")


def csv_check(path, report_path):
    rows = list(csv.DictReader(open(path)))
    r = json.load(open(report_path))
    want = {(p["index"], t["tid"]): t for p in r["phases"] for t in p["threads"]}
    eff = {p["index"]: p["efficiency"] for p in r["phases"]}
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
        for k in ("late_start_ns", "lock_wait_ns", "sem_wait_ns", "cond_wait_ns", "task_wait_ns"):
            check(int(row[k]) == t[k], f"{k}: csv {row[k]} report {t[k]}")
        for k in ("sync_wait_ns", "useful_ns", "late_start_ns"):
            check(int(row["a_" + k]) == t["approximated"][k], f"a_{k}")
        # the phase's efficiencies, both printed to 6 significant digits
        e = eff[int(row["phase"])]
        for k in ("load_balance", "sync_efficiency", "parallel_efficiency"):
            check(float(row[k]) == e[k], f"{k}: csv {row[k]} report {e[k]}")
            check(float(row["a_" + k]) == e["approximated"][k], f"a_{k}")


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


SVG = "{http://www.w3.org/2000/svg}"
EM = 0.6  # estimated width of a character, in em (the exporter's estimate too)


def svg_text(e):
    """The text an element shows: its own, not its <title> tooltip's."""
    return (e.text or "") + "".join(c.tail or "" for c in e)


def text_extent(e):
    """x range a <text> covers, at EM a character."""
    x, fs = float(e.get("x")), float(e.get("font-size"))
    w = len(svg_text(e)) * fs * EM
    anchor = e.get("text-anchor", "start")
    if anchor == "middle":
        return x - w / 2, x + w / 2
    return (x - w, x) if anchor == "end" else (x, x + w)


def round_ticks(labels):
    """0, s, 2s, ... with s 1, 2 or 5 times a power of ten."""
    v = [Decimal(t) for t in labels]
    check(len(v) >= 2 and v[0] == 0, f"ticks do not start at 0: {labels}")
    if len(v) < 2:
        return
    step = v[1] - v[0]
    check(all(b - a == step for a, b in zip(v, v[1:])), f"ticks not evenly spaced: {labels}")
    mant = step.normalize().as_tuple().digits
    check(len(mant) == 1 and mant[0] in (1, 2, 5), f"tick step {step} is not 1, 2 or 5 x 10^k")
    decimals = {len(t.split(".")[1]) if "." in t else 0 for t in labels}
    check(len(decimals) == 1, f"ticks printed with different decimals: {labels}")


def svg(path, report_path, rowsets):
    root = ET.parse(path).getroot()  # raises on invalid XML
    r = json.load(open(report_path))
    W, H = int(root.get("width")), int(root.get("height"))
    check(root.get("viewBox") == f"0 0 {W} {H}", f"viewBox {root.get('viewBox')} vs {W}x{H}")
    check(W <= 1400, f"width {W}: does not fit a 1400-px window")
    # every element within the picture
    for e in root.iter():
        tag = e.tag.replace(SVG, "")
        if tag == "rect" and e.get("width") != "100%":
            x, w = float(e.get("x")), float(e.get("width"))
            y, h = float(e.get("y")), float(e.get("height"))
            check(x >= 0 and x + w <= W, f"rect x={x} width={w} beyond {W}")
            check(y >= 0 and y + h <= H, f"rect y={y} height={h} beyond {H}")
        elif tag == "line":
            for a in ("x1", "x2"):
                check(0 <= float(e.get(a)) <= W, f"line {a}={e.get(a)} beyond {W}")
            for a in ("y1", "y2"):
                check(0 <= float(e.get(a)) <= H, f"line {a}={e.get(a)} beyond {H}")
        elif tag == "text":
            a, b = text_extent(e)
            check(a >= 0 and b <= W, f"text '{svg_text(e)}' spans {a:.0f}..{b:.0f}, beyond {W}")
            check(0 < float(e.get("y")) <= H, f"text '{svg_text(e)}' at y={e.get('y')} beyond {H}")
    texts = list(root.iter(SVG + "text"))
    # round time ticks in a unit the caption names
    round_ticks([svg_text(t) for t in texts if t.get("class") == "tick"])
    check(any(re.fullmatch(r"time \((s|ms|µs|ns)\)", svg_text(t)) for t in texts),
          "no time axis caption with its unit")
    # a legend with colour swatches
    legend = [g for g in root.iter(SVG + "g") if g.get("class") == "legend"]
    check(len(legend) == 1, "no legend")
    swatches = [e for e in legend[0] if e.get("class") == "swatch"] if legend else []
    check(len(swatches) >= 5 and all(e.get("fill") for e in swatches),
          f"{len(swatches)} legend swatches")
    # every barrier site of the report in the legend and on hover
    titles = [t.text or "" for t in root.iter(SVG + "title")]
    sites = [g for g in root.iter(SVG + "g") if g.get("class") == "sites"]
    listed = [svg_text(t) for t in sites[0].iter(SVG + "text")] if sites else []
    for st in r["sites"]:
        name = f'{st["call_site"]} "{st["name"]}"'
        check(any(name in t for t in titles), f"site {name} in no <title>")
        # (cut to the width: "name…")
        check(any(t.startswith(name) or t.endswith("…") and name.startswith(t[:-1])
                  for t in listed), f"site {name} not in the legend")
    # phase numbers: from 0, a round step apart, phases of the report
    nums = [int(svg_text(t)) for t in texts if t.get("class") == "phase"]
    check(not r["phases"] or nums and nums[0] == 0, f"phase numbers {nums[:5]} do not start at 0")
    check(all(n < len(r["phases"]) for n in nums), f"phase numbers beyond the report's {nums}")
    if len(nums) > 1:
        round_ticks([str(n) for n in nums])
    bands = [e for e in root.iter(SVG + "rect") if e.get("class") == "band"]
    check(bool(bands) == bool(r["phases"]) and all(b.find(SVG + "title") is not None and
                        b.find(SVG + "title").text.startswith("phase") for b in bands),
          "phase band without a phase title")
    # one row per thread and view drawn; a main thread in no phase shows its join
    rows = [g for g in root.iter(SVG + "g") if (g.get("class") or "").startswith("row ")]
    threads = {t["tid"] for t in r["threads"]}
    note = any("not drawn" in svg_text(t) for t in texts)
    if rowsets == "auto":
        rowsets = "1" if note else "2"
    else:
        check(not note or rowsets == "1", "'not drawn' note with both views drawn")
    check(len(rows) == int(rowsets) * len(threads),
          f"{len(rows)} rows for {len(threads)} threads, {rowsets} set(s)")
    if rowsets == "1":
        check(all(g.get("class") == rows[0].get("class") for g in rows), "rows of two views")
    for g in rows:
        title = g.find(SVG + "title").text
        check(any(e.get("class") == "alive" for e in g.iter(SVG + "rect")),
              f"no lifetime in row {title}")
        tid = int(title.split()[1])
        if any(t["tid"] == tid == t["pid"] and not t["episodes"] for t in r["threads"]):
            check(any(e.get("fill") == "#4678d2" for e in g.iter(SVG + "rect")),
                  f"main thread row {title}: no wait (join) drawn")


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
    elif kind == "svg":
        svg(argv[2], argv[3], argv[4])
    else:
        sys.exit(__doc__)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main(sys.argv)
