#!/usr/bin/env bats
# Per-phase counter deltas (-e), against what the workloads did.
load helpers

@test "page faults per phase x thread are the pages each thread touched; context switches at least those it counted itself" {
	run "$SBT" record -e page-faults,context-switches -o "$T/p.sbt" \
		-- "$EX/page_touch" -t 3 -n 3 -k 400 -s 3 -c 5
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/p.sbt" >"$T/p.json"
	$CHECK pages "$T/p.json" "$T/wl.out" 3 3 400 3
}

@test "a thread's task-clock per phase is its own CPU time between the barrier calls" {
	run "$SBT" record -e task-clock -o "$T/t.sbt" -- "$EX/page_touch" -t 1 -n 4 -k 0 -c 20
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/t.sbt" >"$T/t.json"
	$CHECK taskclock "$T/t.json" "$T/wl.out" "$T/t.sbt"
	# a time counter: ns in JSON (with its unit), ms in the text tables
	"$SBT" report "$T/t.sbt" >"$T/t.txt"
	python3 - "$T/t.json" "$T/t.txt" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
assert r["counters"][0]["name"] == "task-clock" and r["counters"][0]["unit"] == "ns", r["counters"]
assert re.search(r"^ +tid +task-clock ms $", text, re.M), text
for t in r["threads"]:
    if t["episodes"]:
        row = re.search(r"^ +%d +([0-9.]+) $" % t["tid"], text, re.M)
        assert row, (t["tid"], text)
        assert abs(float(row.group(1)) - t["counters"]["task-clock"] / 1e6) < 0.0006, row.group(0)
PY
}

@test "attach: threads created after attach get correct counts" {
	start_workload "$T/wl.out" "$EX/page_touch" -t 2 -n 2 -k 300 -s 2 -c 5 -W
	start_tracer "$T/sbt.out" record -e page-faults,context-switches -p "$WL" -o "$T/a.sbt"
	kill -USR1 "$WL"
	wait_exit "$TR" 20
	"$SBT" report --format json "$T/a.sbt" >"$T/a.json"
	$CHECK pages "$T/a.json" "$T/wl.out" 2 2 300 2
}

@test "cycles without a PMU: a notice and the software fallback, never zeros" {
	if "$SBT" --list-events | grep -qE '^cycles +hardware +yes'; then
		run "$SBT" record -e cycles -o "$T/c.sbt" -- "$EX/page_touch" -t 1 -n 2 -k 10 -c 5
		[ "$status" -eq 0 ]
		"$SBT" report --format json "$T/c.sbt" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["counters"][0]["name"] == "cycles"
assert all(t["counters"]["cycles"] > 0 for p in r["phases"][1:] for t in p["threads"])'
		return
	fi
	run "$SBT" record -e cycles -o "$T/c.sbt" -- "$EX/page_touch" -t 1 -n 3 -k 10 -c 5
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	[ "$(grep -c 'cycles: not supported on this machine' <<<"$output")" -eq 1 ]
	[[ "$output" == *"counting the software events task-clock, page-faults, context-switches, cpu-migrations instead"* ]]
	"$SBT" report --format json "$T/c.sbt" | python3 -c '
import json, sys
r = json.load(sys.stdin)
names = [c["name"] for c in r["counters"]]
assert names == ["task-clock", "page-faults", "context-switches", "cpu-migrations"], names
assert all(c["fallback"] == 1 for c in r["counters"])'
	# the fallback task-clock counts, per phase, the CPU time the thread used
	"$SBT" report --format json "$T/c.sbt" >"$T/c.json"
	$CHECK taskclock "$T/c.json" "$T/wl.out" "$T/c.sbt"
	"$SBT" report "$T/c.sbt" | grep -q 'counted instead of unavailable hardware events'
}

@test "bad -e: unknown event and too many events" {
	run "$SBT" -e no-such-event -p 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown event 'no-such-event'"* ]]
	run "$SBT" -e task-clock,cycle -p 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown event 'cycle'; did you mean 'cycles'?"* ]]
	run "$SBT" -e nosuchpmu/config=1/ -p 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"no PMU 'nosuchpmu' on this machine"* ]]
	run "$SBT" -e task-clock,page-faults,cs,migrations,faults -p 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"at most 4 events"* ]]
	# numbers are strict: no sign, no space, nothing after
	for e in r-5 "r 12" r12z; do
		run "$SBT" -e "$e" -p 1
		[ "$status" -eq 2 ]
		[[ "$output" == *"unknown event '$e'"* ]]
	done
	for e in cpu/config=-1/ cpu/config=6x/ "cpu/config= 6/"; do
		run "$SBT" -e "$e" -p 1
		[ "$status" -eq 2 ]
		[[ "$output" == *"only PMU/config=VALUE/ is understood"* ]]
	done
}
