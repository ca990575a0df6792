#!/usr/bin/env bash
# `c2ctui layout TYPE [FILE]` equals `pahole -C TYPE FILE`:
#  - struct task_group, sched_entity, percpu_counter and a deterministic
#    sample of ~30 other structs of this machine's BTF
#    (/sys/kernel/btf/vmlinux; every Nth name of `pahole --sizes`, a third
#    of them larger than 256 bytes);
#  - user-space DWARF: struct conn of tests/types/conn.c (both layouts) and
#    the cases of tests/types/pahole_cases.c (bitfields, bit holes, arrays
#    of and pointers to anonymous structs, a union across a line, a packed
#    struct), built with -g; conn again from a .BTF section alone.
# Both outputs are parsed by the same helper into, in order: anonymous
# struct/union openers, members (name, offset, bit offset, size),
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

cat > cmp.py <<'EOF'
# cmp.py A B: parses two pahole-form layouts; prints the first difference
# (nothing when equal). cmp.py --members A: "name offset size" per member.
import re, sys

ROW = re.compile(r'^(.*?)\s*/\*\s*(\d+)(?::\s*(\d+))?\s+(\d+)\s*\*/\s*$')
BOUND = re.compile(r'/\* --- cacheline (\d+) boundary \((\d+) bytes\)(?: was (\d+) bytes? ago)? --- \*/')
HOLE = re.compile(r'^/\* XXX (\d+) (byte|bit)s? hole, try to pack \*/$')
TPAD = re.compile(r'^/\* XXX last struct has (\d+) bytes? of padding \*/$')
STATS = [
    ('size', re.compile(r'^/\* size: (\d+), cachelines: (\d+), members: (\d+) \*/$')),
    ('sum', re.compile(r'^/\* sum members: (\d+)(?:, holes: (\d+), sum holes: (\d+))? \*/$')),
    ('bits', re.compile(r'^/\* sum bitfield members: (\d+) bits(?:, bit holes: (\d+), sum bit holes: (\d+) bits| \((\d+) bytes\)) \*/$')),
    ('padding', re.compile(r'^/\* padding: (\d+) \*/$')),
    ('paddings', re.compile(r'^/\* paddings: (\d+), sum paddings: (\d+) \*/$')),
    ('bit_padding', re.compile(r'^/\* bit_padding: (\d+) bits \*/$')),
    ('last', re.compile(r'^/\* last cacheline: (\d+) bytes \*/$')),
]
IGNORED = [re.compile(p) for p in (
    r'^$', r'^\};?( __attribute__.*)?;?$', r'^/\* forced alignments: .*\*/$',
    r'^/\* Bitfield combined with (previous|next) fields \*/$',
    r'^/\* Force alignment to the next boundary: \*/$', r'^[^/]*\s:\d+;$')]

def member_name(decl):
    decl = re.sub(r'__attribute__\(\(.*?\)\)\)?', '', decl).strip().rstrip(';').strip()
    m = re.search(r'\(\*\s*(\w+)\)', decl)
    if m:
        return m.group(1)
    decl = re.sub(r':\d+$', '', decl)
    decl = re.sub(r'(\[\d*\])+$', '', decl)
    m = re.search(r'(\w+)$', decl)
    return m.group(1) if m else '?'

def parse(path):
    out, in_enum = [], False
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or not re.match(r'^(struct|union) \S+ \{$', lines[0]):
        return [('header', lines[0] if lines else '')]
    for raw in lines[1:]:
        s = raw.strip()
        if in_enum:
            if not s.startswith('}'):
                continue
            # the member of an anonymous enum type: one row, as c2ctui prints it
            in_enum = False
            m = ROW.match(s)
            if m:
                out.append(('member', member_name(m.group(1)[1:]), int(m.group(2)), None,
                            int(m.group(4))))
                continue
        if re.match(r'^enum\s*\{$', s):
            in_enum = True          # pahole prints the enumerators
            continue
        m = re.match(r'^(struct|union)\s*\{$', s)
        if m:
            out.append(('open', m.group(1)))
            continue
        m = ROW.match(s)
        if m:
            text, off, bit, size = m.group(1), int(m.group(2)), m.group(3), int(m.group(4))
            if text.startswith('}'):
                # pahole's inferred __packed__ / __aligned__ are not layout
                name = re.sub(r'__attribute__\(\(.*?\)\)\)?', '', text[1:])
                name = name.strip().rstrip(';').strip()
                out.append(('close', re.sub(r'\s+', ' ', name), off, size))
            else:
                out.append(('member', member_name(text), off, int(bit) if bit else None, size))
            continue
        m = BOUND.search(s)
        if m:
            out.append(('boundary', int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)))
            continue
        m = HOLE.match(s)
        if m:
            out.append(('hole_' + m.group(2), int(m.group(1))))
            continue
        m = TPAD.match(s)
        if m:
            out.append(('type_padding', int(m.group(1))))
            continue
        for name, rx in STATS:
            m = rx.match(s)
            if m:
                out.append((name,) + tuple(m.groups()))
                break
        else:
            if not any(rx.match(s) for rx in IGNORED):
                out.append(('unparsed', s))
    return out

if sys.argv[1] == '--members':
    for e in parse(sys.argv[2]):
        if e[0] == 'member':
            print(e[1], e[2], e[4])
    sys.exit(0)
a, b = parse(sys.argv[1]), parse(sys.argv[2])
if not any(e[0] in ('member', 'size') for e in b):
    print('pahole printed no layout: %s' % (b[:1],))
    sys.exit(0)
for i in range(max(len(a), len(b))):
    ea = a[i] if i < len(a) else None
    eb = b[i] if i < len(b) else None
    if ea != eb:
        print('entry %d: c2ctui %s, pahole %s' % (i, ea, eb))
        break
else:
    print('', end='')
    sys.stderr.write('%d\n' % len(a))
EOF

# compare NAME FILE LABEL [C2CTUI's TYPE ARGUMENTS]: one ok / not ok line;
# LINE=N compares with N-byte cache lines (64 otherwise)
compare() {
  local name=$1 file=$2 label=$3 n diff
  shift 3
  [ $# -gt 0 ] || set -- "$name"
  "$C2CTUI" layout "$@" "$file" --line-size "${LINE:-64}" > c.txt 2> c.err
  pahole --cacheline_size="${LINE:-64}" -C "$name" "$file" > p.txt 2>/dev/null
  diff=$(python3 cmp.py c.txt p.txt 2> n.txt)
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

# --- the machine's BTF -------------------------------------------------------
if [ ! -r "$BTF" ]; then
  skip "$T: kernel BTF" "no $BTF"
else
  for s in task_group sched_entity percpu_counter; do
    compare "$s" "$BTF" "BTF struct $s" struct "$s"
  done
  LINE=128 compare task_group "$BTF" "BTF struct task_group with 128-byte cache lines"
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
    compare "$s" "$BTF" "BTF $s ($(awk -v n="$s" '$1 == n { print $2 }' once.txt) bytes)"
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
  compare conn "$PWD/conn" "DWARF struct conn" "struct conn"
  compare conn "$PWD/conn_after" "DWARF struct conn (after layout, aligned member)"
  for s in pc_hole pc_bits pc_anon pc_packed; do
    compare "$s" "$PWD/cases" "DWARF struct $s"
  done
  "$C2CTUI" layout "union pc_union" cases > c.txt 2> c.err
  pahole -C pc_union cases > p.txt 2>/dev/null
  d=$(python3 cmp.py c.txt p.txt 2>/dev/null)
  if [ -z "$d" ] && [ ! -s c.err ]; then ok "$T: DWARF union pc_union equals pahole"
  else nok "$T: DWARF union pc_union equals pahole" "${d:-$(cat c.err)}"; fi

  # JSON: the same members, offsets and sizes as pahole's text
  "$C2CTUI" layout conn conn --format json > conn.json 2>&1
  pahole -C conn conn > p.txt 2>/dev/null
  python3 cmp.py --members p.txt > want.txt
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
    compare conn "$PWD/conn_btf" "ELF .BTF section (no DWARF) struct conn"
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
