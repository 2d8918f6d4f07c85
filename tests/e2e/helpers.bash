# Shared helpers of the end-to-end tests: real sbt-bpf, real BPF, real
# workloads from examples/. Every background process is killed in teardown.
ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
# the build under test: make sets SBT_OUTPUT (.output-san with SANITIZE=1)
OUT=$ROOT/${SBT_OUTPUT:-.output}

# rss_bound KB: a test's bound on a peak RSS; none under the sanitizers
# (make SANITIZE=1: ASan's shadow memory and quarantine are no leak).
# Under the sanitizers, a test's LD_PRELOAD reaches sbt-bpf too: ASan must
# not insist on coming first. Every report (a leak, undefined behaviour)
# goes to the test's own directory and fails the test in teardown, even
# where the test does not look at sbt-bpf's exit status or stderr.
sanitized() {
	[[ "$OUT" == *-san ]]
}

sanitizer_logs() {
	sanitized || return 0
	mkdir -p "$T/san"
	export ASAN_OPTIONS="verify_asan_link_order=0:log_path=$T/san/asan"
	export UBSAN_OPTIONS="print_stacktrace=1:log_path=$T/san/ubsan"
	# leaks inside libraries we do not build (lsan.supp says which and why)
	export LSAN_OPTIONS="suppressions=$ROOT/tests/e2e/lsan.supp:print_suppressions=0"
}

sanitizer_reports() {
	sanitized && [ -n "${T:-}" ] || return 0
	if compgen -G "$T/san/*" >/dev/null; then
		echo "# sanitizer reports:" >&3
		cat "$T"/san/* >&3
		return 1
	fi
}

rss_bound() {
	if [[ "$OUT" == *-san ]]; then echo 100000000; else echo "$1"; fi
}
SBT=$OUT/sbt-bpf
EX=$OUT/examples
CHECK="python3 $ROOT/tests/e2e/checks.py"

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/sbt-e2e.XXXXXX")
	BG_PIDS=()
	sanitizer_logs
}

teardown() {
	local p san=0
	# Commands sbt-bpf launched outlive it: their pids are in its output.
	# Each file on its own (grep, not cat | sed): a trace file beside the
	# output, ending without a newline, would swallow its first line.
	[ -n "${T:-}" ] && BG_PIDS+=($(grep -ahoE '^sbt-bpf: tracing pid [0-9]+ ' "$T"/* 2>/dev/null | awk '{print $4}'))
	for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	for p in "${BG_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	if [ -n "${TMUX_SESSION:-}" ]; then tmux kill-session -t "$TMUX_SESSION" 2>/dev/null || true; fi
	sanitizer_reports || san=1
	# SBT_E2E_KEEP=1: keep a failed test's files to look at.
	if [ -n "${SBT_E2E_KEEP:-}" ] && [ -z "${BATS_TEST_COMPLETED:-}" ]; then
		echo "# files kept in $T" >&3
	elif [ -n "${T:-}" ]; then
		rm -rf "$T"
	fi
	return "$san"
}

# wait_for FILE REGEX [SECONDS]: until FILE has a line matching REGEX.
wait_for() {
	local i n=$(( ${3:-10} * 20 ))
	for ((i = 0; i < n; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "timed out waiting for /$2/ in $1:" >&2
	cat "$1" >&2 || true
	return 1
}

# wait_lines FILE REGEX N [SECONDS]: until FILE has at least N lines matching
# REGEX (a workload that goes on, by its own output).
wait_lines() {
	local i n=$(( ${4:-10} * 20 ))
	for ((i = 0; i < n; i++)); do
		[ "$(grep -cE "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0
		sleep 0.05
	done
	echo "timed out waiting for $3 lines /$2/ in $1 (has $(grep -cE "$2" "$1"))" >&2
	return 1
}

# refute_grep GREP-ARGS...: grep finds nothing (status 1). Unlike "! grep",
# which bats does not count in the middle of a test, this fails the test
# when grep matches, and when grep itself fails (status 2).
refute_grep() {
	local rc=0
	grep "$@" || rc=$?
	[ "$rc" -eq 1 ]
}

# bg OUTFILE CMD...: run CMD in the background (stdout+stderr to OUTFILE);
# its pid is in $BG.
bg() {
	local out=$1
	shift
	"$@" >"$out" 2>&1 &
	BG=$!
	BG_PIDS+=("$BG")
}

# start_workload OUTFILE CMD...: start a workload that waits (-W) for SIGUSR1;
# its pid is in $WL once it printed "ready".
start_workload() {
	local out=$1
	shift
	"$@" >"$out" 2>&1 &
	WL=$!
	BG_PIDS+=("$WL")
	wait_for "$out" "^ready $WL"
}

# start_sbt REGEX OUTFILE ARGS...: sbt-bpf in the background, until its
# stderr matches REGEX (attached); pid in $TR.
start_sbt() {
	local ready=$1 out=$2
	shift 2
	"$SBT" "$@" >"$out" 2>"$out.err" &
	TR=$!
	BG_PIDS+=("$TR")
	wait_for "$out.err" "$ready"
}

# start_tracer OUTFILE ARGS...: sbt-bpf on one process.
start_tracer() {
	start_sbt "^sbt-bpf: tracing pid" "$@"
}

# wait_exit PID SECONDS: wait for a background process to end; fails on timeout.
wait_exit() {
	local i
	for ((i = 0; i < $2 * 20; i++)); do
		kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return 0; }
		sleep 0.05
	done
	echo "process $1 still running after $2 s" >&2
	return 1
}

# start_system OUTFILE ARGS...: sbt-bpf watching several processes (-a, -p
# A,B, top).
start_system() {
	start_sbt "^sbt-bpf: tracing " "$@"
}

# poll_pane REGEX: until the tmux pane $TMUX_SESSION shows a line matching
# REGEX (in $T/pane).
poll_pane() {
	local i
	for ((i = 0; i < 200; i++)); do
		tmux capture-pane -p -t "$TMUX_SESSION" >"$T/pane" 2>/dev/null
		grep -qE "$1" "$T/pane" && return 0
		sleep 0.05
	done
	echo "pane never showed /$1/:" >&2
	cat "$T/pane" >&2
	return 1
}

# interrupt PID [group]: SIGINT to sbt-bpf PID, as Ctrl-C sends it; prints
# the CLOCK_MONOTONIC ns it was sent at and the ns until PID exited (30 s at
# most). Fails if PID is no sbt-bpf: one that exited already (bash reaps it)
# may have left its pid to another process. With "group", to its whole
# process group, as a terminal's Ctrl-C sends it to the foreground job:
# PID must lead a group of its own (setsid), not the test's.
interrupt() {
	python3 - "$1" "${2:-}" <<'PY'
import os, signal, sys, time
pid = int(sys.argv[1])
try:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        running = b"sbt-bpf" in f.read().split(b"\0")[0]
except OSError:
    running = False
if not running:
    sys.exit(f"pid {pid} is no running sbt-bpf: it exited before the signal")
group = sys.argv[2] == "group"
if group and (os.getpgid(pid) != pid or os.getpgrp() == pid):
    sys.exit(f"pid {pid} does not lead a process group of its own")
sent = time.monotonic_ns()
if group:
    os.killpg(pid, signal.SIGINT)
else:
    os.kill(pid, signal.SIGINT)
while time.monotonic_ns() - sent < 30e9:
    try:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                break
    except (OSError, IndexError):  # gone, or going while read
        break
    time.sleep(0.002)
print(sent, time.monotonic_ns() - sent)
PY
}
