#!/usr/bin/env bats
# record -> report round trip.
load helpers

@test "record then report: text and JSON agree with the live run" {
	"$SBT" record -o "$T/r.sbt" -- "$EX/barrier_imbalance" -t 3 -n 7 -d 5 -m sleep \
		>"$T/wl.out" 2>"$T/sbt.err"
	grep -q "^sbt-bpf: recorded [0-9]* events, 7 phases, 0 lost$" "$T/sbt.err"
	# the command's stdout is its own: its lines only
	refute_grep -v -E '^(phase|total_ns) ' "$T/wl.out"
	grep -q '^total_ns ' "$T/wl.out"
	run "$SBT" report "$T/r.sbt"
	[ "$status" -eq 0 ]
	# a --watch that matches no barrier is named (most likely misspelled)
	"$SBT" report --watch phase_barrier --watch nosuchsite "$T/r.sbt" >"$T/w.out" 2>"$T/w.err"
	grep -q "^sbt-bpf: warning: --watch 'nosuchsite' matched no barrier" "$T/w.err"
	refute_grep -q "'phase_barrier' matched no" "$T/w.err"
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

@test "a launched command that fails or is killed: said on stderr, and sbt-bpf exits as it did" {
	run "$SBT" --force -q -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	[[ "$output" == *"the command exited with status 3"* ]]
	run "$SBT" record --force -o "$T/k.sbt" -- sh -c 'kill -SEGV $$'
	[ "$status" -eq $((128 + 11)) ]
	[[ "$output" == *"the command was killed by SIGSEGV"* ]]
	# the trace is complete all the same, and says how the command ended
	run "$SBT" report "$T/k.sbt"
	[ "$status" -eq 0 ]
	grep -q "^Command: killed by SIGSEGV" <<<"$output"
	run "$SBT" report --format json "$T/k.sbt"
	[ "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["command_end"])' <<<"$output")" = "killed by SIGSEGV" ]
	# the live summary says it too, text and JSON
	run "$SBT" --force -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	grep -q "^Command: exited with status 3$" <<<"$output"
	run "$SBT" --force --format json --report "$T/e.json" -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["command_end"])' "$T/e.json")" = "exited with status 3" ]
	run "$SBT" --force -q -- sh -c 'exit 0'
	[ "$status" -eq 0 ]
	[[ "$output" != *"the command"* ]]
}

@test "record without -o: sbt-bpf.sbt, the previous one kept as .old; report reads it by default" {
	cd "$T"
	run "$SBT" record -- "$EX/barrier_imbalance" -t 2 -n 2 -d 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"wrote sbt-bpf.sbt"* ]]
	run "$SBT" record -- "$EX/barrier_imbalance" -t 2 -n 3 -d 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"kept the previous sbt-bpf.sbt as sbt-bpf.sbt.old"* ]]
	run "$SBT" report
	[ "$status" -eq 0 ]
	grep -q "^SBT summary: 3 phases" <<<"$output"
	run "$SBT" report sbt-bpf.sbt.old
	[ "$status" -eq 0 ]
	grep -q "^SBT summary: 2 phases" <<<"$output"
}

@test "--report FILE: the JSON report in its own file, the command's stdout its own" {
	"$SBT" --format json --report "$T/r.json" -- "$EX/barrier_imbalance" -t 2 -n 3 -d 2 -m sleep \
		>"$T/wl.out"
	$CHECK phases "$T/r.json" 3
	refute_grep -v -E '^(phase|total_ns) ' "$T/wl.out"
	"$SBT" record -o "$T/r.sbt" -- "$EX/barrier_imbalance" -t 2 -n 3 -d 2 -m sleep >/dev/null 2>&1
	"$SBT" report --report "$T/r.txt" "$T/r.sbt" >"$T/stdout.txt"
	grep -q "^SBT summary: 3 phases" "$T/r.txt"
	[ ! -s "$T/stdout.txt" ]
	run "$SBT" report --report /nonexistent/dir/r.txt "$T/r.sbt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot create /nonexistent/dir/r.txt"* ]]
	run "$SBT" record --report "$T/x" -o "$T/x.sbt" -- /bin/true
	[ "$status" -eq 2 ]
	[[ "$output" == *"record writes a trace, no report"* ]]
}
