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
	pid_t ppid;		 /* its parent process; 0 when it has none (or it exited) */
	uid_t uid;		 /* real uid */
	unsigned long long caps; /* effective capabilities (CapEff) */
	int kthread;		 /* a kernel thread (Kthread: 1) */
	int threads;		 /* its process's threads (Threads) */
	int shstk;		 /* runs with an x86 user shadow stack (x86_Thread_features) */
	/* signal masks, bit n-1 for signal n: pending for the task (SigPnd),
	 * for its process (ShdPnd), blocked by the task (SigBlk) */
	unsigned long long sigpnd, shdpnd, sigblk;
};

/* Status of task pid (0: this process). 0, or a negative errno (-ENOENT:
 * gone). */
int proc__status(pid_t pid, struct proc_status *st);
/* The same from a status file's text (tests, fuzzing). 0 or a negative errno. */
int proc__parse_status(const char *text, size_t len, struct proc_status *st);
/* The process a task belongs to; -1 when it does not exist. */
pid_t proc__tgid(pid_t pid);
/* Whether process pid is gone: no such task, or a zombie (which still
 * answers kill(pid, 0)). */
int proc__gone(pid_t pid);
/* Why process pid cannot be traced, for a message ("is a kernel thread:
 * ..."), or NULL when it can: gone, a zombie, a kernel thread, or this
 * process itself (its own calls would feed its own trace). */
const char *proc__untraceable(pid_t pid);
/* The command line, arguments joined by spaces, control characters
 * replaced; "" when unreadable. */
void proc__cmdline(pid_t pid, char *buf, size_t n);
/* The name of task tid of process pid (tid 0: the process's own). 0, or
 * -ENOENT with buf "". */
int proc__comm(pid_t pid, pid_t tid, char *buf, size_t n);
/* The cgroup v2 path ("/user.slice/..."). 0, or -ENOENT. */
int proc__cgroup(pid_t pid, char *buf, size_t n);
/* The value of environment variable name in process pid's initial
 * environment (as exec gave it), into buf (n > 0, truncated to fit). 0, or
 * -ENOENT when the process, its environment or the variable is not there. */
int proc__environ_get(pid_t pid, const char *name, char *buf, size_t n);
/* Call fn for every task of process pid, or for every process of the
 * machine; stop early when fn returns non-zero and return that, else 0
 * (also when pid is gone). */
int proc__for_each_task(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx);
int proc__for_each_pid(int (*fn)(void *ctx, pid_t pid), void *ctx);
/* The same for every child process of process pid (those of each of its
 * threads: /proc/PID/task/TID/children). */
int proc__for_each_child(pid_t pid, int (*fn)(void *ctx, pid_t child), void *ctx);
/* Tasks of process pid that are stopped (state T: SIGSTOP or another stop
 * signal; t: stopped by a debugger): how many, the first max of them into
 * tids. 0 when none, or when pid is gone. */
int proc__stopped_tasks(pid_t pid, uint32_t *tids, int max);
/* Whether process pid is acting on a signal or ending: a task of it, not a
 * zombie, has a signal pending that it does not block (its own, or one sent
 * to the process: a fatal one stays pending until the process is gone), or
 * is exiting. 0 when not, or when pid is gone. */
int proc__signal_or_exit_coming(pid_t pid);

/* A file mapped by a process, one entry per file (device and inode). */
struct mapped_file {
	uint64_t inode;
	uint64_t dev;
	char path[512];		     /* as /proc/PID/maps shows it (our view of it) */
	char open_path[576];	     /* a name that reaches this very file: "" until
				      * proc__pin() gives one; a file named by the user
				      * (pid 0) has its own path */
	pid_t pid;		     /* the process mapping it; 0: a file named by path */
	uint64_t map_start, map_end; /* one of its mappings in that process */
	int executable;		     /* has an executable mapping */
};

/* A file's device as mapped_file.dev holds it (major << 32 | minor, the
 * numbers /proc/PID/maps shows), from stat(2)'s st_dev. */
uint64_t proc__dev_of(dev_t st_dev);
/* The files process pid maps. Returns the count and a malloc'ed array in
 * *out, or a negative errno (-ESRCH: no such process). */
int proc__mapped_files(pid_t pid, struct mapped_file **out);
/* One line of /proc/PID/maps (NUL-terminated): 0 and m filled for a
 * file-backed mapping, a negative errno otherwise (tests, fuzzing). */
int proc__parse_maps_line(const char *line, struct mapped_file *m);
/* The file and file offset of code address addr of process pid (a file's
 * executable mapping). 0, -ENOENT (not code of a file), -ESRCH or another
 * negative errno. */
int proc__locate(pid_t pid, uint64_t addr, struct mapped_file *f, uint64_t *offset);
/* The inverse of proc__locate: the addresses in process pid of the code at
 * file offsets[0..n) of the file (dev, ino), through its executable
 * mappings, into addrs[0..n) (0: not mapped as code there). Returns how
 * many were found, or a negative errno (-ESRCH: no such process). */
int proc__code_addresses(pid_t pid, uint64_t dev, uint64_t ino, const uint64_t *offsets,
			 uint64_t *addrs, int n);
/* Where process pid mapped offset 0 of the file (dev, ino): 0 and *start,
 * -ENOENT (not mapped there), -ESRCH or another negative errno. */
int proc__file_base(pid_t pid, uint64_t dev, uint64_t ino, uint64_t *start);
/* A mapped file, opened for reading. The path maps shows is not a name to
 * open: it is our view of a file that may live in another mount namespace
 * or under a chroot the process's owner controls. So the file is opened
 * through /proc/PID/map_files (the mapping itself), else through
 * /proc/PID/root, else (the process is exiting or has exited) by the path as we see it,
 * and must be a regular file with the device and inode maps showed
 * (doc/design.md §7). A file descriptor, or a negative errno (-ESTALE:
 * another file is there now). */
int proc__open_mapped(const struct mapped_file *f);
/* A name for f that stays valid for the rest of this process, for uprobe
 * attachment and later reads: "/proc/self/fd/N" of a descriptor kept open
 * (one per device and inode), or the path of a file named by the user.
 * 0, or a negative errno. */
int proc__pin(const struct mapped_file *f, char *path, size_t n);
/* The inode of the program process pid runs. 0 or a negative errno. */
int proc__exe_inode(pid_t pid, uint64_t *ino);
/* The program's entry point (AT_ENTRY of /proc/PID/auxv). 0 or a negative
 * errno. */
int proc__entry_point(pid_t pid, unsigned long *entry);
/* The CPU's model name; "?" when unknown. */
void proc__cpu_model(char *buf, size_t n);

#endif
