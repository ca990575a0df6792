#!/usr/bin/env bash
# A fresh guest may have no tracefs mounted. perf mounts it and goes on;
# so must `c2ctui record` (and live, and `make demo`): in a private mount
# namespace with tracefs (and debugfs) unmounted, record mounts tracefs,
# says so in one note, and records lock waits. The host's mounts stay as
# they were.
. "$(dirname "$0")/lib.sh"
T=record_tracefs_mount
[ "$(id -u)" = 0 ] || { skip $T "needs root (mount namespaces, tracepoints)"; exit 0; }
command -v unshare >/dev/null || { skip $T "unshare not installed"; exit 0; }
unshare -m true 2>/dev/null || { skip $T "cannot make a mount namespace here"; exit 0; }
[ -d /sys/kernel/tracing ] || { skip $T "this kernel has no /sys/kernel/tracing"; exit 0; }
host_before=$(grep -E ' (tracefs|debugfs) ' /proc/mounts | sort)
db=$E2E_TMP/mounted.db
unshare -m --propagation private bash -c '
  umount /sys/kernel/debug/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null
  while grep -q " /sys/kernel/tracing " /proc/mounts; do umount /sys/kernel/tracing || exit 3; done
  [ -e /sys/kernel/tracing/events ] && exit 4
  "$1" record -o "$2" -- "$3" -m pipe -t 4 -d 2 -q
' _ "$C2CTUI" "$db" "$C2C_BUILD/workloads/contention" >"$E2E_TMP/out.txt" 2>&1
rc=$?
case $rc in
  3|4) skip $T "could not unmount tracefs in the namespace"; exit 0 ;;
esac
if [ $rc -eq 0 ] && grep -q "tracefs was not mounted: mounted it on /sys/kernel/tracing" "$E2E_TMP/out.txt"; then
  ok "$T: record mounted tracefs and said so"
else
  nok "$T" "rc=$rc: $(grep -v '^contention' "$E2E_TMP/out.txt" | head -2 | tr '\n' ' ')"
fi
# A loaded machine (ASan, other jobs) can let two threads run half a second
# without one contended wait: four threads for two seconds.
waits=$(sqlite3 -readonly "$db" "select count(*) from lock_waits" 2>/dev/null)
if [ "${waits:-0}" -gt 0 ]; then ok "$T: $waits lock waits recorded"; else nok "$T" "no lock waits recorded"; fi
host_after=$(grep -E ' (tracefs|debugfs) ' /proc/mounts | sort)
[ "$host_before" = "$host_after" ] && ok "$T: host mounts unchanged" || nok "$T" "host mounts changed"
# README's first command, the same way: `make demo`'s script in a fresh
# namespace without tracefs.
unshare -m --propagation private bash -c '
  umount /sys/kernel/debug/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null
  while grep -q " /sys/kernel/tracing " /proc/mounts; do umount /sys/kernel/tracing || exit 3; done
  BUILD="$1" DEMO_SESSION="$2" DEMO_SECONDS=1 "$3/scripts/demo.sh" </dev/null
' _ "$C2C_BUILD" "$E2E_TMP/demo.db" "$C2C_TOP" >"$E2E_TMP/demo.txt" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "mounted it on /sys/kernel/tracing" "$E2E_TMP/demo.txt" &&
   [ "$(sqlite3 -readonly "$E2E_TMP/demo.db" 'select count(*) from lock_waits' 2>/dev/null)" -gt 0 ]; then
  ok "$T: make demo's script works without tracefs"
else
  nok "$T: demo" "rc=$rc: $(grep -i 'c2ctui\|error' "$E2E_TMP/demo.txt" | head -2 | tr '\n' ' ')"
fi
