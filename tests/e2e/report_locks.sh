#!/usr/bin/env bash
# c2ctui report's "Lock Contention" section on a generated lock:contention_*
# recording: totals and per-lock waits / wait time equal what the generator
# wrote (c2c-gen --expect), in text and JSON; memory-only sessions print no
# such section (perf c2c's layout stays untouched).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

gen=$C2C_BUILD/tools/c2c-gen
if [ ! -x "$C2CTUI" ] || [ ! -x "$gen" ]; then
	skip report_locks "c2ctui or c2c-gen is not built"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip report_locks "python3 is not installed"
	exit 0
fi

data=$E2E_TMP/locks.data db=$E2E_TMP/locks.db
"$gen" --scenario lock-tracepoints -o "$data" --expect >"$E2E_TMP/expect.txt" 2>"$E2E_TMP/gen.err" ||
	{ nok report_locks_setup "c2c-gen failed: $(head -1 "$E2E_TMP/gen.err")"; exit 0; }
"$C2CTUI" import -q "$data" -o "$db" 2>"$E2E_TMP/imp.err" ||
	{ nok report_locks_setup "import failed: $(head -1 "$E2E_TMP/imp.err")"; exit 0; }

"$C2CTUI" report "$db" --format json >"$E2E_TMP/r.json" 2>"$E2E_TMP/r.err" || nok report_locks_json "exit status $?"
if msg=$(python3 - "$E2E_TMP/expect.txt" "$E2E_TMP/r.json" <<'PY'
import json, sys
exp = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if parts and parts[0].startswith("lock"):
        exp[parts[0]] = parts[1:]
rep = json.load(open(sys.argv[2]))
errs = []
if rep["lock_waits"] != int(exp["lock_waits"][0]):
    errs.append(f"lock_waits {rep['lock_waits']} != {exp['lock_waits'][0]}")
if rep["lock_wait_ns"] != int(exp["lock_wait_ns"][0]):
    errs.append(f"lock_wait_ns {rep['lock_wait_ns']} != {exp['lock_wait_ns'][0]}")
want = {k[len("lock."):]: (int(v[0]), int(v[1])) for k, v in exp.items() if k.startswith("lock.0x")}
got = {l["address"]: (l["waits"], l["wait_ns"]) for l in rep["locks"]}
if want != got:
    errs.append(f"per-lock waits/ns: want {want}, got {got}")
waits = [l["wait_ns"] for l in rep["locks"]]
if waits != sorted(waits, reverse=True):
    errs.append("locks not ordered by total wait")
print("; ".join(errs))
sys.exit(1 if errs else 0)
PY
); then ok report_locks_json_matches_generator; else nok report_locks_json_matches_generator "$msg"; fi

"$C2CTUI" report "$db" >"$E2E_TMP/r.txt" 2>>"$E2E_TMP/r.err"
if grep -q "Lock Contention" "$E2E_TMP/r.txt" && grep -qE "^  Lock waits +: +$(awk '$1=="lock_waits"{print $2}' "$E2E_TMP/expect.txt")$" "$E2E_TMP/r.txt"; then
	ok report_locks_text_section
else
	nok report_locks_text_section "no Lock Contention section with the expected wait count"
fi

"$C2CTUI" report "$db" --format csv >"$E2E_TMP/r.csv" 2>>"$E2E_TMP/r.err"
n_csv=$(grep -c '^lock,0x' "$E2E_TMP/r.csv")
n_exp=$(grep -c '^lock\.0x' "$E2E_TMP/expect.txt")
if [ "$n_csv" = "$n_exp" ] && [ "$n_exp" -gt 0 ]; then ok report_locks_csv_rows; else nok report_locks_csv_rows "csv has $n_csv lock rows, generator wrote $n_exp locks"; fi

mem=$E2E_TMP/mixed.data
"$gen" --scenario false-sharing -o "$mem" >/dev/null 2>&1 && "$C2CTUI" report "$mem" >"$E2E_TMP/m.txt" 2>&1
if grep -q "Lock Contention" "$E2E_TMP/m.txt"; then
	nok report_locks_absent_without_locks "a memory-only session printed a lock section"
else
	ok report_locks_absent_without_locks
fi
