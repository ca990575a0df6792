#!/usr/bin/env bash
# Fuzzes the perf.data reader for a short while (tests/fuzz/run.sh, default
# 15 s, C2C_FUZZ_SECONDS to change) as part of `make test`. The fuzzer is
# its own clang ASan+UBSan build, so it runs once per suite: with the plain
# build directory, not again for build-asan.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
case "$C2C_BUILD" in
  *-asan|*-asan/)
    skip fuzz_perfdata "runs once per suite (with the plain build); the fuzzer is itself an ASan+UBSan build"
    exit 0 ;;
esac
C2C_FUZZ_CORPUS="$E2E_TMP/corpus" "$C2C_TOP/tests/fuzz/run.sh" "${C2C_FUZZ_SECONDS:-15}"
