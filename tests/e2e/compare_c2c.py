#!/usr/bin/env python3
"""Compare `perf c2c report --stdio --no-source` output with
`c2ctui report --format json` for the same recording and options.

Every number perf prints is compared with the JSON: both summary sections,
"c2c details", every column of the Shared Data Cache Line Table for every
line, and every Pareto row (plus each Pareto block's line header). Prints one
line per section in the test protocol:
    ok - NAME: section
    not ok - NAME: section: first difference
Exit status 0 when every section agrees, 1 otherwise, 2 on bad input.

usage: compare_c2c.py --name NAME --perf PERF.txt --json C2C.json
                      [--coalesce pid,tid,iaddr,dso] [--sections trace,shared,...]
"""
import argparse
import json
import re
import sys

SECTIONS = ("trace", "shared", "details", "lines", "pareto")


class Mismatch(Exception):
    pass


# ---------------------------------------------------------------- perf side

def split_sections(text):
    """Map section title -> list of lines (between the === banners)."""
    out = {}
    lines = text.splitlines()
    i = 0
    cur = None
    while i < len(lines):
        if lines[i].startswith("=====") and i + 2 < len(lines) and lines[i + 2].startswith("====="):
            cur = lines[i + 1].strip()
            out[cur] = []
            i += 3
            continue
        if cur is not None:
            out[cur].append(lines[i])
        i += 1
    return out


def parse_kv(lines):
    """'  Label : value' rows, in order."""
    rows = []
    for ln in lines:
        if not ln.strip():
            continue
        m = re.match(r"^\s*(.*?)\s*:\s*(.*)$", ln)
        if m:
            rows.append((m.group(1), m.group(2).strip()))
    return rows


def parse_details(lines):
    events, sort_on, grouping = [], None, None
    for label, value in parse_kv(lines):
        if label in ("Events", ""):
            events.append(value)
        elif label == "Cachelines sort on":
            sort_on = value
        elif label == "Cacheline data grouping":
            grouping = value
    return {"events": events, "sort_on": sort_on, "grouping": grouping}


LINE_COLS = ["index", "address", "node", "pa_cnt", "costly_pct", "tot", "lcl", "rmt", "records",
             "loads", "stores", "st_l1hit", "st_l1miss", "st_na", "ld_fbhit", "ld_l1hit",
             "ld_l2hit", "ld_lclhit", "ld_lclhitm", "ld_rmthit", "ld_rmthitm", "dram_lcl",
             "dram_rmt"]


def parse_table(lines):
    rows = []
    for ln in lines:
        if not ln.strip() or ln.startswith("#"):
            continue
        f = ln.split()
        if len(f) != len(LINE_COLS):
            raise ValueError("unexpected line-table row: %r" % ln)
        rows.append(dict(zip(LINE_COLS, f)))
    return rows


def parse_pareto(lines, coalesce):
    """List of blocks: {header: {...}, rows: [{...}]}."""
    blocks = []
    state = 0
    for ln in lines:
        if ln.startswith("#"):
            continue
        if ln.strip().startswith("-----"):
            state = 1 if state in (0, 3) else 3
            if state == 1:
                blocks.append({"header": None, "rows": []})
            continue
        if not ln.strip():
            continue
        f = ln.split()
        if state == 1:
            blocks[-1]["header"] = dict(zip(["index", "rmt", "lcl", "st_l1hit", "st_l1miss", "st_na",
                                             "address"], f))
            state = 2
            continue
        if state != 3:
            raise ValueError("unexpected Pareto text: %r" % ln)
        row = dict(zip(["rmt_pct", "lcl_pct", "st_l1hit_pct", "st_l1miss_pct", "st_na_pct",
                        "offset", "node", "pa_cnt"], f[:8]))
        k = 8
        if "pid" in coalesce:
            row["pid"] = f[k]
            k += 1
        if "tid" in coalesce:
            row["tid"] = f[k].split(":", 1)[0]
            k += 1
        if "iaddr" in coalesce:
            row["iaddr"] = f[k]
            k += 1
        for key in ("cycles_rmt", "cycles_lcl", "cycles_load", "records", "cpu_cnt"):
            row[key] = f[k]
            k += 1
        rest = f[k:]
        if "iaddr" in coalesce and len(rest) >= 2 and rest[0] in ("[.]", "[k]", "[g]", "[u]", "[H]"):
            row["symbol"] = rest[1]
            row["symbol_kind"] = rest[0]
            rest = rest[2:]
        if ("iaddr" in coalesce or "dso" in coalesce) and rest:
            row["object"] = rest[0]
            rest = rest[1:]
        row["nodes"] = " ".join(rest)
        blocks[-1]["rows"].append(row)
    return blocks


def parse_perf(text, coalesce):
    sec = split_sections(text)
    need = ["Trace Event Information", "Global Shared Cache Line Event Information", "c2c details"]
    for n in need:
        if n not in sec:
            raise ValueError("perf output has no '%s' section" % n)
    return {
        "trace": parse_kv(sec["Trace Event Information"]),
        "shared": parse_kv(sec["Global Shared Cache Line Event Information"]),
        "details": parse_details(sec["c2c details"]),
        "lines": parse_table(sec.get("Shared Data Cache Line Table", [])),
        "pareto": parse_pareto(sec.get("Shared Cache Line Distribution Pareto", []), coalesce),
    }


# ---------------------------------------------------------------- comparisons

def fmt_pct(v, decimals):
    if v is None:
        return "nan"
    return "%.*f" % (decimals, v)


def perf_pct(s):
    """'33.2%' -> '33.2'; '-nan%' / 'nan%' -> 'nan'."""
    s = s.rstrip("%")
    return "nan" if "nan" in s else s


def eq(what, perf, ours):
    if str(perf) != str(ours):
        raise Mismatch("%s: perf %s, c2ctui %s" % (what, perf, ours))


def as_int(s, what):
    try:
        return int(s, 0)
    except ValueError:
        raise Mismatch("%s: perf printed %r" % (what, s))


def cmp_values(perf_rows, ours, what):
    by_label = {}
    for v in ours:
        by_label.setdefault(v["label"], []).append(v)
    seen = {}
    if len(perf_rows) != len(ours):
        raise Mismatch("%s: perf prints %d rows, c2ctui %d" % (what, len(perf_rows), len(ours)))
    for label, value in perf_rows:
        idx = seen.get(label, 0)
        seen[label] = idx + 1
        cand = by_label.get(label)
        if not cand or idx >= len(cand):
            raise Mismatch("%s: c2ctui has no row '%s'" % (what, label))
        mine = cand[idx]["value"]
        if value.endswith("%"):
            eq("%s '%s'" % (what, label), perf_pct(value), fmt_pct(mine, 1))
        else:
            eq("%s '%s'" % (what, label), as_int(value, label), mine)


def cmp_details(p, j):
    eq("events", p["events"], j["events"])
    eq("Cachelines sort on", p["sort_on"], j["sort_on"])
    eq("Cacheline data grouping", p["grouping"], j["grouping"])


def line_value(jl, col):
    if col == "address":
        return int(jl["address"], 16)
    if col == "costly_pct":
        return fmt_pct(jl["costly_pct"], 2)
    return jl[col]


def perf_line_value(pl, col):
    v = pl[col]
    if col == "address":
        return int(v, 16)
    if col == "costly_pct":
        return perf_pct(v)
    if col == "node":
        return v
    return as_int(v, col)


def cmp_lines(p, j):
    jl = j["lines"]
    if len(p) != len(jl):
        raise Mismatch("number of lines: perf %d, c2ctui %d" % (len(p), len(jl)))
    for i, (pl, ml) in enumerate(zip(p, jl)):
        for col in LINE_COLS:
            eq("line %d (%s) %s" % (i, pl["address"], col), perf_line_value(pl, col), line_value(ml, col))


def cmp_pareto(p, j, display, coalesce):
    jl = j["lines"]
    if len(p) != len(jl):
        raise Mismatch("number of Pareto blocks: perf %d, c2ctui %d" % (len(p), len(jl)))
    peer = display == "peer"
    for i, (pb, ml) in enumerate(zip(p, jl)):
        h = pb["header"]
        st = ml["stats"]
        hdr = {"index": ml["index"], "rmt": st["rmt_peer"] if peer else st["rmt_hitm"],
               "lcl": st["lcl_peer"] if peer else st["lcl_hitm"], "st_l1hit": st["st_l1hit"],
               "st_l1miss": st["st_l1miss"], "st_na": st["st_na"], "address": int(ml["address"], 16)}
        for k, v in hdr.items():
            eq("Pareto %d header %s" % (i, k), as_int(h[k], k), v)
        rows = ml["pareto"]
        if len(pb["rows"]) != len(rows):
            raise Mismatch("Pareto %d (%s): perf %d rows, c2ctui %d" % (i, h["address"], len(pb["rows"]), len(rows)))
        for r, (pr, mr) in enumerate(zip(pb["rows"], rows)):
            where = "Pareto %d row %d" % (i, r)
            for k in ("rmt_pct", "lcl_pct", "st_l1hit_pct", "st_l1miss_pct", "st_na_pct"):
                eq("%s %s" % (where, k), perf_pct(pr[k]), fmt_pct(mr[k], 2))
            eq(where + " offset", as_int(pr["offset"], "offset"), int(mr["offset"], 16))
            eq(where + " node", pr["node"], mr["node"])
            eq(where + " pa_cnt", as_int(pr["pa_cnt"], "pa_cnt"), mr["pa_cnt"])
            if "pid" in pr:
                eq(where + " pid", as_int(pr["pid"], "pid"), mr["pid"])
            if "tid" in pr:
                eq(where + " tid", as_int(pr["tid"], "tid"), mr["tid"])
            if "iaddr" in pr:
                eq(where + " code address", as_int(pr["iaddr"], "iaddr"), int(mr["iaddr"], 16))
            for k in ("cycles_rmt", "cycles_lcl", "cycles_load", "records", "cpu_cnt"):
                eq("%s %s" % (where, k), as_int(pr[k], k), mr[k])
            # Kernel symbols are compared only when both resolved: perf
            # resolves a recording's kernel addresses against the reporting
            # host's /proc/kallsyms when the file has no kernel build-id,
            # c2ctui only for recordings made on this host (agreement.md).
            sym = pr.get("symbol")
            kernel = pr.get("symbol_kind") == "[k]"
            if sym and sym.startswith("0x"):
                eq(where + " symbol", sym, mr["symbol"].split()[-1])
            elif sym and not (kernel and not mr["function"]):
                eq(where + " symbol", sym, mr["function"])
            if pr.get("object") and pr["object"] != "[unknown]":
                eq(where + " object", pr["object"], mr["object"])
            eq(where + " nodes", " ".join(pr["nodes"].split()), " ".join(mr["nodes"].split()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--perf", required=True, help="perf c2c report --stdio output")
    ap.add_argument("--json", required=True, help="c2ctui report --format json output")
    ap.add_argument("--coalesce", default="iaddr")
    ap.add_argument("--sections", default=",".join(SECTIONS))
    a = ap.parse_args()
    coalesce = set(a.coalesce.split(","))
    try:
        with open(a.perf, encoding="utf-8", errors="replace") as f:
            p = parse_perf(f.read(), coalesce)
        with open(a.json, encoding="utf-8") as f:
            j = json.load(f)
    except (OSError, ValueError) as e:
        print("not ok - %s: parse: %s" % (a.name, e))
        return 2
    checks = {
        "trace": lambda: cmp_values(p["trace"], j["trace"], "trace"),
        "shared": lambda: cmp_values(p["shared"], j["shared"], "shared"),
        "details": lambda: cmp_details(p["details"], j),
        "lines": lambda: cmp_lines(p["lines"], j),
        "pareto": lambda: cmp_pareto(p["pareto"], j, j.get("display"), coalesce),
    }
    bad = 0
    for s in a.sections.split(","):
        try:
            checks[s]()
            print("ok - %s: %s" % (a.name, s))
        except Mismatch as e:
            print("not ok - %s: %s: %s" % (a.name, s, e))
            bad += 1
        except (KeyError, IndexError, TypeError) as e:
            print("not ok - %s: %s: malformed input (%s: %s)" % (a.name, s, type(e).__name__, e))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
