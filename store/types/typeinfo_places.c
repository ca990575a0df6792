/* Where the accesses landed, member by member (store/types/typeinfo.h,
 * typeinfo_query_places): the attributed samples grouped by type, object
 * (a global's or a stack variable's name, else ""), member path and cache
 * line. The diff
 * (store/diff/diff.c) matches lines by these members and reads each
 * member's latency and line from here. Counts follow typeinfo_layout's
 * rule (loads and stores perf classifies), so a member's numbers here add
 * up to what `report --layout` shows for it. */
#include "store/types/typeinfo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/c2c/c2c.h"
#include "collector/types/types.h"
#include "store/base/base.h"

static bool same(const struct typeinfo_place_row *r, const char *type, const char *obj,
		 const char *member, uint64_t line)
{
	return r->line_addr == line && !strcmp(r->member, member) && !strcmp(r->object, obj) &&
	       !strcmp(r->type, type);
}

int typeinfo_query_places(struct store *st, struct typeinfo_place_row **rows, size_t *n,
			  struct c2c_error *err)
{
	uint64_t mask = ~(uint64_t)((st->line_size ? st->line_size : 64) - 1);
	struct typeinfo_place_row *v = NULL;
	size_t cap = 0, k = 0;
	sqlite3_stmt *s;
	int rc = 0, step;

	*rows = NULL;
	*n = 0;
	if (!typeinfo_present(st))
		return 0;
	/* ordered so that one group's samples come together */
	if (sqlite3_prepare_v2(st->db, "SELECT a.type_name, CASE WHEN a.how IN (?1, ?2) THEN COALESCE(a.var, '')"
			       " ELSE '' END AS obj, COALESCE(a.member, ''), s.addr, s.class_bits, s.weight"
			       " FROM type_attr a CROSS JOIN main.samples s ON s.id = a.sample_id"
			       " WHERE a.how > 0 AND a.type_name IS NOT NULL ORDER BY 1, 2, 3, s.addr",
			       -1, &s, NULL) != SQLITE_OK)
		return store_sqlerr(st, err, "preparing the members' places query");
	sqlite3_bind_int(s, 1, TYPES_HOW_GLOBAL);
	sqlite3_bind_int(s, 2, TYPES_HOW_STACK);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(s, 0);
		const char *obj = (const char *)sqlite3_column_text(s, 1);
		const char *member = (const char *)sqlite3_column_text(s, 2);
		uint64_t line = (uint64_t)sqlite3_column_int64(s, 3) & mask;
		uint64_t bits = (uint64_t)sqlite3_column_int64(s, 4);
		bool store = c2c_bits_count(bits, C2C_STORE) > 0;
		bool load = c2c_bits_count(bits, C2C_LOAD) > 0;
		struct typeinfo_place_row *r;

		if (!store && !load)
			continue;
		if (!k || !same(&v[k - 1], type, obj ? obj : "", member ? member : "", line)) {
			if (store_grow((void **)&v, &cap, k + 1, sizeof(*v)) < 0) {
				rc = c2c_error_set(err, -ENOMEM, "out of memory");
				break;
			}
			r = &v[k++];
			memset(r, 0, sizeof(*r));
			store_copy(r->type, sizeof(r->type), type);
			store_copy(r->object, sizeof(r->object), obj ? obj : "");
			store_copy(r->member, sizeof(r->member), member ? member : "");
			r->line_addr = line;
		}
		r = &v[k - 1];
		r->samples++;
		if (store)
			r->stores++;
		else
			r->loads++;
		r->lcl_hitm += c2c_bits_count(bits, C2C_LCL_HITM);
		r->rmt_hitm += c2c_bits_count(bits, C2C_RMT_HITM);
		store_lat_add(&r->lat, bits, (uint64_t)sqlite3_column_int64(s, 5));
	}
	if (rc == 0 && step != SQLITE_DONE)
		rc = store_sqlerr(st, err, "reading the members' places");
	sqlite3_finalize(s);
	if (rc < 0) {
		free(v);
		return rc;
	}
	*rows = v;
	*n = k;
	return 0;
}
