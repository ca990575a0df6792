#!/usr/bin/env python3
"""The tree's layering rules and its file-level dependency circles.

  scripts/layering.py [--build DIR] [--circles] [--check]

Rules (from #include lines of collector/, store/, tui/):
  - collector/ includes neither store/ nor tui/;
  - store/ includes no tui/;
  - curses is included only in tui/term/ (the terminal layer);
  - a private header (*_priv.h, *_internal.h) is included only from its own
    folder (the sub-module it belongs to).
Circles: from the object files in DIR/obj (`nm`), file A depends on file B
when A uses a global symbol B defines; every strongly connected component of
more than one file is a circle.

--check prints "ok - ..." / "not ok - ..." lines for tests/run.sh;
--circles lists each circle with the symbols that close it.
"""
import argparse
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = ("collector", "store", "tui")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)


def sources():
    for mod in MODULES:
        for root, _, files in os.walk(os.path.join(TOP, mod)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(root, f), TOP)


def include_violations():
    bad = []
    for path in sources():
        with open(os.path.join(TOP, path), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        mod = path.split("/")[0]
        for inc in INCLUDE.findall(text):
            target_mod = inc.split("/")[0]
            if mod == "collector" and target_mod in ("store", "tui"):
                bad.append(f"{path} includes {inc} (collector must not see store/ or tui/)")
            if mod == "store" and target_mod == "tui":
                bad.append(f"{path} includes {inc} (store must not see tui/)")
            if "curses" in inc and not path.startswith("tui/term/"):
                bad.append(f"{path} includes {inc} (curses only in tui/term/)")
            base = os.path.basename(inc)
            if (base.endswith("_priv.h") or base.endswith("_internal.h")) and "/" in inc:
                if os.path.dirname(inc) != os.path.dirname(path):
                    bad.append(f"{path} includes {inc} (a private header of another sub-module)")
    return bad


def symbols(build):
    """file -> (defined globals, undefined globals) from the objects."""
    objroot = os.path.join(build, "obj")
    out = {}
    for mod in MODULES:
        for root, _, files in os.walk(os.path.join(objroot, mod)):
            for f in files:
                if not f.endswith(".o"):
                    continue
                obj = os.path.join(root, f)
                src = os.path.relpath(obj, objroot)[:-2] + ".c"
                nm = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
                defined, undef = set(), set()
                for line in nm.splitlines():
                    parts = line.split()
                    if len(parts) == 2 and parts[0] == "U":
                        undef.add(parts[1])
                    elif len(parts) == 3 and parts[1] in "TDBRCVWG":
                        defined.add(parts[2])
                out[src] = (defined, undef)
    return out


def graph(syms):
    owner = {}
    for src, (defined, _) in syms.items():
        for s in defined:
            owner[s] = src
    edges = {src: {} for src in syms}
    for src, (_, undef) in syms.items():
        for s in undef:
            dst = owner.get(s)
            if dst and dst != src:
                edges[src].setdefault(dst, []).append(s)
    return edges


def circles(edges):
    """Tarjan's strongly connected components of more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(TOP, "build"))
    ap.add_argument("--circles", action="store_true")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()

    bad = include_violations()
    if not os.path.isdir(os.path.join(a.build, "obj")):
        print(f"skip - layering circles: no objects under {a.build}/obj (build first)")
        comps, edges = [], {}
    else:
        edges = graph(symbols(a.build))
        comps = circles(edges)

    if a.circles or not a.check:
        for comp in comps:
            print(f"circle of {len(comp)} files:")
            members = set(comp)
            for src in comp:
                for dst, syms in sorted(edges[src].items()):
                    if dst in members:
                        print(f"  {src} -> {dst}: {', '.join(sorted(syms)[:4])}"
                              + (" ..." if len(syms) > 4 else ""))
        if not comps:
            print("no circles between files")
        for b in bad:
            print("layering: " + b)
    if a.check:
        if bad:
            for b in bad:
                print(f"not ok - layering include rule: {b}")
        else:
            print("ok - layering: collector includes no store/tui, store no tui, curses only in tui/term, "
                  "private headers only in their sub-module")
        if comps:
            for comp in comps:
                print(f"not ok - layering circle: {' <-> '.join(comp)}")
        elif edges:
            print(f"ok - layering: no dependency circles between the {len(edges)} product files")
    return 1 if (bad or comps) else 0


if __name__ == "__main__":
    sys.exit(main())
