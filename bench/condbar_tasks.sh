#!/usr/bin/env bash
# Issue 14, second part, side by side in one run:
#  1. condvar barriers (Splash-3's BARRIER macro, examples/cond_barrier):
#     episodes found vs the barrier calls the program made (2 * STEPS + 1
#     per worker, all workers the same), with and without the lock probes;
#     work queues on a condvar (examples/cond_queue, signal and broadcast
#     per item): phases found (0 expected);
#  2. the cost: cond_barrier untraced vs traced (median of ROUNDS
#     interleaved runs of its own total_ns), per episode;
#  3. OpenMP tasks (examples/omp_tasks, --trace barrier,task): tasks created
#     and task waits in the trace vs the program's own counts.
#
#   bench/condbar_tasks.sh [-r ROUNDS] [-n STEPS]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=100 # time steps of cond_barrier
. bench/lib.sh
bench_init "$@"
EX=.output/examples
CB_ARGS="-t 2 -n $CALLS -c 20000 -s 5"

echo "== 1. condvar barrier episodes vs the program's barrier calls; work queues =="
echo "| program | --trace | barrier calls per worker (program) | phases (trace) | condvar-barrier sites | broadcasts | records lost |"
echo "|---|---|---|---|---|---|---|"
for trace in barrier,cond all; do
	"$SBT" record -q --trace "$trace" -o "$TMP/c.sbt" -- "$EX/cond_barrier" $CB_ARGS >"$TMP/c.out" 2>/dev/null
	"$SBT" report --format json "$TMP/c.sbt" >"$TMP/c.json"
	calls=$(awk '$1 == "phase" && $4 == "0" { n++ } END { print n }' "$TMP/c.out")
	echo "| cond_barrier $CB_ARGS | $trace | $calls | $(json "$TMP/c.json" 'len(r["phases"])') |" \
		"$(json "$TMP/c.json" 'len(r["sites"])') | $(json "$TMP/c.json" 'sum(c["broadcasts"] for c in r["condvars"])') |" \
		"$(json "$TMP/c.json" 'r["drops"]["total"]') |"
done
for how in "" "-B"; do
	for trace in barrier,cond all; do
		"$SBT" record -q --trace "$trace" -o "$TMP/q.sbt" -- "$EX/cond_queue" -t 3 -n 300 -w 100 $how >/dev/null 2>&1
		"$SBT" report --format json "$TMP/q.sbt" >"$TMP/q.json"
		echo "| cond_queue -t 3 -n 300 -w 100 $how | $trace | 0 | $(json "$TMP/q.json" 'len(r["phases"])') |" \
			"$(json "$TMP/q.json" 'len(r["sites"])') | $(json "$TMP/q.json" 'sum(c["broadcasts"] for c in r["condvars"])') |" \
			"$(json "$TMP/q.json" 'r["drops"]["total"]') |"
	done
done

echo
echo "== 2. cost: cond_barrier $CB_ARGS, untraced vs traced, $ROUNDS interleaved rounds =="
cost_per_episode $((2 * CALLS + 1)) "$EX/cond_barrier" $CB_ARGS

echo
echo "== 3. OpenMP tasks: trace vs the program's counts (omp_tasks -n 10 -b 32 -u 50, 2 threads) =="
echo "| build | created (program) | created (trace) | waits (program) | waits (trace) | ran in waits ms (program / trace) |"
echo "|---|---|---|---|---|---|"
for b in gomp llvm; do
	OMP_NUM_THREADS=2 "$SBT" record -q --trace barrier,task -o "$TMP/t.sbt" -- "$EX/omp_tasks_$b" -n 10 -b 32 -u 50 >"$TMP/t.out" 2>/dev/null
	"$SBT" report --format json "$TMP/t.sbt" >"$TMP/t.json"
	read -r pc pw pr < <(awk '$1 == "thread" { c += $6; w += $8; r += $12 } END { print c, w, r }' "$TMP/t.out")
	echo "| $b | $pc | $(json "$TMP/t.json" 'sum(t.get("tasks", {}).get("created", 0) for t in r["threads"])') |" \
		"$pw | $(json "$TMP/t.json" 'sum(t.get("tasks", {}).get("waits", 0) for t in r["threads"])') |" \
		"$(awk -v r="$pr" 'BEGIN { printf "%.2f", r / 1e6 }') / $(json "$TMP/t.json" '"%.2f" % (sum(t.get("tasks", {}).get("run_in_waits_ns", 0) for t in r["threads"]) / 1e6)') |"
done
