/* Kernel symbols from a kallsyms-format file ("ADDR TYPE NAME [MODULE]"):
 * one sorted array, binary search. A symbol ends where the next address
 * starts (kallsyms has no sizes), as perf assumes for kallsyms. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/symbols/sym_priv.h"

struct ksym {
	uint64_t start;
	uint32_t name;           /* offsets into the string arena */
	uint32_t module;         /* 0: vmlinux */
	uint32_t idx;            /* line order in the file */
	char type;
};

struct sym_kallsyms {
	struct ksym *v;
	size_t n;
	char *strs;              /* arena; offset 0 is "" */
	size_t strs_len;
};

/* Absolute symbols (percpu offsets, ...), undefined and debugging entries
 * are not places in the address space. */
static bool ktype_wanted(char t)
{
	return strchr("tTwWdDbBrRvV", t) != NULL && t != '\0';
}

static bool ktype_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* Objects: data, bss, read-only data, weak objects. */
static bool ktype_data(char t)
{
	return strchr("dDbBrRvV", t) != NULL && t != '\0';
}

/* kallsyms has no sizes: a data symbol reaches the next symbol. Without
 * CONFIG_KALLSYMS_ALL the only data symbols are section markers
 * (__start_init_stack, __start_rodata, ...) whose "next symbol" can be
 * megabytes on, so an address is named by one only this close to it: big
 * enough for the largest static objects that hold locks (rcu_state with
 * its rcu_node array is a few hundred KiB at NR_CPUS=8192). */
#define KSYM_DATA_MAX ((uint64_t)512 * 1024)

/* By address; at one address in file order. perf gives every symbol at
 * one address but the last listed a zero length (symbols__fixup_end runs
 * before its alias choice), so the last listed is the one it shows; the
 * lookup does the same by taking the last of a group. */
static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static uint32_t arena_add(struct sym_kallsyms *k, size_t *cap, const char *s, size_t len)
{
	if (k->strs_len + len + 1 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 1 << 16;
		while (ncap < k->strs_len + len + 1)
			ncap *= 2;
		char *ns = realloc(k->strs, ncap);
		if (!ns)
			return UINT32_MAX;
		k->strs = ns;
		*cap = ncap;
	}
	if (k->strs_len + len + 1 > UINT32_MAX)
		return UINT32_MAX;
	uint32_t off = (uint32_t)k->strs_len;
	memcpy(k->strs + off, s, len);
	k->strs[off + len] = '\0';
	k->strs_len += len + 1;
	return off;
}

void sym_kallsyms_free(struct sym_kallsyms *k)
{
	if (!k)
		return;
	free(k->v);
	free(k->strs);
	free(k);
}

struct sym_kallsyms *sym_kallsyms_load(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	struct sym_kallsyms *k = calloc(1, sizeof(*k));
	size_t vcap = 0, scap = 0;
	char line[1024];
	bool ok = k != NULL;

	if (ok && arena_add(k, &scap, "", 0) == UINT32_MAX)
		ok = false;
	while (ok && fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		if (!strchr(line, '\n') && !feof(f)) {
			/* Longer than any real kallsyms line: drop all of it. */
			int ch;
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			continue;
		}
		uint64_t addr = strtoull(p, &end, 16);
		if (end == p || !isspace((unsigned char)*end))
			continue;
		p = end;
		while (*p == ' ' || *p == '\t')
			p++;
		char type = *p;
		if (!type || !isspace((unsigned char)p[1]) || addr == 0 || !ktype_wanted(type))
			continue;
		p += 1;
		while (*p == ' ' || *p == '\t')
			p++;
		size_t nlen = strcspn(p, " \t\r\n");
		if (nlen == 0)
			continue;
		const char *name = p;
		p += nlen;
		while (*p == ' ' || *p == '\t')
			p++;
		const char *mod = NULL;
		size_t mlen = 0;
		if (*p == '[') {
			mod = p + 1;
			mlen = strcspn(mod, "]\r\n");
		}
		if (k->n == vcap) {
			size_t nc = vcap ? vcap * 2 : 4096;
			struct ksym *nv = realloc(k->v, nc * sizeof(*nv));
			if (!nv) {
				ok = false;
				break;
			}
			k->v = nv;
			vcap = nc;
		}
		struct ksym *s = &k->v[k->n];
		s->start = addr;
		s->type = type;
		s->name = arena_add(k, &scap, name, nlen);
		s->module = mod && mlen ? arena_add(k, &scap, mod, mlen) : 0;
		if (s->name == UINT32_MAX || s->module == UINT32_MAX) {
			ok = false;
			break;
		}
		s->idx = (uint32_t)k->n;
		k->n++;
	}
	fclose(f);
	if (!ok || k->n == 0) {
		sym_kallsyms_free(k);
		return NULL;
	}
	qsort(k->v, k->n, sizeof(*k->v), ksym_cmp);
	return k;
}

size_t sym_kallsyms_count(const struct sym_kallsyms *k)
{
	return k ? k->n : 0;
}

static uint64_t page_after(uint64_t a)
{
	return a > UINT64_MAX - 8192 ? UINT64_MAX : ((a + 4095) & ~(uint64_t)4095) + 4096;
}

/* The symbol covering addr, with perf's ends (symbols__fixup_end for
 * kallsyms): the next address; a page past a vmlinux/module boundary; a
 * page past its page for the very last one. At one address the last
 * listed, the only one perf leaves a length. */
static const struct ksym *kallsyms_find(const struct sym_kallsyms *k, uint64_t addr)
{
	if (!k)
		return NULL;
	size_t lo = 0, hi = k->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct ksym *s = &k->v[lo - 1];
	uint64_t end;
	if (lo == k->n)
		end = page_after(s->start);
	else if ((s->module != 0) != (k->v[lo].module != 0))
		end = page_after(s->start + 1);
	else
		end = k->v[lo].start;
	return addr < end ? s : NULL;
}

static bool ksym_out(const struct sym_kallsyms *k, const struct ksym *s, const char **name,
		     uint64_t *start, const char **module)
{
	if (!s)
		return false;
	*name = k->strs + s->name;
	*start = s->start;
	if (module)
		*module = s->module ? k->strs + s->module : NULL;
	return true;
}

bool sym_kallsyms_text(const struct sym_kallsyms *k, uint64_t addr,
		       const char **name, uint64_t *start, const char **module)
{
	const struct ksym *s = kallsyms_find(k, addr);
	return ksym_out(k, s && ktype_text(s->type) ? s : NULL, name, start, module);
}

bool sym_kallsyms_data(const struct sym_kallsyms *k, uint64_t addr,
		       const char **name, uint64_t *start, const char **module)
{
	const struct ksym *s = kallsyms_find(k, addr);

	/* never the nearest function: a slab or stack address past the
	 * kernel's text is no part of it */
	if (s && (!ktype_data(s->type) || addr - s->start >= KSYM_DATA_MAX))
		s = NULL;
	return ksym_out(k, s, name, start, module);
}
