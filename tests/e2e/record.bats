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

# exited_within STOPFILE SECONDS: interrupt's sbt-bpf exited that soon.
exited_within() {
	local sent took
	read -r sent took <"$1"
	echo "exited $((took / 1000000)) ms after SIGINT"
	[ "$took" -lt $(($2 * 1000000000)) ]
}

# ctrl_c OUTFILE ARGS...: sbt-bpf ARGS (-- CMD, page_touch or a shell
# running it) in a session of its own, as a terminal's foreground job; once
# both of page_touch's workers touched their pages (1 GiB: its exit takes
# tens of milliseconds), SIGINT to the whole group, as Ctrl-C sends it: to
# sbt-bpf and the command alike. $status: sbt-bpf's exit status; $CMD_PID:
# the command's pid.
ctrl_c() {
	local out=$1 rc=0
	shift
	# a background job of a script ignores SIGINT, and the command would
	# inherit that: a terminal's job does not
	setsid env --default-signal=INT "$SBT" "$@" >"$out" 2>"$out.err" &
	TR=$!
	BG_PIDS+=("$TR")
	CTRL_C_GROUP=$TR
	wait_for "$out.err" "^sbt-bpf: tracing pid"
	CMD_PID=$(sed -nE 's/^sbt-bpf: tracing pid ([0-9]+) .*/\1/p' "$out.err")
	wait_lines "$out" '^phase 2 ' 2 60
	interrupt "$TR" group >"$out.stop"
	exited_within "$out.stop" 10
	wait "$TR" || rc=$?
	status=$rc
}

@test "Ctrl-C of -- CMD reaches the command too: sbt-bpf exits as it did (130), the trace says so" {
	local pt=("$EX/page_touch" -t 2 -n 1000 -k 131072 -s 20 -c 0)
	# the command is the process reported: its summary says how it ended
	ctrl_c "$T/live.out" -- "${pt[@]}"
	[ "$status" -eq 130 ]
	grep -q "^Command: killed by SIGINT$" "$T/live.out"
	grep -q "^sbt-bpf: warning: the command was killed by SIGINT$" "$T/live.out.err"
	# reaped by sbt-bpf: no zombie, nothing left running
	run kill -0 "$CMD_PID"
	[ "$status" -ne 0 ]
	# bash waits for page_touch to die of the signal, then dies of it too:
	# the command ends well after sbt-bpf stopped, however the two race
	ctrl_c "$T/rec.out" record -o "$T/c.sbt" -- bash -c '"$0" "$@"; true' "${pt[@]}"
	[ "$status" -eq 130 ]
	grep -q "^sbt-bpf: warning: the command was killed by SIGINT$" "$T/rec.out.err"
	grep -q "^sbt-bpf: wrote $T/c.sbt " "$T/rec.out.err"
	run kill -0 "$CMD_PID"
	[ "$status" -ne 0 ]
	run "$SBT" report "$T/c.sbt"
	[ "$status" -eq 0 ]
	grep -q "^Command: killed by SIGINT$" <<<"$output"
	refute_grep -q 'trace was cut' <<<"$output"
	run "$SBT" report --format json "$T/c.sbt"
	[ "$status" -eq 0 ]
	[ "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["command_end"])' <<<"$output")" = "killed by SIGINT" ]
}

@test "SIGINT to sbt-bpf alone (-- CMD): the command runs on, untraced, neither stopped nor traced" {
	local n state rc=0
	start_sbt "^sbt-bpf: tracing pid" "$T/o.out" -- "$EX/barrier_imbalance" -t 2 -n 100000 -d 20 -m sleep
	CMD_PID=$(sed -nE 's/^sbt-bpf: tracing pid ([0-9]+) .*/\1/p' "$T/o.out.err")
	wait_lines "$T/o.out" '^phase ' 1 30
	interrupt "$TR" >"$T/stop"
	exited_within "$T/stop" 10
	wait "$TR" || rc=$?
	[ "$rc" -eq 0 ]
	refute_grep -q "^Command:" "$T/o.out"
	refute_grep -q "the command" "$T/o.out.err"
	state=$(awk '/^State:/ {print $2}' "/proc/$CMD_PID/status")
	[[ "$state" == [RS] ]]
	grep -q "^TracerPid:[[:space:]]*0$" "/proc/$CMD_PID/status"
	n=$(grep -c '^phase ' "$T/o.out")
	wait_lines "$T/o.out" '^phase ' $((n + 2))
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

# Ctrl-C: recording stops in the signal handler (the BPF programs record
# nothing more) and the probes are removed all at once, not one RCU grace
# period after another (seconds with many links): sbt-bpf exits promptly with
# a complete trace, and the targets run on.
# stopped_promptly TRACE: sbt-bpf ($TR) interrupted; exited within 2 s,
# status 0, and the trace it wrote is complete and ends at the signal.
stopped_promptly() {
	local sent took rc=0
	interrupt "$TR" >"$1.stop"
	read -r sent took <"$1.stop"
	echo "exited $((took / 1000000)) ms after SIGINT"
	[ "$took" -lt 2000000000 ]
	wait "$TR" || rc=$?
	[ "$rc" -eq 0 ]
	run "$SBT" report "$1"
	[ "$status" -eq 0 ]
	refute_grep -q 'trace was cut' <<<"$output"
	$CHECK stopped "$1" "$sent"
}

@test "Ctrl-C of record -- CMD (a tree of six programs): exits at once, nothing recorded after it" {
	local e=$EX p
	start_sbt "^sbt-bpf: tracing pid" "$T/c.out" record -o "$T/c.sbt" -- sh -c "
		export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
		for p in omp_barriers_gomp omp_barriers_llvm; do
			$e/\$p -n 100000 -d 20 -m sleep >$T/\$p.out & echo \$! >>$T/pids
		done
		for p in omp_for_gomp omp_for_llvm; do
			$e/\$p -r 100000 -d 20 -m sleep >$T/\$p.out & echo \$! >>$T/pids
		done
		for p in barrier_imbalance barrier_imbalance_static; do
			$e/\$p -t 2 -n 100000 -d 20 -m sleep >$T/\$p.out & echo \$! >>$T/pids
		done
		wait"
	wait_lines "$T/pids" . 6
	BG_PIDS+=($(cat "$T/pids"))
	for p in omp_barriers_gomp omp_barriers_llvm barrier_imbalance barrier_imbalance_static; do
		wait_lines "$T/$p.out" '^phase 1 ' 1
	done
	for p in omp_for_gomp omp_for_llvm; do
		wait_lines "$T/$p.out" '^region 1 ' 1
	done
	stopped_promptly "$T/c.sbt"
	[ "$(grep -c '^=== pid ' <<<"$output")" -eq 6 ]
	# the programs run on
	for p in $(cat "$T/pids"); do
		kill -0 "$p"
	done
}

@test "Ctrl-C of record -p with ten processes: exits at once, nothing recorded after it" {
	local pids=() list i n
	for i in $(seq 10); do
		bg "$T/w$i.out" "$EX/barrier_imbalance" -t 2 -n 100000 -d 20 -m sleep
		pids+=("$BG")
	done
	list=$(IFS=,; echo "${pids[*]}")
	start_system "$T/p.out" record -o "$T/p.sbt" -p "$list"
	# two phases more each: every process's probes have fired
	for i in $(seq 10); do
		n=$(grep -c '^phase ' "$T/w$i.out")
		wait_lines "$T/w$i.out" '^phase ' $((n + 4))
	done
	stopped_promptly "$T/p.sbt"
	[ "$(grep -c '^=== pid ' <<<"$output")" -eq 10 ]
	for i in "${pids[@]}"; do
		kill -0 "$i"
	done
}

# A recording cut short (the recorder killed, the disk full) reads up to its
# last complete record. The small file system of the disk-full test goes in
# teardown, after the processes that could hold it.
SMALL_FS=
CTRL_C_GROUP=
eval "helpers_$(declare -f teardown)"
teardown() {
	local rc=0
	# ctrl_c's page_touch, a grandchild of sbt-bpf, if the test failed first
	if [ -n "$CTRL_C_GROUP" ]; then
		kill -KILL -- "-$CTRL_C_GROUP" 2>/dev/null || true
	fi
	helpers_teardown || rc=$? # a sanitizer report fails the test
	if [ -n "$SMALL_FS" ]; then
		umount -l "$SMALL_FS" 2>/dev/null || true
		rmdir "$SMALL_FS"
	fi
	return "$rc"
}

# wait_grows FILE SIZE [SECONDS]: until FILE is larger than SIZE bytes.
wait_grows() {
	local i n=$(( ${3:-10} * 20 ))
	for ((i = 0; i < n; i++)); do
		[ "$(stat -c %s "$1")" -gt "$2" ] && return 0
		sleep 0.05
	done
	echo "$1 did not grow past $2 bytes" >&2
	return 1
}

# printed_phases FILE: phases the workload's last thread printed. Each thread
# prints a phase after leaving its barrier and before the next one, so once it
# printed one more line after the recording ended, every phase the trace can
# hold complete (all threads left) is counted.
printed_phases() {
	grep -cE '^phase [0-9]+ thread 1 ' "$1"
}

# The trace's phases: read with a warning, > 0 and no more than the workload
# printed; call sites and the barrier named, not in hex.
check_cut_report() {
	local trace=$1 printed=$2 records=$3 phases
	run "$SBT" report "$trace"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'trace was cut' <<<"$output")" -eq 1 ]
	grep -qE "^sbt-bpf: warning: $trace: trace was cut after $records records \(recording killed or disk full\?\): reporting what is there$" <<<"$output"
	grep -qE "^Recording: cut after $records records" <<<"$output"
	phases=$(sed -nE 's/^SBT summary: ([0-9]+) phases.*/\1/p' <<<"$output")
	echo "phases in the trace: $phases, printed by the workload: $printed"
	[ "$phases" -gt 0 ]
	[ "$phases" -le "$printed" ]
	grep -qE 'worker_main \(barrier_imbalance\.c:[0-9]+\) "phase_barrier"$' <<<"$output"
	refute_grep -qE ' 0x[0-9a-f]+ *$' <<<"$output"
}

@test "a recorder killed mid-run (SIGKILL): report and export read the trace up to its last record" {
	start_sbt "^sbt-bpf: tracing pid" "$T/wl.out" record -o "$T/k.sbt" -- \
		"$EX/barrier_imbalance" -t 2 -n 1000000 -d 2 -m sleep
	wl=$(sed -nE 's/^sbt-bpf: tracing pid ([0-9]+) .*/\1/p' "$T/wl.out.err")
	wait_lines "$T/wl.out" '^phase [0-9]+ thread 1 ' 20
	size=$(stat -c %s "$T/k.sbt")
	wait_grows "$T/k.sbt" "$size"
	kill -KILL "$TR"
	wait "$TR" || true
	n=$(printed_phases "$T/wl.out")
	wait_lines "$T/wl.out" '^phase [0-9]+ thread 1 ' $((n + 1))
	printed=$(printed_phases "$T/wl.out")
	kill -KILL "$wl"
	run "$SBT" report --format json "$T/k.sbt"
	[ "$status" -eq 0 ]
	records=$(sed -nE 's/.*trace was cut after ([0-9]+) records.*/\1/p' <<<"$output")
	check_cut_report "$T/k.sbt" "$printed" "$records"
	run "$SBT" export --format csv -o "$T/k.csv" "$T/k.sbt"
	[ "$status" -eq 0 ]
	[[ "$output" == *"trace was cut after $records records"* ]]
	[ "$(grep -c ',phase_barrier,' "$T/k.csv")" -gt 0 ]
}

@test "a disk that fills up: record fails and says so, the trace reads up to its last record" {
	SMALL_FS=$(mktemp -d)
	mount -t tmpfs -o size=256k tmpfs "$SMALL_FS"
	rc=0
	"$SBT" record -o "$SMALL_FS/f.sbt" -- "$EX/barrier_imbalance" -t 2 -n 1000000 -d 0 \
		>"$T/wl.out" 2>"$T/sbt.err" || rc=$?
	cat "$T/sbt.err"
	[ "$rc" -eq 1 ]
	grep -qE "^sbt-bpf: error: writing $SMALL_FS/f.sbt: No space left on device: the trace stops after [0-9]+ records" "$T/sbt.err"
	grep -q "^sbt-bpf: warning: recording stopped; the target is left running, untraced$" "$T/sbt.err"
	refute_grep -q "^sbt-bpf: recorded" "$T/sbt.err"
	wl=$(sed -nE 's/^sbt-bpf: tracing pid ([0-9]+) .*/\1/p' "$T/sbt.err")
	n=$(printed_phases "$T/wl.out")
	wait_lines "$T/wl.out" '^phase [0-9]+ thread 1 ' $((n + 1))
	printed=$(printed_phases "$T/wl.out")
	kill -KILL "$wl"
	# what the recorder said it wrote is what report finds
	records=$(sed -nE 's/.*the trace stops after ([0-9]+) records.*/\1/p' "$T/sbt.err")
	check_cut_report "$SMALL_FS/f.sbt" "$printed" "$records"
}

# Every file sbt-bpf writes is checked whole: a report or an export cut by
# a full disk is an error (exit 1, said), not a success with half a file.
# fclose() alone reports nothing of a write that failed before it.
@test "a disk that fills up: report, every export format and the live --report fail and say so" {
	SMALL_FS=$(mktemp -d)
	mount -t tmpfs -o size=64k tmpfs "$SMALL_FS"
	"$OUT/bench/gen_trace" -n 100000 -t 2 -o "$T/g.sbt"
	full() { # NAME CMD...: CMD fails, naming the file and the full disk
		local name=$1 rc=0
		shift
		rm -rf "${SMALL_FS:?}"/*
		"$@" >"$T/full.out" 2>"$T/full.err" || rc=$?
		cat "$T/full.err"
		[ "$rc" -eq 1 ]
		grep -q "^sbt-bpf: error: .*$SMALL_FS/$name.*No space left on device" "$T/full.err"
	}
	full r.txt "$SBT" report --report "$SMALL_FS/r.txt" "$T/g.sbt"
	full r.json "$SBT" report --format json --report "$SMALL_FS/r.json" "$T/g.sbt"
	for f in chrome csv json svg otf2; do
		full "x.$f" "$SBT" export --format $f -o "$SMALL_FS/x.$f" "$T/g.sbt"
	done
	# the live report of a traced command (the command itself succeeded); a
	# few KB, written to a disk with one page left
	full live.txt sh -c 'head -c 60k /dev/zero >"$1/fill" && shift && exec "$@"' sh "$SMALL_FS" \
		"$SBT" --report "$SMALL_FS/live.txt" -- "$EX/barrier_imbalance" -t 2 -n 3000 -d 0
	grep -q "^phase 2999 " "$T/full.out" # the command's own output, whole
	# standard output: a report to a full device fails too
	rc=0
	"$SBT" report "$T/g.sbt" >/dev/full 2>"$T/dev.err" || rc=$?
	[ "$rc" -eq 1 ]
	grep -q "^sbt-bpf: error: writing the report: " "$T/dev.err"
}

# A run of a million phases must not give gigabytes of JSON by default.
@test "report: JSON lists the first 10000 phases unless --phases says otherwise, in bounded memory" {
	"$OUT/bench/gen_trace" -n 1000000 -t 2 -o "$T/g.sbt"
	total=$("$SBT" report "$T/g.sbt" | sed -nE 's/^SBT summary: ([0-9]+) phases.*/\1/p')
	echo "phases: $total"
	[ "$total" -gt 10000 ]
	/usr/bin/time -f "%M" -o "$T/rss" "$SBT" report --format json "$T/g.sbt" >"$T/d.json"
	echo "peak RSS $(cat "$T/rss") KB"
	[ "$(cat "$T/rss")" -lt "$(rss_bound 30000)" ]
	listed() {
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); ix=[p["index"] for p in r["phases"]]; assert ix == list(range(len(ix))), "not the first phases"; print(len(ix), r["phases_listed"], r["phase_count"])' "$1"
	}
	[ "$(listed "$T/d.json")" = "10000 10000 $total" ]
	"$SBT" report --format json --phases 7 "$T/g.sbt" >"$T/7.json"
	[ "$(listed "$T/7.json")" = "7 7 $total" ]
	"$OUT/bench/gen_trace" -n 200000 -t 2 -o "$T/s.sbt"
	small=$("$SBT" report "$T/s.sbt" | sed -nE 's/^SBT summary: ([0-9]+) phases.*/\1/p')
	[ "$small" -gt 10000 ]
	"$SBT" report --format json --phases all "$T/s.sbt" >"$T/all.json"
	[ "$(listed "$T/all.json")" = "$small $small $small" ]
	# the text table points to the option
	"$SBT" report "$T/s.sbt" | grep -q "more phases not shown; --format json --phases all lists every one"
	run "$SBT" report --phases 0 "$T/s.sbt"
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid value '0' for --phases: out of range"* ]]
	run "$SBT" report --phases many "$T/s.sbt"
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid value 'many' for --phases: not a number"* ]]
}
