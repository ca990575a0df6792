#!/usr/bin/env bash
# Sessions are files people send each other, so reading a crafted or damaged
# one must be harmless. From a real imported session this builds variants
# with sqlite3 (a view or a recursive view in place of a table, a trigger,
# a virtual table, a generated column, a missing column, a column of the
# wrong type, huge and wrongly typed values, a corrupt page, a truncated
# file, bogus user_versions) and runs report (text, JSON), locks and diff on
# each: a refused file ends in exit != 0 and one line on stderr naming the
# file; a harmless one in a report (or that one line); every run within
# 10 s, without a crash, and the file's md5 unchanged (diff and --types too:
# reading never writes).
. "$(dirname "$0")/lib.sh"
T=hostile_sessions
command -v sqlite3 >/dev/null || { skip $T "sqlite3 not installed"; exit 0; }
d=$E2E_TMP/h
mkdir -p "$d"
"$C2C_BUILD/tools/c2c-gen" --scenario lock-tracepoints -o "$E2E_TMP/l.data" >/dev/null 2>&1 &&
  "$C2CTUI" import -q "$E2E_TMP/l.data" -o "$E2E_TMP/base.db" >/dev/null 2>&1 ||
  { nok $T "setup: c2c-gen + import failed"; exit 0; }

# variant NAME SQL: a copy of the base session changed by SQL.
variant() {
  cp "$E2E_TMP/base.db" "$d/$1.db" &&
    sqlite3 -batch "$d/$1.db" "$2" >/dev/null 2>"$E2E_TMP/sqlerr" ||
    { nok "$T: setup $1" "$(head -1 "$E2E_TMP/sqlerr")"; rm -f "$d/$1.db"; }
}
cp "$E2E_TMP/base.db" "$d/real.db"
variant view_agg_line "DROP TABLE agg_line; CREATE VIEW agg_line AS SELECT * FROM agg_cpu;"
variant recursive_view_samples "CREATE VIEW samples AS WITH RECURSIVE r(i) AS
  (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i AS id, i AS time, 0 AS event, 0 AS cpu, 0 AS node,
  0 AS pid, 0 AS tid, 0 AS cpumode, 0 AS ip, 0 AS site, 0 AS addr, 0 AS phys_addr, 0 AS class_bits,
  0 AS weight, 0 AS ins_lat, 0 AS data_src, 1 AS period, 0 AS dsym, 0 AS dsym_offset, 0 AS callchain,
  NULL AS raw, 0 AS line_var FROM r;"
variant trigger "CREATE TRIGGER t_meta AFTER INSERT ON meta BEGIN DELETE FROM sample_blocks; END;"
if sqlite3 :memory: "CREATE VIRTUAL TABLE x USING fts5(a);" >/dev/null 2>&1; then
  variant virtual_table "CREATE VIRTUAL TABLE notes USING fts5(body);"
else
  skip "$T: virtual table" "this sqlite3 has no fts5"
fi
variant generated_column "ALTER TABLE sample_blocks ADD COLUMN g INTEGER GENERATED ALWAYS AS (first_id * 2) VIRTUAL;"
variant missing_column "ALTER TABLE sites DROP COLUMN rel_addr;"
variant wrong_type "ALTER TABLE sample_blocks RENAME COLUMN n TO n_old; ALTER TABLE sample_blocks ADD COLUMN n TEXT;"
# a real samples table in a block session: rows are read from it (as in a
# schema-1 session), with wrong columns refused
variant samples_table_wrong_type "CREATE TABLE samples (id INTEGER PRIMARY KEY, time TEXT);"
# harmless: values of the wrong type and huge ones (80 MB of text where a
# function name goes, more than a session ever holds)
variant wrong_values "UPDATE sample_blocks SET n = 'heavy', tmin = x'00ff', tmax = 1e300 WHERE first_id = 1;
  UPDATE sites SET function = x'ff00fe', line = 'x';"
# damaged sample blocks: garbage, a cut block, a wrong row count, blocks
# overlapping, a block claiming 2^31 rows
variant block_garbage "UPDATE sample_blocks SET data = randomblob(3000) WHERE first_id = 1;"
variant block_cut "UPDATE sample_blocks SET data = substr(data, 1, length(data) / 2);"
variant block_wrong_n "UPDATE sample_blocks SET n = n * 1000 + 7;"
variant block_overlap "INSERT INTO sample_blocks SELECT first_id + 1, n, tmin, tmax, data FROM sample_blocks;"
variant block_huge_header "UPDATE sample_blocks SET data = x'43325342010100000080ffffff7f' || data;"
variant huge_text "UPDATE sites SET function = replace(hex(zeroblob(40000000)), '0', 'x') WHERE id = (SELECT min(id) FROM sites);"
variant lock_contention_missing_column "ALTER TABLE lock_contention DROP COLUMN caller;"
variant time_blocks_wrong_type "CREATE TABLE sample_time_blocks (block INTEGER PRIMARY KEY,
  first_id TEXT NOT NULL, last_id INTEGER NOT NULL, tmin INTEGER NOT NULL, tmax INTEGER NOT NULL);"
# the per-CPU blocks' index (schema 3): of the wrong type, gone, lying, or
# naming a block that is not there
variant index_wrong_type "DROP TABLE sample_block_index; CREATE TABLE sample_block_index (first_id INTEGER PRIMARY KEY,
  n INTEGER NOT NULL, tmin INTEGER, tmax INTEGER, cpus TEXT NOT NULL, nodes INTEGER NOT NULL, sorted INTEGER NOT NULL);"
variant index_dropped "DROP TABLE sample_block_index;"
variant index_wrong_values "UPDATE sample_block_index SET cpus = 0, nodes = -1, tmin = 'x', tmax = x'00', sorted = 7;"
variant index_missing_block "INSERT INTO sample_block_index (first_id, n, tmin, tmax, cpus, nodes, sorted)
  VALUES (999999999, 5, 1, 9e18, -1, -1, 1);"
# its processes and threads (since 2026-12-07): of the wrong type (then
# not used), or values that are no integers (the block is read)
variant index_tasks_wrong_type "ALTER TABLE sample_block_index DROP COLUMN tids;
  ALTER TABLE sample_block_index ADD COLUMN tids TEXT;"
variant index_tasks_wrong_values "UPDATE sample_block_index SET pids = 'x', tids = x'00ff';"
variant type_attr_forged "CREATE TABLE type_attr (sample_id INTEGER PRIMARY KEY, how TEXT NOT NULL, type_name TEXT,
  object INTEGER, offset INTEGER, member TEXT, top TEXT, var TEXT, why TEXT);"
variant user_version_newer "PRAGMA user_version = 99;"
variant user_version_bogus "PRAGMA user_version = -7;"
size=$(stat -c %s "$E2E_TMP/base.db")
cp "$E2E_TMP/base.db" "$d/corrupt_page.db"
# 4 KiB of 0xa5 over the middle of the file (a b-tree page)
head -c 4096 /dev/zero | tr '\0' '\245' |
  dd of="$d/corrupt_page.db" bs=1 seek=$((size / 2)) conv=notrunc status=none
cp "$E2E_TMP/base.db" "$d/truncated.db"
truncate -s $((size / 2 + 100)) "$d/truncated.db"

# expect: refuse (exit != 0, one line naming the file) or either (that, or
# exit 0 with a report); real: exit 0 with a report.
declare -A expect=(
  [real]=ok [view_agg_line]=refuse [recursive_view_samples]=refuse [trigger]=refuse [virtual_table]=refuse
  [generated_column]=refuse [missing_column]=refuse [wrong_type]=refuse [wrong_values]=either
  [huge_text]=either [user_version_newer]=refuse [user_version_bogus]=refuse [corrupt_page]=either
  [truncated]=either [lock_contention_missing_column]=refuse [time_blocks_wrong_type]=refuse
  [type_attr_forged]=refuse [samples_table_wrong_type]=refuse [block_garbage]=either [block_cut]=either
  [block_wrong_n]=either [block_overlap]=either [block_huge_header]=either [index_wrong_type]=refuse
  [index_dropped]=either [index_wrong_values]=either [index_missing_block]=either
)
# diff attributes types (in memory): like every reader, it changes nothing.
cmds=("report" "report --format json" "locks" "diff --no-attribute --format text" "diff --format text"
      "report --types" "report --cpu 0-3 --node 0")
for f in "$d"/*.db; do
  v=$(basename "$f" .db)
  sum=$(md5sum <"$f")
  for c in "${cmds[@]}"; do
    # shellcheck disable=SC2086
    set -- $c
    args=("$@" "$f")
    [ "$1" = diff ] && args+=("$f")
    t0=$(date +%s%N)
    timeout 20 "$C2CTUI" "${args[@]}" >"$E2E_TMP/out" 2>"$E2E_TMP/err"
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    n=$(wc -l <"$E2E_TMP/err")
    line=$(head -1 "$E2E_TMP/err")
    name="$T: $v: $c"
    why=""
    if [ $rc -ge 124 ]; then why="exit $rc (crash or timeout): $line"
    elif [ $ms -ge 10000 ]; then why="took ${ms} ms"
    elif [ "$(md5sum <"$f")" != "$sum" ]; then why="the file changed"
    elif [ $rc -ne 0 ]; then
      [ "${expect[$v]}" = ok ] && why="exit $rc: $line"
      [ -z "$why" ] && [ "$n" -ne 1 ] && why="exit $rc with $n lines on stderr: $(tr '\n' '|' <"$E2E_TMP/err" | head -c 300)"
      [ -z "$why" ] && case "$line" in *"$v.db"*) ;; *) why="the line does not name the file: $line" ;; esac
      # report's own line names it once (store errors start with it already)
      [ -z "$why" ] && [ "$1" = report ] && case "$line" in *"$v.db"*"$v.db"*) why="the file named twice: $line" ;; esac
    else
      [ "${expect[$v]}" = refuse ] && why="exit 0, expected a refusal"
      [ -z "$why" ] && [ ! -s "$E2E_TMP/out" ] && why="exit 0 with no output"
      [ -z "$why" ] && [ "$n" -gt 1 ] && why="$n lines on stderr: $(tr '\n' '|' <"$E2E_TMP/err" | head -c 300)"
    fi
    if [ -n "$why" ]; then nok "$name" "$why"
    else ok "$name (exit $rc, ${ms} ms${line:+: $line})"; fi
  done
  [ -e "$f-wal" ] || [ -e "$f-journal" ] && nok "$T: $v: companions" "a -wal or -journal was left beside it"
done
exit 0
