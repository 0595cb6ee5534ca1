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

/* Deletes the last name of dirfd/path (flags: AT_REMOVEDIR) in its pinned folder. */
static int delete_pinned(const char *call, int dirfd, const char *path, int flags)
{
	unsigned pflags = POL_PATH_NOFOLLOW | ((flags & AT_REMOVEDIR) ? POL_PATH_IS_DIR : 0);
	char buf[PATH_MAX];
	struct guard_pin p;
	const char *use;
	int rc;

	if (guard_check_pinned(call, dirfd, path, POL_OP_DELETE, pflags, 1, buf, sizeof(buf), &use,
			       &p) < 0)
		return -1;
	if (!GUARD_REAL(unlinkat))
		return no_real();
	rc = p.fd == GUARD_PIN_NONE ? guard_real_unlinkat(dirfd, use, flags)
				    : guard_real_unlinkat(p.fd, p.name, flags);
	guard_pin_release(&p);
	return rc;
}

GUARD_EXPORT int unlink(const char *path)
{
	return delete_pinned("unlink", AT_FDCWD, path, 0);
}

GUARD_EXPORT int rmdir(const char *path)
{
	return delete_pinned("rmdir", AT_FDCWD, path, AT_REMOVEDIR);
}

GUARD_EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	return delete_pinned("unlinkat", dirfd, path, flags);
}

/* remove(): a folder is removed as rmdir() would, anything else as unlink(). */
GUARD_EXPORT int remove(const char *path)
{
	return delete_pinned("remove", AT_FDCWD, path,
			     guard_is_dir(AT_FDCWD, path) ? AT_REMOVEDIR : 0);
}

/* The source of a hard link is judged as the data it names (following it only with
 * AT_SYMLINK_FOLLOW, as the kernel does; /proc/self/fd/N then resolves to the file);
 * an AT_EMPTY_PATH source is the descriptor's file. The new name is a creation. Both
 * are pinned (the source on its object when followed), and linked there. */
static int link_pinned(const char *call, int olddirfd, const char *oldpath, int newdirfd,
		       const char *newpath, int flags)
{
	char ob[PATH_MAX], nb[PATH_MAX], pb[64 + NAME_MAX];
	int follow = (flags & AT_SYMLINK_FOLLOW) != 0, odir = olddirfd, ofl = flags, rc = 0;
	struct guard_pin o, n;
	const char *ou = oldpath, *nu;

	guard_pin_init(&o);
	if (oldpath && !*oldpath && (flags & AT_EMPTY_PATH)) {
		int saved = errno;

		if (guard_enter()) {
			rc = guard_check_fd(call, olddirfd, POL_OP_LINK_FROM);
			guard_leave();
		}
		errno = rc < 0 ? EACCES : saved;
	} else {
		rc = guard_check_pinned(call, olddirfd, oldpath, POL_OP_LINK_FROM,
					follow ? 0 : POL_PATH_NOFOLLOW, !follow, ob, sizeof(ob),
					&ou, &o);
	}
	if (rc < 0)
		return -1;
	if (guard_check_pinned(call, newdirfd, newpath, POL_OP_CREATE, POL_PATH_NOFOLLOW, 1, nb,
			       sizeof(nb), &nu, &n) < 0) {
		guard_pin_release(&o);
		return -1;
	}
	if (o.fd != GUARD_PIN_NONE && o.parent) {
		odir = o.fd;
		ou = o.name;
	} else if (o.fd != GUARD_PIN_NONE) {
		odir = AT_FDCWD;
		ou = guard_pin_path(&o, ou, pb, sizeof(pb));
		ofl = (flags & ~AT_EMPTY_PATH) | AT_SYMLINK_FOLLOW;
	}
	rc = !GUARD_REAL(linkat)      ? no_real()
	     : n.fd == GUARD_PIN_NONE ? guard_real_linkat(odir, ou, newdirfd, nu, ofl)
				      : guard_real_linkat(odir, ou, n.fd, n.name, ofl);
	guard_pin_release(&n);
	guard_pin_release(&o);
	return rc;
}

GUARD_EXPORT int link(const char *oldpath, const char *newpath)
{
	return link_pinned("link", AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}

GUARD_EXPORT int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
			int flags)
{
	return link_pinned("linkat", olddirfd, oldpath, newdirfd, newpath, flags);
}

/* A symlink's target is not opened by creating it (every later use resolves it and
 * is checked then); the link itself is a new name where it is created, in its pinned
 * folder. */
static int symlink_pinned(const char *call, const char *target, int newdirfd, const char *linkpath)
{
	char buf[PATH_MAX];
	struct guard_pin p;
	const char *use;
	int rc;

	if (guard_check_pinned(call, newdirfd, linkpath, POL_OP_CREATE, POL_PATH_NOFOLLOW, 1, buf,
			       sizeof(buf), &use, &p) < 0)
		return -1;
	rc = !GUARD_REAL(symlinkat)   ? no_real()
	     : p.fd == GUARD_PIN_NONE ? guard_real_symlinkat(target, newdirfd, use)
				      : guard_real_symlinkat(target, p.fd, p.name);
	guard_pin_release(&p);
	return rc;
}

GUARD_EXPORT int symlink(const char *target, const char *linkpath)
{
	return symlink_pinned("symlink", target, AT_FDCWD, linkpath);
}

GUARD_EXPORT int symlinkat(const char *target, int newdirfd, const char *linkpath)
{
	return symlink_pinned("symlinkat", target, newdirfd, linkpath);
}
