#!/usr/bin/env bash
# Kernel code through a vmlinux (-k/--vmlinux, as perf spells it): a small
# kernel-shaped image with DWARF and a build-id (tests/kernel/kvm.c placed
# by tests/kernel/kernel.lds at 0xffffffff81000000) and a generated c2c
# recording of kernel-mode samples at its instructions on a KASLR-shifted
# kernel map (tests/tools/kernel_perfdata.c). Checks:
#  - report -k F names each code site (address, function, file:line) as
#    `perf c2c report --stdio -k F` does, and function+offset and line as
#    `perf script -F ip,sym,symoff,srcline -k F` (perf 6.1, run here);
#  - without -k the same sites stay addresses (the image is what names them);
#  - -k with --symfs: relative under it, absolute as it is (perf's rule);
#  - the image found by the recording's build-id under --symfs ROOT
#    (ROOT/usr/lib/debug/.build-id/xx/rest.debug, ROOT/boot/vmlinux-R), and
#    an image of another build in those places never used;
#  - --kallsyms with an ELF file, -k with a missing file or another build's
#    image: refused with one line.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=kernel_vmlinux
gen=$C2C_BUILD/tools/kernel_perfdata
cd "$E2E_TMP" || exit 1
export HOME=$E2E_TMP/home   # perf's build-id cache, not the user's
mkdir -p "$HOME"

if ! kernel_image vmlinux kvm.c 2>/dev/null || ! kernel_image vmlinux.other kvm.c -DOTHER 2>/dev/null; then
	skip "$T" "cannot build the kernel-shaped test image (cc -mcmodel=kernel)"
	exit 0
fi
if ! "$gen" "$PWD/vmlinux" k.data --shift 2a00000 >/dev/null; then
	nok "$T: generate" "kernel_perfdata failed"
	exit 0
fi

"$C2CTUI" report -k vmlinux k.data >ours.txt 2>ours.err
kernel_sites <ours.txt >ours.sites
want="0xffffffff83a00002 kvm_vcpu_kick kvm.c:24
0xffffffff83a00008 vcpu_enter_guest kvm.c:29
0xffffffff83a0000d vcpu_enter_guest kvm.c:30
0xffffffff83a00011 kvm_arch_vcpu_runnable kvm.c:38"
# The line numbers of kvm.c (never touched without this test): checked
# against perf below; the functions at the shifted addresses here.
if [ "$(cut -d' ' -f1,2 ours.sites)" = "$(echo "$want" | cut -d' ' -f1,2)" ]; then
	ok "$T: report -k names the kernel functions at the KASLR-shifted addresses"
else
	nok "$T: report -k names the kernel functions at the KASLR-shifted addresses" "$(tr '\n' '|' <ours.sites) $(head -c 300 ours.err)"
fi

"$C2CTUI" report k.data 2>/dev/null | kernel_sites >plain.sites
if grep -q vcpu_enter_guest plain.sites; then
	nok "$T: without -k the sites stay addresses" "$(tr '\n' '|' <plain.sites)"
else
	ok "$T: without -k the sites stay addresses"
fi

if command -v perf >/dev/null 2>&1; then
	perf c2c report --stdio -k vmlinux -i k.data 2>/dev/null | kernel_sites >perf.sites
	if [ -s perf.sites ] && cmp -s perf.sites ours.sites; then
		ok "$T: code sites and Source:Line equal perf c2c report -k"
	else
		nok "$T: code sites and Source:Line equal perf c2c report -k" \
			"perf: $(tr '\n' '|' <perf.sites) ours: $(tr '\n' '|' <ours.sites)"
	fi
	# perf script: one line per sample, "ip sym+0xoff" then "  file:line".
	perf script -F ip,sym,symoff,srcline -k vmlinux -i k.data 2>/dev/null |
		awk 'NF == 2 && $2 ~ /\+0x/ { ip = $1; so = $2; next } NF == 1 && ip != "" { print ip, so, $1; ip = "" }' |
		sort -u >perf.script
	"$C2CTUI" import -q -k vmlinux k.data -o k.db 2>import.err
	"$C2CTUI" sql k.db "SELECT printf('%x %s+0x%x %s:%d', ip, function, offset, file, line) FROM sites" \
		2>/dev/null | tail -n +2 | tr -d '"' | sed 's| /[^ ]*/\([^/]*:[0-9]*\)$| \1|' | sort -u >ours.script
	if [ "$(wc -l <perf.script)" -eq 4 ] && cmp -s perf.script ours.script; then
		ok "$T: function+offset and file:line equal perf script -k"
	else
		nok "$T: function+offset and file:line equal perf script -k" \
			"perf: $(tr '\n' '|' <perf.script) ours: $(tr '\n' '|' <ours.script) $(head -c 200 import.err)"
	fi
else
	skip "$T: perf agreement" "perf is not installed"
fi

# Found by build-id under --symfs: the .build-id debug path, then boot/vmlinux-R
# (R: the recording's os release).
bid=$(readelf -n vmlinux | awk '/Build ID/ { print $3 }')
rel=6.1.0-c2c-gen
for place in "usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" "boot/vmlinux-$rel"; do
	rm -rf root && mkdir -p "root/$(dirname "$place")"
	cp vmlinux.other "root/$place"
	"$C2CTUI" report --symfs "$PWD/root" k.data 2>/dev/null | kernel_sites >other.sites
	cp vmlinux "root/$place"
	"$C2CTUI" report --symfs "$PWD/root" k.data 2>/dev/null | kernel_sites >found.sites
	if cmp -s found.sites ours.sites && ! grep -q kvm_ other.sites; then
		ok "$T: found by build-id at /$(dirname "$place")/, another build there never used"
	else
		nok "$T: found by build-id at /$(dirname "$place")/" \
			"found: $(tr '\n' '|' <found.sites) other: $(tr '\n' '|' <other.sites)"
	fi
done

# perf's rule for -k with --symfs: a relative path under the symfs, an
# absolute one as it is (another build sits in the other place each time).
rm -rf root2 && mkdir root2 && cp vmlinux root2/img && cp vmlinux.other img
"$C2CTUI" report --symfs "$PWD/root2" -k img k.data 2>rel.err | kernel_sites >rel.sites
mkdir -p "root2$PWD" && cp vmlinux.other "root2$PWD/vmlinux"
"$C2CTUI" report --symfs "$PWD/root2" -k "$PWD/vmlinux" k.data 2>abs.err | kernel_sites >abs.sites
if cmp -s rel.sites ours.sites && cmp -s abs.sites ours.sites; then
	ok "$T: -k with --symfs: relative under it, absolute as it is"
else
	nok "$T: -k with --symfs: relative under it, absolute as it is" \
		"rel: $(tr '\n' '|' <rel.sites) $(head -c 200 rel.err) abs: $(tr '\n' '|' <abs.sites) $(head -c 200 abs.err)"
fi

# Refusals: one line each, exit 1, naming the file and why.
refused() { # NAME PATTERN CMD...
	local name=$1 pat=$2
	shift 2
	"$@" >/dev/null 2>err.txt
	local rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q -- "$pat" err.txt; then
		ok "$T: $name"
	else
		nok "$T: $name" "exit $rc: $(head -c 300 err.txt)"
	fi
}
refused "--kallsyms with an ELF file is refused" "is an ELF file, not a kallsyms list" \
	"$C2CTUI" import --kallsyms vmlinux k.data -o r1.db
refused "report --kallsyms with an ELF file is refused" "is an ELF file, not a kallsyms list" \
	"$C2CTUI" report --kallsyms vmlinux k.data
refused "-k with a missing file is refused" "nosuch: No such file" \
	"$C2CTUI" import -k nosuch k.data -o r2.db
refused "-k with another build's image is refused" "build-id is not that of the kernel the samples come from ($bid)" \
	"$C2CTUI" report -k vmlinux.other k.data
refused "-k with a file that is not ELF is refused" "not an ELF file" \
	"$C2CTUI" import -k k.data k.data -o r3.db
# record/live: checked against the running kernel before the session file
# is made (the test image is never the running kernel).
refused "record -k with a missing file is refused" "nosuch: No such file" \
	"$C2CTUI" record -k nosuch -D 1 -o rec1.db
refused "record -k with another kernel's image is refused" "build-id is not that of the kernel" \
	"$C2CTUI" record -k vmlinux -D 1 -o rec2.db
if [ -e rec1.db ] || [ -e rec2.db ]; then
	nok "$T: a refused record -k makes no session file" "$(ls rec*.db)"
else
	ok "$T: a refused record -k makes no session file"
fi
