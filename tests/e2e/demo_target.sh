#!/usr/bin/env bash
# `make demo` builds only what the demo runs (c2ctui and the contention
# workload, no unit tests or tools) and writes its session under the build
# directory, never into the source tree.
source "$(dirname "$0")/lib.sh"
T=demo_target
command -v make >/dev/null || { skip "$T" "no make"; exit 0; }
b=$E2E_TMP/b
plan=$(cd "$C2C_TOP" && make -n demo BUILD="$b" 2>&1)
if ! grep -q -- "-o $b/c2ctui " <<<"$plan" || ! grep -q -- "-o $b/workloads/contention " <<<"$plan"; then
  nok "$T: builds c2ctui and the workload" "$(grep -- ' -o ' <<<"$plan" | tail -3)"
elif grep -qE -- "-o $b/(tests|tools)/" <<<"$plan"; then
  nok "$T: builds only what the demo needs" "$(grep -oE -- "-o $b/(tests|tools)/[^ ]*" <<<"$plan" | head -3 | tr '\n' ' ')"
else
  ok "$T: builds only c2ctui and the workload"
fi

# The script with stand-ins for the two programs: where does the session go?
mkdir -p "$b/workloads"
printf '#!/bin/sh\necho "$*" >>"%s/calls"\n' "$b" >"$b/c2ctui"
printf '#!/bin/sh\nexit 0\n' >"$b/workloads/contention"
chmod +x "$b/c2ctui" "$b/workloads/contention"
BUILD=$b bash "$C2C_TOP/scripts/demo.sh" </dev/null >"$E2E_TMP/demo.out" 2>&1
if grep -q -- "^record -f -o $b/demo.db -- $b/workloads/contention " "$b/calls" &&
   grep -q -- "^report $b/demo.db$" "$b/calls"; then
  ok "$T: session under the build directory"
else
  nok "$T: session under the build directory" "calls: $(tr '\n' ';' <"$b/calls")"
fi
