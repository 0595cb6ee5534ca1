/* syscall.c - syscall(2) itself (python3 and ctypes reach it): every number in the
 * runtime core's table (runtime/syscalls.def) is judged like its libc function; the
 * opens go through the open wrappers (decided on what the kernel opened), the others
 * hand the real syscall() the private copies that were checked. Other numbers pass
 * untouched. */
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int check_arg(const char *call, long a[6], int index, const struct rt_arg *arg, char *buf)
{
	const char *copy;

	if (arg->by_fd || (!arg->path && arg->dirfd != AT_FDCWD))
		return guard_check_fd(call, arg->dirfd, arg->op);
	copy = guard_copy_path(arg->path, buf, PATH_MAX);
	if (copy && index >= 0)
		a[index] = (long)copy;
	return guard_check_path(call, arg->dirfd, copy, arg->op, arg->pflags);
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

/* openat2 without RESOLVE_* flags is an openat; with them, reads are opened and judged
 * on what was opened, other opens are judged by path first. */
static long openat2_call(long a[6])
{
	const struct open_how *how = (const struct open_how *)a[2];
	unsigned pflags = 0;
	enum pol_op op;
	int saved = errno, rc = 0;
	long fd;

	if (!how || (size_t)a[3] < sizeof(*how))
		return guard_real_syscall(SYS_openat2, a[0], a[1], a[2], a[3]);
	if (how->resolve == 0 && !(how->flags >> 32))
		return openat((int)a[0], (const char *)a[1], (int)how->flags, (mode_t)how->mode);
	op = rt_open_op((int)how->flags, RT_EXISTS_UNKNOWN, &pflags);
	if (op != POL_OP_READ && op != POL_OP_LIST) {
		char buf[PATH_MAX];
		/* O_CREAT may pass as a new file's exclusive creation, made with O_EXCL in a
		 * copy of how (of the size this guard knows: a larger one is refused as
		 * ever, its further fields unknown here) */
		unsigned may = rt_open_may_excl((int)how->flags) && (size_t)a[3] == sizeof(*how)
				   ? GUARD_MAY_EXCL
				   : 0;
		struct rt_arg arg = {(int)a[0], (const char *)a[1], op, pflags | may, 0};
		struct open_how excl;

		if (guard_enter()) {
			rc = check_arg("openat2", a, 1, &arg, buf);
			guard_leave();
		}
		if (rc < 0) {
			errno = EACCES;
			return -1;
		}
		errno = saved;
		if (rc != 1)
			return guard_real_syscall(SYS_openat2, a[0], a[1], a[2], a[3]);
		excl = *how;
		excl.flags |= O_EXCL;
		fd = guard_real_syscall(SYS_openat2, a[0], a[1], (long)&excl, (long)sizeof(excl));
		if (fd >= 0 || errno != EEXIST || (how->flags & O_EXCL))
			return fd;
		/* it met a file (made meanwhile): an open of that file, judged as one */
		rc = -1;
		if (guard_enter()) {
			rc = guard_check_existing("openat2", (int)a[0], (const char *)a[1],
						  (int)how->flags);
			guard_leave();
		}
		if (rc < 0) {
			errno = EACCES;
			return -1;
		}
		errno = saved;
		return guard_real_syscall(SYS_openat2, a[0], a[1], a[2], a[3]);
	}
	fd = guard_real_syscall(SYS_openat2, a[0], a[1], a[2], a[3]);
	if (fd < 0 || !guard_enter())
		return fd;
	saved = errno;
	rc = guard_verify_fd("openat2", (int)a[0], (const char *)a[1], (int)fd, op);
	if (rc < 0)
		guard_close_held((int)fd);
	guard_leave();
	if (rc < 0) {
		errno = EACCES;
		return -1;
	}
	errno = saved;
	return fd;
}

/* syscall() is no cancellation point, while the open wrappers it hands opens to are:
 * they run with cancellation off, as the bare call would. */
static long open_nocancel(const struct rt_syscall *s, long a[6])
{
	int hold = guard_cancel_hold();
	long ret;

	if (s->kind == RT_OPEN2)
		ret = openat2_call(a);
	else if (s->nr == SYS_open)
		ret = open((const char *)a[0], (int)a[1], (mode_t)a[2]);
	else
		ret = openat((int)a[0], (const char *)a[1], (int)a[2], (mode_t)a[3]);
	guard_cancel_release(hold);
	return ret;
}

/* The calls that take a path and return no descriptor whose libc function means the
 * same as the system call: made through this guard's wrapper of it, which makes the
 * call where it judged it (pin.c). Returns 1 when it did. */
static int by_pinned_wrapper(long nr, long a[6], long *ret)
{
#define S(i) ((const char *)a[i])
#define I(i) ((int)a[i])
	switch (nr) {
	case SYS_unlink:
		*ret = unlink(S(0));
		return 1;
	case SYS_unlinkat:
		*ret = unlinkat(I(0), S(1), I(2));
		return 1;
	case SYS_rmdir:
		*ret = rmdir(S(0));
		return 1;
	case SYS_rename:
		*ret = rename(S(0), S(1));
		return 1;
	case SYS_renameat:
		*ret = renameat(I(0), S(1), I(2), S(3));
		return 1;
	case SYS_renameat2:
		*ret = renameat2(I(0), S(1), I(2), S(3), (unsigned)a[4]);
		return 1;
	case SYS_link:
		*ret = link(S(0), S(1));
		return 1;
	case SYS_linkat:
		*ret = linkat(I(0), S(1), I(2), S(3), I(4));
		return 1;
	case SYS_symlink:
		*ret = symlink(S(0), S(1));
		return 1;
	case SYS_symlinkat:
		*ret = symlinkat(S(0), I(1), S(2));
		return 1;
	case SYS_mkdir:
		*ret = mkdir(S(0), (mode_t)a[1]);
		return 1;
	case SYS_mkdirat:
		*ret = mkdirat(I(0), S(1), (mode_t)a[2]);
		return 1;
	case SYS_mknod:
		*ret = mknod(S(0), (mode_t)a[1], (dev_t)a[2]);
		return 1;
	case SYS_mknodat:
		*ret = mknodat(I(0), S(1), (mode_t)a[2], (dev_t)a[3]);
		return 1;
	case SYS_chmod:
		*ret = chmod(S(0), (mode_t)a[1]);
		return 1;
	case SYS_chown:
		*ret = chown(S(0), (uid_t)a[1], (gid_t)a[2]);
		return 1;
	case SYS_lchown:
		*ret = lchown(S(0), (uid_t)a[1], (gid_t)a[2]);
		return 1;
	case SYS_truncate:
		*ret = truncate(S(0), (off_t)a[1]);
		return 1;
	case SYS_utime:
		*ret = utime(S(0), (const struct utimbuf *)a[1]);
		return 1;
	case SYS_utimes:
		*ret = utimes(S(0), (const struct timeval *)a[1]);
		return 1;
	case SYS_setxattr:
		*ret = setxattr(S(0), S(1), (const void *)a[2], (size_t)a[3], I(4));
		return 1;
	case SYS_lsetxattr:
		*ret = lsetxattr(S(0), S(1), (const void *)a[2], (size_t)a[3], I(4));
		return 1;
	case SYS_removexattr:
		*ret = removexattr(S(0), S(1));
		return 1;
	case SYS_lremovexattr:
		*ret = lremovexattr(S(0), S(1));
		return 1;
	default:
		return 0;
	}
#undef S
#undef I
}

/* The calls with a libc wrapper of their own that decides better than a generic
 * check (opens by descriptor, handles). Returns 1 with *ret set when handled. */
static int by_wrapper(const struct rt_syscall *s, long a[6], long *ret)
{
	if (s->kind == RT_PATH && by_pinned_wrapper(s->nr, a, ret))
		return 1;
	switch (s->kind) {
	case RT_OPEN:
	case RT_OPEN2:
		*ret = open_nocancel(s, a);
		return 1;
	case RT_HANDLE:
		if (s->nr == SYS_open_by_handle_at)
			*ret = open_by_handle_at((int)a[0], (struct file_handle *)a[1], (int)a[2]);
		else
			*ret =
			    name_to_handle_at((int)a[0], (const char *)a[1],
					      (struct file_handle *)a[2], (int *)a[3], (int)a[4]);
		return 1;
	case RT_EXEC:
		*ret = exec_call(s->nr, a);
		return 1;
	case RT_BIND:
		*ret = bind((int)a[0], (const struct sockaddr *)a[1], (socklen_t)a[2]);
		return 1;
	default:
		return 0;
	}
}

GUARD_EXPORT long syscall(long nr, ...)
{
	const struct rt_syscall *s;
	struct rt_arg args[2];
	char b0[PATH_MAX], b1[PATH_MAX];
	int saved = errno, n, rc = 0;
	va_list ap;
	long a[6], ret;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!GUARD_REAL(syscall)) {
		errno = ENOSYS;
		return -1;
	}
	/* ioctl(TIOCSTI), as its wrapper judges it (preload/tree.c) */
	if (nr == SYS_ioctl && (unsigned)a[1] == (unsigned)TIOCSTI)
		return ioctl((int)a[0], (unsigned long)a[1], (void *)a[2]);
	s = rt_syscall_find(nr);
	if (!s)
		return guard_real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (by_wrapper(s, a, &ret))
		return ret;
	if (s->kind == RT_MOUNT) {
		if (guard_enter()) {
			rc = guard_check_builtin(s->name, RT_RULE_MOUNT,
						 s->path >= 0 ? (const char *)a[(int)s->path]
							      : NULL);
			guard_leave();
		}
	} else {
		n = rt_syscall_args(s, a, args);
		if (n > 0 && guard_enter()) {
			/* rmdir's and rename's source: a folder holding a protected entry */
			if ((s->op == POL_OP_RENAME_FROM) &&
			    guard_is_dir(args[0].dirfd, args[0].path))
				args[0].pflags |= POL_PATH_IS_DIR;
			rc = check_arg(s->name, a, s->path, &args[0], b0);
			if (rc == 0 && n > 1)
				rc = check_arg(s->name, a, s->path2, &args[1], b1);
			guard_leave();
		}
	}
	if (rc < 0) {
		errno = EACCES;
		return -1;
	}
	errno = saved;
	return guard_real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
