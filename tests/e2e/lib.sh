# Helpers for end-to-end scripts (source it). Same result-line protocol as the
# unit tests: ok / not ok / skip, one line per check.
: "${C2C_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${C2C_BUILD:=$C2C_TOP/build}"
: "${C2CTUI:=$C2C_BUILD/c2ctui}"
: "${C2C_FIXTURES:=$C2C_TOP/../shared/fixtures}"
E2E_TMP=$(mktemp -d /tmp/c2ce2e.XXXXXX)
trap 'rm -rf "$E2E_TMP"' EXIT

ok()   { echo "ok - $1"; }
nok()  { echo "not ok - $1${2:+: $2}"; }
skip() { echo "skip - $1: $2"; }
# session_sql S.db SQL: rows as sqlite3 prints them (values joined by |),
# through `c2ctui sql`: since schema 2 the samples table is c2ctui's own
# virtual table over sample_blocks, which the sqlite3 shell cannot read.
session_sql() { "$C2CTUI" sql --no-header "$1" "$2" | tr ',' '|'; }
# check NAME CMD...: ok when CMD exits 0
check() { local n=$1; shift; if "$@"; then ok "$n"; else nok "$n" "command failed: $*"; fi; }

# relayout_sessions: in the current folder, builds tests/types/relayout.c
# twice with -g (before / -DRELAYOUT), records each with relayout_perfdata
# ($1; the after run twice as long) and imports them into before.db and
# after.db; non-zero on any failure.
relayout_sessions() {
  local gen=$1
  cc -g -O2 -o relayout_before "$C2C_TOP/tests/types/relayout.c" &&
    cc -g -O2 -DRELAYOUT -o relayout_after "$C2C_TOP/tests/types/relayout.c" &&
    "$gen" "$PWD/relayout_before" before.data --seconds 1 >/dev/null &&
    "$gen" "$PWD/relayout_after" after.data --after --seconds 2 >/dev/null &&
    "$C2CTUI" import before.data -o before.db >/dev/null 2>&1 &&
    "$C2CTUI" import after.data -o after.db >/dev/null 2>&1
}

# conn_sessions: in the current folder, builds tests/types/conn.c twice
# with -g (before / after layout), records each with conn_perfdata ($1)
# and imports them into before.db and after.db; non-zero on any failure.
conn_sessions() {
  local gen=$1
  cc -g -O2 -o conn_before "$C2C_TOP/tests/types/conn.c" &&
    cc -g -O2 -DLAYOUT_AFTER -o conn_after "$C2C_TOP/tests/types/conn.c" &&
    "$gen" "$PWD/conn_before" before.data --seconds 1 >/dev/null &&
    "$gen" "$PWD/conn_after" after.data --after --seconds 2 >/dev/null &&
    "$C2CTUI" import before.data -o before.db >/dev/null 2>&1 &&
    "$C2CTUI" import after.data -o after.db >/dev/null 2>&1
}

# kernel_image OUT SRC [cc flags]: builds a kernel-shaped test image from
# SRC (under tests/kernel/) as a small vmlinux: -mcmodel=kernel, placed by
# tests/kernel/kernel.lds at 0xffffffff81000000, DWARF, a build-id.
kernel_image() {
  local out=$1 src=$2
  shift 2
  cc -g -O1 -mcmodel=kernel -fno-pie -no-pie -nostdlib -ffreestanding -static -Wl,--build-id \
    -Wl,-T,"$C2C_TOP/tests/kernel/kernel.lds" "$@" -o "$out" "$C2C_TOP/tests/kernel/$src"
}

# kernel_sites: the code sites of a report's Pareto rows on stdin (ours or
# perf c2c report --stdio's), one "address function file:line" per line,
# sorted.
kernel_sites() {
  awk '/\[k\]/ { a = ""; f = ""; s = "";
    for (i = 1; i <= NF; i++) {
      if ($i ~ /^0xffffffff[89a-f]/ && a == "" && i > 6) a = $i
      if ($i == "[k]") f = $(i + 1)
      if ($i ~ /^[^ ]+:[0-9]+$/) s = $i
    }
    print a, f, s }' | sort
}

# pahole_compare NAME FILE LABEL [C2CTUI's TYPE ARGUMENTS]: one ok / not ok /
# skip line (named "$T: LABEL") saying whether `c2ctui layout` equals
# `pahole -C NAME FILE`, both parsed by tests/e2e/pahole_cmp.py (members,
# offsets, sizes, holes, bit holes, padding, cache line comments and the
# statistics); LINE=N compares with N-byte cache lines (64 otherwise).
# Writes c.txt, p.txt (the two outputs) in the current folder.
pahole_compare() {
  local name=$1 file=$2 label=$3 n diff
  shift 3
  [ $# -gt 0 ] || set -- "$name"
  "$C2CTUI" layout "$@" "$file" --line-size "${LINE:-64}" > c.txt 2> c.err
  pahole --cacheline_size="${LINE:-64}" -C "$name" "$file" > p.txt 2>/dev/null
  diff=$(python3 "$C2C_TOP/tests/e2e/pahole_cmp.py" c.txt p.txt 2> n.txt)
  n=$(cat n.txt)
  if ! grep -Eq '^(struct|union) ' p.txt; then
    # pahole -C takes the first type of that name: an enum of the same name wins
    skip "$T: $label" "pahole -C $name prints '$(head -1 p.txt)', not the struct"
  elif [ -s c.err ]; then
    nok "$T: $label" "c2ctui: $(head -1 c.err)"
  elif [ -n "$diff" ]; then
    nok "$T: $label" "$diff"
  else
    ok "$T: $label equals pahole ($n rows, holes, boundaries and totals)"
  fi
}
