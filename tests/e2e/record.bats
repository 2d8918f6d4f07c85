#!/usr/bin/env bats
# record -> report round trip.
load helpers

@test "record then report: text and JSON agree with the live run" {
	run "$SBT" record -o "$T/r.sbt" -- "$EX/barrier_imbalance" -t 3 -n 7 -d 5 -m sleep
	[ "$status" -eq 0 ]
	[[ "$output" == *"recorded "*" events, 7 phases, 0 lost"* ]]
	run "$SBT" report "$T/r.sbt"
	[ "$status" -eq 0 ]
	[ "$(grep -cE '^ +[0-9]+ +3 +[0-9.]+ +[0-9.]+ .*"phase_barrier"$' <<<"$output")" -eq 7 ]
	grep -q "^SBT summary: 7 phases" <<<"$output"
	grep -q "barrier_imbalance -t 3 -n 7" <<<"$output"
	"$SBT" report --format json "$T/r.sbt" >"$T/r.json"
	$CHECK phases "$T/r.json" 7
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for key in ("phases", "sites", "threads", "drops", "duration_ns", "hangs"):
    assert key in r, key
p = r["phases"][0]
for key in ("index", "site", "phase_ns", "barrier_ns", "threads"):
    assert key in p, key
for key in ("tid", "arrive_ns", "depart_ns", "compute_ns", "wait_ns"):
    assert key in p["threads"][0], key
s = r["sites"][0]
for key in ("symbol", "call_site", "episodes", "threads"):
    assert key in s, key
assert s["symbol"] == "pthread_barrier_wait"
assert "barrier_imbalance.c:" in s["call_site"], s["call_site"]
assert all("idle_ns" in t for t in s["threads"])
' "$T/r.json"
}
