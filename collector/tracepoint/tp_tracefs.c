/* Finding tracefs, and mounting it where it is not mounted, as perf does
 * (a fresh guest often has /sys/kernel/tracing empty): tracepoints cannot
 * be opened or decoded without it. */
#include "collector/tracepoint/tracepoint.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define TRACEFS_DIR "/sys/kernel/tracing"

int tp_mount_tracefs(char *buf, size_t size, bool *mounted, struct c2c_error *err)
{
	struct stat st;
	int rc;

	*mounted = false;
	rc = tp_find_tracefs(buf, size, err);
	if (rc != -ENOENT)
		return rc;
	if (stat(TRACEFS_DIR, &st) != 0 || !S_ISDIR(st.st_mode))
		return c2c_error_set(err, -ENOENT, "tracefs is not mounted and %s does not exist: "
				     "this kernel has no tracefs", TRACEFS_DIR);
	if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL) != 0) {
		int e = errno;
		if (e == EPERM || e == EACCES)
			return c2c_error_set(err, -EPERM, "tracefs is not mounted, and mounting it needs root: "
					     "run 'mount -t tracefs nodev %s' as root", TRACEFS_DIR);
		return c2c_error_set(err, -e, "tracefs is not mounted, and mounting it on %s failed: %s",
				     TRACEFS_DIR, strerror(e));
	}
	*mounted = true;
	return tp_find_tracefs(buf, size, err);
}
