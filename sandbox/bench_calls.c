/* bench_calls.c - the cost of the calls the sandbox sees, for sandbox/bench.sh.
 *   bench_calls open|getpid N PATH
 * open: N open+close of PATH (a notified call, performed by the supervisor);
 * getpid: N getpid() (not notified: the filter's own cost). Prints ns per call. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n;
	double t0, t1;

	if (argc != 4)
		return 2;
	n = strtol(argv[2], NULL, 10);
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (argv[1][0] == 'o') {
			int fd = open(argv[3], O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				return 1;
			close(fd);
		} else {
			syscall(SYS_getpid);
		}
	}
	t1 = now_ns();
	printf("%.0f\n", (t1 - t0) / (double)n);
	return 0;
}
