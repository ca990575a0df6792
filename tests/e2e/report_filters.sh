#!/usr/bin/env bash
# report --cpu/--node/--pid/--tid give the numbers of a fresh import of only
# the matching samples: tests/tools/perfdata_filter.py writes the recording
# with only those samples (every other record kept), and its report must be
# the filtered report, byte for byte, in text and in JSON, for several
# scenarios, lists and display modes.
. "$(dirname "$0")/lib.sh"
T=report_filters
GEN=$C2C_BUILD/tools/c2c-gen
FILTER=$C2C_TOP/tests/tools/perfdata_filter.py
command -v python3 >/dev/null || { skip $T "python3 is not installed"; exit 0; }
command -v sqlite3 >/dev/null || { skip $T "sqlite3 is not installed"; exit 0; }
cd "$E2E_TMP" || exit 1

# strip what names the input from a JSON report
norm_json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("input"); d["session"].pop("samples"); print(json.dumps(d, sort_keys=True))' "$1"; }

# same NAME FULL.db PART.data OPTION LIST [report options]
same() {
  local name=$1 full=$2 part=$3 opt=$4 list=$5
  shift 5
  rm -f part.db
  if ! "$C2CTUI" import -q "$part" -o part.db 2>err.txt; then
    nok "$T: $name" "the filtered recording does not import: $(head -1 err.txt)"; return
  fi
  "$C2CTUI" report "$full" "$opt" "$list" "$@" >a.txt 2>&1
  "$C2CTUI" report part.db "$@" >b.txt 2>&1
  "$C2CTUI" report "$full" "$opt" "$list" "$@" --format json >a.json 2>/dev/null
  "$C2CTUI" report part.db "$@" --format json >b.json 2>/dev/null
  if ! cmp -s a.txt b.txt; then
    nok "$T: $name" "text differs: $(diff a.txt b.txt | head -4 | tr '\n' '|')"
  elif [ "$(norm_json a.json)" != "$(norm_json b.json)" ]; then
    nok "$T: $name" "JSON differs"
  elif ! grep -q "Total records" a.txt; then
    nok "$T: $name" "no report: $(head -2 a.txt | tr '\n' '|')"
  else
    ok "$T: $name ($(grep -o 'Total records *: *[0-9]*' a.txt | grep -o '[0-9]*$') records)"
  fi
}

for sc in mixed false-sharing classes bench; do
  "$GEN" --scenario $sc --samples 20000 -o $sc.data >/dev/null 2>&1 &&
    "$C2CTUI" import -q $sc.data -o $sc.db || { nok "$T: $sc setup" "c2c-gen or import failed"; continue; }
  cpus=$(session_sql $sc.db "SELECT cpu FROM samples WHERE cpu IS NOT NULL GROUP BY cpu ORDER BY COUNT(*) DESC LIMIT 3" | tr '\n' ' ')
  read -r c1 c2 c3 <<<"$cpus"
  pid=$(session_sql $sc.db "SELECT pid FROM samples GROUP BY pid ORDER BY COUNT(*) LIMIT 1")
  tids=$(session_sql $sc.db "SELECT tid FROM samples GROUP BY tid ORDER BY COUNT(*) DESC LIMIT 2" | paste -sd,)
  node=$(sqlite3 -readonly $sc.db "SELECT node FROM cpus WHERE node >= 0 GROUP BY node ORDER BY node DESC LIMIT 1")
  node_cpus=$(sqlite3 -readonly $sc.db "SELECT group_concat(cpu) FROM cpus WHERE node = ${node:--1}")

  python3 "$FILTER" $sc.data one.data --cpu "$c1" && same "$sc --cpu $c1" $sc.db one.data --cpu "$c1"
  python3 "$FILTER" $sc.data list.data --cpu "$c1,$c2-$c2,$c3" &&
    same "$sc --cpu $c1,$c2,$c3 -d rmt --show-all" $sc.db list.data --cpu "$c1,$c2-$c2,$c3" -d rmt --show-all
  python3 "$FILTER" $sc.data pid.data --pid "$pid" && same "$sc --pid $pid -c pid,tid,iaddr" $sc.db pid.data --pid "$pid" -c pid,tid,iaddr
  python3 "$FILTER" $sc.data tid.data --tid "$tids" && same "$sc --tid $tids -N" $sc.db tid.data --tid "$tids" -N
  if [ -n "$node" ] && [ -n "$node_cpus" ]; then
    python3 "$FILTER" $sc.data node.data --cpu "$node_cpus" && same "$sc --node $node" $sc.db node.data --node "$node"
  fi
done

# the real recordings, where the filter script can rewrite them
for f in "$C2C_FIXTURES"/real/*.data; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .data)
  rm -f fx.db
  "$C2CTUI" import -q "$f" -o fx.db 2>/dev/null || { nok "$T: $n setup" "import failed"; continue; }
  c1=$(session_sql fx.db "SELECT cpu FROM samples WHERE cpu IS NOT NULL GROUP BY cpu ORDER BY COUNT(*) DESC LIMIT 1")
  [ -n "$c1" ] || { skip "$T: $n" "no CPU in its samples"; continue; }
  python3 "$FILTER" "$f" fx1.data --cpu "$c1"
  case $? in
    0) cp fx.db fxfull.db; same "$n --cpu $c1 --show-all" fxfull.db fx1.data --cpu "$c1" --show-all ;;
    2) skip "$T: $n" "the filter script does not rewrite this file's shape (attrs with different sample layouts)" ;;
    *) nok "$T: $n" "the filter script failed" ;;
  esac
done

# the threads table under a filter: only the matching threads, with the
# numbers of the unfiltered table's rows
"$C2CTUI" report mixed.db --threads --format json >all_threads.json 2>/dev/null
"$C2CTUI" report mixed.db --threads --tid "$tids" --format json >some_threads.json 2>/dev/null
if python3 - all_threads.json some_threads.json "$tids" <<'PY'
import json, sys
a, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = {int(t) for t in sys.argv[3].split(',')}
rows = lambda d: d if isinstance(d, list) else d.get("threads", d.get("rows", []))
ra = {r["tid"]: r for r in rows(a)}
rs = rows(s)
sys.exit(0 if rs and {r["tid"] for r in rs} == want and all(ra[r["tid"]] == r for r in rs) else 1)
PY
then ok "$T: --threads --tid keeps those threads' rows"; else nok "$T: --threads --tid" "$(head -c 300 some_threads.json)"; fi

# bad lists: one line, exit 2
for bad in "" "3-1" "a" "1,,2" "-1" "1-"; do
  "$C2CTUI" report mixed.db --cpu "$bad" >/dev/null 2>err.txt
  rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q -- "--cpu wants a list" err.txt; then :; else
    nok "$T: --cpu '$bad' refused" "exit $rc: $(head -1 err.txt)"; continue; fi
done
ok "$T: bad lists refused in one line"
