#!/usr/bin/env python3
"""Efficiencies and wait states (doc/design.md §5.5) of real runs, checked
against the report's own numbers and against what the workload measured.

  efficiency_checks.py imbalance REPORT.json WORKLOAD.out TRACE.sbt PHASES
  efficiency_checks.py locks REPORT.json WORKLOAD.out   (mutex_contention: waits caused)

The report's sums: every efficiency{} (each phase, site and thread, the run;
both views) is recomputed from the report's per-thread numbers of its phases,
and each thread's phase time is exactly its useful compute, its waits, its wait
at the barrier and its late start.

The ground truth (barrier_imbalance, worker i computing (i+1)·D ms): each
thread's compute in a phase lies between bounds its own windows give (checks.py:
the window around each barrier call, widened by the calibrated probe cost, the
time it was seen off its CPU, and SLACK_NS); phase 0 begins at the thread's
start, which lies between its creation (the trace's THREAD_START record: the
workload cannot time it) and the moment the workload started its clock. The
load balance, mean/max of values each within [lo_i, hi_i], then lies within
[sum lo / (n max hi), sum hi / (n max lo)], and the synchronization efficiency
within [max lo / span hi, max hi / span lo]: each phase, the site (sums over
the phases) and the run. Nominal times (-d) are compared with nothing.
Exit status 0 when every check holds; each failure is printed.
"""
import collections
import sys

import checks
from checks import Costs, check, failures, load, origin, windows, workload_lines

REL = 1e-5  # JSON doubles are written with 6 significant digits
THREAD_START = 3  # SBT_EV_THREAD_START, include/sbt/events.h
VIEWS = ("measured", "approximated")


def near(x, y):
    return abs(x - y) <= REL * max(1.0, abs(y))


def pop(useful, max_useful, threads, runtime):
    """LB, SE, PE (doc/design.md §5.5; a ratio of zero to zero is 1)."""
    lb = (useful / threads) / max_useful if threads and max_useful else 1.0
    se = max_useful / runtime if runtime else 1.0
    return lb, se, lb * se


def view(obj, v):
    return obj["approximated"] if v == "approximated" else obj


def check_pop(what, e, useful, max_useful, threads, runtime):
    check(e["useful_ns"] == useful, f"{what}: useful {e['useful_ns']}, its threads' {useful}")
    check(e["max_useful_ns"] == max_useful, f"{what}: max useful {e['max_useful_ns']}, "
          f"expected {max_useful}")
    check(e["threads"] == threads, f"{what}: {e['threads']} threads, expected {threads}")
    check(e["runtime_ns"] == runtime, f"{what}: runtime {e['runtime_ns']}, expected {runtime}")
    for key, want in zip(("load_balance", "sync_efficiency", "parallel_efficiency"),
                         pop(useful, max_useful, threads, runtime)):
        check(near(e[key], want), f"{what}: {key} {e[key]}, its own numbers give {want:.6g}")


WAITS = ("lock_wait_ns", "sem_wait_ns", "cond_wait_ns", "task_wait_ns")


def phase_sums(p, v):
    """One phase in a view: its efficiency against its threads' numbers;
    returns {tid: useful}."""
    pv, e = view(p, v), view(p["efficiency"], v)
    ts = [view(t, v) for t in p["threads"]]
    useful = {t["tid"]: view(t, v)["useful_ns"] for t in p["threads"]}
    what = f"phase {p['index']} ({v})"
    check_pop(what, e, sum(useful.values()), max(useful.values()), len(ts), pv["phase_ns"])
    ws = e["wait_states"]
    check(ws["barrier_wait_ns"] == sum(t["late_wait_ns"] for t in ts), f"{what}: barrier wait")
    check(ws["barrier_completion_ns"] == sum(t["overhead_ns"] for t in ts), f"{what}: completion")
    for k in ("late_start_ns",) + WAITS:
        check(ws[k] == sum(t[k] for t in ts), f"{what}: {k}")
    for t in ts:
        check(sum(t[k] for k in WAITS) == t["sync_wait_ns"], f"{what}: waits by kind")
        if t["compute_ns"] >= t["sync_wait_ns"]:
            check(t["useful_ns"] + t["sync_wait_ns"] + t["late_wait_ns"] + t["late_start_ns"]
                  == pv["phase_ns"], f"{what}: phase time is not tid {t.get('tid')}'s "
                  f"useful + waits + wait at barrier + late start: {t}")
    return useful


def consistent(r):
    """Every efficiency{} against the report's own per-thread numbers."""
    for v in VIEWS:
        site_u = collections.defaultdict(collections.Counter)
        site_rt = collections.Counter()
        th = collections.defaultdict(lambda: [0, 0, 0, 0])  # useful, max sum, runtime, phases
        first = None
        for p in r["phases"]:
            useful = phase_sums(p, v)
            if p["partial"]:
                continue
            pv = view(p, v)
            site_u[p["site"]].update(useful)
            site_rt[p["site"]] += pv["phase_ns"]
            first = pv["start_ns"] if first is None else min(first, pv["start_ns"])
            for tid, u in useful.items():
                s = th[tid]
                s[0] += u
                s[1] += max(useful.values())
                s[2] += pv["phase_ns"]
                s[3] += 1
        for s in r["sites"]:
            u = site_u[s["id"]]
            check_pop(f"site {s['id']} ({v})", view(s["efficiency"], v), sum(u.values()),
                      max(u.values(), default=0), len(u), site_rt[s["id"]])
        for t in r["threads"]:
            u, mx, rt, n = th.get(t["tid"], [0, 0, 0, 0])
            e = view(t["efficiency"], v)
            check(e["phases"] == n, f"thread {t['tid']} ({v}): {e['phases']} phases, not {n}")
            check_pop(f"thread {t['tid']} ({v})", e, u, mx, 1 if n else 0, rt)
        e = view(r["efficiency"], v)
        us = [s[0] for s in th.values()]
        # the run: from the earliest phase's start to the last event, which
        # is no earlier than the last phase's end
        last = max(view(p, v)["end_ns"] for p in r["phases"] if not p["partial"])
        check(e["runtime_ns"] >= last - first,
              f"run ({v}): runtime {e['runtime_ns']} < its phases' span {last - first}")
        check_pop(f"run ({v})", e, sum(us), max(us), len(us), e["runtime_ns"])


def lb_bounds(lo, hi):
    """The load balance of values each within [lo_i, hi_i]."""
    n = len(lo)
    return sum(lo) / (n * max(hi)), (min(1.0, sum(hi) / (n * max(lo))) if max(lo) > 0 else 1.0)


def se_bounds(lo, hi, span_lo, span_hi):
    return max(lo) / span_hi, (min(1.0, max(hi) / span_lo) if span_lo > 0 else 1.0)


def within(what, x, bounds):
    lo, hi = bounds
    check(lo - REL <= x <= hi + REL, f"{what} {x}, the workload's own timings allow "
          f"{lo:.4f}..{hi:.4f}")
    return lo, hi


def thread_starts(sbt):
    return {rec[4]: rec[0] for rec in checks.sbt_records(sbt) if rec[5] == THREAD_START}


def phase_bounds(p, wins, starts, t0, org, costs):
    """Per thread (lo, hi) of its measured compute in phase p, and the
    phase's span (lo, hi), absolute ns, from the workload's windows."""
    k, sym = p["index"], p["symbol"]
    mine = {tid: w for (kk, part, tid), w in wins.items() if kk == k}
    s_lo, s_hi, a_lo, a_hi = {}, {}, {}, {}
    for tid, w in mine.items():
        a_lo[tid], a_hi[tid] = w.enter, w.enter + costs.arrive_tol(w, sym)
        if k == 0:
            # created (the trace's record) no later than its clock started
            s_lo[tid], s_hi[tid] = max(starts.get(tid, org), org), t0[(0, tid)]
        else:
            pw = wins[(k - 1, None, tid)]
            s_lo[tid], s_hi[tid] = pw.leave - costs.depart_tol(pw, sym), pw.leave
    c = {tid: (a_lo[tid] - s_hi[tid], a_hi[tid] - s_lo[tid]) for tid in mine}
    span = (max(a_lo.values()) - min(s_hi.values()), max(a_hi.values()) - min(s_lo.values()))
    return c, span


def imbalance(report, wl_out, sbt, nphases):
    """barrier_imbalance: efficiencies against the workload's own timings."""
    r = load(report)
    org, costs, wins = origin(sbt, r), Costs(r), windows(wl_out)
    check(len(r["phases"]) == nphases, f"{len(r['phases'])} phases, expected {nphases}")
    consistent(r)
    # phase 0 begins no later than the worker started its clock (its work)
    t0 = {(int(d["k"]), int(d["tid"])): wins[(int(d["k"]), None, int(d["tid"]))].enter -
          int(d["c"]) for d in workload_lines(
              wl_out, r"^phase (?P<k>\d+) thread \d+ tid (?P<tid>\d+) compute_ns (?P<c>\d+) ")}
    starts = thread_starts(sbt)
    totals = collections.defaultdict(lambda: [0, 0, 0, 0])  # per thread: lo, hi, (a) lo, hi
    span_sum = [0, 0]
    for p in r["phases"]:
        c, span = phase_bounds(p, wins, starts, t0, org, costs)
        got = {t["tid"]: t for t in p["threads"]}
        if not check(set(c) == set(got), f"phase {p['index']}: threads {sorted(got)}, "
                     f"the workload's {sorted(c)}"):
            continue
        for tid, t in got.items():
            check(c[tid][0] <= t["compute_ns"] <= c[tid][1], f"phase {p['index']} tid {tid}: "
                  f"compute {t['compute_ns']}, the workload allows {c[tid]}")
        lo, hi = [c[t][0] for t in c], [c[t][1] for t in c]
        e = p["efficiency"]
        b = within(f"phase {p['index']}: load balance", e["load_balance"], lb_bounds(lo, hi))
        within(f"phase {p['index']}: sync efficiency", e["sync_efficiency"],
               se_bounds(lo, hi, *span))
        # approximated: no more than the probe cost removed from the window
        # (and the time sbt-bpf itself took the thread's CPU there) less, and
        # no more (phase 0 began at the thread's creation, before any probe
        # cost: its arrival moved by what the report says)
        removed = {tid: t["compute_ns"] - t["approximated"]["compute_ns"] for tid, t in got.items()}
        for tid, t in got.items():
            cap = t["probe_overhead_ns"] + t["tracer_preempted_ns"] if p["index"] else removed[tid]
            check(0 <= removed[tid] <= cap, f"phase {p['index']} tid {tid}: approximated compute "
                  f"{removed[tid]} ns less, {cap} ns of probe cost and sbt-bpf's CPU removed")
        alo = [c[t][0] - removed[t] for t in c]
        within(f"phase {p['index']}: approximated load balance",
               e["approximated"]["load_balance"], lb_bounds(alo, hi))
        for tid in c:
            s = totals[tid]
            s[0], s[1] = s[0] + c[tid][0], s[1] + c[tid][1]
            s[2], s[3] = s[2] + c[tid][0] - removed[tid], s[3] + c[tid][1]
        span_sum = [span_sum[0] + span[0], span_sum[1] + span[1]]
        truth = [int(d["c"]) for d in workload_lines(
            wl_out, rf"^phase {p['index']} thread \d+ tid \d+ compute_ns (?P<c>\d+) ")]
        print(f"phase {p['index']}: load balance {e['load_balance']:.4f} (allowed "
              f"{b[0]:.4f}..{b[1]:.4f}; the workload's compute_ns give "
              f"{sum(truth) / len(truth) / max(truth):.4f})", file=sys.stderr)
    lo, hi = [s[0] for s in totals.values()], [s[1] for s in totals.values()]
    s = r["sites"][0]["efficiency"]
    b = within("site: load balance", s["load_balance"], lb_bounds(lo, hi))
    within("site: sync efficiency", s["sync_efficiency"], se_bounds(lo, hi, *span_sum))
    within("site: approximated load balance", s["approximated"]["load_balance"],
           lb_bounds([t[2] for t in totals.values()], hi))
    # the run: the same threads and useful compute, a runtime no shorter
    within("run: load balance", r["efficiency"]["load_balance"], lb_bounds(lo, hi))
    check(r["efficiency"]["sync_efficiency"] <= s["sync_efficiency"] + REL,
          "run: sync efficiency above the site's")
    print(f"site: load balance {s['load_balance']:.4f} (allowed {b[0]:.4f}..{b[1]:.4f}), "
          f"parallel efficiency {s['parallel_efficiency']:.4f}; run "
          f"{r['efficiency']['parallel_efficiency']:.4f}", file=sys.stderr)


def locks(report, wl_out):
    """mutex_contention: the waits each thread caused holding counter_lock.
    A moment of a waiter's wait has at most one holder of a mutex, so the
    waits caused are at most the report's waits, which lie inside the
    workload's own windows: at most what the workload measured waiting. A
    lock call that slept waited for a holder (but for a rare sleep elsewhere
    on its path, checks.spurious_sleeps): then some wait was caused. Each
    thread's caused waits in the lock table are its efficiency's."""
    r = load(report)
    wl = {int(d["tid"]): d for d in workload_lines(
        wl_out, r"tid (?P<tid>\d+) acquisitions \d+ lock_wait_ns (?P<wait>\d+) "
                r"hold_ns \d+ slept_locks (?P<slept>\d+)")}
    lk = [o for o in r["locks"] if o["symbol"] == "counter_lock"]
    if not check(len(lk) == 1 and wl, "counter_lock and the workers' lines"):
        return
    lk = lk[0]
    caused = {t["tid"]: t["caused_wait_ns"] for t in lk["threads"]}
    waited = sum(int(d["wait"]) for d in wl.values())
    check(lk["caused_wait_ns"] == sum(caused.values()), "lock: its threads' caused waits")
    check(lk["caused_wait_ns"] <= lk["wait_ns"], f"lock: caused {lk['caused_wait_ns']} ns, more "
          f"than the {lk['wait_ns']} ns waited")
    check(lk["caused_wait_ns"] <= waited, f"lock: caused {lk['caused_wait_ns']} ns, more than "
          f"the workers measured waiting ({waited} ns)")
    for tid, c in caused.items():
        others = sum(int(d["wait"]) for t, d in wl.items() if t != tid)
        check(c <= others, f"tid {tid}: caused {c} ns, its peers waited {others} ns")
    slept = sum(int(d["slept"]) for d in wl.values())
    if slept > checks.spurious_sleeps(slept):
        check(lk["caused_wait_ns"] > 0, f"{slept} lock calls slept, no wait caused")
    for t in r["threads"]:
        c = t["efficiency"]["caused"]["lock_ns"]
        check(c == caused.get(t["tid"], 0), f"tid {t['tid']}: caused {c} ns in its efficiency, "
              f"{caused.get(t['tid'], 0)} in the lock table")
    print(f"counter_lock: {lk['caused_wait_ns'] / 1e6:.3f} ms of waits caused by holders, "
          f"{lk['wait_ns'] / 1e6:.3f} ms waited (the workers: {waited / 1e6:.3f} ms, "
          f"{slept} calls slept)", file=sys.stderr)


def main(argv):
    if len(argv) == 6 and argv[1] == "imbalance":
        imbalance(argv[2], argv[3], argv[4], int(argv[5]))
    elif len(argv) == 4 and argv[1] == "locks":
        locks(argv[2], argv[3])
    else:
        sys.exit(__doc__)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main(sys.argv)
