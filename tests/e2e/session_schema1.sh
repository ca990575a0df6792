#!/usr/bin/env bash
# Sessions made before schema 2 kept one SQLite row a sample (table
# samples); schema 2 keeps column blocks (sample_blocks) read through
# c2ctui's samples virtual table, schema 3 one CPU's samples a block. An
# old session must still open and say the same: from a new session this
# builds its schema-1 twin (the same rows in a real samples table, in
# recording order with ids 1..N as schema 1 numbered them, no blocks,
# user_version 1) and compares report (text, JSON, filters), locks and
# --types on both, and sql over a twin that keeps the block session's
# ids; the twins are never changed by reading them.
. "$(dirname "$0")/lib.sh"
T=session_schema1
command -v python3 >/dev/null || { skip $T "python3 is not installed"; exit 0; }
cd "$E2E_TMP" || exit 1
GEN=$C2C_BUILD/tools/c2c-gen

# schema1 NEW OLD [renumber]: OLD is NEW with its samples as rows (schema
# 1); renumber: in recording order (time, id), ids 1..N
schema1() {
  local order="id"
  [ "${3:-}" = renumber ] && order="time, id"
  cp "$1" "$2" &&
    "$C2CTUI" sql "$1" "SELECT * FROM samples ORDER BY $order" >"$2.csv" &&
    python3 - "$2" "$2.csv" "${3:-}" <<'PY'
import csv, itertools, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""CREATE TABLE samples (id INTEGER PRIMARY KEY, time INTEGER, event INTEGER, cpu INTEGER,
 node INTEGER, pid INTEGER, tid INTEGER, cpumode INTEGER, ip INTEGER, site INTEGER, addr INTEGER,
 phys_addr INTEGER, class_bits INTEGER, weight INTEGER, ins_lat INTEGER, data_src INTEGER, period INTEGER,
 dsym INTEGER, dsym_offset INTEGER, callchain INTEGER, raw BLOB, line_var INTEGER);""")
with open(sys.argv[2], newline="") as f:
    rows = csv.reader(f)
    head = next(rows)
    assert head[0] == "id" and head[20] == "raw", head
    def val(i, v):
        if v == "":
            return None
        if i == 20:
            raise SystemExit("a raw payload: not a c2c session")
        return int(v)
    renumber = sys.argv[3] == "renumber"
    db.executemany("INSERT INTO samples VALUES (%s)" % ",".join("?" * len(head)),
                   ([k if renumber and i == 0 else val(i, v) for i, v in enumerate(r)]
                    for k, r in zip(itertools.count(1), rows)))
db.execute("DROP TABLE sample_blocks")
db.execute("DROP TABLE IF EXISTS sample_block_index")
db.execute("UPDATE c2ctui_session SET schema_version = 1")
db.execute("PRAGMA user_version = 1")
db.commit()
db.execute("PRAGMA journal_mode = DELETE")
db.close()
PY
}

for sc in mixed false-sharing; do
  "$GEN" --scenario $sc --samples 30000 -o $sc.data >/dev/null 2>&1 &&
    "$C2CTUI" import -q $sc.data -o $sc.db && schema1 $sc.db $sc-v1.db renumber && schema1 $sc.db $sc-ids.db ||
    { nok "$T: $sc setup" "generate, import or rewrite as schema 1 failed"; continue; }
  n=$(session_sql $sc-v1.db "SELECT COUNT(*) FROM samples")
  blocks=$(session_sql $sc-v1.db "SELECT COUNT(*) FROM sqlite_schema WHERE name = 'sample_blocks'")
  [ "$n" = 30000 ] && [ "$blocks" = 0 ] && ok "$T: $sc: the twin has 30000 sample rows and no blocks" ||
    nok "$T: $sc: twin" "rows '$n', sample_blocks tables '$blocks'"
  sum=$(md5sum <$sc-v1.db)
  sumids=$(md5sum <$sc-ids.db)
  cpu=$(session_sql $sc.db "SELECT cpu FROM samples WHERE cpu IS NOT NULL GROUP BY cpu ORDER BY COUNT(*) DESC LIMIT 1")
  for args in "report" "report --format json" "report --show-all -N" "report --cpu $cpu" "report --time 0.001,0.004" \
              "report --double-cl" "report --threads" "locks" "report --types"; do
    # shellcheck disable=SC2086
    a=$("$C2CTUI" $args $sc.db 2>&1 | sed "s/$sc\\.db/S/g"); ra=$?
    # shellcheck disable=SC2086
    b=$("$C2CTUI" $args $sc-v1.db 2>&1 | sed "s/$sc-v1\\.db/S/g"); rb=$?
    if [ $ra = $rb ] && [ "$a" = "$b" ] && [ -n "$a" ]; then ok "$T: $sc: $args: same as the block session"
    else nok "$T: $sc: $args" "exit $ra/$rb: $(diff <(echo "$a") <(echo "$b") | head -4 | tr '\n' '|')"; fi
  done
  # the virtual table's id constraints (block boundaries at 4096k + 1),
  # order and lookups give what the real table gives
  bad=
  for q in "SELECT cpu, count(*), sum(weight), sum(addr & 4095) FROM samples GROUP BY cpu ORDER BY cpu" \
           "SELECT count(*), min(id), max(id) FROM samples WHERE id > 4095 AND id <= 8193" \
           "SELECT id, time, cpu, phys_addr, line_var FROM samples WHERE id = 4097 OR id = 1 OR id = 30000" \
           "SELECT id FROM samples WHERE id IN (4096, 4097, 8192, 29999, 30001, -1, 0)" \
           "SELECT count(*) FROM samples WHERE id >= 2.5 AND id < 12288.5" \
           "SELECT count(*) FROM samples WHERE id < -5 OR id > 99999 OR id = NULL OR id = 'x'" \
           "SELECT id, addr FROM samples ORDER BY id DESC LIMIT 3" \
           "SELECT a.id, b.id FROM samples a JOIN samples b ON b.id = a.id + 4095 WHERE a.id % 997 = 1" \
           "SELECT s.id, f.function FROM samples s JOIN sites f ON f.id = s.site WHERE s.id BETWEEN 8190 AND 8200" \
           "SELECT count(*), sum(dsym IS NULL), sum(weight IS NULL), sum(callchain IS NULL) FROM samples"; do
    a=$(session_sql $sc.db "$q" 2>&1); b=$(session_sql $sc-ids.db "$q" 2>&1)
    [ "$a" = "$b" ] && [ -n "$a" ] || bad="$q: $(head -c 200 <<<"$a") vs $(head -c 200 <<<"$b")"
  done
  [ -z "$bad" ] && ok "$T: $sc: sql over samples agrees (ids, ranges, lookups, joins, NULLs)" ||
    nok "$T: $sc: sql over samples" "$bad"
  [ "$(md5sum <$sc-v1.db)" = "$sum" ] && [ "$(md5sum <$sc-ids.db)" = "$sumids" ] &&
    ok "$T: $sc: reading left the schema-1 files unchanged" ||
    nok "$T: $sc: the schema-1 file changed by reading it"
done
exit 0
