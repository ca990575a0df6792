/* The names under which store/base/meta.c reads and store/writer writes
 * session metadata that has no public key in store/store.h. */
#ifndef C2C_STORE_META_NAMES_H
#define C2C_STORE_META_NAMES_H

#include "store/store.h"

#define STORE_META_MEM_RANGES "mem_ranges"

/* The counters table's names, by enum store_counter. */
extern const char *const store_counter_names[STORE_CNT__MAX];

#endif /* C2C_STORE_META_NAMES_H */
