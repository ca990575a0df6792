#!/usr/bin/env bash
# The perf.data reader end to end through `c2ctui import -`: a live
# `perf record -o -` pipe, a file-format perf.data arriving on a pipe, and a
# damaged stream, each compared with what perf itself reads from the same
# bytes. Needs perf that can record software events (no PMU needed).
# shellcheck source=tests/e2e/lib.sh disable=SC2016  # sh -c bodies are single-quoted on purpose
source "$(dirname "$0")/lib.sh"

names=(reader_stdin_pipe_format reader_stdin_file_format reader_stdin_damage)
skip_all() { for n in "${names[@]}"; do skip "$n" "$1"; done; exit 0; }
[ -x "$C2CTUI" ] || skip_all "$C2CTUI is not built"
command -v perf >/dev/null || skip_all "perf is not installed"
if ! perf record -q -e cpu-clock/period=200000/ -o "$E2E_TMP/f.data" -- sh -c 'i=0; while [ $i -lt 10000 ]; do i=$((i+1)); done' \
     >/dev/null 2>&1; then
  skip_all "perf record cannot record cpu-clock here"
fi

# "N samples" from the import line; perf script prints one line per sample.
imported() { sed -n 's/.*: \([0-9][0-9]*\) samples.*/\1/p' "$1" | tail -1; }
perf_samples() { perf script -f -i "$1" 2>/dev/null | grep -c .; }

# 1. pipe format straight from perf record
perf record -q -e cpu-clock/period=200000/ -o - -- sh -c 'i=0; while [ $i -lt 10000 ]; do i=$((i+1)); done' 2>/dev/null \
  | tee "$E2E_TMP/p.data" | "$C2CTUI" import - -o "$E2E_TMP/p.db" >"$E2E_TMP/p.out" 2>&1
rc=${PIPESTATUS[2]}
got=$(imported "$E2E_TMP/p.out"); want=$(perf_samples "$E2E_TMP/p.data")
if [ "$rc" = 0 ] && [ -n "$got" ] && [ "$got" = "$want" ] && [ "$want" -gt 0 ]; then
  ok "${names[0]}"
else
  nok "${names[0]}" "exit $rc, imported ${got:-?} samples, perf script sees $want: $(tail -1 "$E2E_TMP/p.out")"
fi

# 2. a file-format perf.data on stdin (not seekable: read into memory)
# shellcheck disable=SC2002  # the point is a pipe, not a seekable stdin
cat "$E2E_TMP/f.data" | "$C2CTUI" import - -o "$E2E_TMP/f.db" >"$E2E_TMP/f.out" 2>&1
rc=$?
got=$(imported "$E2E_TMP/f.out"); want=$(perf_samples "$E2E_TMP/f.data")
if [ "$rc" = 0 ] && [ -n "$got" ] && [ "$got" = "$want" ] && [ "$want" -gt 0 ]; then
  ok "${names[1]}"
else
  nok "${names[1]}" "exit $rc, imported ${got:-?} samples, perf script sees $want: $(tail -1 "$E2E_TMP/f.out")"
fi

# 3. a stream cut inside its header: a clear error naming stdin, no crash
head -c 100 "$E2E_TMP/f.data" | "$C2CTUI" import - -o "$E2E_TMP/d.db" >"$E2E_TMP/d.out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && grep -q '(stdin).*truncated' "$E2E_TMP/d.out"; then
  ok "${names[2]}"
else
  nok "${names[2]}" "exit $rc: $(tail -1 "$E2E_TMP/d.out")"
fi
