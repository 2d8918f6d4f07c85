#!/usr/bin/env bash
# Issue 14, third part, side by side in one run:
#  1. stripped binaries (omp_kernels, gcc and clang builds, stripped with
#     strip(1)): region instances, region-barrier episodes and instances
#     forked before their body was probed, vs the same binary with symbols;
#     traced run time of each (median of ROUNDS interleaved runs of the
#     program's own total_ns);
#  2. teams that change (omp_nested: num_threads 1..3, nested regions):
#     region instances the program ran vs episodes in the trace.
#
#   bench/stripped.sh [-r ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_init "$@"
EX=.output/examples
STEPS=10
K_ARGS="-s $STEPS -n 1200"

echo "== 1. stripped vs with symbols: omp_kernels $K_ARGS, 2 threads, $ROUNDS rounds =="
echo "| build | binary | region instances | region-barrier episodes | before the body was probed | traced ms (median) |"
echo "|---|---|---|---|---|---|"
for b in gomp llvm; do
	strip -o "$TMP/k_$b" "$EX/omp_kernels_$b"
	for bin in "$EX/omp_kernels_$b" "$TMP/k_$b"; do
		kind=symbols
		[ "$bin" = "$TMP/k_$b" ] && kind=stripped
		: >"$TMP/times"
		for r in $(seq "$ROUNDS"); do
			OMP_NUM_THREADS=2 "$SBT" record -q -o "$TMP/k.sbt" -- "$bin" $K_ARGS >"$TMP/k.out" 2>/dev/null
			total_ns "$TMP/k.out" >>"$TMP/times"
		done
		"$SBT" report --format json "$TMP/k.sbt" >"$TMP/k.json"
		echo "| $b | $kind | $(json "$TMP/k.json" 'r["regions"]["count"]') |" \
			"$(json "$TMP/k.json" 'sum(p["implicit"] for p in r["phases"])') |" \
			"$(json "$TMP/k.json" 'sum(s["unprobed"] for s in r["regions"]["sites"])') |" \
			"$(awk -v t="$(median <"$TMP/times")" 'BEGIN { printf "%.1f", t / 1e6 }') |"
	done
done

echo
echo "== 2. changing teams: omp_nested -s $STEPS -u 2000, OMP_NUM_THREADS=3 =="
echo "| build | instances (program) | region-barrier episodes | threads per episode (min..max) |"
echo "|---|---|---|---|"
for b in gomp llvm; do
	OMP_MAX_ACTIVE_LEVELS=1 OMP_NUM_THREADS=3 "$SBT" record -q -o "$TMP/n.sbt" -- "$EX/omp_nested_$b" -s $STEPS -u 2000 >"$TMP/n.out" 2>/dev/null
	"$SBT" report --format json "$TMP/n.sbt" >"$TMP/n.json"
	inst=$(awk '$1 == "region" { print $2, $4, $6 }' "$TMP/n.out" | sort -u | wc -l)
	echo "| $b | $inst | $(json "$TMP/n.json" 'sum(p["implicit"] for p in r["phases"])') |" \
		"$(json "$TMP/n.json" '"%d..%d" % (min(len(p["threads"]) for p in r["phases"]), max(len(p["threads"]) for p in r["phases"]))') |"
done
