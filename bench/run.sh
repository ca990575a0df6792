#!/usr/bin/env bash
# `make bench`: times c2ctui against perf c2c report on the same generated
# recordings, in the same run, and prints wall time, peak RSS and ratios.
# Files are generated (build/tools/c2c-gen) into build/bench/: the bench
# scenario at BENCH_SIZES samples, and other shapes (BENCH_SHAPES,
# "scenario:samples" pairs: mixed lines and sites, lock tracepoints) so a
# change tuned to one shape shows on the others.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
b=${1:-build}
out=$top/$b/bench
mkdir -p "$out"
c2ctui=$top/$b/c2ctui
gen=$top/$b/tools/c2c-gen
sizes=${BENCH_SIZES:-"1000000 10000000"}
shapes=${BENCH_SHAPES:-"mixed:1000000 lock-tracepoints:500000"}

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

printf '%-17s %-10s %-34s %9s %9s %10s %10s\n' shape samples step wall_s rss_MiB "x perf(t)" "x perf(rss)"
runs=()
for n in $sizes; do runs+=("bench:$n"); done
for sh in $shapes; do runs+=("$sh"); done
for run in "${runs[@]}"; do
  scen=${run%%:*} n=${run##*:}
  f=$out/$scen-$n.data
  [ -f "$f" ] || "$gen" --scenario "$scen" --samples "$n" -o "$f" >/dev/null
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
    printf '%-17s %-10s %-34s %9s %9s %10s %10s\n' "$scen" "$n" "$refname" "$pw" "$pr" 1.00 1.00
  fi
  s=$out/$scen-$n.db
  rm -f "$s" "$s-wal" "$s-shm"
  run_timed import "$c2ctui" import "$f" -o "$s"; iw=$T_WALL ir=$T_RSS
  run_timed $ours "$c2ctui" $ours "$s"; rw=$T_WALL rr=$T_RSS
  tot=$(awk -v a="$iw" -v b="$rw" 'BEGIN{printf "%.2f", a+b}')
  rss=$(awk -v a="$ir" -v b="$rr" 'BEGIN{print (a>b)?a:b}')
  printf '%-17s %-10s %-34s %9s %9s %10s %10s\n' "$scen" "$n" "c2ctui import" "$iw" "$ir" "$(ratio "$iw" "$pw")" "$(ratio "$ir" "$pr")"
  printf '%-17s %-10s %-34s %9s %9s %10s %10s\n' "$scen" "$n" "c2ctui import + $ours" "$tot" "$rss" "$(ratio "$tot" "$pw")" "$(ratio "$rss" "$pr")"
  run_timed $ours "$c2ctui" $ours "$s"
  printf '%-17s %-10s %-34s %9s %9s %10s %10s\n' "$scen" "$n" "c2ctui $ours (imported session)" "$T_WALL" "$T_RSS" "$(ratio "$T_WALL" "$pw")" "$(ratio "$T_RSS" "$pr")"
  echo "                  session: $(( $(stat -c %s "$s") / n )) bytes a sample"
done
[ $have_perf = 1 ] || echo "perf not installed: no reference times (ratios shown as -)"
for extra in bench/tui_bench.sh bench/live_bench.sh; do
  [ -x "$extra" ] && { echo; "$extra" "$b"; }
done
exit 0
