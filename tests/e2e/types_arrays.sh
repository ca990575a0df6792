#!/usr/bin/env bash
# Arrays of structs and members across a cache line, on a real program:
# tests/types/arrays.c built with -g, recorded by arrays_perfdata at its real
# accessing instructions (a global `struct slot_table table[16]` and a heap
# array), imported. Checks:
#  - report --types lists the element type, struct slot_table, with its size
#    and the elements touched as objects (not `struct slot_table[16]`, size 0);
#  - members are named after the element: table[3].stats.avg, table[3].fd
#    (anonymous union), table[3].hi (anonymous struct), table[3].slots[2];
#  - report --layout slot_table equals `pahole -E -C slot_table` for every
#    row's offset and size, the holes (and tail padding), the size and the
#    cache line boundary comments;
#  - slots (int[4] at 56..71) is split at the line 1 boundary, and each part's
#    loads and HITM equal a recount from `perf script` of the same file; only
#    the part on the written line is a victim.
source "$(dirname "$0")/lib.sh"
T=types_arrays
GEN=$C2C_BUILD/tools/arrays_perfdata
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
[ -x "$GEN" ] || { skip "$T" "no $GEN (build first)"; exit 0; }
command -v cc >/dev/null || { skip "$T" "no C compiler to build tests/types/arrays.c"; exit 0; }
cd "$E2E_TMP" || exit 1

if ! { cc -g -O2 -o arrays "$C2C_TOP/tests/types/arrays.c" &&
       "$GEN" "$PWD/arrays" arr.data > gen.out &&
       "$C2CTUI" import arr.data -o arr.db >/dev/null 2>&1; }; then
  nok "$T: setup" "cannot build, record or import tests/types/arrays.c"; exit 0
fi
TABLE=$(awk '$1 == "table" { print $2 }' gen.out)
HEAP=$(awk '$1 == "heap" { print $2 }' gen.out)
ESIZE=$(awk '$1 == "size" { print $2 }' gen.out)

# --- the element type -------------------------------------------------------
"$C2CTUI" report arr.db --types > types.txt 2>&1
if grep -Eq '^struct slot_table +192 +3 +95 ' types.txt && ! grep -q 'slot_table\[' types.txt; then
  ok "$T: --types lists struct slot_table (size 192, 3 elements, 95 samples)"
else
  nok "$T: --types lists struct slot_table (size 192, 3 elements, 95 samples)" "$(cat types.txt)"
fi

# --- member names -----------------------------------------------------------
"$C2CTUI" report arr.db --verdicts > verdicts.txt 2>&1
missing=
for m in 'writes table[3].fd' 'table[3].stats.avg' 'table[3].hi' 'writes table[3].counter' \
         'hurt table[3].slots[2]' 'writes table[5].fd' 'table[5].stats.load_avg'; do
  grep -qF "$m" verdicts.txt || missing="$missing '$m'"
done
if [ -z "$missing" ]; then ok "$T: members named after the element (table[3].stats.avg, anonymous members)"
else nok "$T: members named after the element (table[3].stats.avg, anonymous members)" "missing$missing in $(cat verdicts.txt)"; fi

# --- the element's layout against pahole ----------------------------------
"$C2CTUI" report arr.db --layout slot_table > layout.txt 2>&1
if ! grep -q '^struct slot_table {' layout.txt; then
  nok "$T: --layout slot_table" "$(head -5 layout.txt)"
elif ! command -v pahole >/dev/null; then
  skip "$T: layout equals pahole" "pahole is not installed (scripts/deps.sh installs dwarves)"
elif ! pahole -E -C slot_table arrays > pahole.txt 2>&1 || ! grep -q 'size: 192' pahole.txt; then
  nok "$T: layout equals pahole" "pahole failed: $(head -3 pahole.txt)"
else
  python3 - layout.txt pahole.txt > cmp.txt <<'PY'
import re, sys
ours = open(sys.argv[1]).read().split('\n')
pah = open(sys.argv[2]).read().split('\n')
end = next(i for i, l in enumerate(ours) if l.startswith('};'))
rows, holes, bounds, size = [], [], [], None
for l in ours[:end]:
    m = re.match(r'^struct slot_table \{ +/\* size (\d+),', l)
    if m: size = int(m.group(1))
    m = re.match(r'^  (\d+) +(\d+) +\S.*?  +(\S.*?) {2,}', l)
    if m and '(part)' not in l: rows.append((int(m.group(1)), int(m.group(2))))
    m = re.search(r'XXX (\d+) byte hole', l)
    if m: holes.append(int(m.group(1)))
    if 'cacheline' in l and 'boundary' in l: bounds.append(l.strip())
prow, phole, pbounds, psize, pad = [], [], [], None, 0
for l in pah:
    m = re.search(r'/\* +(\d+) +(\d+) \*/\s*$', l)
    if m: prow.append((int(m.group(1)), int(m.group(2))))
    m = re.search(r'XXX (\d+) bytes hole', l)
    if m: phole.append(int(m.group(1)))
    if 'cacheline' in l and 'boundary' in l: pbounds.append(l.strip())
    m = re.search(r'size: (\d+),', l)
    if m: psize = int(m.group(1))
    m = re.search(r'padding: (\d+)', l)
    if m: pad = int(m.group(1))
ok = True
def cmp(what, a, b):
    global ok
    if a != b:
        ok = False
        print('%s: ours %s, pahole %s' % (what, a, b))
cmp('size', size, psize)
cmp('rows (offset, size)', sorted(rows), sorted(prow))
cmp('holes then tail padding', holes, phole + ([pad] if pad else []))
cmp('boundary comments', bounds, pbounds)
if not bounds: ok = False; print('no boundary comment at all')
print('same' if ok else 'differs')
PY
  if [ "$(tail -1 cmp.txt)" = same ]; then ok "$T: layout equals pahole -E (offsets, sizes, holes, padding, cacheline boundaries)"
  else nok "$T: layout equals pahole -E (offsets, sizes, holes, padding, cacheline boundaries)" "$(cat cmp.txt)"; fi
fi

# --- the straddling member, part by part, against perf script --------------
if ! command -v perf >/dev/null; then
  skip "$T: slots split, counts from perf script" "perf is not installed"
elif ! perf script -i arr.data -F event,addr,data_src > script.txt 2>script.err; then
  nok "$T: slots split, counts from perf script" "perf script failed: $(head -3 script.err)"
else
  # slots is at 56..71 of each element: 56..63 on line 0, 64..71 on line 1
  python3 - script.txt "$TABLE" "$HEAP" "$ESIZE" > recount.txt <<'PY'
import sys
lines = open(sys.argv[1]).read().split('\n')
table, heap, esize = int(sys.argv[2], 16), int(sys.argv[3], 16), int(sys.argv[4])
count = {0: [0, 0], 1: [0, 0]}   # line -> [loads, local HITM]
for l in lines:
    f = l.split()
    if len(f) < 3 or 'mem-loads' not in f[0]:
        continue
    addr = int(f[1], 16)
    for base, n in ((table, 16), (heap, 8)):
        if base <= addr < base + n * esize:
            off = (addr - base) % esize
            if 56 <= off < 72:
                part = 0 if off < 64 else 1
                count[part][0] += 1
                if 'HitM' in l and 'Remote' not in l:
                    count[part][1] += 1
for k in (0, 1):
    print(k, count[k][0], count[k][1])
PY
  p0=$(awk '$1 == 0 { print $2, $3 }' recount.txt)
  p1=$(awk '$1 == 1 { print $2, $3 }' recount.txt)
  # ours: "  OFF SIZE slots @ line N (part) LOADS STORES LHITM RHITM ... [victim]"
  o0=$(awk '$3 == "slots" && $4 == "@" && $6 == 0 { print $8, $10 }' layout.txt)
  o1=$(awk '$3 == "slots" && $4 == "@" && $6 == 1 { print $8, $10 }' layout.txt)
  g0=$(awk '$3 == "slots" && $4 == "@" && $6 == 0 { print $1, $2 }' layout.txt)
  g1=$(awk '$3 == "slots" && $4 == "@" && $6 == 1 { print $1, $2 }' layout.txt)
  tot=$(awk '$3 == "slots" && $4 == "int[4]" { print $5 }' layout.txt)
  if [ "$g0" = "56 8" ] && [ "$g1" = "64 8" ] && [ -n "$p0" ] && [ "$o0" = "$p0" ] && [ "$o1" = "$p1" ] &&
     [ "${p0% *}" -gt 0 ] && [ "${p1% *}" -gt 0 ] && [ "$tot" = "$(( ${p0% *} + ${p1% *} ))" ]; then
    ok "$T: slots split at 64, each part's loads/HITM as perf script counts them (line 0: $p0, line 1: $p1)"
  else
    nok "$T: slots split at 64, each part's loads/HITM as perf script counts them" \
      "perf script: line 0 '$p0' line 1 '$p1'; ours: '$g0' '$o0', '$g1' '$o1', total '$tot'"
  fi
  # the writes of counter (line 1) hurt the line-1 part only; the evidence
  # counts that part's loads
  if grep -E '^  64 +8 +slots @ line 1 .*victim$' layout.txt >/dev/null &&
     ! grep -E '^  56 +8 +slots @ line 0 .*victim$' layout.txt >/dev/null &&
     grep -q "line 1 shared with slots (${p1% *} loads)" layout.txt; then
    ok "$T: only the part of slots on the written line is a victim"
  else
    nok "$T: only the part of slots on the written line is a victim" "$(grep -E 'slots|counter' layout.txt)"
  fi
fi

# --- the explorer: L on a line of table[3] opens the element's layout -------
if ! command -v tmux >/dev/null; then
  skip "$T: layout view" "tmux is not installed"
else
  source "$C2C_TOP/tests/tui/harness.sh"
  # a private copy: a rebuild while the test runs must not swap the binary
  cp "$C2CTUI" "$E2E_TMP/c2ctui" && C2CTUI=$E2E_TMP/c2ctui
  if tui_start 120 40 -- "$C2CTUI" open arr.db && tui_key Enter && tui_key L; then
    # the parts of slots under it, pahole's comment after them (expected
    # screen: tests/tui/expected/ta_layout.txt; TUI_UPDATE=1 rewrites it)
    if tui_expect ta_layout; then ok "$T: layout view of struct slot_table, slots split by line"
    else nok "$T: layout view of struct slot_table, slots split by line" "screen differs"; fi
    tui_quit
    tui_stop
  else
    nok "$T: layout view" "harness step failed"; tui_screen | sed 's/^/#   /'; tui_stop
  fi
fi
