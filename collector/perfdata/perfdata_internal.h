/* Private to the perf.data reader (collector/perfdata_*.c): the reader
 * object and the helpers its files share. Nothing outside perfdata_*.c
 * includes this. */
#ifndef C2C_PERFDATA_INTERNAL_H
#define C2C_PERFDATA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/perfdata/perfdata.h"

/* A block of memory holding copies of records that do not live in the
 * mapped file (pipe input, decompressed data). Freed (recycled) once no
 * queued or delivered record points into it. */
struct pd_chunk {
	struct pd_chunk *next;       /* free list */
	size_t used, cap;
	uint64_t refs;
	unsigned char *data;
};

/* One record waiting in the ordering queue or the delivery FIFO. */
struct pd_ent {
	uint64_t ts;
	uint64_t seq;                /* arrival order, breaks timestamp ties like perf */
	const unsigned char *rec;
	struct pd_chunk *chunk;      /* NULL when rec points into the mapped input */
	uint32_t size;
	int32_t attr;                /* attr index, -1 when unknown */
};

struct pd_vec {                  /* growable array of pd_ent */
	struct pd_ent *v;
	size_t n, cap, head;         /* head: first live element (FIFO use) */
};

struct perfdata {
	char *path;
	int fd;                      /* -1 when none */
	const unsigned char *map;    /* whole input when mapped or in memory */
	size_t map_len;
	bool map_owned;              /* munmap at close */
	unsigned char *slurp;        /* malloc'd copy of a non-mappable file-format input */
	/* A big regular file is not mapped whole (the address space it would
	 * take may not be there: ulimit -v): it is read through a window of
	 * its bytes [win_off, win_off + win_len), map stays NULL and map_len
	 * is the file's size. */
	bool windowed;
	unsigned char *win;
	size_t win_len, win_cap;
	uint64_t win_off;

	bool pipe, swap, ordered;
	struct perfdata_header hdr;

	/* attrs */
	struct perf_attr_info **attrs;  /* each owned (pd_alloc), stable addresses */
	size_t nr_attrs, cap_attrs;
	/* Per attr (same index and capacity as attrs): the name the latest
	 * PERF_RECORD_EVENT_UPDATE NAME gave it (pd_alloc), or NULL. Wins over
	 * EVENT_DESC, as in perf, where the update is always processed later. */
	const char **upd_names;
	struct { uint64_t id; int32_t idx; bool used; } *idmap;
	size_t idmap_cap, idmap_n;

	/* EVENT_DESC entries, matched to attrs by first id (or by position) */
	struct pd_desc { const char *name; uint64_t first_id; bool has_id; } *descs;
	size_t nr_descs;

	/* everything allocated for header data, freed at close */
	void **owned;
	size_t nr_owned, cap_owned;

	/* input position */
	uint64_t pos, end;           /* mapped: offsets into map */
	uint64_t released;           /* map bytes before this were given back (madvise) */
	bool stream;                 /* reading a real pipe with read() */
	unsigned char *sbuf;         /* stream buffer */
	size_t sbuf_start, sbuf_end, sbuf_cap;
	uint64_t stream_off;         /* file offset of sbuf[sbuf_start] */
	unsigned char rec_scratch[65536];  /* the stream record being processed */
	bool stream_eof;

	/* decompression */
	void *zds;                   /* ZSTD_DStream */
	unsigned char *dbuf;
	size_t dbuf_len, dbuf_cap;

	/* ordering */
	struct pd_vec queue;         /* sorted records kept from earlier rounds */
	struct pd_vec incoming;      /* records of the current round, unsorted */
	struct pd_vec fifo;          /* ready for delivery */
	struct pd_vec tmp;
	uint64_t seq;
	uint64_t next_flush, max_ts, last_flush;
	size_t queue_limit;          /* records queued before a half flush (memory bound) */
	bool have_delivered;
	struct pd_ent delivered;     /* the record handed out last (released on next call) */

	struct pd_chunk *chunk_cur, *chunk_free;

	bool input_done, finished, failed;
	struct c2c_error pending_err;   /* damage seen; reported once the FIFO drains */
	bool have_pending_err;

	struct perfdata_stats stats;
};

/* Allocation tracked until close. */
void *pd_alloc(struct perfdata *pd, size_t size);
/* len bytes of the input at off (the caller checked they are inside it):
 * the map, or for a windowed file a copy read for the header parser
 * (tracked until close). NULL when they cannot be read. */
const unsigned char *pd_span(struct perfdata *pd, uint64_t off, uint64_t len);
/* perfdata_window.c: n bytes at off read whole (0, or a negative errno),
 * and the n bytes of a windowed file at off, the window moved and refilled
 * when they are not in it (NULL when they cannot be read; valid until the
 * next call). */
int pd_pread_full(int fd, unsigned char *buf, size_t n, uint64_t off);
const unsigned char *pd_window_at(struct perfdata *pd, uint64_t off, size_t n);
char *pd_strndup(struct perfdata *pd, const char *s, size_t n);

/* Parses the file header, attrs section and feature sections of a mapped
 * file-format input (perfdata_header.c). */
int pd_read_file_header(struct perfdata *pd, struct c2c_error *err);
/* Parses one feature section's bytes into pd->hdr. Returns 0, or negative
 * when the section is malformed (the caller counts it and goes on). */
int pd_parse_feature(struct perfdata *pd, unsigned feat, const unsigned char *p, size_t len);
/* Adds an attr (decoded) with its ids; names are resolved later. */
int pd_add_attr(struct perfdata *pd, const struct perf_attr_info *a, const unsigned char *ids,
		size_t nr_ids, struct c2c_error *err);
/* Gives every attr a name (EVENT_UPDATE NAME, else EVENT_DESC, else
 * derived from type/config). */
void pd_name_attrs(struct perfdata *pd);
/* A PERF_RECORD_EVENT_UPDATE record (header included): NAME renames the
 * attr owning the record's id; UNIT, SCALE and CPUS are checked and
 * ignored. Returns 0, or negative when the record is malformed or its id
 * belongs to no attr (the caller counts it as a bad record). */
int pd_event_update(struct perfdata *pd, const unsigned char *rec, size_t size);
/* A build-id record (HEADER_BUILD_ID or inside the BUILD_ID feature). */
int pd_add_build_id(struct perfdata *pd, const unsigned char *p, size_t len);

/* Ordering (perfdata_order.c), after perf's util/ordered-events.c: records
 * with a timestamp wait in a queue; each FINISHED_ROUND flushes those up to
 * the largest timestamp seen by the previous round; the end flushes all.
 * Records without a timestamp go straight to the delivery FIFO. */
int pd_order_add(struct perfdata *pd, const struct pd_ent *e, bool has_ts);
int pd_order_round(struct perfdata *pd);
int pd_order_final(struct perfdata *pd);
int pd_fifo_push(struct perfdata *pd, const struct pd_ent *e);
bool pd_fifo_pop(struct perfdata *pd, struct pd_ent *out);
void pd_order_fini(struct perfdata *pd);

/* Record copies (perfdata_reader.c): releases one reference to e->chunk. */
void pd_ent_release(struct perfdata *pd, const struct pd_ent *e);
/* Copies rec into the current chunk (a new one when full); e points at it. */
int pd_copy_record(struct perfdata *pd, const unsigned char *rec, size_t size, struct pd_ent *e);

/* Load helpers honouring pd->swap. */
uint64_t pd_u64(const struct perfdata *pd, const unsigned char *p);
uint32_t pd_u32(const struct perfdata *pd, const unsigned char *p);

#endif /* C2C_PERFDATA_INTERNAL_H */
