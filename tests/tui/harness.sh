# Screen-test harness for the explorer (source it after tests/e2e/lib.sh).
# Drives the real program in a real terminal: a private tmux server runs
# c2ctui in a pane of a pinned size with LANG, TZ, TERM (and LINES/COLUMNS
# unless the test resizes) pinned. No fixed sleeps: after each key the
# harness waits until the program's state file (C2CTUI_STATE, written after
# every repaint) says the key was handled, then polls capture-pane until the
# screen equals the expected one (or the wait runs out).
#
#   tui_start COLS ROWS [VAR=VALUE...] -- c2ctui ARGS...   start, wait for the first screen
#                         (TUI_NOPIN=1: no LINES/COLUMNS, for resizing; TUI_STDERR=1:
#                         stderr goes to a file, tui_stderr prints it)
#   tui_key KEY...        tmux key names (Down, Enter, Escape, j, ...): one event each
#   tui_type TEXT         literal text, one event per character
#   tui_resize COLS ROWS  resize the terminal and wait for the repaint
#   tui_click X Y, tui_mouse BUTTON X Y   mouse presses (0-based cell)
#   tui_expect NAME       compare with tests/tui/expected/NAME.txt (TUI_UPDATE=1 rewrites it)
#   tui_screen            print the screen; tui_state prints the state line
#   tui_wait_exit         wait for the program to end; sets TUI_STATUS
#   tui_quit [KEY]        send KEY (default q), wait for the end
#   tui_restored          tty modes as before the program, alternate screen left
#   tui_stop              kill the tmux server
: "${TUI_EXPECTED:=$C2C_TOP/tests/tui/expected}"
: "${TUI_TIMEOUT:=10}"
TUI_SOCK=$E2E_TMP/tmux.sock
TUI_STATE=$E2E_TMP/tui.state
TUI_KEYS=0
TUI_STATUS=
TUI_NAME=c2c

_tmux() { tmux -S "$TUI_SOCK" "$@"; }

# A fifo nobody writes: `read -t` on it is a sleep without a fork (forks
# are slow on a loaded machine, and the polls below run often).
mkfifo "$E2E_TMP/tui.nap" && exec {TUI_NAPFD}<>"$E2E_TMP/tui.nap"
_nap() { read -r -t "${1:-0.01}" -u "$TUI_NAPFD" _ 2>/dev/null; true; }

# Polls CMD every 10 ms until it succeeds or TUI_TIMEOUT seconds pass.
tui_poll() {
  local deadline=$((SECONDS + TUI_TIMEOUT))
  while ! "$@"; do
    [ "$SECONDS" -ge "$deadline" ] && return 1
    _nap 0.01
  done
}

tui_stderr() { cat "$E2E_TMP/tty.stderr" 2>/dev/null; }
tui_state() { cat "$TUI_STATE" 2>/dev/null; }
# The state line, read without a fork.
_state_line() { TUI_LINE=; [ -f "$TUI_STATE" ] && IFS= read -r TUI_LINE <"$TUI_STATE" 2>/dev/null; true; }
_state_keys() { _state_line; [[ $TUI_LINE == "keys=$TUI_KEYS "* ]]; }
_state_size() { _state_line; [[ $TUI_LINE == *" rows=$2 cols=$1 "* ]]; }
_started() { _state_keys || _exited; }
_pane_dead() { [ "$(_tmux display -p -t $TUI_NAME '#{pane_dead}' 2>/dev/null)" = 1 ]; }

tui_start() {
  local cols=$1 rows=$2 envs=() pin=1 errf=0
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    envs+=("$1")
    [ "$1" = TUI_NOPIN=1 ] && pin=0
    [ "$1" = TUI_STDERR=1 ] && errf=1
    shift
  done
  shift
  rm -f "$TUI_STATE" "$E2E_TMP"/tty.*
  TUI_KEYS=0
  printf 'set -g status off\nset -g remain-on-exit on\nset -g history-limit 0\nset -g default-terminal tmux-256color\n' >"$E2E_TMP/tmux.conf"
  local lc=()
  [ $pin = 1 ] && lc=(LINES="$rows" COLUMNS="$cols")
  # env -i: nothing from the caller's environment leaks into the screen.
  _tmux -f "$E2E_TMP/tmux.conf" new-session -d -s $TUI_NAME -x "$cols" -y "$rows" \
    env -i PATH="$PATH" HOME="$E2E_TMP" TERM=tmux-256color LANG=C.UTF-8 TZ=UTC \
    C2CTUI_STATE="$TUI_STATE" ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
    "${lc[@]}" "${envs[@]}" TUI_TTY="$E2E_TMP/tty" \
    sh -c 'stty -g >"$TUI_TTY.before"
           if [ "$TUI_STDERR" = 1 ]; then "$@" 2>"$TUI_TTY.stderr"; else "$@"; fi
           st=$?; stty -g >"$TUI_TTY.after"; echo $st >"$TUI_TTY.status"; exit $st' sh "$@" || return 1
  # Up and drawn, or already gone (a refused file).
  tui_poll _started || return 1
  _state_keys
}

tui_key() {
  local k
  for k in "$@"; do
    _tmux send-keys -t $TUI_NAME "$k"
    TUI_KEYS=$((TUI_KEYS + 1))
    tui_poll _state_keys || return 1
  done
}

tui_type() {
  local text=$1 i
  for ((i = 0; i < ${#text}; i++)); do
    _tmux send-keys -t $TUI_NAME -l "${text:i:1}"
    TUI_KEYS=$((TUI_KEYS + 1))
    tui_poll _state_keys || return 1
  done
}

# tui_mouse BUTTON X Y: an X10 mouse press (button 0 = left, 64/65 = wheel
# up/down) at 0-based column X, row Y, as the terminal would send it; one
# event. tui_click X Y is a left press.
tui_mouse() {
  local b=$(( 32 + $1 )) x=$(( 33 + $2 )) y=$(( 33 + $3 )) hex seq rel=
  printf -v hex '\\x%x\\x%x\\x%x' $b $x $y
  printf -v seq "$hex"
  # A press of a button (not the wheel) is followed by its release (3), as
  # terminals do; the release is not an event for the program.
  if [ "$1" -lt 64 ]; then printf -v hex '\\x%x\\x%x\\x%x' 35 $x $y; printf -v rel "$hex"; rel=$'\e[M'"$rel"; fi
  _tmux send-keys -t $TUI_NAME -l $'\e[M'"$seq$rel"
  TUI_KEYS=$((TUI_KEYS + 1))
  tui_poll _state_keys
}
tui_click() { tui_mouse 0 "$1" "$2"; }

tui_resize() {
  _tmux resize-window -t $TUI_NAME -x "$1" -y "$2"
  tui_poll _state_size "$1" "$2"
}

tui_screen() { _tmux capture-pane -p -t $TUI_NAME; }
tui_screen_color() { _tmux capture-pane -p -e -t $TUI_NAME; }

_screen_is() { tui_screen >"$E2E_TMP/screen.txt" && cmp -s "$E2E_TMP/screen.txt" "$1"; }
_screen_has() { tui_screen | grep -qF -- "$1"; }

# tui_wait_text TEXT: until TEXT is on the screen.
tui_wait_text() { tui_poll _screen_has "$1"; }

tui_expect() {
  local exp=$TUI_EXPECTED/$1.txt
  if [ "${TUI_UPDATE:-0}" = 1 ]; then
    # Let the last repaint land before recording it.
    tui_poll _state_keys; _nap 0.3; tui_screen >"$exp"
    echo "# wrote $exp"
    return 0
  fi
  [ -f "$exp" ] || { echo "# missing $exp (run with TUI_UPDATE=1)"; return 1; }
  if tui_poll _screen_is "$exp"; then
    return 0
  fi
  echo "# screen differs from $exp:"
  diff "$exp" "$E2E_TMP/screen.txt" | sed 's/^/#   /' | head -40
  return 1
}

_exited() { [ -s "$E2E_TMP/tty.status" ]; }
tui_wait_exit() {
  TUI_STATUS=
  tui_poll _exited || return 1
  TUI_STATUS=$(cat "$E2E_TMP/tty.status")
  tui_poll _pane_dead
}

# tui_quit [KEY]: sends KEY (default q) and waits for the program to end.
tui_quit() {
  _tmux send-keys -t $TUI_NAME "${1:-q}"
  tui_wait_exit
}

# The terminal is back as the program found it: same tty modes before and
# after, and the alternate screen left.
tui_restored() {
  [ -s "$E2E_TMP/tty.before" ] && cmp -s "$E2E_TMP/tty.before" "$E2E_TMP/tty.after" &&
    [ "$(_tmux display -p -t $TUI_NAME '#{alternate_on}')" = 0 ]
}

_server_gone() { ! _tmux list-sessions >/dev/null 2>&1; }
tui_stop() {
  _tmux kill-server 2>/dev/null
  # The next tui_start must get a fresh server, not the dying one.
  tui_poll _server_gone
  rm -f "$TUI_SOCK"
  true
}
