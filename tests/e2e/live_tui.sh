#!/usr/bin/env bash
# c2ctui live in a real terminal (tmux): the header's sample count grows
# while the workload runs (the views refresh during collection), q stops
# collection, the session is kept, finalized and valid, and its name is
# printed on exit.
source "$(dirname "$0")/lib.sh"
W=$C2C_BUILD/workloads/contention
[ "$(id -u)" = 0 ] || { skip live_tui "needs root for tracepoints"; exit 0; }
command -v tmux >/dev/null || { skip live_tui "tmux not installed"; exit 0; }
command -v sqlite3 >/dev/null || { skip live_tui "sqlite3 CLI not installed"; exit 0; }
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -d /sys/kernel/tracing/events/lock/contention_begin ] || { skip live_tui "kernel has no lock:contention_begin"; exit 0; }

sess=c2clive$$
db=$E2E_TMP/live.db
export LANG=C.UTF-8 TZ=UTC TERM=xterm-256color
tmux kill-session -t "$sess" 2>/dev/null
tmux new-session -d -s "$sess" -x 150 -y 40 \
  "'$C2CTUI' live -o '$db' -- '$W' -m pipe -t 3 -d 30 2>'$E2E_TMP/live.err'; echo \$? > '$E2E_TMP/live.rc'; sleep 60"
trap 'tmux kill-session -t "$sess" 2>/dev/null; rm -rf "$E2E_TMP"' EXIT

samples_now() { tmux capture-pane -t "$sess" -p | sed -n 's/.*samples \([0-9][0-9]*\).*/\1/p' | head -1; }
# Wait for the first screen with a sample count.
s1=
for _ in $(seq 1 50); do s1=$(samples_now); [ -n "$s1" ] && [ "$s1" -gt 0 ] && break; sleep 0.2; done
sleep 2.5
s2=$(samples_now)
if [ -n "$s1" ] && [ -n "$s2" ] && [ "$s2" -gt "$s1" ]; then
  ok "live_refreshes ($s1 -> $s2 samples)"
else
  nok "live_refreshes" "samples '$s1' then '$s2'; screen: $(tmux capture-pane -t "$sess" -p | head -3 | tr '\n' '|')"
fi
tmux capture-pane -t "$sess" -p | grep -q "collecting" && ok "live_status_collecting" || nok "live_status_collecting"
tmux send-keys -t "$sess" q
for _ in $(seq 1 150); do [ -f "$E2E_TMP/live.rc" ] && break; sleep 0.2; done
rc=$(cat "$E2E_TMP/live.rc" 2>/dev/null)
[ "$rc" = 0 ] && ok "live_quit_status" || nok "live_quit_status" "rc=$rc $(head -2 "$E2E_TMP/live.err")"
tmux capture-pane -t "$sess" -p -J > "$E2E_TMP/live.out"
grep -q "session kept in $db" "$E2E_TMP/live.out" && ok "live_prints_session_name" || nok "live_prints_session_name" "$(grep . "$E2E_TMP/live.out" | tail -3)"
[ -s "$db" ] && [ "$(sqlite3 -readonly "$db" 'PRAGMA integrity_check')" = ok ] && ok "live_session_valid" || nok "live_session_valid"
[ "$(sqlite3 "$db" "select value from meta where key='finalized'")" = 1 ] && ok "live_session_finalized" || nok "live_session_finalized"
n=$(session_sql "$db" 'select count(*) from samples')
[ "${n:-0}" -ge "${s2:-1}" ] && ok "live_session_holds_what_was_shown ($n)" || nok "live_session_holds_what_was_shown" "$n < $s2"
# q ended the command too.
pgrep -f "$W -m pipe -t 3 -d 30" >/dev/null && nok "live_quit_stops_command" || ok "live_quit_stops_command"
exit 0
