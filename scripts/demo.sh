#!/usr/bin/env bash
# The README's first command (`make demo`): records the contention workload
# on this machine with `c2ctui record` (memory sampling where the CPU has a
# PMU for it, kernel lock contention through tracepoints everywhere), then
# opens the session in the explorer, or prints the report when there is no
# terminal. Run as root (perf events and tracepoints need it).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${BUILD:-build}
c2ctui=$top/$b/c2ctui
session=${DEMO_SESSION:-$top/demo.db}
seconds=${DEMO_SECONDS:-5}

echo "demo: recording build/workloads/contention for ${seconds}s into $session"
"$c2ctui" record -f -o "$session" -- "$top/$b/workloads/contention" -m all -t 4 -d "$seconds" -q
if [ -t 0 ] && [ -t 1 ]; then
  exec "$c2ctui" open "$session"
else
  exec "$c2ctui" report "$session"
fi
