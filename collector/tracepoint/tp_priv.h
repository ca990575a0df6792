/* Private to collector/tp_*.c: the libtraceevent handle behind a decoder. */
#ifndef C2C_TP_PRIV_H
#define C2C_TP_PRIV_H

#include "collector/tracepoint/tracepoint.h"

#include <stddef.h>

struct tep_handle;
struct tep_handle *tp_decoder_tep(struct tp_decoder *dec);

/* 0 when buf (a format's text up to its print fmt) has only the lines a
 * kernel writes (name, ID, format, field lines), else -EINVAL and why. */
int tp_format_check(const char *buf, size_t len, char *why, size_t why_size);

#endif /* C2C_TP_PRIV_H */
