#!/usr/bin/env python3
"""kernel_memlist.py VMLINUX FUNC...: the memory accesses of kernel functions
as kernel_list_perfdata's input, one "IP ld|st ADDR" line each.

Every instruction of each function (objdump -d) with a memory operand based
on a general register — not lea/nop/prefetch/push/pop/call/jmp, not the
stack (rsp, rbp), not RIP-relative globals, not per-CPU (%gs:) — becomes one
sample: a store when the operand is the destination (AT&T: last), else a
load, at a heap address of its own (the direct map, 0xffff888100000000 +
n * 0x1000) plus the displacement, so that every access is to a different
object and only the instruction and the DWARF can say its type."""
import re,sys,subprocess
vm=sys.argv[1]; funcs=sys.argv[2:]
op=re.compile(r'(?:(-?0x[0-9a-f]+))?\(%(r[a-z0-9]+)(?:,%[a-z0-9]+,\d)?\)')
i=0
for f in funcs:
    out=subprocess.run(['objdump','-d','--no-show-raw-insn','--disassemble='+f,vm],capture_output=True,text=True).stdout
    for line in out.splitlines():
        m=re.match(r'\s*([0-9a-f]+):\s+(\S+)\s*(.*)',line)
        if not m: continue
        ip,mn,ops=m.groups()
        if mn.startswith(('lea','nop','prefetch','push','pop','call','jmp','ret','clflush')) or '%gs:' in ops or '%fs:' in ops: continue
        mm=op.search(ops)
        if not mm or mm.group(2) in ('rip','rsp','rbp'): continue
        disp=int(mm.group(1),16) if mm.group(1) else 0
        store = ops.rstrip().endswith(')') and not mn.startswith(('cmp','test','bt '))
        if disp<0: disp+=0x800
        print('%s %s %x'%(ip,'st' if store else 'ld', 0xffff888100000000+i*0x1000+disp))
        i+=1
