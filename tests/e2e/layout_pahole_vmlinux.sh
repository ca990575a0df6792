#!/usr/bin/env bash
# `c2ctui layout TYPE VMLINUX` equals `pahole -C TYPE VMLINUX` on a real
# kernel's DWARF: the vmlinux of Debian's linux-image-*-cloud-amd64-dbg,
# which scripts/kernel-dbg.sh (run by `make deps`) keeps in
# build/cache/kernel-dbg/ (C2C_VMLINUX_DBG overrides the path).
#  - struct task_group, sched_entity, percpu_counter (also with 128-byte
#    lines for task_group);
#  - a fixed set of varied structs (task_struct, rq, mm_struct, page with
#    its unions of anonymous structs, sk_buff, bitfield-heavy ones, ...);
#  - a deterministic sample: names `pahole --sizes` lists once, sorted, 3
#    larger than 256 bytes and 7 others, evenly spaced.
# One `pahole -C NAME` per struct: pahole stops reading once it has found
# it, and `pahole -C a,b,c` on this vmlinux misses names (lzma_dec "not
# found", Qdisc not printed; dwarves 1.24).
# The comparison is layout_pahole.sh's (lib.sh pahole_compare,
# tests/e2e/pahole_cmp.py): members, offsets, sizes, holes, bit holes,
# padding, cache line comments, statistics.
# Under ASan (C2C_BUILD ends in -asan, or C2C_VMLINUX_FULL=0) only the three
# required structs run: the sample adds minutes to the ASan pass and
# exercises no other code (C2C_VMLINUX_FULL=1 runs it anyway).
source "$(dirname "$0")/lib.sh"
T=layout_pahole_vmlinux
cache=$C2C_TOP/build/cache/kernel-dbg
VM=${C2C_VMLINUX_DBG:-$cache/vmlinux}
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
command -v pahole >/dev/null || { skip "$T" "no pahole (scripts/deps.sh installs dwarves)"; exit 0; }
command -v python3 >/dev/null || { skip "$T" "no python3 for the comparison"; exit 0; }
if [ ! -r "$VM" ]; then
  if [ -s "$cache/why" ]; then
    skip "$T" "no kernel DWARF: $(head -n1 "$cache/why")"
  else
    skip "$T" "no $VM (scripts/kernel-dbg.sh fetches it)"
  fi
  exit 0
fi
cd "$E2E_TMP" || exit 1
full=${C2C_VMLINUX_FULL:-1}
case $C2C_BUILD in *-asan|*-asan/) full=${C2C_VMLINUX_FULL:-0} ;; esac
kernel=$(cat "$cache/stamp" 2>/dev/null || echo "$VM")

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# c2ctui's wall time for one layout: the by-name lookup in 590 MB of DWARF
# is what a user waits for
t0=$(now)
"$C2CTUI" layout 'struct task_group' "$VM" > /dev/null 2>&1
echo "# $kernel: c2ctui layout task_group took $(secs "$t0" "$(now)") s"

required="task_group sched_entity percpu_counter"
# Chosen for what they hold: big structs with many holes and cache lines
# (task_struct, rq, mm_struct, net_device, sock), unions of anonymous
# structs (page, folio, sk_buff), bitfields and anonymous enums (net_device,
# perf_event_attr, tcp_sock, inode), arrays (zone, signal_struct).
fixed="task_struct rq mm_struct cfs_rq page folio sk_buff net_device sock tcp_sock
inode file super_block perf_event_attr zone signal_struct"
names=$required
if [ "$full" = 1 ]; then
  # A deterministic sample of the rest: names `pahole --sizes` lists once,
  # sorted; 3 larger than 256 bytes and 7 others, evenly spaced (each
  # comparison reads the vmlinux again: 10 keep the test within minutes).
  t0=$(now)
  pahole --sizes "$VM" 2>/dev/null | sort -k1,1 > sizes.txt
  awk '{ n[$1]++; s[$1] = $2 } END { for (k in n) if (n[k] == 1) print k, s[k] }' sizes.txt |
    sort -k1,1 > once.txt
  pick() { awk -v want="$1" '{ v[NR] = $1 } END { for (i = 0; i < want && NR; i++) print v[int(i * NR / want) + 1] }'; }
  { awk '$2 > 256' once.txt | pick 3; awk '$2 <= 256 && $2 > 0' once.txt | pick 7; } |
    grep -vxF -f <(echo $required $fixed | tr ' ' '\n') > sample.txt
  echo "# pahole --sizes and the sample: $(secs "$t0" "$(now)") s"
  if [ "$(wc -l < sample.txt)" -lt 9 ]; then
    nok "$T: sample" "pahole --sizes listed too few structs ($(wc -l < sample.txt) picked)"
  fi
  names="$required $fixed $(cat sample.txt)"
fi

# timed ARGS: pahole_compare ARGS, then the comparison's wall time as a
# comment line (c2ctui and pahole both read the vmlinux)
timed() { local t=$(now); pahole_compare "$@"; echo "#   $1: $(secs "$t" "$(now)") s"; }

t0=$(now)
for s in $required $fixed; do
  [ "$full" = 1 ] || case " $required " in *" $s "*) ;; *) continue ;; esac
  timed "$s" "$VM" "DWARF struct $s" struct "$s"
done
LINE=128 timed task_group "$VM" "DWARF struct task_group with 128-byte cache lines" struct task_group
if [ "$full" = 1 ]; then
  while read -r s; do
    timed "$s" "$VM" "DWARF $s ($(awk -v n="$s" '$1 == n { print $2 }' once.txt) bytes)"
  done < sample.txt
fi
echo "# c2ctui layout and pahole -C for $(( $(echo $names | wc -w) + 1 )) comparisons: $(secs "$t0" "$(now)") s"
if [ "$full" != 1 ]; then
  skip "$T: $(echo $fixed | wc -w) varied structs and a sample of 10" "not under ASan (minutes longer, the same code as the three above; the plain build runs them; C2C_VMLINUX_FULL=1 forces them)"
fi
