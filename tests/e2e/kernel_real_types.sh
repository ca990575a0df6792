#!/usr/bin/env bash
# Kernel heap objects of a real kernel's code typed to struct members: the
# vmlinux of Debian's linux-image-*-cloud-amd64-dbg (scripts/kernel-dbg.sh,
# build/cache/kernel-dbg/; C2C_VMLINUX_DBG overrides), a recording of one
# kernel-mode sample at every heap access of a dozen hot scheduler, per-CPU
# counter, TCP and ext4 functions (tests/e2e/kernel_memlist.py, written by
# build/tools/kernel_list_perfdata on a KASLR-shifted kernel map), imported
# with -k. Checks:
#  - the image is taken as the recorded kernel (its build-id is the GNU note,
#    not the Xen notes of the same type before it);
#  - every code site is named as perf c2c report -k names it (address,
#    function+offset);
#  - report --types: the share of kernel heap samples attributed to a member
#    is at least MIN_SHARE% (81% measured: -O2 kernel code, inlined helpers,
#    registers loaded from memory the tracking does not follow stay unresolved),
#    with struct cfs_rq, sched_entity, rq, tcp_sock and sk_buff among the
#    types; the figure is printed.
source "$(dirname "$0")/lib.sh"
T=kernel_real_types
MIN_SHARE=75
cache=$C2C_TOP/build/cache/kernel-dbg
VM=${C2C_VMLINUX_DBG:-$cache/vmlinux}
GEN=$C2C_BUILD/tools/kernel_list_perfdata
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
[ -x "$GEN" ] || { skip "$T" "no $GEN"; exit 0; }
command -v objdump >/dev/null || { skip "$T" "no objdump (binutils)"; exit 0; }
command -v python3 >/dev/null || { skip "$T" "no python3 for the instruction list"; exit 0; }
if [ ! -r "$VM" ]; then
  if [ -s "$cache/why" ]; then skip "$T" "no kernel DWARF: $(head -n1 "$cache/why")"
  else skip "$T" "no $VM (scripts/kernel-dbg.sh fetches it)"; fi
  exit 0
fi
cd "$E2E_TMP" || exit 1
export HOME=$E2E_TMP/home   # perf's build-id cache, not the user's
mkdir -p "$HOME"

FUNCS="update_load_avg __update_load_avg_se update_cfs_group update_curr enqueue_entity dequeue_entity
       task_tick_fair percpu_counter_add_batch __percpu_counter_sum tcp_ack ext4_da_write_end"
if ! python3 "$C2C_TOP/tests/e2e/kernel_memlist.py" "$VM" $FUNCS > list.txt || [ "$(wc -l < list.txt)" -lt 300 ]; then
  nok "$T: setup" "objdump listed $(wc -l < list.txt) heap accesses in $VM"; exit 0
fi
n=$(wc -l < list.txt)
if ! "$GEN" "$VM" k.data --shift 1c600000 < list.txt > gen.out 2>&1; then
  nok "$T: setup" "kernel_list_perfdata: $(head -1 gen.out)"; exit 0
fi

if "$C2CTUI" import -q -k "$VM" k.data -o k.db 2> import.err; then
  ok "$T: the real vmlinux is the recorded kernel ($n samples imported with -k)"
else
  nok "$T: the real vmlinux is the recorded kernel" "$(head -1 import.err)"; exit 0
fi

# code sites as perf c2c report -k names them (address, function+offset;
# without source lines: perf's addr2line on 590 MB of DWARF takes minutes)
timeout 600 perf c2c report --stdio --no-source --show-all -k "$VM" -i k.data 2>/dev/null | kernel_sites > perf.sites
"$C2CTUI" report k.db --no-source --show-all 2>/dev/null | kernel_sites > ours.sites
if [ "$(wc -l < perf.sites)" -ge 300 ] && cmp -s perf.sites ours.sites; then
  ok "$T: every code site named as perf c2c report -k names it ($(wc -l < ours.sites) Pareto rows)"
else
  nok "$T: every code site named as perf c2c report -k names it" \
    "$(wc -l < perf.sites) vs $(wc -l < ours.sites) rows; $(diff perf.sites ours.sites | head -3 | tr '\n' ' ')"
fi

"$C2CTUI" report k.db --types > types.txt 2>&1
line=$(grep "^Kernel heap samples attributed to a member:" types.txt)
got=$(echo "$line" | awk '{ print $8 }') of=$(echo "$line" | awk '{ print $10 }')
echo "# $line"
grep "^Kernel samples unresolved" types.txt | sed 's/^/# /'
if [ -n "$got" ] && [ "$of" = "$n" ] && [ $((got * 100)) -ge $((MIN_SHARE * of)) ]; then
  ok "$T: $got of $of kernel heap samples attributed to a member (at least $MIN_SHARE%)"
else
  nok "$T: kernel heap samples attributed to a member" "'$line' (want $n samples, at least $MIN_SHARE%)"
fi
# the unresolved ones: their count, and the reasons grouped with their
# numbers (addresses, offsets) written N
total=$(awk '/^Kernel samples:/ { sub(",", "", $3); print $3 }' types.txt)
att=$(awk '/^Kernel samples:/ { print $5 }' types.txt)
if [ -n "$total" ] && [ -n "$att" ] &&
   grep -q "^Kernel samples unresolved: $((total - att)); most often: [0-9]* [^;]* at N " types.txt &&
   ! grep "^Kernel samples unresolved:" types.txt | grep -q ' at 0x'; then
  ok "$T: unresolved: $((total - att)), the reasons grouped with numbers as N"
else
  nok "$T: unresolved count and grouped reasons" "$(grep '^Kernel samples' types.txt | tr '\n' '|')"
fi
missing=""
for t in "struct cfs_rq" "struct sched_entity" "struct rq" "struct tcp_sock" "struct sk_buff"; do
  grep -q "^$t  " types.txt || missing="$missing '$t'"
done
if [ -z "$missing" ]; then ok "$T: the scheduler's and TCP's structs are among the types"; else
  nok "$T: the scheduler's and TCP's structs are among the types" "missing:$missing"; sed 's/^/#   /' types.txt | head -20; fi
