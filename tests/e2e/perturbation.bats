#!/usr/bin/env bats
# Calibration of the probe cost, and the approximated trace's invariants.
load helpers

@test "calibrate: every calibrated function, single-stepped entries cost more than emulated ones" {
	run "$SBT" calibrate
	[ "$status" -eq 0 ]
	for f in pthread_barrier_wait pthread_mutex_lock pthread_mutex_unlock sem_post sem_wait \
		pthread_cond_signal pthread_cond_broadcast; do
		grep -qE "^$f +[0-9]+ +[0-9]+ +(emulated|single-stepped)" <<<"$output"
	done
	emu=$(awk '$1 == "pthread_barrier_wait" {print $2}' <<<"$output")
	xol=$(awk '$1 == "pthread_mutex_lock" {print $2}' <<<"$output")
	[ "$xol" -gt "$emu" ]
	# the cache gives the same numbers back
	run "$SBT" calibrate --cached
	[ "$status" -eq 0 ]
	[[ "$output" == *"(cached)"* ]]
	[ "$(awk '$1 == "pthread_barrier_wait" {print $2}' <<<"$output")" -eq "$emu" ]
}

@test "approximated trace: calibration recorded, probe cost removed, invariants hold" {
	run "$SBT" record -o "$T/a.sbt" --probe "$EX/stepper:step:region" \
		-- "$EX/stepper" -t 2 -n 4 -k 300 -s 5
	[ "$status" -eq 0 ]
	"$SBT" report --format json "$T/a.sbt" >"$T/a.json"
	python3 - "$T/a.json" /var/cache/sbt-bpf/calibration <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cache = {l.split()[1]: int(l.split()[2]) for l in open(sys.argv[2]) if l.startswith("alpha ")}
cal = {c["symbol"]: c for c in r["calibration"]}
assert cal["pthread_barrier_wait"]["entry_ns"] == cache["pthread_barrier_wait"], cal
assert cal["step"]["entry_ns"] > 0, "the --probe function got a class cost"
assert r["approximated"]["duration_ns"] < r["duration_ns"], "probe cost removed from the run"
for p in r["phases"]:
    a = p["approximated"]
    assert a["phase_ns"] <= p["phase_ns"], (p["index"], a, p["phase_ns"])
    last = max(t["approximated"]["arrive_ns"] for t in p["threads"])
    for t in p["threads"]:
        ta = t["approximated"]
        assert ta["compute_ns"] <= t["compute_ns"], (p["index"], t)
        assert ta["depart_ns"] >= last, "no exit before the approximated last arrival"
        # worker i calls step() 300 * (i + 1) times: that is the overhead removed
        assert t["probe_overhead_ns"] > 0
PY
}
