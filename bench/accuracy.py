#!/usr/bin/env python3
"""Accuracy of the approximated trace (issue 5): how close the run with the
probes' cost removed comes to the run without probes.

For each workload: T = uninstrumented run time (median of ROUNDS runs of the
workload's own total_ns), and per phase the workload's own timing (the
slowest thread's compute time of that phase, median over the runs). T_m is
the traced run's measured duration, T_a its approximation under each model
(the same recordings re-analysed with `report --model`); medians over
ROUNDS recordings. Per-phase errors compare the trace's phase times with the
workload's. Each workload is recorded with plain uprobes (--no-shim) and with the probe
shim (--shim: 5-byte-nop sites that time themselves, so the approximation
charges measured costs), side by side. The "inject" column validates by
injected delay (bench/validate.py): ROUNDS more recordings with twice the
calibrated cost of a hit spun in every hit (--inject-delay), and the share
of T_m's growth left in T_a (model mr; 0 % is perfect). "T in band": the
recordings whose error band (the run approximated at the least and the
greatest probe costs the session measured, the greatest with every hand-off
at its object's fastest) holds T, and the band's median half-width; "T spread":
the plain runs' least and greatest time against their median T, and the
recordings whose band meets that range. Plain runs and recordings alternate,
round by round. T_r: the approximated run replayed through its synchronization
(`--what-if as-is`: locks granted as glibc grants them, doc/design.md §5.7),
model mr, and its error. Prints one markdown table.

    sudo bench/accuracy.py [-r ROUNDS] [--only SUBSTRING] [--probes both|uprobes|shim]
                           [--no-inject]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import validate

OUT = ".output"
SBT = os.path.join(OUT, "sbt-bpf")
EX = os.path.join(OUT, "examples")
MODELS = ["mr", "sm", "time"]


def workloads():
    """(label, command, environment, sbt-bpf options)"""
    step = f"{EX}/stepper"
    rows = []
    for k, s in [(100, 20), (300, 5), (1000, 2), (3000, 1)]:
        rows.append((f"stepper -t 2 -n 5 -k {k} -s {s}, --probe step",
                     [step, "-t", "2", "-n", "5", "-k", str(k), "-s", str(s)], {},
                     ["--probe", f"{step}:step:region"]))
    rows += [
        ("stepper -t 2 -n 5 -k 300 -s 5, no --probe",
         [step, "-t", "2", "-n", "5", "-k", "300", "-s", "5"], {}, []),
        ("barrier_imbalance -t 4 -n 5 -d 10 -m sleep",
         [f"{EX}/barrier_imbalance", "-t", "4", "-n", "5", "-d", "10", "-m", "sleep"], {}, []),
        ("barrier_imbalance -t 2 -n 200 -d 0 -m spin (barriers only)",
         [f"{EX}/barrier_imbalance", "-t", "2", "-n", "200", "-d", "0", "-m", "spin"], {}, []),
        ("omp_barriers_gomp -n 20 -d 2 -m spin, 2 threads",
         [f"{EX}/omp_barriers_gomp", "-n", "20", "-d", "2", "-m", "spin"],
         {"OMP_NUM_THREADS": "2"}, []),
        ("cond_barrier -t 2 -n 100 -c 20000 -s 5 (mutex + condvar barrier)",
         [f"{EX}/cond_barrier", "-t", "2", "-n", "100", "-c", "20000", "-s", "5"], {}, []),
        ("omp_for_gomp -r 300 -i 2 -d 1 (parallel for only: implicit barriers), 2 threads",
         [f"{EX}/omp_for_gomp", "-r", "300", "-i", "2", "-d", "1"], {"OMP_NUM_THREADS": "2"}, []),
        ("omp_for_llvm -r 300 -i 2 -d 1 (parallel for only: implicit barriers), 2 threads",
         [f"{EX}/omp_for_llvm", "-r", "300", "-i", "2", "-d", "1"], {"OMP_NUM_THREADS": "2"}, []),
        ("omp_for_gomp -r 2000 -i 2 -d 0 (empty regions: probe cost only), 2 threads",
         [f"{EX}/omp_for_gomp", "-r", "2000", "-i", "2", "-d", "0"], {"OMP_NUM_THREADS": "2"}, []),
        ("omp_for_llvm -r 2000 -i 2 -d 0 (empty regions: probe cost only), 2 threads",
         [f"{EX}/omp_for_llvm", "-r", "2000", "-i", "2", "-d", "0"], {"OMP_NUM_THREADS": "2"}, []),
        ("mutex_contention -t 2 -k 300 -c 10 -o 20, --trace lock,futex",
         [f"{EX}/mutex_contention", "-t", "2", "-k", "300", "-c", "10", "-o", "20"], {},
         ["--trace", "lock,futex"]),
        ("mutex_contention -t 2 -k 300 -c 10 (no work outside), --trace lock,futex",
         [f"{EX}/mutex_contention", "-t", "2", "-k", "300", "-c", "10"], {},
         ["--trace", "lock,futex"]),
        ("mutex_contention -t 3 -k 2000 -c 20, --trace all (issue 13's run)",
         [f"{EX}/mutex_contention", "-t", "3", "-k", "2000", "-c", "20"], {},
         ["--trace", "all"]),
        ("sem_pipeline -n 200 -p 100 -c 50",
         [f"{EX}/sem_pipeline", "-n", "200", "-p", "100", "-c", "50"], {}, []),
        ("sem_pipeline -n 20000 -p 0 -c 0 (high rate)",
         [f"{EX}/sem_pipeline", "-n", "20000", "-p", "0", "-c", "0"], {}, []),
        ("omp_kernels_gomp -s 10 -n 400 (parallel for loops, reductions, a stencil), 2 threads",
         [f"{EX}/omp_kernels_gomp", "-s", "10", "-n", "400"], {"OMP_NUM_THREADS": "2"}, []),
        # the same for 0.3 s: 10 steps (30 ms) are within the VM's run-to-run spread
        ("omp_kernels_gomp -s 100 -n 400 (the same, 100 steps), 2 threads",
         [f"{EX}/omp_kernels_gomp", "-s", "100", "-n", "400"], {"OMP_NUM_THREADS": "2"}, []),
        # OpenMP tasks (20..80 us each) run in task waits and at barriers
        ("omp_tasks_gomp -n 10 -b 40 -u 20 (tasks in waits and at barriers), 2 threads",
         [f"{EX}/omp_tasks_gomp", "-n", "10", "-b", "40", "-u", "20"], {"OMP_NUM_THREADS": "2"},
         []),
        ("omp_tasks_llvm -n 10 -b 40 -u 20 (tasks in waits and at barriers), 2 threads",
         [f"{EX}/omp_tasks_llvm", "-n", "10", "-b", "40", "-u", "20"], {"OMP_NUM_THREADS": "2"},
         []),
        # Phoenix's way: threads created and joined at every step, no barrier
        ("fork_join -t 4 -n 5 -l 20000 -b 1000 (threads created and joined every step)",
         [f"{EX}/fork_join", "-t", "4", "-n", "5", "-l", "20000", "-b", "1000"], {}, []),
        # dense: a probe hit every few tens of microseconds
        ("barrier_imbalance -t 2 -n 3000 -d 0 -m spin (dense: barriers only)",
         [f"{EX}/barrier_imbalance", "-t", "2", "-n", "3000", "-d", "0", "-m", "spin"], {},
         []),
        ("omp_barriers_gomp -n 2000 -d 0 -m spin, 2 threads (dense: barriers only)",
         [f"{EX}/omp_barriers_gomp", "-n", "2000", "-d", "0", "-m", "spin"],
         {"OMP_NUM_THREADS": "2"}, []),
        ("mutex_contention -t 2 -k 5000 -c 2 -o 10, --trace lock (dense)",
         [f"{EX}/mutex_contention", "-t", "2", "-k", "5000", "-c", "2", "-o", "10"], {},
         ["--trace", "lock"]),
    ]
    return rows


def own_timings(text):
    """total_ns and the per-phase times the workload printed: for each
    'phase|region ... thread ... compute_ns N' key (in first-seen order), the
    slowest thread's compute time."""
    total, phases = None, {}
    for line in text.splitlines():
        w = line.split()
        if w[:1] == ["total_ns"]:
            total = int(w[1])
        elif w[:1] in (["phase"], ["region"]) and "thread" in w and "compute_ns" in w:
            key = tuple(w[:w.index("thread")])
            c = int(w[w.index("compute_ns") + 1])
            phases[key] = max(phases.get(key, 0), c)
    return total, list(phases.values())


def run_plain(cmd, env):
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return own_timings(out)


def record(cmd, env, opts, path):
    subprocess.run([SBT, "record", "-o", path] + opts + ["--"] + cmd, env=env,
                   capture_output=True, text=True, check=True)


def analyse(path, model):
    r = json.loads(subprocess.run([SBT, "report", "--format", "json", "--model", model,
                                   "--what-if", "as-is", path],
                                  capture_output=True, text=True, check=True).stdout)
    ph_m = [p["phase_ns"] for p in r["phases"]]
    ph_a = [p["approximated"]["phase_ns"] for p in r["phases"]]
    mc = r["approximated"].get("measured_costs", {})
    ta = r["approximated"]["duration_ns"]
    band = (r["approximated"].get("duration_ns_low", ta), r["approximated"].get("duration_ns_high", ta))
    return (r["duration_ns"], ta, ph_m, ph_a,
            r["approximated"]["repairs"]["count"], mc.get("hits", 0), validate.probe_cost(r), band,
            r["what_if"].get("as_is_ns", 0))


def rel(x, truth):
    return abs(x - truth) / truth if truth else 0.0


def per_phase(truth, runs):
    """median and worst relative error over phases of the per-phase medians
    (none for phases under 100 us: no meaningful relative error)"""
    if not truth or not runs or any(len(r) != len(truth) for r in runs) or min(truth) < 100000:
        return None
    med = [statistics.median(r[i] for r in runs) for i in range(len(truth))]
    errs = [rel(med[i], truth[i]) for i in range(len(truth))]
    return statistics.median(errs), max(errs)


def pct(x):
    return "n/a" if x is None else f"{100 * x:.1f} %"


def injected_slope(cmd, env, opts, rounds, res):
    """Validation by injected delay: ROUNDS recordings with twice the
    calibrated cost of a hit injected; the share (%) of T_m's growth over
    the plain recordings (res, model mr) left in T_a. None: T_m did not grow."""
    d = 2 * res[0][6]
    if not d:
        return None
    runs = [validate.record(cmd, d, opts, env) for _ in range(rounds)]
    tm0 = statistics.median(x[0] for x in res)
    ta0 = statistics.median(x[1] for x in res)
    tm1 = statistics.median(r["duration_ns"] for r in runs)
    ta1 = statistics.median(r["approximated"]["duration_ns"] for r in runs)
    return validate.share(tm1 - tm0, ta1 - ta0)


def kind_opts(opts, kind):
    return opts + (["--shim"] if kind == "shim" else ["--no-shim"])


def row(label, cmd, env_extra, opts, rounds, tmp, probes, inject):
    """Each round runs the workload plainly, then records it with each kind
    of probes: a machine that drifts over the minutes drifts for both."""
    env = dict(os.environ, **env_extra)
    plain, res = [], {k: {m: [] for m in MODELS} for k in probes}
    for i in range(rounds):
        plain.append(run_plain(cmd, env))
        for kind in probes:
            path = os.path.join(tmp, f"r{i}.sbt")
            record(cmd, env, kind_opts(opts, kind), path)
            for m in MODELS:
                res[kind][m].append(analyse(path, m))
    ts = [p[0] for p in plain]
    nph = len(plain[0][1])
    truth = [statistics.median(p[1][i] for p in plain) for i in range(nph)] if all(
        len(p[1]) == nph for p in plain) else []
    for kind in probes:
        k = res[kind]
        slope = injected_slope(cmd, env, kind_opts(opts, kind), rounds, k["mr"]) if inject else None
        print_row(label, kind, ts, truth, k, slope)


def print_row(label, kind, ts, truth, res, slope):
    t = statistics.median(ts)
    tm = statistics.median(x[0] for x in res["mr"])
    dm = rel(tm, t)
    ph_m = per_phase(truth, [x[2] for x in res["mr"]])
    timed = statistics.median(x[5] for x in res["mr"])
    cells = [label, kind + (f" ({timed:.0f} timed)" if timed else ""), f"{t / 1e6:.2f}",
             f"{tm / 1e6:.2f}", pct(dm)]
    for m in MODELS:
        ta = statistics.median(x[1] for x in res[m])
        cells += [f"{ta / 1e6:.2f}", pct(rel(ta, t))]
    pa = per_phase(truth, [x[3] for x in res["mr"]])
    cells += [f"{pct(ph_m[0])} / {pct(ph_m[1])}" if ph_m else "n/a",
              f"{pct(pa[0])} / {pct(pa[1])}" if pa else "n/a",
              str(statistics.median(x[4] for x in res["mr"])),
              "n/a" if slope is None else f"{slope:.1f} %", band_cell(t, res["mr"]),
              spread_cell(ts, res["mr"])]
    tr = statistics.median(x[8] for x in res["mr"])
    cells += [f"{tr / 1e6:.2f}", pct(rel(tr, t))]
    print("| " + " | ".join(cells) + " |", flush=True)


def band_cell(t, runs):
    """Runs whose error band (model mr) holds T, and the band's median
    half-width relative to T_a."""
    inside = sum(1 for x in runs if x[7][0] <= t <= x[7][1])
    half = statistics.median(max(x[1] - x[7][0], x[7][1] - x[1]) / x[1] if x[1] else 0
                             for x in runs)
    return f"{inside}/{len(runs)} (±{100 * half:.2f} %)"


def spread_cell(ts, runs):
    """The plain runs' spread (min..max relative to their median), and the
    recordings whose band meets that range: T is a distribution on a shared
    machine, the band one recording's."""
    t, lo, hi = statistics.median(ts), min(ts), max(ts)
    meet = sum(1 for x in runs if x[7][0] <= hi and lo <= x[7][1])
    return f"{100 * (lo - t) / t:+.1f}..{100 * (hi - t) / t:+.1f} %, {meet}/{len(runs)}"


def bench_args(ap):
    """ap's arguments, once the bench is known to run as root, from the
    repository's root (the scripts of bench/ that reuse these workloads)."""
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench: run as root")
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    return a


def rounds_parser(doc):
    """An argument parser described by doc's first line, with -r ROUNDS."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("-r", "--rounds", type=int, default=5)
    return ap


def main():
    ap = rounds_parser(__doc__)
    ap.add_argument("--only", default="", help="workloads whose label contains this")
    ap.add_argument("--probes", default="both", choices=["both", "uprobes", "shim"])
    ap.add_argument("--no-inject", action="store_true",
                    help="no validation by injected delay (the inject column)")
    a = bench_args(ap)
    print(f"== accuracy: {a.rounds} rounds, medians; times in ms; per phase: median / worst "
          "over phases (model mr) ==")
    print("| workload | probes | T | T_m | δ_m | T_a mr | δ_a mr | T_a sm | δ_a sm | T_a time "
          "| δ_a time | per-phase δ_m | per-phase δ_a | repairs | inject | T in band "
          "| T spread, band meets it | T_r | δ_r |")
    print("|" + "---|" * 19)
    probes = ["uprobes", "shim"] if a.probes == "both" else [a.probes]
    with tempfile.TemporaryDirectory() as tmp:
        for label, cmd, env, opts in workloads():
            if a.only in label:
                row(label, cmd, env, opts, a.rounds, tmp, probes, not a.no_inject)


if __name__ == "__main__":
    main()
