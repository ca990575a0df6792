#!/usr/bin/env bash
# The line view's Pareto rows carry perf's columns: the remote-HITM and
# local-HITM average cycles (perf's "rmt hitm" / "lcl hitm"), the load
# cycles, records and CPU count. For generated recordings (c2c-gen) and the
# real fixtures, the rows on the screen (240 columns, so every column fits)
# of each of the first lines that have Pareto rows equal the rows of perf c2c
# report --stdio's block for that line (parsed by compare_c2c.py), as a
# multiset of (offset, cycles, records, CPUs). The real fixtures have no
# shared lines: perf --show-all and the explorer's `a` list all of them.
source "$(dirname "$0")/lib.sh"
source "$C2C_TOP/tests/tui/harness.sh"

T=tui_line_pareto
command -v tmux >/dev/null || { skip "$T" "tmux is not installed"; exit 0; }
command -v perf >/dev/null || { skip "$T" "perf is not installed"; exit 0; }
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/c2c-gen
cp "$C2CTUI" "$E2E_TMP/c2ctui" && C2CTUI=$E2E_TMP/c2ctui
W=$E2E_TMP/work
mkdir -p "$W" && cd "$W" || exit 1
PY=$C2C_TOP/tests/e2e

inputs=()
for sc in mixed false-sharing true-sharing classes; do
  [ -x "$GEN" ] && "$GEN" --scenario $sc -o $sc.data >/dev/null 2>&1 && inputs+=("$W/$sc.data")
done
for f in "$C2C_FIXTURES"/real/*.data; do [ -f "$f" ] && inputs+=("$f"); done
[ ${#inputs[@]} -gt 0 ] || { skip "$T" "no recording (no c2c-gen, no fixtures)"; exit 0; }

# blocks PERF [KEYS]: "index:address" of the first 3 Pareto blocks with rows
blocks() {
  python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import compare_c2c
b = compare_c2c.parse_perf(open(sys.argv[2]).read(), sys.argv[3])["pareto"]
kept = lambda r: any(r[k] != "0.00%" for k in ("rmt_pct", "lcl_pct", "st_l1hit_pct", "st_l1miss_pct", "st_na_pct"))
print(" ".join(["%d:%s" % (i, x["header"]["address"]) for i, x in enumerate(b) if any(map(kept, x["rows"]))][:3]))' "$PY" "$1" "${2:-iaddr}"
}

# compare PERF SCREEN BLOCK [KEYS]: KEYS as given to perf -c (default iaddr)
compare() {
  python3 - "$PY" "$1" "$2" "$3" "${4:-iaddr}" <<'PYEOF'
import collections, sys
sys.path.insert(0, sys.argv[1])
import compare_c2c
block = compare_c2c.parse_perf(open(sys.argv[2]).read(), sys.argv[5])["pareto"][int(sys.argv[4])]
# --show-all also keeps rows without HITM or stores, which the line view
# leaves out (perf's rule without --show-all)
perf = [r for r in block["rows"]
        if any(r[k] != "0.00%" for k in ("rmt_pct", "lcl_pct", "st_l1hit_pct", "st_l1miss_pct", "st_na_pct"))]
want = collections.Counter((int(r["offset"], 16), r["cycles_rmt"], r["cycles_lcl"], r["cycles_load"],
                            int(r["records"]), int(r["cpu_cnt"])) for r in perf)
text = open(sys.argv[3]).read()
lines = text.splitlines()
addr = block["header"]["address"].lower()
if addr not in text.lower():
    print("# the line view is not perf's line %s" % addr); sys.exit(1)
head = next(i for i, l in enumerate(lines) if l.split()[:2] == ["Off", "Hitm"] and "RmtCyc" in l)
cols = lines[head].split()
if cols[-5:] != ["CPUs", "LdLat", "RmtCyc", "LclCyc", "Records"]:
    print("# columns: %s" % cols); sys.exit(1)
got = collections.Counter()
for l in lines[head + 1:]:
    f = l.split()
    if not f or not f[0].startswith("0x"):
        break
    got[(int(f[0], 16), f[-3], f[-2], f[-4], int(f[-1]), int(f[-5]))] += 1
if not got:
    print("# no Pareto rows on the screen"); sys.exit(1)
extra = got - want
if extra:
    print("# on the screen, not in perf's block: %s" % list(extra)[:3])
    print("# perf: %s" % list(want)[:5]); sys.exit(1)
if sum(got.values()) < min(len(perf), 5):
    print("# %d rows on the screen, perf has %d" % (sum(got.values()), len(perf))); sys.exit(1)
PYEOF
}

for f in "${inputs[@]}"; do
  name=$(basename "$f" .data) all=()
  case $f in "$C2C_FIXTURES"/*) all=(--show-all) ;; esac
  if ! perf c2c report --stdio --no-source "${all[@]}" -i "$f" >"$name.perf" 2>"$name.err"; then
    skip "$T: $name" "perf c2c report failed: $(tail -1 "$name.err")"; continue
  fi
  idx=$(blocks "$name.perf")
  [ -n "$idx" ] || { skip "$T: $name" "perf lists no Pareto rows"; continue; }
  "$C2CTUI" import "$f" -o "$name.db" >/dev/null 2>&1 || { nok "$T: $name" "import failed"; continue; }
  tui_start 240 60 -- "$C2CTUI" open "$name.db" || { nok "$T: $name" "the explorer did not start"; continue; }
  [ ${#all[@]} -gt 0 ] && tui_key a
  bad=0 n=0
  for ia in $idx; do
    i=${ia%%:*}
    # the line by its address (the explorer's order of all lines is not perf's)
    if ! { tui_key Home && tui_type "/${ia#*:}" && tui_key Enter Enter && tui_wait_text "RmtCyc"; }; then
      bad=1; echo "# no line view for line ${ia#*:}"; break
    fi
    tui_screen >"$name.$i.screen"
    compare "$name.perf" "$name.$i.screen" "$i" || { bad=1; echo "# (line $i)"; }
    n=$((n + 1))
    tui_key Escape
  done
  tui_quit
  tui_stop
  if [ $bad = 0 ]; then ok "$T: $name: Pareto cycles, records and CPUs of $n lines equal perf's"
  else nok "$T: $name: Pareto cycles, records and CPUs equal perf's" "see above"; fi
done

# g groups the code sites as perf c2c report -c does: pid,iaddr (one g),
# tid,iaddr (two), pid,tid,iaddr (three); each group's rows equal perf's
# block for the same keys on a generated recording with several threads.
if [ -f "$W/mixed.data" ] && [ -f mixed.db ]; then
  n=0 bad=0
  for keys in pid,iaddr tid,iaddr pid,tid,iaddr; do
    n=$((n + 1))
    perf c2c report --stdio --no-source -c "$keys" -i "$W/mixed.data" >"mixed-$keys.perf" 2>/dev/null ||
      { skip "$T: g $keys" "perf c2c report -c $keys failed"; continue; }
    ia=$(blocks "mixed-$keys.perf" "$keys" | cut -d' ' -f1)
    [ -n "$ia" ] || { skip "$T: g $keys" "perf lists no Pareto rows"; continue; }
    tui_start 240 60 -- "$C2CTUI" open mixed.db || { nok "$T: g $keys" "the explorer did not start"; continue; }
    tui_key Home && tui_type "/${ia#*:}" && tui_key Enter Enter && tui_wait_text "RmtCyc"
    for _ in $(seq 1 $n); do tui_key g; done
    if tui_wait_text "code sites by $keys"; then
      tui_screen >"mixed-$keys.screen"
      if compare "mixed-$keys.perf" "mixed-$keys.screen" "${ia%%:*}" "$keys"; then ok "$T: g groups the code sites by $keys as perf -c $keys"
      else nok "$T: g groups the code sites by $keys as perf -c $keys" "see above"; fi
    else
      nok "$T: g $keys" "the title does not say the grouping"; tui_screen | sed 's/^/#   /' | head -8
    fi
    tui_quit
    tui_stop
  done
fi
