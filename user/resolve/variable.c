// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A program's variable read from its running process (variable.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "lib/proc.h"
#include "user/resolve/elfsym.h"
#include "user/resolve/variable.h"

int variable__find(struct variable *v, pid_t pid, const char *name, char *err, size_t n)
{
	char path[64];
	struct elfsym *es;
	struct stat st;
	uint64_t vaddr, start = 0;
	int fd, e;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		e = -errno;
		snprintf(err, n, "cannot open the program of pid %d: %s", (int)pid, strerror(-e));
		if (fd >= 0)
			close(fd);
		return e;
	}
	es = elfsym__from_fd(fd, &e);
	if (es) {
		e = elfsym__object(es, name, &vaddr, &v->size);
		if (!e)
			e = proc__file_base(pid, proc__dev_of(st.st_dev), st.st_ino, &start);
		if (!e)
			v->addr = start - elfsym__load_vaddr(es) + vaddr;
		elfsym__close(es);
	}
	close(fd);
	if (e == -ENOENT)
		snprintf(err, n, "pid %d's program has no variable '%s' of 1 to 8 bytes", (int)pid,
			 name);
	else if (e)
		snprintf(err, n, "cannot read pid %d's program: %s", (int)pid, strerror(-e));
	v->pid = pid;
	return e;
}

int variable__read(const struct variable *v, uint64_t *value)
{
	union {
		uint8_t b[8];
		uint8_t u8;
		uint16_t u16;
		uint32_t u32;
		uint64_t u64;
	} u = {.u64 = 0};
	struct iovec local = {u.b, (size_t)v->size},
		     remote = {(void *)(uintptr_t)v->addr, (size_t)v->size};

	if (!v->size || v->size > 8)
		return -EINVAL;
	if (process_vm_readv(v->pid, &local, 1, &remote, 1, 0) != (ssize_t)v->size)
		return -errno;
	*value = v->size == 1 ? u.u8 : v->size == 2 ? u.u16 : v->size <= 4 ? u.u32 : u.u64;
	return 0;
}
