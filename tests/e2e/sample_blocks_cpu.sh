#!/usr/bin/env bash
# Schema 3 keeps each CPU's samples in their own blocks, indexed by
# sample_block_index (docs/schema.md). On generated recordings of several
# shapes (16 CPUs, 96 CPUs on 4 nodes so that CPU classes cpu % 64 are
# shared, the mixed and lock scenarios) and on real perf.data files, this
# checks: the index says exactly what each block holds (rows, time range,
# CPU and node bits); a block holds one CPU class; ids are unique;
# `ORDER BY time, id` is the order perf script prints the samples in and
# needs no sort; the block hints keep every sample of their CPU; a CPU
# filter reads fewer blocks than there are; the index's process and thread
# bits are its rows'; and a filtered report (CPUs, nodes, processes,
# threads) is the same when the index skips nothing and in a session made
# before the index had processes and threads.
. "$(dirname "$0")/lib.sh"
T=sample_blocks_cpu
command -v perf >/dev/null || { skip $T "perf not installed"; exit 0; }
command -v sqlite3 >/dev/null || { skip $T "sqlite3 not installed"; exit 0; }
cd "$E2E_TMP" || exit 1
gen="$C2C_BUILD/tools/c2c-gen"

# stable sort of "time|cpu" lines within equal times only
tie_sort() { awk -F'|' '{ printf "%020d|%s\n", $1, $0 }' | sort -s -t'|' -k1,1 -k3,3n | cut -d'|' -f2-; }

one() { # NAME perf.data
  local n=$1 f=$2 s=$1.db got want
  rm -f "$s"
  if ! "$C2CTUI" import -q "$f" -o "$s" 2>err.txt; then
    nok "$T: $n: import" "$(head -1 err.txt)"; return
  fi
  # the index against the blocks' own rows
  got=$(session_sql "$s" "SELECT count(*) FROM sample_block_index i WHERE n != (SELECT count(*) FROM samples
    WHERE id BETWEEN i.first_id AND i.first_id + i.n - 1) OR tmin IS NOT (SELECT min(time) FROM samples
    WHERE id BETWEEN i.first_id AND i.first_id + i.n - 1) OR tmax IS NOT (SELECT max(time) FROM samples
    WHERE id BETWEEN i.first_id AND i.first_id + i.n - 1) OR cpus != (SELECT COALESCE(1 << (min(cpu) % 64), 0)
    FROM samples WHERE id BETWEEN i.first_id AND i.first_id + i.n - 1 AND cpu >= 0)")
  want=$(session_sql "$s" "SELECT (SELECT count(*) FROM sample_block_index) = (SELECT count(*) FROM sample_blocks),
    (SELECT count(*) FROM sample_blocks) > 0")
  [ "$got" = 0 ] && [ "$want" = "1|1" ] && ok "$T: $n: the index says what each block holds" ||
    nok "$T: $n: the index says what each block holds" "$got blocks differ (index complete, blocks: $want)"
  # pids and tids: the OR of each row's bit pid % 64 (tid % 64), or -1 (any)
  # when a row has none; a block's mask is never missing a row's bit
  got=$(session_sql "$s" "SELECT count(*) FROM sample_block_index i WHERE pids IS NOT (SELECT CASE WHEN
    count(*) != count(pid) OR count(*) != count(tid) OR min(pid) < 0 OR min(tid) < 0 THEN -1 ELSE
    (SELECT sum(b) FROM (SELECT DISTINCT 1 << (pid % 64) AS b FROM samples WHERE id BETWEEN i.first_id AND
    i.first_id + i.n - 1)) END FROM samples WHERE id BETWEEN i.first_id AND i.first_id + i.n - 1)
    OR tids IS NOT (SELECT CASE WHEN count(*) != count(pid) OR count(*) != count(tid) OR min(pid) < 0
    OR min(tid) < 0 THEN -1 ELSE (SELECT sum(b) FROM (SELECT DISTINCT 1 << (tid % 64) AS b FROM samples
    WHERE id BETWEEN i.first_id AND i.first_id + i.n - 1)) END FROM samples WHERE id BETWEEN i.first_id
    AND i.first_id + i.n - 1)")
  [ "$got" = 0 ] && ok "$T: $n: the index's pids and tids are its rows' processes and threads" ||
    nok "$T: $n: the index's pids and tids are its rows' processes and threads" "$got blocks differ"
  got=$(session_sql "$s" "SELECT count(*) FROM (SELECT i.first_id FROM sample_block_index i JOIN samples s
    ON s.id BETWEEN i.first_id AND i.first_id + i.n - 1 WHERE s.time > 0 GROUP BY i.first_id
    HAVING count(DISTINCT s.cpu % 64) > 1 OR count(DISTINCT s.node) > 1 OR max(i.nodes) != 1 << (min(s.node) % 64))")
  [ "$got" = 0 ] && ok "$T: $n: one CPU class and its node a block" ||
    nok "$T: $n: one CPU class and its node a block" "$got blocks mix CPUs or nodes"
  got=$(session_sql "$s" "SELECT count(*) = count(DISTINCT id), count(*) FROM samples")
  want=$(perf script -i "$f" -F time --ns 2>/dev/null | grep -c .)
  [ "$got" = "1|$want" ] && ok "$T: $n: $want samples, ids unique" ||
    nok "$T: $n: $want samples, ids unique" "unique|count: $got"
  # recording order: perf script prints in time order, as perf c2c reads;
  # samples of one time on several CPUs may come in another order (ids
  # are per CPU block: docs/schema.md), so those are compared sorted
  perf script -i "$f" -F cpu,time --ns 2>/dev/null |
    awk '{ c = $1; gsub(/[][]/, "", c); t = $2; sub(/:$/, "", t); split(t, p, ".");
           printf "%s%09d|%d\n", p[1], p[2], c }' | sed 's/^0*\([0-9]\)/\1/' | tie_sort >perf_order.txt
  session_sql "$s" "SELECT time, cpu FROM samples ORDER BY time, id" >our_raw.txt
  tie_sort <our_raw.txt >our_order.txt
  # ... and the time column itself never goes back
  awk -F'|' 'NR > 1 && $1 < p { bad++ } { p = $1 } END { exit bad > 0 }' our_raw.txt ||
    nok "$T: $n: times in order" "ORDER BY time, id went back in time"
  if cmp -s perf_order.txt our_order.txt; then ok "$T: $n: ORDER BY time, id is perf's order"
  else nok "$T: $n: ORDER BY time, id is perf's order" "$(diff perf_order.txt our_order.txt | head -3 | tr '\n' ' ')"; fi
  got=$(session_sql "$s" "EXPLAIN QUERY PLAN SELECT time, cpu FROM samples ORDER BY time, id")
  case $got in *"TEMP B-TREE"*) nok "$T: $n: time order without a sort" "$got" ;;
    *) ok "$T: $n: time order without a sort" ;; esac
  # the busiest CPU: its hint keeps its samples, its filter reads its blocks only
  local c
  c=$(session_sql "$s" "SELECT cpu FROM samples WHERE cpu >= 0 GROUP BY cpu ORDER BY count(*) DESC LIMIT 1")
  [ -n "$c" ] || { skip "$T: $n: CPU filter" "no sample has a CPU"; return; }
  got=$(session_sql "$s" "SELECT (SELECT count(*) FROM samples WHERE cpu = $c AND block_cpus = 1 << ($c % 64)),
    (SELECT count(*) FROM samples WHERE cpu = $c)")
  [ "${got%%|*}" = "${got##*|}" ] && ok "$T: $n: block_cpus keeps CPU $c's samples (${got##*|})" ||
    nok "$T: $n: block_cpus keeps CPU $c's samples" "hinted|all: $got"
  got=$(session_sql "$s" "SELECT (SELECT count(*) FROM sample_block_index WHERE cpus & (1 << ($c % 64))),
    (SELECT count(*) FROM sample_block_index), (SELECT count(DISTINCT cpu) FROM samples)")
  IFS='|' read -r mine all ncpu <<<"$got"
  if [ "$ncpu" -lt 2 ] || [ "$mine" -lt "$all" ]; then ok "$T: $n: --cpu $c reads $mine of $all blocks"
  else nok "$T: $n: --cpu $c reads $mine of $all blocks" "$ncpu CPUs, yet every block"; fi
  # a thread filter reads the blocks that hold the thread
  local tid pid
  tid=$(session_sql "$s" "SELECT tid FROM samples WHERE tid >= 0 GROUP BY tid ORDER BY count(*) DESC LIMIT 1")
  pid=$(session_sql "$s" "SELECT pid FROM samples WHERE tid = $tid LIMIT 1")
  got=$(session_sql "$s" "SELECT (SELECT count(*) FROM sample_block_index WHERE tids & (1 << ($tid % 64))),
    (SELECT count(*) FROM sample_block_index i WHERE tids = -1 OR EXISTS (SELECT 1 FROM samples
    WHERE id BETWEEN i.first_id AND i.first_id + i.n - 1 AND tid % 64 = $tid % 64)),
    (SELECT count(*) FROM sample_block_index)")
  IFS='|' read -r mine want all <<<"$got"
  if [ "$mine" = "$want" ]; then ok "$T: $n: --tid $tid reads $mine of $all blocks (those with its thread class)"
  else nok "$T: $n: --tid $tid reads $mine of $all blocks" "$want blocks hold its thread class"; fi
  # the same filtered report when the index skips nothing (every mask -1),
  # and from a session made before the index had pids and tids (columns
  # dropped: read as before, not refused)
  cp "$s" all.db
  sqlite3 all.db "UPDATE sample_block_index SET cpus = -1, nodes = -1, pids = -1, tids = -1, tmin = NULL,
    tmax = NULL, sorted = 0"
  cp "$s" old.db
  sqlite3 old.db "ALTER TABLE sample_block_index DROP COLUMN pids; ALTER TABLE sample_block_index DROP COLUMN tids"
  # blocks an older c2ctui appended (no pids, tids) are read whatever the filter
  cp "$s" null.db
  sqlite3 null.db "UPDATE sample_block_index SET pids = NULL, tids = NULL"
  # the thread filter does use the index: told no block holds a thread, it reads none
  cp "$s" none.db
  sqlite3 none.db "UPDATE sample_block_index SET tids = 0"
  got=$("$C2CTUI" report none.db --tid "$tid" --format json 2>&1 | grep -o '"key":"nr_entries","value":[0-9]*' | head -1)
  [ "$got" = '"key":"nr_entries","value":0' ] && ok "$T: $n: --tid reads only the blocks the index names" ||
    nok "$T: $n: --tid reads only the blocks the index names" "with tids = 0: ${got:-no samples count}"
  local args
  for args in "--cpu $c" "--cpu 0-2,$c --node 0" "--node 1 -c tid" "--tid $tid" "--pid $pid --tid $tid,1-3"; do
    # shellcheck disable=SC2086
    "$C2CTUI" report old.db $args --format json >o.txt 2>&1
    # shellcheck disable=SC2086
    "$C2CTUI" report null.db $args --format json >z.txt 2>&1
    sed -i 's/"input":"[^"]*",//' o.txt z.txt
    # shellcheck disable=SC2086
    "$C2CTUI" report "$s" $args --format json >a.txt 2>&1
    # shellcheck disable=SC2086
    "$C2CTUI" report all.db $args --format json >b.txt 2>&1
    sed -i 's/"input":"[^"]*",//' a.txt b.txt
    if cmp -s a.txt b.txt && [ -s a.txt ]; then ok "$T: $n: report $args with the index = without"
    else nok "$T: $n: report $args with the index = without" "$(diff a.txt b.txt | head -2 | cut -c1-200 | tr '\n' ' ')"; fi
    if cmp -s a.txt o.txt && cmp -s a.txt z.txt; then ok "$T: $n: report $args = an older session's"
    else nok "$T: $n: report $args = an older session's" "$(diff a.txt o.txt | head -2 | cut -c1-200 | tr '\n' ' ') $(diff a.txt z.txt | head -2 | cut -c1-200 | tr '\n' ' ')"; fi
  done
}

"$gen" --scenario bench --samples 200000 -o bench.data >/dev/null 2>&1 && one bench bench.data
"$gen" --scenario bench --samples 150000 --nodes 4 --cpus 96 --threads 40 -o wide96.data >/dev/null 2>&1 &&
  one cpus96 wide96.data
"$gen" --scenario mixed -o mixed.data >/dev/null 2>&1 && one mixed mixed.data
"$gen" --scenario lock-tracepoints --samples 20000 -o lock.data >/dev/null 2>&1 && one locks lock.data
for f in "$C2C_FIXTURES"/real/amd-zen2-ibs-c2c.data "$C2C_FIXTURES"/real/intel-cml-c2c-stores.data; do
  [ -f "$f" ] || { skip "$T: $(basename "$f")" "fixture not present"; continue; }
  one "$(basename "$f" .data)" "$f"
done
exit 0
