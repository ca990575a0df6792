/* How struct c2c_stats and struct store_lat map to SQL columns: the column
 * lists (built once from collector/c2c/c2c.h's counter names, so a counter
 * added there becomes a column here), binding and reading them, and the
 * latency accumulators' update and merge rules. */
#include "store/base/base.h"

#include <stdio.h>
#include <string.h>

static const char *const lat_names[STORE_LAT__MAX] = {
	"rmt_hitm", "lcl_hitm", "rmt_peer", "lcl_peer", "load",
};

static char stats_cols[1024], stats_defs[2048], stats_sums[1536];
static char lat_cols[512], lat_defs[1024];

static void append(char *buf, size_t size, const char *fmt, const char *name, const char *suffix)
{
	size_t n = strlen(buf);
	snprintf(buf + n, size - n, fmt, n ? "," : "", name, suffix);
}

static void build_cols(void)
{
	if (stats_cols[0])
		return;
	for (int c = 0; c < C2C_COUNTER_MAX; c++) {
		const char *name = c2c_counter_name((enum c2c_counter)c);
		append(stats_cols, sizeof(stats_cols), "%s%s%s", name, "");
		append(stats_defs, sizeof(stats_defs), "%s%s%s", name, " INTEGER NOT NULL DEFAULT 0");
		append(stats_sums, sizeof(stats_sums), "%sSUM(%s)%s", name, "");
	}
	for (int k = 0; k < STORE_LAT__MAX; k++) {
		static const char *const parts[3] = { "_n", "_sum", "_mean" };
		static const char *const types[3] = { " INTEGER NOT NULL DEFAULT 0", " INTEGER NOT NULL DEFAULT 0",
						      " REAL NOT NULL DEFAULT 0" };
		for (int p = 0; p < 3; p++) {
			char name[64];
			snprintf(name, sizeof(name), "lat_%s%s", lat_names[k], parts[p]);
			append(lat_cols, sizeof(lat_cols), "%s%s%s", name, "");
			append(lat_defs, sizeof(lat_defs), "%s%s%s", name, types[p]);
		}
	}
}

const char *store_stats_cols(void) { build_cols(); return stats_cols; }
const char *store_stats_coldefs(void) { build_cols(); return stats_defs; }
const char *store_stats_sums(void) { build_cols(); return stats_sums; }
const char *store_lat_cols(void) { build_cols(); return lat_cols; }
const char *store_lat_coldefs(void) { build_cols(); return lat_defs; }

int store_bind_stats(sqlite3_stmt *s, int first, const struct c2c_stats *stats)
{
	for (int c = 0; c < C2C_COUNTER_MAX; c++)
		sqlite3_bind_int64(s, first++, (sqlite3_int64)c2c_stats_get(stats, (enum c2c_counter)c));
	return first;
}

int store_bind_lat(sqlite3_stmt *s, int first, const struct store_lat *lat)
{
	for (int k = 0; k < STORE_LAT__MAX; k++) {
		sqlite3_bind_int64(s, first++, (sqlite3_int64)lat->cnt[k]);
		sqlite3_bind_int64(s, first++, (sqlite3_int64)lat->sum[k]);
		sqlite3_bind_double(s, first++, lat->mean[k]);
	}
	return first;
}

int store_read_stats(sqlite3_stmt *s, int first, struct c2c_stats *stats)
{
	for (int c = 0; c < C2C_COUNTER_MAX; c++)
		*c2c_stats_ref(stats, (enum c2c_counter)c) = (uint64_t)sqlite3_column_int64(s, first++);
	return first;
}

int store_read_lat(sqlite3_stmt *s, int first, struct store_lat *lat)
{
	for (int k = 0; k < STORE_LAT__MAX; k++) {
		lat->cnt[k] = (uint64_t)sqlite3_column_int64(s, first++);
		lat->sum[k] = (uint64_t)sqlite3_column_int64(s, first++);
		lat->mean[k] = sqlite3_column_double(s, first++);
	}
	return first;
}

void store_lat_merge(struct store_lat *a, const struct store_lat *b)
{
	for (int k = 0; k < STORE_LAT__MAX; k++) {
		uint64_t n = a->cnt[k] + b->cnt[k];
		if (!n)
			continue;
		a->mean[k] = (a->mean[k] * (double)a->cnt[k] + b->mean[k] * (double)b->cnt[k]) / (double)n;
		a->cnt[k] = n;
		a->sum[k] += b->sum[k];
	}
}

void store_lat_add(struct store_lat *lat, uint64_t bits, uint64_t weight)
{
	enum c2c_cycles_kind k = c2c_cycles_kind_of(bits);
	struct c2c_mean m;

	if (k == C2C_CYCLES_NONE || (int)k >= STORE_LAT__MAX)
		return;
	m.n = lat->cnt[k];
	m.mean = lat->mean[k];
	c2c_mean_update(&m, weight);
	lat->cnt[k] = m.n;
	lat->mean[k] = m.mean;
	lat->sum[k] += weight;
}

double store_lat_avg(const struct store_lat *lat, enum store_lat_kind k)
{
	if ((int)k < 0 || k >= STORE_LAT__MAX || !lat->cnt[k])
		return 0;
	return lat->mean[k];
}
