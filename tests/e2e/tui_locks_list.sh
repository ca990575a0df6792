#!/usr/bin/env bash
# Screen tests of the explorer on a session of lock waits alone (issue 11:
# a KVM guest has no memory-sampling PMU): the lock list is the first view
# (kind, lock, waits, total/max/avg wait, top caller, threads, CPUs), Enter
# lists a lock's callers and Enter on a caller its call stack; `l` goes to
# the lines holding the locks and back; `c` and a line's header count the
# CPUs and threads of the lock waits.
#  - generated (c2c-gen --scenario lock-tracepoints, imported): the screens
#    are deterministic, compared with tests/tui/expected/ll_*.txt at 80x24
#    and 120x40; every number of the list equals `c2ctui locks -l --format
#    json`'s (and its text), every caller row `c2ctui locks -L ADDR`'s;
#  - recorded (root only): `c2ctui record` of the contention workload's lock
#    mode, the list's numbers against `c2ctui locks -l`.
source "$(dirname "$0")/lib.sh"
source "$C2C_TOP/tests/tui/harness.sh"
T=tui_locks_list
command -v tmux >/dev/null || { skip "$T" "tmux is not installed"; exit 0; }
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/c2c-gen
[ -x "$GEN" ] || { skip "$T" "no $GEN"; exit 0; }

cp "$C2CTUI" "$E2E_TMP/c2ctui" && C2CTUI=$E2E_TMP/c2ctui
W=$E2E_TMP/w
mkdir -p "$W" && cd "$W" || exit 1

expect() { if tui_expect "$1"; then ok "$T: $1"; else nok "$T: $1" "screen differs"; fi; }
step() { local n=$1; shift; "$@" || { nok "$T: $n" "harness step failed: $*"; tui_screen | sed 's/^/#   /'; tui_stop; return 1; }; }

# The list's rows as "kind lock waits total max avg" from the screen (the
# columns are in that order at 120 columns), and the same from `locks -l`.
screen_rows() { tui_screen | awk '$1 ~ /^[0-9]+$/ && NF >= 9 { print $2, $3, $4, $5 " " $6, $7 " " $8, $9 " " $10 }'; }
json_rows() {
  "$C2CTUI" locks "$1" -l --format json | python3 -c '
import json, sys
def t(ns):
    import struct
    f = lambda x: struct.unpack("f", struct.pack("f", x))[0]
    for base, unit in ((3600e9, "h"), (60e9, "m"), (1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if f(ns) >= f(base):
            return "%.2f %s" % (f(f(ns) / f(base)), unit)
    return "%d ns" % ns
for l in json.load(sys.stdin)["locks"]:
    sym = l["symbol"]
    name = sym if sym and not sym.startswith("[") else l["address"]
    print(l["kind"], name, l["contended"], t(l["wait_total_ns"]), t(l["wait_max_ns"]), t(l["avg_wait_ns"]))'
}

# Every row on the screen is a row of `locks -l`; all of them when they fit,
# else a full screen of them (a real recording can wait on more locks, page
# table locks of every page the workload touched, than 40 lines show).
check_numbers() {  # NAME SESSION
  local a b na nb missing
  a=$(screen_rows | sort) b=$(json_rows "$2" | sort)
  na=$(grep -c . <<<"$a") nb=$(grep -c . <<<"$b")
  missing=$(comm -23 <(echo "$a") <(echo "$b"))
  if [ -n "$a" ] && [ -z "$missing" ] && { [ "$na" = "$nb" ] || { [ "$na" -lt "$nb" ] && [ "$na" -ge 25 ]; }; }; then
    ok "$T: $1: lock list numbers = locks -l --format json ($na of $nb locks on the screen)"
  else nok "$T: $1: lock list numbers = locks -l --format json" "$na screen rows, $nb locks; not in locks -l: $(head -3 <<<"$missing" | tr '\n' ';')"; fi
}

# --- generated -------------------------------------------------------------
if "$GEN" --scenario lock-tracepoints -o locks.data >/dev/null 2>&1 &&
   "$C2CTUI" import locks.data -o locks.db >/dev/null 2>&1; then
  if step start tui_start 80 24 -- "$C2CTUI" open locks.db; then
    expect ll_locks_80x24
    if grep -q "view=locks " "$TUI_STATE"; then ok "$T: the first view is the lock list"; else
      nok "$T: the first view is the lock list" "$(tui_state)"; fi
    step enter tui_key Enter && expect ll_callers_80x24
    step stack tui_key Enter && expect ll_stack_80x24
    step back tui_key Escape Escape && step sort tui_key s Left Enter && expect ll_locks_sorted
    step lines tui_key l && expect ll_lines_80x24
    # a lock-only line's CPUs and threads are those of its waits
    if command -v sqlite3 >/dev/null; then
      want=$(sqlite3 locks.db "SELECT 'CPUs ' || COUNT(DISTINCT cpu) || '  threads ' || COUNT(DISTINCT tid)
                               FROM lock_waits WHERE line = (SELECT line FROM lock_waits GROUP BY line ORDER BY SUM(wait_ns) DESC LIMIT 1)")
      step line tui_key Enter && tui_wait_text "lock waits" &&
        if tui_screen | sed -n 5p | grep -q -- "$want"; then ok "$T: line header counts the waits' CPUs and threads"
        else nok "$T: line header counts the waits' CPUs and threads" "want '$want': $(tui_screen | sed -n 5p)"; fi
      step line-back tui_key Escape
    else
      skip "$T: line header" "no sqlite3 to count the waits"
    fi
    step lines-back tui_key Escape
    if grep -q "view=locks " "$TUI_STATE"; then ok "$T: Esc from the lines comes back to the locks"; else
      nok "$T: Esc from the lines comes back to the locks" "$(tui_state)"; fi
    step cpus tui_key c && expect ll_cpus_80x24
    step cpus-back tui_key Escape
    tui_quit
    if [ "$TUI_STATUS" = 0 ]; then ok "$T: q exits 0"; else nok "$T: q exits 0" "status ${TUI_STATUS:-?}"; fi
    tui_stop
  fi
  if step start2 tui_start 120 40 -- "$C2CTUI" open locks.db; then
    expect ll_locks_120x40
    check_numbers generated locks.db
    # every caller row of the top lock = `c2ctui locks -L ADDR` (perf's rows of that lock)
    addr=$("$C2CTUI" locks locks.db -l --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["locks"][0]["address"])')
    step callers tui_key Enter && expect ll_callers_120x40
    a=$(tui_screen | awk '$1 ~ /^[0-9]+$/ && NF >= 10 { print $2, $3, $4, $5 " " $6, $7 " " $8, $9 " " $10 }' | sort)
    b=$("$C2CTUI" locks locks.db -L "$addr" --format json | python3 -c '
import json, sys, struct
f = lambda x: struct.unpack("f", struct.pack("f", x))[0]
def t(ns):
    for base, unit in ((3600e9, "h"), (60e9, "m"), (1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if f(ns) >= f(base):
            return "%.2f %s" % (f(f(ns) / f(base)), unit)
    return "%d ns" % ns
for l in json.load(sys.stdin)["locks"]:
    if l["contended"] or l["acquired"]:
        print(l["caller"], l["kind"], l["contended"], t(l["wait_total_ns"]), t(l["wait_max_ns"]), t(l["avg_wait_ns"]))' | sort)
    if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "$T: callers = locks -L $addr"; else nok "$T: callers = locks -L $addr" "screen: $a / locks: $b"; fi
    tui_quit
    tui_stop
  fi
else
  nok "$T: setup" "cannot generate and import the lock-tracepoints session"
fi

# --- recorded --------------------------------------------------------------
WL=$C2C_BUILD/workloads/contention
if [ "$(id -u)" != 0 ]; then
  skip "$T: recorded" "not root (recording lock tracepoints needs root)"
elif [ ! -x "$WL" ]; then
  skip "$T: recorded" "no $WL"
elif ! { { "$C2CTUI" record -o rec.db -- "$WL" -m locks -t 4 -d 1 -q >rec.log 2>&1 &&
           "$C2CTUI" locks rec.db -l >/dev/null 2>&1; } ||
         # a workload without a `locks` mode: mmap's munmap and page faults wait on mmap_lock
         { rm -f rec.db*; "$C2CTUI" record -o rec.db -- "$WL" -m mmap -t 4 -d 1 -q >rec.log 2>&1; }; }; then
  skip "$T: recorded" "c2ctui record failed: $(tail -1 rec.log)"
elif ! "$C2CTUI" locks rec.db -l >/dev/null 2>&1; then
  skip "$T: recorded" "the recording holds no lock contention"
else
  if step start3 tui_start 120 40 -- "$C2CTUI" open rec.db; then
    if grep -q "view=locks " "$TUI_STATE"; then
      check_numbers recorded rec.db
    else
      skip "$T: recorded" "the recording has memory samples too (view $(tui_state | grep -o 'view=[a-z]*'))"
    fi
    tui_quit
    tui_stop
  fi
fi
exit 0
