#!/usr/bin/env bash
# `c2ctui sql S.db 'SQL'` (issue 9 point 4): the user's own read-only SQL
# over a session, as CSV. Its numbers equal the report's; statements that
# would write (DML, DDL, ATTACH, setting PRAGMAs) are refused before they
# run and leave the file byte for byte; a perf.data is imported first;
# CSV quoting, NULLs and blobs; errors are one line.
source "$(dirname "$0")/lib.sh"
T=sql
GEN=$C2C_BUILD/tools/c2c-gen
if [ ! -x "$C2CTUI" ] || [ ! -x "$GEN" ] || ! command -v python3 >/dev/null; then
  skip "$T" "needs $C2CTUI, $GEN and python3"; exit 0
fi
md5() { md5sum "$1" | cut -d' ' -f1; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

cd "$E2E_TMP" || exit 1
for sc in mixed false-sharing; do
  "$GEN" --scenario "$sc" -o "$sc.data" --seed 5 >/dev/null 2>&1 &&
    "$C2CTUI" import -q "$sc.data" -o "$sc.db" 2>/dev/null || { nok "$T: $sc setup" "generate/import failed"; continue; }
  "$C2CTUI" report "$sc.db" --format json >"$sc.json" 2>/dev/null
  # the samples and the stores the report counts, from the samples table
  out=$("$C2CTUI" sql "$sc.db" "SELECT count(*) AS samples FROM samples" 2>&1)
  want=$(json "$sc.json" 'd["samples"]')
  if [ "$out" = "samples"$'\n'"$want" ]; then ok "$T: $sc: count(*) = report's samples ($want)"
  else nok "$T: $sc: count(*)" "got '$out', report says $want"; fi
  # rows per CPU add up to the whole (the header, then one row per CPU)
  "$C2CTUI" sql "$sc.db" "SELECT cpu, count(*) FROM samples GROUP BY cpu ORDER BY cpu" >cpus.csv 2>err.txt
  sum=$(tail -n +2 cpus.csv | awk -F, '{s += $2} END {print s + 0}')
  if [ "$(head -1 cpus.csv)" = "cpu,count(*)" ] && [ "$sum" = "$want" ] && [ ! -s err.txt ]; then
    ok "$T: $sc: per-CPU rows add up ($(($(wc -l <cpus.csv) - 1)) CPUs)"
  else nok "$T: $sc: per-CPU rows" "sum $sum of $want; $(head -2 cpus.csv | tr '\n' '|') $(cat err.txt)"; fi
done

db=mixed.db
[ -f "$db" ] || { nok "$T: no session to go on with"; exit 0; }
before=$(md5 "$db")
for q in "DELETE FROM samples" "INSERT INTO meta VALUES ('x','y')" "CREATE TABLE t(a)" \
         "DROP TABLE samples" "UPDATE meta SET value = 'z'" "PRAGMA user_version = 7" \
         "ATTACH '$E2E_TMP/new.db' AS n" "SELECT 1; DELETE FROM samples" "VACUUM" \
         "CREATE TEMP TABLE t AS SELECT 1"; do
  "$C2CTUI" sql "$db" "$q" >out.txt 2>err.txt
  rc=$?
  if [ $rc -eq 1 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "mixed.db: sql: " err.txt &&
     [ "$(md5 "$db")" = "$before" ] && [ ! -e "$E2E_TMP/new.db" ]; then
    ok "$T: refused: $q"
  else
    nok "$T: refused: $q" "exit $rc, $(head -2 err.txt | tr '\n' '|') file $( [ "$(md5 "$db")" = "$before" ] && echo same || echo CHANGED)"
  fi
done
# A read-only file and folder: queries run, nothing is written beside it.
mkdir ro && cp "$db" ro/ && chmod 444 ro/mixed.db && chmod 555 ro
out=$("$C2CTUI" sql ro/mixed.db "SELECT value FROM meta WHERE key = 'source_kind'" 2>&1)
if [ "$out" = $'value\nimport' ] && [ "$(ls ro)" = mixed.db ]; then ok "$T: read-only session"
else nok "$T: read-only session" "$out; $(ls ro | tr '\n' ' ')"; fi
chmod 755 ro

# CSV: NULL is an empty field, quoting, blobs as X'..', several statements
"$C2CTUI" sql "$db" "SELECT NULL AS a, 'x,y' AS b, 'say \"hi\"' AS c, x'00ff' AS d, 3.5 AS e; SELECT 2 AS two" >csv.txt 2>&1
exp=$'a,b,c,d,e\n,"x,y","say ""hi""",X\'00ff\',3.5\n\ntwo\n2'
if [ "$(cat csv.txt)" = "$exp" ]; then ok "$T: csv quoting, NULL, blob, two statements"
else nok "$T: csv quoting" "$(cat csv.txt | tr '\n' '|')"; fi
out=$("$C2CTUI" sql "$db" "SELECT 1 AS one" --no-header 2>&1)
[ "$out" = 1 ] && ok "$T: --no-header" || nok "$T: --no-header" "$out"

# a perf.data is imported into a temporary session first
n_tmp=$(ls -d /tmp/c2ctui-sql.* 2>/dev/null | wc -l)
out=$("$C2CTUI" sql false-sharing.data "SELECT count(*) FROM samples" --no-header 2>/dev/null)
[ "$(ls -d /tmp/c2ctui-sql.* 2>/dev/null | wc -l)" = "$n_tmp" ] || out="$out (a temporary session was left)"
want=$(json false-sharing.json 'd["samples"]')
[ "$out" = "$want" ] && ok "$T: a perf.data input ($out samples)" || nok "$T: a perf.data input" "got '$out', want $want"

# errors: one line naming the file, exit 1; usage: exit 2
"$C2CTUI" sql "$db" "SELEKT 1" >/dev/null 2>err.txt; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "mixed.db: sql: near \"SELEKT\"" err.txt &&
  ok "$T: syntax error" || nok "$T: syntax error" "exit $rc: $(cat err.txt)"
"$C2CTUI" sql "$db" "SELECT * FROM no_such_table" >/dev/null 2>err.txt; rc=$?
[ $rc -eq 1 ] && grep -q "no such table: no_such_table" err.txt && ok "$T: unknown table" || nok "$T: unknown table" "exit $rc: $(cat err.txt)"
"$C2CTUI" sql "$db" "  ;  -- nothing" >/dev/null 2>err.txt; rc=$?
[ $rc -eq 1 ] && grep -q "no statement" err.txt && ok "$T: no statement" || nok "$T: no statement" "exit $rc: $(cat err.txt)"
"$C2CTUI" sql "$db" >/dev/null 2>&1; rc1=$?
"$C2CTUI" sql "$db" "SELECT 1" --bogus >/dev/null 2>&1; rc2=$?
"$C2CTUI" sql no-such.db "SELECT 1" >/dev/null 2>err.txt; rc3=$?
if [ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 1 ] && grep -q "no-such.db" err.txt; then ok "$T: usage and missing file"
else nok "$T: usage and missing file" "exits $rc1 $rc2 $rc3: $(cat err.txt)"; fi
# a closed pipe ends it quietly
"$C2CTUI" sql "$db" "SELECT * FROM samples" 2>err.txt | head -2 >/dev/null
rc=${PIPESTATUS[0]}
[ ! -s err.txt ] && [ "$rc" = 141 ] && ok "$T: closed pipe: exit 141, no message" || nok "$T: closed pipe" "exit $rc: $(cat err.txt)"
# a session that is not complete says so on stderr (rows on stdout)
cp "$db" part.db
"$C2CTUI" sql part.db "SELECT 1" >/dev/null 2>&1
python3 - part.db <<'PY' 2>/dev/null
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("INSERT OR REPLACE INTO meta VALUES ('stop_reason', 'import interrupted by SIGINT')"); c.commit()
PY
out=$("$C2CTUI" sql part.db "SELECT 1 AS one" 2>err.txt)
[ "$out" = $'one\n1' ] && grep -q "part.db: partial session" err.txt && ok "$T: partial session said on stderr" ||
  nok "$T: partial session" "$out / $(cat err.txt)"

# docs/schema.md's two examples: their totals are the report's
"$C2CTUI" sql mixed.db "SELECT cpu, node, count(*) AS samples,
  sum(class_bits >> 38 & 3) AS lcl_hitm, sum(class_bits >> 40 & 3) AS rmt_hitm
  FROM samples GROUP BY cpu ORDER BY rmt_hitm DESC" >ex1.csv 2>&1
got=$(tail -n +2 ex1.csv | awk -F, '{l += $4; r += $5} END {print l + 0, r + 0}')
want=$(json mixed.json '"%d %d" % (d["totals"]["lcl_hitm"], d["totals"]["rmt_hitm"])' 2>/dev/null)
[ -n "$want" ] && [ "$got" = "$want" ] && ok "$T: docs example 1: HITM per CPU adds up to the report's ($got)" ||
  nok "$T: docs example 1" "got '$got', report '$want'; $(head -3 ex1.csv | tr '\n' '|')"
line=$(json mixed.json 'd["lines"][0]["address"]' 2>/dev/null)
"$C2CTUI" sql mixed.db "SELECT printf('%#x', s.ip) AS ip, f.function, count(*) AS stores
  FROM samples s LEFT JOIN sites f ON f.id = s.site
  WHERE s.addr >> 6 = $line >> 6 AND (s.class_bits >> 4 & 3) > 0
  GROUP BY s.ip ORDER BY stores DESC" >ex2.csv 2>&1
got=$(tail -n +2 ex2.csv | awk -F, '{s += $3} END {print s + 0}')
want=$(json mixed.json '[l for l in d["lines"] if l["address"] == d["lines"][0]["address"]][0]["stores"]' 2>/dev/null)
[ -n "$want" ] && [ "$got" = "$want" ] && ok "$T: docs example 2: stores per site add up to the line's ($got)" ||
  nok "$T: docs example 2" "got '$got', report '$want'; $(head -3 ex2.csv | tr '\n' '|')"
