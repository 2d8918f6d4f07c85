// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe shim in a forked process (shim/shim.h, Fork; doc/design.md §4,
 * Probe shim and fork).
 *
 * The kernel optimizes a probed site into a call to a uprobe trampoline,
 * a page it maps into the process with VM_DONTCOPY: a fork does not copy
 * it, but copies the text page that holds the call. A child of a traced
 * process (fork, or clone without CLONE_VM: vfork and posix_spawn share
 * the parent's memory and trampolines) calling such a site jumps to an
 * unmapped address; nor does the kernel put the site back when the probe
 * goes (it only undoes a call into a trampoline the process has).
 *
 * So the wrappers read, before their sites, a flag in a page of their own
 * that a fork leaves zeroed (MADV_WIPEONFORK). The first wrapper call of a
 * new process (its other threads wait) looks at its sites: where one is a
 * call, it maps the library's text again over itself, from the file it
 * was mapped from (same device and inode). The new mapping is the file's
 * text with the breakpoints of the probes registered at that moment,
 * which the kernel puts into every new mapping of a probed file (the
 * state of a library just loaded; probes gone since: plain nops): the
 * child's first hit of each site then traps, its record is made as at any
 * site (the child joined the traced tree at its fork), and the kernel
 * optimizes the site for the child with a trampoline of its own. Where
 * the text cannot be mapped again (/proc not mounted, the file replaced or
 * deleted since), the process's wrappers call no site: untraced, unharmed.
 *
 * Only system calls here (no malloc, stdio, loader or pthread locks): the
 * child of a multithreaded parent may have inherited any of them held.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "shim/shim.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

enum { MM_FORKED = 0, MM_READY = SHIM_MM_READY, MM_SETTLING, MM_NO_SITES };

/* Until the constructor runs (another library's constructor may call a
 * wrapper first), and where the kernel has no MADV_WIPEONFORK (older than
 * 4.14: no optimized uprobes either), a flag no fork wipes. */
static int mm_unwiped = MM_READY;
int *shim__mm = &mm_unwiped;

/* This thread is settling the sites: a signal handler's wrapper call on
 * it must not wait for itself. */
static __thread int settling __attribute__((tls_model("initial-exec")));

/* The sites' addresses (SHIM_SITES). */
extern const uintptr_t __start_sbt_sites[] __attribute__((visibility("hidden")));
extern const uintptr_t __stop_sbt_sites[] __attribute__((visibility("hidden")));

#define CALL_OPCODE 0xe8

/* A mapping of the library's text holding a site that calls into nothing. */
struct text_map {
	uintptr_t start, end, offset;
	unsigned int major, minor;
	unsigned long inode;
	char path[4096];
};

#define MAX_MAPS 4
/* Static, not on the stack: a thread's stack may be small. One thread at a
 * time (MM_SETTLING). */
static struct text_map maps[MAX_MAPS];
static char line_buf[8192];

static int site_is_call(uintptr_t site)
{
	return *(const volatile unsigned char *)site == CALL_OPCODE;
}

static const char *hex(const char *p, uintptr_t *v)
{
	const char *s = p;
	int d;

	for (*v = 0;; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			break;
		*v = *v << 4 | (uintptr_t)d;
	}
	return p == s ? NULL : p;
}

/* A line of /proc/self/maps: start-end perms offset major:minor inode path */
static int parse_line(char *l, struct text_map *m)
{
	uintptr_t v;
	const char *p = l;

	if (!(p = hex(p, &m->start)) || *p++ != '-' || !(p = hex(p, &m->end)) || *p++ != ' ')
		return -1;
	if (strncmp(p, "r-xp ", 5))
		return -1;
	p += 5;
	if (!(p = hex(p, &m->offset)) || *p++ != ' ' || !(p = hex(p, &v)) || *p++ != ':')
		return -1;
	m->major = (unsigned int)v;
	if (!(p = hex(p, &v)) || *p++ != ' ')
		return -1;
	m->minor = (unsigned int)v;
	for (m->inode = 0; *p >= '0' && *p <= '9'; p++)
		m->inode = m->inode * 10 + (unsigned long)(*p - '0');
	while (*p == ' ')
		p++;
	if (*p != '/' || strlen(p) >= sizeof(m->path))
		return -1;
	strcpy(m->path, p);
	return 0;
}

/* The text mapping of each site that is a call, from /proc/self/maps;
 * their number, or -1. */
static int find_maps(void)
{
	struct text_map m;
	const uintptr_t *s;
	size_t len = 0;
	ssize_t n;
	char *p, *nl;
	int fd, nmaps = 0, i, ok = 1;

	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		n = read(fd, line_buf + len, sizeof(line_buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		for (p = line_buf; (nl = memchr(p, '\n', len - (size_t)(p - line_buf)));
		     p = nl + 1) {
			*nl = 0;
			if (parse_line(p, &m))
				continue;
			for (s = __start_sbt_sites; s < __stop_sbt_sites; s++)
				if (*s >= m.start && *s < m.end && site_is_call(*s))
					break;
			if (s == __stop_sbt_sites)
				continue;
			for (i = 0; i < nmaps && maps[i].start != m.start; i++)
				;
			if (i == nmaps && nmaps < MAX_MAPS)
				maps[nmaps++] = m;
		}
		len -= (size_t)(p - line_buf);
		memmove(line_buf, p, len);
		if (len == sizeof(line_buf) - 1) {
			ok = 0; /* a line longer than the buffer */
			break;
		}
	}
	if (n < 0)
		ok = 0;
	close(fd);
	return ok ? nmaps : -1;
}

/* Map the text again over itself, from the same file. */
static int map_again(const struct text_map *m)
{
	struct stat st;
	void *p;
	int fd, ok;

	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_ino == m->inode &&
	     major(st.st_dev) == m->major && minor(st.st_dev) == m->minor;
	if (ok) {
		p = mmap((void *)m->start, m->end - m->start, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE | MAP_FIXED, fd, (off_t)m->offset);
		ok = p == (void *)m->start;
	}
	close(fd);
	return ok ? 0 : -1;
}

/* Make the process's sites callable; 0 on success. */
static int settle_sites(void)
{
	const uintptr_t *s;
	int n, i;

	for (s = __start_sbt_sites; s < __stop_sbt_sites && !site_is_call(*s); s++)
		;
	if (s == __stop_sbt_sites)
		return 0; /* nops or breakpoints: the kernel handles those */
	n = find_maps();
	if (n <= 0)
		return -1;
	for (i = 0; i < n; i++)
		if (map_again(&maps[i]))
			return -1;
	for (s = __start_sbt_sites; s < __stop_sbt_sites; s++)
		if (site_is_call(*s))
			return -1; /* one the maps did not cover */
	return 0;
}

static void say_untraced(void)
{
	static const char msg[] = "sbt-bpf probe shim: a forked process could not map its probe "
				  "sites again: its calls are not traced\n";

	if (shim__timed && write(2, msg, sizeof(msg) - 1) < 0)
		return;
}

/* Wait for another thread settling the sites: yield, then sleep (a
 * waiter of a higher real-time priority on the settler's CPU would never
 * let it run by yielding). */
static void wait_settled(unsigned int round)
{
	struct timespec ts = {0, 100000};

	if (round < 64)
		sched_yield();
	else
		nanosleep(&ts, NULL);
}

int shim__mm_settle(void)
{
	int saved = errno, s, r;
	unsigned int round = 0;

	for (;;) {
		s = __atomic_load_n(shim__mm, __ATOMIC_ACQUIRE);
		if (s == MM_READY || s == MM_NO_SITES) {
			r = s;
			goto out;
		}
		if (s == MM_SETTLING) {
			if (settling) {
				r = MM_NO_SITES; /* a signal handler on the settling thread */
				goto out;
			}
			wait_settled(round++);
			continue;
		}
		if (__atomic_compare_exchange_n(shim__mm, &s, MM_SETTLING, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
	}
	settling = 1;
	shim__prev = 0; /* a hit of the parent's, not this process's */
	r = settle_sites() ? MM_NO_SITES : MM_READY;
	if (r == MM_NO_SITES)
		say_untraced();
	__atomic_store_n(shim__mm, r, __ATOMIC_RELEASE);
	settling = 0;
out:
	errno = saved;
	return r == MM_READY;
}

/* fork(): the child's thread has no earlier hit of its own (clone() and
 * _Fork() run no handler: the thread that settles the sites forgets its
 * own). */
static void child_forgets(void)
{
	shim__prev = 0;
}

void shim__mm_init(void)
{
	long page = sysconf(_SC_PAGESIZE);
	int *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		      0);

	if (p == MAP_FAILED)
		return;
	if (madvise(p, (size_t)page, MADV_WIPEONFORK)) {
		munmap(p, (size_t)page);
		return;
	}
	*p = MM_READY;
	__atomic_store_n(&shim__mm, p, __ATOMIC_RELEASE);
	pthread_atfork(NULL, NULL, child_forgets);
}
