#!/usr/bin/env bats
# Barrier phases of real workloads, compared with their own timings.
load helpers

@test "launch: pthread barrier example, exact phase count, late thread and times" {
	run "$SBT" record -o "$T/b.sbt" -- "$EX/barrier_imbalance" -t 4 -n 6 -d 20 -m sleep
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/b.sbt" >"$T/b.json"
	$CHECK imbalance "$T/b.json" "$T/wl.out" "$T/b.sbt" 6
}

# Per-CPU ring buffers merged back into time order (user/bpf/rings.c): a hot
# barrier loop of four threads on the VM's CPUs, every phase exact against
# the workload's own clocks, one serial thread each, no record out of
# order; the shared ring (--shared-ring) the same.
@test "per-CPU rings: a hot 4-thread barrier loop, records in time order, every phase exact" {
	local ring
	for ring in per-CPU --shared-ring; do
		run "$SBT" record -v $([ $ring = per-CPU ] || echo $ring) -o "$T/h.sbt" -- \
			"$EX/barrier_imbalance" -t 4 -n 2000 -d 0
		[ "$status" -eq 0 ]
		echo "$output" >"$T/wl.out"
		if [ $ring = per-CPU ]; then
			grep -q "per-CPU ring buffers of" "$T/wl.out"
		else
			grep -q "one ring buffer of .* shared by the CPUs" "$T/wl.out"
		fi
		"$SBT" report --format json "$T/h.sbt" >"$T/h.json"
		# 1 window per thousand may be a stall of the host's (checks.py)
		$CHECK imbalance "$T/h.json" "$T/wl.out" "$T/h.sbt" 2000 1
	done
}

@test "attach: -p on a running process, threads created after attach" {
	start_workload "$T/wl.out" "$EX/barrier_imbalance" -t 3 -n 5 -d 20 -m sleep -W
	start_tracer "$T/sbt.out" record -p "$WL" -o "$T/a.sbt"
	kill -USR1 "$WL"
	# the tracer ends by itself when the target exits
	wait_exit "$TR" 20
	grep -q "wrote $T/a.sbt" "$T/sbt.out.err"
	"$SBT" report --format json "$T/a.sbt" >"$T/a.json"
	$CHECK imbalance "$T/a.json" "$T/wl.out" "$T/a.sbt" 5
}

# Attached while the workers loop: the episode in progress (and the next,
# for threads that were waiting unseen) began before the probes: marked
# partial in every view and left out of the statistics; the rest are whole
# workload phases.
@test "attach mid-run: the first episodes are partial, marked, and out of the statistics" {
	# 2 s of phases: the attach (its calibration first) took 0.5 s on a
	# 16-core machine, where 60 phases (0.3 s) had ended before it
	start_workload "$T/wl.out" "$EX/barrier_imbalance" -t 3 -n 400 -d 5 -m sleep -W
	kill -USR1 "$WL"
	wait_for "$T/wl.out" "^phase 2 "
	start_tracer "$T/sbt.out" record -p "$WL" -o "$T/a.sbt"
	wait_exit "$TR" 30
	grep -q "wrote $T/a.sbt" "$T/sbt.out.err"
	"$SBT" report --format json "$T/a.sbt" >"$T/a.json"
	$CHECK attach "$T/a.json" "$T/wl.out" "$T/a.sbt"
	"$SBT" report "$T/a.sbt" >"$T/a.txt"
	n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["partial_phases"])' "$T/a.json")
	[ "$(grep -c '\[partial: began before attach\]$' "$T/a.txt")" -eq "$n" ]
	grep -qE "^SBT summary: [0-9]+ phases \($n partial: began before attach, not in the statistics\)" "$T/a.txt"
	"$SBT" export --format csv -o "$T/a.csv" "$T/a.sbt"
	[ "$(awk -F, 'NR > 1 && $8 == 1 {print $1}' "$T/a.csv" | sort -u | wc -l)" -eq "$n" ]
}

# Tracing stops (-d) while threads wait at a barrier that releases every
# few milliseconds: that episode was cut, not left unreleased.
@test "-d: a barrier open when tracing stops is no unreleased-barrier alarm" {
	start_workload "$T/wl.out" "$EX/barrier_imbalance" -t 3 -n 500 -d 5 -m sleep -W
	kill -USR1 "$WL"
	wait_for "$T/wl.out" "^phase 2 "
	start_tracer "$T/sbt.out" -q -d 1 -p "$WL"
	wait_exit "$TR" 20
	grep -q "^SBT summary: [1-9][0-9]* phases" "$T/sbt.out"
	refute_grep -q "UNRELEASED" "$T/sbt.out"
	refute_grep -q "HANG" "$T/sbt.out"
}

@test "live: one SBT line per episode with barrier and phase times" {
	run "$SBT" -- "$EX/barrier_imbalance" -t 2 -n 4 -d 30 -m sleep
	[ "$status" -eq 0 ]
	lines=$(grep -cE '^worker_main \(barrier_imbalance.c:[0-9]+\) "phase_barrier" \(barrier: [0-9.]+ ms, phase [0-9]+: [0-9.]+ ms, from start: [0-9.]+ s\)$' <<<"$output")
	[ "$lines" -eq 4 ]
	# each line's barrier and phase time against the workers' own arrivals
	echo "$output" >"$T/out"
	$CHECK live "$T/out" 4
	grep -q "Loop barrier worker_main" <<<"$output"
	grep -q "No records lost." <<<"$output"
	refute_grep -qF '(no barrier phase:' <<<"$output"
}

# A thread blocked in pthread_cond_wait the whole run (a monitor): the
# records held for the condvar's classification wait at most 1 s live, so
# the live lines come while the run goes on (before: all at its end). The
# run's 30 phases of ~100 ms and the lines share one file, in the order
# written: an SBT line before the workload's own phase 25, 2.5 s in.
@test "live: a thread waiting on a condvar the whole run holds no line back" {
	"$SBT" -- "$EX/barrier_imbalance" -t 2 -n 30 -d 50 -m sleep -i >"$T/out" 2>&1
	grep -q '^idle tid [0-9]* waited_ns' "$T/out"
	[ "$(grep -c '"phase_barrier" (barrier: ' "$T/out")" -eq 30 ]
	first_sbt=$(grep -n -m1 '"phase_barrier" (barrier: ' "$T/out" | cut -d: -f1)
	phase25=$(grep -n -m1 '^phase 25 thread' "$T/out" | cut -d: -f1)
	[ -n "$first_sbt" ]
	[ -n "$phase25" ]
	[ "$first_sbt" -lt "$phase25" ]
}

@test "live: --watch prints arrival order, --warn-time warns" {
	# barriers of ~40 ms: well above the limit unless the machine is very busy
	run "$SBT" --watch phase_barrier --warn-time 15 -- "$EX/barrier_imbalance" -t 3 -n 3 -d 20 -m sleep
	[ "$status" -eq 0 ]
	[ "$(grep -c 'Order of arrival' <<<"$output")" -eq 3 ]
	[ "$(grep -c '^SBT WARNING: ' <<<"$output")" -eq \
		"$(grep -c '^SBT WARNING: .*(barrier: [0-9.]* ms > 15 ms, phase [0-9]: ' <<<"$output")" ]
	# the blocks list the workers in their order of arrival with their own
	# compute and wait times; a warning exactly for the phases over 15 ms
	echo "$output" >"$T/out"
	$CHECK watch "$T/out" 3 15
}

# OMP_WAIT_POLICY=passive (and KMP_USE_YIELD=0 for libomp): waiting threads
# sleep. Three threads spinning or yielding on two CPUs are preempted in
# nearly every barrier call, and a preempted call's times can only be
# checked loosely against the workload's own.
@test "libgomp: explicit and loop barriers of an OpenMP program (gcc)" {
	run env OMP_WAIT_POLICY=passive OMP_NUM_THREADS=3 "$SBT" record -o "$T/g.sbt" -- "$EX/omp_barriers_gomp" -n 3 -d 15
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/g.sbt" >"$T/g.json"
	$CHECK omp "$T/g.json" "$T/wl.out" "$T/g.sbt" 3
}

@test "libomp: explicit and loop barriers of an OpenMP program (clang)" {
	run env OMP_WAIT_POLICY=passive KMP_USE_YIELD=0 OMP_NUM_THREADS=3 "$SBT" record -o "$T/l.sbt" -- "$EX/omp_barriers_llvm" -n 3 -d 15
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/l.sbt" >"$T/l.json"
	$CHECK omp "$T/l.json" "$T/wl.out" "$T/l.sbt" 3
}

# single copyprivate: libgomp's is two functions, the waiters in
# GOMP_single_copy_start and the runner (whose GOMP_single_copy_start
# returns at once, no wait) in GOMP_single_copy_end; libomp's one,
# __kmpc_copyprivate, for the whole team.
@test "single copyprivate: one barrier episode per construct, the thread that ran it last (gcc, clang)" {
	local rt
	for rt in gomp llvm; do
		run env OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 "$SBT" record -o "$T/c.sbt" -- \
			"$EX/omp_barriers_$rt" -n 4 -d 5 -c
		[ "$status" -eq 0 ]
		echo "$output" >"$T/wl.out"
		"$SBT" report --format json "$T/c.sbt" >"$T/c.json"
		$CHECK copyprivate "$T/c.json" "$T/wl.out" "$T/c.sbt" 4
	done
}

# Phoenix's way: no barrier at all, the threads created and joined at every
# step; the steps from the thread records, checked against the workload's
# own creation, start, end and join times. Run by a shell, the report is the
# program's (the process that created threads), not the shell's.
@test "fork-join steps: threads created and joined at every step, each a step of the main thread" {
	run "$SBT" record -o "$T/fj.sbt" -- "$EX/fork_join" -t 4 -n 3 -l 20000 -b 1000
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/fj.sbt" >"$T/fj.json"
	$CHECK fork_join "$T/fj.json" "$T/wl.out" "$T/fj.sbt" 4
	run "$SBT" -- sh -c "'$EX/fork_join' -t 4 -n 2 -l 20000 -b 200; true"
	[ "$status" -eq 0 ]
	# 2 word counts: a map step of 4 threads and a merge of 2 each, 2 steps
	# of one thread; the warning names the program, not the shell
	[[ "$output" == *"the fork-join steps' load balance is below"* ]]
	echo "$output" | grep -Eq '^ +[0-9]+ +[0-9]+ +4 +2 +3\.0 '
	echo "$output" | grep -q "^sbt-bpf: warning: '$EX/fork_join -t 4 -n 2 -l 20000 -b 200' synchronized its threads"
}

# Attached mid-run: thread creations are recorded before the join probe
# goes in; the steps of that window are still each the workload's own.
@test "fork-join steps attached to mid-run (-p): no step merged with the next" {
	start_workload "$T/wl.out" "$EX/fork_join" -t 4 -n 40 -l 20000 -b 1000 -W
	kill -USR1 "$WL"
	wait_for "$T/wl.out" "^step 2 threads"
	start_tracer "$T/sbt.out" record -p "$WL" -o "$T/a.sbt"
	wait_exit "$TR" 30
	"$SBT" report --format json "$T/a.sbt" >"$T/a.json"
	$CHECK fork_join_attached "$T/a.json" "$T/wl.out" "$T/a.sbt" 4
}

# Fortran (gfortran, libgomp), NPB's way: one region around the time loop,
# SINGLE, a DO with a reduction, NOWAIT, an explicit BARRIER; sites named by
# the .F90 file's lines; with the shim and with plain uprobes.
@test "gfortran OpenMP: single, reduction and explicit barriers, each a step, named by the .F90 line" {
	local shim
	for shim in --shim --no-shim; do
		run env OMP_NUM_THREADS=2 "$SBT" record "$shim" -o "$T/f.sbt" -- "$EX/omp_heat_gfortran" 20 200 3000
		[ "$status" -eq 0 ]
		echo "$output" >"$T/wl.out"
		"$SBT" report --format json "$T/f.sbt" >"$T/f.json"
		$CHECK timed "$T/f.json" "$T/wl.out" "$T/f.sbt" 20 omp_heat.F90
	done
}

# A region holding `cancel parallel` and a loop holding `cancel for` (a
# search): every barrier of the region is the runtime's cancellable one.
@test "OpenMP cancellation: a cancellable region's barriers, each a step (gcc, clang)" {
	local rt
	for rt in gomp llvm; do
		run env OMP_NUM_THREADS=2 "$SBT" record -o "$T/c.sbt" -- "$EX/omp_cancel_$rt" -n 10 -d 3
		[ "$status" -eq 0 ]
		echo "$output" >"$T/wl.out"
		"$SBT" report --format json "$T/c.sbt" >"$T/c.json"
		$CHECK cancel "$T/c.json" "$T/wl.out" "$T/c.sbt" 10
	done
}

# C++ (a class's methods hold the loops, as in LULESH): g++'s outlined
# functions are named demangled, clang's by their .cpp lines.
@test "C++ OpenMP: a method's loops, reduction and explicit barrier, named demangled (g++) and by line (clang++)" {
	run env OMP_NUM_THREADS=2 "$SBT" record -o "$T/g.sbt" -- "$EX/omp_domain_gomp" 20 100000 3000
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/g.sbt" >"$T/g.json"
	$CHECK timed "$T/g.json" "$T/wl.out" "$T/g.sbt" 20 omp_domain.cpp \
		"Domain::advance(int, int) [clone ._omp_fn.0]"
	run env OMP_NUM_THREADS=2 "$SBT" record -o "$T/l.sbt" -- "$EX/omp_domain_llvm" 20 100000 3000
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/l.sbt" >"$T/l.json"
	$CHECK timed "$T/l.json" "$T/wl.out" "$T/l.sbt" 20 omp_domain.cpp
}

@test "hang: a barrier that never releases names the missing thread" {
	bg "$T/sbt.out" "$SBT" --hang-timeout 1 -- "$EX/hang_barrier" -t 3 -g 2
	wait_for "$T/sbt.out" "^SBT HANG" 15
	straggler=$(sed -nE 's/^straggler tid ([0-9]+)$/\1/p' "$T/sbt.out")
	[ -n "$straggler" ]
	grep -A2 '^SBT HANG' "$T/sbt.out" | grep -qE "^    missing: $straggler \(hang_barrier\)$"
	grep '^SBT HANG' "$T/sbt.out" | grep -q '"hang_barrier"'
	[ "$(grep -A1 '^SBT HANG' "$T/sbt.out" | grep -oE '[0-9]+ \(hang_barrier\)' | wc -l)" -eq 2 ]
	# exactly the two good phases completed
	[ "$(grep -c '"hang_barrier" (barrier:' "$T/sbt.out")" -eq 2 ]
}

# The commonest reason a barrier never completes: a thread of the team is
# gone (returned early, died). The hang report says so, with when.
@test "hang: a missing thread that exited is said to have, live and in the trace's JSON" {
	bg "$T/sbt.out" "$SBT" --hang-timeout 1 -o "$T/h.sbt" -- "$EX/hang_barrier" -t 3 -g 2 -x
	wait_for "$T/sbt.out" "^SBT HANG" 15
	straggler=$(sed -nE 's/^straggler tid ([0-9]+)$/\1/p' "$T/sbt.out")
	[ -n "$straggler" ]
	grep -A2 '^SBT HANG' "$T/sbt.out" |
		grep -qE "^    missing: $straggler \(hang_barrier, exited at [0-9]+\.[0-9]{3} s\)$"
	kill -INT "$BG"
	wait_exit "$BG" 10
	"$SBT" report --hang-timeout 1 --format json "$T/h.sbt" >"$T/h.json"
	python3 - "$T/h.json" "$straggler" <<'PY'
import json, sys
hangs = json.load(open(sys.argv[1]))["hangs"]
assert len(hangs) == 1, hangs
h = hangs[0]
assert h["missing"] == [int(sys.argv[2])], h
assert [m["tid"] for m in h["missing_exited"]] == [int(sys.argv[2])], h
# it exited after its last departure and before the hang was reported
assert 0 < h["missing_exited"][0]["exit_ns"] <= h["since_ns"] + 10**9, h
PY
}

# wait_in_futex PID TID: until thread TID of PID sleeps in futex() (x86_64
# syscall 202): at a barrier, in this workload.
wait_in_futex() {
	local i
	for ((i = 0; i < 400; i++)); do
		[ "$(cut -d' ' -f1 "/proc/$1/task/$2/syscall" 2>/dev/null)" = 202 ] && return 0
		sleep 0.01
	done
	echo "thread $2 never waited in futex()" >&2
	return 1
}

# A barrier cannot release while its process is stopped (SIGSTOP, Ctrl-Z, a
# debugger): that is a stop, named with the stopped threads, not a hang; once
# continued, the waits that held the stop are no hang either, and every
# phase is exact.
@test "a process stopped (SIGSTOP) at a barrier longer than --hang-timeout: reported stopped, not hung" {
	start_workload "$T/wl.out" "$EX/barrier_imbalance" -t 2 -n 4 -d 300 -m sleep -W
	start_tracer "$T/sbt.out" --hang-timeout 1 -o "$T/s.sbt" -p "$WL"
	kill -USR1 "$WL"
	wait_for "$T/wl.out" '^phase 0 thread 0 '
	tid0=$(sed -nE 's/^phase 0 thread 0 tid ([0-9]+) .*/\1/p' "$T/wl.out")
	# thread 0 waits for thread 1 at the barrier of phase 1: stop them there
	wait_in_futex "$WL" "$tid0"
	kill -STOP "$WL"
	wait_for "$T/sbt.out" '^SBT STOPPED: worker_main \(barrier_imbalance\.c:[0-9]+\) "phase_barrier"' 10
	grep -qE "^SBT STOPPED: .* \(pid $WL\): 1 thread waiting since [0-9.]+ s, 1 missing, 3 stopped$" "$T/sbt.out"
	grep -A3 '^SBT STOPPED' "$T/sbt.out" | grep -qE "^    stopped: .*\b$tid0 \(barrier_imbalan\).* \(SIGSTOP or a debugger"
	kill -CONT "$WL"
	wait_exit "$TR" 30
	refute_grep -qE '^SBT (HANG|UNRELEASED)' "$T/sbt.out"
	[ "$(grep -c '^SBT STOPPED' "$T/sbt.out")" -eq 1 ]
	"$SBT" report --format json "$T/s.sbt" >"$T/r.json"
	$CHECK imbalance "$T/r.json" "$T/wl.out" "$T/s.sbt" 4
}

@test "--probe: a user-declared team barrier wrapping pthread_barrier_wait counts once" {
	bg "$T/sbt.out" "$SBT" --hang-timeout 1 --probe "$EX/hang_barrier:barrier_wait_checked:team" \
		-- "$EX/hang_barrier" -t 3 -g 3
	wait_for "$T/sbt.out" "^SBT HANG" 15
	[ "$(grep -c '"barrier_wait_checked" (barrier:' "$T/sbt.out")" -eq 3 ]
	refute_grep -q '"hang_barrier" (barrier:' "$T/sbt.out"
}

@test "Ctrl-C detaches, prints the summary and leaves the target running" {
	start_workload "$T/wl.out" "$EX/barrier_imbalance" -t 2 -n 100000 -d 5 -m sleep -W
	kill -USR1 "$WL"
	start_tracer "$T/sbt.out" -q -p "$WL"
	# five more phases (two lines each) while traced
	wait_lines "$T/wl.out" '^phase' $(($(grep -c '^phase' "$T/wl.out") + 10)) 20
	kill -INT "$TR"
	wait_exit "$TR" 20
	grep -qE "^SBT summary: [1-9][0-9]* phases" "$T/sbt.out"
	# the target goes on synchronizing after we left
	kill -0 "$WL"
	wait_lines "$T/wl.out" '^phase' $(($(grep -c '^phase' "$T/wl.out") + 4)) 20
	refute_grep -q 'Z (zombie)\|T (stopped)' /proc/"$WL"/status
}

@test "per-function uprobes (kernels without multi-uprobe links) give the same phases" {
	run env SBT_BPF_NO_UPROBE_MULTI=1 OMP_WAIT_POLICY=passive OMP_NUM_THREADS=3 "$SBT" record -v -o "$T/f.sbt" \
		-- "$EX/omp_barriers_gomp" -n 2 -d 15
	[ "$status" -eq 0 ]
	[[ "$output" == *"multi-uprobe links unavailable"*"one link per function"* ]]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/f.sbt" >"$T/f.json"
	$CHECK omp "$T/f.json" "$T/wl.out" "$T/f.sbt" 2
}

# Implicit barriers: a time-stepped solver of four kinds of parallel
# regions (static, dynamic and guided loops, a region with a worksharing
# loop, single, collapse, nowait and critical), gcc and clang builds: each
# region instance one episode in program order, each arrival after the
# thread's own last statement, each share starting before its first, the
# late thread the one the threads' own clocks say.
# The _cet builds begin every function with endbr64, as Ubuntu's compilers
# do: the bodies' probes go past it (user/resolve/probes.c), and a body must
# still be known by its own address.
@test "OpenMP implicit barriers: every region instance, its team, late thread and shares (gcc, clang)" {
	local b
	for b in gomp llvm gomp_cet llvm_cet; do
		OMP_NUM_THREADS=2 run "$SBT" record -o "$T/$b.sbt" -- "$EX/omp_kernels_$b" -s 4 -n 1200
		[ "$status" -eq 0 ]
		echo "$output" >"$T/$b.out"
		"$SBT" report --format json "$T/$b.sbt" >"$T/$b.json"
		$CHECK omp_kernels "$T/$b.json" "$T/$b.out" "$T/$b.sbt" 4
	done
}

# Teams that change: one region's num_threads cycling 1..3, and nested
# regions (nesting inactive, the default: each outer thread's inner region
# is a team of one, two instances of one body at once). Every instance is
# one episode with the team that ran it (gcc, clang).
@test "OpenMP: num_threads changes and nested regions, every instance its own team (gcc, clang)" {
	local b
	for b in gomp llvm; do
		OMP_MAX_ACTIVE_LEVELS=1 OMP_NUM_THREADS=3 run "$SBT" record -o "$T/$b.sbt" -- \
			"$EX/omp_nested_$b" -s 6 -u 4000
		[ "$status" -eq 0 ]
		echo "$output" >"$T/$b.out"
		grep -q "^steps 6 levels 1$" "$T/$b.out"
		"$SBT" report --format json "$T/$b.sbt" >"$T/$b.json"
		$CHECK omp_nested "$T/$b.json" "$T/$b.out" "$T/$b.sbt" 6
	done
}

# A stripped binary names no region body: each is probed when its region
# first forks (the frame's entry carries the body's address). The instances
# forked before count as regions, not episodes; every later one is an episode
# with its whole team and the late thread the threads' clocks say; launched
# and attached to with -p (gcc, clang).
@test "OpenMP implicit barriers of stripped binaries: bodies probed when first forked (gcc, clang; launch, -p)" {
	local b
	for b in gomp llvm; do
		strip -o "$T/k_$b" "$EX/omp_kernels_$b"
		refute_grep -q "omp_outlined\|_omp_fn" <(nm "$T/k_$b" 2>&1)
		OMP_NUM_THREADS=2 run "$SBT" record -o "$T/$b.sbt" -- "$T/k_$b" -s 10 -n 1200
		[ "$status" -eq 0 ]
		echo "$output" >"$T/$b.out"
		grep -q "a region body not probed before it ran (the program is stripped" "$T/$b.out"
		"$SBT" report --format json "$T/$b.sbt" >"$T/$b.json"
		$CHECK omp_kernels "$T/$b.json" "$T/$b.out" "$T/$b.sbt" 10 stripped

		OMP_NUM_THREADS=2 start_workload "$T/p$b.out" "$T/k_$b" -s 10 -n 1200 -W
		start_tracer "$T/p$b.sbt.out" record -p "$WL" -o "$T/p$b.sbt"
		kill -USR1 "$WL"
		wait_exit "$TR" 30
		"$SBT" report --format json "$T/p$b.sbt" >"$T/p$b.json"
		$CHECK omp_kernels "$T/p$b.json" "$T/p$b.out" "$T/p$b.sbt" 10 stripped
	done
}

# A barrier reached by a tail call (gcc ends both sweeps' bodies with
# `jmp GOMP_barrier`) returns into the runtime, where every body returns:
# its site is the body that made the call, so two barriers stay two sites.
@test "OpenMP: tail-called barriers stay apart, each at its own region body (gcc, clang)" {
	local b
	for b in gomp llvm; do
		OMP_NUM_THREADS=2 run "$SBT" -q --report "$T/$b.json" --format json -- "$EX/omp_tailcall_$b" -s 4
		[ "$status" -eq 0 ]
		python3 - "$T/$b.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sites = [s for s in r["sites"] if not s["implicit"]]
assert len(sites) == 2, [(s["call_site"], s["episodes"]) for s in sites]
assert all(s["episodes"] == 4 for s in sites), [(s["call_site"], s["episodes"]) for s in sites]
where = " ".join(s["call_site"] for s in sites)
assert ("x_sweep" in where and "y_sweep" in where) or where.count("omp_outlined") == 2, where
assert all("omp_tailcall.c:" in s["call_site"] for s in sites), where
PY
	done
}

# An OpenMP program whose only barriers are the implicit ones of its
# `parallel for` regions is traced (-p too), never refused; each region is
# counted and is a phase, as many as the program ran (gcc and clang builds).
@test "OpenMP parallel for only: -p is not refused, every region counted and a phase (gcc, clang)" {
	local b
	for b in omp_for_gomp omp_for_llvm; do
		OMP_NUM_THREADS=2 start_workload "$T/$b.out" "$EX/$b" -r 6 -i 4 -d 2 -W
		start_tracer "$T/$b.sbt.out" record -p "$WL" -o "$T/$b.sbt"
		kill -USR1 "$WL"
		wait_exit "$TR" 30
		refute_grep -q "calls none of the functions" "$T/$b.sbt.out.err"
		grep -q "^regions 6$" "$T/$b.out"
		"$SBT" report --format json "$T/$b.sbt" >"$T/$b.json"
		[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["regions"]["count"])' "$T/$b.json")" -eq 6 ]
		# each region is a phase of its implicit barrier (-p attaches
		# before the first: none is partial)
		[ "$(python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(sum(p["implicit"] and not p["partial"] for p in r["phases"]))' "$T/$b.json")" -eq 6 ]
	done
}

# Splash-3's default BARRIER macro: a mutex, a condition variable, a
# counter. Recognized from the records; every episode a phase, the first
# ones too; with the lock probes on, the rule against a woken waiter that
# waits again holds for it as well.
# C++ std::thread with a std::mutex + std::condition_variable barrier whose
# last thread is always the slowest (a load imbalance that stays): without
# unlocks traced it looks like a producer releasing idle consumers and is
# said to be ambiguous; with them it is a barrier, every step an episode.
@test "C++ condvar barrier whose late thread never changes: ambiguous without unlocks, a barrier with them" {
	local mode opts
	for mode in nolocks locks; do
		opts=()
		[ "$mode" = locks ] && opts=(--trace lock,cond)
		run "$SBT" record "${opts[@]}" -o "$T/t.sbt" -- "$EX/cxx_team" 2 20 2000
		[ "$status" -eq 0 ]
		echo "$output" >"$T/wl.out"
		"$SBT" report --format json "$T/t.sbt" >"$T/t.json"
		$CHECK team "$T/t.json" "$T/wl.out" "$T/t.sbt" 20 "$mode"
	done
	run "$SBT" report "$T/t.sbt"
	[ "$status" -eq 0 ]
	refute_grep -q "one thread's broadcast released the same waiters" <<<"$output"
	"$SBT" record -o "$T/n.sbt" -- "$EX/cxx_team" 2 20 2000 >"$T/wl.out"
	run "$SBT" report "$T/n.sbt"
	if "$SBT" report --format json "$T/n.sbt" | grep -q '"same_broadcaster": true'; then
		grep -q "one thread's broadcast released the same waiters every time" <<<"$output"
	fi
}

@test "a barrier made of a mutex and a condvar (Splash-3's macro): every episode, late thread, times" {
	local trace
	for trace in barrier,cond all; do
		run "$SBT" record --trace "$trace" -e context-switches -o "$T/cb.sbt" -- \
			"$EX/cond_barrier" -t 4 -n 4 -c 200000
		[ "$status" -eq 0 ]
		echo "$output" >"$T/cb.out"
		"$SBT" report --format json "$T/cb.sbt" >"$T/cb.json"
		$CHECK condbar "$T/cb.json" "$T/cb.out" "$T/cb.sbt" 9
	done
	"$SBT" report "$T/cb.sbt" >"$T/cb.txt"
	grep -q 'Loop barrier barrier_call (cond_barrier.c:[0-9]*) "gm+0x28" (mutex + condvar) (pid [0-9]*): 9 episodes' "$T/cb.txt"
}

# The textbook barrier made of semaphores (Pacheco's pth_sem_bar: a
# semaphore as the counter's mutex, the last thread posts for the others;
# -A: for everyone, and waits too), two barrier semaphores taking turns.
# Recognized from the records: every episode a phase, the first ones too;
# the mutex semaphore no barrier.
@test "a barrier made of semaphores (textbook, both shapes): every episode, late thread, times" {
	local how
	for how in "" -A; do
		run "$SBT" record --trace all -e context-switches -o "$T/sb.sbt" -- \
			"$EX/sem_barrier" -t 4 -n 4 -c 200000 $how
		[ "$status" -eq 0 ]
		echo "$output" >"$T/sb.out"
		"$SBT" report --format json "$T/sb.sbt" >"$T/sb.json"
		$CHECK sembar "$T/sb.json" "$T/sb.out" "$T/sb.sbt" 9
	done
	"$SBT" report "$T/sb.sbt" >"$T/sb.txt"
	[ "$(grep -c 'Loop barrier barrier_call (sem_barrier.c:[0-9]*) "sb+0x[24]0" (semaphores) (pid [0-9]*): [45] episodes' "$T/sb.txt")" -eq 2 ]
}

# A sleep that no record shows, before the post of the mutex semaphore in
# the first barrier call (-S: as the post's own probe hit once slept, the
# kernel rewriting the site under the memory map lock): the window, marked
# where the barrier semaphore's call begins, measured the thread's time off
# its CPU before the mark, and the arrival after it is allowed that much,
# no earlier than the mark. Without the mark, the same trace fails; so does
# a report whose arrivals are later than any allowance, or 0.5 ms earlier.
@test "a barrier made of semaphores, a sleep no record shows before a post: allowed as measured, no more" {
	local by
	run "$SBT" record --trace all -e context-switches -o "$T/sb.sbt" -- \
		"$EX/sem_barrier" -t 4 -n 4 -c 200000 -S 3000
	[ "$status" -eq 0 ]
	echo "$output" >"$T/sb.out"
	"$SBT" report --format json "$T/sb.sbt" >"$T/sb.json"
	$CHECK sembar "$T/sb.json" "$T/sb.out" "$T/sb.sbt" 9
	sed -E 's/ pre_ns .*//' "$T/sb.out" >"$T/nomark.out"
	run $CHECK sembar "$T/sb.json" "$T/nomark.out" "$T/sb.sbt" 9
	[ "$status" -eq 1 ]
	[[ "$output" =~ "FAIL: phase 0 tid "[0-9]+": arrival " ]]
	# later by the thread's whole window and 2 ms (more than any allowance:
	# no time off the CPU exceeds the window), or 0.5 ms earlier
	for by in later -500000; do
		python3 -c 'import json, re, sys
r = json.load(open(sys.argv[1]))
win = {int(m[1]): int(m[3]) - int(m[2]) for m in re.finditer(
    r"^phase 0 thread \d+ tid (\d+) .*?arrive_ns (\d+) depart_ns (\d+)", open(sys.argv[4]).read(), re.M)}
for t in r["phases"][0]["threads"]:
    t["arrive_ns"] += win[t["tid"]] + 2000000 if sys.argv[3] == "later" else int(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))' "$T/sb.json" "$T/moved.json" "$by" "$T/sb.out"
		run $CHECK sembar "$T/moved.json" "$T/sb.out" "$T/sb.sbt" 9
		[ "$status" -eq 1 ]
		[[ "$output" =~ "FAIL: phase 0 tid "[0-9]+": arrival "[0-9.]+" ms "(after the workload|before its call) ]]
	done
}

# Attached: the live lines and the summary of a semaphore barrier.
@test "a semaphore barrier under -p: live lines and the summary count every episode" {
	start_workload "$T/wl.out" "$EX/sem_barrier" -t 3 -n 5 -c 150000 -W
	start_tracer "$T/sbt.out" -p "$WL"
	kill -USR1 "$WL"
	wait_exit "$TR" 30
	grep -q "^SBT summary: 11 phases, 2 barrier site" "$T/sbt.out"
	[ "$(grep -cE '^barrier_call \(sem_barrier.c:[0-9]+\) "sb\+0x[24]0" \(barrier: ' "$T/sbt.out")" -eq 11 ]
}

# The live summary of an attached run: -p, threads created after attach.
@test "a condvar barrier under -p: live lines and the summary count every episode" {
	start_workload "$T/wl.out" "$EX/cond_barrier" -t 3 -n 5 -c 150000 -W
	start_tracer "$T/sbt.out" -p "$WL"
	kill -USR1 "$WL"
	wait_exit "$TR" 30
	grep -q "^SBT summary: 11 phases, 1 barrier site" "$T/sbt.out"
	[ "$(grep -cE '^barrier_call \(cond_barrier.c:[0-9]+\) "gm\+0x28" \(barrier: ' "$T/sbt.out")" -eq 11 ]
}
