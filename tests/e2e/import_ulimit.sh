#!/usr/bin/env bash
# import reads a big perf.data through a bounded window, not a mapping of the
# whole file (issue 12): a recording padded to ~600 MB (records of a kind
# c2ctui skips, so the session's work stays small) imports under
# `ulimit -v 400M`, well below the file's size, into the same session as the
# unpadded recording (before the window, mapping the file failed there and a
# 5M-sample recording did not import under 512M). The window also reads
# every fixture and generated shape exactly as the mapping does
# (C2CTUI_READ_WINDOW=0 windows every file).
. "$(dirname "$0")/lib.sh"
T=import_ulimit
GEN=$C2C_BUILD/tools/c2c-gen
case "$C2C_BUILD" in
  *-asan|*-asan/) skip $T "ASan reserves terabytes of address space: ulimit -v cannot apply"; exit 0 ;;
esac
command -v python3 >/dev/null || { skip $T "python3 is not installed"; exit 0; }
cd "$E2E_TMP" || exit 1

"$GEN" --scenario mixed --samples 300000 -o small.data >/dev/null 2>&1 || { nok $T "c2c-gen failed"; exit 0; }
# pad: records of an unknown type (200), 64 KiB each, after the samples
python3 - small.data big.data <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
doff, dsz = struct.unpack_from('<QQ', d, 40)
rec = struct.pack('<IHH', 200, 0, 65528) + bytes(65520)
n = (600 << 20) // len(rec)
pad = rec * n
struct.pack_into('<Q', d, 48, dsz + len(pad))
feats = d[72:104]
nfeat = sum(bin(b).count('1') for b in feats)
t = doff + dsz
for i in range(nfeat):                 # the feature sections move behind the padding
    o, s = struct.unpack_from('<QQ', d, t + 16 * i)
    struct.pack_into('<QQ', d, t + 16 * i, o + len(pad), s)
with open(sys.argv[2], 'wb') as f:
    f.write(d[:t]); f.write(pad); f.write(d[t:])
PY
size=$(stat -c %s big.data)
"$C2CTUI" import -q small.data -o small.db 2>/dev/null
"$C2CTUI" report small.db >small.txt 2>&1

( ulimit -v 409600; exec "$C2CTUI" import -q big.data -o big.db ) 2>big.err
rc=$?
if [ $rc -eq 0 ] && "$C2CTUI" report big.db >big.txt 2>&1 && cmp -s small.txt big.txt; then
  ok "$T: a $((size >> 20)) MiB recording imports under ulimit -v 400 MiB, same report as unpadded"
else
  nok "$T: import under ulimit -v 400 MiB" "exit $rc: $(head -2 big.err | tr '\n' '|') $(diff small.txt big.txt 2>/dev/null | head -3 | tr '\n' '|')"
fi
if "$C2CTUI" report big.db --format json 2>/dev/null | grep -q '"note":"[0-9]* records of kinds c2ctui does not read skipped"'; then
  ok "$T: the skipped records are a note, the session complete"
else
  nok "$T: skipped records noted" "$("$C2CTUI" report big.db --format json 2>&1 | head -c 300)"
fi
rm -f big.data big.db

# a truncated big file: the window reports the cut like the mapping
python3 - small.data cut.data <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
doff, dsz = struct.unpack_from('<QQ', d, 40)
open(sys.argv[2], 'wb').write(d[:doff + dsz // 2 + 5])
PY
C2CTUI_READ_WINDOW=0 "$C2CTUI" import -q cut.data -o cutw.db 2>cutw.err; rw=$?
C2CTUI_READ_WINDOW=99999999999 "$C2CTUI" import -q cut.data -o cutm.db 2>cutm.err; rm_=$?
if [ $rw -ne 0 ] && [ $rw = $rm_ ] && cmp -s <(sed 's/cutw.db/S/' cutw.err) <(sed 's/cutm.db/S/' cutm.err) &&
   cmp -s <("$C2CTUI" report cutw.db 2>&1 | sed 's/cutw.db/S/') <("$C2CTUI" report cutm.db 2>&1 | sed 's/cutm.db/S/'); then
  ok "$T: a cut recording: the window says and keeps what the mapping does"
else
  nok "$T: a cut recording" "window $rw: $(head -1 cutw.err); mapped $rm_: $(head -1 cutm.err)"
fi

# every fixture and generated shape reads the same through the window
bad=
inputs=()
for sc in mixed lock-tracepoints line-identity; do
  "$GEN" --scenario $sc --samples 20000 -o $sc.data >/dev/null 2>&1 && inputs+=("$sc.data")
done
"$GEN" --scenario mixed --samples 20000 --pipe -o pipe.data >/dev/null 2>&1 && inputs+=(pipe.data)
"$GEN" --scenario mixed --samples 20000 --compress -o zstd.data >/dev/null 2>&1 && inputs+=(zstd.data)
for f in "$C2C_FIXTURES"/real/*.data; do [ -f "$f" ] && inputs+=("$f"); done
for f in "${inputs[@]}"; do
  rm -f w.db m.db
  C2CTUI_READ_WINDOW=0 "$C2CTUI" import -q "$f" -o w.db 2>/dev/null
  C2CTUI_READ_WINDOW=99999999999 "$C2CTUI" import -q "$f" -o m.db 2>/dev/null
  if ! cmp -s <("$C2CTUI" report w.db --show-all 2>&1) <("$C2CTUI" report m.db --show-all 2>&1) ||
     ! cmp -s <("$C2CTUI" locks w.db 2>/dev/null) <("$C2CTUI" locks m.db 2>/dev/null); then
    bad="$bad $(basename "$f")"
  fi
done
if [ -z "$bad" ]; then ok "$T: ${#inputs[@]} recordings read the same through the window as mapped"
else nok "$T: window vs mapping" "differ:$bad"; fi
