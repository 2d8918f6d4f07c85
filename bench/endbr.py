#!/usr/bin/env python3
"""What probing past a function's endbr64 saves (user/resolve/probes.c,
probes__endbr_skip): each workload run plain, recorded with plain uprobes
(--no-shim) as sbt-bpf probes by default, and recorded the same with
SBT_ENDBR_SKIP=0 (every probe on the endbr64, single-stepped), the three
alternating round by round. Prints the medians of the workload's own
total_ns and the probes' overhead (T_m - T) of each recording kind, and
their ratio, one markdown table.

    sudo bench/endbr.py [-r ROUNDS]
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy  # noqa: E402

EX = accuracy.EX


def workloads():
    return [
        ("omp_for_gomp -r 2000 -i 2 -d 0 (empty regions)",
         [f"{EX}/omp_for_gomp", "-r", "2000", "-i", "2", "-d", "0"]),
        ("omp_kernels_gomp_cet -s 10 -n 400 (built for CET)",
         [f"{EX}/omp_kernels_gomp_cet", "-s", "10", "-n", "400"]),
        ("omp_kernels_llvm_cet -s 10 -n 400 (built for CET)",
         [f"{EX}/omp_kernels_llvm_cet", "-s", "10", "-n", "400"]),
        ("omp_tasks_gomp -n 10 -b 40 -u 20", [f"{EX}/omp_tasks_gomp", "-n", "10", "-b", "40",
                                              "-u", "20"]),
    ]


def traced_total(cmd, env, tmp):
    """The workload's own total_ns, recorded with plain uprobes."""
    out = accuracy.subprocess.run([accuracy.SBT, "record", "--no-shim", "-o",
                                   os.path.join(tmp, "e.sbt"), "--"] + cmd, env=env,
                                  capture_output=True, text=True, check=True).stdout
    return accuracy.own_timings(out)[0]


def main():
    a = accuracy.bench_args(accuracy.rounds_parser(__doc__))
    env = dict(os.environ, OMP_NUM_THREADS="2")
    noskip = dict(env, SBT_ENDBR_SKIP="0")
    print(f"== probes past endbr64: {a.rounds} rounds, medians, ms ==")
    print("| workload | T plain | T_m past endbr64 | T_m on endbr64 | overhead past | overhead on "
          "| on / past |")
    print("|" + "---|" * 7)
    with accuracy.tempfile.TemporaryDirectory() as tmp:
        for label, cmd in workloads():
            t, past, on = [], [], []
            for _ in range(a.rounds):
                t.append(accuracy.run_plain(cmd, env)[0])
                past.append(traced_total(cmd, env, tmp))
                on.append(traced_total(cmd, noskip, tmp))
            mt, mp, mo = (statistics.median(x) / 1e6 for x in (t, past, on))
            ratio = f"{(mo - mt) / (mp - mt):.2f}" if mp > mt else "n/a"
            print(f"| {label} | {mt:.2f} | {mp:.2f} | {mo:.2f} | {mp - mt:+.2f} | {mo - mt:+.2f} "
                  f"| {ratio} |", flush=True)


if __name__ == "__main__":
    main()
