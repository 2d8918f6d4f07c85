#!/usr/bin/env python3
"""Check sbt-bpf's MPI view (report --format json: the jobs document's "mpi")
against what examples/mpi_ranks.c measured in the same run.

usage: mpi_checks.py REPORT.json WORKLOAD_OUTPUT NSTEPS LATE COMM [attached]

Every rank printed "rank R pid P size N" and, around its K-th collective,
"coll R K NAME arrive_ns A depart_ns D" (CLOCK_MONOTONIC, read just before
the call and just after it). The probes fire inside the call, so each rank's
arrival in an episode lies in [A, D] of its K-th window and its departure in
[arrival, D]: exact bounds, whatever the load. From them:
  - the episodes are the workload's (launched: exactly 2 NSTEPS, complete;
    attached: each episode's ranks in the windows of one K);
  - the late rank of each barrier is LATE, the rank the run made late;
  - each rank's wait, summed, is the workload's own (last arrival - its
    arrival) within the slack the windows leave (probe arrival - A).
"""
import json
import sys
from collections import defaultdict


def fail(msg):
    print(f"mpi_checks: {msg}", file=sys.stderr)
    sys.exit(1)


def workload(path):
    pid_of, windows = {}, defaultdict(dict)
    for line in open(path):
        f = line.split()
        if len(f) == 6 and f[0] == "rank" and f[2] == "pid":
            pid_of[int(f[1])] = int(f[3])
        elif len(f) == 8 and f[0] == "coll":
            windows[int(f[1])][int(f[2])] = (f[3], int(f[5]), int(f[7]))
    return pid_of, windows


def window_of(windows, rank, arrival):
    """The K whose window holds the probe's arrival, or None."""
    for k, (_, a, d) in windows[rank].items():
        if a <= arrival <= d:
            return k
    return None


def main():
    report, wl_path, nsteps, late, comm = sys.argv[1:6]
    attached = sys.argv[6:] == ["attached"]
    nsteps, late = int(nsteps), int(late)
    d = json.load(open(report))
    if "mpi" not in d:
        fail(f"no MPI view in the report (keys {sorted(d)})")
    m = d["mpi"]
    pid_of, windows = workload(wl_path)
    size = len(pid_of)
    if size < 2 or any(len(windows[r]) != 2 * nsteps for r in pid_of):
        fail(f"workload output incomplete: {size} ranks, "
             f"{[len(windows[r]) for r in sorted(pid_of)]} windows")

    ranks = {r["rank"]: r for r in m["ranks"]}
    if sorted(ranks) != sorted(pid_of):
        fail(f"ranks {sorted(ranks)}, the run had {sorted(pid_of)}")
    for r, pid in pid_of.items():
        if ranks[r]["pid"] != pid:
            fail(f"rank {r} is pid {pid}, reported {ranks[r]['pid']}")
    comms = [c for c in m["communicators"] if c["name"] == comm]
    if len(comms) != 1 or len(m["communicators"]) != 1:
        fail(f"communicators {m['communicators']}, expected one named {comm!r}")
    c = comms[0]
    eps = [e for e in m["episodes"] if e["communicator"] == comm]
    if c["ranks"] != size or c["episodes"] != len(eps):
        fail(f"communicator {c}, {len(eps)} episodes listed, {size} ranks")
    if not attached and (len(eps) != 2 * nsteps or c["partial"]):
        fail(f"{len(eps)} episodes ({c['partial']} partial), the run made {2 * nsteps}")

    wait_p = defaultdict(int)   # the probes' waits, complete episodes
    wait_w = defaultdict(int)   # the workload's, same episodes
    slack = defaultdict(int)
    barriers = 0
    for e in eps:
        ks = set()
        for a in e["arrivals"]:
            k = window_of(windows, a["rank"], a["arrival_ns"])
            if k is None:
                fail(f"rank {a['rank']} arrival {a['arrival_ns']} in no window of its own: {e}")
            name, wa, wd = windows[a["rank"]][k]
            if not a["arrival_ns"] <= a["departure_ns"] <= wd:
                fail(f"rank {a['rank']} departure outside [{a['arrival_ns']}, {wd}]: {e}")
            ks.add(k)
        if len(ks) != 1:
            fail(f"an episode spans the workload's collectives {sorted(ks)}: {e}")
        k = ks.pop()
        if not attached and k != e["index"]:
            fail(f"episode {e['index']} is the workload's collective {k}")
        name = windows[e["arrivals"][0]["rank"]][k][0]
        if e["call"] != name or e["mixed"]:
            fail(f"episode {e['index']} call {e['call']}, the workload called {name}")
        if e["ranks"] < size:
            if not attached:
                fail(f"partial episode {e}")
            continue
        last_w = max(windows[r][k][1] for r in pid_of)
        for a in e["arrivals"]:
            r = a["rank"]
            wait_p[r] += a["wait_ns"]
            wait_w[r] += last_w - windows[r][k][1]
            # the probe's arrival lags the workload's clock read by up to
            # this, the last rank's and its own
            slack[r] += max(x["arrival_ns"] - windows[x["rank"]][k][1] for x in e["arrivals"])
        if name == "MPI_Barrier":
            barriers += 1
            if e["late_rank"] != late:
                fail(f"barrier episode {e['index']}: late rank {e['late_rank']}, "
                     f"the run made {late} late: {e}")
    if barriers < (2 if attached else nsteps):
        fail(f"only {barriers} complete barrier episodes")
    for r in pid_of:
        err = abs(wait_p[r] - wait_w[r])
        print(f"rank {r}: wait {wait_p[r] / 1e6:.3f} ms, the workload's "
              f"{wait_w[r] / 1e6:.3f} ms, slack {slack[r] / 1e6:.3f} ms")
        if err > slack[r] + 1000:
            fail(f"rank {r}: wait {wait_p[r]} vs the workload's {wait_w[r]} "
                 f"(beyond the windows' slack {slack[r]})")
    if ranks[late]["late"] < barriers:
        fail(f"rank {late} late {ranks[late]['late']} times, in {barriers} barriers")
    # the late rank waits least: everyone else waits for it at each barrier
    if any(wait_p[late] >= wait_p[r] for r in pid_of if r != late):
        fail(f"the late rank waited as long as another: {dict(wait_p)}")
    if not attached and m["unmatched_receives"]:
        fail(f"{m['unmatched_receives']} receives not paired")


if __name__ == "__main__":
    main()
