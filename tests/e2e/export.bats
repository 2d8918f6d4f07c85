#!/usr/bin/env bats
# Exports of real recordings, checked against the JSON report of the same
# trace; the SVG rendered by headless Chromium.
load helpers
XCHECK="python3 $ROOT/tests/e2e/export_checks.py"

record_imbalance() {
	"$SBT" record -o "$T/b.sbt" --trace all -- "$EX/barrier_imbalance" -t 3 -n 4 -d 5 -m sleep \
		>/dev/null 2>&1
	"$SBT" report --format json "$T/b.sbt" >"$T/b.json"
}

@test "export chrome: both views, exact slices, flows paired, approximated never later" {
	record_imbalance
	run "$SBT" export -o "$T/b.trace.json" "$T/b.sbt"
	[ "$status" -eq 0 ]
	run $XCHECK chrome "$T/b.trace.json" "$T/b.json" 3 4
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "export chrome: lock waits and holds of the mutex workload" {
	run "$SBT" record -o "$T/m.sbt" --trace lock -- "$EX/mutex_contention" -t 2 -k 50 -c 20
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/m.sbt" >"$T/m.json"
	# the report's holds against the workers' own, then the export against the report
	$CHECK mutex "$T/m.json" "$T/wl.out" 2 50
	run "$SBT" export --measured -o "$T/m.trace.json" "$T/m.sbt"
	[ "$status" -eq 0 ]
	python3 - "$T/m.trace.json" "$T/m.json" <<'PY'
import collections, json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
lk = [l for l in json.load(open(sys.argv[2]))["locks"] if l["symbol"] == "counter_lock"][0]
holds = [e for e in ev if e["ph"] == "X" and e["name"].startswith("hold counter_lock")]
assert len(holds) == 100, len(holds)  # 2 threads x 50 acquisitions
# each slice is one hold of the report: per thread, the same count and total
# (durations are written in us with 3 decimals: 0.5 ns of rounding each)
count, total = collections.Counter(), collections.Counter()
for e in holds:
    count[e["tid"]] += 1
    total[e["tid"]] += e["dur"] * 1000
for t in lk["threads"]:
    assert count[t["tid"]] == t["count"], (t, count)
    assert abs(total[t["tid"]] - t["hold_ns"]) <= 0.5 * t["count"] + 1, (t, total)
assert not any(e["pid"] >= 1 << 22 for e in ev), "--measured: no approximated view"
PY
}

@test "export csv: a row per phase and thread, equal to the report" {
	record_imbalance
	run "$SBT" export --format csv -o "$T/b.csv" "$T/b.sbt"
	[ "$status" -eq 0 ]
	run $XCHECK csv "$T/b.csv" "$T/b.json"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "export json: the report's JSON" {
	record_imbalance
	run "$SBT" export --format json -o "$T/e.json" "$T/b.sbt"
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["phases"] == b["phases"] and a["approximated"] == b["approximated"]
' "$T/e.json" "$T/b.json"
}

@test "export svg: headless Chromium renders a non-empty timeline" {
	command -v chromium >/dev/null || skip "chromium not installed (sudo make deps-test)"
	record_imbalance
	run "$SBT" export --format svg --width 800 -o "$T/b.svg" "$T/b.sbt"
	[ "$status" -eq 0 ]
	grep -q '</svg>' "$T/b.svg"
	timeout 60 chromium --headless --no-sandbox --disable-gpu --screenshot="$T/b.png" \
		--window-size=1000,300 "file://$T/b.svg" >/dev/null 2>&1
	run $XCHECK png "$T/b.png"
	echo "$output"
	[ "$status" -eq 0 ]
}

# A picture for a paper: within 1400 px, round ticks, a legend with swatches,
# the report's barrier sites in the legend and on hover, phase numbers, the
# main thread's join; one set of rows unless both views are asked for and
# differ (export_checks.py svg).
@test "export svg: fits the width, round ticks, legend, site names, phase numbers, row sets" {
	record_imbalance
	run "$SBT" export --format svg --measured -o "$T/m.svg" "$T/b.sbt"
	[ "$status" -eq 0 ]
	run $XCHECK svg "$T/m.svg" "$T/b.json" 1
	echo "$output"
	[ "$status" -eq 0 ]
	# 4 phases, 250 px each: every one numbered
	[ "$(grep -c 'class="phase"' "$T/m.svg")" -eq 4 ]
	run "$SBT" export --format svg --both -o "$T/both.svg" "$T/b.sbt"
	[ "$status" -eq 0 ]
	run $XCHECK svg "$T/both.svg" "$T/b.json" 2
	echo "$output"
	[ "$status" -eq 0 ]
	# by default, one set when the views differ by less than a pixel (a note says so)
	run "$SBT" export --format svg -o "$T/d.svg" "$T/b.sbt"
	[ "$status" -eq 0 ]
	run $XCHECK svg "$T/d.svg" "$T/b.json" auto
	echo "$output"
	[ "$status" -eq 0 ]
	run "$SBT" export --format svg --width 300 -o "$T/n.svg" "$T/b.sbt"
	[ "$status" -eq 0 ]
	run $XCHECK svg "$T/n.svg" "$T/b.json" auto
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "export otf2: otf2-print reads the archive; events match the trace" {
	command -v otf2-print >/dev/null || skip "otf2-tools not installed (sudo make deps-test)"
	"$SBT" record -o "$T/m.sbt" --trace barrier,lock -- "$EX/mutex_contention" -t 2 -k 40 -c 10 \
		>/dev/null 2>&1
	"$SBT" report --format json "$T/m.sbt" >"$T/m.json"
	run "$SBT" export --format otf2 -o "$T/otf" "$T/m.sbt"
	[ "$status" -eq 0 ]
	otf2-print "$T/otf/traces.otf2" >"$T/otf.txt" 2>"$T/otf.err"
	refute_grep -q warning "$T/otf.err"
	python3 - "$T/otf.txt" "$T/m.json" <<'PY'
import collections, json, sys
ev = collections.Counter(l.split()[0] for l in open(sys.argv[1]) if l[:1].isupper())
r = json.load(open(sys.argv[2]))
acq = sum(l["acquisitions"] for l in r["locks"])
mine = sum(l["acquisitions"] for l in r["locks"] if l["symbol"] == "counter_lock")
assert mine == 80, mine  # 2 threads x 40; glibc takes a few locks of its own
# both views: each acquisition and release once per view
assert ev["THREAD_ACQUIRE_LOCK"] == 2 * acq, ev
assert ev["THREAD_RELEASE_LOCK"] == 2 * acq, ev
assert ev["ENTER"] == ev["LEAVE"] and ev["ENTER"] >= 2 * 2 * acq, ev
PY
	run "$SBT" export --format otf2 -o - "$T/m.sbt"
	[ "$status" -eq 2 ]
	[[ "$output" == *"-o DIR"* ]]
	# an existing archive is refused before the OTF2 library fails over it
	run "$SBT" export --format otf2 -o "$T/otf" "$T/m.sbt"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$T/otf exists: otf2 writes a new archive directory"* ]]
	[[ "$output" != *"[OTF2]"* ]]
	otf2-print "$T/otf/traces.otf2" >/dev/null
}

@test "export: 10 million records with bounded memory" {
	"$OUT/bench/gen_trace" -n 10000000 -o "$T/big.sbt"
	for f in chrome csv svg; do
		/usr/bin/time -f "%M" -o "$T/rss.$f" "$SBT" export --format $f -o /dev/null "$T/big.sbt"
		echo "$f: peak RSS $(cat "$T/rss.$f") KB"
		[ "$(cat "$T/rss.$f")" -lt "$(rss_bound 30000)" ]
	done
	# OTF2 buffers each location's chunks before it writes them
	/usr/bin/time -f "%M" -o "$T/rss.otf2" "$SBT" export --format otf2 -o "$T/otf" "$T/big.sbt"
	echo "otf2: peak RSS $(cat "$T/rss.otf2") KB"
	[ "$(cat "$T/rss.otf2")" -lt "$(rss_bound 150000)" ]
}

@test "export: bad input is a clear usage error" {
	run "$SBT" export "$T/none.sbt"
	[ "$status" -eq 2 ]
	[[ "$output" == *"missing -o FILE"* ]]
	run "$SBT" export --format pdf -o x "$T/none.sbt"
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown --format 'pdf'"* ]]
	run "$SBT" export --format svg --width 200 -o x "$T/none.sbt"
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid value '200' for --width (300..100000)"* ]]
	run "$SBT" export -o "$T/x" "$T/none.sbt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"none.sbt"* ]]
	echo garbage >"$T/bad.sbt"
	run "$SBT" export -o "$T/x" "$T/bad.sbt"
	[ "$status" -eq 1 ]
	run "$SBT" export -o /nonexistent/dir/x "$OUT/../tests/unit/golden/export.csv"
	[ "$status" -eq 1 ]
}

# Golden files of a small synthetic trace (bench/gen_trace: deterministic) in
# every format; after a reviewed change, regenerate them with
# tests/e2e/golden/update.sh.
@test "export: every format of a synthetic trace matches its golden file" {
	"$OUT/bench/gen_trace" -n 96 -t 2 -o "$T/syn.sbt" >/dev/null
	for f in chrome csv json svg; do
		"$SBT" export --format $f --width 400 -o "$T/syn.$f" "$T/syn.sbt"
		diff -u "$ROOT/tests/e2e/golden/synthetic.$f" "$T/syn.$f"
	done
	command -v otf2-print >/dev/null || skip "otf2-tools not installed (sudo make deps-test)"
	"$SBT" export --format otf2 -o "$T/otf" "$T/syn.sbt"
	{ otf2-print "$T/otf/traces.otf2"; otf2-print -G "$T/otf/traces.otf2" 2>/dev/null | grep -v '^===\|^$'; } >"$T/syn.otf2.txt"
	diff -u "$ROOT/tests/e2e/golden/synthetic.otf2.txt" "$T/syn.otf2.txt"
}
