#!/usr/bin/env bash
# OpenMP implicit barriers (issue 14), side by side in one run, gcc (libgomp)
# and clang (libomp) builds, 2 threads:
#  1. episodes found vs region forks counted by an LD_PRELOAD wrapper of the
#     runtime's fork functions (bench/omp_count.c), on omp_kernels (static,
#     dynamic and guided loops, a region with a worksharing loop and single);
#  2. probe cost per region instance: omp_for with empty iterations
#     (-d 0), untraced vs traced, median of ROUNDS interleaved runs of the
#     program's own total_ns, per region and per probe hit;
#  3. records per region instance on omp_kernels, whose dynamic and guided
#     loops call the runtime per chunk (calls not probed).
#
#   bench/omp_cost.sh [-r ROUNDS] [-n REGIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=2000 # regions of the cost runs
. bench/lib.sh
bench_init "$@"
SBT=.output/sbt-bpf
EX=.output/examples
COUNT=$PWD/.output/bench/omp_count.so
export OMP_NUM_THREADS=2

echo "== 1. implicit-barrier episodes vs forks counted by LD_PRELOAD (omp_kernels -s 20 -n 400) =="
echo "| build | forks (preload) | regions (program) | region barriers (trace) | partial | records lost |"
echo "|---|---|---|---|---|---|"
for b in gomp llvm; do
	LD_PRELOAD=$COUNT "$EX/omp_kernels_$b" -s 20 -n 400 >"$TMP/k.out" 2>"$TMP/k.err"
	forks=$(awk '$1 == "forks" { print $2 }' "$TMP/k.err")
	prog=$(awk '$1 == "steps" { print $4 }' "$TMP/k.out")
	"$SBT" record -q -o "$TMP/k.sbt" -- "$EX/omp_kernels_$b" -s 20 -n 400 >/dev/null 2>&1
	"$SBT" report --format json "$TMP/k.sbt" >"$TMP/k.json"
	echo "| $b | $forks | $prog | $(json "$TMP/k.json" 'sum(p["implicit"] for p in r["phases"])') |" \
		"$(json "$TMP/k.json" 'r["partial_phases"]') | $(json "$TMP/k.json" 'r["drops"]["total"]') |"
done

echo
echo "== 2. probe cost per region instance: omp_for -r $CALLS -i 2 -d 0 (empty iterations), $ROUNDS interleaved rounds =="
echo "| build | untraced ms | traced ms | cost per region us | probe hits per region | cost per hit us |"
echo "|---|---|---|---|---|---|"
for b in gomp llvm; do
	: >"$TMP/plain"
	: >"$TMP/traced"
	for r in $(seq "$ROUNDS"); do
		"$EX/omp_for_$b" -r "$CALLS" -i 2 -d 0 >"$TMP/p.out"
		total_ns "$TMP/p.out" >>"$TMP/plain"
		"$SBT" -q -- "$EX/omp_for_$b" -r "$CALLS" -i 2 -d 0 >"$TMP/t.out" 2>/dev/null
		total_ns "$TMP/t.out" >>"$TMP/traced"
	done
	p=$(median <"$TMP/plain")
	t=$(median <"$TMP/traced")
	# per region: the frame's entry and return in the master, a body's
	# entry and return in each thread
	hits=$((2 + 2 * OMP_NUM_THREADS))
	awk -v b="$b" -v p="$p" -v t="$t" -v n="$CALLS" -v h="$hits" 'BEGIN {
		printf "| %s | %.1f | %.1f | %.1f | %d | %.2f |\n", b, p / 1e6, t / 1e6, (t - p) / n / 1e3, h, (t - p) / n / h / 1e3 }'
done

echo
echo "== 3. records per region instance, omp_kernels -s 10 -n 400 (its dynamic and guided loops call the runtime per chunk: not probed) =="
echo "| build | regions | records | records per region |"
echo "|---|---|---|---|"
for b in gomp llvm; do
	"$SBT" record -q --trace barrier -o "$TMP/k.sbt" -- "$EX/omp_kernels_$b" -s 10 -n 400 >/dev/null 2>&1
	"$SBT" report --format json "$TMP/k.sbt" >"$TMP/k.json"
	json "$TMP/k.json" '"| '"$b"' | %d | %d | %.1f |" % (r["regions"]["count"], r["events"], r["events"] / r["regions"]["count"])'
done
