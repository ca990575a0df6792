#!/usr/bin/env bash
# A finished session is one file that reads from a read-only folder and as
# another user, and reading it changes nothing and leaves nothing beside it:
# as user nobody, in a folder nobody cannot write, report (text, JSON),
# locks and diff read the session; its md5 stays the same and no -wal/-shm
# appears. A session left in WAL mode by an older c2ctui reads the same way
# (as an immutable file); one whose -wal still holds data says in one line
# that it needs a writable folder.
. "$(dirname "$0")/lib.sh"
T=readonly_sessions
[ "$(id -u)" = 0 ] || { skip $T "needs root to run commands as another user"; exit 0; }
command -v runuser >/dev/null || { skip $T "runuser not installed"; exit 0; }
command -v sqlite3 >/dev/null || { skip $T "sqlite3 not installed"; exit 0; }
id nobody >/dev/null 2>&1 || { skip $T "no user nobody"; exit 0; }
d=$E2E_TMP/ro
mkdir -p "$d"
chmod 755 "$E2E_TMP"
"$C2C_BUILD/tools/c2c-gen" --scenario lock-tracepoints -o "$E2E_TMP/l.data" >/dev/null 2>&1 &&
"$C2C_BUILD/tools/c2c-gen" --scenario false-sharing -o "$E2E_TMP/f.data" >/dev/null 2>&1 &&
"$C2CTUI" import -q "$E2E_TMP/l.data" -o "$d/locks.db" &&
"$C2CTUI" import -q "$E2E_TMP/f.data" -o "$d/fs.db" || { nok $T "setup failed"; exit 0; }
cp "$d/fs.db" "$d/wal.db"
sqlite3 "$d/wal.db" "PRAGMA journal_mode=WAL;" >/dev/null
mode=$(od -An -tu1 -j18 -N1 "$d/fs.db" | tr -d ' ')
[ "$mode" = 1 ] && ok "$T: a finished import is one file in rollback-journal mode" ||
  nok "$T: journal mode" "header byte 18 is $mode, want 1 (not WAL)"
[ -e "$d/fs.db-wal" ] || [ -e "$d/fs.db-shm" ] && nok "$T: companions" "-wal/-shm beside a finished session" ||
  ok "$T: nothing beside a finished session"
# the same session with data still in its -wal
cp "$d/fs.db" "$d/walpending.db"
# a writer that dies without closing leaves its commit in the -wal
python3 - "$d/walpending.db" <<'PY'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("PRAGMA journal_mode=WAL")
c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("INSERT INTO meta VALUES ('note_for_test', 'x')")
c.commit()
os._exit(0)
PY
rm -f "$d/walpending.db-shm"   # SQLite reads a -wal read-only only through an existing -shm
chmod 444 "$d"/*.db*
chmod 555 "$d"
(cd "$d" && md5sum ./*) > "$E2E_TMP/before.md5"
ls -a "$d" > "$E2E_TMP/before.ls"
as_nobody() { runuser -u nobody -- "$@"; }
run() { # NAME CMD...: exit 0 and some output
  local n=$1; shift
  if as_nobody "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" && [ -s "$E2E_TMP/out" ]; then ok "$T: $n"
  else nok "$T: $n" "$(head -2 "$E2E_TMP/err" | tr '\n' ' ')"; fi
}
run "report as nobody" "$C2CTUI" report "$d/fs.db"
run "report --format json as nobody" "$C2CTUI" report "$d/fs.db" --format json
run "report of a lock session as nobody" "$C2CTUI" report "$d/locks.db"
if "$C2CTUI" locks --help >/dev/null 2>&1; then run "locks as nobody" "$C2CTUI" locks "$d/locks.db"; fi
run "diff as nobody" "$C2CTUI" diff --format text "$d/fs.db" "$d/fs.db"
run "report --verdicts as nobody" "$C2CTUI" report "$d/fs.db" --verdicts
run "a WAL-mode session as nobody" "$C2CTUI" report "$d/wal.db"
if [ -s "$d/walpending.db-wal" ]; then
  as_nobody "$C2CTUI" report "$d/walpending.db" >/dev/null 2>"$E2E_TMP/err"; rc=$?
  if [ $rc -ne 0 ] && [ "$(wc -l < "$E2E_TMP/err")" = 1 ] && grep -q "walpending.db.*needs a writable folder" "$E2E_TMP/err"; then
    ok "$T: a -wal with data says it needs a writable folder"
  else
    nok "$T: pending -wal" "rc=$rc: $(head -2 "$E2E_TMP/err" | tr '\n' ' ')"
  fi
else
  skip "$T: pending -wal" "sqlite3 left no data in the -wal"
fi
(cd "$d" && md5sum ./*) > "$E2E_TMP/after.md5"
ls -a "$d" > "$E2E_TMP/after.ls"
cmp -s "$E2E_TMP/before.md5" "$E2E_TMP/after.md5" && ok "$T: every file unchanged (md5)" ||
  nok "$T: md5" "$(diff "$E2E_TMP/before.md5" "$E2E_TMP/after.md5" | head -2 | tr '\n' ' ')"
cmp -s "$E2E_TMP/before.ls" "$E2E_TMP/after.ls" && ok "$T: nothing new in the folder" ||
  nok "$T: new files" "$(diff "$E2E_TMP/before.ls" "$E2E_TMP/after.ls" | grep '^>' | tr '\n' ' ')"
chmod 755 "$d"; chmod 644 "$d"/*

# A session its reader may write (the owner, a writable folder): reading
# still changes nothing. Type attribution, verdicts, layouts and diff
# compute in memory (the connection's TEMP tables), never in the file.
w=$E2E_TMP/rw
mkdir -p "$w"
"$C2CTUI" import -q "$E2E_TMP/f.data" -o "$w/fs.db" && cp "$w/fs.db" "$w/fs2.db" &&
  "$C2CTUI" import -q "$E2E_TMP/l.data" -o "$w/locks.db"
(cd "$w" && md5sum ./*) > "$E2E_TMP/rw-before.md5"
ls -a "$w" > "$E2E_TMP/rw-before.ls"
for args in "report $w/fs.db --types" "report $w/fs.db --verdicts" "report $w/fs.db --format json" \
            "diff --format text $w/fs.db $w/fs2.db" "report --diff $w/fs.db $w/fs2.db --format json" "locks $w/locks.db" "report $w/locks.db"; do
  # shellcheck disable=SC2086
  "$C2CTUI" $args >/dev/null 2>"$E2E_TMP/err" || { nok "$T: writable: $args" "$(head -1 "$E2E_TMP/err")"; continue; }
done
(cd "$w" && md5sum ./*) > "$E2E_TMP/rw-after.md5"
ls -a "$w" > "$E2E_TMP/rw-after.ls"
if cmp -s "$E2E_TMP/rw-before.md5" "$E2E_TMP/rw-after.md5" && cmp -s "$E2E_TMP/rw-before.ls" "$E2E_TMP/rw-after.ls"; then
  ok "$T: a writable session read by types, verdicts, diff, locks: unchanged, nothing beside it"
else
  nok "$T: writable session changed by reading" "$(diff "$E2E_TMP/rw-before.md5" "$E2E_TMP/rw-after.md5" | tr '\n' ' ') $(diff "$E2E_TMP/rw-before.ls" "$E2E_TMP/rw-after.ls" | tr '\n' ' ')"
fi
# an explicit edit (report --assign) is saved only where the file allows it
cp "$w/fs.db" "$d/assign.db" 2>/dev/null || { chmod 755 "$d"; cp "$w/fs.db" "$d/assign.db"; }
chmod 444 "$d/assign.db"; chmod 555 "$d"
sum=$(md5sum < "$d/assign.db")
out=$(as_nobody "$C2CTUI" report "$d/assign.db" --assign "struct x@0x7f3a40010000" 2>&1)
if [ "$(md5sum < "$d/assign.db")" = "$sum" ] && ! echo "$out" | grep -q "saved in the session"; then
  ok "$T: --assign on a read-only session keeps the file"
else
  nok "$T: --assign on a read-only session" "$out"
fi
chmod 755 "$d"; chmod 644 "$d"/*
