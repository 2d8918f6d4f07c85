// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Probe shim, condition variable class (shim/shim.h). glibc keeps the
 * condvars of before 2.3.2 under version GLIBC_2.2.5: only the current
 * ones are wrapped (shim/cond.map gives ours that version), a program
 * bound to the old ones keeps them. */
#include <pthread.h>
#include <time.h>
#include "shim/shim.h"

#define COND_VERSION "GLIBC_2.3.2"

SHIM_SITES(pthread_cond_wait);
SHIM_SITES(pthread_cond_timedwait);
SHIM_SITES(pthread_cond_clockwait);
SHIM_SITES(pthread_cond_signal);
SHIM_SITES(pthread_cond_broadcast);

SHIM_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	return SHIM_CALL(pthread_cond_wait, COND_VERSION, c, m, 0, 0, c, m);
}

SHIM_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				       const struct timespec *t)
{
	return SHIM_CALL(pthread_cond_timedwait, COND_VERSION, c, m, t, 0, c, m, t);
}

/* 2.30 and 2.34 are one function */
SHIM_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t k,
				       const struct timespec *t)
{
	return SHIM_CALL(pthread_cond_clockwait, NULL, c, m, k, t, c, m, k, t);
}

SHIM_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	return SHIM_CALL(pthread_cond_signal, COND_VERSION, c, 0, 0, 0, c);
}

SHIM_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	return SHIM_CALL(pthread_cond_broadcast, COND_VERSION, c, 0, 0, 0, c);
}
