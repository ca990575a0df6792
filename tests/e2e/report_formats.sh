#!/usr/bin/env bash
# c2ctui report on a generated recording: the three formats carry the same
# numbers, options (--lines, --stats, -d, --time, --show-all) do what they say,
# and `report perf.data` equals `report` of the imported session.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

gen=$C2C_BUILD/tools/c2c-gen
if [ ! -x "$C2CTUI" ] || [ ! -x "$gen" ]; then
	skip report_formats "c2ctui or c2c-gen is not built"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip report_formats "python3 is not installed"
	exit 0
fi

data=$E2E_TMP/mixed.data
db=$E2E_TMP/mixed.db
if ! "$gen" --scenario mixed -o "$data" --seed 3 >/dev/null 2>"$E2E_TMP/gen.err"; then
	nok report_formats_setup "c2c-gen failed: $(head -1 "$E2E_TMP/gen.err")"
	exit 0
fi
if ! "$C2CTUI" import "$data" -o "$db" >/dev/null 2>"$E2E_TMP/imp.err"; then
	nok report_formats_setup "import failed: $(head -1 "$E2E_TMP/imp.err")"
	exit 0
fi

r() { "$C2CTUI" report "$@" 2>>"$E2E_TMP/report.err"; }

r "$db" --format json >"$E2E_TMP/all.json" || nok report_json "exit status $?"
r "$db" --format csv >"$E2E_TMP/all.csv" || nok report_csv "exit status $?"
r "$db" >"$E2E_TMP/all.txt" || nok report_text "exit status $?"
r "$data" --format json >"$E2E_TMP/fromdata.json" || nok report_perf_data_input "exit status $?"
r "$db" --format json --lines 1 >"$E2E_TMP/one.json"
r "$db" --format json --stats >"$E2E_TMP/stats.json"
r "$db" --format json -d rmt >"$E2E_TMP/rmt.json"
r "$db" --format json --show-all >"$E2E_TMP/showall.json"
r "$db" --format json --abs-time --time ,0.000000001 >"$E2E_TMP/none.json"
# --time is relative to the first sample (as the explorer shows it); the
# same window in perf clock seconds with --abs-time gives the same report
if command -v sqlite3 >/dev/null; then
  read -r t0 t1 < <(session_sql "$db" "SELECT MIN(time), MAX(time) FROM samples WHERE time > 0" | tr '|' ' ')
  half=$(( (t1 - t0) / 2 ))
  r "$db" --format json --time "0,$(printf '%d.%09d' $((half / 1000000000)) $((half % 1000000000)))" >"$E2E_TMP/rel.json"
  a0=$t0 a1=$((t0 + half))
  r "$db" --format json --abs-time --time "$(printf '%d.%09d' $((a0 / 1000000000)) $((a0 % 1000000000))),$(printf '%d.%09d' $((a1 / 1000000000)) $((a1 % 1000000000)))" >"$E2E_TMP/abs.json"
fi

python3 - "$E2E_TMP" <<'EOF'
import csv, json, sys
d = sys.argv[1]
def load(n):
    with open("%s/%s" % (d, n)) as f:
        return json.load(f)
def check(name, cond, why=""):
    print(("ok - %s" % name) if cond else ("not ok - %s: %s" % (name, why)))

a = load("all.json")
t = {v["key"]: v["value"] for v in a["trace"]}
check("report_json_trace_matches_totals",
      t["nr_entries"] == a["totals"]["nr_entries"] and t["load"] == a["totals"]["load"]
      and t["store"] == a["totals"]["store"], "trace rows differ from totals")
check("report_json_has_lines", len(a["lines"]) > 0 and a["lines_total"] == len(a["lines"]),
      "%d lines, lines_total %d" % (len(a["lines"]), a["lines_total"]))
vals = [l["tot"] for l in a["lines"]]
check("report_json_sorted_by_hitm", vals == sorted(vals, reverse=True), str(vals[:10]))
check("report_json_line_records",
      all(l["records"] == l["loads"] + l["st_l1hit"] + l["st_l1miss"] + l["st_na"] for l in a["lines"]),
      "records != loads + stores")
ok_rows = True
for l in a["lines"]:
    offs = [int(r["offset"], 16) for r in l["pareto"]]
    if offs != sorted(offs):
        ok_rows = False
    if sum(r["stats"]["tot_hitm"] for r in l["pareto"]) > l["stats"]["tot_hitm"]:
        ok_rows = False
check("report_json_pareto_rows", ok_rows, "Pareto rows unsorted or over the line total")

b = load("fromdata.json")
for k in ("trace", "shared", "lines"):
    check("report_perf_data_equals_session_%s" % k, a[k] == b[k], "differs")

one = load("one.json")
check("report_lines_limit", len(one["lines"]) == 1 and one["lines"][0] == a["lines"][0]
      and one["lines_total"] == a["lines_total"], "--lines 1 gave %d lines" % len(one["lines"]))
st = load("stats.json")
check("report_stats_only", st["lines"] == [] and st["trace"] == a["trace"], "--stats printed lines")
rm = load("rmt.json")
rv = [l["rmt"] for l in rm["lines"]]
check("report_display_rmt", rm["display"] == "rmt" and rv == sorted(rv, reverse=True)
      and all(v > 0 for v in rv), str(rv[:10]))
sa = load("showall.json")
check("report_show_all", len(sa["lines"]) >= len(a["lines"]) and
      {l["address"] for l in a["lines"]} <= {l["address"] for l in sa["lines"]}, "show-all lost lines")
no = load("none.json")
check("report_time_window", no["totals"]["nr_entries"] < a["totals"]["nr_entries"],
      "a 1 ns window kept %d samples" % no["totals"]["nr_entries"])
import os
if os.path.exists("%s/rel.json" % d):
    rel, ab = load("rel.json"), load("abs.json")
    check("report_time_relative_equals_abs_time",
          rel["totals"] == ab["totals"] and rel["lines"] == ab["lines"] and
          0 < rel["totals"]["nr_entries"] < a["totals"]["nr_entries"],
          "relative %d samples, absolute %d, all %d" % (rel["totals"]["nr_entries"], ab["totals"]["nr_entries"],
                                                         a["totals"]["nr_entries"]))

with open("%s/all.csv" % d) as f:
    rows = list(csv.reader(f))
lines = [r for r in rows if r[0] == "line" and r[1] != "index"]
trace = {r[1]: r[3] for r in rows if r[0] == "trace" and r[1] != "key"}
check("report_csv_matches_json", len(lines) == len(a["lines"]) and
      int(trace["nr_entries"]) == t["nr_entries"] and
      [int(r[6]) for r in lines] == [l["tot"] for l in a["lines"]], "CSV differs from JSON")

with open("%s/all.txt" % d) as f:
    txt = f.read()
check("report_text_sections", all(s in txt for s in (
    "Trace Event Information", "Global Shared Cache Line Event Information", "c2c details",
    "Shared Data Cache Line Table", "Shared Cache Line Distribution Pareto")), "section missing")
check("report_text_total_records", ("%10d" % t["nr_entries"]) in txt.split("Total records")[1].splitlines()[0],
      "Total records row differs")
EOF
# nothing on stderr but the warnings perf report prints for the same
# recording (lost chunks, throttling: the perf.data input imports first)
if grep -qv '^Warning: ' "$E2E_TMP/report.err"; then
	nok report_stderr_clean "$(grep -v '^Warning: ' "$E2E_TMP/report.err" | head -2 | tr '\n' '|')"
else
	ok report_stderr_clean
fi
