/* Tracepoint decoding (libtraceevent, by field name), perf tracing-data
 * parsing, and contention begin/end pairing. */
#include "tests/unit/test.h"
#include "collector/tracepoint/lockwait.h"
#include "collector/tracepoint/tracepoint.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>

/* The formats of a 6.x kernel (as in /sys/kernel/tracing/events/lock). */
static const char fmt_begin[] =
	"name: contention_begin\nID: 408\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:void * lock_addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int flags;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%p (flags=%s)\", REC->lock_addr, __print_flags(REC->flags, \"|\", "
	"{ (1U << 0), \"SPIN\" }, { (1U << 1), \"READ\" }, { (1U << 2), \"WRITE\" })\n";
static const char fmt_end[] =
	"name: contention_end\nID: 407\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:void * lock_addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int ret;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%p (ret=%d)\", REC->lock_addr, REC->ret\n";
/* A made-up kernel that put flags first: decoding must follow the format. */
static const char fmt_begin_moved[] =
	"name: contention_begin\nID: 77\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned int flags;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:void * lock_addr;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"%p\", REC->lock_addr\n";

static void put16(unsigned char *b, size_t off, uint16_t v) { memcpy(b + off, &v, 2); }
static void put32(unsigned char *b, size_t off, uint32_t v) { memcpy(b + off, &v, 4); }
static void put64(unsigned char *b, size_t off, uint64_t v) { memcpy(b + off, &v, 8); }

static void make_begin(unsigned char *b, int32_t pid, uint64_t lock, uint32_t flags)
{
	memset(b, 0, 24);
	put16(b, 0, 408);
	put32(b, 4, (uint32_t)pid);
	put64(b, 8, lock);
	put32(b, 16, flags);
}

static void make_end(unsigned char *b, int32_t pid, uint64_t lock, int32_t ret)
{
	memset(b, 0, 24);
	put16(b, 0, 407);
	put32(b, 4, (uint32_t)pid);
	put64(b, 8, lock);
	put32(b, 16, (uint32_t)ret);
}

static struct tp_decoder *lock_decoder(void)
{
	struct tp_decoder *dec = tp_decoder_new(NULL);

	if (!dec)
		return NULL;
	if (tp_decoder_add_format(dec, "lock", fmt_begin, sizeof(fmt_begin) - 1, NULL) != 408 ||
	    tp_decoder_add_format(dec, "lock", fmt_end, sizeof(fmt_end) - 1, NULL) != 407) {
		tp_decoder_free(dec);
		return NULL;
	}
	return dec;
}

static void test_decode_contention(void)
{
	struct tp_decoder *dec = lock_decoder();
	unsigned char raw[24];
	struct tp_record rec;
	struct c2c_error err = { 0 };
	int rc1, rc2;

	CHECK(dec != NULL);
	CHECK_EQ_U64(tp_decoder_find(dec, "lock", "contention_end"), 407);
	make_begin(raw, 1234, 0xffff888100a0b010ull, 0x2);
	rc1 = tp_decode(dec, raw, sizeof(raw), &rec, &err);
	if (rc1 == 0 && rec.kind == TP_CONTENTION_BEGIN && rec.lock_addr == 0xffff888100a0b010ull &&
	    rec.flags == 2 && rec.common_pid == 1234 && !strcmp(rec.name, "contention_begin")) {
		make_end(raw, 1234, 0xffff888100a0b010ull, -4);
		rc2 = tp_decode(dec, raw, sizeof(raw), &rec, &err);
		rc1 = rc2 == 0 && !strcmp(rec.system, "lock"); /* rec borrows dec's strings */
		tp_decoder_free(dec);
		CHECK(rc2 == 0);
		CHECK(rc1);
		CHECK(rec.kind == TP_CONTENTION_END);
		CHECK_EQ_U64(rec.lock_addr, 0xffff888100a0b010ull);
		CHECK(rec.ret == -4);
		return;
	}
	tp_decoder_free(dec);
	CHECK(!"begin payload decoded wrongly");
}

static void test_decode_by_name_not_offset(void)
{
	struct tp_decoder *dec = tp_decoder_new(NULL);
	unsigned char raw[24] = { 0 };
	struct tp_record rec;
	int rc;

	CHECK(dec != NULL);
	CHECK(tp_decoder_add_format(dec, "lock", fmt_begin_moved, sizeof(fmt_begin_moved) - 1, NULL) == 77);
	put16(raw, 0, 77);
	put32(raw, 8, 0x21);
	put64(raw, 16, 0xdead0040ull);
	rc = tp_decode(dec, raw, sizeof(raw), &rec, NULL);
	tp_decoder_free(dec);
	CHECK(rc == 0);
	CHECK(rec.kind == TP_CONTENTION_BEGIN);
	CHECK_EQ_U64(rec.lock_addr, 0xdead0040ull);
	CHECK_EQ_U64(rec.flags, 0x21);
}

static void test_decode_errors(void)
{
	struct tp_decoder *dec = lock_decoder();
	unsigned char raw[24];
	struct tp_record rec;
	struct c2c_error err = { 0 };
	int unknown, shortrc;

	CHECK(dec != NULL);
	make_begin(raw, 1, 0x1000, 0);
	put16(raw, 0, 999);
	unknown = tp_decode(dec, raw, sizeof(raw), &rec, &err);
	make_begin(raw, 1, 0x1000, 0);
	shortrc = tp_decode(dec, raw, 12, &rec, &err); /* lock_addr cut off */
	tp_decoder_free(dec);
	CHECK(unknown == -ENOENT);
	CHECK(shortrc == -EINVAL);
	CHECK(strstr(err.msg, "lock_addr") != NULL);
	dec = tp_decoder_new(NULL);
	CHECK(dec != NULL);
	unknown = tp_decoder_add_format(dec, "lock", "garbage", 7, &err);
	tp_decoder_free(dec);
	CHECK(unknown < 0);
}

/* Builds a perf tracing-data blob holding the two lock formats. */
static size_t make_tracing_data(unsigned char *b, size_t cap)
{
	static const char hp[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
	size_t n = 0;
	uint32_t u32;
	uint64_t u64;

#define PUT(p, len) do { if (n + (len) > cap) return 0; memcpy(b + n, (p), (len)); n += (len); } while (0)
	PUT("\027\010\104tracing", 10);
	PUT("0.6", 4);
	PUT("\0", 1);            /* little endian */
	PUT("\10", 1);           /* long size 8 */
	u32 = 4096; PUT(&u32, 4);
	PUT("header_page", 12);
	u64 = sizeof(hp) - 1; PUT(&u64, 8); PUT(hp, sizeof(hp) - 1);
	PUT("header_event", 13);
	u64 = 3; PUT(&u64, 8); PUT("abc", 3);
	u32 = 1; PUT(&u32, 4);   /* one ftrace format, skipped */
	u64 = 5; PUT(&u64, 8); PUT("xxxxx", 5);
	u32 = 1; PUT(&u32, 4);   /* one system */
	PUT("lock", 5);
	u32 = 2; PUT(&u32, 4);
	u64 = sizeof(fmt_begin) - 1; PUT(&u64, 8); PUT(fmt_begin, sizeof(fmt_begin) - 1);
	u64 = sizeof(fmt_end) - 1; PUT(&u64, 8); PUT(fmt_end, sizeof(fmt_end) - 1);
	u32 = 0; PUT(&u32, 4);   /* kallsyms */
	u32 = 0; PUT(&u32, 4);   /* printk */
	u64 = 0; PUT(&u64, 8);   /* cmdlines */
#undef PUT
	return n;
}

static void test_tracing_data(void)
{
	static unsigned char blob[8192];
	size_t n = make_tracing_data(blob, sizeof(blob));
	struct tp_decoder *dec = tp_decoder_new(NULL);
	struct c2c_error err = { 0 };
	unsigned char raw[24];
	struct tp_record rec;
	int added, rc, cut;

	CHECK(n > 0 && dec != NULL);
	added = tp_decoder_load_tracing_data(dec, blob, n, &err);
	make_end(raw, 7, 0x5000, 0);
	rc = tp_decode(dec, raw, sizeof(raw), &rec, NULL);
	tp_decoder_free(dec);
	CHECK(added == 2);
	CHECK(rc == 0 && rec.kind == TP_CONTENTION_END && rec.lock_addr == 0x5000);
	/* Every truncation is an error, never a crash. */
	for (size_t len = 0; len < n - 16; len += 7) {
		dec = tp_decoder_new(NULL);
		CHECK(dec != NULL);
		cut = tp_decoder_load_tracing_data(dec, blob, len, &err);
		tp_decoder_free(dec);
		CHECK(cut < 0);
	}
}

static struct c2c_sample tp_sample(int32_t tid, uint64_t time, const unsigned char *raw)
{
	return (struct c2c_sample){
		.has = C2C_HAS_TID | C2C_HAS_TIME | C2C_HAS_RAW | C2C_HAS_CPU,
		.pid = tid, .tid = tid, .time = time, .cpu = 1,
		.raw = raw, .raw_size = 24,
	};
}

static void test_pairing(void)
{
	struct tp_decoder *dec = lock_decoder();
	struct lockwait_pairer *p = lockwait_new(NULL);
	unsigned char raw[24];
	struct lockwait w;
	struct lockwait_stats st;
	struct c2c_sample s;
	uint64_t chain[4] = { (uint64_t)-128, 0xffffffff81000010ull, 0xffffffff81000020ull, 0xffffffff81000030ull };
	int r[8];

	CHECK(dec && p);
	/* tid 10: begin (with chain), nested begin on same lock, end: one wait
	 * timed from the first begin. */
	make_begin(raw, 10, 0xa000, 0x20 | 0x1);
	s = tp_sample(10, 1000, raw);
	s.has |= C2C_HAS_CALLCHAIN;
	s.callchain = chain;
	s.nr_callchain = 4;
	r[0] = lockwait_feed_raw(p, dec, &s, &w, NULL);
	make_begin(raw, 10, 0xa000, 0x20);
	s = tp_sample(10, 1500, raw);
	r[1] = lockwait_feed_raw(p, dec, &s, &w, NULL);
	/* tid 11 interleaves on another lock */
	make_begin(raw, 11, 0xb000, 0x2);
	s = tp_sample(11, 1600, raw);
	r[2] = lockwait_feed_raw(p, dec, &s, &w, NULL);
	make_end(raw, 10, 0xa000, 0);
	s = tp_sample(10, 3000, raw);
	r[3] = lockwait_feed_raw(p, dec, &s, &w, NULL);
	CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 1);
	CHECK_EQ_U64(w.time, 1000);
	CHECK_EQ_U64(w.wait_ns, 2000);
	CHECK_EQ_U64(w.lock_addr, 0xa000);
	CHECK_EQ_U64(w.flags, 0x21);
	CHECK(w.tid == 10);
	CHECK_EQ_U64(w.nr_callchain, 4);
	CHECK_EQ_U64(w.callchain[1], 0xffffffff81000010ull);
	/* end on tid 11 for the wrong lock: unmatched; then the right one. */
	make_end(raw, 11, 0xc000, 0);
	s = tp_sample(11, 3100, raw);
	r[4] = lockwait_feed_raw(p, dec, &s, &w, NULL);
	make_end(raw, 11, 0xb000, 0);
	s = tp_sample(11, 3200, raw);
	r[5] = lockwait_feed_raw(p, dec, &s, &w, NULL);
	CHECK(r[4] == 0 && r[5] == 1);
	CHECK_EQ_U64(w.wait_ns, 1600);
	CHECK_EQ_U64(w.nr_callchain, 0);
	/* an end with no begin at all; a second lock while the first is open
	 * (an interrupt's spinlock during a mutex wait): both stay open, as in perf */
	make_end(raw, 12, 0xd000, 0);
	s = tp_sample(12, 4000, raw);
	r[6] = lockwait_feed_raw(p, dec, &s, &w, NULL);
	make_begin(raw, 13, 0xe000, 0);
	s = tp_sample(13, 4100, raw);
	lockwait_feed_raw(p, dec, &s, &w, NULL);
	make_begin(raw, 13, 0xf000, 0);
	s = tp_sample(13, 4200, raw);
	r[7] = lockwait_feed_raw(p, dec, &s, &w, NULL);
	lockwait_get_stats(p, &st);
	lockwait_free(p);
	tp_decoder_free(dec);
	CHECK(r[6] == 0 && r[7] == 0);
	CHECK_EQ_U64(st.begins, 5);
	CHECK_EQ_U64(st.ends, 4);
	CHECK_EQ_U64(st.paired, 2);
	CHECK_EQ_U64(st.nested_begins, 1);
	CHECK_EQ_U64(st.dropped_begins, 0);
	CHECK_EQ_U64(st.unmatched_ends, 2);
	CHECK_EQ_U64(st.pending, 2);
}

/* Feeds a begin or end of (tid, lock) at time t with stack key key. */
static struct lockwait_event feed_ev(struct lockwait_pairer *p, struct tp_decoder *dec, bool begin, int32_t tid,
				     uint64_t lock, uint32_t flags, uint64_t t, uint64_t key)
{
	unsigned char raw[24];
	struct lockwait_event ev;
	struct tp_record rec;
	struct c2c_sample s;

	if (begin)
		make_begin(raw, tid, lock, flags);
	else
		make_end(raw, tid, lock, 0);
	s = tp_sample(tid, t, raw);
	memset(&ev, 0, sizeof(ev));
	if (tp_decode(dec, raw, sizeof(raw), &rec, NULL) == 0)
		lockwait_feed_event(p, &s, &rec, key, &ev, NULL, NULL);
	return ev;
}

/* perf lock contention's corner cases (builtin-lock.c): the wait counts at
 * its begin, its time at its end; an end before any begin (a wait spanning
 * the recording's start) and a begin never ended (spanning its end);
 * nested begins (mutex spin then sleep); interrupted waits (a second lock
 * while the first is open); and the caller table's dropped end. */
static void test_pairing_as_perf(void)
{
	struct tp_decoder *dec = lock_decoder();
	struct lockwait_pairer *p = lockwait_new(NULL);
	struct lockwait_pairer *c = lockwait_new_mode(LOCKWAIT_BY_CALLER, NULL);
	struct lockwait_event ev;
	struct lockwait_stats st;

	CHECK(dec && p && c);
	/* started before the recording: only an end */
	ev = feed_ev(p, dec, false, 20, 0xa0, 0, 100, 0);
	CHECK(ev.kind == LOCKWAIT_EV_NONE);
	/* mutex: spin begin (MUTEX|SPIN), sleep begin (MUTEX), end: one wait with the first flags */
	ev = feed_ev(p, dec, true, 20, 0xa0, 0x21, 200, 0);
	CHECK(ev.kind == LOCKWAIT_EV_BEGIN && ev.counted);
	ev = feed_ev(p, dec, true, 20, 0xa0, 0x20, 250, 0);
	CHECK(ev.kind == LOCKWAIT_EV_NONE);
	/* interrupted: a spinlock taken and waited for inside the mutex wait */
	ev = feed_ev(p, dec, true, 20, 0xb0, 0x1, 260, 0);
	CHECK(ev.kind == LOCKWAIT_EV_BEGIN && ev.counted);
	ev = feed_ev(p, dec, false, 20, 0xb0, 0, 270, 0);
	CHECK(ev.kind == LOCKWAIT_EV_ACQUIRED);
	CHECK_EQ_U64(ev.wait_ns, 10);
	ev = feed_ev(p, dec, false, 20, 0xa0, 0, 400, 0);
	CHECK(ev.kind == LOCKWAIT_EV_ACQUIRED);
	CHECK_EQ_U64(ev.wait_ns, 200);
	CHECK_EQ_U64(ev.flags, 0x21);
	/* a second end: nothing open */
	ev = feed_ev(p, dec, false, 20, 0xa0, 0, 450, 0);
	CHECK(ev.kind == LOCKWAIT_EV_NONE);
	/* never ended: counted, pending */
	ev = feed_ev(p, dec, true, 21, 0xa0, 0x20, 500, 0);
	CHECK(ev.kind == LOCKWAIT_EV_BEGIN && ev.counted);
	lockwait_get_stats(p, &st);
	CHECK_EQ_U64(st.begins, 4);
	CHECK_EQ_U64(st.nested_begins, 1);
	CHECK_EQ_U64(st.paired, 2);
	CHECK_EQ_U64(st.unmatched_ends, 2);
	CHECK_EQ_U64(st.pending, 1);

	/* By caller: the end's key 0x99 no begin has had -> dropped, the wait
	 * stays open; the next begin is nested; the next end (key 0x11) closes
	 * the first wait, from its first begin. */
	ev = feed_ev(c, dec, true, 30, 0xc0, 0x1, 1000, 0x11);
	CHECK(ev.kind == LOCKWAIT_EV_BEGIN && ev.counted && ev.new_key);
	ev = feed_ev(c, dec, false, 30, 0xc0, 0, 1100, 0x99);
	CHECK(ev.kind == LOCKWAIT_EV_NONE);
	ev = feed_ev(c, dec, true, 30, 0xc0, 0x1, 1200, 0x11);
	CHECK(ev.kind == LOCKWAIT_EV_NONE);
	/* a nested begin with a new key still makes the key known (perf's entry) */
	ev = feed_ev(c, dec, true, 30, 0xc0, 0x1, 1250, 0x22);
	CHECK(ev.kind == LOCKWAIT_EV_BEGIN && !ev.counted && ev.new_key);
	ev = feed_ev(c, dec, false, 30, 0xc0, 0, 1300, 0x22);
	CHECK(ev.kind == LOCKWAIT_EV_ACQUIRED);
	CHECK_EQ_U64(ev.wait_ns, 300);
	CHECK_EQ_U64(ev.key, 0x22);
	lockwait_get_stats(c, &st);
	CHECK_EQ_U64(st.dropped_ends, 1);
	CHECK_EQ_U64(st.paired, 1);
	lockwait_free(p);
	lockwait_free(c);
	tp_decoder_free(dec);
}

static bool fake_is_lock(void *ctx, uint64_t ip)
{
	(void)ctx;
	return ip >= 0x1000 && ip < 0x2000;
}

static bool fake_resolved(void *ctx, uint64_t ip)
{
	(void)ctx;
	return ip != 0x5000;
}

/* perf's stack key and caller: 8 real frames (markers not counted), the
 * first 3 skipped, resolved lock-text frames left out. */
static void test_stack_key(void)
{
	const uint64_t KM = (uint64_t)-128;  /* PERF_CONTEXT_KERNEL */
	uint64_t chain[] = { KM, 0x1001, 0x1002, 0x3000, 0x1003, 0x5000, 0x4000, 0x4100, 0x4200, 0x4300 };
	struct lockwait_frames f = { .is_lock = fake_is_lock, .resolved = fake_resolved, .max_stack = 8, .skip = 3 };
	const uint64_t G = 0x61C8864680B583EBull;

	/* frames: 1001 1002 3000 | 1003(lock) 5000(unresolved) 4000 4100 4200 | 4300 beyond 8 */
	CHECK_EQ_U64(lockwait_stack_key(chain, 10, &f), (0x5000 * G) ^ (0x4000 * G) ^ (0x4100 * G) ^ (0x4200 * G));
	CHECK(lockwait_perf_caller(chain, 10, &f) == 6);   /* 0x4000: 0x5000 has no symbol */
	CHECK(lockwait_perf_caller(chain, 3, &f) == -1);   /* "Unknown" */
	CHECK_EQ_U64(lockwait_stack_key(NULL, 0, &f), 0);
}

static void test_pairing_many_tasks(void)
{
	struct tp_decoder *dec = lock_decoder();
	struct lockwait_pairer *p = lockwait_new(NULL);
	unsigned char raw[24];
	struct lockwait w;
	struct lockwait_stats st;
	struct c2c_sample s;
	uint64_t total = 0, paired = 0;

	CHECK(dec && p);
	/* 5000 tasks wait at once (forces the table to grow), then all end. */
	for (int32_t t = 1; t <= 5000; t++) {
		make_begin(raw, t, 0x10000 + (uint64_t)t * 64, 0);
		s = tp_sample(t, (uint64_t)t, raw);
		lockwait_feed_raw(p, dec, &s, &w, NULL);
	}
	for (int32_t t = 5000; t >= 1; t--) {
		make_end(raw, t, 0x10000 + (uint64_t)t * 64, 0);
		s = tp_sample(t, 100000 + (uint64_t)t, raw);
		if (lockwait_feed_raw(p, dec, &s, &w, NULL) == 1) {
			paired++;
			total += w.wait_ns;
		}
	}
	lockwait_get_stats(p, &st);
	lockwait_free(p);
	tp_decoder_free(dec);
	CHECK_EQ_U64(paired, 5000);
	CHECK_EQ_U64(total, 5000ull * 100000);
	CHECK_EQ_U64(st.pending, 0);
}

static const char *fake_names(void *ctx, uint64_t ip)
{
	(void)ctx;
	switch (ip) {
	case 1: return "_raw_spin_lock";
	case 2: return "queued_spin_lock_slowpath";
	case 3: return "do_mmap";
	}
	return NULL;
}

static void test_caller_index(void)
{
	uint64_t chain[] = { (uint64_t)-128, 2, 1, 3, (uint64_t)-512, 0x400000 };

	CHECK(lockwait_caller_index(chain, 6, fake_names, NULL) == 3);
	CHECK(lockwait_caller_index(chain, 6, NULL, NULL) == 1);
	CHECK(lockwait_caller_index(chain, 1, fake_names, NULL) == -1);
	CHECK(lockwait_is_lock_function("rwsem_down_write_slowpath"));
	CHECK(!lockwait_is_lock_function("vm_mmap_pgoff"));
}

static void test_real_tracefs(void)
{
	char tracefs[256];
	struct tp_decoder *dec;
	struct c2c_error err = { 0 };
	int id, missing;

	if (tp_find_tracefs(tracefs, sizeof(tracefs), &err) < 0) {
		test_skip(err.msg);
		return;
	}
	dec = tp_decoder_new(NULL);
	CHECK(dec != NULL);
	id = tp_decoder_load_tracefs(dec, tracefs, "lock", "contention_begin", &err);
	missing = tp_decoder_load_tracefs(dec, tracefs, "lock", "no_such_tracepoint", &err);
	tp_decoder_free(dec);
	if (id == -EACCES) {
		test_skip("tracefs formats are readable by root only");
		return;
	}
	if (id == -ENOENT) {
		test_skip("this kernel has no lock:contention_begin");
		return;
	}
	CHECK(id > 0);
	CHECK(missing == -ENOENT);
	CHECK(strstr(err.msg, "lock:no_such_tracepoint") != NULL);
}

/* Every format this kernel's tracefs has passes the format check and
 * parses with the ID its file names (the check must not refuse a real
 * kernel's text). */
static void test_every_real_format(void)
{
	char tracefs[256], path[1024];
	struct c2c_error err = { 0 };
	DIR *top, *sys;
	struct dirent *s, *e;
	unsigned tried = 0, failed = 0;

	if (tp_find_tracefs(tracefs, sizeof(tracefs), &err) < 0) {
		test_skip(err.msg);
		return;
	}
	snprintf(path, sizeof(path), "%s/events", tracefs);
	if (!(top = opendir(path))) {
		test_skip("tracefs events are not readable");
		return;
	}
	while ((s = readdir(top))) {
		if (s->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", tracefs, s->d_name);
		if (!(sys = opendir(path)))
			continue;
		while ((e = readdir(sys))) {
			char fpath[2400], line[128];
			struct tp_decoder *dec;
			FILE *f;
			int id = -1, got;

			snprintf(fpath, sizeof(fpath), "%s/%s/format", path, e->d_name);
			if (e->d_name[0] == '.' || !(f = fopen(fpath, "r")))
				continue;
			while (fgets(line, sizeof(line), f))
				if (sscanf(line, "ID: %d", &id) == 1)
					break;
			fclose(f);
			if (id < 0 || !(dec = tp_decoder_new(NULL)))
				continue;
			got = tp_decoder_load_tracefs(dec, tracefs, s->d_name, e->d_name, &err);
			tp_decoder_free(dec);
			tried++;
			if (got != id) {
				if (failed++ < 5)
					printf("# %s:%s: %d (%s)\n", s->d_name, e->d_name, got, err.msg);
			}
		}
		closedir(sys);
	}
	closedir(top);
	if (!tried) {
		test_skip("no readable tracepoint format (not root?)");
		return;
	}
	printf("# %u formats, %u refused\n", tried, failed);
	CHECK(failed == 0);
}

/* A format cut at any byte, or with a byte of a field line changed to a
 * NUL, a bracket or a semicolon, is parsed or refused with a message:
 * never a crash (libtraceevent compared missing tokens on such text). */
static void test_damaged_formats(void)
{
	static const char *const subst = "\0[];:\n";
	const size_t n = sizeof(fmt_end) - 1;
	char buf[sizeof(fmt_end)];
	unsigned refused = 0, parsed = 0;

	for (size_t cut = 0; cut <= n; cut++) {
		struct tp_decoder *dec = tp_decoder_new(NULL);
		struct c2c_error err = { 0 };
		int rc = tp_decoder_add_format(dec, "lock", fmt_end, cut, &err);
		if (rc < 0) {
			refused++;
			CHECK(strstr(err.msg, "tracepoint format") != NULL);
		} else {
			parsed++;
		}
		tp_decoder_free(dec);
	}
	for (size_t at = 0; at < n; at++)
		for (const char *c = subst; c == subst || *c; c++) {
			struct tp_decoder *dec = tp_decoder_new(NULL);
			memcpy(buf, fmt_end, sizeof(buf));
			buf[at] = *c;
			(void)tp_decoder_add_format(dec, "lock", buf, n, NULL);
			tp_decoder_free(dec);
		}
	/* the fuzzer's input: a field declaration ends the text at "[" */
	{
		static const char cut_decl[] = "name: contention_end\nID: 407\nformat:\n"
			"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			"\tfield:unsigned cha[";
		struct tp_decoder *dec = tp_decoder_new(NULL);
		struct c2c_error err = { 0 };
		CHECK(tp_decoder_add_format(dec, "lock", cut_decl, sizeof(cut_decl) - 1, &err) == -EINVAL);
		CHECK(strstr(err.msg, "line 5") != NULL);
		tp_decoder_free(dec);
	}
	/* the whole format up to its print fmt parses; less does not */
	CHECK(parsed >= 1 && refused >= n / 2);
}

TEST_MAIN(TEST_CASE(test_decode_contention), TEST_CASE(test_decode_by_name_not_offset),
	  TEST_CASE(test_decode_errors), TEST_CASE(test_tracing_data), TEST_CASE(test_pairing),
	  TEST_CASE(test_pairing_many_tasks), TEST_CASE(test_caller_index),
	  TEST_CASE(test_pairing_as_perf), TEST_CASE(test_stack_key),
	  TEST_CASE(test_real_tracefs), TEST_CASE(test_every_real_format),
	  TEST_CASE(test_damaged_formats))
