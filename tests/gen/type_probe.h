/* For the tools that write a recording of a real test program or kernel
 * image: where a member lives in a struct, read from the binary's DWARF
 * (collector/types), so generated data addresses follow each build's own
 * layout. Errors print one line and exit: these are test tools. */
#ifndef C2C_TESTS_TYPE_PROBE_H
#define C2C_TESTS_TYPE_PROBE_H

#include <stdint.h>

struct types_db;

/* Opens the DWARF of an ELF file (exits on failure). */
struct types_db *type_probe_open(const char *path);
/* Byte offset of a member path ("avg.load_avg": members of nested structs
 * joined by dots) in struct type (exits when a component is missing). */
uint64_t type_probe_offset(struct types_db *db, const char *type, const char *path);
/* sizeof(struct type) (exits when there is no such struct). */
uint64_t type_probe_size(struct types_db *db, const char *type);

#endif /* C2C_TESTS_TYPE_PROBE_H */
