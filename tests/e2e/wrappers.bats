#!/usr/bin/env bats
# Launch through a wrapper: sbt-bpf -- sh -c / env / taskset / a script
# follows the command's process tree and traces every process that
# synchronizes, each against what its own workload measured.
load helpers

@test "-- sh -c: the child is traced live as if launched alone; sbt-bpf exits as sh did" {
	run "$SBT" -- sh -c "$EX/barrier_imbalance -t 2 -n 4 -d 30 -m sleep; exit 3"
	[ "$status" -eq 3 ]
	echo "$output" >"$T/out"
	[ "$(grep -cE '^worker_main \(barrier_imbalance.c:[0-9]+\) "phase_barrier" \(barrier: ' "$T/out")" -eq 4 ]
	# each line against the workers' own arrivals
	$CHECK live "$T/out" 4
	grep -q "^SBT summary: 4 phases, 1 barrier site(s), 3 threads" "$T/out"
	grep -q "the command exited with status 3" "$T/out"
	# the summary, out when the child exited, is followed by how the
	# command (the shell) ended
	[ "$(grep -c "^Command: exited with status 3$" "$T/out")" -eq 1 ]
	# one process synchronized: no heading, no report of the shell
	refute_grep -q "^=== pid" "$T/out"
	refute_grep -qE "^ +[0-9]+ +[0-9]+ sh " "$T/out"
	refute_grep -q "calls none of the functions" "$T/out"
}

@test "-- env VAR=1 CMD: the program env execs, with its own names" {
	run "$SBT" -- env SBT_E2E_WRAPPED=1 "$EX/barrier_imbalance" -t 2 -n 3 -d 20 -m sleep
	[ "$status" -eq 0 ]
	echo "$output" >"$T/out"
	$CHECK live "$T/out" 3
	grep -q "^SBT summary: 3 phases" "$T/out"
	refute_grep -q "^=== pid" "$T/out"
}

@test "-- taskset -c 0,1 CMD: the program taskset execs" {
	command -v taskset >/dev/null || skip "taskset not installed"
	run "$SBT" -- taskset -c 0,1 "$EX/barrier_imbalance" -t 2 -n 3 -d 20 -m sleep
	[ "$status" -eq 0 ]
	echo "$output" >"$T/out"
	$CHECK live "$T/out" 3
	grep -q "^SBT summary: 3 phases" "$T/out"
}

@test "a script starting two synchronizing children: a report each, each its own workload's" {
	# different thread and phase counts: a report paired with the wrong
	# workload fails its check
	# -vv: where each process's names came from, shown if the test fails
	"$SBT" -vv --format json --report "$T/r.json" -- sh -c "
		$EX/barrier_imbalance -t 2 -n 3 -d 10 -m sleep >'$T/a.out' & echo a \$!
		$EX/barrier_imbalance -t 3 -n 5 -d 10 -m sleep >'$T/b.out' & echo b \$!
		wait" >"$T/pids" 2>"$T/err"
	cat "$T/err"
	A=$(sed -n 's/^a //p' "$T/pids")
	B=$(sed -n 's/^b //p' "$T/pids")
	[ -n "$A" ]
	[ -n "$B" ]
	# the two workloads only: not the shell, which synchronized with nobody
	$CHECK jobs "$T/r.json" | sort >"$T/jobs.txt"
	cat "$T/jobs.txt"
	printf '%s 3 1\n%s 5 1\n' "$A" "$B" | sort | diff - "$T/jobs.txt"
	$CHECK job "$T/r.json" "$A" "$T/a.json"
	$CHECK imbalance "$T/a.json" "$T/a.out" "$T/r.json" 3
	$CHECK job "$T/r.json" "$B" "$T/b.json"
	$CHECK imbalance "$T/b.json" "$T/b.out" "$T/r.json" 5
}

@test "record -- sh -c, then report: the same as live; two children, two sections" {
	"$SBT" record -o "$T/r.sbt" -- sh -c "$EX/barrier_imbalance -t 3 -n 5 -d 10 -m sleep" \
		>"$T/wl.out" 2>"$T/err"
	cat "$T/err"
	grep -q "^sbt-bpf: recorded [0-9]* events, 5 phases, 0 lost$" "$T/err"
	run "$SBT" report "$T/r.sbt"
	[ "$status" -eq 0 ]
	grep -qE "^Trace of: .*barrier_imbalance -t 3 -n 5" <<<"$output"
	grep -q "^SBT summary: 5 phases, 1 barrier site(s), 4 threads" <<<"$output"
	refute_grep -q "^=== pid" <<<"$output"
	"$SBT" report --format json "$T/r.sbt" >"$T/r.json"
	$CHECK imbalance "$T/r.json" "$T/wl.out" "$T/r.sbt" 5
	"$SBT" export --format csv -o "$T/r.csv" "$T/r.sbt"
	# a row per phase and thread: 5 phases x 3 workers
	[ "$(tail -n +2 "$T/r.csv" | wc -l)" -eq 15 ]

	"$SBT" record -o "$T/two.sbt" -- sh -c "
		$EX/barrier_imbalance -t 2 -n 3 -d 5 -m sleep >/dev/null &
		$EX/barrier_imbalance -t 2 -n 4 -d 5 -m sleep >/dev/null &
		wait" 2>"$T/err2"
	grep -q "^sbt-bpf: recorded [0-9]* events, 7 phases, 0 lost, 2 processes$" "$T/err2"
	run "$SBT" report "$T/two.sbt"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^=== pid [0-9]*: .*barrier_imbalance -t 2 -n [34] ' <<<"$output")" -eq 2 ]
	grep -q "^SBT summary: 3 phases" <<<"$output"
	grep -q "^SBT summary: 4 phases" <<<"$output"
}

@test "a tree where nothing synchronizes: runs, and says so at the end" {
	run "$SBT" -- sh -c 'echo ran; exit 0'
	[ "$status" -eq 0 ]
	grep -q "^ran$" <<<"$output"
	grep -q "and the processes it started called none of the functions sbt-bpf traces" <<<"$output"
	grep -q -- "--probe BINARY:SYMBOL:barrier" <<<"$output"
	# the warning comes after the command ran, not instead
	[ "$(grep -n '^ran$' <<<"$output" | cut -d: -f1)" -lt "$(grep -n 'called none' <<<"$output" | cut -d: -f1)" ]
	run "$SBT" --force -- sh -c 'exit 0'
	[ "$status" -eq 0 ]
	refute_grep -q "called none" <<<"$output"
}

@test "a child that forks without exec and synchronizes is traced from its first call" {
	gomp=$(ldd "$EX/omp_barriers_gomp" | awk '/libgomp/ {print $3}')
	# one thread: each GOMP_barrier call is an episode of its own. ctypes
	# calls libgomp's own definition (dlsym on its handle), which the probe
	# shim's interposition never sees: plain uprobes (README, Limits)
	run "$SBT" --no-shim -- /usr/bin/python3 -c '
import ctypes, os, sys
pid = os.fork()
if pid == 0:
    g = ctypes.CDLL(sys.argv[1])
    for _ in range(5):
        g.GOMP_barrier()
    os._exit(0)
print("child", pid, flush=True)
os.waitpid(pid, 0)
' "$gomp"
	[ "$status" -eq 0 ]
	child=$(sed -n 's/^child //p' <<<"$output")
	[ -n "$child" ]
	grep -qE "^Loop barrier .*\"GOMP_barrier\" \(pid $child\): 5 episodes" <<<"$output"
}

# A process of the tree that maps a library sbt-bpf did not know (not one
# installed in the standard places) waits, stopped, until it is probed: the
# OpenMP runtime copied elsewhere, LD_LIBRARY_PATH, barriers from the start.
@test "a library loaded from outside the standard places is probed before the program runs" {
	mkdir -p "$T/lib"
	cp "$(ldd "$EX/omp_barriers_gomp" | awk '/libgomp/ {print $3}')" "$T/lib/"
	OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 "$SBT" record -o "$T/o.sbt" -- \
		sh -c "LD_LIBRARY_PATH='$T/lib' $EX/omp_barriers_gomp -n 3 -d 1" >"$T/wl.out" 2>"$T/err"
	cat "$T/err"
	"$SBT" report --format json "$T/o.sbt" >"$T/o.json"
	$CHECK omp "$T/o.json" "$T/wl.out" "$T/o.sbt" 3
	# the copy is what was probed
	grep -q "GOMP_barrier" "$T/o.json"
	run "$SBT" report "$T/o.sbt"
	grep -q "^SBT summary: 7 phases" <<<"$output" # 3 x 2 explicit, 1 region
}

@test "a static program (no loader) is probed when it execs" {
	cc -static -O2 -pthread "$ROOT/examples/barrier_imbalance.c" -o "$T/bi_static" 2>"$T/cc.err" ||
		skip "no static C library: $(head -1 "$T/cc.err")"
	"$SBT" record -o "$T/s.sbt" -- sh -c "$T/bi_static -t 3 -n 4 -d 1 -m sleep" \
		>"$T/wl.out" 2>"$T/err"
	cat "$T/err"
	"$SBT" report --format json "$T/s.sbt" >"$T/s.json"
	$CHECK imbalance "$T/s.json" "$T/wl.out" "$T/s.sbt" 4
}

# A process of the tree waits (stopped) where it maps files, except a job of
# an interactive shell: its shell would report it "Stopped" (set -b: at
# once), and take the terminal from a foreground one.
@test "an interactive shell as the command: its jobs are traced, never stopped" {
	command -v tmux >/dev/null || skip "tmux not installed"
	TMUX_SESSION=sbt-wrap-$$
	# JSON: no status line on the terminal
	tmux new-session -d -s "$TMUX_SESSION" -x 200 -y 40 \
		"$SBT --format json --report $T/r.json -- bash --norc --noprofile -i; echo SBT-EXIT \$?; sleep 30"
	poll_pane '^sbt-bpf: tracing pid'
	tmux send-keys -t "$TMUX_SESSION" "set -b" Enter
	tmux send-keys -t "$TMUX_SESSION" \
		"$EX/barrier_imbalance -t 2 -n 2 -d 20 -m sleep >$T/bg.out & echo BG \$!" Enter
	poll_pane '^BG [0-9]+$'
	tmux send-keys -t "$TMUX_SESSION" \
		"$EX/barrier_imbalance -t 2 -n 3 -d 20 -m sleep >$T/wl.out; wait; echo DONE \$?" Enter
	poll_pane '^DONE 0$'
	tmux send-keys -t "$TMUX_SESSION" "exit" Enter
	poll_pane '^SBT-EXIT 0$'
	cat "$T/pane"
	refute_grep -q "Stopped" "$T/pane"
	# a report each: the background job's 2 phases, the foreground one's 3
	python3 - "$T/r.json" <<'PY'
import json, sys
got = sorted(len(j["report"]["phases"]) for j in json.load(open(sys.argv[1]))["jobs"])
assert got == [2, 3], got
PY
}
