/* Private to collector/tp_*.c: the libtraceevent handle behind a decoder. */
#ifndef C2C_TP_PRIV_H
#define C2C_TP_PRIV_H

#include "collector/tracepoint/tracepoint.h"

struct tep_handle;
struct tep_handle *tp_decoder_tep(struct tp_decoder *dec);

#endif /* C2C_TP_PRIV_H */
