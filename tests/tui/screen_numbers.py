#!/usr/bin/env python3
"""Compares the numbers of an explorer screen with `c2ctui report --format json`.

  screen_numbers.py lines SCREEN JSON     the summary header and every visible row
                                          of the hot lines (or all lines, `a`; or a
                                          lock-only session's lines, `l`)
  screen_numbers.py line SCREEN JSON      a line: its header, every offset and every
                                          code site shown (JSON: --show-all, so that
                                          every site of the line is in it)
  screen_numbers.py cpus SCREEN JSON      the CPUs and nodes: each node row is the sum
                                          of its CPUs' rows, the rows sum to the
                                          session's totals (or the line's, when the
                                          title names a line)

Tables are read by their heading: a right-aligned number ends where its
title ends, a left-aligned cell starts where its title starts, so empty
cells (a share of nothing) and text with spaces (a data object, a code
site) do not shift the columns. Each shown number is compared with the
JSON's as the screen would print it (K/M suffixes, two-decimal shares).
Prints one '# ...' line per mismatch and 'compared N' at the end; exits 1
when a number differs or a table cannot be read.
"""
import collections
import json
import re
import sys

MERGE = {("Data", "object"), ("Code", "site")}
ARROWS = "▲▼^v"
bad = []
compared = [0]


def spans(text):
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", text)]


def heading(text):
    """[(start, end, title)] with the two-word titles merged, arrows dropped."""
    out = []
    for s, e, t in spans(text):
        if out and (out[-1][2], t) in MERGE:
            out[-1] = (out[-1][0], e, out[-1][2] + " " + t)
            continue
        out.append((s, e, t.rstrip(ARROWS) if len(t) > 1 else t))
    return out


def cells(head, row):
    """title -> text of the cell (first column of that title wins)."""
    toks = spans(row)
    out = {}
    for s, e, t in head:
        if t in out:
            continue
        hit = [x for x in toks if x[1] == e] or [x for x in toks if x[0] == s]
        out[t] = hit[0][2] if hit else ""
    return out


def fmt_count(v, width=None):
    """Every text_count() form of v: the plain number, or its k/M/G scale."""
    forms = {str(v)}
    d = float(v)
    for u in "kMGTPE":
        if d < 1000.0:
            break
        d /= 1000.0
        forms.add("%.1f%s" % (d, u))
        forms.add("%.0f%s" % (d, u))
    return forms


def same_count(shown, v):
    if shown == str(v):
        return True
    # scaled only when the plain number would not fit: at least 5 digits
    return len(str(v)) > 4 and shown in fmt_count(v) and shown != str(v)


def pct(part, whole):
    if whole <= 0:
        return ""
    if part >= whole:
        return "100%"
    return "%.2f%%" % (100.0 * part / whole)


def want(where, what, shown, expect, ok=None):
    compared[0] += 1
    good = ok(shown, expect) if ok else shown == str(expect)
    if not good:
        bad.append("%s: %s shows %r, report says %r" % (where, what, shown, expect))


def total_loads(s):
    return (s["lcl_dram"] + s["rmt_dram"] + s["rmt_hitm"] + s["rmt_hit"] +
            s["ld_fbhit"] + s["ld_l1hit"] + s["ld_l2hit"] + s["ld_llchit"] + s["lcl_hitm"])


def stores(s):
    return s["st_l1hit"] + s["st_l1miss"] + s["st_na"]


def mode_hitm(s, mode):
    return {"tot": s["tot_hitm"], "lcl": s["lcl_hitm"], "rmt": s["rmt_hitm"], "peer": s["tot_peer"]}[mode]


def add(a, b):
    for k, v in b.items():
        if isinstance(v, int):
            a[k] = a.get(k, 0) + v
    return a


def table_at(lines, first_title, need):
    """Index of the heading row starting with first_title that has the titles in need."""
    for i, l in enumerate(lines):
        h = heading(l)
        titles = [t for _, _, t in h]
        if titles and titles[0] == first_title and all(n in titles for n in need):
            return i, h
    return None, None


def table_rows(lines, i, first_re):
    out = []
    for l in lines[i + 1:]:
        f = l.split()
        if not f or not re.match(first_re, f[0]):
            break
        out.append(l)
    return out


def summary(lines, d, shown_all):
    """Header rows 2 and 3: samples, lost, HITM, peer, shared lines, mode."""
    m = re.search(r"samples (\d+)\s+lost (\d+)\s+HITM (\S+) \(lcl (\S+), rmt (\S+)\)\s+peer (\S+)"
                  r"(?:\s+shared lines (\d+)/(\d+))?", lines[1])
    if not m:
        bad.append("header: cannot read %r" % lines[1])
        return None
    t = d["totals"]
    want("header", "samples", m.group(1), d["samples"])
    want("header", "lost", m.group(2), d["lost_samples"])
    want("header", "HITM", m.group(3), t["tot_hitm"], same_count)
    want("header", "lcl HITM", m.group(4), t["lcl_hitm"], same_count)
    want("header", "rmt HITM", m.group(5), t["rmt_hitm"], same_count)
    want("header", "peer", m.group(6), t["tot_peer"], same_count)
    if m.group(7) is not None:
        shared = {x["key"]: x["value"] for x in d["shared"]}
        want("header", "shared lines", m.group(7), shared.get("shared_lines"))
        if shown_all:
            want("header", "all lines", m.group(8), d["lines_total"])
    mm = re.search(r"^mode (\S+)", lines[2])
    if not mm or mm.group(1) != d["display"]:
        bad.append("header: mode %r, the report's JSON is of -d %s" % (mm and mm.group(1), d["display"]))
    return m


def lock_sums(d):
    by = collections.defaultdict(lambda: [0, 0])
    for k in d.get("locks") or []:
        by[int(k["line"], 16)][0] += k["waits"]
        by[int(k["line"], 16)][1] += k["wait_ns"]
    return by


def cmd_lines(lines, d):
    title = lines[3]
    shown_all = title.startswith("All cache lines")
    summary(lines, d, shown_all)
    mode = d["display"]
    i, head = table_at(lines, "#", ["Address"])
    if i is None:
        bad.append("no hot lines table on the screen")
        return
    rows = table_rows(lines, i, r"^\d+$")
    mt = re.search(r": (\d+) shown", title)
    locks = lock_sums(d)
    lock_lines = "Hot cache lines and locks" in title or "lines holding" in title.lower()
    if mt and not lock_lines:
        want("title", "lines shown", mt.group(1), len(d["lines"]))
    elif ": none" in title:
        want("title", "lines shown", "0", len(d["lines"]))
    # two lines can show one address (a line key's identity variant is not
    # part of it): a row is compared with the one it matches best
    byaddr = collections.defaultdict(list)
    for l in d["lines"]:
        byaddr[int(l["address"], 16)].append(l)
    mtot = mode_hitm(d["shared_totals"], mode) or mode_hitm(d["totals"], mode)
    for r in rows:
        c = cells(head, r)
        a = int(c["Address"], 16)
        where = "line %s" % c["Address"]
        if a in locks:
            w, ns = locks[a]
            if "Waits" in c:
                want(where, "Waits", c["Waits"], w, same_count)
            if "LockWait" in c:
                want(where, "LockWait", c["LockWait"], "%.3fms" % (ns / 1e6))
        else:
            for k in ("Waits", "LockWait"):
                if k in c:
                    want(where, k, c[k], "-")
        if not byaddr.get(a):
            if a not in locks:
                bad.append("%s: on the screen, not in the report" % where)
            continue
        best(byaddr[a], lambda l: line_row(where, c, l, mode, mtot, lock_lines, shown_all))


def best(cands, run):
    """Runs the checks against each candidate, keeps the one with fewest mismatches."""
    global bad
    keep = None
    for l in cands:
        saved = (bad, compared[0])
        bad = []
        run(l)
        trial = (bad, compared[0] - saved[1])
        bad, compared[0] = saved
        if keep is None or len(trial[0]) < len(keep[0]):
            keep = trial
    bad += keep[0]
    compared[0] += keep[1]


def line_row(where, c, l, mode, mtot, lock_lines, shown_all):
    if not lock_lines and not shown_all:   # the order of all lines is not perf's
        want(where, "#", c["#"], l["index"])
    s = l["stats"]
    # the report's tot/lcl/rmt are the mode's (peer loads in -d peer);
    # the explorer's Hitm is the mode's, its Lcl and Rmt always the HITM
    hitm = mode_hitm(s, mode)
    checks = [("Share", pct(hitm, mtot), None), ("Hitm", hitm, same_count),
              ("Lcl", s["lcl_hitm"], same_count), ("Rmt", s["rmt_hitm"], same_count),
              ("LclPeer", s["lcl_peer"], same_count), ("RmtPeer", s["rmt_peer"], same_count),
              ("Records", l["records"], same_count),
              ("Peer", s["tot_peer"], same_count), ("Loads", l["loads"], same_count),
              ("Stores", l["stores"], same_count), ("CPUs", l["nr_cpus"], None),
              ("Thr", l["nr_threads"], None), ("Home", node_text(l["node"]), None),
              # perf's Pareto rows keep only the sites with HITM or stores
              ("Sites", len({(p["offset"], p["iaddr"]) for p in l["pareto"]}),
               lambda shown, v: shown.isdigit() and int(shown) >= v)]
    for k, v, f in checks:
        if k in c:
            want(where, k, c[k], v, f)


def cmd_line(lines, d):
    m = re.search(r"Cache line (0x[0-9a-f]+): (\d+) offsets, (\d+) code sites", lines[3])
    if not m:
        bad.append("no line view title: %r" % lines[3])
        return
    addr = int(m.group(1), 16)
    cands = [x for x in d["lines"] if int(x["address"], 16) == addr]
    if not cands:
        bad.append("line %s is not in the report" % m.group(1))
        return
    best(cands, lambda l: line_view(lines, m, l))


def line_view(lines, m, l):
    where = "line %s" % m.group(1)
    h = re.search(r"home node (\S+)\s+HITM (\S+) \(lcl (\S+), rmt (\S+)\)\s+peer (\S+)\s+loads (\S+)\s+stores (\S+)"
                  r"\s+CPUs (\d+)\s+nodes (\S+)\s+threads (\d+)", lines[4])
    if not h:
        bad.append("%s: cannot read the header %r" % (where, lines[4]))
        return
    s = l["stats"]
    want(where, "home node", h.group(1), node_text(l["node"]))
    for g, k, v in ((2, "HITM", l["tot"]), (3, "lcl", l["lcl"]), (4, "rmt", l["rmt"]), (5, "peer", s["tot_peer"]),
                    (6, "loads", l["loads"]), (7, "stores", l["stores"])):
        want(where, k, h.group(g), v, same_count)
    want(where, "CPUs", h.group(8), l["nr_cpus"])
    want(where, "threads", h.group(10), l["nr_threads"])
    nodes = sorted({int(n) for p in l["pareto"] for n in re.findall(r"\d+", p["nodes"])})
    # offsets: the sums of the line's sites at that offset
    byoff = collections.defaultdict(dict)
    for p in l["pareto"]:
        add(byoff[int(p["offset"], 16)], p["stats"])
    allsum = add({}, {})
    for v in byoff.values():
        add(allsum, v)
    # perf's Pareto rows leave out the sites without HITM or stores: then
    # only the offsets' sums can be compared, with the line's numbers
    complete = bool(byoff) and total_loads(allsum) == l["loads"] and allsum["store"] == l["stores"]
    if complete:
        want(where, "offsets", m.group(2), len(byoff))
        want(where, "nodes", h.group(9), ",".join(map(str, nodes)) if nodes else "-")
    i, head = table_at(lines, "Off", ["Loads", "Data"])
    if i is None:
        bad.append("%s: no offsets table" % where)
        return
    orows = table_rows(lines, i, r"^0x[0-9a-f]+$")
    if not complete:
        if len(orows) == int(m.group(2)):
            sums = collections.Counter()
            for r in orows:
                c = cells(head, r)
                for k in ("Hitm", "Lcl", "Rmt", "Stores", "Loads", "Peer"):
                    if c.get(k, "").isdigit():
                        sums[k] += int(c[k])
            for k, v in (("Hitm", l["tot"]), ("Lcl", l["lcl"]), ("Rmt", l["rmt"]), ("Stores", l["stores"]),
                         ("Loads", l["loads"]), ("Peer", l["stats"]["tot_peer"])):
                if k in head_titles(head):
                    want(where, "sum of the offsets' " + k, str(sums[k]), v)
        orows = []
    for r in orows:
        c = cells(head, r)
        off = int(c["Off"], 16)
        w = "%s offset %s" % (where, c["Off"])
        s = byoff.get(off)
        if s is None:
            bad.append("%s: on the screen, no site of the report at it" % w)
            continue
        for k, v in (("Hitm", s["tot_hitm"]), ("Lcl", s["lcl_hitm"]), ("Rmt", s["rmt_hitm"]),
                     ("Stores", s["store"]), ("Loads", total_loads(s)), ("Peer", s["tot_peer"])):
            if k in c:
                want(w, k, c[k], v, same_count)
    # code sites: each shown row is one of the report's rows at its offset
    i, head = table_at(lines, "Off", ["Code site"])
    if i is None:
        if int(m.group(3)):
            bad.append("%s: no code sites table" % where)
        return
    pool = collections.Counter()
    keyed = []
    stores_of = collections.defaultdict(list)
    for p in l["pareto"]:
        s = p["stats"]
        key = (int(p["offset"], 16), str(s["tot_hitm"]), str(s["lcl_hitm"]), str(s["rmt_hitm"]),
               str(total_loads(s)), str(p["cpu_cnt"]), str(p["cycles_load"]), str(p["cycles_rmt"]),
               str(p["cycles_lcl"]), str(p["records"]))
        pool[key] += 1
        keyed.append(key)
        stores_of[key].append(s["store"])
    names = ("Hitm", "Lcl", "Rmt", "Loads", "CPUs", "LdLat", "RmtCyc", "LclCyc", "Records")
    for r in table_rows(lines, i, r"^0x[0-9a-f]+$"):
        c = cells(head, r)
        key = (int(c["Off"], 16),) + tuple(c.get(k, "") for k in names)
        compared[0] += len(names)
        if pool[key] > 0:
            pool[key] -= 1
            # the site's stores: one of the rows' with these numbers
            v = stores_of[key]
            want("%s site at %s" % (where, c["Off"]), "Stores", c.get("Stores", ""), v[0],
                 lambda shown, _: shown in map(str, v))
            continue
        near = [k for k in keyed if k[0] == key[0]]
        bad.append("%s site at %s: %s, the report's rows there: %s" % (
            where, c["Off"], dict(zip(names, key[1:])), [dict(zip(names, k[1:])) for k in near][:3]))


def cmd_cpus(lines, d):
    mt = re.search(r"CPUs and nodes of (the session|line (0x[0-9a-f]+)): (\d+) CPUs, (\d+) nodes", lines[3])
    if not mt:
        bad.append("no CPUs view title: %r" % lines[3])
        return
    if mt.group(2):
        cands = [x for x in d["lines"] if int(x["address"], 16) == int(mt.group(2), 16)]
        if not cands:
            bad.append("line %s is not in the report" % mt.group(2))
            return
        best(cands, lambda l: cpus_view(lines, d, mt, l))
        return
    cpus_view(lines, d, mt, None)


def cpus_view(lines, d, mt, l):
    if l is not None:
        tot = None
        expect = {"Hitm": l["tot"], "Lcl": l["lcl"], "Rmt": l["rmt"], "Stores": l["stores"],
                  "Loads": l["loads"], "Peer": l["stats"]["tot_peer"], "Records": l["records"]}
        where = "CPUs of line %s" % mt.group(2)
        ncpus = l["nr_cpus"]
    else:
        tot = d["totals"]
        where = "CPUs of the session"
        ncpus = None
    i, head = table_at(lines, "CPU", ["Node", "Hitm"])
    if i is None:
        bad.append("%s: no CPU table" % where)
        return
    # '?': the samples of an old ABI carry no CPU
    cpu_rows = table_rows(lines, i, r"^(\d+|\?)$")
    if ncpus is not None:
        want(where, "CPUs (not '?')", str(sum(1 for r in cpu_rows if r.split()[0] != "?")), ncpus)
    names = ("Hitm", "Lcl", "Rmt", "Stores", "Loads", "Peer", "Records")
    if tot is not None:
        expect = {"Hitm": tot["tot_hitm"], "Lcl": tot["lcl_hitm"], "Rmt": tot["rmt_hitm"], "Stores": tot["store"],
                  "Loads": total_loads(tot), "Peer": tot["tot_peer"], "Records": total_loads(tot) + stores(tot)}
    if len(cpu_rows) != int(mt.group(3)):
        # only a page of a long list: the sums cannot be checked
        bad.append("%s: %d of %s CPUs on the screen" % (where, len(cpu_rows), mt.group(3)))
        return
    sums = collections.Counter()
    pernode = collections.defaultdict(collections.Counter)
    for r in cpu_rows:
        c = cells(head, r)
        for k in names:
            if k in c:
                if not re.match(r"^\d+$", c[k]):
                    bad.append("%s: CPU %s %s is %r (scaled: cannot sum)" % (where, c["CPU"], k, c[k]))
                    continue
                sums[k] += int(c[k])
                pernode[c["Node"]][k] += int(c[k])
    for k in names:
        if k in head_titles(head):
            want(where, "sum of " + k, str(sums[k]), expect[k])
    j, nhead = table_at(lines[i + 1:], "Node", ["Hitm"])
    if j is None:
        return
    for r in table_rows(lines[i + 1:], j, r"^\d+$"):
        c = cells(nhead, r)
        for k in names:
            if k in c:
                want("%s node %s" % (where, c["Node"]), k + " (sum of its CPUs)", c[k], pernode[c["Node"]][k], same_count)


def node_text(n):
    return "-" if n in ("", "-", "N/A") else n


def head_titles(head):
    return [t for _, _, t in head]


def main():
    cmd, screen, js = sys.argv[1:4]
    lines = open(screen, encoding="utf-8").read().splitlines()
    lines += [""] * (6 - len(lines)) if len(lines) < 6 else []
    d = json.load(open(js))
    {"lines": cmd_lines, "line": cmd_line, "cpus": cmd_cpus}[cmd](lines, d)
    for b in bad[:12]:
        print("# " + b)
    if len(bad) > 12:
        print("# ... %d more" % (len(bad) - 12))
    print("compared %d" % compared[0])
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
