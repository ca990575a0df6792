#!/usr/bin/env bash
# A session says whether it is complete, everywhere it is shown (issue 12,
# point 1): imports killed at several moments, interrupted imports, killed
# records, damaged inputs (each either reported or giving a byte-identical
# report), a rerun of a killed import, and `import -o` made exclusively.
# Reading never changes the file (md5 before and after every reader).
. "$(dirname "$0")/lib.sh"
GEN=$C2C_BUILD/tools/c2c-gen
WORK=$C2C_BUILD/workloads/contention

if [ ! -x "$C2CTUI" ] || [ ! -x "$GEN" ] || ! command -v python3 >/dev/null; then
  skip session_status "needs $C2CTUI, $GEN and python3"
  exit 0
fi

# json FILE EXPR: a value of report --format json's output
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
md5() { cat "$@" 2>/dev/null | md5sum | cut -d' ' -f1; }

big=$E2E_TMP/big.data
"$GEN" --scenario bench --samples 3000000 -o "$big" >/dev/null 2>&1 || { nok session_status "generator failed"; exit 0; }
"$C2CTUI" import -q "$big" -o "$E2E_TMP/full.db" 2>/dev/null
"$C2CTUI" report "$E2E_TMP/full.db" --format json >"$E2E_TMP/full.json"
full=$(json "$E2E_TMP/full.json" 'd["samples"]')
if [ "$(json "$E2E_TMP/full.json" 'd["session"]["state"]')" = complete ] && [ "$full" -gt 0 ]; then
  ok complete_session_says_complete
else
  nok complete_session_says_complete "$(json "$E2E_TMP/full.json" 'd["session"]')"
fi

# ---- imports killed (SIGKILL) at several moments --------------------------
# The moments are file sizes (a loaded sanitizer build is slower) and, last,
# a time well after the first once-a-second commit: counted from when the
# samples' first pages reach the file, so a slow start (sanitizer, cold
# cache) or a slow first fsync on a loaded machine does not count.
# The time moment imports a recording twice as big: a fast machine imported
# 3M samples in little more than the 2.5 s.
big6=$E2E_TMP/big6.data
for moment in size:200000 size:20000000 time:2.5; do
  db=$E2E_TMP/kill.db src=$big total=$full
  if [ "${moment%%:*}" = time ]; then
    [ -f "$big6" ] || "$GEN" --scenario bench --samples 6000000 -o "$big6" >/dev/null 2>&1 ||
      { nok "import_killed_$moment" "generator failed"; continue; }
    src=$big6 total=6000000
  fi
  rm -f "$db" "$db-journal"
  "$C2CTUI" import -q "$src" -o "$db" 2>/dev/null &
  pid=$!
  case $moment in
    size:*) for _ in $(seq 1 400); do
              [ "$(stat -c %s "$db" 2>/dev/null || echo 0)" -gt "${moment#size:}" ] && break; sleep 0.02
            done ;;
    time:*) for _ in $(seq 1 400); do
              [ "$(stat -c %s "$db" 2>/dev/null || echo 0)" -gt 200000 ] && break; sleep 0.02
            done
            sleep "${moment#time:}" ;;
  esac
  kill -KILL $pid 2>/dev/null
  killed=$?
  wait $pid 2>/dev/null
  if [ $killed -ne 0 ]; then
    skip "import_killed_$moment" "the import had finished before the kill"
    continue
  fi
  before=$(md5 "$db" "$db-journal")
  "$C2CTUI" report "$db" --format json >"$E2E_TMP/k.json" 2>"$E2E_TMP/k.err"
  rc=$?
  "$C2CTUI" report "$db" >"$E2E_TMP/k.txt" 2>&1
  after=$(md5 "$db" "$db-journal")
  state=$(json "$E2E_TMP/k.json" 'd["session"]["state"]' 2>/dev/null)
  kept=$(json "$E2E_TMP/k.json" 'd["session"]["samples"]' 2>/dev/null)
  shown=$(json "$E2E_TMP/k.json" 'd["samples"]' 2>/dev/null)
  if [ $rc -ne 0 ]; then
    nok "import_killed_$moment" "report failed: $(cat "$E2E_TMP/k.err")"
  elif [ "$state" = complete ] && [ "$kept" = "$total" ] && [ "$shown" = "$total" ]; then
    # killed while it closed the finalized file: nothing was cut short
    skip "import_killed_$moment" "the import had finalized the session before the kill"
  elif [ "$state" != unfinished ]; then
    nok "import_killed_$moment" "state '$state', want unfinished"
  elif [ "$kept" != "$shown" ] || [ "$kept" -ge "$total" ]; then
    nok "import_killed_$moment" "kept $kept, report shows $shown of $total"
  elif [ "${moment%%:*}" = time ] && [ "$kept" -eq 0 ]; then
    nok "import_killed_$moment" "nothing kept after ${moment#time:} s (commits at least once a second)"
  elif ! head -1 "$E2E_TMP/k.txt" | grep -q "kill.db: unfinished session: never finalized.*$kept samples"; then
    nok "import_killed_$moment" "text report's first line: $(head -1 "$E2E_TMP/k.txt")"
  elif [ "$before" != "$after" ]; then
    nok "import_killed_$moment" "reading changed the file or its journal"
  else
    ok "import_killed_$moment ($kept of $total samples kept)"
  fi
done

# A rerun of the killed import redoes it, saying so; the result is complete.
if [ -e "$E2E_TMP/kill.db" ] && [ "$state" = unfinished ]; then
  "$C2CTUI" import -q "$src" -o "$E2E_TMP/kill.db" 2>"$E2E_TMP/redo.err"
  rc=$?
  "$C2CTUI" report "$E2E_TMP/kill.db" --format json >"$E2E_TMP/redo.json" 2>/dev/null
  if [ $rc -eq 0 ] && grep -q "unfinished import.*importing it again" "$E2E_TMP/redo.err" &&
     [ "$(json "$E2E_TMP/redo.json" 'd["session"]["state"]')" = complete ] &&
     [ "$(json "$E2E_TMP/redo.json" 'd["samples"]')" = "$total" ]; then
    ok import_rerun_redoes_killed
  else
    nok import_rerun_redoes_killed "rc=$rc $(cat "$E2E_TMP/redo.err")"
  fi
fi

# ---- interrupted imports: partial, with the signal --------------------------
for sig in INT TERM; do
  db=$E2E_TMP/int$sig.db
  "$C2CTUI" import -q "$big" -o "$db" 2>/dev/null &
  pid=$!
  for _ in $(seq 1 400); do
    [ "$(stat -c %s "$db" 2>/dev/null || echo 0)" -gt 20000000 ] && break; sleep 0.02
  done
  kill -$sig $pid 2>/dev/null
  wait $pid
  rc=$?
  if [ $rc -eq 0 ]; then skip "import_sig${sig}_partial" "the import finished first"; continue; fi
  "$C2CTUI" report "$db" --format json >"$E2E_TMP/i.json" 2>/dev/null
  "$C2CTUI" report "$db" --format csv >"$E2E_TMP/i.csv" 2>/dev/null
  if [ "$(json "$E2E_TMP/i.json" 'd["session"]["state"]')" = partial ] &&
     json "$E2E_TMP/i.json" 'd["session"]["why"]' | grep -q "interrupted by SIG$sig" &&
     grep -q "^session,partial," "$E2E_TMP/i.csv"; then
    ok "import_sig${sig}_partial"
  else
    nok "import_sig${sig}_partial" "$(json "$E2E_TMP/i.json" 'd["session"]')"
  fi
done

# The explorer's header says it too (and diff, for either side).
if command -v tmux >/dev/null && [ -e "$E2E_TMP/intINT.db" ]; then
  sock=c2cst$$
  tmux -L $sock new-session -d -x 160 -y 20 "env LANG=C.UTF-8 TERM=xterm-256color $C2CTUI open $E2E_TMP/intINT.db"
  seen=
  for _ in $(seq 1 100); do
    tmux -L $sock capture-pane -p >"$E2E_TMP/screen" 2>/dev/null
    grep -q "Hot cache lines" "$E2E_TMP/screen" && { seen=1; break; }
    sleep 0.1
  done
  tmux -L $sock send-keys q 2>/dev/null
  sleep 0.3
  tmux -L $sock kill-server 2>/dev/null
  if [ -n "$seen" ] && sed -n 4p "$E2E_TMP/screen" | grep -q "intINT.db: partial session: import interrupted by SIGINT"; then
    ok open_header_says_partial
  else
    nok open_header_says_partial "$(head -5 "$E2E_TMP/screen" | tr '\n' '|')"
  fi
  "$C2CTUI" report --diff "$E2E_TMP/full.db" "$E2E_TMP/intINT.db" --no-attribute >"$E2E_TMP/diff.txt" 2>&1
  "$C2CTUI" report --diff "$E2E_TMP/full.db" "$E2E_TMP/intINT.db" --no-attribute --format json >"$E2E_TMP/diff.json" 2>&1
  if grep -q "# .*intINT.db: partial session" "$E2E_TMP/diff.txt" &&
     [ "$(json "$E2E_TMP/diff.json" 'd["after"]["session"]["state"]+"/"+d["before"]["session"]["state"]')" = partial/complete ]; then
    ok diff_says_partial
  else
    nok diff_says_partial "$(head -3 "$E2E_TMP/diff.txt" | tr '\n' '|')"
  fi
else
  skip open_header_says_partial "needs tmux and an interrupted session"
fi

# ---- a killed record ----------------------------------------------------------
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/events/lock/contention_begin ] && [ -x "$WORK" ]; then
  db=$E2E_TMP/rec.db
  "$C2CTUI" record -q -o "$db" -- "$WORK" -m pipe -t 2 -d 6 -q >/dev/null 2>&1 &
  pid=$!
  sleep 2.5
  kill -KILL $pid 2>/dev/null
  wait $pid 2>/dev/null
  "$C2CTUI" report "$db" --format json >"$E2E_TMP/r.json" 2>"$E2E_TMP/r.err"
  "$C2CTUI" locks "$db" >/dev/null 2>"$E2E_TMP/l.err"
  if [ "$(json "$E2E_TMP/r.json" 'd["session"]["state"]' 2>/dev/null)" = unfinished ] &&
     grep -q "rec.db: unfinished session: never finalized: the record was killed" "$E2E_TMP/l.err"; then
    ok record_killed_unfinished
  else
    nok record_killed_unfinished "$(cat "$E2E_TMP/r.err" "$E2E_TMP/l.err" | head -3 | tr '\n' '|')"
  fi
else
  skip record_killed_unfinished "needs root and the lock:contention_begin tracepoint"
fi

# ---- damaged inputs: reported, or a byte-identical report -------------------
# Cuts at the tail (the feature sections and their padding), in the data,
# and flipped bytes in the feature table and the data, over the real
# fixtures and a generated recording; every header feature's section moved,
# resized, emptied and flipped in the first two.
"$GEN" --scenario mixed --samples 3000 -o "$E2E_TMP/mixed.data" >/dev/null 2>&1
inputs=("$E2E_TMP/mixed.data")
for f in "$C2C_FIXTURES"/real/*.data; do [ -f "$f" ] && inputs+=("$f"); done
python3 - "$E2E_TMP/dmg" "${inputs[@]}" <<'PY'
import os, struct, sys
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
for i, path in enumerate(sys.argv[2:]):
    d = open(path, 'rb').read()
    doff, dsz = struct.unpack_from('<QQ', d, 40)
    cases = {}
    for cut in (1, 3, 4, 5, 16, 100):
        cases['tail%d' % cut] = d[:len(d) - cut]
    cases['data_half'] = d[:doff + dsz // 2]
    cases['data_end'] = d[:doff + dsz - 3]
    t = doff + dsz
    if t + 16 <= len(d):
        b = bytearray(d); struct.pack_into('<Q', b, t + 8, 1 << 40); cases['feat_size'] = bytes(b)
        b = bytearray(d); struct.pack_into('<Q', b, t, len(d) + 4096); cases['feat_off'] = bytes(b)
    b = bytearray(d); struct.pack_into('<H', b, doff + 6, 4); cases['rec_size4'] = bytes(b)
    # every header feature of the first inputs: its section's size and
    # offset off by a little, emptied, and a byte flipped inside it
    if i < 2:
        feats = d[72:104]
        bits = [k for k in range(256) if (feats[k // 8] >> (k % 8)) & 1]
        for j, k in enumerate(bits):
            if t + 16 * (j + 1) > len(d):
                break
            o, sz = struct.unpack_from('<QQ', d, t + 16 * j)
            for how, (no, ns) in {'grow8': (o, sz + 8), 'shrink8': (o, max(0, sz - 8)), 'shift4': (o + 4, sz),
                                  'zero': (o, 0)}.items():
                b = bytearray(d); struct.pack_into('<QQ', b, t + 16 * j, no, ns); cases['f%d_%s' % (k, how)] = bytes(b)
            if sz > 8 and o + sz <= len(d):
                b = bytearray(d); b[o + sz // 2] ^= 0xff; cases['f%d_flip' % k] = bytes(b)
    for name, data in cases.items():
        open(os.path.join(out, '%d-%s-%s.data' % (i, os.path.basename(path).split('.')[0], name)), 'wb').write(data)
PY
reported=0 identical=0 bad=0
for dmg in "$E2E_TMP"/dmg/*.data; do
  n=$(basename "$dmg" .data)
  idx=${n%%-*}
  orig=${inputs[$idx]}
  db=$E2E_TMP/dmg.db
  rm -f "$db"
  "$C2CTUI" import -q "$dmg" -o "$db" >/dev/null 2>"$E2E_TMP/d.err"
  rc=$?
  if [ $rc -ge 124 ]; then
    nok "damaged_$n" "crashed (status $rc)"; bad=$((bad + 1)); continue
  fi
  if [ $rc -ne 0 ]; then
    # reported: one line naming the input or the session, and a partial
    # (or no) session
    lines=$(grep -vc '^$' "$E2E_TMP/d.err")
    state=none
    [ -e "$db" ] && state=$("$C2CTUI" report "$db" --format json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["session"]["state"])')
    if [ "$lines" -eq 1 ] && grep -qE "$(basename "$dmg")|dmg.db" "$E2E_TMP/d.err" && [ "$state" != complete ]; then
      reported=$((reported + 1))
    else
      nok "damaged_$n" "exit $rc, $lines lines, state $state: $(head -2 "$E2E_TMP/d.err" | tr '\n' '|')"; bad=$((bad + 1))
    fi
    continue
  fi
  # exit 0: the damage cost nothing, so the report must be the original's
  if [ ! -f "$E2E_TMP/orig$idx.txt" ]; then
    "$C2CTUI" import -q "$orig" -o "$E2E_TMP/orig.db" 2>/dev/null
    "$C2CTUI" report "$E2E_TMP/orig.db" >"$E2E_TMP/orig$idx.txt" 2>&1
    rm -f "$E2E_TMP/orig.db"
  fi
  "$C2CTUI" report "$db" >"$E2E_TMP/d.txt" 2>&1
  if cmp -s "$E2E_TMP/d.txt" "$E2E_TMP/orig$idx.txt"; then
    identical=$((identical + 1))
  else
    nok "damaged_$n" "imported with exit 0 and no message, but its report differs from the undamaged file's"
    bad=$((bad + 1))
  fi
done
[ $bad -eq 0 ] && ok "damaged_inputs ($reported reported, $identical identical reports)"

# ---- import -o: exclusive, -f replaces, messages say what happened -----------
small=$E2E_TMP/small.data
"$GEN" --scenario mixed --samples 200000 -o "$small" >/dev/null 2>&1
echo keep >"$E2E_TMP/exists.db"
"$C2CTUI" import -q "$small" -o "$E2E_TMP/exists.db" 2>"$E2E_TMP/e.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(cat "$E2E_TMP/exists.db")" = keep ] && grep -q "exists (use -f to replace it)" "$E2E_TMP/e.err" &&
   ! grep -q removed "$E2E_TMP/e.err"; then
  ok import_output_exists_refused
else
  nok import_output_exists_refused "rc=$rc $(cat "$E2E_TMP/e.err")"
fi
"$C2CTUI" import -q -f "$small" -o "$E2E_TMP/exists.db" 2>"$E2E_TMP/e.err"
rc=$?
if [ $rc -eq 0 ] && "$C2CTUI" report "$E2E_TMP/exists.db" --format json 2>/dev/null | grep -q '"state":"complete"'; then
  ok import_force_replaces
else
  nok import_force_replaces "rc=$rc $(cat "$E2E_TMP/e.err")"
fi
want=$("$C2CTUI" report "$E2E_TMP/exists.db" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])')
race_bad=
for try in 1 2 3 4 5; do
  db=$E2E_TMP/same$try.db
  "$C2CTUI" import -q "$small" -o "$db" 2>"$E2E_TMP/a.err" & a=$!
  "$C2CTUI" import -q "$small" -o "$db" 2>"$E2E_TMP/b.err" & b=$!
  wait $a; ra=$?
  wait $b; rb=$?
  got=$("$C2CTUI" report "$db" --format json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["session"]["state"], d["samples"])' 2>/dev/null)
  wins=$(( (ra == 0) + (rb == 0) ))
  if [ $wins -ne 1 ] || [ "$got" != "complete $want" ] || grep -q removed "$E2E_TMP/a.err" "$E2E_TMP/b.err"; then
    race_bad="try $try: exits $ra/$rb, session '$got' (want complete $want): $(cat "$E2E_TMP/a.err" "$E2E_TMP/b.err" | tr '\n' '|')"
    break
  fi
done
if [ -z "$race_bad" ]; then ok import_same_output_at_once; else nok import_same_output_at_once "$race_bad"; fi
