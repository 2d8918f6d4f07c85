// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "user/resolve/procmaps.h"

static int find(const struct mapped_file *f, int n, uint64_t dev, uint64_t inode)
{
	int i;

	for (i = 0; i < n; i++)
		if (f[i].dev == dev && f[i].inode == inode)
			return i;
	return -1;
}

/* Parse one maps line; returns 0 for a file-backed mapping. */
static int parse_line(const char *line, struct mapped_file *m)
{
	unsigned int major, minor;
	char perms[8];
	int pos = 0;
	const char *path;

	if (sscanf(line, "%*x-%*x %7s %*x %x:%x %" SCNu64 " %n", perms, &major, &minor, &m->inode,
		   &pos) < 4 ||
	    !pos)
		return -EINVAL;
	path = line + pos;
	if (path[0] != '/' || !m->inode || strstr(path, " (deleted)"))
		return -ENOENT;
	snprintf(m->path, sizeof(m->path), "%.*s", (int)strcspn(path, "\n"), path);
	m->dev = ((uint64_t)major << 32) | minor;
	m->executable = perms[2] == 'x';
	return 0;
}

int procmaps__files(pid_t pid, struct mapped_file **out)
{
	struct mapped_file *files = NULL, m;
	char name[64], line[1024];
	int n = 0, cap = 0, i;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f)) {
		memset(&m, 0, sizeof(m));
		if (parse_line(line, &m))
			continue;
		i = find(files, n, m.dev, m.inode);
		if (i >= 0) {
			files[i].executable |= m.executable;
			continue;
		}
		if (n == cap) {
			struct mapped_file *p =
				realloc(files, (cap = cap ? cap * 2 : 32) * sizeof(*p));

			if (!p) {
				fclose(f);
				free(files);
				return -ENOMEM;
			}
			files = p;
		}
		snprintf(m.open_path, sizeof(m.open_path), "/proc/%d/root%s", (int)pid, m.path);
		files[n++] = m;
	}
	fclose(f);
	*out = files;
	return n;
}
