/* New code sites, data symbols and call chains of a bulk load, written at
 * the next commit instead of at once. Writing one at once means waiting for
 * the sample thread to drain its queue (the connection is not shared), and
 * a recording with thousands of distinct sites or call chains stalled the
 * import pipeline thousands of times. Their ids are handed out here, from
 * the tables' largest id; nothing refers to them before the commit that
 * writes them (readers only see committed rows). */
#include "store/writer/writer_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct defer_row {
	enum store_defer_kind kind;
	int64_t id;
	union {
		struct store_site_info site;
		struct store_dsym_info dsym;
		struct {
			int64_t *sites;
			uint32_t n;
		} chain;
	} u;
};

struct store_defer {
	int64_t next_id[3];          /* by defer_kind */
	struct defer_row *rows;
	size_t n, cap;
};

static const char *const id_sql[3] = {
	"SELECT COALESCE(MAX(id), 0) + 1 FROM sites",
	"SELECT COALESCE(MAX(id), 0) + 1 FROM dsyms",
	"SELECT COALESCE(MAX(id), 0) + 1 FROM callchains",
};

int store_defer_start(struct store *st, struct c2c_error *err)
{
	struct store_defer *d;
	sqlite3_stmt *s;
	int r;

	if (st->writer->defer)
		return 0;
	if (!(d = calloc(1, sizeof(*d))))
		return c2c_error_set(err, -ENOMEM, "out of memory");
	for (int k = 0; k < 3; k++) {
		if ((r = store_prepare(st, &s, id_sql[k], err)) < 0) {
			free(d);
			return r;
		}
		r = sqlite3_step(s);
		d->next_id[k] = r == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
		sqlite3_finalize(s);
		if (r != SQLITE_ROW) {
			free(d);
			return store_sqlerr(st, err, "reading the next ids");
		}
	}
	st->writer->defer = d;
	return 0;
}

static void free_row(struct defer_row *x)
{
	switch (x->kind) {
	case DEFER_SITE:
		free((char *)x->u.site.function);
		free((char *)x->u.site.dso);
		free((char *)x->u.site.file);
		break;
	case DEFER_DSYM:
		free((char *)x->u.dsym.name);
		free((char *)x->u.dsym.dso);
		break;
	case DEFER_CHAIN:
		free(x->u.chain.sites);
		break;
	}
}

void store_defer_free(struct store *st)
{
	struct store_defer *d = st->writer->defer;

	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free_row(&d->rows[i]);
	free(d->rows);
	free(d);
	st->writer->defer = NULL;
}

/* strdup that keeps NULL; *ok cleared when out of memory. */
static const char *dup_or_null(const char *s, bool *ok)
{
	char *p;

	if (!s)
		return NULL;
	if (!(p = strdup(s)))
		*ok = false;
	return p;
}

/* A new row of kind k: its id, or -ENOMEM (nothing kept). */
static int64_t push(struct store *st, struct defer_row *x)
{
	struct store_defer *d = st->writer->defer;

	if (store_grow((void **)&d->rows, &d->cap, d->n + 1, sizeof(*d->rows)) < 0) {
		free_row(x);
		return -ENOMEM;
	}
	x->id = d->next_id[x->kind]++;
	d->rows[d->n++] = *x;
	return x->id;
}

void store_defer_note_id(struct store *st, enum store_defer_kind kind, int64_t id)
{
	if (st->writer->defer && id >= st->writer->defer->next_id[kind])
		st->writer->defer->next_id[kind] = id + 1;
}

int64_t store_defer_site(struct store *st, const struct store_site_info *si)
{
	struct defer_row x = { .kind = DEFER_SITE, .u.site = *si };
	bool ok = true;

	x.u.site.function = dup_or_null(si->function, &ok);
	x.u.site.dso = dup_or_null(si->dso, &ok);
	x.u.site.file = dup_or_null(si->file, &ok);
	if (!ok) {
		free_row(&x);
		return -ENOMEM;
	}
	return push(st, &x);
}

int64_t store_defer_dsym(struct store *st, const struct store_dsym_info *di)
{
	struct defer_row x = { .kind = DEFER_DSYM, .u.dsym = *di };
	bool ok = true;

	x.u.dsym.name = dup_or_null(di->name, &ok);
	x.u.dsym.dso = dup_or_null(di->dso, &ok);
	if (!ok) {
		free_row(&x);
		return -ENOMEM;
	}
	return push(st, &x);
}

int64_t store_defer_chain(struct store *st, const int64_t *sites, uint32_t n)
{
	struct defer_row x = { .kind = DEFER_CHAIN, .u.chain.n = n };

	if (!(x.u.chain.sites = malloc(n * sizeof(*sites))))
		return -ENOMEM;
	memcpy(x.u.chain.sites, sites, n * sizeof(*sites));
	return push(st, &x);
}

int store_defer_flush(struct store *st, struct c2c_error *err)
{
	struct store_defer *d = st->writer->defer;
	size_t i;
	int r = 0;

	if (!d)
		return 0;
	for (i = 0; i < d->n && r == 0; i++) {
		const struct defer_row *x = &d->rows[i];
		switch (x->kind) {
		case DEFER_SITE:
			r = store_write_site(st, x->id, &x->u.site, err);
			break;
		case DEFER_DSYM:
			r = store_write_dsym(st, x->id, &x->u.dsym, err);
			break;
		case DEFER_CHAIN:
			r = store_write_chain(st, x->id, x->u.chain.sites, x->u.chain.n, err);
			break;
		}
	}
	if (r < 0)
		return r;  /* kept: the commit fails, a retry writes them all */
	for (i = 0; i < d->n; i++)
		free_row(&d->rows[i]);
	d->n = 0;
	return 0;
}
