/* Chunks holding copies of records the reader queues (for perf's time
 * order, or because the input is a stream): a chunk is reused once the last
 * record copied into it was released. Used by the reader and the ordering
 * queue alike, so both depend on this file and not on each other. */
#include "collector/perfdata/perfdata_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK_SIZE = 1 << 20 };

void pd_ent_release(struct perfdata *pd, const struct pd_ent *e)
{
	struct pd_chunk *c = e->chunk;

	if (!c || --c->refs)
		return;
	if (c == pd->chunk_cur) {
		c->used = 0;
	} else {
		c->used = 0;
		c->next = pd->chunk_free;
		pd->chunk_free = c;
	}
}

int pd_copy_record(struct perfdata *pd, const unsigned char *rec, size_t size, struct pd_ent *e)
{
	struct pd_chunk *c = pd->chunk_cur;
	size_t need = (size + 7) & ~(size_t)7;

	if (!c || c->cap - c->used < need) {
		/* The current chunk is full: leave it to its last references. */
		if (c && c->refs == 0) {
			c->used = 0;
			c->next = pd->chunk_free;
			pd->chunk_free = c;
		}
		c = pd->chunk_free;
		if (c) {
			pd->chunk_free = c->next;
		} else {
			c = calloc(1, sizeof(*c));
			if (!c)
				return -ENOMEM;
			c->cap = CHUNK_SIZE;
			c->data = malloc(c->cap);
			if (!c->data) {
				free(c);
				return -ENOMEM;
			}
		}
		c->next = NULL;
		c->used = 0;
		pd->chunk_cur = c;
	}
	memcpy(c->data + c->used, rec, size);
	e->rec = c->data + c->used;
	e->chunk = c;
	c->used += need;
	c->refs++;
	return 0;
}
