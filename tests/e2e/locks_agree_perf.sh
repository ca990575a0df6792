#!/usr/bin/env bash
# c2ctui locks against perf lock contention itself, on the generated lock
# scenario (c2c-gen --scenario lock-tracepoints) and on a real recording of
# lock:contention_begin/end (root): the default (caller) table, -t, sort keys,
# -E and -F in perf's text layout byte for byte; rows with equal sort keys
# may come in another order (perf's tie order follows its hash of the call
# stack) and are then compared as a set. perf 6.1 has no -l: the per-lock
# table is checked against the -t table's sums. JSON rows carry perf's
# caller and type names.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

gen=$C2C_BUILD/tools/c2c-gen W=$C2C_BUILD/workloads/contention
if [ ! -x "$C2CTUI" ] || [ ! -x "$gen" ]; then skip locks_agree_perf "c2ctui or c2c-gen is not built"; exit 0; fi
if ! command -v perf >/dev/null 2>&1 || ! perf lock contention -h >/dev/null 2>&1 && ! perf lock contention -h 2>&1 | grep -q -- --threads; then
	skip locks_agree_perf "perf with 'lock contention' is not installed"; exit 0
fi
command -v python3 >/dev/null 2>&1 || { skip locks_agree_perf "python3 is not installed"; exit 0; }

# compare NAME OURS PERFS: ok when identical, or equal rows with the same
# sort column where only ties are ordered differently.
compare() {
	local name=$1 ours=$2 theirs=$3 msg
	if cmp -s "$ours" "$theirs"; then ok "$name"; return; fi
	if msg=$(python3 - "$ours" "$theirs" <<'PY'
import sys
a = open(sys.argv[1]).read().splitlines()
b = open(sys.argv[2]).read().splitlines()
if a[:2] != b[:2]:
    print(f"header differs: {a[:1]} vs {b[:1]}"); sys.exit(1)
ra, rb = a[2:], b[2:]
if sorted(ra) != sorted(rb):
    only_a = sorted(set(ra) - set(rb))[:2]; only_b = sorted(set(rb) - set(ra))[:2]
    print(f"{len(ra)} rows vs perf's {len(rb)}; ours only {only_a}; perf only {only_b}"); sys.exit(1)
print("tie order only"); sys.exit(2)
PY
	); then ok "$name"; else
		if [ "$msg" = "tie order only" ]; then ok "$name (rows with equal keys in another order)"; else nok "$name" "$msg"; fi
	fi
}

# perf_table FILE: perf lock contention's output without its warning block.
perf_table() {
	sed -e '/^Warning:/d' -e '/^Processed [0-9]* events and lost/d' -e '/^Processed [0-9]* samples and lost/d' \
	    -e '/^Check IO\/CPU overload/d' -e '/^ *#* *[0-9]* *out of order events/d' "$1" | sed '/./,$!d'
}

# check_file TAG DATA: every comparison on one recording.
check_file() {
	local tag=$1 data=$2 db=$E2E_TMP/$1.db
	if ! "$C2CTUI" import -q "$data" -o "$db" 2>"$E2E_TMP/$tag.imp.err"; then
		nok "locks_${tag}_import" "$(head -1 "$E2E_TMP/$tag.imp.err")"; return
	fi
	local i=0
	for opts in "" "-t" "-k contended" "-k wait_max" "-k avg_wait" "-k wait_min" "-t -k contended" \
		"-t -k wait_max" "-E 3" "-t -E 2" "-F contended,wait_min"; do
		i=$((i + 1))
		# perf 6.1 writes its report to stderr
		perf lock contention $opts -i "$data" >"$E2E_TMP/$tag.p$i.raw" 2>&1 </dev/null
		# perf's warnings about the recording (lost chunks on a loaded
		# machine) share that stream; the table is what is compared.
		perf_table "$E2E_TMP/$tag.p$i.raw" >"$E2E_TMP/$tag.p$i"
		"$C2CTUI" locks "$db" $opts >"$E2E_TMP/$tag.c$i" 2>"$E2E_TMP/$tag.c$i.err" ||
			{ nok "locks_${tag}_${opts:-default}" "c2ctui locks failed: $(head -1 "$E2E_TMP/$tag.c$i.err")"; continue; }
		if [ "$(sed -n '3,$p' "$E2E_TMP/$tag.p$i" | grep -c .)" = 0 ]; then
			nok "locks_${tag}_${opts:-default}" "perf printed no rows"; continue
		fi
		local nm=${opts:-default}; nm=${nm// /_}
		compare "locks_${tag}_${nm}_equals_perf" "$E2E_TMP/$tag.c$i" "$E2E_TMP/$tag.p$i"
	done
	# the perf.data itself as input (a temporary session); its warnings
	# about the recording go to stderr, as perf's do
	"$C2CTUI" locks "$data" -t >"$E2E_TMP/$tag.direct" 2>"$E2E_TMP/$tag.direct.err"
	compare "locks_${tag}_perf_data_input" "$E2E_TMP/$tag.direct" "$E2E_TMP/$tag.p2"
	# a recording that lost chunks (a loaded machine): as many as perf's
	# warning says (its event total is import_warnings.sh's concern)
	local lost_re='and lost [0-9]* chunks' pl cl
	pl=$(grep -o "$lost_re" "$E2E_TMP/$tag.p2.raw" | head -1)
	if [ -n "$pl" ]; then
		cl=$(grep -o "$lost_re" "$E2E_TMP/$tag.direct.err" | head -1)
		if [ "$cl" = "$pl" ]; then ok "locks_${tag}_lost_chunks_warning_as_perf"
		else nok "locks_${tag}_lost_chunks_warning_as_perf" "perf: '$pl', c2ctui: '${cl:-no warning}'"; fi
	fi

	# -l (perf 6.1 lacks it) against -t; JSON against perf's caller rows.
	"$C2CTUI" locks "$db" -l --format json >"$E2E_TMP/$tag.l.json" &&
	"$C2CTUI" locks "$db" -t --format json >"$E2E_TMP/$tag.t.json" &&
	"$C2CTUI" locks "$db" --format json >"$E2E_TMP/$tag.d.json" &&
	"$C2CTUI" locks "$db" --format csv >"$E2E_TMP/$tag.d.csv" || { nok "locks_${tag}_json" "c2ctui locks --format failed"; return; }
	local msg
	if msg=$(python3 - "$E2E_TMP/$tag.l.json" "$E2E_TMP/$tag.t.json" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))["locks"]; t = json.load(open(sys.argv[2]))["locks"]
errs = []
for f in ("contended", "acquired", "wait_total_ns"):
    if sum(r[f] for r in l) != sum(r[f] for r in t):
        errs.append(f"sum of {f}: by lock {sum(r[f] for r in l)}, by thread {sum(r[f] for r in t)}")
if max(r["wait_max_ns"] for r in l) != max(r["wait_max_ns"] for r in t):
    errs.append("max wait differs")
if any(not r["address"].startswith("0x") for r in l):
    errs.append("address not a hex string")
print("; ".join(errs)); sys.exit(1 if errs else 0)
PY
	); then ok "locks_${tag}_by_lock_sums_equal_by_thread"; else nok "locks_${tag}_by_lock_sums_equal_by_thread" "$msg"; fi
	if msg=$(python3 - "$E2E_TMP/$tag.d.json" "$E2E_TMP/$tag.p1" "$E2E_TMP/$tag.d.csv" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["locks"]
ours = sorted((r["contended"], r["kind"], r["caller"]) for r in rows)
perf = []
for line in open(sys.argv[2]).read().splitlines()[2:]:
    p = line.split()
    if p:
        # contended, 3 times (value unit), type, caller
        perf.append((int(p[0]), p[7], " ".join(p[8:])))
errs = []
if ours != sorted(perf):
    errs.append(f"json (contended, kind, caller) differ from perf's rows: {ours[:2]} vs {sorted(perf)[:2]}")
csv = open(sys.argv[3]).read().splitlines()
if len(csv) != len(rows) + 1:
    errs.append(f"csv has {len(csv) - 1} rows, json {len(rows)}")
print("; ".join(errs)); sys.exit(1 if errs else 0)
PY
	); then ok "locks_${tag}_json_callers_kinds_as_perf"; else nok "locks_${tag}_json_callers_kinds_as_perf" "$msg"; fi
}

"$gen" --scenario lock-tracepoints -o "$E2E_TMP/gen.data" >/dev/null 2>"$E2E_TMP/gen.err" ||
	{ nok locks_gen_setup "c2c-gen failed: $(head -1 "$E2E_TMP/gen.err")"; exit 0; }
check_file gen "$E2E_TMP/gen.data"

if [ "$(id -u)" != 0 ]; then skip locks_real "needs root to record lock tracepoints"; exit 0; fi
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
if [ ! -d /sys/kernel/tracing/events/lock/contention_begin ]; then
	skip locks_real "kernel has no lock:contention_begin (Linux < 5.19 or tracefs missing)"; exit 0
fi
[ -x "$W" ] || { skip locks_real "workload not built ($W)"; exit 0; }
if ! perf record -q -e lock:contention_begin,lock:contention_end -g -o "$E2E_TMP/real.data" -- \
	"$W" -m all -t 6 -d 2 -q >"$E2E_TMP/rec.out" 2>&1; then
	skip locks_real "perf record failed: $(head -1 "$E2E_TMP/rec.out")"; exit 0
fi
check_file real "$E2E_TMP/real.data"
