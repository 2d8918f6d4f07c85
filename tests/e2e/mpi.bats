#!/usr/bin/env bats
# MPI across processes (doc/design.md §5.8): `mpirun -np 4` of examples/mpi_ranks.c
# under sbt-bpf, with Open MPI and MPICH, hybrid with OpenMP, and -p on ranks
# already running. Each rank prints the CLOCK_MONOTONIC times around each of
# its collectives in that run; the probes' times must lie inside those
# windows, the episodes must be the workload's own, and the late rank the one
# the run made late. Ranks sleep while working: four ranks share two CPUs.
load helpers

# Open MPI refuses root without these, and four ranks on two CPUs without
# --oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPIRUN=(mpirun.openmpi --oversubscribe)

need_mpi() {
	[ -x "$EX/mpi_ranks_ompi" ] && [ -x "$EX/mpi_ranks_mpich" ] && [ -x "$EX/mpi_hybrid_ompi" ] ||
		{ echo "MPI examples not built: make deps-test installs Open MPI and MPICH" >&2; return 1; }
}

# check_mpi REPORT.json WORKLOAD_OUTPUT NSTEPS LATE COMM [PARTIAL_OK]
check_mpi() {
	python3 "$ROOT/tests/e2e/mpi_checks.py" "$@"
}

@test "mpi: Open MPI, 4 ranks: episodes, the late rank and each rank's waits from its own clock" {
	need_mpi
	run "$SBT" record -o "$T/o.sbt" -- "${OMPIRUN[@]}" -np 4 "$EX/mpi_ranks_ompi" -n 6 -d 10 -x 25 -p
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl"
	"$SBT" report --format json "$T/o.sbt" >"$T/o.json"
	check_mpi "$T/o.json" "$T/wl" 6 3 ompi_mpi_comm_world
	run "$SBT" report "$T/o.sbt"
	[ "$status" -eq 0 ]
	[[ "$output" == *"(MPI rank 3): "*"mpi_ranks_ompi"* ]]
	[[ "$output" == *"=== MPI: 4 ranks, 12 collective episodes on 1 communicator, 48 point-to-point calls ==="* ]]
	[[ "$output" == *"ompi_mpi_comm_world"*" 4 "*" 12 "*" 0 "* ]]
}

@test "mpi: MPICH (Hydra's PMI_RANK, int handles), a late rank other than the last" {
	need_mpi
	run "$SBT" record -o "$T/m.sbt" -- mpirun.mpich -np 4 "$EX/mpi_ranks_mpich" -n 5 -d 10 -x 25 -l 1
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl"
	"$SBT" report --format json "$T/m.sbt" >"$T/m.json"
	check_mpi "$T/m.json" "$T/wl" 5 1 "handle 0x44000000"
}

@test "mpi: hybrid MPI + OpenMP: the OpenMP regions nested in each rank's MPI phases" {
	need_mpi
	run "$SBT" record -o "$T/h.sbt" -- "${OMPIRUN[@]}" -np 2 -x OMP_WAIT_POLICY=passive \
		"$EX/mpi_hybrid_ompi" -n 5 -d 10 -x 20 -t 2
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl"
	"$SBT" report --format json "$T/h.sbt" >"$T/h.json"
	check_mpi "$T/h.json" "$T/wl" 5 1 ompi_mpi_comm_world
	python3 - "$T/h.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["mpi"]["ranks"]:
    # 10 collectives: 9 phases between them; a region in each step's compute,
    # the first before the first barrier: 4 in the phases
    assert r["phases"] == 9, r
    assert r["phase_regions"] == 4, r
ranks = {j["pid"]: j for j in d["jobs"] if "rank" in j}
assert len(ranks) == 2, [j["pid"] for j in d["jobs"]]
for j in ranks.values():
    # each rank's own analysis: its OpenMP team's implicit barriers, one per step
    assert j["report"]["phase_count"] >= 5, j["report"]["phase_count"]
PY
}

@test "mpi: -p on running ranks: a rank traced from a later call joins the right episodes" {
	need_mpi
	"${OMPIRUN[@]}" -np 3 "$EX/mpi_ranks_ompi" -n 60 -d 20 -x 20 >"$T/wl" 2>&1 &
	BG_PIDS+=($!)
	for _ in $(seq 100); do
		[ "$(grep -c '^rank ' "$T/wl")" -eq 3 ] && grep -q '^coll' "$T/wl" && break
		sleep 0.1
	done
	pids=$(awk '$1 == "rank" { printf "%s%s", sep, $4; sep = "," }' "$T/wl")
	run "$SBT" record -o "$T/p.sbt" -d 1 -p "$pids"
	[ "$status" -eq 0 ]
	"$SBT" report --format json "$T/p.sbt" >"$T/p.json"
	wait "${BG_PIDS[0]}"
	check_mpi "$T/p.json" "$T/wl" 60 2 ompi_mpi_comm_world attached
}
