/* The CREATE statements of the type attribution's tables, apart from the
 * code that fills them: the session check (store/base/session_check.c)
 * compares a file's tables with them before any query. */
#ifndef C2C_STORE_TYPEINFO_SCHEMA_H
#define C2C_STORE_TYPEINFO_SCHEMA_H

/* The attribution's tables: in the session when it is opened for writing
 * (an explicit edit), else in the connection's TEMP schema, which
 * unqualified names reach first: reading a session never writes it. */
#define TYPEINFO_SCHEMA(TEMP, SCHEMA)                                                                    \
	"CREATE " TEMP "TABLE IF NOT EXISTS type_attr (sample_id INTEGER PRIMARY KEY, how INTEGER NOT NULL," \
	" type_name TEXT, object INTEGER, offset INTEGER, member TEXT, top TEXT, var TEXT, why TEXT);"       \
	"CREATE INDEX IF NOT EXISTS " SCHEMA "type_attr_type ON type_attr (type_name);"                     \
	"CREATE " TEMP "TABLE IF NOT EXISTS type_layouts (type_name TEXT PRIMARY KEY, size INTEGER,"          \
	" align INTEGER, source TEXT, path TEXT);"                                                            \
	"CREATE " TEMP "TABLE IF NOT EXISTS type_members (type_name TEXT NOT NULL, idx INTEGER NOT NULL,"     \
	" name TEXT, type TEXT, offset INTEGER, size INTEGER, bit_offset INTEGER, bit_size INTEGER,"          \
	" depth INTEGER, top INTEGER, leaf INTEGER, hole_after INTEGER, align INTEGER,"                       \
	" PRIMARY KEY (type_name, idx));" TYPEINFO_ASSIGN_SCHEMA(TEMP)
#define TYPEINFO_ASSIGN_SCHEMA(TEMP)                                                                     \
	"CREATE " TEMP "TABLE IF NOT EXISTS type_assign (id INTEGER PRIMARY KEY, base INTEGER NOT NULL,"      \
	" type_name TEXT NOT NULL, binary TEXT, created_at INTEGER);"

/* In the session (main) and in a reading connection's TEMP schema. */
extern const char typeinfo_schema[];
extern const char typeinfo_temp_schema[];

#endif /* C2C_STORE_TYPEINFO_SCHEMA_H */
