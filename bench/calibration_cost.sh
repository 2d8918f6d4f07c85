#!/usr/bin/env bash
# What calibrating in the session costs (issue 17, doc/design.md §5.4), side
# by side in one run, interleaved rounds, medians:
#   start   - from invoking `sbt-bpf record -- CMD` to CMD's first line
#             (CMD prints CLOCK_REALTIME at its start, so does the script
#             just before sbt-bpf), default classes, launch mode with the
#             shim: default (the session measures its costs) against
#             --no-calibrate (the cache: made once before the rounds)
#   total   - the whole `record` of a command that exits at once (the
#             session's last calibration included)
#   measure - the start calibration alone, as `sbt-bpf -v` says it
#   while   - one calibration while tracing (-- a barrier loop of 5 s with
#             the shim, --recalibrate 0.5: libc's functions, which the
#             session does not probe), as `sbt-bpf -v` says it
#   spread  - per function, entry + return cost over the rounds: the
#             session's start calibration (from its trace) against
#             `sbt-bpf calibrate` (passes repeated, 5 repetitions each), run
#             once per round too
# Runs in a mount namespace of its own whose /var/cache/sbt-bpf is a
# temporary directory: the machine's cache is neither read nor changed.
#
#   bench/calibration_cost.sh [-r ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=10
while getopts "r:" o; do
	case $o in
	r) ROUNDS=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
OUT=.output
SBT=$OUT/sbt-bpf
EX=$OUT/examples
if [ -z "${SBT_BENCH_PRIVATE:-}" ]; then
	CACHE=$(mktemp -d)
	trap 'rm -rf "$CACHE"' EXIT
	mkdir -p /var/cache/sbt-bpf
	SBT_BENCH_PRIVATE=1 unshare -m --propagation private sh -c \
		'mount --bind "$0" /var/cache/sbt-bpf && exec "$@"' "$CACHE" "$0" "$@"
	exit
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$SBT" calibrate >/dev/null

median() { sort -n | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# one_run MODE: start latency and total wall time (ms) into $TMP/MODE.*
one_run() {
	local mode=$1 args="" t0 t1 first
	[ "$mode" = cache ] && args=--no-calibrate
	t0=$(date +%s%N)
	"$SBT" record -v $args -o "$TMP/t.sbt" -- sh -c 'date +%s%N' >"$TMP/out" 2>"$TMP/err"
	t1=$(date +%s%N)
	first=$(head -1 "$TMP/out")
	echo $(((first - t0) / 1000)) | awk '{print $1 / 1000}' >>"$TMP/$mode.start"
	echo $(((t1 - t0) / 1000)) | awk '{print $1 / 1000}' >>"$TMP/$mode.total"
	sed -n 's/^sbt-bpf: measured the probe costs in \([0-9]*\) ms$/\1/p' "$TMP/err" >>"$TMP/$mode.measure"
	[ "$mode" = session ] && cp "$TMP/t.sbt" "$TMP/s$r.sbt"
	return 0
}

for r in $(seq "$ROUNDS"); do
	one_run session
	one_run cache
	"$SBT" calibrate | awk 'NR > 2 {print $1, $2 + $3}' >"$TMP/cal$r"
done

# calibrations while tracing: a barrier loop of 5 s, one every 0.5 s
"$SBT" -v -q --recalibrate 0.5 -- "$EX/barrier_imbalance" -t 2 -n 250 -d 10 >/dev/null \
	2>"$TMP/p.err" || true
sed -n 's/^sbt-bpf: measured the probe costs of [0-9]* functions again in \([0-9.]*\) ms.*$/\1/p' \
	"$TMP/p.err" >"$TMP/while"

echo "# calibration in the session: $ROUNDS rounds, medians (ms)"
printf "%-34s %10s %10s\n" "" session no-calibrate
printf "%-34s %10s %10s\n" "start: invoked -> command runs" "$(median <"$TMP/session.start")" \
	"$(median <"$TMP/cache.start")"
printf "%-34s %10s %10s\n" "total: record -- sh -c date" "$(median <"$TMP/session.total")" \
	"$(median <"$TMP/cache.total")"
printf "%-34s %10s %10s\n" "the start calibration alone" "$(median <"$TMP/session.measure")" -
printf "%-34s %10s %10s\n" "one calibration while tracing" "$(median <"$TMP/while")" -
echo "calibrations while tracing in 5 s: $(wc -l <"$TMP/while")"
python3 - "$TMP" "$ROUNDS" tests/e2e <<'PY'
import statistics, sys
sys.path.insert(0, sys.argv[3])
from checks import sbt_calibrations
d, n = sys.argv[1], int(sys.argv[2])
sess, thor = {}, {}
for r in range(1, n + 1):
    for sym, (en, ex, _) in sbt_calibrations(f"{d}/s{r}.sbt")[0][1].items():
        sess.setdefault(sym, []).append(en + ex)
    for line in open(f"{d}/cal{r}"):
        sym, pair = line.split()
        thor.setdefault(sym, []).append(int(pair))
def cell(v):
    if not v:
        return "-"
    m = statistics.median(v)
    return f"{m:.0f} ({min(v)}..{max(v)}, ±{50 * (max(v) - min(v)) / m:.0f} %)"
print(f"entry + return ns over {n} rounds: median (range)")
print(f"{'':24s} {'session, at its start':>28s} {'sbt-bpf calibrate':>28s}")
for sym in thor:
    print(f"{sym:24s} {cell(sess.get(sym, [])):>28s} {cell(thor[sym]):>28s}")
PY
