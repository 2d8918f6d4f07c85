/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the several-processes target (target_many__new(), target.h): the
 * state its files share, and what one file calls in another. Private to
 * them.
 *
 *   target_many.c         the core: process notes, attaching for -a and
 *                         -p A,B, records, rescans, the jobs' ends, the
 *                         target_ops table
 *   target_many_launch.c  -- CMD: the command held at its entry, the probe
 *                         shim (checks, the fallback to plain uprobes, its
 *                         sites prepaid), the guard; resuming the processes
 *                         of a followed tree stopped where they mapped files
 *   target_many_follow.c  -p --follow: the tree seeded with running
 *                         processes and their descendants
 */
#ifndef SBT_TARGET_MANY_IMPL_H
#define SBT_TARGET_MANY_IMPL_H

#include "lib/hmap.h"
#include "user/resolve/discover.h"
#include "user/trace/target.h"

struct sym_timeline;

struct target_many {
	struct target base;
	struct discover disc;
	int running;	     /* jobs of -p that have not exited */
	struct hmap procs;   /* processes that are not jobs (yet): pid -> struct proc_note */
	struct hmap pending; /* their threads: tid -> struct pending_thread */
	int rescans;	     /* procs with a rescan due */
	struct hmap no_shim; /* the shim in use: processes found without it (a pid set) */
	int tree;	     /* a process tree followed in BPF: -- CMD, -p --follow */
	struct hmap seeded;  /* -p --follow: pids we put in the tree (a pid set) */
	/* -- CMD */
	pid_t cmd;    /* the command's pid; 0 with -p and -a */
	int released; /* it runs */
	int reaped;   /* it was waited for: wstatus holds its end */
	int wstatus;
};

/* What we know of a process that is not a job. */
struct proc_note {
	__u64 start_ns;		 /* when it exec'd or was forked, if during the session */
	int ignored;		 /* --filter rejected it (until it execs) */
	int rescan;		 /* its mappings changed */
	char comm[SBT_COMM_LEN]; /* from its exec: names a job whose /proc is gone */
	/* following a tree: its names, read while it was there (at its fork,
	 * exec and stops), for the job it may become (after it exited, say) */
	struct sym_timeline *syms;
	char cmdline[1024];
};

/* A set of pids: hmap keys, with an index as the value (a pointer value
 * of 1 would be hmap's tombstone: not stored, never found). */
static inline int pid_set_add(struct hmap *set, pid_t pid)
{
	return hmap_put_index(set, (__u32)pid, 0, 0);
}

static inline int pid_set_has(const struct hmap *set, pid_t pid)
{
	size_t ix;

	return hmap_get_index(set, (__u32)pid, 0, &ix);
}

/* target_many.c: what names process pid of a followed tree, read now, for
 * its records stamped from since_ns on (parent: the process that forked it,
 * else 0; when: what made us read it, said with -vv). */
void many__note_names(struct target_many *m, pid_t pid, pid_t parent, __u64 since_ns,
		      const char *when);
/* The files found since the last call, attached for every process. */
void many__attach_new_files(struct target_many *m);
/* The files process pid maps, found: how many have probes, or a negative
 * errno. */
int many__scan_pid(struct target_many *m, pid_t pid);
/* The --probe binaries, found before a process maps them. */
void many__discover_user_probes(struct target_many *m);
/* A job for pid (NULL: none): from start_ns, born in the session or not,
 * named by its command line, else by fallback. */
struct job *many__start_job(struct target_many *m, pid_t pid, __u64 start_ns, int born,
			    const char *fallback);

/* target_many_launch.c: -- CMD. The command started, held at its entry
 * point (before the BPF session opens). EXIT_*. */
int many__launch(struct target_many *m);
/* Its files probed for every process, the tree followed from it, the
 * command a job from the session's start. EXIT_*. */
int many__attach_tree(struct target_many *m);
/* The guard of stopped processes, started before the tree can stop one. */
void many__start_guard(struct target_many *m);
/* The processes of the tree stopped where they may have mapped new files:
 * those probed (unless probe is 0: tracing is over), then continued. */
void many__resume_paused(struct target_many *m, int probe);

/* target_many_follow.c: -p --follow. The tree seeded, its files attached,
 * the processes named jobs. EXIT_*. */
int many__attach_follow(struct target_many *m);

#endif /* SBT_TARGET_MANY_IMPL_H */
