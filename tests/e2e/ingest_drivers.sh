#!/usr/bin/env bash
# The import driver and the live driver write the same session from the
# same records: every perf.data below goes through `c2ctui import` (bulk
# load, big transactions) and through the live sink (tests/tools/live_replay:
# the callbacks a live collection's writer thread calls, committing every
# few hundred records), and every table of the two sessions must hold the
# same rows. Left out: meta, counters and the c2ctui_session marker, which
# describe how a session was collected (when, by which command, the
# collector's own counters), not what it holds.
. "$(dirname "$0")/lib.sh"
cd "$E2E_TMP" || exit 1
replay=$C2C_BUILD/tools/live_replay
gen=$C2C_BUILD/tools/c2c-gen
command -v sqlite3 >/dev/null || { skip ingest_drivers "sqlite3 command not installed"; exit 0; }

# dump DB: every table but meta/counters, each row quoted, sorted.
dump() {
  local t
  for t in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type='table' AND name NOT IN ('meta','counters','c2ctui_session') ORDER BY name"); do
    echo "== $t"
    sqlite3 -batch -noheader "$1" ".mode quote" "SELECT * FROM \"$t\"" | LC_ALL=C sort
  done
}

compare() { # NAME FILE [flush]
  local name=$1 f=$2 flush=${3:-500}
  rm -f imp.db live.db
  if ! "$C2CTUI" import "$f" -o imp.db -q >imp.log 2>&1; then
    nok "ingest_drivers $name" "import failed: $(tail -1 imp.log)"; return
  fi
  if ! "$replay" "$f" live.db --flush "$flush" >live.log 2>&1; then
    nok "ingest_drivers $name" "live replay failed: $(tail -1 live.log)"; return
  fi
  dump imp.db > imp.txt; dump live.db > live.txt
  local rows; rows=$(grep -vc '^== ' imp.txt)
  if [ "$rows" -lt 10 ]; then
    nok "ingest_drivers $name" "only $rows rows imported: nothing to compare"
  elif cmp -s imp.txt live.txt; then
    ok "ingest_drivers $name: $(grep -c '^== ' imp.txt) tables, $rows rows identical"
  else
    nok "ingest_drivers $name" "sessions differ: $(diff imp.txt live.txt | grep -m3 '^[<>]' | cut -c1-200 | tr '\n' ' ')"
  fi
}

for s in false-sharing true-sharing classes mixed line-identity lock-tracepoints; do
  if "$gen" --scenario "$s" -o "$s.data" --samples 3000 --nodes 2 --cpus 8 >/dev/null 2>&1; then
    compare "$s" "$s.data"
  else
    nok "ingest_drivers $s" "c2c-gen failed"
  fi
done
"$gen" --scenario mixed -o pipe.data --samples 2000 --pipe >/dev/null 2>&1 && compare "mixed (pipe format, flush 1)" pipe.data 1
n=0
for f in "$C2C_FIXTURES"/real/*.data; do
  [ -f "$f" ] || continue
  compare "$(basename "$f")" "$f" 997
  n=$((n + 1))
done
[ "$n" -gt 0 ] || skip "ingest_drivers real recordings" "no fixtures under $C2C_FIXTURES/real"
