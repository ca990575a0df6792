/* Member offsets and sizes from a binary's DWARF (tests/gen/type_probe.h). */
#include "tests/gen/type_probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/types/types.h"

struct types_db *type_probe_open(const char *path)
{
	struct c2c_error err = { 0 };
	struct types_db *db;

	if (types_open_dwarf(&db, path, NULL, &err) < 0) {
		fprintf(stderr, "type_probe: %s\n", err.msg);
		exit(1);
	}
	return db;
}

static uint32_t struct_id(struct types_db *db, const char *type)
{
	uint32_t id = types_find(db, type);

	if (!id) {
		fprintf(stderr, "type_probe: no struct %s\n", type);
		exit(1);
	}
	return types_strip(db, id);
}

uint64_t type_probe_offset(struct types_db *db, const char *type, const char *path)
{
	uint32_t id = struct_id(db, type);
	uint64_t off = 0;
	const char *p = path;

	while (*p) {
		size_t len = strcspn(p, ".");
		const struct types_member *m;
		size_t n = types_members(db, id, &m), i;

		for (i = 0; i < n; i++)
			if (m[i].name && strlen(m[i].name) == len && !strncmp(m[i].name, p, len))
				break;
		if (i == n) {
			fprintf(stderr, "type_probe: struct %s has no %s\n", type, path);
			exit(1);
		}
		off += m[i].bit_offset / 8;
		id = types_strip(db, m[i].type);
		p += len + (p[len] == '.');
	}
	return off;
}

uint64_t type_probe_size(struct types_db *db, const char *type)
{
	return types_get(db, struct_id(db, type))->size;
}
