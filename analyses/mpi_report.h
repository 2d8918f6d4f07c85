/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The MPI analysis (analyses/mpi.h) as a report: the rank view (rank, host,
 * pid, time in MPI, waits, lateness, phases between collectives), the
 * communicators' episodes, the most imbalanced episodes; text or JSON.
 */
#ifndef SBT_MPI_REPORT_H
#define SBT_MPI_REPORT_H

#include <stdio.h>

struct mpi;
struct json;

/* Text: the tables, with at most max_episodes of the most imbalanced episodes. */
void mpi_report__text(const struct mpi *m, FILE *f, size_t max_episodes);
/* JSON: the value of an "mpi" key (an object), every episode with each rank's part. */
void mpi_report__json(const struct mpi *m, struct json *j);

#endif
