#!/usr/bin/env bash
# Counter reads in the probes: per-call cost of a probed enter/exit pair
# (pthread_barrier_wait, count-1 barrier, 1 thread) with 0, 2 and 4 counters,
# against the empty-program floor, side by side in one run.
#
#   bench/counter_cost.sh [-n CALLS] [-r ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=200000
. bench/lib.sh
bench_init "$@"
# Software events: this VM has no PMU. On a machine with one, use
# cycles,instructions,... to measure hardware reads.
EV2=task-clock,page-faults
EV4=task-clock,page-faults,context-switches,cpu-migrations
declare -A args=([sbt0]="--trace barrier" [sbt2]="--trace barrier -e $EV2" [sbt4]="--trace barrier -e $EV4")
echo "== counters in the probes: $CALLS calls, 1 thread, $ROUNDS interleaved rounds (median ns/call) =="
TOOLS="none floor sbt0 sbt2 sbt4"
declare -A res
for tool in $TOOLS; do : >"$TMP/r.$tool"; done
for r in $(seq "$ROUNDS"); do
	for tool in $TOOLS; do
		case $tool in
		sbt*) SBT_ARGS=${args[$tool]} run_loop sbt 1 -n "$CALLS" >>"$TMP/r.$tool" ;;
		*) run_loop $tool 1 -n "$CALLS" >>"$TMP/r.$tool" ;;
		esac
	done
done
for tool in $TOOLS; do res[$tool]=$(median <"$TMP/r.$tool"); done
echo "| setup | ns/call | probe cost ns (minus none) | vs floor (per call) | vs floor (probe cost) |"
echo "|---|---|---|---|---|"
for tool in $TOOLS; do
	label=$tool
	case $tool in
	floor) label="floor (empty programs)" ;;
	sbt0) label="sbt-bpf, 0 counters" ;;
	sbt2) label="sbt-bpf, 2 counters ($EV2)" ;;
	sbt4) label="sbt-bpf, 4 counters ($EV4)" ;;
	esac
	awk -v l="$label" -v v="${res[$tool]}" -v none="${res[none]}" -v floor="${res[floor]}" 'BEGIN {
		if (l == "none") { printf "| none | %.0f | - | - | - |\n", v; exit }
		printf "| %s | %.0f | %.0f | %.2f | %.2f |\n", l, v, v - none, v / floor, (v - none) / (floor - none) }'
done
