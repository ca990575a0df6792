#!/usr/bin/env bash
# Screen tests of `c2ctui diff`: the matched lines of a before/after pair of
# real sessions (tests/types/conn.c, see diff_report.sh), Enter on the heap
# line opens struct conn's layout before | after (members aligned by name:
# counter moved from line 0 to line 2, its readers' HITM gone), Enter and
# Tab open each build's own layout view with flags and the proposal.
# Expected screens: tests/tui/expected/diff_*.txt (TUI_UPDATE=1 rewrites).
source "$(dirname "$0")/lib.sh"
source "$C2C_TOP/tests/tui/harness.sh"
T=diff_tui
command -v tmux >/dev/null || { skip "$T" "tmux is not installed"; exit 0; }
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/conn_perfdata
[ -x "$GEN" ] || { skip "$T" "no $GEN"; exit 0; }
command -v cc >/dev/null || { skip "$T" "no C compiler to build tests/types/conn.c"; exit 0; }

W=$E2E_TMP/w
mkdir -p "$W" && cd "$W" || exit 1
if ! { conn_sessions "$GEN" &&
       "$C2CTUI" report before.db --types >/dev/null 2>&1 &&
       "$C2CTUI" report after.db --types >/dev/null 2>&1; }; then
  nok "$T: setup" "cannot build, record, import or attribute the sessions"; exit 0
fi

expect() { if tui_expect "$1"; then ok "$T: $1"; else nok "$T: $1" "screen differs"; fi; }
step() { local n=$1; shift; "$@" || { nok "$T: $n" "harness step failed: $*"; tui_screen | sed 's/^/#   /'; tui_stop; return 1; }; }

if step start tui_start 120 32 -- "$C2CTUI" diff before.db after.db; then
  expect diff_lines
  step layout tui_key Enter && expect diff_layout
  step before tui_key Enter && expect diff_layout_before
  step back tui_key Escape && step after tui_key Tab && expect diff_layout_after
  step back2 tui_key Escape Escape
  # C: code by function before > after, each number the one report --diff prints
  step funcs tui_key C && expect diff_functions
  funcs_ok=1 nfuncs=0
  while IFS='|' read -r fn st; do
    [ -n "$fn" ] || continue
    nfuncs=$((nfuncs + 1))
    tui_screen | grep -F -- "$fn" | grep -qF -- "$st" || { funcs_ok=0; echo "# $fn: stores $st not on the screen"; }
  done < <("$C2CTUI" report --diff before.db after.db |
           awk '/^Code by function/{on=1; getline; next} on && NF==0{on=0} on{
                  for (i = 1; i <= NF; i++) if ($i == "->") { n++; if (n == 3) { print $1 "|" $(i-1) ">" $(i+1); break } } n=0 }')
  [ "$nfuncs" -ge 5 ] || { funcs_ok=0; echo "# only $nfuncs functions read from report --diff"; }
  if [ "$funcs_ok" = 1 ]; then ok "$T: functions view equals report --diff's stores"; else
    nok "$T: functions view equals report --diff's stores" "see above"; fi
  step funcs-back tui_key Escape && step down tui_key Down && expect diff_lines_cursor
  step search tui_key / && step search-type tui_type global && step search-enter tui_key Enter &&
    expect diff_search_global
  # by hand: 'a' on the heap line lists the structs; Enter assigns one to
  # the line's object (saved in before.db) and the diff is recomputed: the
  # 10 stores through a pointer loaded from memory now count for counter.
  step home tui_key Home
  step assign tui_key a
  if tui_wait_text "Assign a type to the before object at 0x" && tui_wait_text "stats"; then
    ok "$T: struct list"; else nok "$T: struct list" "no picker"; tui_screen | sed 's/^/#   /'; fi
  step find tui_key / && step find-type tui_type conn && step find-enter tui_key Enter
  step pick tui_key Enter
  if tui_wait_text "conn assigned to the object at 0x" && grep -q "view=diff " "$TUI_STATE"; then
    ok "$T: assigned, back in the diff"; else nok "$T: assigned, back in the diff" "$(tui_state)"; fi
  step layout2 tui_key Enter
  if tui_wait_text "75>65"; then ok "$T: diff updated by the assignment"; else
    nok "$T: diff updated by the assignment" "counter stores not 75>65"; tui_screen | sed 's/^/#   /'; fi
  tui_quit
  if [ "$TUI_STATUS" = 0 ]; then ok "$T: q exits 0"; else nok "$T: q exits 0" "status ${TUI_STATUS:-?}"; fi
  if tui_restored; then ok "$T: terminal restored"; else nok "$T: terminal restored" "tty modes or alternate screen left changed"; fi
  tui_stop
fi
