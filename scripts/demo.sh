#!/usr/bin/env bash
# The README's first command (`make demo`): records the contention workload
# on this machine with `c2ctui record` (memory sampling where the CPU has a
# PMU for it, kernel lock contention through tracepoints everywhere), then
# opens the session in the explorer, or prints the report when there is no
# terminal. Run as root (perf events and tracepoints need it).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${BUILD:-build}
case $b in /*) dir=$b ;; *) dir=$top/$b ;; esac
c2ctui=$dir/c2ctui
# The session is a build product: under the build directory, never in the tree.
session=${DEMO_SESSION:-$dir/demo.db}
seconds=${DEMO_SECONDS:-5}

echo "demo: recording $b/workloads/contention for ${seconds}s into $session"
"$c2ctui" record -f -o "$session" -- "$dir/workloads/contention" -m all -t 4 -d "$seconds" -q
if [ -t 0 ] && [ -t 1 ]; then
  exec "$c2ctui" open "$session"
else
  exec "$c2ctui" report "$session"
fi
