/* `c2ctui layout TYPE [FILE]`'s printers: pahole's default text of a
 * struct or union (rows, XXX holes, cache line comments, statistics) and
 * the same view as JSON, from collector/layout/layout_pahole.h. */
#ifndef C2C_TUI_LAYOUT_PAHOLE_H
#define C2C_TUI_LAYOUT_PAHOLE_H

#include <stdio.h>

#include "collector/layout/layout_pahole.h"

void layout_pahole_text(const struct layout_pahole *p, FILE *out);
void layout_pahole_json(const struct layout_pahole *p, const char *source, FILE *out);

#endif /* C2C_TUI_LAYOUT_PAHOLE_H */
