#!/usr/bin/env bash
# c2ctui import end to end: every real fixture and every generated scenario
# imports into a session that passes SQLite's integrity check, with the
# sample count (and, for generated files, the class totals the generator
# promises) found in the session. Also pipe-format and compressed input,
# and a refused overwrite.
. "$(dirname "$0")/lib.sh"
GEN=$C2C_BUILD/tools/c2c-gen

if ! command -v sqlite3 >/dev/null; then
  skip import_fixtures "sqlite3 command not installed"
  exit 0
fi
if [ ! -x "$C2CTUI" ]; then
  nok import_fixtures "no $C2CTUI"
  exit 0
fi

integrity() { [ "$(sqlite3 "$1" 'PRAGMA integrity_check')" = ok ]; }
q() { sqlite3 "$1" "$2"; }

# --- real recordings ---------------------------------------------------------
for name in amd-zen2-ibs-c2c intel-cml-c2c-stores intel-ivb-perf-mem-old-abi \
            intel-ivb-perf-mem-percpu intel-skx-weight-struct; do
  f=$C2C_FIXTURES/real/$name.data
  if [ ! -f "$f" ]; then
    skip "import_$name" "fixture $f absent"
    continue
  fi
  db=$E2E_TMP/$name.db
  "$C2CTUI" import -q "$f" -o "$db" 2>"$E2E_TMP/err"
  rc=$?
  if [ $rc -ne 0 ]; then
    nok "import_$name" "exit status $rc: $(head -1 "$E2E_TMP/err")"
    continue
  fi
  if integrity "$db"; then ok "import_${name}_integrity"; else nok "import_${name}_integrity"; fi
  n=$(session_sql "$db" "SELECT COUNT(*) FROM samples")
  c=$(q "$db" "SELECT value FROM counters WHERE name = 'samples'")
  a=$(q "$db" "SELECT SUM(nr_entries) FROM agg_cpu")
  if [ "$n" -gt 0 ] && [ "$n" = "$c" ] && [ "$n" = "$a" ]; then
    ok "import_${name}_samples"
  else
    nok "import_${name}_samples" "samples table $n, counter $c, aggregates $a"
  fi
  # perf (the reference) counts the same records, when it can read the file.
  if command -v perf >/dev/null && perf c2c report --stdio -i "$f" >"$E2E_TMP/perf.txt" 2>/dev/null; then
    want=$(awk -F: '/Total records/ { gsub(/ /, "", $2); print $2; exit }' "$E2E_TMP/perf.txt")
    if [ -n "$want" ] && [ "$want" = "$a" ]; then
      ok "import_${name}_matches_perf"
    else
      nok "import_${name}_matches_perf" "perf says $want records, session has $a"
    fi
  else
    skip "import_${name}_matches_perf" "perf absent or cannot read the file"
  fi
  [ "$(q "$db" "SELECT value FROM meta WHERE key = 'finalized'")" = 1 ] \
    && ok "import_${name}_finalized" || nok "import_${name}_finalized"
done

# --- generated recordings ------------------------------------------------------
if [ ! -x "$GEN" ]; then
  skip import_generated "no $GEN"
  exit 0
fi
expect_val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

for sc in false-sharing true-sharing classes mixed lock-tracepoints; do
  for variant in file pipe compress; do
    t=import_gen_${sc}_$variant
    f=$E2E_TMP/$sc-$variant.data
    db=$E2E_TMP/$sc-$variant.db
    args=()
    [ $variant = pipe ] && args=(--pipe)
    [ $variant = compress ] && args=(--compress)
    if ! "$GEN" --scenario "$sc" "${args[@]}" --expect -o "$f" >"$E2E_TMP/expect" 2>"$E2E_TMP/err"; then
      skip "$t" "generator cannot make it: $(head -1 "$E2E_TMP/err")"
      continue
    fi
    "$C2CTUI" import -q "$f" -o "$db" 2>"$E2E_TMP/err"
    rc=$?
    if [ $rc -ne 0 ]; then
      nok "$t" "exit status $rc: $(head -1 "$E2E_TMP/err")"
      continue
    fi
    integrity "$db" || { nok "$t" "integrity check failed"; continue; }
    want_s=$(expect_val samples "$E2E_TMP/expect")
    want_ld=$(expect_val loads "$E2E_TMP/expect")
    want_st=$(expect_val stores "$E2E_TMP/expect")
    want_lh=$(expect_val class.lcl_hitm "$E2E_TMP/expect")
    want_rh=$(expect_val class.rmt_hitm "$E2E_TMP/expect")
    want_lw=$(expect_val lock_waits "$E2E_TMP/expect")
    want_ns=$(expect_val lock_wait_ns "$E2E_TMP/expect")
    got=$(q "$db" "SELECT SUM(nr_entries) || ' ' || SUM(load) || ' ' || SUM(store) || ' ' || SUM(lcl_hitm) || ' ' || SUM(rmt_hitm) FROM agg_cpu")
    got_lw=$(q "$db" "SELECT COUNT(*) || ' ' || COALESCE(SUM(wait_ns), 0) FROM lock_waits")
    if [ "$got" = "$want_s $want_ld $want_st $want_lh $want_rh" ] && \
       { [ -z "$want_lw" ] || [ "$got_lw" = "$want_lw $want_ns" ]; }; then
      ok "$t"
    else
      nok "$t" "session: $got (locks $got_lw), generator: $want_s $want_ld $want_st $want_lh $want_rh (locks $want_lw $want_ns)"
    fi
  done
done

# --- an existing output is never overwritten -------------------------------------
f=$E2E_TMP/false-sharing-file.data
if [ -f "$f" ]; then
  echo keep >"$E2E_TMP/exists.db"
  if "$C2CTUI" import -q "$f" -o "$E2E_TMP/exists.db" 2>"$E2E_TMP/err"; then
    nok import_refuses_overwrite "exit status 0"
  elif [ "$(cat "$E2E_TMP/exists.db")" = keep ] && grep -q exists.db "$E2E_TMP/err"; then
    ok import_refuses_overwrite
  else
    nok import_refuses_overwrite "file changed or message without its name: $(cat "$E2E_TMP/err")"
  fi
fi
