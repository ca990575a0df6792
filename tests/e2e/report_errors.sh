#!/usr/bin/env bash
# c2ctui report refuses what it cannot read with one line naming the file and
# a non-zero exit: a file that is neither a session nor a perf.data, a foreign
# SQLite file, a session of a newer schema version, a missing file, bad options.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ ! -x "$C2CTUI" ]; then
	skip report_errors "$C2CTUI is not built"
	exit 0
fi

# expect_fail NAME FILE ARGS...: exit 1 or 2, exactly one stderr line naming FILE
expect_fail() {
	local name=$1 file=$2; shift 2
	local rc=0
	"$C2CTUI" report "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" || rc=$?
	if [ "$rc" -eq 0 ]; then
		nok "$name" "exit status 0"
	elif [ "$rc" -gt 2 ]; then
		nok "$name" "exit status $rc (crash?): $(head -3 "$E2E_TMP/err")"
	elif [ "$(wc -l <"$E2E_TMP/err")" -ne 1 ]; then
		nok "$name" "wanted one stderr line, got: $(head -3 "$E2E_TMP/err" | tr '\n' '|')"
	elif [ -n "$file" ] && ! grep -qF "$file" "$E2E_TMP/err"; then
		nok "$name" "message does not name $file: $(cat "$E2E_TMP/err")"
	elif [ -s "$E2E_TMP/out" ]; then
		nok "$name" "printed a report anyway"
	else
		ok "$name"
	fi
}

printf 'this is not a session\n' >"$E2E_TMP/text.db"
expect_fail report_rejects_text_file "$E2E_TMP/text.db" "$E2E_TMP/text.db"

head -c 100 /dev/urandom >"$E2E_TMP/random.bin"
expect_fail report_rejects_random_bytes "$E2E_TMP/random.bin" "$E2E_TMP/random.bin"

expect_fail report_rejects_missing_file "$E2E_TMP/nope.db" "$E2E_TMP/nope.db"

if command -v sqlite3 >/dev/null 2>&1; then
	sqlite3 "$E2E_TMP/foreign.db" 'CREATE TABLE t(x); INSERT INTO t VALUES (1);'
	expect_fail report_rejects_foreign_sqlite "$E2E_TMP/foreign.db" "$E2E_TMP/foreign.db"
else
	skip report_rejects_foreign_sqlite "sqlite3 CLI not installed"
fi

# A real session, then the same with a newer schema version.
gen=$C2C_BUILD/tools/c2c-gen
session=
if [ -x "$gen" ] && "$gen" --scenario false-sharing -o "$E2E_TMP/fs.data" >/dev/null 2>&1 &&
	"$C2CTUI" import "$E2E_TMP/fs.data" -o "$E2E_TMP/fs.db" >/dev/null 2>&1; then
	session=$E2E_TMP/fs.db
fi
if [ -n "$session" ] && command -v sqlite3 >/dev/null 2>&1; then
	cp "$session" "$E2E_TMP/newer.db"
	sqlite3 "$E2E_TMP/newer.db" 'PRAGMA user_version = 999;'
	expect_fail report_rejects_newer_schema "$E2E_TMP/newer.db" "$E2E_TMP/newer.db"
else
	skip report_rejects_newer_schema "no session (c2c-gen or import unavailable) or no sqlite3 CLI"
fi

# Truncated perf.data: the import inside report fails with the file named.
if [ -n "$session" ]; then
	head -c 300 "$E2E_TMP/fs.data" >"$E2E_TMP/trunc.data"
	expect_fail report_rejects_truncated_perf_data "$E2E_TMP/trunc.data" "$E2E_TMP/trunc.data"
	expect_fail report_bad_display "" "$session" -d nope
	expect_fail report_bad_format "" "$session" --format xml
	expect_fail report_bad_coalesce "" "$session" -c pid,bogus
	expect_fail report_bad_time "" "$session" --time 5,1
	# beyond 2^64 ns, or not a number: refused, not converted (fuzz_cli found
	# the undefined conversion; the ASan+UBSan run would stop on it)
	expect_fail report_time_too_far "" "$session" --time 6e23,
	expect_fail report_time_nan "" "$session" --time 1,nan
	expect_fail report_bad_lines "" "$session" --lines x
else
	skip report_rejects_truncated_perf_data "no generated session"
fi
