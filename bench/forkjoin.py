#!/usr/bin/env python3
"""Fork-join steps against the program's own clocks, and what tracing them
costs: examples/fork_join (Phoenix's word count: threads created and joined
at every step, no barrier) run plain and recorded, round by round.

Per round: T, the plain run's own total_ns; T_m, the recorded run's; the
recorded run's fork-join figures as sbt-bpf reports them (sum of step spans,
idle time, load balance) beside the same figures the workload computes from
its own timestamps in that run (a step from just before its first
pthread_create to its last thread's last instruction; a thread's life from
just before its pthread_create to its last instruction). Ratios are sbt-bpf's over the
workload's.

    sudo bench/forkjoin.py [-r ROUNDS] [-t THREADS] [-n ITERATIONS] [-l LINES] [-b BYTES]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", ".output")
SBT = os.path.join(OUT, "sbt-bpf")
WORKLOAD = os.path.join(OUT, "examples", "fork_join")


def own_figures(text):
    """The workload's total_ns, and over its steps of two threads or more:
    spans, idle time, load balance (sum of mean lives over sum of longest)."""
    steps = {int(m[1]): (int(m[2]), int(m[3])) for m in
             re.finditer(r"^step (\d+) threads (\d+) create (\d+) joined \d+$", text, re.M)}
    workers = {}
    rx = r"^step (\d+) thread \d+ tid \d+ create (\d+) start \d+ end (\d+)$"
    for m in re.finditer(rx, text, re.M):
        workers.setdefault(int(m[1]), []).append((int(m[2]), int(m[3])))
    multi = [k for k, (n, _) in steps.items() if n >= 2]
    span = sum(max(e for _, e in workers[k]) - steps[k][1] for k in multi)
    idle = sum(sum(max(e for _, e in workers[k]) - e for _, e in workers[k]) for k in multi)
    lives = [[e - s for s, e in workers[k]] for k in multi]
    balance = sum(sum(x) / len(x) for x in lives) / sum(max(x) for x in lives)
    total = int(re.search(r"^total_ns (\d+)$", text, re.M)[1])
    return total, len(multi), span, idle, balance


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-r", "--rounds", type=int, default=5)
    ap.add_argument("-t", "--threads", default="4")
    ap.add_argument("-n", "--iterations", default="5")
    ap.add_argument("-l", "--lines", default="20000")
    ap.add_argument("-b", "--bytes", default="1000")
    a = ap.parse_args()
    cmd = [WORKLOAD, "-t", a.threads, "-n", a.iterations, "-l", a.lines, "-b", a.bytes]
    print(f"`{' '.join(['fork_join'] + cmd[1:])}`, {a.rounds} rounds\n")
    print("| round | T ms | T_m ms | T_m / T | steps (sbt / own) | span ms (sbt / own) | "
          "idle ms (sbt / own) | idle ratio | balance (sbt / own) |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios, overheads = [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "fj.sbt")
        for k in range(a.rounds):
            plain = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            rec = subprocess.run([SBT, "record", "-o", path, "--"] + cmd, capture_output=True,
                                 text=True, check=True).stdout
            rep = json.loads(subprocess.run([SBT, "report", "--format", "json", path],
                                            capture_output=True, text=True, check=True).stdout)
            t = own_figures(plain)[0]
            tm, steps, span, idle, balance = own_figures(rec)
            c = rep["fork_join"]["creators"][0]
            ratios.append(c["idle_ns"] / idle)
            overheads.append(tm / t)
            print(f"| {k} | {t / 1e6:.2f} | {tm / 1e6:.2f} | {tm / t:.3f} | {c['steps']} / {steps} "
                  f"| {c['span_ns'] / 1e6:.2f} / {span / 1e6:.2f} "
                  f"| {c['idle_ns'] / 1e6:.2f} / {idle / 1e6:.2f} | {c['idle_ns'] / idle:.3f} "
                  f"| {c['balance']:.3f} / {balance:.3f} |", flush=True)
    print(f"\nmedian T_m / T {statistics.median(overheads):.3f}, "
          f"median idle ratio {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
