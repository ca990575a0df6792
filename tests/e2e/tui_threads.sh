#!/usr/bin/env bash
# The threads / processes view (`p`) and `report --threads/--processes` on
# a generated recording (c2c-gen --scenario mixed): each of the first
# threads' numbers equals a direct recount from its samples (sqlite3 over
# the session's samples table: the c2c counters from class_bits, distinct
# lines and CPUs), the rows' counters sum to the session's totals (report's
# JSON trace), per process the same; the screens at 80x24 and 200x50, Tab,
# and Enter filtering every view to the thread / process.
source "$(dirname "$0")/lib.sh"
source "$C2C_TOP/tests/tui/harness.sh"

T=tui_threads
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/c2c-gen
[ -x "$GEN" ] || { skip "$T" "no $GEN"; exit 0; }
cp "$C2CTUI" "$E2E_TMP/c2ctui" && C2CTUI=$E2E_TMP/c2ctui
W=$E2E_TMP/work
mkdir -p "$W" && cd "$W" || exit 1
"$GEN" --scenario mixed -o m.data >/dev/null 2>&1 &&
  "$C2CTUI" import m.data -o m.db >/dev/null 2>&1 || { nok "$T: setup" "cannot generate and import a session"; exit 0; }

# --- report --threads / --processes against a recount ----------------------
if ! command -v sqlite3 >/dev/null; then
  skip "$T: recount" "sqlite3 is not installed"
else
  "$C2CTUI" report m.db --threads --format csv >threads.csv &&
    "$C2CTUI" report m.db --processes --format csv >procs.csv &&
    "$C2CTUI" report m.db --format json --stats >stats.json ||
    { nok "$T: report" "report --threads/--processes/--stats failed"; exit 0; }
  # bits of counter i: (class_bits >> 2i) & 3 (collector/c2c/c2c.h order)
  c() { echo "((class_bits >> $((2 * $1))) & 3)"; }
  HITM=$(c 21) LCL=$(c 19) RMT=$(c 20)
  STORES="$(c 5) + $(c 6) + $(c 7)"
  LOADS="$(c 26) + $(c 27) + $(c 20) + $(c 25) + $(c 15) + $(c 16) + $(c 17) + $(c 18) + $(c 19)"
  LINES="COUNT(DISTINCT CASE WHEN (class_bits & 3) != 0 THEN ((addr & -64) | COALESCE(line_var, 0)) END)"
  recount() {  # recount KEY VALUE: the csv fields after the key columns
    "$C2CTUI" sql --no-header m.db "SELECT SUM($HITM), SUM($LCL), SUM($RMT), SUM($LOADS), SUM($STORES),
      SUM($LOADS) + SUM($STORES), $LINES, COUNT(DISTINCT cpu) FROM samples WHERE $1 = $2"
  }
  bad=0 n=0
  while IFS=, read -r tid pid comm rest; do
    n=$((n + 1)); [ $n -gt 4 ] && break
    want=$(recount tid "$tid")
    [ "$rest" = "$want" ] || { bad=1; echo "# tid $tid: report $rest, samples $want"; }
    name=$(sqlite3 m.db "SELECT comm FROM comms WHERE tid = $tid ORDER BY time DESC, id DESC LIMIT 1")
    [ "$comm" = "\"$name\"" ] || { bad=1; echo "# tid $tid: comm $comm, comms table $name"; }
  done < <(tail -n +2 threads.csv)
  if [ $bad = 0 ] && [ $n -gt 4 ]; then ok "$T: first threads equal a recount from their samples"
  else nok "$T: first threads equal a recount from their samples" "see above ($n rows)"; fi
  bad=0
  while IFS=, read -r pid comm threads rest; do
    want=$(recount pid "$pid")
    [ "$rest" = "$want" ] || { bad=1; echo "# pid $pid: report $rest, samples $want"; }
    [ "$threads" = "$(session_sql m.db "SELECT COUNT(DISTINCT tid) FROM samples WHERE pid = $pid")" ] || bad=1
  done < <(tail -n +2 procs.csv)
  if [ $bad = 0 ]; then ok "$T: processes equal a recount from their samples"
  else nok "$T: processes equal a recount from their samples" "see above"; fi
  # the rows' counters sum to the session's (the report's trace section)
  if python3 - threads.csv procs.csv stats.json <<'PY'
import csv, json, sys
tr = {e["key"]: e["value"] for e in json.load(open(sys.argv[3]))["trace"]}
loads = tr["llc_misses"] + tr["ld_fbhit"] + tr["ld_l1hit"] + tr["ld_l2hit"] + tr["ld_llc_hit"]
stores = tr["st_l1hit"] + tr["st_l1miss"] + tr["st_na"]
want = {"hitm": tr["lcl_hitm"] + tr["rmt_hitm"], "lcl_hitm": tr["lcl_hitm"], "rmt_hitm": tr["rmt_hitm"],
        "loads": loads, "stores": stores, "records": loads + stores}
for f in sys.argv[1:3]:
    rows = list(csv.DictReader(open(f)))
    for k, v in want.items():
        got = sum(int(r[k]) for r in rows)
        if got != v:
            print("# %s: %s sums to %d, the session has %d" % (f, k, got, v)); sys.exit(1)
PY
  then ok "$T: thread and process rows sum to the session's totals"
  else nok "$T: thread and process rows sum to the session's totals" "see above"; fi
fi
for fmt in text json; do
  if "$C2CTUI" report m.db --threads --format $fmt >t.$fmt 2>t.err && [ -s t.$fmt ]; then ok "$T: --threads --format $fmt"
  else nok "$T: --threads --format $fmt" "$(head -1 t.err)"; fi
done
if python3 -c 'import json,sys; d=json.load(open("t.json")); sys.exit(0 if d["threads"] and "lines" in d["threads"][0] else 1)'
then ok "$T: --threads JSON parses"; else nok "$T: --threads JSON parses"; fi

# --- screens ---------------------------------------------------------------
command -v tmux >/dev/null || { skip "$T: screens" "tmux is not installed"; exit 0; }
step() { local n=$1; shift; "$@" || { nok "$T: $n" "harness step failed: $*"; tui_screen | sed 's/^/#   /'; tui_stop; return 1; }; }
# expect NAME [TEXT]: once TEXT is on the screen (the background query
# landed), the screen equals tests/tui/expected/NAME.txt.
expect() {
  [ -n "${2:-}" ] && tui_wait_text "$2"
  if tui_expect "$1"; then ok "$T: $1"; else nok "$T: $1" "screen differs"; fi
}
if step start tui_start 80 24 -- "$C2CTUI" open m.db; then
  step threads tui_key p && expect threads_80x24 "Threads: 12"
  step down tui_key Down && expect threads_cursor "Threads: 12"
  step processes tui_key Tab && expect processes_80x24 "Processes: 2"
  step filter tui_key Down Enter && expect threads_pid_filter "filter pid:"
  step again tui_key p && expect threads_filtered "Threads: 4"
  step tid tui_key Enter && expect threads_tid_filter "filter tid:"
  tui_quit
  tui_stop
fi
if step start200 tui_start 200 50 -- "$C2CTUI" open m.db; then
  step threads200 tui_key p && expect threads_200x50 "Threads: 12"
  tui_quit
  tui_stop
fi
