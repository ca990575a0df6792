#!/usr/bin/env bash
# `c2ctui open` on the edges: a perf.data imported on the way in (generated,
# and a real recording from ../shared/fixtures), corrupt and foreign files
# (one clear line, non-zero exit, terminal untouched), signals (SIGTERM and
# a crash restore the terminal), no terminal at all, bad options.
source "$(dirname "$0")/lib.sh"
source "$C2C_TOP/tests/tui/harness.sh"

T=tui_open
command -v tmux >/dev/null || { skip "$T" "tmux is not installed"; exit 0; }
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/c2c-gen

# A private copy: a rebuild while the test runs must not swap the binary.
cp "$C2CTUI" "$E2E_TMP/c2ctui" && C2CTUI=$E2E_TMP/c2ctui
W=$E2E_TMP/work
mkdir -p "$W"
cd "$W" || exit 1

expect() { # NAME: the screen (no state line) equals tests/tui/expected/NAME.txt
  local exp=$TUI_EXPECTED/$1.txt
  if [ "${TUI_UPDATE:-0}" = 1 ]; then _nap 0.3; tui_screen >"$exp"; ok "$T: $1"; return; fi
  if tui_poll _screen_is "$exp"; then ok "$T: $1"; else
    nok "$T: $1" "screen differs"; diff "$exp" "$E2E_TMP/screen.txt" | sed 's/^/#   /' | head -20; fi
}

# The screen below its first row (the session's name) is open_perfdata's.
_same_below_title() { [ "$(tui_screen | tail -n +2)" = "$(tail -n +2 "$TUI_EXPECTED/open_perfdata.txt")" ]; }

# --- perf.data straight in: imported into a temporary session -------------------
if [ -x "$GEN" ] && "$GEN" --scenario true-sharing -o ts.data >/dev/null 2>&1; then
  if tui_start 80 24 -- "$C2CTUI" open ts.data; then
    expect open_perfdata
    tui_quit
    [ "$TUI_STATUS" = 0 ] && ok "$T: open perf.data exits 0" || nok "$T: open perf.data exits 0" "status $TUI_STATUS"
    ls /tmp/c2ctui-open.* >/dev/null 2>&1 && nok "$T: temporary session removed" "left: $(ls -d /tmp/c2ctui-open.*)" ||
      ok "$T: temporary session removed"
  else
    nok "$T: open perf.data" "no first screen"; tui_screen | sed 's/^/#   /'
  fi
  tui_stop
  # -o keeps the imported session, and it reopens the same.
  if tui_start 80 24 -- "$C2CTUI" open -o kept.db ts.data && tui_quit && tui_stop && [ -s kept.db ] &&
     tui_start 80 24 -- "$C2CTUI" open kept.db; then
    # polled: the Verdict column says "..." until the background verdicts land
    if tui_poll _screen_has "c2ctui kept.db" && tui_poll _same_below_title; then
      ok "$T: -o keeps the session"
    else
      nok "$T: -o keeps the session" "reopened screen differs"
    fi
    tui_quit
  else
    nok "$T: -o keeps the session" "import or reopen failed"
  fi
  tui_stop
else
  skip "$T: open perf.data" "no c2c-gen"
fi

# --- a real recording -------------------------------------------------------------
fx=$C2C_FIXTURES/real/amd-zen2-ibs-c2c.data
if [ -f "$fx" ]; then
  cp "$fx" zen2.data   # the title shows the name given; the fixture itself is read-only
  if tui_start 100 30 -- "$C2CTUI" open zen2.data; then
    expect open_fixture_zen2
    tui_key a && expect open_fixture_zen2_all
    tui_key Enter && expect open_fixture_zen2_line
    tui_quit
    [ "$TUI_STATUS" = 0 ] && ok "$T: real recording exits 0" || nok "$T: real recording exits 0" "status $TUI_STATUS"
  else
    nok "$T: open real recording" "no first screen"; tui_screen | sed 's/^/#   /'
  fi
  tui_stop
else
  skip "$T: real recording" "$fx absent"
fi

# --- a session of software events alone says so instead of an empty table --------
if command -v perf >/dev/null && perf record -q -e cpu-clock -o sw.data -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null 2>&1 &&
   [ -s sw.data ]; then
  if tui_start 100 30 -- "$C2CTUI" open sw.data && tui_poll _screen_has "No memory samples (no loads or stores)" &&
     tui_screen | grep -q "Software events (such as cpu-clock or page-faults): t shows them over time" &&
     tui_screen | grep -q "samples (cpu-clock "; then
    ok "$T: software events only: a hint, not an empty table"
  else
    nok "$T: software events only: a hint, not an empty table" "no hint"; tui_screen | sed 's/^/#   /'
  fi
  tui_quit; tui_stop
else
  skip "$T: software events only" "perf record -e cpu-clock does not work here"
fi

# --- every real recording through every view: no crash, clean exit ------------------
n=0
for fx in "$C2C_FIXTURES"/real/*.data; do
  [ -f "$fx" ] || continue
  n=$((n + 1))
  name=$(basename "$fx" .data)
  cp "$fx" walk.data
  if tui_start 120 40 -- "$C2CTUI" open walk.data &&
     tui_key a Down Enter Tab Enter Escape w c Tab Escape t Down Space Down Enter a End Enter Tab End Enter \
       Escape Escape '?' PageDown Escape d d d d s Right Right Enter r / &&
     tui_type 0x && tui_key Enter n N f && tui_type hitm:1 && tui_key Enter F && tui_quit &&
     [ "$TUI_STATUS" = 0 ]; then
    ok "$T: walk every view of $name"
  else
    nok "$T: walk every view of $name" "status ${TUI_STATUS:-running} after key $TUI_KEYS"; tui_screen | sed 's/^/#   /' | head -20
  fi
  tui_stop
done
[ $n -gt 0 ] || skip "$T: walk every view" "no recordings under $C2C_FIXTURES/real"

# --- corrupt and foreign files: one line, non-zero, terminal untouched --------------
head -c 4096 /dev/urandom >garbage.db
printf 'PERFILE2\x00\x01\x02' >short.data
command -v sqlite3 >/dev/null && sqlite3 foreign.db 'create table t(x); insert into t values(1);'
for f in garbage.db short.data foreign.db missing.db; do
  [ "$f" = foreign.db ] && [ ! -f foreign.db ] && { skip "$T: $f" "no sqlite3"; continue; }
  tui_start 80 24 TUI_STDERR=1 -- "$C2CTUI" open "$f"
  if tui_wait_exit && [ "$TUI_STATUS" != 0 ] && tui_restored; then
    if [ "$(tui_stderr | wc -l)" = 1 ] && tui_stderr | grep -q "^c2ctui open: .*$f"; then ok "$T: $f refused"; else
      nok "$T: $f refused" "expected one 'c2ctui open:' line naming the file"; tui_stderr | sed 's/^/#   /'; fi
  else
    nok "$T: $f refused" "status ${TUI_STATUS:-running}"; tui_screen | sed 's/^/#   /'
  fi
  tui_stop
done

# --- signals: the terminal comes back -------------------------------------------------
[ -x "$GEN" ] && "$GEN" --scenario false-sharing -o fs.data >/dev/null 2>&1 && "$C2CTUI" import fs.data -o s.db >/dev/null 2>&1
for sig in TERM INT HUP SEGV; do
  if ! tui_start 80 24 -- "$C2CTUI" open s.db; then nok "$T: SIG$sig" "no first screen"; tui_stop; continue; fi
  pid=$(pgrep -n -f "c2ctui open s.db" -P "$(_tmux display -p -t $TUI_NAME '#{pane_pid}')")
  if [ -z "$pid" ]; then nok "$T: SIG$sig" "cannot find the process"; tui_stop; continue; fi
  kill -s "$sig" "$pid"
  if tui_wait_exit && tui_restored; then
    case $sig in
      SEGV) [ "$TUI_STATUS" != 0 ] && ok "$T: SIGSEGV restores the terminal" || nok "$T: SIGSEGV restores the terminal" "status 0" ;;
      *) [ "$TUI_STATUS" -gt 128 ] && ok "$T: SIG$sig restores the terminal" ||
           nok "$T: SIG$sig restores the terminal" "exit status $TUI_STATUS, want 128+signal" ;;
    esac
  else
    nok "$T: SIG$sig restores the terminal" "status ${TUI_STATUS:-running}"
  fi
  tui_stop
done

# --- the numbers on screen are the ones `c2ctui report` prints ---------------------
if [ -f s.db ] && tui_start 200 30 -- "$C2CTUI" open s.db; then
  rep=$("$C2CTUI" report s.db 2>/dev/null)
  want_hdr=$(echo "$rep" | awk -F: '/Total records/{t=$2+0} /Load Local HITM/{l=$2+0} /Load Remote HITM/{r=$2+0}
             END{printf "samples %d  HITM %d (lcl %d, rmt %d)", t, l+r, l, r}')
  got_hdr=$(tui_screen | sed -n 2p | sed 's/  lost [0-9]*//; s/  peer.*//')
  [ "$got_hdr" = "$want_hdr" ] && ok "$T: header equals report" || nok "$T: header equals report" "'$got_hdr' vs '$want_hdr'"
  # Top line: address, Tot Hitm, Lcl, Rmt, Total Loads, Total Stores (on screen, the
  # HITM column set: Share, bar, Hitm, Lcl, Rmt, Verdict, Loads, Stores, Data object).
  want_row=$(echo "$rep" | sed -n '/Shared Data Cache Line Table/,/Pareto/p' | awk '$1 == "0" {print $2, $6, $7, $8, $10, $11; exit}')
  got_row=$(tui_screen | awk '$1 == "0" && $2 ~ /^0x/ {print $2, $5, $6, $7, $9, $10; exit}')
  [ -n "$want_row" ] && [ "$got_row" = "$want_row" ] && ok "$T: top line equals report" ||
    nok "$T: top line equals report" "'$got_row' vs '$want_row'"
  tui_quit
fi
tui_stop

# --- no terminal, bad options ------------------------------------------------------------
out=$("$C2CTUI" open s.db </dev/null 2>&1 >/dev/null); st=$?
[ $st -ne 0 ] && echo "$out" | grep -q 'needs a terminal' && ok "$T: no terminal refused" || nok "$T: no terminal refused" "status $st: $out"
"$C2CTUI" open -d bogus s.db >/dev/null 2>&1; st=$?
[ $st = 2 ] && ok "$T: bad -d is a usage error" || nok "$T: bad -d is a usage error" "status $st"
"$C2CTUI" open --help | grep -q 'usage: c2ctui open' && ok "$T: --help" || nok "$T: --help"
