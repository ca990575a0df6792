#!/usr/bin/env bash
# `make bench`: times c2ctui against perf c2c report on the same generated
# recordings, in the same run, and prints wall time, peak RSS and ratios.
# Files are generated (build/tools/c2c-gen) into build/bench/. Each run is
# NAME:SCENARIO:SAMPLES[:C2C-GEN SHAPE OPTIONS, comma-separated]; the default list
# (BENCH_RUNS) has the bench scenario, a wide shape (2,000 lines, 400 code
# sites, 24 threads on the first process) at 1M and 10M samples, 2M
# samples over 100,000 lines, and a lock recording, so a change tuned to
# one shape shows on the others. BENCH_QUICK=1 keeps only the 1M runs.
# Per run: import, import + report, the report of the imported session
# (reopen), a CPU-filtered report (-C of one CPU), a thread-filtered one
# (--tid of the first sample's thread), session bytes a sample.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
b=${1:-build}
out=$top/$b/bench
mkdir -p "$out"
c2ctui=$top/$b/c2ctui
gen=$top/$b/tools/c2c-gen
wide="--lines,2000,--sites,400,--threads,24"
runs_default="bench:bench:1000000 wide:bench:1000000:$wide lines100k:bench:2000000:--lines,100000
  bench:bench:10000000 wide:bench:10000000:$wide locks:lock-tracepoints:500000"
[ "${BENCH_QUICK:-0}" = 1 ] && runs_default="bench:bench:1000000 wide:bench:1000000:$wide locks:lock-tracepoints:500000"
runs=${BENCH_RUNS:-$runs_default}

# run_timed NAME CMD... -> sets T_WALL (s) and T_RSS (MiB)
run_timed() {
  local tf=$out/time.txt
  shift  # NAME labels the call only
  /usr/bin/time -f '%e %M' -o "$tf" "$@" >/dev/null 2>"$out/stderr.txt" || {
    echo "bench: command failed: $*" >&2; tail -3 "$out/stderr.txt" >&2; return 1; }
  read -r T_WALL T_RSS < "$tf"
  T_RSS=$(awk -v k="$T_RSS" 'BEGIN{printf "%.1f", k/1024}')
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "-" }'; }

have_perf=1
command -v perf >/dev/null || have_perf=0

row() { printf '%-10s %-9s %-34s %9s %9s %10s %10s\n' "$@"; }
row shape samples step wall_s rss_MiB "x perf(t)" "x perf(rss)"
for run in $runs; do
  IFS=: read -r name scen n opts <<<"$run"
  # the runs are split on white space: a shape's options are joined by commas
  gen_opts=()
  [ -n "$opts" ] && IFS=, read -ra gen_opts <<<"$opts"
  f=$out/$name-$n.data
  [ -f "$f" ] || "$gen" --scenario "$scen" --samples "$n" "${gen_opts[@]}" -o "$f" >/dev/null
  # A lock recording is what `perf lock contention` reads; the rest is
  # perf c2c's. c2ctui answers each with its own command.
  case $scen in
    lock*) ref=(perf lock contention -i "$f") refname="perf lock contention" ours=locks ;;
    *) ref=(perf c2c report --stdio --no-source -i "$f") refname="perf c2c report --stdio" ours=report ;;
  esac
  pw=0 pr=0
  if [ $have_perf = 1 ]; then
    run_timed perf "${ref[@]}"
    pw=$T_WALL pr=$T_RSS
    row "$name" "$n" "$refname" "$pw" "$pr" 1.00 1.00
  fi
  s=$out/$name-$n.db
  rm -f "$s" "$s-journal" "$s-wal" "$s-shm"
  run_timed import "$c2ctui" import "$f" -o "$s"; iw=$T_WALL ir=$T_RSS
  run_timed $ours "$c2ctui" $ours "$s"; rw=$T_WALL rr=$T_RSS
  tot=$(awk -v a="$iw" -v b="$rw" 'BEGIN{printf "%.2f", a+b}')
  rss=$(awk -v a="$ir" -v b="$rr" 'BEGIN{print (a>b)?a:b}')
  row "$name" "$n" "c2ctui import" "$iw" "$ir" "$(ratio "$iw" "$pw")" "$(ratio "$ir" "$pr")"
  row "$name" "$n" "c2ctui import + $ours" "$tot" "$rss" "$(ratio "$tot" "$pw")" "$(ratio "$rss" "$pr")"
  run_timed $ours "$c2ctui" $ours "$s"
  row "$name" "$n" "c2ctui $ours (reopened session)" "$T_WALL" "$T_RSS" "$(ratio "$T_WALL" "$pw")" "$(ratio "$T_RSS" "$pr")"
  if [ "$ours" = report ]; then
    # perf c2c report has no CPU filter (a perf user re-records or re-reads
    # the file): the ratio is against perf's whole report of the file.
    run_timed filter "$c2ctui" report "$s" -C 3
    row "$name" "$n" "c2ctui report -C 3 (session)" "$T_WALL" "$T_RSS" "$(ratio "$T_WALL" "$pw")" "$(ratio "$T_RSS" "$pr")"
    # a thread filter: the thread of the first sample (one id: one block read)
    tid=$("$c2ctui" sql "$s" "SELECT tid FROM samples WHERE id = 1" 2>/dev/null | tail -1)
    if [ -n "$tid" ]; then
      run_timed filter "$c2ctui" report "$s" --tid "$tid"
      row "$name" "$n" "c2ctui report --tid $tid (session)" "$T_WALL" "$T_RSS" "$(ratio "$T_WALL" "$pw")" "$(ratio "$T_RSS" "$pr")"
    fi
  fi
  echo "           session: $(( $(stat -c %s "$s") / n )) bytes a sample ($(( $(stat -c %s "$s") >> 20 )) MiB; perf.data $(( $(stat -c %s "$f") >> 20 )) MiB)"
done
[ $have_perf = 1 ] || echo "perf not installed: no reference times (ratios shown as -)"
for extra in bench/tui_bench.sh bench/live_bench.sh; do
  [ -x "$extra" ] && { echo; "$extra" "$b"; }
done
exit 0
