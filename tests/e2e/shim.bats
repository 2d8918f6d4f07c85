#!/usr/bin/env bats
# The probe shim (shim/shim.h; the default with -- CMD): probes at the
# wrappers' 5-byte-nop sites give what plain uprobes on the functions give
# (--no-shim), both checked against each workload's own counts and clocks.
# The other suites run with the default, the shim.
load helpers

# With --shim the shim's sites, not the libraries', carried the records of
# function $3 in trace $2; with --no-shim the libraries' (the report's probe
# table, calibration[], names the object probed).
probed_as() {
	"$SBT" report --format json "$2" |
		python3 -c '
import json, sys
r = json.load(sys.stdin)
objs = {p["object"] for p in r["calibration"] if p["symbol"] == sys.argv[1]}
shim = {"libsbt-probes" in o for o in objs}
sys.exit(shim != {sys.argv[2] == "--shim"})' "$3" "$1"
}

@test "shim: pthread barrier, every phase exact against the workload's clocks (multi and per-probe links; and without the shim)" {
	run "$SBT" record -v -o "$T/b.sbt" -- "$EX/barrier_imbalance" -t 4 -n 6 -d 20 -m sleep
	[ "$status" -eq 0 ]
	[[ "$output" == *"probe shim preloaded: "*libsbt-probes-barrier.so* ]]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/b.sbt" >"$T/b.json"
	$CHECK imbalance "$T/b.json" "$T/wl.out" "$T/b.sbt" 6
	probed_as --shim "$T/b.sbt" pthread_barrier_wait
	$CHECK measured "$T/b.json" "$T/b.sbt"
	# one link per probe (kernels without multi-uprobe links): the same
	run env SBT_BPF_NO_UPROBE_MULTI=1 "$SBT" record --shim -o "$T/f.sbt" -- \
		"$EX/barrier_imbalance" -t 4 -n 6 -d 20 -m sleep
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/f.sbt" >"$T/f.json"
	$CHECK imbalance "$T/f.json" "$T/wl.out" "$T/f.sbt" 6
	run "$SBT" record -v --no-shim -o "$T/n.sbt" -- "$EX/barrier_imbalance" -t 4 -n 6 -d 20 -m sleep
	[ "$status" -eq 0 ]
	[[ "$output" != *"probe shim preloaded"* ]]
	echo "$output" >"$T/wl.out"
	"$SBT" report --format json "$T/n.sbt" >"$T/n.json"
	$CHECK imbalance "$T/n.json" "$T/wl.out" "$T/n.sbt" 6
	probed_as --no-shim "$T/n.sbt" pthread_barrier_wait
}

@test "shim: mutex acquisitions, hold and wait times, exact (pthread_spin_lock too; and without the shim)" {
	local mode
	for mode in --shim --no-shim; do
		run chrt -f 10 "$SBT" record $mode --trace all -o "$T/m.sbt" -- "$EX/mutex_contention" -t 4 -k 300 -c 20
		[ "$status" -eq 0 ]
		echo "$output" >"$T/wl.out"
		grep -q '^counter 1200$' "$T/wl.out"
		"$SBT" report --format json "$T/m.sbt" >"$T/m.json"
		$CHECK mutex "$T/m.json" "$T/wl.out" 4 300 futex
		probed_as $mode "$T/m.sbt" pthread_mutex_lock
	done
	# with the shim, no "not traced: pthread_spin_lock": its site takes a probe
	run chrt -f 10 "$SBT" record --trace all -o "$T/m.sbt" -- "$EX/mutex_contention" -t 4 -k 300 -c 20
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	run grep -c "not traced: pthread_spin_lock" "$T/wl.out"
	[ "$output" = 0 ]
	"$SBT" report --format json "$T/m.sbt" >"$T/m.json"
	$CHECK mutex "$T/m.json" "$T/wl.out" 4 300 futex
	$CHECK measured "$T/m.json" "$T/m.sbt"
}

@test "shim: semaphores P = V = items, and a barrier made of semaphores (and without the shim)" {
	local mode
	for mode in --shim --no-shim; do
		run "$SBT" record $mode -o "$T/s.sbt" -- "$EX/sem_pipeline" -n 150 -p 100 -c 50
		[ "$status" -eq 0 ]
		echo "$output" >"$T/wl.out"
		"$SBT" report --format json "$T/s.sbt" >"$T/s.json"
		$CHECK sem "$T/s.json" "$T/wl.out" 150
		probed_as $mode "$T/s.sbt" sem_post
		run "$SBT" record $mode --trace all -e context-switches -o "$T/sb.sbt" -- \
			"$EX/sem_barrier" -t 4 -n 4 -c 200000
		[ "$status" -eq 0 ]
		echo "$output" >"$T/sb.out"
		"$SBT" report --format json "$T/sb.sbt" >"$T/sb.json"
		$CHECK sembar "$T/sb.json" "$T/sb.out" "$T/sb.sbt" 9
	done
}

@test "shim: a barrier made of a mutex and a condvar (and without the shim)" {
	local mode
	for mode in --shim --no-shim; do
		run "$SBT" record $mode --trace barrier,cond -e context-switches -o "$T/cb.sbt" -- \
			"$EX/cond_barrier" -t 4 -n 4 -c 200000
		[ "$status" -eq 0 ]
		echo "$output" >"$T/cb.out"
		"$SBT" report --format json "$T/cb.sbt" >"$T/cb.json"
		$CHECK condbar "$T/cb.json" "$T/cb.out" "$T/cb.sbt" 9
		probed_as $mode "$T/cb.sbt" pthread_cond_broadcast
	done
}

@test "shim: OpenMP barriers and critical sections, libgomp and libomp (and without the shim)" {
	local mode
	for mode in --shim --no-shim; do
		run env OMP_WAIT_POLICY=passive OMP_NUM_THREADS=3 "$SBT" record $mode -o "$T/g.sbt" -- \
			"$EX/omp_barriers_gomp" -n 3 -d 15
		[ "$status" -eq 0 ]
		echo "$output" >"$T/wl.out"
		"$SBT" report --format json "$T/g.sbt" >"$T/g.json"
		$CHECK omp "$T/g.json" "$T/wl.out" "$T/g.sbt" 3
		probed_as $mode "$T/g.sbt" GOMP_barrier
		OMP_NUM_THREADS=3 run "$SBT" record $mode --trace lock -o "$T/l.sbt" -- \
			"$EX/omp_critical_llvm" -k 60 -c 10
		[ "$status" -eq 0 ]
		echo "$output" >"$T/l.out"
		"$SBT" report --format json "$T/l.sbt" >"$T/l.json"
		$CHECK omp_locks "$T/l.json" "$T/l.out" llvm
		probed_as $mode "$T/l.sbt" __kmpc_critical
	done
}

@test "shim: the user's LD_PRELOAD stays, first; output and exit status unchanged" {
	run env LD_PRELOAD="$OUT/bench/omp_count.so" "$SBT" -q --shim -- sh -c 'echo "preload=$LD_PRELOAD"; exit 7'
	[ "$status" -eq 7 ]
	grep -qE "^preload=$OUT/bench/omp_count.so:[^ ]*libsbt-probes-barrier.so" <<<"$output"
	run "$EX/barrier_imbalance" -t 3 -n 2 -d 1
	local plain=$status
	run "$SBT" -q --shim -- "$EX/barrier_imbalance" -t 3 -n 2 -d 1
	[ "$status" -eq "$plain" ]
}

# A static program maps no C library to stand in for: its own copies are
# probed as without the shim, with a notice, every phase exact. A program
# whose LD_PRELOAD was cleared (env -i) or ignored (setuid, run by another
# user) runs without the shim: sbt-bpf says so and probes its C library for
# it alone, every phase exact.
@test "shim: a static program is probed in itself; programs without the shim (env -i, setuid) get plain uprobes" {
	run "$SBT" record --shim -o "$T/st.sbt" -- "$EX/barrier_imbalance_static" -t 4 -n 6 -d 20 -m sleep
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	[ "$(grep -c 'did not load the probe shim' "$T/wl.out")" -eq 0 ]
	[ "$(grep -cE 'pid [0-9]+ is a static program: .*plain uprobes' "$T/wl.out")" -eq 1 ]
	"$SBT" report --format json "$T/st.sbt" >"$T/st.json"
	$CHECK imbalance "$T/st.json" "$T/wl.out" "$T/st.sbt" 6
	run "$SBT" record --shim -o "$T/ei.sbt" -- env -i "$EX/barrier_imbalance" -t 3 -n 4 -d 5
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	grep -qE "pid [0-9]+ did not load the probe shim .*: traced with plain uprobes" "$T/wl.out"
	"$SBT" report --format json "$T/ei.sbt" >"$T/ei.json"
	$CHECK imbalance "$T/ei.json" "$T/wl.out" "$T/ei.sbt" 4
	# the C library's own pthread_barrier_wait is in the probe table too
	"$SBT" report --format json "$T/ei.sbt" | python3 -c '
import json, sys
objs = {p["object"] for p in json.load(sys.stdin)["calibration"] if p["symbol"] == "pthread_barrier_wait"}
assert any("/libc.so" in o for o in objs), objs'
	# setuid root, run by nobody: the loader ignores LD_PRELOAD (secure mode)
	chmod 755 "$T"
	cp "$EX/barrier_imbalance" "$T/suid"
	chmod 4755 "$T/suid"
	run "$SBT" record -o "$T/su.sbt" -- setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$T/suid" -t 3 -n 4 -d 5
	[ "$status" -eq 0 ]
	echo "$output" >"$T/wl.out"
	grep -qE "pid [0-9]+ did not load the probe shim .*: traced with plain uprobes" "$T/wl.out"
	"$SBT" report --format json "$T/su.sbt" >"$T/su.json"
	$CHECK imbalance "$T/su.json" "$T/wl.out" "$T/su.sbt" 4
}

# A fork without exec copies the text the kernel rewrote (each site hit
# before, the command's at its prepay, a call into the process's uprobe
# trampoline) but not the trampoline, a mapping no fork copies: the child's
# first wrapper call jumped into nothing (SIGSEGV). Now each new process's
# first wrapper call maps the shim's text again, with the kernel's
# breakpoints (doc/design.md §4, Probe shim and fork). barrier_imbalance -g 2:
# the run again in a child forked without exec (its workers threads of the
# child), then in the child's child, whose parent's sites the child's own
# trampoline served; each is traced from its first call, a report each,
# every phase exact.
@test "shim: children forked without exec synchronize unharmed, traced: a report each, every phase exact" {
	local g rc pids=()
	run "$SBT" record -o "$T/f.sbt" -- "$EX/barrier_imbalance" -t 3 -n 4 -d 10 -m sleep -g 2
	rc=$status
	echo "$output" >"$T/all.out"
	cat "$T/all.out"
	run grep -c "killed by signal" "$T/all.out"
	[ "$output" = 0 ]
	[ "$rc" -eq 0 ]
	run grep -c "could not map its probe sites again" "$T/all.out"
	[ "$output" = 0 ]
	grep -q "^sbt-bpf: recorded [0-9]* events, 12 phases, 0 lost, 3 processes$" "$T/all.out"
	pids[0]=$(sed -nE 's/^sbt-bpf: tracing pid ([0-9]+) .*/\1/p' "$T/all.out")
	for g in 1 2; do
		pids[g]=$(sed -nE "s/^generation $g pid ([0-9]+)\$/\\1/p" "$T/all.out")
		[ -n "${pids[g]}" ]
		grep -qx "child ${pids[g]} exited 0" "$T/all.out"
	done
	[ -n "${pids[0]}" ]
	# each generation's lines: its run comes before its child's
	awk -v d="$T" '/^generation [0-9]+ pid / {g = $2} {print > (d "/g" (g + 0) ".out")}' \
		"$T/all.out"
	"$SBT" report --format json "$T/f.sbt" >"$T/f.json"
	$CHECK jobs "$T/f.json" | sort >"$T/jobs.txt"
	cat "$T/jobs.txt"
	printf '%s 4 1\n' "${pids[@]}" | sort | diff - "$T/jobs.txt"
	for g in 0 1 2; do
		$CHECK job "$T/f.json" "${pids[g]}" "$T/g$g.json"
		$CHECK imbalance "$T/g$g.json" "$T/g$g.out" "$T/f.sbt" 4
		# carried by the shim's sites, not the C library's
		python3 -c '
import json, sys
objs = {p["object"] for p in json.load(open(sys.argv[1]))["calibration"]
        if p["symbol"] == "pthread_barrier_wait"}
assert objs and all("libsbt-probes" in o for o in objs), objs' "$T/g$g.json"
	done
}

# The check runs at every stop of the process (each library the loader
# maps): the notice and the fallback come once per process.
@test "shim: a program without the shim that loads libraries later is told once" {
	run "$SBT" --shim -- env -i /usr/bin/python3 -c '
import ctypes, json, zlib
libc = ctypes.CDLL(None)
b = ctypes.create_string_buffer(128)
libc.pthread_barrier_init(b, None, 1)
for _ in range(3):
    libc.pthread_barrier_wait(b)
'
	[ "$status" -eq 0 ]
	[ "$(grep -cE 'pid [0-9]+ did not load the probe shim .*: traced with plain uprobes' <<<"$output")" -eq 1 ]
	grep -qE '^Loop barrier .*"pthread_barrier_wait 0x[0-9a-f]+" \(pid [0-9]+\): 3 episodes' <<<"$output"
}

@test "shim: --shim or --no-shim without a command is a usage error" {
	run "$SBT" --no-shim -p 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--no-shim"*"-- COMMAND"* ]]
	run "$SBT" --shim -p 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--shim"*"-- COMMAND"* ]]
}

# The kernel rewrites a probed nop5 into a call at the site's first hit in a
# process, under its memory map lock taken for writing: a running program's
# threads made that hit sleep for milliseconds inside the calls it traced
# (doc/design.md §4, Probe shim). So the command, held at its entry point,
# hits every site once, with one thread and before it joins the tree. Held
# again at its own start (-W), before any call of its own, it maps the
# uprobe trampoline and its sites are calls; those hits left no record
# (no semaphore but the workload's three).
@test "shim: the command's sites are rewritten before it runs; those hits leave no record" {
	local pid
	grep -qw arch_uprobe_optimize /proc/kallsyms || skip "this kernel does not optimize uprobes"
	start_tracer "$T/sb.out" record --trace sem -o "$T/sb.sbt" -- "$EX/sem_barrier" -t 3 -n 2 -W
	wait_for "$T/sb.out" "^ready [0-9]+$"
	pid=$(sed -nE 's/^ready ([0-9]+)$/\1/p' "$T/sb.out")
	grep -q '\[uprobes-trampoline\]' "/proc/$pid/maps"
	python3 - "$pid" "$OUT/libsbt-probes-sem.so" <<'PY'
import os, subprocess, sys
pid, lib = sys.argv[1], sys.argv[2]
ino = os.stat(lib).st_ino
base = min(int(l.split()[0].split("-")[0], 16) for l in open(f"/proc/{pid}/maps")
           if len(l.split()) > 5 and int(l.split()[4]) == ino)
syms = {f[2]: int(f[0], 16) for f in map(str.split, subprocess.run(
    ["nm", "-D", "--defined-only", lib], capture_output=True, text=True).stdout.splitlines())
    if len(f) == 3 and f[2].startswith(("sbt_enter_sem_", "sbt_exit_sem_"))}
assert len(syms) == 10, syms
with open(f"/proc/{pid}/mem", "rb") as mem:
    for name, off in sorted(syms.items()):
        mem.seek(base + off)
        code = mem.read(6)
        assert code[0] == 0xe8 and code[5] == 0xc3, (name, code.hex())
PY
	kill -USR1 "$pid"
	wait_exit "$TR" 30
	"$SBT" report --format json "$T/sb.sbt" | python3 -c '
import json, sys
sems = [s["object"] for s in json.load(sys.stdin)["semaphores"]]
assert len(sems) == 3 and 0 not in sems, sems'
}
