#!/usr/bin/env bash
# Run libFuzzer harnesses (tests/fuzz/README), one after the other, and say
# per harness: executions, rate, corpus, and what it found. Ends with the
# line "N passed, N failed" (tests/run-all.sh counts it): a harness passes
# when it ran its time without a crash, leak, sanitizer report, timeout or
# running out of memory.
#
#   tests/fuzz/run.sh [-t SECONDS] [-w WORKDIR] HARNESS...
#
# HARNESS is a built harness ($(OUTPUT)/fuzz/fuzz_trace; default: every one
# built in $SBT_OUTPUT/fuzz, for `make check`'s short run). Its inputs are the
# committed seeds and corpus (tests/fuzz/seeds/NAME, tests/fuzz/corpus/NAME),
# read, never written; what it finds goes to WORKDIR (default: a temporary
# directory, removed): WORKDIR/NAME/corpus (kept and grown from run to run)
# and WORKDIR/NAME/artifacts (crash-*, leak-*, timeout-*, oom-*: reproduce
# with `HARNESS FILE`). Environment: FUZZ_ARGS, more libFuzzer flags
# (FUZZ_ARGS=-runs=10000000: stop after that many executions).
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=5
work=
while getopts "t:w:" o; do
	case $o in
	t) seconds=$OPTARG ;;
	w) work=$OPTARG ;;
	*) echo "usage: $0 [-t SECONDS] [-w WORKDIR] HARNESS..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
	for f in "${SBT_OUTPUT:-.output}"/fuzz/fuzz_*; do
		[[ ${f##*/} != *.* && -x $f ]] && set -- "$@" "$f"
	done
fi
[ $# -gt 0 ] && [ -x "$1" ] || { echo "$0: no harness built (make fuzz-build)" >&2; exit 2; }

scratch=$(mktemp -d)
tmp=
trap 'rm -rf "$scratch" $tmp' EXIT
trap 'exit 130' INT TERM
[ -n "$work" ] || work=$scratch/work
# OTF2 archives and other files a harness writes: tmpfs when there is one
tmpbase=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && tmpbase=/dev/shm

# Crafted traces too big to commit (tests/fuzz/hostile.c), for the trace
# harnesses, made once; those listed in tests/fuzz/known-slow (a fix not in
# yet) are left out, and said so (a skipped test).
crafted=$scratch/crafted
make_crafted() {
	local hostile f why
	[ -d "$crafted" ] && return
	mkdir -p "$crafted"
	hostile=$(dirname "$1")/hostile
	[ -x "$hostile" ] && { "$hostile" "$crafted" || echo "$0: $hostile failed" >&2; }
	while read -r f why; do
		case $f in "" | "#"*) continue ;; esac
		rm -f "$crafted/$f"
		echo "ok crafted $f # skip known slow: $why (tests/fuzz/known-slow)"
	done <tests/fuzz/known-slow
}

# libFuzzer's closing figures
final() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }

passed=0
failed=0
for bin in "$@"; do
	name=$(basename "$bin")
	name=${name#fuzz_}
	# the inputs each reads, and the largest it is given: 2 MiB for traces
	# (real recordings and crafted ones, issue 16: a 1.3 MB one)
	case $name in
	trace | otf2) inputs=trace max_len=2097152 ;;
	elf) inputs=elf max_len=1048576 ;;
	proc) inputs=proc max_len=65536 ;;
	*) inputs=$name max_len=4096 ;;
	esac
	dirs=()
	crafted_dir=
	if [ "$inputs" = trace ]; then
		make_crafted "$bin"
		crafted_dir=$crafted
	fi
	for d in tests/fuzz/seeds/$inputs tests/fuzz/corpus/$inputs $crafted_dir; do
		[ -d "$d" ] && dirs+=("$d")
	done
	dict=()
	[ -f "tests/fuzz/$inputs.dict" ] && dict=("-dict=tests/fuzz/$inputs.dict")
	mkdir -p "$work/$name/corpus" "$work/$name/artifacts"
	log=$work/$name/log
	tmp=$(mktemp -d "$tmpbase/sbt-fuzz-$name-XXXXXX")
	# -close_fd_mask=3: sbt-bpf's own messages silenced (the harness's and
	# the sanitizers' still come through)
	start=$SECONDS
	# shellcheck disable=SC2086
	TMPDIR=$tmp "$bin" -max_total_time="$seconds" -max_len="$max_len" -timeout=60 \
		-rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 \
		-artifact_prefix="$work/$name/artifacts/" "${dict[@]}" ${FUZZ_ARGS:-} \
		"$work/$name/corpus" "${dirs[@]}" >"$log" 2>&1
	rc=$?
	took=$((SECONDS - start))
	rm -rf "$tmp"
	execs=$(final number_of_executed_units)
	rate=$(final average_exec_per_sec)
	found=$(find "$work/$name/artifacts" -type f | wc -l)
	corpus=$(find "$work/$name/corpus" "${dirs[@]}" -type f | wc -l)
	line="$name: ${execs:-0} execs in $took s (${rate:-0}/s), corpus $corpus inputs, $found found"
	if [ $rc -eq 0 ] && [ "$found" -eq 0 ]; then
		echo "ok $line"
		passed=$((passed + 1))
	else
		echo "not ok $line (rc $rc; log $log)"
		grep -E "^(SUMMARY|fuzz check failed|==[0-9]+==ERROR)|Test unit written|runtime error" \
			"$log" | head -8 | sed 's/^/    /'
		find "$work/$name/artifacts" -type f | head -5 | sed 's/^/    artifact: /'
		failed=$((failed + 1))
		# a temporary work directory would take the artifacts with it
		if [ "$work" = "$scratch/work" ]; then
			keep=$(mktemp -d /tmp/sbt-fuzz-found-XXXXXX)
			cp -r "$work/$name" "$keep/" && echo "    kept in $keep/$name"
		fi
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
