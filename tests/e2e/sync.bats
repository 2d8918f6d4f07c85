#!/usr/bin/env bats
# Locks, semaphores, condition variables and futexes of real workloads.
load helpers

# SCHED_FIFO (sbt-bpf and the workers it starts): four threads spinning in
# a critical section on two CPUs otherwise preempt each other inside their
# lock and unlock calls (at every wake-up), and a call's times can only be
# compared with the worker's own as closely as the worker kept its CPU.
@test "mutex: exact acquisition count, hold and wait times against the workers' own" {
	run chrt -f 10 "$SBT" record --trace all -o "$T/m.sbt" -- "$EX/mutex_contention" -t 4 -k 300 -c 20
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	grep -q '^counter 1200$' "$T/wl.out"
	"$SBT" report --format json "$T/m.sbt" >"$T/m.json"
	# (SCHED_FIFO: an exiting worker keeps its CPU from the kernel's wake
	# of its joiner to its exit record, where a join is recognized)
	$CHECK mutex "$T/m.json" "$T/wl.out" 4 300 futex joins
}

@test "mutex: the live summary has the lock table, sortable" {
	run "$SBT" --trace lock,futex --sort hold -- "$EX/mutex_contention" -t 2 -k 100 -c 10
	[ "$status" -eq 0 ]
	grep -qE '^Locks \([0-9]+\):' <<<"$output"
	grep -qE '^counter_lock +mutex +200 ' <<<"$output"
	# threads that ran without a barrier phase: the hint to declare one,
	# and the warning that no barrier is traced
	grep -qF '(no barrier phase: a barrier the program makes itself' <<<"$output"
	grep -qF 'warning: --trace without barrier: no barrier is traced' <<<"$output"
	# locks are not traced by default (the most frequent calls)
	run "$SBT" --force -- "$EX/mutex_contention" -t 2 -k 100 -c 10
	[ "$status" -eq 0 ]
	refute_grep -qE '^Locks \(' <<<"$output"
}

@test "semaphores: P = V = items, FIFO pairing, waits and blocked P's against the threads' own" {
	run "$SBT" record -o "$T/s.sbt" -- "$EX/sem_pipeline" -n 150 -p 100 -c 50
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/s.sbt" >"$T/s.json"
	$CHECK sem "$T/s.json" "$T/wl.out" 150
}

# ... and a work queue's condvar is no barrier: signalled per item, or
# broadcast per item (the woken workers that find the queue empty wait
# again), with the lock probes on or off.
@test "condition variables: waits, signals and broadcasts of a work queue, no barrier" {
	local how
	for how in "all" "all -B" "barrier,cond -B"; do
		set -- $how
		run "$SBT" record --trace "$1" -o "$T/c.sbt" -- "$EX/cond_queue" -t 3 -n 120 -w 100 ${2:-}
		[ "$status" -eq 0 ]
		echo "$output" >"$T/wl.out"
		"$SBT" report --format json "$T/c.sbt" >"$T/c.json"
		$CHECK cond "$T/c.json" "$T/wl.out" 120
	done
}

@test "futex: a hand-made barrier with no exported symbol is seen through futex waits" {
	run "$SBT" record --force -o "$T/f.sbt" -- "$EX/custom_barrier" -t 3 -n 4 -d 10
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/f.sbt" >"$T/f.json"
	$CHECK futex "$T/f.json" "$T/wl.out"
	"$SBT" report "$T/f.sbt" | grep -qE '^Futex waits \([0-9]+\):'
}

@test "futex: the same barrier declared with --probe gives its phases" {
	run "$SBT" record -o "$T/p.sbt" --probe "$EX/custom_barrier:spin_futex_barrier:team" \
		-- "$EX/custom_barrier" -t 3 -n 4 -d 10
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/p.sbt" >"$T/p.json"
	# phases, late threads and times against the workers' own windows; blocked
	# time exactly in the arrivals where the barrier's own futex wait blocked
	$CHECK custom "$T/p.json" "$T/wl.out" "$T/p.sbt" 4
}

# A sense-reversing barrier is handed each thread's own flag: probed as
# :barrier, each thread is a barrier of its own, and the report says why and
# what to do; probed as :team, its phases against the workers' windows.
@test "--probe of a barrier whose argument is the thread's own flag: a note says so; as :team, its phases" {
	run "$SBT" record -o "$T/s.sbt" --probe "$EX/custom_barrier:sense_barrier:barrier" \
		-- "$EX/custom_barrier" -t 3 -n 4 -d 10 -s
	[ "$status" -eq 0 ]
	"$SBT" report "$T/s.sbt" >"$T/s.txt"
	grep -qE '^    note: sense_barrier \(pid [0-9]+\): every one of its 3 objects had one thread' "$T/s.txt"
	grep -qF -- '--probe FILE:sense_barrier:team' "$T/s.txt"
	run "$SBT" record -o "$T/t.sbt" --probe "$EX/custom_barrier:sense_barrier:team" \
		-- "$EX/custom_barrier" -t 3 -n 4 -d 10 -s
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/t.sbt" >"$T/t.json"
	$CHECK custom "$T/t.json" "$T/wl.out" "$T/t.sbt" 4 spin
	"$SBT" report "$T/t.sbt" >"$T/t.txt"
	refute_grep -q 'note: sense_barrier' "$T/t.txt"
}

@test "--probe BINARY:0xADDR:KIND: a stripped binary's barrier by its address" {
	cp "$EX/custom_barrier" "$T/stripped"
	strip "$T/stripped"
	local addr
	addr=0x$(nm "$EX/custom_barrier" | awk '$3 == "spin_futex_barrier" {print $1}')
	[ "$addr" != 0x ]
	run "$SBT" record -o "$T/s.sbt" --probe "$T/stripped:$addr:team" -- "$T/stripped" -t 3 -n 4 -d 10
	[ "$status" -eq 0 ]
	"$SBT" report --format json "$T/s.sbt" >"$T/s.json"
	$CHECK phases "$T/s.json" 4
	run "$SBT" --probe "$T/stripped:0x1:team" -- "$T/stripped" -t 3 -n 1 -d 1
	[ "$status" -ne 0 ]
	[[ "$output" == *"address 0x1 is in no executable segment of $T/stripped"* ]]
}

@test "bad --trace class is a usage error" {
	run "$SBT" --trace barrier,locks -p 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown class 'locks'"* ]]
}

# OpenMP mutual exclusion in the lock class: omp_set_lock and omp_test_lock
# (failed tests counted) in both runtimes, named and unnamed critical
# sections (libgomp's entry points, libomp's __kmpc_critical with the
# section's word in its third argument); each thread's count against its own.
@test "OpenMP: omp locks and critical sections, exact acquisitions per thread (gcc, clang)" {
	OMP_NUM_THREADS=3 run "$SBT" record --trace lock -o "$T/g.sbt" -- "$EX/omp_critical_gomp" -k 60 -c 10
	[ "$status" -eq 0 ]
	echo "$output" >"$T/g.out"
	"$SBT" report --format json "$T/g.sbt" >"$T/g.json"
	$CHECK omp_locks "$T/g.json" "$T/g.out" gomp
	OMP_NUM_THREADS=3 run "$SBT" record --trace lock -o "$T/l.sbt" -- "$EX/omp_critical_llvm" -k 60 -c 10
	[ "$status" -eq 0 ]
	echo "$output" >"$T/l.out"
	"$SBT" report --format json "$T/l.sbt" >"$T/l.json"
	$CHECK omp_locks "$T/l.json" "$T/l.out" llvm
}

@test "OpenMP tasks: created, run, taskwait and taskgroup waits per thread, task bodies run in them and at barriers (gcc, clang)" {
	local b
	for b in omp_tasks_gomp omp_tasks_llvm; do
		OMP_NUM_THREADS=3 run "$SBT" record --trace barrier,task -o "$T/$b.sbt" -- "$EX/$b" -n 3 -b 16
		[ "$status" -eq 0 ]
		echo "$output" >"$T/$b.out"
		"$SBT" report --format json "$T/$b.sbt" >"$T/$b.json"
		$CHECK tasks "$T/$b.json" "$T/$b.out" "$T/$b.sbt"
		"$SBT" report "$T/$b.sbt" | grep -qE '^Tasks:$'
		# Perfetto: tasks, waits and region shares as nested slices
		"$SBT" export -o "$T/$b.chrome.json" "$T/$b.sbt"
		$CHECK chrome_tasks "$T/$b.chrome.json" "$T/$b.json"
		# a taskloop's tasks, created inside the runtime: counted as run
		OMP_NUM_THREADS=3 run "$SBT" record --trace barrier,task -o "$T/$b-l.sbt" -- "$EX/$b" -n 3 -b 16 -l
		[ "$status" -eq 0 ]
		echo "$output" >"$T/$b-l.out"
		"$SBT" report --format json "$T/$b-l.sbt" >"$T/$b-l.json"
		$CHECK tasks "$T/$b-l.json" "$T/$b-l.out" "$T/$b-l.sbt"
		# recursive tasks, waits nested 14 deep in bodies run in waits:
		# every one counted, waiting and running within the outermost waits
		OMP_NUM_THREADS=2 run "$SBT" record --trace barrier,task -o "$T/$b-r.sbt" -- "$EX/$b" -n 2 -R 14 -u 5
		[ "$status" -eq 0 ]
		echo "$output" >"$T/$b-r.out"
		"$SBT" report --format json "$T/$b-r.sbt" >"$T/$b-r.json"
		$CHECK tasks "$T/$b-r.json" "$T/$b-r.out"
	done
}

# single nowait: the team runs the tasks at the region's end (a region per
# step), where each thread's arrival is the end of its last task. The
# default trace: the task bodies are probed with the barrier class
@test "OpenMP tasks run at the regions' ends are work, default trace: arrivals after them (gcc, clang)" {
	local b
	for b in omp_tasks_gomp omp_tasks_llvm; do
		OMP_NUM_THREADS=3 run "$SBT" record -o "$T/$b.sbt" -- "$EX/$b" -n 4 -b 16 -e
		[ "$status" -eq 0 ]
		echo "$output" >"$T/$b.out"
		"$SBT" report --format json "$T/$b.sbt" >"$T/$b.json"
		$CHECK barrier_tasks "$T/$b.json" "$T/$b.out" "$T/$b.sbt"
	done
}

# libomp's passive wait (KMP_BLOCKTIME=0: at once) sleeps in pthread_cond_wait
# inside __kmpc_barrier: the barrier's time, not the program's (omp_barriers
# makes no lock or condvar call of its own). Counted as condvar waits, a
# thread waited 80 of its 81 ms of barrier time twice.
@test "libomp's passive barrier wait: its condvar calls are the barrier's, not the program's" {
	OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive KMP_BLOCKTIME=0 run "$SBT" -q --report "$T/p.json" \
		--format json -- "$EX/omp_barriers_llvm" -n 20 -d 2
	[ "$status" -eq 0 ]
	python3 - "$T/p.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["phase_count"] >= 40, r["phase_count"]
waited = sum(t["wait_ns"] for t in r["threads"])
assert waited > 10_000_000, waited  # the threads did wait at the barriers
for t in r["threads"]:
    # the runtime's own pool wait between regions may remain: 1 ms
    assert t["sync_wait_ns"] <= 1_000_000, t
assert sum(c["wait_ns"] for c in r["condvars"]) <= 1_000_000, r["condvars"]
PY
}
