#!/usr/bin/env bash
# Crafted traces (bench/gen_hostile: every record a new thread, barrier,
# call site, process, semaphore, condvar, parallel region or loss; jobs: a
# new process with a report of its own): report text, report JSON and every
# export (of one process, for jobs) at N and 4N records, time and peak memory, and the ratio
# 4N / N of each (4.0: linear). A reader walking what it has seen per record
# shows ratios near 16. No root needed.
#
#   bench/hostile.sh [-n RECORDS]        (default 50000; KINDS="jobs ..." for some)
set -euo pipefail
cd "$(dirname "$0")/.."
N=50000
[ "${1:-}" = "-n" ] && N=$2
SBT=${SBT:-.output/sbt-bpf} # SBT=path/to/another/build to compare
LIMIT=${LIMIT:-120}         # seconds a run may take
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run NAME FILE ARGS...: "seconds KB" of sbt-bpf ARGS on FILE
run() {
	local f=$1
	shift
	rm -rf "$TMP/out" "$TMP/t"
	if timeout "$LIMIT" /usr/bin/time -f "%e %M" -o "$TMP/t" "$SBT" "$@" "$f" >/dev/null 2>&1 ||
		grep -qE '^[0-9.]+ [0-9]+$' "$TMP/t"; then
		tail -1 "$TMP/t"
	else
		echo "$LIMIT+ 0" # killed at the limit
	fi
}

echo "| trace | reader | N: s | N: MB | 4N: s | 4N: MB | time 4N/N | memory 4N/N |"
echo "|---|---|---|---|---|---|---|---|"
for k in ${KINDS:-hang sites callsites idle inflight lost pids exits sems conds regions semgaps condgaps semruns jobs}; do
	.output/bench/gen_hostile -k "$k" -n "$N" -o "$TMP/n.sbt" >/dev/null
	.output/bench/gen_hostile -k "$k" -n $((4 * N)) -o "$TMP/4n.sbt" >/dev/null
	one= # a trace of several processes: an export takes one
	[ "$k" = jobs ] && one="--pid 200000 "
	for r in "report" "report --format json" "export ${one}--format chrome -o $TMP/out" \
		"export ${one}--format csv -o $TMP/out" "export ${one}--format svg -o $TMP/out" \
		"export ${one}--format otf2 -o $TMP/out"; do
		# shellcheck disable=SC2086
		read -r s1 k1 <<<"$(run "$TMP/n.sbt" $r)"
		# shellcheck disable=SC2086
		read -r s4 k4 <<<"$(run "$TMP/4n.sbt" $r)"
		awk -v k="$k" -v r="${r%% -o*}" -v s1="$s1" -v k1="$k1" -v s4="$s4" -v k4="$k4" 'BEGIN {
			t = (s1 + 0 >= 0.05 && s4 !~ /\+/) ? sprintf("%.1f", s4 / s1) : "-"
			m = (k1 > 0 && k4 > 0) ? sprintf("%.1f", k4 / k1) : "-"
			printf "| %s | %s | %s | %.0f | %s | %.0f | %s | %s |\n", k, r, s1, k1 / 1024,
			       s4, k4 / 1024, t, m }'
	done
done
