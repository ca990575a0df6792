/* What the other store/ sub-modules may use of store/query: the query
 * side's state of a handle (its caches) and the SQL functions the queries
 * need registered on a new connection. Internals are in query_priv.h. */
#ifndef C2C_STORE_QUERY_H
#define C2C_STORE_QUERY_H

#include "store/base/base.h"

/* NULL when out of memory (store/query/query_state.c). */
struct store_query_state *store_query_state_new(void);
void store_query_state_free(struct store_query_state *q);

/* Registers the SQL functions the queries use (c2c rules;
 * store/query/query_summary.c). */
int store_register_functions(struct store *st, struct c2c_error *err);

#endif /* C2C_STORE_QUERY_H */
