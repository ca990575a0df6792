/* The session aggregates' part of a handle (struct store_aggs): the
 * aggregator the writer feeds, its bulk-load thread and the line identity
 * numbering, owned together and freed together. */
#include "store/agg/agg.h"

#include <stdlib.h>

struct store_aggs *store_aggs_new(void)
{
	return calloc(1, sizeof(struct store_aggs));
}

void store_aggs_free(struct store_aggs *a)
{
	if (!a)
		return;
	agg_worker_stop(a->worker);
	agg_fini(&a->agg);
	c2c_lineid_free(a->lineid);
	free(a);
}
