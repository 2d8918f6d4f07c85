#!/usr/bin/env bats
# Fault injection: the tracer killed, the target killed or gone, tracers
# side by side, targets that cannot be traced. The target is never harmed
# and nothing of the tracer outlives it.
load helpers

# bpf_ids PID: the BPF programs and links process PID holds ("prog_id: N",
# "link_id: N" lines of its descriptors).
bpf_ids() {
	grep -hE '^(prog|link)_id:' /proc/"$1"/fdinfo/* 2>/dev/null | sort -u
}

# gone_ids IDS: every program and link of IDS has been freed (the kernel
# frees them once the last descriptor is closed; allow it a moment).
gone_ids() {
	local kind id i left
	for ((i = 0; i < 40; i++)); do
		left=0
		while read -r kind id; do
			bpftool "${kind%_id:}" show id "$id" >/dev/null 2>&1 && left=$((left + 1))
		done <<<"$1"
		[ "$left" -eq 0 ] && return 0
		sleep 0.05
	done
	echo "$left BPF objects of the killed tracer still loaded" >&2
	return 1
}

# wait_gone PID SECONDS: until PID (not our child) has exited.
wait_gone() {
	local i
	for ((i = 0; i < $2 * 20; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	echo "process $1 still running after $2 s ($(ps -o stat= -p "$1"))" >&2
	return 1
}

# The workload's own output is complete: every phase of every thread.
complete_output() {
	[ "$(grep -cE '^phase [0-9]+ thread ' "$1")" -eq "$2" ]
	grep -qE '^total_ns [0-9]+' "$1"
}

@test "a tracer killed (SIGKILL) mid-run: no program or link of it left, the target finishes as it would (-p and launch)" {
	local ids wl
	start_workload "$T/wl.out" "$EX/barrier_imbalance" -t 3 -n 40 -d 10 -m sleep -W
	start_tracer "$T/sbt.out" -p "$WL"
	kill -USR1 "$WL"
	wait_lines "$T/wl.out" '^phase [0-9]+ thread ' 6
	ids=$(bpf_ids "$TR")
	[ -n "$ids" ]
	kill -KILL "$TR"
	wait "$TR" || true
	wait_exit "$WL" 30
	wait "$WL"
	complete_output "$T/wl.out" 120
	gone_ids "$ids"

	# launch mode: the command runs on with the probe shim loaded (its
	# output, to a file, comes at its exit)
	start_sbt "^sbt-bpf: tracing pid" "$T/l.out" -- "$EX/barrier_imbalance" -t 3 -n 60 -d 10 -m sleep
	wl=$(sed -nE 's/^sbt-bpf: tracing pid ([0-9]+) .*/\1/p' "$T/l.out.err")
	sleep 0.5
	ids=$(bpf_ids "$TR")
	[ -n "$ids" ]
	kill -KILL "$TR"
	wait "$TR" || true
	wait_gone "$wl" 30
	complete_output "$T/l.out" 180
	gone_ids "$ids"
}

@test "a target killed (SIGKILL) mid-run: the tracer reports what it saw and exits 0" {
	start_workload "$T/wl.out" "$EX/barrier_imbalance" -t 3 -n 100000 -d 5 -m sleep -W
	start_tracer "$T/sbt.out" -p "$WL"
	kill -USR1 "$WL"
	wait_lines "$T/wl.out" '^phase [0-9]+ thread ' 9
	kill -KILL "$WL"
	wait_exit "$TR" 20
	wait "$TR"
	grep -qE '^SBT summary: [1-9][0-9]* phases' "$T/sbt.out"
}

@test "two tracers on one process at once: each sees every phase exactly" {
	start_workload "$T/wl.out" "$EX/barrier_imbalance" -t 3 -n 6 -d 10 -m sleep -W
	start_tracer "$T/a.out" record -p "$WL" -o "$T/a.sbt"
	local tr_a=$TR
	start_tracer "$T/b.out" record -p "$WL" -o "$T/b.sbt"
	kill -USR1 "$WL"
	wait_exit "$tr_a" 30
	wait_exit "$TR" 30
	for x in a b; do
		"$SBT" report --format json "$T/$x.sbt" >"$T/$x.json"
		$CHECK imbalance "$T/$x.json" "$T/wl.out" "$T/$x.sbt" 6
	done
}

@test "targets that cannot be traced: itself, a kernel thread, a zombie; said, exit 1" {
	run sh -c "exec $SBT -p \$\$ -d 1"
	[ "$status" -eq 1 ]
	grep -q "is sbt-bpf itself" <<<"$output"
	run "$SBT" -p 2 -d 1
	[ "$status" -eq 1 ]
	grep -q "process 2 is a kernel thread" <<<"$output"
	# sleep 0 exits; its parent (now sleep 30) never collects it
	bg "$T/z.out" sh -c 'sleep 0 & exec sleep 30'
	local z i
	for ((i = 0; i < 100; i++)); do
		z=$(ps -o pid=,stat= --ppid "$BG" | awk '$2 ~ /Z/ {print $1}')
		[ -n "$z" ] && break
		sleep 0.05
	done
	[ -n "$z" ]
	run "$SBT" -p "$z" -d 1
	[ "$status" -eq 1 ]
	grep -q "process $z has exited (a zombie" <<<"$output"
}

# A process that exits while the probes go in: the tracer says what it
# can and exits 0 or 1, never crashes, never hangs.
@test "targets exiting while the probes attach: no crash, no hang" {
	local i rc
	for ((i = 0; i < 8; i++)); do
		"$EX/barrier_imbalance" -t 2 -n 1 -d 0 >/dev/null &
		rc=0
		timeout 20 "$SBT" -p $! -d 2 >"$T/r$i.out" 2>&1 || rc=$?
		wait $! || true
		[ "$rc" -le 1 ] || { cat "$T/r$i.out"; false; }
	done
}

# Tracing changes nothing a program computes or says: every bundled example
# gives the same output (what depends on timing masked: normalize_output.py)
# and exit code under `record` as without it.
@test "every bundled example: the same output and exit code traced as untraced" {
	local name args rc0 rc1 n=0
	while read -r name args; do
		[ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
		rc0=0
		timeout 120 "$EX/$name" $args >"$T/u.out" 2>&1 || rc0=$?
		rc1=0
		timeout 120 "$SBT" record -q -o "$T/x.sbt" -- "$EX/$name" $args >"$T/t.out" 2>"$T/t.err" || rc1=$?
		python3 "$ROOT/tests/e2e/normalize_output.py" "$T/u.out" >"$T/u.norm"
		python3 "$ROOT/tests/e2e/normalize_output.py" "$T/t.out" >"$T/t.norm"
		[ "$rc0" -eq "$rc1" ] || { echo "$name: exit $rc0 untraced, $rc1 traced" >&2; false; }
		diff "$T/u.norm" "$T/t.norm" >&2 || { echo "$name: output differs" >&2; false; }
		n=$((n + 1))
	done <"$ROOT/tests/e2e/examples.list"
	# all of them but hang_barrier, which hangs by design
	[ "$n" -eq $(($(ls "$EX" | wc -l) - 1)) ]
}

# Launch mode stops a process of the tree where it execs until its files
# are probed. A tracer killed then must not leave it stopped: its guard
# (user/trace/guard.h) continues it.
@test "a tracer killed while a process of its tree is stopped for it: the guard continues the process" {
	local wl st i
	start_sbt "^sbt-bpf: tracing pid" "$T/l.out" -- sh -c \
		"sleep 1; exec $EX/barrier_imbalance -t 2 -n 5 -d 5 -m sleep"
	wl=$(sed -nE 's/^sbt-bpf: tracing pid ([0-9]+) .*/\1/p' "$T/l.out.err")
	pgrep -P "$TR" -x sbt-bpf-guard >/dev/null
	kill -STOP "$TR"
	# sh execs the workload, which stops for the tracer that cannot run
	for ((i = 0; i < 100; i++)); do
		st=$(ps -o stat= -p "$wl" || true)
		[[ "$st" == T* ]] && grep -q barrier_imbalance "/proc/$wl/cmdline" && break
		sleep 0.05
	done
	[[ "$st" == T* ]]
	kill -KILL "$TR"
	wait "$TR" || true
	wait_gone "$wl" 30
	complete_output "$T/l.out" 10
}
