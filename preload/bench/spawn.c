/* spawn.c - runs a program N times, one after the other, from a static binary
 * (make bench-preload): LD_PRELOAD does not enter this process, only the children, so
 * the time measured is what a preloaded object costs processes that make no guarded
 * call, without a shell's forks and exec checks.
 *   spawn N PROGRAM [ARGS...]     exit 1 when a run fails */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	long n = argc > 2 ? strtol(argv[1], NULL, 10) : 0;

	if (n < 1) {
		fprintf(stderr, "usage: spawn N PROGRAM [ARGS...]\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		pid_t pid;
		int status;

		if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ) != 0 ||
		    waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	return 0;
}
