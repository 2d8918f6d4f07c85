#!/usr/bin/env bash
# The load soak (make soak; not part of CI): bench/hammer, 64 threads on one
# mutex and one barrier, for SECONDS (default 600) under
# `sbt-bpf --trace all -q -- ...`. The tracer's resident memory and CPU time
# are sampled every second. Prints the memory's least-squares slope over the
# run's second half (flat: ~0), the tracer's CPU share, events per second,
# records lost, and whether the target finished with its own count right.
# Samples are kept in the directory printed first.
set -euo pipefail
cd "$(dirname "$0")/.."
RUN_S=${1:-600}
SBT=.output/sbt-bpf
[ "$(id -u)" -eq 0 ] || { echo "soak: tracing needs root: sudo make soak" >&2; exit 1; }
dir=$(mktemp -d /tmp/sbt-soak.XXXXXX)
echo "soak: ${RUN_S} s, samples in $dir"
"$SBT" --trace all -q -- .output/bench/hammer -t 64 -s "$RUN_S" >"$dir/out" 2>"$dir/err" &
tracer=$!
hz=$(getconf CLK_TCK)
printf 't_s\trss_kib\tcpu_s\n' >"$dir/samples.tsv"
t=0
while kill -0 "$tracer" 2>/dev/null; do
	rss=$(awk '/^VmRSS/ {print $2}' "/proc/$tracer/status" 2>/dev/null || true)
	cpu=$(awk -v hz="$hz" '{print ($14 + $15) / hz}' "/proc/$tracer/stat" 2>/dev/null || true)
	[ -n "$rss" ] && [ -n "$cpu" ] && printf '%s\t%s\t%s\n' "$t" "$rss" "$cpu" >>"$dir/samples.tsv"
	sleep 1
	t=$((t + 1))
done
rc=0
wait "$tracer" || rc=$?
python3 - "$dir" "$rc" <<'PY'
import re, sys
d, rc = sys.argv[1], int(sys.argv[2])
rows = [l.split("\t") for l in open(f"{d}/samples.tsv").read().split("\n")[1:] if l]
t = [float(r[0]) for r in rows]; rss = [float(r[1]) for r in rows]; cpu = [float(r[2]) for r in rows]
half = len(t) // 2
x, y = t[half:], rss[half:]
mx, my = sum(x) / len(x), sum(y) / len(y)
slope = sum((a - mx) * (b - my) for a, b in zip(x, y)) / max(sum((a - mx) ** 2 for a in x), 1e-9)
out = open(f"{d}/out").read()
m = re.search(r"SBT summary: (\d+) phases.*?(\d+) events in ([\d.]+) s", out)
lost = re.search(r"WARNING: (\d+) records lost", out)
wl = re.search(r"rounds (\d+) locks (\d+) threads (\d+)", out)
print(f"samples            {len(rows)} (1 per s)")
print(f"tracer RSS         first {rss[0]/1024:.1f} MiB, last {rss[-1]/1024:.1f} MiB, max {max(rss)/1024:.1f} MiB")
print(f"RSS slope          {slope * 60:.1f} KiB/min over the second half")
print(f"tracer CPU         {cpu[-1]:.1f} s in {t[-1]:.0f} s ({100 * cpu[-1] / max(t[-1], 1):.1f} % of one CPU)")
if m:
    print(f"events             {int(m.group(2))} in {float(m.group(3)):.0f} s ({int(m.group(2)) / float(m.group(3)):.0f}/s), {m.group(1)} phases")
print(f"records lost       {lost.group(1) if lost else 0}")
print(f"target             {'rounds %s, locks %s, %s threads' % wl.groups() if wl else 'no result line'}; sbt-bpf exit {rc}")
PY
