#!/usr/bin/env bash
# The hot lines' column sets (v cycles HITM, Stores, Load sources, Peer,
# Records/PA): each set's screen at 80x24 and 200x50 on a generated session
# (c2c-gen mixed) and on a real recording, compared with
# tests/tui/expected/cs_*.txt, and every number each screen shows checked
# against `c2ctui report --format json` for the same line (by address).
# Rewrite the expected screens with TUI_UPDATE=1 after checking them by eye.
source "$(dirname "$0")/lib.sh"
source "$C2C_TOP/tests/tui/harness.sh"

T=tui_colsets
command -v tmux >/dev/null || { skip "$T" "tmux is not installed"; exit 0; }
command -v python3 >/dev/null || { skip "$T" "python3 is not installed"; exit 0; }
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/c2c-gen

# A private copy: a rebuild while the test runs must not swap the binary.
cp "$C2CTUI" "$E2E_TMP/c2ctui" && C2CTUI=$E2E_TMP/c2ctui
W=$E2E_TMP/work
mkdir -p "$W"
cd "$W" || exit 1

SETS="hitm stores loadsrc peer records"

# numbers NAME JSON: every number column of the dumped screen equals the
# report's for the line of that row (abbreviated counts to their rounding).
numbers() {
  python3 - "$E2E_TMP/screen.txt" "$2" <<'EOF'
import json, re, sys
screen = open(sys.argv[1], encoding="utf-8").read().split("\n")
lines, seen = {}, set()
for l in json.load(open(sys.argv[2]))["lines"]:
    # one address split by line identity (cpumode, mapping) is ambiguous: skipped
    if l["address"] in seen:
        lines.pop(l["address"], None)
    else:
        lines[l["address"]] = l
    seen.add(l["address"])
key = {"Hitm": "tot", "Lcl": "lcl", "Rmt": "rmt", "Loads": "loads", "Stores": "stores",
       "Records": "records", "PA cnt": "pa_cnt", "Node": "node", "L1Hit": "st_l1hit",
       "L1Miss": "st_l1miss", "N/A": "st_na", "FB": "ld_fbhit", "L1": "ld_l1hit", "L2": "ld_l2hit",
       "LclHit": "ld_lclhit", "LclHitm": "ld_lclhitm", "RmtHit": "ld_rmthit", "RmtHitm": "ld_rmthitm",
       "DramLcl": "dram_lcl", "DramRmt": "dram_rmt", "Peer": "stats.tot_peer",
       "LclPeer": "stats.lcl_peer", "RmtPeer": "stats.rmt_peer", "Share": "costly_pct"}
head = screen[4]
# right-aligned titles end where their cells end
cols = []
for m in re.finditer(r"(PA cnt|N/A|[A-Za-z0-9]+)[\u25bc\u25b2]?", head):
    t = m.group(1)
    if t in key:
        cols.append((t, m.end()))
def value(line, k):
    v = line
    for part in k.split("."):
        v = v[part]
    return v
def same(shown, want):
    if isinstance(want, str):
        return shown == want
    if shown == "" and want == 0:
        return True        # no share of nothing: the cell stays empty
    if shown.endswith("%"):
        return abs(float(shown[:-1]) - want) < 0.006
    m = re.fullmatch(r"([0-9.]+)([kMGTPE]?)", shown)
    if not m:
        return False
    if not m.group(2):
        return int(m.group(1)) == want
    scale = 1000 ** ("kMGTPE".index(m.group(2)) + 1)
    return abs(want / scale - float(m.group(1))) <= (0.05 if "." in m.group(1) else 0.5)
bad = checked = 0
for row in screen[5:-1]:
    f = row.split()
    if len(f) < 2 or not f[1].startswith("0x"):
        continue
    line = lines.get(f[1])
    if line is None:
        continue           # listed by the explorer only (below perf's 0.1% rule)
    for t, end in cols:
        start = max(row.rfind(" ", 0, end - 1), 0)
        shown = row[start:end].strip()
        want = value(line, key[t])
        checked += 1
        if not same(shown, want):
            bad += 1
            print("#   %s %s: screen %r, report %r" % (f[1], t, shown, want))
print("checked %d" % checked)
sys.exit(1 if bad or not checked else 0)
EOF
}

# session NAME DB COLS ROWS [all]: each set's screen and numbers; all: every
# line (a, and report --show-all), for recordings without shared lines.
session() {
  local name=$1 db=$2 c=$3 r=$4 all=${5:-} n
  "$C2CTUI" report "$db" ${all:+--show-all} --format json >"$name.json" 2>/dev/null ||
    { nok "$T: $name: report" "report failed"; return; }
  tui_start "$c" "$r" -- "$C2CTUI" open "$db" || { nok "$T: $name ${c}x$r" "no first screen"; tui_stop; return; }
  [ -z "$all" ] || tui_key a
  for n in $SETS; do
    [ "$n" = hitm ] || tui_key v
    if tui_expect "cs_${name}_${n}_${c}x$r"; then ok "$T: $name ${c}x$r $n screen"; else nok "$T: $name ${c}x$r $n screen" "differs"; fi
    tui_screen >"$E2E_TMP/screen.txt"
    if out=$(numbers "$n" "$name.json"); then
      ok "$T: $name ${c}x$r $n: numbers equal the report's (${out##*checked })"
    else
      nok "$T: $name ${c}x$r $n: numbers equal the report's" "differ"; echo "$out" | head -20
    fi
  done
  tui_key V
  if tui_poll _screen_has "[Peer]"; then ok "$T: $name ${c}x$r V goes back"; else nok "$T: $name ${c}x$r V goes back" "no Peer set"; fi
  tui_quit
  tui_stop
}

# sorted_by TITLE KEY JSON: the dumped screen's title says it is sorted by
# TITLE, descending, and the report's KEY of its rows' lines never increases.
sorted_by() {
  python3 - "$E2E_TMP/screen.txt" "$1" "$2" "$3" <<'EOF'
import json, sys
screen = open(sys.argv[1], encoding="utf-8").read().split("\n")
title, key = sys.argv[2], sys.argv[3]
lines = {}
for l in json.load(open(sys.argv[4]))["lines"]:
    lines.setdefault(l["address"], []).append(l[key])
if "(sort: %s desc)" % title not in screen[3]:
    print("# not sorted by %s: %s" % (title, screen[3])); sys.exit(1)
vals = []
for row in screen[5:-1]:
    f = row.split()
    if len(f) > 1 and f[1].startswith("0x") and len(lines.get(f[1], [])) == 1:
        vals.append(lines[f[1]][0])
ok = len(vals) > 2 and all(a >= b for a, b in zip(vals, vals[1:]))
share = [lines[a][0] for a in sorted((a for a in lines if len(lines[a]) == 1),
                                     key=lambda a: -next(l for l in json.load(open(sys.argv[4]))["lines"]
                                                         if l["address"] == a)["costly_pct"])]
print("%d rows%s: %s" % (len(vals), "" if vals != share[:len(vals)] else " (also the Share order)", vals[:8]))
sys.exit(0 if ok else 1)
EOF
}

# Every set's number columns sort in the store (perf's counters): the
# screen's order is the report's numbers' order.
sorts() {
  local db=$1 json=$2 all=${3:-} out
  tui_start 200 50 -- "$C2CTUI" open "$db" || { nok "$T: sorts" "no first screen"; tui_stop; return; }
  [ -z "$all" ] || tui_key a
  tui_key v && tui_key s Right Right Right Enter     # Stores: Share, Stores, L1Hit, L1Miss
  tui_poll _screen_has "sort: L1Miss desc" && tui_screen >"$E2E_TMP/screen.txt"
  if out=$(sorted_by L1Miss st_l1miss "$json"); then ok "$T: $db: sort by L1Miss ($out)"; else nok "$T: $db: sort by L1Miss" "$out"; fi
  tui_key v && tui_key s Right Right Right Right Right Enter   # Load sources: Share, FB, L1, L2, LclHit, LclHitm
  tui_poll _screen_has "sort: LclHitm desc" && tui_screen >"$E2E_TMP/screen.txt"
  if out=$(sorted_by LclHitm ld_lclhitm "$json"); then ok "$T: $db: sort by LclHitm ($out)"; else nok "$T: $db: sort by LclHitm" "$out"; fi
  tui_key v && tui_key v && tui_key s Right Enter    # Records/PA: Share, Records
  tui_poll _screen_has "sort: Records desc" && tui_screen >"$E2E_TMP/screen.txt"
  if out=$(sorted_by Records records "$json"); then ok "$T: $db: sort by Records ($out)"; else nok "$T: $db: sort by Records" "$out"; fi
  tui_quit
  tui_stop
}

if [ -x "$GEN" ] && "$GEN" --scenario mixed -o mixed.data >/dev/null 2>&1 &&
   "$C2CTUI" import mixed.data -o mixed.db >/dev/null 2>&1; then
  session mixed mixed.db 80 24
  session mixed mixed.db 200 50
  sorts mixed.db mixed.json
else
  nok "$T: setup" "cannot generate and import a session"
fi

# A real recording (AMD IBS): no line is shared, so all lines.
fx=$C2C_FIXTURES/real/amd-zen2-ibs-c2c.data
if [ -f "$fx" ] && "$C2CTUI" import "$fx" -o zen2.db >/dev/null 2>&1; then
  session zen2 zen2.db 80 24 all
  session zen2 zen2.db 200 50 all
  sorts zen2.db zen2.json all
else
  skip "$T: real recording" "$fx absent or not importable"
fi
