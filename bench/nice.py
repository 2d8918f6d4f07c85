#!/usr/bin/env python3
"""sbt-bpf's drain at normal priority and at `--nice 19`, side by side: for
each bench/accuracy.py workload whose label contains one of the given
substrings, ROUNDS rounds of a plain run (the workload's own total_ns) and
two recordings per kind of probes (plain uprobes, the shim), one without
and one with --nice 19. Prints T, and for each setting T_m, δ_m, T_a, δ_a
(medians), the records lost and the time sbt-bpf took the job's threads'
CPUs (the PREEMPTED windows), one markdown table.

    sudo bench/nice.py [-r ROUNDS] 'LABEL|LABEL'
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
SETTINGS = ((), ("--nice", "19"))


def facts(path):
    """(T_m, T_a, lost, tracer ns) of a recording."""
    r = json.loads(subprocess.run([accuracy.SBT, "report", "--format", "json", "--no-band", path],
                                  capture_output=True, text=True, check=True).stdout)
    a = r["approximated"]
    return r["duration_ns"], a["duration_ns"], r["drops"]["total"], a["tracer_preempted"]["ns"]


def main():
    ap = accuracy.rounds_parser(__doc__)
    ap.add_argument("only", help="'|'-separated substrings of workload labels")
    a = accuracy.bench_args(ap)
    print("| workload | probes | T | T_m | δ_m | T_a | δ_a | lost | sbt-bpf ms "
          "| T_m --nice 19 | δ_m | T_a | δ_a | lost | sbt-bpf ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, cmd, env, opts in accuracy.workloads():
            if not any(o in label for o in a.only.split("|")):
                continue
            env = dict(os.environ, **env)
            plain, res = [], {(k, s): [] for k in KINDS for s in range(len(SETTINGS))}
            for i in range(a.rounds):
                plain.append(accuracy.run_plain(cmd, env)[0])
                for k in KINDS:
                    for s, extra in enumerate(SETTINGS):
                        path = os.path.join(tmp, f"{k}{s}.sbt")
                        accuracy.record(cmd, env, accuracy.kind_opts(opts, k) + list(extra), path)
                        res[(k, s)].append(facts(path))
            t = statistics.median(plain)
            for k in KINDS:
                cells = [label, k, f"{t / 1e6:.2f}"]
                for s in range(len(SETTINGS)):
                    runs = res[(k, s)]
                    tm = statistics.median(r[0] for r in runs)
                    ta = statistics.median(r[1] for r in runs)
                    cells += [f"{tm / 1e6:.2f}", accuracy.pct(accuracy.rel(tm, t)),
                              f"{ta / 1e6:.2f}", accuracy.pct(accuracy.rel(ta, t)),
                              str(sum(r[2] for r in runs)),
                              f"{statistics.median(r[3] for r in runs) / 1e6:.2f}"]
                print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
