#!/usr/bin/env bats
# The program's outer iteration (doc/design.md §5.6) of real runs whose loop is
# known: the period, the count against what the workload did, the time against
# the workload's own clock.
load helpers

# omp_kernels -s 12: twelve time steps of four parallel regions (and the
# barriers inside the fourth); each step is one iteration.
@test "iterations: omp_kernels' time steps are the period, one iteration per step" {
	OMP_NUM_THREADS=2 run "$SBT" record -o "$T/k.sbt" -- "$EX/omp_kernels_gomp" -s 12 -n 600
	[ "$status" -eq 0 ]
	"$SBT" report --format json "$T/k.sbt" >"$T/k.json"
	"$SBT" report "$T/k.sbt" >"$T/k.txt"
	python3 - "$T/k.json" "$T/k.txt" <<'PY'
import json, sys
r, txt = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
procs = r["iterations"]["processes"]
assert len(procs) == 1, procs
p = procs[0]
assert p["count"] == 12 and p["measured"]["timed"] == 11, p
# the period begins at the step's first region and holds the four regions,
# each known by its call site or its body's line (jacobi() is inlined into
# main: gcc's line table may put its region's call at main's line)
where = p["period_where"]
assert where[0].endswith("omp_kernels.c:136)"), where
sites = {s["id"]: s for s in r["sites"]}
named = [sites[i]["call_site"] + " " + sites[i]["name"] for i in p["period"]]
for line in (136, 161, 181, 199):
    assert sum(f"omp_kernels.c:{line})" in n for n in named) == 1, (line, named)
# every site of the period ran once per step
for i in p["period"]:
    assert sites[i]["episodes"] == 12, sites[i]
m = p["measured"]
assert 0 < m["min_ms"] <= m["mean_ms"] <= m["max_ms"], m
assert "Iterations" in txt and "12 iterations (11 timed)" in txt
PY
}

# barrier_imbalance: one barrier, PHASES times; each phase is an iteration.
# Its phases begin when the workload's threads start computing (arrive_ns -
# compute_ns, its own clock): the mean iteration is the time from the first
# phase's start to the last one's over 10, and each end may differ from the
# probes' by the preemption between the barrier's return and the workload's
# clock read on a loaded 2-core machine (up to a few ms): 1 ms over 10.
@test "iterations: barrier_imbalance's phases, mean time within its own clock" {
	run "$SBT" record -o "$T/b.sbt" -- "$EX/barrier_imbalance" -t 2 -n 11 -d 5 -m sleep
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/b.sbt" >"$T/b.json"
	python3 - "$T/b.json" "$T/wl.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
start = {}
for line in open(sys.argv[2]):
    f = line.split()
    if f and f[0] == "phase":
        kv = dict(zip(f[::2], f[1::2]))
        s = int(kv["arrive_ns"]) - int(kv["compute_ns"])
        start[int(kv["phase"])] = min(start.get(int(kv["phase"]), s), s)
assert sorted(start) == list(range(11)), start
p = r["iterations"]["processes"][0]
assert len(p["period"]) == 1 and p["count"] == 11, p
m = p["measured"]
assert m["timed"] == 10, m
theirs = (start[10] - start[0]) / 10 / 1e6
assert abs(m["mean_ms"] - theirs) <= 1.0, (m, theirs)
PY
}

# --iterations N on a terminal (script(1) gives one): the status line says
# which iteration the loop is in, never past N nor going back, and the time
# left; the summary counts every step.
@test "iterations: --iterations 100, the status line's iteration of omp_kernels' steps" {
	command -v script >/dev/null || skip "no script(1) to give sbt-bpf a terminal"
	OMP_NUM_THREADS=2 script -qfec "$SBT -q --iterations 100 -- $EX/omp_kernels_gomp -s 100 -n 1200" \
		/dev/null >"$T/tty.out" 2>&1
	python3 - "$T/tty.out" <<'PY'
import re, sys
s = open(sys.argv[1], errors="replace").read()
ks = [(int(k), float(t)) for k, t in re.findall(r"iteration (\d+) of 100, ([0-9.]+) s left", s)]
assert ks, s[-2000:]
assert all(1 <= k <= 100 and t >= 0 for k, t in ks), ks
assert all(a[0] <= b[0] for a, b in zip(ks, ks[1:])), ks
assert re.search(r"period of \d+ sites, 100 iterations \(99 timed\)", s), s[-2000:]
PY
}

# --iterations VARIABLE: the bound read from the program's own variable
# (omp_kernels' `steps`, set from -s after the tracer attached); a name that
# is no variable of it: said once, and tracing goes on.
@test "iterations: --iterations steps reads the loop bound from the program" {
	command -v script >/dev/null || skip "no script(1) to give sbt-bpf a terminal"
	OMP_NUM_THREADS=2 script -qfec "$SBT -q --iterations steps -- $EX/omp_kernels_gomp -s 100 -n 1200" \
		/dev/null >"$T/tty.out" 2>&1
	python3 - "$T/tty.out" <<'PY'
import re, sys
s = open(sys.argv[1], errors="replace").read()
ks = [(int(k), int(n)) for k, n in re.findall(r"iteration (\d+) of (\d+), [0-9.]+ s left", s)]
assert ks, s[-2000:]
assert all(n == 100 and 1 <= k <= 100 for k, n in ks), ks
PY
	OMP_NUM_THREADS=2 script -qfec "$SBT -q --iterations no_such_bound -- $EX/omp_kernels_gomp -s 100 -n 1200" \
		/dev/null >"$T/tty2.out" 2>&1
	grep -q "iterations no_such_bound: .*has no variable 'no_such_bound'" "$T/tty2.out"
	[ "$(grep -c "has no variable" "$T/tty2.out")" -eq 1 ]
	grep -q "period of [0-9]* sites, 100 iterations" "$T/tty2.out"
	# a number that is no count, a name that is no identifier
	run "$SBT" --iterations 0 -- true
	[ "$status" -eq 2 ]
	run "$SBT" --iterations 12x -- true
	[ "$status" -eq 2 ]
}

# SelfAnalyzer's speedup (doc/design.md §5.6): the same work per phase on one
# thread and on three, each run's own total_ns the truth.
@test "report --baseline: the iteration's speedup and Amdahl's serial fraction against the runs' own times" {
	run "$SBT" record -o "$T/one.sbt" -- "$EX/barrier_imbalance" -t 1 -n 10 -d 12 -m sleep
	[ "$status" -eq 0 ]
	echo "$output" >"$T/one.out"
	run "$SBT" record -o "$T/three.sbt" -- "$EX/barrier_imbalance" -t 3 -n 10 -d 2 -b -m sleep
	[ "$status" -eq 0 ]
	echo "$output" >"$T/three.out"
	"$SBT" report --format json --baseline "$T/one.sbt" "$T/three.sbt" >"$T/b.json"
	"$SBT" report --baseline "$T/one.sbt" "$T/three.sbt" >"$T/b.txt"
	python3 - "$T/b.json" "$T/b.txt" "$T/one.out" "$T/three.out" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read()
def total(path):
    return next(int(l.split()[1]) for l in open(path) if l.startswith("total_ns"))
b = r["baseline"]
assert (b["threads"], b["here_threads"], b["by"]) == (1, 3, "iteration"), b
# the workloads' own: 10 phases each, 12 ms of work on one thread, 3 x 4 ms
# (balanced) on three
want = total(sys.argv[3]) / total(sys.argv[4])
got = b["measured"]["speedup"]
assert abs(got - want) <= 0.05 * want, (got, want)
# Amdahl for 1 and 3 threads from the same two times
ra = total(sys.argv[3]) / total(sys.argv[4])
f = (1 - ra / 3) / (ra - ra / 3 - 1 + 1)
assert abs(b["measured"]["serial_fraction"] - f) <= 0.05, (b, f)
assert abs(b["approximated"]["speedup"] - got) <= 0.02 * got, b
m = re.search(r"^Against the baseline \S+ \(1 threads; here 3\), by outer iteration:\n"
              r"    measured: [0-9.]+ ms here, [0-9.]+ ms there: speedup ([0-9.]+); "
              r"Amdahl serial fraction ([0-9.-]+)", txt, re.M)
assert m and abs(float(m.group(1)) - got) < 0.001, txt
PY
	# a baseline that is not there: an error, no report
	run "$SBT" report --baseline "$T/none.sbt" "$T/three.sbt"
	[ "$status" -ne 0 ]
	[[ "$output" == *"none.sbt"* ]]
}

# SelfAnalyzer within one run: the team changes from region to region
# (num_threads 1, 2, 1, 2, ...) over the same work; the speedup by team size
# against the instances' own times in that run (the last one begun is not
# timed, in either).
@test "iterations by team size: speedup and Amdahl's serial fraction against the run's own region times" {
	local b
	for b in gomp llvm; do
		run "$SBT" record -o "$T/$b.sbt" -- "$EX/omp_resize_$b" -s 6 -n 32 -u 200 -t 2 -m sleep
		[ "$status" -eq 0 ]
		echo "$output" >"$T/$b.out"
		"$SBT" report --format json "$T/$b.sbt" >"$T/$b.json"
		"$SBT" report "$T/$b.sbt" >"$T/$b.txt"
		python3 - "$T/$b.json" "$T/$b.out" "$T/$b.txt" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
# each instance: its team, and its start to the next one's (the last: none)
own = [(int(l.split()[4]), int(l.split()[6])) for l in open(sys.argv[2]) if l.startswith("resize ")]
assert len(own) == 12, own
timed = [(t, b1 - b0) for (t, b0), (_, b1) in zip(own, own[1:])]
mean = {t: sum(ns for tt, ns in timed if tt == t) / sum(1 for tt, _ in timed if tt == t) for t in (1, 2)}
it = r["iterations"]["processes"][0]
teams = {t["threads"]: t for t in it["by_threads"]}
assert set(teams) == {1, 2} and teams[1]["timed"] == 6 and teams[2]["timed"] == 5, teams
for t in (1, 2):
    # from phase start (the fork) to phase start, as from start to start
    assert abs(teams[t]["mean_ms"] * 1e6 - mean[t]) <= 0.05 * mean[t], (t, teams[t], mean[t])
s = it["speedup_measured"]
want = mean[1] / mean[2]
assert (s["from_threads"], s["to_threads"]) == (1, 2), s
assert abs(s["speedup"] - want) <= 0.07 * want, (s, want)
f = (1 - want / 2) / (want - want / 2)
assert abs(s["serial_fraction"] - f) <= 0.07, (s, f)
assert re.search(r"^      measured: 1 -> 2 threads, speedup [0-9.]+; Amdahl serial fraction", open(sys.argv[3]).read(), re.M)
PY
	done
}
