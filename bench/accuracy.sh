#!/usr/bin/env bash
# Accuracy of the approximated run (first version, issue 5): for the stepper
# example at several probe densities (--probe on its step() function),
# T = uninstrumented run time (median of ROUNDS runs, the workload's own
# total_ns), T_m = measured under sbt-bpf, T_a = approximated; prints
# delta_m = |T_m - T| / T and delta_a = |T_a - T| / T (medians).
#
#   bench/accuracy.sh [-r ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=0
. bench/lib.sh
bench_init "$@"
EX=$OUT/examples/stepper

# case LABEL "WORKLOAD ARGS" "SBT ARGS": one row of medians
run_case() {
	local label=$1 cmd=$2 sargs=$3 r t tm ta
	: >"$TMP/t"; : >"$TMP/tm"; : >"$TMP/ta"
	for r in $(seq "$ROUNDS"); do
		$cmd | awk '/total_ns/ {print $2}' >>"$TMP/t"
		# shellcheck disable=SC2086
		"$SBT" record -o "$TMP/a.sbt" $sargs -- $cmd >/dev/null 2>&1
		"$SBT" report --format json "$TMP/a.sbt" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(r["duration_ns"], r["approximated"]["duration_ns"])' >"$TMP/one"
		awk '{print $1}' "$TMP/one" >>"$TMP/tm"
		awk '{print $2}' "$TMP/one" >>"$TMP/ta"
	done
	t=$(median <"$TMP/t"); tm=$(median <"$TMP/tm"); ta=$(median <"$TMP/ta")
	awk -v c="$label" -v t="$t" -v tm="$tm" -v ta="$ta" 'function abs(x) {return x < 0 ? -x : x}
		BEGIN {printf "| %s | %.2f | %.2f | %.2f | %.1f %% | %.1f %% |\n", c, t / 1e6, tm / 1e6,
			ta / 1e6, 100 * abs(tm - t) / t, 100 * abs(ta - t) / t}'
}

echo "== accuracy: $ROUNDS rounds (medians, ms) =="
echo "| workload | T | T_m | T_a | delta_m | delta_a |"
echo "|---|---|---|---|---|---|"
for cfg in "100 20" "300 5" "1000 2"; do
	set -- $cfg
	run_case "stepper -t 2 -n 5 -k $1 -s $2, --probe step" "$EX -t 2 -n 5 -k $1 -s $2" \
		"--probe $EX:step:region"
done
run_case "barrier_imbalance -t 4 -n 5 -d 10 (sleep)" \
	"$OUT/examples/barrier_imbalance -t 4 -n 5 -d 10 -m sleep" ""
run_case "mutex_contention -t 2 -k 300 -c 10, --trace lock,futex" \
	"$OUT/examples/mutex_contention -t 2 -k 300 -c 10" "--trace lock,futex"
run_case "sem_pipeline -n 200 -p 100 -c 50" "$OUT/examples/sem_pipeline -n 200 -p 100 -c 50" ""
