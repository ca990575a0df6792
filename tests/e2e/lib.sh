# Helpers for end-to-end scripts (source it). Same result-line protocol as the
# unit tests: ok / not ok / skip, one line per check.
: "${C2C_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${C2C_BUILD:=$C2C_TOP/build}"
: "${C2CTUI:=$C2C_BUILD/c2ctui}"
: "${C2C_FIXTURES:=$C2C_TOP/../shared/fixtures}"
E2E_TMP=$(mktemp -d /tmp/c2ce2e.XXXXXX)
trap 'rm -rf "$E2E_TMP"' EXIT

ok()   { echo "ok - $1"; }
nok()  { echo "not ok - $1${2:+: $2}"; }
skip() { echo "skip - $1: $2"; }
# check NAME CMD...: ok when CMD exits 0
check() { local n=$1; shift; if "$@"; then ok "$n"; else nok "$n" "command failed: $*"; fi; }
