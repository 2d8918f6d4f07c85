// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "lib/log.h"
#include "lib/proc.h"
#include "sbt.skel.h"
#include "user/bpf/rings.h"
#include "user/bpf/session.h"
#include "user/bpf/uprobe_multi.h"

#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT	39
/* Links removed at once when tracing ends (session__detach()) */
#define DETACH_THREADS 64

struct session {
	struct sbt *skel;
	struct rings *rings;
	int shared_ring;	 /* per-CPU rings refused: the one shared ring */
	int multi;		 /* programs loaded for multi-uprobe links */
	struct bpf_link **links; /* per-function links (kernels before 6.6) */
	int nlinks;
	int *link_fds; /* multi-uprobe links */
	int nlink_fds;
	struct session_opts opts;
	pid_t *targets; /* pids in the filter, added again on fallback */
	int ntargets;
	/* following a tree: the pids userspace put in it (the command; the -p
	 * processes and their descendants), in the tree again on fallback */
	pid_t *followed;
	int nfollowed;
	/* pids taken off the paused map and not continued yet (userspace's
	 * own map, for the guard: user/trace/guard.h); -1 until needed */
	int resuming_fd;
	/* the loaded programs' stop flag (`stopped`), NULL while none are
	 * loaded: session__stop() may run in a signal handler */
	volatile __u8 *volatile stop_flag;
};

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && log_get_level() < LOG_LIBBPF)
		return 0;
	if (level != LIBBPF_DEBUG && log_get_level() < LOG_INFO)
		return 0; /* our own message says what failed */
	return vfprintf(stderr, fmt, ap);
}

int session__check_privileges(char *err, size_t errlen)
{
	struct proc_status st;
	unsigned long long bpf = 1ULL << CAP_BPF_BIT, perfmon = 1ULL << CAP_PERFMON_BIT, has;

	if (geteuid() == 0)
		return 0;
	has = proc__status(0, &st) ? 0 : st.caps;
	if ((has & (bpf | perfmon)) == (bpf | perfmon))
		return 0;
	snprintf(err, errlen,
		 "tracing needs root, or the capabilities CAP_BPF and CAP_PERFMON (this process "
		 "lacks %s); run it with sudo",
		 !(has & bpf) && !(has & perfmon) ? "both"
		 : !(has & bpf)			  ? "CAP_BPF"
						  : "CAP_PERFMON");
	return -EPERM;
}

int session__ncpus(void)
{
	int n = libbpf_num_possible_cpus();

	return n > 0 ? n : 1;
}

static int attach_tracepoints(struct session *s, char *err, size_t errlen)
{
	struct bpf_link *l;

	l = bpf_program__attach_raw_tracepoint(s->skel->progs.thread_start, "sched_process_fork");
	if (!l)
		goto fail;
	s->skel->links.thread_start = l;
	l = bpf_program__attach_raw_tracepoint(s->skel->progs.thread_exit, "sched_process_exit");
	if (!l)
		goto fail;
	s->skel->links.thread_exit = l;
	l = bpf_program__attach_raw_tracepoint(s->skel->progs.proc_exec, "sched_process_exec");
	if (!l)
		goto fail;
	s->skel->links.proc_exec = l;
	/* sbt-bpf's own time on a traced thread's CPU (bpf/self.bpf.c) */
	l = bpf_program__attach_trace(s->skel->progs.self_switch);
	if (!l)
		goto fail;
	s->skel->links.self_switch = l;
	return 0;
fail:
	snprintf(err, errlen, "cannot attach the process tracepoints: %s", strerror(errno));
	return -errno;
}

static int attach_futex(struct session *s, char *err, size_t errlen)
{
	s->skel->links.futex_enter = bpf_program__attach_trace(s->skel->progs.futex_enter);
	if (s->skel->links.futex_enter)
		s->skel->links.futex_exit = bpf_program__attach_trace(s->skel->progs.futex_exit);
	if (!s->skel->links.futex_exit) {
		snprintf(err, errlen, "cannot attach the syscall tracepoints for futex: %s",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

/* Hand the per-CPU counters to the BPF side, then start virtualizing them
 * per thread at context switches. */
static int attach_counters(struct session *s, const struct counter_set *cs, char *err,
			   size_t errlen)
{
	int map = bpf_map__fd(s->skel->maps.counters);
	__u32 i;

	for (i = 0; i < (__u32)(cs->n * cs->ncpus); i++)
		if (cs->fds[i] >= 0 && bpf_map_update_elem(map, &i, &cs->fds[i], BPF_ANY)) {
			snprintf(err, errlen, "cannot pass counter %s to BPF: %s",
				 cs->info[i / cs->ncpus].name, strerror(errno));
			return -errno;
		}
	s->skel->links.ctr_switch = bpf_program__attach_trace(s->skel->progs.ctr_switch);
	if (s->skel->links.ctr_switch)
		s->skel->links.ctr_exit = bpf_program__attach_raw_tracepoint(
			s->skel->progs.ctr_exit, "sched_process_exit");
	if (!s->skel->links.ctr_exit) {
		snprintf(err, errlen, "cannot attach the counter tracepoints: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* Open and load the skeleton, with the uprobe programs typed for
 * multi-uprobe links when `multi` (refused by kernels before 6.6). */
static int load_skeleton(struct session *s, const struct session_opts *o, int multi)
{
	int nctr = o->counters ? o->counters->n : 0, k;
	char err[256];

	s->skel = sbt__open();
	if (!s->skel)
		return -errno;
	rings__free(s->rings);
	s->rings = rings__new(s->skel, s->shared_ring ? 0 : session__ncpus(), o->ringbuf_bytes, err,
			      sizeof(err));
	if (!s->rings) {
		log_info("%s", err);
		return errno ? -errno : -ENOMEM;
	}
	s->skel->rodata->single_target = o->single_target;
	s->skel->rodata->proc_all = !!o->system_wide;
	s->skel->rodata->follow = !!o->follow;
	s->skel->rodata->inject_ns = o->inject_ns;
	bpf_program__set_autoload(s->skel->progs.maps_changed, o->system_wide || o->follow);
	/* Programs that are not attached need not be loaded either. */
	bpf_program__set_autoload(s->skel->progs.futex_enter, o->futex);
	bpf_program__set_autoload(s->skel->progs.futex_exit, o->futex);
	bpf_program__set_autoload(s->skel->progs.ctr_switch, nctr > 0);
	bpf_program__set_autoload(s->skel->progs.ctr_exit, nctr > 0);
	/* a calibration's session follows no process */
	bpf_program__set_autoload(s->skel->progs.thread_start, !o->calibration);
	bpf_program__set_autoload(s->skel->progs.thread_exit, !o->calibration);
	bpf_program__set_autoload(s->skel->progs.proc_exec, !o->calibration);
	bpf_program__set_autoload(s->skel->progs.self_switch, !o->calibration);
	s->skel->rodata->tracer_tgid = getpid();
	s->skel->rodata->ncounters = nctr;
	s->skel->rodata->ctr_ncpus = nctr ? o->counters->ncpus : 1;
	for (k = 0; k < nctr; k++)
		if (o->counters->info[k].flags & SBT_CTRF_HARDWARE)
			s->skel->rodata->ctr_hw_mask |= 1u << k;
	bpf_map__set_max_entries(s->skel->maps.counters, nctr ? nctr * o->counters->ncpus : 1);
	if (multi) {
		bpf_program__set_expected_attach_type(s->skel->progs.sync_enter,
						      SBT_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(s->skel->progs.sync_exit,
						      SBT_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(s->skel->progs.site_exit,
						      SBT_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(s->skel->progs.maps_changed,
						      SBT_BPF_TRACE_UPROBE_MULTI);
	}
	s->multi = multi;
	return sbt__load(s->skel);
}

/* load_skeleton() with a ring per CPU, unless --shared-ring, or the one
 * shared ring where the kernel refuses ring buffers in a map. */
static int load_with_rings(struct session *s, const struct session_opts *o, int multi)
{
	int e;

	s->shared_ring = o->shared_ring;
	e = load_skeleton(s, o, multi);
	if (!e || s->shared_ring)
		return e;
	sbt__destroy(s->skel);
	s->shared_ring = 1;
	if (load_skeleton(s, o, multi)) {
		s->shared_ring = 0;
		return e;
	}
	log_info("per-CPU ring buffers unavailable (%s): one shared ring", strerror(-e));
	return 0;
}

/* Load the programs (multi-uprobe typed when `multi` and the kernel takes
 * it), attach the tracepoints, map the ring buffers. */
static int setup(struct session *s, int multi, char *err, size_t errlen)
{
	const struct session_opts *o = &s->opts;
	int e;

	e = multi ? load_with_rings(s, o, 1) : -EOPNOTSUPP;
	if (e) {
		if (multi)
			log_info("multi-uprobe links unavailable (%s): one link per function",
				 strerror(-e));
		sbt__destroy(s->skel);
		s->skel = NULL;
		e = load_with_rings(s, o, 0);
	}
	if (e) {
		snprintf(err, errlen,
			 "cannot load the BPF programs: %s (kernel without BPF ring buffers, "
			 "BTF or uprobes?)",
			 strerror(-e));
		return e;
	}
	/* the rings first: a record finding no ring is lost */
	if (rings__start(s->rings, s->skel, err, errlen) ||
	    (!o->calibration && attach_tracepoints(s, err, errlen)) ||
	    (o->futex && !o->calibration && attach_futex(s, err, errlen)) ||
	    (o->counters && o->counters->n && attach_counters(s, o->counters, err, errlen)))
		return -EINVAL;
	s->stop_flag = &s->skel->bss->stopped;
	return 0;
}

struct session *session__open(const struct session_opts *o, char *err, size_t errlen)
{
	struct session *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	libbpf_set_print(libbpf_log);
	s->opts = *o;
	s->resuming_fd = -1;
	/* SBT_BPF_NO_UPROBE_MULTI=1 forces the per-function fallback (tests). */
	if (getenv("SBT_BPF_NO_UPROBE_MULTI"))
		log_info("multi-uprobe links unavailable (SBT_BPF_NO_UPROBE_MULTI is set): one "
			 "link per function");
	if (setup(s, !getenv("SBT_BPF_NO_UPROBE_MULTI"), err, errlen)) {
		session__close(s);
		return NULL;
	}
	return s;
}

static int add_targets(struct session *s);

/* A kernel that loaded the multi-uprobe typed programs but refuses the
 * links: start again with one link per function. */
static int fall_back_per_function(struct session *s, char *err, size_t errlen)
{
	log_info("multi-uprobe links refused: one link per function");
	s->stop_flag = NULL;
	rings__free(s->rings);
	s->rings = NULL;
	sbt__destroy(s->skel);
	s->skel = NULL;
	if (setup(s, 0, err, errlen))
		return -EINVAL;
	return add_targets(s);
}

static int filter_add(struct session *s, pid_t pid)
{
	__u32 key = pid;
	__u8 one = 1;

	return bpf_map__update_elem(s->skel->maps.targets, &key, sizeof(key), &one, sizeof(one),
				    BPF_ANY);
}

static void tree_add(struct session *s, pid_t pid)
{
	if ((unsigned int)pid < SBT_TREE_PIDS)
		__atomic_fetch_or(&s->skel->bss->tree[pid / 64], 1ULL << (pid % 64),
				  __ATOMIC_SEQ_CST);
}

static int add_targets(struct session *s)
{
	int i, e;

	for (i = 0; i < s->nfollowed; i++)
		tree_add(s, s->followed[i]);
	for (i = 0; i < s->ntargets; i++)
		if ((e = filter_add(s, s->targets[i])))
			return e;
	return 0;
}

int session__follow(struct session *s, pid_t pid)
{
	pid_t *p;

	if ((unsigned int)pid >= SBT_TREE_PIDS)
		return -ERANGE;
	p = realloc(s->followed, (s->nfollowed + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->followed = p;
	s->followed[s->nfollowed++] = pid;
	tree_add(s, pid);
	return 0;
}

void session__unfollow(struct session *s, pid_t pid)
{
	int i;

	for (i = 0; i < s->nfollowed; i++)
		if (s->followed[i] == pid)
			s->followed[i--] = s->followed[--s->nfollowed];
	if ((unsigned int)pid < SBT_TREE_PIDS)
		__atomic_fetch_and(&s->skel->bss->tree[pid / 64], ~(1ULL << (pid % 64)),
				   __ATOMIC_SEQ_CST);
}

/* The bits are cleared by the BPF side at each process's exit; a bit may
 * outlive its process only where userspace set it as the process exited. */
int session__tree_alive(const struct session *s)
{
	const __u64 *tree = (const __u64 *)s->skel->bss->tree;
	unsigned int w;
	__u64 bits;

	for (w = 0; w < SBT_TREE_PIDS / 64; w++)
		for (bits = __atomic_load_n(&tree[w], __ATOMIC_RELAXED); bits; bits &= bits - 1)
			if (!proc__gone((pid_t)(w * 64 + __builtin_ctzll(bits))))
				return 1;
	return 0;
}

int session__take_paused(struct session *s, pid_t *pids, int max)
{
	const struct bpf_map *map = s->skel->maps.paused;
	__u32 key, next;
	__u8 one = 1;
	int n = 0, more;

	/* taken off as they are read (a process stopped again after it is
	 * continued is listed anew), and listed as resuming until continued */
	for (more = !bpf_map__get_next_key(map, NULL, &key, sizeof(key)); more && n < max;
	     key = next) {
		more = !bpf_map__get_next_key(map, &key, &next, sizeof(next));
		if (s->resuming_fd >= 0)
			bpf_map_update_elem(s->resuming_fd, &key, &one, BPF_ANY);
		bpf_map__delete_elem(map, &key, sizeof(key), 0);
		pids[n++] = key;
	}
	return n;
}

void session__resumed(struct session *s, const pid_t *pids, int n)
{
	__u32 key;
	int i;

	for (i = 0; i < n && s->resuming_fd >= 0; i++) {
		key = (__u32)pids[i];
		bpf_map_delete_elem(s->resuming_fd, &key);
	}
}

int session__never_pause(struct session *s, pid_t pid)
{
	__u32 key = (__u32)pid;
	__u8 one = 1;

	return bpf_map__update_elem(s->skel->maps.unpaused, &key, sizeof(key), &one, sizeof(one),
				    BPF_ANY);
}

int session__stopped_lists(struct session *s, int fds[2])
{
	if (s->resuming_fd < 0) {
		s->resuming_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "sbt_resuming", sizeof(__u32),
						sizeof(__u8), 4096, NULL);
		if (s->resuming_fd < 0)
			return -errno;
	}
	fds[0] = bpf_map__fd(s->skel->maps.paused);
	fds[1] = s->resuming_fd;
	return 0;
}

int session__add_target(struct session *s, pid_t pid)
{
	pid_t *p = realloc(s->targets, (s->ntargets + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	s->targets = p;
	s->targets[s->ntargets++] = pid;
	return filter_add(s, pid);
}

void session__remove_target(struct session *s, pid_t pid)
{
	__u32 key = pid;
	int i;

	for (i = 0; i < s->ntargets; i++)
		if (s->targets[i] == pid)
			s->targets[i--] = s->targets[--s->ntargets];
	bpf_map__delete_elem(s->skel->maps.targets, &key, sizeof(key), 0);
	bpf_map__delete_elem(s->skel->maps.drops_by_pid, &key, sizeof(key), 0);
}

__u64 session__pid_drops(struct session *s, pid_t pid)
{
	__u32 key = pid;
	__u64 n = 0;

	if (bpf_map__lookup_elem(s->skel->maps.drops_by_pid, &key, sizeof(key), &n, sizeof(n), 0))
		return 0;
	return n;
}

static int keep_link(struct session *s, struct bpf_link *l)
{
	struct bpf_link **links = realloc(s->links, (s->nlinks + 1) * sizeof(*links));

	if (!links) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	s->links = links;
	s->links[s->nlinks++] = l;
	return 0;
}

static int keep_fd(struct session *s, int fd);

/* A multi-uprobe link where the kernel has them: a perf-event uprobe takes
 * ~0.1 s more to detach. */
int session__attach_loader(struct session *s, const char *path, uint64_t offset, pid_t pid)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts);
	struct bpf_link *l;
	uint64_t cookie = 0;
	char err[256];
	int fd;

	if (s->multi) {
		fd = uprobe_multi__attach(bpf_program__fd(s->skel->progs.maps_changed), path,
					  &offset, &cookie, 1, 0, pid);
		if (fd >= 0)
			return keep_fd(s, fd);
		if ((fd != -EINVAL && fd != -EOPNOTSUPP) || s->nlink_fds)
			return fd;
		if (fall_back_per_function(s, err, sizeof(err)))
			return -EINVAL;
	}
	l = bpf_program__attach_uprobe_opts(s->skel->progs.maps_changed, pid, path, offset, &opts);
	return l ? keep_link(s, l) : -errno;
}

/* How a probe is attached: its entry, and its return (a return probe at
 * the function) or its exit site (a plain probe at the shim's exit site). */
enum attach_dir { AT_ENTRY, AT_RETURN, AT_EXIT_SITE, AT_NDIRS };

static struct bpf_program *prog_of(struct session *s, int dir)
{
	return dir == AT_ENTRY	  ? s->skel->progs.sync_enter
	       : dir == AT_RETURN ? s->skel->progs.sync_exit
				  : s->skel->progs.site_exit;
}

/* Whether probe p has a link in direction dir, and at what offset. */
static int probe_dir(const struct probe *p, int dir, uint64_t *offset)
{
	*offset = dir == AT_EXIT_SITE ? p->exit_offset : probe__entry_offset(p);
	if (dir == AT_ENTRY)
		return !p->return_only;
	if (p->entry_only)
		return 0;
	return dir == AT_EXIT_SITE ? p->exit_offset != 0 : p->exit_offset == 0;
}

static int attach_one(struct session *s, const struct probe *p, pid_t pid, int dir)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = dir == AT_RETURN,
		    .bpf_cookie = probe__cookie(p));
	struct bpf_link *l;
	uint64_t offset;

	if (!probe_dir(p, dir, &offset))
		return 0;
	l = bpf_program__attach_uprobe_opts(prog_of(s, dir), pid, p->open_path, offset, &opts);
	return l ? keep_link(s, l) : -errno;
}

static int attach_per_function(struct session *s, const struct probe *probes, int n, pid_t pid,
			       char *err, size_t errlen)
{
	int i, e;

	for (i = 0; i < n; i++) {
		const struct probe *p = &probes[i];

		/* The exit first: an entry record is then always followed by
		 * its exit record, never an entry whose return goes unseen. */
		e = attach_one(s, p, pid, AT_RETURN);
		if (!e)
			e = attach_one(s, p, pid, AT_EXIT_SITE);
		if (!e)
			e = attach_one(s, p, pid, AT_ENTRY);
		if (e) {
			snprintf(err, errlen, "cannot attach a uprobe to %s in %s: %s",
				 p->info.symbol, p->info.object,
				 e == -ESRCH ? "process exited" : strerror(-e));
			return e;
		}
	}
	return 0;
}

static int keep_fd(struct session *s, int fd)
{
	int *fds = realloc(s->link_fds, (s->nlink_fds + 1) * sizeof(*fds));

	if (!fds) {
		close(fd);
		return -ENOMEM;
	}
	s->link_fds = fds;
	s->link_fds[s->nlink_fds++] = fd;
	return 0;
}

/* One link per direction (entry, return, exit site) for the probes in file
 * `path`. */
static int attach_file(struct session *s, const struct probe *probes, int np, const char *path,
		       pid_t pid, char *err, size_t errlen)
{
	static uint64_t offsets[AT_NDIRS][SBT_MAX_PROBES], cookies[AT_NDIRS][SBT_MAX_PROBES];
	int i, n[AT_NDIRS] = {0}, fd, dir;

	for (i = 0; i < np; i++) {
		const struct probe *p = &probes[i];

		if (strcmp(p->open_path, path))
			continue;
		for (dir = 0; dir < AT_NDIRS; dir++)
			if (probe_dir(p, dir, &offsets[dir][n[dir]]))
				cookies[dir][n[dir]++] = probe__cookie(p);
	}
	for (dir = AT_NDIRS - 1; dir >= 0; dir--) { /* exits first, as above */
		if (!n[dir])
			continue;
		fd = uprobe_multi__attach(bpf_program__fd(prog_of(s, dir)), path, offsets[dir],
					  cookies[dir], n[dir], dir == AT_RETURN, pid);
		if (fd < 0 || keep_fd(s, fd) < 0) {
			snprintf(err, errlen, "cannot attach uprobes in %s: %s", path,
				 fd == -ESRCH ? "process exited" : strerror(fd < 0 ? -fd : ENOMEM));
			return fd < 0 ? fd : -ENOMEM;
		}
	}
	return 0;
}

int session__attach_futex(struct session *s, char *err, size_t errlen)
{
	if (!s->opts.futex) {
		snprintf(err, errlen, "the futex tracepoints' programs were not loaded");
		return -EINVAL;
	}
	return attach_futex(s, err, errlen);
}

int session__attach_probes(struct session *s, const struct probe *probes, int n, pid_t pid,
			   char *err, size_t errlen)
{
	int i, j, e;

	for (i = 0; i < n; i++)
		if (probe__cookie(&probes[i]) & SBT_COOKIE_TIMED)
			rings__user_stamped(s->rings);
	if (!s->multi)
		return attach_per_function(s, probes, n, pid, err, errlen);
	for (i = 0; i < n; i++) {
		/* the first probe of each file attaches the whole file */
		for (j = 0; j < i && strcmp(probes[j].open_path, probes[i].open_path); j++)
			;
		if (j < i)
			continue;
		e = attach_file(s, probes, n, probes[i].open_path, pid, err, errlen);
		if ((e == -EINVAL || e == -EOPNOTSUPP) && !s->nlink_fds) {
			if (fall_back_per_function(s, err, errlen))
				return -EINVAL;
			return attach_per_function(s, probes, n, pid, err, errlen);
		}
		if (e)
			return e;
	}
	return 0;
}

int session__attach(struct session *s, const struct probe_table *t, pid_t pid, char *err,
		    size_t errlen)
{
	return session__attach_probes(s, t->probes + 1, t->n - 1, pid, err, errlen);
}

int session__drain(struct session *s, int timeout_ms, session_event_fn fn, void *ctx)
{
	return rings__drain(s->rings, timeout_ms, fn, ctx);
}

int session__flush(struct session *s, session_event_fn fn, void *ctx)
{
	return rings__flush(s->rings, fn, ctx);
}

int session__fill(const struct session *s)
{
	return rings__fill(s->rings);
}

__u64 session__late(const struct session *s)
{
	return rings__late(s->rings);
}

__u64 session__drops(struct session *s, __u64 *per_cpu, int max)
{
	int i, n = session__ncpus();
	__u64 total = 0;

	for (i = 0; i < n && i < 1024; i++) {
		total += s->skel->bss->drops_total[i];
		if (i < max)
			per_cpu[i] = s->skel->bss->drops_total[i];
	}
	return total;
}

void session__stop(struct session *s)
{
	volatile __u8 *flag = s ? s->stop_flag : NULL;

	if (flag)
		*flag = 1;
}

/* What is being detached: bpf_link objects, then raw link descriptors. */
struct detach_work {
	struct bpf_link **links;
	int nlinks;
	int *fds;
	int nfds;
	int next; /* the next item to take (atomic) */
};

static void *detach_worker(void *arg)
{
	struct detach_work *w = arg;
	int i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->nlinks + w->nfds) {
		if (i < w->nlinks)
			bpf_link__destroy(w->links[i]);
		else
			close(w->fds[i - w->nlinks]);
	}
	return NULL;
}

/* The skeleton's tracepoint links join the list: they run for every
 * syscall, context switch or fork of the machine. */
static int take_skel_links(struct session *s)
{
	struct bpf_link **l[] = {&s->skel->links.futex_enter, &s->skel->links.futex_exit,
				 &s->skel->links.ctr_switch,  &s->skel->links.ctr_exit,
				 &s->skel->links.proc_exec,   &s->skel->links.thread_start,
				 &s->skel->links.thread_exit, &s->skel->links.self_switch};
	size_t i;

	for (i = 0; i < sizeof(l) / sizeof(l[0]); i++)
		if (*l[i]) {
			if (keep_link(s, *l[i]))
				return -ENOMEM; /* keep_link destroyed it */
			*l[i] = NULL;
		}
	return 0;
}

/* Each link removal waits for RCU grace periods (~50-100 ms on this VM:
 * uprobe_unregister_sync(), a tracepoint's synchronize): one after the
 * other, a session with a hundred links took seconds to stop. Removed from
 * several threads at once, their waits overlap. */
void session__detach(struct session *s)
{
	struct detach_work w;
	pthread_t th[DETACH_THREADS];
	pthread_attr_t attr;
	sigset_t all, old;
	int i, n = 0;

	if (s->skel)
		take_skel_links(s);
	w = (struct detach_work){s->links, s->nlinks, s->link_fds, s->nlink_fds, 0};
	/* signals stay with the main thread (the tracer's stop handler) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (!pthread_attr_init(&attr)) {
		pthread_attr_setstacksize(&attr, 64 * 1024);
		for (; n < DETACH_THREADS && n < w.nlinks + w.nfds; n++)
			if (pthread_create(&th[n], &attr, detach_worker, &w))
				break;
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	detach_worker(&w); /* whatever no thread took, or all of it */
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	free(s->links);
	free(s->link_fds);
	s->links = NULL;
	s->link_fds = NULL;
	s->nlinks = s->nlink_fds = 0;
}

void session__close(struct session *s)
{
	if (!s)
		return;
	session__detach(s);
	s->stop_flag = NULL;
	rings__free(s->rings);
	sbt__destroy(s->skel);
	if (s->resuming_fd >= 0)
		close(s->resuming_fd);
	free(s->targets);
	free(s->followed);
	free(s);
}
