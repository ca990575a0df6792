#!/usr/bin/env bash
# Kernel module code from its .ko: a module-shaped relocatable object with
# DWARF and a build-id note (tests/kernel/kmod.c, `cc -c -mcmodel=kernel`
# then `ld -r --build-id`, as a .ko is made) and a generated recording
# with kernel-mode samples at its instructions on a module map
# (tests/tools/kernel_perfdata.c --module), beside the kernel image of
# kernel_vmlinux.sh. Checks:
#  - function+offset and dso of the module's samples equal
#    `perf script -F ip,sym,symoff,dso -k` (perf 6.1 finds the .ko at the
#    recorded path), and file:line equals addr2line on the .ko at
#    ip - map start (perf's map__rip_2objdump for ET_REL). perf 6.1 itself
#    hangs in its addr2line pipe on a .ko (srcline), so neither perf script
#    -F srcline nor perf c2c report can be compared here;
#  - found under --symfs: at the recorded path, by the module's name under
#    /lib/modules/R/ for a "[kvm_test]" map (zstd-compressed too), by the
#    recorded build-id under /usr/lib/debug/.build-id/;
#  - a .ko of another build is not used, said once per module, no crash.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=kernel_modules
gen=$C2C_BUILD/tools/kernel_perfdata
cd "$E2E_TMP" || exit 1
export HOME=$E2E_TMP/home   # perf's build-id cache, not the user's
mkdir -p "$HOME"

kmod() { # OUT [cc flags]
	local out=$1
	shift
	cc -c -g -O1 -mcmodel=kernel -fno-pic -ffreestanding -fno-asynchronous-unwind-tables "$@" \
		-o "$out.o" "$C2C_TOP/tests/kernel/kmod.c" && ld -r --build-id "$out.o" -o "$out"
}
if ! cc -g -O1 -mcmodel=kernel -fno-pie -no-pie -nostdlib -ffreestanding -static -Wl,--build-id \
	-Wl,-T,"$C2C_TOP/tests/kernel/kernel.lds" -o vmlinux "$C2C_TOP/tests/kernel/kvm.c" 2>/dev/null ||
	! kmod kvm_test.ko 2>/dev/null || ! kmod other.ko -DOTHER 2>/dev/null; then
	skip "$T" "cannot build the kernel-shaped test objects (cc -mcmodel=kernel, ld -r)"
	exit 0
fi
if [ -z "$(readelf -n kvm_test.ko 2>/dev/null | awk '/Build ID/ { print $3 }')" ]; then
	skip "$T" "ld -r --build-id gives no build-id note here"
	exit 0
fi
base=ffffffffc0a00000
rel=6.1.0-c2c-gen
mpath=$PWD/mods/kvm_test.ko          # a recorded path perf can open as it is
mkdir -p mods && cp kvm_test.ko mods/
gen_data() { # OUT MAPNAME [more kernel_perfdata options]
	local out=$1 map=$2
	shift 2
	"$gen" "$PWD/vmlinux" "$out" --module kvm_test.ko --modmap "$map" --modbase "$base" "$@" >/dev/null
}
if ! gen_data m.data "$mpath" || ! gen_data n.data "[kvm_test]" ||
	! gen_data x.data "$mpath" --modbid other.ko; then
	nok "$T: generate" "kernel_perfdata --module failed"
	exit 0
fi

# The module's code sites of a session: "ip function+0xoff dso file:line".
sites() { # DB
	"$C2CTUI" sql "$1" "SELECT printf('%x %s+0x%x %s %s:%d', ip, function, offset, dso, file, line)
		FROM sites WHERE ip >= 0x$base" 2>/dev/null | tail -n +2 | tr -d '"' |
		sed 's| /[^ ]*/\([^/]*:[0-9]*\)$| \1|' | sort -u
}
imp() { # DB DATA [options]
	local db=$1 data=$2
	shift 2
	rm -f "$db"
	"$C2CTUI" import -q -k "$PWD/vmlinux" "$@" "$data" -o "$db" 2>"$db.err"
}

imp m.db m.data
sites m.db >ours.sites
exit_ip=$(printf '%x' $((0x$base + 0x$(nm kvm_test.ko | awk '/ kvm_test_count_exit$/ { print $1 }'))))
if [ "$(wc -l <ours.sites)" -eq 2 ] && grep -q "^$exit_ip kvm_test_count_exit+0x0 $mpath kmod.c:" ours.sites &&
	grep -q " kvm_test_halt_poll+0x[1-9a-f][0-9a-f]* $mpath kmod.c:" ours.sites; then
	ok "$T: module samples named from the .ko at the map's .text"
else
	nok "$T: module samples named from the .ko at the map's .text" "$(tr '\n' '|' <ours.sites) $(head -c 300 m.db.err)"
fi

# file:line as addr2line gives it for the offset in .text (sections of a
# .ko sit at 0; addr2line applies the DWARF relocations).
while read -r ip fo dso sl; do
	printf '%s %s %s %s\n' "$ip" "$fo" "$dso" \
		"$(addr2line -e kvm_test.ko "$(printf '%x' $((0x$ip - 0x$base)))" | sed 's|.*/||')"
done <ours.sites >a2l.sites
if [ -s a2l.sites ] && cmp -s a2l.sites ours.sites; then
	ok "$T: module file:line equals addr2line on the .ko"
else
	nok "$T: module file:line equals addr2line on the .ko" "a2l: $(tr '\n' '|' <a2l.sites) ours: $(tr '\n' '|' <ours.sites)"
fi

if command -v perf >/dev/null 2>&1; then
	timeout 120 perf script -F ip,sym,symoff,dso -k "$PWD/vmlinux" -i m.data 2>/dev/null |
		awk -v b="$base" '$1 >= b { gsub(/[()]/, "", $3); print $1, $2, $3 }' | sort -u >perf.sites
	cut -d' ' -f1-3 ours.sites >ours.3
	if [ -s perf.sites ] && cmp -s perf.sites ours.3; then
		ok "$T: module function+offset and dso equal perf script -k"
	else
		nok "$T: module function+offset and dso equal perf script -k" \
			"perf: $(tr '\n' '|' <perf.sites) ours: $(tr '\n' '|' <ours.3)"
	fi
else
	skip "$T: perf agreement" "perf is not installed"
fi

# The kernel's own sites still come from the vmlinux.
if "$C2CTUI" sql m.db "SELECT function FROM sites WHERE ip < 0x$base" 2>/dev/null | grep -q vcpu_enter_guest; then
	ok "$T: kernel sites still named from the vmlinux"
else
	nok "$T: kernel sites still named from the vmlinux" "$(head -c 300 m.db.err)"
fi

# Found under --symfs ROOT in the places perf and the distributions use.
want=$(cut -d' ' -f1,2,4 ours.sites)
bid=$(readelf -n kvm_test.ko | awk '/Build ID/ { print $3 }')
found() { # NAME DATA PLACE [FILE]
	local name=$1 data=$2 place=$3 file=${4:-kvm_test.ko}
	rm -rf root && mkdir -p "root/$(dirname "$place")" && cp "$file" "root/$place"
	imp f.db "$data" --symfs "$PWD/root"
	local got
	got=$(sites f.db | cut -d' ' -f1,2,4)
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "$T: $name"
	else
		nok "$T: $name" "got: $(echo "$got" | tr '\n' '|') $(head -c 300 f.db.err)"
	fi
}
mv mods/kvm_test.ko mods.ko   # not at the recorded path any more
found "found at the recorded path under --symfs" m.data "$mpath"
found "a [kvm_test] map found by name under /lib/modules/R/" n.data "lib/modules/$rel/kernel/arch/x86/kvm/kvm_test.ko"
found "found by build-id under /usr/lib/debug/.build-id/" n.data "usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
if command -v zstd >/dev/null 2>&1 && zstd -q -f kvm_test.ko -o kvm_test.ko.zst; then
	found "a zstd-compressed kvm_test.ko.zst found by name and read" n.data \
		"lib/modules/$rel/updates/kvm_test.ko.zst" kvm_test.ko.zst
else
	skip "$T: zstd-compressed module" "no zstd command"
fi
gzip -c kvm_test.ko >kvm_test.ko.gz
found "a gzip-compressed kvm_test.ko.gz found by name and read" n.data \
	"lib/modules/$rel/kernel/kvm_test.ko.gz" kvm_test.ko.gz
mv mods.ko mods/kvm_test.ko

# An xz-compressed module at its recorded path (as Debian installs them):
# perf 6.1 decompresses it too.
if command -v xz >/dev/null 2>&1 && xz -c kvm_test.ko >mods/kvm_test.ko.xz &&
	gen_data y.data "$PWD/mods/kvm_test.ko.xz"; then
	imp y.db y.data
	sites y.db | cut -d' ' -f1-3 >ours.xz
	if command -v perf >/dev/null 2>&1; then
		timeout 120 perf script -F ip,sym,symoff,dso -k "$PWD/vmlinux" -i y.data 2>/dev/null |
			awk -v b="$base" '$1 >= b { gsub(/[()]/, "", $3); print $1, $2, $3 }' | sort -u >perf.xz
	else
		sed "s| $mpath\$| $mpath.xz|" ours.3 >perf.xz
	fi
	if [ "$(wc -l <ours.xz)" -eq 2 ] && grep -q kvm_test_halt_poll ours.xz && cmp -s perf.xz ours.xz &&
		[ "$(sites y.db | cut -d' ' -f4)" = "$(cut -d' ' -f4 ours.sites)" ]; then
		ok "$T: an xz-compressed .ko.xz at its recorded path read as perf script reads it"
	else
		nok "$T: an xz-compressed .ko.xz at its recorded path read as perf script reads it" \
			"perf: $(tr '\n' '|' <perf.xz) ours: $(tr '\n' '|' <ours.xz) $(head -c 200 y.db.err)"
	fi
else
	skip "$T: xz-compressed module" "no xz command"
fi

# Another build recorded: the .ko at the path is not used, said once.
"$C2CTUI" report -k "$PWD/vmlinux" x.data >x.txt 2>x.err
rc=$?
rm -f x.db
"$C2CTUI" import -k "$PWD/vmlinux" x.data -o x.db >/dev/null 2>x.db.err   # -q would hide warnings
if [ $rc -eq 0 ] && [ "$(grep -c 'kvm_test.ko has another build-id' x.err)" -eq 1 ] &&
	[ "$(grep -c 'kvm_test.ko has another build-id' x.db.err)" -eq 1 ] && [ -z "$(sites x.db | grep kvm_test_)" ] &&
	grep -q vcpu_enter_guest x.txt; then
	ok "$T: a .ko of another build is not used, said once"
else
	nok "$T: a .ko of another build is not used, said once" "exit $rc: $(head -c 300 x.err) | $(sites x.db | tr '\n' '|')"
fi
