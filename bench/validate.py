#!/usr/bin/env python3
"""Validation by injected delay (issue 17): does the approximation remove a
probe cost it is told of?

Runs the command under `sbt-bpf record --inject-delay D` with D = 0, 1x and
2x the calibrated cost of a probe hit (or the --delay values given): every
uprobe hit then spins D ns more in its BPF program and the approximation
charges D more per hit. The approximated run time T_a should not move while
the measured T_m grows: the share of T_m's growth left in T_a (0 % is
perfect) is the slope this prints, for the whole run and per phase (the
k-th phase of each run; the five with the largest share). Needs no run
without probes, so it also checks an approximation where no such run can
be made. Medians over ROUNDS runs per delay.

    sudo bench/validate.py [-r ROUNDS] [--delay NS,NS] [--record-opts "OPTS"] -- CMD [ARG...]
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

SBT = os.environ.get("SBT", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                         ".output", "sbt-bpf"))


def record(cmd, delay, opts, env=None):
    """One recording with delay ns injected: its report as JSON."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "v.sbt")
        rec = [SBT, "record", "-q", "-o", path, "--inject-delay", str(delay)] + opts + \
            ["--"] + cmd
        r = subprocess.run(rec, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           env=env)
        if r.returncode != 0 or not os.path.exists(path):
            sys.exit(f"validate: {' '.join(rec)} failed ({r.returncode}): {r.stderr.strip()}")
        rep = subprocess.run([SBT, "report", "--format", "json", path], capture_output=True,
                             text=True)
        if rep.returncode != 0:
            sys.exit(f"validate: report failed: {rep.stderr.strip()}")
        return json.loads(rep.stdout)


def probe_cost(rep):
    """The calibrated cost of a probe hit in a run: the median over its
    uprobes of the mean of entry and return (the futex tracepoints, probe 0,
    are not spun)."""
    costs = [(c["entry_ns"] + c["exit_ns"]) / 2 for c in rep.get("calibration", [])
             if c["probe"] > 0]
    return int(statistics.median(costs)) if costs else 0


def phase_spans(rep):
    """(measured, approximated) span of each complete phase, by index."""
    out = {}
    for p in rep.get("phases", []):
        a = p.get("approximated") or {}
        if p.get("partial") or "end_ns" not in a:
            continue
        out[p["index"]] = (p["end_ns"] - p["start_ns"], a["end_ns"] - a["start_ns"])
    return out


def share(d_m, d_a):
    """What share of T_m's growth T_a kept, in %; None when T_m did not grow."""
    return 100.0 * d_a / d_m if d_m > 0 else None


def validate(cmd, rounds=3, delays=None, opts=(), env=None, log=sys.stderr):
    """{delay: [reports]} and the delays used (0 first)."""
    runs = {0: [record(cmd, 0, list(opts), env) for _ in range(rounds)]}
    if not delays:
        c = statistics.median(probe_cost(r) for r in runs[0])
        if not c:
            sys.exit("validate: no calibrated probe cost in the trace (give --delay)")
        delays = [c, 2 * c]
    for d in delays:
        print(f"validate: {rounds} run(s) with {d} ns injected per hit", file=log)
        runs[d] = [record(cmd, d, list(opts), env) for _ in range(rounds)]
    return runs, [0] + list(delays)


def summary(runs, delays):
    """Per delay: (median T_m, median T_a) in ns; and the slope (% of T_m's
    growth left in T_a) from 0 to the largest delay."""
    med = {d: (statistics.median(r["duration_ns"] for r in runs[d]),
               statistics.median(r["approximated"]["duration_ns"] for r in runs[d]))
           for d in delays}
    top = delays[-1]
    return med, share(med[top][0] - med[0][0], med[top][1] - med[0][1])


def phase_slopes(runs, delays):
    """(share %, index, growth of T_m ns) per phase present in every run,
    from 0 to the largest delay, largest share first."""
    top = delays[-1]
    spans0 = [phase_spans(r) for r in runs[0]]
    spans1 = [phase_spans(r) for r in runs[top]]
    common = set.intersection(*(set(s) for s in spans0 + spans1)) if spans0 else set()
    out = []
    for k in common:
        m0 = statistics.median(s[k][0] for s in spans0)
        a0 = statistics.median(s[k][1] for s in spans0)
        m1 = statistics.median(s[k][0] for s in spans1)
        a1 = statistics.median(s[k][1] for s in spans1)
        sh = share(m1 - m0, a1 - a0)
        if sh is not None:
            out.append((sh, k, m1 - m0))
    return sorted(out, reverse=True)


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    cut = argv.index("--")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-r", "--rounds", type=int, default=3)
    ap.add_argument("--delay", default="", help="NS,NS: the delays instead of 1x and 2x")
    ap.add_argument("--record-opts", default="", help="more options for sbt-bpf record")
    a = ap.parse_args(argv[:cut])
    cmd = argv[cut + 1:]
    if not cmd or a.rounds < 1:
        sys.exit("validate: a command after --, and -r 1 or more")
    try:
        delays = [int(x) for x in a.delay.split(",")] if a.delay else None
    except ValueError:
        sys.exit(f"validate: --delay '{a.delay}': ns, comma-separated")
    if delays and any(d <= 0 for d in delays):
        sys.exit("validate: --delay values must be above 0")
    runs, delays = validate(cmd, a.rounds, sorted(delays) if delays else None,
                            shlex.split(a.record_opts))
    med, slope = summary(runs, delays)
    print("| injected ns/hit | T_m ms | T_a ms | T_m growth ms | T_a growth ms |")
    print("|---|---|---|---|---|")
    for d in delays:
        m, ap_ = med[d]
        print(f"| {d} | {m / 1e6:.3f} | {ap_ / 1e6:.3f} | {(m - med[0][0]) / 1e6:.3f} | "
              f"{(ap_ - med[0][1]) / 1e6:.3f} |")
    print(f"slope: {'n/a (T_m did not grow)' if slope is None else f'{slope:.1f} %'} of the "
          f"measured growth left in the approximation (0 % is perfect)")
    worst = phase_slopes(runs, delays)[:5]
    if worst:
        print("phases with the largest share left: " +
              ", ".join(f"#{k} {sh:.0f} % of {dm / 1e3:.1f} us" for sh, k, dm in worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
