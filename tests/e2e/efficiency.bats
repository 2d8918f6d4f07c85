#!/usr/bin/env bats
# Efficiencies and wait states (doc/design.md §5.5) of real runs, against the
# workloads' own timings (tests/e2e/efficiency_checks.py says how close is
# close) and against the report's own numbers.
load helpers
ECHECK="python3 $ROOT/tests/e2e/efficiency_checks.py"

@test "efficiency: barrier_imbalance recorded, load balance and efficiencies within its own timings" {
	run "$SBT" record -o "$T/b.sbt" -- "$EX/barrier_imbalance" -t 4 -n 5 -d 10 -m sleep
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/b.sbt" >"$T/b.json"
	run $ECHECK imbalance "$T/b.json" "$T/wl.out" "$T/b.sbt" 5
	echo "$output"
	[ "$status" -eq 0 ]
	# the text summary shows the JSON's numbers
	"$SBT" report "$T/b.sbt" >"$T/b.txt"
	python3 - "$T/b.json" "$T/b.txt" <<'PY'
import json, re, sys
r, txt = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
# printed to 3 decimals there, to 6 significant digits here
def row(scope, e, a):
    want = [v[k] for v in (e, a) for k in ("load_balance", "sync_efficiency", "parallel_efficiency")]
    m = re.search(rf"^    {scope} +{e['phases']} +{e['threads']} +[0-9.]+ +[0-9.]+"
                  r"((?: +[0-9.]+){6})(?:  .*)?$", txt, re.M)
    assert m, (scope, want)
    got = [float(x) for x in m.group(1).split()]
    assert all(abs(g - w) <= 0.0005 + 1e-6 for g, w in zip(got, want)), (scope, want, got)
row("run", r["efficiency"], r["efficiency"]["approximated"])
row("site 0", r["sites"][0]["efficiency"], r["sites"][0]["efficiency"]["approximated"])
for t in r["threads"]:
    if t["efficiency"]["phases"]:
        row(f"thread {t['tid']}", t["efficiency"], t["efficiency"]["approximated"])
assert "Wait states" in txt
PY
}

# Live, its JSON report to a file and the trace beside it (the checks' origin
# and thread starts); spinning workers share the two CPUs, and their own
# windows say how much that moved them.
@test "efficiency: barrier_imbalance live, spinning workers, the same checks" {
	run "$SBT" -o "$T/s.sbt" --format json --report "$T/s.json" -- \
		"$EX/barrier_imbalance" -t 3 -n 5 -d 10 -m spin
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	run $ECHECK imbalance "$T/s.json" "$T/wl.out" "$T/s.sbt" 5
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "efficiency: a contended mutex, the waits its holders caused" {
	run "$SBT" record -o "$T/m.sbt" --trace lock -- "$EX/mutex_contention" -t 3 -k 200 -c 20
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/m.sbt" >"$T/m.json"
	run $ECHECK locks "$T/m.json" "$T/wl.out"
	echo "$output"
	[ "$status" -eq 0 ]
	# no barrier phases: the wait-state table says where the waits are
	"$SBT" report "$T/m.sbt" >"$T/m.txt"
	grep -A5 '^Wait states' "$T/m.txt" | grep -qF '(no barrier phases: each thread'
}
