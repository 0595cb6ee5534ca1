/* unlink.c - deletes and new names: unlink, unlinkat, remove, rmdir, link, linkat,
 * symlink, symlinkat. The last component is never followed (the name itself goes or
 * comes), and a directory is refused when a protected path lies beneath it. */
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

static int no_real(void)
{
	errno = ENOSYS;
	return -1;
}

GUARD_EXPORT int unlink(const char *path)
{
	char buf[PATH_MAX];
	const char *use;

	if (guard_check_copy("unlink", AT_FDCWD, path, POL_OP_DELETE, POL_PATH_NOFOLLOW, buf,
			     sizeof(buf), &use) < 0)
		return -1;
	return GUARD_REAL(unlink) ? guard_real_unlink(use) : no_real();
}

GUARD_EXPORT int rmdir(const char *path)
{
	char buf[PATH_MAX];
	const char *use;

	if (guard_check_copy("rmdir", AT_FDCWD, path, POL_OP_DELETE,
			     POL_PATH_NOFOLLOW | POL_PATH_IS_DIR, buf, sizeof(buf), &use) < 0)
		return -1;
	return GUARD_REAL(rmdir) ? guard_real_rmdir(use) : no_real();
}

GUARD_EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	unsigned pflags = POL_PATH_NOFOLLOW;
	char buf[PATH_MAX];
	const char *use;

	if (flags & AT_REMOVEDIR)
		pflags |= POL_PATH_IS_DIR;
	if (guard_check_copy("unlinkat", dirfd, path, POL_OP_DELETE, pflags, buf, sizeof(buf),
			     &use) < 0)
		return -1;
	return GUARD_REAL(unlinkat) ? guard_real_unlinkat(dirfd, use, flags) : no_real();
}

GUARD_EXPORT int remove(const char *path)
{
	unsigned pflags = POL_PATH_NOFOLLOW;
	char buf[PATH_MAX];
	const char *use;

	if (guard_is_dir(AT_FDCWD, path))
		pflags |= POL_PATH_IS_DIR;
	if (guard_check_copy("remove", AT_FDCWD, path, POL_OP_DELETE, pflags, buf, sizeof(buf),
			     &use) < 0)
		return -1;
	return GUARD_REAL(remove) ? guard_real_remove(use) : no_real();
}

/* The source of a hard link is judged as the data it names (following it only with
 * AT_SYMLINK_FOLLOW, as the kernel does; /proc/self/fd/N then resolves to the file);
 * an AT_EMPTY_PATH source is the descriptor's file. The new name is a creation. */
static int check_link(const char *call, int olddirfd, const char *oldpath, int newdirfd,
		      const char *newpath, int flags, char *oldbuf, char *newbuf,
		      const char **olduse, const char **newuse)
{
	int saved = errno, rc;
	const char *copy;

	*olduse = oldpath;
	*newuse = newpath;
	if (!guard_enter())
		return 0;
	if (oldpath && !*oldpath && (flags & AT_EMPTY_PATH)) {
		rc = guard_check_fd(call, olddirfd, POL_OP_LINK_FROM);
	} else {
		copy = guard_copy_path(oldpath, oldbuf, PATH_MAX);
		if (copy)
			*olduse = copy;
		rc = guard_check_path(call, olddirfd, copy, POL_OP_LINK_FROM,
				      (flags & AT_SYMLINK_FOLLOW) ? 0 : POL_PATH_NOFOLLOW);
	}
	if (rc == 0) {
		copy = guard_copy_path(newpath, newbuf, PATH_MAX);
		if (copy)
			*newuse = copy;
		rc = guard_check_path(call, newdirfd, copy, POL_OP_CREATE, POL_PATH_NOFOLLOW);
	}
	guard_leave();
	errno = rc < 0 ? EACCES : saved;
	return rc;
}

GUARD_EXPORT int link(const char *oldpath, const char *newpath)
{
	char ob[PATH_MAX], nb[PATH_MAX];
	const char *ou, *nu;

	if (check_link("link", AT_FDCWD, oldpath, AT_FDCWD, newpath, 0, ob, nb, &ou, &nu) < 0)
		return -1;
	return GUARD_REAL(link) ? guard_real_link(ou, nu) : no_real();
}

GUARD_EXPORT int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
			int flags)
{
	char ob[PATH_MAX], nb[PATH_MAX];
	const char *ou, *nu;

	if (check_link("linkat", olddirfd, oldpath, newdirfd, newpath, flags, ob, nb, &ou, &nu) < 0)
		return -1;
	return GUARD_REAL(linkat) ? guard_real_linkat(olddirfd, ou, newdirfd, nu, flags)
				  : no_real();
}

/* A symlink's target is not opened by creating it (every later use resolves it and
 * is checked then); the link itself is a new name where it is created. */
GUARD_EXPORT int symlink(const char *target, const char *linkpath)
{
	char buf[PATH_MAX];
	const char *use;

	if (guard_check_copy("symlink", AT_FDCWD, linkpath, POL_OP_CREATE, POL_PATH_NOFOLLOW, buf,
			     sizeof(buf), &use) < 0)
		return -1;
	return GUARD_REAL(symlink) ? guard_real_symlink(target, use) : no_real();
}

GUARD_EXPORT int symlinkat(const char *target, int newdirfd, const char *linkpath)
{
	char buf[PATH_MAX];
	const char *use;

	if (guard_check_copy("symlinkat", newdirfd, linkpath, POL_OP_CREATE, POL_PATH_NOFOLLOW, buf,
			     sizeof(buf), &use) < 0)
		return -1;
	return GUARD_REAL(symlinkat) ? guard_real_symlinkat(target, newdirfd, use) : no_real();
}
