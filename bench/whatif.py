#!/usr/bin/env python3
"""What-if predictions against real runs (issue 18 §3; doc/design.md §5.7).

Each case records a workload (default options: the probe shim), asks
`report --what-if CHANGE` for the run's time with a change, then runs the
workload changed that way without probes. Printed, medians over ROUNDS:
T (the recorded workload run without probes, its own total_ns), T_a (the
recording's approximated time), the replay as is, the prediction, the
changed workload's real time, and the prediction's error against it.

    sudo bench/whatif.py [-r ROUNDS] [--only SUBSTRING] [--report-with SBT]

--report-with: another build's sbt-bpf answers the what-ifs, on the same
recordings (a change to the replay, before and after).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

SBT = ".output/sbt-bpf"
REPORT = SBT  # the build that answers the what-ifs (--report-with)
EX = ".output/examples"
BI = f"{EX}/barrier_imbalance"


def cases():
    """(label, base command, env, change, changed command, its env[, record
    options]). {late}: the thread id of the base run's slowest thread."""
    two = [BI, "-t", "2", "-n", "20", "-d", "5", "-m", "spin"]
    four = [BI, "-t", "4", "-n", "10", "-d", "4", "-m", "sleep"]
    omp = {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive"}
    kern = [f"{EX}/omp_kernels_gomp", "-s", "10", "-n", "600"]
    fj = [BI, "-t", "2", "-n", "10", "-d", "4", "-m", "sleep", "-F", "3"]
    step = [f"{EX}/stepper", "-t", "2", "-n", "5", "-k", "100"]
    probe = ["--probe", f"{EX}/stepper:step:region"]
    return [
        ("barrier_imbalance 2 threads (5, 10 ms): balance", two, {}, "balance", two + ["-b"], {}),
        ("barrier_imbalance 2 threads: the late worker 2x faster", two, {}, "speedup={late}:2",
         two + ["-l", "50"], {}),
        ("barrier_imbalance 2 threads: on 1 thread", two, {}, "threads=1:1",
         [BI, "-t", "1", "-n", "20", "-d", "15", "-m", "spin"], {}),
        ("barrier_imbalance 4 threads sleeping (4..16 ms): balance", four, {}, "balance",
         four + ["-b"], {}),
        ("barrier_imbalance 4 threads sleeping: on 2 threads", four, {}, "threads=2:2",
         [BI, "-t", "2", "-n", "10", "-u", "13333", "-m", "sleep", "-b"], {}),
        ("barrier_imbalance -F (a team created and joined per phase, 4, 8 ms; 3 ms serial "
         "between): balance", fj, {}, "balance", fj + ["-b"], {}),
        ("barrier_imbalance -F: on 1 thread", fj, {}, "threads=1:1",
         [BI, "-t", "1", "-n", "10", "-d", "12", "-m", "sleep", "-F", "3"], {}),
        ("omp_kernels_gomp 2 threads: on 1 thread", kern, omp, "threads=1:1", kern,
         {"OMP_NUM_THREADS": "1", "OMP_WAIT_POLICY": "passive"}),
        ("stepper (40 us steps, --probe step:region): step() 2x faster", step + ["-s", "40"],
         {}, "speedup=step:2", step + ["-s", "20"], {}, probe),
        ("stepper: the late worker's step() calls moved to the other",
         step + ["-s", "40"], {}, "move=step:{late}", step + ["-s", "40", "-1"], {}, probe),
    ]


def total_ns(cmd, env):
    out = subprocess.run(cmd, env=dict(os.environ, **env), capture_output=True, text=True,
                         check=True).stdout
    return next(int(line.split()[1]) for line in out.splitlines() if line.startswith("total_ns"))


def report(path, *what_if):
    args = [REPORT, "report", "--format", "json", "--no-band"]
    for w in what_if:
        args += ["--what-if", w]
    return json.loads(subprocess.run(args + [path], capture_output=True, text=True,
                                     check=True).stdout)


def late_tid(r):
    return max(r["threads"], key=lambda t: t["compute_ns"])["tid"]


def predict(cmd, env, change, path, opts):
    subprocess.run([SBT, "record", "-q", "-o", path] + opts + ["--"] + cmd,
                   env=dict(os.environ, **env), capture_output=True, check=True)
    base = report(path)
    spec = change.format(late=late_tid(base))
    w = report(path, spec)["what_if"]
    ch = w["changes"][0]
    if ch["stalled"] or not ch["site_found"]:
        return None
    return base["approximated"]["duration_ns"], w["as_is_ns"], ch["predicted_ns"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-r", "--rounds", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--report-with", default=None, help="sbt-bpf build to report with")
    a = ap.parse_args()
    global REPORT
    if a.report_with:
        REPORT = os.path.abspath(a.report_with)
    if os.geteuid() != 0:
        sys.exit("bench: run as root")
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    print(f"== what-if predictions: {a.rounds} rounds, medians, ms ==")
    print("| case | change | T | T_a | replay | predicted | actual | error |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, cmd, env, change, changed, env2, *opts in cases():
            if a.only not in label:
                continue
            t = statistics.median(total_ns(cmd, env) for _ in range(a.rounds))
            runs = [predict(cmd, env, change, os.path.join(tmp, "w.sbt"), opts[0] if opts else [])
                    for _ in range(a.rounds)]
            runs = [x for x in runs if x]
            actual = statistics.median(total_ns(changed, env2) for _ in range(a.rounds))
            if not runs:
                print(f"| {label} | {change} | {t / 1e6:.2f} | stalled | | | | |", flush=True)
                continue
            ta, asis, pred = (statistics.median(x[i] for x in runs) for i in range(3))
            print(f"| {label} | {change} | {t / 1e6:.2f} | {ta / 1e6:.2f} | {asis / 1e6:.2f} "
                  f"| {pred / 1e6:.2f} | {actual / 1e6:.2f} | {100 * (pred - actual) / actual:+.1f} % |",
                  flush=True)


if __name__ == "__main__":
    main()
