#!/usr/bin/env bats
# Call sites name file:line whatever the compiler and debug-info flavour.
load helpers

# build_variant NAME CC FLAGS...: examples/barrier_imbalance.c built so.
build_variant() {
	local name=$1 cc=$2
	shift 2
	"$cc" -O2 "$@" -pthread "$ROOT/examples/barrier_imbalance.c" -o "$T/$name"
}

# The report's barrier call site for a build: "worker_main (barrier_imbalance.c:LINE)"
# with LINE the source line of the workload's pthread_barrier_wait call.
assert_site_line() {
	local bin=$1 line
	line=$(grep -n 'pthread_barrier_wait(&phase_barrier)' "$ROOT/examples/barrier_imbalance.c" | cut -d: -f1)
	run "$SBT" -q --report "$T/$bin.json" --format json -- "$T/$bin" -t 2 -n 2 -d 5 -m sleep
	[ "$status" -eq 0 ] || { echo "$bin: sbt-bpf exited $status: $output"; return 1; }
	python3 - "$T/$bin.json" "$bin" "$line" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = "worker_main (barrier_imbalance.c:%s)" % sys.argv[3]
got = [s["call_site"] for s in r["sites"]]
assert got == [want], "%s: sites %r, expected [%r]" % (sys.argv[2], got, want)
PY
}

@test "call sites resolve to file:line: gcc and clang, DWARF 4 and 5, PIE or not, frame pointers or not" {
	local cc dw pie fp name
	for cc in gcc clang; do
		for dw in 4 5; do
			for pie in pie no-pie; do
				for fp in omit-frame-pointer no-omit-frame-pointer; do
					name=$cc-dwarf$dw-$pie-$fp
					if [ $pie = pie ]; then
						build_variant "$name" $cc -gdwarf-$dw -fPIE -pie -f$fp
					else
						build_variant "$name" $cc -gdwarf-$dw -fno-pie -no-pie -f$fp
					fi
					assert_site_line "$name"
				done
			done
		done
	done
}

@test "clang OpenMP: the outlined region's barrier names omp_barriers.c:LINE" {
	local line
	line=$(grep -n '#pragma omp barrier' "$ROOT/examples/omp_barriers.c" | head -1 | cut -d: -f1)
	run env OMP_WAIT_POLICY=passive KMP_USE_YIELD=0 OMP_NUM_THREADS=2 \
		"$SBT" -q --report "$T/l.json" --format json -- "$EX/omp_barriers_llvm" -n 2 -d 5
	[ "$status" -eq 0 ]
	python3 - "$T/l.json" "$line" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
got = [s["call_site"] for s in r["sites"]]
assert any(s.endswith("(omp_barriers.c:%s)" % sys.argv[2]) for s in got), got
PY
}

# C++: --probe takes a method as C++ writes it ("Class::method", every
# overload; a path and a name with "::" parsed apart), and a name that is
# not there is an error that says so.
@test "C++ --probe by the demangled name: the method's call, timed within the workload's own clock" {
	run env OMP_NUM_THREADS=2 "$SBT" -q --report "$T/m.json" --format json \
		--probe "$EX/omp_domain_gomp:Domain::advance:region" -- "$EX/omp_domain_gomp" 10 20000 500
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	$CHECK method "$T/m.json" "$T/wl.out" Domain::advance
	run "$SBT" -q --probe "$EX/omp_domain_gomp:Domain::nothing:region" -- "$EX/omp_domain_gomp" 2
	[ "$status" -ne 0 ]
	[[ "$output" == *"function 'Domain::nothing' not found"* ]]
}

# -p of a process that execs the program that synchronizes (a wrapper shell):
# its call sites and barriers are named from the new program's files, not
# from the files the tracer read when it attached (the shell's); the job goes
# on across the exec, every phase exact.
@test "-p of a shell that execs the workload: sites and barrier named from the new program (-p PID, -p A,B)" {
	local line sh b
	line=$(grep -n 'pthread_barrier_wait(&phase_barrier)' "$ROOT/examples/barrier_imbalance.c" | cut -d: -f1)
	site="worker_main \\(barrier_imbalance\\.c:$line\\) \"phase_barrier\""
	# exec_later N: a shell that execs the workload once told to (FIFO
	# $T/fifo/goN: in a directory, which teardown does not read)
	mkdir "$T/fifo"
	exec_later() {
		mkfifo "$T/fifo/go$1"
		bg "$T/wl$1.out" sh -c "read x <$T/fifo/go$1; exec $EX/barrier_imbalance -t 3 -n 3 -d 5 -m sleep -W"
		sh=$BG
	}
	go() {
		echo go >"$T/fifo/go$1"
		wait_for "$T/wl$1.out" "^ready $2"
		kill -USR1 "$2"
	}
	exec_later 1
	start_tracer "$T/one.out" --force -o "$T/one.sbt" -p "$sh"
	go 1 "$sh"
	wait_exit "$TR" 30
	[ "$(grep -cE "^$site \\(barrier:" "$T/one.out")" -eq 3 ]
	grep -qE "^Loop barrier $site \\(pid $sh\\): 3 episodes" "$T/one.out"
	"$SBT" report --format json "$T/one.sbt" >"$T/one.json"
	$CHECK imbalance "$T/one.json" "$T/wl1.out" "$T/one.sbt" 3
	# one of two processes
	exec_later 2
	start_workload "$T/wl3.out" "$EX/barrier_imbalance" -t 2 -n 2 -d 5 -m sleep -W
	start_system "$T/two.out" -o "$T/two.sbt" -p "$sh,$WL"
	go 2 "$sh"
	kill -USR1 "$WL"
	wait_exit "$TR" 30
	sed -n "/^=== pid $sh: /,/^=== pid /p" "$T/two.out" >"$T/sh.out"
	grep -qE "^Loop barrier $site \\(pid $sh\\): 3 episodes" "$T/sh.out"
	grep -qE "^Loop barrier $site \\(pid $WL\\): 2 episodes" "$T/two.out"
	[ "$(grep -c '^Loop barrier ' "$T/two.out")" -eq 2 ]
	"$SBT" report --format json --pid "$sh" "$T/two.sbt" >"$T/sh.json"
	$CHECK imbalance "$T/sh.json" "$T/wl2.out" "$T/two.sbt" 3
}

# A process that synchronizes, then execs another program that does: each
# program's barriers are named from its own files, in one job (launch mode).
@test "launch: a program that synchronizes then execs another: each named from its own files" {
	local line
	line=$(grep -n 'pthread_barrier_wait(&phase_barrier)' "$ROOT/examples/barrier_imbalance.c" | cut -d: -f1)
	run "$SBT" --no-shim -- /usr/bin/python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None)
first_barrier = ctypes.create_string_buffer(128)
libc.pthread_barrier_init(first_barrier, None, 1)
for _ in range(2):
    libc.pthread_barrier_wait(first_barrier)
os.execv(sys.argv[1], sys.argv[1:])
' "$EX/barrier_imbalance" -t 2 -n 3 -d 5 -m sleep
	[ "$status" -eq 0 ]
	grep -qE "^Loop barrier worker_main \\(barrier_imbalance\\.c:$line\\) \"phase_barrier\" \\(pid [0-9]+\\): 3 episodes" <<<"$output"
	grep -qE '^Loop barrier .* "pthread_barrier_wait 0x[0-9a-f]+" \(pid [0-9]+\): 2 episodes' <<<"$output"
}

# A program that synchronizes, then execs another that does (barrier_imbalance
# -x stepper): the barrier sites before the exec are named from the first
# program's files, those after it from the second's, in one job. The names
# are read while the process runs, its records later (a drain, their time
# order): by then the process runs the second program. Live and recorded,
# launched, through sh -c, and attached to with -p.
@test "a program that synchronizes then execs another: each program's sites named from its own files (launch, sh -c, record, -p)" {
	local l1 l2 pre post
	l1=$(grep -n 'pthread_barrier_wait(&phase_barrier)' "$ROOT/examples/barrier_imbalance.c" | cut -d: -f1)
	l2=$(grep -n 'pthread_barrier_wait(&step_barrier)' "$ROOT/examples/stepper.c" | cut -d: -f1)
	pre="worker_main \\(barrier_imbalance\\.c:$l1\\) \"phase_barrier\""
	post="worker_main \\(stepper\\.c:$l2\\) \"step_barrier\""
	local bi=("$EX/barrier_imbalance" -t 2 -n 3 -d 5 -m sleep)
	# the second program runs ~0.4 s: -p reads it when its exec record is
	# read, a drain and the records' time order after the exec
	local then=(-x "$EX/stepper" -t 2 -n 2 -k 2 -s 50000)
	local wl=("${bi[@]}" "${then[@]}")
	# named FILE LIVE: FILE's report names both sites, 3 and 2 episodes, none
	# by address; LIVE=1: its episode lines too
	named() {
		if [ "$2" = 1 ]; then
			[ "$(grep -cE "^$pre \\(barrier: " "$1")" -eq 3 ] || { cat "$1"; return 1; }
			[ "$(grep -cE "^$post \\(barrier: " "$1")" -eq 2 ] || { cat "$1"; return 1; }
		fi
		grep -qE "^Loop barrier $pre \\(pid [0-9]+\\): 3 episodes" "$1" || { cat "$1"; return 1; }
		grep -qE "^Loop barrier $post \\(pid [0-9]+\\): 2 episodes" "$1" || { cat "$1"; return 1; }
		[ "$(grep -c '^Loop barrier ' "$1")" -eq 2 ] || { cat "$1"; return 1; }
		refute_grep -E '^Loop barrier 0x|"pthread_barrier_wait 0x' "$1" || { cat "$1"; return 1; }
	}
	run "$SBT" -- "${wl[@]}"
	[ "$status" -eq 0 ]
	echo "$output" >"$T/launch.out"
	named "$T/launch.out" 1
	run "$SBT" -- sh -c "$(printf '%q ' "${wl[@]}")"
	[ "$status" -eq 0 ]
	echo "$output" >"$T/sh.out"
	named "$T/sh.out" 1
	run "$SBT" record -o "$T/r.sbt" -- "${wl[@]}"
	[ "$status" -eq 0 ]
	run "$SBT" report "$T/r.sbt"
	[ "$status" -eq 0 ]
	echo "$output" >"$T/report.out"
	named "$T/report.out" 0
	# attached (not held at the exec): the exec record is read in time order,
	# after the first program's records
	start_workload "$T/wl.out" "${bi[@]}" -W "${then[@]}"
	start_tracer "$T/p.out" -o "$T/p.sbt" -p "$WL"
	kill -USR1 "$WL"
	wait_exit "$TR" 30
	named "$T/p.out" 1
	run "$SBT" report "$T/p.sbt"
	[ "$status" -eq 0 ]
	echo "$output" >"$T/p-report.out"
	named "$T/p-report.out" 0
}
