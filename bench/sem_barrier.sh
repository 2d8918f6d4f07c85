#!/usr/bin/env bash
# Issue 14, barriers made of semaphores, side by side in one run:
#  1. episodes found vs the barrier calls the program made
#     (examples/sem_barrier: 2 * STEPS + 1 per worker, all workers the
#     same), both shapes (the last thread posts for the others / posts for
#     everyone and waits), with the semaphore probes alone and with every
#     class; the mutex semaphore and a semaphore pipeline
#     (examples/sem_pipeline): barriers found (0 expected);
#  2. the cost: sem_barrier untraced vs traced (median of ROUNDS
#     interleaved runs of its own total_ns), per episode.
#
#   bench/sem_barrier.sh [-r ROUNDS] [-n STEPS]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=100 # time steps of sem_barrier
. bench/lib.sh
bench_init "$@"
EX=.output/examples
SB_ARGS="-t 4 -n $CALLS -c 20000 -s 5"

echo "== 1. semaphore barrier episodes vs the program's barrier calls; no barrier elsewhere =="
echo "| program | --trace | barrier calls per worker (program) | phases (trace) | semaphore-barrier sites | semaphores judged barriers / seen | records lost |"
echo "|---|---|---|---|---|---|---|"
for how in "" -A; do
	for trace in barrier,sem all; do
		"$SBT" record -q --trace "$trace" -o "$TMP/s.sbt" -- "$EX/sem_barrier" $SB_ARGS $how >"$TMP/s.out" 2>/dev/null
		"$SBT" report --format json "$TMP/s.sbt" >"$TMP/s.json"
		calls=$(awk '$1 == "phase" && $4 == "0" { n++ } END { print n }' "$TMP/s.out")
		echo "| sem_barrier $SB_ARGS $how | $trace | $calls | $(json "$TMP/s.json" 'len(r["phases"])') |" \
			"$(json "$TMP/s.json" 'sum(s["made_of"] == "semaphores" for s in r["sites"])') |" \
			"$(json "$TMP/s.json" 'str(sum(s["barrier"] for s in r["semaphores"])) + " / " + str(len(r["semaphores"]))') |" \
			"$(json "$TMP/s.json" 'r["drops"]["total"]') |"
	done
done
"$SBT" record -q -o "$TMP/p.sbt" -- "$EX/sem_pipeline" -n 300 -p 100 -c 50 >/dev/null 2>&1
"$SBT" report --format json "$TMP/p.sbt" >"$TMP/p.json"
echo "| sem_pipeline -n 300 -p 100 -c 50 | default | 0 | $(json "$TMP/p.json" 'len(r["phases"])') |" \
	"$(json "$TMP/p.json" 'len(r["sites"])') |" \
	"$(json "$TMP/p.json" 'str(sum(s["barrier"] for s in r["semaphores"])) + " / " + str(len(r["semaphores"]))') |" \
	"$(json "$TMP/p.json" 'r["drops"]["total"]') |"

echo
echo "== 2. cost: sem_barrier $SB_ARGS, untraced vs traced, $ROUNDS interleaved rounds =="
cost_per_episode $((2 * CALLS + 1)) "$EX/sem_barrier" $SB_ARGS
