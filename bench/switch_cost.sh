#!/usr/bin/env bash
# What sbt-bpf's sched_switch programs add to every context switch of the
# machine, side by side in one run: a process that is not traced
# (bench/pingpong: two processes handing a byte over pipes on one CPU, two
# switches and four syscalls a round) with no tracer, with sbt-bpf -p on
# another process tracing barriers only (the tracer's-own-CPU program,
# bpf/self.bpf.c, alone), with the default --trace (the futex syscall
# tracepoints run at every syscall of the machine), the same with a counter
# (-e task-clock: the counters' program too), and -a. With
# kernel.bpf_stats_enabled on for the run, the programs' own mean run time.
#
#   bench/switch_cost.sh [-n ROUNDS_PER_RUN] [-r ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=100000
. bench/lib.sh
bench_init "$@"
PING=$OUT/bench/pingpong

stats_was=$(sysctl -n kernel.bpf_stats_enabled)
sleeper=""
cleanup() {
	sysctl -qw kernel.bpf_stats_enabled="$stats_was"
	[ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT
sysctl -qw kernel.bpf_stats_enabled=1
sleep 600 &
sleeper=$!

# prog_ns NAME: mean run time of the loaded programs named NAME (the
# session's and a calibration's), ns ('-': none ran)
prog_ns() {
	bpftool prog show name "$1" 2>/dev/null | awk '/run_cnt/ {
		for (i = 1; i <= NF; i++) { if ($i == "run_time_ns") t += $(i+1); if ($i == "run_cnt") c += $(i+1) } }
		END { if (c) printf "%.0f\n", t / c; else print "-" }'
}

# median_or_dash: the median of the numbers read, '-' without any
median_or_dash() {
	local v
	v=$(grep -E '^[0-9.]+$' || true)
	if [ -n "$v" ]; then median <<<"$v"; else echo -; fi
}

# one SETUP: ns per round of pingpong under SETUP (program times into $TMP/prog.SETUP)
one() {
	local s=$1 tp=""
	case $s in
	p) "$SBT" -q --force -p "$sleeper" >/dev/null 2>"$TMP/tool" & tp=$! ;;
	p-bar) "$SBT" -q --force --trace barrier -p "$sleeper" >/dev/null 2>"$TMP/tool" & tp=$! ;;
	p-ctr) "$SBT" -q --force -e task-clock -p "$sleeper" >/dev/null 2>"$TMP/tool" & tp=$! ;;
	a) "$SBT" -q -a >/dev/null 2>"$TMP/tool" & tp=$! ;;
	esac
	[ -z "$tp" ] || wait_for "$TMP/tool" tracing
	taskset -c 1 "$PING" -n "$CALLS" | awk '{print $4}'
	if [ -n "$tp" ]; then
		echo "$(prog_ns self_switch) $(prog_ns ctr_switch) $(prog_ns futex_enter) $(prog_ns futex_exit)" \
			>>"$TMP/prog.$s"
		kill -INT "$tp"
		wait "$tp" || true
	fi
}

SETUPS="none p-bar p p-ctr a"
for s in $SETUPS; do : >"$TMP/r.$s"; : >"$TMP/prog.$s"; done
for r in $(seq "$ROUNDS"); do
	for s in $SETUPS; do one "$s" >>"$TMP/r.$s"; done
done
echo "== pipe ping-pong on one CPU, $CALLS rounds (2 switches each), medians of $ROUNDS =="
echo "| tracer | ns per round | vs none | ns added per switch | ns/run: self_switch | ctr_switch | futex_enter | futex_exit |"
echo "|---|---|---|---|---|---|---|---|"
none=$(median <"$TMP/r.none")
for s in $SETUPS; do
	case $s in
	none) label="none" ;;
	p-bar) label="sbt-bpf --trace barrier -p PID (another process): sched_switch only" ;;
	p) label="sbt-bpf -p PID (default --trace: the futex tracepoints too)" ;;
	p-ctr) label="sbt-bpf -e task-clock -p PID" ;;
	a) label="sbt-bpf -a" ;;
	esac
	progs=""
	for k in 1 2 3 4; do progs="$progs | $(awk -v k=$k '{print $k}' "$TMP/prog.$s" | median_or_dash)"; done
	awk -v l="$label" -v v="$(median <"$TMP/r.$s")" -v n="$none" -v p="$progs" \
		'BEGIN { printf "| %s | %.0f | %.3f | %.0f%s |\n", l, v, v / n, (v - n) / 2, p }'
done
