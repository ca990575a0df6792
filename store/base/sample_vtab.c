/* The samples table of a block session: an eponymous virtual table over
 * sample_blocks (store/base/sample_codec.c's column blocks), so every
 * query, `c2ctui sql` and a user's SQL read `samples` with its columns
 * and ids as before. A session that has a real samples table (made before
 * the blocks) shadows it: SQLite finds real tables first.
 *
 * Constraints on id (= rowid: =, <, <=, >, >=) pick the blocks read; an
 * ORDER BY id is free (blocks are read in id order). In a schema-3
 * session, where each CPU has its own blocks and ids follow time only
 * within a block, an ORDER BY time (, id) is free too: the blocks are
 * merged by time (store/base/sample_merge.c). Only the columns a
 * statement uses are decoded. The cursor keeps its last block, so a join
 * that looks samples up by id in order decodes each block once. */
#include "store/base/sample_vtab.h"
#include "store/base/sample_codec.h"
#include "store/base/sample_merge.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VCOLS (1 + STORE_SAMPLE_COLS) /* id, then the sample columns */

/* idxNum: which id bounds argv holds, then the decoded columns' mask */
#define IDX_EQ 1u
#define IDX_LO 2u                     /* id >= argv (a > is turned into >= + 1) */
#define IDX_HI 4u                     /* id <= argv */
#define IDX_TIME 8u                   /* blocks merged, in ORDER BY time, id */
#define IDX_CPUS 16u                  /* block_cpus = argv */
#define IDX_NODES 32u                 /* block_nodes = argv */
#define IDX_T0 64u                    /* time >= argv */
#define IDX_T0X 128u                  /* time > argv */
#define IDX_T1 256u                   /* time < argv */
#define IDX_T1E 512u                  /* time <= argv */
#define IDX_COLS_SHIFT 10             /* 21 column bits: idxNum stays positive */
#define COL_BLOCK_CPUS (VCOLS)        /* hidden hint columns after the sample columns */
#define COL_BLOCK_NODES (VCOLS + 1)

struct svtab {
	sqlite3_vtab base;
	sqlite3 *db;
	int parts;                   /* -1 not yet known; 1: sample_block_index exists (schema 3) */
};

struct scursor {
	sqlite3_vtab_cursor base;
	sqlite3_stmt *blocks;        /* the blocks overlapping [lo, hi], in id order */
	struct sample_block blk;     /* the current block, decoded */
	int64_t blk_first;           /* its first id; blk.n rows */
	uint32_t blk_cols;           /* the columns decoded in it */
	bool blk_valid;
	size_t row;                  /* in blk */
	int64_t lo, hi;
	uint32_t cols;
	bool eof;
	struct sample_merge *merge;  /* IDX_TIME: the rows in time order */
	const struct store_sample_rec *mrow;
	const unsigned char *mraw;
	int64_t mid;
};

static int sv_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **errmsg)
{
	struct svtab *t;
	int rc;

	(void)aux;
	(void)argc;
	(void)argv;
	(void)errmsg;
	rc = sqlite3_declare_vtab(db, "CREATE TABLE x (id INTEGER, time INTEGER, event INTEGER, cpu INTEGER,"
				  " node INTEGER, pid INTEGER, tid INTEGER, cpumode INTEGER, ip INTEGER, site INTEGER,"
				  " addr INTEGER, phys_addr INTEGER, class_bits INTEGER, weight INTEGER, ins_lat INTEGER,"
				  " data_src INTEGER, period INTEGER, dsym INTEGER, dsym_offset INTEGER,"
				  " callchain INTEGER, raw BLOB, line_var INTEGER,"
				  " block_cpus INTEGER HIDDEN, block_nodes INTEGER HIDDEN)");
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	t = sqlite3_malloc(sizeof(*t));
	if (!t)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->db = db;
	t->parts = -1;
	*out = &t->base;
	return SQLITE_OK;
}

static int sv_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* Whether the session's blocks are per CPU (asked once: the schema of an
 * open session does not change under it). */
static bool has_parts(struct svtab *t)
{
	sqlite3_stmt *s;

	if (t->parts < 0 && sqlite3_prepare_v2(t->db, "SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND"
					       " name = 'sample_block_index'", -1, &s, NULL) == SQLITE_OK) {
		t->parts = sqlite3_step(s) == SQLITE_ROW;
		sqlite3_finalize(s);
	}
	return t->parts == 1;
}

/* ORDER BY time or time, id, ascending */
static bool time_order(const sqlite3_index_info *info)
{
	if (info->nOrderBy < 1 || info->nOrderBy > 2 || info->aOrderBy[0].iColumn != 1 || info->aOrderBy[0].desc)
		return false;
	return info->nOrderBy == 1 ||
	       ((info->aOrderBy[1].iColumn == 0 || info->aOrderBy[1].iColumn == -1) && !info->aOrderBy[1].desc);
}

/* Whether argument v is an integer (a bound that only narrows the blocks). */
static bool int_arg(sqlite3_value *v, int64_t *out)
{
	if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER)
		return false;
	*out = sqlite3_value_int64(v);
	return true;
}

static int sv_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	int eq = -1, lo = -1, hi = -1, cpus = -1, nodes = -1, t0 = -1, t1 = -1;
	unsigned idx = 0;
	double cost = 4e6;

	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		if (!c->usable)
			continue;
		if ((c->iColumn == COL_BLOCK_CPUS || c->iColumn == COL_BLOCK_NODES) && c->op == SQLITE_INDEX_CONSTRAINT_EQ)
			*(c->iColumn == COL_BLOCK_CPUS ? &cpus : &nodes) = i;
		if (c->iColumn == 1 && (c->op == SQLITE_INDEX_CONSTRAINT_GT || c->op == SQLITE_INDEX_CONSTRAINT_GE))
			t0 = i;
		if (c->iColumn == 1 && (c->op == SQLITE_INDEX_CONSTRAINT_LT || c->op == SQLITE_INDEX_CONSTRAINT_LE))
			t1 = i;
		if (c->iColumn != 0 && c->iColumn != -1)
			continue;
		switch (c->op) {
		case SQLITE_INDEX_CONSTRAINT_EQ:
			eq = i;
			break;
		case SQLITE_INDEX_CONSTRAINT_GT:
		case SQLITE_INDEX_CONSTRAINT_GE:
			lo = i;
			break;
		case SQLITE_INDEX_CONSTRAINT_LT:
		case SQLITE_INDEX_CONSTRAINT_LE:
			hi = i;
			break;
		default:
			break;
		}
	}
	int arg = 1;
	bool hints = cpus >= 0 || nodes >= 0 || t0 >= 0 || t1 >= 0;
	if (eq < 0 && has_parts((struct svtab *)vt) && (time_order(info) || (lo < 0 && hi < 0 && hints))) {
		/* merged blocks: id bounds, if any, are left to SQLite, and
		 * an order other than time's is SQLite's to sort */
		idx |= IDX_TIME;
	} else if (eq >= 0) {
		idx |= IDX_EQ;
		info->aConstraintUsage[eq].argvIndex = arg++;
		info->aConstraintUsage[eq].omit = 1;
		cost = 10;
		info->estimatedRows = 1;
		info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
	} else {
		/* the bounds are checked again by SQLite (omit = 0): a > or <
		 * on a non-integer value then stays exact */
		if (lo >= 0) {
			idx |= IDX_LO;
			info->aConstraintUsage[lo].argvIndex = arg++;
			cost /= 4;
		}
		if (hi >= 0) {
			idx |= IDX_HI;
			info->aConstraintUsage[hi].argvIndex = arg++;
			cost /= 4;
		}
	}
	/* The block hints are always taken (nothing else can test them);
	 * only a merged scan uses them, and its time bounds, to skip blocks.
	 * SQLite still checks the time bounds on each row. */
	if (cpus >= 0) {
		idx |= IDX_CPUS;
		info->aConstraintUsage[cpus].argvIndex = arg++;
		info->aConstraintUsage[cpus].omit = 1;
		cost /= (idx & IDX_TIME) ? 8 : 1;
	}
	if (nodes >= 0) {
		idx |= IDX_NODES;
		info->aConstraintUsage[nodes].argvIndex = arg++;
		info->aConstraintUsage[nodes].omit = 1;
		cost /= (idx & IDX_TIME) ? 2 : 1;
	}
	if ((idx & IDX_TIME) && t0 >= 0) {
		idx |= info->aConstraint[t0].op == SQLITE_INDEX_CONSTRAINT_GT ? IDX_T0X : IDX_T0;
		info->aConstraintUsage[t0].argvIndex = arg++;
		cost /= 2;
	}
	if ((idx & IDX_TIME) && t1 >= 0) {
		idx |= info->aConstraint[t1].op == SQLITE_INDEX_CONSTRAINT_LE ? IDX_T1E : IDX_T1;
		info->aConstraintUsage[t1].argvIndex = arg++;
		cost /= 2;
	}
	/* which columns the statement reads: bit i of colUsed is column i */
	uint32_t cols = 0;
	for (int c = 1; c < VCOLS; c++)
		if (info->colUsed & ((sqlite3_uint64)1 << c))
			cols |= 1u << (c - 1);
	idx |= cols << IDX_COLS_SHIFT;
	info->idxNum = (int)idx;
	info->estimatedCost = cost;
	if (idx & IDX_TIME)
		info->orderByConsumed = time_order(info);
	else if (info->nOrderBy == 1 && (info->aOrderBy[0].iColumn == 0 || info->aOrderBy[0].iColumn == -1) &&
		 !info->aOrderBy[0].desc)
		info->orderByConsumed = 1;
	return SQLITE_OK;
}

static int sv_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct scursor *c = calloc(1, sizeof(*c));

	(void)vt;
	if (!c)
		return SQLITE_NOMEM;
	*out = &c->base;
	return SQLITE_OK;
}

static int sv_close(sqlite3_vtab_cursor *cur)
{
	struct scursor *c = (struct scursor *)cur;

	sqlite3_finalize(c->blocks);
	sample_block_free(&c->blk);
	sample_merge_close(c->merge);
	free(c);
	return SQLITE_OK;
}

static int fail(struct scursor *c, int rc, const char *fmt, const char *what, long long id)
{
	sqlite3_vtab *vt = c->base.pVtab;

	sqlite3_free(vt->zErrMsg);
	vt->zErrMsg = strstr(fmt, "%lld") ? sqlite3_mprintf(fmt, what, id) : sqlite3_mprintf(fmt, what);
	return rc;
}

/* Steps to the next block that has rows in [lo, hi]; eof when none. */
static int next_block(struct scursor *c)
{
	struct svtab *t = (struct svtab *)c->base.pVtab;

	for (;;) {
		int rc = sqlite3_step(c->blocks);
		if (rc == SQLITE_DONE) {
			c->eof = true;
			return SQLITE_OK;
		}
		if (rc != SQLITE_ROW)
			return fail(c, rc, "reading sample_blocks: %s", sqlite3_errmsg(t->db), 0);
		int64_t first = sqlite3_column_int64(c->blocks, 0);
		const void *data = sqlite3_column_blob(c->blocks, 1);
		int len = sqlite3_column_bytes(c->blocks, 1);
		const char *why = "not a block";
		if (sqlite3_column_type(c->blocks, 0) != SQLITE_INTEGER || !data ||
		    sample_block_decode(data, (size_t)len, c->cols, &c->blk, &why) < 0) {
			c->blk_valid = false;
			return fail(c, SQLITE_CORRUPT, "damaged sample block: %s (block of id %lld)", why,
				    (long long)first);
		}
		c->blk_first = first;
		c->blk_cols = c->cols;
		c->blk_valid = true;
		if (c->blk.n == 0 || first > c->hi)
			continue;
		int64_t last = first + (int64_t)c->blk.n - 1;
		if (last < c->lo)
			continue;
		c->row = c->lo > first ? (size_t)(c->lo - first) : 0;
		return SQLITE_OK;
	}
}

/* The next row of a time-ordered scan. */
static int merge_step(struct scursor *c)
{
	int r = sample_merge_next(c->merge, &c->mrow, &c->mraw, &c->mid);

	if (r > 0)
		return SQLITE_OK;
	c->eof = true;
	if (r == 0)
		return SQLITE_OK;
	if (r == -EINVAL)
		return fail(c, SQLITE_CORRUPT, "%s", sample_merge_error(c->merge), 0);
	return fail(c, r == -ENOMEM ? SQLITE_NOMEM : SQLITE_ERROR, "reading samples: %s",
		    sample_merge_error(c->merge), 0);
}

static int64_t arg_bound(sqlite3_value *v, bool lower, bool *empty)
{
	double d;

	switch (sqlite3_value_numeric_type(v)) {
	case SQLITE_INTEGER:
		return sqlite3_value_int64(v);
	case SQLITE_FLOAT:
		/* SQLite checks the exact bound again; this only narrows */
		d = sqlite3_value_double(v);
		if (d != d) {
			*empty = true;
			return 0;
		}
		if (d <= -9.2e18)
			return lower ? INT64_MIN : (*empty = true, 0);
		if (d >= 9.2e18)
			return lower ? (*empty = true, 0) : INT64_MAX;
		return lower ? (int64_t)d - 1 : (int64_t)d + 1;
	default:
		/* NULL matches nothing; text or blob is greater than any number */
		if (sqlite3_value_type(v) == SQLITE_NULL || lower)
			*empty = true;
		return INT64_MAX;
	}
}

static int sv_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc, sqlite3_value **argv)
{
	struct scursor *c = (struct scursor *)cur;
	struct svtab *t = (struct svtab *)cur->pVtab;
	unsigned flags = (unsigned)idx;
	bool empty = false;
	int a = 0, rc;

	(void)idx_str;
	(void)argc;
	c->lo = INT64_MIN;
	c->hi = INT64_MAX;
	c->cols = (flags >> IDX_COLS_SHIFT) & ((1u << STORE_SAMPLE_COLS) - 1);
	c->eof = false;
	sample_merge_close(c->merge);
	c->merge = NULL;
	if (flags & IDX_TIME) {
		struct sample_merge_opts o = { .cols = c->cols | 1u, .parts = true, .exact = true };
		int64_t v;
		if ((flags & IDX_CPUS) && int_arg(argv[a++], &v))
			o.cpus = (uint64_t)v;
		if ((flags & IDX_NODES) && int_arg(argv[a++], &v))
			o.nodes = (uint64_t)v;
		/* t0 == 0 or t1 == 0 means no bound: a bound at 0 or below
		 * (times are positive) reads every block, which stays right */
		if ((flags & (IDX_T0 | IDX_T0X)) && int_arg(argv[a++], &v) && v > 0 && v < INT64_MAX)
			o.t0 = v + ((flags & IDX_T0X) ? 1 : 0);
		if ((flags & (IDX_T1 | IDX_T1E)) && int_arg(argv[a++], &v) && v > 0 && v < INT64_MAX)
			o.t1 = v + ((flags & IDX_T1E) ? 1 : 0);
		rc = sample_merge_open(t->db, &o, &c->merge);
		if (rc < 0) {
			rc = fail(c, rc == -ENOMEM ? SQLITE_NOMEM : SQLITE_ERROR, "reading samples: %s",
				  c->merge ? sample_merge_error(c->merge) : "out of memory", 0);
			sample_merge_close(c->merge);
			c->merge = NULL;
			return rc;
		}
		return merge_step(c);
	}
	if (flags & IDX_EQ) {
		if (sqlite3_value_numeric_type(argv[a]) != SQLITE_INTEGER)
			empty = true;
		c->lo = c->hi = sqlite3_value_int64(argv[a++]);
	} else {
		if (flags & IDX_LO)
			c->lo = arg_bound(argv[a++], true, &empty);
		if (flags & IDX_HI)
			c->hi = arg_bound(argv[a++], false, &empty);
	}
	if (empty || c->lo > c->hi) {
		c->eof = true;
		return SQLITE_OK;
	}
	/* A lookup inside the block already decoded (a join by id) */
	if (c->blk_valid && c->lo >= c->blk_first && c->lo < c->blk_first + (int64_t)c->blk.n &&
	    (c->blk_cols & c->cols) == c->cols && (flags & IDX_EQ)) {
		sqlite3_reset(c->blocks);
		c->row = (size_t)(c->lo - c->blk_first);
		return SQLITE_OK;
	}
	if (!c->blocks) {
		rc = sqlite3_prepare_v2(t->db,
					"SELECT first_id, data FROM main.sample_blocks WHERE first_id >= (SELECT"
					" COALESCE(MAX(first_id), -9223372036854775807) FROM main.sample_blocks"
					" WHERE first_id <= ?1) AND first_id <= ?2 ORDER BY first_id", -1, &c->blocks, NULL);
		if (rc != SQLITE_OK)
			return fail(c, rc, "reading samples: %s", sqlite3_errmsg(t->db), 0);
	} else {
		sqlite3_reset(c->blocks);
	}
	c->blk_valid = false;
	sqlite3_bind_int64(c->blocks, 1, c->lo);
	sqlite3_bind_int64(c->blocks, 2, c->hi);
	return next_block(c);
}

static int sv_next(sqlite3_vtab_cursor *cur)
{
	struct scursor *c = (struct scursor *)cur;

	if (c->eof)
		return SQLITE_OK;
	if (c->merge)
		return merge_step(c);
	c->row++;
	if (c->blk_first + (int64_t)c->row - 1 >= c->hi) {
		c->eof = true;
		return SQLITE_OK;
	}
	if (c->row < c->blk.n)
		return SQLITE_OK;
	return next_block(c);
}

static int sv_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct scursor *)cur)->eof;
}

static int sv_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct scursor *c = (struct scursor *)cur;
	const struct store_sample_rec *r = c->merge ? c->mrow : &c->blk.rows[c->row];
	const unsigned char *raw = c->merge ? c->mraw : c->blk.raw;

	if (col == 0) {
		sqlite3_result_int64(ctx, c->merge ? c->mid : c->blk_first + (sqlite3_int64)c->row);
		return SQLITE_OK;
	}
	col--;
	if (col >= STORE_SAMPLE_COLS || !(r->present & (1u << col)))
		sqlite3_result_null(ctx);  /* the hidden hints read as NULL */
	else if (col == STORE_SAMPLE_RAW_COL)
		sqlite3_result_blob(ctx, raw + r->raw_off, (int)r->raw_len, SQLITE_TRANSIENT);
	else
		sqlite3_result_int64(ctx, r->v[col]);
	return SQLITE_OK;
}

static int sv_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	struct scursor *c = (struct scursor *)cur;

	*rowid = c->merge ? c->mid : c->blk_first + (sqlite3_int64)c->row;
	return SQLITE_OK;
}

static const sqlite3_module sample_module = {
	.iVersion = 0,
	.xCreate = NULL,             /* eponymous only: no CREATE VIRTUAL TABLE */
	.xConnect = sv_connect,
	.xBestIndex = sv_best_index,
	.xDisconnect = sv_disconnect,
	.xDestroy = sv_disconnect,
	.xOpen = sv_open,
	.xClose = sv_close,
	.xFilter = sv_filter,
	.xNext = sv_next,
	.xEof = sv_eof,
	.xColumn = sv_column,
	.xRowid = sv_rowid,
};

int store_sample_vtab_register(sqlite3 *db)
{
	return sqlite3_create_module_v2(db, "samples", &sample_module, NULL, NULL) == SQLITE_OK ? 0 : -ENOMEM;
}
