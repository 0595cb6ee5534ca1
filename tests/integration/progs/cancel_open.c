/* cancel_open.c - thread cancellation through the guard's open wrappers, for
 * tests/integration/test_preload_cancel.sh. open() and its relatives are cancellation
 * points: a thread blocked in one (a FIFO with no partner yet) must die when cancelled,
 * and one with a cancellation pending must die there, the file unopened.
 * Usage:
 *   cancel_open fifo DIR CALL      CALL (open, open64, openat, creat) of DIR/fifo in a
 *                                  thread that blocks there; cancel it, join it
 *   cancel_open pending PATH       a thread with a cancellation pending opens PATH
 *   cancel_open self PATH          a single-threaded program cancels itself, opens PATH
 *   cancel_open ordinary FILE DENY a threaded program opens FILE (must work, errno
 *                                  kept) and DENY (must be refused, EACCES)
 * Exit 0 when it went as it should; 2 (with a line saying so) when a join hangs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *g_path, *g_call;
static _Atomic int g_cleaned, g_returned, g_tid;
static pthread_barrier_t g_barrier;

static void on_alarm(int sig)
{
	static const char msg[] = "cancel_open: FAIL: pthread_join() did not return within "
				  "10 s: the cancelled thread is stuck in its open\n";

	(void)sig;
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(2);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void cleanup(void *arg)
{
	(void)arg;
	g_cleaned = 1;
}

static int do_open(const char *call, const char *path)
{
	if (strcmp(call, "open64") == 0)
		return open64(path, O_RDONLY);
	if (strcmp(call, "openat") == 0)
		return openat(AT_FDCWD, path, O_RDONLY);
	if (strcmp(call, "creat") == 0)
		return creat(path, 0600); /* a FIFO opened for writing waits for a reader */
	return open(path, O_RDONLY);
}

static void *blocker(void *arg)
{
	int fd;

	(void)arg;
	pthread_cleanup_push(cleanup, NULL);
	g_tid = (int)syscall(SYS_gettid);
	fd = do_open(g_call, g_path);
	g_returned = 1;
	fprintf(stderr, "cancel_open: %s returned %d\n", g_call, fd);
	pthread_cleanup_pop(0);
	return NULL;
}

/* Waits (a bounded while) until thread tid sleeps, so that the cancellation finds it
 * inside the open rather than before it; either way the join must return. */
static void wait_asleep(void)
{
	char proc[64], buf[256];
	struct timespec ms = {0, 1000000};

	for (int i = 0; i < 2000; i++) {
		FILE *f;
		char *p;

		if (g_tid) {
			snprintf(proc, sizeof(proc), "/proc/self/task/%d/stat", g_tid);
			if ((f = fopen(proc, "r"))) {
				p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
				fclose(f);
				if (p && p[1] == ' ' && p[2] == 'S')
					return;
			}
		}
		nanosleep(&ms, NULL);
	}
}

static int joined_cancelled(pthread_t t, const char *what)
{
	void *ret = NULL;

	alarm(10);
	if (pthread_join(t, &ret) != 0) {
		fprintf(stderr, "cancel_open: FAIL: pthread_join: %s\n", strerror(errno));
		return 0;
	}
	alarm(0);
	if (ret != PTHREAD_CANCELED || !g_cleaned || g_returned) {
		fprintf(stderr,
			"cancel_open: FAIL: %s: the thread was not cancelled in its open "
			"(canceled %d, cleanup ran %d, open returned %d)\n",
			what, ret == PTHREAD_CANCELED, (int)g_cleaned, (int)g_returned);
		return 0;
	}
	return 1;
}

static int mode_fifo(const char *dir, const char *call)
{
	char fifo[4096];
	pthread_t t;
	int before, after, ok, w;

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	unlink(fifo);
	if (mkfifo(fifo, 0600) != 0) {
		fprintf(stderr, "cancel_open: mkfifo %s: %s\n", fifo, strerror(errno));
		return 1;
	}
	g_path = fifo;
	g_call = call;
	before = count_fds();
	if (pthread_create(&t, NULL, blocker, NULL) != 0)
		return 1;
	wait_asleep();
	pthread_cancel(t);
	ok = joined_cancelled(t, call);
	after = count_fds();
	if (after != before) {
		fprintf(stderr, "cancel_open: FAIL: %s: %d descriptors before, %d after\n", call,
			before, after);
		ok = 0;
	}
	/* no reader left open by the cancelled open */
	if (strcmp(call, "creat") != 0) {
		w = open(fifo, O_WRONLY | O_NONBLOCK);
		if (w >= 0 || errno != ENXIO) {
			fprintf(stderr, "cancel_open: FAIL: %s: the FIFO has a reader\n", call);
			ok = 0;
		}
		if (w >= 0)
			close(w);
	}
	unlink(fifo);
	return ok ? 0 : 1;
}

static void *pending_opener(void *arg)
{
	int fd;

	(void)arg;
	pthread_cleanup_push(cleanup, NULL);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_barrier_wait(&g_barrier); /* main cancels now */
	pthread_barrier_wait(&g_barrier); /* and has */
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	fd = open(g_path, O_RDONLY);
	g_returned = 1;
	fprintf(stderr, "cancel_open: open returned %d\n", fd);
	pthread_cleanup_pop(0);
	return NULL;
}

static int mode_pending(const char *path)
{
	pthread_t t;
	int before, ok;

	g_path = path;
	pthread_barrier_init(&g_barrier, NULL, 2);
	before = count_fds();
	if (pthread_create(&t, NULL, pending_opener, NULL) != 0)
		return 1;
	pthread_barrier_wait(&g_barrier);
	pthread_cancel(t);
	pthread_barrier_wait(&g_barrier);
	ok = joined_cancelled(t, "pending");
	if (count_fds() != before) {
		fprintf(stderr, "cancel_open: FAIL: pending: a descriptor was left open\n");
		ok = 0;
	}
	return ok ? 0 : 1;
}

static void self_cleanup(void *arg)
{
	static const char msg[] = "self: cancelled at the open\n";

	(void)arg;
	(void)!write(1, msg, sizeof(msg) - 1);
}

/* A single-threaded program cancels itself, then opens PATH: the open is where the
 * request acts (the main thread ends, the process with it, status 0). */
static int mode_self(const char *path)
{
	int fd;

	pthread_cleanup_push(self_cleanup, NULL);
	pthread_cancel(pthread_self());
	fd = open(path, O_RDONLY);
	printf("self: open returned %d\n", fd);
	pthread_cleanup_pop(0);
	return 1;
}

static void *idle(void *arg)
{
	return arg;
}

static int mode_ordinary(const char *file, const char *deny)
{
	char buf[64];
	pthread_t t;
	int fd, ok = 1;
	ssize_t n;

	/* a second thread once: the process is no longer single-threaded */
	if (pthread_create(&t, NULL, idle, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	errno = 4321;
	fd = open(file, O_RDONLY);
	if (fd < 0 || errno != 4321) {
		fprintf(stderr, "cancel_open: FAIL: open %s: %d, errno %d\n", file, fd, errno);
		ok = 0;
	} else {
		n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		printf("read: %s", buf);
		close(fd);
	}
	errno = 0;
	fd = open(deny, O_RDONLY);
	if (fd >= 0 || errno != EACCES) {
		fprintf(stderr, "cancel_open: FAIL: open %s was not refused: %d, errno %d\n", deny,
			fd, errno);
		ok = 0;
	}
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	signal(SIGALRM, on_alarm);
	if (argc == 4 && strcmp(argv[1], "fifo") == 0)
		return mode_fifo(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "pending") == 0)
		return mode_pending(argv[2]);
	if (argc == 3 && strcmp(argv[1], "self") == 0)
		return mode_self(argv[2]);
	if (argc == 4 && strcmp(argv[1], "ordinary") == 0)
		return mode_ordinary(argv[2], argv[3]);
	fprintf(stderr, "usage: cancel_open fifo DIR CALL | pending PATH | self PATH | "
			"ordinary FILE DENY\n");
	return 64;
}
