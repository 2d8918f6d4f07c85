#!/usr/bin/env bash
# Per-CPU ring buffers vs one shared ring (issue 15): the per-call cost of a
# probed pthread_barrier_wait pair (count-1 barrier: no waiting) with one
# thread and with two threads hitting probes at once, side by side in one
# run:
#   none              - no probes
#   floor             - empty BPF programs on the same uprobe/uretprobe
#   sbt               - sbt-bpf --trace barrier (one ring per CPU, the default)
#   sbt-shared        - the same with --shared-ring
#   sbt-idle, sbt-shared-idle - the same with a 1G buffer drained every 10 s:
#                       the consumer sleeps through the run, so what is left
#                       is the probes' own cost (on a 2-CPU machine, two
#                       busy threads and a draining consumer share 2 CPUs)
# Rounds are interleaved, medians kept. The ratio 2 threads / 1 thread of
# each setup is what concurrency adds per call. Then: each ring mode at full
# speed, 2 threads for S seconds: events/s and records lost.
#
#   bench/ring_cost.sh [-n CALLS] [-r ROUNDS] [-s SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_init "$@"

IDLE="--buffer-size 1G --drain-interval 10000"
SETUPS="none floor sbt sbt-shared sbt-idle sbt-shared-idle"
# run_setup SETUP THREADS: ns/call of one run
run_setup() {
	case $1 in
	none | floor) SBT_ARGS="" run_loop $1 $2 -n "$CALLS" ;;
	sbt | sbt-shared) SBT_ARGS="--trace barrier" run_loop $1 $2 -n "$CALLS" ;;
	sbt-idle) SBT_ARGS="--trace barrier $IDLE" run_loop sbt $2 -n "$CALLS" ;;
	sbt-shared-idle) SBT_ARGS="--trace barrier $IDLE" run_loop sbt-shared $2 -n "$CALLS" ;;
	esac
}
echo "== $CALLS calls per thread, $ROUNDS interleaved rounds (median ns/call) =="
for s in $SETUPS; do for t in 1 2; do : >"$TMP/r.$s.$t"; done; done
for r in $(seq "$ROUNDS"); do
	for s in $SETUPS; do
		for t in 1 2; do
			run_setup $s $t >>"$TMP/r.$s.$t"
		done
	done
done
echo "| setup | 1 thread ns/call | 2 threads ns/call | 2 threads / 1 thread | probe cost 1 thread (minus none) | probe cost 2 threads (minus none) |"
echo "|---|---|---|---|---|---|"
n1=$(median <"$TMP/r.none.1")
n2=$(median <"$TMP/r.none.2")
for s in $SETUPS; do
	a=$(median <"$TMP/r.$s.1")
	b=$(median <"$TMP/r.$s.2")
	awk -v t=$s -v a="$a" -v b="$b" -v n1="$n1" -v n2="$n2" \
		'BEGIN {printf "| %s | %.0f | %.0f | %.3f | %.0f | %.0f |\n", t, a, b, b / a, a - n1, b - n2}'
done

echo
echo "== full speed: 2 threads for ${SECONDS_FULL} s, --trace barrier, default buffers =="
echo "| rings | calls | events recorded | expected (2 per call) | events/s | records lost |"
echo "|---|---|---|---|---|---|"
for mode in per-CPU shared; do
	full_speed "$SECONDS_FULL" --trace barrier $([ $mode = shared ] && echo --shared-ring) |
		awk -v m=$mode '{printf "| %s | %s | %s | %s | %s | %s |\n", m, $1, $2, 2 * $1, $3, $4}'
done
