/* Printers of a diff result (store/diff/diff.h) for `c2ctui diff` and
 * `report --diff`: the text tables, CSV (one row per line or member) and
 * JSON. */
#ifndef C2C_TUI_REPORT_DIFF_H
#define C2C_TUI_REPORT_DIFF_H

#include <stdio.h>

#include "store/diff/diff.h"

void report_diff_text(const struct diff_result *r, FILE *out);
void report_diff_csv(const struct diff_result *r, FILE *out);
void report_diff_json(const struct diff_result *r, FILE *out);

#endif /* C2C_TUI_REPORT_DIFF_H */
