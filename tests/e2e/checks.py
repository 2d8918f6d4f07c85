#!/usr/bin/env python3
"""Ground-truth checks of the end-to-end tests: compare sbt-bpf's JSON report
with what the example workloads measured about themselves.

  checks.py imbalance REPORT.json WORKLOAD.out THREADS PHASES D_MS
  checks.py omp REPORT.json WORKLOAD.out PHASES D_MS
  checks.py phases REPORT.json N
  checks.py mutex REPORT.json WORKLOAD.out THREADS ITERS CS_US
  checks.py sem REPORT.json WORKLOAD.out ITEMS
  checks.py cond REPORT.json WORKLOAD.out ITEMS
  checks.py futex REPORT.json WORKLOAD.out THREADS PHASES
  checks.py pages REPORT.json WORKLOAD.out THREADS PHASES PAGES SLEEPS
  checks.py taskclock REPORT.json WORKLOAD.out
  checks.py job JOBS.json PID OUT.json    (extract one process's report)
  checks.py jobs JOBS.json                (print "pid phases ended" per process)
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


def job(jobs_json, pid, out):
    """The report of one process from a multi-process JSON report."""
    found = [j for j in load(jobs_json)["jobs"] if j["pid"] == pid]
    check(len(found) == 1, f"pid {pid}: {len(found)} reports, expected 1")
    if found:
        with open(out, "w") as f:
            json.dump(found[0]["report"], f)


def jobs(jobs_json):
    for j in load(jobs_json)["jobs"]:
        print(j["pid"], len(j["report"]["phases"]), int(j["end_ns"] > 0))


def main(argv):
    kind, args = argv[1], argv[2:]
    if kind == "job":
        job(args[0], int(args[1]), args[2])
    elif kind == "jobs":
        jobs(args[0])
    elif kind == "imbalance":
        imbalance(args[0], args[1], int(args[2]), int(args[3]), float(args[4]))
    elif kind == "omp":
        omp(args[0], args[1], int(args[2]), float(args[3]))
    elif kind == "phases":
        phases(args[0], int(args[1]))
    elif kind == "mutex":
        mutex(args[0], args[1], int(args[2]), int(args[3]), float(args[4]))
    elif kind == "sem":
        sem(args[0], args[1], int(args[2]))
    elif kind == "cond":
        cond(args[0], args[1], int(args[2]))
    elif kind == "futex":
        futex(args[0], args[1], int(args[2]), int(args[3]))
    elif kind == "pages":
        pages(args[0], args[1], int(args[2]), int(args[3]), int(args[4]), int(args[5]))
    elif kind == "taskclock":
        taskclock(args[0], args[1])
    else:
        sys.exit(f"unknown check {kind}")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)



def mutex(report, wl_out, threads, iters, cs_us):
    """T threads x K lock/unlock pairs around a critical section of known
    length: exact acquisition count, hold time per acquisition close to the
    critical section and to the workload's own measurement."""
    r = load(report)
    rows = workload_lines(wl_out, r"thread (?P<i>\d+) tid (?P<tid>\d+) acquisitions (?P<k>\d+) "
                                  r"lock_wait_ns (?P<w>\d+) hold_ns (?P<h>\d+)")
    locks = [l for l in r["locks"] if l["symbol"] == "counter_lock"]
    check(len(locks) == 1, f"counter_lock in locks[]: {[l['symbol'] for l in r['locks']]}")
    if not locks:
        return
    lk = locks[0]
    check(lk["acquisitions"] == threads * iters,
          f"{lk['acquisitions']} acquisitions, expected {threads * iters}")
    check(lk["holds"] == threads * iters, f"{lk['holds']} holds")
    # a measured hold includes up to one probe hit (the return from the
    # lock, the entry into the unlock): the calibrated costs bound it
    alpha = {c["symbol"]: c for c in r.get("calibration", [])}
    extra = alpha["pthread_mutex_lock"]["exit_ns"] + alpha["pthread_mutex_unlock"]["entry_ns"] \
        if "pthread_mutex_lock" in alpha and "pthread_mutex_unlock" in alpha else 15e3
    avg_hold = lk["hold_ns"] / max(lk["holds"], 1)
    check(cs_us * 1e3 <= avg_hold <= cs_us * 1e3 + 1.5 * extra + 5e3,
          f"hold per acquisition {avg_hold / 1e3:.1f} us, critical section {cs_us} us, "
          f"probe cost {extra / 1e3:.1f} us")
    check(lk["type"] == "mutex", f"type {lk['type']}")
    own = {int(x["tid"]): int(x["h"]) for x in rows}
    for t in lk["threads"]:
        mine = own.get(t["tid"])
        check(mine is not None, f"tid {t['tid']} not a worker")
        if mine:
            slack = 0.15 * mine + t["count"] * 1.5 * extra
            check(abs(t["hold_ns"] - mine) <= slack,
                  f"tid {t['tid']}: hold {t['hold_ns'] / 1e6:.2f} ms, own {mine / 1e6:.2f} ms")
    check(0 < lk["contended"] <= lk["acquisitions"], f"contended {lk['contended']}")
    check(lk["blocked_ns"] > 0, "no blocked time split out of the lock wait")
    check(lk["wait_ns"] >= lk["blocked_ns"], "blocked time larger than the wait")


def sem(report, wl_out, items):
    """Single producer / single consumer: P = V = items on `items`, every P
    of `items` (initialised to 0) pairs with a V; blocked P's show blocked
    time."""
    r = load(report)
    by = {s["symbol"]: s for s in r["semaphores"]}
    check(set(by) >= {"items", "slots"}, f"semaphores {list(by)}")
    if not {"items", "slots"} <= set(by):
        return
    it, sl = by["items"], by["slots"]
    check(it["p"] == items and it["v"] == items, f"items: P {it['p']} V {it['v']}")
    check(sl["p"] == items and sl["v"] == items, f"slots: P {sl['p']} V {sl['v']}")
    check(it["paired"] == items and it["initial_tokens"] == 0,
          f"items: paired {it['paired']}, initial tokens {it['initial_tokens']}")
    check(sl["paired"] + sl["initial_tokens"] == items and sl["paired"] + sl["unconsumed_v"] == items,
          f"slots: paired {sl['paired']} initial {sl['initial_tokens']} left {sl['unconsumed_v']}")
    check(it["p_blocked"] + it["p_nonblocked"] == items, "P_w + P_p != P")
    # a wait the consumer itself timed at > 50 us certainly blocked in futex
    own = workload_lines(wl_out, r"thread consumer tid \d+ sem_wait_ns \d+ blocked_waits (?P<b>\d+)")
    long_waits = int(own[0]["b"]) if own else 1
    check(it["p_blocked"] >= max(long_waits, 1),
          f"items: {it['p_blocked']} blocked P's, the consumer timed {long_waits} waits > 50 us")
    check(0 < it["blocked_ns"] <= it["wait_ns"], "blocked/spinning split of the semaphore wait")


def cond(report, wl_out, items):
    r = load(report)
    text = open(wl_out).read()
    waits = sum(int(x) for x in re.findall(r"cond_waits (\d+)", text))
    cvs = [c for c in r["condvars"] if c["symbol"] == "queue_nonempty"]
    check(len(cvs) == 1, f"condvars {[c['symbol'] for c in r['condvars']]}")
    if cvs:
        c = cvs[0]
        check(c["waits"] == waits, f"{c['waits']} waits, the workers counted {waits}")
        check(c["signals"] == items, f"{c['signals']} signals, expected {items}")
        check(c["broadcasts"] == 1, f"{c['broadcasts']} broadcasts")
    locks = [l for l in r["locks"] if l["symbol"] == "queue_lock"]
    check(len(locks) == 1, "queue_lock in locks[]")
    if locks and cvs:
        # each wait releases the mutex and takes it again: it splits a hold in two
        check(locks[0]["holds"] == locks[0]["acquisitions"] + cvs[0]["waits"],
              f"queue_lock: {locks[0]['holds']} holds, {locks[0]['acquisitions']} "
              f"acquisitions, {cvs[0]['waits']} waits")


def futex(report, wl_out, threads, phases):
    """A hand-made barrier with no exported symbol: its futex word shows
    waits outside any probed function, at least one per early thread and
    phase."""
    r = load(report)
    words = [f for f in r["futex"] if f["symbol"].startswith("bar")]
    check(len(words) == 1, f"futex words {[f['symbol'] for f in r['futex']]}")
    if words:
        w = words[0]
        check(w["outside_waits"] >= (threads - 1) * phases,
              f"{w['outside_waits']} outside waits, expected >= {(threads - 1) * phases}")
        check(w["wakes"] >= phases, f"{w['wakes']} wakes, expected >= {phases}")



def pages(report, wl_out, threads, phases, npages, sleeps):
    """page_touch: worker t touches npages fresh pages in phase 1 + t % phases
    and none elsewhere; it sleeps `sleeps` times in every phase."""
    r = load(report)
    rows = workload_lines(wl_out, r"phase (?P<k>\d+) thread (?P<i>\d+) tid (?P<tid>\d+) "
                                  r"pages (?P<p>\d+) sleeps (?P<s>\d+)")
    index_of = {int(x["tid"]): int(x["i"]) for x in rows}
    check(len(r["phases"]) == phases + 1, f"{len(r['phases'])} phases, expected {phases + 1}")
    for p in r["phases"][1:]:
        for t in p["threads"]:
            c = t["counters"]
            check(c is not None, f"phase {p['index']} tid {t['tid']}: no counters")
            if c is None:
                continue
            i = index_of.get(t["tid"])
            want = npages if i is not None and p["index"] == 1 + i % phases else 0
            check(want <= c["page-faults"] <= want + 3,
                  f"phase {p['index']} thread {i}: {c['page-faults']} page faults, expected {want}")
            check(c["context-switches"] >= sleeps,
                  f"phase {p['index']} thread {i}: {c['context-switches']} context switches, "
                  f"slept {sleeps} times")
    # threads created after attach are counted from their start: phase 0 known
    for t in r["phases"][0]["threads"]:
        check(t["counters"] is not None, f"phase 0 tid {t['tid']}: counters unknown")


def taskclock(report, wl_out):
    """A spinning thread's task-clock per phase matches its own compute time
    within 5 %."""
    r = load(report)
    own = {(int(x["k"]), int(x["tid"])): int(x["c"]) for x in workload_lines(
        wl_out, r"phase (?P<k>\d+) thread \d+ tid (?P<tid>\d+) pages \d+ sleeps \d+ "
                r"compute_ns (?P<c>\d+)")}
    n = 0
    for p in r["phases"][1:]:
        for t in p["threads"]:
            mine = own.get((p["index"], t["tid"]))
            if mine is None or t["counters"] is None:
                continue
            n += 1
            tc = t["counters"]["task-clock"]
            check(abs(tc - mine) <= 0.05 * mine,
                  f"phase {p['index']}: task-clock {tc / 1e6:.3f} ms, own compute {mine / 1e6:.3f} ms")
    check(n > 0, "no phase to compare")


if __name__ == "__main__":
    main(sys.argv)
