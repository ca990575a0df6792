#!/usr/bin/env bash
# The code site view's instructions: tests/types/conn.c built with -g and
# recorded by conn_perfdata (lib.sh conn_sessions), the site view's
# instruction rows (address, bytes, text) against `objdump -d` of the same
# binary; the sampled one marked at the site's address, the ones before it
# decoded from the function's start (a copy of the session whose site sits
# 4 bytes into conn_read_limit), and the members the site's samples were
# attributed to once the session has a type attribution (report --types).
source "$(dirname "$0")/lib.sh"
source "$C2C_TOP/tests/tui/harness.sh"

T=tui_site_insn
command -v tmux >/dev/null || { skip "$T" "tmux is not installed"; exit 0; }
command -v objdump >/dev/null || { skip "$T" "objdump is not installed"; exit 0; }
command -v sqlite3 >/dev/null || { skip "$T" "sqlite3 is not installed"; exit 0; }
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
GEN=$C2C_BUILD/tools/conn_perfdata
[ -x "$GEN" ] || { skip "$T" "no $GEN"; exit 0; }
cp "$C2CTUI" "$E2E_TMP/c2ctui" && C2CTUI=$E2E_TMP/c2ctui
W=$E2E_TMP/work
mkdir -p "$W" && cd "$W" || exit 1
conn_sessions "$GEN" || { nok "$T: setup" "cannot build, record and import conn.c"; exit 0; }
# the site of conn_read_limit moved onto its second instruction (ret)
cp before.db mod.db
sqlite3 mod.db "UPDATE sites SET offset = 4, rel_addr = rel_addr + 4 WHERE function = 'conn_read_limit'"
objdump -d --insn-width=16 conn_before >objdump.txt

# check_insns NAME SITE_FUNCTION: the instruction rows on the screen against
# objdump: every address is an instruction there with the same bytes, the
# mnemonic is objdump's (capstone adds AT&T size suffixes: movq for mov),
# the marked one is the site's address.
check_insns() {
  local name=$1 fn=$2 want
  want=$(sqlite3 mod.db "SELECT printf('%x', rel_addr) FROM sites WHERE function = '$fn'")
  tui_screen >screen.txt
  if python3 - screen.txt objdump.txt "$want" <<'PY'
import re, sys
screen, dump, want = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
od = {}
for l in dump.splitlines():
    m = re.match(r"\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t?(.*)$", l)
    if m:
        od[m.group(1)] = (m.group(2).split(), m.group(3).split())
rows = re.findall(r"^  ([> ]) +([0-9a-f]+):  (.{21})  (\S+) *(.*)$", screen, re.M)
def norm_cs(ops):
    ops = ops.replace(" ", "")
    ops = re.sub(r"\$(-?)(\d+)\b(?!x)", lambda m: "$%s0x%x" % (m.group(1), int(m.group(2))), ops)
    return re.sub(r"^0x([0-9a-f]+)$", r"\1", ops)          # branch targets
def norm_od(words):
    ops = " ".join(words)
    ops = re.sub(r"\s*#.*$", "", ops)
    ops = re.sub(r"\s*<[^>]*>", "", ops)
    ops = ops.replace(" ", "").replace("0x0(", "(").replace(",1)", ")")
    return ops
if len(rows) < 3:
    print("# only %d instruction rows" % len(rows)); sys.exit(1)
marked = [a for m, a, _, _, _ in rows if m == ">"]
if marked != [want]:
    print("# marked %s, the site is at %s" % (marked, want)); sys.exit(1)
prev = None
for m, addr, hexs, mn, ops in rows:
    if addr not in od:
        print("# %s is not an instruction in objdump" % addr); sys.exit(1)
    bytes_, words = od[addr]
    shown = hexs.replace("+", "").split()
    if shown != bytes_[:len(shown)] or (not hexs.strip().endswith("+") and len(shown) != len(bytes_)):
        print("# %s: bytes %s, objdump %s" % (addr, shown, bytes_)); sys.exit(1)
    # objdump's mnemonic after any prefixes (data16 cs nopw): the last word
    # that capstone's mnemonic starts with, or capstone's without a suffix
    ok = any(mn == w or (mn[:-1] == w and mn[-1] in "bwlq") for w in words[:3])
    if not ok:
        print("# %s: capstone %s, objdump %s" % (addr, mn, " ".join(words))); sys.exit(1)
    # the operands, once both spell numbers the same way
    i = next(k for k, w in enumerate(words) if mn == w or (mn[:-1] == w and mn[-1] in "bwlq"))
    got = norm_cs(ops)
    for seg in ("cs", "ds", "es", "fs", "gs", "ss"):   # objdump prints a segment override as a prefix
        if seg in words[:i]:
            got = got.replace("%" + seg + ":", "")
    if got != norm_od(words[i + 1:]):
        print("# %s: operands %s, objdump %s" % (addr, ops, " ".join(words[i + 1:]))); sys.exit(1)
    if prev and int(prev[0], 16) + len(od[prev[0]][0]) != int(addr, 16):
        print("# %s does not follow %s" % (addr, prev[0])); sys.exit(1)
    prev = (addr,)
PY
  then ok "$T: $name"; else nok "$T: $name" "instructions differ from objdump"; sed 's/^/#   /' screen.txt | sed -n '/Instructions/,/^#   $/p'; fi
}

step() { local n=$1; shift; "$@" || { nok "$T: $n" "harness step failed: $*"; tui_screen | sed 's/^/#   /'; tui_stop; return 1; }; }
if step start tui_start 100 40 -- "$C2CTUI" open mod.db; then
  # the members need a type attribution: L makes one (for this run), Esc back
  step layout tui_key Enter L && tui_wait_text "Layout of" && step back tui_key Escape
  step site tui_key Tab Enter && tui_wait_text "Instructions"
  tui_wait_text "conn_read_limit+0x4" && check_insns "conn_read_limit+0x4 equals objdump, decoded from the start" conn_read_limit
  if tui_screen | grep -q "^          1260:\|^ *[0-9a-f]*:  48 8b 47 10 .*movq   0x10(%rdi), %rax"; then
    ok "$T: the instruction before the sampled one (mov 0x10(%rdi),%rax) is listed"
  else nok "$T: the instruction before the sampled one (mov 0x10(%rdi),%rax) is listed"; fi
  if tui_screen | grep -q "struct conn.limit"; then ok "$T: the attributed member (struct conn.limit) is listed"
  else nok "$T: the attributed member (struct conn.limit) is listed"; tui_screen | sed 's/^/#   /'; fi
  step site2 tui_key Escape Down Enter && tui_wait_text "conn_bump+0x0" &&
    check_insns "conn_bump+0x0 equals objdump" conn_bump
  tui_quit
  tui_stop
fi

# The binary moved under a --symfs tree (perf's layout: DIR + the recorded
# path): without --symfs the pane says it cannot read it, with it the
# instructions are back.
mkdir -p "symfs$W" && mv conn_before "symfs$W/conn_before"
if step start2 tui_start 100 40 -- "$C2CTUI" open mod.db; then
  step site3 tui_key Enter Tab Enter && tui_wait_text "Instructions"
  if tui_screen | grep -A2 "Instructions" | grep -q "conn_before"; then
    ok "$T: without --symfs a moved binary is said to be missing"
  else nok "$T: without --symfs a moved binary is said to be missing"; tui_screen | sed 's/^/#   /'; fi
  tui_quit
  tui_stop
fi
if step start3 tui_start 100 40 -- "$C2CTUI" open --symfs "$W/symfs" mod.db; then
  step site4 tui_key Enter Tab Enter && tui_wait_text "Instructions"
  if tui_wait_text "movq   0x10(%rdi), %rax"; then ok "$T: --symfs finds the moved binary"
  else nok "$T: --symfs finds the moved binary"; tui_screen | sed 's/^/#   /'; fi
  tui_quit
  tui_stop
fi
mv "symfs$W/conn_before" conn_before
