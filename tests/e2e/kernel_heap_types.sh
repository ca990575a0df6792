#!/usr/bin/env bash
# Kernel heap objects attributed to struct members (docs/types.md, kernel
# samples): the kernel-shaped test image (tests/kernel/kvm.c, _text at
# 0xffffffff81000000, DWARF, build-id) and kernel_perfdata --heap, which
# writes, beside the 44 samples of the global vcpu0, 44 samples on four
# direct-map vcpus (0xffff888100000000 + k * 0x40, no data symbol) at the
# image's instructions on a KASLR-shifted kernel map. Per heap object:
# requests stored 3 times, stat_exits 2, mode loaded 2 (HITM), cpu 4 (HITM);
# vcpu0: requests 12, stat_exits 10, mode 8 (HITM), cpu 14 (HITM). Checks:
#  - report -k IMG --types: struct kvm_vcpu, 5 objects, 88 samples (44 global,
#    44 by instruction), and "44 of 44" kernel heap samples to a member;
#  - --layout: the members' loads, stores and HITM equal what was written;
#    --verdicts: each heap object's line with its own 11 samples;
#  - the same with other KASLR shifts (the pc is ip - shift);
#  - the session reopened without -k finds the image from its meta; with the
#    image moved away it says why (no crash, exit 0);
#  - no DWARF (stripped image, no image at all): heap samples unresolved
#    with the documented reason;
#  - a read-only session read as nobody: attributed, the file unchanged.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=kernel_heap_types
gen=$C2C_BUILD/tools/kernel_perfdata
cd "$E2E_TMP" || exit 1

if ! cc -g -O1 -mcmodel=kernel -fno-pie -no-pie -nostdlib -ffreestanding -static -Wl,--build-id \
	-Wl,-T,"$C2C_TOP/tests/kernel/kernel.lds" -o vmlinux "$C2C_TOP/tests/kernel/kvm.c" 2>/dev/null; then
	skip "$T" "cannot build the kernel-shaped test image (cc -mcmodel=kernel)"
	exit 0
fi
if ! "$gen" "$PWD/vmlinux" k.data --heap >/dev/null; then
	nok "$T: generate" "kernel_perfdata --heap failed"
	exit 0
fi

# "struct kvm_vcpu  SIZE OBJECTS SAMPLES LOADS STORES LCLHITM RMTHITM HOW"
types_row() { awk '$1 == "struct" && $2 == "kvm_vcpu" { $1 = ""; $2 = ""; print substr($0, 3) }'; }
want_row="32 5 88 46 42 46 0 44/44/0/0"
want_heap="Kernel heap samples attributed to a member: 44 of 44 (100.0%)"

"$C2CTUI" report -k vmlinux --types k.data >types.txt 2>types.err
row=$(types_row <types.txt)
if [ "$row" = "$want_row" ] && grep -qF "$want_heap" types.txt &&
	grep -qF "Kernel samples: 88, attributed 88 (100.0%; global/insn/stack/manual 44/44/0/0)" types.txt; then
	ok "$T: report -k IMG --types: struct kvm_vcpu, 44 heap samples by instruction, 44 of 44 to a member"
else
	nok "$T: report -k IMG --types" "row '$row' $(tail -3 types.txt | tr '\n' '|') $(head -c 200 types.err)"
fi

# Member rows: "OFFSET SIZE NAME TYPE... LOADS STORES LHITM RHITM ..." -> name loads stores lhitm
"$C2CTUI" report -k vmlinux --layout "struct kvm_vcpu" k.data >layout.txt 2>layout.err
awk '/^struct kvm_vcpu \{/ { on = 1; next } on && /^\};/ { exit }
	on && $1 ~ /^[0-9]+$/ { for (i = 4; i <= NF; i++) if ($i ~ /^[0-9]+$/) break; print $3, $i, $(i + 1), $(i + 2) }' \
	layout.txt >members.txt
want_members="mode 16 0 16
requests 0 24 0
cpu 30 0 30
stat_exits 0 18 0"
if [ "$(cat members.txt)" = "$want_members" ]; then
	ok "$T: --layout: loads/stores/HITM of mode, requests, cpu, stat_exits as written (heap + global)"
else
	nok "$T: --layout member heat" "$(tr '\n' '|' <members.txt) $(head -c 200 layout.err)"
fi

"$C2CTUI" report -k vmlinux --verdicts k.data >verdicts.txt 2>/dev/null
nheap=$(awk '$1 ~ /^0xffff8881000000[048c]0$/ && $2 == 6 && $3 == 11 && $5 == "struct" && $6 == "kvm_vcpu"' verdicts.txt | wc -l)
if [ "$nheap" -eq 4 ]; then
	ok "$T: --verdicts: the four heap vcpus' lines, 11 samples and 6 HITM each, typed struct kvm_vcpu"
else
	nok "$T: --verdicts heap lines" "$nheap of 4: $(head -6 verdicts.txt | tr '\n' '|')"
fi

# The pc is ip - shift: other KASLR shifts give the same answer.
for sh in 0 1c600000; do
	"$gen" "$PWD/vmlinux" k$sh.data --heap --shift $sh >/dev/null &&
		"$C2CTUI" report -k vmlinux --types k$sh.data >t$sh.txt 2>&1
	if [ "$(types_row <t$sh.txt)" = "$want_row" ] && grep -qF "$want_heap" t$sh.txt; then
		ok "$T: KASLR shift 0x$sh: the same attribution"
	else
		nok "$T: KASLR shift 0x$sh" "$(tr '\n' '|' <t$sh.txt | head -c 400)"
	fi
done

# The session remembers the image the import used.
"$C2CTUI" import -q -k vmlinux k.data -o k.db 2>import.err
meta=$("$C2CTUI" sql k.db "SELECT value FROM meta WHERE key = 'vmlinux'" 2>/dev/null | tail -1 | tr -d '"')
"$C2CTUI" report --types k.db >reopen.txt 2>&1
if [ "$meta" = "$PWD/vmlinux" ] && [ "$(types_row <reopen.txt)" = "$want_row" ] && grep -qF "$want_heap" reopen.txt; then
	ok "$T: reopened without -k, the image comes from the session (meta vmlinux)"
else
	nok "$T: reopened without -k" "meta '$meta' $(tr '\n' '|' <reopen.txt | head -c 300) $(head -c 200 import.err)"
fi
# An image of another build given to a session that recorded one: refused
# for types with the reason (its DWARF would name the wrong members).
if cc -g -O1 -mcmodel=kernel -fno-pie -no-pie -nostdlib -ffreestanding -static -Wl,--build-id -DOTHER \
	-Wl,-T,"$C2C_TOP/tests/kernel/kernel.lds" -o vmlinux.other "$C2C_TOP/tests/kernel/kvm.c" 2>/dev/null; then
	"$C2CTUI" report -k vmlinux.other --types k.db >other.txt 2>&1
	if grep -q "Kernel samples unresolved: 88; most often: 88 kernel heap: .*vmlinux.other is not the kernel recorded (build-id" other.txt &&
		! grep -q "^struct kvm_vcpu" other.txt; then
		ok "$T: -k with another build's image: not used, the reason says so"
	else
		nok "$T: -k with another build's image" "$(tr '\n' '|' <other.txt | head -c 300)"
	fi
else
	skip "$T: -k with another build's image" "cannot build it"
fi

# -k with --symfs (perf's rule): a relative image under the symfs, for a
# session and for a perf.data imported first; another build sits in ./img.
if [ -e vmlinux.other ]; then
	rm -rf root && mkdir root && cp vmlinux root/img && cp vmlinux.other img
	"$C2CTUI" report --symfs "$PWD/root" -k img --types k.db >symfs1.txt 2>&1
	"$C2CTUI" report --symfs "$PWD/root" -k img --types k.data >symfs2.txt 2>&1
	if grep -qF "$want_heap" symfs1.txt && grep -qF "$want_heap" symfs2.txt; then
		ok "$T: -k relative under --symfs, for a session and a perf.data"
	else
		nok "$T: -k under --symfs" "$(tr '\n' '|' <symfs1.txt | tail -c 200) / $(tr '\n' '|' <symfs2.txt | tail -c 200)"
	fi
fi

# diff: heap objects are matched by type (their addresses differ between runs).
"$C2CTUI" report --diff k.db k.db --format text >diff.txt 2>diff.err
"$C2CTUI" diff -k vmlinux --format text k.db k.db >diffk.txt 2>&1
if grep -Eq "^ +struct kvm_vcpu\+0 +members +matched +24 -> 24" diff.txt && cmp -s diff.txt diffk.txt &&
	grep -Eq "^ +requests +8 +8 +0 \| +8 +8 +0 .*24 -> 24" diff.txt; then
	ok "$T: report --diff: the heap vcpus matched by type, their members' heat on both sides"
else
	nok "$T: report --diff" "$(grep -E 'kvm_vcpu|requests' diff.txt | tr '\n' '|') $(head -c 200 diff.err) $(diff diff.txt diffk.txt | head -3)"
fi

mv vmlinux vmlinux.moved
"$C2CTUI" report --types k.db >moved.txt 2>moved.err
rc=$?
mv vmlinux.moved vmlinux
if [ $rc -eq 0 ] && grep -qF "Kernel heap samples attributed to a member: 0 of 44" moved.txt &&
	grep -q "kernel heap: vmlinux $PWD/vmlinux (recorded in the session): No such file" moved.txt; then
	ok "$T: image moved away: heap samples unresolved, saying the recorded image is gone"
else
	nok "$T: image moved away" "exit $rc: $(tr '\n' '|' <moved.txt | head -c 300) $(head -c 200 moved.err)"
fi

# Without DWARF: a stripped image, and no image at all.
objcopy --strip-debug vmlinux vmlinux.nodwarf
"$C2CTUI" report -k vmlinux.nodwarf --types k.data >nodwarf.txt 2>nodwarf.err
"$C2CTUI" report --types k.data >noimg.txt 2>noimg.err
if grep -q "Kernel samples unresolved: .*kernel heap: .*vmlinux.nodwarf has no DWARF (-k); BTF has no variable locations" nodwarf.txt &&
	grep -qF "Kernel samples unresolved: 88; most often: 88 kernel heap: needs a vmlinux with DWARF (-k); BTF has no variable locations" noimg.txt &&
	! grep -q "kvm_vcpu" noimg.txt; then
	ok "$T: without DWARF heap samples stay unresolved with the documented reason"
else
	nok "$T: without DWARF" "$(tr '\n' '|' <nodwarf.txt | head -c 300) | $(tr '\n' '|' <noimg.txt | head -c 300)"
fi

# Read-only, as another user: computed for the run, the file unchanged.
if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1 || ! command -v setpriv >/dev/null; then
	skip "$T: read-only session as nobody" "needs root, setpriv and user nobody"
else
	chmod 755 "$E2E_TMP"
	chmod a+r vmlinux
	mkdir ro && cp k.db ro/ && chmod 444 ro/k.db && chmod 555 ro
	before=$(md5sum ro/k.db | cut -d' ' -f1)
	setpriv --reuid nobody --regid nogroup --clear-groups "$C2CTUI" report --types ro/k.db >ro.txt 2>ro.err
	rc=$?
	after=$(md5sum ro/k.db | cut -d' ' -f1)
	if [ $rc -eq 0 ] && [ "$before" = "$after" ] && [ "$(types_row <ro.txt)" = "$want_row" ] &&
		grep -qF "$want_heap" ro.txt && [ "$(ls ro)" = "k.db" ]; then
		ok "$T: read-only session as nobody: kernel heap attributed, the file unchanged (md5)"
	else
		nok "$T: read-only session as nobody" "exit $rc md5 $before/$after: $(tr '\n' '|' <ro.txt | head -c 300) $(head -c 200 ro.err)"
	fi
	chmod 755 ro
fi

# record -k: the session remembers the image too (an image with this
# kernel's build-id, so that the -k check lets it through; no PMU needed).
hostbid=$(python3 -c '
import struct
d = open("/sys/kernel/notes", "rb").read()
o = 0
while o + 12 <= len(d):
    n, s, t = struct.unpack_from("<III", d, o)
    de = o + 12 + ((n + 3) & ~3)
    if t == 3 and d[o + 12:o + 15] == b"GNU":
        print(d[de:de + s].hex())
        break
    o = de + ((s + 3) & ~3)' 2>/dev/null)
if [ -z "$hostbid" ] || ! cc -g -O1 -mcmodel=kernel -fno-pie -no-pie -nostdlib -ffreestanding -static \
	-Wl,--build-id=0x"$hostbid" -Wl,-T,"$C2C_TOP/tests/kernel/kernel.lds" -o hostimg "$C2C_TOP/tests/kernel/kvm.c" 2>/dev/null; then
	skip "$T: record -k records the image" "no readable /sys/kernel/notes build-id"
elif ! timeout 60 "$C2CTUI" record -k hostimg -D 1 -o rec.db >/dev/null 2>rec.err; then
	skip "$T: record -k records the image" "record failed here: $(head -c 200 rec.err)"
else
	got=$("$C2CTUI" sql rec.db "SELECT group_concat(value, ' ') FROM (SELECT value FROM meta WHERE key IN ('vmlinux', 'vmlinux_build_id') ORDER BY key)" 2>/dev/null | tail -1 | tr -d '"')
	if [ "$got" = "$PWD/hostimg $hostbid" ]; then
		ok "$T: record -k records the image and its build-id in the session"
	else
		nok "$T: record -k records the image" "meta '$got', want '$PWD/hostimg $hostbid'"
	fi
fi
