#!/usr/bin/env bash
# A full disk during `record` and `import` (a 2 MiB tmpfs): one line on stderr
# naming the session and saying the disk is full, a non-zero exit, and no
# broken file left: record's session passes integrity_check (holding what was
# committed), import removes the session it could not finish.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

gen=$C2C_BUILD/tools/c2c-gen
work=$C2C_BUILD/workloads/contention
if [ "$(id -u)" != 0 ]; then skip full_disk "needs root to mount a small tmpfs"; exit 0; fi
if ! command -v sqlite3 >/dev/null; then skip full_disk "sqlite3 is not installed"; exit 0; fi
mnt=$E2E_TMP/small
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=2M tmpfs "$mnt" 2>/dev/null; then skip full_disk "cannot mount a tmpfs here"; exit 0; fi
trap 'umount "$mnt" 2>/dev/null; rm -rf "$E2E_TMP"' EXIT

# import: a recording far bigger than the file system
"$gen" --scenario mixed --samples 200000 -o "$E2E_TMP/big.data" >/dev/null 2>&1
"$C2CTUI" import "$E2E_TMP/big.data" -o "$mnt/i.db" >/dev/null 2>"$E2E_TMP/imp.err"; rc=$?
lines=$(wc -l <"$E2E_TMP/imp.err")
if [ $rc -ne 0 ] && [ "$lines" -eq 1 ] && grep -q "$mnt/i.db.*full" "$E2E_TMP/imp.err" && [ ! -e "$mnt/i.db" ]; then
	ok full_disk_import
else
	nok full_disk_import "rc=$rc, $lines stderr lines: $(head -2 "$E2E_TMP/imp.err" | tr '\n' '|'), file left: $(ls "$mnt")"
fi
rm -f "$mnt"/*

# record: lock tracepoints until the disk fills
if [ -d /sys/kernel/tracing/events/lock/contention_begin ] && [ -x "$work" ]; then
	"$C2CTUI" record -q -o "$mnt/r.db" -- "$work" -m pipe -t 4 -d 6 -q >/dev/null 2>"$E2E_TMP/rec.err"; rc=$?
	if [ $rc -ne 0 ] && grep -q "$mnt/r.db.*full" "$E2E_TMP/rec.err" &&
	   [ "$(sqlite3 "$mnt/r.db" 'PRAGMA integrity_check' 2>&1)" = ok ]; then
		ok full_disk_record
	else
		nok full_disk_record "rc=$rc: $(tr '\n' '|' <"$E2E_TMP/rec.err")"
	fi
else
	skip full_disk_record "no lock:contention_begin tracepoint here"
fi
