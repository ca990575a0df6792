#!/usr/bin/env bash
# Lock waits in `c2ctui diff` / `report --diff`: two lock sessions with
# different contention (c2c-gen's lock-tracepoints scenario with other seeds
# and sample counts; as root also two real recordings of the contention
# workload, 2 vs 6 threads). The lock rows, matched by caller and type, must
# hold before and after exactly what `c2ctui locks` (perf lock contention's
# caller table, tests/e2e/locks_agree_perf.sh) gives for each session, rows
# of one caller and type summed; text, CSV and JSON must agree; and lock-only
# sessions must not produce the empty "0 -> 0" cache-line rows their slab
# lines used to give.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
T=locks_diff
gen=$C2C_BUILD/tools/c2c-gen W=$C2C_BUILD/workloads/contention
if [ ! -x "$C2CTUI" ] || [ ! -x "$gen" ]; then skip "$T" "c2ctui or c2c-gen is not built"; exit 0; fi
command -v python3 >/dev/null 2>&1 || { skip "$T" "python3 is not installed"; exit 0; }

# check_pair TAG BEFORE.db AFTER.db: every check on one diff.
check_pair() {
	local tag=$1 b=$2 a=$3 d=$E2E_TMP/$1 msg
	"$C2CTUI" diff "$b" "$a" >"$d.txt" 2>"$d.err" </dev/null
	check "$T: $tag: diff (no terminal) exits 0" test $? -eq 0
	"$C2CTUI" diff "$b" "$a" --format csv >"$d.csv" 2>>"$d.err" &&
	"$C2CTUI" diff "$b" "$a" --format json >"$d.json" 2>>"$d.err" &&
	"$C2CTUI" locks "$b" --format json >"$d.lb.json" 2>>"$d.err" &&
	"$C2CTUI" locks "$a" --format json >"$d.la.json" 2>>"$d.err" ||
		{ nok "$T: $tag: outputs" "$(head -1 "$d.err")"; return; }
	"$C2CTUI" report --diff "$b" "$a" --format text >"$d.rep.txt" 2>/dev/null
	if cmp -s "$d.txt" "$d.rep.txt"; then ok "$T: $tag: report --diff prints what diff prints"
	else nok "$T: $tag: report --diff prints what diff prints" "outputs differ"; fi

	for what in rows_equal_locks csv_equals_json text_equals_json no_empty_line_rows per_second; do
		if msg=$(python3 - "$what" "$d" <<'PY'
import csv, json, re, sys
what, d = sys.argv[1], sys.argv[2]
j = json.load(open(d + ".json"))
rows = {(r["caller"], r["kind"]): r for r in j["locks"]}
errs = []

def merged(path):
    # c2ctui locks' caller table, rows of one caller and type summed
    m = {}
    for r in json.load(open(path))["locks"]:
        k = (r["caller"], r["kind"])
        v = m.setdefault(k, {"contended": 0, "acquired": 0, "wait_total_ns": 0, "wait_max_ns": 0,
                             "wait_min_ns": None, "rows": 0})
        for f in ("contended", "acquired", "wait_total_ns"):
            v[f] += r[f]
        v["wait_max_ns"] = max(v["wait_max_ns"], r["wait_max_ns"])
        if r["acquired"]:
            v["wait_min_ns"] = r["wait_min_ns"] if v["wait_min_ns"] is None else min(v["wait_min_ns"], r["wait_min_ns"])
        v["rows"] += 1
    for v in m.values():
        v["avg_wait_ns"] = v["wait_total_ns"] // v["acquired"] if v["acquired"] else 0
    return m

if what == "rows_equal_locks":
    for side, path in (("before", d + ".lb.json"), ("after", d + ".la.json")):
        m = merged(path)
        mine = {k: r[side] for k, r in rows.items() if r[side] is not None}
        if set(mine) != set(m):
            errs.append(f"{side}: rows {sorted(set(mine) ^ set(m))[:3]} differ from c2ctui locks")
        for k in set(mine) & set(m):
            for f, v in m[k].items():
                if mine[k][f] != v:
                    errs.append(f"{side} {k} {f}: {mine[k][f]} vs c2ctui locks {v}")
        tot = sum(v["contended"] for v in m.values()), sum(v["wait_total_ns"] for v in m.values())
        if (j[side]["lock_waits"], j[side]["lock_wait_ns"]) != tot:
            errs.append(f"{side} totals {j[side]['lock_waits']}, {j[side]['lock_wait_ns']} vs {tot}")
    for k, r in rows.items():
        want = "matched" if r["before"] and r["after"] else "appeared" if r["after"] else "disappeared"
        if r["status"] != want:
            errs.append(f"{k}: status {r['status']}, want {want}")
    if any(c.startswith("0x") for c, _ in rows):
        errs.append("a row is keyed by lock address")
elif what == "csv_equals_json":
    lines = open(d + ".csv").read().splitlines()
    hdr = [i for i, l in enumerate(lines) if l.startswith("section,caller,kind,status,")]
    if len(hdr) != 1:
        errs.append(f"{len(hdr)} lock headers in the CSV")
    else:
        cols = next(csv.reader([lines[hdr[0]]]))
        got = [dict(zip(cols, r)) for r in csv.reader(lines[hdr[0] + 1:])]
        if len(got) != len(j["locks"]) or any(g["section"] != "lock" for g in got):
            errs.append(f"{len(got)} CSV lock rows, {len(j['locks'])} in JSON")
        for g, r in zip(got, j["locks"]):
            if (g["caller"], g["kind"], g["status"]) != (r["caller"], r["kind"], r["status"]):
                errs.append(f"CSV row {g['caller']} {g['kind']} vs JSON {r['caller']} {r['kind']}")
            for side in ("before", "after"):
                for f in ("contended", "acquired", "wait_total_ns", "wait_max_ns", "wait_min_ns", "avg_wait_ns"):
                    jv = "" if r[side] is None or r[side][f] is None else str(r[side][f])
                    if g[f"{side}_{f}"] != jv:
                        errs.append(f"{r['caller']} {side}_{f}: CSV {g[side + '_' + f]} JSON {jv}")
elif what == "text_equals_json":
    txt = open(d + ".txt").read().splitlines()
    try:
        h = next(i for i, l in enumerate(txt) if l.startswith("  Caller "))
    except StopIteration:
        h = None
        errs.append("no lock table in the text")
    if h is not None:
        got = txt[h + 1:h + 1 + len(j["locks"])]
        def num(v, ms=False):
            return "-" if v is None else (f"{v / 1e6:.3f}" if ms else str(v))
        for t, r in zip(got, j["locks"]):
            b, a = r["before"], r["after"]
            want = [r["caller"], r["kind"], r["status"],
                    f"{num(b and b['contended'])} -> {num(a and a['contended'])}",
                    f"{num(b and b['wait_total_ns'], True)} -> {num(a and a['wait_total_ns'], True)}",
                    f"{num(b and b['avg_wait_ns'], True)} -> {num(a and a['avg_wait_ns'], True)}",
                    f"{num(b and b['wait_max_ns'], True)} -> {num(a and a['wait_max_ns'], True)}"]
            if not t.startswith("  " + r["caller"] + " ") or any(w not in t for w in want):
                errs.append(f"text row '{t.strip()[:90]}' lacks one of {want}")
        if len(got) != len(j["locks"]) or (len(txt) > h + 1 + len(got) and txt[h + 1 + len(got)].strip()):
            errs.append("text has another number of lock rows than JSON")
        for side, lab in (("before", "Before:"), ("after", "After: ")):
            hl = next((l for l in txt if l.startswith(lab)), "")
            if f"  {j[side]['lock_waits']} lock waits  {j[side]['lock_wait_ns'] / 1e6:.3f} ms waiting" not in hl:
                errs.append(f"header '{hl}' lacks the session's lock totals")
elif what == "no_empty_line_rows":
    if j["lines"]:
        errs.append(f"{len(j['lines'])} line rows for lock-only sessions, e.g. {j['lines'][0]['key']}")
    if any(l.startswith("line,") for l in open(d + ".csv")):
        errs.append("CSV has line rows")
    txt = open(d + ".txt").read()
    if re.search(r"^  \S+ +addr +\S+ +0 -> 0", txt, re.M) or "none -> none" in txt:
        errs.append("text has an empty 0 -> 0 line row")
    if "Cache lines: no memory samples in either session" not in txt:
        errs.append("text does not say there are no memory samples")
elif what == "per_second":
    for r in j["locks"]:
        for side in ("before", "after"):
            v, s = r[side], j[side]["seconds"]
            if v is None:
                continue
            s = s if s > 0 else 1
            # seconds is printed with 3 decimals
            for n, f in (("contended", "contended_per_s"), ("wait_total_ns", "wait_ns_per_s")):
                lo, hi = v[n] / (s + 0.0005), v[n] / max(s - 0.0005, 1e-9)
                if not (lo * 0.999 - 0.01 <= v[f] <= hi * 1.001 + 0.01):
                    errs.append(f"{r['caller']} {side} {f} {v[f]} not {n} / {s} s")
print("; ".join(errs[:4]))
sys.exit(1 if errs else 0)
PY
		); then ok "$T: $tag: $what"; else nok "$T: $tag: $what" "$msg"; fi
	done
}

# Generated: other seeds and sizes give other waits on the same callers.
"$gen" --scenario lock-tracepoints -o "$E2E_TMP/g1.data" --seed 3 >/dev/null 2>"$E2E_TMP/gen.err" &&
"$gen" --scenario lock-tracepoints -o "$E2E_TMP/g2.data" --seed 11 --samples 3000 >/dev/null 2>>"$E2E_TMP/gen.err" &&
"$C2CTUI" import -q "$E2E_TMP/g1.data" -o "$E2E_TMP/g1.db" 2>>"$E2E_TMP/gen.err" &&
"$C2CTUI" import -q "$E2E_TMP/g2.data" -o "$E2E_TMP/g2.db" 2>>"$E2E_TMP/gen.err" ||
	{ nok "$T: gen setup" "$(head -1 "$E2E_TMP/gen.err")"; exit 0; }
check_pair gen "$E2E_TMP/g1.db" "$E2E_TMP/g2.db"

# Lock names: a data symbol covering the lock names it (offset from its
# start); a function just below a lock does not, nor does a bare map name
# ("[kernel.kallsyms]", whose "offset" used to be the address printed as a
# huge unsigned number). Addresses are hex strings, offsets small integers.
printf '%s\n' 'ffff888104a3c000 t fake_func' 'ffff888104a3c100 T fake_func2' \
	'ffff88810b2e1800 d fake_mutex_holder' 'ffff88810b2e2000 D fake_next' 'ffffffff81000000 T _text' \
	>"$E2E_TMP/kallsyms"
if "$C2CTUI" import -q "$E2E_TMP/g1.data" -o "$E2E_TMP/gk.db" --kallsyms "$E2E_TMP/kallsyms" 2>/dev/null &&
   "$C2CTUI" report "$E2E_TMP/gk.db" --format json >"$E2E_TMP/gk.json" 2>/dev/null &&
   "$C2CTUI" report "$E2E_TMP/g1.db" --format json >"$E2E_TMP/g1.json" 2>/dev/null &&
   "$C2CTUI" locks "$E2E_TMP/gk.db" -l >"$E2E_TMP/gk.l.txt" 2>/dev/null; then
	if msg=$(python3 - "$E2E_TMP/gk.json" "$E2E_TMP/g1.json" "$E2E_TMP/gk.l.txt" <<'PY'
import json, sys
k = {l["address"]: l for l in json.load(open(sys.argv[1]))["locks"]}
plain = json.load(open(sys.argv[2]))["locks"]
errs = []
m = k.get("0xffff88810b2e1840")
if not m or (m["symbol"], m["symbol_offset"]) != ("fake_mutex_holder", 0x40):
    errs.append(f"mutex lock named {m and (m['symbol'], m['symbol_offset'])}, want fake_mutex_holder+0x40")
r = k.get("0xffff888104a3c0a8")
if not r or r["symbol"] is not None or r["symbol_offset"] is not None:
    errs.append(f"lock after a function named {r and r['symbol']}")
for l in list(k.values()) + plain:
    if not (l["address"].startswith("0x") and l["line"].startswith("0x")):
        errs.append("address not a hex string")
    for f, v in l.items():
        if isinstance(v, int) and not 0 <= v < 1 << 40:
            errs.append(f"{f} = {v}")
if any(l["symbol"] is not None for l in plain):
    errs.append("a lock without kallsyms has a symbol")
txt = open(sys.argv[3]).read()
if "ffff88810b2e1840   fake_mutex_holder (mutex)" not in txt or "ffff888104a3c0a8    (rwsem)" not in txt:
    errs.append("locks -l names: " + " | ".join(txt.splitlines()[2:4]))
print("; ".join(errs[:4]))
sys.exit(1 if errs else 0)
PY
	); then ok "$T: lock names from data symbols only"; else nok "$T: lock names from data symbols only" "$msg"; fi
else
	nok "$T: lock names from data symbols only" "import with -k or report failed"
fi

# Memory-only sessions have no lock section (and keep their line rows).
"$gen" --scenario false-sharing -o "$E2E_TMP/fs.data" >/dev/null 2>&1 &&
"$C2CTUI" import -q "$E2E_TMP/fs.data" -o "$E2E_TMP/fs.db" 2>/dev/null &&
"$C2CTUI" diff "$E2E_TMP/fs.db" "$E2E_TMP/fs.db" --format json >"$E2E_TMP/fs.json" 2>/dev/null &&
"$C2CTUI" diff "$E2E_TMP/fs.db" "$E2E_TMP/fs.db" --format text >"$E2E_TMP/fs.txt" 2>/dev/null
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["lines"] and d["locks"] == [] else 1)' "$E2E_TMP/fs.json" &&
   ! grep -q "Lock waits" "$E2E_TMP/fs.txt" && grep -q "^Cache lines (matched" "$E2E_TMP/fs.txt"; then
	ok "$T: memory sessions: lines only, no lock section"
else
	nok "$T: memory sessions: lines only, no lock section" "$(head -c 200 "$E2E_TMP/fs.json")"
fi

# Real: the contention workload's mmap mode (mmap_lock rwsem, page table
# and LRU spinlocks), 2 vs 6 threads, 2 s each (1 s let the 2-thread run of
# a loaded machine miss the callers the 6-thread one has).
if [ "$(id -u)" != 0 ]; then skip "$T: real" "needs root to record lock tracepoints"; exit 0; fi
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
if [ ! -d /sys/kernel/tracing/events/lock/contention_begin ]; then
	skip "$T: real" "kernel has no lock:contention_begin (Linux < 5.19 or tracefs missing)"; exit 0
fi
command -v perf >/dev/null 2>&1 || { skip "$T: real" "perf is not installed"; exit 0; }
[ -x "$W" ] || { skip "$T: real" "workload not built ($W)"; exit 0; }
for t in 2 6; do
	if ! perf record -q -e lock:contention_begin,lock:contention_end -g -o "$E2E_TMP/r$t.data" -- \
		"$W" -m mmap -t $t -d 2 -q >"$E2E_TMP/rec.out" 2>&1; then
		skip "$T: real" "perf record failed: $(head -1 "$E2E_TMP/rec.out")"; exit 0
	fi
	"$C2CTUI" import -q "$E2E_TMP/r$t.data" -o "$E2E_TMP/r$t.db" 2>"$E2E_TMP/imp.err" ||
		{ nok "$T: real import" "$(head -1 "$E2E_TMP/imp.err")"; exit 0; }
done
check_pair real "$E2E_TMP/r2.db" "$E2E_TMP/r6.db"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if sum(r["status"] == "matched" for r in d["locks"]) >= 2 else 1)' "$E2E_TMP/real.json"; then
	ok "$T: real: callers matched across the runs"
else
	nok "$T: real: callers matched across the runs" "fewer than 2 matched rows"
fi
