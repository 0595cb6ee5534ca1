/* syscall.c - syscall(2) itself (python3 imports it): the path-taking numbers are
 * judged like their libc functions, then the real syscall() gets the private copies.
 * Other numbers pass untouched. */
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

extern char **environ;

/* One path argument of a call: where its dirfd and path sit among the arguments. */
struct arg_spec {
	int dfd;  /* index of the dirfd argument, -1 for AT_FDCWD */
	int path; /* index of the path argument */
	enum pol_op op;
	unsigned flags;
};

static int check_spec(const char *call, long a[6], const struct arg_spec *s, char *buf)
{
	int dirfd = s->dfd < 0 ? AT_FDCWD : (int)a[s->dfd];
	const char *path = (const char *)a[s->path];
	const char *copy;

	if (path && !*path && dirfd != AT_FDCWD)
		return guard_check_fd(call, dirfd, s->op);
	copy = guard_copy_path(path, buf, PATH_MAX);
	if (copy)
		a[s->path] = (long)copy;
	return guard_check_path(call, dirfd, copy, s->op, s->flags);
}

/* Fills the specs for number nr; returns how many (0: not a path call). */
static int specs_for(long nr, long a[6], struct arg_spec s[2])
{
	unsigned fl = 0;
	const char *p;

	switch (nr) {
	case SYS_open:
		s[0] = (struct arg_spec){-1, 0, guard_open_op((int)a[1], &fl), 0};
		s[0].flags = fl;
		return 1;
	case SYS_creat:
		s[0] = (struct arg_spec){-1, 0, POL_OP_TRUNCATE, 0};
		return 1;
	case SYS_openat:
		s[0] = (struct arg_spec){0, 1, guard_open_op((int)a[2], &fl), 0};
		s[0].flags = fl;
		return 1;
#ifdef SYS_openat2
	case SYS_openat2: {
		const struct open_how *how = (const struct open_how *)a[2];

		s[0] = (struct arg_spec){0, 1, guard_open_op(how ? (int)how->flags : 0, &fl), 0};
		s[0].flags = fl;
		return 1;
	}
#endif
	case SYS_unlink:
		s[0] = (struct arg_spec){-1, 0, POL_OP_DELETE, POL_PATH_NOFOLLOW};
		return 1;
	case SYS_rmdir:
		s[0] = (struct arg_spec){-1, 0, POL_OP_DELETE, POL_PATH_NOFOLLOW | POL_PATH_IS_DIR};
		return 1;
	case SYS_unlinkat:
		s[0] = (struct arg_spec){0, 1, POL_OP_DELETE, POL_PATH_NOFOLLOW};
		if (a[2] & AT_REMOVEDIR)
			s[0].flags |= POL_PATH_IS_DIR;
		return 1;
	case SYS_rename:
	case SYS_renameat:
	case SYS_renameat2: {
		int two = nr != SYS_rename;

		s[0] = (struct arg_spec){two ? 0 : -1, two ? 1 : 0, POL_OP_RENAME_FROM,
					 POL_PATH_NOFOLLOW};
		s[1] = (struct arg_spec){two ? 2 : -1, two ? 3 : 1, POL_OP_RENAME_TO,
					 POL_PATH_NOFOLLOW};
		p = (const char *)a[s[0].path];
		if (guard_is_dir(two ? (int)a[0] : AT_FDCWD, p))
			s[0].flags |= POL_PATH_IS_DIR;
		/* An exchange moves the target away too. */
		if (nr == SYS_renameat2 && (a[4] & RENAME_EXCHANGE))
			s[1].op = POL_OP_RENAME_FROM;
		return 2;
	}
	case SYS_link:
		s[0] = (struct arg_spec){-1, 0, POL_OP_LINK_FROM, POL_PATH_NOFOLLOW};
		s[1] = (struct arg_spec){-1, 1, POL_OP_CREATE, POL_PATH_NOFOLLOW};
		return 2;
	case SYS_linkat:
		s[0] = (struct arg_spec){0, 1, POL_OP_LINK_FROM,
					 (a[4] & AT_SYMLINK_FOLLOW) ? 0 : POL_PATH_NOFOLLOW};
		s[1] = (struct arg_spec){2, 3, POL_OP_CREATE, POL_PATH_NOFOLLOW};
		return 2;
	case SYS_symlink:
		s[0] = (struct arg_spec){-1, 1, POL_OP_CREATE, POL_PATH_NOFOLLOW};
		return 1;
	case SYS_symlinkat:
		s[0] = (struct arg_spec){1, 2, POL_OP_CREATE, POL_PATH_NOFOLLOW};
		return 1;
	case SYS_mkdir:
	case SYS_mknod:
		s[0] = (struct arg_spec){-1, 0, POL_OP_CREATE, POL_PATH_NOFOLLOW};
		return 1;
	case SYS_mkdirat:
	case SYS_mknodat:
		s[0] = (struct arg_spec){0, 1, POL_OP_CREATE, POL_PATH_NOFOLLOW};
		return 1;
	case SYS_truncate:
		s[0] = (struct arg_spec){-1, 0, POL_OP_TRUNCATE, 0};
		return 1;
	case SYS_chmod:
	case SYS_chown:
	case SYS_utime:
	case SYS_utimes:
	case SYS_setxattr:
	case SYS_removexattr:
		s[0] = (struct arg_spec){-1, 0, POL_OP_CHMOD, 0};
		return 1;
	case SYS_lchown:
	case SYS_lsetxattr:
	case SYS_lremovexattr:
		s[0] = (struct arg_spec){-1, 0, POL_OP_CHMOD, POL_PATH_NOFOLLOW};
		return 1;
	case SYS_fchmodat:
		s[0] = (struct arg_spec){0, 1, POL_OP_CHMOD, 0};
		return 1;
	case SYS_fchownat:
		s[0] = (struct arg_spec){0, 1, POL_OP_CHMOD,
					 (a[4] & AT_SYMLINK_NOFOLLOW) ? POL_PATH_NOFOLLOW : 0};
		return 1;
	case SYS_utimensat:
		if (!a[1])
			return 0; /* the descriptor form: handled below */
		s[0] = (struct arg_spec){0, 1, POL_OP_CHMOD,
					 (a[3] & AT_SYMLINK_NOFOLLOW) ? POL_PATH_NOFOLLOW : 0};
		return 1;
	case SYS_futimesat:
		if (!a[1])
			return 0;
		s[0] = (struct arg_spec){0, 1, POL_OP_CHMOD, 0};
		return 1;
	default:
		return 0;
	}
}

static int fd_op(long nr, long a[6], enum pol_op *op)
{
	switch (nr) {
	case SYS_ftruncate:
		*op = POL_OP_TRUNCATE;
		return 1;
	case SYS_fchmod:
	case SYS_fchown:
	case SYS_fsetxattr:
	case SYS_fremovexattr:
		*op = POL_OP_CHMOD;
		return 1;
	case SYS_utimensat:
	case SYS_futimesat:
		*op = POL_OP_CHMOD;
		return !a[1] && (int)a[0] != AT_FDCWD;
	default:
		return 0;
	}
}

static long exec_call(long nr, long a[6])
{
	struct guard_envbuf eb;
	char buf[PATH_MAX];
	char *const *ne;
	int saved = errno, rc = 0;
	long ret;

	if (guard_enter()) {
		const char *path = (const char *)a[nr == SYS_execve ? 0 : 1];
		char *const *argv = (char *const *)a[nr == SYS_execve ? 1 : 2];
		int dirfd = nr == SYS_execve ? AT_FDCWD : (int)a[0];

		if (nr == SYS_execveat && path && !*path && (a[4] & AT_EMPTY_PATH)) {
			rc = guard_check_fd("execveat", dirfd, POL_OP_EXEC);
			if (rc == 0)
				rc = guard_check_exec("execveat", dirfd, NULL, argv);
		} else {
			const char *copy = guard_copy_path(path, buf, sizeof(buf));

			if (copy)
				a[nr == SYS_execve ? 0 : 1] = (long)copy;
			rc = guard_check_exec(nr == SYS_execve ? "execve" : "execveat", dirfd, copy,
					      argv);
		}
		guard_leave();
		if (rc < 0) {
			errno = EACCES;
			return -1;
		}
	}
	ne = guard_env_build((char *const *)a[nr == SYS_execve ? 2 : 3], &eb);
	a[nr == SYS_execve ? 2 : 3] = (long)ne;
	errno = saved;
	ret = guard_real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	saved = errno;
	guard_envbuf_release(&eb);
	errno = saved;
	return ret;
}

GUARD_EXPORT long syscall(long nr, ...)
{
	struct arg_spec s[2];
	char b0[PATH_MAX], b1[PATH_MAX];
	enum pol_op op;
	int saved = errno, n, rc = 0;
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!GUARD_REAL(syscall)) {
		errno = ENOSYS;
		return -1;
	}
	if (nr == SYS_execve || nr == SYS_execveat)
		return exec_call(nr, a);
	n = specs_for(nr, a, s);
	if (n > 0 && guard_enter()) {
		rc = check_spec("syscall", a, &s[0], b0);
		if (rc == 0 && n > 1)
			rc = check_spec("syscall", a, &s[1], b1);
		guard_leave();
	} else if (n == 0 && fd_op(nr, a, &op) && guard_enter()) {
		rc = guard_check_fd("syscall", (int)a[0], op);
		guard_leave();
	}
	if (rc < 0) {
		errno = EACCES;
		return -1;
	}
	errno = saved;
	return guard_real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
