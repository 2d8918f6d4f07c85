#!/usr/bin/env bash
# Lock probes: per-iteration cost of pthread_mutex_lock + pthread_mutex_unlock
# on a private (never contended) mutex, measured side by side in one run
# (none / empty-program floor on the same two functions / sbt-bpf --trace
# lock), then the mutex example at full speed with every lock probe on.
#
#   bench/lock_cost.sh [-n CALLS] [-r ROUNDS] [-s SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=50000
. bench/lib.sh
bench_init "$@"
LOOP_ARGS="-f mutex"
FLOOR_ARGS="-s pthread_mutex_lock -s pthread_mutex_unlock"
SBT_ARGS="--trace lock"
echo "== lock probes: $CALLS lock+unlock iterations, 1 thread, $ROUNDS interleaved rounds (median ns/iteration) =="
TOOLS="none floor sbt"
declare -A res
for tool in $TOOLS; do : >"$TMP/r.$tool"; done
for r in $(seq "$ROUNDS"); do
	for tool in $TOOLS; do run_loop $tool 1 -n "$CALLS" >>"$TMP/r.$tool"; done
done
for tool in $TOOLS; do res[$tool]=$(median <"$TMP/r.$tool"); done
awk -v none="${res[none]}" -v floor="${res[floor]}" -v sbt="${res[sbt]}" 'BEGIN {
	printf "| setup | ns/iteration (2 probed calls) | probe cost ns (minus none) | vs floor (per iteration) | vs floor (probe cost) |\n"
	printf "|---|---|---|---|---|\n"
	printf "| none | %.0f | - | - | - |\n", none
	printf "| floor (empty programs) | %.0f | %.0f | 1.00 | 1.00 |\n", floor, floor - none
	printf "| sbt-bpf --trace lock | %.0f | %.0f | %.2f | %.2f |\n", sbt, sbt - none, sbt / floor, (sbt - none) / (floor - none)
}'

echo
echo "== full speed: 2 threads locking for ${SECONDS_FULL} s under sbt-bpf --trace all, default buffers =="
read -r iters events rate lost < <(full_speed "$SECONDS_FULL" --trace all)
acq=$(awk '$2 == "mutex" {s += $3} END {print s + 0}' "$TMP/sbt.out")
echo "| lock+unlock iterations | events recorded | expected (4 per iteration) | acquisitions in the lock table | events/s | records lost |"
echo "|---|---|---|---|---|---|"
awk -v c="$iters" -v e="$events" -v r="$rate" -v l="$lost" -v a="$acq" \
	'BEGIN {printf "| %d | %d | %d | %d | %.0f | %d |\n", c, e, 4 * c, a, r, l}'
