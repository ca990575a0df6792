#!/usr/bin/env bash
# Fuzzes the perf.data reader for SECONDS (default 60): builds
# tests/fuzz/fuzz_perfdata.c with clang's libFuzzer + ASan + UBSan (compiling
# the reader's sources directly), then runs it with the real fixtures and
# the hand-built files of test_perfdata_file as seed corpus. Prints one
# result line (ok / not ok / skip). A crash leaves its reproducer in
# build/fuzz/ and the line names it.
set -u
secs=${1:-60}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=$top/build/fuzz
name=fuzz_perfdata
CLANG=${CLANG:-$(command -v clang || command -v clang-14 || true)}
if [ -z "$CLANG" ]; then
  echo "skip - $name: clang is not installed"; exit 0
fi
# The working corpus (where new inputs go) persists in build/fuzz/corpus
# unless C2C_FUZZ_CORPUS names another directory (the short run in make test
# uses a fresh one, so its time goes to fuzzing, not to replaying).
corpus=${C2C_FUZZ_CORPUS:-$out/corpus}
mkdir -p "$corpus" "$out/seeds"
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}' \
     | "$CLANG" -x c -fsanitize=fuzzer - -o "$out/probe" 2>/dev/null; then
  echo "skip - $name: clang has no libFuzzer runtime"; exit 0
fi
zstd_flags=$(pkg-config --cflags --libs libzstd 2>/dev/null || echo -lzstd)
srcs=("tests/fuzz/$name.c" collector/perfdata/perf_record.c collector/perfdata/perfdata_*.c collector/base/error.c
      collector/perfdata/perf_record.h collector/perfdata/perfdata.h collector/perfdata/perfdata_internal.h collector/base/error.h
      collector/base/sample.h)
stale=1
if [ -x "$out/$name" ]; then
  stale=0
  for f in "${srcs[@]}"; do [ "$f" -nt "$out/$name" ] && stale=1; done
fi
# shellcheck disable=SC2086
if [ $stale = 1 ] && ! "$CLANG" -std=c11 -D_GNU_SOURCE -g -O1 -I"$top" \
     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
     tests/fuzz/$name.c collector/perfdata/perf_record.c collector/perfdata/perfdata_*.c collector/base/error.c \
     $zstd_flags -o "$out/$name" 2>"$out/build.log"; then
  echo "not ok - $name: the fuzzer does not build (see $out/build.log)"; exit 1
fi

# Seeds: the real recordings and every file the unit test builds (both
# byte orders, pipe format, compressed, damaged).
fixtures=${C2C_FIXTURES:-$top/../shared/fixtures}
seeds=()
[ -d "$fixtures/real" ] && seeds+=("$fixtures/real")
for b in "$top/build" "$top/build-asan"; do
  if [ -x "$b/tests/test_perfdata_file" ]; then
    C2C_PERFDATA_SEEDS="$out/seeds" "$b/tests/test_perfdata_file" >/dev/null 2>&1
    break
  fi
done
seeds+=("$out/seeds")

log=$out/$name.log
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
"$out/$name" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$out/" -print_final_stats=1 "$corpus" "${seeds[@]}" >"$log" 2>&1
rc=$?
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
if [ $rc -ne 0 ]; then
  crash=$(grep -o "Test unit written to [^ ]*" "$log" | tail -1)
  echo "not ok - $name: exit $rc after ${runs:-?} runs; ${crash:-see $log}"
  grep -E 'ERROR|runtime error|SUMMARY' "$log" | head -5 | sed 's/^/# /'
  exit 1
fi
echo "ok - $name: ${runs:-?} runs in ${secs}s, no crash (corpus $(find "$corpus" -type f | wc -l) files)"
