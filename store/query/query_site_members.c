/* The members a code site's samples were attributed to (the site view):
 * type_attr (store/types, docs/types.md) joined with the site's samples,
 * most samples first. A session without a type attribution (in the file
 * or this handle) has none.
 * samples has no index on site: the scan goes over type_attr (only the
 * attributed samples, CROSS JOIN fixes that order) with rowid lookups. */
#include "store/query/query_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int store_query_site_members(struct store *st, int64_t site_id, struct store_site_member_row **rows, size_t *n,
			     struct c2c_error *err)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int r, rc;

	*rows = NULL;
	*n = 0;
	/* In the file (an older c2ctui saved it) or in this handle's TEMP
	 * schema (attributed while reading: store/types/typeinfo.c). */
	if ((r = store_prepare(st, &s, "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'type_attr'"
			       " UNION ALL SELECT 1 FROM temp.sqlite_master WHERE type = 'table' AND name = 'type_attr'",
			       err)) < 0)
		return r;
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return 0;
	if ((r = store_prepare(st, &s, "SELECT a.type_name, COALESCE(a.member, ''), COUNT(*) FROM type_attr a"
			       " CROSS JOIN main.samples s ON s.id = a.sample_id WHERE s.site = ?1 AND a.type_name IS NOT NULL"
			       " GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2", err)) < 0)
		return r;
	sqlite3_bind_int64(s, 1, site_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (store_grow((void **)rows, &cap, *n + 1, sizeof(**rows)) < 0) {
			sqlite3_finalize(s);
			free(*rows);
			*rows = NULL;
			*n = 0;
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		struct store_site_member_row *m = &(*rows)[(*n)++];
		memset(m, 0, sizeof(*m));
		store_col_text(s, 0, m->type, sizeof(m->type));
		store_col_text(s, 1, m->member, sizeof(m->member));
		m->samples = (uint64_t)sqlite3_column_int64(s, 2);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return store_sqlerr(st, err, "reading the site's attributed members");
	}
	return 0;
}
