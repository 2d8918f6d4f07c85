#!/usr/bin/env python3
"""Ground-truth checks of the end-to-end tests: compare sbt-bpf's reports with
what the example workloads measured about themselves in the same run.

  checks.py imbalance REPORT.json WORKLOAD.out ORIGIN PHASES
  checks.py omp REPORT.json WORKLOAD.out ORIGIN PHASES [any]
  checks.py omp_kernels REPORT.json WORKLOAD.out ORIGIN STEPS [stripped]  (implicit barriers)
  checks.py omp_nested REPORT.json WORKLOAD.out ORIGIN STEPS  (team sizes, nested regions)
  checks.py timed REPORT.json WORKLOAD.out ORIGIN STEPS SOURCE [FUNCTION]
  checks.py method REPORT.json WORKLOAD.out NAME  (omp_domain: --probe NAME:region, its call)
  checks.py team REPORT.json WORKLOAD.out ORIGIN STEPS locks|nolocks  (cxx_team)
                          (omp_heat.F90, omp_domain.cpp: a timed explicit barrier)
  checks.py barrier REPORT.json WORKLOAD.out ORIGIN PHASES  (any one barrier, no futex calls)
  checks.py condbar REPORT.json WORKLOAD.out ORIGIN PHASES  (cond_barrier: mutex + condvar)
  checks.py sembar REPORT.json WORKLOAD.out ORIGIN PHASES   (sem_barrier: semaphores)
  checks.py tasks REPORT.json WORKLOAD.out   (omp_tasks: tasks created, waits, time in them)
  checks.py custom REPORT.json WORKLOAD.out ORIGIN PHASES [spin]  (spin_futex_barrier probed;
                          spin: custom_barrier -s, sense_barrier probed)
  checks.py futex REPORT.json WORKLOAD.out                  (the same barrier, not probed)
  checks.py phases REPORT.json N
  checks.py stopped TRACE.sbt SIGNAL_NS  (nothing recorded after a Ctrl-C at SIGNAL_NS)
  checks.py measured REPORT.json TRACE.sbt  (costs measured by the shim's self-timed sites)
  checks.py mutex REPORT.json WORKLOAD.out THREADS ITERS [futex [joins]]  (futex: calls
                          traced; joins: pthread_join's waits named, SCHED_FIFO runs only)
  checks.py sem REPORT.json WORKLOAD.out ITEMS
  checks.py chrome_tasks CHROME.json REPORT.json  (omp_tasks exported)
  checks.py copyprivate REPORT.json WORKLOAD.out ORIGIN PHASES  (omp_barriers -c)
  checks.py cond REPORT.json WORKLOAD.out ITEMS
  checks.py pages REPORT.json WORKLOAD.out THREADS PHASES PAGES SLEEPS
  checks.py taskclock REPORT.json WORKLOAD.out ORIGIN
  checks.py live OUTPUT PHASES           (live lines of `sbt-bpf -- workload`)
  checks.py watch OUTPUT PHASES WARN_MS  (--watch blocks and --warn-time warnings)
  checks.py top TOP.txt WORKLOAD.out PID INTERVAL_S
  checks.py job JOBS.json PID OUT.json    (extract one process's report)
  checks.py jobs JOBS.json                (print "pid phases ended" per process)
  checks.py forked JOBS.json WORKLOAD.out PHASES  (barrier_imbalance -f: the child forked
                          without exec, a job from its fork; both processes' phases exact)
  checks.py fork_join REPORT.json WORKLOAD.out ORIGIN THREADS  (fork_join: create/join steps)
  checks.py fork_join_attached REPORT.json WORKLOAD.out ORIGIN THREADS  (the same, -p mid-run)
ORIGIN is what the report's times count from: the .sbt trace it came from, or
the multi-process JSON report (its job's start_ns).
Exit status 0 when every check holds; each failure is printed.

How close is close. A workload takes CLOCK_MONOTONIC right before it calls a
synchronization function and right after it returns (examples/workload.h,
struct window); sbt-bpf takes the same clock in its probes. So, exactly,
    window enter <= probe's entry time <= probe's exit time <= window leave
and nothing timing-related can make that fail. How far inside the window the
probe's times lie is the cost of reaching the probe (a call, a trap, the BPF
program's start): a few microseconds, unless the thread lost its CPU there.
Where the workload saw an involuntary context switch in its window, it also
measured how long it waited for a CPU, and that widens the bound; what it
cannot see (an interrupt, the hypervisor taking the virtual CPU) is covered by
SLACK_NS. A window that opens before calls that cannot block is marked where
the call that can block begins (workload.h window_mark): a sleep before the
mark is one no record shows, and the time off the CPU there, as the workload
measured it, widens the arrival's bound, which begins at the mark. No check
compares a trace with the nominal work (-d, -c).
"""
import bisect
import json
import re
import struct
import sys

failures = []

# What may hold a thread between our timestamp and the probe's where the
# workload cannot see it: an interrupt; and, in a window where the thread
# slept, the hypervisor or a kernel lock (in a window without a sleep its
# unseen off-CPU time is measured). On the 2-vCPU VM beside `stress-ng --cpu
# 2`: ~30 us at most in 3900 samples of `record`, 236 us once in a soak
# (`record -a`, an arrival of a thread that then slept). The checks must
# still see a barrier time or an arrival 2 ms off.
SLACK_NS = 500_000
# a stall of the vCPU no guest clock shows, allowed in so many windows of a
# hot loop (barrier_phases' stalls_per_mille)
STALL_NS = 2_000_000
# The part of a probe hit before (entry) or after (exit) the BPF timestamp is
# at most the hit's calibrated cost when the caches are warm; a thread just
# woken runs cold and pays several times that.
COST_FACTOR = 4
# A call that slept waited for another thread (a blocked P, a contended
# lock), except for a rare sleep elsewhere on the call's path with its
# probes (seen: an unlock of 121 us that slept with no futex call in it; in
# about 1 run in 40 beside a CPU hog, once a run). So a few may be that.
def spurious_sleeps(slept):
    return 1 + slept // 10


# A probe with no calibrated cost: the slowest hit measured on this VM.
UNCALIBRATED_NS = 25_000
# sbt-bpf reads a thread's counters at the sched_switch tracepoint, the
# kernel's thread CPU clock moves at its own points of a switch: the two
# differ by up to ~30 us a context switch on this VM under load.
PER_SWITCH_NS = 50_000


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def load(path):
    with open(path) as f:
        return json.load(f)


def workload_lines(path, pattern):
    rx = re.compile(pattern)
    with open(path) as f:
        return [m.groupdict() for m in map(rx.search, f) if m]


def ms(ns):
    return f"{ns / 1e6:.3f} ms"


# ---- what the workload measured -------------------------------------------------

WINDOW = (r"arrive_ns (?P<enter>\d+) depart_ns (?P<leave>\d+) nvcsw (?P<nvcsw>\d+) "
          r"nivcsw (?P<nivcsw>\d+) delay_ns (?P<delay>\d+) cpu_ns (?P<cpu>\d+)")
# the mark of a window that opens before calls that cannot block, and the
# part before it (workload.h window_mark)
PRE = re.compile(r" pre_ns (?P<at>\d+) pre_nvcsw (?P<nvcsw>\d+) pre_nivcsw (?P<nivcsw>\d+) "
                 r"pre_delay_ns (?P<delay>\d+) pre_cpu_ns (?P<cpu>\d+)")


def unseen_ns(wall, nvcsw, nivcsw, delay, cpu):
    """Of wall ns with that usage, the time off its CPU that may lie between
    our timestamp and the probe's (workload.h usage_unseen_ns): all of it
    when the thread did not sleep (a wait for a CPU, or the hypervisor's),
    else the run-queue wait after a preemption."""
    if not nvcsw:
        return max(0, wall - cpu)
    return delay if nivcsw else 0


class Window:
    """One thread's window around one barrier call (workload.h)."""

    def __init__(self, d):
        self.tid = int(d["tid"])
        self.enter, self.leave = int(d["enter"]), int(d["leave"])
        self.nvcsw, self.nivcsw = int(d["nvcsw"]), int(d["nivcsw"])
        delay, cpu = int(d["delay"]), int(d["cpu"])
        # unseen: the time off its CPU that may lie between our timestamps
        # and the probes', at the arrival's end or at both ends together;
        # depart_unseen: at the departure's end
        self.unseen = unseen_ns(self.leave - self.enter, self.nvcsw, self.nivcsw, delay, cpu)
        self.depart_unseen = self.unseen
        self.pre = None
        pre = PRE.search(d.get("rest") or "")
        if pre:
            # Marked where the call that can block begins, after calls that
            # cannot: a sleep before the mark is one no record shows (a
            # probe's own kernel path, a page fault waiting for the memory
            # map lock), and all the time off its CPU there, slept or
            # preempted, lies before the probe's arrival. The rest of the
            # window is judged as a window of its own. Never less than the
            # whole window's allowance: a sleep after the mark but before
            # the probe's time (a uprobe hit waiting for the memory map lock
            # another thread holds) is one the blocking call's own sleep
            # hides, and the window's run-queue wait was what covered it.
            at, pre_cpu = int(pre["at"]), int(pre["cpu"])
            self.pre = at
            self.depart_unseen = max(self.unseen, unseen_ns(
                self.leave - at, self.nvcsw - int(pre["nvcsw"]),
                self.nivcsw - int(pre["nivcsw"]), delay - int(pre["delay"]), cpu - pre_cpu))
            self.unseen = max(self.unseen,
                              max(0, at - self.enter - pre_cpu) + self.depart_unseen)
        self.extra = d


def windows(path, part=False):
    """{(phase, part or None, tid): Window} of a workload's phase lines."""
    rx = (r"^phase (?P<k>\d+) " + (r"part (?P<part>\w+) " if part else "") +
          r"thread (?P<i>\d+) tid (?P<tid>\d+) .*" + WINDOW + r"(?P<rest>.*)$")
    out = {}
    for d in workload_lines(path, rx):
        out[(int(d["k"]), d.get("part"), int(d["tid"]))] = Window(d)
    return out


# ---- what the trace's times count from ------------------------------------------

def sbt_chunks(path):
    """(format version, record size, [(tag, body)]) of a .sbt trace
    (lib/tracefile.h): from format 2 on, the stream of chunks after the
    header, up to a zero tag (an unwritten tail); format 1, the sections of
    the one metadata block that the header points to."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"SBTTRACE":
        sys.exit(f"{path}: not an sbt-bpf trace")
    version, header_size, rec_size = struct.unpack_from("<III", data, 8)
    if version == 1:
        pos, size = struct.unpack_from("<QQ", data, 32)
        end = pos + size
    else:
        pos, end = header_size, len(data)
    chunks = []
    while pos + 8 <= end:
        tag, n = struct.unpack_from("<II", data, pos)
        if tag == 0:
            break
        chunks.append((tag, data[pos + 8:pos + 8 + n]))
        pos += 8 + n
    return version, rec_size, chunks


def sbt_origins(path):
    """(INFO start_ns, [(pid, JOBS start_ns)]) of a .sbt trace."""
    start, jobs = None, []
    for tag, body in sbt_chunks(path)[2]:
        if tag == 1:  # TF_SEC_INFO (repeated: the same start)
            start = struct.unpack_from("<Q", body)[0]
        elif tag == 8:  # TF_SEC_JOBS (repeated at a job's end: the same start)
            q = 4
            for _ in range(struct.unpack_from("<I", body)[0]):
                pid, s = struct.unpack_from("<IQ", body, q)
                q += 28
                q += 2 + struct.unpack_from("<H", body, q)[0]
                if (pid, s) not in jobs:
                    jobs.append((pid, s))
    return start, jobs


def sbt_calibrations(path):
    """The probe costs calibrated during a recording (lib/tracefile.h:
    CALIBRATION), in the order written: [(ts_ns, {symbol: (entry_ns,
    exit_ns, cls)})]."""
    out = []
    for tag, body in sbt_chunks(path)[2]:
        if tag != 11:  # TF_SEC_CALIBRATION
            continue
        ts, n = struct.unpack_from("<QI", body)
        q, costs = 12, {}
        for _ in range(n):
            ln = struct.unpack_from("<H", body, q)[0]
            sym = body[q + 2:q + 2 + ln].decode()
            q += 2 + ln
            costs[sym] = struct.unpack_from("<QQI", body, q)
            q += 20
        out.append((ts, costs))
    return out


RF_TIMED, RF_COST, RF_USER_TS = 1, 2, 4  # include/sbt/events.h


def sbt_records(path):
    """The records of a format 3 .sbt trace (lib/tracefile.h), each a tuple
    (ts, obj, site, pid, tid, type, probe, lost, cost, flags)."""
    version, rec_size, chunks = sbt_chunks(path)
    if version != 3 or rec_size != 48:
        sys.exit(f"{path}: format {version} with {rec_size}-byte records, expected 3 and 48")
    recs = []
    for tag, body in chunks:
        if tag == 9:  # TF_SEC_RECORDS
            recs += struct.iter_unpack("<QQQIIHHIII", body)
    return recs


def hit_costs(sbt):
    """{(tid, ts): ns} of the records stamped with the wrapper's time before
    their hit (self-timed sites): what the hit cost, as the thread's next
    timed record measured it. Their counters were read inside the hit, after
    ts."""
    pending, out = {}, {}
    for rec in sbt_records(sbt):
        ts, tid, flags = rec[0], rec[4], rec[9]
        if not flags & RF_TIMED:
            continue
        if flags & RF_COST and tid in pending:
            out[pending.pop(tid)] = rec[8]
        if flags & RF_USER_TS:
            pending[tid] = (tid, ts)
    return out


def origin(spec, report):
    """Absolute CLOCK_MONOTONIC ns of the report's time 0."""
    pids = {p["pid"] for p in report["phases"]}
    if spec.endswith(".json"):
        found = [j["start_ns"] for j in load(spec)["jobs"] if j["pid"] in pids]
        check(len(found) == 1, f"origin: {len(found)} jobs of pid {pids} in {spec}")
        return found[0] if found else 0
    start, jobs = sbt_origins(spec)
    # user/replay.c: a trace of one process counts from its job's start
    mine = [s for pid, s in jobs if pid in pids]
    if len(jobs) == 1 or mine:
        return jobs[0][1] if len(jobs) == 1 else mine[0]
    return start


# ---- tolerances from the calibrated probe cost --------------------------------

class Costs:
    def __init__(self, report):
        self.cal = {c["symbol"]: c for c in report.get("calibration", [])}
        hits = [v for c in self.cal.values() if c["symbol"][0] != "["
                for v in (c["entry_ns"], c["exit_ns"]) if v]
        # the cheapest hit: a trap and the BPF program, no single-step
        self.trap = min(hits) if hits else UNCALIBRATED_NS

    def entry(self, symbol):
        c = self.cal.get(symbol)
        return c["entry_ns"] if c else UNCALIBRATED_NS

    def exit(self, symbol):
        c = self.cal.get(symbol)
        return c["exit_ns"] if c else UNCALIBRATED_NS

    def arrive_tol(self, w, symbol):
        """How far after w.enter the probe's entry time may lie."""
        return SLACK_NS + COST_FACTOR * self.entry(symbol) + w.unseen

    def depart_tol(self, w, symbol):
        """How far before w.leave the probe's exit time may lie."""
        return SLACK_NS + COST_FACTOR * self.exit(symbol) + w.depart_unseen


# ---- barrier phases ------------------------------------------------------------

def late_candidates(ws, tol):
    """Threads that may have arrived last: only one, unless two arrivals were
    closer than the time from our timestamp to the probe can blur."""
    last = max(w.enter for w in ws)
    return {w.tid for w in ws if w.enter + tol[w.tid] >= last}


def barrier_phases(r, wins, org, costs, key_of, phases, before=None, stalls_per_mille=0):
    """Every phase of the report against the workload's windows: the same
    threads, each arrival and departure inside its window and near its
    edges, the late thread one that arrived last, and the phase's barrier,
    compute, wait and phase times within what those bounds allow. before:
    the workload's key of the phase before the report's first, when the
    trace began later than the workload (its departures start the first
    phase). stalls_per_mille: of the windows (thousands of them in a hot
    loop), so many per thousand may lie up to STALL_NS further from the
    probe's time than their allowance, each with all that derives from it:
    a vCPU the host took between the probe and the workload's clock read is
    time no guest clock shows (CI: 0.601 ms for 0.503 allowed, one window of
    8000)."""
    check(len(r["phases"]) == phases, f"{len(r['phases'])} phases, expected {phases}")
    prev = {}  # tid -> (Window, departure tolerance) of its previous phase
    prev_start = None
    if before is not None and r["phases"]:
        pw = {tid: w for (kk, part, tid), w in wins.items() if (kk, part) == before}
        sym = r["phases"][0]["symbol"]
        prev = {tid: (w, costs.depart_tol(w, sym)) for tid, w in pw.items()}
        prev_start = (min(w.leave - prev[w.tid][1] for w in pw.values()),
                      min(w.leave for w in pw.values())) if pw else None
    judged = preempted = stalls = 0
    stalls_left = stalls_per_mille * len(wins) // 1000
    worst = 0
    for p in r["phases"]:
        k, sym = p["index"], p["symbol"]
        mine = {tid: w for (kk, part, tid), w in wins.items() if (kk, part) == key_of(k)}
        got = {t["tid"]: t for t in p["threads"]}
        if not check(set(got) == set(mine),
                     f"phase {k}: threads {sorted(got)}, the workload's {sorted(mine)}"):
            continue
        ta = {tid: costs.arrive_tol(w, sym) for tid, w in mine.items()}
        td = {tid: costs.depart_tol(w, sym) for tid, w in mine.items()}
        for tid, t in got.items():
            w = mine[tid]
            ea_x = max(0, org + t["arrive_ns"] - w.enter - ta[tid])
            ed_x = max(0, w.leave - org - t["depart_ns"] - td[tid])
            if (ea_x or ed_x) and stalls_left and max(ea_x, ed_x) <= STALL_NS:
                stalls_left -= 1
                stalls += 1
                ta[tid] += ea_x
                td[tid] += ed_x
        # The earliest arrival: a marked window's call began at the mark,
        # unless the analysis put the arrival just before the release (a
        # waiter that entered its wait after it, analyses/feed.c), which
        # came after the last thread counted itself in.
        last_in = max(w.enter for w in mine.values())
        ea = {tid: w.enter if w.pre is None else min(w.pre, last_in) for tid, w in mine.items()}
        for tid, t in got.items():
            w = mine[tid]
            a, d = org + t["arrive_ns"], org + t["depart_ns"]
            judged += 1
            preempted += w.unseen > 0
            worst = max(worst, a - w.enter, w.leave - d)
            check(w.enter <= a <= d <= w.leave,
                  f"phase {k} tid {tid}: trace arrives {a - w.enter} ns after our arrival and "
                  f"departs {w.leave - d} ns before our departure (both must be >= 0)")
            check(a >= ea[tid], f"phase {k} tid {tid}: arrival {ms(ea[tid] - a)} before its "
                  f"call began (the workload's mark)")
            check(a - w.enter <= ta[tid], f"phase {k} tid {tid}: arrival {ms(a - w.enter)} "
                  f"after the workload's (allowed {ms(ta[tid])})")
            check(w.leave - d <= td[tid], f"phase {k} tid {tid}: departure {ms(w.leave - d)} "
                  f"before the workload's (allowed {ms(td[tid])})")
            # this phase's compute: from the previous departure to this arrival
            if tid in prev:
                pw, ptd = prev[tid]
                lo, hi = ea[tid] - pw.leave, w.enter + ta[tid] - (pw.leave - ptd)
                check(lo <= t["compute_ns"] <= hi, f"phase {k} tid {tid}: compute "
                      f"{ms(t['compute_ns'])}, the workload's window says {ms(lo)}..{ms(hi)}")
            lo, hi = w.leave - td[tid] - (w.enter + ta[tid]), w.leave - w.enter
            check(lo <= t["wait_ns"] <= hi,
                  f"phase {k} tid {tid}: wait {ms(t['wait_ns'])}, expected {ms(lo)}..{ms(hi)}")
        cand = late_candidates(mine.values(), ta)
        check(p["critical_tid"] in cand,
              f"phase {k}: late thread {p['critical_tid']}, the workload says {sorted(cand)}")
        first = min(mine.values(), key=lambda w: w.enter)
        last = max(mine.values(), key=lambda w: w.enter)
        lo = last.enter - min(w.enter + ta[w.tid] for w in mine.values())
        hi = max(w.enter + ta[w.tid] for w in mine.values()) - first.enter
        check(lo <= p["barrier_ns"] <= hi,
              f"phase {k}: barrier {ms(p['barrier_ns'])}, the workload's arrivals say "
              f"{ms(lo)}..{ms(hi)}")
        # a phase starts at the release of the one before: its earliest
        # departure
        if prev_start is not None and set(prev) == set(mine):
            lo = max(w.enter for w in mine.values()) - prev_start[1]
            hi = max(w.enter + ta[w.tid] for w in mine.values()) - prev_start[0]
            check(lo <= p["phase_ns"] <= hi,
                  f"phase {k}: phase time {ms(p['phase_ns'])}, expected {ms(lo)}..{ms(hi)}")
        prev = {tid: (w, td[tid]) for tid, w in mine.items()}
        prev_start = (min(w.leave - td[w.tid] for w in mine.values()),
                      min(w.leave for w in mine.values()))
    print(f"{judged} arrivals and departures compared, {preempted} in windows with time off the "
          f"CPU unseen, {stalls} taken as the host's stalls, "
          f"largest distance from the workload's own timestamps {worst / 1e3:.1f} us",
          file=sys.stderr)


def common_facts(r):
    check(r["drops"]["total"] == 0, f"{r['drops']['total']} records lost")
    # a phase holds its barrier time and each thread's compute, in both views
    for p in r["phases"]:
        for v in [p] + ([p["approximated"]] if "approximated" in p else []):
            check(v["phase_ns"] >= v["barrier_ns"],
                  f"phase {p['index']}: phase {v['phase_ns']} < barrier {v['barrier_ns']}")
        for t in p["threads"]:
            check(p["phase_ns"] >= t["compute_ns"],
                  f"phase {p['index']}: phase {p['phase_ns']} < tid {t['tid']}'s compute "
                  f"{t['compute_ns']}")
    check(r["grouping_errors"] == 0, f"{r['grouping_errors']} episodes without one serial thread")
    check(r["out_of_order"] == 0, f"{r['out_of_order']} records out of time order")


def imbalance(report, wl_out, org_spec, phases, stalls_per_mille=0):
    """barrier_imbalance: one pthread barrier, every phase exactly (of a hot
    loop's thousands of windows, stalls_per_mille may be the host's stalls)."""
    r = load(report)
    barrier_phases(r, windows(wl_out), origin(org_spec, r), Costs(r), lambda k: (k, None), phases,
                   stalls_per_mille=stalls_per_mille)
    check(len(r["sites"]) == 1 and r["sites"][0]["episodes"] == phases,
          f"sites: {[(s['name'], s['episodes']) for s in r['sites']]}")
    check(r["sites"] and r["sites"][0]["name"] == "phase_barrier",
          f"barrier name: {[(s['name'], s.get('call_site')) for s in r['sites']]}")
    common_facts(r)


def attach(report, wl_out, org_spec):
    """barrier_imbalance attached to while it runs: the first episode or two
    are partial (they began before the probes), marked and left out of the
    statistics; every other one is a whole workload phase, exactly (times,
    threads, and the first whole phase's compute from the departures the
    trace saw)."""
    r = load(report)
    org, wins = origin(org_spec, r), windows(wl_out)
    partial = [p for p in r["phases"] if p["partial"]]
    whole = [p for p in r["phases"] if not p["partial"]]
    check(1 <= len(partial) <= 2, f"{len(partial)} partial phases, expected 1 or 2")
    check(all(p["index"] < q["index"] for p in partial for q in whole),
          "a partial phase after a whole one")
    check(r["partial_phases"] == len(partial), f"partial_phases {r['partial_phases']}")
    check(len(whole) >= 3, f"{len(whole)} whole phases")
    if not whole:
        return
    # the workload's phase of the first whole one: the one whose windows hold
    # its arrivals
    t0 = whole[0]["threads"][0]
    ks = [k for (k, _, tid), w in wins.items()
          if tid == t0["tid"] and w.enter <= org + t0["arrive_ns"] <= w.leave]
    if not check(len(ks) == 1, f"first whole phase: workload phases {ks}"):
        return
    off = ks[0] - whole[0]["index"]
    only = dict(r, phases=whole)
    barrier_phases(only, wins, org, Costs(r), lambda k: (k + off, None), len(whole),
                   before=(ks[0] - 1, None))
    check(len(r["sites"]) == 1 and r["sites"][0]["episodes"] == len(whole),
          f"sites: {[(s['name'], s['episodes']) for s in r['sites']]}, {len(whole)} whole")
    common_facts(r)


def omp(report, wl_out, org_spec, phases, region="1"):
    """Two barriers per phase (explicit + end of a static loop), in that
    order: report phase i is the workload's phase i // 2; then the implicit
    barrier of the one region (region "any": none if the region forked
    before its body was probed)."""
    r = load(report)
    n = int(re.search(r"^threads (\d+)$", open(wl_out).read(), re.M).group(1))
    wins = windows(wl_out, part=True)
    check(len({tid for _, _, tid in wins}) == n, f"{n} threads, the workload printed others")
    # the one parallel region's implicit barrier completes last, with the team
    region_ok = region
    region = [p for p in r["phases"] if p["implicit"]]
    explicit = dict(r, phases=[p for p in r["phases"] if not p["implicit"]])
    if check(len(region) == 1 or (region_ok == "any" and not region),
             f"{len(region)} implicit-barrier phases, expected {region_ok}") and region:
        team = {tid for _, _, tid in wins}
        check({t["tid"] for t in region[0]["threads"]} == team,
              f"region barrier: threads {[t['tid'] for t in region[0]['threads']]}, the team {team}")
        check(region[0]["index"] == 2 * phases, f"region barrier is phase {region[0]['index']}")
    barrier_phases(explicit, wins, origin(org_spec, r), Costs(r),
                   lambda k: (k // 2, ("explicit", "loop")[k % 2]), 2 * phases)
    sites = [s for s in r["sites"] if not s["implicit"]]
    check(len(sites) == 2, f"{len(sites)} explicit barrier sites, expected 2")
    check(all(s["episodes"] == phases for s in sites), "episodes per site")
    check(r["regions"]["count"] == 1, f"{r['regions']['count']} parallel regions, expected 1")
    common_facts(r)


COPY_SYMBOLS = {"GOMP_single_copy_start", "GOMP_single_copy_end", "__kmpc_copyprivate"}


def copyprivate(report, wl_out, org_spec, phases):
    """omp_barriers -c: each phase's single copyprivate is one barrier
    episode of the whole team (libgomp: GOMP_single_copy_start where the
    others wait, GOMP_single_copy_end for the thread that ran the single;
    libomp: __kmpc_copyprivate), the thread that ran it (the workload says
    which) its last arrival, every arrival at its window's start (the
    runner's after its body) and every departure inside the window."""
    r = load(report)
    text = open(wl_out).read()
    wins = windows(wl_out, part=True)
    runner = {int(m.group(1)): int(m.group(2)) for m in
              re.finditer(r"^phase (\d+) part copy thread \d+ tid (\d+) ran 1 ", text, re.M)}
    cps = [p for p in r["phases"] if p["symbol"] in COPY_SYMBOLS]
    check(len(cps) == phases, f"{len(cps)} copyprivate phases, expected {phases}")
    check(len(runner) == phases, f"the workload names {len(runner)} runners, expected {phases}")
    org, costs = origin(org_spec, r), Costs(r)
    for k, p in enumerate(cps):
        mine = {tid: w for (kk, part, tid), w in wins.items() if (kk, part) == (k, "copy")}
        got = {t["tid"]: t for t in p["threads"]}
        if not check(set(got) == set(mine),
                     f"copy {k}: threads {sorted(got)}, the workload's {sorted(mine)}"):
            continue
        check(p["critical_tid"] == runner.get(k),
              f"copy {k}: last arrival {p['critical_tid']}, the single ran on {runner.get(k)}")
        for tid, t in got.items():
            w = mine[tid]
            a, d = org + t["arrive_ns"], org + t["depart_ns"]
            tol = costs.arrive_tol(w, p["symbol"])
            check(w.enter <= a <= w.enter + tol,
                  f"copy {k} tid {tid}: arrival {ms(a - w.enter)} after the workload's "
                  f"(allowed 0..{ms(tol)})")
            check(a <= d <= w.leave,
                  f"copy {k} tid {tid}: departure {ms(w.leave - d)} before the workload's "
                  f"(must be >= 0, after the arrival)")
    common_facts(r)


# A step's last arrival, when the one before it came this much earlier by the
# workload's own clock: late by more than any probe hit could blur.
LATE_MARGIN_NS = 1_000_000


def step_windows(text, what="phase"):
    """{step: {tid: (arrive_ns, depart_ns)}} of the "phase K thread I tid T
    arrive_ns A depart_ns D" lines omp_heat, omp_domain and cxx_team print
    (omp_domain's "reduction K ..." lines likewise)."""
    rx = what + r" (\d+) thread \d+ tid (\d+) arrive_ns (\d+) depart_ns (\d+)$"
    rx = "^" + rx
    wins = {}
    for k, tid, a, d in re.findall(rx, text, re.M):
        wins.setdefault(int(k), {})[int(tid)] = (int(a), int(d))
    return wins


def timed_episodes(eps, wins, org, steps):
    """The episodes of one barrier, in order, against the workload's step
    windows: one a step, the same threads, each arrival and departure inside
    the thread's own window, and the late thread the one that arrived last
    where the workload's clock says so by LATE_MARGIN_NS (one step at least
    must say so: on a loaded machine two threads sharing one CPU arrive
    within a timeslice of each other in most steps)."""
    eps = sorted(eps, key=lambda p: p["index"])
    check(len(eps) == steps, f"{len(eps)} episodes, expected {steps}")
    judged = 0
    for k, p in enumerate(eps[:len(wins)]):
        w = wins[k]
        got = {t["tid"]: t for t in p["threads"]}
        if not check(set(got) == set(w), f"step {k}: threads {sorted(got)}, the workload's "
                     f"{sorted(w)}"):
            continue
        for tid, t in got.items():
            a, d = org + t["arrive_ns"], org + t["depart_ns"]
            check(w[tid][0] <= a <= d <= w[tid][1],
                  f"step {k} tid {tid}: trace {a}..{d} outside the thread's own {w[tid]}")
        order = sorted(w, key=lambda tid: w[tid][0])
        if len(order) > 1 and w[order[-1]][0] - w[order[-2]][0] > LATE_MARGIN_NS:
            judged += 1
            check(p["critical_tid"] == order[-1],
                  f"step {k}: late thread {p['critical_tid']}, the workload's {order[-1]}")
    check(judged >= 1, f"none of {steps} steps had a clearly late thread")


def timed(report, wl_out, org_spec, steps, source, function=None):
    """omp_heat (Fortran) and omp_domain (C++): three loop-barrier sites a
    step (two worksharing ends, the explicit barrier), each with one
    episode a step, named by SOURCE's lines (and FUNCTION, a demangled C++
    name, where given); at the explicit one, every thread's arrival and
    departure inside its own timed window, and the late thread the one that
    arrived last where the workload's clock says so by LATE_MARGIN_NS.
    omp_domain's reduction likewise at its line's first site (libomp's
    __kmpc_reduce and __kmpc_end_reduce, where the team waits; the loop's
    own __kmpc_barrier after it is a fourth site, at the same line)."""
    r = load(report)
    text = open(wl_out).read()
    line = int(re.search(r"^barrier_line (\d+)$", text, re.M).group(1))
    red = re.search(r"^reduction_line (\d+)$", text, re.M)
    wins = step_windows(text)
    check(len(wins) == steps, f"the workload printed {len(wins)} steps, expected {steps}")
    loops = [s for s in r["sites"] if not s["implicit"]]
    at_red = [s for s in loops if red and re.search(rf"\({source}:{red.group(1)}\)( #\d+)?$",
                                                    s["call_site"])]
    check(len(loops) == 3 + (len(at_red) == 2),
          f"loop-barrier sites: {[s['call_site'] for s in loops]}")
    if red and check(at_red, f"no site at the reduction's line {red.group(1)}"):
        eps = [p for p in r["phases"] if p["site"] == min(s["id"] for s in at_red)]
        timed_episodes(eps, step_windows(text, "reduction"), origin(org_spec, r), steps)
    check(all(f"({source}:" in s["call_site"] and s["episodes"] == steps and
              (function is None or s["call_site"].startswith(function + " (")) for s in loops),
          f"sites (name, episodes): {[(s['call_site'], s['episodes']) for s in loops]}")
    mine = [s for s in loops if s["call_site"].endswith(f"({source}:{line})")]
    if not check(len(mine) == 1, f"no site at {source}:{line}: "
                 f"{[s['call_site'] for s in loops]}"):
        return
    eps = [p for p in r["phases"] if p["site"] == mine[0]["id"]]
    timed_episodes(eps, wins, origin(org_spec, r), steps)
    check(r["regions"]["count"] == 1, f"{r['regions']['count']} parallel regions, expected 1")
    common_facts(r)



def cancel(report, wl_out, org_spec, steps):
    """omp_cancel: a region holding `cancel parallel` and `cancel for`, whose
    barriers are the runtimes' cancellable ones: two loop-barrier sites
    (the explicit barrier, the loop's end), each one episode a step, named
    by omp_cancel.c's lines; at the explicit one, every thread's arrival and
    departure inside its own timed window and the late thread the one that
    arrived last where the workload's clock says so."""
    r = load(report)
    text = open(wl_out).read()
    line = int(re.search(r"^barrier_line (\d+)$", text, re.M).group(1))
    loops = [s for s in r["sites"] if not s["implicit"]]
    check(len(loops) == 2 and all(s["episodes"] == steps for s in loops),
          f"loop-barrier sites (name, episodes): {[(s['call_site'], s['episodes']) for s in loops]}")
    mine = [s for s in loops if s["call_site"].endswith(f"(omp_cancel.c:{line})")]
    if check(len(mine) == 1, f"no site at omp_cancel.c:{line}: {[s['call_site'] for s in loops]}"):
        eps = [p for p in r["phases"] if p["site"] == mine[0]["id"]]
        timed_episodes(eps, step_windows(text), origin(org_spec, r), steps)
    common_facts(r)

def method(report, wl_out, name):
    """omp_domain with --probe BINARY:NAME:region on the method that holds
    the parallel region, named as C++ writes it: one call, as long as the
    workload's own clock says (it encloses every timed barrier window and
    lies within the workload's total_ns)."""
    r = load(report)
    text = open(wl_out).read()
    total = int(re.search(r"^total_ns (\d+)$", text, re.M).group(1))
    wins = [ad for w in step_windows(text).values() for ad in w.values()]
    inner = max(d for _, d in wins) - min(a for a, _ in wins) if wins else 0
    mine = [s for s in r["regions"]["sites"] if s["symbol"] == name]
    if not check(len(mine) == 1 and mine[0]["count"] == 1,
                 f"{name}: {[(s['symbol'], s['count']) for s in r['regions']['sites']]}"):
        return
    check(inner <= mine[0]["total_ns"] <= total,
          f"{name}: {mine[0]['total_ns']} ns, the workload's windows span {inner}, "
          f"its total {total}")
    common_facts(r)


def team(report, wl_out, org_spec, steps, locks):
    """cxx_team: a std::mutex + std::condition_variable barrier whose last
    thread is the slowest every step. Its broadcaster is the last to hold
    the mutex, the latest of the workload's arrivals (taken under it). If
    that thread changed within the first 8 steps, or where unlocks are
    traced ("locks"), a barrier: every step an episode, each thread's
    arrival and departure inside its own window, the late thread the one
    that arrived last by LATE_MARGIN_NS. Else, unlocks unseen, no barrier,
    and the condvar said to be ambiguous (same_broadcaster)."""
    r = load(report)
    wins = step_windows(open(wl_out).read())
    check(len(wins) == steps, f"the workload printed {len(wins)} steps, expected {steps}")
    last = [max(w, key=lambda tid: w[tid][0]) for _, w in sorted(wins.items())]
    conds = r["condvars"]
    if not check(len(conds) == 1, f"{len(conds)} condvars, expected 1"):
        return
    barrier = locks == "locks" or len(set(last[:8])) > 1
    check(conds[0]["barrier"] == barrier and conds[0]["same_broadcaster"] == (not barrier),
          f"barrier {conds[0]['barrier']}, same_broadcaster {conds[0]['same_broadcaster']}; "
          f"the last threads of the first steps {last[:8]}, unlocks traced: {locks}")
    if not barrier:
        check(not r["phases"], f"{len(r['phases'])} phases of no barrier")
        return
    timed_episodes(r["phases"], wins, origin(org_spec, r), steps)
    common_facts(r)


# A thread's own timestamp and the probe's on the other side of a function
# boundary (a body's first or last statement, its entry or return): a probe
# hit and the call, unless the thread lost its CPU right there.
EDGE_NS = 2_000_000

def last_to_end(ends):
    """OpenMP threads that may have ended last: tid -> the end of its share,
    within EDGE_NS of the latest (where a share ends is known only so well)."""
    last = max(ends.values())
    return {tid for tid, e in ends.items() if e + EDGE_NS >= last}


KERNELS = ("tri", "spmv", "dot", "jacobi")


def omp_kernels(report, wl_out, org_spec, steps, stripped=False):
    """omp_kernels: each region instance is one implicit-barrier episode, in
    program order (tri, spmv, dot, jacobi per step); jacobi's worksharing
    loop and single add one library barrier each. Per instance, against
    what the threads measured: the team (those that ran iterations), each
    arrival after the thread's last iteration (or statement), each share's
    start before its first statement (tri), the late thread, and no
    grouping error. stripped: the binary names no body, each is probed
    when its region first runs: the instances a region site counts as
    forked before that (at least its first) are no episodes, every later
    one is."""
    r = load(report)
    rx = (r"^region (?P<k>\w+) step (?P<s>\d+) thread (?P<i>\d+) tid (?P<tid>\d+) "
          r"busy_ns (?P<busy>\d+) end_ns (?P<end>\d+) enter_ns (?P<enter>\d+) "
          r"leave_ns (?P<leave>\d+)$")
    inst = {}
    for x in workload_lines(wl_out, rx):
        inst.setdefault((int(x["s"]), x["k"]), {})[int(x["tid"])] = {
            k: int(v) for k, v in x.items() if k != "k"}
    org = origin(org_spec, r)
    region = [p for p in r["phases"] if p["implicit"]]
    # the region sites, in the order they first ended: the kernels'
    sites = r["regions"]["sites"]
    unprobed = {k: site["unprobed"] for k, site in zip(KERNELS, sites)}
    check(len(sites) == len(KERNELS), f"{len(sites)} region sites")
    for k in KERNELS:
        if stripped:
            check(1 <= unprobed.get(k, 0) < steps, f"{k}: {unprobed.get(k)} of {steps} "
                  "instances before its body was probed, expected the first few")
        else:
            check(unprobed.get(k) == 0, f"{k}: {unprobed.get(k)} instances unprobed")
    order = [(s, k) for s in range(steps) for k in KERNELS if s >= unprobed.get(k, 0)]
    check(len(region) == len(order), f"{len(region)} region barriers, expected {len(order)}")
    check(len(r["phases"]) - len(region) == 2 * steps,
          f"{len(r['phases']) - len(region)} library barriers, expected {2 * steps}")
    check(r["regions"]["count"] == steps * len(KERNELS),
          f"{r['regions']['count']} regions counted")
    judged = late = 0
    for p, (step, kernel) in zip(region, order):
        mine, got = inst.get((step, kernel), {}), {t["tid"]: t for t in p["threads"]}
        where = f"phase {p['index']} ({kernel} step {step})"
        if not stripped and not check(kernel in p["name"] or "outlined" in p["name"],
                                      f"{where}: region named {p['name']}"):
            continue
        if not check(set(mine) <= set(got), f"{where}: threads {sorted(got)}, "
                     f"the ones that ran iterations {sorted(mine)}"):
            continue
        whole = kernel in ("tri", "jacobi")  # every thread has rows and statements
        if whole:
            check(set(mine) == set(got), f"{where}: threads {sorted(got)}, team {sorted(mine)}")
        for tid, w in mine.items():
            t = got[tid]
            a = org + t["arrive_ns"]
            last = w["leave"] if whole else w["end"]
            judged += 1
            check(last <= a <= last + EDGE_NS, f"{where} tid {tid}: arrival "
                  f"{(a - last) / 1e3:.1f} us after the thread's last statement")
            check(a <= org + t["depart_ns"], f"{where} tid {tid}: departs before arriving")
            if kernel == "tri":
                start = a - t["compute_ns"]
                check(w["enter"] - EDGE_NS <= start <= w["enter"], f"{where} tid {tid}: "
                      f"share starts {(w['enter'] - start) / 1e3:.1f} us before its first "
                      f"statement")
        if whole:
            ends = {tid: w["leave"] for tid, w in mine.items()}
            cand = last_to_end(ends)
            late += len(cand) == 1
            check(p["critical_tid"] in cand,
                  f"{where}: late thread {p['critical_tid']}, the threads say {sorted(cand)}")
    check(late >= 1, f"no instance with one clearly late thread: the check had no teeth")
    print(f"{len(region)} region instances, {judged} arrivals compared, {late} with one clearly "
          f"late thread", file=sys.stderr)
    common_facts(r)


def omp_nested(report, wl_out, org_spec, steps):
    """omp_nested (nesting inactive): per step a region whose team size
    changes (num_threads 1, 2, 3, ...) and an outer region of two whose
    threads each fork an inner region (a team of one each). Every instance,
    inner ones included, is exactly one implicit-barrier episode with the
    team that ran it, each arrival after the thread's last statement, the
    late thread the one the threads' clocks say; the three region sites
    count their instances."""
    r = load(report)
    rx = (r"^region (?P<r>\w+) step (?P<s>\d+) outer (?P<o>\d+) thread \d+ tid (?P<tid>\d+) "
          r"enter_ns (?P<enter>\d+) leave_ns (?P<leave>\d+)$")
    inst = {}
    for x in workload_lines(wl_out, rx):
        key = (x["r"], int(x["s"]), int(x["o"]))
        inst.setdefault(key, {})[int(x["tid"])] = (int(x["enter"]), int(x["leave"]))
    org = origin(org_spec, r)
    region = [p for p in r["phases"] if p["implicit"]]
    check(len(inst) == 4 * steps, f"the program ran {len(inst)} instances, expected {4 * steps}")
    check(len(region) == len(inst), f"{len(region)} region barriers, {len(inst)} instances")
    sizes = {len(team) for (name, _, _), team in inst.items() if name == "resize"}
    check(len(sizes) >= 2, f"resize teams of sizes {sorted(sizes)}: no team change to judge")
    counts = sorted(site["count"] for site in r["regions"]["sites"])
    check(counts == sorted([steps, steps, 2 * steps]), f"region sites count {counts}")
    matched, late = set(), 0
    for p in region:
        got = {t["tid"]: org + t["arrive_ns"] for t in p["threads"]}
        keys = [k for k, team in inst.items() if set(team) == set(got) and
                all(team[tid][1] <= a <= team[tid][1] + EDGE_NS for tid, a in got.items())]
        where = f"phase {p['index']} (threads {sorted(got)})"
        if not check(len(keys) == 1, f"{where}: matches instances {keys}"):
            continue
        check(keys[0] not in matched, f"{where}: instance {keys[0]} twice")
        matched.add(keys[0])
        ends = {tid: w[1] for tid, w in inst[keys[0]].items()}
        cand = last_to_end(ends)
        late += len(cand) == 1 and len(ends) > 1
        check(p["critical_tid"] in cand,
              f"{where}: late thread {p['critical_tid']}, the threads say {sorted(cand)}")
    check(matched == set(inst), f"instances without an episode: {sorted(set(inst) - matched)}")
    check(late >= 1, "no instance with one clearly late thread: the check had no teeth")
    print(f"{len(region)} region instances matched, {late} with one clearly late thread",
          file=sys.stderr)
    common_facts(r)


def barrier(report, wl_out, org_spec, phases):
    """One barrier of any kind: its phases, against the workload's windows."""
    r = load(report)
    barrier_phases(r, windows(wl_out), origin(org_spec, r), Costs(r), lambda k: (k, None), phases)
    common_facts(r)


def condbar(report, wl_out, org_spec, phases):
    """cond_barrier: the condvar made into a barrier is one site, each of its
    episodes a phase against the workload's windows; its waits are barrier
    time (no lock/sem/cond wait of the threads), the condvar table exact."""
    r = load(report)
    barrier_phases(r, windows(wl_out), origin(org_spec, r), Costs(r), lambda k: (k, None), phases)
    check(len(r["sites"]) == 1 and r["sites"][0]["episodes"] == phases,
          f"sites: {[(s['name'], s['episodes']) for s in r['sites']]}")
    cvs = r["condvars"]
    check(len(cvs) == 1 and cvs[0]["broadcasts"] == phases and cvs[0]["signals"] == 0,
          f"condvars: {[(c['symbol'], c['waits'], c['broadcasts']) for c in cvs]}")
    if r["sites"] and cvs:
        check(r["sites"][0]["object"] == cvs[0]["object"],
              f"site object {r['sites'][0]['object']}, condvar {cvs[0]['object']}")
    # counters are read at the condvar calls: every phase has its deltas
    if r["counters"]:
        for p in r["phases"][1:]:
            for t in p["threads"]:
                check(t["counters"] is not None, f"phase {p['index']} tid {t['tid']}: no counters")
    sync_wait_outside_barriers(r)
    common_facts(r)


def sync_wait_outside_barriers(r):
    """A thread's lock/sem/cond wait is its waits at the objects that are
    no barrier (when traced), not its waits at a barrier's condvar or
    semaphores."""
    team = {t["tid"] for p in r["phases"] for t in p["threads"]}
    for t in r["threads"]:
        if t["tid"] in team:
            waited = sum(s["wait_ns"] for o in r["locks"] + r["semaphores"] + r["condvars"]
                         if not o.get("barrier") for s in o["threads"] if s["tid"] == t["tid"])
            check(t["sync_wait_ns"] == waited,
                  f"tid {t['tid']}: {t['sync_wait_ns']} ns of lock/sem/cond wait, "
                  f"its waits outside the barrier {waited} ns")


def sembar(report, wl_out, org_spec, phases):
    """sem_barrier: the two barrier semaphores are two sites taking turns,
    each of their episodes a phase against the workload's windows; the
    semaphore used as a mutex (count_sem) is no barrier and its waits stay
    the threads' semaphore wait."""
    r = load(report)
    barrier_phases(r, windows(wl_out), origin(org_spec, r), Costs(r), lambda k: (k, None), phases)
    sites = r["sites"]
    check([s["made_of"] for s in sites] == ["semaphores"] * 2 and
          sorted(s["episodes"] for s in sites) == [phases // 2, phases - phases // 2],
          f"sites: {[(s['name'], s['made_of'], s['episodes']) for s in sites]}")
    # barriers alternate between the two semaphores, the first on bar_sem[0]
    objs = [p["object"] for p in r["phases"]]
    check(len(set(objs)) == 2 and all(a != b for a, b in zip(objs, objs[1:])),
          f"phase objects do not alternate: {objs}")
    sems = {o["object"]: o for o in r["semaphores"]}
    bars = [o for o in sems.values() if o["barrier"]]
    check(sorted(o["object"] for o in bars) == sorted(set(objs)),
          f"barrier semaphores {[o['symbol'] for o in bars]}, the phases' {sorted(set(objs))}")
    mutex = [o for o in sems.values() if not o["barrier"]]
    check(len(mutex) == 1 and mutex[0]["initial_tokens"] == 1,
          f"other semaphores: {[(o['symbol'], o['initial_tokens']) for o in mutex]}")
    # every post of a barrier semaphore taken by a wait of its episode
    for o in bars:
        check(o["v"] == o["p"] and o["unconsumed_v"] == 0,
              f"{o['symbol']}: {o['p']} P, {o['v']} V, {o['unconsumed_v']} unconsumed")
    sync_wait_outside_barriers(r)
    common_facts(r)


def futex_counts(wl_out):
    """The futex calls custom_barrier made on its barrier word, counted by
    the barrier itself, per (phase, tid)."""
    wins = windows(wl_out)
    out = {}
    for key, w in wins.items():
        m = re.search(r"futex_waits (\d+) futex_wakes (\d+) futex_woken (\d+)", w.extra["rest"])
        out[key] = tuple(map(int, m.groups()))
    return wins, out


def bar_word(r):
    words = [f for f in r["futex"] if f["symbol"].startswith("bar")]
    check(len(words) == 1, f"futex words {[f['symbol'] for f in r['futex']]}")
    return words[0] if words else None


def custom(report, wl_out, org_spec, phases, spin=False):
    """custom_barrier with spin_futex_barrier declared by --probe: its phases
    as for any barrier, and each arrival's blocked time exactly where the
    barrier itself made a futex wait that blocked (spin: custom_barrier -s,
    whose barrier makes none)."""
    r = load(report)
    wins, calls = futex_counts(wl_out)
    barrier_phases(r, wins, origin(org_spec, r), Costs(r), lambda k: (k, None), phases)
    for p in r["phases"]:
        for t in p["threads"]:
            c = calls.get((p["index"], None, t["tid"]))
            if c is None:
                continue
            check((t["blocked_ns"] > 0) == (c[0] > 0),
                  f"phase {p['index']} tid {t['tid']}: blocked {ms(t['blocked_ns'])}, "
                  f"the barrier made {c[0]} blocking futex waits")
            check(t["blocked_ns"] <= t["wait_ns"], f"phase {p['index']} tid {t['tid']}: "
                  f"blocked longer than it waited")
    w = None if spin else bar_word(r)
    if w:
        waits = sum(c[0] for c in calls.values())
        check(w["waits"] == waits, f"{w['waits']} futex waits on bar, the barrier made {waits}")
        check(w["outside_waits"] == 0, f"{w['outside_waits']} waits outside the probed barrier")
    common_facts(r)


def futex(report, wl_out):
    """custom_barrier, nothing probed: its futex word shows exactly the
    waits, wakes and woken waiters the barrier counted itself, all outside
    any probed function."""
    r = load(report)
    _, calls = futex_counts(wl_out)
    waits, wakes, woken = (sum(c[i] for c in calls.values()) for i in range(3))
    check(waits > 0 and wakes > 0, f"the workload made {waits} waits and {wakes} wakes")
    w = bar_word(r)
    if w:
        check(w["waits"] == waits and w["outside_waits"] == waits,
              f"{w['waits']} waits ({w['outside_waits']} outside), the barrier made {waits}")
        check(w["wakes"] == wakes, f"{w['wakes']} wakes, the barrier made {wakes}")
        check(w["woken"] == woken, f"{w['woken']} woken, the barrier's wakes woke {woken}")
    check(r["drops"]["total"] == 0, f"{r['drops']['total']} records lost")


def measured(report, sbt):
    """Self-timed shim sites: every timed record after its thread's first
    carries the measured cost of the one before (non-zero); the report
    charged each (or refused it as preempted); the mean measured cost is
    plausible against the calibrated one."""
    r = load(report)
    common_facts(r)
    per_tid, costs, user_ts, last_ts, backwards = {}, [], 0, {}, 0
    for rec in sbt_records(sbt):
        if rec[9] & RF_TIMED:
            per_tid[rec[4]] = per_tid.get(rec[4], 0) + 1
            user_ts += bool(rec[9] & RF_USER_TS)
        if rec[9] & RF_COST:
            costs.append(rec[8])
        backwards += rec[0] < last_ts.get(rec[4], 0)
        last_ts[rec[4]] = rec[0]
    expect = sum(n - 1 for n in per_tid.values())
    check(expect > 0, "no records from self-timed sites")
    timed = sum(per_tid.values())
    # the wrapper's own clock, except where the thread was held up between
    # its read and the trap (stamped in the kernel then)
    check(user_ts >= timed * 0.9, f"{user_ts} of {timed} timed records carry the wrapper's time")
    check(backwards == 0, f"{backwards} records older than their thread's previous one")
    check(len(costs) == expect, f"{len(costs)} records carry a cost, expected {expect}")
    check(all(c > 0 for c in costs), f"{sum(c == 0 for c in costs)} measured costs of 0 ns")
    mc = r["approximated"]["measured_costs"]
    check(mc["hits"] + mc["refused"] == expect,
          f"report: {mc['hits']} hits + {mc['refused']} refused, expected {expect}")
    # A measured cost over 10x the charged one + 20 us is refused as time
    # the hit was held (analyses/approx.c): refusals only of costs that long
    # at the least charge the session measured, every cost that long at
    # twice the greatest; how many, the host decides (a hypervisor's pause
    # is no context switch the guest sees: 5-8 of 44 in a CI run, 1 usually)
    site = [x for x in r["approximated"]["costs"]["entries"] if x["symbol"] == "[shim-site]"]
    if check(len(site) == 1, "no [shim-site] cost in the report"):
        lo = min(site[0]["entry_ns"]["min"], site[0]["exit_ns"]["min"])
        hi = max(site[0]["entry_ns"]["max"], site[0]["exit_ns"]["max"])
        may = sum(c > 10 * lo + 20000 for c in costs)
        must = sum(c > 10 * 2 * hi + 20000 for c in costs)
        check(must <= mc["refused"] <= may,
              f"{mc['refused']} refused, the costs say {must}..{may}")
    check(mc["refused"] <= expect // 2, f"{mc['refused']} of {expect} refused")
    if mc["hits"]:
        ratio = mc["measured_ns"] / mc["calibrated_ns"] if mc["calibrated_ns"] else 0
        check(0.1 <= ratio <= 20,
              f"mean measured cost {mc['measured_ns'] / mc['hits']:.0f} ns is "
              f"{ratio:.2f}x the calibrated one")


def phases(report, n):
    r = load(report)
    check(len(r["phases"]) == n, f"{len(r['phases'])} phases, expected {n}")
    check([p["index"] for p in r["phases"]] == list(range(len(r["phases"]))), "phase indices")


# How long a signal may take to reach sbt-bpf's handler on a loaded machine
# (it has to be scheduled); recording went on for the whole detach before
# (0.1-2 s here).
SIGNAL_SLACK_NS = 200_000_000


def stopped(sbt, signal_ns):
    """A trace stopped by SIGINT at signal_ns: records up to it, none after
    (recording stops in the signal handler, before the probes are removed)."""
    recs = sbt_records(sbt)
    check(len(recs) > 0, "no records")
    late = [r for r in recs if r[0] > signal_ns + SIGNAL_SLACK_NS]
    check(not late, f"{len(late)} records stamped more than {ms(SIGNAL_SLACK_NS)} after the "
                    f"signal, the last {ms(max(r[0] for r in late) - signal_ns) if late else 0} "
                    f"after it")


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


# From the workload's clock read before fork() to the fork record, stamped in
# the parent's fork (page tables copied, possibly preempted); from the
# child's last clock read to its exit record (exit(), the threads torn down).
FORK_SLACK_NS = 20_000_000
EXIT_SLACK_NS = 100_000_000


def forked(jobs_json, wl_out, phases):
    """barrier_imbalance -f started after the attach: the child, forked
    without exec, is a job from its fork (not from the session's start: no
    partial phase), ends at its exit, and its phases, its phase 0 from the
    fork, and its iterations are the workload's; the parent's phases too."""
    d = load(jobs_json)
    facts = workload_lines(wl_out, r"^child pid (?P<pid>\d+) forked_ns (?P<f>\d+) "
                                   r"lived_ns (?P<l>\d+)$")
    if not check(len(facts) == 1, f"{len(facts)} 'child' lines in {wl_out}"):
        return
    child, f_ns, lived = int(facts[0]["pid"]), int(facts[0]["f"]), int(facts[0]["l"])
    owner = {int(w["tid"]): int(w["pid"])
             for w in workload_lines(wl_out, r"^worker \d+ tid (?P<tid>\d+) pid (?P<pid>\d+)$")}
    pids = sorted(set(owner.values()))
    check(len(pids) == 2 and child in pids, f"workers of processes {pids}, the child {child}")
    allwins = windows(wl_out)
    for pid in pids:
        found = [j for j in d["jobs"] if j["pid"] == pid]
        if not check(len(found) == 1, f"pid {pid}: {len(found)} jobs"):
            continue
        j, r = found[0], found[0]["report"]
        wins = {key: w for key, w in allwins.items() if owner.get(key[2]) == pid}
        check(r["partial_phases"] == 0 and not any(p["partial"] for p in r["phases"]),
              f"pid {pid}: {r['partial_phases']} partial phases (it began after the attach)")
        barrier_phases(r, wins, j["start_ns"], Costs(r), lambda k: (k, None), phases)
        common_facts(r)
        if pid != child:
            continue
        check(f_ns <= j["start_ns"] <= f_ns + FORK_SLACK_NS,
              f"child {pid}: job start {(j['start_ns'] - f_ns) / 1e6:+.3f} ms from its fork "
              f"(allowed 0..{ms(FORK_SLACK_NS)})")
        check(f_ns + lived <= j["end_ns"] <= f_ns + lived + EXIT_SLACK_NS,
              f"child {pid}: job end {(j['end_ns'] - f_ns - lived) / 1e6:+.3f} ms from its "
              f"exit (allowed 0..{ms(EXIT_SLACK_NS)})")
        check(j["end_ns"] - j["start_ns"] <= lived + EXIT_SLACK_NS,
              f"child {pid}: lived {ms(j['end_ns'] - j['start_ns'])}, the workload's "
              f"{ms(lived)}")
        if not r["phases"]:
            continue
        # phase 0 runs from the fork to its last arrival
        costs, sym = Costs(r), r["phases"][0]["symbol"]
        w0 = [w for (k, _, _), w in wins.items() if k == 0]
        lo = max(w.enter for w in w0) - (f_ns + FORK_SLACK_NS)
        hi = max(w.enter + costs.arrive_tol(w, sym) for w in w0) - f_ns
        check(lo <= r["phases"][0]["phase_ns"] <= hi,
              f"child {pid}: phase 0 {ms(r['phases'][0]['phase_ns'])}, from its fork "
              f"{ms(lo)}..{ms(hi)}")
        # iterations, phase start to phase start: the fork, then each release
        starts = [f_ns] + [min(w.leave for (kk, _, _), w in wins.items() if kk == k)
                           for k in range(phases - 1)]
        longest = max(b - a for a, b in zip(starts, starts[1:]))
        its = [p for p in r["iterations"]["processes"] if p["pid"] == pid]
        if check(len(its) == 1, f"child {pid}: {len(its)} iteration entries"):
            m = its[0]["measured"]
            check(its[0]["count"] == phases and m["timed"] == phases - 1,
                  f"child {pid}: {its[0]['count']} iterations, {m['timed']} timed")
            check(m["max_ms"] * 1e6 <= longest + 2 * SLACK_NS,
                  f"child {pid}: longest iteration {m['max_ms']:.3f} ms, the workload's "
                  f"{ms(longest)}")


# ---- locks, semaphores, condition variables ------------------------------------

def joins(r, own, wl_out):
    """The futex words named as joins (pthread_join's wait on a thread's id
    word): each a worker's, waited on by the main thread only; and every
    join the workload saw sleep (its own switch count) is named."""
    slept = {int(i) for i, s in re.findall(r"^joined thread (\d+) slept (\d)$",
                                            open(wl_out).read(), re.M) if s == "1"}
    tid_of = {o["i"]: tid for tid, o in own.items()}
    named = {f["joined_tid"]: f for f in r["futex"] if f.get("joined_threads")}
    main = {f["pid"] for f in r["futex"]}
    for tid, f in named.items():
        check(tid in own, f"a join named thread {tid}, not a worker {sorted(own)}")
        check({t["tid"] for t in f["threads"]} <= main,
              f"join of {tid}: waiters {[t['tid'] for t in f['threads']]}, not the main thread")
    for i in sorted(slept):
        check(tid_of.get(i) in named, f"the join of worker {i} (tid {tid_of.get(i)}) slept, "
              f"no futex word names it: {sorted(named)}")
    print(f"{len(slept)} joins slept, {len(named)} named", file=sys.stderr)


def mutex(report, wl_out, threads, iters, futex_traced, check_joins=False):
    """T threads x K lock/unlock pairs: exact counts. A hold in the trace runs
    from the lock's return probe to the unlock's entry probe, so it contains
    the workload's own hold and exceeds it by two probe gaps, plus the time
    the thread was off its CPU unseen (workload.h usage_unseen_ns). A lock
    call in the trace lies inside the workload's timing of it and falls
    short of it by the same. With futex calls traced, the lock calls that
    slept are contended acquisitions (but for a rare sleep of the probes')."""
    r = load(report)
    rows = workload_lines(wl_out, r"^thread (?P<i>\d+) tid (?P<tid>\d+) acquisitions (?P<k>\d+) "
                                  r"lock_wait_ns (?P<w>\d+) hold_ns (?P<h>\d+) slept_locks "
                                  r"(?P<s>\d+) unseen_ns (?P<u>\d+)")
    own = {int(x["tid"]): {k: int(v) for k, v in x.items()} for x in rows}
    check(len(own) == threads, f"{len(own)} worker lines, expected {threads}")
    locks = [l for l in r["locks"] if l["symbol"] == "counter_lock"]
    check(len(locks) == 1, f"counter_lock in locks[]: {[l['symbol'] for l in r['locks']]}")
    if not locks:
        return
    lk = locks[0]
    check(lk["type"] == "mutex", f"type {lk['type']}")
    check(lk["acquisitions"] == threads * iters,
          f"{lk['acquisitions']} acquisitions, expected {threads * iters}")
    check(lk["holds"] == threads * iters, f"{lk['holds']} holds")
    costs = Costs(r)
    gap = COST_FACTOR * costs.trap
    check(sorted(t["tid"] for t in lk["threads"]) == sorted(own),
          f"threads {[t['tid'] for t in lk['threads']]}, workers {sorted(own)}")
    for t in lk["threads"]:
        o = own.get(t["tid"])
        if not o:
            continue
        check(t["count"] == o["k"], f"tid {t['tid']}: {t['count']} acquisitions, made {o['k']}")
        allowed = o["k"] * 2 * gap + o["u"] + SLACK_NS
        extra = t["hold_ns"] - o["h"]
        check(0 <= extra <= allowed,
              f"tid {t['tid']}: hold {ms(t['hold_ns'])}, own {ms(o['h'])}: "
              f"{extra} ns more, allowed 0..{allowed}")
        short = o["w"] - t["wait_ns"]
        check(0 <= short <= allowed,
              f"tid {t['tid']}: lock wait {ms(t['wait_ns'])}, own {ms(o['w'])}: "
              f"{short} ns less, allowed 0..{allowed}")
    slept = sum(o["s"] for o in own.values()) if futex_traced else 0
    check(slept - spurious_sleeps(slept) <= lk["contended"] <= lk["acquisitions"],
          f"contended {lk['contended']}, the workers slept in {slept} lock calls")
    check((lk["blocked_ns"] > 0) >= (slept > 0), "no blocked time split out of the lock wait")
    check(lk["wait_ns"] >= lk["blocked_ns"], "blocked time larger than the wait")
    if check_joins:
        joins(r, own, wl_out)


def omp_locks(report, wl_out, runtime):
    """omp_critical: per thread, the acquisitions of counter_lock (omp_set_lock),
    test_lock (omp_test_lock, its failed tests too), the histogram critical
    section and the unnamed one, exactly what each thread counted. The
    sections' objects: libgomp's named one is its word, its unnamed one has
    none; libomp's are the compiler's .gomp_critical_user_NAME.var."""
    r = load(report)
    rows = workload_lines(wl_out, r"^thread (?P<i>\d+) tid (?P<tid>\d+) critical (?P<c>\d+) "
                                  r"lock (?P<l>\d+) anon (?P<a>\d+) tested (?P<t>\d+) "
                                  r"failed (?P<f>\d+)$")
    own = {int(x["tid"]): {k: int(x[k]) for k in "clatf"} for x in rows}
    check(len(own) > 1, f"{len(own)} thread lines")
    gomp = runtime == "gomp"
    want = [("counter_lock", "omp_lock", "l"), ("test_lock", "omp_lock", "t"),
            (".gomp_critical_user_histogram" + ("" if gomp else ".var"), "critical", "c"),
            ("(unnamed critical)" if gomp else ".gomp_critical_user_.var", "critical", "a")]
    for name, kind, col in want:
        locks = [l for l in r["locks"] if l["symbol"] == name]
        if not check(len(locks) == 1, f"{name} in locks[]: {[l['symbol'] for l in r['locks']]}"):
            continue
        lk = locks[0]
        check(lk["type"] == kind, f"{name}: type {lk['type']}, expected {kind}")
        got = {t["tid"]: t["count"] for t in lk["threads"]}
        mine = {tid: c[col] for tid, c in own.items()}
        check(got == mine, f"{name}: acquisitions per thread {got}, the threads counted {mine}")
        check(lk["acquisitions"] == sum(mine.values()) and lk["holds"] == lk["acquisitions"],
              f"{name}: {lk['acquisitions']} acquisitions, {lk['holds']} holds")
        check(lk["errors"] == 0 and lk["timeouts"] == 0,
              f"{name}: {lk['errors']} errors, {lk['timeouts']} timed out")
        if col == "t":
            failed = sum(c["f"] for c in own.values())
            check(lk.get("try_failures") == failed,
                  f"{name}: {lk.get('try_failures')} failed tests, the threads counted {failed}")
    common_facts(r)


def tasks(report, wl_out, org_spec=None):
    """omp_tasks: each thread's tasks created, tasks run (a taskloop's too)
    and task waits exactly as it counted them; the probes' wait and the task bodies run inside it lie
    within the thread's own timing: the wait calls inside its windows
    (wait + run <= its wait_ns), its bodies' timing inside the body probes
    (run >= its ran_in_waits_ns). With the trace (org_spec): the tasks run
    at the barriers, barrier_tasks()."""
    r = load(report)
    if org_spec:
        barrier_tasks(r, wl_out, origin(org_spec, r))
    rows = workload_lines(wl_out, r"^thread \d+ tid (?P<tid>\d+) created (?P<c>\d+) waits (?P<w>\d+) "
                                  r"wait_ns (?P<wn>\d+) ran_in_waits_ns (?P<rn>\d+) ran (?P<k>\d+)")
    check(rows and sum(int(x["k"]) for x in rows) > 0, "the workload ran tasks")
    mine = {t["tid"]: t.get("tasks") for t in r["threads"]}
    for x in rows:
        tid, created, waits = int(x["tid"]), int(x["c"]), int(x["w"])
        got = mine.get(tid) or {"created": 0, "ran": 0, "waits": 0, "wait_ns": 0, "run_in_waits_ns": 0}
        check(got["created"] == created, f"tid {tid}: {got['created']} tasks created, it counted {created}")
        # every task body it ran, a taskloop's too (the runtime creates those)
        check(got["ran"] == int(x["k"]), f"tid {tid}: {got['ran']} tasks run, it counted {x['k']}")
        check(got["waits"] == waits, f"tid {tid}: {got['waits']} task waits, it counted {waits}")
        check(got["wait_ns"] + got["run_in_waits_ns"] <= int(x["wn"]),
              f"tid {tid}: waited {ms(got['wait_ns'])} + ran {ms(got['run_in_waits_ns'])}, "
              f"its own windows {ms(int(x['wn']))}")
        check(got["run_in_waits_ns"] >= int(x["rn"]),
              f"tid {tid}: ran {ms(got['run_in_waits_ns'])} of tasks in its waits, "
              f"it timed {ms(int(x['rn']))}")
    check(r["drops"]["total"] == 0, f"{r['drops']['total']} records lost")


def chrome_tasks(chrome, report):
    """export (chrome) of an omp_tasks trace: each thread's region shares,
    tasks run and task waits as begin/end slices, as many as the report
    counts (its regions' implicit barriers, its tasks ran and waits), each
    end after its begin, properly nested, in both views."""
    r = load(report)
    events = load(chrome)["traceEvents"]
    offset = 1 << 22  # the approximated view's ids
    for view in (0, 1):
        stacks, begun = {}, {}
        for e in sorted((e for e in events if e.get("cat") == "task" and
                         (e["tid"] >= offset) == bool(view)), key=lambda e: (e["ts"], e["ph"] == "B")):
            tid = e["tid"] - offset * view
            st = stacks.setdefault(tid, [])
            if e["ph"] == "B":
                st.append(e["name"])
                begun[tid] = begun.get(tid, 0) + 1
            else:
                check(st and st[-1] == e["name"],
                      f"view {view} tid {tid}: end of {e['name']} at {e['ts']}, open {st[-3:]}")
                if st:
                    st.pop()
        for t in r["threads"]:
            tasks = t.get("tasks") or {"ran": 0, "waits": 0}
            shares = sum(1 for p in r["phases"] if p["implicit"]
                         for x in p["threads"] if x["tid"] == t["tid"])
            want = tasks["ran"] + tasks["waits"] + shares
            check(begun.get(t["tid"], 0) == want,
                  f"view {view} tid {t['tid']}: {begun.get(t['tid'], 0)} body and wait slices, "
                  f"the report: {tasks['ran']} tasks, {tasks['waits']} waits, {shares} region shares")
            check(not stacks.get(t["tid"]), f"view {view} tid {t['tid']}: left open {stacks.get(t['tid'])}")


def barrier_tasks(r, wl_out, org):
    """omp_tasks: the tasks a thread ran at step S's barrier (the single's,
    or with -e the end of step S's region) are its work. In that barrier's
    phase its arrival is at or after the end of the last of them, as it
    timed it (the body's return comes after), and before its departure; its
    compute holds at least their time."""
    rows = workload_lines(wl_out, r"^thread \d+ tid (?P<tid>\d+) step (?P<s>\d+) "
                                  r"barrier_tasks_ns (?P<ran>\d+) last_end_ns (?P<end>\d+)")
    check(rows, "no thread ran a task at a barrier")
    at_end = bool(workload_lines(wl_out, r"^tasks_at region_end$"))
    steps = [p for p in r["phases"] if p["implicit"] == at_end]
    for x in rows:
        tid, s, ran, end = int(x["tid"]), int(x["s"]), int(x["ran"]), int(x["end"])
        if not check(s < len(steps), f"step {s}: {len(steps)} barrier phases"):
            continue
        t = {t["tid"]: t for t in steps[s]["threads"]}.get(tid)
        if not check(t is not None, f"step {s}: tid {tid} not in its barrier's phase"):
            continue
        a, d = org + t["arrive_ns"], org + t["depart_ns"]
        check(end <= a <= d, f"step {s} tid {tid}: arrival {a - end} ns after the end of the last "
              f"task it ran at the barrier, departure {d - a} ns after the arrival (both >= 0)")
        check(t["compute_ns"] >= ran, f"step {s} tid {tid}: compute {ms(t['compute_ns'])}, "
              f"less than the {ms(ran)} of tasks it ran at the barrier")


def sem(report, wl_out, items):
    """Single producer / single consumer: P = V = items on both semaphores,
    FIFO pairing. Each semaphore has one taker, so a wait that found a token
    cannot block and one that slept did (but for a rare sleep of the probes'
    own): blocked P's lie between the two counts. Its waits lie inside the
    taker's own and fall short of them by two probe gaps a call and the time
    it was off its CPU unseen. A pipeline's semaphores are no barrier."""
    r = load(report)
    check(not r["phases"] and not any(s["barrier"] for s in r["semaphores"]),
          f"{len(r['phases'])} phases, barrier semaphores "
          f"{[s['symbol'] for s in r['semaphores'] if s['barrier']]}")
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
    rows = workload_lines(wl_out, r"^thread (?P<role>\w+) tid \d+ sem_wait_ns (?P<w>\d+) "
                                  r"slept_waits (?P<s>\d+) waits (?P<n>\d+) empty_waits (?P<e>\d+) "
                                  r"unseen_ns (?P<u>\d+)")
    own = {x["role"]: {k: int(v) for k, v in x.items() if k != "role"} for x in rows}
    check(set(own) == {"producer", "consumer"}, f"workload lines {list(own)}")
    gap = COST_FACTOR * Costs(r).trap
    for s, role in ((it, "consumer"), (sl, "producer")):
        o = own.get(role)
        if not o:
            continue
        name = s["symbol"]
        check(s["p_blocked"] + s["p_nonblocked"] == s["p"], f"{name}: P_w + P_p != P")
        check(o["s"] - spurious_sleeps(o["s"]) <= s["p_blocked"] <= o["e"],
              f"{name}: {s['p_blocked']} blocked P's; the {role} slept in {o['s']} waits, "
              f"found no token in {o['e']}")
        short = o["w"] - s["wait_ns"]
        allowed = o["n"] * 2 * gap + o["u"] + SLACK_NS
        check(0 <= short <= allowed, f"{name}: P waits {ms(s['wait_ns'])}, the {role}'s own "
              f"{ms(o['w'])}: {short} ns less, allowed 0..{allowed}")
        check(s["blocked_ns"] <= s["wait_ns"], f"{name}: blocked longer than it waited")
        check((s["blocked_ns"] > 0) >= (o["s"] > 0), f"{name}: slept, but no blocked time")


def cond(report, wl_out, items):
    """cond_queue: the condvar's waits, signals and broadcasts as the
    workload counted them; a work queue is no barrier: no phase."""
    r = load(report)
    text = open(wl_out).read()
    waits = sum(int(x) for x in re.findall(r"cond_waits (\d+)", text))
    m = re.search(r"pushed (\d+) processed \d+ signals (\d+) broadcasts (\d+)", text)
    check(m and int(m.group(1)) == items, "the workload's summary line")
    signals, broadcasts = (int(m.group(2)), int(m.group(3))) if m else (-1, -1)
    cvs = [c for c in r["condvars"] if c["symbol"] == "queue_nonempty"]
    check(len(cvs) == 1, f"condvars {[c['symbol'] for c in r['condvars']]}")
    if cvs:
        c = cvs[0]
        check(c["waits"] == waits, f"{c['waits']} waits, the workers counted {waits}")
        check(c["signals"] == signals, f"{c['signals']} signals, expected {signals}")
        check(c["broadcasts"] == broadcasts, f"{c['broadcasts']} broadcasts, expected {broadcasts}")
    check(not r["phases"] and not r["sites"],
          f"{len(r['phases'])} phases at {[s['name'] for s in r['sites']]}: a queue is no barrier")
    locks = [l for l in r["locks"] if l["symbol"] == "queue_lock"]
    if "queue_lock" not in [l["symbol"] for l in r["locks"]] and not r["locks"]:
        return  # locks not traced
    check(len(locks) == 1, "queue_lock in locks[]")
    if locks and cvs:
        # each wait releases the mutex and takes it again: it splits a hold in two
        check(locks[0]["holds"] == locks[0]["acquisitions"] + cvs[0]["waits"],
              f"queue_lock: {locks[0]['holds']} holds, {locks[0]['acquisitions']} "
              f"acquisitions, {cvs[0]['waits']} waits")


# ---- counters --------------------------------------------------------------------

def pages(report, wl_out, threads, phases, npages, sleeps):
    """page_touch: worker t touches npages fresh pages in phase 1 + t % phases
    and none elsewhere; it sleeps `sleeps` times in every phase. A sleep is
    not always a context switch (a timer that fires before the scheduler
    picks another task, as on a VM whose CPU the host took, leaves the
    thread running), so the context switches to compare with are the ones
    the workload counted itself (getrusage, from its previous barrier's
    return to just before this barrier: inside the counter's interval, but
    for one switch: the return probe reads the counters, then records them,
    and being preemptible may be switched out after the read, a switch the
    workload's window has and ours has not)."""
    r = load(report)
    rows = workload_lines(wl_out, r"^phase (?P<k>\d+) thread (?P<i>\d+) tid (?P<tid>\d+) "
                                  r"pages (?P<p>\d+) sleeps (?P<s>\d+).* cswitch (?P<cs>\d+) ")
    index_of = {int(x["tid"]): int(x["i"]) for x in rows}
    switched = {(int(x["k"]), int(x["tid"])): int(x["cs"]) for x in rows}
    check(len(index_of) == threads, f"{len(index_of)} workers printed, expected {threads}")
    check(len(r["phases"]) == phases + 1, f"{len(r['phases'])} phases, expected {phases + 1}")
    check(sum(switched.values()) >= 1 or sleeps == 0,
          f"the workload slept {sleeps} times per phase and never switched")
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
            own = switched.get((p["index"], t["tid"]), 0)
            check(c["context-switches"] >= own - 1,
                  f"phase {p['index']} thread {i}: {c['context-switches']} context switches, "
                  f"the thread counted {own} itself (slept {sleeps} times)")
    # threads created after attach are counted from their start: phase 0 known
    for t in r["phases"][0]["threads"]:
        check(t["counters"] is not None, f"phase 0 tid {t['tid']}: counters unknown")


def taskclock(report, wl_out, org_spec):
    """A thread's task-clock per phase is its CPU time between its previous
    barrier exit and this barrier's entry. The workload read its own CPU
    clock inside its windows, so the counter's interval contains the
    workload's and exceeds it at most by the wall time between the probes
    and those reads (known from both sides), a counter read, and the time
    the hypervisor took the CPU: the thread's clock does not count it
    (paravirt steal accounting), the per-CPU counter does. At each context
    switch the workload counted in between, the two clocks may differ either
    way by what they account at different points of the switch.
    The workload bounds that as its wall time minus its CPU time minus its
    run-queue wait, which also needs it not to sleep (page_touch -s 0)."""
    r = load(report)
    org, costs = origin(org_spec, r), Costs(r)
    hit = hit_costs(org_spec)
    wins = windows(wl_out)
    cpu = {}
    for key, w in wins.items():
        m = re.search(r"cpu_arrive_ns (\d+) cpu_depart_ns (\d+) cswitch (\d+) rqwait_ns (\d+)",
                      w.extra["rest"])
        cpu[key] = tuple(map(int, m.groups()))
    trace = {(p["index"], None, t["tid"]): t for p in r["phases"] for t in p["threads"]}
    eps = COST_FACTOR * (costs.entry("pthread_barrier_wait") + costs.exit("pthread_barrier_wait") +
                         r.get("approximated", {}).get("counter_record_ns", 0))
    n = 0
    for (k, _, tid), t in sorted(trace.items()):
        key, before = (k, None, tid), (k - 1, None, tid)
        if k < 2 or before not in trace or key not in wins or t["counters"] is None:
            continue  # phase 1 starts at the warm-up barrier, which prints no window
        n += 1
        w, pw = wins[key], wins[before]
        own = cpu[key][0] - cpu[before][1]
        # wall time from the previous exit probe to our read, our read to the entry
        # probe, and the entry hit itself where the record's time is from before it
        arrive = org + t["arrive_ns"]
        slack = (pw.leave - (org + trace[before]["depart_ns"])) + (arrive - w.enter) + \
            hit.get((tid, arrive), 0)
        switched = cpu[key][2] + pw.nvcsw + pw.nivcsw + w.nvcsw + w.nivcsw
        stolen = max(0, (w.enter - pw.leave) - own - cpu[key][3])
        allowed = slack + eps + switched * PER_SWITCH_NS + stolen
        tc = t["counters"]["task-clock"]
        check(own - switched * PER_SWITCH_NS <= tc <= own + allowed,
              f"phase {k} tid {tid}: task-clock {ms(tc)}, own CPU time {ms(own)} "
              f"(+ up to {ms(allowed)}: {switched} context switches, {ms(stolen)} not on its "
              f"clock)")
    check(n > 0, "no phase to compare")


# ---- live output -------------------------------------------------------------------

LIVE = re.compile(r'"(?P<name>[^"]+)" \(barrier: (?P<b>[0-9.]+) ms(?: > [0-9.]+ ms)?, '
                  r"phase (?P<k>\d+): (?P<ph>[0-9.]+) ms, from start: [0-9.]+ s\)"
                  r"(?: \[partial[^]]*\])?$")


def live_bounds(wins, k, costs, sym):
    """(barrier lo, hi), (phase lo, hi or None) of phase k from the windows."""
    mine = [w for (kk, _, _), w in wins.items() if kk == k]
    ta = {w.tid: costs.arrive_tol(w, sym) for w in mine}
    last = max(w.enter for w in mine)
    b = (last - min(w.enter + ta[w.tid] for w in mine),
         max(w.enter + ta[w.tid] for w in mine) - min(w.enter for w in mine))
    before = [w for (kk, _, _), w in wins.items() if kk == k - 1]
    ph = None
    if before:  # the phase starts at the release: the earliest departure
        td = {w.tid: costs.depart_tol(w, sym) for w in before}
        ph = (last - min(w.leave for w in before),
              max(w.enter + ta[w.tid] for w in mine) - min(w.leave - td[w.tid] for w in before))
    return b, ph


def live(out, nphases):
    """Each live line's barrier time and phase time (printed to the us)
    against the workload's windows printed in the same output."""
    text = open(out).read()
    wins, costs = windows(out), Costs({})
    got = {}
    for line in text.splitlines():
        m = LIVE.search(line)
        if m and m["name"] == "phase_barrier" and not line.startswith("SBT WARNING"):
            check(int(m["k"]) not in got, f"phase {m['k']}: two live lines")
            got[int(m["k"])] = (float(m["b"]) * 1e6, float(m["ph"]) * 1e6)
    check(sorted(got) == list(range(nphases)), f"live lines of phases {sorted(got)}")
    for k, (b, ph) in got.items():
        (blo, bhi), phb = live_bounds(wins, k, costs, "pthread_barrier_wait")
        check(blo - 500 <= b <= bhi + 500, f"phase {k}: barrier {ms(b)}, the workload's "
              f"arrivals say {ms(blo)}..{ms(bhi)}")
        if phb:
            check(phb[0] - 500 <= ph <= phb[1] + 500, f"phase {k}: phase {ms(ph)}, "
                  f"the workload says {ms(phb[0])}..{ms(phb[1])}")


def watch(out, nphases, warn_ms):
    """--watch blocks: per phase, the workers in their order of arrival, each
    one's compute and wait time; --warn-time: a warning for every phase
    whose barrier time was above the limit, none for one below."""
    lines = open(out).read().splitlines()
    wins, costs = windows(out), Costs({})
    sym = "pthread_barrier_wait"
    blocks = {}
    for i, line in enumerate(lines):
        m = re.match(r"SBT barrier watch at .* phase (\d+)$", line)
        if not m:
            continue
        rows = []
        for l in lines[i + 1:]:
            f = l.split()
            if len(f) == 8 and f[0].isdigit():
                rows.append((int(f[0]), float(f[3]) * 1e6, float(f[4]) * 1e6))
            elif rows:
                break
        blocks[int(m.group(1))] = rows
    check(sorted(blocks) == list(range(nphases)), f"watch blocks of phases {sorted(blocks)}")
    warned = {int(m["k"]) for m in map(LIVE.search, lines) if m and "SBT WARNING" in m.string}
    for k, rows in blocks.items():
        mine = {tid: w for (kk, _, tid), w in wins.items() if kk == k}
        ta = {tid: costs.arrive_tol(w, sym) for tid, w in mine.items()}
        td = {tid: costs.depart_tol(w, sym) for tid, w in mine.items()}
        if not check(sorted(r[0] for r in rows) == sorted(mine),
                     f"phase {k}: watched threads {[r[0] for r in rows]}, workers {sorted(mine)}"):
            continue
        order = [r[0] for r in rows]
        for a, b in zip(order, order[1:]):  # b cannot have arrived clearly before a
            check(mine[b].enter + ta[b] >= mine[a].enter,
                  f"phase {k}: {b} listed after {a}, but arrived {ms(mine[a].enter - mine[b].enter)} "
                  f"earlier")
        for tid, c, wt in rows:
            w = mine[tid]
            lo, hi = w.leave - td[tid] - (w.enter + ta[tid]) - 500, w.leave - w.enter + 500
            check(lo <= wt <= hi, f"phase {k} tid {tid}: wait {ms(wt)}, expected {ms(lo)}..{ms(hi)}")
            prev = wins.get((k - 1, None, tid))
            if prev:
                lo = w.enter - prev.leave - 500
                hi = w.enter + ta[tid] - (prev.leave - costs.depart_tol(prev, sym)) + 500
                check(lo <= c <= hi, f"phase {k} tid {tid}: compute {ms(c)}, expected "
                      f"{ms(lo)}..{ms(hi)}")
        (blo, bhi), _ = live_bounds(wins, k, costs, sym)
        if blo > warn_ms * 1e6:
            check(k in warned, f"phase {k}: barrier above {warn_ms} ms ({ms(blo)}..), no warning")
        if bhi <= warn_ms * 1e6:
            check(k not in warned, f"phase {k}: barrier below {warn_ms} ms, yet a warning")


# ---- top ---------------------------------------------------------------------------

def top(top_txt, wl_out, pid, interval):
    """`top` without a terminal: every interval's block against the
    workload's own windows. Between two blocks the job's phase count went
    from P0 to P1: its threads' compute and wait sums grew by their phases
    P0+1..P1-1, and by P0 and P1 for the threads whose departure from them
    came between the two refreshes; a departure after a block was printed
    (its time is wall-clock, to the ms) came after that refresh, the others
    are open either way. Wait % and balance must lie in the range the sums
    allow, each phase off by at most the probe gaps, each sum by at most one
    interruption the workers could not see. The rate is the phases
    completed over the interval, which lasted at least INTERVAL_S and at
    most from the end of phase P0-1 to the block's printing."""
    blocks = [b for b in open(top_txt).read().split("\n\n") if b.strip()]
    check(len(blocks) >= 3, f"{len(blocks)} blocks")
    rows = []
    for b in blocks:
        lines = b.splitlines()
        check(lines[0].startswith("# time="), lines[0])
        head = lines[1].split("\t")
        check(head == ["pid", "threads", "phase", "phases_per_s", "wait_pct", "balance",
                       "lock_pct", "drops", "state", "site", "command", "parallel_eff"],
              f"header {head}")
        when = re.match(r"# time=([0-9.]+) ", lines[0])
        for l in lines[2:]:
            row = dict(zip(head, l.split("\t")))
            if row["pid"] == str(pid) and when:
                row["time"] = when.group(1)
                rows.append(row)
    wins = windows(wl_out)
    nphases = 1 + max(k for k, _, _ in wins)
    tids = sorted({tid for _, _, tid in wins})
    costs, sym = Costs({}), "pthread_barrier_wait"
    gap_a = COST_FACTOR * costs.entry(sym)
    gap_d = COST_FACTOR * costs.exit(sym)
    # per phase and thread: the trace's compute and wait lie in these ranges
    comp, wait = {}, {}
    for (k, _, tid), w in wins.items():
        prev = wins.get((k - 1, None, tid))
        if prev:
            c = w.enter - prev.leave
            comp[(k, tid)] = (c - gap_d - prev.depart_unseen, c + gap_a + w.unseen)
        d = w.leave - w.enter
        wait[(k, tid)] = (d - gap_a - gap_d - w.unseen, d)
    off = re.search(r"^realtime_offset_ns (-?\d+) err_ns (\d+)$", open(wl_out).read(), re.M)
    offset, offset_err = int(off.group(1)), int(off.group(2))

    def printed(row):
        """The latest CLOCK_MONOTONIC time the row's block may have been printed."""
        return round(float(row["time"]) * 1e9) + 1_000_000 - offset + offset_err

    check(len(rows) >= 3, f"{len(rows)} rows of pid {pid}")
    phases = [int(r["phase"]) for r in rows]
    check(phases == sorted(phases), f"phase counts go back: {phases}")
    check(phases[-1] == nphases and rows[-1]["state"] == "exited",
          f"last row: phase {phases[-1]}, state {rows[-1]['state']}; the workload ran {nphases}")
    judged = 0
    for r0, r1 in zip(rows, rows[1:]):
        p0, p1 = int(r0["phase"]), int(r1["phase"])
        if r1["state"] == "running":
            # workers leave once past their last barrier: the last episode's
            # departures and their exits may be counted in either order
            if p1 < nphases - 1:
                check(r1["threads"] == str(len(tids) + 1),
                      f"threads {r1['threads']}: main + workers")
            else:
                check(1 <= int(r1["threads"]) <= len(tids) + 1,
                      f"threads {r1['threads']}: at most main + workers")
            check("barrier_imbalance.c" in r1["site"] and "barrier_imbalance -t" in r1["command"],
                  f"site/command {r1['site']} {r1['command']}")
        if r1["phases_per_s"] != "-" and r0["state"] == "running":
            rate = float(r1["phases_per_s"])
            check(rate <= (p1 - p0) / interval + 0.05,
                  f"{rate} phases/s, {p1 - p0} phases in at least {interval} s")
            if p0 > 0:
                ended = max(w.leave - costs.depart_tol(w, sym)
                            for (k, _, _), w in wins.items() if k == p0 - 1)
                most = (printed(r1) - ended) / 1e9
                check(rate >= (p1 - p0) / most - 0.05,
                      f"{rate} phases/s, {p1 - p0} phases in at most {most:.3f} s")
        if p1 - p0 < 2 or r1["wait_pct"] == "-" or p0 == 0:
            continue  # the first phase's compute starts at thread creation
        judged += 1
        lo_c, hi_c, lo_w, hi_w = {}, {}, {}, {}
        for tid in tids:
            sure, maybe = list(range(p0 + 1, p1)), []
            w0, w1 = wins.get((p0, None, tid)), wins.get((p1, None, tid))
            if w0:
                (sure if w0.leave - costs.depart_tol(w0, sym) > printed(r0) else maybe).append(p0)
            if w1 and not w1.leave - costs.depart_tol(w1, sym) > printed(r1):
                maybe.append(p1)
            lo_c[tid] = sum(comp[(k, tid)][0] for k in sure) - SLACK_NS
            hi_c[tid] = sum(comp[(k, tid)][1] for k in sure + maybe) + SLACK_NS
            lo_w[tid] = sum(wait[(k, tid)][0] for k in sure) - SLACK_NS
            hi_w[tid] = sum(wait[(k, tid)][1] for k in sure + maybe) + SLACK_NS
        lw, hw = sum(lo_w.values()), sum(hi_w.values())
        lc, hc = sum(lo_c.values()), sum(hi_c.values())
        pct = float(r1["wait_pct"])
        check(100 * lw / (lw + hc) - 0.05 <= pct <= 100 * hw / (hw + lc) + 0.05,
              f"phases {p0}..{p1}: wait {pct} %, the workload says "
              f"{100 * lw / (lw + hc):.2f}..{100 * hw / (hw + lc):.2f} %")
        bal = float(r1["balance"])
        blo = lc / len(tids) / max(hi_c.values())
        bhi = hc / len(tids) / max(lo_c.values())
        check(blo - 0.005 <= bal <= bhi + 0.005,
              f"phases {p0}..{p1}: balance {bal}, the workload says {blo:.3f}..{bhi:.3f}")
    check(judged >= 1, "no interval with two or more phases to compare")
    # the run's parallel efficiency at the end: load balance (mean over max of
    # the threads' compute over the phases after the first, which starts at
    # thread creation) times a synchronization efficiency of at most 1, and
    # (sleeping workers, small barrier costs) above 0.9
    total = {tid: sum(comp[(k, tid)][0] for k in range(1, nphases) if (k, tid) in comp)
             for tid in tids}
    lb = sum(total.values()) / len(total) / max(total.values())
    pe = float(rows[-1]["parallel_eff"])
    check(0.9 * lb - 0.02 <= pe <= lb + 0.02,
          f"parallel efficiency {pe} at the end, the workload's load balance {lb:.3f}")


def losses(report, wl_out, org_spec):
    """barrier_imbalance through an undersized ring: a phase whose records
    are not all there (a thread missing, or arrivals of two phases grouped
    as one) is marked lost; every unmarked phase has exactly its workload
    phase's threads, each arrival and departure inside that thread's own
    window; the phases that left no record at all are about as many as the
    summary says are missing."""
    r = load(report)
    org = origin(org_spec, r)
    wins, by_tid = windows(wl_out), {}
    for (k, _, tid), w in wins.items():
        by_tid.setdefault(tid, []).append((w.enter, w.leave, k))
    team = {}
    for (k, _, tid) in wins:
        team.setdefault(k, set()).add(tid)
    for v in by_tid.values():
        v.sort()

    def phase_of(tid, a, d):
        v = by_tid.get(tid, [])
        i = bisect.bisect_right(v, (a, float("inf"), 0)) - 1
        return v[i][2] if i >= 0 and v[i][0] <= a and d <= v[i][1] else None

    seen, inexact, unmarked_inexact = set(), 0, []
    for p in r["phases"]:
        ks = {phase_of(t["tid"], t["arrive_ns"] + org, t["depart_ns"] + org)
              if t["depart_ns"] is not None else None for t in p["threads"]}
        seen |= ks
        k = next(iter(ks))
        if len(ks) == 1 and k is not None and {t["tid"] for t in p["threads"]} == team[k]:
            continue
        inexact += 1
        if not p["lost"]:
            unmarked_inexact.append((p["index"], sorted(ks, key=str)))
    missing = len(team) - len(seen - {None})
    d = r["drops"]
    print(f"# {len(r['phases'])} phases of {len(team)}; {inexact} not exact, "
          f"{d['affected_phases']} marked lost; {missing} left no record, "
          f"{d.get('missing_phases')} estimated missing; {d['total']} records lost")
    check(not unmarked_inexact, f"phases not exact and not marked: {unmarked_inexact[:10]}")
    check(d["total"] > 0, "no record was lost: the test proves nothing")
    check(abs(d["missing_phases"] - missing) <= 0.05 * len(team) + 3,
          f"{d['missing_phases']} phases estimated missing, {missing} left no record")


def fj_workload(wl_out):
    """fork_join's own steps {k: (threads, create, joined)} and workers
    {k: [(tid, create, start, end)]}."""
    text = open(wl_out).read()
    steps = {int(m.group(1)): (int(m.group(2)), int(m.group(3)), int(m.group(4))) for m in
             re.finditer(r"^step (\d+) threads (\d+) create (\d+) joined (\d+)$", text, re.M)}
    workers = {}
    rx = r"^step (\d+) thread \d+ tid (\d+) create (\d+) start (\d+) end (\d+)$"
    for m in re.finditer(rx, text, re.M):
        workers.setdefault(int(m.group(1)), []).append(
            (int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5))))
    check(all(len(workers.get(k, [])) == n for k, (n, _, _) in steps.items()),
          "the workload printed a line for each of its threads")
    return steps, workers


def fj_step(s, k, steps, workers, org):
    """A listed step against the workload's step k: its threads, its start
    between the workload's creation and its first thread's start, its end
    between its last thread's end and the join's return, its first and last
    threads out where the workload's clocks tell them apart."""
    n_k, create, joined = steps[k]
    ends = sorted((e, tid) for tid, _, _, e in workers[k])
    first_start = min(st for _, _, st, _ in workers[k])
    check(s["threads"] == n_k, f"step {k}: {s['threads']} threads, expected {n_k}")
    check(create <= org + s["start_ns"] <= first_start,
          f"step {k}: starts {ms(org + s['start_ns'] - create)} after the workload's "
          f"creation (allowed 0..{ms(first_start - create)})")
    check(ends[-1][0] <= org + s["end_ns"] <= joined + 1_000_000,
          f"step {k}: ends {ms(org + s['end_ns'] - ends[-1][0])} after its last thread's "
          f"end (allowed 0..{ms(joined + 1_000_000 - ends[-1][0])})")
    if ends[-1][0] - ends[-2][0] >= LATE_MARGIN_NS:
        check(s["last_tid"] == ends[-1][1], f"step {k}: last out {s['last_tid']}, "
              f"the workload's {ends[-1][1]}")
    if ends[1][0] - ends[0][0] >= LATE_MARGIN_NS:
        check(s["first_tid"] == ends[0][1], f"step {k}: first out {s['first_tid']}, "
              f"the workload's {ends[0][1]}")


def fj_creator(r):
    fj = r["fork_join"]
    check(fj["running_threads"] == 0, f"{fj['running_threads']} threads still running")
    if not check(len(fj["creators"]) == 1, f"{len(fj['creators'])} creators, expected 1"):
        return None
    c = fj["creators"][0]
    check(c["tid"] == c["pid"], f"creator {c['tid']} is not the main thread {c['pid']}")
    return c


def fork_join(report, wl_out, org_spec, map_threads):
    """fork_join (Phoenix's word count): every step, with two threads or
    more, a fork-join step of the main thread with the workload's threads;
    the most idle steps between the workload's own creation and join times,
    their first and last threads out where the workload's clocks tell them
    apart; idle time and load balance within the teardown of a thread."""
    r = load(report)
    steps, workers = fj_workload(wl_out)
    multi = {k for k, (n, _, _) in steps.items() if n >= 2}
    check(steps and steps[0][0] == map_threads, f"the first step has {map_threads} threads")
    c = fj_creator(r)
    if not c:
        return
    check(c["steps"] == len(multi), f"{c['steps']} steps, the workload made {len(multi)} "
          "of two threads or more")
    check(c["lone"] == len(steps) - len(multi), f"{c['lone']} one-thread steps, expected "
          f"{len(steps) - len(multi)}")
    check(c["threads"] == sum(steps[k][0] for k in multi), f"{c['threads']} threads in steps")
    org = origin(org_spec, r)
    idle = sum(sum(max(w[3] for w in workers[k]) - w[3] for w in workers[k]) for k in multi)
    # a life as sbt-bpf counts it: from the thread's creation to its end
    lives = [[e - c for _, c, _, e in workers[k]] for k in multi]
    balance = sum(sum(l) / len(l) for l in lives) / sum(max(l) for l in lives)
    n = c["threads"]
    check(abs(c["idle_ns"] - idle) <= 0.2 * idle + n * 1_000_000,
          f"idle {ms(c['idle_ns'])}, the workload's {ms(idle)}")
    check(abs(c["balance"] - balance) <= 0.05,
          f"balance {c['balance']:.3f}, the workload's {balance:.3f}")
    check(len(c["most_idle"]) == min(3, len(multi)), f"{len(c['most_idle'])} steps listed")
    for s in c["most_idle"]:
        if check(s["index"] in multi, f"listed step {s['index']} is not of two threads or more"):
            fj_step(s, s["index"], steps, workers, org)


def fork_join_attached(report, wl_out, org_spec, map_threads):
    """fork_join attached to mid-run (-p): the steps after the attach, none
    merged with the next (thread creations are recorded before the join
    probe goes in): no step of more threads than the workload's largest,
    each listed step one of the workload's, by its times."""
    r = load(report)
    steps, workers = fj_workload(wl_out)
    multi = {k for k, (n, _, _) in steps.items() if n >= 2}
    c = fj_creator(r)
    if not c:
        return
    check(0 < c["steps"] <= len(multi), f"{c['steps']} steps, the workload made {len(multi)}")
    check(c["threads"] <= map_threads * c["steps"], f"{c['threads']} threads in {c['steps']} "
          f"steps: more than {map_threads} a step")
    idle = sum(sum(max(w[3] for w in workers[k]) - w[3] for w in workers[k]) for k in multi)
    check(c["idle_ns"] <= 1.2 * idle + c["threads"] * 1_000_000,
          f"idle {ms(c['idle_ns'])}, more than the workload's whole run's {ms(idle)}")
    org = origin(org_spec, r)
    for s in c["most_idle"]:
        mine = [k for k in multi if steps[k][1] <= org + s["start_ns"] <= steps[k][2]]
        if check(len(mine) == 1, f"listed step at {ms(s['start_ns'])} is in {len(mine)} of "
                 "the workload's steps"):
            fj_step(s, mine[0], steps, workers, org)


def unbanded(d):
    """An approximated object without its error band's keys (*_low, *_high):
    a live report's band spans the calibrations taken so far, a report of the
    file all of them."""
    return {k: v for k, v in d.items() if not k.endswith(("_low", "_high"))}

def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    kind, a = argv[1], argv[2:]
    calls = {
        "imbalance": lambda: imbalance(a[0], a[1], a[2], int(a[3]), *map(int, a[4:5])),
        "attach": lambda: attach(a[0], a[1], a[2]),
        "omp": lambda: omp(a[0], a[1], a[2], int(a[3]), *a[4:5]),
        "omp_nested": lambda: omp_nested(a[0], a[1], a[2], int(a[3])),
        "timed": lambda: timed(a[0], a[1], a[2], int(a[3]), *a[4:6]),
        "cancel": lambda: cancel(a[0], a[1], a[2], int(a[3])),
        "method": lambda: method(a[0], a[1], a[2]),
        "team": lambda: team(a[0], a[1], a[2], int(a[3]), a[4]),
        "omp_kernels": lambda: omp_kernels(a[0], a[1], a[2], int(a[3]),
                                           len(a) > 4 and a[4] == "stripped"),
        "barrier": lambda: barrier(a[0], a[1], a[2], int(a[3])),
        "condbar": lambda: condbar(a[0], a[1], a[2], int(a[3])),
        "sembar": lambda: sembar(a[0], a[1], a[2], int(a[3])),
        "custom": lambda: custom(a[0], a[1], a[2], int(a[3]), a[4:] == ["spin"]),
        "futex": lambda: futex(a[0], a[1]),
        "phases": lambda: phases(a[0], int(a[1])),
        "stopped": lambda: stopped(a[0], int(a[1])),
        "measured": lambda: measured(a[0], a[1]),
        "mutex": lambda: mutex(a[0], a[1], int(a[2]), int(a[3]), a[4:5] == ["futex"],
                               a[5:] == ["joins"]),
        "omp_locks": lambda: omp_locks(a[0], a[1], a[2]),
        "sem": lambda: sem(a[0], a[1], int(a[2])),
        "cond": lambda: cond(a[0], a[1], int(a[2])),
        "tasks": lambda: tasks(a[0], a[1], a[2] if len(a) > 2 else None),
        "barrier_tasks": lambda: barrier_tasks(load(a[0]), a[1], origin(a[2], load(a[0]))),
        "chrome_tasks": lambda: chrome_tasks(a[0], a[1]),
        "copyprivate": lambda: copyprivate(a[0], a[1], a[2], int(a[3])),
        "pages": lambda: pages(a[0], a[1], int(a[2]), int(a[3]), int(a[4]), int(a[5])),
        "taskclock": lambda: taskclock(a[0], a[1], a[2]),
        "live": lambda: live(a[0], int(a[1])),
        "watch": lambda: watch(a[0], int(a[1]), float(a[2])),
        "top": lambda: top(a[0], a[1], int(a[2]), float(a[3])),
        "job": lambda: job(a[0], int(a[1]), a[2]),
        "jobs": lambda: jobs(a[0]),
        "forked": lambda: forked(a[0], a[1], int(a[2])),
        "losses": lambda: losses(a[0], a[1], a[2]),
        "fork_join": lambda: fork_join(a[0], a[1], a[2], int(a[3])),
        "fork_join_attached": lambda: fork_join_attached(a[0], a[1], a[2], int(a[3])),
    }
    if kind not in calls:
        sys.exit(f"unknown check {kind}\n{__doc__}")
    calls[kind]()
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main(sys.argv)

