/* The samples table of a block session, read through an eponymous
 * virtual table over sample_blocks (store/base/sample_vtab.c). */
#ifndef C2C_STORE_SAMPLE_VTAB_H
#define C2C_STORE_SAMPLE_VTAB_H

#include <sqlite3.h>

/* Registers it on db (every session connection): 0 or -ENOMEM. */
int store_sample_vtab_register(sqlite3 *db);

#endif /* C2C_STORE_SAMPLE_VTAB_H */
