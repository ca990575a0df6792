#!/usr/bin/env bash
# c2ctui record, end to end on this machine (root, tracepoints, no PMU):
# lock:contention_* samples and begin/end pairing agree with what
# `perf record -e lock:contention_begin,lock:contention_end` sees of the same
# workload run (both record system-wide at the same time, the comparison is
# restricted to the workload's pid; tolerance: 3% + 20), call sites are
# symbolized from kallsyms, and the session is finalized and valid.
source "$(dirname "$0")/lib.sh"
W=$C2C_BUILD/workloads/contention
T=lock_record

need() {
  [ "$(id -u)" = 0 ] || { skip "$T" "needs root for tracepoints"; exit 0; }
  command -v sqlite3 >/dev/null || { skip "$T" "sqlite3 CLI not installed"; exit 0; }
  [ -x "$W" ] || { skip "$T" "workload not built ($W)"; exit 0; }
  if [ ! -d /sys/kernel/tracing/events ]; then
    mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
  fi
  [ -d /sys/kernel/tracing/events/lock/contention_begin ] ||
    { skip "$T" "kernel has no lock:contention_begin (Linux < 5.19 or tracefs missing)"; exit 0; }
}
need

db=$E2E_TMP/rec.db
# 1. record a command: the workload started stopped, enabled on exec.
out=$("$C2CTUI" record -q -o "$db" -- "$W" -m spawn -t 4 -d 1 2>"$E2E_TMP/err1")
rc=$?
if [ $rc -eq 0 ] && grep -q "^c2ctui record: $db: [0-9]* samples, [0-9]* lock waits" <<<"$out"; then
  ok "record_command_summary"
else
  nok "record_command_summary" "rc=$rc out=$out err=$(head -3 "$E2E_TMP/err1")"
fi
q() { sqlite3 "$1" "$2" 2>&1; }
[ "$(q "$db" 'PRAGMA integrity_check')" = ok ] && ok "record_integrity" || nok "record_integrity" "$(q "$db" 'PRAGMA integrity_check' | head -3)"
[ "$(q "$db" "select value from meta where key='finalized'")" = 1 ] && ok "record_finalized" || nok "record_finalized"
nw=$(q "$db" 'select count(*) from lock_waits')
[ "${nw:-0}" -gt 0 ] && ok "record_lock_waits ($nw)" || nok "record_lock_waits" "no lock waits stored"
# Call sites of lock waits resolve to kernel functions (kallsyms).
named=$(q "$db" "select count(*) from lock_waits w join sites s on s.id=w.site where s.function is not null and s.function<>''")
if [ "${nw:-0}" -gt 0 ] && [ $((named * 100)) -ge $((nw * 90)) ]; then
  ok "record_sites_symbolized ($named/$nw)"
else
  nok "record_sites_symbolized" "$named of $nw waits have a named call site"
fi
# Callers are not lock machinery.
bad=$(q "$db" "select count(*) from lock_waits w join sites s on s.id=w.site where s.function like '_raw_spin_lock%' or s.function like 'queued_%' or s.function like '%_slowpath'")
[ "${bad:-1}" = 0 ] && ok "record_caller_not_lock_function" || nok "record_caller_not_lock_function" "$bad waits attributed to lock internals"
# Lock addresses: symbols only exist when kallsyms carries data symbols.
if grep -q ' [dDbB] tasklist_lock$' /proc/kallsyms; then
  ln=$(q "$db" "select count(*) from lock_waits w join dsyms d on d.id=w.dsym where d.name='tasklist_lock'")
  [ "${ln:-0}" -gt 0 ] && ok "record_lock_symbolized" || nok "record_lock_symbolized" "no wait on tasklist_lock"
else
  skip "record_lock_symbolized" "this kernel's kallsyms has no data symbols (CONFIG_KALLSYMS_ALL=n)"
fi

# 2. the same run seen by perf and by c2ctui, both system-wide.
if ! command -v perf >/dev/null; then
  skip "record_vs_perf" "perf not installed"
  exit 0
fi
pdb=$E2E_TMP/sw.db
pdata=$E2E_TMP/perf.data
perf record -q -a -e lock:contention_begin,lock:contention_end -o "$pdata" >/dev/null 2>"$E2E_TMP/perr" &
ppid_=$!
"$C2CTUI" record -q -o "$pdb" --no-callchain >"$E2E_TMP/out2" 2>"$E2E_TMP/err2" &
cpid=$!
# Both must be collecting before the workload starts: c2ctui's file appears
# once it is set up (it synthesizes /proc first; slow under sanitizers).
for _ in $(seq 1 100); do [ -f "$pdb" ] && break; sleep 0.2; done
sleep 1
"$W" -m mmap -t 6 -d 1.5 -q &
wpid=$!
wait $wpid
sleep 0.5
kill -INT $cpid $ppid_
wait $cpid; crc=$?
wait $ppid_
[ $crc -eq 0 ] && ok "record_sigint_exit_status" || nok "record_sigint_exit_status" "rc=$crc $(head -2 "$E2E_TMP/err2")"
[ "$(q "$pdb" 'PRAGMA integrity_check')" = ok ] && ok "record_sigint_integrity" || nok "record_sigint_integrity"
[ "$(q "$pdb" "select value from meta where key='finalized'")" = 1 ] && ok "record_sigint_finalized" || nok "record_sigint_finalized"

perf script --ns -i "$pdata" -F pid,tid,time,event,trace 2>/dev/null >"$E2E_TMP/script.txt"
# perf: per event count and pairing (same rules: per tid, nested begin on
# the same lock keeps the first, end must match the pending lock).
read -r pb pe pp < <(awk -v P="$wpid" '
  { split($1, a, "/"); if (a[1] != P) next; tid = a[2];
    ev = ""; for (i = 2; i <= NF; i++) if ($i ~ /^lock:contention_/) { ev = $i; addr = $(i+1) }
    if (ev ~ /begin/) { nb++; if (pend[tid] != "" && pend[tid] == addr) next; pend[tid] = addr }
    else if (ev ~ /end/) { ne++; if (pend[tid] != "" && pend[tid] == addr) { np++; pend[tid] = "" } }
  } END { print nb + 0, ne + 0, np + 0 }' "$E2E_TMP/script.txt")
cb=$(session_sql "$pdb" "select count(*) from samples s join events e on e.idx=s.event where e.name='lock:contention_begin' and s.pid=$wpid")
ce=$(session_sql "$pdb" "select count(*) from samples s join events e on e.idx=s.event where e.name='lock:contention_end' and s.pid=$wpid")
cp=$(q "$pdb" "select count(*) from lock_waits where pid=$wpid")
# A recorder that lost events (ring buffer overrun on a slow or loaded
# machine, or c2ctui's queue full) cannot match the other's counts.
plost=$(perf report --stats -i "$pdata" 2>/dev/null | awk '/LOST(_SAMPLES)? events:/ { n += $3 } END { print n + 0 }')
clost=$(q "$pdb" "select coalesce(sum(value), 0) from counters where name in ('lost_samples', 'queue_drops')")
if [ "${plost:-0}" != 0 ] || [ "${clost:-0}" != 0 ]; then
  skip "record_vs_perf" "a recorder lost events (perf $plost, c2ctui $clost): counts not comparable"
  exit 0
fi
within() { # a b: |a-b| <= 3% of max + 20
  awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a > b ? a : b; exit !(d <= m * 0.03 + 20) }'
}
echo "# perf: begin=$pb end=$pe paired=$pp; c2ctui: begin=$cb end=$ce paired=$cp (pid $wpid)"
if [ "$pb" -gt 0 ] && within "$pb" "$cb"; then ok "record_vs_perf_begin"; else nok "record_vs_perf_begin" "perf $pb, c2ctui $cb"; fi
if [ "$pe" -gt 0 ] && within "$pe" "$ce"; then ok "record_vs_perf_end"; else nok "record_vs_perf_end" "perf $pe, c2ctui $ce"; fi
if [ "$pp" -gt 0 ] && within "$pp" "$cp"; then ok "record_vs_perf_pairs"; else nok "record_vs_perf_pairs" "perf $pp, c2ctui $cp"; fi
# Same clock as perf record: the k-th sample of each (tid, event) carries
# nearly the same time in both (each recorder's event stamps the tracepoint
# hit itself, a few microseconds apart).
awk -v P="$wpid" '{ split($1, a, "/"); if (a[1] != P) next; t = $2; sub(/:$/, "", t); sub(/\./, "", t);
  ev = ""; for (i = 2; i <= NF; i++) if ($i ~ /^lock:contention_/) { ev = $i; sub(/:$/, "", ev) }
  print a[2], ev, t }' "$E2E_TMP/script.txt" | sort -k1,1n -k2,2 -k3,3n >"$E2E_TMP/perf.keys"
session_sql "$pdb" "select s.tid, e.name, s.time from samples s join events e on e.idx=s.event where s.pid=$wpid and e.name like 'lock:%'" |
  tr '|' ' ' | sort -k1,1n -k2,2 -k3,3n >"$E2E_TMP/c2c.keys"
same=$(awk 'NR == FNR { k = $1 " " $2; n[k]++; t[k, n[k]] = $3; next }
  { k = $1 " " $2; m[k]++; if ((k, m[k]) in t) { d = $3 - t[k, m[k]]; if (d < 0) d = -d; if (d < 100000) s++ } }
  END { print s + 0 }' "$E2E_TMP/perf.keys" "$E2E_TMP/c2c.keys")
tot=$(wc -l <"$E2E_TMP/perf.keys")
if [ "$tot" -gt 0 ] && within "$tot" "$same"; then
  ok "record_vs_perf_same_samples ($same of $tot match in tid, event and time within 100 us)"
else
  nok "record_vs_perf_same_samples" "$same of $tot perf samples matched in tid, event and time"
fi
drops=$(q "$pdb" "select value from counters where name='queue_drops'")
lost=$(q "$pdb" "select value from counters where name='lost_samples'")
echo "# c2ctui counters: queue_drops=$drops lost_samples=$lost"
