#!/usr/bin/env python3
"""normalize_output.py FILE: a workload's output with what depends on the
run's timing masked (times, thread ids, context switches, how work fell to
threads), each distinct line once, sorted: two runs of the same program and input give the
same text, traced or not. Values of the keys in KEPT (phase, step and
thread numbers, region names, sizes, totals the program computed) stay."""
import re
import sys

KEPT = {"phase", "thread", "step", "part", "region", "pages", "page_size", "pushed",
        "processed", "level", "team", "sum", "checksum", "result", "items_total"}
NUMBER = re.compile(r"^-?[0-9][0-9.e+-]*$")


def normalize(line):
    words = line.split()
    # a dynamically scheduled loop's chunks fall to threads as timing has it
    kept = KEPT - {"thread"} if words[0] == "region" else KEPT
    out = []
    for i, w in enumerate(words):
        key = words[i - 1] if i else ""
        out.append("N" if NUMBER.match(w) and key not in kept else w)
    return " ".join(out)


def timing_only(line):
    """Lines that exist or not as the timing has it: the tasks a thread
    happened to run at a barrier (omp_tasks)."""
    return " barrier_tasks_ns " in line


with open(sys.argv[1]) as f:
    lines = {normalize(l) for l in f if l.strip() and not timing_only(l)}
print("\n".join(sorted(lines)))
