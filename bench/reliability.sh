#!/usr/bin/env bash
# Fault-injection figures (bench/RESULTS.md, "Reliability"): the e2e tests
# that kill, stop, starve, fill the disk under, or attack sbt-bpf and its
# targets, ROUNDS times each (default 5), tallied per test. A test that
# passes by luck shows here as a count below ROUNDS.
#
#   sudo bench/reliability.sh [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
[ "$(id -u)" -eq 0 ] || { echo "reliability: run as root" >&2; exit 1; }
case $rounds in '' | *[!0-9]* | 0) echo "usage: $0 [ROUNDS]" >&2; exit 2 ;; esac
# the files of fault injection, hostile input and privilege tests, and the
# tests of other files about losses, cuts, signals and disk-full
# (FILES= and FILTER= to run others)
files=${FILES-tests/e2e/faults.bats tests/e2e/hostile.bats tests/e2e/errors.bats tests/e2e/follow.bats}
filter=${FILTER-SIGKILL|disk that fills|Ctrl-C|killed|stopped|lost|loss|undersized}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for r in $(seq "$rounds"); do
	echo "round $r of $rounds" >&2
	# shellcheck disable=SC2086
	bats --tap $files >>"$log" 2>&1
	[ -z "$filter" ] || bats --tap -f "$filter" tests/e2e/record.bats tests/e2e/barriers.bats >>"$log" 2>&1
done
echo "| test | passed | of |"
echo "|---|---|---|"
sed -nE 's/^(not ok|ok) [0-9]+ (.*)$/\1\t\2/p' "$log" | sed 's/ # skip.*//' |
	awk -F'\t' -v r="$rounds" '{ n[$2]++; if ($1 == "ok") ok[$2]++; if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 } }
	END { for (i = 1; i <= k; i++) printf "| %s | %d | %d |\n", order[i], ok[order[i]], n[order[i]] }'
