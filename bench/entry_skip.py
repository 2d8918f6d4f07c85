#!/usr/bin/env python3
"""What probing past a function's first instructions saves (lib/entry_skip.h):
each workload run plain, then recorded with plain uprobes (--no-shim) three
ways: as sbt-bpf probes by default (past an endbr64, or past a plain
prologue onto the first instruction the kernel emulates), with
SBT_ENTRY_SKIP=endbr (past an endbr64 only), and with SBT_ENTRY_SKIP=0 (every
probe on the function's first instruction), the four alternating round by
round. Prints the medians of the workload's own total_ns and each
recording's overhead (T_m - T), and the overheads' ratios to the default's,
one markdown table.

    sudo bench/entry_skip.py [-r ROUNDS]
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy  # noqa: E402

EX = accuracy.EX
PLACEMENTS = (("default", None), ("endbr", "endbr"), ("first", "0"))


def workloads():
    return [
        ("mutex_contention -t 2 -k 5000 -c 2 -o 10, --trace lock (dense)",
         [f"{EX}/mutex_contention", "-t", "2", "-k", "5000", "-c", "2", "-o", "10"],
         ["--trace", "lock"]),
        ("cond_barrier -t 2 -n 100 -c 20000 -s 5, --trace all",
         [f"{EX}/cond_barrier", "-t", "2", "-n", "100", "-c", "20000", "-s", "5"],
         ["--trace", "all"]),
        ("omp_barriers_gomp -n 2000 -d 0 -m spin (dense GOMP_barrier)",
         [f"{EX}/omp_barriers_gomp", "-n", "2000", "-d", "0", "-m", "spin"], []),
        ("omp_for_gomp -r 2000 -i 2 -d 0 (empty regions)",
         [f"{EX}/omp_for_gomp", "-r", "2000", "-i", "2", "-d", "0"], []),
        ("omp_kernels_gomp_cet -s 10 -n 400 (built for CET)",
         [f"{EX}/omp_kernels_gomp_cet", "-s", "10", "-n", "400"], []),
    ]


def traced_total(cmd, sbt_args, env, tmp):
    """The workload's own total_ns, recorded with plain uprobes."""
    out = accuracy.subprocess.run([accuracy.SBT, "record", "--no-shim", "-o",
                                   os.path.join(tmp, "e.sbt")] + sbt_args + ["--"] + cmd,
                                  env=env, capture_output=True, text=True, check=True).stdout
    return accuracy.own_timings(out)[0]


def env_of(base, value):
    env = dict(base)
    env.pop("SBT_ENTRY_SKIP", None)
    if value is not None:
        env["SBT_ENTRY_SKIP"] = value
    return env


def main():
    a = accuracy.bench_args(accuracy.rounds_parser(__doc__))
    env = dict(os.environ, OMP_NUM_THREADS="2")
    print(f"== probes past the prologue: {a.rounds} rounds, medians, ms ==")
    print("| workload | T plain | T_m default | T_m past endbr64 only | T_m first instruction "
          "| overhead default | overhead endbr only | overhead first | endbr / default "
          "| first / default |")
    print("|" + "---|" * 10)
    with accuracy.tempfile.TemporaryDirectory() as tmp:
        for label, cmd, sbt_args in workloads():
            t, m = [], {name: [] for name, _ in PLACEMENTS}
            for _ in range(a.rounds):
                t.append(accuracy.run_plain(cmd, env)[0])
                for name, value in PLACEMENTS:
                    m[name].append(traced_total(cmd, sbt_args, env_of(env, value), tmp))
            mt = statistics.median(t) / 1e6
            mm = {name: statistics.median(v) / 1e6 for name, v in m.items()}
            over = {name: v - mt for name, v in mm.items()}
            ratios = [f"{over[n] / over['default']:.2f}" if over["default"] > 0 else "n/a"
                      for n in ("endbr", "first")]
            print(f"| {label} | {mt:.2f} | {mm['default']:.2f} | {mm['endbr']:.2f} "
                  f"| {mm['first']:.2f} | {over['default']:+.2f} | {over['endbr']:+.2f} "
                  f"| {over['first']:+.2f} | {ratios[0]} | {ratios[1]} |", flush=True)


if __name__ == "__main__":
    main()
