#!/usr/bin/env bash
# `sbt-bpf merge` on two simulated nodes (doc/design.md §5.8): 4 Open MPI
# ranks wait (-W) while agent A attaches to ranks 0 and 1, agent B to 2 and 3
# with its records stamped by a clock SKEW ns off and drifting PPM (its
# CLOCK_REALTIME unaware: --clock-skew), agent C to all four on the true
# clock; then the traces of A and B are merged, with and without the
# correction from the collectives, and compared with C's, rank by rank and
# episode by episode. Per run: the correction found at the first shared
# episode (the skew there is SKEW + PPM x the time since B's start), the
# drift found, the uncertainty merge states, and the worst difference of a
# rank's arrival from C's (the two agents' programs stamp one hit a few us
# apart).
#
#   bench/merge_clock.sh [-r RUNS] [SKEW_NS PPM]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_init "$@"
shift $((OPTIND - 1)) 2>/dev/null || true
SKEW=${1:-3000000}
PPM=${2:-50}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
EX=$OUT/examples

one_run() {
	local pids=() p
	mpirun.openmpi --oversubscribe -np 4 "$EX/mpi_ranks_ompi" -W -n 30 -d 10 -x 20 >"$TMP/wl" 2>&1 &
	local mp=$!
	for _ in $(seq 200); do [ "$(grep -c '^ready ' "$TMP/wl")" -eq 4 ] && break; sleep 0.05; done
	pid() { awk -v r="$1" '$1 == "rank" && $2 == r { print $4 }' "$TMP/wl"; }
	"$SBT" record -q --job-id B -o "$TMP/a.sbt" -p "$(pid 0),$(pid 1)" >"$TMP/a.log" 2>&1 &
	pids+=($!)
	"$SBT" record -q --job-id B --clock-skew "$SKEW,$PPM" -o "$TMP/b.sbt" -p "$(pid 2),$(pid 3)" \
		>"$TMP/b.log" 2>&1 &
	pids+=($!)
	"$SBT" record -q -o "$TMP/c.sbt" -p "$(pid 0),$(pid 1),$(pid 2),$(pid 3)" >"$TMP/c.log" 2>&1 &
	pids+=($!)
	for f in a b c; do wait_for "$TMP/$f.log" '^sbt-bpf: tracing' >/dev/null; done
	kill -USR1 "$(pid 0)" "$(pid 1)" "$(pid 2)" "$(pid 3)"
	wait $mp
	for p in "${pids[@]}"; do wait "$p"; done
	"$SBT" merge "$TMP/a.sbt" "$TMP/b.sbt" -o "$TMP/m.sbt" >"$TMP/merge.out"
	"$SBT" merge --no-align "$TMP/a.sbt" "$TMP/b.sbt" -o "$TMP/m0.sbt" >/dev/null
	for f in m m0 c; do "$SBT" report --format json "$TMP/$f.sbt" >"$TMP/$f.json"; done
	python3 - "$TMP/m.json" "$TMP/m0.json" "$TMP/c.json" "$TMP/merge.out" <<'PY'
import json, re, sys
m, m0, c = (json.load(open(p))["mpi"] for p in sys.argv[1:4])
out = open(sys.argv[4]).read()
g = re.search(r"then ([-+0-9.]+) us and ([-+0-9.]+) ppm from (\d+) of (\d+) episodes shared; "
              r"uncertainty \+-([0-9.]+) us", out)
def worst(x):
    w = 0
    for ex, ec in zip(x["episodes"], c["episodes"]):
        ax = {a["rank"]: a["arrival_ns"] for a in ex["arrivals"]}
        for a in ec["arrivals"]:
            w = max(w, abs(ax.get(a["rank"], a["arrival_ns"]) - a["arrival_ns"]))
    return w / 1e3
print(f"| {g.group(1)} | {g.group(2)} | {g.group(3)}/{g.group(4)} | {g.group(5)} | "
      f"{worst(m):.1f} | {worst(m0):.1f} |")
PY
}

echo "== merge: node B's clock +$SKEW ns and $PPM ppm, its realtime unaware; $ROUNDS runs =="
echo "| correction at the first episode us | drift ppm | episodes used | stated uncertainty us | worst arrival vs one agent us (merged) | same, realtime estimate alone us |"
echo "|---|---|---|---|---|---|"
for r in $(seq "$ROUNDS"); do one_run; done
