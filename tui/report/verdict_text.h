/* A line's verdict and its evidence in words, one set of functions for
 * `report --verdicts` (text and JSON) and the explorer's line view. */
#ifndef C2C_TUI_VERDICT_TEXT_H
#define C2C_TUI_VERDICT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "store/types/typeinfo.h"
#include "tui/report/layout_text.h"

/* "false", "true", "mixed", "potential (9 samples)", "no contention". */
void verdict_label(const struct typeinfo_verdict_row *r, char *buf, size_t len);
/* The evidence of a contended line (false/true/mixed), a few lines: HITM
 * and peer counts, loads/stores, writers and readers, the members truly
 * shared and the victims, the top code sites. Nothing for other lines. */
void verdict_evidence_text(const struct typeinfo_verdict_row *r, line_fn fn, void *ctx);
/* "the minimum evidence" note that goes with every verdict listing. */
void verdict_rule_text(unsigned min_evidence, char *buf, size_t len);
/* One JSON object for the line (keys in docs/types.md). */
void verdict_json(FILE *out, const struct typeinfo_verdict_row *r);
/* CSV: the header, then one row per line (the JSON's fields, lists space
 * separated, sites as "site:evidence:samples"). */
void verdict_csv_header(FILE *out);
void verdict_csv(FILE *out, const struct typeinfo_verdict_row *r);

#endif /* C2C_TUI_VERDICT_TEXT_H */
