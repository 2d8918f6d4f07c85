// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Probe shim, semaphore class (shim/shim.h). */
#include <semaphore.h>
#include <time.h>
#include "shim/shim.h"

SHIM_SITES(sem_wait);
SHIM_SITES(sem_timedwait);
SHIM_SITES(sem_clockwait);
SHIM_SITES(sem_trywait);
SHIM_SITES(sem_post);

SHIM_EXPORT int sem_wait(sem_t *s)
{
	return SHIM_CALL(sem_wait, NULL, s, 0, 0, 0, s);
}

SHIM_EXPORT int sem_timedwait(sem_t *s, const struct timespec *t)
{
	return SHIM_CALL(sem_timedwait, NULL, s, t, 0, 0, s, t);
}

SHIM_EXPORT int sem_clockwait(sem_t *s, clockid_t c, const struct timespec *t)
{
	return SHIM_CALL(sem_clockwait, NULL, s, c, t, 0, s, c, t);
}

SHIM_EXPORT int sem_trywait(sem_t *s)
{
	return SHIM_CALL(sem_trywait, NULL, s, 0, 0, 0, s);
}

SHIM_EXPORT int sem_post(sem_t *s)
{
	return SHIM_CALL(sem_post, NULL, s, 0, 0, 0, s);
}
