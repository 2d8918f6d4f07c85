// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "lib/infile.h"
#include "lib/proc.h"
#include "lib/utf8.h"

static FILE *open_proc(const char *fmt, pid_t pid, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), fmt, (int)pid, (int)tid);
	return fopen(path, "re");
}

static void parse_status(FILE *f, struct proc_status *st)
{
	char line[256];
	unsigned int uid;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "State: %c", &st->state) == 1 ||
		    sscanf(line, "Tgid: %d", &st->tgid) == 1 ||
		    sscanf(line, "PPid: %d", &st->ppid) == 1 ||
		    sscanf(line, "CapEff: %llx", &st->caps) == 1 ||
		    sscanf(line, "Kthread: %d", &st->kthread) == 1 ||
		    sscanf(line, "Threads: %d", &st->threads) == 1 ||
		    sscanf(line, "SigPnd: %llx", &st->sigpnd) == 1 ||
		    sscanf(line, "ShdPnd: %llx", &st->shdpnd) == 1 ||
		    sscanf(line, "SigBlk: %llx", &st->sigblk) == 1)
			continue;
		if (sscanf(line, "Uid: %u", &uid) == 1)
			st->uid = uid;
		else if (!strncmp(line, "x86_Thread_features:", 20))
			st->shstk = strstr(line + 20, "shstk") != NULL;
	}
}

int proc__status(pid_t pid, struct proc_status *st)
{
	FILE *f = pid ? open_proc("/proc/%d/status", pid, 0) : fopen("/proc/self/status", "re");

	memset(st, 0, sizeof(*st));
	st->tgid = -1;
	if (!f)
		return errno == ENOENT ? -ENOENT : -errno;
	parse_status(f, st);
	fclose(f);
	return 0;
}

int proc__parse_status(const char *text, size_t len, struct proc_status *st)
{
	FILE *f = len ? fmemopen((void *)text, len, "r") : NULL;

	memset(st, 0, sizeof(*st));
	st->tgid = -1;
	if (!f)
		return len ? -errno : 0;
	parse_status(f, st);
	fclose(f);
	return 0;
}

pid_t proc__tgid(pid_t pid)
{
	struct proc_status st;

	return proc__status(pid, &st) ? -1 : st.tgid;
}

int proc__gone(pid_t pid)
{
	struct proc_status st;

	return proc__status(pid, &st) < 0 || st.state == 'Z';
}

/* A kernel thread on kernels without the Kthread field: no program. */
static int no_program(pid_t pid)
{
	char path[64], target[16];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return readlink(path, target, sizeof(target)) < 0 && errno == ENOENT;
}

const char *proc__untraceable(pid_t pid)
{
	struct proc_status st;

	if (proc__status(pid, &st) < 0)
		return "does not exist";
	/* the main thread gone (pthread_exit), the others running: its
	 * files and command line read empty from then on */
	if (st.state == 'Z' && st.threads > 1)
		return "has lost its main thread (pthread_exit), its other threads run on: its "
		       "files can no longer be read to probe them; run the program under sbt-bpf "
		       "(sbt-bpf -- CMD) instead";
	if (st.state == 'Z' || st.state == 'X')
		return "has exited (a zombie: its parent has not collected it yet)";
	if (st.tgid == getpid())
		return "is sbt-bpf itself (its own calls would feed its own trace)";
	if (st.kthread || no_program(pid))
		return "is a kernel thread: it has no program to probe";
	return NULL;
}

void proc__cmdline(pid_t pid, char *buf, size_t n)
{
	FILE *f = open_proc("/proc/%d/cmdline", pid, 0);
	size_t len = 0, i;

	if (f) {
		len = fread(buf, 1, n - 1, f);
		fclose(f);
	}
	/* arguments are NUL-separated; a heading must stay on one line */
	for (i = 0; i + 1 < len; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[len] = 0;
	utf8_printable(buf);
}

/* The first line of f starting with prefix, without it and the newline. */
static int read_line(FILE *f, const char *prefix, char *buf, size_t n)
{
	char line[4096];
	int found = 0;

	if (!f)
		return -ENOENT;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, strlen(prefix))) {
			snprintf(buf, n, "%s", line + strlen(prefix));
			buf[strcspn(buf, "\n")] = 0;
			found = 1;
		}
	fclose(f);
	return found ? 0 : -ENOENT;
}

int proc__comm(pid_t pid, pid_t tid, char *buf, size_t n)
{
	FILE *f = tid ? open_proc("/proc/%d/task/%d/comm", pid, tid)
		      : open_proc("/proc/%d/comm", pid, 0);

	buf[0] = 0;
	return read_line(f, "", buf, n);
}

int proc__environ_get(pid_t pid, const char *name, char *buf, size_t n)
{
	FILE *f = open_proc("/proc/%d/environ", pid, 0);
	size_t len = strlen(name), i = 0;
	int c, found = 0, at_start = 1, matched = 0;

	if (!f)
		return -ENOENT;
	/* NAME=VALUE strings, each ending with a NUL: a stream, without a bound
	 * on the environment's size */
	while (!found && (c = getc(f)) != EOF) {
		if (at_start && matched == (int)len && c == '=') {
			found = 1;
			break;
		}
		if (c == 0) {
			at_start = 1;
			matched = 0;
		} else if (at_start && matched < (int)len && c == name[matched]) {
			matched++;
		} else {
			at_start = 0;
		}
	}
	if (found) {
		while ((c = getc(f)) != EOF && c && i + 1 < n)
			buf[i++] = (char)c;
		buf[i] = 0;
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

int proc__cgroup(pid_t pid, char *buf, size_t n)
{
	return read_line(open_proc("/proc/%d/cgroup", pid, 0), "0::", buf, n);
}

static int for_each_number(const char *path, int (*fn)(void *ctx, pid_t id), void *ctx)
{
	DIR *dir = opendir(path);
	struct dirent *d;
	int id, rc = 0;

	if (!dir)
		return 0;
	while (!rc && (d = readdir(dir)))
		if ((id = atoi(d->d_name)) > 0)
			rc = fn(ctx, id);
	closedir(dir);
	return rc;
}

int proc__for_each_task(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	return for_each_number(path, fn, ctx);
}

int proc__for_each_pid(int (*fn)(void *ctx, pid_t pid), void *ctx)
{
	return for_each_number("/proc", fn, ctx);
}

struct children_of {
	pid_t pid;
	int (*fn)(void *ctx, pid_t child);
	void *ctx;
};

static int children_of_task(void *ctx, pid_t tid)
{
	struct children_of *c = ctx;
	FILE *f = open_proc("/proc/%d/task/%d/children", c->pid, tid);
	int child, rc = 0;

	if (!f)
		return 0;
	while (!rc && fscanf(f, "%d", &child) == 1)
		rc = c->fn(c->ctx, child);
	fclose(f);
	return rc;
}

int proc__for_each_child(pid_t pid, int (*fn)(void *ctx, pid_t child), void *ctx)
{
	struct children_of c = {pid, fn, ctx};

	return proc__for_each_task(pid, children_of_task, &c);
}

/* The state letter of task tid of process pid ("R", "S", "T", ...), 0 when
 * gone, and its flags (PF_*; 0 when unknown) if flags is not NULL. The
 * third and ninth fields of its stat: after the name, which may hold
 * anything, up to its last ')'. */
static char task_stat(pid_t pid, pid_t tid, unsigned long *flags)
{
	FILE *f = open_proc("/proc/%d/task/%d/stat", pid, tid);
	char line[512], *end, state;
	size_t n;

	if (flags)
		*flags = 0;
	if (!f)
		return 0;
	n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = 0;
	end = strrchr(line, ')');
	if (!end || end[1] != ' ')
		return 0;
	state = end[2];
	/* state, ppid, pgrp, session, tty_nr, tpgid, flags */
	if (flags && sscanf(end + 2, "%*c %*d %*d %*d %*d %*d %lu", flags) != 1)
		*flags = 0;
	return state;
}

struct stopped_tasks {
	pid_t pid;
	uint32_t *tids;
	int max, n;
};

static int note_stopped(void *ctx, pid_t tid)
{
	struct stopped_tasks *st = ctx;
	char state = task_stat(st->pid, tid, NULL);

	/* T: a stop signal (SIGSTOP, SIGTSTP), t: a debugger's stop */
	if (state == 'T' || state == 't') {
		if (st->n < st->max)
			st->tids[st->n] = tid;
		st->n++;
	}
	return 0;
}

int proc__stopped_tasks(pid_t pid, uint32_t *tids, int max)
{
	struct stopped_tasks st = {pid, tids, max, 0};

	proc__for_each_task(pid, note_stopped, &st);
	return st.n;
}

#define PF_EXITING 0x4 /* include/linux/sched.h: getting shut down */

static int signal_or_exit_of(void *ctx, pid_t tid)
{
	pid_t pid = *(pid_t *)ctx;
	struct proc_status st;
	unsigned long flags;
	char state = task_stat(pid, tid, &flags);
	FILE *f;

	/* a zombie (the main thread exited before the others): nothing to do */
	if (!state || state == 'Z' || state == 'X')
		return 0;
	if (flags & PF_EXITING)
		return 1;
	f = open_proc("/proc/%d/task/%d/status", pid, tid);
	if (!f)
		return 0;
	memset(&st, 0, sizeof(st));
	parse_status(f, &st);
	fclose(f);
	return ((st.sigpnd | st.shdpnd) & ~st.sigblk) != 0;
}

int proc__signal_or_exit_coming(pid_t pid)
{
	return proc__for_each_task(pid, signal_or_exit_of, &pid);
}

/* ---- mapped files ----------------------------------------------------------- */

static int find_file(const struct mapped_file *f, int n, uint64_t dev, uint64_t inode)
{
	int i;

	for (i = 0; i < n; i++)
		if (f[i].dev == dev && f[i].inode == inode)
			return i;
	return -1;
}

static uint64_t dev_number(unsigned int major, unsigned int minor)
{
	return ((uint64_t)major << 32) | minor;
}

uint64_t proc__dev_of(dev_t st_dev)
{
	return dev_number(major(st_dev), minor(st_dev));
}

/* One mapping of a maps line: its addresses and where in the file they start. */
struct maps_range {
	uint64_t start, end, pgoff;
};

/* Parse one maps line; returns 0 for a file-backed mapping. */
static int parse_maps_line(const char *line, struct mapped_file *m, struct maps_range *r)
{
	unsigned int major, minor;
	char perms[8];
	int pos = 0;
	const char *path;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &r->start,
		   &r->end, perms, &r->pgoff, &major, &minor, &m->inode, &pos) < 7 ||
	    !pos)
		return -EINVAL;
	path = line + pos;
	if (path[0] != '/' || !m->inode || strstr(path, " (deleted)"))
		return -ENOENT;
	snprintf(m->path, sizeof(m->path), "%.*s", (int)strcspn(path, "\n"), path);
	m->dev = dev_number(major, minor);
	m->executable = perms[2] == 'x';
	m->map_start = r->start;
	m->map_end = r->end;
	return 0;
}

static int add_file(struct mapped_file **files, int *n, int *cap, const struct mapped_file *m)
{
	if (*n == *cap) {
		struct mapped_file *p = realloc(*files, (*cap ? *cap * 2 : 32) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*files = p;
		*cap = *cap ? *cap * 2 : 32;
	}
	(*files)[(*n)++] = *m;
	return 0;
}

int proc__parse_maps_line(const char *line, struct mapped_file *m)
{
	struct maps_range r;

	memset(m, 0, sizeof(*m));
	return parse_maps_line(line, m, &r);
}

int proc__mapped_files(pid_t pid, struct mapped_file **out)
{
	FILE *f = open_proc("/proc/%d/maps", pid, 0);
	struct mapped_file *files = NULL, m;
	struct maps_range r;
	int n = 0, cap = 0, i;
	char line[1024];

	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f)) {
		memset(&m, 0, sizeof(m));
		if (parse_maps_line(line, &m, &r))
			continue;
		m.pid = pid;
		i = find_file(files, n, m.dev, m.inode);
		if (i >= 0) {
			files[i].executable |= m.executable;
			continue;
		}
		if (add_file(&files, &n, &cap, &m)) {
			fclose(f);
			free(files);
			return -ENOMEM;
		}
	}
	fclose(f);
	*out = files;
	return n;
}

int proc__locate(pid_t pid, uint64_t addr, struct mapped_file *f, uint64_t *offset)
{
	FILE *in = open_proc("/proc/%d/maps", pid, 0);
	struct maps_range r;
	char line[1024];
	int rc = -ENOENT;

	if (!in)
		return errno == ENOENT ? -ESRCH : -errno;
	while (rc && fgets(line, sizeof(line), in)) {
		memset(f, 0, sizeof(*f));
		if (parse_maps_line(line, f, &r) || addr < r.start || addr >= r.end)
			continue;
		if (!f->executable)
			break; /* data, not code */
		f->pid = pid;
		*offset = addr - r.start + r.pgoff;
		rc = 0;
	}
	fclose(in);
	return rc;
}

int proc__code_addresses(pid_t pid, uint64_t dev, uint64_t ino, const uint64_t *offsets,
			 uint64_t *addrs, int n)
{
	FILE *in = open_proc("/proc/%d/maps", pid, 0);
	struct mapped_file f;
	struct maps_range r;
	char line[1024];
	int found = 0, i;

	if (!in)
		return errno == ENOENT ? -ESRCH : -errno;
	for (i = 0; i < n; i++)
		addrs[i] = 0;
	while (found < n && fgets(line, sizeof(line), in)) {
		memset(&f, 0, sizeof(f));
		if (parse_maps_line(line, &f, &r) || !f.executable || f.dev != dev ||
		    f.inode != ino)
			continue;
		for (i = 0; i < n; i++)
			if (!addrs[i] && offsets[i] >= r.pgoff &&
			    offsets[i] - r.pgoff < r.end - r.start) {
				addrs[i] = r.start + (offsets[i] - r.pgoff);
				found++;
			}
	}
	fclose(in);
	return found;
}

int proc__file_base(pid_t pid, uint64_t dev, uint64_t ino, uint64_t *start)
{
	FILE *in = open_proc("/proc/%d/maps", pid, 0);
	struct mapped_file f;
	struct maps_range r;
	char line[1024];
	int rc = -ENOENT;

	if (!in)
		return errno == ENOENT ? -ESRCH : -errno;
	while (rc && fgets(line, sizeof(line), in)) {
		memset(&f, 0, sizeof(f));
		if (parse_maps_line(line, &f, &r) || r.pgoff || f.dev != dev || f.inode != ino)
			continue;
		*start = r.start;
		rc = 0;
	}
	fclose(in);
	return rc;
}

/* Whether fd is the file f says (device and inode). */
static int same_file(int fd, const struct mapped_file *f)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	return proc__dev_of(st.st_dev) == f->dev && st.st_ino == f->inode ? 0 : -ESTALE;
}

static int open_checked(const char *path, const struct mapped_file *f, int extra_flags)
{
	int fd = infile__open(path, extra_flags), err;

	if (fd < 0)
		return fd;
	err = same_file(fd, f);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int proc__open_mapped(const struct mapped_file *f)
{
	char path[640];
	int fd;

	if (f->pid <= 0)
		return infile__open(f->open_path[0] ? f->open_path : f->path, 0);
	/* The mapping itself: needs CAP_SYS_ADMIN (or CAP_CHECKPOINT_RESTORE). */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)f->pid,
		 f->map_start, f->map_end);
	fd = f->map_end ? open_checked(path, f, 0) : -ENOENT;
	if (fd >= 0 || fd == -ESTALE || fd == -EINVAL)
		return fd;
	/* Without it: the path in the process's root, which is right unless
	 * the process is in a chroot; then the device and inode tell. */
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)f->pid, f->path);
	fd = open_checked(path, f, O_NOFOLLOW);
	if (fd >= 0 || fd == -ESTALE || fd == -EINVAL)
		return fd;
	/* The process has exited, or is exiting (its root and mappings go
	 * before it is a zombie: ENOENT): our own view of the path, checked
	 * alike (the device and inode keep another file of that name out). Not
	 * when its root was refused: another user's files take the right to
	 * trace that user's processes. */
	if (fd != -ENOENT && fd != -ESRCH && !proc__gone(f->pid))
		return fd;
	return open_checked(f->path, f, O_NOFOLLOW);
}

/* ---- pinned files: one descriptor per file probed ---------------------------- */

#define MAX_PINS 8192

static struct pin {
	uint64_t dev, inode;
	int fd;
} pins[MAX_PINS];
static int npins;

int proc__pin(const struct mapped_file *f, char *path, size_t n)
{
	int i, fd;

	if (f->pid <= 0) {
		snprintf(path, n, "%s", f->open_path[0] ? f->open_path : f->path);
		return 0;
	}
	for (i = 0; i < npins; i++)
		if (pins[i].dev == f->dev && pins[i].inode == f->inode)
			break;
	if (i == npins) {
		if (npins == MAX_PINS)
			return -EMFILE;
		fd = proc__open_mapped(f);
		if (fd < 0)
			return fd;
		pins[npins++] = (struct pin){f->dev, f->inode, fd};
	}
	snprintf(path, n, "/proc/self/fd/%d", pins[i].fd);
	return 0;
}

int proc__exe_inode(pid_t pid, uint64_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st))
		return -errno;
	*ino = st.st_ino;
	return 0;
}

int proc__entry_point(pid_t pid, unsigned long *entry)
{
	char path[64];
	Elf64_auxv_t aux;
	int fd, rc = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (read(fd, &aux, sizeof(aux)) == sizeof(aux) && aux.a_type != AT_NULL)
		if (aux.a_type == AT_ENTRY) {
			*entry = aux.a_un.a_val;
			rc = 0;
			break;
		}
	close(fd);
	return rc;
}

void proc__cpu_model(char *buf, size_t n)
{
	char model[256];
	const char *v;

	if (read_line(fopen("/proc/cpuinfo", "re"), "model name", model, sizeof(model)) ||
	    !(v = strchr(model, ':'))) {
		snprintf(buf, n, "?");
		return;
	}
	snprintf(buf, n, "%s", v + strspn(v, ": \t"));
}
