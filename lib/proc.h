/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every reader of /proc in one place: a process's status, command line,
 * names, cgroup, tasks and mapped files, the list of processes, and the
 * few machine facts sbt-bpf needs. A process may exit between any two
 * reads: every function says what it returns when it is gone.
 */
#ifndef SBT_PROC_H
#define SBT_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The fields of /proc/PID/status we use. */
struct proc_status {
	char state;		 /* 'R', 'S', 'Z', ... */
	pid_t tgid;		 /* its process (thread group) */
	uid_t uid;		 /* real uid */
	unsigned long long caps; /* effective capabilities (CapEff) */
};

/* Status of task pid (0: this process). 0, or a negative errno (-ENOENT:
 * gone). */
int proc__status(pid_t pid, struct proc_status *st);
/* The process a task belongs to; -1 when it does not exist. */
pid_t proc__tgid(pid_t pid);
/* Whether process pid is gone: no such task, or a zombie (which still
 * answers kill(pid, 0)). */
int proc__gone(pid_t pid);
/* The command line, arguments joined by spaces, control characters
 * replaced; "" when unreadable. */
void proc__cmdline(pid_t pid, char *buf, size_t n);
/* The name of task tid of process pid (tid 0: the process's own). 0, or
 * -ENOENT with buf "". */
int proc__comm(pid_t pid, pid_t tid, char *buf, size_t n);
/* The cgroup v2 path ("/user.slice/..."). 0, or -ENOENT. */
int proc__cgroup(pid_t pid, char *buf, size_t n);
/* Call fn for every task of process pid, or for every process of the
 * machine; stop early when fn returns non-zero and return that, else 0
 * (also when pid is gone). */
int proc__for_each_task(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx);
int proc__for_each_pid(int (*fn)(void *ctx, pid_t pid), void *ctx);

/* A file mapped by a process, one entry per file (device and inode). */
struct mapped_file {
	uint64_t inode;
	uint64_t dev;
	char path[512];	     /* as the process sees it */
	char open_path[576]; /* /proc/PID/root/<path>: works across mount namespaces */
	int executable;	     /* has an executable mapping */
};

/* A file's device as mapped_file.dev holds it (major << 32 | minor, the
 * numbers /proc/PID/maps shows), from stat(2)'s st_dev. */
uint64_t proc__dev_of(dev_t st_dev);
/* The files process pid maps. Returns the count and a malloc'ed array in
 * *out, or a negative errno (-ESRCH: no such process). */
int proc__mapped_files(pid_t pid, struct mapped_file **out);
/* The file and file offset of code address addr of process pid (a file's
 * executable mapping). 0, -ENOENT (not code of a file), -ESRCH or another
 * negative errno. */
int proc__locate(pid_t pid, uint64_t addr, struct mapped_file *f, uint64_t *offset);
/* The inode of the program process pid runs. 0 or a negative errno. */
int proc__exe_inode(pid_t pid, uint64_t *ino);
/* The program's entry point (AT_ENTRY of /proc/PID/auxv). 0 or a negative
 * errno. */
int proc__entry_point(pid_t pid, unsigned long *entry);
/* The CPU's model name; "?" when unknown. */
void proc__cpu_model(char *buf, size_t n);

#endif
