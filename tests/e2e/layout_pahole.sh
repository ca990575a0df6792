#!/usr/bin/env bash
# `c2ctui layout TYPE [FILE]` equals `pahole -C TYPE FILE`:
#  - struct task_group, sched_entity, percpu_counter and a deterministic
#    sample of ~30 other structs of this machine's BTF
#    (/sys/kernel/btf/vmlinux; every Nth name of `pahole --sizes`, a third
#    of them larger than 256 bytes);
#  - user-space DWARF: struct conn of tests/types/conn.c (both layouts) and
#    the cases of tests/types/pahole_cases.c (bitfields, bit holes, arrays
#    of and pointers to anonymous structs, a union across a line, a packed
#    struct, arrays of 256, 253 and 65536 elements), built with -g; conn
#    again from a .BTF section alone.
# Both outputs are parsed by tests/e2e/pahole_cmp.py (lib.sh's
# pahole_compare, shared with layout_pahole_vmlinux.sh) into, in order:
# anonymous struct/union openers, members (name, offset, bit offset, size),
# "XXX N bytes/bits hole", "last struct has N bytes of padding", cache line
# comments (line, bytes, was N bytes ago) and the statistics (size,
# cachelines, members, sum members, holes, sum holes, bitfield sums,
# padding, paddings, bit padding, last cacheline) — and must be equal.
# task_group is compared again with 128-byte lines (--line-size 128,
# pahole --cacheline_size=128).
# Not compared, by design (docs/types.md "c2ctui layout"): the type text
# (c2ctui's names: "func (*fn)()" for pahole's "void (*fn)(int)"), the
# enumerators pahole prints for an anonymous enum, the alignment and packing
# pahole infers ("__attribute__((__aligned__(64)))", "__packed__", "forced
# alignments"), its "Bitfield combined with ..." notes and ":0" filler
# lines: none has an offset or a size. A name pahole -C resolves to an enum
# of the same name (struct format_state) is a skip. Also: a missing type, a
# file that is neither BTF nor ELF and an ELF without DWARF or .BTF are one
# line and exit 1; the JSON has the same members, offsets and sizes.
source "$(dirname "$0")/lib.sh"
T=layout_pahole
BTF=/sys/kernel/btf/vmlinux
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
command -v pahole >/dev/null || { skip "$T" "no pahole (scripts/deps.sh installs dwarves)"; exit 0; }
command -v python3 >/dev/null || { skip "$T" "no python3 for the comparison"; exit 0; }
cd "$E2E_TMP" || exit 1



# --- the machine's BTF -------------------------------------------------------
if [ ! -r "$BTF" ]; then
  skip "$T: kernel BTF" "no $BTF"
else
  for s in task_group sched_entity percpu_counter; do
    pahole_compare "$s" "$BTF" "BTF struct $s" struct "$s"
  done
  LINE=128 pahole_compare task_group "$BTF" "BTF struct task_group with 128-byte cache lines"
  # A deterministic sample: names pahole lists once, sorted; 10 larger than
  # 256 bytes and 20 others, evenly spaced.
  pahole --sizes "$BTF" 2>/dev/null | sort -k1,1 > sizes.txt
  awk '{ n[$1]++; s[$1] = $2 } END { for (k in n) if (n[k] == 1) print k, s[k] }' sizes.txt |
    sort -k1,1 > once.txt
  pick() { awk -v want="$1" '{ v[NR] = $1 } END { for (i = 0; i < want && NR; i++) print v[int(i * NR / want) + 1] }'; }
  { awk '$2 > 256' once.txt | pick 10; awk '$2 <= 256 && $2 > 0' once.txt | pick 20; } > sample.txt
  if [ "$(wc -l < sample.txt)" -lt 30 ]; then
    nok "$T: BTF sample" "pahole --sizes listed too few structs ($(wc -l < sample.txt) picked)"
  fi
  while read -r s; do
    case $s in task_group|sched_entity|percpu_counter) continue ;; esac
    pahole_compare "$s" "$BTF" "BTF $s ($(awk -v n="$s" '$1 == n { print $2 }' once.txt) bytes)"
  done < sample.txt
fi

# --- user-space DWARF --------------------------------------------------------
if ! command -v cc >/dev/null; then
  skip "$T: DWARF" "no C compiler to build tests/types/conn.c"
elif ! { cc -g -O2 -o conn "$C2C_TOP/tests/types/conn.c" &&
         cc -g -O2 -DLAYOUT_AFTER -o conn_after "$C2C_TOP/tests/types/conn.c" &&
         cc -g -O0 -o cases "$C2C_TOP/tests/types/pahole_cases.c"; }; then
  nok "$T: DWARF" "cannot build tests/types/conn.c or pahole_cases.c with cc -g"
else
  pahole_compare conn "$PWD/conn" "DWARF struct conn" "struct conn"
  pahole_compare conn "$PWD/conn_after" "DWARF struct conn (after layout, aligned member)"
  for s in pc_hole pc_bits pc_anon pc_packed pc_arrays; do
    pahole_compare "$s" "$PWD/cases" "DWARF struct $s"
  done
  "$C2CTUI" layout "union pc_union" cases > c.txt 2> c.err
  pahole -C pc_union cases > p.txt 2>/dev/null
  d=$(python3 "$C2C_TOP/tests/e2e/pahole_cmp.py" c.txt p.txt 2>/dev/null)
  if [ -z "$d" ] && [ ! -s c.err ]; then ok "$T: DWARF union pc_union equals pahole"
  else nok "$T: DWARF union pc_union equals pahole" "${d:-$(cat c.err)}"; fi

  # JSON: the same members, offsets and sizes as pahole's text
  "$C2CTUI" layout conn conn --format json > conn.json 2>&1
  pahole -C conn conn > p.txt 2>/dev/null
  python3 "$C2C_TOP/tests/e2e/pahole_cmp.py" --members p.txt > want.txt
  if python3 -c '
import json, sys
d = json.load(open("conn.json"))
for m in d["members"]:
    if "anonymous" not in m:
        print(m["name"], m["offset"], m["size"])
assert d["size"] == 88 and d["cachelines"] == 2 and d["sum_bit_holes"] == 16
' > got.txt 2>/dev/null && diff -q want.txt got.txt >/dev/null; then
    ok "$T: --format json has pahole's members, offsets and sizes"
  else
    nok "$T: --format json has pahole's members, offsets and sizes" "$(diff want.txt got.txt | head -3)"
  fi

  # an ELF with a .BTF section and no DWARF (pahole -J, then stripped)
  cp conn conn_btf
  if pahole -J conn_btf >/dev/null 2>&1 && objcopy --strip-debug conn_btf 2>/dev/null &&
     ! readelf -S conn_btf | grep -q debug_info; then
    pahole_compare conn "$PWD/conn_btf" "ELF .BTF section (no DWARF) struct conn"
  else
    skip "$T: ELF .BTF section" "pahole -J or objcopy could not make an ELF with only .BTF"
  fi

  # errors: one line, exit 1
  cc -O2 -o conn_nog "$C2C_TOP/tests/types/conn.c"
  "$C2CTUI" layout conn conn_nog > out.txt 2> err.txt; rc=$?
  if [ $rc = 1 ] && [ ! -s out.txt ] && [ "$(wc -l < err.txt)" = 1 ] &&
     grep -q 'no debug info.*no .BTF section' err.txt; then
    ok "$T: an ELF without DWARF or .BTF is one line, exit 1"
  else
    nok "$T: an ELF without DWARF or .BTF is one line, exit 1" "rc=$rc $(cat err.txt)"
  fi
  "$C2CTUI" layout struct no_such_struct conn > out.txt 2> err.txt; rc=$?
  if [ $rc = 1 ] && [ ! -s out.txt ] && [ "$(wc -l < err.txt)" = 1 ] &&
     grep -q 'no struct or union struct no_such_struct in' err.txt; then
    ok "$T: a type that does not exist is one line, exit 1"
  else
    nok "$T: a type that does not exist is one line, exit 1" "rc=$rc $(cat err.txt)"
  fi
fi
printf 'not a type file\n' > junk.bin
"$C2CTUI" layout conn junk.bin > out.txt 2> err.txt; rc=$?
if [ $rc = 1 ] && [ "$(wc -l < err.txt)" = 1 ] && grep -q 'neither BTF nor an ELF file' err.txt; then
  ok "$T: a file that is neither BTF nor ELF is one line, exit 1"
else
  nok "$T: a file that is neither BTF nor ELF is one line, exit 1" "rc=$rc $(cat err.txt)"
fi
