#!/usr/bin/env bash
# Runs the whole suite for each build directory given (e.g. build build-asan):
# every unit-test binary in DIR/tests and every script in tests/e2e/*.sh.
# Each test prints lines "ok - NAME", "not ok - NAME: why" or "skip - NAME: why";
# this script counts them and ends with one line "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export C2C_TOP=$top
export C2C_FIXTURES=${C2C_FIXTURES:-$top/../shared/fixtures}
export LANG=C.UTF-8 TZ=UTC
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

pass=0 fail=0 skip=0
failed_names=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

count() { # $1 label; reads the test output in $log
  local p f s
  p=$(grep -c '^ok - ' "$log"); f=$(grep -c '^not ok - ' "$log"); s=$(grep -c '^skip - ' "$log")
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
  while IFS= read -r line; do failed_names+=("$1: $line"); done < <(grep '^not ok - ' "$log")
}

for dir in "$@"; do
  export C2C_BUILD=$top/$dir C2CTUI=$top/$dir/c2ctui
  for t in "$dir"/tests/test_*; do
    [ -x "$t" ] || continue
    echo "== $t"
    if ! "$t" >"$log" 2>&1; then
      grep -q '^not ok - ' "$log" || echo "not ok - $(basename "$t"): exited with status $? and no result line" >>"$log"
    fi
    grep -E '^(ok|not ok|skip) - |^#' "$log" | sed 's/^/  /'
    grep -qE '^(ok|not ok|skip) - ' "$log" || { echo "not ok - $(basename "$t"): printed no result" >>"$log"; tail -20 "$log"; }
    grep -q '^not ok - ' "$log" && tail -30 "$log" | grep -vE '^(ok|skip) - ' | sed 's/^/  | /'
    count "$t"
  done
  for s in tests/e2e/*.sh; do
    [ -f "$s" ] || continue
    [ "$(basename "$s")" = lib.sh ] && continue
    echo "== $s ($dir)"
    if ! timeout 900 bash "$s" >"$log" 2>&1; then
      grep -q '^not ok - ' "$log" || echo "not ok - $(basename "$s"): script failed" >>"$log"
    fi
    grep -E '^(ok|not ok|skip) - ' "$log" | sed 's/^/  /'
    grep -q '^not ok - ' "$log" && tail -40 "$log" | grep -vE '^(ok|skip) - ' | sed 's/^/  | /'
    count "$s"
  done
done

if [ ${#failed_names[@]} -gt 0 ]; then
  echo "failures:"; printf '  %s\n' "${failed_names[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
