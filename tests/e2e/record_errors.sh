#!/usr/bin/env bash
# c2ctui record's failures: one clear line each, exit status 1 or 2, and no
# half-made session file left behind.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { skip record_errors "needs root for tracepoints"; exit 0; }
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
have_lock=0
[ -d /sys/kernel/tracing/events/lock/contention_begin ] && have_lock=1

# expect NAME STATUS PATTERN -- ARGS: runs c2ctui record ARGS, checks the
# exit status, that stderr's one line matches PATTERN, and no output file.
expect() {
  local name=$1 want=$2 pat=$3; shift 4
  local db=$E2E_TMP/$name.db
  "$C2CTUI" record -q -o "$db" "$@" >"$E2E_TMP/$name.out" 2>"$E2E_TMP/$name.err"
  local rc=$? lines
  lines=$(grep -c . "$E2E_TMP/$name.err")
  if [ $rc -ne "$want" ]; then
    nok "$name" "exit $rc, want $want: $(head -2 "$E2E_TMP/$name.err")"
  elif ! grep -qE "$pat" "$E2E_TMP/$name.err"; then
    nok "$name" "message '$(head -1 "$E2E_TMP/$name.err")' does not match '$pat'"
  elif [ "$lines" -ne 1 ]; then
    nok "$name" "$lines lines on stderr, want one"
  elif [ -e "$db" ]; then
    nok "$name" "left $db behind"
  else
    ok "$name"
  fi
}

expect record_err_unknown_pid 1 "no process with pid 999999 \(-p\)" -- -p 999999
expect record_err_unknown_tid 1 "no thread with tid 999998 \(-t\)" -- -t 999998
expect record_err_bad_cpu 1 "CPU 4095 \(-C 4095\) does not exist here" -- -C 4095
expect record_err_no_command 1 "^c2ctui record: cannot run /nonexistent/cmd: No such file or directory$" -- -- /nonexistent/cmd
expect record_err_command_not_found 1 "^c2ctui record: cannot run no-such-c2c-cmd: command not found$" -- -- no-such-c2c-cmd
expect record_err_bad_option 2 "unknown option '--bogus'" -- --bogus
expect record_err_bad_freq 2 "bad number 'abc' for -F" -- -F abc
# 2^32 + 1 wrapped to pid 1 in the pid_t cast
expect record_err_pid_wraps 2 "bad id list '4294967297' for -p" -- -p 4294967297
# record waits -D in int milliseconds: inf or 3e6 s overflowed the
# conversion (fuzz_cli found it), nan was taken for "until stopped"
expect record_err_duration_inf 2 "bad duration 'inf' \\(seconds, at most 2147483\\)" -- -D inf
expect record_err_duration_huge 2 "bad duration '3e6'" -- -D 3e6
expect record_err_duration_nan 2 "bad duration 'nan'" -- -D nan
expect record_err_no_tracefs 1 "tracepoint lock:contention_begin is not available on this kernel" -- --tracefs "$E2E_TMP"
mkdir -p "$E2E_TMP/none"
cp -r "$C2C_TOP/tests/data/sysfs/none/." "$E2E_TMP/none/"
expect record_err_nothing_to_collect 1 "nothing to collect: no memory-sampling PMU" -- --no-locks --sysfs-root "$E2E_TMP/none"

touch "$E2E_TMP/exists.db"
"$C2CTUI" record -q -o "$E2E_TMP/exists.db" -D 0.1 >/dev/null 2>"$E2E_TMP/exists.err"
rc=$?
if [ $rc -eq 1 ] && grep -q "exists (use -f to replace it)" "$E2E_TMP/exists.err" && [ ! -s "$E2E_TMP/exists.db" ]; then
  ok record_err_output_exists
else
  nok record_err_output_exists "rc=$rc $(head -1 "$E2E_TMP/exists.err")"
fi

# No permission: an unprivileged user cannot read tracefs or open tracepoints.
if command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ]; then
  chmod 777 "$E2E_TMP"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$C2CTUI" record -q -o "$E2E_TMP/np.db" -D 0.1 \
    >/dev/null 2>"$E2E_TMP/np.err"
  rc=$?
  if [ $rc -eq 1 ] && grep -qE "permission|no permission" "$E2E_TMP/np.err" && [ ! -e "$E2E_TMP/np.db" ]; then
    ok record_err_no_permission
  else
    nok record_err_no_permission "rc=$rc $(head -1 "$E2E_TMP/np.err")"
  fi
else
  skip record_err_no_permission "setpriv missing or perf_event_paranoid allows everything"
fi

# A PMU the kernel refuses (the fake Intel tree on a machine without one):
# collection goes on with the lock tracepoints and says so exactly once.
if [ $have_lock = 1 ]; then
  db=$E2E_TMP/fakeintel.db
  "$C2CTUI" record -o "$db" -D 0.5 --sysfs-root "$C2C_TOP/tests/data/sysfs/intel" >"$E2E_TMP/fi.out" 2>"$E2E_TMP/fi.err"
  rc=$?
  n=$(grep -c "HITM sampling is unavailable" "$E2E_TMP/fi.err")
  if [ $rc -eq 0 ] && [ "$n" = 1 ] && [ -s "$db" ]; then
    ok record_hitm_unavailable_said_once
  elif grep -q "cpu/mem-loads" <(sqlite3 "$db" "select name from events" 2>/dev/null); then
    skip record_hitm_unavailable_said_once "this machine has a PMU that took the fake encodings"
  else
    nok record_hitm_unavailable_said_once "rc=$rc, said $n times: $(head -2 "$E2E_TMP/fi.err")"
  fi
else
  skip record_hitm_unavailable_said_once "no lock tracepoints"
fi
exit 0
