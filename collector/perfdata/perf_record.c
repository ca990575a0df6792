/* Decoding single perf records and perf_event_attr (see perf_record.h).
 * Field order follows include/uapi/linux/perf_event.h. All loads go through
 * memcpy so records may sit at any alignment, and every read is bounded by
 * the record size: a field that would run past the record is an error. */
#include "collector/perfdata/perf_record.h"

#include <errno.h>
#include <string.h>

/* PERF_SAMPLE_* and PERF_FORMAT_* bits, spelled out so this file does not
 * depend on which kernel headers are installed. */
enum {
	S_IP = 1u << 0, S_TID = 1u << 1, S_TIME = 1u << 2, S_ADDR = 1u << 3,
	S_READ = 1u << 4, S_CALLCHAIN = 1u << 5, S_ID = 1u << 6, S_CPU = 1u << 7,
	S_PERIOD = 1u << 8, S_STREAM_ID = 1u << 9, S_RAW = 1u << 10,
	S_BRANCH_STACK = 1u << 11, S_REGS_USER = 1u << 12, S_STACK_USER = 1u << 13,
	S_WEIGHT = 1u << 14, S_DATA_SRC = 1u << 15, S_IDENTIFIER = 1u << 16,
	S_TRANSACTION = 1u << 17, S_REGS_INTR = 1u << 18, S_PHYS_ADDR = 1u << 19,
	S_AUX = 1u << 20, S_CGROUP = 1u << 21, S_DATA_PAGE_SIZE = 1u << 22,
	S_CODE_PAGE_SIZE = 1u << 23, S_WEIGHT_STRUCT = 1u << 24,
};
enum {
	F_TOTAL_TIME_ENABLED = 1u << 0, F_TOTAL_TIME_RUNNING = 1u << 1,
	F_ID = 1u << 2, F_GROUP = 1u << 3, F_LOST = 1u << 4,
};
enum {
	BR_HW_INDEX = 1u << 17,
	BR_COUNTERS = 1u << 19,
};

static uint64_t ld64(const unsigned char *p, bool swap)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return perf_bswap64_if(v, swap);
}

static uint32_t ld32(const unsigned char *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return perf_bswap32_if(v, swap);
}

static uint16_t ld16(const unsigned char *p, bool swap)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return perf_bswap16_if(v, swap);
}

struct perf_rec_header perf_record_header(const void *rec, bool swap)
{
	const unsigned char *p = rec;
	struct perf_rec_header h = {
		.type = ld32(p, swap),
		.misc = ld16(p + 4, swap),
		.size = ld16(p + 6, swap),
	};
	return h;
}

/* ---- attr ---- */

/* Bits within each byte of the flags word are reversed when a big-endian
 * machine wrote the file: a bitfield is allocated from the most significant
 * bit there. Like perf, the bytes themselves stay in place. */
static uint64_t attr_flags_swap(uint64_t raw_le_load)
{
	unsigned char b[8];
	uint64_t v;

	memcpy(b, &raw_le_load, 8);
	for (int i = 0; i < 8; i++) {
		unsigned char x = b[i], r = 0;
		for (int k = 0; k < 8; k++)
			if (x & (1u << k))
				r |= (unsigned char)(0x80u >> k);
		b[i] = r;
	}
	memcpy(&v, b, 8);
	/* precise_ip is a 2-bit field: after the per-byte reversal its two bits
	 * are in the right place but in the wrong order. */
	uint64_t pi = (v >> PERF_ATTR_PRECISE_SHIFT) & 3;
	pi = ((pi & 1) << 1) | (pi >> 1);
	v = (v & ~(uint64_t)PERF_ATTR_PRECISE_MASK) | (pi << PERF_ATTR_PRECISE_SHIFT);
	return v;
}

void perf_attr_set_flags(struct perf_attr_info *a, uint64_t flags)
{
	a->flags = flags;
	a->precise_ip = (uint8_t)((flags & PERF_ATTR_PRECISE_MASK) >> PERF_ATTR_PRECISE_SHIFT);
	a->freq = flags & PERF_ATTR_FREQ;
	a->inherit = flags & PERF_ATTR_INHERIT;
	a->sample_id_all = flags & PERF_ATTR_SAMPLE_ID_ALL;
	a->exclude_user = flags & PERF_ATTR_EXCLUDE_USER;
	a->exclude_kernel = flags & PERF_ATTR_EXCLUDE_KERNEL;
	a->exclude_hv = flags & PERF_ATTR_EXCLUDE_HV;
	a->exclude_host = flags & PERF_ATTR_EXCLUDE_HOST;
	a->exclude_guest = flags & PERF_ATTR_EXCLUDE_GUEST;
}

int perf_attr_decode(const void *buf, size_t avail, bool swap,
		     struct perf_attr_info *out, struct c2c_error *err)
{
	const unsigned char *p = buf;
	/* A zero-filled copy of the attr up to the largest size we know, so
	 * fields past the attr's size read as zero. */
	unsigned char a[PERF_ATTR_SIZE_VER8];
	uint32_t size;

	memset(out, 0, sizeof(*out));
	if (avail < PERF_ATTR_SIZE_VER0)
		return c2c_error_set(err, -EINVAL, "event attribute is %zu bytes, less than the minimum of %d",
				     avail, PERF_ATTR_SIZE_VER0);
	size = ld32(p + 4, swap);
	if (size == 0)
		size = PERF_ATTR_SIZE_VER0;   /* ABI 0 files leave it unset */
	if (size < PERF_ATTR_SIZE_VER0 || size > PERF_ATTR_SIZE_MAX)
		return c2c_error_set(err, -EINVAL, "event attribute size %u is invalid", size);
	if (size > avail)
		return c2c_error_set(err, -EINVAL, "event attribute claims %u bytes but only %zu are there",
				     size, avail);
	memset(a, 0, sizeof(a));
	memcpy(a, p, size < sizeof(a) ? size : sizeof(a));

	out->type = ld32(a, swap);
	out->size = size;
	out->config = ld64(a + 8, swap);
	out->sample_period = ld64(a + 16, swap);
	out->sample_type = ld64(a + 24, swap);
	out->read_format = ld64(a + 32, swap);
	{
		uint64_t fl;
		memcpy(&fl, a + 40, 8);
		perf_attr_set_flags(out, swap ? attr_flags_swap(fl) : fl);
	}
	out->wakeup_events = ld32(a + 48, swap);
	out->bp_type = ld32(a + 52, swap);
	out->config1 = ld64(a + 56, swap);
	out->config2 = ld64(a + 64, swap);
	out->branch_sample_type = ld64(a + 72, swap);
	out->sample_regs_user = ld64(a + 80, swap);
	out->sample_stack_user = ld32(a + 88, swap);
	out->clockid = (int32_t)ld32(a + 92, swap);
	out->sample_regs_intr = ld64(a + 96, swap);
	out->aux_watermark = ld32(a + 104, swap);
	out->sample_max_stack = ld16(a + 108, swap);
	out->aux_sample_size = ld32(a + 112, swap);
	out->sig_data = ld64(a + 120, swap);
	out->config3 = ld64(a + 128, swap);
	return 0;
}

/* ---- sample_id_all trailer ---- */

size_t perf_record_sample_id_size(const struct perf_attr_info *attr)
{
	uint64_t t;
	size_t n = 0;

	if (!attr || !attr->sample_id_all)
		return 0;
	t = attr->sample_type;
	n += !!(t & S_TID) + !!(t & S_TIME) + !!(t & S_ID) + !!(t & S_STREAM_ID) +
	     !!(t & S_CPU) + !!(t & S_IDENTIFIER);
	return n * 8;
}

int perf_record_parse_sample_id(const struct perf_attr_info *attr, const void *rec,
				size_t size, bool swap, struct perf_sample_id *out,
				struct c2c_error *err)
{
	const unsigned char *p = rec;
	size_t need = perf_record_sample_id_size(attr);
	uint64_t t;

	memset(out, 0, sizeof(*out));
	if (!need)
		return 0;
	if (size < 8 + need)
		return c2c_error_set(err, -EINVAL, "record of %zu bytes too short for its %zu-byte sample_id trailer",
				     size, need);
	/* The trailer is read backwards from the end, as its fixed part's
	 * length depends on the record type. */
	t = attr->sample_type;
	p += size - 8;
	if (t & S_IDENTIFIER) {
		out->id = ld64(p, swap);
		out->has |= PERF_SID_ID;
		p -= 8;
	}
	if (t & S_CPU) {
		out->cpu = ld32(p, swap);
		out->has |= PERF_SID_CPU;
		p -= 8;
	}
	if (t & S_STREAM_ID) {
		out->stream_id = ld64(p, swap);
		out->has |= PERF_SID_STREAM_ID;
		p -= 8;
	}
	if (t & S_ID) {
		out->id = ld64(p, swap);
		out->has |= PERF_SID_ID;
		p -= 8;
	}
	if (t & S_TIME) {
		out->time = ld64(p, swap);
		out->has |= PERF_SID_TIME;
		p -= 8;
	}
	if (t & S_TID) {
		out->pid = (int32_t)ld32(p, swap);
		out->tid = (int32_t)ld32(p + 4, swap);
		out->has |= PERF_SID_TID;
	}
	return 0;
}

int perf_record_sample_id(const struct perf_attr_info *attr, const void *rec, size_t size,
			  bool swap, uint64_t *id)
{
	const unsigned char *p = rec;
	uint64_t t = attr->sample_type;
	struct perf_rec_header h;
	size_t off;

	if (size < 8)
		return -EINVAL;
	h = perf_record_header(rec, swap);
	if (h.type == PERF_REC_SAMPLE) {
		if (t & S_IDENTIFIER) {
			off = 8;
		} else if (t & S_ID) {
			off = 8 + 8 * (!!(t & S_IP) + !!(t & S_TID) + !!(t & S_TIME) + !!(t & S_ADDR));
		} else {
			return 0;
		}
		if (off + 8 > size)
			return -EINVAL;
		*id = ld64(p + off, swap);
		return 1;
	}
	if (h.type >= PERF_REC_USER_TYPE_START || !attr->sample_id_all)
		return 0;
	if (t & S_IDENTIFIER) {
		off = 8;
	} else if (t & S_ID) {
		off = 8 * (1 + !!(t & S_STREAM_ID) + !!(t & S_CPU));
	} else {
		return 0;
	}
	if (size < 8 + off)
		return -EINVAL;
	*id = ld64(p + size - off, swap);
	return 1;
}

/* ---- samples ---- */

/* A bounded cursor over one record's payload. */
struct cur {
	const unsigned char *p;
	size_t left;
	bool swap;
	bool bad;
};

static uint64_t cur_u64(struct cur *c)
{
	uint64_t v;
	if (c->left < 8) {
		c->bad = true;
		c->left = 0;
		return 0;
	}
	v = ld64(c->p, c->swap);
	c->p += 8;
	c->left -= 8;
	return v;
}

/* Two u32 packed in one u64 slot (pid/tid, cpu/res). */
static void cur_u32x2(struct cur *c, uint32_t *a, uint32_t *b)
{
	if (c->left < 8) {
		c->bad = true;
		c->left = 0;
		*a = *b = 0;
		return;
	}
	*a = ld32(c->p, c->swap);
	*b = ld32(c->p + 4, c->swap);
	c->p += 8;
	c->left -= 8;
}

/* Skips n u64 words; false (and marks bad) when they are not there. */
static bool cur_skip_words(struct cur *c, uint64_t n)
{
	if (c->bad || n > c->left / 8) {
		c->bad = true;
		c->left = 0;
		return false;
	}
	c->p += n * 8;
	c->left -= (size_t)n * 8;
	return true;
}

static bool cur_skip_bytes(struct cur *c, uint64_t n)
{
	if (c->bad || n > c->left) {
		c->bad = true;
		c->left = 0;
		return false;
	}
	c->p += n;
	c->left -= (size_t)n;
	return true;
}

static void skip_read_values(struct cur *c, uint64_t rf)
{
	uint64_t per = 1 + !!(rf & F_ID) + !!(rf & F_LOST);

	if (rf & F_GROUP) {
		uint64_t nr = cur_u64(c);
		cur_skip_words(c, !!(rf & F_TOTAL_TIME_ENABLED) + !!(rf & F_TOTAL_TIME_RUNNING));
		if (nr > c->left / 8 / per) {
			c->bad = true;
			return;
		}
		cur_skip_words(c, nr * per);
	} else {
		cur_skip_words(c, per + !!(rf & F_TOTAL_TIME_ENABLED) + !!(rf & F_TOTAL_TIME_RUNNING));
	}
}

static _Thread_local uint64_t chain_scratch[65536 / 8];

int perf_record_parse_sample(const struct perf_attr_info *attr, const void *rec, size_t size,
			     bool swap, struct c2c_sample *s, struct c2c_error *err)
{
	const unsigned char *base = rec;
	uint64_t t = attr->sample_type;
	struct perf_rec_header h;
	struct cur c;
	uint32_t a32, b32;

	memset(s, 0, sizeof(*s));
	if (size < 8)
		return c2c_error_set(err, -EINVAL, "sample record of %zu bytes is shorter than its header", size);
	h = perf_record_header(rec, swap);
	c = (struct cur){ .p = base + 8, .left = size - 8, .swap = swap };
	s->event = attr->index;
	s->cpumode = (uint8_t)(h.misc & PERF_REC_MISC_CPUMODE_MASK);
	s->exact_ip = !!(h.misc & PERF_REC_MISC_EXACT_IP);

	if (t & S_IDENTIFIER) {
		s->id = cur_u64(&c);
		s->has |= C2C_HAS_ID;
	}
	if (t & S_IP) {
		s->ip = cur_u64(&c);
		s->has |= C2C_HAS_IP;
	}
	if (t & S_TID) {
		cur_u32x2(&c, &a32, &b32);
		s->pid = (int32_t)a32;
		s->tid = (int32_t)b32;
		s->has |= C2C_HAS_TID;
	}
	if (t & S_TIME) {
		s->time = cur_u64(&c);
		s->has |= C2C_HAS_TIME;
	}
	if (t & S_ADDR) {
		s->addr = cur_u64(&c);
		s->has |= C2C_HAS_ADDR;
	}
	if (t & S_ID) {
		s->id = cur_u64(&c);
		s->has |= C2C_HAS_ID;
	}
	if (t & S_STREAM_ID)
		cur_u64(&c);
	if (t & S_CPU) {
		cur_u32x2(&c, &a32, &b32);
		s->cpu = a32;
		s->has |= C2C_HAS_CPU;
	}
	if (t & S_PERIOD) {
		s->period = cur_u64(&c);
		s->has |= C2C_HAS_PERIOD;
	}
	if (t & S_READ)
		skip_read_values(&c, attr->read_format);
	if (t & S_CALLCHAIN) {
		uint64_t nr = cur_u64(&c);
		const unsigned char *ips = c.p;
		if (!c.bad && cur_skip_words(&c, nr)) {
			s->nr_callchain = (uint32_t)nr;
			if (!swap && ((uintptr_t)ips % _Alignof(uint64_t)) == 0) {
				s->callchain = (const uint64_t *)(const void *)ips;
			} else if (nr > sizeof(chain_scratch) / sizeof(chain_scratch[0])) {
				c.bad = true;   /* only a caller's oversized buffer gets here */
			} else {
				for (uint64_t i = 0; i < nr; i++)
					chain_scratch[i] = ld64(ips + i * 8, swap);
				s->callchain = chain_scratch;
			}
			s->has |= C2C_HAS_CALLCHAIN;
		}
	}
	if (t & S_RAW) {
		/* u32 size, then the bytes; the whole thing is padded so the
		 * next field is 8-byte aligned again. */
		if (c.left < 4) {
			c.bad = true;
		} else {
			uint32_t rsz = ld32(c.p, swap);
			if ((uint64_t)rsz + 4 > c.left) {
				c.bad = true;
			} else {
				s->raw_size = rsz;
				s->raw = c.p + 4;
				s->has |= C2C_HAS_RAW;
				cur_skip_bytes(&c, ((uint64_t)rsz + 4 + 7) & ~(uint64_t)7);
			}
		}
	}
	if (t & S_BRANCH_STACK) {
		uint64_t nr = cur_u64(&c);
		if (attr->branch_sample_type & BR_HW_INDEX)
			cur_u64(&c);
		if (!c.bad && nr > c.left / 24)
			c.bad = true;
		else
			cur_skip_words(&c, nr * 3);
		if (attr->branch_sample_type & BR_COUNTERS)
			cur_skip_words(&c, nr);
	}
	if (t & S_REGS_USER) {
		uint64_t abi = cur_u64(&c);
		if (abi)
			cur_skip_words(&c, (uint64_t)__builtin_popcountll(attr->sample_regs_user));
	}
	if (t & S_STACK_USER) {
		uint64_t sz = cur_u64(&c);
		if (sz) {
			cur_skip_bytes(&c, sz);
			cur_u64(&c);   /* dyn_size */
		}
	}
	if (t & (S_WEIGHT | S_WEIGHT_STRUCT)) {
		uint64_t w = cur_u64(&c);
		if (t & S_WEIGHT_STRUCT) {
			s->weight = (uint32_t)w;
			s->ins_lat = (uint16_t)(w >> 32);
		} else {
			s->weight = w;
		}
		s->has |= C2C_HAS_WEIGHT;
	}
	if (t & S_DATA_SRC) {
		s->data_src = cur_u64(&c);
		s->has |= C2C_HAS_DATA_SRC;
	}
	if (t & S_TRANSACTION) {
		s->transaction = cur_u64(&c);
		s->has |= C2C_HAS_TRANSACTION;
	}
	if (t & S_REGS_INTR) {
		uint64_t abi = cur_u64(&c);
		if (abi)
			cur_skip_words(&c, (uint64_t)__builtin_popcountll(attr->sample_regs_intr));
	}
	if (t & S_PHYS_ADDR) {
		s->phys_addr = cur_u64(&c);
		s->has |= C2C_HAS_PHYS_ADDR;
	}
	if (t & S_CGROUP)
		cur_u64(&c);
	if (t & S_DATA_PAGE_SIZE) {
		s->data_page_size = cur_u64(&c);
		s->has |= C2C_HAS_DATA_PAGE_SIZE;
	}
	if (t & S_CODE_PAGE_SIZE) {
		s->code_page_size = cur_u64(&c);
		s->has |= C2C_HAS_CODE_PAGE_SIZE;
	}
	if (t & S_AUX) {
		uint64_t sz = cur_u64(&c);
		cur_skip_bytes(&c, sz);
	}
	if (c.bad) {
		memset(s, 0, sizeof(*s));
		return c2c_error_set(err, -EINVAL,
				     "sample record of %zu bytes is too short for its sample_type 0x%llx",
				     size, (unsigned long long)t);
	}
	return 0;
}

/* ---- side-band ---- */

/* A NUL-terminated string starting at off, inside the record's first
 * `limit` bytes. */
static const char *rec_string(const unsigned char *p, size_t off, size_t limit)
{
	if (off >= limit || !memchr(p + off, '\0', limit - off))
		return NULL;
	return (const char *)p + off;
}

int perf_record_parse_mmap(const void *rec, size_t size, bool swap, struct c2c_mmap *m,
			   struct c2c_error *err)
{
	const unsigned char *p = rec;
	struct perf_rec_header h;
	size_t fn_off;

	memset(m, 0, sizeof(*m));
	if (size < 8)
		return c2c_error_set(err, -EINVAL, "mmap record of %zu bytes is shorter than its header", size);
	h = perf_record_header(rec, swap);
	fn_off = h.type == PERF_REC_MMAP2 ? 8 + 8 + 24 + 24 + 8 : 8 + 8 + 24;
	if (size <= fn_off)
		return c2c_error_set(err, -EINVAL, "%s record of %zu bytes is too short",
				     h.type == PERF_REC_MMAP2 ? "MMAP2" : "MMAP", size);
	m->cpumode = (uint8_t)(h.misc & PERF_REC_MISC_CPUMODE_MASK);
	m->pid = (int32_t)ld32(p + 8, swap);
	m->tid = (int32_t)ld32(p + 12, swap);
	m->start = ld64(p + 16, swap);
	m->len = ld64(p + 24, swap);
	m->pgoff = ld64(p + 32, swap);
	if (h.type == PERF_REC_MMAP2) {
		if (h.misc & PERF_REC_MISC_MMAP_BUILD_ID) {
			uint8_t bsz = p[40];
			if (bsz > sizeof(m->build_id))
				bsz = sizeof(m->build_id);
			m->build_id_size = bsz;
			memcpy(m->build_id, p + 44, bsz);
		} else {
			m->maj = ld32(p + 40, swap);
			m->min = ld32(p + 44, swap);
			m->ino = ld64(p + 48, swap);
			m->ino_generation = ld64(p + 56, swap);
		}
		m->prot = ld32(p + 64, swap);
		m->flags = ld32(p + 68, swap);
	}
	m->filename = rec_string(p, fn_off, size);
	if (!m->filename)
		return c2c_error_set(err, -EINVAL, "mmap record's file name is not terminated inside the record");
	return 0;
}

int perf_record_parse_comm(const struct perf_attr_info *attr, const void *rec, size_t size,
			   bool swap, struct c2c_comm *cm, struct c2c_error *err)
{
	const unsigned char *p = rec;
	struct perf_rec_header h;
	struct perf_sample_id sid;

	memset(cm, 0, sizeof(*cm));
	if (size <= 16)
		return c2c_error_set(err, -EINVAL, "COMM record of %zu bytes is too short", size);
	h = perf_record_header(rec, swap);
	cm->pid = (int32_t)ld32(p + 8, swap);
	cm->tid = (int32_t)ld32(p + 12, swap);
	cm->exec = !!(h.misc & PERF_REC_MISC_COMM_EXEC);
	cm->comm = rec_string(p, 16, size);
	if (!cm->comm)
		return c2c_error_set(err, -EINVAL, "COMM record's name is not terminated inside the record");
	if (attr && perf_record_parse_sample_id(attr, rec, size, swap, &sid, NULL) == 0 &&
	    (sid.has & PERF_SID_TIME))
		cm->time = sid.time;
	return 0;
}

int perf_record_parse_task(const void *rec, size_t size, bool swap, struct c2c_task *tk,
			   struct c2c_error *err)
{
	const unsigned char *p = rec;

	memset(tk, 0, sizeof(*tk));
	if (size < 8 + 16 + 8)
		return c2c_error_set(err, -EINVAL, "FORK/EXIT record of %zu bytes is too short", size);
	tk->pid = (int32_t)ld32(p + 8, swap);
	tk->ppid = (int32_t)ld32(p + 12, swap);
	tk->tid = (int32_t)ld32(p + 16, swap);
	tk->ptid = (int32_t)ld32(p + 20, swap);
	tk->time = ld64(p + 24, swap);
	return 0;
}

int perf_record_parse_lost(const struct perf_attr_info *attr, const void *rec, size_t size,
			   bool swap, struct c2c_lost *l, struct c2c_error *err)
{
	const unsigned char *p = rec;
	struct perf_rec_header h;

	memset(l, 0, sizeof(*l));
	if (size < 16)
		return c2c_error_set(err, -EINVAL, "LOST record of %zu bytes is too short", size);
	h = perf_record_header(rec, swap);
	if (h.type == PERF_REC_LOST_SAMPLES) {
		struct perf_sample_id sid;
		l->samples = true;
		l->lost = ld64(p + 8, swap);
		if (attr && perf_record_parse_sample_id(attr, rec, size, swap, &sid, NULL) == 0)
			l->id = sid.id;
		return 0;
	}
	if (size < 24)
		return c2c_error_set(err, -EINVAL, "LOST record of %zu bytes is too short", size);
	l->id = ld64(p + 8, swap);
	l->lost = ld64(p + 16, swap);
	return 0;
}

int perf_record_parse_throttle(const void *rec, size_t size, bool swap,
			       struct c2c_throttle *th, struct c2c_error *err)
{
	const unsigned char *p = rec;
	struct perf_rec_header h;

	memset(th, 0, sizeof(*th));
	if (size < 32)
		return c2c_error_set(err, -EINVAL, "THROTTLE record of %zu bytes is too short", size);
	h = perf_record_header(rec, swap);
	th->unthrottle = h.type == PERF_REC_UNTHROTTLE;
	th->time = ld64(p + 8, swap);
	th->id = ld64(p + 16, swap);
	th->stream_id = ld64(p + 24, swap);
	return 0;
}

bool perf_callchain_marker(uint64_t entry, uint8_t *mode)
{
	/* PERF_CONTEXT_* values occupy the top 4095 of the 64-bit range. */
	if (entry < (uint64_t)-4095)
		return false;
	switch (entry) {
	case (uint64_t)-128: *mode = C2C_MODE_KERNEL; break;        /* PERF_CONTEXT_KERNEL */
	case (uint64_t)-512: *mode = C2C_MODE_USER; break;          /* PERF_CONTEXT_USER */
	case (uint64_t)-32: *mode = C2C_MODE_HYPERVISOR; break;     /* PERF_CONTEXT_HV */
	case (uint64_t)-2176: *mode = C2C_MODE_GUEST_KERNEL; break; /* PERF_CONTEXT_GUEST_KERNEL */
	case (uint64_t)-2560: *mode = C2C_MODE_GUEST_USER; break;   /* PERF_CONTEXT_GUEST_USER */
	default: break;
	}
	return true;
}
