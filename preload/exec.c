/* exec.c - the exec family: the file must not be zero-access, argv must pass the
 * command rules, and the new program gets the guard back in its environment.
 *
 * These run in fork children of threaded programs and in vfork children that share
 * the parent's memory: stack buffers, mmap, one write(2); never malloc or environ. */
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

/* execvp's own search runs later on the same $PATH: the check is of what it will find.
 * Apart, so that execve's checks in fork children do not carry its buffer's stack. */
static __attribute__((noinline)) int check_searched(const char *call, const char *file,
						    char *const argv[])
{
	char found[PATH_MAX];

	if (guard_path_search(file, getenv("PATH"), found, sizeof(found)) == 0)
		return guard_check_exec(call, AT_FDCWD, found, argv);
	return guard_check_exec(call, AT_FDCWD, NULL, argv);
}

/* Checks an exec of path (searched in $PATH when search is set). Returns 0 to go on
 * (with *use pointing at the path to hand the real call), -1 refused, 1 when path
 * does not fit a buffer shorter than PATH_MAX (the caller tries again with one). */
static int check_exec(const char *call, int dirfd, const char *path, int search, char *const argv[],
		      char *buf, size_t size, const char **use)
{
	const char *copy;
	int rc = 0;

	*use = path;
	if (!guard_enter())
		return 0;
	copy = guard_copy_path(path, buf, size);
	if (copy) {
		*use = copy;
	} else if (path && size < PATH_MAX) { /* longer than a short buffer: the caller's
						 PATH_MAX one */
		guard_leave();
		return 1;
	}
	if (copy && search && !strchr(copy, '/')) {
		rc = check_searched(call, copy, argv);
	} else {
		rc = guard_check_exec(call, dirfd, copy, argv);
	}
	guard_leave();
	return rc;
}

static int refused(void)
{
	errno = EACCES;
	return -1;
}

/* The loader's own variables in the new program's environment, judged like paths
 * (guard_env_vet()). Apart: the common exec sets none and pays one scan of envp. */
static __attribute__((noinline)) int env_vetted(const char *call, char *const envp[])
{
	int rc = 0;

	if (guard_enter()) {
		rc = guard_env_vet(call, envp);
		guard_leave();
	}
	return rc;
}

#define ENV_REFUSED(call, envp) (guard_env_loader_vars(envp) && env_vetted(call, envp) < 0)

static int no_real(void)
{
	errno = ENOSYS;
	return -1;
}

/* execve with the guard's variables put back into envp. Apart from execve(), so that
 * the common exec (envp complete) carries no envbuf on its stack: in a fork child
 * each stack page written is a page fault. */
static __attribute__((noinline)) int execve_rebuilt(const char *use, char *const argv[],
						    char *const envp[], int saved)
{
	struct guard_envbuf eb;
	char *const *ne;
	int rc;

	ne = guard_env_build(envp, &eb);
	errno = saved;
	rc = guard_real_execve(use, argv, ne);
	saved = errno;
	guard_envbuf_release(&eb);
	errno = saved;
	return rc;
}

static int execve_checked(const char *use, char *const argv[], char *const envp[], int saved)
{
	if (!GUARD_REAL(execve))
		return no_real();
	if (!guard_env_complete(envp))
		return execve_rebuilt(use, argv, envp, saved);
	errno = saved;
	return guard_real_execve(use, argv, envp);
}

/* execve of a path longer than execve()'s short buffer. */
static __attribute__((noinline)) int execve_long(const char *path, char *const argv[],
						 char *const envp[], int saved)
{
	char buf[PATH_MAX];
	const char *use;

	if (check_exec("execve", AT_FDCWD, path, 0, argv, buf, sizeof(buf), &use) < 0 ||
	    ENV_REFUSED("execve", envp))
		return refused();
	return execve_checked(use, argv, envp, saved);
}

/* The path's copy fits a short buffer for most programs; a fork child faults in each
 * stack page it writes, and a PATH_MAX buffer would push the whole check a page
 * deeper. */
GUARD_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	char buf[256];
	const char *use;
	int saved = errno, rc;

	rc = check_exec("execve", AT_FDCWD, path, 0, argv, buf, sizeof(buf), &use);
	if (rc > 0)
		return execve_long(path, argv, envp, saved);
	if (rc < 0 || ENV_REFUSED("execve", envp))
		return refused();
	return execve_checked(use, argv, envp, saved);
}

GUARD_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

GUARD_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	struct guard_envbuf eb;
	char buf[PATH_MAX];
	const char *use;
	char *const *ne;
	int saved = errno, rc;

	if (check_exec("execvpe", AT_FDCWD, file, 1, argv, buf, sizeof(buf), &use) < 0 ||
	    ENV_REFUSED("execvpe", envp))
		return refused();
	if (!GUARD_REAL(execvpe))
		return no_real();
	ne = guard_env_build(envp, &eb);
	errno = saved;
	rc = guard_real_execvpe(use, argv, ne);
	saved = errno;
	guard_envbuf_release(&eb);
	errno = saved;
	return rc;
}

GUARD_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

GUARD_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			  int flags)
{
	struct guard_envbuf eb;
	char buf[PATH_MAX];
	const char *use = path;
	char *const *ne;
	int saved = errno, rc = 0;

	if (guard_enter()) {
		if (path && !*path && (flags & AT_EMPTY_PATH)) {
			rc = guard_check_fd("execveat", dirfd, POL_OP_EXEC);
			if (rc == 0)
				rc = guard_check_exec("execveat", dirfd, NULL, argv);
		} else {
			const char *copy = guard_copy_path(path, buf, sizeof(buf));

			if (copy)
				use = copy;
			rc = guard_check_exec("execveat", dirfd, copy, argv);
		}
		guard_leave();
		if (rc < 0)
			return refused();
	}
	if (ENV_REFUSED("execveat", envp))
		return refused();
	ne = guard_env_build(envp, &eb);
	errno = saved;
	if (GUARD_REAL(execveat))
		rc = guard_real_execveat(dirfd, use, argv, ne, flags);
	else if (GUARD_REAL(syscall))
		rc = (int)guard_real_syscall(SYS_execveat, dirfd, use, argv, ne, flags);
	else
		rc = no_real();
	saved = errno;
	guard_envbuf_release(&eb);
	errno = saved;
	return rc;
}

GUARD_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	struct guard_envbuf eb;
	char *const *ne;
	int saved = errno, rc = 0;

	if (guard_enter()) {
		rc = guard_check_fd("fexecve", fd, POL_OP_EXEC);
		if (rc == 0)
			rc = guard_check_exec("fexecve", AT_FDCWD, NULL, argv);
		guard_leave();
		if (rc < 0)
			return refused();
	}
	if (ENV_REFUSED("fexecve", envp))
		return refused();
	if (!GUARD_REAL(fexecve))
		return no_real();
	ne = guard_env_build(envp, &eb);
	errno = saved;
	rc = guard_real_fexecve(fd, argv, ne);
	saved = errno;
	guard_envbuf_release(&eb);
	errno = saved;
	return rc;
}

/* ---- execl, execle, execlp: argv from the variadic list ---------------------------- */

#define LIST_SLOTS 512

/* Collects arg and the rest of ap (up to the NULL) into slots, or a mapping when
 * longer; *map_bytes is set when mapped. Returns NULL when out of memory. */
static char **collect(const char *arg, va_list ap, char **slots, size_t *map_bytes, char ***envp)
{
	va_list cp;
	size_t n = 1, i;
	char **v = slots;

	*map_bytes = 0;
	va_copy(cp, ap);
	if (arg)
		while (va_arg(cp, char *))
			n++;
	va_end(cp);
	if (n + 1 > LIST_SLOTS) {
		size_t bytes = ((n + 1) * sizeof(char *) + 4095) & ~(size_t)4095;
		void *m =
		    mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return NULL;
		v = m;
		*map_bytes = bytes;
	}
	v[0] = (char *)arg;
	for (i = 1; arg && i < n; i++)
		v[i] = va_arg(ap, char *);
	v[arg ? n : 0] = NULL;
	if (arg)
		(void)va_arg(ap, char *); /* the terminating NULL */
	if (envp)
		*envp = va_arg(ap, char **);
	return v;
}

static int run_list(int which, const char *path, const char *arg, va_list ap)
{
	char *slots[LIST_SLOTS];
	char **envp = environ;
	size_t map_bytes;
	char **argv;
	int rc, saved;

	argv = collect(arg, ap, slots, &map_bytes, which == 1 ? &envp : NULL);
	if (!argv) {
		errno = ENOMEM;
		return -1;
	}
	if (which == 2)
		rc = execvpe(path, argv, environ);
	else
		rc = execve(path, argv, envp);
	saved = errno;
	if (map_bytes)
		munmap(argv, map_bytes);
	errno = saved;
	return rc;
}

GUARD_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = run_list(0, path, arg, ap);
	va_end(ap);
	return rc;
}

GUARD_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = run_list(1, path, arg, ap);
	va_end(ap);
	return rc;
}

GUARD_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = run_list(2, file, arg, ap);
	va_end(ap);
	return rc;
}

/* ---- posix_spawn: decided in the parent, the child execs through libc's own alias -- */

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

/* real: libc's function (the default version's, or an older one's for dlvsym). */
static int spawn(spawn_fn real, int search, pid_t *pid, const char *path,
		 const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
		 char *const argv[], char *const envp[])
{
	const char *call = search ? "posix_spawnp" : "posix_spawn";
	struct guard_envbuf eb;
	char buf[PATH_MAX];
	const char *use;
	char *const *ne;
	int saved = errno, rc;

	/* posix_spawn reports errors as its return value, errno untouched. */
	if (check_exec(call, AT_FDCWD, path, search, argv, buf, sizeof(buf), &use) < 0 ||
	    ENV_REFUSED(call, envp)) {
		errno = saved;
		return EACCES;
	}
	if (!real)
		return ENOSYS;
	ne = guard_env_build(envp, &eb);
	errno = saved;
	rc = real(pid, use, fa, attr, argv, ne);
	saved = errno;
	guard_envbuf_release(&eb);
	errno = saved;
	return rc;
}

GUARD_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			     const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(GUARD_REAL(posix_spawn), 0, pid, path, fa, attr, argv, envp);
}

GUARD_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(GUARD_REAL(posix_spawnp), 1, pid, file, fa, attr, argv, envp);
}

/* posix_spawn@GLIBC_2.2.5 and posix_spawnp@GLIBC_2.2.5, handed out by dlvsym. */
int guard_posix_spawn_compat(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			     const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn((spawn_fn)guard_compat_fn("posix_spawn"), 0, pid, path, fa, attr, argv, envp);
}

int guard_posix_spawnp_compat(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn((spawn_fn)guard_compat_fn("posix_spawnp"), 1, pid, file, fa, attr, argv, envp);
}

/* ---- system, popen: the shell line is decided; libc's child inherits environ ------- */

/* libc runs /bin/sh with environ. When the program dropped the guard's variables from
 * it (unsetenv, clearenv) they are put back by prefixing the line with exports, since
 * environ must not be modified. Returns cmd itself, or a mapped line (*bytes set). */
static const char *reguard_line(const char *cmd, size_t *bytes)
{
	struct guard_envbuf eb;
	char *const *ne;
	size_t need, i, j, n = 0;
	struct rt_msg m;
	char *line;

	*bytes = 0;
	ne = guard_env_build(environ, &eb);
	if (ne == environ)
		return cmd;
	need = strlen(cmd) + 64;
	for (i = 0; ne[i]; i++) {
		int present = 0;

		for (j = 0; environ && environ[j] && !present; j++)
			present = environ[j] == ne[i];
		if (!present)
			need += 4 * strlen(ne[i]) + 16;
	}
	need = (need + 4095) & ~(size_t)4095;
	line = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (line == MAP_FAILED) {
		guard_envbuf_release(&eb);
		return cmd;
	}
	rt_msg_init(&m, line, need);
	for (i = 0; ne[i]; i++) {
		int present = 0;

		for (j = 0; environ && environ[j] && !present; j++)
			present = environ[j] == ne[i];
		if (present)
			continue;
		rt_msg_add(&m, "export '");
		for (const char *s = ne[i]; *s; s++) {
			if (*s == '\'')
				rt_msg_add(&m, "'\\''");
			else
				rt_msg_addn(&m, s, 1);
		}
		rt_msg_add(&m, "'; ");
		n++;
	}
	rt_msg_add(&m, cmd);
	guard_envbuf_release(&eb);
	*bytes = need;
	return n ? line : cmd;
}

GUARD_EXPORT int system(const char *cmd)
{
	const char *line = cmd;
	size_t bytes = 0;
	int saved = errno, rc;

	if (cmd && guard_enter()) {
		rc = guard_check_command("system", cmd);
		if (rc == 0 && guard_env_loader_vars(environ))
			rc = guard_env_vet("system", environ);
		if (rc == 0)
			line = reguard_line(cmd, &bytes);
		guard_leave();
		if (rc < 0) {
			/* what sh reports for a command it could not run */
			errno = saved;
			return 127 << 8;
		}
	}
	if (!GUARD_REAL(system))
		return -1;
	errno = saved;
	rc = guard_real_system(line);
	saved = errno;
	if (bytes)
		munmap((void *)line, bytes);
	errno = saved;
	return rc;
}

GUARD_EXPORT FILE *popen(const char *cmd, const char *mode)
{
	const char *line = cmd;
	size_t bytes = 0;
	int saved = errno, rc;
	FILE *f;

	if (cmd && guard_enter()) {
		rc = guard_check_command("popen", cmd);
		if (rc == 0 && guard_env_loader_vars(environ))
			rc = guard_env_vet("popen", environ);
		if (rc == 0)
			line = reguard_line(cmd, &bytes);
		guard_leave();
		if (rc < 0) {
			errno = EACCES;
			return NULL;
		}
	}
	if (!GUARD_REAL(popen)) {
		errno = ENOSYS;
		return NULL;
	}
	errno = saved;
	f = guard_real_popen(line, mode);
	saved = errno;
	if (bytes)
		munmap((void *)line, bytes);
	errno = saved;
	return f;
}

/* fork() itself is not judged: the child's exec is. But a shell forks for every
 * command, and a child that loads the policy or compiles a pattern loses the work at
 * its exec; done once in the parent, every child inherits it. */
GUARD_EXPORT pid_t fork(void)
{
	int saved = errno;

	if (guard_enter()) {
		guard_warm();
		guard_leave();
	}
	if (!GUARD_REAL(fork))
		return no_real();
	errno = saved;
	return guard_real_fork();
}

/* A process about to have a second thread: the fork handler for the forks no wrapper
 * sees is registered first (guard_atfork_once()). */
GUARD_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
				void *(*start)(void *), void *arg)
{
	int saved = errno;

	guard_atfork_once();
	if (!GUARD_REAL(pthread_create))
		return ENOSYS;
	errno = saved;
	return guard_real_pthread_create(thread, attr, start, arg);
}

/* The folder a posix_spawn child will be in when it performs its next open, after an
 * addchdir_np/addfchdir_np on the same file actions: a few slots keyed by the
 * actions' address, cleared by init and destroy (no malloc, no lock: a slot is taken
 * with a compare-and-swap). A chdir that finds no free slot fails with ENOMEM, so no
 * open is ever judged against the wrong folder. */
#define SPAWN_DIR_SLOTS 8
struct spawn_dir {
	posix_spawn_file_actions_t *_Atomic fa;
	char dir[PATH_MAX];
};
/* The slots, mapped at the first addchdir: 32 KB of .bss would lie between the
 * loader's page and the start-up data, and cost every process a page fault. */
static struct spawn_dir *_Atomic spawn_dirs;

static struct spawn_dir *spawn_dirs_get(int create)
{
	struct spawn_dir *d = atomic_load(&spawn_dirs), *none = NULL;
	size_t bytes = sizeof(struct spawn_dir) * SPAWN_DIR_SLOTS;

	if (d || !create)
		return d;
	d = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d == MAP_FAILED)
		return NULL;
	if (!atomic_compare_exchange_strong(&spawn_dirs, &none, d)) {
		munmap(d, bytes);
		d = none;
	}
	return d;
}

static struct spawn_dir *spawn_dir_find(const posix_spawn_file_actions_t *fa)
{
	struct spawn_dir *dirs = spawn_dirs_get(0);

	for (int i = 0; dirs && i < SPAWN_DIR_SLOTS; i++)
		if (atomic_load(&dirs[i].fa) == fa)
			return &dirs[i];
	return NULL;
}

static void spawn_dir_forget(const posix_spawn_file_actions_t *fa)
{
	struct spawn_dir *d = spawn_dir_find(fa);

	if (d)
		atomic_store(&d->fa, NULL);
}

/* Records that fa's child moves to dirfd/path (resolved now, against the folder the
 * child would be in). Returns 0 or ENOMEM / ENAMETOOLONG / an errno of the lookup. */
static int spawn_dir_set(posix_spawn_file_actions_t *fa, int dirfd, const char *path)
{
	struct spawn_dir *d = spawn_dir_find(fa);
	char joined[PATH_MAX], real[PATH_MAX];
	struct rt_msg m;

	if (dirfd >= 0) { /* addfchdir_np: the folder the descriptor names */
		char proc[64];
		ssize_t n;

		rt_msg_init(&m, proc, sizeof(proc));
		rt_msg_add(&m, "/proc/self/fd/");
		rt_msg_addu(&m, (unsigned long)dirfd);
		n = readlink(proc, real, sizeof(real) - 1);
		if (n <= 0 || real[0] != '/')
			return EBADF;
		real[n] = '\0';
	} else {
		rt_msg_init(&m, joined, sizeof(joined));
		if (path[0] != '/') {
			if (d)
				rt_msg_add(&m, d->dir);
			else if (!getcwd(joined, sizeof(joined)))
				return ENAMETOOLONG;
			else
				m.len = strlen(joined);
			rt_msg_add(&m, "/");
		}
		rt_msg_add(&m, path);
		if (m.len >= sizeof(joined) - 1)
			return ENAMETOOLONG;
		if (!realpath(joined, real))
			return errno;
	}
	struct spawn_dir *dirs = d ? NULL : spawn_dirs_get(1);

	for (int i = 0; !d && dirs && i < SPAWN_DIR_SLOTS; i++) {
		posix_spawn_file_actions_t *none = NULL;

		if (atomic_compare_exchange_strong(&dirs[i].fa, &none, fa))
			d = &dirs[i];
	}
	if (!d)
		return ENOMEM;
	memcpy(d->dir, real, strlen(real) + 1);
	return 0;
}

GUARD_EXPORT int posix_spawn_file_actions_init(posix_spawn_file_actions_t *fa)
{
	spawn_dir_forget(fa);
	return GUARD_REAL(posix_spawn_file_actions_init)
		   ? guard_real_posix_spawn_file_actions_init(fa)
		   : ENOSYS;
}

GUARD_EXPORT int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa)
{
	spawn_dir_forget(fa);
	return GUARD_REAL(posix_spawn_file_actions_destroy)
		   ? guard_real_posix_spawn_file_actions_destroy(fa)
		   : ENOSYS;
}

GUARD_EXPORT int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *fa,
						      const char *path)
{
	int saved = errno, rc = path ? spawn_dir_set(fa, -1, path) : 0;

	errno = saved;
	if (rc)
		return rc;
	return GUARD_REAL(posix_spawn_file_actions_addchdir_np)
		   ? guard_real_posix_spawn_file_actions_addchdir_np(fa, path)
		   : ENOSYS;
}

GUARD_EXPORT int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *fa, int fd)
{
	int saved = errno, rc = spawn_dir_set(fa, fd, NULL);

	errno = saved;
	if (rc)
		return rc;
	return GUARD_REAL(posix_spawn_file_actions_addfchdir_np)
		   ? guard_real_posix_spawn_file_actions_addfchdir_np(fa, fd)
		   : ENOSYS;
}

/* The opens a posix_spawn child performs (libc's own, unguarded, in the child) are
 * judged when they are registered; a refusal is the function's error number. A relative
 * path is taken from the folder an earlier addchdir_np/addfchdir_np moves the child
 * to, else from the current working directory. */
GUARD_EXPORT int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd,
						  const char *path, int oflag, mode_t mode)
{
	unsigned pflags = 0;
	int saved = errno, rc = 0;

	if (guard_enter()) {
		enum pol_op op = guard_open_op(oflag, &pflags);
		const struct spawn_dir *d = path && path[0] != '/' ? spawn_dir_find(fa) : NULL;
		char joined[PATH_MAX];
		struct rt_msg m;

		if (d) {
			rt_msg_init(&m, joined, sizeof(joined));
			rt_msg_add(&m, d->dir);
			rt_msg_add(&m, "/");
			rt_msg_add(&m, path);
			rc = m.len >= sizeof(joined) - 1
				 ? -1
				 : guard_check_path("posix_spawn_file_actions_addopen", AT_FDCWD,
						    joined, op, pflags);
		} else {
			rc = guard_check_path("posix_spawn_file_actions_addopen", AT_FDCWD, path,
					      op, pflags);
		}
		guard_leave();
	}
	errno = saved;
	if (rc < 0)
		return EACCES;
	if (!GUARD_REAL(posix_spawn_file_actions_addopen))
		return ENOSYS;
	return guard_real_posix_spawn_file_actions_addopen(fa, fd, path, oflag, mode);
}
