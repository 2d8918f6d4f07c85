// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Byte order, section names and I/O shared by the .sbt writer and reader. */
#include "lib/tracefile/common.h"
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const tf_section_names[TF_NSECTIONS] = {
	[TF_SEC_INFO] = "INFO",
	[TF_SEC_PROBES] = "PROBES",
	[TF_SEC_SYMBOLS] = "SYMBOLS",
	[TF_SEC_THREADS] = "THREADS",
	[TF_SEC_DROPS] = "DROPS",
	[TF_SEC_COUNTERS] = "COUNTERS",
	[TF_SEC_ALPHA] = "ALPHA",
	[TF_SEC_JOBS] = "JOBS",
	[TF_SEC_RECORDS] = "RECORDS",
	[TF_SEC_END] = "END",
	[TF_SEC_CALIBRATION] = "CALIBRATION",
	[TF_SEC_PROBE_COSTS] = "PROBE_COSTS",
};

/* Records are written as is on little-endian hosts; elsewhere they are swapped to the
 * little-endian file order. The swap is its own inverse, so it serves both directions. */
void tf_event_to_le(struct sbt_event *e)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	e->ts = htole64(e->ts);
	e->obj = htole64(e->obj);
	e->site = htole64(e->site);
	e->pid = htole32(e->pid);
	e->tid = htole32(e->tid);
	e->type = htole16(e->type);
	e->probe = htole16(e->probe);
	e->lost = htole32(e->lost);
	e->cost = htole32(e->cost);
	e->flags = htole32(e->flags);
#endif
}

void tf_header_to_le(struct tf_header *h)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	h->version = htole32(h->version);
	h->header_size = htole32(h->header_size);
	h->record_size = htole32(h->record_size);
	h->flags = htole32(h->flags);
	h->nrecords = htole64(h->nrecords);
	h->meta_offset = htole64(h->meta_offset);
	h->meta_size = htole64(h->meta_size);
#endif
}

/* write(2) until done: regular files may still return short counts (quota, signals, a disk
 * that fills up). */
int tf_write_all(int fd, const void *buf, size_t len, size_t *done)
{
	const char *p = buf;
	size_t n0 = len;
	int err = 0;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		p += n;
		len -= n;
	}
	if (done)
		*done = n0 - len;
	return err;
}

ssize_t tf_pread_all(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, p + done, len - done, off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

void tf_meta_free(struct tf_meta *m)
{
	__u32 i;

	if (!m)
		return;
	free(m->kernel);
	free(m->host);
	free(m->command);
	free(m->clock);
	free(m->sbt_version);
	free(m->command_end);
	free(m->inject_delay_ns);
	free(m->job_id);
	free(m->probes);
	for (i = 0; m->symbols && i < m->nsymbols; i++)
		free(m->symbols[i].name);
	free(m->symbols);
	free(m->threads);
	free(m->drops_per_cpu);
	free(m->alpha_enter);
	free(m->alpha_exit);
	for (i = 0; m->jobs && i < m->njobs; i++)
		free(m->jobs[i].command);
	free(m->jobs);
	for (i = 0; m->cost_names && i < m->ncost_names; i++)
		free(m->cost_names[i]);
	free(m->cost_names);
	free(m->calibrations);
	free(m->cal_costs);
	free(m->cost_binds);
	free(m->costs_source);
	memset(m, 0, sizeof(*m));
}
