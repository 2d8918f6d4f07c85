// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sbt/events.h"
#include "lib/clock.h"
#include "lib/utf8.h"
#include "lib/proc.h"
#include "user/trace/launch.h"

#if !defined(__x86_64__)
#error "launch.c: stopping at the entry point is implemented for x86_64 only"
#endif

/* preload after the user's own LD_PRELOAD, which stays first; the probe
 * shim times its sites (shim/shim.h). */
static int add_preload(const char *preload)
{
	const char *mine = getenv("LD_PRELOAD");
	char *both;
	int e;

	if (!preload || !*preload)
		return 0;
	if (setenv(SBT_SHIM_TIMED_ENV, "1", 1))
		return -1;
	if (!mine || !*mine)
		return setenv("LD_PRELOAD", preload, 1);
	if (asprintf(&both, "%s:%s", mine, preload) < 0)
		return -1;
	e = setenv("LD_PRELOAD", both, 1);
	free(both);
	return e;
}

/* Ambient capabilities pass through exec to every program the command runs:
 * a sbt-bpf given CAP_BPF, CAP_PERFMON or CAP_SYS_PTRACE as ambient (setpriv,
 * capsh, a service's AmbientCapabilities) would hand them to the command it
 * traces. The command gets what a plain exec by its user gives it. A kernel
 * without ambient capabilities (EINVAL) has none to pass on. */
static int drop_ambient_caps(void)
{
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return -1;
	return 0;
}

/* The child reports a failed exec through a close-on-exec pipe. */
static void child(char *const argv[], const char *preload, int errfd)
{
	int e;

	if (drop_ambient_caps() == 0 && add_preload(preload) == 0 &&
	    ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
		execvp(argv[0], argv);
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static int wait_stop(pid_t pid, int *sig)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (WIFEXITED(status) || WIFSIGNALED(status))
		return -ECHILD;
	*sig = WSTOPSIG(status);
	return 0;
}

/* An int3 over the first byte at addr in pid; the word it was in, to put
 * back, in *word. 0 or a negative errno. */
static int plant_break(pid_t pid, unsigned long addr, long *word)
{
	errno = 0;
	*word = ptrace(PTRACE_PEEKTEXT, pid, (void *)addr, NULL);
	if (errno)
		return -errno;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)((*word & ~0xffL) | 0xcc)))
		return -errno;
	return 0;
}

/* Plant int3 at the entry point, run to it, restore the instruction and the
 * program counter. Signals delivered before the entry are passed on. */
static int run_to_entry(pid_t pid, unsigned long entry)
{
	struct user_regs_struct regs;
	long word;
	int sig, e;

	e = plant_break(pid, entry, &word);
	if (e)
		return e;
	for (sig = 0;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig))
			return -errno;
		e = wait_stop(pid, &sig);
		if (e)
			return e;
		if (sig != SIGTRAP)
			continue;
		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
			return -errno;
		if (regs.rip == entry + 1)
			break;
		sig = 0;
	}
	regs.rip = entry;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)word) ||
	    ptrace(PTRACE_SETREGS, pid, NULL, &regs))
		return -errno;
	return 0;
}

pid_t launch__start(char *const argv[], const char *preload, char *err, size_t errlen)
{
	unsigned long entry = 0;
	int pipefd[2], sig, e, exec_errno = 0;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot run '%s': pipe: %s", argv[0], strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		e = -errno;
		snprintf(err, errlen, "cannot run '%s': fork: %s", argv[0], strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return e;
	}
	if (pid == 0)
		child(argv, preload, pipefd[1]);
	close(pipefd[1]);
	e = wait_stop(pid, &sig);
	if (read(pipefd[0], &exec_errno, sizeof(exec_errno)) == sizeof(exec_errno) && exec_errno) {
		close(pipefd[0]);
		waitpid(pid, NULL, 0);
		snprintf(err, errlen, "cannot run '%s': %s", argv[0], strerror(exec_errno));
		return -exec_errno;
	}
	close(pipefd[0]);
	if (!e)
		e = proc__entry_point(pid, &entry);
	if (!e)
		e = run_to_entry(pid, entry);
	if (e) {
		snprintf(err, errlen, "'%s' did not reach its entry point: %s", argv[0],
			 e == -ECHILD ? "it exited first (missing library?)" : strerror(-e));
		launch__abort(pid);
		return e;
	}
	return pid;
}

/* Whether the code at fn is a probe shim site (shim/shim.h: a 5-byte nop,
 * then ret) as a uprobe leaves it: int3 on the nop's first byte, or the
 * call into the kernel's uprobe trampoline that replaces the nop once the
 * site is optimized. Anything else is not called. */
static int is_site(pid_t pid, unsigned long fn)
{
	unsigned char b[sizeof(long) * 2];
	long w[2];
	int i;

	for (i = 0; i < 2; i++) {
		errno = 0;
		w[i] = ptrace(PTRACE_PEEKTEXT, pid, (void *)(fn + i * sizeof(long)), NULL);
		if (errno)
			return 0;
	}
	memcpy(b, w, sizeof(b));
	return b[5] == 0xc3 && (b[0] == 0xcc || b[0] == 0xe8 || b[0] == 0x0f);
}

/* One call of fn in the child held at entry (registers at), with entry as
 * its return address: the int3 planted there brings the child back. A
 * stop for another signal ends the calls: the signal is sent again, to be
 * delivered once the child runs. */
static int call_once(pid_t pid, const struct user_regs_struct *at, unsigned long entry,
		     unsigned long fn)
{
	struct user_regs_struct regs = *at;
	int sig, e;

	/* below the red zone, aligned as after a call instruction */
	regs.rsp = ((at->rsp - 256) & ~15UL) - 8;
	regs.rip = fn;
	regs.rdi = regs.rsi = regs.rdx = regs.rcx = regs.r8 = regs.r9 = 0;
	if (ptrace(PTRACE_POKEDATA, pid, (void *)regs.rsp, (void *)entry) ||
	    ptrace(PTRACE_SETREGS, pid, NULL, &regs) || ptrace(PTRACE_CONT, pid, NULL, NULL))
		return -errno;
	e = wait_stop(pid, &sig);
	if (e)
		return e;
	if (sig != SIGTRAP) {
		kill(pid, sig);
		return -EINTR;
	}
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
		return -errno;
	return regs.rip == entry + 1 ? 0 : -EFAULT;
}

int launch__call_sites(pid_t pid, const uint64_t *fns, int n)
{
	struct proc_status st;
	struct user_regs_struct at;
	unsigned long entry = 0;
	int i, called = 0, e;
	long word;

	/* a call we make up has no shadow stack entry: its ret would fault (and
	 * the kernel does not rewrite sites where one is on) */
	if (proc__status(pid, &st))
		return -ESRCH;
	if (st.shstk)
		return -EOPNOTSUPP;
	e = proc__entry_point(pid, &entry);
	if (e)
		return e;
	if (ptrace(PTRACE_GETREGS, pid, NULL, &at))
		return -errno;
	e = plant_break(pid, entry, &word);
	if (e)
		return e;
	for (i = 0, e = 0; i < n && !e; i++) {
		if (!is_site(pid, fns[i]))
			continue;
		e = call_once(pid, &at, entry, fns[i]);
		called += !e;
	}
	/* held at the entry point again, as if nothing had run */
	if (e != -ECHILD && (ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)word) ||
			     ptrace(PTRACE_SETREGS, pid, NULL, &at)))
		return -errno;
	return e ? e : called;
}

int launch__release(pid_t pid)
{
	return ptrace(PTRACE_DETACH, pid, NULL, NULL) ? -errno : 0;
}

/* Processes of the command's tree looked at, at most, each time. */
#define TREE_MAX 4096

struct tree_walk {
	int depth, left;
};

/* Whether pid or a process it started (TREE_MAX processes at most, 16
 * generations) acts on a signal or exits. */
static int tree_busy(void *ctx, pid_t pid)
{
	struct tree_walk *w = ctx, sub = {w->depth + 1, 0};
	int rc;

	if (w->left-- <= 0)
		return 0;
	if (proc__signal_or_exit_coming(pid))
		return 1;
	if (w->depth >= 16)
		return 0;
	sub.left = w->left;
	rc = proc__for_each_child(pid, tree_busy, &sub);
	w->left = sub.left;
	return rc;
}

int launch__await_end(pid_t pid, uint64_t since_ns, int *wstatus)
{
	uint64_t now, busy_ns = since_ns;
	struct tree_walk w;
	pid_t r;

	for (;;) {
		r = waitpid(pid, wstatus, WNOHANG);
		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR) /* not ours to wait for */
			return 0;
		now = clock_ns(CLOCK_MONOTONIC);
		if (now - since_ns >= LAUNCH_ENDING_MS * 1000000ULL)
			return 0;
		w = (struct tree_walk){0, TREE_MAX};
		if (tree_busy(&w, pid))
			busy_ns = now;
		else if (now - since_ns >= LAUNCH_GRACE_MS * 1000000ULL &&
			 now - busy_ns >= LAUNCH_QUIET_MS * 1000000ULL)
			return 0;
		usleep(2000);
	}
}

void launch__abort(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

void launch__join_argv(char *const argv[], char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = 0;
	for (; *argv && len < n; argv++)
		len += snprintf(buf + len, n - len, "%s%s", len ? " " : "", *argv);
	utf8_printable(buf);
}

void launch__describe_end(int wstatus, char *buf, size_t n)
{
	const char *sig = WIFSIGNALED(wstatus) ? sigabbrev_np(WTERMSIG(wstatus)) : NULL;

	if (WIFEXITED(wstatus))
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(wstatus));
	else if (sig)
		snprintf(buf, n, "killed by SIG%s%s", sig,
			 WCOREDUMP(wstatus) ? " (core dumped)" : "");
	else
		snprintf(buf, n, "killed by signal %d", WTERMSIG(wstatus));
}
