#!/usr/bin/env bats
# Call sites name file:line whatever the compiler and debug-info flavour.
load helpers

# build_variant NAME CC FLAGS...: examples/barrier_imbalance.c built so.
build_variant() {
	local name=$1 cc=$2
	shift 2
	"$cc" -O2 "$@" -pthread "$ROOT/examples/barrier_imbalance.c" -o "$T/$name"
}

# The report's barrier call site for a build: "worker_main (barrier_imbalance.c:LINE)"
# with LINE the source line of the workload's pthread_barrier_wait call.
assert_site_line() {
	local bin=$1 line
	line=$(grep -n 'pthread_barrier_wait(&phase_barrier)' "$ROOT/examples/barrier_imbalance.c" | cut -d: -f1)
	run "$SBT" -q --report "$T/$bin.json" --format json -- "$T/$bin" -t 2 -n 2 -d 5 -m sleep
	[ "$status" -eq 0 ] || { echo "$bin: sbt-bpf exited $status: $output"; return 1; }
	python3 - "$T/$bin.json" "$bin" "$line" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = "worker_main (barrier_imbalance.c:%s)" % sys.argv[3]
got = [s["call_site"] for s in r["sites"]]
assert got == [want], "%s: sites %r, expected [%r]" % (sys.argv[2], got, want)
PY
}

@test "call sites resolve to file:line: gcc and clang, DWARF 4 and 5, PIE or not, frame pointers or not" {
	local cc dw pie fp name
	for cc in gcc clang; do
		for dw in 4 5; do
			for pie in pie no-pie; do
				for fp in omit-frame-pointer no-omit-frame-pointer; do
					name=$cc-dwarf$dw-$pie-$fp
					if [ $pie = pie ]; then
						build_variant "$name" $cc -gdwarf-$dw -fPIE -pie -f$fp
					else
						build_variant "$name" $cc -gdwarf-$dw -fno-pie -no-pie -f$fp
					fi
					assert_site_line "$name"
				done
			done
		done
	done
}

@test "clang OpenMP: the outlined region's barrier names omp_barriers.c:LINE" {
	local line
	line=$(grep -n '#pragma omp barrier' "$ROOT/examples/omp_barriers.c" | head -1 | cut -d: -f1)
	run env OMP_WAIT_POLICY=passive KMP_USE_YIELD=0 OMP_NUM_THREADS=2 \
		"$SBT" -q --report "$T/l.json" --format json -- "$EX/omp_barriers_llvm" -n 2 -d 5
	[ "$status" -eq 0 ]
	python3 - "$T/l.json" "$line" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
got = [s["call_site"] for s in r["sites"]]
assert any(s.endswith("(omp_barriers.c:%s)" % sys.argv[2]) for s in got), got
PY
}
