/* Whether a session is complete, and why not (store/store.h): read from
 * what the producers leave in it — the finalized marker, the stop reason,
 * the damage counters, the writer's pid — so that every reader (report,
 * open, diff, locks) can say the same one line. */
#include "store/base/base_priv.h"
#include "collector/base/appendf.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const state_names[] = {
	[STORE_STATE_COMPLETE] = "complete",
	[STORE_STATE_PARTIAL] = "partial",
	[STORE_STATE_UNFINISHED] = "unfinished",
	[STORE_STATE_COLLECTING] = "collecting",
};

int store_set_stop_reason(struct store *st, const char *why, struct c2c_error *err)
{
	char old[512];

	/* The first reason is the cause; later ones (a failed commit after
	 * a full disk) would only repeat it. */
	if (store_get_meta(st, STORE_META_STOP_REASON, old, sizeof(old)) > 0)
		return 0;
	return store_set_meta(st, STORE_META_STOP_REASON, why, err);
}

/* The writer still runs when its pid is alive on this host: a live
 * explorer, or another process recording into the file now. */
static bool writer_alive(struct store *st, int64_t pid)
{
	char host[256] = "", here[256] = "";

	if (pid <= 0 || pid > INT32_MAX)
		return false;
	store_get_meta(st, STORE_META_WRITER_HOST, host, sizeof(host));
	if (gethostname(here, sizeof(here) - 1) != 0 || strcmp(host, here) != 0)
		return false;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

static uint64_t counter(struct store *st, enum store_counter c)
{
	return store_get_counter(st, c);
}

/* "N samples" (", M lock waits" when there are any). */
static const char *holds(const struct store_status *o, char *buf, size_t size)
{
	size_t len = c2c_appendf(buf, size, 0, "%" PRIu64 " sample%s", o->samples, o->samples == 1 ? "" : "s");
	if (o->lock_waits)
		c2c_appendf(buf, size, len, " and %" PRIu64 " lock wait%s", o->lock_waits, o->lock_waits == 1 ? "" : "s");
	return buf;
}

int store_get_status(struct store *st, struct store_status *o)
{
	char fin[8] = "", pid[32] = "", reason[400] = "", counts[96];
	size_t len = 0, nlen = 0;

	memset(o, 0, sizeof(*o));
	o->samples = counter(st, STORE_CNT_SAMPLES);
	o->lock_waits = counter(st, STORE_CNT_LOCK_WAITS);
	o->bytes_dropped = counter(st, STORE_CNT_BYTES_DROPPED);
	o->unknown_records = counter(st, STORE_CNT_UNKNOWN_RECORDS);
	o->bad_records = counter(st, STORE_CNT_BAD_RECORDS);
	o->unknown_features = counter(st, STORE_CNT_UNKNOWN_FEATURES);
	o->bad_features = counter(st, STORE_CNT_BAD_FEATURES);
	store_get_meta(st, STORE_META_SOURCE_KIND, o->source_kind, sizeof(o->source_kind));
	store_get_meta(st, STORE_META_FINALIZED, fin, sizeof(fin));
	store_get_meta(st, STORE_META_STOP_REASON, reason, sizeof(reason));
	if (store_get_meta(st, STORE_META_WRITER_PID, pid, sizeof(pid)) > 0)
		o->writer_pid = strtoll(pid, NULL, 10);
	const char *what = o->source_kind[0] ? o->source_kind : "writer";

	if (strcmp(fin, "1") != 0) {
		if (writer_alive(st, o->writer_pid)) {
			o->state = STORE_STATE_COLLECTING;
			len = c2c_appendf(o->why, sizeof(o->why), len,
				    "still being written by process %" PRId64 "; %s committed so far", o->writer_pid,
				    holds(o, counts, sizeof(counts)));
		} else {
			o->state = STORE_STATE_UNFINISHED;
			len = c2c_appendf(o->why, sizeof(o->why), len,
				    "never finalized: the %s was killed, crashed or ran out of disk%s; it holds the %s committed before that",
				    what, reason[0] ? " after it stopped" : "", holds(o, counts, sizeof(counts)));
		}
		if (reason[0])
			len = c2c_appendf(o->why, sizeof(o->why), len, " (%s)", reason);
	} else if (reason[0] || o->bytes_dropped || o->bad_records || o->bad_features) {
		o->state = STORE_STATE_PARTIAL;
		if (reason[0])
			len = c2c_appendf(o->why, sizeof(o->why), len, "%s", reason);
		if (o->bytes_dropped && !strstr(reason, "bytes"))
			len = c2c_appendf(o->why, sizeof(o->why), len, "%s%" PRIu64 " bytes of damaged or cut input not read",
				    len ? "; " : "", o->bytes_dropped);
		if (o->bad_records)
			len = c2c_appendf(o->why, sizeof(o->why), len, "%s%" PRIu64 " damaged record%s skipped",
				    len ? "; " : "", o->bad_records, o->bad_records == 1 ? "" : "s");
		if (o->bad_features)
			len = c2c_appendf(o->why, sizeof(o->why), len, "%s%" PRIu64 " damaged header feature%s skipped",
				    len ? "; " : "", o->bad_features, o->bad_features == 1 ? "" : "s");
		len = c2c_appendf(o->why, sizeof(o->why), len, "; it holds %s", holds(o, counts, sizeof(counts)));
	}
	if (st->recovered)
		len = c2c_appendf(o->why, sizeof(o->why), len, "; read through a private copy where the journal of "
				  "the cut write was rolled back (the file is unchanged)");
	uint64_t unk_rec = o->unknown_records > o->bad_records ? o->unknown_records - o->bad_records : 0;
	uint64_t unk_feat = o->unknown_features > o->bad_features ? o->unknown_features - o->bad_features : 0;
	if (unk_rec)
		nlen = c2c_appendf(o->note, sizeof(o->note), nlen, "%" PRIu64 " record%s of kinds c2ctui does not read skipped",
			    unk_rec, unk_rec == 1 ? "" : "s");
	if (unk_feat)
		nlen = c2c_appendf(o->note, sizeof(o->note), nlen, "%s%" PRIu64 " header feature%s c2ctui does not read skipped",
			    nlen ? "; " : "", unk_feat, unk_feat == 1 ? "" : "s");
	o->state_name = state_names[o->state];
	return 0;
}

void store_status_line(const struct store_status *s, const char *path, char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return;
	buf[0] = '\0';
	if (s->state != STORE_STATE_COMPLETE)
		len = c2c_appendf(buf, size, len, "%s: %s session: %s", path, s->state_name, s->why);
	else if (s->note[0])
		len = c2c_appendf(buf, size, len, "%s: complete session (%s)", path, s->note);
}
