/* Private to store/base: what session.c needs of meta.c when it opens a
 * session. */
#ifndef C2C_STORE_BASE_PRIV_H
#define C2C_STORE_BASE_PRIV_H

#include "store/base/base.h"

/* Reads the cpus table into st->cpu_node. */
int store_load_topology(struct store *st, struct c2c_error *err);

#endif /* C2C_STORE_BASE_PRIV_H */
