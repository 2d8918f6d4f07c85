// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Private output files (lib/outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "lib/outfile.h"

int outfile__open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, OUTFILE_MODE);

	return fd < 0 ? -errno : fd;
}

FILE *outfile__fopen(const char *path)
{
	int fd = outfile__open(path), err;
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

const char *outfile__why(int err)
{
	return err == ELOOP ? "a symbolic link: refused (name the file it points to)"
			    : strerror(err);
}

int outfile__private_dir(const char *path)
{
	struct stat st;

	if (!mkdir(path, OUTDIR_MODE))
		return 0;
	if (errno != EEXIST)
		return -errno;
	if (lstat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	/* an older release made it 0755 */
	if (st.st_uid == geteuid() && (st.st_mode & 077) && chmod(path, OUTDIR_MODE))
		return -errno;
	return 0;
}

/* A write failed earlier and its errno is gone: a full file system is the
 * usual cause, and the one worth naming. */
static int lost_write_error(int fd)
{
	struct statvfs vfs;
	struct stat st;

	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && !fstatvfs(fd, &vfs) &&
	    !vfs.f_bavail)
		return ENOSPC;
	return EIO;
}

int outfile__close(FILE *f)
{
	int failed = ferror(f), err = 0;

	errno = 0;
	if (fflush(f) == EOF)
		err = errno ? errno : EIO;
	else if (failed)
		err = lost_write_error(fileno(f));
	if (f != stdout && f != stderr && fclose(f) == EOF && !err)
		err = errno ? errno : EIO;
	return -err;
}
