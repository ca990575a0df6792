#!/usr/bin/env bash
# `c2ctui diff` / `report --diff` as text, CSV and JSON (lines matched by the
# members they hold: see also diff_relayout.sh), and `report --types
# / --layout / --verdicts`, on a before/after pair of real sessions:
# tests/types/conn.c built twice with -g (before: the write-hot counter in
# line 0 with the readers; after: counter alone in its own line), recorded
# by tests/tools/conn_perfdata with real instruction and object addresses,
# imported by `c2ctui import`.
source "$(dirname "$0")/lib.sh"
T=diff_report
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/conn_perfdata
[ -x "$GEN" ] || { skip "$T" "no $GEN"; exit 0; }
command -v cc >/dev/null || { skip "$T" "no C compiler to build tests/types/conn.c"; exit 0; }

W=$E2E_TMP/w
mkdir -p "$W" && cd "$W" || exit 1
if ! conn_sessions "$GEN"; then
  nok "$T: setup" "cannot build, record or import the sessions"; exit 0
fi

# has NAME FILE TEXT: FILE contains the fixed string TEXT
has() { if grep -qF -- "$3" "$2"; then ok "$T: $1"; else nok "$T: $1" "no '$3' in output"; sed 's/^/#   /' "$2" | head -40; fi; }
# re NAME FILE ERE: some line matches the extended regular expression
re() { if grep -qE -- "$3" "$2"; then ok "$T: $1"; else nok "$T: $1" "no line matches /$3/"; fi; }
# row NAME FILE PREFIX TEXT...: the line starting with PREFIX holds every TEXT
row() {
  local n=$1 f=$2 p=$3 line; shift 3
  line=$(grep -F -- "$p" "$f" | head -1)
  for t in "$@"; do
    case "$line" in *"$t"*) ;; *) nok "$T: $n" "row '$p' lacks '$t': $line"; return;; esac
  done
  ok "$T: $n"
}

"$C2CTUI" diff before.db after.db --format text >diff.txt 2>err.txt
check "diff text exits 0" test $? -eq 0
has "diff header before" diff.txt "Before: before.db  175 samples  0.99 s  90 HITM"
has "diff header after" diff.txt "After:  after.db  175 samples  1.99 s  0 HITM"
# lines are matched by the members they hold: the heap objects' line 0
# lost counter (to +0x80) and gained slots[2] (from +0x40); the global's
# line 0 is split (counter went to +0x80)
sed -n '/^Cache lines/,/^$/p' diff.txt >lines.txt
sed -n '/^Layout of struct conn/,/^$/p' diff.txt >layout_diff.txt
row "heap lines regrouped by members, HITM gone" lines.txt "  struct conn+0, struct conn+0x40, struct conn+0x18 -> struct conn+0, struct conn+0x80 " "members" "regrouped" "70 -> 0 (-70)" "70.4 -> 0.0" "false -> no contention"
row "global line split by members" lines.txt "  global_conn+0 -> global_conn+0, global_conn+0x80 " "members" "split" "20 -> 0 (-20)" "false -> no contention"
row "counter's new line listed" lines.txt "      after  struct conn+0x80 " "55 stores" "members: counter"
row "slots' old line listed" lines.txt "      before struct conn+0x40 " "10 loads" "members: slots[2]"
has "counter left line 0" lines.txt "      left:   counter -> struct conn+0x80"
has "slots joined line 0" lines.txt "      joined: slots[2] <- struct conn+0x40"
row "counter moved to its own line" layout_diff.txt "  counter " "24    8     0 |    128    8     2" "65 -> 65 (+0)" "FS -> ok" "moved 0 -> 2"
row "limit lost its HITM" layout_diff.txt "  limit " "16    8     0 |     16    8     0" "80 -> 0 (-80)" "ok -> ok" "80/0 -> 0/0"
row "nested member aligned by name" layout_diff.txt "    st.hits " "32    8     0 |     24    8     0" "10 -> 0 (-10)"

"$C2CTUI" report --diff before.db after.db >report.txt 2>/dev/null
if cmp -s diff.txt report.txt; then ok "$T: report --diff prints what diff prints"; else nok "$T: report --diff prints what diff prints" "outputs differ"; diff diff.txt report.txt | head | sed 's/^/#   /'; fi

"$C2CTUI" diff before.db after.db --format csv >diff.csv 2>/dev/null
has "csv header" diff.csv "section,key,match,status,verdict_before,verdict_after,before_records"
has "csv heap lines" diff.csv 'line,"struct conn+0, struct conn+0x40, struct conn+0x18",members,regrouped,false,none,135,80,55,70,70,0,70.402,400.000,120.00,135,80,55,0,0,0,0.000,0.000,120.00,,,,,,,,"struct conn+0, struct conn+0x80",,"counter -> struct conn+0x80","slots[2] <- struct conn+0x40"'
has "csv heap line part" diff.csv 'line_part,"struct conn+0",before,regrouped,false,,120,70,50,70,70,0,70.402,400.000,120.00,'
has "csv member" diff.csv 'member,"struct conn.counter",name,matched,false,none,65,0,65,0,0,0,0.000,0.000,0.00,65,0,65,0,0,0,0.000,0.000,0.00,24,128,0,2,1,0,1,,,,'

"$C2CTUI" report --diff before.db after.db --format json >diff.json 2>/dev/null
if python3 - diff.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
l = {x["key"]: x for x in d["lines"]}
m = {x["member"]: x for x in d["members"] if x["type"] == "struct conn"}
assert d["before"]["hitm"] == 90 and d["after"]["hitm"] == 0
h = l["struct conn+0, struct conn+0x40, struct conn+0x18"]
assert h["status"] == "regrouped" and h["before"]["hitm"] == 70 and h["after"]["hitm"] == 0
assert h["key_after"] == "struct conn+0, struct conn+0x80"
assert [p["key"] for p in h["parts"] if p["session"] == "after"] == ["struct conn+0", "struct conn+0x80"]
assert l["global_conn+0"]["status"] == "split"
assert m["counter"]["moved"] and not m["limit"]["moved"]
assert m["counter"]["offset_before"] == 24 and m["counter"]["offset_after"] == 128
assert m["counter"]["line_after"] == 2 and m["counter"]["fs_before"] and not m["counter"]["fs_after"]
PY
then ok "$T: json"; else nok "$T: json" "unexpected JSON"; head -c 600 diff.json | sed 's/^/#   /'; fi

"$C2CTUI" report before.db --types >types.txt 2>/dev/null
row "types: found by global/insn/stack" types.txt "struct conn" " 88 " "165" "40/120/5/0"
"$C2CTUI" report before.db --verdicts >verdicts.txt 2>/dev/null
row "verdicts: hottest line is false sharing" verdicts.txt "0x" " 70 " "false" "struct conn" "1t/1c" "3t/3c" "writes counter +24; hurt limit st.hits"
"$C2CTUI" report before.db --layout conn >layout.txt 2>/dev/null
row "layout: counter flagged" layout.txt "  24        8     counter" "FALSE-SHARING" "line 0 shared with limit, st.hits"
row "layout: limit is a victim" layout.txt "  16        8     limit" "victim"
has "layout: hole" layout.txt "/* XXX 2 byte hole */"
re "proposal moves counter" layout.txt '^  counter +24 +0 \| +128 +2  written by 2 threads \(65 stores\): own line$'
has "proposal names the annotation" layout.txt "  - move counter to the end (after config) and mark it ____cacheline_aligned_in_smp"
has "what-if on the proposal" layout.txt "HITM samples: 90 now, 0 would remain; contended lines: 2 -> 0"
"$C2CTUI" report before.db --layout conn --against ./conn_after >against.txt 2>/dev/null
has "what-if against the after build" against.txt "HITM samples: 90 now, 0 would remain"
re "after build's counter" against.txt '^  counter +24 +0 \| +128 +2 *$'

"$C2CTUI" diff before.db >/dev/null 2>&1
check "diff with one session is a usage error" test $? -eq 2
"$C2CTUI" diff before.db missing.db --format text >/dev/null 2>err.txt
st=$?
if [ $st -ne 0 ] && grep -q "missing.db" err.txt; then ok "$T: missing session named"; else nok "$T: missing session named" "status $st: $(cat err.txt)"; fi
"$C2CTUI" diff before.db after.db --format xml >/dev/null 2>err.txt
check "unknown format refused" test $? -eq 2
"$C2CTUI" report before.db --layout no_such_type >/dev/null 2>err.txt
if [ $? -ne 0 ] && grep -q "no_such_type" err.txt; then ok "$T: unknown type named"; else nok "$T: unknown type named" "$(cat err.txt)"; fi

# By hand: the heap object (the hottest line's object) is a struct conn; the
# 10 samples through a pointer loaded from memory now count too.
cp before.db assigned.db
heap=$("$C2CTUI" report assigned.db --verdicts 2>/dev/null | awk 'NR == 2 { print $1 }')
"$C2CTUI" report assigned.db --assign "struct conn@$heap" --types >assign.txt 2>&1
has "assign says so" assign.txt "assigned struct conn to the object at $heap"
row "assigned samples counted as manual" assign.txt "struct conn          " "175" "40/0/5/130"
"$C2CTUI" report assigned.db --layout conn >assigned_layout.txt 2>/dev/null
row "assignment kept in the session" assigned_layout.txt "  24        8     counter" "75 stores"
"$C2CTUI" report assigned.db --assign "struct nope@$heap" >/dev/null 2>err.txt
if [ $? -ne 0 ] && grep -q "nope" err.txt; then ok "$T: unknown type refused"; else nok "$T: unknown type refused" "$(cat err.txt)"; fi
