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

/* A wrapper judging one path argument named `path`, relative to dirfd, and making
 * the call where it was judged (pin.c): on the object (parent 0) or on the last name
 * in its pinned folder (parent 1), named P in args. */
#define PATH_WRAP_(name, dirfd, parent, op, pfl, params, args)                                \
	GUARD_EXPORT int name params                                                          \
	{                                                                                     \
		char buf[PATH_MAX], pb[64 + NAME_MAX];                                        \
		struct guard_pin p;                                                           \
		const char *use, *P;                                                          \
		int rc;                                                                       \
		if (guard_check_pinned(#name, dirfd, path, op, pfl, parent, buf, sizeof(buf), \
				       &use, &p) < 0)                                         \
			return -1;                                                            \
		if (!GUARD_REAL(name)) {                                                      \
			guard_pin_release(&p);                                                \
			return no_real();                                                     \
		}                                                                             \
		P = guard_pin_path(&p, use, pb, sizeof(pb));                                  \
		rc = guard_real_##name args;                                                  \
		if (guard_pin_no_proc(&p, rc)) {                                              \
			P = use;                                                              \
			rc = guard_real_##name args;                                          \
		}                                                                             \
		guard_pin_release(&p);                                                        \
		return rc;                                                                    \
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
/* (OBJ and LAST below stand for two arguments each) */
#define PATH_WRAP(...) PATH_WRAP_(__VA_ARGS__)
#define OBJ	       AT_FDCWD, 0 /* pinned on the object (a last symlink followed) */
#define LAST	       AT_FDCWD, 1 /* pinned in the folder of the last name */

PATH_WRAP(truncate, OBJ, POL_OP_TRUNCATE, 0, (const char *path, off_t length), (P, length))
PATH_WRAP(truncate64, OBJ, POL_OP_TRUNCATE, 0, (const char *path, off64_t length), (P, length))
PATH_WRAP(chmod, OBJ, POL_OP_CHMOD, 0, (const char *path, mode_t mode), (P, mode))
PATH_WRAP(lchmod, LAST, POL_OP_CHMOD, NOFOLLOW, (const char *path, mode_t mode), (P, mode))
PATH_WRAP(chown, OBJ, POL_OP_CHMOD, 0, (const char *path, uid_t owner, gid_t group),
	  (P, owner, group))
PATH_WRAP(lchown, LAST, POL_OP_CHMOD, NOFOLLOW, (const char *path, uid_t owner, gid_t group),
	  (P, owner, group))
PATH_WRAP(mkdir, LAST, POL_OP_CREATE, NOFOLLOW, (const char *path, mode_t mode), (P, mode))
PATH_WRAP(mkdirat, dirfd, 1, POL_OP_CREATE, NOFOLLOW, (int dirfd, const char *path, mode_t mode),
	  (P == use ? dirfd : AT_FDCWD, P, mode))
PATH_WRAP(mknod, LAST, POL_OP_CREATE, NOFOLLOW, (const char *path, mode_t mode, dev_t dev),
	  (P, mode, dev))
PATH_WRAP(mknodat, dirfd, 1, POL_OP_CREATE, NOFOLLOW,
	  (int dirfd, const char *path, mode_t mode, dev_t dev),
	  (P == use ? dirfd : AT_FDCWD, P, mode, dev))
PATH_WRAP(mkfifo, LAST, POL_OP_CREATE, NOFOLLOW, (const char *path, mode_t mode), (P, mode))
PATH_WRAP(mkfifoat, dirfd, 1, POL_OP_CREATE, NOFOLLOW, (int dirfd, const char *path, mode_t mode),
	  (P == use ? dirfd : AT_FDCWD, P, mode))
PATH_WRAP(utime, OBJ, POL_OP_CHMOD, 0, (const char *path, const struct utimbuf *times), (P, times))
PATH_WRAP(utimes, OBJ, POL_OP_CHMOD, 0, (const char *path, const struct timeval times[2]),
	  (P, times))
PATH_WRAP(lutimes, LAST, POL_OP_CHMOD, NOFOLLOW, (const char *path, const struct timeval times[2]),
	  (P, times))
PATH_WRAP(setxattr, OBJ, POL_OP_CHMOD, 0,
	  (const char *path, const char *name, const void *value, size_t size, int flags),
	  (P, name, value, size, flags))
PATH_WRAP(lsetxattr, LAST, POL_OP_CHMOD, NOFOLLOW,
	  (const char *path, const char *name, const void *value, size_t size, int flags),
	  (P, name, value, size, flags))
PATH_WRAP(removexattr, OBJ, POL_OP_CHMOD, 0, (const char *path, const char *name), (P, name))
PATH_WRAP(lremovexattr, LAST, POL_OP_CHMOD, NOFOLLOW, (const char *path, const char *name),
	  (P, name))

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
 * NULL or empty path (AT_EMPTY_PATH) means the descriptor itself; else pinned like
 * the others, on the object or (AT_SYMLINK_NOFOLLOW) in the last name's folder. */
static int check_at(const char *call, int dirfd, const char *path, int nofollow, int empty_ok,
		    char *buf, const char **use, struct guard_pin *p)
{
	int saved = errno, rc;

	guard_pin_init(p);
	if ((!path || (!*path && empty_ok)) && dirfd != AT_FDCWD) {
		*use = path;
		if (!guard_enter())
			return 0;
		rc = guard_check_fd(call, dirfd, POL_OP_CHMOD);
		guard_leave();
		errno = rc < 0 ? EACCES : saved;
		return rc;
	}
	return guard_check_pinned(call, dirfd, path, POL_OP_CHMOD, nofollow ? POL_PATH_NOFOLLOW : 0,
				  !!nofollow, buf, PATH_MAX, use, p);
}

/* The body of an *at form: checked, then made on the pinned place (P, with flags
 * less AT_EMPTY_PATH, which a path of its own no longer needs), else as asked. */
#define AT_WRAP(name, nofollow, empty_ok, params, args)                                  \
	GUARD_EXPORT int name params                                                     \
	{                                                                                \
		char buf[PATH_MAX], pb[64 + NAME_MAX];                                   \
		struct guard_pin p;                                                      \
		const char *use, *P;                                                     \
		int rc, D;                                                               \
		if (check_at(#name, dirfd, path, nofollow, empty_ok, buf, &use, &p) < 0) \
			return -1;                                                       \
		if (!GUARD_REAL(name)) {                                                 \
			guard_pin_release(&p);                                           \
			return no_real();                                                \
		}                                                                        \
		P = guard_pin_path(&p, use, pb, sizeof(pb));                             \
		D = P == use ? dirfd : AT_FDCWD;                                         \
		rc = guard_real_##name args;                                             \
		if (guard_pin_no_proc(&p, rc)) {                                         \
			P = use;                                                         \
			D = dirfd;                                                       \
			rc = guard_real_##name args;                                     \
		}                                                                        \
		guard_pin_release(&p);                                                   \
		return rc;                                                               \
	}

/* the flags for the pinned path: AT_EMPTY_PATH only where nothing was pinned */
#define AT_FLAGS (P == use ? flags : flags & ~AT_EMPTY_PATH)

AT_WRAP(fchmodat, flags &AT_SYMLINK_NOFOLLOW, flags &AT_EMPTY_PATH,
	(int dirfd, const char *path, mode_t mode, int flags), (D, P, mode, AT_FLAGS))
AT_WRAP(fchownat, flags &AT_SYMLINK_NOFOLLOW, flags &AT_EMPTY_PATH,
	(int dirfd, const char *path, uid_t owner, gid_t group, int flags),
	(D, P, owner, group, AT_FLAGS))
AT_WRAP(utimensat, flags &AT_SYMLINK_NOFOLLOW, flags &AT_EMPTY_PATH,
	(int dirfd, const char *path, const struct timespec times[2], int flags),
	(D, P, times, AT_FLAGS))
AT_WRAP(futimesat, 0, 0, (int dirfd, const char *path, const struct timeval times[2]),
	(D, P, times))
