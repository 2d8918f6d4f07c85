#!/usr/bin/env bash
# Report and export throughput (records/s) and peak memory per format, on a
# synthetic 10-million-record trace (bench/gen_trace: 8 threads, a barrier
# and a mutex per phase), on a recorded one (barrier_imbalance, 2 threads,
# 200,000 phases of back-to-back barriers) and on a recorded OpenMP one
# (omp_kernels_gomp, 4 threads, --trace all: region bodies, team barriers,
# futex calls). Output to /dev/null: the cost of reading, analysing and
# formatting, not of the disk (OTF2 writes its archive to a temporary
# directory). `report` as text, as JSON (the default: the summary and the
# first 10000 phases) and as JSON with every phase (--phases all).
#
#   bench/export_cost.sh [-n RECORDS]
set -euo pipefail
cd "$(dirname "$0")/.."
N=10000000
[ "${1:-}" = "-n" ] && N=$2
SBT=.output/sbt-bpf
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

.output/bench/gen_trace -n "$N" -o "$TMP/synthetic.sbt" >/dev/null
"$SBT" record -o "$TMP/recorded.sbt" --trace barrier -- \
	.output/examples/barrier_imbalance -t 2 -n 200000 -d 0 -m spin >/dev/null 2>&1
OMP_NUM_THREADS=4 "$SBT" record -o "$TMP/openmp.sbt" --trace all -- \
	.output/examples/omp_kernels_gomp -s 20000 -n 16 >/dev/null 2>&1

# timed NAME FORMAT COMMAND...: one table row
timed() {
	local trace=$1 f=$2 s kb
	shift 2
	/usr/bin/time -f "%e %M" -o "$TMP/t" "$@" >/dev/null
	read -r s kb <"$TMP/t"
	awk -v t="$trace" -v r="$recs" -v f="$f" -v s="$s" -v kb="$kb" 'BEGIN {
		printf "| %s | %d | %s | %.2f | %.0f | %.1f |\n", t, r, f, s, (s > 0 ? r / s : 0), kb / 1024 }'
}

records() {
	"$SBT" report --format json --phases 1 "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])'
}

echo "== report: records/s and peak RSS (output to /dev/null) =="
echo "| trace | records | report | seconds | records/s | peak RSS MB |"
echo "|---|---|---|---|---|---|"
for trace in synthetic recorded openmp; do
	recs=$(records "$TMP/$trace.sbt")
	timed $trace text "$SBT" report "$TMP/$trace.sbt"
	timed $trace "json (10000 phases)" "$SBT" report --format json "$TMP/$trace.sbt"
	timed $trace "json --phases all" "$SBT" report --format json --phases all "$TMP/$trace.sbt"
done
echo

echo "== export: records/s and peak RSS per format (output to /dev/null) =="
echo "| trace | records | format | seconds | records/s | peak RSS MB |"
echo "|---|---|---|---|---|---|"
for trace in synthetic recorded openmp; do
	recs=$(records "$TMP/$trace.sbt")
	for f in chrome csv json svg otf2; do
		out=/dev/null
		[ $f = otf2 ] && out=$TMP/otf2 && rm -rf "$out"
		timed $trace $f "$SBT" export --format $f -o "$out" "$TMP/$trace.sbt"
	done
done
