/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The native .sbt trace file: a recording that `sbt-bpf report` can analyse
 * later, on another machine, and read up to its last complete record when the
 * recording was cut (the recorder killed, the disk full).
 *
 * Layout (format version 3). Every integer is little-endian; on the hosts we
 * support (x86_64, arm64) that is the native order, so records go to disk as
 * they come out of the ring buffer.
 *
 *   offset 0            header, header_size bytes (64), written once:
 *                          0  char  magic[8]      "SBTTRACE"
 *                          8  __u32 version       3
 *                         12  __u32 header_size   the chunks start here (>= 64)
 *                         16  __u32 record_size   48 = sizeof(struct sbt_event)
 *                         20  __u32 flags         none defined; written 0, ignored
 *                         24  __u64 nrecords      version 1 only; written 0
 *                         32  __u64 meta_offset   version 1 only; written 0
 *                         40  __u64 meta_size     version 1 only; written 0
 *                         48  __u8  reserved[16]  written 0, ignored
 *   header_size         chunks to the end of the file, each
 *                          __u32 tag, __u32 length, payload[length]
 *
 * The chunks are the stream the recorder wrote, in order: the metadata known
 * when tracing starts (INFO, PROBES, ALPHA, COUNTERS, CALIBRATION,
 * PROBE_COSTS, JOBS, THREADS), then RECORDS chunks, each preceded by the
 * metadata found before its records were written (SYMBOLS resolved, THREADS
 * and JOBS seen, PROBES, ALPHA and PROBE_COSTS of libraries loaded later,
 * CALIBRATION taken while tracing, DROPS), and at the end the last metadata
 * (INFO with the end time, the last CALIBRATION, DROPS, JOBS and THREADS with
 * their exits) and the END chunk. So a
 * file cut anywhere is a prefix of the stream that names everything its
 * records refer to. The reader takes every complete chunk and the complete
 * records of a cut RECORDS chunk; the file is then "cut" (tracefile__cut()).
 * A chunk tag 0 is the unwritten, zero-filled tail of a file the system did
 * not write out: the file is cut there.
 *
 *   TF_SEC_RECORDS  length / 48 struct sbt_event records (length a multiple
 *                   of 48), in ring-buffer order across chunks.
 *   TF_SEC_END      __u64 nrecords: the recording finished, holding that
 *                   many records. Nothing may follow it.
 *
 * The other chunks are metadata sections (below); every one is optional.
 * How they combine when a tag appears several times:
 *   INFO                     each replaces start, end and realtime offset and
 *                            the keys it carries (the last written wins)
 *   PROBES, SYMBOLS          appended (a probe id is unique in the file)
 *   THREADS                  appended; an entry with the (pid, tid, start_ns)
 *                            of an earlier one replaces it (its exit known)
 *   JOBS                     appended; the same with (pid, start_ns)
 *   CALIBRATION              appended: each is one calibration
 *   PROBE_COSTS              appended; an entry for a probe id an earlier
 *                            one had replaces it
 *   DROPS, ALPHA, COUNTERS   the last one counts
 * Readers skip chunks with unknown tags and ignore bytes at the end of a
 * known section's payload beyond what they parse, so later versions can add
 * both without breaking older readers; incompatible changes bump the version.
 * The metadata of a file is limited to TF_META_MAX bytes in all.
 *
 * Format version 2 (read, no longer written): version 3 with 40-byte
 * records, the struct sbt_event without its cost and flags (read as 0).
 *
 * Format version 1 (read, no longer written): the records right after the
 * header (nrecords of them), then one metadata block at meta_offset of
 * meta_size bytes ending the file, holding each section at most once. The
 * header was patched last; one with nrecords == 0 and meta_offset == 0 is a
 * recording that did not finish, which cannot be read.
 *
 * Sections. A string is __u16 length + bytes, not NUL-terminated.
 *
 *   TF_SEC_INFO     __u64 start_ns, __u64 end_ns (0: not known yet),
 *                   __s64 realtime_offset_ns, __u32 npairs, npairs x (string
 *                   key, string value). Keys: kernel, host, command, clock,
 *                   sbt_version, command_end, costs (how the probe costs
 *                   were obtained: session, cache, measured, fixed, none;
 *                   absent from older traces), inject_delay_ns (--inject-delay:
 *                   the ns each uprobe hit spun, included in every cost),
 *                   job_id (record --job-id: the job whose part on this
 *                   node the trace holds, for `merge`);
 *                   unknown keys are ignored.
 *   TF_SEC_PROBES   __u32 count, count x (__u16 id, __u16 kind, __u64 offset,
 *                   string symbol, string object). id < SBT_MAX_PROBES and
 *                   unique, kind is an SBT_PK_*.
 *   TF_SEC_SYMBOLS  __u32 count, count x (__u32 pid, __u64 addr, string name).
 *   TF_SEC_THREADS  __u32 count, count x (__u32 pid, __u32 tid, __u64 start_ns,
 *                   __u64 exit_ns, string comm).
 *   TF_SEC_DROPS    __u64 total, __u32 ncpus, ncpus x __u64 per-CPU count.
 *   TF_SEC_ALPHA    __u32 count (<= SBT_MAX_PROBES), count x (__u64 entry_ns,
 *                   __u64 exit_ns): the calibrated cost of a probe hit, by
 *                   probe id; then __u64 the cost of a COUNTERS record. With
 *                   CALIBRATION sections, the costs of the session's first
 *                   calibration (what a reader that knows no CALIBRATION
 *                   charges throughout); a probe bound by PROBE_COSTS to an
 *                   entry of them is charged from them instead, any other
 *                   from here.
 *   TF_SEC_CALIBRATION  __u64 ts_ns (CLOCK_MONOTONIC, as records), __u32
 *                   count (<= TF_COST_NAMES_MAX), count x (string symbol,
 *                   __u64 entry_ns, __u64 exit_ns, __u32 cls): one
 *                   calibration of the probe costs, taken at ts_ns, by
 *                   calibrated function or pseudo-entry ("[futex-tracepoints]",
 *                   "[counter-record]", "[shim-site]"); cls is the class of
 *                   its first instruction (0 single-stepped, 1 emulated, 2
 *                   nop5, 3 not a uprobe). A calibration may leave entries
 *                   out (they keep their earlier cost); an entry's cost at a
 *                   time is that of the latest calibration of it at or before
 *                   that time, before the first its first. At most
 *                   TF_COST_NAMES_MAX distinct symbols in a file.
 *   TF_SEC_PROBE_COSTS  __u32 count, count x (__u16 id, __u16 how, string
 *                   symbol): probe id (id 0: the futex tracepoints) is
 *                   charged the costs of CALIBRATION entry symbol; how: 1 its
 *                   function was calibrated, 2 a probe shim site, 3 borrowed
 *                   from a function whose first instruction is of the same
 *                   class, 4 no function of its class was calibrated.
 *   TF_SEC_COUNTERS __u32 count (<= SBT_MAX_COUNTERS), count x (__u32 type,
 *                   __u64 config, __u32 flags, string name): the perf_event
 *                   counters whose values SBT_EV_COUNTERS records carry.
 *   TF_SEC_JOBS     __u32 count, count x (__u32 pid, __u64 start_ns, __u64 end_ns,
 *                   __u64 drops, string command): the processes traced, one
 *                   analysis each (`report --pid`); end_ns 0 = still running
 *                   when the recording stopped. The same pid may appear twice
 *                   (reused after an exit), in start order. Then (added
 *                   after the entries: older readers stop before) count x
 *                   (__u32 rank_id, string host): each job's MPI rank + 1
 *                   (0: not an MPI rank, or not known) and the host it ran on
 *                   ("": this recording's).
 *
 * The reader treats the file as hostile: every offset, length and count is
 * checked against the bytes actually present before anything is allocated.
 */
#ifndef SBT_TRACEFILE_H
#define SBT_TRACEFILE_H

#include <stddef.h>
#include "sbt/events.h"
#include "sbt/format.h"

#define TF_MAGIC       "SBTTRACE"
#define TF_VERSION     3 /* written; versions 1 and 2 are still read */
#define TF_HEADER_SIZE 64
#define TF_META_MAX    (64u << 20) /* bound on what a reader loads into memory */

/* Chunk tags: metadata sections, records, the end mark. */
#define TF_SEC_INFO	   1
#define TF_SEC_PROBES	   2
#define TF_SEC_SYMBOLS	   3
#define TF_SEC_THREADS	   4
#define TF_SEC_DROPS	   5
#define TF_SEC_COUNTERS	   6
#define TF_SEC_ALPHA	   7
#define TF_SEC_JOBS	   8
#define TF_SEC_RECORDS	   9
#define TF_SEC_END	   10
#define TF_SEC_CALIBRATION 11
#define TF_SEC_PROBE_COSTS 12

/* Distinct symbols of the CALIBRATION and PROBE_COSTS sections of a file. */
#define TF_COST_NAMES_MAX 64

/* tracefile__put_meta(): which sections of a tf_meta to write. */
#define TF_PUT(tag) (1u << (tag))
#define TF_PUT_META                                                                                \
	((TF_PUT(TF_SEC_JOBS + 1) - TF_PUT(TF_SEC_INFO)) | TF_PUT(TF_SEC_CALIBRATION) |            \
	 TF_PUT(TF_SEC_PROBE_COSTS)) /* every section */

/* The on-disk header (little-endian). */
struct tf_header {
	char magic[8];
	__u32 version;
	__u32 header_size;
	__u32 record_size;
	__u32 flags;
	__u64 nrecords;
	__u64 meta_offset;
	__u64 meta_size;
	__u8 reserved[16];
};

_Static_assert(sizeof(struct tf_header) == TF_HEADER_SIZE, "the v1 header is 64 bytes");

struct tf_symbol {
	__u32 pid;
	__u64 addr;
	char *name;
};

struct tf_thread {
	__u32 pid, tid;
	__u64 start_ns, exit_ns;
	char comm[16];
};

#define TF_HOST_MAX 64
struct tf_job {
	__u32 pid;
	__u64 start_ns, end_ns;
	__u64 drops;
	char *command;
	__u32 rank_id;		/* MPI rank + 1; 0: none known */
	char host[TF_HOST_MAX]; /* "": the recording's host */
};

/* A calibrated cost (CALIBRATION): the symbol is tf_meta.cost_names[name]. */
struct tf_cost {
	__u32 name;
	__u32 cls;
	__u64 entry_ns, exit_ns;
};

/* One calibration: its costs are tf_meta.cal_costs[first .. first + n). */
struct tf_calibration {
	__u64 ts_ns;
	__u32 first, n;
};

/* Probe id is charged the costs of entry cost_names[name] (PROBE_COSTS). */
struct tf_cost_bind {
	__u16 id, how;
	__u32 name;
};

/*
 * What a trace says about its recording. Built by the recorder and handed, whole or a
 * part at a time, to tracefile__put_meta() or tracefile__finish(), or read back (all of
 * it) by tracefile__open(). Every pointer is malloc'ed (tf_meta_free() frees them); the
 * writer accepts NULL strings and writes them as "" (a NULL clock as "CLOCK_MONOTONIC").
 */
struct tf_meta {
	/* NUL-terminated, never NULL after a successful read (may be "") */
	char *kernel, *host, *command, *clock, *sbt_version;
	char *command_end;     /* how a launched command ended ("killed by SIGSEGV"); "": unknown */
	char *inject_delay_ns; /* --inject-delay, ns in decimal, in the ALPHA costs; "": none */
	char *job_id;	       /* record --job-id: the job the nodes' traces are of; "": none */
	__u64 start_ns, end_ns;
	__s64 realtime_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	struct sbt_probe_info *probes;
	__u32 nprobes;
	struct tf_symbol *symbols;
	__u32 nsymbols;
	struct tf_thread *threads;
	__u32 nthreads;
	__u64 drops_total;
	__u64 *drops_per_cpu;
	__u32 ncpus;
	struct sbt_counter_info counters[SBT_MAX_COUNTERS]; /* -e events, in record order */
	__u32 ncounters;
	/* calibrated probe cost per hit, indexed by probe id (NULL: not recorded) */
	__u64 *alpha_enter, *alpha_exit;
	__u32 nalpha;
	__u64 alpha_counters; /* cost of one COUNTERS record (-e); 0: not recorded */
	struct tf_job *jobs;  /* NULL in traces of older versions: one job, every record */
	__u32 njobs;
	/* the probe costs calibrated during the recording (none in older traces):
	 * the symbols they name, the calibrations in the order written, their
	 * costs, and which entry each probe id is charged (in the order written;
	 * the reader keeps one per id, the last) */
	char **cost_names;
	__u32 ncost_names;
	struct tf_calibration *calibrations;
	__u32 ncalibrations;
	struct tf_cost *cal_costs;
	__u32 ncal_costs;
	struct tf_cost_bind *cost_binds;
	__u32 ncost_binds;
	char *costs_source; /* INFO "costs"; "" when the trace does not say */
};

struct tf_writer;
struct tf_reader;

/* Create path (truncate) and write the header. NULL + errno on failure. */
struct tf_writer *tracefile__create(const char *path);
/* Append the sections of m that `sections` names (TF_PUT(TF_SEC_x) bits):
 * buffered, they reach the file before the records still buffered. 0 or
 * -errno (an encoding failure, or the writer's earlier write failure). */
int tracefile__put_meta(struct tf_writer *w, const struct tf_meta *m, unsigned int sections);
/* fn runs at every flush, before anything is written: the caller puts there
 * the metadata that the buffered records refer to (names, threads), so that
 * a file cut after them names them. */
void tracefile__on_flush(struct tf_writer *w, void (*fn)(void *ctx, struct tf_writer *w),
			 void *ctx);
/* Append records (buffered; flushed when the buffer is full). 0 or -errno. */
int tracefile__write(struct tf_writer *w, const struct sbt_event *ev, size_t n);
/* Write what is buffered, metadata first: a file cut from now on holds
 * every record written so far. 0 or -errno. After a failure (disk full)
 * nothing more is written: the file stays a readable prefix. */
int tracefile__flush(struct tf_writer *w);
/* Records accepted so far, and those in chunks completely written. */
__u64 tracefile__records(const struct tf_writer *w);
__u64 tracefile__records_written(const struct tf_writer *w);
/* Put every section of meta (NULL: none), flush, write the END mark, close,
 * free w (always). 0 or -errno; on failure the file has no END mark and
 * reads as cut. */
int tracefile__finish(struct tf_writer *w, const struct tf_meta *meta);

/* Open and validate; on failure NULL (errno set), with a one-line human-readable reason in
 * err, starting with the path (e.g. "lu.sbt: not an sbt-bpf trace (bad magic)"). The
 * metadata is loaded and checked here; records are read on demand. A cut file opens (see
 * tracefile__cut()) unless it holds no complete record. */
struct tf_reader *tracefile__open(const char *path, char *err, size_t errlen);
/* The same on an open file (a memfd: fuzzing), named name in the messages. The reader
 * reads a duplicate of fd with pread: fd stays the caller's, its offset untouched. */
struct tf_reader *tracefile__open_fd(int fd, const char *name, char *err, size_t errlen);
const struct tf_meta *tracefile__meta(const struct tf_reader *r);
/* The complete records of the file. */
__u64 tracefile__nrecords(const struct tf_reader *r);
/* 1 when the file ends before its END mark (the recorder was killed, the disk
 * was full, or it still records): what is read is what the file held up to
 * there, an end time of 0 becomes the last record's time. */
int tracefile__cut(const struct tf_reader *r);
/* Next record: 1 = got one, 0 = end, -errno on read error. Reads in buffered chunks: memory
 * must not grow with the file size. */
int tracefile__next(struct tf_reader *r, struct sbt_event *out);
void tracefile__close(struct tf_reader *r);

/* Frees the contents of a meta read by the reader or built by a caller (with malloc'ed
 * members), and zeroes it. */
void tf_meta_free(struct tf_meta *m);

#endif /* SBT_TRACEFILE_H */
