/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The symbolizers of one process over time (doc/design.md §2, names): an
 * exec replaces the program, so an address is named from the files mapped
 * when its record was stamped, not from those mapped when it is read (a
 * drain and the records' time order later; by then the process may run
 * another program, or be gone). Each symbolizer names the records stamped
 * from its time on, until the next one's: one read while the process stood
 * still at a stop (its exec, its loader's report) from the time it was read,
 * one read when an exec or fork record is read from that record's time.
 */
#ifndef SBT_SYM_TIMELINE_H
#define SBT_SYM_TIMELINE_H

#include <stdint.h>

struct symbolizer;
struct sym_timeline;

/* An empty timeline (NULL: no memory). */
struct sym_timeline *sym_timeline__new(void);
/* Frees it and every symbolizer it holds. tl may be NULL. */
void sym_timeline__free(struct sym_timeline *tl);
/* s (NULL: the process could not be read, its addresses are named by
 * address) names the records stamped from since_ns on; the timeline owns it.
 * Added only when later than every symbolizer held: one read at or after
 * since_ns names those records already, and better (one read at a stop,
 * while the process stood still, beats one read later for an earlier
 * record: the process may have exec'd again since). The symbolizer it
 * follows is frozen (symbolizer__freeze()): the maps are no longer its
 * program's. 1: added, 0: not (s freed), -ENOMEM (s freed). */
int sym_timeline__add(struct sym_timeline *tl, uint64_t since_ns, struct symbolizer *s);
/* The symbolizer in force at ts_ns (NULL: by address, or none held);
 * those before it are freed: records are read in time order (one older
 * than the first held is named by the first). tl may be NULL. */
struct symbolizer *sym_timeline__at(struct sym_timeline *tl, uint64_t ts_ns);
/* Symbolizers held (NULL ones included). */
int sym_timeline__count(const struct sym_timeline *tl);

#endif
