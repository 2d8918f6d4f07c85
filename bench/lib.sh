# Helpers shared by the benchmark scripts (sourced from the repository root).
# bench_init parses the common options; callers may set LOOP_ARGS (probe_loop
# mode), FLOOR_ARGS (symbols for the floor) and SBT_ARGS (sbt-bpf options).
OUT=.output
SBT=$OUT/sbt-bpf
LOOP=$OUT/bench/probe_loop
FLOOR=$OUT/bench/floor
CALLS=${CALLS:-200000}
ROUNDS=5
SECONDS_FULL=10
LOOP_ARGS=${LOOP_ARGS:-}
FLOOR_ARGS=${FLOOR_ARGS:-}
SBT_ARGS=${SBT_ARGS:-}

# bench_init [-n CALLS] [-r ROUNDS] [-s SECONDS]: options, root check, TMP.
bench_init() {
	local o
	while getopts "n:r:s:" o; do
		case $o in
		n) CALLS=$OPTARG ;;
		r) ROUNDS=$OPTARG ;;
		s) SECONDS_FULL=$OPTARG ;;
		*) echo "usage: $0 [-n CALLS] [-r ROUNDS] [-s SECONDS]" >&2; exit 2 ;;
		esac
	done
	[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
	LIBC=$(ldd "$LOOP" | awk '/libc.so/ {print $3}')
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
}

wait_for() { # FILE PATTERN: wait until FILE contains PATTERN (10 s at most)
	local i
	for i in $(seq 200); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
	echo "bench: timed out waiting for '$2' in $1" >&2; cat "$1" >&2; return 1
}

# run_loop TOOL THREADS ARGS...: ns per call of probe_loop under TOOL
run_loop() {
	local tool=$1 threads=$2; shift 2
	"$LOOP" $LOOP_ARGS -t "$threads" "$@" -W >"$TMP/loop" &
	local lp=$! tp=""
	wait_for "$TMP/loop" ready
	case $tool in
	none) ;;
	floor) "$FLOOR" -p $lp $FLOOR_ARGS 2>"$TMP/tool" & tp=$!; wait_for "$TMP/tool" tracing ;;
	sbt) "$SBT" -q $SBT_ARGS -p $lp >"$TMP/sbt.out" 2>"$TMP/tool" & tp=$!; wait_for "$TMP/tool" tracing ;;
	sbt-default) "$SBT" -q -p $lp >"$TMP/sbt.out" 2>"$TMP/tool" & tp=$!; wait_for "$TMP/tool" tracing ;;
	sbt-shared) "$SBT" -q $SBT_ARGS --shared-ring -p $lp >"$TMP/sbt.out" 2>"$TMP/tool" & tp=$!
		wait_for "$TMP/tool" tracing ;;
	floor-pf) SBT_BPF_NO_UPROBE_MULTI=1 "$FLOOR" -p $lp $FLOOR_ARGS 2>"$TMP/tool" & tp=$!
		wait_for "$TMP/tool" tracing ;;
	sbt-pf) SBT_BPF_NO_UPROBE_MULTI=1 "$SBT" -q $SBT_ARGS -p $lp >"$TMP/sbt.out" 2>"$TMP/tool" & tp=$!
		wait_for "$TMP/tool" tracing ;;
	bpftrace)
		bpftrace -p $lp -e "uprobe:$LIBC:pthread_barrier_wait { printf(\"E %d %d %llu %llx\n\", pid, tid, nsecs, arg0); }
			uretprobe:$LIBC:pthread_barrier_wait { printf(\"X %d %d %llu %llx %llx\n\", pid, tid, nsecs, retval, reg(\"ip\")); }" \
			>"$TMP/bt.out" 2>/dev/null & tp=$!
		wait_for "$TMP/bt.out" Attaching ;;
	esac
	kill -USR1 $lp
	wait $lp
	# per-program run time, when kernel.bpf_stats_enabled is on
	bpftool prog show 2>/dev/null | awk '/ name (sync|floor)_e/ && /run_cnt/ {
		for (i = 1; i <= NF; i++) { if ($i == "name") n = $(i+1); if ($i == "run_time_ns") t = $(i+1); if ($i == "run_cnt") c = $(i+1) }
		if (c) printf "%s %.1f\n", n, t / c }' >"$TMP/progstats"
	if [ -n "$tp" ]; then kill -INT $tp; wait $tp || true; fi
	awk '/ns_per_call/ {print $4}' "$TMP/loop"
}

# full_speed SECONDS SBT_OPTIONS...: probe_loop ($LOOP_ARGS), 2 threads at
# full speed for SECONDS under sbt-bpf; prints "calls events events/s lost"
# (sbt-bpf's output stays in $TMP/sbt.out).
full_speed() {
	local secs=$1 lp tp calls events t lost
	shift
	"$LOOP" $LOOP_ARGS -t 2 -s "$secs" -W >"$TMP/loop" &
	lp=$!
	wait_for "$TMP/loop" ready
	"$SBT" -q "$@" -p $lp >"$TMP/sbt.out" 2>"$TMP/tool" &
	tp=$!
	wait_for "$TMP/tool" tracing
	kill -USR1 $lp
	wait $lp
	wait $tp || true
	calls=$(awk '/ns_per_call/ {print $2}' "$TMP/loop")
	events=$(awk '/SBT summary/ {for (i = 1; i <= NF; i++) if ($i == "events") print $(i-1)}' "$TMP/sbt.out")
	t=$(awk '/SBT summary/ {for (i = 1; i <= NF; i++) if ($i == "in") print $(i+1)}' "$TMP/sbt.out")
	lost=$(cat "$TMP/sbt.out" "$TMP/tool" | grep -oE '[0-9]+ records lost' | awk '{print $1; exit}' || true)
	awk -v c="$calls" -v e="$events" -v s="$t" -v l="${lost:-0}" \
		'BEGIN {printf "%d %d %.0f %d\n", c, e, e / s, l}'
}

# json FILE EXPR: print a Python expression of the JSON document r in FILE
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }
# total_ns OUT: the run time an example workload measured itself
total_ns() { awk '$1 == "total_ns" { print $2 }' "$1"; }

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }


# cost_per_episode EPISODES CMD ARGS...: CMD untraced vs under sbt-bpf,
# ROUNDS interleaved runs each, as a table row: the medians of the run time
# CMD measured itself, and the cost per episode
cost_per_episode() {
	local n=$1 r
	shift
	echo "| untraced ms | traced ms | episodes | cost per episode us |"
	echo "|---|---|---|---|"
	: >"$TMP/plain"
	: >"$TMP/traced"
	for r in $(seq "$ROUNDS"); do
		"$@" >"$TMP/p.out"
		total_ns "$TMP/p.out" >>"$TMP/plain"
		"$SBT" -q -- "$@" >"$TMP/t.out" 2>/dev/null
		total_ns "$TMP/t.out" >>"$TMP/traced"
	done
	awk -v p="$(median <"$TMP/plain")" -v t="$(median <"$TMP/traced")" -v n="$n" 'BEGIN {
		printf "| %.1f | %.1f | %d | %.1f |\n", p / 1e6, t / 1e6, n, (t - p) / n / 1e3 }'
}
