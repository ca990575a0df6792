#!/usr/bin/env bash
# c2ctui record under signals: SIGTERM and SIGHUP stop and finalize like
# Ctrl-C; SIGKILL at any moment leaves a database that opens, passes
# PRAGMA integrity_check and holds every sample committed before the kill,
# and takes `record -- cmd`'s workload with it.
source "$(dirname "$0")/lib.sh"
W=$C2C_BUILD/workloads/contention
[ "$(id -u)" = 0 ] || { skip record_signals "needs root for tracepoints"; exit 0; }
command -v sqlite3 >/dev/null || { skip record_signals "sqlite3 CLI not installed"; exit 0; }
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -d /sys/kernel/tracing/events/lock/contention_begin ] ||
  { skip record_signals "kernel has no lock:contention_begin"; exit 0; }
q() { sqlite3 "$1" "$2" 2>&1; }

# The workload outlives every record below however slow they are under
# sanitizers (a fixed 12 s ran out before the SIGHUP record on a loaded CI
# machine, which then saw no samples); it is stopped when the kills are done.
"$W" -m pipe -t 3 -d 600 -q &
wpid=$!
trap 'kill $wpid 2>/dev/null; rm -rf "$E2E_TMP"' EXIT
for sig in TERM HUP; do
  db=$E2E_TMP/$sig.db
  "$C2CTUI" record -q -o "$db" >"$E2E_TMP/$sig.out" 2>&1 &
  pid=$!
  # The file appears once the session is set up (slow under sanitizers).
  for _ in $(seq 1 100); do [ -f "$db" ] && break; sleep 0.2; done
  # ... and collects once its events are open: wait for committed samples
  # (a loaded machine takes seconds to set the tracepoints up)
  for _ in $(seq 1 75); do
    c=$(session_sql "$db" 'select count(*) from samples' 2>/dev/null)
    [[ "$c" =~ ^[0-9]+$ ]] && [ "$c" -gt 0 ] && break
    sleep 0.2
  done
  sleep 0.5
  kill -$sig $pid
  wait $pid; rc=$?
  n=$(session_sql "$db" 'select count(*) from samples')
  if [ $rc -eq 0 ] && [ "$(q "$db" 'PRAGMA integrity_check')" = ok ] &&
     [ "$(q "$db" "select value from meta where key='finalized'")" = 1 ] && [ "${n:-0}" -gt 0 ] &&
     grep -q "samples" "$E2E_TMP/$sig.out"; then
    ok "record_sig$sig ($n samples)"
  else
    nok "record_sig$sig" "rc=$rc samples=$n $(head -2 "$E2E_TMP/$sig.out")"
  fi
  # Nothing left half-open: the WAL was checkpointed into the file.
  wal=$(stat -c %s "$db-wal" 2>/dev/null || echo 0)
  [ "$wal" = 0 ] && ok "record_sig${sig}_wal_checkpointed" || nok "record_sig${sig}_wal_checkpointed" "wal is $wal bytes"
done

for delay in 0.05 0.3 1 2.5; do
  db=$E2E_TMP/kill$delay.db
  "$C2CTUI" record -q -o "$db" >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  # Read-only: a plain open would create the file if it is not there yet.
  before=0
  [ -f "$db" ] && before=$(session_sql "$db" 'select count(*) from samples' 2>/dev/null)
  [[ "$before" =~ ^[0-9]+$ ]] || before=0
  kill -KILL $pid
  wait $pid 2>/dev/null
  if [ ! -f "$db" ]; then
    # Killed before the session file was created: nothing to check.
    ok "record_sigkill_${delay}s (killed before the file existed)"
    continue
  fi
  ic=$(q "$db" 'PRAGMA integrity_check')
  after=$(session_sql "$db" 'select count(*) from samples')
  if [ "$ic" = ok ] && [[ "$after" =~ ^[0-9]+$ ]] && [ "$after" -ge "$before" ]; then
    ok "record_sigkill_${delay}s (committed $before before the kill, $after after)"
  else
    nok "record_sigkill_${delay}s" "integrity=$ic before=$before after=$after"
  fi
  if "$C2CTUI" report "$db" >/dev/null 2>"$E2E_TMP/rep.err"; then
    ok "record_sigkill_${delay}s_opens"
  else
    nok "record_sigkill_${delay}s_opens" "$(head -1 "$E2E_TMP/rep.err")"
  fi
done
kill $wpid 2>/dev/null
wait $wpid 2>/dev/null

# SIGKILL of `record -- cmd`: the workload dies with the collector instead
# of running on unwatched (the child asks for PR_SET_PDEATHSIG).
db=$E2E_TMP/orphan.db mark=c2c_orphan_$$
"$C2CTUI" record -q -o "$db" -- bash -c "exec -a $mark sleep 60" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do pgrep -f "^$mark" >/dev/null && break; sleep 0.2; done
if ! pgrep -f "^$mark" >/dev/null; then
  nok record_sigkill_workload "the workload never started"
else
  kill -KILL $pid; wait $pid 2>/dev/null
  for _ in $(seq 1 25); do pgrep -f "^$mark" >/dev/null || break; sleep 0.2; done
  if pgrep -f "^$mark" >/dev/null; then
    nok record_sigkill_workload "the workload still runs 5 s after record was killed"
    pkill -KILL -f "^$mark"
  else
    ok "record_sigkill_workload (the workload ended with record)"
  fi
fi
exit 0
