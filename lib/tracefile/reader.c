// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The .sbt reader: a hostile file is checked before anything is allocated
 * (lib/tracefile.h); a cut one is read up to its last complete record;
 * records are read in bounded chunks. */
#include "lib/tracefile/sections.h"
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RBUF_RECS 1024 /* records per read: 48 KiB */
#define CHUNK_HDR 8

struct tf_reader {
	int fd;
	struct tf_meta meta;
	__u64 nrecords;
	int cut;
	/* Where the records are: version 1, one run after the header; version 2,
	 * the RECORDS chunks, found again from walk_off as they are read. */
	__u64 walk_off; /* the next chunk to look at */
	__u64 run_off;	/* file offset of the next record of the current run */
	__u64 run_left; /* records left in the current run */
	__u64 next;	/* records read from the file */
	__u32 rec_size; /* bytes per record in the file: REC_SIZE, or less in older versions */
	__u32 buf_n, buf_i;
	__u8 buf[RBUF_RECS * REC_SIZE];
};

/* What the chunk walk of open found. */
struct scan {
	__u64 nrecords;
	__u64 last_off; /* offset of the last complete record, 0: none */
	__u64 meta_bytes;
	int ended; /* the END mark */
};

/* The header fields every version has, checked; h left in host order. */
static int check_header(const struct rctx *rc, int fd, __u64 size, struct tf_header *h)
{
	ssize_t n;

	if (size == 0)
		return tf_fail(rc, EINVAL, "empty file, not an sbt-bpf trace");
	n = tf_pread_all(fd, h, sizeof(*h), 0);
	if (n < 0)
		return tf_fail(rc, -n, "%s", strerror(-n));
	if ((size_t)n < sizeof(h->magic) || memcmp(h->magic, TF_MAGIC, sizeof(h->magic)))
		return tf_fail(rc, EINVAL, "not an sbt-bpf trace (bad magic)");
	if ((size_t)n < sizeof(*h))
		return tf_fail(rc, EINVAL, "truncated: the file ends inside the header (%zd bytes)",
			       n);
	tf_header_to_le(h);
	if (h->version > TF_VERSION)
		return tf_fail(rc, EINVAL,
			       "trace format version %u is newer than this sbt-bpf supports (%d); "
			       "upgrade sbt-bpf to read it",
			       h->version, TF_VERSION);
	if (h->version == 0)
		return tf_fail(rc, EINVAL, "corrupt header: format version 0");
	if (h->header_size < sizeof(*h))
		return tf_fail(rc, EINVAL, "corrupt header: header size %u (at least %zu)",
			       h->header_size, sizeof(*h));
	if (h->header_size > size)
		return tf_fail(rc, EINVAL,
			       "truncated: the file ends inside the header (%llu bytes)",
			       (unsigned long long)size);
	if (h->record_size != tf_record_size(h->version))
		return tf_fail(rc, EINVAL, "corrupt header: record size %u (expected %u)",
			       h->record_size, tf_record_size(h->version));
	return 0;
}

/* Version 1: records, then one metadata block that the header points to. */
static int check_v1(const struct rctx *rc, __u64 size, const struct tf_header *h)
{
	__u64 end, held;

	if (h->nrecords == 0 && h->meta_offset == 0)
		return tf_fail(rc, EINVAL,
			       "trace was not finalized (recording interrupted?); a trace of "
			       "format version 1 cannot be read without its end");
	if (h->nrecords > (UINT64_MAX - h->header_size) / h->record_size)
		return tf_fail(rc, EINVAL, "corrupt header: record count %llu overflows",
			       (unsigned long long)h->nrecords);
	end = h->header_size + h->nrecords * h->record_size;
	if (h->meta_offset != end)
		return tf_fail(rc, EINVAL,
			       "corrupt header: metadata at offset %llu, expected %llu after %llu "
			       "records",
			       (unsigned long long)h->meta_offset, (unsigned long long)end,
			       (unsigned long long)h->nrecords);
	if (size < end) {
		held = size > h->header_size ? (size - h->header_size) / h->record_size : 0;
		return tf_fail(rc, EINVAL,
			       "truncated: header says %llu records but the file holds %llu",
			       (unsigned long long)h->nrecords, (unsigned long long)held);
	}
	if (h->meta_size > UINT64_MAX - end)
		return tf_fail(rc, EINVAL, "corrupt header: metadata size %llu overflows",
			       (unsigned long long)h->meta_size);
	if (size < end + h->meta_size)
		return tf_fail(
			rc, EINVAL,
			"truncated: header says %llu bytes of metadata but the file holds %llu",
			(unsigned long long)h->meta_size, (unsigned long long)(size - end));
	if (size > end + h->meta_size)
		return tf_fail(rc, EINVAL, "corrupt: %llu unexpected bytes after the metadata",
			       (unsigned long long)(size - end - h->meta_size));
	if (h->meta_size > TF_META_MAX)
		return tf_fail(rc, EFBIG, "metadata block too large (%llu bytes, limit %u)",
			       (unsigned long long)h->meta_size, TF_META_MAX);
	return 0;
}

/* Bytes [off, off + len) of the file in a new buffer (len > 0). */
static int read_bytes(const struct rctx *rc, int fd, __u64 off, size_t len, __u8 **out)
{
	ssize_t n;

	*out = malloc(len);
	if (!*out)
		return tf_fail(rc, ENOMEM, "out of memory reading the metadata");
	n = tf_pread_all(fd, *out, len, off);
	if (n >= 0 && (size_t)n == len)
		return 0;
	free(*out);
	*out = NULL;
	if (n < 0)
		return tf_fail(rc, -n, "reading the metadata: %s", strerror(-n));
	return tf_fail(rc, EIO, "truncated while reading the metadata");
}

/* Version 1's metadata block: a sequence of sections, each at most once. */
static int load_v1(const struct rctx *rc, struct tf_reader *r, const struct tf_header *h,
		   struct tf_sections *s)
{
	__u8 *p = NULL;
	size_t at = 0, size = h->meta_size;
	int err = size ? read_bytes(rc, r->fd, h->meta_offset, size, &p) : 0;

	while (!err && at < size) {
		__u32 tag, len;

		if (size - at < CHUNK_HDR) {
			err = tf_fail(rc, EINVAL,
				      "corrupt metadata: truncated section header at byte %zu", at);
			break;
		}
		memcpy(&tag, p + at, 4);
		memcpy(&len, p + at + 4, 4);
		tag = le32toh(tag);
		len = le32toh(len);
		at += CHUNK_HDR;
		if (len > size - at)
			err = tf_fail(
				rc, EINVAL,
				"corrupt metadata: section %s of %u bytes overruns the metadata "
				"block (%zu bytes left)",
				tag < TF_NSECTIONS && tf_section_names[tag] ? tf_section_names[tag]
									    : "?",
				len, size - at);
		else if (tag < TF_NSECTIONS && tag != TF_SEC_RECORDS && tag != TF_SEC_END)
			err = tf_sections__parse(s, rc, tag, p + at, len);
		at += len;
	}
	free(p);
	r->nrecords = h->nrecords;
	r->run_off = h->header_size;
	r->run_left = h->nrecords;
	return err;
}

/* A metadata chunk of version 2, parsed into the meta. */
static int load_chunk(const struct rctx *rc, struct tf_reader *r, struct tf_sections *s,
		      struct scan *sc, __u32 tag, __u64 off, __u32 len)
{
	__u8 *p;
	int err;

	if (tag >= TF_NSECTIONS || !tf_section_names[tag])
		return 0; /* written by a newer version: skipped */
	if (!len)
		return tf_sections__parse(s, rc, tag, NULL, 0);
	if (len > TF_META_MAX - sc->meta_bytes)
		return tf_fail(rc, EFBIG, "metadata too large (over %u bytes)", TF_META_MAX);
	sc->meta_bytes += len;
	err = read_bytes(rc, r->fd, off, len, &p);
	if (!err)
		err = tf_sections__parse(s, rc, tag, p, len);
	free(p);
	return err;
}

/* The END mark: the count it says must be what the file holds, and nothing follows. */
static int check_end(const struct rctx *rc, struct tf_reader *r, struct scan *sc, __u64 off,
		     __u32 len, __u64 size)
{
	__u64 n;

	if (len < sizeof(n) || tf_pread_all(r->fd, &n, sizeof(n), off) != sizeof(n))
		return tf_fail(rc, EINVAL, "corrupt: an END mark of %u bytes", len);
	n = le64toh(n);
	if (n != sc->nrecords)
		return tf_fail(rc, EINVAL,
			       "corrupt: the end mark says %llu records, the file holds %llu",
			       (unsigned long long)n, (unsigned long long)sc->nrecords);
	if (off + len < size)
		return tf_fail(rc, EINVAL, "corrupt: %llu unexpected bytes after the end mark",
			       (unsigned long long)(size - off - len));
	sc->ended = 1;
	return 0;
}

/* A RECORDS chunk of len bytes, of which avail are in the file. 1 when it is cut. */
static int count_records(const struct rctx *rc, const struct tf_reader *r, struct scan *sc,
			 __u64 off, __u32 len, __u64 avail)
{
	__u64 n = (len < avail ? len : avail) / r->rec_size;

	if (len <= avail && len % r->rec_size)
		return tf_fail(rc, EINVAL,
			       "corrupt: records chunk of %u bytes at offset %llu (not a multiple "
			       "of %u)",
			       len, (unsigned long long)off, r->rec_size);
	if (n)
		sc->last_off = off + (n - 1) * r->rec_size;
	sc->nrecords += n;
	return len > avail;
}

/* Version 2: every chunk up to the END mark or the cut. */
static int scan_v2(const struct rctx *rc, struct tf_reader *r, __u64 off, __u64 size,
		   struct tf_sections *s, struct scan *sc)
{
	int err = 0;

	while (!err && !sc->ended && !r->cut) {
		__u32 hdr[2], tag, len;
		__u64 avail;

		/* the file ends between chunks, inside a chunk header, or where nothing was
		 * written out (zeros): cut */
		if (size - off < CHUNK_HDR ||
		    tf_pread_all(r->fd, hdr, sizeof(hdr), off) != sizeof(hdr) || !hdr[0]) {
			r->cut = 1;
			break;
		}
		tag = le32toh(hdr[0]);
		len = le32toh(hdr[1]);
		off += CHUNK_HDR;
		avail = size - off;
		if (tag == TF_SEC_RECORDS)
			err = count_records(rc, r, sc, off, len, avail);
		else if (len > avail) /* a metadata chunk cut: dropped */
			err = 1;
		else if (tag == TF_SEC_END)
			err = check_end(rc, r, sc, off, len, size);
		else
			err = load_chunk(rc, r, s, sc, tag, off, len);
		if (err == 1) {
			r->cut = 1;
			err = 0;
		}
		off += len;
	}
	return err;
}

/* A cut file: what it holds, or why nothing can be read. */
static int salvage(const struct rctx *rc, struct tf_reader *r, const struct scan *sc)
{
	struct sbt_event last = {0};

	if (!sc->nrecords)
		return tf_fail(rc, EINVAL,
			       "truncated: the recording was cut before its first record (recorder "
			       "killed or disk full?)");
	if (!r->meta.end_ns &&
	    tf_pread_all(r->fd, &last, r->rec_size, sc->last_off) == r->rec_size) {
		tf_event_to_le(&last);
		r->meta.end_ns = last.ts;
	}
	return 0;
}

static int load_v2(const struct rctx *rc, struct tf_reader *r, const struct tf_header *h,
		   __u64 size, struct tf_sections *s)
{
	struct scan sc = {0};
	int err = scan_v2(rc, r, h->header_size, size, s, &sc);

	if (!err && r->cut)
		err = salvage(rc, r, &sc);
	r->nrecords = sc.nrecords;
	r->walk_off = h->header_size;
	return err;
}

static int reader_init(const struct rctx *rc, struct tf_reader *r)
{
	struct tf_sections s;
	struct tf_header h;
	struct stat st;
	int err;

	if (fstat(r->fd, &st))
		return tf_fail(rc, errno, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return tf_fail(rc, EINVAL, "not a regular file");
	err = check_header(rc, r->fd, st.st_size, &h);
	if (!err && h.version == 1)
		err = check_v1(rc, st.st_size, &h);
	if (err)
		return err;
	r->rec_size = h.record_size;
	tf_sections__init(&s, &r->meta, h.version == 1);
	err = h.version == 1 ? load_v1(rc, r, &h, &s) : load_v2(rc, r, &h, st.st_size, &s);
	if (!err)
		err = tf_sections__end(&s, rc);
	tf_sections__free(&s);
	return err;
}

/* A reader of fd, which it owns from now on (a negative errno: the open that
 * should have given it failed). */
static struct tf_reader *reader_of(const struct rctx *rc, int fd)
{
	struct tf_reader *r;
	int ret;

	if (fd < 0) {
		tf_fail(rc, -fd, "%s", strerror(-fd));
		errno = -fd;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		close(fd);
		tf_fail(rc, ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	r->fd = fd;
	ret = reader_init(rc, r);
	if (ret) {
		tracefile__close(r);
		errno = -ret;
		return NULL;
	}
	return r;
}

struct tf_reader *tracefile__open(const char *path, char *err, size_t errlen)
{
	struct rctx rc = {path ? path : "(null)", err, errlen};
	int fd;

	if (err && errlen)
		err[0] = '\0';
	if (!path) {
		tf_fail(&rc, EINVAL, "no trace file given");
		errno = EINVAL;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return reader_of(&rc, fd < 0 ? -errno : fd);
}

struct tf_reader *tracefile__open_fd(int fd, const char *name, char *err, size_t errlen)
{
	struct rctx rc = {name ? name : "(fd)", err, errlen};
	int own;

	if (err && errlen)
		err[0] = '\0';
	/* the caller's descriptor stays the caller's: the reader reads a duplicate
	 * with pread, so neither disturbs the other's file offset */
	own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return reader_of(&rc, own < 0 ? -errno : own);
}

const struct tf_meta *tracefile__meta(const struct tf_reader *r)
{
	return &r->meta;
}

__u64 tracefile__nrecords(const struct tf_reader *r)
{
	return r->nrecords;
}

int tracefile__cut(const struct tf_reader *r)
{
	return r->cut;
}

/* The next RECORDS chunk from walk_off (version 2): open checked the chunks up to the
 * last record, so a failure here means the file changed since. */
static int next_run(struct tf_reader *r)
{
	while (!r->run_left) {
		__u32 hdr[2], len;

		if (tf_pread_all(r->fd, hdr, sizeof(hdr), r->walk_off) != sizeof(hdr) || !hdr[0])
			return -EIO;
		len = le32toh(hdr[1]);
		r->walk_off += CHUNK_HDR;
		if (le32toh(hdr[0]) == TF_SEC_RECORDS) {
			r->run_off = r->walk_off;
			r->run_left = len / r->rec_size;
		}
		r->walk_off += len;
	}
	return 0;
}

/* Loads the next chunk of records: 1, 0 at the end, or -errno. */
static int reader_fill(struct tf_reader *r)
{
	__u64 left = r->nrecords - r->next;
	size_t n;
	ssize_t got;
	int err;

	if (!left)
		return 0;
	err = next_run(r);
	if (err)
		return err;
	n = left < r->run_left ? left : r->run_left;
	if (n > RBUF_RECS)
		n = RBUF_RECS;
	got = tf_pread_all(r->fd, r->buf, n * r->rec_size, r->run_off);
	if (got < 0)
		return got;
	/* the size was checked at open: a short read means the file shrank since */
	if ((size_t)got < n * r->rec_size)
		return -EIO;
	r->buf_n = n;
	r->buf_i = 0;
	r->next += n;
	r->run_off += n * r->rec_size;
	r->run_left -= n;
	return 1;
}

int tracefile__next(struct tf_reader *r, struct sbt_event *out)
{
	int ret;

	if (r->buf_i == r->buf_n) {
		ret = reader_fill(r);
		if (ret <= 0)
			return ret;
	}
	/* an older version's shorter record: the fields it lacks are 0 */
	if (r->rec_size < sizeof(*out))
		memset(out, 0, sizeof(*out));
	memcpy(out, r->buf + (size_t)r->buf_i++ * r->rec_size, r->rec_size);
	tf_event_to_le(out);
	return 1;
}

void tracefile__close(struct tf_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	tf_meta_free(&r->meta);
	free(r);
}
