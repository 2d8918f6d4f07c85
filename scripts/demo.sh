#!/usr/bin/env bash
# The demo: trace the bundled pthread barrier example live, then record it
# and show the report of the trace file.
set -euo pipefail
cd "$(dirname "$0")/.."
SBT=.output/sbt-bpf
EX=.output/examples
if [ "$(id -u)" -ne 0 ]; then
	echo "demo: tracing needs root: sudo make demo" >&2
	exit 1
fi
echo "### sbt-bpf -- barrier_imbalance -t 4 -n 5 -d 20  (thread i computes (i+1)*20 ms per phase)"
$SBT --watch-all --max-lines 10 -- $EX/barrier_imbalance -t 4 -n 5 -d 20 -m sleep | grep -v '^phase '
echo
echo "### OMP_NUM_THREADS=4 sbt-bpf -- omp_barriers_gomp (libgomp)"
OMP_NUM_THREADS=4 $SBT -- $EX/omp_barriers_gomp -n 3 -d 10 | grep -v '^phase '
echo
echo "### sbt-bpf -e page-faults,context-switches,task-clock -- page_touch (thread t touches 500 pages in phase 1+t)"
$SBT -q -e page-faults,context-switches,task-clock --watch-all -- $EX/page_touch -t 2 -n 2 -k 500 -s 2 |
	grep -v '^phase \|^warm-up'
echo
echo "### sbt-bpf --trace all -- mutex_contention (4 threads x 200 lock/unlock, 20 us critical section)"
$SBT -q --trace all -- $EX/mutex_contention -t 4 -k 200 -c 20 | grep -v '^thread '
echo
echo "### sbt-bpf record -o /tmp/sbt-demo.sbt -- barrier_imbalance; sbt-bpf report /tmp/sbt-demo.sbt"
$SBT record -o /tmp/sbt-demo.sbt -- $EX/barrier_imbalance -t 4 -n 5 -d 20 -m sleep | grep -v '^phase '
# the first 20 lines; sed reads the rest (head would leave report a broken pipe)
$SBT report /tmp/sbt-demo.sbt | sed -n 1,20p
