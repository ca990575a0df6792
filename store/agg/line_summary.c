/* The lines table's summary, kept in agg_session beside the table: how
 * many lines have samples, and the count and summed counters of the
 * shared lines (perf's "Shared Data Cache Line Table" totals, against
 * which the line filter compares). Every report and every line list needs
 * them; summing them from a 100,000-row agg_line costs tens of
 * milliseconds a query, from the writer's entries well under one a commit.
 *
 * The rows say for how many samples they were computed ("lines:samples"),
 * so a reader that finds them out of step with nr_samples (the session was
 * appended by a writer that did not keep them) sums the table instead. */
#include "store/agg/agg_priv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int agg_line_summary_write(const struct agg *a, struct store *st, sqlite3_stmt *upsert, struct c2c_error *err)
{
	const struct agg_table *t = &a->t[AGG_LINE];
	struct c2c_stats shared;
	uint64_t lines = 0, shared_lines = 0;
	char name[48];

	memset(&shared, 0, sizeof(shared));
	for (size_t i = 0; i < t->cap; i++) {
		const struct agg_ent *e = t->slots[i].e;

		if (!e)
			continue;
		lines += e->stats.nr_entries > 0;
		if (c2c_line_is_shared(&e->stats)) {
			shared_lines++;
			c2c_stats_add(&shared, &e->stats);
		}
	}
	struct { const char *name; uint64_t value; } rows[] = {
		{ "lines", lines }, { "shared_lines", shared_lines }, { "lines:samples", a->nr_samples },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) + C2C_COUNTER_MAX; i++) {
		uint64_t v;

		if (i < sizeof(rows) / sizeof(rows[0])) {
			snprintf(name, sizeof(name), "%s", rows[i].name);
			v = rows[i].value;
		} else {
			enum c2c_counter c = (enum c2c_counter)(i - sizeof(rows) / sizeof(rows[0]));
			snprintf(name, sizeof(name), "shared:%s", c2c_counter_name(c));
			v = *c2c_stats_ref(&shared, c);
		}
		sqlite3_bind_text(upsert, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(upsert, 2, (sqlite3_int64)v);
		if (sqlite3_step(upsert) != SQLITE_DONE) {
			sqlite3_reset(upsert);
			return store_sqlerr(st, err, "writing the lines summary");
		}
		sqlite3_reset(upsert);
	}
	return 0;
}

int store_line_summary_read(struct store *st, const char *schema, struct store_line_summary *out)
{
	char sql[256];
	sqlite3_stmt *s;
	uint64_t at = UINT64_MAX, samples = UINT64_MAX;
	unsigned seen = 0;

	memset(out, 0, sizeof(*out));
	snprintf(sql, sizeof(sql), "SELECT name, value FROM %s.agg_session WHERE name IN"
		 " ('lines', 'shared_lines', 'lines:samples', 'nr_samples') OR name GLOB 'shared:*'", schema);
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		uint64_t v = (uint64_t)sqlite3_column_int64(s, 1);

		if (!name)
			continue;
		if (!strcmp(name, "lines")) {
			out->nr_lines = v;
			seen |= 1;
		} else if (!strcmp(name, "shared_lines")) {
			out->nr_shared_lines = v;
			seen |= 2;
		} else if (!strcmp(name, "lines:samples")) {
			at = v;
		} else if (!strcmp(name, "nr_samples")) {
			samples = v;
		} else {
			for (int c = 0; c < C2C_COUNTER_MAX; c++)
				if (!strcmp(name + 7, c2c_counter_name((enum c2c_counter)c)))
					*c2c_stats_ref(&out->shared, (enum c2c_counter)c) = v;
		}
	}
	sqlite3_finalize(s);
	/* a session without samples has no nr_samples row yet */
	if (samples == UINT64_MAX)
		samples = 0;
	if (seen != 3 || at != samples) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	return 1;
}
