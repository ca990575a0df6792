/* Types in a session (see store/types/typeinfo.h): the attribution pass that maps
 * every sample to an object and member and saves it, the recorded layouts,
 * manual type assignments, and the queries the layout view, the line view's
 * verdicts and `report` share. */
#include "store/types/typeinfo.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "collector/c2c/c2c.h"
#include "collector/symbols/symbols.h"
#include "collector/types/insn.h"
#include "store/base/base.h"
#include "store/types/typeinfo_schema.h"
#include "collector/base/appendf.h"

static const char *const typeinfo_tables[] = { "type_attr", "type_layouts", "type_members", "type_assign" };

/* Whether schema ("main" or "temp") has the table. */
static bool has_table_in(struct store *st, const char *schema, const char *name)
{
	sqlite3_stmt *s;
	bool yes = false;
	char sql[96];

	snprintf(sql, sizeof(sql), "SELECT 1 FROM %s WHERE type='table' AND name=?",
		 strcmp(schema, "temp") ? "sqlite_master" : "sqlite_temp_master");
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	yes = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

static bool has_table(struct store *st, const char *name)
{
	return has_table_in(st, "temp", name) || has_table_in(st, "main", name);
}

/* Starts the attribution's transaction with its tables ready. A session
 * opened for writing keeps them; a read-only one gets them in TEMP (in a
 * temporary file, not memory: one row a sample), seeded with what the
 * session already holds (an earlier attribution, saved assignments). */
static int begin_tables(struct store *st, struct c2c_error *err)
{
	int rc;

	if (st->writable) {
		if ((rc = store_commit(st, err)) < 0 || (rc = store_exec(st, "BEGIN IMMEDIATE;", err)) < 0)
			return rc;
		return store_exec(st, typeinfo_schema, err);
	}
	if (has_table_in(st, "temp", "type_attr"))
		return store_exec(st, "BEGIN;", err);
	/* Only while TEMP is empty: changing it drops what it holds. */
	sqlite3_stmt *q;
	bool empty = true;
	if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM sqlite_temp_master", -1, &q, NULL) == SQLITE_OK) {
		empty = sqlite3_step(q) != SQLITE_ROW;
		sqlite3_finalize(q);
	}
	if (empty && (rc = store_exec(st, "PRAGMA temp_store = FILE;", err)) < 0)
		return rc;
	if ((rc = store_exec(st, "BEGIN;", err)) < 0 || (rc = store_exec(st, typeinfo_temp_schema, err)) < 0)
		return rc;
	for (size_t i = 0; i < sizeof(typeinfo_tables) / sizeof(typeinfo_tables[0]); i++) {
		char sql[160];
		if (!has_table_in(st, "main", typeinfo_tables[i]))
			continue;
		snprintf(sql, sizeof(sql), "INSERT INTO temp.%s SELECT * FROM main.%s;", typeinfo_tables[i],
			 typeinfo_tables[i]);
		if ((rc = store_exec(st, sql, err)) < 0) {
			store_exec(st, "ROLLBACK;", NULL);
			return rc;
		}
	}
	return 0;
}

/* Lines are keyed by address: the session's line size (a power of two). */
static uint32_t line_size(const struct store *st)
{
	return st->line_size ? st->line_size : 64;
}

static int prep(struct store *st, sqlite3_stmt **s, const char *sql, struct c2c_error *err)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK) {
		*s = NULL;
		return store_sqlerr(st, err, "preparing a types query");
	}
	return 0;
}

static const char *col_str(sqlite3_stmt *s, int c)
{
	return (const char *)sqlite3_column_text(s, c);
}

/* ---- binaries and their types --------------------------------------- */

/* Instruction answers depend on the pc only (the object is addr - offset):
 * a small direct-mapped cache keeps the DWARF scope walk off the hot path. */
#define PC_CACHE 1024

struct pc_ent {
	uint64_t pc;
	bool used;
	struct types_attr a;
};

struct bin {
	char *path;
	struct types_db *db;
	struct insn_decoder *dec;
	struct pc_ent *cache;
	bool failed;
};

/* The kernel image for kernel samples, looked up once per pass. */
struct kimage {
	bool tried;
	size_t bin;              /* its DWARF: bins.v[bin - 1] (an index: v moves as it
	                            grows), 0 when there is none */
	uint64_t shift;          /* KASLR: run-time address - address in the image */
	char why[128];           /* why kernel heap samples stay unresolved (bin 0) */
};

struct bins {
	struct bin *v;
	size_t n, cap;
	struct kimage k;
	const struct typeinfo_opts *o;
	char saved[32][128];     /* type names whose layout is in the session */
	unsigned nsaved;
};

static struct bin *bin_get(struct bins *b, const char *path, bool btf)
{
	struct bin *e;
	char key[4200];

	snprintf(key, sizeof(key), "%s%s", btf ? "btf:" : "", path ? path : "");
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->v[i].path, key))
			return b->v[i].failed ? NULL : &b->v[i];
	if (store_grow((void **)&b->v, &b->cap, b->n + 1, sizeof(*b->v)) < 0)
		return NULL;
	e = &b->v[b->n++];
	memset(e, 0, sizeof(*e));
	e->path = strdup(key);
	if (!e->path) {
		b->n--;
		return NULL;
	}
	if (btf) {
		e->failed = types_open_btf(&e->db, path, NULL) < 0;
	} else {
		e->failed = types_open_dwarf(&e->db, path, b->o ? b->o->debuginfo_dir : NULL, NULL) < 0;
		if (!e->failed && !(b->o && b->o->no_insn)) {
			enum insn_arch a = insn_arch_from_elf(types_machine(e->db));
			if (a && insn_decoder_new(&e->dec, a, NULL) < 0)
				e->dec = NULL;
		}
	}
	return e->failed ? NULL : e;
}

static void bins_fini(struct bins *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->v[i].cache);
		insn_decoder_free(b->v[i].dec);
		types_free(b->v[i].db);
		free(b->v[i].path);
	}
	free(b->v);
	memset(b, 0, sizeof(*b));
}

struct map {
	int32_t pid;
	uint64_t start, len, pgoff;
	uint8_t cpumode;
	char *file;
};

struct maps {
	struct map *v;
	size_t n, cap;
};

/* A map of a file we can open: not [heap], [stack], //anon, [vdso]... */
static bool file_backed(const char *f)
{
	return f && f[0] && f[0] != '[' && strncmp(f, "//", 2) != 0 &&
	       strncmp(f, "/dev/", 5) != 0 && strncmp(f, "/memfd:", 7) != 0;
}

static int maps_load(struct store *st, struct maps *m, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int rc = prep(st, &s, "SELECT pid, start, len, pgoff, cpumode, filename FROM maps ORDER BY id",
		      err);

	if (rc < 0)
		return rc;
	while (sqlite3_step(s) == SQLITE_ROW) {
		struct map *e;
		if (!file_backed(col_str(s, 5)))
			continue;
		if (store_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v)) < 0) {
			sqlite3_finalize(s);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		e = &m->v[m->n++];
		e->pid = sqlite3_column_int(s, 0);
		e->start = (uint64_t)sqlite3_column_int64(s, 1);
		e->len = (uint64_t)sqlite3_column_int64(s, 2);
		e->pgoff = (uint64_t)sqlite3_column_int64(s, 3);
		e->cpumode = (uint8_t)sqlite3_column_int(s, 4);
		e->file = strdup(col_str(s, 5));
		if (!e->file) {
			m->n--;
			sqlite3_finalize(s);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
	}
	sqlite3_finalize(s);
	return 0;
}

static void maps_fini(struct maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].file);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* The latest map of pid (or a kernel map, pid -1) containing addr. */
static const struct map *map_find(const struct maps *m, int32_t pid, uint64_t addr)
{
	for (size_t i = m->n; i > 0; i--) {
		const struct map *e = &m->v[i - 1];
		if ((e->pid == pid || e->pid == -1) && addr >= e->start && addr < e->start + e->len)
			return e;
	}
	return NULL;
}

/* ---- saving layouts --------------------------------------------------- */

static int save_layout(struct store *st, struct bins *b, struct types_db *db, uint32_t type,
		       const char *name, struct c2c_error *err)
{
	sqlite3_stmt *s;
	struct layout l;
	int rc;
	bool exists;

	/* most samples hit a handful of types: skip the lookup for those
	 * this pass already saw */
	for (unsigned i = 0; i < b->nsaved && i < 32; i++)
		if (!strcmp(b->saved[i], name))
			return 0;

	if (prep(st, &s, "SELECT 1 FROM type_layouts WHERE type_name = ?", err) < 0)
		return -EIO;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
	exists = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	snprintf(b->saved[b->nsaved % 32], sizeof(b->saved[0]), "%s", name);
	b->nsaved++;
	if (exists)
		return 0;
	if (layout_build(&l, db, type, st->line_size, NULL) < 0)
		return 0;   /* not an aggregate (e.g. a global int): no layout */
	rc = prep(st, &s, "INSERT INTO type_layouts VALUES (?,?,?,?,?)", err);
	if (rc == 0) {
		sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)l.size);
		sqlite3_bind_int64(s, 3, l.align);
		sqlite3_bind_text(s, 4, types_source(db) == TYPES_SRC_BTF ? "btf" : "dwarf", -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(s, 5, types_path(db), -1, SQLITE_TRANSIENT);
		if (sqlite3_step(s) != SQLITE_DONE)
			rc = store_sqlerr(st, err, "saving a layout");
		sqlite3_finalize(s);
	}
	if (rc == 0)
		rc = prep(st, &s, "INSERT INTO type_members VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", err);
	for (size_t i = 0; rc == 0 && i < l.nrows; i++) {
		const struct layout_row *r = &l.rows[i];
		sqlite3_reset(s);
		sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
		sqlite3_bind_text(s, 3, r->name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 4, r->type, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)r->offset);
		sqlite3_bind_int64(s, 6, (sqlite3_int64)r->size);
		sqlite3_bind_int64(s, 7, r->bit_offset);
		sqlite3_bind_int64(s, 8, r->bit_size);
		sqlite3_bind_int64(s, 9, r->depth);
		sqlite3_bind_int64(s, 10, r->top);
		sqlite3_bind_int(s, 11, r->leaf);
		sqlite3_bind_int64(s, 12, (sqlite3_int64)r->hole_after);
		sqlite3_bind_int64(s, 13, r->align);
		if (sqlite3_step(s) != SQLITE_DONE)
			rc = store_sqlerr(st, err, "saving a layout");
	}
	if (rc == 0)
		sqlite3_finalize(s);
	layout_fini(&l);
	return rc;
}

/* ---- the attribution pass -------------------------------------------- */

struct why_count {
	char text[128];
	uint64_t n;
};

static void count_why(struct why_count *w, size_t *nw, size_t cap, const char *why)
{
	char norm[128];
	const char *at;

	/* group reasons that differ only by address: cut at " at 0x" */
	snprintf(norm, sizeof(norm), "%s", why);
	at = strstr(norm, " at 0x");
	if (at)
		norm[at - norm] = 0;
	for (size_t i = 0; i < *nw; i++)
		if (!strcmp(w[i].text, norm)) {
			w[i].n++;
			return;
		}
	if (*nw < cap) {
		snprintf(w[*nw].text, sizeof(w[*nw].text), "%s", norm);
		w[(*nw)++].n = 1;
	}
}

static int save_attr(struct store *st, struct bins *b, sqlite3_stmt *ins, int64_t sid,
		     struct types_db *db, const struct types_attr *a, struct c2c_error *err)
{
	char tname[128] = "", top[256] = "";

	if (a->how != TYPES_HOW_NONE) {
		types_name(db, a->type, tname, sizeof(tname));
		snprintf(top, sizeof(top), "%s", a->hit.path);
		top[strcspn(top, ".[")] = 0;
		if (save_layout(st, b, db, a->type, tname, err) < 0)
			return -EIO;
	}
	sqlite3_reset(ins);
	sqlite3_bind_int64(ins, 1, sid);
	sqlite3_bind_int(ins, 2, a->how);
	if (a->how != TYPES_HOW_NONE) {
		sqlite3_bind_text(ins, 3, tname, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(ins, 4, (sqlite3_int64)a->object);
		sqlite3_bind_int64(ins, 5, (sqlite3_int64)a->offset);
		sqlite3_bind_text(ins, 6, a->hit.path, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 7, top, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 8, a->var, -1, SQLITE_TRANSIENT);
		sqlite3_bind_null(ins, 9);
	} else {
		for (int c = 3; c <= 8; c++)
			sqlite3_bind_null(ins, c);
		sqlite3_bind_text(ins, 9, a->why, -1, SQLITE_TRANSIENT);
	}
	if (sqlite3_step(ins) != SQLITE_DONE)
		return store_sqlerr(st, err, "saving a type attribution");
	return 0;
}

static void attribute_cached(struct bin *e, uint64_t pc, uint64_t addr, struct types_attr *a)
{
	struct pc_ent *c;

	if (!e->cache)
		e->cache = calloc(PC_CACHE, sizeof(*e->cache));
	if (!e->cache) {
		types_attribute(e->db, e->dec, pc, addr, false, 0, a);
		return;
	}
	c = &e->cache[(pc ^ (pc >> 10)) % PC_CACHE];
	if (!c->used || c->pc != pc) {
		types_attribute(e->db, e->dec, pc, addr, false, 0, &c->a);
		c->pc = pc;
		c->used = true;
		/* keep the object relative: it is recomputed per sample */
		c->a.object = 0;
	}
	*a = c->a;
	if (a->how != TYPES_HOW_NONE)
		a->object = addr - a->offset;
}

#define KHEAP_NO_DWARF "kernel heap: needs a vmlinux with DWARF (-k); BTF has no variable locations"

/* The kernel image: -k, else the one the import used (meta), with its
 * KASLR shift from the session's kernel map, exactly as the symbolizer
 * places it (symtab_kernel_shift). A missing image or one without DWARF
 * leaves why for the kernel heap samples. */
static struct kimage *kimage_get(struct store *st, struct bins *b)
{
	struct kimage *k = &b->k;
	char meta[4200] = "", abs[PATH_MAX], ref[256] = "";
	const char *path = b->o ? b->o->vmlinux : NULL;
	uint64_t pgoff = 0;
	struct c2c_error ce = { 0 };
	sqlite3_stmt *s;

	if (k->tried)
		return k;
	k->tried = true;
	snprintf(k->why, sizeof(k->why), "%s", KHEAP_NO_DWARF);
	if (!path && store_get_meta(st, STORE_META_VMLINUX, meta, sizeof(meta)) > 0)
		path = meta;
	if (!path)
		return k;
	/* -k as perf reads it: relative under --symfs, else the working directory */
	if (path != meta && path[0] != '/') {
		if (b->o && b->o->symfs && *b->o->symfs) {
			snprintf(abs, sizeof(abs), "%s/%s", b->o->symfs, path);
			path = abs;
		} else if (realpath(path, abs)) {
			path = abs;
		}
	}
	if (access(path, R_OK) != 0) {
		snprintf(k->why, sizeof(k->why), "kernel heap: vmlinux %.48s%s: %s (give one with -k)",
			 path, path == meta ? " (recorded in the session)" : "", strerror(errno));
		return k;
	}
	/* the image of another build names the wrong types: refused as the
	 * import refuses a -k of another build */
	char want[48] = "";
	if (store_get_meta(st, STORE_META_VMLINUX_BID, want, sizeof(want)) > 0) {
		uint8_t bid[20];
		char hex[41] = "";
		size_t bn = symtab_file_build_id(path, bid);
		for (size_t i = 0; i < bn; i++)
			snprintf(hex + 2 * i, 3, "%02x", bid[i]);
		if (strcmp(hex, want)) {
			snprintf(k->why, sizeof(k->why), "kernel heap: %.60s is not the kernel recorded (build-id %.12s...)",
				 path, want);
			return k;
		}
	}
	struct bin *e = bin_get(b, path, false);
	if (!e) {
		snprintf(k->why, sizeof(k->why), "kernel heap: %.60s has no DWARF (-k); BTF has no variable locations",
			 path);
		return k;
	}
	/* The latest kernel map: "[kernel.kallsyms]_text" at the run-time _text. */
	if (sqlite3_prepare_v2(st->db, "SELECT filename, pgoff FROM maps WHERE pid = -1 AND filename LIKE"
			       " '[kernel.kallsyms]%' ORDER BY id DESC LIMIT 1", -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW) {
			snprintf(ref, sizeof(ref), "%s", col_str(s, 0) + strlen("[kernel.kallsyms]"));
			pgoff = (uint64_t)sqlite3_column_int64(s, 1);
		}
		sqlite3_finalize(s);
	}
	if (ref[0] && pgoff && symtab_kernel_shift(path, ref, pgoff, &k->shift, &ce) < 0) {
		snprintf(k->why, sizeof(k->why), "kernel heap: %.100s", ce.msg);
		return k;
	}
	k->bin = (size_t)(e - b->v) + 1;
	return k;
}

/* The kernel image's DWARF (NULL: none); valid until the next bin_get. */
static struct bin *kimage_bin(struct store *st, struct bins *b)
{
	struct kimage *k = kimage_get(st, b);

	return k->bin ? &b->v[k->bin - 1] : NULL;
}

/* a: the global of type at start (an image's address) holding off. */
static int global_typed(struct types_db *db, uint32_t type, uint64_t off, uint64_t addr, const char *name,
			struct types_attr *a)
{
	while (types_get(db, type) && types_get(db, type)->kind == TYPES_QUAL)
		type = types_get(db, type)->ref;
	if (types_resolve(db, type, off, &a->hit) < 0)
		return -ENOENT;
	a->how = TYPES_HOW_GLOBAL;
	a->type = type;
	a->offset = off;
	a->object = addr - off;
	snprintf(a->var, sizeof(a->var), "%s", name ? name : "");
	/* `struct x table[16]`: the element is the object, its type the layout */
	types_attr_element(db, a);
	return 0;
}

static int global_from_dsym(struct bins *b, const char *dso, const char *name, uint64_t off,
			    uint64_t addr, bool kernel, struct types_db **dbo, struct types_attr *a)
{
	struct bin *e = kernel ? bin_get(b, b->o ? b->o->btf_path : NULL, true)
			       : (file_backed(dso) ? bin_get(b, dso, false) : NULL);
	uint32_t type;
	uint64_t start;

	if (!e || !name || types_var_by_name(e->db, name, &type, &start) < 0)
		return -ENOENT;
	if (global_typed(e->db, type, off, addr, name, a) < 0)
		return -ENOENT;
	*dbo = e->db;
	return 0;
}

/* A kernel sample: with the image's DWARF, the global at the address,
 * else the sampled instruction (pc and globals at - shift), as for user
 * space; then a global named by the data symbol in BTF; else why. */
static void kernel_attr(struct store *st, struct bins *b, uint64_t ip, uint64_t addr, const char *dname,
			uint64_t doff, struct types_db **dbo, struct types_attr *a, struct typeinfo_stats *out)
{
	struct kimage *k = kimage_get(st, b);
	struct bin *ke = kimage_bin(st, b);
	struct types_attr t;

	if (ke) {
		uint32_t type;
		uint64_t start;
		const char *name = NULL;
		if (types_var_at(ke->db, addr - k->shift, &type, &start, &name) == 0 &&
		    global_typed(ke->db, type, addr - k->shift - start, addr, name, a) == 0) {
			*dbo = ke->db;
			return;
		}
		memset(a, 0, sizeof(*a));
		out->heap_tried++;
		attribute_cached(ke, ip - k->shift, addr, a);
		*dbo = ke->db;
		if (a->how != TYPES_HOW_NONE)
			return;
	}
	memset(&t, 0, sizeof(t));
	if (global_from_dsym(b, NULL, dname, doff, addr, true, dbo, &t) == 0) {
		*a = t;
		return;
	}
	if (!ke) {
		memset(a, 0, sizeof(*a));
		snprintf(a->why, sizeof(a->why), "%s", k->why);
	}
}

/* Applies the manual assignments (they win over automatic answers). */
static int apply_assignments(struct store *st, struct bins *b, struct maps *m,
			     struct typeinfo_stats *out, struct c2c_error *err);

int typeinfo_attribute(struct store *st, const struct typeinfo_opts *o, struct typeinfo_stats *out,
		       struct c2c_error *err)
{
	struct bins b = { .o = o };
	struct maps m = { 0 };
	sqlite3_stmt *sel = NULL, *ins = NULL;
	struct why_count why[64];
	size_t nwhy = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = begin_tables(st, err)) < 0)
		return rc;
	if ((rc = store_exec(st, "DELETE FROM type_attr;", err)) < 0 ||
	    (rc = maps_load(st, &m, err)) < 0)
		goto out;
	rc = prep(st, &sel, "SELECT s.id, s.pid, s.ip, s.addr, s.cpumode, d.name, s.dsym_offset, d.dso"
		  " FROM samples s LEFT JOIN dsyms d ON d.id = s.dsym WHERE s.addr != 0 ORDER BY s.id",
		  err);
	if (rc == 0)
		rc = prep(st, &ins, "INSERT OR REPLACE INTO type_attr VALUES (?,?,?,?,?,?,?,?,?)", err);
	while (rc == 0 && sqlite3_step(sel) == SQLITE_ROW) {
		int64_t sid = sqlite3_column_int64(sel, 0);
		int32_t pid = sqlite3_column_int(sel, 1);
		uint64_t ip = (uint64_t)sqlite3_column_int64(sel, 2);
		uint64_t addr = (uint64_t)sqlite3_column_int64(sel, 3);
		bool kernel = sqlite3_column_int(sel, 4) == C2C_MODE_KERNEL;
		const char *dname = col_str(sel, 5);
		uint64_t doff = (uint64_t)sqlite3_column_int64(sel, 6);
		const char *ddso = col_str(sel, 7);
		struct types_attr a;
		struct types_db *db = NULL;

		memset(&a, 0, sizeof(a));
		out->samples++;
		if (kernel) {
			kernel_attr(st, &b, ip, addr, dname, doff, &db, &a, out);
		} else if (global_from_dsym(&b, ddso, dname, doff, addr, kernel, &db, &a) < 0) {
			const struct map *mp = map_find(&m, pid, ip);
			struct bin *e = mp ? bin_get(&b, mp->file, false) : NULL;
			uint64_t pc;

			if (!mp) {
				snprintf(a.why, sizeof(a.why), "code address in no file-backed map");
			} else if (!e) {
				snprintf(a.why, sizeof(a.why), "no debug info for %.100s", mp->file);
			} else if (types_file_to_vaddr(e->db, ip - mp->start + mp->pgoff, &pc) < 0) {
				snprintf(a.why, sizeof(a.why), "code address outside the segments of %.80s",
					 mp->file);
			} else {
				out->heap_tried++;
				attribute_cached(e, pc, addr, &a);
				db = e->db;
			}
		}
		out->by_how[a.how]++;
		if (a.how == TYPES_HOW_NONE)
			count_why(why, &nwhy, sizeof(why) / sizeof(why[0]), a.why);
		rc = save_attr(st, &b, ins, sid, db, &a, err);
	}
	if (rc == 0)
		rc = apply_assignments(st, &b, &m, out, err);
out:
	if (sel)
		sqlite3_finalize(sel);
	if (ins)
		sqlite3_finalize(ins);
	if (rc == 0)
		rc = store_exec(st, "COMMIT;", err);
	else
		store_exec(st, "ROLLBACK;", NULL);
	/* the most frequent reasons */
	for (size_t k = 0; k < 4; k++) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < nwhy; i++)
			if (why[i].n && (best == SIZE_MAX || why[i].n > why[best].n))
				best = i;
		if (best == SIZE_MAX)
			break;
		snprintf(out->why[k], sizeof(out->why[k]), "%s", why[best].text);
		out->why_n[k] = why[best].n;
		why[best].n = 0;
	}
	maps_fini(&m);
	bins_fini(&b);
	return rc;
}

/* Finds a struct by name in the given binary, or the session's binaries,
 * or BTF. */
static struct types_db *find_type(struct store *st, struct bins *b, struct maps *m, const char *binary,
				  const char *name, uint32_t *id)
{
	struct bin *e;

	if (binary) {
		e = bin_get(b, binary, false);
		if (e && (*id = types_find(e->db, name)))
			return e->db;
		return NULL;
	}
	for (size_t i = 0; i < m->n; i++) {
		if (m->v[i].cpumode == C2C_MODE_KERNEL)
			continue;
		e = bin_get(b, m->v[i].file, false);
		if (e && (*id = types_find(e->db, name)))
			return e->db;
	}
	/* the kernel image's DWARF (kernel heap objects), then BTF */
	e = kimage_bin(st, b);
	if (e && (*id = types_find(e->db, name)))
		return e->db;
	e = bin_get(b, b->o ? b->o->btf_path : NULL, true);
	if (e && (*id = types_find(e->db, name)))
		return e->db;
	return NULL;
}

static int apply_one(struct store *st, struct bins *b, struct maps *m, uint64_t base,
		     const char *tname, const char *binary, struct typeinfo_stats *out,
		     struct c2c_error *err)
{
	uint32_t id = 0;
	struct types_db *db = find_type(st, b, m, binary, tname, &id);
	const struct types_type *t;
	sqlite3_stmt *sel, *ins;
	int rc;

	if (!db)
		return c2c_error_set(err, -ENOENT, "type '%s' not found in %s", tname,
				     binary ? binary : "the session's binaries or BTF");
	t = types_get(db, id);
	if ((rc = prep(st, &sel, "SELECT s.id, s.addr, a.how FROM samples s LEFT JOIN type_attr a"
		       " ON a.sample_id = s.id WHERE s.addr >= ? AND s.addr < ?", err)) < 0)
		return rc;
	if ((rc = prep(st, &ins, "INSERT OR REPLACE INTO type_attr VALUES (?,?,?,?,?,?,?,?,?)",
		       err)) < 0) {
		sqlite3_finalize(sel);
		return rc;
	}
	sqlite3_bind_int64(sel, 1, (sqlite3_int64)base);
	sqlite3_bind_int64(sel, 2, (sqlite3_int64)(base + t->size));
	while (rc == 0 && sqlite3_step(sel) == SQLITE_ROW) {
		struct types_attr a;
		uint64_t addr = (uint64_t)sqlite3_column_int64(sel, 1);
		int prev = sqlite3_column_type(sel, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(sel, 2);

		memset(&a, 0, sizeof(a));
		if (types_resolve(db, id, addr - base, &a.hit) < 0)
			continue;
		a.how = TYPES_HOW_MANUAL;
		a.type = id;
		a.object = base;
		a.offset = addr - base;
		snprintf(a.var, sizeof(a.var), "assigned");
		if (out) {
			if (prev >= 0 && prev < TYPEINFO_NR_HOW)
				out->by_how[prev]--;
			out->by_how[TYPES_HOW_MANUAL]++;
		}
		rc = save_attr(st, b, ins, sqlite3_column_int64(sel, 0), db, &a, err);
	}
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	return rc;
}

static int apply_assignments(struct store *st, struct bins *b, struct maps *m,
			     struct typeinfo_stats *out, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int rc = prep(st, &s, "SELECT base, type_name, binary FROM type_assign ORDER BY id", err);

	while (rc == 0 && sqlite3_step(s) == SQLITE_ROW)
		rc = apply_one(st, b, m, (uint64_t)sqlite3_column_int64(s, 0), col_str(s, 1),
			       col_str(s, 2), out, err);
	if (s)
		sqlite3_finalize(s);
	return rc;
}

/* One row of type_assign (main or TEMP, whichever the name reaches). */
static int insert_assignment(struct store *st, uint64_t base, const char *type_name, const char *binary,
			     struct c2c_error *err)
{
	sqlite3_stmt *s;
	int rc = prep(st, &s, "INSERT INTO type_assign (base, type_name, binary, created_at) VALUES (?,?,?,?)", err);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)base);
	sqlite3_bind_text(s, 2, type_name, -1, SQLITE_TRANSIENT);
	if (binary)
		sqlite3_bind_text(s, 3, binary, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 3);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)time(NULL));
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = store_sqlerr(st, err, "saving an assignment");
	sqlite3_finalize(s);
	return rc;
}

int typeinfo_assign(struct store *st, uint64_t base, const char *type_name, const char *binary,
		    const struct typeinfo_opts *o, struct c2c_error *err)
{
	struct bins b = { .o = o };
	struct maps m = { 0 };
	int rc;

	if ((rc = begin_tables(st, err)) < 0)
		return rc;
	rc = maps_load(st, &m, err);
	if (rc == 0)
		rc = apply_one(st, &b, &m, base, type_name, binary, NULL, err);
	if (rc == 0)
		rc = insert_assignment(st, base, type_name, binary, err);
	if (rc == 0)
		rc = store_exec(st, "COMMIT;", err);
	else
		store_exec(st, "ROLLBACK;", NULL);
	maps_fini(&m);
	bins_fini(&b);
	return rc;
}

int typeinfo_save_assignment(struct store *st, uint64_t base, const char *type_name, const char *binary,
			     struct c2c_error *err)
{
	int rc;

	if (!st->writable)
		return c2c_error_set(err, -EROFS, "%s: opened read-only", st->path);
	if ((rc = store_commit(st, err)) < 0 || (rc = store_exec(st, "BEGIN IMMEDIATE;", err)) < 0)
		return rc;
	/* An attribution saved by an older c2ctui would hide the new
	 * assignment: dropped, to be recomputed with it on the next read. */
	rc = store_exec(st, TYPEINFO_ASSIGN_SCHEMA("") "DROP TABLE IF EXISTS type_attr;"
			" DROP TABLE IF EXISTS type_layouts; DROP TABLE IF EXISTS type_members;", err);
	if (rc == 0)
		rc = insert_assignment(st, base, type_name, binary, err);
	if (rc == 0)
		return store_exec(st, "COMMIT;", err);
	store_exec(st, "ROLLBACK;", NULL);
	return rc;
}

struct names_ctx {
	char **v;
	size_t n, cap;
	const char *filter;
	int rc;
};

static int name_cb(void *vctx, const char *name, uint32_t id)
{
	struct names_ctx *c = vctx;

	(void)id;
	if (c->filter && *c->filter && !strcasestr(name, c->filter))
		return 0;
	if (store_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)) < 0) {
		c->rc = -ENOMEM;
		return 1;
	}
	c->v[c->n++] = (char *)name;
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int typeinfo_struct_names(struct store *st, const struct typeinfo_opts *o, const char *filter,
			  char ***names, size_t *n, struct c2c_error *err)
{
	struct bins b = { .o = o };
	struct maps m = { 0 };
	struct names_ctx c = { .filter = filter };
	size_t bytes = 0, k = 0;
	char **outv, *p;
	bool kernel = false;
	int rc;

	*names = NULL;
	*n = 0;
	if ((rc = maps_load(st, &m, err)) < 0)
		return rc;
	for (size_t i = 0; i < m.n; i++) {
		struct bin *e;
		if (m.v[i].cpumode == C2C_MODE_KERNEL) {
			kernel = true;
			continue;
		}
		if ((e = bin_get(&b, m.v[i].file, false)))
			types_each_struct(e->db, name_cb, &c);
	}
	/* the kernel image's DWARF: the types of kernel heap objects */
	struct bin *ke = kimage_bin(st, &b);
	if (ke)
		types_each_struct(ke->db, name_cb, &c);
	if (kernel || !m.n) {
		struct bin *e = bin_get(&b, o ? o->btf_path : NULL, true);
		if (e && kernel)
			types_each_struct(e->db, name_cb, &c);
	}
	if (c.rc < 0) {
		rc = c2c_error_set(err, c.rc, "out of memory");
		goto out;
	}
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), str_cmp);
	for (size_t i = 0; i < c.n; i++)
		if (!i || strcmp(c.v[i], c.v[i - 1]))
			bytes += strlen(c.v[i]) + 1 + sizeof(char *);
	outv = malloc(bytes ? bytes : 1);
	if (!outv) {
		rc = c2c_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c.n; i++)
		if (!i || strcmp(c.v[i], c.v[i - 1]))
			k++;
	p = (char *)(outv + k);
	k = 0;
	for (size_t i = 0; i < c.n; i++) {
		if (i && !strcmp(c.v[i], c.v[i - 1]))
			continue;
		outv[k++] = p;
		strcpy(p, c.v[i]);
		p += strlen(p) + 1;
	}
	*names = outv;
	*n = k;
out:
	free(c.v);
	maps_fini(&m);
	bins_fini(&b);
	return rc;
}

/* ---- queries ------------------------------------------------------------ */

static bool bits_store(uint64_t bits)
{
	return c2c_bits_count(bits, C2C_STORE) > 0;
}

static bool bits_access(uint64_t bits)
{
	return c2c_bits_count(bits, C2C_STORE) > 0 || c2c_bits_count(bits, C2C_LOAD) > 0;
}

int typeinfo_query_types(struct store *st, struct typeinfo_type_row **rows, size_t *n,
			 struct c2c_error *err)
{
	sqlite3_stmt *s;
	struct typeinfo_type_row *v = NULL;
	size_t cap = 0, k = 0;
	char last[128] = "";
	uint64_t last_obj = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!has_table(st, "type_attr"))
		return 0;
	rc = prep(st, &s, "SELECT a.type_name, a.object, a.how, s.class_bits, l.size FROM type_attr a"
		  " JOIN samples s ON s.id = a.sample_id LEFT JOIN type_layouts l ON"
		  " l.type_name = a.type_name WHERE a.how > 0 ORDER BY a.type_name, a.object", err);
	while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
		const char *t = col_str(s, 0);
		uint64_t obj = (uint64_t)sqlite3_column_int64(s, 1);
		int how = sqlite3_column_int(s, 2);
		uint64_t bits = (uint64_t)sqlite3_column_int64(s, 3);
		struct typeinfo_type_row *r;

		if (!k || strcmp(last, t ? t : "")) {
			if (store_grow((void **)&v, &cap, k + 1, sizeof(*v)) < 0) {
				rc = c2c_error_set(err, -ENOMEM, "out of memory");
				break;
			}
			memset(&v[k], 0, sizeof(v[k]));
			store_copy(v[k].type, sizeof(v[k].type), t ? t : "");
			v[k].size = (uint64_t)sqlite3_column_int64(s, 4);
			store_copy(last, sizeof(last), t ? t : "");
			k++;
			last_obj = obj + 1;
		}
		r = &v[k - 1];
		r->samples++;
		if (obj != last_obj)
			r->objects++;
		last_obj = obj;
		if (how >= 0 && how < TYPEINFO_NR_HOW)
			r->by_how[how]++;
		if (bits_store(bits))
			r->stores++;
		else if (c2c_bits_count(bits, C2C_LOAD))
			r->loads++;
		r->lcl_hitm += c2c_bits_count(bits, C2C_LCL_HITM);
		r->rmt_hitm += c2c_bits_count(bits, C2C_RMT_HITM);
	}
	if (s)
		sqlite3_finalize(s);
	if (rc < 0) {
		free(v);
		return rc;
	}
	/* HITM descending, then samples, then name */
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0; j--) {
			struct typeinfo_type_row *a = &v[j - 1], *b = &v[j], tmp;
			uint64_t ha = a->lcl_hitm + a->rmt_hitm, hb = b->lcl_hitm + b->rmt_hitm;
			if (ha > hb || (ha == hb && (a->samples > b->samples ||
						     (a->samples == b->samples &&
						      strcmp(a->type, b->type) <= 0))))
				break;
			tmp = *a;
			*a = *b;
			*b = tmp;
		}
	*rows = v;
	*n = k;
	return 0;
}

int typeinfo_layout(struct store *st, const char *type, struct layout *out,
		    struct layout_access **acc, size_t *nacc, struct c2c_error *err)
{
	sqlite3_stmt *s;
	struct layout_access *a = NULL;
	size_t cap = 0, na = 0, rcap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (acc) {
		*acc = NULL;
		*nacc = 0;
	}
	if (!has_table(st, "type_layouts"))
		return c2c_error_set(err, -ENOENT, "%s: no types attributed in this session", st->path);
	if ((rc = prep(st, &s, "SELECT size, align FROM type_layouts WHERE type_name = ?", err)) < 0)
		return rc;
	sqlite3_bind_text(s, 1, type, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return c2c_error_set(err, -ENOENT, "%s: no layout of '%s' in this session", st->path,
				     type);
	}
	store_copy(out->type_name, sizeof(out->type_name), type);
	out->size = (uint64_t)sqlite3_column_int64(s, 0);
	out->align = (uint32_t)sqlite3_column_int(s, 1);
	out->line_size = st->line_size ? st->line_size : 64;
	sqlite3_finalize(s);
	if ((rc = prep(st, &s, "SELECT name, type, offset, size, bit_offset, bit_size, depth, top,"
		       " leaf, hole_after, align FROM type_members WHERE type_name = ? ORDER BY idx", err)) < 0)
		return rc;
	sqlite3_bind_text(s, 1, type, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(s) == SQLITE_ROW) {
		struct layout_row *r;
		if (store_grow((void **)&out->rows, &rcap, out->nrows + 1, sizeof(*out->rows)) < 0) {
			sqlite3_finalize(s);
			layout_fini(out);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		r = &out->rows[out->nrows++];
		memset(r, 0, sizeof(*r));
		store_copy(r->name, sizeof(r->name), col_str(s, 0));
		store_copy(r->type, sizeof(r->type), col_str(s, 1));
		r->offset = (uint64_t)sqlite3_column_int64(s, 2);
		r->size = (uint64_t)sqlite3_column_int64(s, 3);
		r->bit_offset = (uint32_t)sqlite3_column_int(s, 4);
		r->bit_size = (uint32_t)sqlite3_column_int(s, 5);
		r->depth = (uint32_t)sqlite3_column_int(s, 6);
		r->top = (uint32_t)sqlite3_column_int(s, 7);
		r->leaf = sqlite3_column_int(s, 8) != 0;
		r->hole_after = (uint64_t)sqlite3_column_int64(s, 9);
		r->align = (uint32_t)sqlite3_column_int(s, 10);
		if (r->depth == 0)
			out->holes += r->hole_after;
	}
	sqlite3_finalize(s);
	if ((rc = prep(st, &s, "SELECT a.object, a.offset, s.class_bits, s.tid, s.cpu, s.site FROM"
		       " type_attr a JOIN samples s ON s.id = a.sample_id WHERE a.type_name = ? AND"
		       " a.how > 0 ORDER BY s.id", err)) < 0) {
		layout_fini(out);
		return rc;
	}
	sqlite3_bind_text(s, 1, type, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(s) == SQLITE_ROW) {
		uint64_t bits = (uint64_t)sqlite3_column_int64(s, 2);
		struct layout_access *e;
		if (!bits_access(bits))
			continue;
		if (store_grow((void **)&a, &cap, na + 1, sizeof(*a)) < 0) {
			sqlite3_finalize(s);
			free(a);
			layout_fini(out);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		e = &a[na++];
		e->object = (uint64_t)sqlite3_column_int64(s, 0);
		e->offset = (uint64_t)sqlite3_column_int64(s, 1);
		e->is_store = bits_store(bits);
		e->tid = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 3);
		e->cpu = sqlite3_column_type(s, 4) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 4);
		e->site = (uint32_t)sqlite3_column_int64(s, 5);
		e->count = 1;
		e->lcl_hitm = c2c_bits_count(bits, C2C_LCL_HITM);
		e->rmt_hitm = c2c_bits_count(bits, C2C_RMT_HITM);
	}
	sqlite3_finalize(s);
	rc = layout_account(out, a, na);
	if (rc < 0) {
		free(a);
		layout_fini(out);
		return c2c_error_set(err, rc, "out of memory");
	}
	if (acc) {
		*acc = a;
		*nacc = na;
	} else {
		free(a);
	}
	return 0;
}

int typeinfo_line_members(struct store *st, uint64_t line_addr, struct typeinfo_member_row **rows,
			  size_t *n, struct c2c_error *err)
{
	sqlite3_stmt *s;
	struct typeinfo_member_row *v = NULL;
	struct layout_set *tids = NULL;
	size_t cap = 0, k = 0, tcap = 0;
	int rc;
	/* a line key may carry an identity variant (c2c_lineid.h): types are
	 * about the addresses, so every identity of the line counts */
	line_addr = c2c_line_display(line_addr, line_size(st));

	*rows = NULL;
	*n = 0;
	if (!has_table(st, "type_attr"))
		return 0;
	rc = prep(st, &s, "SELECT a.type_name, a.member, s.addr, s.class_bits, s.tid, a.how FROM"
		  " samples s JOIN type_attr a ON a.sample_id = s.id WHERE s.addr >= ? AND s.addr < ?"
		  " AND a.how > 0"
		  " ORDER BY s.addr", err);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)line_addr);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)(line_addr + line_size(st)));
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *t = col_str(s, 0), *m = col_str(s, 1);
		uint64_t addr = (uint64_t)sqlite3_column_int64(s, 2);
		uint64_t bits = (uint64_t)sqlite3_column_int64(s, 3);
		size_t i;

		for (i = 0; i < k; i++)
			if (!strcmp(v[i].type, t ? t : "") && !strcmp(v[i].member, m ? m : ""))
				break;
		if (i == k) {
			if (store_grow((void **)&v, &cap, k + 1, sizeof(*v)) < 0 ||
			    store_grow((void **)&tids, &tcap, k + 1, sizeof(*tids)) < 0) {
				rc = c2c_error_set(err, -ENOMEM, "out of memory");
				break;
			}
			memset(&v[k], 0, sizeof(v[k]));
			memset(&tids[k], 0, sizeof(tids[k]));
			store_copy(v[k].type, sizeof(v[k].type), t ? t : "");
			store_copy(v[k].member, sizeof(v[k].member), m ? m : "");
			v[k].line_offset = addr - line_addr;
			k++;
		}
		if (bits_store(bits))
			v[i].stores++;
		else if (c2c_bits_count(bits, C2C_LOAD))
			v[i].loads++;
		v[i].lcl_hitm += c2c_bits_count(bits, C2C_LCL_HITM);
		v[i].rmt_hitm += c2c_bits_count(bits, C2C_RMT_HITM);
		v[i].how_mask |= 1u << (sqlite3_column_int(s, 5) & 7);
		if (sqlite3_column_type(s, 4) != SQLITE_NULL) {
			/* distinct threads: a small unsorted list per row */
			int64_t tid = sqlite3_column_int(s, 4);
			bool seen = false;
			for (uint32_t j = 0; j < tids[i].n && !seen; j++)
				seen = tids[i].v[j] == tid;
			if (!seen) {
				int64_t *nv = realloc(tids[i].v, (tids[i].n + 1) * sizeof(*nv));
				if (!nv) {
					rc = c2c_error_set(err, -ENOMEM, "out of memory");
					break;
				}
				tids[i].v = nv;
				tids[i].v[tids[i].n++] = tid;
			}
		}
	}
	sqlite3_finalize(s);
	for (size_t i = 0; i < k; i++) {
		v[i].nr_threads = tids[i].n;
		free(tids[i].v);
	}
	free(tids);
	if (rc < 0) {
		free(v);
		return rc;
	}
	*rows = v;
	*n = k;
	return 0;
}

int typeinfo_line_object(struct store *st, uint64_t line_addr, char *type, size_t len,
			 uint64_t *object)
{
	sqlite3_stmt *s;
	int rc = -ENOENT;
	/* a line key may carry an identity variant (c2c_lineid.h): types are
	 * about the addresses, so every identity of the line counts */
	line_addr = c2c_line_display(line_addr, line_size(st));

	if (!has_table(st, "type_attr"))
		return -ENOENT;
	if (prep(st, &s, "SELECT a.type_name, a.object, COUNT(*) AS n FROM samples s JOIN type_attr a"
		 " ON a.sample_id = s.id WHERE s.addr >= ? AND s.addr < ? AND a.how > 0 GROUP BY 1, 2"
		 " ORDER BY n DESC, 2 LIMIT 1", NULL) < 0)
		return -EIO;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)line_addr);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)(line_addr + line_size(st)));
	if (sqlite3_step(s) == SQLITE_ROW) {
		store_copy(type, len, col_str(s, 0));
		*object = (uint64_t)sqlite3_column_int64(s, 1);
		rc = 0;
	}
	sqlite3_finalize(s);
	return rc;
}

bool typeinfo_present(struct store *st)
{
	return has_table(st, "type_attr");
}

/* A reason with its numbers (whole words: 1868, 0xffffffff81..., with
 * trailing punctuation) written N, so that reasons differing only by an
 * offset or an address count as one; paths and names keep their digits. */
static void why_normalize(const char *why, char *out, size_t len)
{
	size_t k = 0;

	while (*why && k + 1 < len) {
		const char *e = why + strcspn(why, " ");
		const char *d = why;
		bool num = false;
		if (d[0] == '0' && d[1] == 'x' && d + 2 < e && isxdigit((unsigned char)d[2]))
			for (d += 2, num = true; d < e && isxdigit((unsigned char)*d); d++)
				;
		else
			for (num = d < e && isdigit((unsigned char)*d); d < e && isdigit((unsigned char)*d); d++)
				;
		/* the number may end the word before punctuation */
		if (num && (d == e || strchr(",:;)", *d))) {
			out[k++] = 'N';
			why = d;
		}
		while (why < e && k + 1 < len)
			out[k++] = *why++;
		while (*why == ' ' && k + 1 < len)
			out[k++] = *why++;
	}
	out[k] = 0;
}

int typeinfo_query_kernel(struct store *st, struct typeinfo_kernel_stats *out, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int rc;

	memset(out, 0, sizeof(*out));
	/* heap: neither a global nor a stack variable, and no data symbol
	 * (the symbolizer names an address outside every symbol by its map,
	 * "[kernel.kallsyms]") */
	rc = prep(st, &s,
		  "SELECT count(*), coalesce(sum(how != 0), 0), coalesce(sum(heap), 0),"
		  " coalesce(sum(heap AND how IN (2, 4) AND coalesce(member, '') != ''), 0),"
		  " coalesce(sum(how = 0), 0), coalesce(sum(how = 1), 0), coalesce(sum(how = 2), 0),"
		  " coalesce(sum(how = 3), 0), coalesce(sum(how = 4), 0)"
		  " FROM (SELECT t.how, t.member, t.how NOT IN (1, 3) AND"
		  "  (d.name IS NULL OR d.name = '' OR d.name LIKE '[%') AS heap"
		  "  FROM type_attr t JOIN samples s ON s.id = t.sample_id LEFT JOIN dsyms d ON d.id = s.dsym"
		  "  WHERE s.cpumode = ?)",
		  err);
	if (rc < 0)
		return rc;
	sqlite3_bind_int(s, 1, C2C_MODE_KERNEL);
	if (sqlite3_step(s) == SQLITE_ROW) {
		out->samples = (uint64_t)sqlite3_column_int64(s, 0);
		out->attributed = (uint64_t)sqlite3_column_int64(s, 1);
		out->heap = (uint64_t)sqlite3_column_int64(s, 2);
		out->heap_member = (uint64_t)sqlite3_column_int64(s, 3);
		for (int i = 0; i < TYPEINFO_NR_HOW; i++)
			out->by_how[i] = (uint64_t)sqlite3_column_int64(s, 4 + i);
	} else {
		rc = store_sqlerr(st, err, "counting kernel samples");
	}
	sqlite3_finalize(s);
	if (rc < 0 || out->samples == out->attributed)
		return rc;
	rc = prep(st, &s,
		  "SELECT t.why, count(*) AS n FROM type_attr t JOIN samples s ON s.id = t.sample_id"
		  " WHERE s.cpumode = ? AND t.how = 0 GROUP BY t.why",
		  err);
	if (rc < 0)
		return rc;
	sqlite3_bind_int(s, 1, C2C_MODE_KERNEL);
	/* reasons that differ only by a number (an offset, a register's
	 * address) are one reason: grouped by their text with numbers as N */
	struct why_count w[64];
	size_t nw = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *why = col_str(s, 0) ? col_str(s, 0) : "";
		uint64_t n = (uint64_t)sqlite3_column_int64(s, 1);
		char norm[128];
		why_normalize(why, norm, sizeof(norm));
		size_t i;
		for (i = 0; i < nw && strcmp(w[i].text, norm); i++)
			;
		if (i == nw && nw < sizeof(w) / sizeof(w[0])) {
			snprintf(w[nw].text, sizeof(w[nw].text), "%s", norm);
			w[nw++].n = 0;
		}
		if (i < nw)
			w[i].n += n;
	}
	for (size_t k = 0; k < sizeof(out->why) / sizeof(out->why[0]); k++) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < nw; i++)
			if (w[i].n && (best == SIZE_MAX || w[i].n > w[best].n))
				best = i;
		if (best == SIZE_MAX)
			break;
		snprintf(out->why[k], sizeof(out->why[k]), "%s", w[best].text);
		out->why_n[k] = w[best].n;
		w[best].n = 0;
	}
	sqlite3_finalize(s);
	return 0;
}
