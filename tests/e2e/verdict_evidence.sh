#!/usr/bin/env bash
# Verdicts with evidence (docs/types.md, "verdict per line"), on generated
# recordings and the AMD IBS fixture:
#  - no line without HITM or peer samples is called false / true / mixed
#    (the access pattern alone says "potential"), in report --verdicts JSON
#    and text, for the false-sharing, true-sharing and mixed scenarios;
#  - every contended line has at least --min-evidence evidence samples, and
#    its text carries the evidence (CSV: the JSON's rows and keys) (HITM lcl/rmt, writers/readers, shared
#    members and victims, sites);
#  - --min-evidence 0 gives back the pattern-only verdicts (so the rule is
#    what changed them), --min-evidence 1000000 leaves no contended line;
#  - diff of two runs of the same scenario: no noise line (0 HITM on both
#    sides) shows a contended verdict on either side;
#  - the AMD IBS fixture (no HITM, no peer loads on Zen 2): nothing contended.
source "$(dirname "$0")/lib.sh"
T=verdict_evidence
GEN=$C2C_BUILD/tools/c2c-gen
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
[ -x "$GEN" ] || { skip "$T" "no $GEN (build first)"; exit 0; }
command -v python3 >/dev/null || { skip "$T" "no python3 to read the JSON"; exit 0; }
cd "$E2E_TMP" || exit 1

# count.py FILE MIN: prints "contended_without_evidence contended_below_min
# potential contended"; lines of the JSON of report --verdicts.
cat > count.py <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
m = int(sys.argv[2])
assert j["min_evidence"] == m, j["min_evidence"]
cont = ("false", "true", "mixed")
c = [l for l in j["lines"] if l["verdict"] in cont]
no_ev = [l for l in c if l["evidence"]["samples"] == 0 or l["hitm"] + l["evidence"]["lcl_peer"] + l["evidence"]["rmt_peer"] == 0]
below = [l for l in c if l["evidence"]["samples"] < m]
pot = [l for l in j["lines"] if l["verdict"] == "potential"]
bad_pot = [l for l in pot if l["pattern"] not in cont]
print(len(no_ev), len(below), len(pot), len(c), len(bad_pot))
PY

for sc in false-sharing true-sharing mixed; do
  if ! { "$GEN" --scenario $sc -o $sc.data >/dev/null 2>&1 &&
         "$C2CTUI" import $sc.data -o $sc.db >/dev/null 2>&1; }; then
    nok "$T: $sc: setup" "cannot generate or import"; continue
  fi
  "$C2CTUI" report $sc.db --verdicts --format json > $sc.json 2>err.txt
  read -r noev below pot cont badpot < <(python3 count.py $sc.json 5 2>>err.txt)
  if [ "$noev" = 0 ] && [ "$below" = 0 ] && [ "${cont:-0}" -gt 0 ] && [ "${pot:-0}" -gt 0 ] && [ "$badpot" = 0 ]; then
    ok "$T: $sc: 0 lines without HITM called false/true/mixed ($cont contended, $pot potential)"
  else
    nok "$T: $sc: 0 lines without HITM called false/true/mixed" \
      "without evidence $noev, below 5 $below, potential $pot, contended $cont, potential without pattern $badpot; $(head -c 300 err.txt)"
  fi
  # the old rule: the pattern alone
  "$C2CTUI" report $sc.db --verdicts --format json --min-evidence 0 > $sc.0.json 2>/dev/null
  read -r noev0 below0 pot0 cont0 badpot0 < <(python3 count.py $sc.0.json 0)
  if [ "${noev0:-0}" -gt 0 ] && [ "$pot0" = 0 ]; then
    ok "$T: $sc: --min-evidence 0 judges by the pattern alone ($noev0 lines without HITM called contended)"
  else
    nok "$T: $sc: --min-evidence 0 judges by the pattern alone" "without evidence $noev0, potential $pot0"
  fi
  "$C2CTUI" report $sc.db --verdicts --format json --min-evidence 1000000 > $sc.k.json 2>/dev/null
  read -r _ _ _ contk _ < <(python3 count.py $sc.k.json 1000000)
  check "$T: $sc: --min-evidence 1000000 leaves no line contended" test "$contk" = 0
done

# text: the evidence under each contended line, the rule as the last line
"$C2CTUI" report false-sharing.db --verdicts > fs.txt 2>&1
first=$(grep -m1 -A4 '^0x[0-9a-f]* *[0-9]* *[0-9]* false ' fs.txt)
if grep -q "evidence: HITM 126 (lcl 36, rmt 90), peer 0" <<<"$first" &&
   grep -q "writers: threads [0-9,]*, CPUs [0-9,]*; readers:" <<<"$first" &&
   grep -q "truly shared: -; victims (falsely shared): +0 +16 +32" <<<"$first" &&
   grep -q "sites (HITM/peer, samples): 0x[0-9a-f]* (48, 138)" <<<"$first"; then
  ok "$T: text: evidence under the hottest false-sharing line"
else
  nok "$T: text: evidence under the hottest false-sharing line" "$first"
fi
if grep -Eq '^0x[0-9a-f]+ +0 +[0-9]+ potential \([0-9]+ samples?\)' fs.txt &&
   ! grep -Eq '^0x[0-9a-f]+ +0 +[0-9]+ (false|true|mixed) ' fs.txt &&
   tail -1 fs.txt | grep -q -- "--min-evidence 5"; then
  ok "$T: text: 0-HITM lines say 'potential (N samples)', the rule is printed"
else
  nok "$T: text: 0-HITM lines say 'potential (N samples)', the rule is printed" "$(head -20 fs.txt)"
fi
"$C2CTUI" report false-sharing.db --verdicts --format csv > fs.csv 2>/dev/null
if python3 - <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open("fs.csv")))
j = json.load(open("false-sharing.json"))["lines"]
assert len(rows) == len(j), (len(rows), len(j))
for r, l in zip(rows, j):
    assert (r["line"], r["verdict"], int(r["evidence"])) == (l["line"], l["verdict"], l["evidence"]["samples"]), (r, l)
assert {r["verdict"] for r in rows} <= {"false", "true", "mixed", "potential", "none"}
PY
then ok "$T: csv: the JSON's lines, verdicts (stable keys) and evidence"
else nok "$T: csv: the JSON's lines, verdicts (stable keys) and evidence" "$(head -3 fs.csv)"; fi
"$C2CTUI" report false-sharing.db --verdicts --min-evidence x >/dev/null 2>err.txt
check "$T: --min-evidence x is a usage error" test $? -eq 2

# diff of two runs: noise stays noise
if "$GEN" --scenario false-sharing --seed 7 -o fs2.data >/dev/null 2>&1 &&
   "$C2CTUI" import fs2.data -o fs2.db >/dev/null 2>&1; then
  "$C2CTUI" report --diff false-sharing.db fs2.db --format json > d.json 2>/dev/null
  read -r noise cont < <(python3 - <<'PY'
import json
j = json.load(open("d.json"))
cont = ("false", "true", "mixed")
noise = 0; c = 0
for l in j["lines"]:
    b, a = l.get("before") or {}, l.get("after") or {}
    vs = [s.get("verdict") for s in (b, a) if s]
    if any(v in cont for v in vs):
        c += 1
        if b.get("hitm", 0) == 0 and a.get("hitm", 0) == 0:
            noise += 1
print(noise, c)
PY
)
  if [ "$noise" = 0 ] && [ "${cont:-0}" -gt 0 ]; then
    ok "$T: diff: no 0-HITM line has a contended verdict on either side ($cont lines with one)"
  else
    nok "$T: diff: no 0-HITM line has a contended verdict on either side" "noise $noise, contended $cont"
  fi
  "$C2CTUI" report --diff false-sharing.db fs2.db > d.txt 2>/dev/null
  if grep -q "no contention -> no contention" d.txt && grep -q "potential -> " d.txt &&
     grep -q "^Verdicts: false/true/mixed: at least 5 " d.txt; then
    ok "$T: diff text: noise lines read 'no contention' / 'potential', the rule is printed"
  else
    nok "$T: diff text: noise lines read 'no contention' / 'potential'" "$(head -12 d.txt)"
  fi
else
  nok "$T: diff: setup" "cannot generate or import the second run"
fi

# AMD IBS (Zen 2): neither HITM nor peer loads in data_src
FX=$C2C_FIXTURES/real/amd-zen2-ibs-c2c.data
if [ -r "$FX" ]; then
  if "$C2CTUI" import "$FX" -o zen2.db >/dev/null 2>&1 &&
     "$C2CTUI" report zen2.db --verdicts --format json > zen2.json 2>/dev/null; then
    read -r noev below pot cont _ < <(python3 count.py zen2.json 5)
    check "$T: AMD IBS fixture: no line contended without HITM/peer evidence" test "$cont" = 0 -a "$noev" = 0
  else
    nok "$T: AMD IBS fixture" "cannot import or report"
  fi
else
  skip "$T: AMD IBS fixture" "no $FX"
fi
