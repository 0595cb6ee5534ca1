/* preload_probe.c - calls the guard's hard cases directly, for
 * tests/integration/test_preload_stress.sh: vfork, posix_spawn with an empty envp,
 * raw syscall(), system() after clearenv(), execle, a closed fd 2 reused by a data
 * file, errno preservation, threads opening files while another forks and execs, and
 * the child of libc's own fork (daemon()) in a process whose threads load libraries.
 * Usage: preload_probe MODE ARGS... ; exit 0 when the guard behaved. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int fails;
#define CHECK(cond, ...)                                        \
	do {                                                    \
		if (!(cond)) {                                  \
			fprintf(stderr, "probe: " __VA_ARGS__); \
			fputc('\n', stderr);                    \
			fails++;                                \
		}                                               \
	} while (0)

static int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* errno is left alone by allowed calls, and EACCES on refusals. */
static int mode_errno(const char *nd)
{
	int fd;

	errno = 1234;
	fd = open("/etc/hostname", O_RDONLY);
	CHECK(fd >= 0 && errno == 1234, "errno changed by an allowed open: %d", errno);
	close(fd);
	errno = 0;
	CHECK(unlink(nd) == -1 && errno == EACCES, "unlink %s: errno %d", nd, errno);
	errno = 0;
	CHECK(open("/nonexistent/x", O_RDONLY) == -1 && errno == ENOENT, "ENOENT lost: %d", errno);
	return fails;
}

/* A program that closed fd 2 and got a data file there: the refusal must not be
 * written into it. */
static int mode_fd2(const char *data, const char *nd)
{
	int fd, e;
	struct stat st;

	close(2);
	fd = open(data, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd != 2)
		return 3;
	e = unlink(nd);
	CHECK(e == -1 && errno == EACCES, "unlink with fd 2 closed: %d", errno);
	fstat(2, &st);
	return (st.st_size == 0 && fails == 0) ? 0 : 1;
}

static char *const empty_env[] = {NULL};

/* The children run `sh SCRIPT` (the script tries what the policy forbids): argv shows
 * nothing to refuse, so only a guard re-injected into the empty environment of sh
 * can stop what the script does. */
static int mode_vfork(const char *script, const char *nd)
{
	char *argv[] = {"sh", (char *)script, NULL};
	pid_t pid = vfork();

	if (pid == 0) {
		execve("/bin/sh", argv, empty_env);
		_exit(127);
	}
	CHECK(wait_status(pid) != 0, "sh under vfork+execve(empty envp) succeeded");
	/* The parent shares memory with the vfork child: it must still be guarded. */
	errno = 0;
	CHECK(unlink(nd) == -1 && errno == EACCES, "parent unguarded after vfork: %d", errno);
	return fails;
}

static int mode_spawn(const char *script, const char *za)
{
	char *sh_argv[] = {"sh", (char *)script, NULL};
	char *cat_argv[] = {"cat", (char *)za, NULL};
	pid_t pid;
	int rc;

	CHECK(posix_spawn(&pid, "/bin/sh", NULL, NULL, sh_argv, empty_env) == 0, "spawn failed");
	CHECK(wait_status(pid) != 0, "sh under posix_spawn(empty envp) succeeded");
	CHECK(posix_spawnp(&pid, "sh", NULL, NULL, sh_argv, empty_env) == 0, "spawnp failed");
	CHECK(wait_status(pid) != 0, "sh under posix_spawnp(empty envp) succeeded");
	/* cat of a zero-access file: refused in the parent (spawn's return value) or by
	 * the guarded child. */
	rc = posix_spawnp(&pid, "cat", NULL, NULL, cat_argv, empty_env);
	CHECK(rc == EACCES || (rc == 0 && wait_status(pid) != 0), "cat of za under spawnp ran");
	/* Exec of a zero-access file is refused in the parent. */
	CHECK(posix_spawn(&pid, za, NULL, NULL, cat_argv, NULL) == EACCES, "exec of za allowed");
	return fails;
}

/* posix_spawn's file actions open in the child with libc's own calls: the guard
 * judges them when they are registered. */
static int mode_addopen(const char *ro)
{
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);
	CHECK(posix_spawn_file_actions_addopen(&fa, 1, ro, O_WRONLY | O_TRUNC, 0644) == EACCES,
	      "addopen of a read-only file for writing accepted");
	CHECK(posix_spawn_file_actions_addopen(&fa, 0, ro, O_RDONLY, 0) == 0,
	      "addopen of a read-only file for reading refused");
	posix_spawn_file_actions_destroy(&fa);
	return fails;
}

/* A new name for protected data through its descriptor: /proc/self/fd/N followed, and
 * AT_EMPTY_PATH. */
static int mode_linkfd(const char *ro, const char *newpath)
{
	char proc[64];
	int fd = open(ro, O_RDONLY);

	CHECK(fd >= 0, "cannot read %s", ro);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	errno = 0;
	CHECK(linkat(AT_FDCWD, proc, AT_FDCWD, newpath, AT_SYMLINK_FOLLOW) == -1 && errno == EACCES,
	      "linkat(/proc/self/fd/N, AT_SYMLINK_FOLLOW): errno %d", errno);
	errno = 0;
	CHECK(linkat(fd, "", AT_FDCWD, newpath, AT_EMPTY_PATH) == -1 && errno == EACCES,
	      "linkat(fd, \"\", AT_EMPTY_PATH): errno %d", errno);
	close(fd);
	return fails;
}

static int mode_syscall(const char *nd, const char *za)
{
	errno = 0;
	CHECK(syscall(SYS_unlinkat, AT_FDCWD, nd, 0) == -1 && errno == EACCES,
	      "syscall(unlinkat): %d", errno);
	errno = 0;
	CHECK(syscall(SYS_openat, AT_FDCWD, za, O_RDONLY) == -1 && errno == EACCES,
	      "syscall(openat) of za: %d", errno);
	CHECK(syscall(SYS_getpid) == getpid(), "syscall(getpid) broken");
	return fails;
}

static int mode_system(const char *script)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "sh '%s'", script);
	clearenv();
	CHECK(system(cmd) != 0, "system(sh SCRIPT) after clearenv succeeded");
	return fails;
}

static int mode_execle(const char *script)
{
	execle("/bin/sh", "sh", script, (char *)NULL, empty_env);
	return 2;
}

/* ---- threads opening files while another forks and execs ---------------------------- */

static const char *g_za, *g_dir;
static volatile int g_stop;

static void *opener(void *arg)
{
	char path[4200];
	long bad = 0;

	(void)arg;
	snprintf(path, sizeof(path), "%s/a.txt", g_dir);
	/* Bounded: every refusal writes a line to stderr and the audit log. */
	for (int i = 0; i < 3000 && !g_stop; i++) {
		int fd = open(path, O_RDONLY);

		if (fd < 0)
			bad++;
		else
			close(fd);
		if (open(g_za, O_RDONLY) >= 0 || errno != EACCES)
			bad++;
	}
	return (void *)bad;
}

static int mode_stress(const char *nd, const char *za, const char *dir, int forks)
{
	pthread_t th[8];
	void *ret;

	g_za = za;
	g_dir = dir;
	for (int i = 0; i < 8; i++)
		pthread_create(&th[i], NULL, opener, NULL);
	for (int i = 0; i < forks; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			/* Between fork and exec of a threaded parent: any lock the guard took
			 * could be held by a thread that does not exist here. */
			if (unlink(nd) == 0 || errno != EACCES)
				_exit(3);
			execl("/bin/true", "true", (char *)NULL);
			_exit(4);
		}
		CHECK(wait_status(pid) == 0, "fork child %d failed", i);
	}
	g_stop = 1;
	for (int i = 0; i < 8; i++) {
		pthread_join(th[i], &ret);
		CHECK(ret == NULL, "thread %d: %ld wrong answers", i, (long)ret);
	}
	return fails;
}

/* ---- the child of libc's internal fork, threads busy in the loader ---------------- */

static void *loader(void *arg)
{
	(void)arg;
	/* dlopen and dlclose only (no wrapped call): the loader's lock is taken over and
	 * over, and the guard has resolved nothing in this process yet. */
	for (;;) {
		void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);

		if (h)
			dlclose(h);
	}
	return NULL;
}

/* daemon() forks through libc's internal fork (no wrapper of the guard sees it) while
 * four threads load and unload a library; the child's first guarded calls resolve the
 * real functions themselves. It must neither hang nor let a refused call through; it
 * writes what it saw into out (the parent exits at once). */
static int mode_daemon(const char *za, const char *out)
{
	pthread_t th[4];
	char line[128];
	int fd, n;

	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, loader, NULL);
	for (volatile int i = 0; i < 200000; i++)
		;
	if (daemon(1, 1) != 0)
		return 1;
	/* the child, alone now */
	fd = open(za, O_RDONLY);
	n = snprintf(line, sizeof(line), "%s\n",
		     fd < 0 && errno == EACCES ? "refused" : "NOT REFUSED");
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		_exit(1);
	close(fd);
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	/* One plain call, for the exact refusal line (no shell or argv analysis involved). */
	if (!strcmp(m, "unlink") && argc == 3)
		return unlink(argv[2]) == 0 ? 0 : (errno == EACCES ? 13 : 1);

	if (!strcmp(m, "errno") && argc == 3)
		return mode_errno(argv[2]);
	if (!strcmp(m, "fd2") && argc == 4)
		return mode_fd2(argv[2], argv[3]);
	if (!strcmp(m, "vfork") && argc == 4)
		return mode_vfork(argv[2], argv[3]);
	if (!strcmp(m, "spawn") && argc == 4)
		return mode_spawn(argv[2], argv[3]);
	if (!strcmp(m, "linkfd") && argc == 4)
		return mode_linkfd(argv[2], argv[3]);
	if (!strcmp(m, "addopen") && argc == 3)
		return mode_addopen(argv[2]);
	if (!strcmp(m, "syscall") && argc == 4)
		return mode_syscall(argv[2], argv[3]);
	if (!strcmp(m, "system") && argc == 3)
		return mode_system(argv[2]);
	if (!strcmp(m, "execle") && argc == 3)
		return mode_execle(argv[2]);
	if (!strcmp(m, "stress") && argc == 6)
		return mode_stress(argv[2], argv[3], argv[4], (int)strtol(argv[5], NULL, 10));
	if (!strcmp(m, "daemon") && argc == 4)
		return mode_daemon(argv[2], argv[3]);
	fprintf(stderr, "usage: preload_probe "
			"errno|fd2|vfork|spawn|syscall|system|execle|stress|daemon ...\n");
	return 2;
}
