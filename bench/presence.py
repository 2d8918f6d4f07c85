#!/usr/bin/env python3
"""What sbt-bpf's presence alone does to a workload: the run traced for a
class of calls it never makes (no probe hit, nothing for a model to remove).

For each workload of bench/accuracy.py: T, the uninstrumented run (median of
ROUNDS runs of the workload's own total_ns); T_0, the same workload recorded
with plain uprobes for a class it does not call (--trace sem, or --trace task
for the semaphore workloads): the tracer attached, its process and context
switch programs running, its drain and calibrations, and not one probe hit;
T_m, the workload recorded as bench/accuracy.py records it (plain uprobes).
The last columns: the share of T_m's distance from T that T_0's already is
(what no cost model can remove, since no cost was paid), and the most
records a presence recording held (the threads' starts and exits: a probe
hit there would show). Plain runs and recordings alternate, round by round.

    sudo bench/presence.py [-r ROUNDS] [--only SUBSTRING]
"""
import json
import os
import statistics
import subprocess
import tempfile

import accuracy


def unused_class(label):
    """A --trace class the workload never calls."""
    return "task" if label.startswith("sem_") else "sem"


def recorded(cmd, env, opts, path):
    """The workload's own total_ns in a recording, and the recording's
    record count."""
    out = subprocess.run([accuracy.SBT, "record", "--force", "-o", path] + opts + ["--"] + cmd,
                         env=env, capture_output=True, text=True, check=True).stdout
    total, _ = accuracy.own_timings(out)
    r = json.loads(subprocess.run([accuracy.SBT, "report", "--format", "json", path],
                                  capture_output=True, text=True, check=True).stdout)
    return total, r["events"]


def row(label, cmd, env_extra, opts, rounds, tmp):
    env = dict(os.environ, **env_extra)
    # none of the row's own options: a --probe would be hit
    bare = ["--no-shim", "--trace", unused_class(label)]
    plain, idle, traced, records = [], [], [], []
    path = os.path.join(tmp, "r.sbt")
    for _ in range(rounds):
        plain.append(accuracy.run_plain(cmd, env)[0])
        t0, n = recorded(cmd, env, bare, path)
        idle.append(t0)
        records.append(n)
        traced.append(recorded(cmd, env, opts + ["--no-shim"], path)[0])
    t, t0, tm = (statistics.median(x) for x in (plain, idle, traced))
    share = "n/a" if abs(tm - t) < 1e-9 * t else f"{100 * (t0 - t) / (tm - t):.0f} %"
    print(f"| {label} | {t / 1e6:.2f} | {t0 / 1e6:.2f} | {100 * (t0 - t) / t:+.1f} % "
          f"| {tm / 1e6:.2f} | {100 * (tm - t) / t:+.1f} % | {share} | {max(records)} |",
          flush=True)


def main():
    ap = accuracy.rounds_parser(__doc__)
    ap.add_argument("--only", default="", help="workloads whose label contains this")
    a = accuracy.bench_args(ap)
    print(f"== presence: {a.rounds} rounds, medians; times in ms ==")
    print("| workload | T | T_0 (no hit) | δ_0 | T_m (uprobes) | δ_m | δ_0 / δ_m | records |")
    print("|" + "---|" * 8)
    with tempfile.TemporaryDirectory() as tmp:
        for label, cmd, env, opts in accuracy.workloads():
            if a.only in label:
                row(label, cmd, env, opts, a.rounds, tmp)


if __name__ == "__main__":
    main()
