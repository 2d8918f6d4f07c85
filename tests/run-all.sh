#!/usr/bin/env bash
# Run the unit tests (no root) and the end-to-end tests (root, real BPF);
# end with one line "N passed, N failed". SBT_SUITES=unit or =e2e runs one.
set -uo pipefail
suites=${SBT_SUITES:-unit e2e}
cd "$(dirname "$0")/.."
passed=0
failed=0
skipped=0

count() { # OUTPUT_FILE: add its ok / not ok lines
	local p f s
	p=$(grep -cE '^ok ' "$1" || true)
	s=$(grep -cE '^ok .*# skip' "$1" || true)
	f=$(grep -cE '^not ok ' "$1" || true)
	passed=$((passed + p - s))
	skipped=$((skipped + s))
	failed=$((failed + f))
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
[[ " $suites " == *" unit "* ]] || set --
for t in "$@"; do
	echo "== unit: $(basename "$t")"
	"$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	count "$log"
	# a crash before the summary line is a failure too
	grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$log" || { [ $rc -ne 0 ] && failed=$((failed + 1)); }
done

if [[ " $suites " != *" e2e "* ]]; then
	:
elif [ "$(id -u)" -ne 0 ]; then
	echo "== e2e: skipped (needs root: sudo make check)"
	skipped=$((skipped + 1))
else
	echo "== e2e (bats)"
	bats --tap tests/e2e >"$log" 2>&1
	cat "$log"
	count "$log"
fi
echo
# The CI contract: the output ends with the line "N passed, N failed".
echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
