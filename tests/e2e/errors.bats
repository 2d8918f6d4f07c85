#!/usr/bin/env bats
# Bad input: a clear message and a non-zero exit, never a crash or a hang.
load helpers

@test "no such PID" {
	run "$SBT" -p 999999999
	[ "$status" -eq 2 ] || [ "$status" -eq 1 ]
	pid=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
	kill -0 "$pid" 2>/dev/null && skip "pid $pid exists"
	run "$SBT" -p "$pid"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no such process: $pid"* ]]
}

# The LLNL tutorial's way: main creates the workers and calls pthread_exit.
# The process lives on with a zombie leader, whose files and command line
# read empty: -p says why (by its pid or a thread's); launched, it is
# traced from the start, every phase exact.
@test "-p on a process whose main thread called pthread_exit: refused with why; launched, every phase exact" {
	local i worker
	start_workload "$T/wl.out" "$EX/barrier_imbalance" -t 2 -n 1000 -d 10 -m sleep -E -W
	kill -USR1 "$WL"
	wait_for "$T/wl.out" "^main thread exits pid $WL"
	for ((i = 0; i < 100; i++)); do
		grep -q '^State:.*Z' "/proc/$WL/status" && break
		sleep 0.05
	done
	grep -q '^State:.*Z' "/proc/$WL/status"
	run "$SBT" -p "$WL"
	[ "$status" -eq 1 ]
	[[ "$output" == *"process $WL has lost its main thread (pthread_exit), its other threads run on"* ]]
	worker=$(ls "/proc/$WL/task" | grep -vx "$WL" | head -1)
	run "$SBT" -p "$worker"
	[ "$status" -eq 1 ]
	[[ "$output" == *"process $WL has lost its main thread"* ]]
	kill "$WL"
	run "$SBT" record -o "$T/e.sbt" -- "$EX/barrier_imbalance" -t 3 -n 5 -d 10 -m sleep -E
	[ "$status" -eq 0 ]
	echo "$output" >"$T/e.out"
	"$SBT" report --format json "$T/e.sbt" >"$T/e.json"
	$CHECK imbalance "$T/e.json" "$T/e.out" "$T/e.sbt" 5
}

@test "non-root user gets told to use sudo, and which capability is missing" {
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$SBT" -p 1
	[ "$status" -eq 1 ]
	[[ "$output" == *"needs root, or the capabilities CAP_BPF and CAP_PERFMON (this process lacks both); run it with sudo"* ]]
	run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+bpf --ambient-caps=+bpf "$SBT" -p 1
	[ "$status" -eq 1 ]
	[[ "$output" == *"(this process lacks CAP_PERFMON)"* ]]
}

# CAP_BPF and CAP_PERFMON are enough for a user's own processes; another
# user's files take CAP_SYS_PTRACE too, and the message says so.
@test "capabilities without root: CAP_BPF + CAP_PERFMON trace one's own process exactly; another user's asks for CAP_SYS_PTRACE" {
	local caps="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon"
	chmod 0755 "$T"
	mkdir "$T/n" && chown 65534 "$T/n"
	start_workload "$T/wl.out" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$EX/barrier_imbalance" -t 3 -n 5 -d 10 -m sleep -W
	$caps "$SBT" record -p "$WL" -o "$T/n/c.sbt" >"$T/sbt.out" 2>"$T/sbt.err" &
	TR=$!
	BG_PIDS+=("$TR")
	wait_for "$T/sbt.err" "^sbt-bpf: tracing pid" 30
	kill -USR1 "$WL"
	wait_exit "$TR" 30
	"$SBT" report --format json "$T/n/c.sbt" >"$T/c.json"
	$CHECK imbalance "$T/c.json" "$T/wl.out" "$T/n/c.sbt" 5
	# root's process
	bg "$T/root.out" "$EX/barrier_imbalance" -t 2 -n 100000 -d 10 -m sleep
	run $caps "$SBT" -p "$BG" -d 1
	[ "$status" -eq 1 ]
	grep -q "its files cannot be opened (permission denied): tracing another user's process takes CAP_SYS_PTRACE" <<<"$output"
}

@test "a process that uses no barrier function: says what was searched, suggests --probe" {
	bg "$T/sleep.out" sleep 30
	run "$SBT" -p "$BG"
	[ "$status" -eq 1 ]
	[[ "$output" == *"calls none of the functions sbt-bpf traces"* ]]
	[[ "$output" == *"pthread_barrier_wait (glibc)"* ]]
	[[ "$output" == *"GOMP_barrier (libgomp)"* ]]
	[[ "$output" == *"__kmpc_barrier (libomp)"* ]]
	[[ "$output" == *"--probe BINARY:SYMBOL:barrier"* ]]
	kill -0 "$BG"
}

@test "an unknown --probe symbol and an unknown kind" {
	bg "$T/sleep.out" sleep 30
	run "$SBT" --probe /bin/sleep:no_such_function:barrier -p "$BG"
	[ "$status" -eq 1 ]
	[[ "$output" == *"function 'no_such_function' not found in"* ]]
	run "$SBT" --probe /bin/sleep:main:mutex -p "$BG"
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown kind 'mutex' (known kinds: barrier, team, region, lock, trylock, unlock, P, V, wait, signal)"* ]]
	run "$SBT" --probe nocolons -p "$BG"
	[ "$status" -eq 2 ]
	[[ "$output" == *"expected BINARY:SYMBOL:KIND"* ]]
}

@test "a command that does not exist, and usage errors" {
	run "$SBT" -- /nonexistent/program
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot run '/nonexistent/program': No such file or directory"* ]]
	run "$SBT" -p 12x
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid value '12x' for -p"* ]]
	# an empty element of a pid list is a mistake, not one process fewer
	local list
	for list in 1,,2 1, ,1; do
		run "$SBT" -p "$list"
		[ "$status" -eq 2 ]
		[[ "$output" == *"invalid value '$list' for -p: an empty process id"* ]]
	done
	run "$SBT" -p 1 -- /bin/true
	[ "$status" -eq 2 ]
	run "$SBT" record --format json -p 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"record writes a trace"* ]]
	run "$SBT" --buffer-size 3000 -p 1
	[ "$status" -eq 2 ]
}

@test "misspelled and misplaced commands; errors name the whole command" {
	run "$SBT" recrod -o x.sbt -- /bin/true
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown command 'recrod'; did you mean 'record'?"* ]]
	run "$SBT" -q record -o "$T/x.sbt" -- /bin/true
	[ "$status" -eq 2 ]
	[[ "$output" == *"'record' is a command: it goes first (sbt-bpf record [OPTION...])"* ]]
	[ ! -e "$T/x.sbt" ]
	run "$SBT" report --bogus x.sbt
	[ "$status" -eq 2 ]
	[[ "$output" == *"sbt-bpf report: unrecognized option '--bogus'"* ]]
	[[ "$output" == *"Try \`sbt-bpf report --help'"* ]]
	# a near miss names the option meant, in every command
	run "$SBT" report --formt json x.sbt
	[ "$status" -eq 2 ]
	[[ "$output" == *"sbt-bpf report: unrecognized option '--formt'; did you mean '--format'?"* ]]
	run "$SBT" record --outptu "$T/y.sbt" -- /bin/true
	[ "$status" -eq 2 ]
	[[ "$output" == *"sbt-bpf record: unrecognized option '--outptu'; did you mean '--output'?"* ]]
	[ ! -e "$T/y.sbt" ]
	run "$SBT" --tracee all -- /bin/true
	[ "$status" -eq 2 ]
	[[ "$output" == *"unrecognized option '--tracee'; did you mean '--trace'?"* ]]
	run "$SBT" export --formta csv x.sbt
	[ "$status" -eq 2 ]
	[[ "$output" == *"did you mean '--format'?"* ]]
	run "$SBT" calibrate --cahced
	[ "$status" -eq 2 ]
	[[ "$output" == *"did you mean '--cached'?"* ]]
	# values and abbreviations are not options
	run "$SBT" report --form json --pid 1 "$T/none.sbt"
	[ "$status" -ne 2 ]
}

@test "corrupt and truncated trace files are rejected clearly" {
	run "$SBT" record -o "$T/ok.sbt" -- "$EX/barrier_imbalance" -t 2 -n 2 -d 1 -m sleep
	[ "$status" -eq 0 ]
	head -c 200 "$T/ok.sbt" >"$T/trunc.sbt"
	run "$SBT" report "$T/trunc.sbt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$T/trunc.sbt: truncated"* ]]
	printf 'not a trace at all, just text\n' >"$T/text.sbt"
	run "$SBT" report "$T/text.sbt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"not an sbt-bpf trace"* ]]
	run "$SBT" report "$T/missing.sbt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$T/missing.sbt"* ]]
}

@test "lost records are counted and reported, never silent" {
	start_workload "$T/wl.out" "$OUT/bench/probe_loop" -t 2 -n 200000 -W
	start_tracer "$T/sbt.out" --buffer-size 4K --drain-interval 500 -q -p "$WL"
	kill -USR1 "$WL"
	wait_exit "$TR" 60
	grep -qE '^WARNING: [0-9]+ records lost \(ring buffer full\)' "$T/sbt.out"
	grep -qE 'warning: [0-9]+ records lost' "$T/sbt.out.err"
}

# The tracer starved of CPU (the workload above it, on one CPU) with a
# 4 KiB ring: most records are lost. Every phase the losses touch is
# marked, every phase left unmarked is exactly the workload's (its threads,
# each in its own window), and the phases that left no record are about as
# many as the summary estimates (tests/e2e/checks.py losses).
@test "an undersized ring under a hot loop: every phase a loss touches marked, the rest exact, the missing estimated" {
	local shim
	for shim in --shim --no-shim; do
		taskset -c 0 nice -n 19 "$SBT" record $shim --buffer-size 4K -o "$T/l.sbt" -- \
			nice -n -19 "$EX/barrier_imbalance" -t 4 -n 3000 -d 0 >"$T/wl.out" 2>"$T/sbt.err"
		grep -qE 'warning: [0-9]+ records lost' "$T/sbt.err"
		"$SBT" report --format json --phases all "$T/l.sbt" >"$T/l.json"
		$CHECK losses "$T/l.json" "$T/wl.out" "$T/l.sbt"
		"$SBT" report "$T/l.sbt" >"$T/l.txt"
		grep -qE '^WARNING: [0-9]+ records lost \(ring buffer full\); [0-9]+ phases affected: .*; about [0-9]+ phases left no record' "$T/l.txt"
	done
}

# Files sbt-bpf creates are its owner's alone, and never written through a
# symbolic link planted where the file should be (lib/outfile.h).
@test "output files: 0600, a symbolic link refused and its target untouched; the calibration cache 0700" {
	chmod 1777 "$T"
	echo keep >"$T/victim"
	ln -s "$T/victim" "$T/link.sbt"
	run "$SBT" record -o "$T/link.sbt" -- "$EX/barrier_imbalance" -t 2 -n 1 -d 1
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot create $T/link.sbt: a symbolic link: refused"* ]]
	[ "$(cat "$T/victim")" = keep ]
	run "$SBT" record -q -o "$T/t.sbt" -- "$EX/barrier_imbalance" -t 2 -n 1 -d 1
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$T/t.sbt")" = 600 ]
	for out in report export; do
		ln -s "$T/victim" "$T/$out.link"
		if [ $out = report ]; then
			run "$SBT" report --report "$T/$out.link" "$T/t.sbt"
		else
			run "$SBT" export --format csv -o "$T/$out.link" "$T/t.sbt"
		fi
		[ "$status" -eq 1 ]
		[[ "$output" == *"a symbolic link: refused"* ]]
		[ "$(cat "$T/victim")" = keep ]
	done
	"$SBT" export --format csv -o "$T/t.csv" "$T/t.sbt"
	[ "$(stat -c %a "$T/t.csv")" = 600 ]
	run "$SBT" calibrate
	[ "$status" -eq 0 ]
	[ "$(stat -c %a /var/cache/sbt-bpf)" = 700 ]
	[ "$(stat -c %a /var/cache/sbt-bpf/calibration)" = 600 ]
}

# A traced program chooses its thread names and command line: escape
# sequences in them reach no terminal (each control byte is a '?', as ps
# shows them), live, in the report and in a valid SVG.
@test "thread names and command lines with escape sequences are printed as '?'" {
	run "$SBT" record --no-shim -o "$T/e.sbt" -- /usr/bin/python3 -c '
import ctypes
libc = ctypes.CDLL(None)
libc.prctl(15, b"\x1b]0;pwn\x07", 0, 0, 0)
b = ctypes.create_string_buffer(128)
libc.pthread_barrier_init(b, None, 1)
for _ in range(3):
    libc.pthread_barrier_wait(b)
' "$(printf 'arg\033[2J\007')"
	[ "$status" -eq 0 ]
	printf '%s' "$output" >"$T/live.out"
	"$SBT" report "$T/e.sbt" >"$T/e.txt"
	"$SBT" export --format svg -o "$T/e.svg" "$T/e.sbt"
	python3 - "$T/live.out" "$T/e.txt" "$T/e.svg" <<'PY'
import sys, xml.dom.minidom
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    bad = [c for c in data if c < 0x20 and c not in b"\n\t" or c == 0x7f]
    assert not bad, (path, bad[:5])
live, text = open(sys.argv[1]).read(), open(sys.argv[2]).read()
assert "arg?[2J?" in live, live
assert "arg?[2J?" in text and "?]0;pwn?" in text, text
xml.dom.minidom.parse(sys.argv[3])
PY
}
