#!/usr/bin/env bash
# Fuzzes c2ctui's readers of outside input for a short while each
# (tests/fuzz/run.sh: the perf.data reader, the tracepoint format /
# tracing-data parser, the session opener, the command-line option
# parsers; 15 s each by default,
# C2C_FUZZ_SECONDS to change) as part of `make test`. The fuzzers are their
# own clang ASan+UBSan builds, so they run once per suite: with the plain
# build directory, not again for build-asan.
#
# tests/fuzz/crashes holds inputs that once crashed a target, replayed as
# seeds: tracepoint-print-fmt-unknown-field.bin made libtraceevent
# dereference NULL (a print fmt naming a field the format lacks) until
# tp_decoder.c stopped handing it the print fmt;
# tracepoint-field-cut-at-bracket.bin (a field declaration ending the text
# at "[") did the same until tp_format_check.c checked a format's lines
# first; cli-report-time-huge.txt
# (report --time 599999999999999,3) and cli-record-duration-inf.txt
# (record -D inf) converted out-of-range doubles to integers until
# cmd_report.c and live_cli.c refused them.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
case "$C2C_BUILD" in
  *-asan|*-asan/)
    for t in fuzz_perfdata fuzz_tracepoint fuzz_session fuzz_cli; do
      skip $t "runs once per suite (with the plain build); the fuzzer is itself an ASan+UBSan build"
    done
    exit 0 ;;
esac
C2C_FUZZ_CORPUS="$E2E_TMP/corpus" FUZZ_SEEDS_ONLY="${C2C_FUZZ_SEEDS_ONLY-}" \
  "$C2C_TOP/tests/fuzz/run.sh" "${C2C_FUZZ_SECONDS:-15}"
