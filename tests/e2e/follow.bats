#!/usr/bin/env bats
# -p PID --follow: a running process (a shell, a job script, a driver) and
# the processes it started and starts: each that synchronizes gets a report,
# checked against what its own workload measured; the processes are never
# harmed (none left stopped, whatever happens to the tracer).
load helpers

# The report's name of barrier_imbalance's one barrier site (a regex).
bi_site() {
	local line
	line=$(grep -n 'pthread_barrier_wait(&phase_barrier)' "$ROOT/examples/barrier_imbalance.c" | cut -d: -f1)
	echo "worker_main \\(barrier_imbalance\\.c:$line\\) \"phase_barrier\""
}

# go_fifo: $T/fifo/go, for a shell to wait on until the tracer is attached
# (in a directory of its own: teardown reads the files of $T)
go_fifo() {
	mkdir -p "$T/fifo"
	mkfifo "$T/fifo/go"
}

# wait_gone PID SECONDS: until PID (not our child) has exited.
wait_gone() {
	local i
	for ((i = 0; i < $2 * 20; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	echo "process $1 still running after $2 s" >&2
	return 1
}

# ready_pid FILE: the pid a workload started with -W printed
ready_pid() {
	wait_for "$1" '^ready [0-9]+' 20 >&2 && sed -n 's/^ready //p' "$1"
}

@test "-p SHELL --follow: every program the shell runs gets a report, named from it, every phase exact" {
	local site sh a b c x
	site=$(bi_site)
	go_fifo
	# c started before the attach (waits for SIGUSR1); once told to go, a in
	# the background, b in the foreground (waits for SIGUSR1): fork + exec
	bg "$T/sh.out" sh -c "
		$EX/barrier_imbalance -t 2 -n 2 -d 10 -m sleep -W >'$T/c.out' &
		read x <'$T/fifo/go'
		$EX/barrier_imbalance -t 2 -n 3 -d 10 -m sleep >'$T/a.out' & echo a \$!
		$EX/barrier_imbalance -t 3 -n 4 -d 10 -m sleep -W >'$T/b.out'
		wait"
	sh=$BG
	c=$(ready_pid "$T/c.out")
	start_tracer "$T/live.out" -o "$T/f.sbt" -p "$sh" --follow
	grep -q "^sbt-bpf: tracing pid $sh (sh -c .*) and the processes it starts (1 running already): " "$T/live.out.err"
	echo go >"$T/fifo/go"
	kill -USR1 "$c"
	b=$(ready_pid "$T/b.out")
	kill -USR1 "$b"
	# the session ends with the last process of the tree
	wait_exit "$TR" 60
	a=$(sed -n 's/^a //p' "$T/sh.out")
	[ -n "$a" ]
	cat "$T/live.out.err"
	refute_grep -q "warning" "$T/live.out.err"
	# live: a report each, under its program's command line; the shell,
	# which synchronized with nobody, gets none
	for x in "$a 3 -t 2 -n 3" "$b 4 -t 3 -n 4" "$c 2 -t 2 -n 2"; do
		set -- $x
		grep -qE "^=== pid $1: $EX/barrier_imbalance $3 $4 $5 $6 " "$T/live.out"
		grep -qE "^Loop barrier $site \\(pid $1\\): $2 episodes" "$T/live.out"
	done
	refute_grep -q "^=== pid $sh:" "$T/live.out"
	# each against its own workload, from the trace
	"$SBT" report --format json "$T/f.sbt" >"$T/all.json"
	$CHECK jobs "$T/all.json" | sort >"$T/jobs.txt"
	printf '%s 3 1\n%s 4 1\n%s 2 1\n' "$a" "$b" "$c" | sort | diff - "$T/jobs.txt"
	for x in "a $a 3" "b $b 4" "c $c 2"; do
		set -- $x
		"$SBT" report --format json --pid "$2" "$T/f.sbt" >"$T/$1.json"
		$CHECK imbalance "$T/$1.json" "$T/$1.out" "$T/f.sbt" "$3"
	done
}

# A library none of the followed processes mapped at the attach (the OpenMP
# runtime): the program is stopped at its exec and at the loader's report
# until it is probed, so its first barrier is seen.
@test "-p SHELL --follow: a program mapping a library nobody mapped at the attach is probed before it runs" {
	go_fifo
	OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 bg "$T/sh.out" sh -c \
		"read x <'$T/fifo/go'; $EX/omp_barriers_gomp -n 3 -d 1 >'$T/o.out'; echo done"
	start_tracer "$T/sbt.out" record -o "$T/o.sbt" -p "$BG" --follow
	echo go >"$T/fifo/go"
	wait_exit "$TR" 60
	grep -q "^done$" "$T/sh.out"
	"$SBT" report --format json "$T/o.sbt" >"$T/o.json"
	$CHECK omp "$T/o.json" "$T/o.out" "$T/o.sbt" 3
}

# A process that forks without exec: the child runs its parent's program,
# probed already, from its first instruction (it joins the tree at its fork,
# before it runs).
@test "-p --follow: a child forked without exec is traced from its first call, a report of its own" {
	go_fifo
	bg "$T/py.out" /usr/bin/python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None)
open(sys.argv[1]).read()
b = ctypes.create_string_buffer(128)
libc.pthread_barrier_init(b, None, 1)
for _ in range(2):
    libc.pthread_barrier_wait(b)
pid = os.fork()
if pid == 0:
    for _ in range(5):
        libc.pthread_barrier_wait(b)
    os._exit(0)
print("child", pid, flush=True)
os.waitpid(pid, 0)
' "$T/fifo/go"
	py=$BG
	start_tracer "$T/sbt.out" -p "$py" --follow
	echo go >"$T/fifo/go"
	wait_exit "$TR" 30
	child=$(sed -n 's/^child //p' "$T/py.out")
	[ -n "$child" ]
	cat "$T/sbt.out"
	grep -qE "^=== pid $child: /usr/bin/python3 -c " "$T/sbt.out"
	grep -qE "^Loop barrier .*\"pthread_barrier_wait 0x[0-9a-f]+\" \\(pid $child\\): 5 episodes" "$T/sbt.out"
	# the parent: two calls, the first began before the attach
	grep -qE "^=== pid $py: /usr/bin/python3 -c " "$T/sbt.out"
	grep -qE "^Loop barrier .* \\(pid $py\\): 1 episodes" "$T/sbt.out"
}

# A child forked without exec whose main thread synchronizes (barrier_imbalance
# -f), both ways of following a tree: a job from its fork (the fork record),
# no phase "began before attach", its lifetime and iterations its own.
# Launch mode without the shim: the test is of the fork, not of the shim.
@test "-p --follow and -- CMD: a child forked without exec is a job from its fork, every phase whole" {
	go_fifo
	bg "$T/sh.out" sh -c "
		read x <'$T/fifo/go'
		$EX/barrier_imbalance -t 2 -n 6 -d 5 -m sleep -f >'$T/f.out'"
	start_tracer "$T/f.txt" --report "$T/f.json" --format json -p "$BG" --follow
	echo go >"$T/fifo/go"
	wait_exit "$TR" 30
	run $CHECK forked "$T/f.json" "$T/f.out" 6
	echo "$output"
	[ "$status" -eq 0 ]
	"$SBT" -q --no-shim --report "$T/l.json" --format json -- \
		"$EX/barrier_imbalance" -t 2 -n 6 -d 5 -m sleep -f >"$T/l.out"
	run $CHECK forked "$T/l.json" "$T/l.out" 6
	echo "$output"
	[ "$status" -eq 0 ]
}

# Recorded, a command whose process forks makes a trace of two processes:
# its report says how the command ended, once, in the command's section.
@test "record -- CMD that forks: the trace's report says how the command ended" {
	run "$SBT" record -q --no-shim -o "$T/r.sbt" -- "$EX/barrier_imbalance" -t 2 -n 3 -d 5 -m sleep -f
	[ "$status" -eq 0 ]
	run "$SBT" report "$T/r.sbt"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^=== pid ' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^Command: exited with status 0$' <<<"$output")" -eq 1 ]
	"$SBT" report --format json "$T/r.sbt" >"$T/r.json"
	python3 - "$T/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ends = [j["report"].get("command_end") for j in r["jobs"]]
assert ends.count("exited with status 0") == 1, ends
PY
}

# sbt-bpf started by the shell it follows (`sbt-bpf -p $$ --follow &`): it
# is a descendant of its target, and never traced itself (nor its guard).
@test "-p \$\$ --follow from the shell itself: what the shell runs next is traced, sbt-bpf is not" {
	bg "$T/sh.out" sh -c "
		$SBT -p \$\$ --follow -o '$T/s.sbt' >'$T/sbt.out' 2>'$T/sbt.err' & echo tracer \$!
		while ! grep -q '^sbt-bpf: tracing pid' '$T/sbt.err'; do sleep 0.05; done
		$EX/barrier_imbalance -t 2 -n 3 -d 10 -m sleep >'$T/wl.out'; echo done"
	sh=$BG
	wait_for "$T/sh.out" '^done$' 30
	TR=$(sed -n 's/^tracer //p' "$T/sh.out")
	BG_PIDS+=("$TR")
	# the shell has exited: the tree is empty but for nothing
	wait_gone "$TR" 30
	cat "$T/sbt.err"
	grep -q "^sbt-bpf: tracing pid $sh (sh -c .*) and the processes it starts" "$T/sbt.err"
	"$SBT" report --format json "$T/s.sbt" >"$T/s.json"
	$CHECK imbalance "$T/s.json" "$T/wl.out" "$T/s.sbt" 3
	refute_grep -q "pid $TR\b" "$T/sbt.out"
}

# The guard (user/trace/guard.h) continues what the tracer stopped when the
# tracer dies: a program held at its exec runs on.
@test "-p --follow: a tracer killed (SIGKILL) while a child is held at its exec: the child runs to its end" {
	local wl st i
	go_fifo
	bg "$T/sh.out" sh -c "read x <'$T/fifo/go'; $EX/barrier_imbalance -t 2 -n 5 -d 5 -m sleep >'$T/wl.out'; echo done"
	sh=$BG
	start_tracer "$T/sbt.out" -p "$sh" --follow
	pgrep -P "$TR" -x sbt-bpf-guard >/dev/null
	kill -STOP "$TR"
	echo go >"$T/fifo/go"
	# the shell's child execs the workload, which stops for the tracer that
	# cannot run
	for ((i = 0; i < 200; i++)); do
		wl=$(pgrep -P "$sh" || true)
		st=$(ps -o stat=,comm= -p "${wl:-0}" || true)
		[[ "$st" == T*barrier_imbalan* ]] && break
		sleep 0.05
	done
	[[ "$st" == T*barrier_imbalan* ]]
	kill -KILL "$TR"
	wait "$TR" || true
	wait_exit "$sh" 30
	grep -q "^done$" "$T/sh.out"
	[ "$(grep -cE '^phase [0-9]+ thread ' "$T/wl.out")" -eq 10 ]
	grep -qE '^total_ns [0-9]+' "$T/wl.out"
}

@test "-p --follow interrupted (Ctrl-C): exits at once, the programs run on to their end, none stopped" {
	local sent took wl
	go_fifo
	bg "$T/sh.out" sh -c "read x <'$T/fifo/go'; $EX/barrier_imbalance -t 2 -n 30 -d 10 -m sleep >'$T/wl.out'; echo done"
	sh=$BG
	start_tracer "$T/sbt.out" -p "$sh" --follow
	echo go >"$T/fifo/go"
	wait_lines "$T/wl.out" '^phase [0-9]+ thread ' 6 30
	wl=$(pgrep -P "$sh")
	read -r sent took < <(interrupt "$TR")
	echo "exited $((took / 1000000)) ms after the signal"
	[ "$took" -lt 2000000000 ]
	wait "$TR"
	[[ "$(ps -o stat= -p "$wl")" != T* ]]
	wait_exit "$sh" 60
	grep -q "^done$" "$T/sh.out"
	[ "$(grep -cE '^phase [0-9]+ thread ' "$T/wl.out")" -eq 60 ]
	# what was seen until then is reported
	grep -qE "^Loop barrier $(bi_site) \\(pid $wl\\): [0-9]+ episodes" "$T/sbt.out"
}

# Without --follow, -p traces the processes named: a child is not traced,
# and that is said once, with the option that would trace it.
@test "-p SHELL without --follow: its children are not traced, said once; a shell that calls nothing suggests --follow" {
	go_fifo
	bg "$T/sh.out" sh -c "read x <'$T/fifo/go'
		$EX/barrier_imbalance -t 2 -n 2 -d 5 -m sleep >/dev/null
		$EX/barrier_imbalance -t 2 -n 2 -d 5 -m sleep >/dev/null; echo done"
	sh=$BG
	run "$SBT" -p "$sh"
	[ "$status" -eq 1 ]
	grep -q "calls none of the functions sbt-bpf traces" <<<"$output"
	grep -q "a shell or a job script: --follow traces the processes it starts" <<<"$output"
	start_tracer "$T/sbt.out" --force -p "$sh"
	echo go >"$T/fifo/go"
	wait_exit "$TR" 30
	cat "$T/sbt.out.err"
	[ "$(grep -cE "^sbt-bpf: warning: pid $sh \\(sh\\) started process [0-9]+, which is not traced" "$T/sbt.out.err")" -eq 1 ]
	grep -q -- "-p $sh --follow traces the processes they start too" "$T/sbt.out.err"
	refute_grep -q "^Loop barrier" "$T/sbt.out"
	grep -q "^SBT summary: 0 phases" "$T/sbt.out"
}

@test "--follow is for -p: with -a, -- CMD or alone a usage error" {
	run "$SBT" --follow -a -d 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--follow is about -p PID: -a traces every process already"* ]]
	run "$SBT" -f -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--follow is about -p PID: -- COMMAND follows the processes the command starts already"* ]]
	run "$SBT" record --follow -o "$T/x.sbt"
	[ "$status" -eq 2 ]
	[[ "$output" == *"give one of -p PID, -a or -- COMMAND"* ]]
	run "$SBT" top --follow -p 1
	[ "$status" -eq 2 ]
}

# An interactive shell waits for its jobs with WUNTRACED: a job stopped at
# its exec would be reported "Stopped". Its jobs, in the foreground or not,
# are never stopped: what they map is probed beforehand (the shell's files,
# the runtimes installed), or they are said to have mapped a file before it
# was probed (a runtime from LD_LIBRARY_PATH).
@test "-p --follow of an interactive shell: its jobs, foreground and background, traced and never stopped" {
	local sh bgp omp
	command -v tmux >/dev/null || skip "tmux not installed"
	mkdir -p "$T/lib"
	cp "$(ldd "$EX/omp_barriers_gomp" | awk '/libgomp/ {print $3}')" "$T/lib/"
	TMUX_SESSION=sbt-follow-$$
	tmux new-session -d -s "$TMUX_SESSION" -x 250 -y 50 "bash --norc --noprofile -i"
	# set -b: job status changes reported at once, not at the next prompt
	tmux send-keys -t "$TMUX_SESSION" 'set -b; echo SHELL $$' Enter
	poll_pane '^SHELL [0-9]+$'
	sh=$(sed -nE 's/^SHELL ([0-9]+)$/\1/p' "$T/pane")
	start_tracer "$T/sbt.out" -o "$T/i.sbt" -p "$sh" --follow
	tmux send-keys -t "$TMUX_SESSION" \
		"$EX/barrier_imbalance -t 2 -n 3 -d 20 -m sleep >$T/bg.out & echo BG \$!" Enter
	poll_pane '^BG [0-9]+$'
	bgp=$(sed -nE 's/^BG ([0-9]+)$/\1/p' "$T/pane")
	# an OpenMP program waiting for SIGUSR1: its files are read meanwhile
	tmux send-keys -t "$TMUX_SESSION" \
		"OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 $EX/omp_barriers_gomp -n 3 -d 1 -W >$T/o.out & omp=\$!; wait \$omp; echo OMP \$omp \$?" Enter
	omp=$(ready_pid "$T/o.out")
	wait_for "$T/sbt.out.err" "^sbt-bpf: warning: pid $omp \\(omp_barriers_go\\) mapped $EX/omp_barriers_gomp before sbt-bpf could probe it "
	kill -USR1 "$omp"
	poll_pane '^OMP [0-9]+ 0$'
	tmux send-keys -t "$TMUX_SESSION" \
		"LD_LIBRARY_PATH=$T/lib OMP_NUM_THREADS=2 $EX/omp_barriers_gomp -n 20 -d 10 >/dev/null; echo FG \$?" Enter
	poll_pane '^FG 0$'
	tmux send-keys -t "$TMUX_SESSION" "wait; jobs; echo WAITED" Enter
	poll_pane '^WAITED$'
	tmux send-keys -t "$TMUX_SESSION" "exit" Enter
	wait_exit "$TR" 30
	cat "$T/pane" "$T/sbt.out.err"
	refute_grep -q "Stopped" "$T/pane"
	"$SBT" report --format json --pid "$bgp" "$T/i.sbt" >"$T/bg.json"
	$CHECK imbalance "$T/bg.json" "$T/bg.out" "$T/i.sbt" 3
	# the installed runtime was probed at the attach, the program (its
	# region body) before it ran: every barrier exact
	"$SBT" report --format json --pid "$omp" "$T/i.sbt" >"$T/o.json"
	$CHECK omp "$T/o.json" "$T/o.out" "$T/i.sbt" 3
	# the copy of the runtime: probed late, and said so, once
	[ "$(grep -cE "^sbt-bpf: warning: pid [0-9]+ \(omp_barriers_go\) mapped $T/lib/libgomp.so.1 before sbt-bpf could probe it" "$T/sbt.out.err")" -eq 1 ]
}
