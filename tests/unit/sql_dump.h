/* Test helper: every row of a query on a session file as text, to
 * compare two files table by table. Header-only (each test is its own
 * program). */
#ifndef C2C_TESTS_SQL_DUMP_H
#define C2C_TESTS_SQL_DUMP_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

/* Every row of a table (or query), as text; blobs in hex. */
static inline char *dump_rows(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
		while (sqlite3_step(s) == SQLITE_ROW) {
			for (int c = 0; c < sqlite3_column_count(s); c++) {
				if (sqlite3_column_type(s, c) == SQLITE_BLOB) {
					const unsigned char *b = sqlite3_column_blob(s, c);
					for (int i = 0; i < sqlite3_column_bytes(s, c); i++)
						fprintf(f, "%02x", b[i]);
				} else if (sqlite3_column_type(s, c) == SQLITE_NULL) {
					fputs("NULL", f);
				} else {
					fputs((const char *)sqlite3_column_text(s, c), f);
				}
				fputc('|', f);
			}
			fputc('\n', f);
		}
		sqlite3_finalize(s);
	} else {
		fprintf(f, "cannot read: %s", sql);
	}
	sqlite3_close(db);
	fclose(f);
	return out;
}

#endif /* C2C_TESTS_SQL_DUMP_H */
