#!/usr/bin/env bats
# A session measures its own probe costs (doc/design.md §5.4): at its start,
# while it traces and at its end; the trace keeps each calibration with its
# time, the approximation charges the one in force at each record, live and
# in `report` alike; the calibration cache is read with --no-calibrate only
# and written by `calibrate` and that fallback only.
load helpers

# run_private_cache CMD...: CMD in a mount namespace of its own where
# /var/cache/sbt-bpf is $T/cache, so that the cache other sessions of the
# machine use is neither read nor changed.
run_private_cache() {
	mkdir -p "$T/cache" /var/cache/sbt-bpf
	run unshare -m --propagation private sh -c \
		'mount --bind "$0" /var/cache/sbt-bpf && exec "$@"' "$T/cache" "$@"
}

# The cache as it is: its contents and its change time.
cache_state() {
	if [ -e "$T/cache/calibration" ]; then
		sha256sum "$T/cache/calibration" | cut -d' ' -f1
		stat -c %Z.%z "$T/cache/calibration"
	else
		echo none
	fi
}

# Launched with the probe shim, libc's functions are not probed (the shim's
# sites stand in): they are measured again while tracing, and step(), no
# calibrated function, is charged its class's function's cost as it moves.
@test "a trace carries the session's calibrations with their times; report states the source and approximates as the live session did" {
	run "$SBT" --format json --report "$T/live.json" -o "$T/s.sbt" --recalibrate 0.3 \
		--probe "$EX/stepper:step:region" -- "$EX/stepper" -t 2 -n 20 -k 200 -s 100
	[ "$status" -eq 0 ]
	"$SBT" report --format json "$T/s.sbt" >"$T/s.json"
	"$SBT" report "$T/s.sbt" >"$T/s.txt"
	python3 - "$T/s.sbt" "$T/s.json" "$T/s.txt" "$ROOT/tests/e2e" "$T/live.json" <<'PY'
import json, re, sys
sys.path.insert(0, sys.argv[4])
from checks import sbt_calibrations, sbt_origins, sbt_records, unbanded
cals = sbt_calibrations(sys.argv[1])
r = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
live = json.load(open(sys.argv[5]))
times = [ts for ts, _ in cals]
# start, at least one while tracing (a run of ~1 s, every 0.3 s), end
assert len(cals) >= 3, times
assert times == sorted(times) and len(set(times)) == len(times), times
start, _ = sbt_origins(sys.argv[1])
recs = [x[0] for x in sbt_records(sys.argv[1])]
assert times[0] < start, "the first calibration precedes the session"
assert times[-1] > max(recs), "the last one follows the last record"
# the start and the end measure everything in use; those while tracing the
# functions the session does not probe in sbt-bpf's own process (the shim
# stands in for libc's): pthread_barrier_wait, not the shim's sites
first, mid, last = cals[0][1], cals[1][1], cals[-1][1]
for c in (first, last):
    assert {"pthread_barrier_wait", "[shim-site]", "[futex-tracepoints]"} <= set(c), c
assert "pthread_barrier_wait" in mid and "[shim-site]" not in mid, mid
costs = r["approximated"]["costs"]
assert costs["source"] == "session", costs
assert costs["calibrations"] == len(cals), (costs, times)
assert costs["at_ns"] == sorted(costs["at_ns"]) and costs["at_ns"][0] < 0, costs["at_ns"]
ent = {e["symbol"]: e for e in costs["entries"]}
bw = ent["pthread_barrier_wait"]
vals = [c["pthread_barrier_wait"][0] for _, c in cals]
assert bw["calibrations"] == len(vals), (bw, vals)
assert (bw["entry_ns"]["min"], bw["entry_ns"]["max"]) == (min(vals), max(vals)), (bw, vals)
assert ent["[shim-site]"]["calibrations"] == 2, ent["[shim-site]"]
assert ent["[shim-site]"]["class"] == "nop5", ent
# step() is no calibrated function: its class's cost, said so
b = costs["borrowed"]
assert [x["symbol"] for x in b] == ["step"] and b[0]["how"] == "class", b
cal = {c["symbol"]: c for c in r["calibration"]}
assert cal["step"]["cost_of"] == b[0]["from"] and cal["step"]["how"] == "class", cal["step"]
assert cal["pthread_barrier_wait"]["cost_of"] == "[shim-site]", cal["pthread_barrier_wait"]
# the fixed table (ALPHA) holds the first calibration's costs
assert cal["pthread_barrier_wait"]["entry_ns"] == first["[shim-site]"][0], (cal, first)
m = re.search(r"^    Probe costs \(entry \+ return ns\): measured by the session (\d+) times, "
              r"from -[0-9.]+ to [0-9.]+ s$", text, re.M)
assert m and int(m.group(1)) == len(cals), text
assert re.search(r"^        step \(stepper\): \S+'s cost, its probed instruction is of the "
                 r"same class$", text, re.M), text
# step()'s cost moved while the run went on ...
last = max(sbt_records(sys.argv[1]))[0]
moved = {c[b[0]["from"]][0] for ts, c in cals if ts < last and b[0]["from"] in c}
assert len(moved) > 1, moved
# ... and the live session charged each hit what report of the file charges it
assert live["approximated"]["duration_ns"] == r["approximated"]["duration_ns"]
assert live["approximated"]["probe_overhead_ns"] == r["approximated"]["probe_overhead_ns"]
# (the error band aside: live, it spans the calibrations taken so far)
lt = {t["tid"]: t for t in live["threads"]}
for t in r["threads"]:
    assert t["probe_overhead_ns"] == lt[t["tid"]]["probe_overhead_ns"], (t, lt[t["tid"]])
    assert unbanded(t["approximated"]) == unbanded(lt[t["tid"]]["approximated"]), (t, lt[t["tid"]])
assert len(live["phases"]) == len(r["phases"])
for a, p in zip(live["phases"], r["phases"]):
    assert unbanded(a["approximated"]) == unbanded(p["approximated"]), (a["index"], a["approximated"], p["approximated"])
    for x, y in zip(a["threads"], p["threads"]):
        assert x["approximated"] == y["approximated"] and x["probe_overhead_ns"] == y["probe_overhead_ns"]
# the live report was printed at the command's exit: every calibration but the last
assert live["approximated"]["costs"]["calibrations"] == len(cals) - 1, live["approximated"]["costs"]
PY
}

# A program built for function tracing (-pg -mfentry -mnop-mcount): its
# functions begin with a 5-byte nop, a class no library function has. With
# plain uprobes, step() is charged the cost the session measured on
# sbt-bpf's own function of that class, not another class's (a single-
# stepped class cost 10x an emulated one on a 16-core machine).
@test "--probe on a function of a class no library function has: charged its own class, measured in the session" {
	run "$SBT" record --no-shim -o "$T/f.sbt" --probe "$EX/stepper_fentry:step:region" -- \
		"$EX/stepper_fentry" -t 2 -n 5 -k 50 -s 20
	[ "$status" -eq 0 ]
	"$SBT" report --format json "$T/f.sbt" >"$T/f.json"
	"$SBT" report "$T/f.sbt" >"$T/f.txt"
	python3 - "$T/f.sbt" "$T/f.json" "$T/f.txt" "$ROOT/tests/e2e" <<'PY'
import json, re, sys
sys.path.insert(0, sys.argv[4])
from checks import sbt_calibrations, sbt_records
cals = sbt_calibrations(sys.argv[1])
r = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
# every calibration of the session measured the class (cls 2: nop5)
for ts, c in cals:
    assert "sbt_class_nop5" in c and c["sbt_class_nop5"][2] == 2, c
    assert c["sbt_class_nop5"][0] > 0 and c["sbt_class_nop5"][1] > 0, c["sbt_class_nop5"]
b = {x["symbol"]: x for x in r["approximated"]["costs"]["borrowed"]}
assert b["step"]["from"] == "sbt_class_nop5" and b["step"]["how"] == "class", b["step"]
cal = {c["symbol"]: c for c in r["calibration"]}
assert cal["step"]["cost_of"] == "sbt_class_nop5", cal["step"]
# charged exactly the first calibration's cost of its class
first = cals[0][1]["sbt_class_nop5"]
assert (cal["step"]["entry_ns"], cal["step"]["exit_ns"]) == first[:2], (cal["step"], first)
assert re.search(r"^        step \(stepper_fentry\): sbt_class_nop5's cost, its probed "
                 r"instruction is of the same class$", text, re.M), text
# worker i calls step() 50 (i + 1) times a phase: 750 entries and returns
steps = [x[5] for x in sbt_records(sys.argv[1]) if x[6] == b["step"]["probe"]]
assert (steps.count(1), steps.count(2)) == (750, 750), (steps.count(1), steps.count(2))
PY
}

# A function whose first instructions the kernel single-steps is probed
# past them, onto the first it emulates (a jmp; past an endbr64, a je), and
# never where a branch lands past its first instruction (pl_loop's loop
# comes back to its second: a probe there would count each turn) nor past
# its end (pl_falls runs on into pl_next's push, which the workers call
# through a pointer: a probe there would count those calls too). Each probe
# counts the calls the workload made, neither more nor fewer (no class of
# library functions traced: its joins would be probe hits too).
@test "probes past a function's plain first instructions, never past a loop's head" {
	run "$SBT" record -vv --no-shim --trace futex -o "$T/pl.sbt" \
		--probe "$EX/prologues:pl_straight:region" --probe "$EX/prologues:pl_cet:region" \
		--probe "$EX/prologues:pl_loop:region" --probe "$EX/prologues:pl_falls:region" \
		-- "$EX/prologues" -t 2 -c 700 -l 5
	[ "$status" -eq 0 ]
	grep -q "debug: pl_straight (.*/prologues+0x[0-9a-f]*): probed 5 bytes in$" <<<"$output"
	grep -q "debug: pl_cet (.*/prologues+0x[0-9a-f]*): probed 8 bytes in$" <<<"$output"
	[ "$(grep -c "debug: pl_loop \|debug: pl_falls " <<<"$output")" -eq 0 ]
	printf '%s\n' "$output" >"$T/pl.out"
	python3 - "$T/pl.sbt" "$ROOT/tests/e2e" "$T/pl.out" <<'PY'
import re, sys
from collections import Counter
sys.path.insert(0, sys.argv[2])
from checks import sbt_records
calls = sum(int(m) for m in re.findall(r"^thread \d+ tid \d+ calls (\d+)$", open(sys.argv[3]).read(), re.M))
assert calls == 1400, calls
n = Counter((x[6], x[5]) for x in sbt_records(sys.argv[1]))
probes = sorted(p for p, t in n if t == 1)
assert len(probes) == 4, n
for p in probes:
    assert n[(p, 1)] == calls and n[(p, 2)] == calls, (p, n[(p, 1)], n[(p, 2)], calls)
PY
}

# -p: a uprobe belongs to its file, and a hit runs every program attached to
# it, whatever process each was attached for: the functions the session
# probes (libc's, in the traced process) and the futex tracepoints are
# measured at the start and the end only, the others (libgomp's, which
# stepper does not map) while tracing too.
@test "-p: calibrations while tracing of the functions the session does not probe; live = report" {
	"$EX/stepper" -t 2 -n 400 -k 20 -s 100 >"$T/wl.out" &
	BG_PIDS+=($!)
	wait_for "$T/wl.out" '^phase 0 '
	run "$SBT" -p "${BG_PIDS[0]}" -d 1.5 --recalibrate 0.3 --format json --report "$T/live.json" \
		-o "$T/p.sbt"
	[ "$status" -eq 0 ]
	"$SBT" report --format json "$T/p.sbt" >"$T/p.json"
	python3 - "$T/p.sbt" "$T/live.json" "$T/p.json" "$ROOT/tests/e2e" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[4])
from checks import sbt_calibrations, unbanded
cals = sbt_calibrations(sys.argv[1])
assert len(cals) >= 4, [ts for ts, _ in cals]
for c in (cals[0][1], cals[-1][1]):
    assert {"pthread_barrier_wait", "GOMP_barrier", "[futex-tracepoints]"} <= set(c), c
# (and sbt-bpf's own functions of the classes no measured function has)
refs = {"sbt_class_xol", "sbt_class_emulated", "sbt_class_nop5"}
for ts, c in cals[1:-1]:
    assert "GOMP_barrier" in c and set(c) - refs == {"GOMP_barrier"}, c
live, rep = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
# the same approximation: every record charged the calibration in force at
# its time, whether read live or from the file
assert live["approximated"]["duration_ns"] == rep["approximated"]["duration_ns"]
assert live["approximated"]["probe_overhead_ns"] == rep["approximated"]["probe_overhead_ns"]
lt = {t["tid"]: t for t in live["threads"]}
for t in rep["threads"]:
    assert t["probe_overhead_ns"] == lt[t["tid"]]["probe_overhead_ns"], (t, lt[t["tid"]])
    assert unbanded(t["approximated"]) == unbanded(lt[t["tid"]]["approximated"]), (t, lt[t["tid"]])
for a, b in zip(live["phases"], rep["phases"]):
    assert unbanded(a["approximated"]) == unbanded(b["approximated"]), (a["index"], a["approximated"], b["approximated"])
# a report printed live at the session's end lists its calibrations but the
# last (taken once tracing stopped)
assert live["approximated"]["costs"]["calibrations"] in (len(cals) - 1, len(cals))
assert rep["approximated"]["costs"]["calibrations"] == len(cals)
PY
}

# The cache says how each function was probed (its class; how far past its
# first instruction, as sbt-bpf probes CET functions and plain prologues);
# one older than its format is measured again: its costs were of
# instructions no longer probed.
@test "calibrate: the cache's format, and how far in each function was probed" {
	run_private_cache "$SBT" calibrate
	[ "$status" -eq 0 ]
	grep -qx "format 3" "$T/cache/calibration"
	[ "$(grep -c '^alpha ' "$T/cache/calibration")" -gt 5 ]
	[ "$(grep '^alpha ' "$T/cache/calibration" | awk 'NF != 6' | wc -l)" -eq 0 ]
	# what it says of each function's skip is what it shows
	shown=$(grep -c " bytes in)$" <<<"$output" || true)
	[ "$shown" -eq "$(grep '^alpha ' "$T/cache/calibration" | awk '$6 != 0' | wc -l)" ]
	sed -i -E 's/^(alpha [^ ]+ [0-9]+ [0-9]+ [0-9]+) [0-9]+$/\1 0/' "$T/cache/calibration"
	sed -i -E 's/^(alpha pthread_barrier_wait [0-9]+ [0-9]+ [0-9]+) 0$/\1 9/' "$T/cache/calibration"
	run_private_cache "$SBT" calibrate --cached
	[ "$status" -eq 0 ]
	[[ "$output" == *"(cached)"* ]]
	grep -qE "^pthread_barrier_wait +[0-9]+ +[0-9]+ +[a-z-]+ \(9 bytes in\)$" <<<"$output"
	[ "$(grep -c " bytes in)" <<<"$output")" -eq 1 ]
	# a cache of the format before: measured again
	sed -i '/^format /d' "$T/cache/calibration"
	run_private_cache "$SBT" calibrate --cached
	[ "$status" -eq 0 ]
	[[ "$output" == *"(measured now)"* ]]
	grep -qx "format 3" "$T/cache/calibration"
}

@test "--no-calibrate charges the cache; a session that calibrates itself leaves it alone" {
	# a cache of this machine, its costs made distinctive
	run_private_cache "$SBT" calibrate
	[ "$status" -eq 0 ]
	sed -i -E 's/^alpha ([^ ]+) [0-9]+ [0-9]+ /alpha \1 4321 1234 /' "$T/cache/calibration"
	before=$(cache_state)
	run_private_cache "$SBT" record --no-calibrate -o "$T/c.sbt" -- "$EX/barrier_imbalance" -t 2 -n 2 -d 1
	[ "$status" -eq 0 ]
	[ "$(cache_state)" = "$before" ]
	"$SBT" report --format json "$T/c.sbt" >"$T/c.json"
	python3 - "$T/c.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["approximated"]["costs"]
assert c["source"] == "cache" and c["calibrations"] == 1, c
for p in r["calibration"]:
    assert (p["entry_ns"], p["exit_ns"]) == (4321, 1234), p
PY
	run "$SBT" report "$T/c.sbt"
	[[ "$output" == *"Probe costs (entry + return ns): from the calibration cache (--no-calibrate)"* ]]
	# a session measuring its own costs reads none of the cache and writes nothing
	run_private_cache "$SBT" record -o "$T/s.sbt" -- "$EX/barrier_imbalance" -t 2 -n 2 -d 1
	[ "$status" -eq 0 ]
	[ "$(cache_state)" = "$before" ]
	"$SBT" report --format json "$T/s.sbt" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["approximated"]["costs"]["source"] == "session", r["approximated"]["costs"]
assert all(p["entry_ns"] != 4321 for p in r["calibration"]), r["calibration"]
'
	# no cache (nor one of this machine): --no-calibrate measures and caches
	rm "$T/cache/calibration"
	run_private_cache "$SBT" record --no-calibrate -o "$T/m.sbt" -- "$EX/barrier_imbalance" -t 2 -n 2 -d 1
	[ "$status" -eq 0 ]
	[ -s "$T/cache/calibration" ]
	"$SBT" report --format json "$T/m.sbt" | python3 -c '
import json, sys
assert json.load(sys.stdin)["approximated"]["costs"]["source"] == "measured"
'
	# --alpha: fixed, said so
	run "$SBT" record --alpha 500,200 -o "$T/f.sbt" -- "$EX/barrier_imbalance" -t 2 -n 2 -d 1
	[ "$status" -eq 0 ]
	run "$SBT" report "$T/f.sbt"
	[[ "$output" == *"    Probe costs: fixed (--alpha)"* ]]
	run "$SBT" record --recalibrate 5 --no-calibrate -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--recalibrate is about the costs a session measures itself: not with --no-calibrate"* ]]
}

# Two sessions at once, each with its own calibrations: neither's costs are
# the other's, and the cache is not touched (it was, by a session that
# measured because there was none: another run's costs changed under it).
@test "two concurrent sessions keep their own costs" {
	mkdir -p "$T/cache"
	before=$(cache_state)
	for i in 1 2; do
		unshare -m --propagation private sh -c 'mount --bind "$0" /var/cache/sbt-bpf && exec "$@"' \
			"$T/cache" "$SBT" record -o "$T/$i.sbt" --recalibrate 0.2 \
			-- "$EX/barrier_imbalance" -t 2 -n 20 -d 20 >"$T/$i.out" 2>&1 &
		BG_PIDS+=($!)
	done
	wait "${BG_PIDS[0]}"
	wait "${BG_PIDS[1]}"
	[ "$(cache_state)" = "$before" ]
	for i in 1 2; do "$SBT" report --format json "$T/$i.sbt" >"$T/$i.json"; done
	python3 - "$T" "$ROOT/tests/e2e" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from checks import sbt_calibrations
d = sys.argv[1]
cals = [sbt_calibrations(f"{d}/{i}.sbt") for i in (1, 2)]
for i, c in enumerate(cals):
    r = json.load(open(f"{d}/{i + 1}.json"))
    assert r["approximated"]["costs"]["source"] == "session"
    assert len(c) >= 3, [ts for ts, _ in c]
    # what the trace charges first is its own first calibration
    for p in r["calibration"]:
        assert (p["entry_ns"], p["exit_ns"]) == c[0][1][p["cost_of"]][:2], (i, p, c[0])
# two series of their own, taken at their own times
t1, t2 = ({ts for ts, _ in c} for c in cals)
assert not t1 & t2, (t1, t2)
PY
}

# The error band (doc/design.md §5.4): the trace analysed beside at the least
# and the greatest cost of each probe. Plain uprobes, so that every hit is
# charged a calibrated cost (the shim's hits time themselves).
@test "the error band holds every approximated figure, from the costs the session measured" {
	run "$SBT" record --no-shim -o "$T/b.sbt" -- "$EX/barrier_imbalance" -t 3 -n 40 -d 1 -m spin
	[ "$status" -eq 0 ]
	"$SBT" report --format json "$T/b.sbt" >"$T/b.json"
	"$SBT" report --format json --no-band "$T/b.sbt" >"$T/nb.json"
	"$SBT" report "$T/b.sbt" >"$T/b.txt"
	"$SBT" report --no-band "$T/b.sbt" >"$T/nb.txt"
	"$SBT" export --format csv -o "$T/b.csv" "$T/b.sbt"
	python3 - "$T" "$ROOT/tests/e2e" <<'PY'
import csv, json, os, re, sys
sys.path.insert(0, sys.argv[2])
from checks import sbt_calibrations
t = sys.argv[1]
r = json.load(open(f"{t}/b.json"))
nb = json.load(open(f"{t}/nb.json"))
a = r["approximated"]
assert a["duration_ns_low"] <= a["duration_ns"] <= a["duration_ns_high"], a
assert a["duration_ns"] < r["duration_ns"], (a["duration_ns"], r["duration_ns"])
for p in r["phases"]:
    x = p["approximated"]
    assert x["phase_ns_low"] <= x["phase_ns"] <= x["phase_ns_high"], (p["index"], x)
for th in r["threads"]:
    x = th["approximated"]
    assert x["compute_ns_low"] <= x["compute_ns"] <= x["compute_ns_high"], x
    assert x["end_ns_low"] <= x["end_ns"] <= x["end_ns_high"], x
# the costs behind it: each entry's range over the calibrations, and the
# all-CPUs ratio of a barrier call's hits, measured at the start and the end
cals = sbt_calibrations(f"{t}/b.sbt")
assert len(cals) >= 2, len(cals)
if len(os.sched_getaffinity(0)) > 1:
    ratios = []
    for _, c in (cals[0], cals[-1]):
        e, x, cls = c["[all-cpus]"]
        assert e > 0 and x > 0, c["[all-cpus]"]
        ratios.append(e / x)
        # its class: 3 + the threads that hit at once, one per CPU we may use
        assert cls == 3 + min(len(os.sched_getaffinity(0)), 64), c["[all-cpus]"]
    co = a["costs"]
    assert co["all_cpus_threads"] == min(len(os.sched_getaffinity(0)), 64), co
    assert abs(co["all_cpus_ratio_min"] - min(1, *ratios)) < 1e-4, (co, ratios)
    assert abs(co["all_cpus_ratio_max"] - max(1, *ratios)) < 1e-4, (co, ratios)
# --no-band: the same approximation, no band
b = nb["approximated"]
assert "duration_ns_low" not in b and b["duration_ns"] == a["duration_ns"], b
assert all("phase_ns_low" not in p["approximated"] for p in nb["phases"])
assert [p["approximated"]["phase_ns"] for p in nb["phases"]] == [p["approximated"]["phase_ns"] for p in r["phases"]]
# text: T ± e, e the band's farther end, and the band's ends
txt = open(f"{t}/b.txt").read()
m = re.search(r"^Approximated \(probe cost removed, model [^)]*\): ([0-9.]+) ± ([0-9.]+) s", txt, re.M)
assert m, txt
e = max(a["duration_ns"] - a["duration_ns_low"], a["duration_ns_high"] - a["duration_ns"])
assert abs(float(m.group(1)) * 1e9 - a["duration_ns"]) < 1000, (m.group(1), a)
assert abs(float(m.group(2)) * 1e9 - e) < 1000, (m.group(2), e)
assert re.search(r"^    between [0-9.]+ and [0-9.]+ s: the greatest probe costs measured with every hand-off", txt, re.M)
assert "±" not in open(f"{t}/nb.txt").read()
# CSV: each row carries its phase's span and band, as the JSON has them
ph = {p["index"]: p["approximated"] for p in r["phases"]}
rows = list(csv.DictReader(open(f"{t}/b.csv")))
assert rows
for row in rows:
    x = ph[int(row["phase"])]
    assert (int(row["a_phase_ns"]), int(row["a_phase_ns_low"]), int(row["a_phase_ns_high"])) == \
        (x["phase_ns"], x["phase_ns_low"], x["phase_ns_high"]), (row, x)
PY
}
