#!/usr/bin/env bash
# Screen tests of what `c2ctui open` shows beyond perf's table:
#  - locks: a session of lock waits alone (c2c-gen lock-tracepoints): `l`
#    from its lock list lists the lines holding the waited-on locks, by wait
#    time (address and lock columns only), and the line view
#    names each lock (kind from contention_begin's flags, offset, waits,
#    total and max wait) with the call sites the waits came from;
#  - types: in a line of a real session (tests/types/conn.c through
#    conn_perfdata) `L` attributes the session on first use and opens the
#    layout of struct conn; `a` lists the structs and assigns one by hand;
#  - verdicts: the hot lines' Verdict column, sorted with `s`.
# Expected screens: tests/tui/expected/lt_*.txt (TUI_UPDATE=1 rewrites).
source "$(dirname "$0")/lib.sh"
source "$C2C_TOP/tests/tui/harness.sh"
T=tui_locks_types
command -v tmux >/dev/null || { skip "$T" "tmux is not installed"; exit 0; }
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/c2c-gen
CONN=$C2C_BUILD/tools/conn_perfdata
[ -x "$GEN" ] || { skip "$T" "no $GEN"; exit 0; }

# A private copy: a rebuild while the test runs must not swap the binary.
cp "$C2CTUI" "$E2E_TMP/c2ctui" && C2CTUI=$E2E_TMP/c2ctui
W=$E2E_TMP/w
mkdir -p "$W" && cd "$W" || exit 1

expect() { if tui_expect "$1"; then ok "$T: $1"; else nok "$T: $1" "screen differs"; fi; }
step() { local n=$1; shift; "$@" || { nok "$T: $n" "harness step failed: $*"; tui_screen | sed 's/^/#   /'; tui_stop; return 1; }; }

# --- locks -----------------------------------------------------------------
if "$GEN" --scenario lock-tracepoints -o locks.data >/dev/null 2>&1 &&
   "$C2CTUI" import locks.data -o locks.db >/dev/null 2>&1; then
  if step start tui_start 100 24 -- "$C2CTUI" open locks.db; then
    # a lock-only session opens on its lock list (tui_locks_list.sh): l lists the lines
    step lines tui_key l && expect lt_lock_lines
    step enter tui_key Enter && expect lt_lock_line
    step next tui_key Escape Down Enter && expect lt_lock_line2
    tui_quit
    if [ "$TUI_STATUS" = 0 ]; then ok "$T: locks: q exits 0"; else nok "$T: locks: q exits 0" "status ${TUI_STATUS:-?}"; fi
    tui_stop
  fi
else
  nok "$T: locks setup" "cannot generate and import the lock-tracepoints session"
fi

# --- verdicts --------------------------------------------------------------
if "$GEN" --scenario false-sharing -o fs.data >/dev/null 2>&1 &&
   "$C2CTUI" import fs.data -o fs.db >/dev/null 2>&1; then
  if step start2 tui_start 100 24 -- "$C2CTUI" open fs.db; then
    step all tui_key a && expect lt_verdicts
    # s, then Right to the Verdict column (Share, Hitm, Lcl, Rmt, Verdict)
    step sort tui_key s Right Right Right Right Enter && expect lt_verdicts_sorted
    step rev tui_key r && expect lt_verdicts_reversed
    step search tui_key / && step search-type tui_type 0x7f3a40010045 && step search-enter tui_key Enter &&
      expect lt_verdicts_search
    tui_quit
    tui_stop
  fi
else
  nok "$T: verdicts setup" "cannot generate and import the false-sharing session"
fi

# --- layout and assignment from the explorer -------------------------------
if [ ! -x "$CONN" ]; then
  skip "$T: types" "no $CONN"
elif ! command -v cc >/dev/null; then
  skip "$T: types" "no C compiler to build tests/types/conn.c"
elif ! { cc -g -O2 -o conn_before "$C2C_TOP/tests/types/conn.c" &&
         "$CONN" "$W/conn_before" before.data --seconds 1 >/dev/null &&
         "$C2CTUI" import before.data -o before.db >/dev/null 2>&1; }; then
  nok "$T: types setup" "cannot build, record or import the conn session"
else
  cp before.db plain.db
  if step start3 tui_start 120 32 -- "$C2CTUI" open before.db; then
    # the heap line: no attribution yet, L makes one and opens the layout
    step line tui_key Enter && step layout tui_key L && expect lt_layout
    if grep -q "view=layout " "$TUI_STATE"; then ok "$T: L opens the layout view"; else
      nok "$T: L opens the layout view" "$(tui_state)"; fi
    step back tui_key Escape && step assign tui_key a
    # (the heap address differs between runs: no screen file)
    if tui_wait_text "Assign a type to the object at 0x" && tui_wait_text "stats"; then
      ok "$T: a lists the structs"; else nok "$T: a lists the structs" "no picker"; tui_screen | sed 's/^/#   /'; fi
    # conn by hand at the object's start: the manual answer wins, so the
    # 10 stores through a pointer loaded from memory now count for counter
    step find tui_key / && step find-type tui_type conn && step find-enter tui_key Enter
    step pick tui_key Enter
    if tui_wait_text "conn assigned to the object at 0x" && grep -q "view=line " "$TUI_STATE"; then
      ok "$T: assigned, back in the line"; else nok "$T: assigned, back in the line" "$(tui_state)"; fi
    step layout2 tui_key L && expect lt_layout_assigned
    # the help is longer than a page: find the line view's a (L is the row above)
    step help tui_key Escape '?' / && step help-find tui_type "Say which struct" && step help-find-enter tui_key Enter
    if tui_wait_text "Layout of the type the line's samples were attributed to" &&
       tui_wait_text "Say which struct the selected object is"; then
      ok "$T: help lists L and a"; else nok "$T: help lists L and a" "not in the help screen"; fi
    tui_quit
    tui_stop
  fi
  # the assignment (an edit the user asked for) was saved in the session;
  # the attribution (computed by reading) was not: the next read recomputes
  # it with the assignment
  if "$C2CTUI" report before.db --types 2>/dev/null | grep -Eq "^struct conn .* [0-9]+/[0-9]+/[0-9]+/[1-9][0-9]*$" &&
     [ "$(sqlite3 -readonly before.db "SELECT COUNT(*) FROM type_assign WHERE type_name IN ('conn', 'struct conn')")" -ge 1 ] &&
     [ "$(sqlite3 -readonly before.db "SELECT COUNT(*) FROM sqlite_master WHERE name = 'type_attr'")" = 0 ]; then
    ok "$T: assignment saved in the session, attribution not"; else nok "$T: assignment saved in the session, attribution not" \
      "$("$C2CTUI" report before.db --types 2>&1 | head -5)"; fi
  # a session file that cannot be written: L attributes for this run all the same
  chmod a-w plain.db
  if [ "$(id -u)" != 0 ] && step start4 tui_start 120 32 -- "$C2CTUI" open plain.db; then
    step line4 tui_key Enter && step layout4 tui_key L
    if tui_wait_text "plain.db" && grep -qE "view=(layout|line) " "$TUI_STATE"; then ok "$T: read-only session"; else
      nok "$T: read-only session" "$(tui_state)"; fi
    tui_quit
    tui_stop
  fi
fi
