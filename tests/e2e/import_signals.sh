#!/usr/bin/env bash
# SIGINT / SIGTERM during c2ctui import: it commits what it read, says so on
# one line, exits non-zero, and the session file is valid.
. "$(dirname "$0")/lib.sh"
GEN=$C2C_BUILD/tools/c2c-gen

if [ ! -x "$C2CTUI" ] || [ ! -x "$GEN" ] || ! command -v sqlite3 >/dev/null; then
  skip import_signals "needs $C2CTUI, $GEN and sqlite3"
  exit 0
fi
big=$E2E_TMP/big.data
"$GEN" --scenario bench --samples 1500000 -o "$big" >/dev/null 2>&1 || { skip import_signals "generator failed"; exit 0; }

for sig in INT TERM; do
  db=$E2E_TMP/sig$sig.db
  "$C2CTUI" import -q --batch 20000 "$big" -o "$db" 2>"$E2E_TMP/err" &
  pid=$!
  # Wait until the import has written samples (the file grows past its
  # empty schema), then interrupt. The file's size, not a query: a reader
  # polling the session holds locks the import's commits must wait for,
  # and under a loaded sanitizer build one of those commits gave up.
  for _ in $(seq 1 200); do
    [ "$(stat -c %s "$db" 2>/dev/null || echo 0)" -gt 2000000 ] && break
    sleep 0.05
  done
  kill -$sig $pid 2>/dev/null
  wait $pid
  rc=$?
  if [ $rc -eq 0 ]; then
    skip "import_sig$sig" "the import finished before the signal arrived"
    continue
  fi
  n=$(session_sql "$db" 'SELECT COUNT(*) FROM samples' 2>/dev/null)
  if [ $rc -ne 1 ]; then
    nok "import_sig$sig" "exit status $rc (killed instead of stopping cleanly?)"
  elif [ "$(grep -vc '^$' "$E2E_TMP/err")" -ne 1 ] || ! grep -q interrupted "$E2E_TMP/err"; then
    nok "import_sig$sig" "stderr: $(cat "$E2E_TMP/err")"
  elif [ "$(sqlite3 "$db" 'PRAGMA integrity_check')" != ok ] || [ "${n:-0}" -le 0 ]; then
    nok "import_sig$sig" "session damaged or empty ($n samples)"
  elif [ "$(sqlite3 "$db" "SELECT SUM(nr_entries) FROM agg_cpu")" != "$n" ]; then
    nok "import_sig$sig" "aggregates do not match the $n stored samples"
  else
    ok "import_sig$sig"
  fi
done
