/* Removing a session's files (store/base/session_files.h). */
#include "store/base/session_files.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int store_remove_files(const char *path, struct c2c_error *err)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	int rc = 0;

	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		char p[4200];
		if ((size_t)snprintf(p, sizeof(p), "%s%s", path, suffix[i]) >= sizeof(p)) {
			if (rc == 0)
				rc = c2c_error_set(err, -ENAMETOOLONG, "%s: path too long", path);
			continue;
		}
		/* Keep going after a failure: remove as much as can be removed. */
		if (unlink(p) < 0 && errno != ENOENT && rc == 0)
			rc = c2c_error_set(err, -errno, "cannot remove %s: %s", p, strerror(errno));
	}
	return rc;
}
