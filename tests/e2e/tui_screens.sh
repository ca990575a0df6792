#!/usr/bin/env bash
# Screen tests of `c2ctui open`: the real program in a real terminal (tmux),
# driven by keys, each screen compared with tests/tui/expected/NAME.txt
# (the screen text plus the explorer's state line: view, cursor, scroll).
# Rewrite the expected screens with TUI_UPDATE=1 after checking them by eye.
source "$(dirname "$0")/lib.sh"
source "$C2C_TOP/tests/tui/harness.sh"

T=tui_screens
command -v tmux >/dev/null || { skip "$T" "tmux is not installed"; exit 0; }
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/c2c-gen
[ -x "$GEN" ] || { skip "$T" "no $GEN"; exit 0; }

# A private copy: a rebuild while the test runs must not swap the binary.
cp "$C2CTUI" "$E2E_TMP/c2ctui" && C2CTUI=$E2E_TMP/c2ctui
W=$E2E_TMP/work
mkdir -p "$W"
cd "$W" || exit 1
"$GEN" --scenario false-sharing -o fs.data >/dev/null 2>&1 &&
  "$C2CTUI" import fs.data -o s.db >/dev/null 2>&1 || { nok "$T: setup" "cannot generate and import a session"; exit 0; }

# expect NAME: screen plus state equal the expected file.
expect() {
  local name=$1 exp=$TUI_EXPECTED/$1.txt
  if [ "${TUI_UPDATE:-0}" = 1 ]; then
    sleep 0.3
    { tui_screen; echo "== $(sed 's/^keys=[0-9]* //' "$TUI_STATE")"; } >"$exp"
    echo "# wrote $exp"; ok "$T: $name"; return
  fi
  local want_state got
  want_state=$(sed -n 's/^== //p' "$exp")
  sed '/^== /d' "$exp" >"$E2E_TMP/exp_screen.txt"
  if tui_poll _screen_is "$E2E_TMP/exp_screen.txt" &&
     got=$(sed 's/^keys=[0-9]* //' "$TUI_STATE") && [ "$got" = "$want_state" ]; then
    ok "$T: $name"
  else
    nok "$T: $name" "screen or state differs (state: ${got:-?}, want: $want_state)"
    diff "$E2E_TMP/exp_screen.txt" "$E2E_TMP/screen.txt" | sed 's/^/#   /' | head -30
  fi
}

# run_step NAME CMD...: a harness step that must succeed.
step() { local n=$1; shift; "$@" || { nok "$T: $n" "harness step failed: $*"; tui_screen | sed 's/^/#   /'; tui_stop; return 1; }; }

# --- navigation, drill-down and back --------------------------------------
if step start tui_start 80 24 -- "$C2CTUI" open s.db; then
  expect lines_80x24
  step down tui_key Down j && expect lines_cursor2
  step enter tui_key Enter && expect line_row2
  step pane tui_key Tab Down && expect line_sites
  step site tui_key Enter && expect site_80x24
  step back1 tui_key Escape && expect line_sites_back
  step back2 tui_key BSpace && expect lines_back
  step words tui_key Enter w && expect line_words
  step back3 tui_key Left && expect lines_back
  tui_quit
  if [ "$TUI_STATUS" = 0 ]; then ok "$T: q exits 0"; else nok "$T: q exits 0" "status ${TUI_STATUS:-?}"; fi
  if tui_restored; then ok "$T: terminal restored after q"; else nok "$T: terminal restored after q" "tty modes or alternate screen left changed"; fi
  tui_stop
fi

# --- sort, search, filter, display mode ------------------------------------
if step start2 tui_start 80 24 -- "$C2CTUI" open s.db; then
  step sort tui_key s && expect sort_pick
  step sort-move tui_key Left Enter && expect sort_addr
  step sort-rev tui_key r && expect sort_addr_desc
  step search tui_key / && step search-type tui_type 0x7f3a40010045 && step search-enter tui_key Enter && expect search_addr
  step search-next tui_key / && step search-type2 tui_type anon && step search-enter2 tui_key Enter n && expect search_next
  step filter tui_key f && step filter-type tui_type cpu:8 && step filter-enter tui_key Enter && expect filter_cpu8
  step filter-bad tui_key f C-u && step filter-type2 tui_type cpu:x && step filter-enter2 tui_key Enter && expect filter_bad
  step unfilter tui_key F && expect unfiltered
  step cols-right tui_key '>' '>' && expect cols_scrolled
  step cols-left tui_key '<' '<' '<' && expect cols_back
  step mode tui_key d && expect mode_lcl
  step mode-peer tui_key d d && expect mode_peer
  step help tui_key '?' && expect help_80x24
  step help-end tui_key G && expect help_end   # the diff views' keys and the perf c2c notes
  step help-back tui_key Escape && tui_quit
  tui_stop
fi

# --- the filter prompt's pre-fill is replaced by typing; search matches what
# the screen shows (part of the data object or of the address) ---------------
if step start9 tui_start 80 24 -- "$C2CTUI" open s.db; then
  step refilter tui_key f && step refilter-type tui_type cpu:8 && step refilter-enter tui_key Enter &&
    step refilter2 tui_key f && step refilter-type2 tui_type node:1 && step refilter-enter2 tui_key Enter &&
    expect filter_replaced
  step search-obj tui_key F / && step search-obj-type tui_type anon+0x10080 && step search-obj-enter tui_key Enter &&
    expect search_object
  step search-sub tui_key / && step search-sub-type tui_type a40010040 && step search-sub-enter tui_key Enter &&
    expect search_addr_part
  step filter-empty tui_key f && step filter-empty-type tui_type cpu:99 && step filter-empty-enter tui_key Enter &&
    expect filter_empty_hint
  tui_quit; tui_stop
fi

# --- mouse: click selects, a click on a heading sorts, double click opens, wheel ---
if step start8 tui_start 80 24 -- "$C2CTUI" open s.db; then
  step click tui_click 10 7 && expect mouse_click_row2
  step click-head tui_click 6 4 && expect mouse_sort_addr
  step dbl-click tui_click 10 6 && step dbl-click2 tui_click 10 6 && expect mouse_open_row1
  step wheel tui_key Escape '?' && step wheel2 tui_mouse 65 10 15 && step wheel3 tui_mouse 65 10 15 && expect mouse_wheel_help
  step wheel-up tui_mouse 64 10 15 && expect mouse_wheel_help_up
  tui_quit; tui_stop
fi

# --- CPUs, nodes and the timeline; their selections filter every view ---------
if step start3 tui_start 100 30 -- "$C2CTUI" open s.db; then
  step cpus tui_key c && expect cpus_session
  step nodes tui_key Tab Down Enter && expect filter_node1
  step line-cpus tui_key F Enter c && expect cpus_line
  step timeline tui_key Escape Escape t && expect timeline_session
  step window tui_key Space Down Down Down Enter && expect window_set
  step window-clear tui_key T && expect window_cleared
  tui_quit
  tui_stop
fi

# --- resize 80x24 -> 200x60 -> 80x24: no garbage, same screen as before -----
if step start4 tui_start 80 24 TUI_NOPIN=1 -- "$C2CTUI" open s.db; then
  expect lines_80x24
  step resize-big tui_resize 200 60 && expect lines_200x60
  step enter-big tui_key Enter && expect line_200x60
  step resize-small tui_resize 80 24 && expect line_80x24
  step back-small tui_key Escape && expect lines_80x24
  step resize-tiny tui_resize 30 6 && step resize-back tui_resize 80 24 && expect lines_80x24
  tui_quit
  if [ "$TUI_STATUS" = 0 ]; then ok "$T: resize then quit"; else nok "$T: resize then quit" "status ${TUI_STATUS:-?}"; fi
  tui_stop
fi

# --- LANG=C (ASCII bars and markers) and NO_COLOR ------------------------------
if step start5 tui_start 80 24 LANG=C -- "$C2CTUI" open s.db; then
  expect lines_ascii
  tui_quit; tui_stop
fi
if step start6 tui_start 80 24 NO_COLOR=1 -- "$C2CTUI" open s.db; then
  expect lines_80x24
  if tui_screen_color | grep -qE $'\e\\[(3[0-7]|4[0-7]|38;|48;)'; then
    nok "$T: NO_COLOR has no colours" "colour escape sequences on screen"
  else
    ok "$T: NO_COLOR has no colours"
  fi
  tui_quit; tui_stop
fi
if step start7 tui_start 80 24 -- "$C2CTUI" open s.db; then
  if tui_screen_color | grep -qE $'\e\\[(3[0-7]|4[0-7])m'; then ok "$T: colours by default"; else nok "$T: colours by default" "no colour on screen"; fi
  tui_quit; tui_stop
fi
