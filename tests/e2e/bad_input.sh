#!/usr/bin/env bash
# Damaged and wrong inputs to c2ctui import: each gives a non-zero exit, one
# line on stderr that names the input file, and no crash (also under the
# ASan build, which this same script runs against). Inputs whose data
# section is damaged after complete records still leave a valid session.
. "$(dirname "$0")/lib.sh"
GEN=$C2C_BUILD/tools/c2c-gen

if [ ! -x "$C2CTUI" ]; then
  nok bad_input "no $C2CTUI"
  exit 0
fi
if [ ! -x "$GEN" ] || ! command -v python3 >/dev/null; then
  skip bad_input "needs $GEN and python3 to build the inputs"
  exit 0
fi
have_sqlite=1
command -v sqlite3 >/dev/null || have_sqlite=0

good=$E2E_TMP/good.data
"$GEN" --scenario false-sharing --samples 300 -o "$good" >/dev/null 2>&1 || { nok bad_input "generator failed"; exit 0; }
comp=$E2E_TMP/comp.data
"$GEN" --scenario false-sharing --samples 300 --compress -o "$comp" >/dev/null 2>&1 || comp=

# patch FILE OFFSET FORMAT VALUE: writes a little-endian integer in place.
patch() {
  python3 - "$@" <<'PY'
import struct, sys
path, off, fmt, val = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4], 0)
with open(path, 'r+b') as f:
    f.seek(off)
    f.write(struct.pack('<' + fmt, val))
PY
}
u64() { python3 -c "import struct,sys; f=open(sys.argv[1],'rb'); f.seek(int(sys.argv[2])); print(struct.unpack('<Q', f.read(8))[0])" "$@"; }

# expect NAME FILE [valid]: import must fail cleanly; with "valid" the
# session must exist and pass the integrity check, otherwise must not exist.
expect() {
  local name=$1 in=$2 want=${3:-}
  local db=$E2E_TMP/$name.db
  rm -f "$db" "$db-wal" "$db-shm"
  "$C2CTUI" import -q "$in" -o "$db" >"$E2E_TMP/out" 2>"$E2E_TMP/err"
  local rc=$?
  local lines
  lines=$(grep -vc '^$' "$E2E_TMP/err")
  if [ $rc -eq 0 ]; then
    nok "$name" "exit status 0"
  elif [ $rc -ge 124 ]; then
    nok "$name" "crashed or killed (status $rc): $(tail -3 "$E2E_TMP/err" | tr '\n' ' ')"
  elif [ "$lines" -ne 1 ]; then
    nok "$name" "$lines lines on stderr: $(head -3 "$E2E_TMP/err" | tr '\n' '|')"
  elif ! grep -qF "$(basename "$in")" "$E2E_TMP/err"; then
    nok "$name" "message does not name the file: $(cat "$E2E_TMP/err")"
  elif [ "$want" = valid ]; then
    if [ $have_sqlite = 0 ]; then
      ok "$name"
    elif [ -f "$db" ] && [ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ]; then
      ok "$name"
    else
      nok "$name" "the partial session is missing or damaged"
    fi
  elif [ -e "$db" ]; then
    nok "$name" "left a session file behind"
  else
    ok "$name"
  fi
}

size=$(stat -c %s "$good")
data_off=$(u64 "$good" 40)
data_size=$(u64 "$good" 48)

printf 'NOTAPERFFILE-at-all-just-some-bytes-here-to-fill-a-header......' >"$E2E_TMP/magic.data"
expect bad_magic "$E2E_TMP/magic.data"

: >"$E2E_TMP/empty.data"
expect empty_file "$E2E_TMP/empty.data"

expect missing_file "$E2E_TMP/does-not-exist.data"

head -c 40 "$good" >"$E2E_TMP/shorthdr.data"
expect truncated_header "$E2E_TMP/shorthdr.data"

# Data section cut in the middle of a record: complete records are kept.
head -c $((data_off + data_size / 2 + 3)) "$good" >"$E2E_TMP/trunc.data"
expect truncated_data "$E2E_TMP/trunc.data" valid
if [ $have_sqlite = 1 ] && [ -f "$E2E_TMP/truncated_data.db" ]; then
  n=$(session_sql "$E2E_TMP/truncated_data.db" "SELECT COUNT(*) FROM samples")
  d=$(sqlite3 "$E2E_TMP/truncated_data.db" "SELECT value FROM counters WHERE name = 'bytes_dropped'")
  "$C2CTUI" import -q "$good" -o "$E2E_TMP/full.db" 2>/dev/null
  full=$(session_sql "$E2E_TMP/full.db" "SELECT COUNT(*) FROM samples")
  if [ "$n" -gt 0 ] && [ "$n" -lt "$full" ]; then ok truncated_data_keeps_records
  else nok truncated_data_keeps_records "$n samples of $full"; fi
  if grep -q "dropped" "$E2E_TMP/err" || [ "${d:-0}" -gt 0 ]; then ok truncated_data_says_dropped
  else nok truncated_data_says_dropped "no count of dropped bytes: $(cat "$E2E_TMP/err")"; fi
fi

# The header claims more data than the file holds.
cp "$good" "$E2E_TMP/pastend.data"
patch "$E2E_TMP/pastend.data" 48 Q $((data_size + 4096))
expect data_past_end "$E2E_TMP/pastend.data" valid

# The first record's size is 0 (a reader that trusts it loops forever).
cp "$good" "$E2E_TMP/size0.data"
patch "$E2E_TMP/size0.data" $((data_off + 6)) H 0
expect record_size_zero "$E2E_TMP/size0.data" valid

# The last record claims more bytes than the data section has left.
cp "$good" "$E2E_TMP/pastrec.data"
if python3 - "$E2E_TMP/pastrec.data" <<'PY'
import struct, sys
path = sys.argv[1]
d = bytearray(open(path, 'rb').read())
off, size = struct.unpack_from('<QQ', d, 40)
p, last = off, None
while p + 8 <= off + size:
    typ, misc, sz = struct.unpack_from('<IHH', d, p)
    if sz == 0:
        break
    last = p
    p += sz
left = off + size - last
if last is None or left + 64 > 65535:
    sys.exit(1)
struct.pack_into('<H', d, last + 6, left + 64)
open(path, 'wb').write(d)
PY
then
  expect record_past_end "$E2E_TMP/pastrec.data" valid
else
  skip record_past_end "could not patch the last record"
fi

# attrs.size that is not a whole number of attrs.
cp "$good" "$E2E_TMP/attrs.data"
patch "$E2E_TMP/attrs.data" 32 Q 13
expect bad_attr_count "$E2E_TMP/attrs.data"

# attrs.size far past the end of the file.
cp "$good" "$E2E_TMP/attrs2.data"
patch "$E2E_TMP/attrs2.data" 32 Q $((size * 1000))
expect attrs_past_end "$E2E_TMP/attrs2.data"

# Garbage inside the first compressed record's payload.
if [ -n "$comp" ]; then
  off=$(python3 - "$comp" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, size = struct.unpack_from("<QQ", d, 40)
p = off
while p + 8 <= off + size:
    typ, misc, sz = struct.unpack_from('<IHH', d, p)
    if sz == 0:
        break
    if typ in (81, 83):      # PERF_RECORD_COMPRESSED, COMPRESSED2
        print(p)
        break
    p += sz
PY
)
  if [ -n "$off" ]; then
    cp "$comp" "$E2E_TMP/zgarbage.data"
    python3 - "$E2E_TMP/zgarbage.data" "$off" <<'PY'
import struct, sys
path, off = sys.argv[1], int(sys.argv[2])
with open(path, 'r+b') as f:
    f.seek(off + 6)
    sz = struct.unpack('<H', f.read(2))[0]
    f.seek(off + 16)
    f.write(bytes((i * 37 + 11) & 0xff for i in range(max(0, sz - 16))))
PY
    expect garbage_compressed "$E2E_TMP/zgarbage.data" valid
  else
    skip garbage_compressed "no compressed record found in the generated file"
  fi
else
  skip garbage_compressed "generator cannot write compressed files"
fi

# A session file given as input is not a perf.data either.
if [ $have_sqlite = 1 ]; then
  sqlite3 "$E2E_TMP/some.sqlite" "CREATE TABLE t (x)"
  expect sqlite_as_input "$E2E_TMP/some.sqlite"
fi
