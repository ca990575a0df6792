#!/usr/bin/env bash
# Agreement with perf: for every real fixture with memory samples and every
# generated scenario (plus pipe and zstd variants), run
#   perf c2c report --stdio --no-source [opts] -i F
#   c2ctui report F --format json [opts]
# with the same options (default, -d lcl, -d rmt, -d peer, --show-all,
# -c pid,iaddr) and compare every number both print (tests/e2e/compare_c2c.py):
# one ok/not ok line per file, option set and section.
# perf 6.1 is the reference (docs/agreement.md).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmp_py=$C2C_TOP/tests/e2e/compare_c2c.py
gen=$C2C_BUILD/tools/c2c-gen

if ! command -v perf >/dev/null 2>&1; then
	skip agree_perf "perf is not installed"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip agree_perf "python3 is not installed"
	exit 0
fi
if [ ! -x "$C2CTUI" ]; then
	skip agree_perf "$C2CTUI is not built"
	exit 0
fi

# perf needs a writable HOME for its build-id cache; keep it out of the user's.
export HOME=$E2E_TMP/home
mkdir -p "$HOME"

# Comparisons run two at a time (the machines have 2+ cores); each writes
# its result lines to its own file and the files are printed in order.
jobs_max=${AGREE_JOBS:-2}
seq_no=0
compare() {
	seq_no=$((seq_no + 1))
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
	compare_one "$seq_no" "$@" >"$E2E_TMP/result.$(printf %04d "$seq_no")" 2>&1 &
}
finish() {
	wait
	cat "$E2E_TMP"/result.* 2>/dev/null
}

# compare_one N NAME PERF_INPUT C2C_INPUT OPTS...: one comparison, one line per section
compare_one() {
	local n=$1 name=$2 pin=$3 cin=$4; shift 4
	local out=$E2E_TMP/cmp.$n co=iaddr a
	for a in "$@"; do
		case $a in
		-c) co=next ;;
		*) [ "$co" = next ] && co=$a ;;
		esac
	done
	if ! perf c2c report --stdio --no-source "$@" -i "$pin" >"$out.perf" 2>"$out.perf.err"; then
		nok "$name: perf" "perf c2c report failed: $(tail -1 "$out.perf.err")"
		return
	fi
	if ! "$C2CTUI" report "$cin" --format json "$@" >"$out.json" 2>"$out.err"; then
		nok "$name: c2ctui" "c2ctui report failed: $(head -1 "$out.err")"
		return
	fi
	python3 "$cmp_py" --name "$name" --perf "$out.perf" --json "$out.json" --coalesce "$co"
}

# has_mem_samples F: perf sees loads or stores (or unparsable memory samples)
has_mem_samples() {
	perf c2c report --stdio --stats -i "$1" 2>/dev/null |
		awk -F: '/Total records/ { n = $2 + 0 } END { exit !(n > 0) }'
}

# run_file NAME PERF_FILE C2C_FILE [DB] [all]: the option sets against one
# recording (the report of the perf.data itself, then of its session); the
# real fixtures have no HITM, so the display modes add nothing there.
run_file() {
	local name=$1 pin=$2 cin=$3 db=$4 all=$5
	local src=${db:-$cin}
	compare "$name" "$pin" "$cin"
	compare "$name --show-all" "$pin" "$src" --show-all
	compare "$name -c pid,iaddr" "$pin" "$src" -c pid,iaddr
	[ -n "$all" ] || return 0
	compare "$name -d lcl" "$pin" "$src" -d lcl
	compare "$name -d rmt" "$pin" "$src" -d rmt
	[ "$all" = extra ] || return 0
	compare "$name -d peer" "$pin" "$src" -d peer
	compare "$name -c tid,iaddr -d rmt" "$pin" "$src" -c tid,iaddr -d rmt
	compare "$name -c dso" "$pin" "$src" -c dso
	compare "$name -N" "$pin" "$src" -N
	compare "$name -N -N --show-all" "$pin" "$src" -N -N --show-all
}

# import once so the option sets reuse the session
import_db() {
	local f=$1 db=$2
	"$C2CTUI" import "$f" -o "$db" >/dev/null 2>"$db.err" && echo "$db"
}

n=0
shopt -s nullglob
for f in "$C2C_FIXTURES"/real/*.data; do
	name=real/$(basename "$f")
	if ! has_mem_samples "$f"; then
		skip "$name" "no memory samples"
		continue
	fi
	db=$(import_db "$f" "$E2E_TMP/$(basename "$f").db")
	run_file "$name" "$f" "$f" "$db"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || skip agree_perf_real "no real fixtures under $C2C_FIXTURES/real"

# Edge data_src values perf 6.1 classifies in its own way (remote bit with
# and without hops, L2+L3 peer counted twice, load+store op, prefetch that
# is blocked, locked): written over the memory samples of a copy of the
# AMD fixture, so the maps and topology stay real.
amd=$C2C_FIXTURES/real/amd-zen2-ibs-c2c.data
if [ -f "$amd" ]; then
	edge=$E2E_TMP/edge.data
	if python3 - "$amd" "$edge" <<'PYEOF'
import struct, sys
src, dst = sys.argv[1], sys.argv[2]
b = bytearray(open(src, "rb").read())
data_off, data_size = struct.unpack_from("<QQ", b, 40)
# sample layout of this file: ip tid time addr cpu period weight data_src phys
S = dict(op=0, lvl=5, snoop=19, lock=24, remote=37, snoopx=38, blk=40, hops=43)
def f(**kw):
    return sum(v << S[k] for k, v in kw.items())
LOAD, STORE, HIT, MISS, L1, L2, L3, LOC = 2, 4, 2, 4, 8, 0x20, 0x40, 0x80
vals = [f(op=LOAD, lvl=MISS | L3, snoop=0x10, remote=1),
        f(op=LOAD, lvl=MISS | L3, snoop=0x10, remote=1, hops=1),
        f(op=LOAD, lvl=HIT | LOC, snoop=4, remote=1),
        f(op=LOAD, lvl=HIT | L2 | L3, snoopx=2),
        f(op=LOAD | STORE, lvl=HIT | L1),
        f(op=LOAD, lvl=HIT | L1, lock=2, blk=6),
        f(op=8, lvl=HIT | L1, blk=2)]
p, i = data_off, 0
while p < data_off + data_size:
    typ, misc, size = struct.unpack_from("<IHH", b, p)
    if typ == 9:
        addr, = struct.unpack_from("<Q", b, p + 8 + 24)
        ds, = struct.unpack_from("<Q", b, p + 8 + 56)
        if addr >> 40 == 0x7f and ds in (0x29080142, 0x29080144):
            struct.pack_into("<Q", b, p + 8 + 56, vals[i % len(vals)])
            i += 1
    p += size
open(dst, "wb").write(b)
sys.exit(0 if i else 1)
PYEOF
	then
		compare "edge-data-src" "$edge" "$edge"
		compare "edge-data-src -d peer" "$edge" "$edge" -d peer
	else
		nok edge-data-src "could not write the edge-case copy of $amd"
	fi
else
	skip edge-data-src "no $amd"
fi

if [ ! -x "$gen" ]; then
	finish
	skip agree_perf_generated "$gen is not built"
	exit 0
fi
# line-identity: lines split by cpumode and, for private anonymous memory,
# by pid (perf's dcacheline key; collector/c2c/c2c_lineid.h)
for sc in false-sharing true-sharing classes mixed line-identity; do
	f=$E2E_TMP/$sc.data
	if ! "$gen" --scenario "$sc" -o "$f" --seed 7 >/dev/null 2>"$f.err"; then
		nok "gen/$sc" "c2c-gen failed: $(head -1 "$f.err")"
		continue
	fi
	db=$(import_db "$f" "$E2E_TMP/$sc.db")
	# every option set on the richest scenario, the usual ones elsewhere
	run_file "gen/$sc" "$f" "$f" "$db" "$([ "$sc" = mixed ] || [ "$sc" = line-identity ] && echo extra || echo all)"
	# perf c2c report cannot read pipe files; the same scenario and seed in
	# pipe format must give perf's numbers for the file format.
	if "$gen" --scenario "$sc" -o "$f.pipe" --seed 7 --pipe >/dev/null 2>"$f.err"; then
		compare "gen/$sc --pipe" "$f" "$f.pipe"
	else
		nok "gen/$sc --pipe" "c2c-gen --pipe failed: $(head -1 "$f.err")"
	fi
	if "$gen" --scenario "$sc" -o "$f.zst" --seed 7 --compress >/dev/null 2>"$f.err"; then
		compare "gen/$sc --compress" "$f.zst" "$f.zst"
	else
		nok "gen/$sc --compress" "c2c-gen --compress failed: $(head -1 "$f.err")"
	fi
done
# Other shapes of the mixed stream (the bench's shapes, smaller): many
# threads on a line and many sites; many lines (a heap past 16 MiB).
for shape in "wide:--lines 2000 --sites 400 --threads 24 --samples 60000" \
	     "lines100k:--lines 100000 --samples 150000 --seed 3"; do
	name=${shape%%:*}
	f=$E2E_TMP/$name.data
	# shellcheck disable=SC2086 # the shape is a list of options
	if ! "$gen" --scenario mixed ${shape#*:} -o "$f" >/dev/null 2>"$f.err"; then
		nok "gen/mixed-$name" "c2c-gen failed: $(head -1 "$f.err")"
		continue
	fi
	run_file "gen/mixed-$name" "$f" "$f" "$(import_db "$f" "$E2E_TMP/$name.db")" usual
done
finish
