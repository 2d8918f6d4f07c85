// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <fnmatch.h>
#include <string.h>
#include "lib/proc.h"
#include "user/trace/filter.h"

static int comm_matches(const struct env_filter *f, const char *comm)
{
	int i;

	for (i = 0; i < f->ncomm; i++)
		if (!fnmatch(f->comm[i], comm, 0))
			return 1;
	return !f->ncomm;
}

static int match_comm(const struct env_filter *f, pid_t pid)
{
	char comm[64];

	if (!f->ncomm)
		return 1;
	return !proc__comm(pid, 0, comm, sizeof(comm)) && comm_matches(f, comm);
}

static int match_uid(const struct env_filter *f, pid_t pid)
{
	struct proc_status st;
	int i;

	if (!f->nuid)
		return 1;
	if (proc__status(pid, &st))
		return 0;
	for (i = 0; i < f->nuid; i++)
		if (f->uid[i] == st.uid)
			return 1;
	return 0;
}

/* cgroup v2: a prefix that ends at a path boundary. */
static int match_cgroup(const struct env_filter *f, pid_t pid)
{
	char cg[4096];
	int i;

	if (!f->ncgroup)
		return 1;
	if (proc__cgroup(pid, cg, sizeof(cg)))
		return 0;
	for (i = 0; i < f->ncgroup; i++) {
		size_t n = strlen(f->cgroup[i]);

		while (n > 1 && f->cgroup[i][n - 1] == '/')
			n--;
		if (!strncmp(cg, f->cgroup[i], n) && (cg[n] == 0 || cg[n] == '/' || n == 1))
			return 1;
	}
	return 0;
}

int filter__accepts(const struct env_filter *f, pid_t pid)
{
	return match_comm(f, pid) && match_uid(f, pid) && match_cgroup(f, pid);
}

int filter__accepts_gone(const struct env_filter *f, const char *comm)
{
	return !f->nuid && !f->ncgroup && comm[0] && comm_matches(f, comm);
}
