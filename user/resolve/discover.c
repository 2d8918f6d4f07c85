// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "user/resolve/discover.h"
#include "lib/log.h"
#include "lib/proc.h"

#define LOADER_SYMBOL "_dl_debug_state"

/* Where Debian and most distributions keep the runtimes' shared objects:
 * the C library, OpenMP's, MPI's (Open MPI, MPICH; a rank's MPI_Init is its
 * first call, often microseconds after its exec). */
static const char *const installed_globs[] = {
	"/lib*/ld-linux*.so.*",		  "/lib/*-linux-gnu*/libc.so.6",
	"/lib/*-linux-gnu*/libgomp.so.1", "/lib/*-linux-gnu*/libomp.so*",
	"/lib/*-linux-gnu*/libiomp5.so",  "/lib/llvm-*/lib/libomp.so*",
	"/usr/local/lib/libgomp.so*",	  "/usr/local/lib/libomp.so*",
	"/lib/*-linux-gnu*/libmpi.so.40", "/lib/*-linux-gnu*/libmpich.so.12",
	"/usr/local/lib/libmpi.so.40",	  "/usr/local/lib/libmpich.so.12",
};

int discover__init(struct discover *d, unsigned int classes, const struct user_probe *up, int nup,
		   int loader)
{
	struct elfsym *es;
	struct stat st;
	int i, e;

	memset(d, 0, sizeof(*d));
	d->classes = classes;
	d->up = up;
	d->nup = nup;
	d->loader = loader;
	d->up_ident = calloc(nup + 1, sizeof(*d->up_ident));
	if (!d->up_ident || probes__init(&d->table))
		return -ENOMEM;
	/* A BINARY that exists here is recognised by inode and build-id; one
	 * that does not (a path inside a container) by its path only. */
	for (i = 0; i < nup; i++) {
		if (stat(up[i].binary, &st))
			continue;
		d->up_ident[i].dev = proc__dev_of(st.st_dev);
		d->up_ident[i].ino = st.st_ino;
		es = elfsym__open(up[i].binary, &e);
		if (es) {
			d->up_ident[i].build_id_len = elfsym__build_id(es, d->up_ident[i].build_id);
			elfsym__close(es);
		}
	}
	return 0;
}

void discover__free(struct discover *d)
{
	probes__free(&d->table);
	free(d->files);
	free(d->up_ident);
	memset(d, 0, sizeof(*d));
}

static int find_file(const struct discover *d, uint64_t dev, uint64_t ino)
{
	int i;

	for (i = 0; i < d->nfiles; i++)
		if (d->files[i].dev == dev && d->files[i].ino == ino)
			return i;
	return -1;
}

/* Whether --probe number i names file f (whose build-id is bid). */
static int names_file(const struct discover *d, int i, const struct mapped_file *f,
		      const unsigned char *bid, int bid_len)
{
	const char *binary = d->up[i].binary, *base = strrchr(f->path, '/');

	if (d->up_ident[i].ino && d->up_ident[i].ino == f->inode && d->up_ident[i].dev == f->dev)
		return 1;
	if (bid_len && bid_len == d->up_ident[i].build_id_len &&
	    !memcmp(bid, d->up_ident[i].build_id, bid_len))
		return 1;
	if (!strcmp(f->path, binary))
		return 1;
	return !strchr(binary, '/') && base && !strcmp(base + 1, binary);
}

/* The --probe functions declared for file f. */
static int add_user_probes(struct discover *d, const struct elfsym *es, const struct mapped_file *f)
{
	unsigned char bid[ELFSYM_BUILD_ID_MAX];
	int bid_len = elfsym__build_id(es, bid), i, n, added = 0;

	for (i = 0; i < d->nup; i++) {
		if (!names_file(d, i, f, bid, bid_len))
			continue;
		n = probes__add_symbol(&d->table, es, f, d->up[i].symbol, d->up[i].kind);
		if (n < 0)
			return n;
		if (!n)
			log_warn("--probe: function '%s' not found in %s", d->up[i].symbol,
				 f->path);
		added += n;
	}
	return added;
}

static int useful(const struct discover_file *f)
{
	return f->n > 0 || f->loader_offset;
}

/* Read file f, new to d: its probes and whether it is the loader. Returns
 * its index, or -ENOENT when there is nothing to probe in it. */
static int add_file(struct discover *d, const struct mapped_file *f)
{
	struct discover_file *df;
	uint64_t loader = 0;
	int first = d->table.n, n, e;
	struct elfsym *es = elfsym__open_mapped(f, &e);

	if (!es)
		return -ENOENT; /* not ELF, gone, unreadable: nothing to probe */
	d->table.files_searched++;
	n = probes__add_known(&d->table, es, f, d->classes);
	if (n >= 0 && d->nup) {
		e = add_user_probes(d, es, f);
		n = e < 0 ? e : n + e;
	}
	if (d->loader)
		elfsym__find(es, LOADER_SYMBOL, &loader, 1);
	elfsym__close(es);
	if (n < 0)
		return n;
	/* what the table holds: functions that cannot take a uprobe and
	 * aliases of one address were found but not added */
	n = d->table.n - first;
	df = realloc(d->files, (d->nfiles + 1) * sizeof(*df));
	if (!df)
		return -ENOMEM;
	d->files = df;
	df = &d->files[d->nfiles];
	memset(df, 0, sizeof(*df));
	df->dev = f->dev;
	df->ino = f->inode;
	snprintf(df->path, sizeof(df->path), "%s", f->path);
	df->first = first;
	df->n = n;
	df->loader_offset = loader;
	/* a name that outlives the process, to attach the loader's probe by */
	if (useful(df))
		proc__pin(f, df->open_path, sizeof(df->open_path));
	/* files without probes are remembered too, so as not to read them again */
	return d->nfiles++;
}

int discover__pid(struct discover *d, pid_t pid, int *idx, int max)
{
	struct mapped_file *files = NULL;
	int n = proc__mapped_files(pid, &files), i, k, found = 0;

	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (!files[i].executable)
			continue;
		k = find_file(d, files[i].dev, files[i].inode);
		if (k < 0)
			k = add_file(d, &files[i]);
		if (k == -E2BIG || k == -ENOMEM) {
			free(files);
			return k;
		}
		if (k >= 0 && useful(&d->files[k]) && found < max)
			idx[found++] = k;
	}
	free(files);
	return found;
}

int discover__unshimmed(struct discover *d, const struct mapped_file *files, int n, int *first)
{
	int i, e, added = 0;
	struct elfsym *es;

	*first = d->table.n;
	for (i = 0; i < n && added >= 0; i++) {
		if (!files[i].executable || !(es = elfsym__open_mapped(&files[i], &e)))
			continue;
		e = probes__add_interposed(&d->table, es, &files[i], d->classes);
		added = e < 0 ? e : added + e;
		elfsym__close(es);
	}
	return added < 0 ? added : d->table.n - *first;
}

int discover__path(struct discover *d, const char *path)
{
	struct mapped_file f;
	struct stat st;
	int k;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return -ENOENT;
	memset(&f, 0, sizeof(f));
	f.dev = proc__dev_of(st.st_dev);
	f.inode = st.st_ino;
	f.executable = 1;
	if (!realpath(path, f.path))
		snprintf(f.path, sizeof(f.path), "%s", path);
	snprintf(f.open_path, sizeof(f.open_path), "%s", f.path);
	k = find_file(d, f.dev, f.inode);
	if (k < 0)
		k = add_file(d, &f);
	return k >= 0 && !useful(&d->files[k]) ? -ENOENT : k;
}

int discover__installed(struct discover *d)
{
	size_t i, j;
	int found = 0;

	for (i = 0; i < sizeof(installed_globs) / sizeof(installed_globs[0]); i++) {
		glob_t g;

		if (glob(installed_globs[i], 0, NULL, &g))
			continue;
		for (j = 0; j < g.gl_pathc; j++)
			found += discover__path(d, g.gl_pathv[j]) >= 0;
		globfree(&g);
	}
	return found;
}
