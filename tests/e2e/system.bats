#!/usr/bin/env bats
# Several processes: -p PID,PID, system-wide -a (jobs started before and
# after, one in its own mount namespace), record -a and --pid, --filter,
# and the live `top` view in a terminal (tmux) and as plain text.
load helpers

# release PID...: let -W workloads start their threads.
release() {
	kill -USR1 "$@"
}

# A copy of custom_barrier, run in a new mount namespace from a tmpfs that
# the host does not see; sbt-bpf knows the function by the host binary's
# build-id. Its pid is in $WL.
start_in_namespace() {
	mkdir -p "$T/mnt"
	unshare -m sh -c 'mount -t tmpfs none "$1" && cp "$2" "$1/cb" && exec "$1/cb" -t 3 -n 6 -d 10 -W' \
		sh "$T/mnt" "$EX/custom_barrier" >"$T/c.out" 2>&1 &
	WL=$!
	BG_PIDS+=("$WL")
	wait_for "$T/c.out" "^ready $WL"
}

@test "-a: jobs started before and after, one in another mount namespace, each with its exact phases" {
	start_workload "$T/a.out" "$EX/barrier_imbalance" -t 3 -n 7 -d 10 -m sleep -W
	A=$WL
	bg "$T/idle.out" sleep 60 # never synchronizes: not reported
	IDLE=$BG
	start_system "$T/sys.json" -a --format json --probe "$EX/custom_barrier:spin_futex_barrier:barrier"
	grep -q "sbt-bpf: tracing every process" "$T/sys.json.err"
	release "$A"
	OMP_WAIT_POLICY=passive OMP_NUM_THREADS=3 start_workload "$T/b.out" "$EX/omp_barriers_gomp" -n 4 -d 10 -W
	B=$WL
	release "$B"
	start_in_namespace
	C=$WL
	[ ! -e "$T/mnt/cb" ] # the copy is invisible from here
	release "$C"
	wait_exit "$A" 20
	wait_exit "$B" 20
	wait_exit "$C" 20
	# exited processes are finalized while tracing goes on
	wait_for "$T/sys.json" "\"pid\": $B, " 10
	kill -0 "$TR"
	kill -INT "$TR"
	wait_exit "$TR" 20
	$CHECK jobs "$T/sys.json" >"$T/jobs.txt"
	cat "$T/jobs.txt"
	grep -qx "$A 7 1" "$T/jobs.txt"
	grep -qx "$C 6 1" "$T/jobs.txt"
	refute_grep -q "^$IDLE " "$T/jobs.txt"
	# each job against what its workers measured; times count from the job's start
	$CHECK job "$T/sys.json" "$A" "$T/a.json"
	$CHECK imbalance "$T/a.json" "$T/a.out" "$T/sys.json" 7
	$CHECK job "$T/sys.json" "$B" "$T/b.json"
	# (-a probes a program started later a drain after its exec: its region
	# may fork before the probes on its body are in)
	$CHECK omp "$T/b.json" "$T/b.out" "$T/sys.json" 4 any
	# 4 x 2 explicit barriers, and the region's own when its fork was seen
	region=$(python3 -c 'import json,sys; print(sum(p["implicit"] for p in json.load(open(sys.argv[1]))["phases"]))' "$T/b.json")
	grep -qx "$B $((8 + region)) 1" "$T/jobs.txt"
	$CHECK job "$T/sys.json" "$C" "$T/c.json"
	$CHECK barrier "$T/c.json" "$T/c.out" "$T/sys.json" 6
	# the copy's call site was symbolized through its own root
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit("custom_barrier.c:" not in json.dumps(r["sites"]))' "$T/c.json"
}

# A process forked after the attach, without exec, has no exec record: its
# fork's record is what says when it began (a job from the session's start
# would have a partial phase 0 that "began before attach", and live as long
# as the session had).
@test "-a: a process forked (no exec) after the attach is a job from its fork, every phase whole" {
	start_system "$T/sys.json" -a --format json --filter 'comm=barrier_imb*'
	start_workload "$T/a.out" "$EX/barrier_imbalance" -t 2 -n 6 -d 5 -m sleep -f -W
	A=$WL
	release "$A"
	wait_exit "$A" 20
	C=$(sed -n 's/^child pid \([0-9]*\) .*/\1/p' "$T/a.out")
	[ -n "$C" ]
	wait_for "$T/sys.json" "\"pid\": $C, " 10
	wait_for "$T/sys.json" "\"pid\": $A, " 10
	kill -INT "$TR"
	wait_exit "$TR" 20
	$CHECK jobs "$T/sys.json" | sort >"$T/jobs.txt"
	cat "$T/jobs.txt"
	printf '%s 6 1\n%s 6 1\n' "$A" "$C" | sort | diff - "$T/jobs.txt"
	# the child from its fork to its exit, its phases and iterations against
	# what it measured; the parent's phases too
	run $CHECK forked "$T/sys.json" "$T/a.out" 6
	echo "$output"
	[ "$status" -eq 0 ]
}

# wait_links PID PATH: until process PID (sbt-bpf) holds both a uprobe_multi
# and a uretprobe_multi BPF link on the file PATH (its /proc fdinfo says).
wait_links() {
	local i f kinds
	for ((i = 0; i < 200; i++)); do
		kinds=$(for f in /proc/"$1"/fdinfo/*; do
			grep -qx "path:	$2" "$f" 2>/dev/null && sed -n 's/^link_type:	//p' "$f"
		done | sort -u | tr '\n' ' ')
		[ "$kinds" = "uprobe_multi uretprobe_multi " ] && return 0
		sleep 0.05
	done
	echo "no entry and return links on $2 in process $1 (found: $kinds)" >&2
	return 1
}

@test "-a: a library loaded later (dlopen of a copy no process mapped) is probed" {
	mkdir -p "$T/lib"
	cp "$(ldd "$EX/omp_barriers_gomp" | awk '/libgomp/ {print $3}')" "$T/lib/libgomp-copy.so"
	start_system "$T/sys.txt" -a
	# one thread: each GOMP_barrier call is an episode of its own. sbt-bpf
	# probes the copy once the loader reports it, while the process runs
	# on: the calls wait until its entry and return probes are both in.
	/usr/bin/python3 -c '
import ctypes, os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
g = ctypes.CDLL(sys.argv[1])
print("loaded", os.getpid(), flush=True)
signal.sigwait({signal.SIGUSR1})
for _ in range(5):
    g.GOMP_barrier()
' "$T/lib/libgomp-copy.so" >"$T/py.out" 2>&1 &
	P=$!
	BG_PIDS+=("$P")
	wait_for "$T/py.out" "^loaded $P$"
	wait_links "$TR" "$T/lib/libgomp-copy.so"
	kill -USR1 "$P"
	wait_exit "$P" 10
	wait_for "$T/sys.txt" "^=== pid $P: " 10
	kill -INT "$TR"
	wait_exit "$TR" 20
	cat "$T/sys.txt"
	grep -A2 "^=== pid $P: " "$T/sys.txt" | grep -q "^SBT summary: 5 phases, 1 barrier site"
}

@test "-p PID,PID: a report per process, the tracer ends when both have exited" {
	start_workload "$T/a.out" "$EX/barrier_imbalance" -t 2 -n 5 -d 10 -m sleep -W
	A=$WL
	OMP_NUM_THREADS=2 start_workload "$T/b.out" "$EX/omp_barriers_llvm" -n 3 -d 10 -W
	B=$WL
	start_system "$T/sys.txt" --watch phase_barrier --watch nosuchsite -p "$A,$B"
	grep -q "tracing 2 processes" "$T/sys.txt.err"
	release "$A" "$B"
	wait_exit "$TR" 20
	grep -qE "^=== pid $A: .*barrier_imbalance .*\(exited after" "$T/sys.txt"
	# --watch: judged over every job, not per job (B has no phase_barrier)
	[ "$(grep -c "^SBT barrier watch at .*\"phase_barrier\"" "$T/sys.txt")" -eq 5 ]
	[ "$(grep -c "^sbt-bpf: warning: --watch 'nosuchsite' matched no barrier" "$T/sys.txt.err")" -eq 1 ]
	refute_grep -q "'phase_barrier' matched no" "$T/sys.txt.err"
	grep -qE "^=== pid $B: .*omp_barriers_llvm " "$T/sys.txt"
	[ "$(grep -c '^SBT summary' "$T/sys.txt")" -eq 2 ]
	grep -q "^SBT summary: 5 phases" "$T/sys.txt"
	grep -q "^SBT summary: 7 phases" "$T/sys.txt" # 3 x 2 explicit, the region's implicit one
}

# Lock probes are resolved per file, several processes sharing libc: each
# process's table holds its own lock calls, every one of them.
@test "-p A,B --trace lock: each process's own locks, exact acquisitions" {
	start_workload "$T/m.out" "$EX/mutex_contention" -t 2 -k 150 -c 10 -W
	A=$WL
	start_workload "$T/b.out" "$EX/barrier_imbalance" -t 2 -n 3 -d 5 -m sleep -W
	B=$WL
	start_system "$T/sys.txt" -p "$A,$B" --trace lock
	release "$A" "$B"
	wait_exit "$TR" 20
	grep -q '^counter 300$' "$T/m.out"
	sed -n "/^=== pid $A: /,/^=== pid /p" "$T/sys.txt" >"$T/a.txt"
	sed -n "/^=== pid $B: /,\$p" "$T/sys.txt" | sed "/^=== pid $A: /,\$d" >"$T/b.txt"
	grep -qE '^counter_lock +mutex +300 ' "$T/a.txt"
	grep -q '^SBT summary' "$T/b.txt"
	refute_grep -q counter_lock "$T/b.txt"
}

@test "record -a: one trace, a section per process; report and export select --pid" {
	start_system "$T/rec.out" record -a -o "$T/all.sbt"
	start_workload "$T/a.out" "$EX/barrier_imbalance" -t 3 -n 4 -d 10 -m sleep -W
	A=$WL
	start_workload "$T/c.out" "$EX/custom_barrier" -t 2 -n 3 -d 10 -W
	C=$WL
	release "$A" "$C"
	wait_exit "$A" 20
	wait_exit "$C" 20
	kill -INT "$TR"
	wait_exit "$TR" 20
	grep -q "wrote $T/all.sbt" "$T/rec.out.err"
	run "$SBT" report "$T/all.sbt"
	[ "$status" -eq 0 ]
	# custom_barrier has no probed barrier: the trace holds one process
	grep -qE "^Trace of: .*barrier_imbalance -t 3 -n 4" <<<"$output"
	grep -q "^SBT summary: 4 phases" <<<"$output"
	refute_grep -q "custom_barrier" <<<"$output"
	"$SBT" report --pid "$A" --format json "$T/all.sbt" >"$T/a.json"
	$CHECK imbalance "$T/a.json" "$T/a.out" "$T/all.sbt" 4
	run "$SBT" report --pid 1 "$T/all.sbt"
	[ "$status" -eq 1 ]
	grep -q "the trace holds no process 1; it holds:" <<<"$output"
	"$SBT" export --pid "$A" --format csv -o "$T/a.csv" "$T/all.sbt"
	# a row per phase and thread: 4 phases x 3 workers
	[ "$(tail -n +2 "$T/a.csv" | wc -l)" -eq 12 ]
}

@test "record -p A,B: export without --pid names the processes to choose from" {
	start_workload "$T/a.out" "$EX/barrier_imbalance" -t 2 -n 3 -d 5 -m sleep -W
	A=$WL
	start_workload "$T/b.out" "$EX/barrier_imbalance" -t 2 -n 4 -d 5 -m sleep -W
	B=$WL
	start_system "$T/rec.out" record -p "$A,$B" -o "$T/ab.sbt"
	release "$A" "$B"
	wait_exit "$TR" 20
	run "$SBT" export -o "$T/x.json" "$T/ab.sbt"
	[ "$status" -eq 1 ]
	grep -q "the trace holds 2 processes: choose one with --pid" <<<"$output"
	grep -qE "^  $A  .*barrier_imbalance -t 2 -n 3" <<<"$output"
	"$SBT" report --format json "$T/ab.sbt" >"$T/ab.json"
	$CHECK jobs "$T/ab.json" | sort >"$T/jobs.txt"
	printf '%s 3 1\n%s 4 1\n' "$A" "$B" | sort | diff - "$T/jobs.txt"
}

@test "-a --filter comm=: only the matching process is traced; bad filters are usage errors" {
	start_system "$T/sys.txt" -a --filter 'comm=barrier_imb*'
	start_workload "$T/a.out" "$EX/barrier_imbalance" -t 2 -n 3 -d 5 -m sleep -W
	A=$WL
	OMP_NUM_THREADS=2 start_workload "$T/b.out" "$EX/omp_barriers_gomp" -n 2 -d 5 -W
	B=$WL
	release "$A" "$B"
	wait_exit "$A" 20
	wait_exit "$B" 20
	kill -INT "$TR"
	wait_exit "$TR" 20
	grep -qE "^=== pid $A: " "$T/sys.txt"
	refute_grep -qE "^=== pid $B: " "$T/sys.txt"
	run "$SBT" -a --filter colour=red
	[ "$status" -eq 2 ]
	grep -q "unknown key 'colour'" <<<"$output"
	run "$SBT" -a --filter uid=no-such-user-here
	[ "$status" -eq 2 ]
	run "$SBT" -p 1 --filter comm=x
	[ "$status" -eq 2 ]
	grep -q "use it with -a" <<<"$output"
	run "$SBT" -a -p 1
	[ "$status" -eq 2 ]
}

# SPLASH's and PARSEC's barriers are a mutex and a condvar: such a program
# calls no barrier function. Its first broadcast makes it a job; its
# episodes from then on (2 * STEPS + 1 barrier calls a worker, the first
# episode's waits may have begun before the job did).
@test "-a: a program whose only barrier is a mutex and a condvar is a job, its episodes counted" {
	start_system "$T/sys.txt" -a --filter 'comm=cond_barrier'
	start_workload "$T/a.out" "$EX/cond_barrier" -t 3 -n 100 -c 20000 -s 5 -W
	A=$WL
	release "$A"
	wait_exit "$A" 30
	kill -INT "$TR"
	wait_exit "$TR" 20
	grep -qE "^=== pid $A: " "$T/sys.txt"
	local n
	n=$(sed -nE 's/^Loop barrier .* \(mutex \+ condvar\) \(pid [0-9]+\): ([0-9]+) episodes$/\1/p' "$T/sys.txt")
	[ -n "$n" ]
	[ "$n" -ge 200 ]
	[ "$n" -le 201 ]
}

@test "top in a terminal (tmux): the job table, its threads on Enter, q quits" {
	command -v tmux >/dev/null || skip "tmux not installed"
	start_workload "$T/a.out" "$EX/barrier_imbalance" -t 3 -n 1000 -d 5 -m sleep -W
	A=$WL
	TMUX_SESSION=sbt-top-$$
	tmux new-session -d -s "$TMUX_SESSION" -x 200 -y 30 "$SBT top -p $A; sleep 30"
	release "$A"
	# a row with figures: the balance of workers computing 5, 10 and 15 ms is below 1
	poll_pane "^ +$A +4 +[0-9]+ +[0-9.]+ +[0-9.]+ +0\.[0-9]+ "
	cat "$T/pane"
	grep -q "PID  THR    PHASE     PH/S  WAIT%   BAL    PE  LOCK%  DROPS  WORST SITE" "$T/pane"
	# the worst site keeps its line number when the function does not fit
	grep -qE "^ +$A +4 +[0-9]+ +[0-9.]+ +[0-9.]+ +0\.[0-9]+ .* barrier_imbalance\.c:[0-9]+ " "$T/pane"
	tmux send-keys -t "$TMUX_SESSION" Enter
	poll_pane "^pid $A: "
	# the four threads come with the heading or at the next refresh
	local i
	for ((i = 0; i < 200; i++)); do
		tmux capture-pane -p -t "$TMUX_SESSION" >"$T/pane2"
		[ "$(grep -cE '^ +[0-9]+ barrier_imbalan +[0-9]+ ' "$T/pane2")" -eq 4 ] && break
		sleep 0.05
	done
	cat "$T/pane2"
	grep -q "^pid $A: " "$T/pane2"
	[ "$(grep -cE '^ +[0-9]+ barrier_imbalan +[0-9]+ ' "$T/pane2")" -eq 4 ]
	# the main thread sleeps in pthread_join: blocked, not running
	grep -qE "^ +$A barrier_imbalan .* blocked$" "$T/pane2"
	# q: sbt-bpf ends
	local shell top
	shell=$(tmux list-panes -t "$TMUX_SESSION" -F '#{pane_pid}')
	top=$(pgrep -P "$shell" -x sbt-bpf)
	[ -n "$top" ]
	tmux send-keys -t "$TMUX_SESSION" q
	for ((i = 0; i < 200; i++)); do
		kill -0 "$top" 2>/dev/null || break
		sleep 0.05
	done
	run kill -0 "$top"
	[ "$status" -ne 0 ]
}

@test "top without a terminal: tab-separated blocks with the job's live figures" {
	start_workload "$T/a.out" "$EX/barrier_imbalance" -t 3 -n 200 -d 5 -m sleep -W
	A=$WL
	start_system "$T/top.txt" top -a --interval 0.5
	release "$A"
	wait_exit "$A" 30
	# a block after the job ended, with its final phase count
	wait_for "$T/top.txt" "^$A	.*	exited	" 10
	kill -INT "$TR"
	wait_exit "$TR" 20
	cat "$T/top.txt"
	# every interval's phase count, phase rate, wait % and balance against
	# the workers' own arrival and departure times
	$CHECK top "$T/top.txt" "$T/a.out" "$A" 0.5
}
