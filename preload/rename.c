/* rename.c - rename, renameat, renameat2. The source goes away from its name (no-delete,
 * read-only and zero-access refuse it, and a directory holding a protected path, e.g.
 * `mv .git .git2`); the target is replaced (read-only and no-delete refuse it too).
 * RENAME_EXCHANGE moves both ways, so both names are judged as both. */
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* The folder of dirfd/path, looked up (its device and inode). */
static int folder_of(int dirfd, const char *path, struct stat *st)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash)
		return fstatat(dirfd, ".", st, 0);
	if (slash == path)
		return stat("/", st);
	if ((size_t)(slash - path) >= sizeof(dir))
		return -1;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return fstatat(dirfd, dir, st, 0);
}

static int same_folder(int od, const char *op, int nd, const char *np)
{
	struct stat a, b;
	int saved = errno, same;

	same = folder_of(od, op, &a) == 0 && folder_of(nd, np, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
	errno = saved;
	return same;
}

static int check_rename(const char *call, int olddirfd, const char *oldpath, int newdirfd,
			const char *newpath, unsigned flags, char *ob, char *nb, const char **ou,
			const char **nu)
{
	unsigned ofl = POL_PATH_NOFOLLOW, nfl = POL_PATH_NOFOLLOW;
	int saved = errno, rc;
	const char *oc, *nc;

	*ou = oldpath;
	*nu = newpath;
	if (!guard_enter())
		return 0;
	oc = guard_copy_path(oldpath, ob, PATH_MAX);
	nc = guard_copy_path(newpath, nb, PATH_MAX);
	if (oc)
		*ou = oc;
	if (nc)
		*nu = nc;
	if (oc && guard_is_dir(olddirfd, oc))
		ofl |= POL_PATH_IS_DIR;
	if (nc && (flags & RENAME_EXCHANGE) && guard_is_dir(newdirfd, nc))
		nfl |= POL_PATH_IS_DIR;
	/* An atomic save: a file made during the session replaces a name in its own
	 * folder (sed -i, editors, git's lock files). */
	if (oc && nc && !(flags & RENAME_EXCHANGE) && guard_session_new(olddirfd, oc) &&
	    same_folder(olddirfd, oc, newdirfd, nc))
		nfl |= POL_PATH_SESSION_NEW;
	rc = guard_check_path(call, olddirfd, oc, POL_OP_RENAME_FROM, ofl);
	if (rc == 0)
		rc = guard_check_path(call, newdirfd, nc, POL_OP_RENAME_TO, nfl);
	if (rc == 0 && (flags & RENAME_EXCHANGE)) {
		rc = guard_check_path(call, newdirfd, nc, POL_OP_RENAME_FROM, nfl);
		if (rc == 0)
			rc = guard_check_path(call, olddirfd, oc, POL_OP_RENAME_TO, ofl);
	}
	guard_leave();
	errno = rc < 0 ? EACCES : saved;
	return rc;
}

static int no_real(void)
{
	errno = ENOSYS;
	return -1;
}

GUARD_EXPORT int rename(const char *oldpath, const char *newpath)
{
	char ob[PATH_MAX], nb[PATH_MAX];
	const char *ou, *nu;

	if (check_rename("rename", AT_FDCWD, oldpath, AT_FDCWD, newpath, 0, ob, nb, &ou, &nu) < 0)
		return -1;
	return GUARD_REAL(rename) ? guard_real_rename(ou, nu) : no_real();
}

GUARD_EXPORT int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	char ob[PATH_MAX], nb[PATH_MAX];
	const char *ou, *nu;

	if (check_rename("renameat", olddirfd, oldpath, newdirfd, newpath, 0, ob, nb, &ou, &nu) < 0)
		return -1;
	return GUARD_REAL(renameat) ? guard_real_renameat(olddirfd, ou, newdirfd, nu) : no_real();
}

GUARD_EXPORT int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
			   unsigned int flags)
{
	char ob[PATH_MAX], nb[PATH_MAX];
	const char *ou, *nu;

	if (check_rename("renameat2", olddirfd, oldpath, newdirfd, newpath, flags, ob, nb, &ou,
			 &nu) < 0)
		return -1;
	return GUARD_REAL(renameat2) ? guard_real_renameat2(olddirfd, ou, newdirfd, nu, flags)
				     : no_real();
}
