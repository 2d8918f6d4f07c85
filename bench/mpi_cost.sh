#!/usr/bin/env bash
# MPI probes (doc/design.md §5.8), measured side by side in one run:
#  1. the cost per MPI call: 2 Open MPI ranks looping MPI_Barrier,
#     MPI_Allreduce and a ring MPI_Send/MPI_Recv with no compute, untraced,
#     under empty programs on the same probes (the floor), under bpftrace
#     printing each hit, and under sbt-bpf; ROUNDS interleaved rounds, the
#     median of rank 0's own loop time;
#  2. the approximation on MPI rows: 2 or 4 ranks, the last late, traced with
#     sbt-bpf against untraced runs of the same command: the span from the
#     first collective's release to the last's, as the workload measured it
#     untraced (T), measured traced (T_m) and approximated (T_a): δ = T_x / T - 1.
#
#   bench/mpi_cost.sh [-n STEPS] [-r ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=2000
. bench/lib.sh
bench_init "$@"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
EX=$OUT/examples
LIBMPI=$(ldd "$EX/mpi_ranks_ompi" | awk '/libmpi.so/ {print $3}')
MPI_SYMS="PMPI_Barrier PMPI_Allreduce PMPI_Send PMPI_Recv"

# run_ranks TOOL: rank 0's loop ns over CALLS steps (4 MPI calls each)
run_ranks() {
	local tool=$1 pids p tps=()
	mpirun.openmpi -np 2 "$EX/mpi_ranks_ompi" -W -n "$CALLS" -d 0 -x 0 -p >"$TMP/wl" 2>&1 &
	local mp=$!
	for _ in $(seq 200); do
		[ "$(grep -c '^ready ' "$TMP/wl")" -eq 2 ] && break
		sleep 0.05
	done
	pids=$(awk '$1 == "ready" {print $2}' "$TMP/wl")
	case $tool in
	none) ;;
	floor)
		for p in $pids; do
			"$FLOOR" -p "$p" $(printf -- '-s %s ' $MPI_SYMS) 2>"$TMP/tool.$p" &
			tps+=($!)
			wait_for "$TMP/tool.$p" tracing
		done ;;
	bpftrace)
		local prog="" s
		for s in $MPI_SYMS; do
			prog="$prog uprobe:$LIBMPI:$s { printf(\"E %d %d %llu %llx\n\", pid, tid, nsecs, arg0); }
				uretprobe:$LIBMPI:$s { printf(\"X %d %d %llu %llx\n\", pid, tid, nsecs, retval); }"
		done
		bpftrace -e "$prog" >"$TMP/bt.out" 2>/dev/null &
		tps+=($!)
		wait_for "$TMP/bt.out" Attaching ;;
	sbt)
		"$SBT" record -q -o "$TMP/c.sbt" -p "$(tr '\n' ',' <<<"$pids" | sed 's/,$//')" \
			>/dev/null 2>"$TMP/tool" &
		tps+=($!)
		wait_for "$TMP/tool" tracing ;;
	esac
	kill -USR1 $pids
	wait $mp
	for p in "${tps[@]}"; do kill -INT "$p" 2>/dev/null || true; wait "$p" || true; done
	total_ns "$TMP/wl"
}

echo "== MPI probes: 2 ranks (Open MPI), $CALLS steps of MPI_Barrier + MPI_Allreduce + MPI_Send + MPI_Recv, no compute, $ROUNDS interleaved rounds (median) =="
TOOLS="none floor bpftrace sbt"
declare -A res
for tool in $TOOLS; do : >"$TMP/r.$tool"; done
for r in $(seq "$ROUNDS"); do
	for tool in $TOOLS; do run_ranks $tool >>"$TMP/r.$tool"; done
done
for tool in $TOOLS; do res[$tool]=$(median <"$TMP/r.$tool"); done
awk -v n="$((4 * CALLS))" -v none="${res[none]}" -v floor="${res[floor]}" \
	-v bt="${res[bpftrace]}" -v sbt="${res[sbt]}" 'BEGIN {
	printf "| setup | loop ms | ns per MPI call | probe cost ns per call (minus none) | vs floor (probe cost) |\n"
	printf "|---|---|---|---|---|\n"
	printf "| none | %.1f | %.0f | - | - |\n", none / 1e6, none / n
	printf "| floor (empty programs) | %.1f | %.0f | %.0f | 1.00 |\n", floor / 1e6, floor / n, (floor - none) / n
	printf "| bpftrace (printf per hit) | %.1f | %.0f | %.0f | %.2f |\n", bt / 1e6, bt / n, (bt - none) / n, (bt - none) / (floor - none)
	printf "| sbt-bpf record | %.1f | %.0f | %.0f | %.2f |\n", sbt / 1e6, sbt / n, (sbt - none) / n, (sbt - none) / (floor - none)
}'

# span WL: from the first collective's release to the last's, as the ranks
# measured it (the latest return of each)
span() {
	awk '$1 == "coll" { k = $3; d = $8; if (d > dep[k]) dep[k] = d; if (k > last) last = k }
		END { printf "%d\n", dep[last] - dep[0] }' "$1"
}

# accuracy_row LABEL NP ARGS...: T, T_m, T_a medians over ROUNDS and the deltas
accuracy_row() {
	local label=$1 np=$2 r
	shift 2
	: >"$TMP/t"; : >"$TMP/tm"; : >"$TMP/ta"
	for r in $(seq "$ROUNDS"); do
		mpirun.openmpi --oversubscribe -np "$np" "$EX/mpi_ranks_ompi" "$@" >"$TMP/u.wl" 2>&1
		span "$TMP/u.wl" >>"$TMP/t"
		"$SBT" record -q -o "$TMP/a.sbt" -- mpirun.openmpi --oversubscribe -np "$np" \
			"$EX/mpi_ranks_ompi" "$@" >/dev/null 2>&1
		"$SBT" report --format json "$TMP/a.sbt" >"$TMP/a.json"
		json "$TMP/a.json" 'r["mpi"]["run"]["last_release_ns"] - r["mpi"]["run"]["first_release_ns"]' >>"$TMP/tm"
		json "$TMP/a.json" 'r["mpi"]["run"]["last_release_a_ns"] - r["mpi"]["run"]["first_release_a_ns"]' >>"$TMP/ta"
	done
	awk -v l="$label" -v t="$(median <"$TMP/t")" -v m="$(median <"$TMP/tm")" -v a="$(median <"$TMP/ta")" 'BEGIN {
		printf "| %s | %.3f | %.3f | %.3f | %+.1f %% | %+.1f %% |\n", l, t / 1e6, m / 1e6, a / 1e6,
			100 * (m / t - 1), 100 * (a / t - 1) }'
}

echo
echo "== the approximation across ranks (Open MPI), the last rank late, $ROUNDS runs each (median) =="
echo "| row | T ms (untraced) | T_m ms (traced) | T_a ms (approximated) | δ_m | δ_a |"
echo "|---|---|---|---|---|---|"
accuracy_row "2 ranks, 500 steps, no compute (Barrier + Allreduce + ring)" 2 -n 500 -d 0 -x 0 -p
accuracy_row "4 ranks on 2 CPUs, 200 steps, no compute" 4 -n 200 -d 0 -x 0 -p
accuracy_row "4 ranks, 40 steps of 2 ms sleeping, rank 3 +1 ms" 4 -n 40 -d 2 -x 1 -p
