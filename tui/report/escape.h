/* The one string escaping of the CSV and JSON outputs (report, diff). */
#ifndef C2C_TUI_REPORT_ESCAPE_H
#define C2C_TUI_REPORT_ESCAPE_H

#include <stdio.h>

/* A CSV field: quoted, quotes doubled. */
void report_csv_str(FILE *out, const char *s);
/* A JSON string. Names from recordings (comm, paths) may hold any bytes:
 * bytes that are not UTF-8 are written as the Latin-1 code point, so the
 * output always parses. */
void report_json_str(FILE *out, const char *s);

#endif /* C2C_TUI_REPORT_ESCAPE_H */
