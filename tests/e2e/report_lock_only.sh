#!/usr/bin/env bash
# c2ctui report on a session of lock waits alone (issue 11: no memory PMU
# on a KVM guest): the text report leaves out perf c2c's memory sections
# (all zeros and -nan% there), says "no memory samples in this session"
# once and prints the lock section, whose rows are the session's locks;
# --stats stops after that line. A session with memory samples keeps perf's
# layout (agree_perf.sh compares it with perf c2c byte for byte).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
T=report_lock_only
gen=$C2C_BUILD/tools/c2c-gen
if [ ! -x "$C2CTUI" ] || [ ! -x "$gen" ]; then
	skip "$T" "c2ctui or c2c-gen is not built"
	exit 0
fi
db=$E2E_TMP/locks.db
"$gen" --scenario lock-tracepoints -o "$E2E_TMP/locks.data" >/dev/null 2>&1 &&
"$C2CTUI" import -q "$E2E_TMP/locks.data" -o "$db" 2>/dev/null ||
	{ nok "$T: setup" "cannot generate and import the lock-tracepoints session"; exit 0; }

"$C2CTUI" report "$db" >"$E2E_TMP/r.txt" 2>"$E2E_TMP/r.err" || nok "$T: exit" "status $?"
n=$(grep -c "no memory samples in this session" "$E2E_TMP/r.txt")
[ "$n" = 1 ] && ok "$T: says once that there are no memory samples" ||
	nok "$T: says once that there are no memory samples" "$n times"
if grep -qE "Trace Event Information|Global Shared Cache Line|Shared Data Cache Line Table|Pareto|nan" "$E2E_TMP/r.txt"; then
	nok "$T: no empty memory sections" "$(grep -nE 'Trace Event|Global Shared|Shared Data|Pareto|nan' "$E2E_TMP/r.txt" | head -3 | tr '\n' '|')"
else
	ok "$T: no empty memory sections"
fi
grep -q "c2c details" "$E2E_TMP/r.txt" && grep -q "lock:contention_begin" "$E2E_TMP/r.txt" &&
	ok "$T: details name the events" || nok "$T: details name the events" "no c2c details with the events"
# the lock section: one row per lock of `c2ctui locks -l`, same waits
want=$("$C2CTUI" locks "$db" -l --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["locks"]))')
got=$(grep -cE '^  0x[0-9a-f]{16}  \+0x' "$E2E_TMP/r.txt")
grep -q "Lock Contention" "$E2E_TMP/r.txt" && [ "$got" = "$want" ] && [ "$want" -gt 0 ] &&
	ok "$T: the lock section lists every lock" || nok "$T: the lock section lists every lock" "$got rows, locks -l has $want"
waits=$("$C2CTUI" report "$db" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["lock_waits"])')
grep -qE "^  Lock waits +: +$waits$" "$E2E_TMP/r.txt" && ok "$T: lock waits = JSON's" || nok "$T: lock waits = JSON's" "want $waits"
[ -s "$E2E_TMP/r.err" ] && nok "$T: stderr clean" "$(head -1 "$E2E_TMP/r.err")" || ok "$T: stderr clean"

"$C2CTUI" report "$db" --stats >"$E2E_TMP/s.txt" 2>/dev/null
if grep -q "no memory samples in this session" "$E2E_TMP/s.txt" && ! grep -q "Lock Contention" "$E2E_TMP/s.txt"; then
	ok "$T: --stats stops after the summary"; else nok "$T: --stats stops after the summary" "$(tr '\n' '|' <"$E2E_TMP/s.txt" | head -c 300)"; fi

# a session with memory samples: perf's sections, no such line
"$gen" --scenario false-sharing -o "$E2E_TMP/fs.data" >/dev/null 2>&1 && "$C2CTUI" report "$E2E_TMP/fs.data" >"$E2E_TMP/m.txt" 2>/dev/null
if grep -q "Trace Event Information" "$E2E_TMP/m.txt" && ! grep -q "no memory samples" "$E2E_TMP/m.txt"; then
	ok "$T: memory sessions keep perf's layout"; else nok "$T: memory sessions keep perf's layout" "sections differ"; fi
exit 0
