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

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* The device and inode of a pinned folder (the working directory for AT_FDCWD). */
static int pin_folder(const struct guard_pin *p, struct stat *st)
{
	return p->fd == AT_FDCWD ? fstatat(AT_FDCWD, ".", st, 0) : fstat(p->fd, st);
}

static int same_folder(const struct guard_pin *o, const struct guard_pin *n)
{
	struct stat a, b;
	int saved = errno, same;

	same = pin_folder(o, &a) == 0 && pin_folder(n, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
	errno = saved;
	return same;
}

/* One rename as checked: both names pinned in their folders, and whether the file
 * moved is to be kept (it replaces a name older than the session). */
struct renaming {
	struct guard_pin o, n;
	const char *ou, *nu;
	char ob[PATH_MAX], nb[PATH_MAX];
	struct rt_obj src;
	int keep;
};

/* The session's rules on the pinned names: the source's kind, and whether it makes an
 * atomic save (a regular file of the session's own replaces a name in its own folder:
 * sed -i, editors, git's lock files; never a directory or a symlink). Asked only where
 * a rule may refuse the replacement. When the name replaced was there before the
 * session (or is kept), the file is kept once moved: the name stays no-delete
 * (DESIGN.md, "No-delete protects names"). */
static void rename_flags(struct renaming *r, int olddirfd, int newdirfd, unsigned flags,
			 unsigned *ofl, unsigned *nfl)
{
	int od = r->o.fd == GUARD_PIN_NONE ? olddirfd : r->o.fd,
	    nd = r->n.fd == GUARD_PIN_NONE ? newdirfd : r->n.fd;
	const char *on = r->o.fd == GUARD_PIN_NONE ? r->ou : r->o.name,
		   *nn = r->n.fd == GUARD_PIN_NONE ? r->nu : r->n.name;

	if (!on || !nn)
		return;
	if (guard_is_dir(od, on))
		*ofl |= POL_PATH_IS_DIR;
	if ((flags & RENAME_EXCHANGE) && guard_is_dir(nd, nn))
		*nfl |= POL_PATH_IS_DIR;
	if ((flags & RENAME_EXCHANGE) || r->o.fd == GUARD_PIN_NONE || r->n.fd == GUARD_PIN_NONE ||
	    guard_index_allows(newdirfd, r->nu, POL_OP_RENAME_TO, *nfl))
		return;
	if (guard_session_obj(od, on, &r->src) && S_ISREG(r->src.mode) &&
	    same_folder(&r->o, &r->n)) {
		*nfl |= POL_PATH_SESSION_NEW;
		r->keep = !(flags & RENAME_NOREPLACE) && !guard_session_new(nd, nn);
	}
}

/* The names as written, then, where the walk met a symlink, as pinned. */
static int rename_judge(const char *call, struct renaming *r, int olddirfd, int newdirfd,
			unsigned flags, unsigned ofl, unsigned nfl)
{
	const struct {
		int which; /* 0 the source, 1 the target */
		enum pol_op op;
	} steps[] = {{0, POL_OP_RENAME_FROM},
		     {1, POL_OP_RENAME_TO},
		     {1, POL_OP_RENAME_FROM},
		     {0, POL_OP_RENAME_TO}};
	size_t n = (flags & RENAME_EXCHANGE) ? 4 : 2;

	for (size_t i = 0; i < n; i++) {
		const struct guard_pin *p = steps[i].which ? &r->n : &r->o;
		unsigned fl = steps[i].which ? nfl : ofl;
		int rc = guard_check_path(call, steps[i].which ? newdirfd : olddirfd,
					  steps[i].which ? r->nu : r->ou, steps[i].op, fl);

		if (rc == 0 && p->moved)
			rc = guard_check_path(call, p->fd, p->name, steps[i].op, fl);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int no_real(void)
{
	errno = ENOSYS;
	return -1;
}

/* Takes a pin for one name; 0, or -1 with errno (the folder cannot be reached). */
static int rename_pin(int dirfd, const char *path, char *buf, const char **use, struct guard_pin *p)
{
	*use = guard_copy_path(path, buf, PATH_MAX);
	if (!*use) {
		*use = path;
		return 0;
	}
	return guard_pin_take(dirfd, *use, 1, p) < 0 ? -1 : 0;
}

static int rename_pinned(const char *call, int olddirfd, const char *oldpath, int newdirfd,
			 const char *newpath, unsigned flags)
{
	unsigned ofl = POL_PATH_NOFOLLOW, nfl = POL_PATH_NOFOLLOW;
	int saved = errno, rc = 0, err = EACCES;
	struct renaming r;

	guard_pin_init(&r.o);
	guard_pin_init(&r.n);
	r.ou = oldpath;
	r.nu = newpath;
	r.keep = 0;
	if (guard_enter()) {
		if (rename_pin(olddirfd, oldpath, r.ob, &r.ou, &r.o) < 0 ||
		    rename_pin(newdirfd, newpath, r.nb, &r.nu, &r.n) < 0) {
			err = errno;
			rc = -1;
		} else {
			rename_flags(&r, olddirfd, newdirfd, flags, &ofl, &nfl);
			rc = rename_judge(call, &r, olddirfd, newdirfd, flags, ofl, nfl);
		}
		guard_leave();
	}
	if (rc < 0) {
		guard_pin_release(&r.n);
		guard_pin_release(&r.o);
		errno = err;
		return -1;
	}
	errno = saved;
	if (!GUARD_REAL(renameat2))
		rc = no_real();
	else
		rc = guard_real_renameat2(r.o.fd == GUARD_PIN_NONE ? olddirfd : r.o.fd,
					  r.o.fd == GUARD_PIN_NONE ? r.ou : r.o.name,
					  r.n.fd == GUARD_PIN_NONE ? newdirfd : r.n.fd,
					  r.n.fd == GUARD_PIN_NONE ? r.nu : r.n.name, flags);
	/* kept once it stands at the name (a rename that failed keeps nothing) */
	if (rc == 0 && r.keep)
		guard_session_keep(&r.src);
	guard_pin_release(&r.n);
	guard_pin_release(&r.o);
	return rc;
}

GUARD_EXPORT int rename(const char *oldpath, const char *newpath)
{
	return rename_pinned("rename", AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}

GUARD_EXPORT int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	return rename_pinned("renameat", olddirfd, oldpath, newdirfd, newpath, 0);
}

GUARD_EXPORT int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
			   unsigned int flags)
{
	return rename_pinned("renameat2", olddirfd, oldpath, newdirfd, newpath, flags);
}
