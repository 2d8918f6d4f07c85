#!/usr/bin/env python3
"""Two builds' approximations of the same recordings: for each bench/accuracy.py
workload whose label contains one of the given substrings, ROUNDS rounds of a
plain run (the workload's own total_ns) and one recording per kind of probes
(plain uprobes, the shim), each recording analysed by `report` of both builds.
Prints T, T_m and each build's T_a and δ_a (medians), one markdown table: a
model change measured on identical inputs, free of the run-to-run spread.

    sudo bench/compare_builds.py [-r ROUNDS] --before SBT --after SBT 'LABEL|LABEL'
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy  # noqa: E402  (its workloads and run helpers)

KINDS = ("uprobes", "shim")


def approximated(sbt, path):
    """(T_m, T_a) ns of a recording as one build reports it."""
    r = json.loads(subprocess.run([sbt, "report", "--format", "json", "--no-band", path],
                                  capture_output=True, text=True, check=True).stdout)
    return r["duration_ns"], r["approximated"]["duration_ns"]


def rounds_of(cmd, env, opts, rounds, tmp, builds):
    plain, res = [], {k: [] for k in KINDS}
    for i in range(rounds):
        plain.append(accuracy.run_plain(cmd, env)[0])
        for k in KINDS:
            path = os.path.join(tmp, f"{k}{i}.sbt")
            accuracy.record(cmd, env, accuracy.kind_opts(opts, k), path)
            res[k].append([approximated(b, path) for b in builds])
    return statistics.median(plain), res


def main():
    ap = accuracy.rounds_parser(__doc__)
    ap.add_argument("--before", required=True, help="the sbt-bpf binary of the first build")
    ap.add_argument("--after", required=True, help="the sbt-bpf binary of the second build")
    ap.add_argument("only", help="'|'-separated substrings of workload labels")
    a = accuracy.bench_args(ap)
    builds = (a.before, a.after)
    print("| workload | probes | T | T_m | T_a before | δ before | T_a after | δ after |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, cmd, env, opts in accuracy.workloads():
            if not any(o in label for o in a.only.split("|")):
                continue
            t, res = rounds_of(cmd, dict(os.environ, **env), opts, a.rounds, tmp, builds)
            for k in KINDS:
                tm = statistics.median(r[1][0] for r in res[k])
                cells = [label, k, f"{t / 1e6:.2f}", f"{tm / 1e6:.2f}"]
                for b in range(2):
                    ta = statistics.median(r[b][1] for r in res[k])
                    cells += [f"{ta / 1e6:.2f}", accuracy.pct(accuracy.rel(ta, t))]
                print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
