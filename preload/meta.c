/* meta.c - writes and metadata: truncate, chmod, chown, mkdir, mknod, mkfifo, utimes,
 * xattrs by path, and the descriptor forms where an fd on a protected file is written
 * (ftruncate, fchmod, fchown, futimens, fsetxattr, fremovexattr). */
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

static int no_real(void)
{
	errno = ENOSYS;
	return -1;
}

/* A wrapper judging one path argument named `path`, relative to dirfd. */
#define PATH_WRAP(name, dirfd, op, pfl, params, args)                                          \
	GUARD_EXPORT int name params                                                           \
	{                                                                                      \
		char buf[PATH_MAX];                                                            \
		const char *use;                                                               \
		if (guard_check_copy(#name, dirfd, path, op, pfl, buf, sizeof(buf), &use) < 0) \
			return -1;                                                             \
		return GUARD_REAL(name) ? guard_real_##name args : no_real();                  \
	}

/* A wrapper judging the file behind descriptor fd. */
#define FD_WRAP(name, op, params, args)                                       \
	GUARD_EXPORT int name params                                          \
	{                                                                     \
		int saved = errno, rc = 0;                                    \
		if (guard_enter()) {                                          \
			rc = guard_check_fd(#name, fd, op);                   \
			guard_leave();                                        \
		}                                                             \
		if (rc < 0) {                                                 \
			errno = EACCES;                                       \
			return -1;                                            \
		}                                                             \
		errno = saved;                                                \
		return GUARD_REAL(name) ? guard_real_##name args : no_real(); \
	}

#define NOFOLLOW POL_PATH_NOFOLLOW

PATH_WRAP(truncate, AT_FDCWD, POL_OP_TRUNCATE, 0, (const char *path, off_t length), (use, length))
PATH_WRAP(truncate64, AT_FDCWD, POL_OP_TRUNCATE, 0, (const char *path, off64_t length),
	  (use, length))
PATH_WRAP(chmod, AT_FDCWD, POL_OP_CHMOD, 0, (const char *path, mode_t mode), (use, mode))
PATH_WRAP(lchmod, AT_FDCWD, POL_OP_CHMOD, NOFOLLOW, (const char *path, mode_t mode), (use, mode))
PATH_WRAP(chown, AT_FDCWD, POL_OP_CHMOD, 0, (const char *path, uid_t owner, gid_t group),
	  (use, owner, group))
PATH_WRAP(lchown, AT_FDCWD, POL_OP_CHMOD, NOFOLLOW, (const char *path, uid_t owner, gid_t group),
	  (use, owner, group))
PATH_WRAP(mkdir, AT_FDCWD, POL_OP_CREATE, NOFOLLOW, (const char *path, mode_t mode), (use, mode))
PATH_WRAP(mkdirat, dirfd, POL_OP_CREATE, NOFOLLOW, (int dirfd, const char *path, mode_t mode),
	  (dirfd, use, mode))
PATH_WRAP(mknod, AT_FDCWD, POL_OP_CREATE, NOFOLLOW, (const char *path, mode_t mode, dev_t dev),
	  (use, mode, dev))
PATH_WRAP(mknodat, dirfd, POL_OP_CREATE, NOFOLLOW,
	  (int dirfd, const char *path, mode_t mode, dev_t dev), (dirfd, use, mode, dev))
PATH_WRAP(mkfifo, AT_FDCWD, POL_OP_CREATE, NOFOLLOW, (const char *path, mode_t mode), (use, mode))
PATH_WRAP(mkfifoat, dirfd, POL_OP_CREATE, NOFOLLOW, (int dirfd, const char *path, mode_t mode),
	  (dirfd, use, mode))
PATH_WRAP(utime, AT_FDCWD, POL_OP_CHMOD, 0, (const char *path, const struct utimbuf *times),
	  (use, times))
PATH_WRAP(utimes, AT_FDCWD, POL_OP_CHMOD, 0, (const char *path, const struct timeval times[2]),
	  (use, times))
PATH_WRAP(lutimes, AT_FDCWD, POL_OP_CHMOD, NOFOLLOW,
	  (const char *path, const struct timeval times[2]), (use, times))
PATH_WRAP(setxattr, AT_FDCWD, POL_OP_CHMOD, 0,
	  (const char *path, const char *name, const void *value, size_t size, int flags),
	  (use, name, value, size, flags))
PATH_WRAP(lsetxattr, AT_FDCWD, POL_OP_CHMOD, NOFOLLOW,
	  (const char *path, const char *name, const void *value, size_t size, int flags),
	  (use, name, value, size, flags))
PATH_WRAP(removexattr, AT_FDCWD, POL_OP_CHMOD, 0, (const char *path, const char *name), (use, name))
PATH_WRAP(lremovexattr, AT_FDCWD, POL_OP_CHMOD, NOFOLLOW, (const char *path, const char *name),
	  (use, name))

FD_WRAP(ftruncate, POL_OP_TRUNCATE, (int fd, off_t length), (fd, length))
FD_WRAP(ftruncate64, POL_OP_TRUNCATE, (int fd, off64_t length), (fd, length))
FD_WRAP(fchmod, POL_OP_CHMOD, (int fd, mode_t mode), (fd, mode))
FD_WRAP(fchown, POL_OP_CHMOD, (int fd, uid_t owner, gid_t group), (fd, owner, group))
FD_WRAP(futimens, POL_OP_CHMOD, (int fd, const struct timespec times[2]), (fd, times))
FD_WRAP(fsetxattr, POL_OP_CHMOD,
	(int fd, const char *name, const void *value, size_t size, int flags),
	(fd, name, value, size, flags))
FD_WRAP(fremovexattr, POL_OP_CHMOD, (int fd, const char *name), (fd, name))

/* The *at forms whose flags say whether the last component is followed, and whose
 * NULL or empty path (AT_EMPTY_PATH) means the descriptor itself. */
static int check_at(const char *call, int dirfd, const char *path, int nofollow, int empty_ok,
		    char *buf, const char **use)
{
	int saved = errno, rc;

	if ((!path || (!*path && empty_ok)) && dirfd != AT_FDCWD) {
		*use = path;
		if (!guard_enter())
			return 0;
		rc = guard_check_fd(call, dirfd, POL_OP_CHMOD);
		guard_leave();
		errno = rc < 0 ? EACCES : saved;
		return rc;
	}
	return guard_check_copy(call, dirfd, path, POL_OP_CHMOD, nofollow ? POL_PATH_NOFOLLOW : 0,
				buf, PATH_MAX, use);
}

GUARD_EXPORT int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	char buf[PATH_MAX];
	const char *use;

	if (check_at("fchmodat", dirfd, path, flags & AT_SYMLINK_NOFOLLOW, flags & AT_EMPTY_PATH,
		     buf, &use) < 0)
		return -1;
	return GUARD_REAL(fchmodat) ? guard_real_fchmodat(dirfd, use, mode, flags) : no_real();
}

GUARD_EXPORT int fchownat(int dirfd, const char *path, uid_t owner, gid_t group, int flags)
{
	char buf[PATH_MAX];
	const char *use;

	if (check_at("fchownat", dirfd, path, flags & AT_SYMLINK_NOFOLLOW, flags & AT_EMPTY_PATH,
		     buf, &use) < 0)
		return -1;
	return GUARD_REAL(fchownat) ? guard_real_fchownat(dirfd, use, owner, group, flags)
				    : no_real();
}

GUARD_EXPORT int utimensat(int dirfd, const char *path, const struct timespec times[2], int flags)
{
	char buf[PATH_MAX];
	const char *use;

	if (check_at("utimensat", dirfd, path, flags & AT_SYMLINK_NOFOLLOW, flags & AT_EMPTY_PATH,
		     buf, &use) < 0)
		return -1;
	return GUARD_REAL(utimensat) ? guard_real_utimensat(dirfd, use, times, flags) : no_real();
}

GUARD_EXPORT int futimesat(int dirfd, const char *path, const struct timeval times[2])
{
	char buf[PATH_MAX];
	const char *use;

	if (check_at("futimesat", dirfd, path, 0, 0, buf, &use) < 0)
		return -1;
	return GUARD_REAL(futimesat) ? guard_real_futimesat(dirfd, use, times) : no_real();
}
