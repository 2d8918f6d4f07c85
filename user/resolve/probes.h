/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which functions to probe in a process: the known synchronization functions
 * found in the files it maps, plus user-declared `--probe BINARY:SYMBOL:KIND`.
 * Resolution is ours (elfsym), and probes attach by file offset.
 */
#ifndef SBT_PROBES_H
#define SBT_PROBES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "sbt/format.h"

/* A parsed --probe argument. */
struct user_probe {
	char binary[SBT_PATH_MAX];
	char symbol[SBT_SYMBOL_MAX];
	int kind; /* SBT_PK_* */
};

/* One attach point. The probe id is its index in the table; id 0 is never
 * used, so that records with probe 0 are not probe records. */
struct probe {
	struct sbt_probe_info info;
	char open_path[SBT_PATH_MAX + 64]; /* the file as we can open it */
	int entry_only;			   /* no return probe (calibration) */
	int return_only; /* no entry probe (calibration: returns added to entries) */
	/* a probe shim site (shim/shim.h): offset is the entry site's, and
	 * the exit is a plain uprobe at this offset, not a return probe */
	uint64_t exit_offset;
	int obj_arg, site_arg; /* what its entry records carry (SBT_ARG_*) */
	int out_arg;	       /* its return records carry what this argument points to */
	uint64_t dev, ino;     /* the file (0: unknown) */
	/* attached this far past offset: past the function's endbr64 or its
	 * first plain instructions, onto one the kernel emulates
	 * (x86_insn__entry_skip) */
	uint64_t entry_skip;
};

/* Where probe p's entry (and return) uprobe goes in its file. */
static inline uint64_t probe__entry_offset(const struct probe *p)
{
	return p->info.offset + p->entry_skip;
}

/* The attach cookie of probe p (include/sbt/events.h). */
static inline __u64 probe__cookie(const struct probe *p)
{
	return SBT_COOKIE(p->info.id, p->info.kind) | SBT_COOKIE_ARGS(p->obj_arg, p->site_arg) |
	       (p->exit_offset ? SBT_COOKIE_TIMED : 0) | SBT_COOKIE_OUT(p->out_arg) |
	       SBT_COOKIE_SKIP(p->entry_skip);
}

/* The registers (x86_insn__arg_reg() bits) the entry records of a probe on
 * symbol read: what no instruction its probe goes past may write
 * (lib/entry_skip.h). */
unsigned int probes__regs_read(const char *symbol);

struct probe_table {
	struct probe *probes; /* probes[0] unused */
	int n;		      /* entries including the unused 0 */
	int used;	      /* probed functions the process calls (imports or defines) */
	int files_searched;
	int files_denied; /* mapped files we may not open (another user's) */
	int unprobeable;  /* functions found whose first instruction a uprobe cannot take */
	/* known functions the probe shim wraps in the traced processes
	 * (shim/shim.h), a bit per index of the known table: probed at the
	 * shim's sites, not in the libraries it interposes */
	uint64_t shim_covers[2];
	char unprobeable_names[256];
};

/* Classes of what to trace (--trace). */
#define SBT_TRACE_BARRIER 1u
#define SBT_TRACE_LOCK	  2u
#define SBT_TRACE_SEM	  4u
#define SBT_TRACE_COND	  8u
#define SBT_TRACE_FUTEX	  16u
#define SBT_TRACE_TASK	  32u
#define SBT_TRACE_MPI	  64u
#define SBT_TRACE_ALL	  127u
/* Lock and task probes are off by default: they are the most frequent
 * calls, so the most perturbing (each hit costs ~1 µs on a VM). */
/* MPI's probes are in files only MPI programs map. */
#define SBT_TRACE_DEFAULT                                                                          \
	(SBT_TRACE_BARRIER | SBT_TRACE_SEM | SBT_TRACE_COND | SBT_TRACE_FUTEX | SBT_TRACE_MPI)

/* Parse a comma-separated class list ("barrier,lock" or "all"). */
int trace_classes__parse(const char *list, unsigned int *out, char *err, size_t errlen);
/* The class of a probe kind. */
unsigned int probe_kind__class(int kind);

/* Parse "BINARY:SYMBOL:KIND". Returns 0, or -EINVAL with a message in err. */
int user_probe__parse(const char *arg, struct user_probe *up, char *err, size_t errlen);
/* Names of the kinds a --probe may declare, for help and errors. */
const char *user_probe__kinds(void);

struct elfsym;
struct mapped_file;

/* An empty table (entry 0 reserved). 0 or -ENOMEM. */
int probes__init(struct probe_table *t);
/* Add the known functions of the classes that es (file f) defines; returns
 * how many were found (see probes__add_symbol()), or a negative errno
 * (-E2BIG: table full). */
int probes__add_known(struct probe_table *t, const struct elfsym *es, const struct mapped_file *f,
		      unsigned int classes);
/* The known functions of classes that f defines and the probe shim stands
 * in for (not probed in f while the shim is in use): for a process that did
 * not load the shim. Returns the probes added or a negative errno. */
int probes__add_interposed(struct probe_table *t, const struct elfsym *es,
			   const struct mapped_file *f, unsigned int classes);
/* Add every version of function `symbol` in es (file f) as a `kind` probe.
 * Returns how many versions were found, or a negative errno; the table may
 * grow by fewer (a version whose first instruction cannot take a uprobe, an
 * address already in the table): t->n says what was added. */
int probes__add_symbol(struct probe_table *t, const struct elfsym *es, const struct mapped_file *f,
		       const char *symbol, int kind);

/* The functions the probe shim library at path wraps (its sbt_enter_F
 * sites) are probed there from now on. Returns how many, or a negative
 * errno. */
int probes__use_shim(struct probe_table *t, const char *path);
/* Whether the probe shim stands in for any function in t. */
int probes__shim_in_use(const struct probe_table *t);
/* The shim's entry and exit sites of function fn in es: 1 with their
 * offsets, 0 when es has none. */
int probes__shim_sites(const struct elfsym *es, const char *fn, uint64_t *enter, uint64_t *exit);

/* Add a region body at offset of file f, named name (doc/design.md §5.1),
 * spanning span bytes as far as the file's symbols tell (0: unknown).
 * 1: added, 0: already there, -ENOTSUP: its first instruction cannot take a
 * uprobe, or a negative errno. */
int probes__add_body(struct probe_table *t, const char *name, const struct mapped_file *f,
		     uint64_t offset, uint64_t span);
/* The id of the probe at offset of file (dev, ino), 0 if none. */
int probes__find(const struct probe_table *t, uint64_t dev, uint64_t ino, uint64_t offset);

/* Resolve the probes of process pid. Returns 0, or a negative errno with a
 * message in err: -ESRCH no such process, -ENOENT a user symbol not found. */
int probes__resolve(pid_t pid, unsigned int classes, const struct user_probe *up, int nup,
		    struct probe_table *t, char *err, size_t errlen);
/* Say which functions found could not be probed (t->unprobeable), if any. */
void probes__warn_unprobeable(const struct probe_table *t);
/* The known functions of the given classes, for "nothing found" messages. */
void probes__known(unsigned int classes, char *buf, size_t n);
void probes__free(struct probe_table *t);

#endif
