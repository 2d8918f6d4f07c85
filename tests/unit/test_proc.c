// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The /proc readers, on this test process itself (no root needed). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
			CHECK(!strncmp(f[i].open_path, "/proc/", 6));
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
	unsigned char in_file[16];
	struct mapped_file f;
	FILE *in;

	CHECK_EQ(proc__locate(getpid(), addr, &f, &off), 0);
	CHECK_EQ(proc__exe_inode(getpid(), &exe), 0);
	CHECK_EQ(f.inode, exe);
	CHECK(strstr(f.path, "test_proc") != NULL);
	in = fopen(f.open_path, "rb");
	CHECK(in != NULL);
	CHECK_EQ(fseek(in, (long)off, SEEK_SET), 0);
	CHECK_EQ(fread(in_file, 1, sizeof(in_file), in), sizeof(in_file));
	fclose(in);
	CHECK(!memcmp(in_file, (const void *)(uintptr_t)addr, sizeof(in_file)));
	CHECK_EQ(proc__locate(getpid(), (uint64_t)(uintptr_t)&data, &f, &off), -ENOENT);
	CHECK_EQ(proc__locate(getpid(), 16, &f, &off), -ENOENT);
	CHECK_EQ(proc__locate(-5, addr, &f, &off), -ESRCH);
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
