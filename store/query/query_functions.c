/* Memory samples by function (store.h, store_query_functions): the Pareto
 * aggregate (one row per line, offset, ip, pid, tid) summed per site's
 * function. The before/after diff compares these: a rebuilt binary moves
 * every address, not the names. */
#include "store/query/query_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_query_functions(struct store *st, struct store_function_row **rows, size_t *n,
			  struct c2c_error *err)
{
	struct store_function_row *v = NULL;
	size_t cap = 0, k = 0;
	int64_t last_site = -1;
	sqlite3_stmt *s;
	char sql[4096];
	int r, rc;

	*rows = NULL;
	*n = 0;
	snprintf(sql, sizeof(sql), "SELECT COALESCE((SELECT function FROM main.sites WHERE id = p.site), ''),"
		 " p.site, %s, %s FROM main.agg_pareto p ORDER BY 1, 2", store_stats_cols(), store_lat_cols());
	if ((r = store_prepare(st, &s, sql, err)) < 0)
		return r;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		char fn[128];
		struct c2c_stats cs;
		struct store_lat lat;
		int64_t site = sqlite3_column_int64(s, 1);
		int i;

		store_col_text(s, 0, fn, sizeof(fn));
		memset(&cs, 0, sizeof(cs));
		memset(&lat, 0, sizeof(lat));
		i = store_read_stats(s, 2, &cs);
		store_read_lat(s, i, &lat);
		if (!k || strcmp(v[k - 1].function, fn)) {
			if (store_grow((void **)&v, &cap, k + 1, sizeof(*v)) < 0) {
				sqlite3_finalize(s);
				free(v);
				return c2c_error_set(err, -ENOMEM, "out of memory");
			}
			memset(&v[k], 0, sizeof(v[k]));
			store_copy(v[k].function, sizeof(v[k].function), fn);
			k++;
			last_site = -1;
		}
		if (site != last_site)
			v[k - 1].nr_sites++;
		last_site = site;
		c2c_stats_add(&v[k - 1].stats, &cs);
		store_lat_merge(&v[k - 1].lat, &lat);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(v);
		return store_sqlerr(st, err, "reading the samples by function");
	}
	*rows = v;
	*n = k;
	return 0;
}
