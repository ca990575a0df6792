#!/usr/bin/env bash
# perf 6.1 (the reference) must accept every file c2c-gen writes, except the
# 136-byte-attr variant, and show the numbers the generator says it wrote
# (c2c-gen --expect). Checks perf report --header-only, perf script and
# perf c2c report --stdio on each scenario, then the format variants.
#
# perf c2c report runs with --no-source: perf 6.1 spawns addr2line on the
# generated binary path (/usr/bin/c2c-demo), which does not exist, and dies
# of SIGPIPE. Pipe files are checked with perf script/report: perf 6.1's
# c2c report cannot read pipe input at all ("Failed setup nodes").
source "$(dirname "$0")/lib.sh"

GEN=$C2C_BUILD/tools/c2c-gen
if ! command -v perf >/dev/null 2>&1; then skip writer_perf_accepts "perf not installed"; exit 0; fi
if [ ! -x "$GEN" ]; then skip writer_perf_accepts "$GEN not built"; exit 0; fi
export PERF_PAGER=cat

# exp FILE KEY: a value from c2c-gen --expect output
exp() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# stat FILE LABEL: a value from perf c2c report's statistics tables
stat() { sed -n "s/^  $2 *: *\([0-9.%]*\)\$/\1/p" "$1" | head -1; }
# eq NAME GOT WANT
eq() { if [ -n "$2" ] && [ "$2" = "$3" ]; then ok "$1"; else nok "$1" "got '$2', want '$3'"; fi; }

header_checks() { # NAME FILE EXPFILE [stdin]
  local n=$1 f=$2 e=$3 out=$E2E_TMP/hdr.txt
  if ! perf report --header-only -i "$f" >"$out" 2>"$E2E_TMP/hdr.err"; then
    nok "$n: perf report --header-only" "$(head -c 300 "$E2E_TMP/hdr.err")"; return; fi
  eq "$n: hostname" "$(sed -n 's/^# hostname : //p' "$out")" "c2c-gen (generated)"
  eq "$n: nrcpus avail" "$(sed -n 's/^# nrcpus avail : //p' "$out")" "$(exp "$e" nr_cpus)"
  eq "$n: cmdline marks generated" "$(grep -c '^# cmdline : c2c-gen (generated) --scenario' "$out")" 1
  eq "$n: two events" "$(grep -c '^# event : name = cpu/mem-\(loads,ldlat=30\|stores\)/P' "$out")" 2
}

script_count() { # NAME WANT perf-script-args...
  local n=$1 want=$2; shift 2
  local got
  got=$(perf script "$@" 2>"$E2E_TMP/script.err" | wc -l)
  eq "$n: perf script shows every sample" "$got" "$want"
}

c2c_checks() { # NAME FILE EXPFILE
  local n=$1 f=$2 e=$3 out=$E2E_TMP/c2c.txt
  if ! perf c2c report --stdio --no-source -i "$f" >"$out" 2>"$E2E_TMP/c2c.err"; then
    nok "$n: perf c2c report" "$(head -c 300 "$E2E_TMP/c2c.err")"; return 1; fi
  eq "$n: Total records" "$(stat "$out" 'Total records')" "$(exp "$e" samples)"
  eq "$n: Load Operations" "$(stat "$out" 'Load Operations')" "$(exp "$e" loads)"
  eq "$n: Store Operations" "$(stat "$out" 'Store Operations')" "$(exp "$e" stores)"
  eq "$n: Load Local HITM" "$(stat "$out" 'Load Local HITM')" "$(exp "$e" lcl_hitm)"
  eq "$n: Load Remote HITM" "$(stat "$out" 'Load Remote HITM')" "$(exp "$e" rmt_hitm)"
  eq "$n: No Page Map Rejects" "$(stat "$out" 'No Page Map Rejects')" "$(exp "$e" nomap)"
  return 0
}

# ---- scenarios ---------------------------------------------------------
for sc in false-sharing true-sharing classes mixed bench; do
  f=$E2E_TMP/$sc.data e=$E2E_TMP/$sc.exp
  args=()
  [ "$sc" = mixed ] && args=(--samples 5000)
  [ "$sc" = bench ] && args=(--samples 20000)
  if ! "$GEN" --scenario "$sc" -o "$f" --expect "${args[@]}" >"$e" 2>"$E2E_TMP/gen.err"; then
    nok "$sc: c2c-gen" "$(cat "$E2E_TMP/gen.err")"; continue; fi
  header_checks "$sc" "$f" "$e"
  script_count "$sc" "$(exp "$e" samples)" -i "$f"
  c2c_checks "$sc" "$f" "$e" || continue
  out=$E2E_TMP/c2c.txt
  case $sc in
    false-sharing)
      eq "$sc: three shared lines" "$(stat "$out" 'Total Shared Cache Lines')" 3 ;;
    true-sharing)
      eq "$sc: two shared lines" "$(stat "$out" 'Total Shared Cache Lines')" 2
      eq "$sc: locked" "$(stat "$out" 'Locked Load\/Store Operations')" "$(exp "$e" locked)" ;;
    classes)
      c() { exp "$e" "class.$1"; }
      eq "$sc: locked" "$(stat "$out" 'Locked Load\/Store Operations')" "$(exp "$e" locked)"
      eq "$sc: uncacheable loads" "$(stat "$out" 'Loads - uncacheable')" "$(c ld_uncache)"
      eq "$sc: IO loads" "$(stat "$out" 'Loads - IO')" "$(c ld_io)"
      eq "$sc: missed loads" "$(stat "$out" 'Loads - Miss')" "$(c ld_miss)"
      eq "$sc: loads without address" "$(stat "$out" 'Loads - no mapping')" "$(exp "$e" ld_noadrs)"
      eq "$sc: LFB" "$(stat "$out" 'Load Fill Buffer Hit')" "$(c ld_fbhit)"
      eq "$sc: L1" "$(stat "$out" 'Load L1D hit')" "$(c ld_l1hit)"
      # perf counts an L2 hit with a peer snoop as L2 hit too
      eq "$sc: L2" "$(stat "$out" 'Load L2D hit')" "$(( $(c ld_l2hit) + $(c lcl_peer) ))"
      # perf prints LLC hit + local HITM as "Load LLC hit"
      eq "$sc: LLC" "$(stat "$out" 'Load LLC hit')" "$(( $(c ld_llchit) + $(c lcl_hitm) ))"
      # Intel's remote encodings set the remote bit with hops 0: perf counts
      # them as remote DRAM (and remote HIT for snoop-hit ones) as well.
      eq "$sc: remote HIT" "$(stat "$out" 'Load Remote HIT')" \
        "$(( $(c rmt_hit) + $(c rmt_peer) + $(c rmt_dram_shared) ))"
      eq "$sc: local DRAM" "$(stat "$out" 'Load Local DRAM')" "$(( $(c lcl_dram) + $(c lcl_dram_shared) ))"
      eq "$sc: remote DRAM" "$(stat "$out" 'Load Remote DRAM')" \
        "$(( $(c rmt_dram) + $(c rmt_dram_shared) + $(c rmt_hitm) + $(c rmt_hit) ))"
      eq "$sc: blocked by data" "$(stat "$out" 'Load access blocked by data')" "$(exp "$e" blk_data)"
      eq "$sc: blocked by address" "$(stat "$out" 'Load access blocked by address')" "$(exp "$e" blk_addr)"
      eq "$sc: uncacheable stores" "$(stat "$out" 'Store - uncacheable')" "$(c st_uncache)"
      eq "$sc: stores without address" "$(stat "$out" 'Store - no mapping')" "$(exp "$e" st_noadrs)"
      eq "$sc: store L1 hit" "$(stat "$out" 'Store L1D Hit')" "$(c st_l1hit)"
      eq "$sc: store L1 miss" "$(stat "$out" 'Store L1D Miss')" "$(c st_l1miss)"
      eq "$sc: store N/A" "$(stat "$out" 'Store No available memory level')" "$(c st_na)"
      eq "$sc: unparsable" "$(stat "$out" 'Unable to parse data source')" "$(c noparse)"
      if grep -q 'Load HIT Local Peer' "$out"; then
        eq "$sc: local peer" "$(stat "$out" 'Load HIT Local Peer')" "$(c lcl_peer)"
        eq "$sc: remote peer" "$(stat "$out" 'Load HIT Remote Peer')" "$(c rmt_peer)"
      fi ;;
    mixed|bench)
      perf report --stats -i "$f" >"$E2E_TMP/stats.txt" 2>/dev/null
      eq "$sc: total events" "$(awk '/TOTAL events:/ { print $3; exit }' "$E2E_TMP/stats.txt")" "$(exp "$e" records)"
      eq "$sc: LOST records" "$(awk '/ LOST events:/ { print $3; exit }' "$E2E_TMP/stats.txt")" "$(exp "$e" lost_records)"
      eq "$sc: lines hidden below 0.1% exist" \
        "$([ "$(stat "$out" 'Total Shared Cache Lines')" -gt 20 ] && echo yes)" yes ;;
  esac
done

# ---- format variants of false-sharing ------------------------------------
base=$E2E_TMP/false-sharing.exp
for v in "--compress" "--big-endian" "--big-endian --compress" "--attr-size 64" "--attr-size 112"; do
  f=$E2E_TMP/variant.data
  # shellcheck disable=SC2086
  if ! "$GEN" --scenario false-sharing -o "$f" $v 2>"$E2E_TMP/gen.err"; then
    nok "false-sharing $v: c2c-gen" "$(cat "$E2E_TMP/gen.err")"; continue; fi
  # The header is the same bytes in every variant but the big-endian one.
  case $v in --big-endian*) header_checks "false-sharing $v" "$f" "$base" ;; esac
  c2c_checks "false-sharing $v" "$f" "$base"
done

# Pipe format: perf reads it from stdin.
for v in "--pipe" "--pipe --compress"; do
  f=$E2E_TMP/pipe.data
  # shellcheck disable=SC2086
  if ! "$GEN" --scenario false-sharing -o - $v >"$f" 2>"$E2E_TMP/gen.err"; then
    nok "false-sharing $v: c2c-gen" "$(cat "$E2E_TMP/gen.err")"; continue; fi
  script_count "false-sharing $v" "$(exp "$base" samples)" -i - <"$f"
  perf script -i "$E2E_TMP/false-sharing.data" >"$E2E_TMP/file.txt" 2>/dev/null
  perf script -i - <"$f" >"$E2E_TMP/pipe.txt" 2>/dev/null
  check "false-sharing $v: same samples as the file format" cmp -s "$E2E_TMP/file.txt" "$E2E_TMP/pipe.txt"
  eq "false-sharing $v: hostname from HEADER_FEATURE" \
    "$(perf report --header-only -i - <"$f" 2>/dev/null | sed -n 's/^# hostname : //p')" "c2c-gen (generated)"
done

# 136-byte attrs (perf 6.3+): perf 6.1 must refuse them.
f=$E2E_TMP/a136.data
if "$GEN" --scenario false-sharing -o "$f" --attr-size 136 2>"$E2E_TMP/gen.err"; then
  if perf report --header-only -i "$f" >/dev/null 2>&1; then
    nok "attr-size 136: perf 6.1 refuses it" "perf accepted a 136-byte attr"
  else
    ok "attr-size 136: perf 6.1 refuses it"
  fi
  eq "attr-size 136: attr size in the header" "$(od -An -t u8 -j 16 -N 8 "$f" | tr -d ' ')" 152
else
  nok "attr-size 136: c2c-gen" "$(cat "$E2E_TMP/gen.err")"
fi

# ---- lock-tracepoints ------------------------------------------------------
f=$E2E_TMP/lock.data e=$E2E_TMP/lock.exp
if "$GEN" --scenario lock-tracepoints -o "$f" --expect >"$e" 2>"$E2E_TMP/gen.err"; then
  perf report --header-only -i "$f" >"$E2E_TMP/hdr.txt" 2>/dev/null
  eq "lock: hostname" "$(sed -n 's/^# hostname : //p' "$E2E_TMP/hdr.txt")" "c2c-gen (generated)"
  eq "lock: two tracepoint events" "$(grep -c '^# event : name = lock:contention_\(begin\|end\)' "$E2E_TMP/hdr.txt")" 2
  perf script -i "$f" >"$E2E_TMP/lock.txt" 2>"$E2E_TMP/script.err"
  eq "lock: begins decoded from the tracing data" "$(grep -c 'lock:contention_begin: 0xffff' "$E2E_TMP/lock.txt")" "$(exp "$e" lock_begins)"
  eq "lock: ends decoded" "$(grep -c 'lock:contention_end: 0xffff.* (ret=0)' "$E2E_TMP/lock.txt")" "$(exp "$e" lock_ends)"
  eq "lock: mutex flags printed" "$(grep -c '(flags=SPIN|MUTEX)' "$E2E_TMP/lock.txt")" "$(exp "$e" lock_nested)"
  # perf lock contention: per lock type, contended = begins that are not
  # nested (the pending one included), total wait = the paired waits.
  # perf lock contention prints its table on stderr.
  perf lock contention -i "$f" >"$E2E_TMP/lc.txt" 2>&1
  lc() { # TYPE FIELD(1 contended, 2 wait in ns)
    awk -v t="$1" -v f="$2" '
      function ns(v, u) { return u == "ns" ? v : u == "us" ? v * 1e3 : u == "ms" ? v * 1e6 : v * 1e9 }
      $0 ~ /^ *[0-9]+ / && $(NF-1) == t { c += $1; w += ns($2, $3) }
      END { if (f == 1) print c + 0; else printf "%.0f\n", w }' "$E2E_TMP/lc.txt"
  }
  near() { # NAME GOT WANT: within 0.1 us per row of rounding
    if [ -n "$2" ] && awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; exit !(d < 500 && d > -500) }'; then ok "$1"
    else nok "$1" "got '$2', want '$3'"; fi
  }
  read -r _ w_rw ns_rw < <(grep '^lock.0xffff888104a3c0a8 ' "$e")
  read -r _ w_mx ns_mx < <(grep '^lock.0xffff88810b2e1840 ' "$e")
  read -r _ w_sp ns_sp < <(grep '^lock.0xffff88813fc2d9c0 ' "$e")
  eq "lock: rwsem contended" "$(( $(lc rwsem:R 1) + $(lc rwsem:W 1) ))" "$w_rw"
  eq "lock: mutex contended (the pending begin counts)" "$(lc mutex 1)" "$(( w_mx + $(exp "$e" lock_pending) ))"
  eq "lock: spinlock contended" "$(lc spinlock 1)" "$w_sp"
  near "lock: rwsem total wait" "$(( $(lc rwsem:R 2) + $(lc rwsem:W 2) ))" "$ns_rw"
  near "lock: mutex total wait" "$(lc mutex 2)" "$ns_mx"
  near "lock: spinlock total wait" "$(lc spinlock 2)" "$ns_sp"
  for v in "--big-endian" "--compress"; do
    # shellcheck disable=SC2086
    "$GEN" --scenario lock-tracepoints -o "$E2E_TMP/lockv.data" $v 2>/dev/null
    perf script -i "$E2E_TMP/lockv.data" >"$E2E_TMP/lockv.txt" 2>/dev/null
    check "lock $v: same perf script output" cmp -s "$E2E_TMP/lock.txt" "$E2E_TMP/lockv.txt"
  done
  "$GEN" --scenario lock-tracepoints -o - --pipe >"$E2E_TMP/lockp.data" 2>/dev/null
  perf script -i - <"$E2E_TMP/lockp.data" >"$E2E_TMP/lockp.txt" 2>/dev/null
  eq "lock --pipe: tracing data record decodes begins" "$(grep -c 'lock:contention_begin: 0xffff' "$E2E_TMP/lockp.txt")" "$(exp "$e" lock_begins)"
else
  nok "lock-tracepoints: c2c-gen" "$(cat "$E2E_TMP/gen.err")"
fi

# Bad usage is refused with status 2.
"$GEN" --scenario nope -o "$E2E_TMP/x.data" 2>/dev/null; rc=$?
eq "unknown scenario fails" "$rc" 1
"$GEN" -o "$E2E_TMP/x.data" 2>/dev/null; rc=$?
eq "missing --scenario is a usage error" "$rc" 2
