#!/usr/bin/env bats
# A traced job's owner is not trusted: files they control must never crash,
# hang or mislead the root tracer (lib/infile.h, lib/proc.h: proc__open_mapped).
load helpers

NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"

# big_library DIR: DIR/big.so, a shared library with 2 M function symbols
# (its symbol table takes the tracer a while to read), owned by nobody, and
# a pristine copy DIR/orig.so.
big_library() {
	python3 -c '
import sys
w = sys.stdout.write
w(".text\n")
for i in range(2000000):
    w(".type f%d,@function\nf%d: ret\n" % (i, i))' >"$1/big.s"
	as -o "$1/big.o" "$1/big.s"
	ld -shared -o "$1/orig.so" "$1/big.o"
	rm "$1/big.s" "$1/big.o"
	cp "$1/orig.so" "$1/big.so"
	chown -R 65534 "$1"
}

# attacker LIB PRISTINE OUT: nobody's truncate_on_open.py on LIB, armed;
# pid in $CUT. Started once the workload has loaded LIB: its loader's own
# open would have it cut under the workload.
attacker() {
	$NOBODY /usr/bin/python3 "$ROOT/tests/e2e/truncate_on_open.py" "$1" "$2" >"$3" 2>&1 &
	CUT=$!
	BG_PIDS+=("$CUT")
	wait_for "$3" "^armed"
}

# released OUT: the attacker of OUT cut the library at least once and put
# every cut back (the workload may touch its mapping from now on).
released() {
	local i
	for ((i = 0; i < 600; i++)); do
		local c r
		c=$(grep -c '^cut' "$1" || true)
		r=$(grep -c '^restored' "$1" || true)
		[ "$c" -ge 1 ] && [ "$c" -eq "$r" ] && return 0
		sleep 0.05
	done
	echo "the attack did not happen or did not end: $(cat "$1")" >&2
	return 1
}

# An unprivileged process truncates a library it maps whenever the tracer
# opens it, while the tracer reads its symbols: a tracer that mapped the
# file died of SIGBUS (rc 135). The file is read, not mapped: a cut read is
# an unreadable file, nothing more.
@test "a library truncated under the tracer: -p and -a live on, the job traced exactly" {
	local d=$T/lib i
	chmod 0755 "$T" # nobody's files are in it
	mkdir -m 0755 "$d"
	big_library "$d"
	for i in 1 2 3 a; do
		start_workload "$T/wl$i.out" $NOBODY env LD_PRELOAD="$d/big.so" \
			"$EX/barrier_imbalance" -t 3 -n 4 -d 5 -m sleep -W
		attacker "$d/big.so" "$d/orig.so" "$T/cut$i.out"
		if [ "$i" = a ]; then
			start_system "$T/sys.out" record -a -o "$T/t$i.sbt"
		else
			start_tracer "$T/sbt$i.out" record -p "$WL" -o "$T/t$i.sbt"
		fi
		released "$T/cut$i.out" # the tracer opened the file and had it cut
		kill -USR1 "$WL"
		wait_exit "$WL" 30
		[ "$i" = a ] && kill -INT "$TR"
		wait_exit "$TR" 60
		wait "$TR"
		kill "$CUT"
		"$SBT" report --format json --pid "$WL" "$T/t$i.sbt" >"$T/t$i.json"
		$CHECK imbalance "$T/t$i.json" "$T/wl$i.out" "$T/t$i.sbt" 4
		refute_grep -q "preloaded" "$T/wl$i.out" # the library was loaded
	done
}

# chroot_with DIR PROGRAM: DIR, a root directory holding PROGRAM (as
# /prog) and the libraries it loads, at the paths they have here.
chroot_with() {
	local lib
	mkdir -p "$1"
	cp "$2" "$1/prog"
	for lib in $(ldd "$2" | grep -oE '/[^ ]+'); do
		mkdir -p "$1$(dirname "$lib")"
		cp -L "$lib" "$1$lib"
	done
}

# /proc/PID/maps shows a chrooted job's files by our path to them (DIR/lib/
# ...); the same path inside the job's root (/proc/PID/root/DIR/lib/...)
# is a directory the job's owner controls. A FIFO there blocked the tracer
# for ever; with the files reached through the mappings, the job is traced
# and its barrier named from its own binary.
@test "a chrooted job: traced through its mappings; FIFOs planted at its paths neither block nor mislead" {
	local r=$T/root f
	chroot_with "$r" "$EX/barrier_imbalance"
	for f in /prog $(ldd "$EX/barrier_imbalance" | grep -oE '/[^ ]+'); do
		mkdir -p "$(dirname "$r$r$f")"
		mkfifo "$r$r$f"
	done
	chown -R 65534 "$r"
	start_workload "$T/wl.out" chroot --userspec=65534:65534 "$r" /prog -t 3 -n 4 -d 5 -m sleep -W
	start_tracer "$T/sbt.out" record -p "$WL" -o "$T/c.sbt"
	kill -USR1 "$WL"
	wait_exit "$TR" 60
	wait "$TR"
	"$SBT" report --format json "$T/c.sbt" >"$T/c.json"
	$CHECK imbalance "$T/c.json" "$T/wl.out" "$T/c.sbt" 4
	"$SBT" report "$T/c.sbt" >"$T/c.txt"
	grep -q 'worker_main (barrier_imbalance.c:[0-9]*) "phase_barrier"' "$T/c.txt"
}

# Ambient capabilities pass through exec: a tracer given CAP_BPF, CAP_PERFMON
# or CAP_SYS_PTRACE as ambient ones (capsh, setpriv, a service's
# AmbientCapabilities) handed them to the command it launched and to every
# program that ran. The command gets what a plain exec gives its user, and is
# traced all the same.
@test "launch: a tracer with ambient capabilities passes none to the command" {
	local caps='grep -E "^Cap(Eff|Amb):" /proc/self/status' cmd nb=$T/nobody
	chmod 0755 "$T"
	mkdir -m 0700 "$nb" # nobody's trace
	chown 65534 "$nb"
	cmd="$caps; $EX/barrier_imbalance -t 2 -n 3 -d 1 -m sleep >/dev/null"
	# root with ambient CAP_BPF and CAP_PERFMON: none left to the command
	setpriv --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon \
		sh -c "$caps >$T/tracer.caps; exec \"\$@\"" sh \
		"$SBT" record -o "$T/root.sbt" -- sh -c "$cmd" >"$T/root.out" 2>"$T/root.err"
	grep -qE '^CapAmb:\s+000000c000000000$' "$T/tracer.caps"
	grep -qE '^CapAmb:\s+0+$' "$T/root.out"
	"$SBT" report "$T/root.sbt" | grep -q "^SBT summary: 3 phases"
	# nobody with ambient CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE, enough to
	# trace: the command runs as nobody, without any capability
	capsh --caps='cap_bpf,cap_perfmon,cap_sys_ptrace,cap_setuid,cap_setgid,cap_setpcap+eip' \
		--keep=1 --user=nobody --addamb=cap_bpf,cap_perfmon,cap_sys_ptrace -- \
		-c "$caps >$nb/tracer.caps; exec \"\$0\" \"\$@\"" \
		"$SBT" record -o "$nb/t.sbt" -- sh -c "$cmd" >"$T/nobody.out" 2>"$T/nobody.err"
	grep -qE '^CapEff:\s+000000c000080000$' "$nb/tracer.caps"
	grep -qE '^CapAmb:\s+000000c000080000$' "$nb/tracer.caps"
	grep -qE '^CapEff:\s+0+$' "$T/nobody.out"
	grep -qE '^CapAmb:\s+0+$' "$T/nobody.out"
	"$SBT" report "$nb/t.sbt" | grep -q "^SBT summary: 3 phases"
}

# bounded CMD...: CMD within 60 s and the RSS bound, exit 0; its stdout in
# $T/out, its stderr in $T/err.
bounded() {
	timeout 60 /usr/bin/time -f "%M" -o "$T/rss" "$@" >"$T/out" 2>"$T/err"
	echo "$* : peak RSS $(cat "$T/rss") KB"
	[ "$(tail -1 "$T/rss")" -lt "$(rss_bound 600000)" ]
}

# A crafted trace whose records each add a thread, a barrier, a call site, a
# process, a semaphore, a condvar, a parallel region or a loss: every reader (report text and
# JSON, each export) keeps a bounded cost per record. Before, each hang report
# walked every live thread (1.3 MB of trace took 2.5 GB and a minute).
@test "crafted traces: report and every export stay linear in time and memory" {
	local one
	n=60000
	for k in hang sites callsites idle inflight lost pids exits sems conds regions semgaps condgaps semruns jobs; do
		"$OUT/bench/gen_hostile" -k $k -n $n -o "$T/$k.sbt"
		bounded "$SBT" report "$T/$k.sbt"
		bounded "$SBT" report --format json "$T/$k.sbt"
		one=() # a trace of several processes: an export takes one
		[ $k = jobs ] && one=(--pid 200000)
		for f in chrome csv json svg; do
			bounded "$SBT" export "${one[@]}" --format $f -o "$T/$k.$f" "$T/$k.sbt"
		done
	done
	# the hangs: each counted, the first 1000 kept, the threads listed bounded;
	# the last arrival's too (the recording went on 12 s after it)
	bounded "$SBT" report "$T/hang.sbt"
	[ "$(grep -c '^SBT HANG: ' "$T/out")" -eq $n ]
	grep -qE "^    missing: 5000 \(\?\) 5001 .* 5031 \(\?\) and $((n - 33)) more$" "$T/out"
	"$SBT" report --format json "$T/hang.sbt" >"$T/hang.json"
	python3 - "$T/hang.json" $n <<'PY'
import json, sys
r, n = json.load(open(sys.argv[1])), int(sys.argv[2])
assert r["hang_count"] == n, r["hang_count"]
assert len(r["hangs"]) == 1000, len(r["hangs"])
for k, h in enumerate(r["hangs"]):
    # hang k: thread 5000+k waits; the k+1 other live threads are missing
    assert h["waiting"] == [5000 + k] and h["waiting_threads"] == 1, h
    assert h["missing_threads"] == k + 1, h
    want = [t for t in range(5000, 5000 + k + 2) if t != 5000 + k][:32]
    assert h["missing"] == want, (k, h["missing"], want)
PY
	bounded "$SBT" export --format otf2 -o "$T/hang.otf2" "$T/hang.sbt"
	grep -q "warning: OTF2: $((n - 1024)) threads beyond the first 1024 left out" "$T/err"
	grep -q ">$((n - 512)) more threads not drawn (the first 512 are)<" "$T/hang.svg"
}

# A trace of 20,000 processes (bench/gen_hostile -k jobs: each with a JOBS
# entry, a thread and a barrier, between records of processes without one):
# a report each. Each report kept aside took a temporary file: past the
# descriptor limit the other processes were left out without a word, exit 0;
# a full /tmp gave empty reports. A write that fails, or too little memory to
# analyse every process, fails the command.
@test "a trace of 20,000 processes: a report each, in order, with 64 descriptors; no room to write or to analyse fails" {
	local n=60000
	"$OUT/bench/gen_hostile" -k jobs -n $n -o "$T/jobs.sbt"
	(
		ulimit -n 64
		bounded "$SBT" report "$T/jobs.sbt"
	)
	[ "$(grep -c '^=== pid ' "$T/out")" -eq $((n / 3)) ]
	[ "$(grep '^=== pid ' "$T/out" | head -1)" = "=== pid 200000: job 0 ===" ]
	[ "$(grep '^=== pid ' "$T/out" | tail -1)" = "=== pid $((200000 + n / 3 - 1)): job $((n / 3 - 1)) ===" ]
	[ "$(grep -c '^SBT summary: 1 phases, 1 barrier site(s), 1 threads, 2 events' "$T/out")" -eq $((n / 3)) ]
	[ ! -s "$T/err" ]
	(
		ulimit -n 64
		bounded "$SBT" report --format json "$T/jobs.sbt"
	)
	python3 - "$T/out" $((n / 3)) <<'PY'
import json, sys
jobs, n = json.load(open(sys.argv[1]))["jobs"], int(sys.argv[2])
assert [j["pid"] for j in jobs] == list(range(200000, 200000 + n)), len(jobs)
assert all(j["report"]["threads"][0]["tid"] == j["pid"] for j in jobs)
PY
	# the output full: an error, exit 1
	run sh -c '"$1" report "$2" >/dev/full' sh "$SBT" "$T/jobs.sbt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: writing the report: "* ]]
	sanitized && return 0 # ASan needs its address space
	# memory for a few thousand processes: those left out named, exit 1
	run bash -c 'ulimit -v 200000; exec "$1" report "$2" >/dev/null' sh "$SBT" "$T/jobs.sbt"
	[ "$status" -eq 1 ]
	[[ "$output" =~ error:\ [0-9]+\ processes\ left\ out\ of\ the\ report\ \(out\ of\ memory\):\ pids\ [0-9]+, ]]
}
