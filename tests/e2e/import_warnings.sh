#!/usr/bin/env bash
# c2ctui import warns on stderr about LOST records in perf report's words
# ("Processed N events and lost M chunks!") and about throttling; -q keeps
# it quiet. The recording is a generated one with four side-band records
# rewritten in place into LOST, THROTTLE, UNTHROTTLE and LOST_SAMPLES
# records of the same size (each keeps its sample_id trailer, which readers
# take from the end). perf 6.x writes both LOST and LOST_SAMPLES for the
# same losses; the session counts lost samples as perf does (from
# LOST_SAMPLES), not their sum.
source "$(dirname "$0")/lib.sh"
T=import_warnings
GEN=$C2C_BUILD/tools/c2c-gen
[ -x "$GEN" ] || { skip "$T" "no $GEN"; exit 0; }
cd "$E2E_TMP" || exit 1
"$GEN" --scenario true-sharing -o plain.data >/dev/null 2>&1 || { nok "$T: setup" "c2c-gen failed"; exit 0; }
python3 - plain.data lost.data <<'PY' || { nok "$T: setup" "cannot rewrite the recording"; exit 0; }
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
doff, dsz = struct.unpack_from('<QQ', b, 40)
o, exits = doff, []
while o < doff + dsz:
    t, m, s = struct.unpack_from('<IHH', b, o)
    if t == 4 and s >= 64:            # EXIT: pid, ppid, tid, ptid, time + trailer
        exits.append(o)
    o += s
assert len(exits) >= 5
for at, (typ, body) in zip(exits, [(2, struct.pack('<QQ', 0, 5)), (2, struct.pack('<QQ', 0, 7)),
                                   (5, struct.pack('<QQQ', 1, 0, 0)), (6, struct.pack('<QQQ', 2, 0, 0)),
                                   (13, struct.pack('<Q', 12))]):
    struct.pack_into('<I', b, at, typ)
    b[at + 8:at + 8 + len(body)] = body
open(sys.argv[2], 'wb').write(b)
# a second file that lost a quarter of its samples: perf's drop-rate warning
struct.pack_into('<Q', b, exits[4] + 8, 700)
open('drop.data', 'wb').write(b)
PY

want_events=$(perf report -i lost.data --stats 2>/dev/null | sed -n 's/^ *TOTAL events: *\([0-9]*\).*/\1/p')
"$C2CTUI" import lost.data -o lost.db >out.txt 2>err.txt
rc=$?
if [ $rc -ne 0 ]; then
  nok "$T: import" "exit $rc: $(head -2 err.txt)"
elif ! grep -qE '^Warning: Processed [0-9]+ events and lost 2 chunks! Check IO/CPU overload!$' err.txt; then
  nok "$T: lost chunks as perf says" "stderr: $(head -3 err.txt)"
elif [ -n "$want_events" ] && ! grep -q "Processed $want_events events" err.txt; then
  nok "$T: lost chunks as perf says" "perf processed $want_events events; we say: $(head -1 err.txt)"
else
  ok "$T: lost chunks as perf says${want_events:+ (perf report: $want_events events)}"
fi
if grep -q "^Warning: the kernel throttled sampling 1 time (1 unthrottled" err.txt; then
  ok "$T: throttling"
else
  nok "$T: throttling" "stderr: $(cat err.txt)"
fi
"$C2CTUI" import -q lost.data -o quiet.db >qout.txt 2>qerr.txt
if [ $? -eq 0 ] && [ ! -s qerr.txt ] && [ ! -s qout.txt ]; then ok "$T: -q is quiet"; else nok "$T: -q is quiet" "$(cat qerr.txt qout.txt | head -2)"; fi
"$C2CTUI" import plain.data -o plain.db >/dev/null 2>perr.txt
if [ ! -s perr.txt ]; then ok "$T: no warning without losses"; else nok "$T: no warning without losses" "$(head -1 perr.txt)"; fi
# perf report --stats prints the LOST_SAMPLES records, then their total.
want_lost=$(perf report -i lost.data --stats 2>/dev/null | sed -n 's/^ *LOST_SAMPLES events: *\([0-9]*\)$/\1/p' | tail -1)
got_lost=$(sqlite3 -readonly lost.db "select value from counters where name='lost_samples'" 2>/dev/null)
if [ -z "$want_lost" ]; then
  skip "$T: lost samples as perf counts them" "perf report --stats printed no LOST_SAMPLES total"
elif [ "$got_lost" = "$want_lost" ]; then
  ok "$T: lost samples as perf counts them ($got_lost, not LOST + LOST_SAMPLES)"
else
  nok "$T: lost samples as perf counts them" "perf $want_lost, session $got_lost"
fi
want_drop=$(perf report -i drop.data --stdio 2>&1 >/dev/null | grep -o 'Processed [0-9]* samples and lost [0-9.]*%' | head -1)
"$C2CTUI" import drop.data -o drop.db >/dev/null 2>derr.txt
got_drop=$(grep -o 'Processed [0-9]* samples and lost [0-9.]*%' derr.txt | head -1)
if [ -n "$got_drop" ] && { [ -z "$want_drop" ] || [ "$got_drop" = "$want_drop" ]; }; then
  ok "$T: drop rate as perf says ($got_drop${want_drop:+, perf: $want_drop})"
else
  nok "$T: drop rate as perf says" "perf: '$want_drop', we: '$(head -3 derr.txt | tr '\n' ' ')'"
fi
if grep -q 'samples and lost' err.txt; then nok "$T: no drop-rate warning under 5%" "$(grep 'samples and lost' err.txt)"
else ok "$T: no drop-rate warning under 5%"; fi
# report / locks / open of a perf.data import it first: the same warnings,
# as perf report prints them for the same file
"$C2CTUI" report lost.data >/dev/null 2>rerr.txt
if grep -qE '^Warning: Processed [0-9]+ events and lost 2 chunks! Check IO/CPU overload!$' rerr.txt &&
   [ "$(grep -c '^Warning' rerr.txt)" = "$(grep -c '^Warning' err.txt)" ]; then
  ok "$T: report of a perf.data warns as import does"
else
  nok "$T: report of a perf.data warns as import does" "$(head -3 rerr.txt | tr '\n' '|')"
fi
