/* The session's line identity numbering: which variant a sample's line
 * key gets (collector/c2c/c2c_lineid.h has perf's rule). The table lives in
 * the writer's handle, created at the first sample with the session's
 * line size, so the variants follow the recording order of the samples
 * the writer is given. A writer appending to an existing session starts a
 * fresh numbering (the table is not rebuilt from the samples). */
#include "store/agg/agg.h"

#include <errno.h>

int store_line_variant(struct store *st, uint64_t addr, const struct c2c_line_ident *id)
{
	if (!st->aggs->lineid && !(st->aggs->lineid = c2c_lineid_new(st->line_size)))
		return -ENOMEM;
	return c2c_lineid_variant(st->aggs->lineid, addr, id);
}
