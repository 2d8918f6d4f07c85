#!/usr/bin/env python3
"""The architecture as a test (doc/design.md §3): every #include of the C
sources goes down or sideways within its layer, never up, and no two modules
(x.c + x.h, with x_impl.h) depend on each other, directly or through others.

Prints one "ok"/"not ok" line per rule and a final "N passed, N failed"."""
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# directory -> layer name; a layer may include itself and what it lists
LAYER_OF = {
    "include/sbt": "sbt",
    "lib": "lib",
    "lib/tracefile": "lib",
    "analyses": "analyses",
    "user/resolve": "resolve",
    "user/bpf": "bpf",
    "user/trace": "trace",
    "user/cmd": "cmd",
}
MAY_USE = {
    "sbt": {"sbt"},
    "lib": {"sbt", "lib"},
    "analyses": {"sbt", "lib", "analyses"},
    "resolve": {"sbt", "lib", "resolve"},
    "bpf": {"sbt", "lib", "resolve", "bpf", "skeleton"},
    "trace": {"sbt", "lib", "analyses", "resolve", "bpf", "trace"},
    "cmd": {"sbt", "lib", "analyses", "resolve", "bpf", "trace", "cmd"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources():
    for d in LAYER_OF:
        full = os.path.join(ROOT, d)
        for f in sorted(os.listdir(full)):
            if f.endswith((".c", ".h")) and not f.endswith(".bpf.c"):
                yield os.path.join(d, f)


def target_path(src, inc):
    """The repository path an include names ("sbt/x.h" lives in include/)."""
    if inc.startswith("sbt/"):
        return "include/" + inc
    if inc == "sbt.skel.h":
        return None  # generated into the build directory
    return inc


def layer(path):
    return LAYER_OF.get(os.path.dirname(path))


def module(path):
    """x.c and x.h are module x; x_impl.h, the private header that the files
    implementing x share, belongs to x too."""
    m = os.path.splitext(path)[0]
    return m[:-len("_impl")] if m.endswith("_impl") else m


def main():
    results = []
    edges = {}
    bad = []
    for src in sources():
        text = open(os.path.join(ROOT, src)).read()
        for inc in INCLUDE.findall(text):
            dst = target_path(src, inc)
            want = "skeleton" if dst is None else layer(dst)
            if dst is not None and not os.path.exists(os.path.join(ROOT, dst)):
                bad.append(f"{src}: includes \"{inc}\", which is not a path from the "
                           "repository root (or include/)")
                continue
            if want not in MAY_USE[layer(src)]:
                bad.append(f"{src} ({layer(src)}) includes {inc} ({want})")
            if dst is not None and module(dst) != module(src):
                edges.setdefault(module(src), set()).add(module(dst))
    results.append(("every include goes down the layers", bad))

    # a cycle among modules: depth-first search with colours
    cycles, state, stack = [], {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                cycles.append(" -> ".join(stack[stack.index(n):] + [n]))
            elif not state.get(n):
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if not state.get(m):
            visit(m)
    results.append(("no circle between modules", cycles))

    passed = failed = 0
    for name, problems in results:
        if problems:
            failed += 1
            print(f"not ok {name}")
            for p in problems:
                print(f"    {p}")
        else:
            passed += 1
            print(f"ok {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
