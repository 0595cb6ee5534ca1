/* execcheck.c - what the guard's exec check costs a fresh fork child, alone.
 *
 * Usage: execcheck PATH [ROUNDS]   (run under dcg run, or with any object preloaded)
 *
 * Forks ROUNDS children (default 2000); each installs a seccomp filter that makes
 * execve fail with EPERM, then times execve(PATH): the preloaded guard's wrapper makes
 * its whole check (the file, argv, the environment) and the kernel refuses the call.
 * Prints the median and quartiles in microseconds. The empty object's figure is the
 * floor (the system call alone). A fork child is where the check runs for every
 * command a shell starts: its first touch of each page and of /proc/self costs more
 * than a loop in one process would show. */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct sock_filter filter[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(filter) / sizeof(filter[0]), filter};
	int rounds = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 2000, fds[2];
	char *args[2];
	long *d;

	if (argc < 2 || rounds < 4) {
		fprintf(stderr, "usage: execcheck PATH [ROUNDS]\n");
		return 2;
	}
	args[0] = argv[1];
	args[1] = NULL;
	d = calloc((size_t)rounds, sizeof(long));
	if (!d || pipe(fds) != 0)
		return 1;
	for (int r = 0; r < rounds; r++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			long t0, t;

			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
			    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
				_exit(1);
			t0 = now_ns();
			execve(argv[1], args, environ);
			t = now_ns() - t0;
			_exit(write(fds[1], &t, sizeof(t)) == sizeof(t) ? 0 : 1);
		}
		if (read(fds[0], &d[r], sizeof(long)) != sizeof(long))
			return 1;
		waitpid(pid, NULL, 0);
	}
	qsort(d, (size_t)rounds, sizeof(long), cmp_long);
	printf("%s: execve refused after the check: median %.2f us (quartiles %.2f, %.2f)\n",
	       argv[1], (double)d[rounds / 2] / 1e3, (double)d[rounds / 4] / 1e3,
	       (double)d[3 * rounds / 4] / 1e3);
	return 0;
}
