#!/usr/bin/env python3
"""Ground-truth checks of the end-to-end tests: compare sbt-bpf's JSON report
with what the example workloads measured about themselves.

  checks.py imbalance REPORT.json WORKLOAD.out THREADS PHASES D_MS
  checks.py omp REPORT.json WORKLOAD.out PHASES D_MS
  checks.py phases REPORT.json N
Exit status 0 when every check holds; each failure is printed.
"""
import json
import re
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def near(value, expected, tol):
    return abs(value - expected) <= tol


def load(path):
    with open(path) as f:
        return json.load(f)


def workload_lines(path, pattern):
    rx = re.compile(pattern)
    with open(path) as f:
        return [m.groupdict() for m in map(rx.match, f) if m]


def imbalance(report, wl_out, threads, phases, d_ms):
    """Thread i computes (i+1)*D ms per phase: the last worker arrives last,
    barrier time is (T-1)*D, and each thread's compute matches its own
    measurement."""
    r = load(report)
    rows = workload_lines(wl_out, r"phase (?P<k>\d+) thread (?P<i>\d+) tid (?P<tid>\d+) "
                                  r"compute_ns (?P<c>\d+) wait_ns (?P<w>\d+)")
    own = {(int(x["k"]), int(x["tid"])): int(x["c"]) for x in rows}
    tid_of = {int(x["i"]): int(x["tid"]) for x in rows}
    check(len(r["phases"]) == phases, f"{len(r['phases'])} phases, expected {phases}")
    d = d_ms * 1e6
    for p in r["phases"]:
        k = p["index"]
        check(len(p["threads"]) == threads, f"phase {k}: {len(p['threads'])} threads")
        check(p["critical_tid"] == tid_of.get(threads - 1),
              f"phase {k}: late thread {p['critical_tid']}, expected {tid_of.get(threads - 1)}")
        check(near(p["barrier_ns"], (threads - 1) * d, 0.1 * d + 2e6),
              f"phase {k}: barrier {p['barrier_ns'] / 1e6:.3f} ms, expected {(threads - 1) * d_ms} ms")
        for t in p["threads"]:
            mine = own.get((k, t["tid"]))
            check(mine is not None, f"phase {k}: tid {t['tid']} not a worker")
            if mine is not None:
                check(near(t["compute_ns"], mine, 0.1 * d + 2e6),
                      f"phase {k} tid {t['tid']}: compute {t['compute_ns'] / 1e6:.3f} ms, "
                      f"workload measured {mine / 1e6:.3f} ms")
    check(len(r["sites"]) == 1 and r["sites"][0]["episodes"] == phases,
          f"sites: {[(s['name'], s['episodes']) for s in r['sites']]}")
    check(r["sites"][0]["name"] == "phase_barrier", f"barrier name {r['sites'][0]['name']}")
    check(r["drops"]["total"] == 0, f"{r['drops']['total']} records lost")
    check(r["grouping_errors"] == 0, f"{r['grouping_errors']} episodes without one serial thread")


def omp(report, wl_out, phases, d_ms):
    """Two barriers per phase (explicit + end of a static loop); thread t
    works (t+1)*D before each: the last thread is always the late one."""
    r = load(report)
    rows = workload_lines(wl_out, r"phase (?P<k>\d+) part (?P<part>\w+) thread (?P<t>\d+) "
                                  r"tid (?P<tid>\d+) compute_ns (?P<c>\d+)")
    n = int(re.search(r"threads (\d+)", open(wl_out).read()).group(1))
    tid_of = {int(x["t"]): int(x["tid"]) for x in rows}
    check(len(r["phases"]) == 2 * phases, f"{len(r['phases'])} phases, expected {2 * phases}")
    d = d_ms * 1e6
    for p in r["phases"]:
        check(len(p["threads"]) == n, f"phase {p['index']}: {len(p['threads'])} threads, expected {n}")
        check(p["critical_tid"] == tid_of[n - 1],
              f"phase {p['index']}: late thread {p['critical_tid']}, expected {tid_of[n - 1]}")
        check(near(p["barrier_ns"], (n - 1) * d, 0.15 * d + 3e6),
              f"phase {p['index']}: barrier {p['barrier_ns'] / 1e6:.3f} ms, expected {(n - 1) * d_ms}")
    check(len(r["sites"]) == 2, f"{len(r['sites'])} sites, expected 2")
    check(all(s["episodes"] == phases for s in r["sites"]), "episodes per site")
    check(r["regions"]["count"] == 1, f"{r['regions']['count']} parallel regions, expected 1")


def phases(report, n):
    r = load(report)
    check(len(r["phases"]) == n, f"{len(r['phases'])} phases, expected {n}")
    check([p["index"] for p in r["phases"]] == list(range(len(r["phases"]))), "phase indices")


def main(argv):
    kind, args = argv[1], argv[2:]
    if kind == "imbalance":
        imbalance(args[0], args[1], int(args[2]), int(args[3]), float(args[4]))
    elif kind == "omp":
        omp(args[0], args[1], int(args[2]), float(args[3]))
    elif kind == "phases":
        phases(args[0], int(args[1]))
    else:
        sys.exit(f"unknown check {kind}")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main(sys.argv)
