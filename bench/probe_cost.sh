#!/usr/bin/env bash
# Per-call cost of a probed enter/exit pair (pthread_barrier_wait on a count-1
# barrier), measured side by side in one run:
#   none     - no probes (the function's own cost)
#   floor    - empty BPF programs on the same uprobe/uretprobe (bench/floor)
#   sbt-bpf  - sbt-bpf -q --trace barrier -p PID (the same probes as the floor)
#   sbt-bpf default - the default classes: + futex syscall tracepoints (this
#              loop makes one futex wake per call)
#   *-pf     - the same with one uprobe link per function (kernels < 6.6)
#   bpftrace - bpftrace printing one line per event (the equivalent recording)
# Rounds are interleaved and the median is kept. Then: a 2-thread full-speed
# run under sbt-bpf with default buffers (events/s, records lost), and the
# attach time for a process using libc and libgomp.
#
#   bench/probe_cost.sh [-n CALLS] [-r ROUNDS] [-s SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=200000
. bench/lib.sh
bench_init "$@"

SBT_ARGS="--trace barrier"
echo "== probe cost: $CALLS calls, 1 thread, $ROUNDS interleaved rounds (median ns/call) =="
declare -A res
TOOLS="none floor sbt floor-pf sbt-pf sbt-default bpftrace"
for tool in $TOOLS; do : >"$TMP/r.$tool"; done
for r in $(seq "$ROUNDS"); do
	for tool in $TOOLS; do
		n=$CALLS
		[ $tool = bpftrace ] && n=$((CALLS / 4)) # ~17 us per call: keep the run short
		run_loop $tool 1 -n $n >>"$TMP/r.$tool"
	done
done
for tool in $TOOLS; do res[$tool]=$(median <"$TMP/r.$tool"); done
awk -v none="${res[none]}" -v floor="${res[floor]}" -v sbt="${res[sbt]}" -v bt="${res[bpftrace]}" \
	-v floorpf="${res[floor-pf]}" -v sbtpf="${res[sbt-pf]}" -v sbtdef="${res[sbt-default]}" 'BEGIN {
	printf "| setup | ns/call | probe cost ns (minus none) | vs floor (per call) | vs floor (probe cost) |\n"
	printf "|---|---|---|---|---|\n"
	printf "| none | %.0f | - | - | - |\n", none
	printf "| floor (empty programs) | %.0f | %.0f | 1.00 | 1.00 |\n", floor, floor - none
	printf "| sbt-bpf --trace barrier | %.0f | %.0f | %.2f | %.2f |\n", sbt, sbt - none, sbt / floor, (sbt - none) / (floor - none)
	printf "| floor, per-function links | %.0f | %.0f | 1.00 | 1.00 |\n", floorpf, floorpf - none
	printf "| sbt-bpf --trace barrier, per-function links | %.0f | %.0f | %.2f | %.2f |\n", sbtpf, sbtpf - none, sbtpf / floorpf, (sbtpf - none) / (floorpf - none)
	printf "| sbt-bpf, default classes (+ futex tracepoints) | %.0f | %.0f | %.2f | %.2f |\n", sbtdef, sbtdef - none, sbtdef / floor, (sbtdef - none) / (floor - none)
	printf "| bpftrace (printf per event) | %.0f | %.0f | %.2f | %.2f |\n", bt, bt - none, bt / floor, (bt - none) / (floor - none)
}'

echo
echo "== BPF program run time per hit (kernel.bpf_stats_enabled=1, $CALLS calls; the stats add ~55 ns to each) =="
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
echo "| program | ns per hit |"
echo "|---|---|"
for tool in floor sbt floor-pf sbt-pf; do
	run_loop $tool 1 -n "$CALLS" >/dev/null
	echo "| ($tool) | |"
	awk '{printf "| %s | %s |\n", $1, $2}' "$TMP/progstats"
done
sysctl -qw kernel.bpf_stats_enabled="$old_stats"

echo
echo "== full speed: 2 threads for ${SECONDS_FULL} s under sbt-bpf --trace barrier, default buffers =="
echo "| calls | events recorded | expected (2 per call) | events/s | records lost |"
echo "|---|---|---|---|---|"
full_speed "$SECONDS_FULL" --trace barrier | awk '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, 2 * $1, $3, $4}'

echo
echo "== attach time: process using libc and libgomp (omp_barriers_gomp), $ROUNDS runs =="
: >"$TMP/attach"
: >"$TMP/wall"
for r in $(seq "$ROUNDS"); do
	OMP_NUM_THREADS=2 $OUT/examples/omp_barriers_gomp -n 1 -d 1 -W >"$TMP/omp" &
	op=$!
	wait_for "$TMP/omp" ready
	t0=$(date +%s%N)
	"$SBT" -q -p $op >/dev/null 2>"$TMP/tool" & # default classes
	tp=$!
	wait_for "$TMP/tool" tracing
	t1=$(date +%s%N)
	grep -oE 'attached in [0-9.]+ ms' "$TMP/tool" | awk '{print $3}' >>"$TMP/attach"
	echo "$(( (t1 - t0) / 1000000 ))" >>"$TMP/wall"
	kill -USR1 $op
	wait $op
	wait $tp || true
done
echo "| probes attached (median ms) | command start to tracing, incl. BPF load (median ms) |"
echo "|---|---|"
echo "| $(median <"$TMP/attach") | $(median <"$TMP/wall") |"
