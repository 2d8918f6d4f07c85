#!/usr/bin/env bash
# The cost of the efficiencies and wait states (issue 18, doc/design.md §5.5):
# `sbt-bpf report` of one synthetic trace (bench/gen_trace: THREADS threads, a
# barrier and a mutex per phase) by a build from before them (OLD, another
# checkout's .output/sbt-bpf) and by this one, side by side: the two builds
# alternate, ROUNDS rounds, text, JSON (the first 10000 phases, the default)
# and JSON with every phase, output to a pipe into wc. Prints each run's CPU
# seconds (user + system: what the report costs, which a loaded machine
# stretches less than the elapsed time), the medians of CPU and elapsed
# seconds, peak RSS and the bytes written.
#
#   bench/efficiency_cost.sh OLD_SBT [-n RECORDS] [-t THREADS] [-r ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=${1:?usage: $0 OLD_SBT [-n RECORDS] [-t THREADS] [-r ROUNDS]}
shift
N=10000000 THREADS=8 ROUNDS=5
while getopts "n:t:r:" o; do
	case $o in
	n) N=$OPTARG ;;
	t) THREADS=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	*) exit 2 ;;
	esac
done
NEW=.output/sbt-bpf
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
.output/bench/gen_trace -n "$N" -t "$THREADS" -o "$TMP/syn.sbt" >/dev/null

# run BUILD ARGS...: "cpu-seconds elapsed-seconds peak-RSS-MB bytes" of one report
run() {
	local sbt=$1
	shift
	/usr/bin/time -f "%U %S %e %M" -o "$TMP/t" "$sbt" report "$@" "$TMP/syn.sbt" | wc -c >"$TMP/b"
	awk -v b="$(cat "$TMP/b")" '{ printf "%.2f %s %.1f %d\n", $1 + $2, $3, $4 / 1024, b }' "$TMP/t"
}

median() {
	tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "| report | build | CPU s, each round | median CPU s | median elapsed s | peak RSS MB | output MB |"
echo "|---|---|---|---|---|---|---|"
for fmt in text json json-all; do
	case $fmt in
	text) args=() ;;
	json) args=(--format json) ;;
	json-all) args=(--format json --phases all) ;;
	esac
	declare -A cpu=() wall=() rss=() bytes=()
	for ((i = 0; i < ROUNDS; i++)); do
		for b in old new; do
			sbt=$OLD
			[ $b = new ] && sbt=$NEW
			read -r c e m w < <(run "$sbt" "${args[@]}")
			cpu[$b]="${cpu[$b]:-} $c"
			wall[$b]="${wall[$b]:-} $e"
			rss[$b]=$m
			bytes[$b]=$w
		done
	done
	for b in old new; do
		echo "| ${args[*]:-text} | $b |${cpu[$b]} | $(median "${cpu[$b]}") |" \
			"$(median "${wall[$b]}") | ${rss[$b]} |" \
			"$(awk -v b="${bytes[$b]}" 'BEGIN { printf "%.1f", b / 1048576 }') |"
	done
	unset cpu wall rss bytes
done
echo
echo "$N records, $THREADS threads: $("$NEW" report --format json --phases 1 "$TMP/syn.sbt" |
	python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["events"], "events,", r["phase_count"], "phases")')"
