#!/usr/bin/env bash
# Regenerate the export golden files from a synthetic trace (review the diff).
set -euo pipefail
cd "$(dirname "$0")/../../.."
G=tests/e2e/golden
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
.output/bench/gen_trace -n 96 -t 2 -o "$T/syn.sbt" >/dev/null
for f in chrome csv json svg; do
	.output/sbt-bpf export --format $f --width 400 -o "$G/synthetic.$f" "$T/syn.sbt"
done
.output/sbt-bpf export --format otf2 -o "$T/otf" "$T/syn.sbt"
{ otf2-print "$T/otf/traces.otf2"; otf2-print -G "$T/otf/traces.otf2" 2>/dev/null | grep -v '^===\|^$'; } \
	>"$G/synthetic.otf2.txt"
