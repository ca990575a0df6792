#!/usr/bin/env bash
# One number everywhere (issue 13): every number the explorer shows equals
# the one `c2ctui report --format json` prints. For c2c-gen's scenarios and
# the real fixtures, one explorer per session (240x60, so every column fits)
# walked with keys: the hot lines in each display mode (d) and with all
# lines (a) against `report -d MODE` / `report --show-all -d MODE`, with
# the summary header; the first lines' header, offsets and code sites
# (Enter), and the line's CPUs and nodes (c); the session's CPUs and nodes
# (c: node rows are their CPUs' sums, the rows sum to the report's totals,
# as report has no per-CPU table); a lock-only session's lines (l) against
# the report's locks. tests/tui/screen_numbers.py reads the tables by their
# headings and compares each shown number as the screen prints it.
source "$(dirname "$0")/lib.sh"
source "$C2C_TOP/tests/tui/harness.sh"

T=tui_vs_report
command -v tmux >/dev/null || { skip "$T" "tmux is not installed"; exit 0; }
command -v python3 >/dev/null || { skip "$T" "python3 is not installed"; exit 0; }
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/c2c-gen
NUM=$C2C_TOP/tests/tui/screen_numbers.py
W=$E2E_TMP/work
mkdir -p "$W" && cd "$W" || exit 1

inputs=()
for sc in false-sharing true-sharing mixed classes lock-tracepoints; do
  [ -x "$GEN" ] && "$GEN" --scenario $sc -o $sc.data >/dev/null 2>&1 && inputs+=("$W/$sc.data")
done
for f in "$C2C_FIXTURES"/real/*.data; do [ -f "$f" ] && inputs+=("$f"); done
[ ${#inputs[@]} -gt 0 ] || { skip "$T" "no recording (no c2c-gen, no fixtures)"; exit 0; }

TOTAL=0
# compare NAME WHAT CMD SCREEN JSON: one check line for one screen
compare() {
  local name=$1 what=$2 out
  tui_screen >"$4"
  out=$(python3 "$NUM" "$3" "$4" "$5")
  local st=$? n
  n=$(printf '%s\n' "$out" | sed -n 's/^compared //p')
  TOTAL=$((TOTAL + ${n:-0}))
  if [ $st = 0 ]; then
    ok "$T: $name: $what (${n:-0} numbers)"
  else
    nok "$T: $name: $what" "numbers differ from the report's"
    printf '%s\n' "$out" | grep '^#'
  fi
}

MODES="tot lcl rmt peer"
for f in "${inputs[@]}"; do
  name=$(basename "$f" .data)
  "$C2CTUI" import "$f" -o "$name.db" >/dev/null 2>&1 || { nok "$T: $name" "import failed"; continue; }
  fail=0
  for m in $MODES; do
    "$C2CTUI" report "$name.db" -d $m --format json >"$name.$m.json" 2>"$name.err" &&
      "$C2CTUI" report "$name.db" -d $m --show-all --format json >"$name.$m.all.json" 2>>"$name.err" || fail=1
  done
  [ $fail = 0 ] || { nok "$T: $name" "report failed: $(tail -1 "$name.err")"; continue; }
  tui_start 240 60 -- "$C2CTUI" open "$name.db" || { nok "$T: $name" "the explorer did not start"; continue; }

  if [ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["samples"] > 0 and d["totals"]["nr_entries"] == 0 and d["lock_waits"] > 0)' "$name.tot.json" 2>/dev/null)" = True ] ||
     tui_screen | sed -n 4p | grep -q '^Locks'; then
    # lock waits alone: the explorer opens on the lock list (tui_locks_list.sh
    # checks it); l lists the lines holding the locks
    if tui_key l; then compare "$name" "lines holding locks (l)" lines "$name.lines.screen" "$name.tot.json"
    else nok "$T: $name: lines holding locks" "l did not answer"; fi
    tui_quit; tui_stop
    continue
  fi

  for all in "" .all; do
    [ -n "$all" ] && { tui_key a || { nok "$T: $name: a" "no answer"; break; }; }
    for m in $MODES; do
      compare "$name" "${all:+all }lines, mode $m" lines "$name.$m$all.screen" "$name.$m$all.json"
      tui_key d || { nok "$T: $name: d" "no answer"; break 2; }
    done
  done
  # back in mode tot with all lines: the first two lines, then the session's CPUs
  nl=$(python3 -c 'import json,sys; print(min(2, len(json.load(open(sys.argv[1]))["lines"])))' "$name.tot.all.json")
  for ((i = 0; i < nl; i++)); do
    keys=(Home)
    for ((j = 0; j < i; j++)); do keys+=(Down); done
    if tui_key "${keys[@]}" Enter && tui_wait_text "Cache line 0x"; then
      compare "$name" "line $i: header, offsets, code sites" line "$name.line$i.screen" "$name.tot.all.json"
      if tui_key c && tui_wait_text "CPUs and nodes of line"; then
        compare "$name" "line $i: CPUs and nodes" cpus "$name.line$i.cpus.screen" "$name.tot.all.json"
        tui_key Escape
      else nok "$T: $name: line $i CPUs" "c did not open them"; fi
      tui_key Escape
    else
      nok "$T: $name: line $i" "Enter did not open it"
    fi
  done
  if tui_key c && tui_wait_text "CPUs and nodes of the session"; then
    compare "$name" "session CPUs and nodes" cpus "$name.cpus.screen" "$name.tot.all.json"
  else nok "$T: $name: CPUs" "c did not open them"; fi
  tui_quit
  tui_stop
done
echo "# $TOTAL numbers compared"
