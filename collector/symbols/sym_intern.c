/* String interning for the symbols module: map names are copied into
 * every forked process's maps, so they are stored once and compared by
 * pointer. An open-addressing hash set that owns its strings. */
#include <stdlib.h>
#include <string.h>

#include "collector/symbols/sym_priv.h"

struct sym_intern {
	char **slots;
	size_t cap, n;           /* cap is a power of two */
};

static uint64_t intern_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

struct sym_intern *sym_intern_new(void)
{
	struct sym_intern *in = calloc(1, sizeof(*in));
	if (!in)
		return NULL;
	in->cap = 256;
	in->slots = calloc(in->cap, sizeof(*in->slots));
	if (!in->slots) {
		free(in);
		return NULL;
	}
	return in;
}

void sym_intern_free(struct sym_intern *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->cap; i++)
		free(in->slots[i]);
	free(in->slots);
	free(in);
}

static int intern_grow(struct sym_intern *in)
{
	size_t ncap = in->cap * 2;
	char **ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -1;
	for (size_t i = 0; i < in->cap; i++) {
		if (!in->slots[i])
			continue;
		size_t j = intern_hash(in->slots[i]) & (ncap - 1);
		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = in->slots[i];
	}
	free(in->slots);
	in->slots = ns;
	in->cap = ncap;
	return 0;
}

const char *sym_intern_str(struct sym_intern *in, const char *s)
{
	if (!s)
		return NULL;
	if ((in->n + 1) * 4 > in->cap * 3 && intern_grow(in) < 0)
		return NULL;
	size_t j = intern_hash(s) & (in->cap - 1);
	while (in->slots[j]) {
		if (strcmp(in->slots[j], s) == 0)
			return in->slots[j];
		j = (j + 1) & (in->cap - 1);
	}
	in->slots[j] = strdup(s);
	if (!in->slots[j])
		return NULL;
	in->n++;
	return in->slots[j];
}
