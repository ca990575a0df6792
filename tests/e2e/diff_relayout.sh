#!/usr/bin/env bash
# `c2ctui diff` across a struct re-layout (issue 10 point 4): lines matched
# by the members they hold, not by offset. tests/types/relayout.c built
# twice with -g: before, struct group's write-hot load_avg shares line 0
# with parent/rt_se (read by two other threads: local and remote HITM);
# after (-DRELAYOUT) it sits alone on line 2, and group_account skips the
# store when nothing changed; struct counters' two lines merge into one
# after (a regression: reads gets HITM), in a global and in element 1 of a
# global array. Recorded by
# tests/tools/relayout_perfdata at the binaries' real accessing
# instructions and object addresses, imported by `c2ctui import`.
# Checks: split / merged / matched lines with the members that left or
# joined, per-member offset and line before -> after with `moved`, member
# HITM equal to each session's own `report --layout`, latency and line
# verdicts, the by-function section, CSV and JSON fields, and the diff view
# (tmux) with the group's lines and the moved marks.
source "$(dirname "$0")/lib.sh"
T=diff_relayout
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/relayout_perfdata
[ -x "$GEN" ] || { skip "$T" "no $GEN"; exit 0; }
command -v cc >/dev/null || { skip "$T" "no C compiler to build tests/types/relayout.c"; exit 0; }

W=$E2E_TMP/w
mkdir -p "$W" && cd "$W" || exit 1
if ! relayout_sessions "$GEN"; then
  nok "$T: setup" "cannot build, record or import the sessions"; exit 0
fi

has() { if grep -qF -- "$3" "$2"; then ok "$T: $1"; else nok "$T: $1" "no '$3' in output"; sed 's/^/#   /' "$2" | head -40; fi; }
# row NAME FILE PREFIX TEXT...: the first line starting with PREFIX holds every TEXT
row() {
  local n=$1 f=$2 p=$3 line; shift 3
  line=$(grep -F -- "$p" "$f" | head -1)
  for t in "$@"; do
    case "$line" in *"$t"*) ;; *) nok "$T: $n" "row '$p' lacks '$t': $line"; return;; esac
  done
  ok "$T: $n"
}

"$C2CTUI" report --diff before.db after.db >diff.txt 2>err.txt
check "$T: report --diff exits 0" test $? -eq 0
has "header before" diff.txt "Before: before.db  200 samples  0.99 s  60 HITM"
has "header after" diff.txt "After:  after.db  200 samples  1.99 s  30 HITM"
# the cache line section only: no line "disappeared" or "appeared"
sed -n '/^Cache lines/,/^$/p' diff.txt >lines.txt
if grep -qE 'disappeared|appeared' lines.txt; then
  nok "$T: no line disappeared/appeared" "$(grep -E 'disappeared|appeared' lines.txt)"
else ok "$T: no line disappeared/appeared"; fi
row "line 0 split by members" lines.txt "  struct group+0 -> struct group+0, struct group+0x80 " \
  "members" "split" "60 -> 0 (-60)" "40 -> 40 (+0)" "300.0 -> 30.0" "false -> no contention"
row "split: before part" lines.txt "      before struct group+0 " "60 HITM (30 lcl, 30 rmt)" "false" "members: load_avg parent rt_se"
row "split: after part keeps the readers" lines.txt "      after  struct group+0 " "0 HITM" "60 loads" "members: parent rt_se"
row "split: after part holds load_avg" lines.txt "      after  struct group+0x80 " "40 stores" "members: load_avg"
has "load_avg named as leaving" lines.txt "      left:   load_avg -> struct group+0x80"
row "two lines merged" lines.txt "  stats_ctr+0, stats_ctr+0x40 -> stats_ctr+0 " "members" "merged" "0 -> 20 (+20)" "no contention -> false"
has "writes named as joining" lines.txt "      joined: writes <- stats_ctr+0x40"
# an element of a global array keeps its index: ctr_table[1]'s two lines
# (before: +0x80, +0xc0) merge into one (after: +0)
row "array element matched by index" lines.txt "  ctr_table+0x80, ctr_table+0xc0 -> ctr_table+0 " "members" "merged" "0 -> 10 (+10)"
row "array element: before part" lines.txt "      before ctr_table+0xc0 " "10 stores" "members: ctr_table[1].writes"
has "array element: ctr_table[1].writes joined" lines.txt "      joined: ctr_table[1].writes <- ctr_table+0xc0"
row "line 1 matched by members" lines.txt "  struct group+0x40 " "members" "matched" "30 -> 10 (-20)"

sed -n '/^Layout of struct group/,/^$/p' diff.txt >group.txt
sed -n '/^Layout of struct counters/,/^$/p' diff.txt >counters.txt
row "load_avg moved to line 2" group.txt "  load_avg " "24    8     0 |    128    8     2" "40 -> 40 (+0)" "FS -> ok" "false -> no contention" "moved 0 -> 2"
row "parent lost its local HITM" group.txt "  parent " "0    8     0 |      0    8     0" "30 -> 0 (-30)" "30/0 -> 0/0" "300.0 -> 30.0" "false -> no contention"
row "rt_se lost its remote HITM" group.txt "  rt_se " "30 -> 0 (-30)" "0/30 -> 0/0" "300.0 -> 30.0"
row "nr_running: fewer stores" group.txt "  nr_running " "64    8     1 |     64    8     1" "30 -> 10 (-20)" "0 -> 20 (+20)"
if grep -E '^  (parent|rt_se|nr_running|runtime|shares) ' group.txt | grep -q moved; then
  nok "$T: members that stayed are not marked moved" "$(grep moved group.txt)"
else ok "$T: members that stayed are not marked moved"; fi
row "writes moved into reads' line" counters.txt "  writes " "64    8     1 |      8    8     0" "ok -> FS" "moved 1 -> 0"
# 20 in stats_ctr and 10 in ctr_table[1]: a type's layout adds up every object of the type
row "reads gained local HITM" counters.txt "  reads " "0 -> 30 (+30)" "0/0 -> 30/0" "30.0 -> 300.0" "no contention -> false"

sed -n '/^Code by function/,/^$/p' diff.txt >funcs.txt
row "by function: group_account stores fewer" funcs.txt "  group_account " "matched" "1 -> 2" "0 -> 20 (+20)" "30 -> 10 (-20)" "0 -> 0 (+0)"
row "by function: walk_parent HITM gone" funcs.txt "  walk_parent " "30 -> 0 (-30)" "30/0 -> 0/0" "300.0 -> 30.0"
row "by function: read_rt_se remote HITM gone" funcs.txt "  read_rt_se " "30 -> 0 (-30)" "0/30 -> 0/0"
row "by function: counters_read HITM appeared" funcs.txt "  counters_read " "0 -> 20 (+20)" "0/0 -> 20/0"
row "by function: update_load_avg unchanged" funcs.txt "  update_load_avg " "40 -> 40 (+0)"

"$C2CTUI" diff before.db after.db --format text >diff2.txt 2>/dev/null
if cmp -s diff.txt diff2.txt; then ok "$T: diff --format text prints what report --diff prints"; else nok "$T: diff --format text prints what report --diff prints" "outputs differ"; fi

# Member HITM (local/remote), loads and stores in the diff are each
# session's own `report --layout` numbers.
"$C2CTUI" report --diff before.db after.db --format json >diff.json 2>/dev/null
for s in before after; do
  for t in group counters; do "$C2CTUI" report $s.db --layout $t >layout_${s}_$t.txt 2>/dev/null; done
done
if python3 - diff.json <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
bad = []
for side in ("before", "after"):
    for t in ("group", "counters"):
        rows = {}
        for line in open(f"layout_{side}_{t}.txt"):
            m = re.match(r"^  \d+(?::\d+)?\s+\d+\s+(\S+)\s+.*?\s(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+\d+", line)
            if m:
                rows[m.group(1)] = tuple(int(x) for x in m.group(2, 3, 4, 5))
        members = [x for x in d["members"] if x["type"] == "struct " + t]
        if not rows or len(rows) != len(members):
            bad.append(f"{side} {t}: {len(rows)} layout rows, {len(members)} diff rows")
        for x in members:
            v = x[side]
            got = (v["loads"], v["stores"], v["lcl_hitm"], v["rmt_hitm"])
            if rows.get(x["member"]) != got:
                bad.append(f"{side} {t}.{x['member']}: report {rows.get(x['member'])} diff {got}")
if bad:
    print("\n".join("# " + b for b in bad))
    sys.exit(1)
PY
then ok "$T: member numbers equal each session's report --layout"; else nok "$T: member numbers equal each session's report --layout"; fi

if python3 - diff.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
l = {x["key"]: x for x in d["lines"]}
s = l["struct group+0"]
assert s["status"] == "split" and s["match"] == "members", s["status"]
assert s["key_after"] == "struct group+0, struct group+0x80"
assert s["members_left"] == "load_avg -> struct group+0x80" and s["members_joined"] == ""
assert [(p["session"], p["key"], p["members"]) for p in s["parts"]] == [
    ("before", "struct group+0", "load_avg parent rt_se"),
    ("after", "struct group+0", "parent rt_se"),
    ("after", "struct group+0x80", "load_avg")], s["parts"]
assert s["before"]["lcl_hitm"] == 30 and s["before"]["rmt_hitm"] == 30 and s["after"]["hitm"] == 0
m = l["stats_ctr+0, stats_ctr+0x40"]
assert m["status"] == "merged" and m["key_after"] == "stats_ctr+0"
assert m["members_joined"] == "writes <- stats_ctr+0x40"
assert l["struct group+0x40"]["status"] == "matched"
mem = {(x["type"], x["member"]): x for x in d["members"]}
la = mem[("struct group", "load_avg")]
assert la["moved"] and la["offset_before"] == 24 and la["offset_after"] == 128
assert la["line_before"] == 0 and la["line_after"] == 2
assert la["before"]["verdict"] == "false" and la["after"]["verdict"] == "none"
p = mem[("struct group", "parent")]
assert not p["moved"] and p["before"]["lcl_hitm"] == 30 and p["after"]["hitm"] == 0
assert p["before"]["load_lat"] == 300.0 and p["after"]["load_lat"] == 30.0
assert mem[("struct counters", "writes")]["moved"]
f = {x["function"]: x for x in d["functions"]}
g = f["group_account"]
assert g["before"]["stores"] == 30 and g["after"]["stores"] == 10 and g["after"]["loads"] == 20
assert g["sites_before"] == 1 and g["sites_after"] == 2
assert f["walk_parent"]["before"]["hitm"] == 30 and f["walk_parent"]["after"]["hitm"] == 0
assert "verdict" not in g["before"]
PY
then ok "$T: json"; else nok "$T: json" "unexpected JSON"; fi

"$C2CTUI" report --diff before.db after.db --format csv >diff.csv 2>/dev/null
if python3 - diff.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = next(r for r in rows if r[0] == "section")
recs = [dict(zip(hdr, r)) for r in rows if r[0] in ("line", "line_part", "member", "function")]
assert all(len(r) == len(hdr) for r in rows if r[0] in ("line", "line_part", "member", "function"))
line = next(r for r in recs if r["section"] == "line" and r["key"] == "struct group+0")
assert line["status"] == "split" and line["match"] == "members"
assert line["key_after"] == "struct group+0, struct group+0x80"
assert line["members_left"] == "load_avg -> struct group+0x80"
assert line["before_hitm"] == "60" and line["after_hitm"] == "0"
parts = [(r["match"], r["key"], r["members"]) for r in recs if r["section"] == "line_part" and r["key_after"] == "struct group+0"]
assert parts == [("before", "struct group+0", "load_avg parent rt_se"), ("after", "struct group+0", "parent rt_se"),
                 ("after", "struct group+0x80", "load_avg")], parts
la = next(r for r in recs if r["section"] == "member" and r["key"] == "struct group.load_avg")
assert (la["off_before"], la["off_after"], la["line_before"], la["line_after"], la["moved"]) == ("24", "128", "0", "2", "1")
assert (la["verdict_before"], la["verdict_after"]) == ("false", "none")
pa = next(r for r in recs if r["section"] == "member" and r["key"] == "struct group.parent")
assert pa["moved"] == "0" and pa["before_lcl_hitm"] == "30" and pa["after_hitm"] == "0"
g = next(r for r in recs if r["section"] == "function" and r["key"] == "group_account")
assert g["before_stores"] == "30" and g["after_stores"] == "10"
PY
then ok "$T: csv"; else nok "$T: csv" "unexpected CSV"; fi

# The diff view: the split group's lines under it, the moved marks.
if command -v tmux >/dev/null; then
  source "$C2C_TOP/tests/tui/harness.sh"
  expect() { if tui_expect "$1"; then ok "$T: $1"; else nok "$T: $1" "screen differs"; fi; }
  "$C2CTUI" report before.db --types >/dev/null 2>&1
  if tui_start 120 32 -- "$C2CTUI" diff before.db after.db; then
    expect diff_relayout_lines
    if tui_screen | grep -qE '^  a struct group\+0x80 +load_avg '; then ok "$T: tui: load_avg's new line listed"; else
      nok "$T: tui: load_avg's new line listed"; tui_screen | sed 's/^/#   /'; fi
    tui_key Enter
    expect diff_relayout_layout
    if tui_screen | grep -E '^load_avg ' | grep -qF 'moved 0>2' &&
       ! tui_screen | grep -E '^(parent|rt_se|nr_running) ' | grep -q moved; then
      ok "$T: tui: load_avg marked moved, the others not"; else
      nok "$T: tui: load_avg marked moved, the others not"; tui_screen | sed 's/^/#   /'; fi
    tui_key Escape
    tui_key / && tui_type stats_ctr && tui_key Enter && tui_key Enter
    if tui_wait_text "Layout of struct counters" && tui_screen | grep -E '^writes ' | grep -qF 'moved 1>0'; then
      ok "$T: tui: writes marked moved"; else nok "$T: tui: writes marked moved"; tui_screen | sed 's/^/#   /'; fi
    # C: code by function; group_account's stores 30 -> 10 from the same function
    tui_key Escape && tui_key C
    expect diff_relayout_functions
    if tui_screen | grep -E '^group_account ' | grep -qE '30>10 +-20 '; then
      ok "$T: tui: group_account's stores fall 30>10"; else
      nok "$T: tui: group_account's stores fall 30>10"; tui_screen | sed 's/^/#   /'; fi
    tui_quit
    if [ "$TUI_STATUS" = 0 ]; then ok "$T: q exits 0"; else nok "$T: q exits 0" "status ${TUI_STATUS:-?}"; fi
    tui_stop
  else
    nok "$T: tui start"
  fi
else
  skip "$T: tui" "tmux is not installed"
fi
