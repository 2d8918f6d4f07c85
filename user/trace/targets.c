// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Several processes: `-p PID,PID...` and system-wide `-a`.
 *
 * -p: every file a process maps is read once (discover), and its probes
 * are attached for each process that maps it, with that pid: other
 * processes pay nothing.
 *
 * -a: probes go in once per file, for every process (pid -1): the
 * runtimes installed on the machine, then every file running processes
 * map. Processes started later map the same files, so they are covered
 * from their first instruction; files that appear later (a new program,
 * a dlopen, a copy inside a container) are found when the process execs
 * or the dynamic loader reports new mappings. A process becomes a job at
 * its first barrier (or parallel region), when --filter accepts it; only
 * then do its futex calls and counters get recorded.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>
#include "lib/log.h"
#include "user/resolve/symbolize.h"
#include "user/trace/tracer.h"

/* What we know of a process that is not a job. */
struct proc_note {
	__u64 exec_ns;		 /* when it exec'd, if during the session */
	int ignored;		 /* --filter rejected it (until it execs) */
	int rescan;		 /* its mappings changed */
	char comm[SBT_COMM_LEN]; /* from its exec: names a job whose /proc is gone */
};

#define MAX_FILES 4096

static struct proc_note *note_of(struct tracer *t, __u32 pid)
{
	struct proc_note *n = hmap_get(&t->procs, pid, 0);

	if (n)
		return n;
	n = calloc(1, sizeof(*n));
	if (n && hmap_put(&t->procs, pid, 0, n)) {
		free(n);
		return NULL;
	}
	return n;
}

static void forget_proc(struct tracer *t, __u32 pid)
{
	free(hmap_del(&t->procs, pid, 0));
}

/* ---- attaching ------------------------------------------------------------- */

/* Attach the files found since the last call, for every process. */
static void attach_new_files(struct tracer *t)
{
	struct discover *d = &t->disc;
	char err[512];
	int i;

	for (i = 0; i < d->nfiles; i++) {
		struct discover_file *f = &d->files[i];

		if (f->attached || (!f->n && !f->loader_offset))
			continue;
		f->attached = 1;
		tracer__set_probes(t, &d->table.probes[f->first], f->first, f->n);
		if (f->n && session__attach_probes(t->session, &d->table.probes[f->first], f->n, -1,
						   err, sizeof(err)))
			log_warn("%s", err);
		if (f->loader_offset &&
		    session__attach_loader(t->session, f->open_path, f->loader_offset, -1))
			log_warn("cannot watch the dynamic loader %s: %s (libraries loaded later "
				 "are found when a process execs)",
				 f->path, strerror(errno));
	}
}

static int scan_pid(struct tracer *t, pid_t pid)
{
	int idx[64], n = discover__pid(&t->disc, pid, idx, 64);

	if (n == -E2BIG)
		log_warn("too many probes (limit %d): some files are not traced",
			 SBT_MAX_PROBES - 1);
	return n;
}

/* Every running process's files. Returns how many processes were read. */
static int scan_all(struct tracer *t)
{
	DIR *dir = opendir("/proc");
	struct dirent *de;
	int pid, n = 0;

	if (!dir)
		return 0;
	while ((de = readdir(dir)))
		if ((pid = atoi(de->d_name)) > 0 && pid != getpid())
			n += scan_pid(t, pid) >= 0;
	closedir(dir);
	return n;
}

static int attach_all(struct tracer *t)
{
	__u64 t0 = mono_ns(CLOCK_MONOTONIC);
	int i, nproc;

	discover__installed(&t->disc);
	for (i = 0; i < t->env.nprobes; i++) {
		const char *bin = t->env.probes[i].binary;

		if (access(bin, F_OK))
			log_warn("--probe: %s does not exist here: only files at that path in "
				 "other mount namespaces will match",
				 bin);
		else if (discover__path(&t->disc, bin) < 0)
			log_warn("--probe: nothing to probe in %s", bin);
	}
	nproc = scan_all(t);
	attach_new_files(t);
	snprintf(t->command, sizeof(t->command), "-a (every process)");
	fprintf(stderr,
		"sbt-bpf: tracing every process: %d probes in %d files (%d processes read), "
		"attached in %.1f ms; Ctrl-C to stop\n",
		t->disc.table.n - 1, t->disc.nfiles, nproc, (mono_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	if (!t->env.classes_given)
		log_info("locks and futex calls are not traced with -a unless asked for "
			 "(--trace all): they cost every process of the machine");
	return 0;
}

static struct job *start_job(struct tracer *t, pid_t pid, __u64 start_ns, const char *fallback)
{
	char cmd[1024];
	struct job *job;

	read_cmdline(pid, cmd, sizeof(cmd));
	job = jobs__start(t->jobs, pid, start_ns, cmd[0] ? cmd : fallback);
	if (!job)
		return NULL;
	job->user = symbolizer__new(pid);
	if (session__add_target(t->session, pid))
		log_warn("pid %d: cannot add it to the BPF filter: futex records missed", (int)pid);
	tracer__add_threads(t, job);
	return job;
}

/* -p: one process of the list, attached with its pid. */
static int attach_pid(struct tracer *t, pid_t pid)
{
	int idx[64], n, i;
	char err[512];

	n = discover__pid(&t->disc, pid, idx, 64);
	if (n == -ESRCH || (n < 0 && kill(pid, 0))) {
		log_err("no such process: %d", (int)pid);
		return -ESRCH;
	}
	if (n == -E2BIG) {
		log_err("too many probes (limit %d)", SBT_MAX_PROBES - 1);
		return -E2BIG;
	}
	if (n <= 0) {
		log_warn("process %d maps no file with a function sbt-bpf traces: skipped",
			 (int)pid);
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct discover_file *f = &t->disc.files[idx[i]];

		tracer__set_probes(t, &t->disc.table.probes[f->first], f->first, f->n);
		if (session__attach_probes(t->session, &t->disc.table.probes[f->first], f->n, pid,
					   err, sizeof(err))) {
			log_err("pid %d: %s", (int)pid, err);
			return -EINVAL;
		}
	}
	if (!start_job(t, pid, t->start_ns, "?"))
		return -ENOMEM;
	t->running++;
	return 1;
}

static int attach_pids(struct tracer *t)
{
	__u64 t0 = mono_ns(CLOCK_MONOTONIC);
	pid_t pids[ENV_MAX_PIDS];
	size_t len = 0;
	int i, j, e;

	for (i = 0; i < t->env.npids; i++) {
		pid_t pid = proc_tgid(t->env.pids[i]);

		/* a thread id names its process */
		pids[i] = pid = pid > 0 ? pid : t->env.pids[i];
		for (j = 0; j < i && pids[j] != pid; j++)
			;
		if (j < i)
			continue; /* named twice, or two threads of one process */
		e = attach_pid(t, pid);
		if (e < 0)
			return EXIT_RUNTIME;
		if (e > 0 && len < sizeof(t->command))
			len += snprintf(t->command + len, sizeof(t->command) - len, "%s%d",
					len ? "," : "-p ", (int)pid);
	}
	if (!t->running) {
		log_err("none of the processes calls a function sbt-bpf traces");
		return EXIT_RUNTIME;
	}
	fprintf(stderr,
		"sbt-bpf: tracing %d processes: %d probes in %d files, attached in %.1f ms; "
		"Ctrl-C to stop\n",
		t->running, t->disc.table.n - 1, t->disc.nfiles,
		(mono_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	return 0;
}

/* Every job holds a temporary file and its symbolizer opens the job's
 * libraries: take all the descriptors we may. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int system__attach(struct tracer *t)
{
	raise_fd_limit();
	hmap_init(&t->procs);
	hmap_init(&t->pending);
	if (discover__init(&t->disc, t->env.classes, t->env.probes, t->env.nprobes, t->env.all))
		return EXIT_RUNTIME;
	return t->env.all ? attach_all(t) : attach_pids(t);
}

/* ---- --filter ----------------------------------------------------------------- */

static int read_line(const char *path, const char *prefix, char *buf, size_t n)
{
	char line[4096];
	FILE *f = fopen(path, "re");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, strlen(prefix))) {
			snprintf(buf, n, "%s", line + strlen(prefix));
			buf[strcspn(buf, "\n")] = 0;
			found = 1;
		}
	fclose(f);
	return found;
}

static int match_comm(const struct env_filter *f, pid_t pid)
{
	char path[64], comm[64];
	int i;

	if (!f->ncomm)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (!read_line(path, "", comm, sizeof(comm)))
		return 0;
	for (i = 0; i < f->ncomm; i++)
		if (!fnmatch(f->comm[i], comm, 0))
			return 1;
	return 0;
}

static int match_uid(const struct env_filter *f, pid_t pid)
{
	char path[64], buf[128];
	unsigned int uid;
	int i;

	if (!f->nuid)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!read_line(path, "Uid:", buf, sizeof(buf)) || sscanf(buf, "%u", &uid) != 1)
		return 0;
	for (i = 0; i < f->nuid; i++)
		if (f->uid[i] == uid)
			return 1;
	return 0;
}

/* cgroup v2: the "0::/path" line; a prefix that ends at a path boundary. */
static int match_cgroup(const struct env_filter *f, pid_t pid)
{
	char path[64], cg[4096];
	int i;

	if (!f->ncgroup)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (!read_line(path, "0::", cg, sizeof(cg)))
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

static int filter_accepts(const struct env_filter *f, pid_t pid)
{
	return match_comm(f, pid) && match_uid(f, pid) && match_cgroup(f, pid);
}

/* ---- records ------------------------------------------------------------------- */

static int starts_job(const struct tracer *t, const struct sbt_event *e)
{
	int kind;

	if (e->type != SBT_EV_ENTER || e->probe >= SBT_MAX_PROBES)
		return 0;
	kind = t->infos[e->probe].kind;
	return kind == SBT_PK_BARRIER || kind == SBT_PK_TEAM_BARRIER || kind == SBT_PK_REGION;
}

/* A process's first barrier: a job, if --filter accepts it. */
static void maybe_start_job(struct tracer *t, const struct sbt_event *e)
{
	struct proc_note *n = note_of(t, e->pid);
	char comm[32];

	if (!n || n->ignored)
		return;
	if (!filter_accepts(&t->env.filter, e->pid)) {
		n->ignored = 1;
		return;
	}
	snprintf(comm, sizeof(comm), "[%s]", n->comm[0] ? n->comm : "?");
	if (start_job(t, e->pid, n->exec_ns > t->start_ns ? n->exec_ns : t->start_ns, comm))
		forget_proc(t, e->pid);
}

static void thread_record(struct tracer *t, const struct sbt_event *e)
{
	struct pending_thread *pt;

	if (e->type == SBT_EV_THREAD_EXIT) {
		free(hmap_del(&t->pending, e->tid, 0));
		if (e->probe) /* the last thread: the process is gone */
			forget_proc(t, e->pid);
		return;
	}
	pt = calloc(1, sizeof(*pt));
	if (!pt)
		return;
	pt->pid = e->pid;
	pt->start_ns = e->ts;
	event_comm(e, pt->comm);
	free(hmap_del(&t->pending, e->tid, 0)); /* a recycled tid */
	if (hmap_put(&t->pending, e->tid, 0, pt))
		free(pt);
}

static void want_rescan(struct tracer *t, __u32 pid)
{
	struct proc_note *n = note_of(t, pid);

	if (n && !n->rescan) {
		n->rescan = 1;
		t->rescans++;
	}
}

int system__record(struct tracer *t, const struct sbt_event *e)
{
	struct job *job = jobs__find(t->jobs, e->pid);
	struct proc_note *n;

	switch (e->type) {
	case SBT_EV_EXEC:
		if (job) { /* a new program: the old one's job ends here */
			job->end_ns = e->ts;
			system__job_exited(t, job);
		}
		n = note_of(t, e->pid);
		if (n) {
			n->exec_ns = e->ts;
			n->ignored = 0;
			event_comm(e, n->comm);
		}
		want_rescan(t, e->pid);
		return 1;
	case SBT_EV_MAPS:
		want_rescan(t, e->pid);
		return 1;
	case SBT_EV_THREAD_START:
	case SBT_EV_THREAD_EXIT:
		if (job)
			return 0;
		thread_record(t, e);
		return 1;
	}
	if (!job && t->env.all && starts_job(t, e))
		maybe_start_job(t, e);
	return 0;
}

void system__rescan(struct tracer *t)
{
	size_t i;

	if (!t->rescans)
		return;
	for (i = 0; i < t->procs.cap; i++) {
		struct hmap_slot *s = &t->procs.slots[i];
		struct proc_note *n = s->val;

		if (!n || n == HMAP_TOMB || !n->rescan)
			continue;
		n->rescan = 0;
		scan_pid(t, (pid_t)s->k1);
	}
	t->rescans = 0;
	attach_new_files(t);
}

__u64 system__job_drops(struct tracer *t, const struct job *job)
{
	return job->ended ? job->drops : session__pid_drops(t->session, job->pid);
}

void system__job_exited(struct tracer *t, struct job *job)
{
	struct report_drops d = {.total = session__pid_drops(t->session, job->pid)};

	job->drops = d.total;
	jobs__end(t->jobs, job, &d);
	session__remove_target(t->session, job->pid);
	symbolizer__free(job->user);
	job->user = NULL;
	if (t->running > 0)
		t->running--;
}

void system__free(struct tracer *t)
{
	hmap_free_values(&t->procs);
	hmap_free_values(&t->pending);
	discover__free(&t->disc);
}
