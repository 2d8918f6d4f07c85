#!/usr/bin/env bash
# System-wide mode (-a), side by side in one run:
#  1. what it costs processes that do not synchronize (a syscall-bound and a
#     compute-bound one), against no tracer;
#  2. attach time (and detach time) with many processes running;
#  3. the per-call cost of a probed barrier under -a against -p (one
#     process) and the empty-program floor.
#
#   bench/system_cost.sh [-n CALLS] [-r ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=200000
. bench/lib.sh
bench_init "$@"

SA=""
start_a() { # ARGS...: sbt-bpf -a in the background, attached; pid in SA
	"$SBT" -a -q "$@" >"$TMP/a.out" 2>"$TMP/a.err" &
	SA=$!
	wait_for "$TMP/a.err" "tracing every"
}
stop_a() { # prints the detach time in ms
	local t0
	t0=$(date +%s%N)
	kill -INT "$SA"
	wait "$SA" || true
	echo $((($(date +%s%N) - t0) / 1000000))
}
ms_of() { # CMD...: wall time of CMD in ms
	local t0
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	echo "scale=1; ($(date +%s%N) - $t0) / 1000000" | bc
}
syscalls() { dd if=/dev/zero of=/dev/null bs=1 count=500000; }
compute() { awk 'BEGIN { for (i = 0; i < 4000000; i++) s += i * i; print s }'; }

echo "== 1. processes that do not synchronize: $ROUNDS interleaved rounds (median ms) =="
SETUPS="none a a-all"
for s in $SETUPS; do : >"$TMP/sys.$s"; : >"$TMP/cpu.$s"; done
for r in $(seq "$ROUNDS"); do
	for s in $SETUPS; do
		case $s in
		a) start_a ;;
		a-all) start_a --trace all ;;
		esac
		ms_of syscalls >>"$TMP/sys.$s"
		ms_of compute >>"$TMP/cpu.$s"
		[ "$s" = none ] || stop_a >/dev/null
	done
done
echo "| tracer | dd, 1 M one-byte syscalls (ms) | vs none | awk loop (ms) | vs none |"
echo "|---|---|---|---|---|"
sys0=$(median <"$TMP/sys.none")
cpu0=$(median <"$TMP/cpu.none")
for s in $SETUPS; do
	label=$s
	[ "$s" = a ] && label="sbt-bpf -a (default: barrier,sem,cond)"
	[ "$s" = a-all ] && label="sbt-bpf -a --trace all (locks, futex tracepoints)"
	awk -v l="$label" -v s="$(median <"$TMP/sys.$s")" -v c="$(median <"$TMP/cpu.$s")" \
		-v s0="$sys0" -v c0="$cpu0" \
		'BEGIN { printf "| %s | %.0f | %.3f | %.0f | %.3f |\n", l, s, s / s0, c, c / c0 }'
done

echo
echo "== 2. attach with many processes running (sleep processes, one binary; median of $ROUNDS) =="
echo "| processes running | attach ms | detach ms |"
echo "|---|---|---|"
BASE=$(ls -d /proc/[0-9]* | wc -l)
for extra in 0 250 1000; do
	pids=()
	for _ in $(seq "$extra"); do
		sleep 600 &
		pids+=($!)
	done
	: >"$TMP/att"
	: >"$TMP/det"
	for r in $(seq "$ROUNDS"); do
		start_a
		sed -nE 's/.*attached in ([0-9.]+) ms.*/\1/p' "$TMP/a.err" >>"$TMP/att"
		stop_a >>"$TMP/det"
	done
	echo "| $((BASE + extra)) | $(median <"$TMP/att") | $(median <"$TMP/det") |"
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
done

echo
echo "== 3. per call of a probed barrier (pthread_barrier_wait, count 1, 1 thread, $CALLS calls; median ns/call of $ROUNDS) =="
TOOLS="none floor sbt a"
for t in $TOOLS; do : >"$TMP/r.$t"; done
for r in $(seq "$ROUNDS"); do
	for t in $TOOLS; do
		case $t in
		a)
			start_a --trace barrier
			"$LOOP" -t 1 -n "$CALLS" -W >"$TMP/loop" &
			lp=$!
			wait_for "$TMP/loop" ready
			kill -USR1 $lp
			wait $lp
			stop_a >/dev/null
			awk '/ns_per_call/ {print $4}' "$TMP/loop" >>"$TMP/r.a"
			;;
		sbt) SBT_ARGS="--trace barrier" run_loop sbt 1 -n "$CALLS" >>"$TMP/r.sbt" ;;
		*) run_loop "$t" 1 -n "$CALLS" >>"$TMP/r.$t" ;;
		esac
	done
done
echo "| setup | ns/call | probe cost ns (minus none) | vs -p |"
echo "|---|---|---|---|"
none=$(median <"$TMP/r.none")
single=$(median <"$TMP/r.sbt")
for t in $TOOLS; do
	label=$t
	[ "$t" = floor ] && label="floor (empty programs, -p)"
	[ "$t" = sbt ] && label="sbt-bpf -p PID --trace barrier"
	[ "$t" = a ] && label="sbt-bpf -a --trace barrier"
	awk -v l="$label" -v v="$(median <"$TMP/r.$t")" -v none="$none" -v one="$single" 'BEGIN {
		if (l == "none") { printf "| none | %.0f | - | - |\n", v; exit }
		printf "| %s | %.0f | %.0f | %.2f |\n", l, v, v - none, (v - none) / (one - none) }'
done
