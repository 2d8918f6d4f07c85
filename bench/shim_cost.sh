#!/usr/bin/env bash
# The probe shim (issue 15, shim/shim.h) against plain uprobes: ns per
# iteration of probe_loop (one thread) for pthread_barrier_wait,
# pthread_mutex_lock + unlock, sem_post + sem_wait and GOMP_barrier, side by
# side in one run, interleaved rounds, medians:
#   none           - no probes, no shim
#   shim-idle      - the shim preloaded, nothing attached (its sites are nops)
#   shim-timed     - the same with self-timing on (SBT_PROBES_TIMED=1, as
#                    sbt-bpf launches it): four clock reads per call
#   floor          - empty BPF programs on the functions' uprobe + uretprobe
#   floor-shim     - empty BPF programs on the shim's two sites, timing on
#   sbt            - sbt-bpf --no-shim -- probe_loop (plain uprobes)
#   sbt-shim       - sbt-bpf --shim -- probe_loop (the default)
#   sbt-shim-c2/c4 - the same reading 2 / 4 counters (-e; software events:
#                    this VM has no PMU) at the barrier loops' hits
# Targets: sbt-shim within 1.10x of floor-shim; for a single-stepped
# function (sem_post here; the mutex and GOMP_barrier were until plain
# probes went past their prologues, lib/entry_skip.h) at most 1/5 of sbt.
#
#   bench/shim_cost.sh [-n CALLS] [-r ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=100000
. bench/lib.sh
bench_init "$@"

SHIM="$PWD/$OUT/libsbt-probes-barrier.so:$PWD/$OUT/libsbt-probes-lock.so:$PWD/$OUT/libsbt-probes-sem.so"
FUNCS="barrier mutex sem gomp"
SETUPS="none shim-idle shim-timed floor floor-shim sbt sbt-shim"
# counters are read at barriers only
CSETUPS="sbt-shim-c2 sbt-shim-c4"
CFUNCS="barrier gomp"
EV2=task-clock,page-faults
EV4=task-clock,page-faults,context-switches,cpu-migrations
declare -A CLASS=([barrier]=barrier [mutex]=lock [sem]=sem [gomp]=barrier)
declare -A SYMS=([barrier]="pthread_barrier_wait" [mutex]="pthread_mutex_lock pthread_mutex_unlock"
	[sem]="sem_post sem_wait" [gomp]="GOMP_barrier")

ns_per_call() { awk '/ns_per_call/ {print $4}' "$1"; }

# floor_run F PRELOAD ARGS...: probe_loop held, the floor attached, run
floor_run() {
	local f=$1 pre=$2 lp tp
	shift 2
	env ${pre:+LD_PRELOAD=$pre SBT_PROBES_TIMED=1} "$LOOP" -f $f -t 1 -n "$CALLS" -W >"$TMP/loop" &
	lp=$!
	wait_for "$TMP/loop" ready
	"$FLOOR" -p $lp "$@" 2>"$TMP/tool" &
	tp=$!
	wait_for "$TMP/tool" tracing
	kill -USR1 $lp
	wait $lp
	kill -INT $tp
	wait $tp || true
	ns_per_call "$TMP/loop"
}

run_setup() { # SETUP F
	local s=$1 f=$2 args="" a
	case $s in
	none) "$LOOP" -f $f -t 1 -n "$CALLS" >"$TMP/loop"; ns_per_call "$TMP/loop" ;;
	shim-idle) LD_PRELOAD=$SHIM "$LOOP" -f $f -t 1 -n "$CALLS" >"$TMP/loop"; ns_per_call "$TMP/loop" ;;
	shim-timed)
		LD_PRELOAD=$SHIM SBT_PROBES_TIMED=1 "$LOOP" -f $f -t 1 -n "$CALLS" >"$TMP/loop"
		ns_per_call "$TMP/loop" ;;
	floor)
		for a in ${SYMS[$f]}; do args="$args -s $a"; done
		floor_run $f "" $args ;;
	floor-shim)
		for a in ${SYMS[$f]}; do args="$args -s sbt_enter_$a -s sbt_exit_$a"; done
		floor_run $f "$SHIM" -e $args ;;
	sbt | sbt-shim*)
		case $s in
		sbt) args=--no-shim ;;
		sbt-shim) args=--shim ;;
		sbt-shim-c2) args="--shim -e $EV2" ;;
		sbt-shim-c4) args="--shim -e $EV4" ;;
		esac
		"$SBT" -q --trace ${CLASS[$f]} $args -- \
			"$LOOP" -f $f -t 1 -n "$CALLS" >"$TMP/loop" 2>/dev/null
		ns_per_call "$TMP/loop" ;;
	esac
}

echo "== $CALLS iterations, 1 thread, $ROUNDS interleaved rounds (median ns per iteration) =="
setups_of() { # F: the setups run for loop F
	echo $SETUPS
	case " $CFUNCS " in *" $1 "*) echo $CSETUPS ;; esac
}
for f in $FUNCS; do for s in $(setups_of $f); do : >"$TMP/r.$f.$s"; done; done
for r in $(seq "$ROUNDS"); do
	for f in $FUNCS; do
		for s in $(setups_of $f); do run_setup $s $f >>"$TMP/r.$f.$s"; done
	done
done
echo "| loop | none | shim-idle | shim-timed | floor | floor-shim | sbt | sbt-shim | sbt-shim / floor-shim (probe cost) | sbt-shim / sbt (probe cost) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for f in $FUNCS; do
	for s in $SETUPS; do eval "m_${s//-/_}=$(median <"$TMP/r.$f.$s")"; done
	awk -v f="$f (${SYMS[$f]// / + })" -v n="$m_none" -v i="$m_shim_idle" -v ti="$m_shim_timed" \
		-v fl="$m_floor" -v fs="$m_floor_shim" -v s="$m_sbt" -v ss="$m_sbt_shim" 'BEGIN {
		printf "| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %.3f |\n",
			f, n, i, ti, fl, fs, s, ss, (ss - n) / (fs - n), (ss - n) / (s - n) }'
done
echo
echo "== counters read at the shim's barrier sites ($EV2 / $EV4) =="
echo "| loop | none | floor-shim | sbt-shim | 2 counters | 4 counters | sbt-shim / floor-shim | 2 counters / floor-shim | 4 counters / floor-shim |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in $CFUNCS; do
	for s in none floor-shim sbt-shim $CSETUPS; do eval "m_${s//-/_}=$(median <"$TMP/r.$f.$s")"; done
	awk -v f="$f (${SYMS[$f]// / + })" -v n="$m_none" -v fs="$m_floor_shim" -v ss="$m_sbt_shim" \
		-v c2="$m_sbt_shim_c2" -v c4="$m_sbt_shim_c4" 'BEGIN {
		printf "| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f |\n",
			f, n, fs, ss, c2, c4, (ss - n) / (fs - n), (c2 - n) / (fs - n), (c4 - n) / (fs - n) }'
done
