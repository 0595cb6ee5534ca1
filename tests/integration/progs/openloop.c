/* openloop.c - the open/close loop of `make bench-preload`: opens and closes each
 * PATH in turn, N rounds, and prints the nanoseconds per open+close. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	long n;
	double ns;

	if (argc < 3) {
		fprintf(stderr, "usage: openloop N PATH...\n");
		return 2;
	}
	n = strtol(argv[1], NULL, 10);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		for (int k = 2; k < argc; k++) {
			int fd = open(argv[k], O_RDONLY | O_CLOEXEC);

			if (fd < 0) {
				perror(argv[k]);
				return 1;
			}
			close(fd);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	printf("%.0f\n", ns / ((double)n * (argc - 2)));
	return 0;
}
