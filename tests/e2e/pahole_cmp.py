#!/usr/bin/env python3
# pahole_cmp.py A B: parses two pahole-form layouts; prints the first difference
# (nothing when equal). pahole_cmp.py --members A: "name offset size" per member.
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
                # a bitfield of it keeps its bit offset ("} state:16; /* 1256:16 4 */")
                out.append(('member', member_name(m.group(1)[1:]), int(m.group(2)),
                            int(m.group(3)) if m.group(3) else None, int(m.group(4))))
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
