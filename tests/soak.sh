#!/usr/bin/env bash
# Soak: the end-to-end suite RUNS times in a row (default 10) while a CPU hog
# keeps every CPU busy, to show that no test fails by chance. Prints each
# run's result and the total; exits non-zero if any run failed. The hog is
# killed however the script ends. Each run's output is kept in .output/soak/.
#
#   sudo make check-soak            (SOAK_RUNS=N to change the count)
#   sudo tests/soak.sh [RUNS]
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-${SOAK_RUNS:-10}}
logs=.output/soak
ncpu=$(nproc)

if [ "$(id -u)" -ne 0 ]; then
	echo "soak: tracing needs root: sudo make check-soak" >&2
	exit 1
fi
case $runs in '' | *[!0-9]* | 0) echo "usage: $0 [RUNS]" >&2; exit 2 ;; esac

# stress-ng when Debian has it (installed as scripts/deps.sh installs
# packages), else one `yes` per CPU.
if ! command -v stress-ng >/dev/null; then
	echo "soak: installing stress-ng"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends stress-ng >/dev/null 2>&1 ||
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends stress-ng >/dev/null; } ||
		echo "soak: no stress-ng; the hog is $ncpu x 'yes >/dev/null'"
fi

# The hog leads a process group of its own (setsid execs in place: a
# background job of a script is no group leader), so one kill takes it and
# its workers. Its own timeout covers a soak that is killed outright.
hog=
stop_hog() {
	[ -n "$hog" ] || return 0
	kill -TERM -- "-$hog" 2>/dev/null
	wait "$hog" 2>/dev/null
	hog=
}
trap stop_hog EXIT
trap 'exit 130' INT TERM
limit=$((runs * 1200))
if command -v stress-ng >/dev/null; then
	setsid stress-ng --cpu "$ncpu" --timeout "${limit}s" --quiet >/dev/null 2>&1 &
	hog=$!
	what="stress-ng --cpu $ncpu"
else
	setsid bash -c 'for ((i = 0; i < $1; i++)); do yes >/dev/null & done; sleep "$2"' \
		hog "$ncpu" "$limit" &
	hog=$!
	what="$ncpu x yes"
fi
sleep 1
if ! kill -0 "$hog" 2>/dev/null; then
	echo "soak: the CPU hog did not start" >&2
	exit 1
fi

mkdir -p "$logs"
echo "soak: $runs runs of the e2e suite beside $what; $(uname -r), $(date -u '+%F %T UTC')"
start=$(date +%s)
bad_runs=0
total_pass=0
total_fail=0
for ((r = 1; r <= runs; r++)); do
	t0=$(date +%s)
	SBT_SUITES=e2e tests/run-all.sh >"$logs/run-$r.log" 2>&1
	rc=$?
	summary=$(tail -n 1 "$logs/run-$r.log")
	if [[ ! $summary =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		summary="no summary line"
		rc=1
	else
		total_pass=$((total_pass + BASH_REMATCH[1]))
		total_fail=$((total_fail + BASH_REMATCH[2]))
	fi
	if ! kill -0 "$hog" 2>/dev/null; then
		summary="$summary; the CPU hog had stopped"
		rc=1
	fi
	[ "$rc" -eq 0 ] || bad_runs=$((bad_runs + 1))
	printf 'run %d/%d: %s: %s (%ds)\n' "$r" "$runs" "$([ "$rc" -eq 0 ] && echo pass || echo FAIL)" \
		"$summary" $(($(date +%s) - t0))
	grep -E '^not ok ' "$logs/run-$r.log" | sed 's/^/    /'
done
wall=$(($(date +%s) - start))
echo "soak: $runs runs, $bad_runs failed; tests: $total_pass passed, $total_fail failed;" \
	"wall time $((wall / 60))m$((wall % 60))s; logs in $logs/"
[ "$bad_runs" -eq 0 ]
