#!/usr/bin/env bash
# The lines summary (agg_session: lines, shared_lines, shared:<counter>,
# lines:samples; docs/schema.md) and the display-mode indexes on agg_line
# let a reopened report skip summing and filtering every line. On several
# shapes (few and 20,000 lines, many sites and threads, locks, real
# recordings), imported in one and in many transactions, this checks:
# the summary equals the sums over agg_line; the indexes are there; the
# report in every display mode and with --show-all is the same when the
# summary and indexes are gone (the sums and the scan); a summary out of
# step with the samples (an older writer appended) is not used; and one in
# step is (a lie in it shows in the report: the test can fail).
. "$(dirname "$0")/lib.sh"
T=line_summary
command -v sqlite3 >/dev/null || { skip $T "sqlite3 not installed"; exit 0; }
cd "$E2E_TMP" || exit 1
gen="$C2C_BUILD/tools/c2c-gen"

reports() { # S.db -> every display mode's report, and --show-all
  local d
  for d in tot lcl rmt peer; do "$C2CTUI" report "$1" -d $d 2>&1; done
  "$C2CTUI" report "$1" --show-all --lines 50 2>&1
  "$C2CTUI" report "$1" --stats 2>&1
}

one() { # NAME perf.data [import options]
  local n=$1 f=$2 s=$1.db got want c sums=""
  shift 2
  rm -f "$s"
  if ! "$C2CTUI" import -q "$f" -o "$s" "$@" 2>err.txt; then
    nok "$T: $n: import" "$(head -1 err.txt)"; return
  fi
  for c in $("$C2CTUI" sql --no-header "$s" "SELECT name FROM pragma_table_info('agg_line')
      WHERE cid BETWEEN 1 AND 32"); do
    sums+=", (SELECT value FROM agg_session WHERE name = 'shared:$c') IS (SELECT COALESCE(SUM($c), 0) FROM agg_line WHERE shared = 1)"
  done
  got=$(sqlite3 "$s" "SELECT (SELECT value FROM agg_session WHERE name = 'lines') IS (SELECT count(*) FROM agg_line
    WHERE nr_entries > 0), (SELECT value FROM agg_session WHERE name = 'shared_lines') IS (SELECT count(*) FROM
    agg_line WHERE shared = 1), (SELECT value FROM agg_session WHERE name = 'lines:samples') IS (SELECT value FROM
    agg_session WHERE name = 'nr_samples')$sums" | tr -d '|')
  want=$(printf '1%.0s' $(seq 1 35))
  [ "$got" = "$want" ] && ok "$T: $n: the summary is the sums over agg_line" ||
    nok "$T: $n: the summary is the sums over agg_line" "got $got"
  got=$(sqlite3 "$s" "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'index'
    AND tbl_name = 'agg_line' ORDER BY name)")
  [ "$got" = "agg_line_lcl_hitm agg_line_rmt_hitm agg_line_tot_hitm agg_line_tot_peer" ] &&
    ok "$T: $n: a display-mode index each" || nok "$T: $n: a display-mode index each" "$got"

  reports "$s" >with.txt
  cp "$s" bare.db
  sqlite3 bare.db "DELETE FROM agg_session WHERE name IN ('lines', 'shared_lines', 'lines:samples')
    OR name GLOB 'shared:*'; DROP INDEX agg_line_tot_hitm; DROP INDEX agg_line_lcl_hitm;
    DROP INDEX agg_line_rmt_hitm; DROP INDEX agg_line_tot_peer;"
  reports bare.db | sed 's/bare\.db/'"$s"'/g' >bare.txt
  cmp -s with.txt bare.txt && ok "$T: $n: reports the same without summary and indexes" ||
    nok "$T: $n: reports the same without summary and indexes" "$(diff with.txt bare.txt | head -3 | tr '\n' ' ')"
  # a summary written for other samples than the session's is not used
  cp "$s" stale.db
  sqlite3 stale.db "UPDATE agg_session SET value = value * 3 + 1 WHERE name GLOB 'shared:*' OR name = 'lines';
    UPDATE agg_session SET value = value - 1 WHERE name = 'lines:samples'"
  reports stale.db | sed 's/stale\.db/'"$s"'/g' >stale.txt
  cmp -s with.txt stale.txt && ok "$T: $n: a summary out of step is not used" ||
    nok "$T: $n: a summary out of step is not used" "$(diff with.txt stale.txt | head -3 | tr '\n' ' ')"
  # ... and one in step is: the same lie shows (a session without memory
  # samples prints no line numbers to lie about)
  if grep -q "no memory samples" with.txt; then
    skip "$T: $n: the summary is what the report reads" "no memory samples: the report has no line figures"
    rm -f bare.db stale.db
    return
  fi
  cp "$s" lie.db
  sqlite3 lie.db "UPDATE agg_session SET value = value * 3 + 1 WHERE name GLOB 'shared:*' OR name = 'lines'"
  reports lie.db | sed 's/lie\.db/'"$s"'/g' >lie.txt
  cmp -s with.txt lie.txt && nok "$T: $n: the summary is what the report reads" "a lie in it did not show" ||
    ok "$T: $n: the summary is what the report reads"
  rm -f bare.db stale.db lie.db
}

"$gen" --scenario bench --samples 200000 -o bench.data >/dev/null &&
  one bench bench.data && one bench-batches bench.data --batch 7000
"$gen" --scenario bench --samples 300000 --lines 20000 -o lines.data >/dev/null &&
  one lines20k lines.data && one lines20k-batches lines.data --batch 9000
"$gen" --scenario bench --samples 200000 --lines 2000 --sites 400 --threads 24 -o wide.data >/dev/null &&
  one wide wide.data --batch 50000
"$gen" --scenario mixed --samples 100000 -o mixed.data >/dev/null && one mixed mixed.data
"$gen" --scenario lock-tracepoints --samples 50000 -o locks.data >/dev/null && one locks locks.data
for f in "$C2C_FIXTURES"/real/*.data; do
  [ -f "$f" ] || continue
  one "$(basename "$f" .data)" "$f"
done
exit 0
