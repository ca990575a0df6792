#!/usr/bin/env bash
# q, Ctrl-C, SIGTERM and SIGHUP end `c2ctui open` at once whatever it is
# doing, with the terminal restored (issue 12): while a filter recomputes
# from every sample on the loop's own thread (the store's thread poll stops
# the query), and while background queries run (the verdicts at start, a
# filtered timeline: stopped when their view goes, so the explorer does not
# wait for them). The session is generated big enough that `f node:1` takes
# seconds (C2C_QUIT_SAMPLES, default 5M samples, doubled up to 20M while the
# filter is too fast here); its time here is measured first. Each quit must
# take under a second (1.5 s where the filter takes 4 s or more: a loaded or
# ASan machine), and the filter at least 1.5 times that for the test to mean
# anything. A plain build quits in about 0.05 s.
source "$(dirname "$0")/lib.sh"
source "$C2C_TOP/tests/tui/harness.sh"

T=tui_quit_busy
command -v tmux >/dev/null || { skip "$T" "tmux is not installed"; exit 0; }
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/c2c-gen
[ -x "$GEN" ] || { skip "$T" "no $GEN (build first)"; exit 0; }

# A private copy: a rebuild while the test runs must not swap the binary.
cp "$C2CTUI" "$E2E_TMP/c2ctui" && C2CTUI=$E2E_TMP/c2ctui
W=$E2E_TMP/work
mkdir -p "$W/bin"
cd "$W" || exit 1

# The harness runs the program under `sh -c`. A Ctrl-C reaches the whole
# foreground group: dash dies with the program and never records the tty
# modes after it; bash waits for the program, which exits 130 on its own,
# and goes on. So `sh` is bash here.
ln -s "$(command -v bash)" "$W/bin/sh"
PATH=$W/bin:$PATH

N=${C2C_QUIT_SAMPLES:-5000000}
make_session() { # $N samples into big.db
  local t0=$EPOCHREALTIME
  rm -f big.db big.db-wal big.db-shm
  if ! "$GEN" --scenario bench --samples "$N" -o big.data >/dev/null 2>&1 ||
     ! "$C2CTUI" import big.data -o big.db >/dev/null 2>&1; then
    nok "$T: a session of $N samples" "c2c-gen or import failed"; exit 0
  fi
  rm -f big.data
  echo "# session of $N samples made in $(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $t0}") s"
}
make_session

secs() { awk "BEGIN{printf \"%.3f\", $2 - $1}"; }
less() { awk "BEGIN{exit !($1 < $2)}"; }
prog_pid() { pgrep -n -f "c2ctui open big.db" -P "$(_tmux display -p -t $TUI_NAME '#{pane_pid}')"; }

# start_filter: opens the session and sends `f node:1` Enter, returns once
# the query runs (the status line says "working...").
start_filter() {
  tui_start 120 40 -- "$C2CTUI" open big.db || return 1
  tui_key f && tui_type node:1 || return 1
  _tmux send-keys -t $TUI_NAME Enter
  TUI_KEYS=$((TUI_KEYS + 1))
  tui_poll _screen_has "working..."
}

# --- how long the filter takes here ---------------------------------------------
# A faster build or machine gets a bigger session (twice, up to 20M samples)
# until the filter takes long enough to be interrupted.
while :; do
  TUI_TIMEOUT=120
  if ! start_filter; then nok "$T: filter starts" "no first screen or no 'working...'"; tui_stop; exit 0; fi
  t0=$EPOCHREALTIME
  tui_poll _state_keys
  QTIME=$(secs "$t0" "$EPOCHREALTIME")
  if ! tui_screen | grep -q "filter node:1"; then
    nok "$T: filter applies" "after $QTIME s"; tui_screen | sed 's/^/#   /' | head -5; tui_stop; exit 0
  fi
  BOUND=1.0
  less "$QTIME" 4 || BOUND=1.5
  less "$QTIME" "$(awk "BEGIN{print 1.5 * $BOUND}")" && [ "$N" -lt 20000000 ] && [ -z "${C2C_QUIT_SAMPLES:-}" ] || break
  echo "# f node:1 takes $QTIME s with $N samples: too fast, doubling"
  tui_stop
  N=$((N * 2))
  make_session
done
# While the filtered view is up: the timeline scans the filtered samples in
# the background ("computing"), and q must not wait for that thread.
_tmux send-keys -t $TUI_NAME t
tui_poll _screen_has "computing"; computing=$?
t0=$EPOCHREALTIME
tui_quit
JTIME=$(secs "$t0" "$EPOCHREALTIME")
tui_stop
TUI_TIMEOUT=10

echo "# f node:1 takes $QTIME s here: each quit must take less than $BOUND s"
if less "$QTIME" "$(awk "BEGIN{print 1.5 * $BOUND}")"; then
  skip "$T" "the filter takes only $QTIME s here: too fast to show that a quit stops it (raise C2C_QUIT_SAMPLES)"
  exit 0
fi

if [ $computing = 0 ] && [ "$TUI_STATUS" = 0 ] && less "$JTIME" "$BOUND"; then
  ok "$T: q while the filtered timeline computes in the background ($JTIME s)"
elif [ $computing != 0 ]; then
  skip "$T: q while the filtered timeline computes" "the timeline was ready at once"
else
  nok "$T: q while the filtered timeline computes in the background" "status ${TUI_STATUS:-running} after $JTIME s"
fi

# --- q at once: the verdicts (a scan of every sample) load in the background ----
if tui_start 120 40 -- "$C2CTUI" open big.db; then
  t0=$EPOCHREALTIME
  tui_quit
  dt=$(secs "$t0" "$EPOCHREALTIME")
  if [ "$TUI_STATUS" = 0 ] && tui_restored && less "$dt" "$BOUND"; then
    ok "$T: q while the verdicts load ($dt s)"
  else
    nok "$T: q while the verdicts load" "status ${TUI_STATUS:-running} after $dt s"
  fi
else
  nok "$T: q while the verdicts load" "no first screen"
fi
tui_stop

# --- every way out while the filter runs on the loop's thread --------------------
for how in q TERM C-c HUP; do
  case $how in q) want=0 ;; TERM) want=143 ;; C-c) want=130 ;; HUP) want=129 ;; esac
  name="$T: $how while a filter recomputes"
  if ! start_filter; then nok "$name" "no first screen or no 'working...'"; tui_stop; continue; fi
  pid=$(prog_pid)
  [ -n "$pid" ] || { nok "$name" "cannot find the process"; tui_stop; continue; }
  t0=$EPOCHREALTIME
  case $how in
    q | C-c) _tmux send-keys -t $TUI_NAME "$how" ;;
    *) kill -s "$how" "$pid" ;;
  esac
  tui_wait_exit
  dt=$(secs "$t0" "$EPOCHREALTIME")
  if [ "$TUI_STATUS" != "$want" ]; then
    nok "$name" "status ${TUI_STATUS:-running} after $dt s, want $want"
  elif kill -0 "$pid" 2>/dev/null; then
    nok "$name" "process $pid still there after $dt s"
  elif ! tui_restored; then
    nok "$name" "terminal not restored"
  elif ! less "$dt" "$BOUND"; then
    nok "$name" "took $dt s (the filter alone takes $QTIME s)"
  else
    ok "$name ($dt s, status $want)"
  fi
  tui_stop
done
