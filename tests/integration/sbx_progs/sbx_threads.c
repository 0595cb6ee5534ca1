/* sbx_threads.c - 8 threads, each writing its own scratch file and trying to delete
 * and overwrite the protected ones, many times.
 *   sbx_threads SCRATCH_DIR PROTECTED_FILE READONLY_FILE
 * Exit 0 when every protected call was refused and every scratch write worked. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *dir, *prot, *ro;
static int failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char *what)
{
	pthread_mutex_lock(&lock);
	failures++;
	fprintf(stderr, "sbx_threads: %s\n", what);
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	char path[4096];

	for (int i = 0; i < 200; i++) {
		snprintf(path, sizeof path, "%s/t%ld-%d", dir, id, i);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, "ok\n", 3) != 3)
			fail("scratch write failed");
		if (fd >= 0)
			close(fd);
		if (unlink(path) != 0)
			fail("scratch unlink failed");
		if (syscall(SYS_unlinkat, AT_FDCWD, prot, 0) == 0 || errno != EACCES)
			fail("protected unlink not refused");
		if (open(ro, O_WRONLY) >= 0 || errno != EACCES)
			fail("read-only open not refused");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[8];

	if (argc != 4)
		return 2;
	dir = argv[1], prot = argv[2], ro = argv[3];
	for (long i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	return failures ? 1 : 0;
}
