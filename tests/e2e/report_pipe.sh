#!/usr/bin/env bash
# `c2ctui report X.data | head -1`: the reader closes the pipe long before
# the report ends. The temporary session the perf.data was imported into
# must still be removed, and the exit is perf's quiet 141 (SIGPIPE), with
# no message.
. "$(dirname "$0")/lib.sh"
cd "$E2E_TMP" || exit 1
"$C2C_BUILD/tools/c2c-gen" --scenario mixed --samples 200000 -o big.data >/dev/null 2>&1 ||
  { nok report_pipe "c2c-gen failed"; exit 0; }
before=$(ls -d /tmp/c2ctui-report.* 2>/dev/null | sort)
"$C2CTUI" report big.data --show-all -c pid,tid,iaddr 2>err.txt | head -1 >/dev/null
rc=${PIPESTATUS[0]}
after=$(ls -d /tmp/c2ctui-report.* 2>/dev/null | sort)
new=$(comm -13 <(echo "$before") <(echo "$after") | grep -c . || true)
if [ "$new" = 0 ]; then ok "report_pipe: no temporary session left"; else nok report_pipe "left $new temporary session(s) in /tmp"; fi
# perf's warnings about the recording (lost chunks) may come first; nothing else
if [ "$rc" = 141 ] && ! grep -qv '^Warning: ' err.txt; then ok "report_pipe: exit 141, no message"
else nok report_pipe "exit $rc, stderr: $(head -1 err.txt)"; fi
