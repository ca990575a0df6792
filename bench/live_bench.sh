#!/usr/bin/env bash
# Live path benchmark (called by bench/run.sh, or alone: bench/live_bench.sh [build]).
# Drives c2ctui record with high-rate sources on this machine (no PMU needed):
#   - lock:contention_* from the contention workload (pipe mode: every write
#     contends on the pipe mutex), with and without kernel call chains;
#   - a software event (cpu-clock) at a high frequency on every CPU.
# For each it prints the sustained rate through reader -> queue -> store
# (samples stored per second of collection), what was dropped (queue) or
# lost (ring buffer), the collector's own CPU use (user+sys of c2ctui over
# wall time, in CPUs) and the workload's slowdown versus an unrecorded run.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-build}
c2ctui=${C2CTUI:-$top/$b/c2ctui}
w=$top/$b/workloads/contention
out=$top/$b/bench/live
secs=${LIVE_BENCH_SECONDS:-5}
mkdir -p "$out"

if [ "$(id -u)" != 0 ]; then echo "live bench: skipped (needs root for tracepoints)"; exit 0; fi
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
if [ ! -x "$c2ctui" ] || [ ! -x "$w" ]; then echo "live bench: skipped ($c2ctui or $w not built)"; exit 0; fi
have_lock=0
[ -d /sys/kernel/tracing/events/lock/contention_begin ] && have_lock=1

ops_of() { sed -n 's/.* \([0-9][0-9]*\) operations$/\1/p' "$1" | tail -1; }

# baseline workload throughput (nothing recording), per mode
"$w" -m pipe -t 2 -d "$secs" >"$out/base_pipe.txt"
"$w" -m true -t 2 -d "$secs" >"$out/base_true.txt"
"$w" -m pipe -t 4 -d "$secs" >"$out/base_pipe4.txt"

printf '%-40s %10s %12s %8s %8s %9s %9s\n' "live source" samples "samples/s" dropped lost "CPUs" slowdown
run() { # KEY LABEL WORKLOAD_ARGS -- RECORD_ARGS...
  local name=$1 label=$2 wargs=$3; shift 4
  local db=$out/$name.db
  rm -f "$db" "$db-wal" "$db-shm"
  # The workload runs for the whole collection window (-D), started as
  # soon as the session file exists (c2ctui is set up).
  /usr/bin/time -f '%U %S %e' -o "$out/$name.time" "$c2ctui" record -q -o "$db" -D "$secs" "$@" \
    >"$out/$name.out" 2>"$out/$name.err" &
  local rp=$!
  for _ in $(seq 1 100); do [ -f "$db" ] && break; sleep 0.1; done
  # shellcheck disable=SC2086
  "$w" $wargs -d "$secs" >"$out/$name.w"
  wait $rp
  local line s d l u sy e cpus rate ops slow
  line=$(cat "$out/$name.out")
  s=$(sed -n 's/.*: \([0-9]*\) samples,.*/\1/p' <<<"$line")
  d=$(sed -n 's/.*, \([0-9]*\) dropped (queue).*/\1/p' <<<"$line")
  l=$(sed -n 's/.*, \([0-9]*\) lost,.*/\1/p' <<<"$line")
  e=$(sed -n 's/.*, \([0-9.]*\) s$/\1/p' <<<"$line")
  read -r u sy _ <"$out/$name.time"
  cpus=$(awk -v u="$u" -v s="$sy" -v e="$e" 'BEGIN { if (e > 0) printf "%.2f", (u + s) / e; else print "-" }')
  rate=$(awk -v n="$s" -v e="$e" 'BEGIN { if (e > 0) printf "%.0f", n / e; else print "-" }')
  ops=$(ops_of "$out/$name.w")
  local base
  case $wargs in
    *true*) base=$(ops_of "$out/base_true.txt");;
    *"-t 4"*) base=$(ops_of "$out/base_pipe4.txt");;
    *) base=$(ops_of "$out/base_pipe.txt");;
  esac
  slow=$(awk -v a="$base" -v b="$ops" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')
  printf '%-40s %10s %12s %8s %8s %9s %9s\n' "$label" "${s:-?}" "$rate" "${d:-?}" "${l:-?}" "$cpus" "$slow"
}
if [ $have_lock = 1 ]; then
  run locks "lock tracepoints (pipe, 2 thr)" "-m pipe -t 2" -- --no-callchain
  run locks4 "lock tracepoints (pipe, 4 thr)" "-m pipe -t 4" -- --no-callchain
  run locks_cc "lock tracepoints + call chains" "-m pipe -t 2" --
  run sched "lock + sched tracepoints (pipe, 4 thr)" "-m pipe -t 4" -- --sched --no-callchain
fi
run clock_locks "cpu-clock 10 kHz/CPU + locks" "-m pipe -t 2" -- --sw-event cpu-clock -F 10000 --no-callchain
run clock "cpu-clock 10 kHz/CPU, no locks" "-m true -t 2" -- --sw-event cpu-clock -F 10000 --no-locks
echo "(samples/s: stored per second of collection; CPUs: c2ctui user+sys / wall; slowdown: workload"
echo " operations without recording / with; dropped = queue full, lost = ring buffer overrun)"
