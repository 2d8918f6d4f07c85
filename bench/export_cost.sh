#!/usr/bin/env bash
# Export throughput (records/s) and peak memory per format, on a synthetic
# 10-million-record trace (bench/gen_trace: 8 threads, a barrier and a
# mutex per phase) and on a recorded one (barrier_imbalance, 2 threads,
# 200,000 phases of back-to-back barriers). Output to /dev/null: the cost of
# reading, analysing and formatting, not of the disk (OTF2 writes its
# archive to a temporary directory).
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

echo "== export: records/s and peak RSS per format (output to /dev/null) =="
echo "| trace | records | format | seconds | records/s | peak RSS MB |"
echo "|---|---|---|---|---|---|"
for trace in synthetic recorded; do
	recs=$("$SBT" report --format json "$TMP/$trace.sbt" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
	for f in chrome csv json svg otf2; do
		out=/dev/null
		[ $f = otf2 ] && out=$TMP/otf2 && rm -rf "$out"
		/usr/bin/time -f "%e %M" -o "$TMP/t" "$SBT" export --format $f -o "$out" "$TMP/$trace.sbt"
		read -r s kb <"$TMP/t"
		awk -v t=$trace -v r="$recs" -v f=$f -v s="$s" -v kb="$kb" 'BEGIN {
			printf "| %s | %d | %s | %.2f | %.0f | %.1f |\n", t, r, f, s, (s > 0 ? r / s : 0), kb / 1024 }'
	done
done
