#!/usr/bin/env python3
"""Writes a copy of a perf.data (file format, uncompressed) that keeps only
the samples of some CPUs, pids or tids, and every other record as it is:
the recording c2ctui would have imported had it held only those samples.
Used to check `report --cpu/--node/--pid/--tid` against a fresh import.

  perfdata_filter.py IN OUT --cpu 0-3,8 | --pid LIST | --tid LIST

Exits 2 when the file is of a shape it does not handle (pipe format,
compressed records, attrs with different sample layouts).
"""
import struct
import sys

SAMPLE, COMPRESSED = 9, 81
S_IDENTIFIER, S_IP, S_TID, S_TIME, S_ADDR, S_ID, S_STREAM_ID, S_CPU = 1 << 16, 1, 2, 4, 8, 1 << 6, 1 << 9, 1 << 7


def ids(text):
    out = set()
    for part in text.split(','):
        lo, _, hi = part.partition('-')
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def main():
    src, dst, key, want = sys.argv[1], sys.argv[2], sys.argv[3], ids(sys.argv[4])
    d = open(src, 'rb').read()
    if d[:8] != b'PERFILE2':
        sys.exit(2)
    attr_size, = struct.unpack_from('<Q', d, 16)        # perf_file_attr: the attr and its ids section
    aoff, asz = struct.unpack_from('<QQ', d, 24)
    doff, dsz = struct.unpack_from('<QQ', d, 40)
    types = set()
    for a in range(aoff, aoff + asz, attr_size):
        types.add(struct.unpack_from('<Q', d, a + 24)[0])    # perf_event_attr.sample_type
    if len(types) != 1:
        sys.exit(2)
    st = types.pop()
    out, p, end = bytearray(), doff, doff + dsz
    while p + 8 <= end:
        typ, misc, size = struct.unpack_from('<IHH', d, p)
        if size < 8 or p + size > end or typ == COMPRESSED:
            sys.exit(2)
        rec = d[p:p + size]
        keep = True
        if typ == SAMPLE:
            q = 8
            vals = {}
            for bit, name, fmt in ((S_IDENTIFIER, 'ident', '<Q'), (S_IP, 'ip', '<Q'), (S_TID, 'tid', '<II'),
                                   (S_TIME, 'time', '<Q'), (S_ADDR, 'addr', '<Q'), (S_ID, 'id', '<Q'),
                                   (S_STREAM_ID, 'stream', '<Q'), (S_CPU, 'cpu', '<II')):
                if st & bit:
                    vals[name] = struct.unpack_from(fmt, rec, q)
                    q += 8
            if key == '--cpu':
                keep = 'cpu' in vals and vals['cpu'][0] in want
            elif key == '--pid':
                keep = 'tid' in vals and vals['tid'][0] in want
            elif key == '--tid':
                keep = 'tid' in vals and vals['tid'][1] in want
            else:
                sys.exit(2)
        if keep:
            out += rec
        p += size
    delta = dsz - len(out)
    hdr = bytearray(d[:doff])
    struct.pack_into('<Q', hdr, 48, len(out))
    tail = bytearray(d[end:])
    feats = d[72:104]
    nfeat = sum(bin(b).count('1') for b in feats)
    for i in range(nfeat):                              # the feature table follows the data
        o, s = struct.unpack_from('<QQ', tail, 16 * i)
        struct.pack_into('<QQ', tail, 16 * i, o - delta, s)
    open(dst, 'wb').write(hdr + out + tail)


main()
