/* The type attribution's tables (store/types/typeinfo_schema.h). */
#include "store/types/typeinfo_schema.h"

const char typeinfo_schema[] = TYPEINFO_SCHEMA("", "");
const char typeinfo_temp_schema[] = TYPEINFO_SCHEMA("TEMP ", "temp.");
