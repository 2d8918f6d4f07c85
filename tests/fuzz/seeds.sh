#!/usr/bin/env bash
# Regenerate the fuzz harnesses' seed corpus in tests/fuzz/seeds/ (committed:
# `make fuzz` and `make check` need neither root nor a recording).
#
#   sudo tests/fuzz/seeds.sh      (after make; records with real BPF)
#
# trace/: a recording of every bundled example, small inputs, --trace all
#   (every record type: barrier, lock, sem, cond, futex, task, region), some
#   with -e counters, a hang (unreleased barrier), --probe, -a and -p A,B
#   (several jobs), a cut recording, and the same trace in formats 1 and 2.
# args/:  command lines and option values (NUL-separated words after a
#   selector byte: tests/fuzz/fuzz_args.c).
# proc/:  /proc/PID/status and maps of a running example, hostile names.
# elf/:   small ELF files: a program, a static one, OpenMP bodies, the shim.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${SBT_OUTPUT:-.output}
SBT=$OUT/sbt-bpf
EX=$OUT/examples
S=tests/fuzz/seeds
[ "$(id -u)" -eq 0 ] || { echo "seeds.sh: recording needs root (sudo)" >&2; exit 1; }
[ -x "$SBT" ] || { echo "seeds.sh: build first (make)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$S"
mkdir -p "$S/trace" "$S/args" "$S/proc" "$S/elf"

# record NAME [OPTIONS...] -- CMD...: one seed, quietly
record() {
	local name=$1
	shift
	"$SBT" record -o "$S/trace/$name.sbt" "$@" >/dev/null 2>&1 </dev/null ||
		echo "seeds.sh: $name: record failed" >&2
}

# ---- traces: every example, small inputs -------------------------------------
record barrier_imbalance --trace all -- "$EX/barrier_imbalance" -t 3 -n 3 -d 1
record barrier_static -- "$EX/barrier_imbalance_static" -t 2 -n 2 -d 1
# hits close together: the all-CPUs entry names its threads (hits charged by the
# hits beside them once a ratio above 1 is in force)
record hits_beside --no-shim -- "$EX/barrier_imbalance" -t 2 -n 20 -d 0 -m spin
record cond_barrier --trace all -- "$EX/cond_barrier" -t 3 -n 3
record cond_queue --trace all -- "$EX/cond_queue" -n 5
record custom_barrier --trace all --probe "$EX/custom_barrier:spin_futex_barrier:team" \
	-- "$EX/custom_barrier" -t 3 -n 3 -d 1
record mutex_contention --trace all -e task-clock,page-faults -- "$EX/mutex_contention" -t 2 -k 10
record page_touch -e page-faults,context-switches,cpu-migrations,task-clock \
	-- "$EX/page_touch" -t 2 -n 2
record sem_barrier --trace all -- "$EX/sem_barrier" -t 3 -n 3
record sem_pipeline --trace all -- "$EX/sem_pipeline" -n 5
record stepper --probe "$EX/stepper:step:region" -- "$EX/stepper" -t 2 -n 3 -k 2
for rt in gomp llvm; do
	record "omp_barriers_$rt" -e task-clock -- "$EX/omp_barriers_$rt" -n 2 -d 1
	record "omp_critical_$rt" --trace all -- "$EX/omp_critical_$rt" -k 1
	record "omp_for_$rt" -- "$EX/omp_for_$rt" -r 2 -d 1
	record "omp_kernels_$rt" -- "$EX/omp_kernels_$rt" -s 1
	record "omp_nested_$rt" -- "$EX/omp_nested_$rt" -s 1
	record "omp_tailcall_$rt" -- "$EX/omp_tailcall_$rt" -s 2
	record "omp_tasks_$rt" --trace all -- "$EX/omp_tasks_$rt" -n 2
done
# MPI: two ranks of Open MPI (ranks, collectives, a ring), MPICH's, and two
# such traces merged (ranks and hosts in JOBS, pids renamed)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
record mpi_ompi --trace mpi,barrier -- mpirun.openmpi --oversubscribe -np 2 \
	"$EX/mpi_ranks_ompi" -n 2 -d 1 -x 1 -p
record mpi_mpich --trace mpi,barrier -- mpirun.mpich -np 2 "$EX/mpi_ranks_mpich" -n 2 -d 1 -x 1 -p
"$SBT" merge "$S/trace/mpi_ompi.sbt" "$S/trace/mpi_mpich.sbt" -o "$S/trace/mpi_merged.sbt" \
	>/dev/null 2>&1 || echo "seeds.sh: mpi_merged: merge failed" >&2
# a hang: workers wait forever at a barrier the last one never reaches
record hang_barrier -d 1 -- "$EX/hang_barrier" -t 3 -g 2 -d 1
# an exec in launch mode; a stripped OpenMP program (region bodies probed
# late: PROBE_ARMED records)
record exec -- sh -c "exec $EX/barrier_imbalance -t 2 -n 2 -d 1"
strip -o "$tmp/omp_kernels" "$EX/omp_kernels_gomp"
OMP_NUM_THREADS=2 record stripped -- "$tmp/omp_kernels" -s 2 -n 50
# records lost (a ring of 4 KiB under a hot loop): the first LOST record and
# the records around it, with the recording's metadata (losses come by
# chance: a few tries)
for try in 1 2 3 4 5; do
	"$SBT" record -o "$tmp/lost.sbt" --buffer-size 4096 --shared-ring \
		-- "$EX/barrier_imbalance" -t 2 -n 3000 -d 0 -m spin >/dev/null 2>&1 || true
	python3 - "$tmp/lost.sbt" "$S/trace/lost.sbt" <<'PY' && break
import struct, sys
b = open(sys.argv[1], "rb").read()
meta, recs, off = b"", [], 64
while off + 8 <= len(b):
    tag, n = struct.unpack_from("<II", b, off)
    if tag == 9:
        recs += [b[k:k + 48] for k in range(off + 8, off + 8 + n, 48)]
    elif tag != 10:
        meta += b[off:off + 8 + n]
    off += 8 + n
lost = [i for i, r in enumerate(recs) if struct.unpack_from("<H", r, 32)[0] == 11]
if not lost:
    sys.exit(1)
keep = recs[max(0, lost[0] - 40):lost[0] + 40]
body = b"".join(keep)
out = b[:64] + meta + struct.pack("<II", 9, len(body)) + body
open(sys.argv[2], "wb").write(out + struct.pack("<IIQ", 10, 8, len(keep)))
PY
	[ "$try" -lt 5 ] || echo "seeds.sh: no record lost in 5 tries" >&2
done

# several jobs: -a (two examples; the machine's other processes filtered
# out) and -p A,B, each for a few phases
"$EX/barrier_imbalance" -t 2 -n 500 -d 20 >/dev/null 2>&1 &
a=$!
"$EX/barrier_imbalance" -t 3 -n 500 -d 30 >/dev/null 2>&1 &
b=$!
sleep 0.3
"$SBT" record -a -d 0.3 --filter 'comm=barrier_imbal*' -o "$S/trace/all.sbt" >/dev/null 2>&1 ||
	echo "seeds.sh: -a: record failed" >&2
"$SBT" record -p "$a,$b" -d 0.3 -o "$S/trace/pids.sbt" >/dev/null 2>&1 ||
	echo "seeds.sh: -p A,B: record failed" >&2
kill "$a" "$b" 2>/dev/null || true
wait 2>/dev/null || true

# a recording cut (killed, disk full): the first two thirds of one
f=$S/trace/barrier_imbalance.sbt
head -c $(($(stat -c %s "$f") * 2 / 3)) "$f" >"$S/trace/cut.sbt"
# formats 1 (tests/unit/golden) and 2 (40-byte records: cost and flags dropped)
cp tests/unit/golden/trace-v1.sbt "$S/trace/format1.sbt"
python3 - "$f" "$S/trace/format2.sbt" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
out = bytearray(b[:64])
struct.pack_into("<II", out, 8, 2, 64)
struct.pack_into("<I", out, 16, 40)
off = 64
while off + 8 <= len(b):
    tag, n = struct.unpack_from("<II", b, off)
    body = b[off + 8:off + 8 + n]
    if tag == 9:  # RECORDS
        body = b"".join(body[k:k + 40] for k in range(0, len(body), 48))
    out += struct.pack("<II", tag, len(body)) + body
    off += 8 + n
open(sys.argv[2], "wb").write(out)
PY

# ---- command lines and values (fuzz_args.c: selector byte, NUL-separated words)
words() { # FILE SELECTOR WORD...
	local f=$1 sel=$2
	shift 2
	{
		printf "\\x$sel"
		printf '%s\0' "$@" | head -c -1
	} >"$S/args/$f"
}
words trace 00 -p 4242,4243 --trace all --sort hold -e cycles,instructions --watch lu.c:320 \
	--hang-timeout 5 --max-lines 10 --alpha 120,80 -d 2.5 --buffer-size 16M --drain-interval 20
words launch 00 --probe ./app:my_barrier:team --no-shim --format json --phases 100 -- ./lu -p8
words record 01 -a --filter comm=lu*,uid=1000 --filter cgroup=/user.slice -o all.sbt \
	--model sm --exit-order reverse --approximated -v -q
words top 02 -p 4242 --interval 0.5 --shared-ring --prob ./x:f:lock
words values 03 42 0x401136 1.25 64K cycles,page-faults,r01c2,cpu/config=0x3c/ \
	./app:0x401136:barrier all barrier,lock,sem comm=lu*,uid=root,cgroup=/x chrome hold watch-al

# ---- /proc contents (fuzz_proc.c) ---------------------------------------------
"$EX/barrier_imbalance" -t 2 -n 50 -d 10 >/dev/null 2>&1 &
a=$!
sleep 0.2
head -c 3000 "/proc/$a/maps" >"$S/proc/maps"
cp "/proc/$a/status" "$S/proc/status"
kill "$a" 2>/dev/null || true
wait 2>/dev/null || true
printf '7f00-7f01 r-xp 00000000 fd:01 1234 /tmp/x (deleted)\n7f00-7f02 r-xp 0 0:0 0 \n' \
	>"$S/proc/maps-odd"
printf 'lu \033]0;pwn\007 caf\303\251 \377\376 \302\233[31m' >"$S/proc/name"

# ---- ELF files (fuzz_elf.c): small, with the symbols the tracer looks for ----
strip -o "$S/elf/barrier_imbalance" "$EX/barrier_imbalance"
strip -o "$S/elf/shim-barrier.so" "$OUT/libsbt-probes-barrier.so"
strip --strip-debug -o "$S/elf/omp_tasks_gomp" "$EX/omp_tasks_gomp"
strip --strip-debug -o "$S/elf/omp_barriers_llvm" "$EX/omp_barriers_llvm"

chmod 0644 "$S"/*/*
du -sh "$S"/* | sed 's/^/seeds.sh: /'
