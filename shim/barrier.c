// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Probe shim, barrier class (shim/shim.h): pthread barriers, and the
 * barriers of libgomp and libomp entry points (the parallel region calls
 * and __kmpc_fork_call, variadic, stay on plain uprobes). */
#include <pthread.h>
#include "shim/shim.h"

void GOMP_barrier(void);
void GOMP_loop_end(void);
void GOMP_sections_end(void);
void GOMP_single_copy_end(void *data);
void __kmpc_barrier(void *loc, int gtid);

SHIM_SITES(pthread_barrier_wait);
SHIM_SITES(GOMP_barrier);
SHIM_SITES(GOMP_loop_end);
SHIM_SITES(GOMP_sections_end);
SHIM_SITES(GOMP_single_copy_end);
SHIM_SITES(__kmpc_barrier);

SHIM_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	return SHIM_CALL(pthread_barrier_wait, NULL, b, 0, 0, 0, b);
}

SHIM_EXPORT void GOMP_barrier(void)
{
	SHIM_CALL_VOID(GOMP_barrier, NULL, 0, 0, 0, 0);
}

SHIM_EXPORT void GOMP_loop_end(void)
{
	SHIM_CALL_VOID(GOMP_loop_end, NULL, 0, 0, 0, 0);
}

SHIM_EXPORT void GOMP_sections_end(void)
{
	SHIM_CALL_VOID(GOMP_sections_end, NULL, 0, 0, 0, 0);
}

SHIM_EXPORT void GOMP_single_copy_end(void *data)
{
	SHIM_CALL_VOID(GOMP_single_copy_end, NULL, data, 0, 0, 0, data);
}

SHIM_EXPORT void __kmpc_barrier(void *loc, int gtid)
{
	SHIM_CALL_VOID(__kmpc_barrier, NULL, loc, gtid, 0, 0, loc, gtid);
}
