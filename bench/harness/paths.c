// SPDX-License-Identifier: MIT
/* Finding the helpers: next to the executable, then the libexec directory. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "util.h"

const char *self_exe(void)
{
	static char path[PATH_MAX];
	ssize_t n;

	if (path[0])
		return path;
	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0) {
		path[0] = '\0';
		return NULL;
	}
	path[n] = '\0';
	return path;
}

static const char *libexecdir(void)
{
	const char *env = getenv("MBBENCH_LIBEXECDIR");

	return env && *env ? env : PKGLIBEXECDIR;
}

const char *helper_find(const char *name, char *looked, size_t len)
{
	static char path[PATH_MAX + 64];
	const char *self = self_exe();
	const char *slash = self ? strrchr(self, '/') : NULL;

	looked[0] = '\0';
	if (slash) {
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - self), self, name);
		snprintf(looked, len, "%s", path);
		if (!access(path, X_OK))
			return path;
	}
	snprintf(path, sizeof(path), "%s/%s", libexecdir(), name);
	snprintf(looked + strlen(looked), len - strlen(looked), "%s%s",
		 looked[0] ? " and " : "", path);
	return access(path, X_OK) ? NULL : path;
}

const char *helper_require(const char *name)
{
	char looked[2 * PATH_MAX + 80];
	const char *p = helper_find(name, looked, sizeof(looked));

	if (!p)
		fail("%s is missing: looked for %s (a broken installation: run make install, or reinstall the package)",
		    name, looked);
	return p;
}
