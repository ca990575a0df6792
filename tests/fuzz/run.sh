#!/usr/bin/env bash
# Fuzzes c2ctui's readers of outside input for SECONDS each (default 60),
# each target built with clang's libFuzzer + ASan + UBSan from the sources
# directly (rebuilt when one is newer than the binary):
#   fuzz_perfdata   the perf.data reader; seeds: the real fixtures and the
#                   hand-built files of test_perfdata_file
#   fuzz_tracepoint the tracepoint format / tracing-data parser
#                   (collector/tracepoint); seeds: tests/fuzz/seeds_tracepoint.c
#   fuzz_session    the session opener (store_open + a few queries); seeds:
#                   small real sessions imported from c2c-gen scenarios
#   fuzz_cli        the command-line option parsers (report, import, locks,
#                   diff, report --diff/--types; record/live's parse step)
#                   with every input missing; seeds: command lines written
#                   below into build/fuzz/seeds-cli
# TARGETS (default: all four) picks some; FUZZ_SEEDS_ONLY="NAME..." only
# replays those targets' seeds. Prints one result line per
# target (ok / not ok / skip). A crash leaves its reproducer in build/fuzz/
# and the line names it.
set -u
secs=${1:-60}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=$top/build/fuzz
targets=${TARGETS:-fuzz_perfdata fuzz_tracepoint fuzz_session fuzz_cli}
CLANG=${CLANG:-$(command -v clang || command -v clang-14 || true)}
if [ -z "$CLANG" ]; then
  for t in $targets; do echo "skip - $t: clang is not installed"; done; exit 0
fi
mkdir -p "$out"
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}' \
     | "$CLANG" -x c -fsanitize=fuzzer - -o "$out/probe" 2>/dev/null; then
  for t in $targets; do echo "skip - $t: clang has no libFuzzer runtime"; done; exit 0
fi
export PKG_CONFIG_PATH=$top/build/libperf/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
fails=0

# build NAME SOURCES... -- FLAGS...: (re)builds $out/NAME; 0 or prints not ok.
build() {
  local name=$1; shift
  local srcs=() stale=1
  while [ $# -gt 0 ] && [ "$1" != -- ]; do srcs+=("$1"); shift; done
  shift
  if [ -x "$out/$name" ]; then
    stale=0
    for f in "${srcs[@]}"; do [ "$f" -nt "$out/$name" ] && stale=1; done
  fi
  [ $stale = 0 ] && return 0
  local cs=()
  for f in "${srcs[@]}"; do case "$f" in *.c) cs+=("$f") ;; esac; done
  if ! "$CLANG" -std=c11 -D_GNU_SOURCE -g -O1 -I"$top" -fsanitize=fuzzer,address,undefined \
       -fno-sanitize-recover=undefined "${cs[@]}" "$@" -o "$out/$name" 2>"$out/$name.build.log"; then
    echo "not ok - $name: the fuzzer does not build (see $out/$name.build.log)"; return 1
  fi
}

# run NAME MAX_LEN SEED_DIRS...: fuzzes for $secs seconds.
run() {
  local name=$1 maxlen=$2; shift 2
  # The working corpus (where new inputs go) persists in build/fuzz/corpus*
  # unless C2C_FUZZ_CORPUS names another directory (the short run in make
  # test uses a fresh one, so its time goes to fuzzing, not to replaying).
  local corpus=${C2C_FUZZ_CORPUS:-$out/corpus}
  [ "$name" = fuzz_perfdata ] || corpus=$corpus-${name#fuzz_}
  mkdir -p "$corpus"
  local log=$out/$name.log
  # FUZZ_SEEDS_ONLY names targets that only replay their seeds (a known
  # crash the mutation finds at once would fail every short run).
  local how=(-max_total_time="$secs")
  case " ${FUZZ_SEEDS_ONLY:-} " in *" $name "*) how=(-runs=0) ;; esac
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp \
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  "$out/$name" "${how[@]}" -max_len="$maxlen" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/$name-" -print_final_stats=1 "$corpus" "$@" >"$log" 2>&1
  local rc=$?
  local runs
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  if [ $rc -ne 0 ]; then
    local crash
    crash=$(grep -o "Test unit written to [^ ]*" "$log" | tail -1)
    echo "not ok - $name: exit $rc after ${runs:-?} runs; ${crash:-see $log}"
    grep -E 'ERROR|runtime error|SUMMARY' "$log" | head -5 | sed 's/^/# /'
    return 1
  fi
  if [ "${how[0]}" = -runs=0 ]; then
    echo "ok - $name: its $(find "$@" -type f | wc -l) seeds replayed, no crash (not mutated: FUZZ_SEEDS_ONLY)"
  else
    echo "ok - $name: ${runs:-?} runs in ${secs}s, no crash (corpus $(find "$corpus" -type f | wc -l) files)"
  fi
}

fixtures=${C2C_FIXTURES:-$top/../shared/fixtures}
for name in $targets; do
  case $name in
  fuzz_perfdata)
    zstd_flags=$($PKG_CONFIG --cflags --libs libzstd 2>/dev/null || echo -lzstd)
    # shellcheck disable=SC2086
    build $name tests/fuzz/$name.c collector/perfdata/perf_record.c collector/perfdata/perfdata_*.c \
      collector/base/error.c collector/perfdata/perf_record.h collector/perfdata/perfdata.h \
      collector/perfdata/perfdata_internal.h collector/base/error.h collector/base/sample.h -- $zstd_flags ||
      { fails=1; continue; }
    # Seeds: the real recordings and every file the unit test builds (both
    # byte orders, pipe format, compressed, damaged).
    mkdir -p "$out/seeds"
    seeds=()
    [ -d "$fixtures/real" ] && seeds+=("$fixtures/real")
    for b in "$top/build" "$top/build-asan"; do
      if [ -x "$b/tests/test_perfdata_file" ]; then
        C2C_PERFDATA_SEEDS="$out/seeds" "$b/tests/test_perfdata_file" >/dev/null 2>&1
        break
      fi
    done
    seeds+=("$out/seeds")
    run $name 65536 "${seeds[@]}" || fails=1 ;;
  fuzz_tracepoint)
    te_flags=$($PKG_CONFIG --cflags --libs libtraceevent 2>/dev/null || echo -ltraceevent)
    # shellcheck disable=SC2086
    build $name tests/fuzz/$name.c collector/tracepoint/tp_decoder.c collector/tracepoint/tp_format_check.c collector/tracepoint/tp_tracing_data.c \
      collector/tracepoint/tp_tracefs.c collector/base/error.c collector/tracepoint/tracepoint.h \
      collector/tracepoint/tp_priv.h -- $te_flags || { fails=1; continue; }
    mkdir -p "$out/seeds-tracepoint"
    if ! "$CLANG" -std=c11 -D_GNU_SOURCE -O1 -I"$top" tests/fuzz/seeds_tracepoint.c tests/gen/pdw_tracing.c \
         -o "$out/seeds_tracepoint" 2>"$out/seeds_tracepoint.build.log" ||
       ! "$out/seeds_tracepoint" "$out/seeds-tracepoint"; then
      echo "not ok - $name: the seeds do not build (see $out/seeds_tracepoint.build.log)"; fails=1; continue
    fi
    # tests/fuzz/crashes: inputs that once crashed (kept as regressions).
    run $name 16384 "$out/seeds-tracepoint" "$top/tests/fuzz/crashes" || fails=1 ;;
  fuzz_session)
    # The whole store and collector, as c2ctui links them.
    mapfile -t srcs < <(find store collector -name '*.[ch]' | sort)
    # shellcheck disable=SC2046
    build $name tests/fuzz/$name.c "${srcs[@]}" -- \
      $($PKG_CONFIG --cflags --libs libperf sqlite3 libtraceevent libdw libelf libbpf libzstd liblzma zlib capstone) \
      -lpthread -lm || { fails=1; continue; }
    # Seeds: small sessions of c2c-gen scenarios, vacuumed to 512-byte
    # pages so a mutation lands in few pages (c2ctui writes 16 KiB ones).
    sdir=$out/seeds-session
    mkdir -p "$sdir"
    bin=""
    for b in "$top/build" "$top/build-asan" "$top/build-j"; do
      [ -x "$b/c2ctui" ] && [ -x "$b/tools/c2c-gen" ] && { bin=$b; break; }
    done
    if [ -n "$bin" ] && [ -z "$(ls -A "$sdir")" ]; then
      for sc in false-sharing lock-tracepoints; do
        "$bin/tools/c2c-gen" --scenario $sc --samples 300 -o "$out/$sc.data" >/dev/null 2>&1 &&
          rm -f "$sdir/$sc.db" &&
          "$bin/c2ctui" import -q "$out/$sc.data" -o "$sdir/$sc.db" >/dev/null 2>&1 &&
          { command -v sqlite3 >/dev/null && sqlite3 "$sdir/$sc.db" "PRAGMA page_size = 512; VACUUM;" || true; }
        rm -f "$out/$sc.data"
      done
    fi
    run $name 1048576 "$sdir" || fails=1 ;;
  fuzz_cli)
    # Every command's option parser as c2ctui links it: the front ends
    # (the explorer too: diff's view), the store and the collector.
    mapfile -t srcs < <(find tui store collector -name '*.[ch]' ! -path tui/cmd/main.c | sort)
    # shellcheck disable=SC2046
    build $name tests/fuzz/$name.c "${srcs[@]}" -- \
      $($PKG_CONFIG --cflags --libs libperf ncursesw sqlite3 libtraceevent libdw libelf libbpf libzstd liblzma zlib capstone) \
      -lpthread -lm || { fails=1; continue; }
    # Seeds: realistic command lines, one word a line after the command's
    # byte (fuzz_cli.c: byte % 8 picks report, import, locks, diff,
    # report --diff, report --types, record, live).
    sdir=$out/seeds-cli
    rm -rf "$sdir" && mkdir -p "$sdir"
    seed() { local f=$1; shift; printf '%s\n' "$@" >"$sdir/$f"; }
    seed report-plain    0 s.db
    seed report-time     0 s.db --time 1.5,2.25 --format csv
    seed report-time-to  0 -i s.db --time ,10 --lines 20 -d rmt
    seed report-time-fr  0 s.db --time=0.5, --stats --show-all
    seed report-coal     0 s.db -c pid,tid,iaddr,dso -N -N --full-symbols --no-source
    seed report-coal2    0 s.db --coalesce=tid,offset -dlcl --double-cl --phys-lines
    seed report-json     0 perf.data --format json -d peer --lines=5 --stdio
    seed report-threads  0 s.db --threads -d tot --time 0,3
    seed report-procs    0 s.db --processes --format=csv
    seed report-bad      0 s.db -xN --lines -3 -d hitm
    seed report-help     0 -h
    seed import-plain    1 perf.data -o s.db
    seed import-opts     1 -i perf.data -o s.db -f -q --symfs sysroot -k kallsyms --batch 1000
    seed import-batch    1 perf.data --output=s.db --batch=0 --kallsyms=ks
    seed import-extra    1 a.data b.data -o s.db
    seed locks-plain     2 s.db
    seed locks-thread    2 s.db -t -E 10 -k contended --format csv
    seed locks-addr      2 -i s.db -l -Y mutex,rwsem:R,spinlock -L 0xffff8881,jiffies_lock -F contended,wait_max
    seed locks-fields    2 s.db --key=avg_wait --field=wait_total,wait_min,avg_wait --entries=3 --format=json
    seed locks-types     2 s.db --type-filter=rwlock:W,pcpu-sem,mutex-spin --lock-filter=0x10,tasklist_lock -k wait_min
    seed diff-plain      3 before.db after.db
    seed diff-fmt        3 before.db after.db --format json --no-attribute --debuginfo dbg
    seed diff-csv        3 --format=csv before.db after.db
    seed rdiff           4 --diff before.db after.db --format text
    seed rdiff-csv       4 before.db --diff after.db --format=csv --debuginfo=dbg
    seed rtypes          5 s.db --types --verdicts --sort verdict
    seed rtypes-layout   5 s.db --layout conn --against prog --debuginfo dbg
    seed rtypes-assign   5 -i s.db --assign 'struct conn@0x7f0000001000' --types --no-attribute
    seed rtypes-assign2  5 s.db --assign=counter@4096 --layout=counter --sort=hitm
    seed record-plain    6 -o s.db -a -F 4000 --ldlat 30
    seed record-cpus     6 -o s.db -f -C 0-3,8 -c 10007 --mmap-pages 64 -D 2.5 -q
    seed record-pids     6 -p 1,2,3 -t 4,5 --no-mem --sched --no-callchain --sw-event cpu-clock
    seed record-cmd      6 -o s.db --duration 1 --no-locks --tracefs tfs --sysfs-root sys -- sleep 1
    seed record-bad      6 -F 0 --ldlat 70000 --mmap-pages 3 -D -1
    seed live-plain      7 -C 0 -p 42 --freq 1000
    seed live-cmd        7 --output live.db --pid 7 --tid 8 --count 5000 -- ./contention 4
    seed live-help       7 --help
    # tests/fuzz/crashes: inputs that once crashed a target (kept as regressions).
    run $name 4096 "$sdir" "$top/tests/fuzz/crashes" || fails=1 ;;
  *) echo "not ok - $name: no such fuzz target"; fails=1 ;;
  esac
done
exit $fails
