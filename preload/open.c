/* open.c - the open family: open/openat and their 64 and fortify names, creat,
 * fopen/freopen, tmpfile, mkstemp and relatives, opendir and the handle calls.
 * Each checks a private copy of the path and hands that copy to the real call. */
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

static int needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

/* Which real function an open wrapper ends in. */
enum which {
	W_OPEN,
	W_OPEN64,
	W_OPENAT,
	W_OPENAT64,
	W_OPEN_2,
	W_OPEN64_2,
	W_OPENAT_2,
	W_OPENAT64_2,
	W_CREAT,
	W_CREAT64
};

static int no_real(void)
{
	errno = ENOSYS;
	return -1;
}

static int call_real(enum which w, int dirfd, const char *path, int flags, mode_t mode)
{
	switch (w) {
	case W_OPEN:
		return GUARD_REAL(open) ? guard_real_open(path, flags, mode) : no_real();
	case W_OPEN64:
		return GUARD_REAL(open64) ? guard_real_open64(path, flags, mode) : no_real();
	case W_OPENAT:
		return GUARD_REAL(openat) ? guard_real_openat(dirfd, path, flags, mode) : no_real();
	case W_OPENAT64:
		return GUARD_REAL(openat64) ? guard_real_openat64(dirfd, path, flags, mode)
					    : no_real();
	case W_OPEN_2:
		return GUARD_REAL(__open_2) ? guard_real___open_2(path, flags) : no_real();
	case W_OPEN64_2:
		return GUARD_REAL(__open64_2) ? guard_real___open64_2(path, flags) : no_real();
	case W_OPENAT_2:
		return GUARD_REAL(__openat_2) ? guard_real___openat_2(dirfd, path, flags)
					      : no_real();
	case W_OPENAT64_2:
		return GUARD_REAL(__openat64_2) ? guard_real___openat64_2(dirfd, path, flags)
						: no_real();
	case W_CREAT:
		return GUARD_REAL(creat) ? guard_real_creat(path, mode) : no_real();
	case W_CREAT64:
		return GUARD_REAL(creat64) ? guard_real_creat64(path, mode) : no_real();
	}
	return no_real();
}

/* A descriptor refused after its open, closed with cancellation off: a request
 * acting at close() would leave it open. */
void guard_close_held(int fd)
{
	int hold = guard_cancel_hold();

	close(fd);
	guard_cancel_release(hold);
}

/* An open refused: -1 with EACCES. A refusal is a cancellation point, as the open
 * would have been. */
static int refused(void)
{
	guard_testcancel();
	errno = EACCES;
	return -1;
}

/* The end of an open the guard made itself (between enter and leave): the descriptor,
 * or -1 with errno. A refusal is a cancellation point too, as the open would have been. */
static int opened(int fd, int saved)
{
	guard_leave();
	if (fd >= 0) {
		errno = saved;
		return fd;
	}
	if (errno == EACCES) { /* (a refusal: an open's own failure acted already) */
		guard_testcancel();
		errno = EACCES;
	}
	return fd;
}

/* The plain path's open of a file the policy lets pass only as a new one (the check
 * returned 1): made with O_EXCL (creat() as the open it stands for); when that meets a
 * file and the caller did not ask for O_EXCL, decided again as the open of that file. */
static int open_new(const char *call, enum which w, int dirfd, const char *path, int flags,
		    mode_t mode, int saved)
{
	enum which x = w == W_CREAT ? W_OPEN : w == W_CREAT64 ? W_OPEN64 : w;
	int fd = call_real(x, dirfd, path, flags | O_EXCL, mode), rc = -1;

	if (fd >= 0 || errno != EEXIST || (flags & O_EXCL))
		return fd;
	if (guard_enter()) {
		rc = guard_check_existing(call, dirfd, path, flags);
		guard_leave();
	}
	if (rc < 0)
		return refused();
	errno = saved;
	return call_real(w, dirfd, path, flags, mode);
}

/* Every open wrapper: the fast path (lexical check + openat2 without symlinks), else
 * for reads the open followed by a check of what was opened, else (writes, creations,
 * truncations through a symlink) the full check with resolution before the open. An
 * open with O_CREAT that the path rules refuse may pass as the exclusive creation of
 * a new file (GUARD_MAY_EXCL, rt_open_may_excl()): it is then made with O_EXCL. */
static int guarded_open(const char *call, enum which w, int dirfd, const char *path, int flags,
			mode_t mode)
{
	char buf[PATH_MAX];
	unsigned pflags = 0;
	enum pol_op op;
	const char *copy;
	int saved = errno, fd, rc, lexical_clean;

	if (!guard_enter())
		return call_real(w, dirfd, path, flags, mode);
	copy = guard_copy_path(path, buf, sizeof(buf));
	if (!copy) {
		guard_leave(); /* NULL or too long: the kernel's EFAULT / ENAMETOOLONG */
		errno = saved;
		return call_real(w, dirfd, path, flags, mode);
	}
	op = guard_open_op(flags, &pflags);
	/* (the open itself is a cancellation point there, guard_open_sys()) */
	fd = guard_open_fast(call, dirfd, copy, flags, mode, op, pflags, &lexical_clean);
	if (fd != -2)
		return opened(fd, saved);
	if (op == POL_OP_READ || op == POL_OP_LIST) {
		guard_leave();
		errno = saved;
		fd = call_real(w, dirfd, copy, flags, mode);
		if (fd < 0 || !guard_enter())
			return fd;
		rc = guard_verify_fd_lexical_clean(call, dirfd, copy, fd, op, lexical_clean);
		if (rc < 0)
			guard_close_held(fd);
		guard_leave();
		if (rc < 0)
			return refused();
		errno = saved;
		return fd;
	}
	/* A write through a symlink: judged on the path it resolves to now, and that very
	 * path opened with no symlink allowed, so a link flipped meanwhile cannot win. */
	fd = guard_open_resolved(call, dirfd, copy, flags, mode, op, pflags);
	if (fd != -2)
		return opened(fd, saved);
	rc = guard_check_path(call, dirfd, copy, op,
			      pflags | (rt_open_may_excl(flags) ? GUARD_MAY_EXCL : 0));
	guard_leave();
	if (rc < 0)
		return refused();
	errno = saved;
	if (rc == 1)
		return open_new(call, w, dirfd, copy, flags, mode, saved);
	return call_real(w, dirfd, copy, flags, mode);
}

#define GET_MODE(last)                          \
	mode_t mode = 0;                        \
	if (needs_mode(flags)) {                \
		va_list ap;                     \
		va_start(ap, last);             \
		mode = (mode_t)va_arg(ap, int); \
		va_end(ap);                     \
	}

GUARD_EXPORT int open(const char *path, int flags, ...)
{
	GET_MODE(flags);
	return guarded_open("open", W_OPEN, AT_FDCWD, path, flags, mode);
}

GUARD_EXPORT int open64(const char *path, int flags, ...)
{
	GET_MODE(flags);
	return guarded_open("open", W_OPEN64, AT_FDCWD, path, flags, mode);
}

GUARD_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	GET_MODE(flags);
	return guarded_open("openat", W_OPENAT, dirfd, path, flags, mode);
}

GUARD_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	GET_MODE(flags);
	return guarded_open("openat", W_OPENAT64, dirfd, path, flags, mode);
}

GUARD_EXPORT int __open_2(const char *path, int flags)
{
	return guarded_open("open", W_OPEN_2, AT_FDCWD, path, flags, 0);
}

GUARD_EXPORT int __open64_2(const char *path, int flags)
{
	return guarded_open("open", W_OPEN64_2, AT_FDCWD, path, flags, 0);
}

GUARD_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return guarded_open("openat", W_OPENAT_2, dirfd, path, flags, 0);
}

GUARD_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return guarded_open("openat", W_OPENAT64_2, dirfd, path, flags, 0);
}

GUARD_EXPORT int creat(const char *path, mode_t mode)
{
	return guarded_open("creat", W_CREAT, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

GUARD_EXPORT int creat64(const char *path, mode_t mode)
{
	return guarded_open("creat", W_CREAT64, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

/* ---- stdio ----------------------------------------------------------------------- */

/* Like the open wrappers' fast path: 1 means open first, then verify the stream's
 * descriptor; 2 (with may, for a mode that creates, "w" or "a"): allowed only as the
 * exclusive creation of a new file, to be opened with the mode made exclusive. */
static int check_fopen(const char *call, const char *path, const char *mode, char *buf,
		       const char **use, int may)
{
	unsigned pflags = 0;
	enum pol_op op;
	const char *copy;
	int rc;

	*use = path;
	if (!guard_enter())
		return 0;
	copy = guard_copy_path(path, buf, PATH_MAX);
	if (copy)
		*use = copy;
	op = guard_fopen_op(mode, &pflags);
	if (op == POL_OP_READ && copy) {
		guard_leave();
		return 1;
	}
	rc = guard_check_path(
	    call, AT_FDCWD, copy, op,
	    pflags | (may && guard_fopen_excl_mode(mode, NULL, 0) ? GUARD_MAY_EXCL : 0));
	guard_leave();
	if (rc < 0)
		errno = EACCES;
	return rc == 1 ? 2 : rc;
}

/* fopen()'s answer 2 of check_fopen(): the stream opened with the mode made exclusive
 * ("w" -> "wx"); when that meets a file and the caller's mode was not exclusive, the
 * open is decided again as one of that file. real64 picks fopen64. */
static FILE *fopen_new(const char *call, const char *use, const char *mode, int real64, int saved)
{
	char xmode[GUARD_FOPEN_MODE_MAX];
	unsigned pflags = 0;
	FILE *f;
	int rc = -1;

	if (!guard_fopen_excl_mode(mode, xmode, sizeof(xmode))) {
		errno = EACCES; /* (never: check_fopen() asked the same) */
		return NULL;
	}
	f = real64 ? guard_real_fopen64(use, xmode) : guard_real_fopen(use, xmode);
	if (f || errno != EEXIST || !strcmp(xmode, mode))
		return f;
	if (guard_enter()) {
		rc = guard_check_path(call, AT_FDCWD, use, guard_fopen_op(mode, &pflags), pflags);
		guard_leave();
	}
	if (rc < 0) {
		errno = EACCES;
		return NULL;
	}
	errno = saved;
	return real64 ? guard_real_fopen64(use, mode) : guard_real_fopen(use, mode);
}

static FILE *verify_stream(const char *call, const char *use, FILE *f, int saved)
{
	int rc = 0;

	if (!f)
		return NULL;
	if (guard_enter()) {
		rc = guard_verify_fd(call, AT_FDCWD, use, fileno(f), POL_OP_READ);
		if (rc < 0) {
			int hold = guard_cancel_hold(); /* never left open */

			fclose(f);
			guard_cancel_release(hold);
		}
		guard_leave();
	}
	if (rc < 0) {
		errno = EACCES;
		return NULL;
	}
	errno = saved;
	return f;
}

GUARD_EXPORT FILE *fopen(const char *path, const char *mode)
{
	char buf[PATH_MAX];
	const char *use;
	int saved = errno, how;

	if ((how = check_fopen("fopen", path, mode, buf, &use, 1)) < 0 || !GUARD_REAL(fopen))
		return NULL;
	errno = saved;
	if (how == 1)
		return verify_stream("fopen", use, guard_real_fopen(use, mode), saved);
	if (how == 2)
		return fopen_new("fopen", use, mode, 0, saved);
	return guard_real_fopen(use, mode);
}

GUARD_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	char buf[PATH_MAX];
	const char *use;
	int saved = errno, how;

	if ((how = check_fopen("fopen", path, mode, buf, &use, 1)) < 0 || !GUARD_REAL(fopen64))
		return NULL;
	errno = saved;
	if (how == 1)
		return verify_stream("fopen", use, guard_real_fopen64(use, mode), saved);
	if (how == 2)
		return fopen_new("fopen", use, mode, 1, saved);
	return guard_real_fopen64(use, mode);
}

/* freopen with a NULL path reopens the stream's own file with a new mode. */
static int check_freopen(const char *path, const char *mode, FILE *stream, char *buf,
			 const char **use)
{
	unsigned pflags = 0;
	enum pol_op op;
	int rc, fd;

	if (path) {
		/* (the stream is replaced in place: no exclusive retry, refused as ever) */
		rc = check_fopen("freopen", path, mode, buf, use, 0);
		if (rc != 1)
			return rc;
		/* The stream is replaced in place: judge before, the slow way. */
		if (!guard_enter())
			return 0;
		op = guard_fopen_op(mode, &pflags);
		rc = guard_check_path("freopen", AT_FDCWD, *use, op, pflags);
		guard_leave();
		if (rc < 0)
			errno = EACCES;
		return rc;
	}
	*use = NULL;
	if (!guard_enter())
		return 0;
	op = guard_fopen_op(mode, &pflags);
	fd = stream ? fileno(stream) : -1;
	rc = fd >= 0 ? guard_check_fd("freopen", fd, op) : 0;
	guard_leave();
	if (rc < 0)
		errno = EACCES;
	return rc;
}

GUARD_EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream)
{
	char buf[PATH_MAX];
	const char *use;
	int saved = errno;

	if (check_freopen(path, mode, stream, buf, &use) < 0 || !GUARD_REAL(freopen))
		return NULL;
	errno = saved;
	return guard_real_freopen(use, mode, stream);
}

GUARD_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
	char buf[PATH_MAX];
	const char *use;
	int saved = errno;

	if (check_freopen(path, mode, stream, buf, &use) < 0 || !GUARD_REAL(freopen64))
		return NULL;
	errno = saved;
	return guard_real_freopen64(use, mode, stream);
}

/* tmpfile() creates an unnamed file in P_tmpdir; judged as a creation there. */
static int check_tmpdir(const char *call)
{
	int rc;

	if (!guard_enter())
		return 0;
	rc =
	    guard_check_path(call, AT_FDCWD, P_tmpdir "/tmpfile", POL_OP_CREATE, POL_PATH_NOFOLLOW);
	guard_leave();
	if (rc < 0)
		errno = EACCES;
	return rc;
}

GUARD_EXPORT FILE *tmpfile(void)
{
	int saved = errno;

	if (check_tmpdir("tmpfile") < 0 || !GUARD_REAL(tmpfile))
		return NULL;
	errno = saved;
	return guard_real_tmpfile();
}

GUARD_EXPORT FILE *tmpfile64(void)
{
	int saved = errno;

	if (check_tmpdir("tmpfile") < 0 || !GUARD_REAL(tmpfile64))
		return NULL;
	errno = saved;
	return guard_real_tmpfile64();
}

/* ---- temporary names: the template is filled in place, so it is checked as it is
 * (its directory decides) and handed on unchanged. ------------------------------------ */

static int check_template(const char *call, const char *tmpl, int excl)
{
	char buf[PATH_MAX];
	const char *copy;
	int rc;

	if (!guard_enter())
		return 0;
	copy = guard_copy_path(tmpl, buf, sizeof(buf));
	/* mkstemp and its relatives create with O_CREAT|O_EXCL: a name pattern naming
	 * the new file alone lets it pass (1); mkdtemp makes a folder (never) */
	rc = guard_check_path(call, AT_FDCWD, copy, POL_OP_CREATE,
			      POL_PATH_NOFOLLOW | (excl ? GUARD_MAY_EXCL : 0));
	guard_leave();
	if (rc < 0)
		errno = EACCES;
	return rc < 0 ? -1 : 0;
}

#define TEMPLATE_WRAP(ret, name, params, args, fail, excl)                      \
	GUARD_EXPORT ret name params                                            \
	{                                                                       \
		int saved = errno;                                              \
		if (check_template(#name, tmpl, excl) < 0 || !GUARD_REAL(name)) \
			return fail;                                            \
		errno = saved;                                                  \
		return guard_real_##name args;                                  \
	}

TEMPLATE_WRAP(int, mkstemp, (char *tmpl), (tmpl), -1, 1)
TEMPLATE_WRAP(int, mkstemp64, (char *tmpl), (tmpl), -1, 1)
TEMPLATE_WRAP(int, mkostemp, (char *tmpl, int flags), (tmpl, flags), -1, 1)
TEMPLATE_WRAP(int, mkostemp64, (char *tmpl, int flags), (tmpl, flags), -1, 1)
TEMPLATE_WRAP(int, mkstemps, (char *tmpl, int suffixlen), (tmpl, suffixlen), -1, 1)
TEMPLATE_WRAP(int, mkstemps64, (char *tmpl, int suffixlen), (tmpl, suffixlen), -1, 1)
TEMPLATE_WRAP(int, mkostemps, (char *tmpl, int suffixlen, int flags), (tmpl, suffixlen, flags), -1,
	      1)
TEMPLATE_WRAP(int, mkostemps64, (char *tmpl, int suffixlen, int flags), (tmpl, suffixlen, flags),
	      -1, 1)
TEMPLATE_WRAP(char *, mkdtemp, (char *tmpl), (tmpl), NULL, 0)

/* ---- listing and handles ------------------------------------------------------------ */

GUARD_EXPORT DIR *opendir(const char *path)
{
	char buf[PATH_MAX];
	const char *use = path;
	int saved = errno, rc = 0;

	DIR *d;

	if (guard_enter()) {
		const char *copy = guard_copy_path(path, buf, sizeof(buf));

		if (copy)
			use = copy;
		guard_leave();
	}
	if (!GUARD_REAL(opendir)) {
		errno = ENOSYS;
		return NULL;
	}
	errno = saved;
	/* Opening a folder lists nothing yet: judged on the descriptor, like reads. */
	d = guard_real_opendir(use);
	if (!d || !guard_enter())
		return d;
	rc = guard_verify_fd("opendir", AT_FDCWD, use, dirfd(d), POL_OP_LIST);
	if (rc < 0) {
		int hold = guard_cancel_hold(); /* never left open */

		closedir(d);
		guard_cancel_release(hold);
	}
	guard_leave();
	if (rc < 0) {
		errno = EACCES;
		return NULL;
	}
	errno = saved;
	return d;
}

GUARD_EXPORT int name_to_handle_at(int dirfd, const char *path, struct file_handle *handle,
				   int *mount_id, int flags)
{
	char buf[PATH_MAX];
	const char *use = path;
	int saved = errno, rc = 0;

	if (guard_enter()) {
		if (path && !*path && (flags & AT_EMPTY_PATH)) {
			rc = guard_check_fd("name_to_handle_at", dirfd, POL_OP_READ);
		} else {
			const char *copy = guard_copy_path(path, buf, sizeof(buf));

			if (copy)
				use = copy;
			rc = guard_check_path("name_to_handle_at", dirfd, copy, POL_OP_READ,
					      (flags & AT_SYMLINK_FOLLOW) ? 0 : POL_PATH_NOFOLLOW);
		}
		guard_leave();
	}
	if (rc < 0) {
		errno = EACCES;
		return -1;
	}
	if (!GUARD_REAL(name_to_handle_at))
		return no_real();
	errno = saved;
	return guard_real_name_to_handle_at(dirfd, use, handle, mount_id, flags);
}

/* A handle names no path until it is opened: the descriptor is checked right after
 * and closed when refused. (Needs CAP_DAC_READ_SEARCH, so rare under an agent.) */
GUARD_EXPORT int open_by_handle_at(int mount_fd, struct file_handle *handle, int flags)
{
	unsigned pflags = 0;
	int saved = errno, fd;

	if (!GUARD_REAL(open_by_handle_at))
		return no_real();
	fd = guard_real_open_by_handle_at(mount_fd, handle, flags);
	if (fd < 0 || !guard_enter())
		return fd;
	saved = errno;
	if (guard_check_fd("open_by_handle_at", fd, guard_open_op(flags, &pflags)) < 0) {
		close(fd);
		guard_leave();
		errno = EACCES;
		return -1;
	}
	guard_leave();
	errno = saved;
	return fd;
}
