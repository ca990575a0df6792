#!/usr/bin/env bash
# `make bench` part for the explorer: opens the 10M-sample session (the one
# bench/run.sh imported, else generates and imports it) in a real terminal
# (tmux), and prints the time to the first screen and the time each kind of
# key takes from its arrival to the flushed repaint, as measured inside the
# program (C2CTUI_TIMING). Targets: first screen < 100 ms, keys < 50 ms.
# Usage: bench/tui_bench.sh [BUILD_DIR]   (BENCH_TUI_SAMPLES=N for another size,
# BENCH_TUI_DB=S.db to time an existing session)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-build}
n=${BENCH_TUI_SAMPLES:-10000000}
out=$top/$b/bench
mkdir -p "$out"
c2ctui=$top/$b/c2ctui
gen=$top/$b/tools/c2c-gen
command -v tmux >/dev/null || { echo "tui bench: tmux not installed, skipped"; [ -n "${ready:-}" ] && printf '%-34s %10s %8s %s\n' "timeline rows ready (background)" "$ready" - -
exit 0; }
[ -x "$c2ctui" ] || { echo "tui bench: no $c2ctui"; exit 1; }

db=${BENCH_TUI_DB:-$out/bench-$n.db}
if [ ! -s "$db" ]; then
  data=$out/bench-$n.data
  [ -s "$data" ] || "$gen" --scenario bench --samples "$n" -o "$data" >/dev/null || exit 1
  rm -f "$db" "$db-wal" "$db-shm"
  echo "tui bench: importing $n samples (once)..."
  "$c2ctui" import "$data" -o "$db" >/dev/null 2>&1 || { echo "tui bench: import failed"; exit 1; }
fi

tmp=$(mktemp -d /tmp/c2ctuibench.XXXXXX)
sock=$tmp/tmux.sock
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
# A private copy: a rebuild during the run must not swap the binary.
cp "$c2ctui" "$tmp/c2ctui" && c2ctui=$tmp/c2ctui
printf 'set -g status off\nset -g remain-on-exit on\n' >"$tmp/conf"
state=$tmp/state timing=$tmp/timing
keys=0

wait_keys() { # until the program has handled $keys events (10 s at most)
  local i
  for ((i = 0; i < 2000; i++)); do
    grep -q "^keys=$keys " "$state" 2>/dev/null && return 0
    sleep 0.005
  done
  echo "tui bench: no answer after key $keys" >&2
  return 1
}

start() {
  rm -f "$state"
  keys=0
  tmux -S "$sock" -f "$tmp/conf" new-session -d -s b -x 200 -y 50 \
    env TERM=tmux-256color LANG=C.UTF-8 C2CTUI_STATE="$state" C2CTUI_TIMING="$timing" "$c2ctui" open "$db"
  wait_keys
}
stop() { tmux -S "$sock" send-keys -t b q; sleep 0.2; tmux -S "$sock" kill-server 2>/dev/null; sleep 0.1; }

# key LABEL TMUXKEY...: sends the keys one by one; each is timed by the program.
declare -A worst count
order=()
key() {
  local label=$1 k ms
  shift
  for k in "$@"; do
    # the background jobs' times land between keys: keep them before the clear
    v=$(sed -n 's/^verdicts_ready_ms=//p' "$timing" 2>/dev/null | tail -1)
    [ -n "$v" ] && verdicts=$v
    : >"$timing"
    tmux -S "$sock" send-keys -t b "$k"
    keys=$((keys + 1))
    wait_keys || return 1
    ms=$(sed -n 's/^key_ms=//p' "$timing" | tail -1)
    [ -n "$ms" ] || continue
    [ -n "${count[$label]:-}" ] || order+=("$label")
    count[$label]=$(( ${count[$label]:-0} + 1 ))
    worst[$label]=$(awk -v a="${worst[$label]:-0}" -v b="$ms" 'BEGIN{print (b>a)?b:a}')
  done
}
typetext() { # LABEL TEXT: one key per character
  local label=$1 text=$2 i
  for ((i = 0; i < ${#text}; i++)); do key "$label" "${text:i:1}"; done
}

firsts=()
verdicts=
for run in 1 2 3; do
  : >"$timing"
  verdicts=
  start || exit 1
  firsts+=("$(sed -n 's/^first_screen_ms=//p' "$timing")")
  [ $run -lt 3 ] && stop
done
key "cursor down (in page)" Down Down Down j j
key "page down (fetch rows)" PageDown PageDown PageDown
key "end / home (fetch rows)" End Home
key "all lines (perf --show-all)" a
key "all lines: page down (fetch)" PageDown PageDown PageDown
key "all lines: end / home (fetch)" End Home
key "all lines (perf --show-all)" a
key "sort: pick and apply" s Left Enter
key "sort: reverse" r r
key "mode tot/lcl/rmt/peer" d d d d
key "enter a line" Enter
key "pane / words in a line" Tab w w Tab
key "back to the lines" Escape
key "CPUs of the session" c
key "back to the lines" Escape
key "search (type + enter)" /
typetext "search (type + enter)" "anon"
key "search (type + enter)" Enter
key "search next" n n
key "timeline of the session" t
# The timeline query runs in the background: wait for its rows and report
# that time too (the keys keep answering meanwhile).
for ((i = 0; i < 12000; i++)); do grep -q '^timeline_ready_ms=' "$timing" && break; sleep 0.01; done
ready=$(sed -n 's/^timeline_ready_ms=//p' "$timing" | tail -1)
key "back to the lines" Escape
key "filter cpu:3 (recompute)" f
typetext "filter cpu:3 (recompute)" "cpu:3"
key "filter cpu:3 (recompute)" Enter
key "clear filters" F
# The line verdicts (every sample read once, in the background) may still
# be running: wait for them (a minute at most) and report their time too.
for ((i = 0; i < 6000; i++)); do
  [ -n "$verdicts" ] && break
  v=$(sed -n 's/^verdicts_ready_ms=//p' "$timing" | tail -1)
  [ -n "$v" ] && verdicts=$v && break
  sleep 0.01
done
stop

printf '%-34s %10s %8s %s\n' "tui ($n samples, 200x50)" "ms" "target" "ok"
first=$(printf '%s\n' "${firsts[@]}" | sort -n | sed -n 2p)
printf '%-34s %10s %8s %s\n' "first screen (median of 3)" "$first" 100 \
  "$(awk -v a="$first" 'BEGIN{print (a<100)?"yes":"NO"}')"
for label in "${order[@]}"; do
  printf '%-34s %10s %8s %s\n' "$label (worst of ${count[$label]})" "${worst[$label]}" 50 \
    "$(awk -v a="${worst[$label]}" 'BEGIN{print (a<50)?"yes":"NO"}')"
done
[ -n "${ready:-}" ] && printf '%-34s %10s %8s %s\n' "timeline rows ready (background)" "$ready" - -
[ -n "$verdicts" ] && printf '%-34s %10s %8s %s\n' "line verdicts ready (background)" "$verdicts" - -
exit 0
