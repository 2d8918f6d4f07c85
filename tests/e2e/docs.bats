#!/usr/bin/env bats
# The manual page covers every subcommand and every option --help lists, and
# make install puts it where man finds it.
load helpers

@test "man page: every option of every subcommand is documented" {
	local cmd opt help missing=""
	for cmd in "" record report export calibrate top merge; do
		# an assignment fails the test when --help fails; a loop over an
		# empty list would not
		help=$("$SBT" $cmd --help)
		[[ "$help" == *--* ]]
		for opt in $(grep -oE -- '--[a-z][a-z-]+' <<<"$help" | sort -u); do
			case $opt in --help | --usage) continue ;; esac
			# groff escapes every dash: \-\-buffer\-size
			grep -qF -- "${opt//-/\\-}" "$ROOT/doc/sbt-bpf.8" || missing="$missing $cmd:$opt"
		done
	done
	echo "missing:$missing"
	[ -z "$missing" ]
	for cmd in record report export calibrate top merge; do grep -q "^\.B $cmd" "$ROOT/doc/sbt-bpf.8"; done
}

@test "make install: binary, man page and probe shim under DESTDIR/PREFIX" {
	make -C "$ROOT" -s install DESTDIR="$T/root" PREFIX=/usr >/dev/null
	[ -x "$T/root/usr/sbin/sbt-bpf" ]
	[ -f "$T/root/usr/share/man/man8/sbt-bpf.8" ]
	# the probe shim, where the installed binary looks for it (../lib/sbt-bpf)
	local c
	for c in barrier lock sem cond; do [ -f "$T/root/usr/lib/sbt-bpf/libsbt-probes-$c.so" ]; done
	if command -v man >/dev/null; then
		man -l "$T/root/usr/share/man/man8/sbt-bpf.8" 2>/dev/null | grep -q "SBT-BPF(8)"
	fi
}

@test "--version: every command prints the release that trace files record" {
	local want cmd
	want="sbt-bpf $(sed -nE 's/^#define SBT_VERSION "(.*)"$/\1/p' "$ROOT/include/sbt/version.h")"
	[ "$want" != "sbt-bpf " ]
	for cmd in "" record report export calibrate top; do
		run "$SBT" $cmd --version
		[ "$status" -eq 0 ]
		[ "$output" = "$want" ]
	done
	"$SBT" --help | grep -qE -- '-V, --version'
	run "$SBT" help
	[ "${lines[0]}" = "$want" ]
}

@test "--help: what an option refers to (see below) is there in every command" {
	local cmd help
	for cmd in "" record top; do
		help=$("$SBT" $cmd --help)
		[[ "$help" == *"--probe"* ]]
		[[ "$help" == *"Probe kinds for --probe: barrier"* ]]
	done
}

@test "--help: no example line wraps (argp folds at 79 columns)" {
	local cmd
	for cmd in "" record top report export calibrate; do
		"$SBT" $cmd --help | python3 -c '
import sys
lines = sys.stdin.read().splitlines()
for a, b in zip(lines, lines[1:]):
    if a.startswith(("  sudo sbt-bpf", "  sbt-bpf")):
        assert b == "" or b.startswith("  "), (a, b)
'
	done
}

# README's transcript is what the tool prints today: the same lines, with
# every number (times, tids, pids, counts) masked; run as the marker says.
@test "README: the session transcript matches what sbt-bpf prints today" {
	python3 - "$ROOT/README.md" >"$T/want" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r"<!-- transcript: [^>]*-->\n(.*?)<!-- end of transcript -->", s, re.S)
assert m, "no transcript in README"
for l in m.group(1).rstrip("\n").split("\n"):
    print(l[4:] if l.startswith("    ") else l)
PY
	grep -q "<!-- transcript: sbt-bpf --trace barrier -- barrier_imbalance -t 3 -n 3 -d 20 -m sleep -->" "$ROOT/README.md"
	"$SBT" --trace barrier -- "$EX/barrier_imbalance" -t 3 -n 3 -d 20 -m sleep 2>/dev/null |
		grep -v '^phase \|^total_ns' >"$T/got"
	# said only when a timed probe hit was preempted, and when sbt-bpf took a
	# traced thread's CPU (a loaded machine)
	mask() {
		sed -E "s/[+-]?[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g; s/; N preempted, charged as calibrated//
			/^ sbt-bpf's own CPU: /d" "$1"
	}
	diff -u <(mask "$T/want") <(mask "$T/got")
}
