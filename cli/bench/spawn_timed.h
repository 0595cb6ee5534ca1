/* spawn_timed.h - what the hook's two bench programs share (bench_hook.c, hook_ab.c):
 * the clock, the order of samples, and one timed run of a program with its input
 * waiting on stdin. */
#ifndef DCG_BENCH_SPAWN_TIMED_H
#define DCG_BENCH_SPAWN_TIMED_H

#include <errno.h>
#include <spawn.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* qsort's order of doubles, smallest first */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Runs prog (argv, env) with input on stdin, its stdout on outfd and its stderr on
 * errfd (-1: this process's). *wall: microseconds from spawn to reaped exit; *cpu: the
 * child's user and system time; *status: its wait status. 0, or -1 when it could not
 * run (errno says why). */
static int spawn_timed(const char *prog, char *const argv[], char *const env[], const char *input,
		       int outfd, int errfd, double *wall, double *cpu, int *status)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	size_t len = strlen(input);
	double t0;
	pid_t pid;
	int p[2], rc;

	if (pipe(p) < 0)
		return -1;
	/* far smaller than a pipe's buffer: it waits there before the start */
	if (write(p[1], input, len) != (ssize_t)len) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[0], 0);
	posix_spawn_file_actions_adddup2(&fa, outfd, 1);
	if (errfd >= 0)
		posix_spawn_file_actions_adddup2(&fa, errfd, 2);
	t0 = now_us();
	rc = posix_spawn(&pid, prog, &fa, NULL, argv, env);
	if (rc == 0 && wait4(pid, status, 0, &ru) == pid) {
		*wall = now_us() - t0;
		*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	} else if (rc) {
		errno = rc;
		rc = -1;
	} else {
		rc = -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(p[0]);
	return rc ? -1 : 0;
}

#endif /* DCG_BENCH_SPAWN_TIMED_H */
