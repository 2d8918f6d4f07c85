// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The /proc readers, on this test process itself (no root needed). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/proc.h"
#include "unit.h"

TEST(status_of_self_and_of_a_missing_process)
{
	struct proc_status st;

	CHECK_EQ(proc__status(getpid(), &st), 0);
	CHECK_EQ(st.tgid, getpid());
	CHECK_EQ(st.uid, getuid());
	CHECK(st.state == 'R');
	CHECK_EQ(proc__status(0, &st), 0);
	CHECK_EQ(st.tgid, getpid());
	CHECK_EQ(proc__tgid(getpid()), getpid());
	CHECK(proc__status(-5, &st) < 0);
	CHECK_EQ(proc__tgid(-5), -1);
	CHECK(proc__gone(-5));
	CHECK(!proc__gone(getpid()));
}

static int count(void *ctx, pid_t tid)
{
	(*(int *)ctx)++;
	return 0;
}

static int find(void *ctx, pid_t pid)
{
	return pid == *(pid_t *)ctx ? 7 : 0;
}

static void *park(void *arg)
{
	pause();
	return NULL;
}

TEST(tasks_of_self_and_processes_of_the_machine)
{
	pthread_t th;
	pid_t self = getpid();
	int n = 0;

	CHECK_EQ(proc__for_each_task(self, count, &n), 0);
	CHECK_EQ(n, 1);
	pthread_create(&th, NULL, park, NULL);
	n = 0;
	proc__for_each_task(self, count, &n);
	CHECK_EQ(n, 2);
	/* a non-zero return stops the walk and comes back */
	CHECK_EQ(proc__for_each_pid(find, &self), 7);
	CHECK_EQ(proc__for_each_task(-5, count, &n), 0);
}

TEST(names_and_command_line)
{
	char buf[256];

	CHECK_EQ(proc__comm(getpid(), 0, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "test_proc");
	CHECK_EQ(proc__comm(getpid(), getpid(), buf, sizeof(buf)), 0);
	CHECK_STR(buf, "test_proc");
	CHECK(proc__comm(-5, 0, buf, sizeof(buf)) == -ENOENT);
	CHECK_STR(buf, "");
	proc__cmdline(getpid(), buf, sizeof(buf));
	CHECK(strstr(buf, "test_proc") != NULL);
	proc__cmdline(-5, buf, sizeof(buf));
	CHECK_STR(buf, "");
}

TEST(mapped_files_include_the_program_once)
{
	struct mapped_file *f = NULL;
	uint64_t exe = 0;
	int n, i, self = 0;

	CHECK_EQ(proc__exe_inode(getpid(), &exe), 0);
	n = proc__mapped_files(getpid(), &f);
	CHECK(n > 1);
	for (i = 0; i < n; i++)
		if (f[i].inode == exe) {
			self++;
			CHECK(f[i].executable);
			CHECK(strstr(f[i].path, "test_proc") != NULL);
			CHECK_EQ(f[i].pid, getpid());
			CHECK(f[i].map_start < f[i].map_end);
		}
	CHECK_EQ(self, 1);
	free(f);
	CHECK(proc__mapped_files(-5, &f) == -ESRCH);
}

/* The file offset of code: its bytes there are the bytes in memory. */
TEST(locate_code_in_its_file)
{
	static const int data = 42;
	uint64_t addr = (uint64_t)(uintptr_t)&count, off = 0, exe = 0;
	uint64_t offs[2] = {0, UINT64_MAX / 2}, addrs[2];
	unsigned char in_file[16];
	struct mapped_file f;
	int fd;

	CHECK_EQ(proc__locate(getpid(), addr, &f, &off), 0);
	CHECK_EQ(proc__exe_inode(getpid(), &exe), 0);
	CHECK_EQ(f.inode, exe);
	CHECK(strstr(f.path, "test_proc") != NULL);
	fd = proc__open_mapped(&f);
	CHECK(fd >= 0);
	CHECK_EQ(pread(fd, in_file, sizeof(in_file), (off_t)off), (ssize_t)sizeof(in_file));
	close(fd);
	CHECK(!memcmp(in_file, (const void *)(uintptr_t)addr, sizeof(in_file)));
	/* and back: the offset's address; none for an offset past the code */
	offs[0] = off;
	CHECK_EQ(proc__code_addresses(getpid(), f.dev, f.inode, offs, addrs, 2), 1);
	CHECK_EQ(addrs[0], addr);
	CHECK_EQ(addrs[1], 0);
	CHECK_EQ(proc__code_addresses(getpid(), f.dev, f.inode + 1, offs, addrs, 2), 0);
	CHECK_EQ(addrs[0], 0);
	CHECK_EQ(proc__code_addresses(-5, f.dev, f.inode, offs, addrs, 2), -ESRCH);
	CHECK_EQ(proc__locate(getpid(), (uint64_t)(uintptr_t)&data, &f, &off), -ENOENT);
	CHECK_EQ(proc__locate(getpid(), 16, &f, &off), -ENOENT);
	CHECK_EQ(proc__locate(-5, addr, &f, &off), -ESRCH);
}

/* The mapping of a file, and another file put at its path since. */
struct replaced {
	char dir[64], path[96];
	struct mapped_file f;
	void *map;
};

static void map_then_replace(struct replaced *r, int with_fifo)
{
	struct mapped_file *files = NULL;
	char other[128];
	int fd, n, i;

	snprintf(r->dir, sizeof(r->dir), "/tmp/sbt-proc.XXXXXX");
	if (!mkdtemp(r->dir))
		abort();
	snprintf(r->path, sizeof(r->path), "%s/lib.so", r->dir);
	fd = open(r->path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, 4096))
		abort();
	r->map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	n = proc__mapped_files(getpid(), &files);
	for (i = 0; i < n; i++)
		if (!strcmp(files[i].path, r->path))
			r->f = files[i];
	free(files);
	snprintf(other, sizeof(other), "%s/other", r->dir);
	if (with_fifo ? mkfifo(other, 0600) : close(open(other, O_WRONLY | O_CREAT, 0600)))
		abort();
	if (rename(other, r->path))
		abort();
}

static void unmap_replaced(struct replaced *r)
{
	munmap(r->map, 4096);
	unlink(r->path);
	rmdir(r->dir);
}

/* Open through the mapping (root: map_files) gives the mapped file; open by
 * the path (no CAP_SYS_ADMIN) finds another file there and says so. Never
 * what is at the path now, never blocking on a FIFO. */
TEST(open_mapped_gives_the_mapped_file_or_refuses)
{
	struct replaced r;
	struct stat st;
	int fifo, fd;

	for (fifo = 0; fifo < 2; fifo++) {
		map_then_replace(&r, fifo);
		CHECK(r.f.inode != 0);
		fd = proc__open_mapped(&r.f);
		if (fd >= 0) {
			CHECK_EQ(fstat(fd, &st), 0);
			CHECK_EQ((uint64_t)st.st_ino, r.f.inode);
			close(fd);
		} else {
			CHECK(fd == -ESTALE || fd == -EINVAL);
		}
		unmap_replaced(&r);
	}
}

/* A pinned name reaches the file after the process unmapped it and its
 * path was removed; one descriptor per file. */
TEST(pinned_name_outlives_the_mapping)
{
	struct mapped_file *files = NULL, f = {0};
	char dir[] = "/tmp/sbt-pin.XXXXXX", path[64], pinned[64], again[64];
	struct stat st;
	void *map;
	int fd, n, i;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && !ftruncate(fd, 4096));
	map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	n = proc__mapped_files(getpid(), &files);
	for (i = 0; i < n; i++)
		if (!strcmp(files[i].path, path))
			f = files[i];
	free(files);
	CHECK_EQ(proc__pin(&f, pinned, sizeof(pinned)), 0);
	CHECK(!strncmp(pinned, "/proc/self/fd/", 14));
	munmap(map, 4096);
	unlink(path);
	rmdir(dir);
	CHECK_EQ(stat(pinned, &st), 0);
	CHECK_EQ((uint64_t)st.st_ino, f.inode);
	CHECK_EQ(proc__pin(&f, again, sizeof(again)), 0);
	CHECK_STR(again, pinned);
}

/* /proc's text as a hostile process could shape it: names with spaces
 * and newlines, absurd numbers, truncated lines. */
TEST(maps_lines_parsed_strictly)
{
	struct mapped_file m;

	CHECK_EQ(proc__parse_maps_line("7f00-7f80 r-xp 00001000 08:01 1234 /usr/lib/libc.so.6\n",
				       &m),
		 0);
	CHECK_EQ(m.map_start, 0x7f00);
	CHECK_EQ(m.map_end, 0x7f80);
	CHECK_EQ(m.inode, 1234);
	CHECK_EQ(m.dev, ((uint64_t)8 << 32) | 1);
	CHECK(m.executable);
	CHECK_STR(m.path, "/usr/lib/libc.so.6");
	CHECK_EQ(proc__parse_maps_line("1-2 rw-p 0 00:00 0 /a b c", &m), -ENOENT); /* inode 0 */
	CHECK_EQ(proc__parse_maps_line("1-2 rw-p 0 08:01 9 /a b c", &m), 0);
	CHECK_STR(m.path, "/a b c");
	CHECK_EQ(proc__parse_maps_line("1-2 r-xp 0 08:01 9 /x (deleted)", &m), -ENOENT);
	CHECK_EQ(proc__parse_maps_line("1-2 r-xp 0 08:01 9 [heap]", &m), -ENOENT);
	CHECK_EQ(proc__parse_maps_line("1-2 r-xp", &m), -EINVAL);
	CHECK_EQ(proc__parse_maps_line("", &m), -EINVAL);
	CHECK_EQ(proc__parse_maps_line("zz-2 r-xp 0 08:01 9 /x", &m), -EINVAL);
	CHECK_EQ(proc__parse_maps_line("1-2 r-xpxxxxxxxxxxxxxxxxxxxxxxxxxxx 0 08:01 9 /x", &m),
		 -EINVAL);
}

TEST(status_text_parsed_whatever_it_holds)
{
	static const char ok[] = "Name:\tx y\nState:\tZ (zombie)\nTgid:\t42\nPPid:\t7\n"
				 "Uid:\t1000\t1000\nSigQ:\t1/31409\nSigPnd:\t0000000000000100\n"
				 "ShdPnd:\t0000000000000002\nSigBlk:\t0000000000010000\n"
				 "SigIgn:\t0000000000001000\nSigCgt:\t0000000180000000\n"
				 "CapEff:\t000001ffffffffff\nKthread:\t0\n";
	static const char shstk[] = "Tgid:\t42\nx86_Thread_features:\tshstk wrss\n"
				    "x86_Thread_features_locked:\tshstk\n";
	static const char locked_only[] = "x86_Thread_features:\t\n"
					  "x86_Thread_features_locked:\tshstk\n";
	static const char junk[] = "State:\nTgid:\tnope\n\n\n\x01\x02Uid:";
	struct proc_status st;

	CHECK_EQ(proc__parse_status(ok, sizeof(ok) - 1, &st), 0);
	CHECK(st.state == 'Z');
	CHECK_EQ(st.tgid, 42);
	CHECK_EQ(st.ppid, 7);
	CHECK_EQ(st.uid, 1000);
	CHECK_EQ(st.caps, 0x1ffffffffffULL);
	CHECK_EQ(st.kthread, 0);
	CHECK_EQ(st.shstk, 0);
	CHECK_EQ(st.sigpnd, 1ULL << (SIGKILL - 1));
	CHECK_EQ(st.shdpnd, 1ULL << (SIGINT - 1));
	CHECK_EQ(st.sigblk, 1ULL << (SIGCHLD - 1));
	CHECK_EQ(proc__parse_status(shstk, sizeof(shstk) - 1, &st), 0);
	CHECK_EQ(st.shstk, 1);
	CHECK_EQ(proc__parse_status(locked_only, sizeof(locked_only) - 1, &st), 0);
	CHECK_EQ(st.shstk, 0);
	CHECK_EQ(proc__parse_status(junk, sizeof(junk) - 1, &st), 0);
	CHECK_EQ(st.tgid, -1);
	CHECK_EQ(st.ppid, 0);
	CHECK_EQ(proc__parse_status("", 0, &st), 0);
	CHECK_EQ(st.tgid, -1);
}

static void on_usr1(int sig)
{
}

/* wait for task pid to be in state c (up to 5 s) */
static int wait_state(pid_t pid, char c)
{
	struct proc_status st;
	int i;

	for (i = 0; i < 5000; i++) {
		if (proc__status(pid, &st) == 0 && st.state == c)
			return 1;
		usleep(1000);
	}
	return 0;
}

/* A signal pending that it does not block: it acts on it once it runs. A
 * blocked one is not coming. */
TEST(signal_coming_to_a_process)
{
	sigset_t usr2;
	pid_t child;

	CHECK_EQ(proc__signal_or_exit_coming(getpid()), 0);
	CHECK_EQ(proc__signal_or_exit_coming(-5), 0);
	child = fork();
	if (child == 0) {
		sigemptyset(&usr2);
		sigaddset(&usr2, SIGUSR2);
		sigprocmask(SIG_BLOCK, &usr2, NULL);
		signal(SIGUSR1, on_usr1);
		for (;;)
			pause();
	}
	CHECK(child > 0);
	CHECK(wait_state(child, 'S'));
	CHECK_EQ(proc__signal_or_exit_coming(child), 0);
	kill(child, SIGUSR2); /* blocked: stays pending, never acted on */
	CHECK_EQ(proc__signal_or_exit_coming(child), 0);
	kill(child, SIGSTOP);
	CHECK(wait_state(child, 'T'));
	kill(child, SIGUSR1); /* caught: pending while it is stopped */
	CHECK_EQ(proc__signal_or_exit_coming(child), 1);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK_EQ(proc__signal_or_exit_coming(child), 0);
}

TEST(entry_point_and_cpu)
{
	unsigned long entry = 0;
	char cpu[128];

	CHECK_EQ(proc__entry_point(getpid(), &entry), 0);
	CHECK(entry != 0);
	proc__cpu_model(cpu, sizeof(cpu));
	CHECK(cpu[0] != 0 && cpu[0] != ' ');
}
