#!/usr/bin/env bash
# Run every benchmark; each prints its own table of side-by-side ratios.
set -euo pipefail
cd "$(dirname "$0")"
echo "# sbt-bpf benchmarks — $(date -u +%Y-%m-%d) — $(uname -r), $(nproc) CPUs"
./probe_cost.sh "$@"
./lock_cost.sh
./counter_cost.sh
./ring_cost.sh
./shim_cost.sh
./accuracy.py -r 5
./export_cost.sh
./system_cost.sh
./calibration_cost.sh
./mpi_cost.sh
./merge_clock.sh -r 3
