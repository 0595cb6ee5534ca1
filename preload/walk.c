/* walk.c - libc's functions that list folders through its own internal opendir, which
 * no wrapper sees: glob, ftw and nftw, fts, and wordexp (whose $(...) also runs a
 * shell). Each is wrapped so that a folder the rules forbid to list is refused as the
 * kernel would refuse an unreadable one (EACCES, FTW_DNR, FTS_DNR), one refusal line
 * for it, and none of its names reaches the caller:
 * - glob: the pattern's folders are opened through the guard's own opendir (glob's
 *   GLOB_ALTDIRFUNC hooks), unless the caller brings hooks of its own (which then
 *   call the wrapped functions themselves);
 * - ftw, nftw: the caller's function is called through a shim that reports a refused
 *   folder as FTW_DNR, skips its subtree where nftw's FTW_ACTIONRETVAL allows, and
 *   never shows an entry whose folder is refused;
 * - fts_read, fts_children: a refused folder is returned as FTS_DNR and skipped before
 *   fts lists it;
 * - wordexp: a line with a command substitution is judged as the shell line it runs,
 *   and words its globs produced in a refused folder refuse the call. */
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

static int refused_enosys(void)
{
	errno = ENOSYS;
	return -1;
}

/* Whether listing dirfd/path is refused (the refusal line is written). */
static int list_refused(const char *call, int dirfd, const char *path)
{
	char buf[PATH_MAX];
	const char *use;

	return guard_check_copy(call, dirfd, path, POL_OP_LIST, 0, buf, sizeof(buf), &use) < 0;
}

/* ---- glob ----------------------------------------------------------------------------- */

static void *glob_opendir(const char *path)
{
	return opendir(path); /* the guard's own (-Bsymbolic) */
}

static void *glob_readdir(void *d)
{
	return readdir(d);
}

static void glob_closedir(void *d)
{
	closedir(d);
}

static int glob_stat(const char *path, struct stat *st)
{
	return stat(path, st);
}

static int glob_lstat(const char *path, struct stat *st)
{
	return lstat(path, st);
}

static void glob_hooks(glob_t *g)
{
	g->gl_opendir = glob_opendir;
	g->gl_readdir = (struct dirent * (*)(void *)) glob_readdir;
	g->gl_closedir = glob_closedir;
	g->gl_stat = glob_stat;
	g->gl_lstat = glob_lstat;
}

typedef int (*glob_fn)(const char *, int, int (*)(const char *, int), glob_t *);

static int glob_with(glob_fn real, const char *pattern, int flags,
		     int (*errfunc)(const char *, int), glob_t *g)
{
	if (!real)
		return GLOB_ABORTED;
	if (g && !(flags & GLOB_ALTDIRFUNC)) {
		glob_hooks(g);
		flags |= GLOB_ALTDIRFUNC;
	}
	return real(pattern, flags, errfunc, g);
}

GUARD_EXPORT int glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g)
{
	return glob_with(GUARD_REAL(glob), pattern, flags, errfunc, g);
}

GUARD_EXPORT int glob64(const char *pattern, int flags, int (*errfunc)(const char *, int),
			glob64_t *g)
{
	return glob_with((glob_fn)GUARD_REAL(glob64), pattern, flags, errfunc, (glob_t *)g);
}

/* glob@GLIBC_2.2.5 (before gl_lstat), handed out by dlvsym: the same hooks. */
int guard_glob_compat(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g)
{
	return glob_with((glob_fn)guard_compat_fn("glob"), pattern, flags, errfunc, g);
}

int guard_glob64_compat(const char *pattern, int flags, int (*errfunc)(const char *, int),
			glob_t *g)
{
	return glob_with((glob_fn)guard_compat_fn("glob64"), pattern, flags, errfunc, g);
}

/* ---- ftw, nftw -------------------------------------------------------------------------- */

/* One walk in progress on this thread (walks nest when a callback walks). */
struct walk {
	const char *call;
	__nftw_func_t nfn;
	__ftw_func_t fn;
	int flags;
	int base_fd; /* what relative paths are taken from: the first folder under FTW_CHDIR */
	size_t root_len;
	char parent[PATH_MAX]; /* the last folder judged, and its answer */
	int parent_refused;
	struct walk *up;
};

static __thread struct walk *walk_top __attribute__((tls_model("initial-exec")));

/* Whether the folder holding path (its first n bytes) may not be listed, cached for
 * the siblings that follow one another. */
static int parent_refused(struct walk *w, const char *path, size_t n)
{
	if (n == 0 || n >= sizeof(w->parent))
		return 0;
	if (strncmp(w->parent, path, n) == 0 && w->parent[n] == '\0')
		return w->parent_refused;
	memcpy(w->parent, path, n);
	w->parent[n] = '\0';
	w->parent_refused = list_refused(w->call, w->base_fd, w->parent);
	return w->parent_refused;
}

/* What the shim says of one entry: 1 hide it, else *flag possibly turned to FTW_DNR. */
static int walk_judge(struct walk *w, const char *path, int *flag, size_t base)
{
	size_t n = base;

	while (n > 0 && path[n - 1] == '/')
		n--;
	if (base > 0 && strlen(path) > w->root_len && parent_refused(w, path, n ? n : 1))
		return 1;
	if ((*flag == FTW_D || *flag == FTW_DP) && list_refused(w->call, w->base_fd, path))
		*flag = FTW_DNR;
	return 0;
}

static int nftw_shim(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	struct walk *w = walk_top;
	int was = flag, rc;

	if (walk_judge(w, path, &flag, f ? (size_t)f->base : 0))
		return 0; /* FTW_CONTINUE */
	rc = w->nfn(path, st, flag, f);
	if (flag == FTW_DNR && was == FTW_D && (w->flags & FTW_ACTIONRETVAL) && rc == FTW_CONTINUE)
		rc = FTW_SKIP_SUBTREE;
	return rc;
}

static int ftw_shim(const char *path, const struct stat *st, int flag)
{
	struct walk *w = walk_top;
	const char *slash = strrchr(path, '/');

	if (walk_judge(w, path, &flag, slash ? (size_t)(slash - path) + 1 : 0))
		return 0;
	return w->fn(path, st, flag);
}

typedef int (*nftw_real)(const char *, __nftw_func_t, int, int);
typedef int (*ftw_real)(const char *, __ftw_func_t, int);

static int walk_run(struct walk *w, const char *dir, nftw_real nreal, ftw_real real, int nfd)
{
	int rc, saved;

	w->root_len = dir ? strlen(dir) : 0;
	w->parent[0] = '\0';
	w->parent_refused = 0;
	w->up = walk_top;
	/* FTW_CHDIR moves the working folder as it walks; the paths it shows stay relative
	 * to the first one. */
	w->base_fd = AT_FDCWD;
	if ((w->flags & FTW_CHDIR) && dir && dir[0] != '/') {
		saved = errno;
		w->base_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		errno = saved;
		if (w->base_fd < 0)
			w->base_fd = AT_FDCWD;
	}
	walk_top = w;
	rc = nreal ? nreal(dir, nftw_shim, nfd, w->flags) : real(dir, ftw_shim, nfd);
	saved = errno;
	walk_top = w->up;
	if (w->base_fd >= 0)
		close(w->base_fd);
	errno = saved;
	return rc;
}

static int nftw_with(nftw_real real, const char *call, const char *dir, __nftw_func_t fn, int nfd,
		     int flags)
{
	struct walk w = {.call = call, .nfn = fn, .flags = flags};

	if (!real)
		return refused_enosys();
	if (!fn)
		return real(dir, fn, nfd, flags);
	return walk_run(&w, dir, real, NULL, nfd);
}

static int ftw_with(ftw_real real, const char *dir, __ftw_func_t fn, int nfd)
{
	struct walk w = {.call = "ftw", .fn = fn};

	if (!real)
		return refused_enosys();
	if (!fn)
		return real(dir, fn, nfd);
	return walk_run(&w, dir, NULL, real, nfd);
}

GUARD_EXPORT int nftw(const char *dir, __nftw_func_t fn, int nfd, int flags)
{
	return nftw_with(GUARD_REAL(nftw), "nftw", dir, fn, nfd, flags);
}

GUARD_EXPORT int nftw64(const char *dir, __nftw64_func_t fn, int nfd, int flags)
{
	return nftw_with((nftw_real)GUARD_REAL(nftw64), "nftw", dir, (__nftw_func_t)fn, nfd, flags);
}

/* nftw@GLIBC_2.2.5 (which refuses flags it does not know), handed out by dlvsym. */
int guard_nftw_compat(const char *dir, __nftw_func_t fn, int nfd, int flags)
{
	return nftw_with((nftw_real)guard_compat_fn("nftw"), "nftw", dir, fn, nfd, flags);
}

int guard_nftw64_compat(const char *dir, __nftw_func_t fn, int nfd, int flags)
{
	return nftw_with((nftw_real)guard_compat_fn("nftw64"), "nftw", dir, fn, nfd, flags);
}

GUARD_EXPORT int ftw(const char *dir, __ftw_func_t fn, int nfd)
{
	return ftw_with(GUARD_REAL(ftw), dir, fn, nfd);
}

GUARD_EXPORT int ftw64(const char *dir, __ftw64_func_t fn, int nfd)
{
	return ftw_with((ftw_real)GUARD_REAL(ftw64), dir, (__ftw_func_t)fn, nfd);
}

/* ---- fts -------------------------------------------------------------------------------- */

/* The folder fts is about to list: refused, it is skipped and reported FTS_DNR. fts_path
 * runs from the root as given; relative, it is taken from the folder fts started in
 * (fts_rfd), since fts moves the working folder as it walks. */
static int fts_refused(int rfd, int options, FTSENT *e)
{
	int dirfd = AT_FDCWD;

	if (e->fts_path[0] != '/' && !(options & FTS_NOCHDIR) && rfd >= 0)
		dirfd = rfd;
	return list_refused("fts_read", dirfd, e->fts_path);
}

static FTSENT *fts_judged(FTS *fts, FTSENT *e)
{
	if (e && e->fts_info == FTS_D && fts_refused(fts->fts_rfd, fts->fts_options, e)) {
		fts_set(fts, e, FTS_SKIP);
		e->fts_info = FTS_DNR;
		e->fts_errno = EACCES;
	}
	return e;
}

typedef FTSENT *(*fts_read_fn)(FTS *);
typedef FTSENT *(*fts_children_fn)(FTS *, int);

static FTSENT *fts_read_with(fts_read_fn real, FTS *fts)
{
	int saved;
	FTSENT *e;

	if (!real)
		return NULL;
	e = real(fts);
	saved = errno;
	e = fts && e ? fts_judged(fts, e) : e;
	errno = saved;
	return e;
}

static FTSENT *fts_children_with(fts_children_fn real, FTS *fts, int opts)
{
	FTSENT *cur = fts ? fts->fts_cur : NULL;

	if (cur && cur->fts_info == FTS_D && fts_refused(fts->fts_rfd, fts->fts_options, cur)) {
		errno = EACCES;
		return NULL;
	}
	return real ? real(fts, opts) : NULL;
}

GUARD_EXPORT FTSENT *fts_read(FTS *fts)
{
	return fts_read_with(GUARD_REAL(fts_read), fts);
}

/* FTS64 and FTSENT64 have FTS's and FTSENT's layout on 64-bit. */
GUARD_EXPORT FTSENT64 *fts64_read(FTS64 *fts)
{
	return (FTSENT64 *)fts_read_with((fts_read_fn)GUARD_REAL(fts64_read), (FTS *)fts);
}

GUARD_EXPORT FTSENT *fts_children(FTS *fts, int opts)
{
	return fts_children_with(GUARD_REAL(fts_children), fts, opts);
}

GUARD_EXPORT FTSENT64 *fts64_children(FTS64 *fts, int opts)
{
	return (FTSENT64 *)fts_children_with((fts_children_fn)GUARD_REAL(fts64_children),
					     (FTS *)fts, opts);
}

/* ---- wordexp ---------------------------------------------------------------------------- */

static int has_command(const char *words)
{
	return strchr(words, '`') || strstr(words, "$(");
}

/* Whether a word the expansion produced lies in a folder that may not be listed (then
 * its name came from a listing the rules forbid). */
static int word_refused(const char *word)
{
	const char *slash = strrchr(word, '/');
	char dir[PATH_MAX];
	size_t n;

	if (!slash)
		return list_refused("wordexp", AT_FDCWD, ".");
	n = slash == word ? 1 : (size_t)(slash - word);
	if (n >= sizeof(dir))
		return 0;
	memcpy(dir, word, n);
	dir[n] = '\0';
	return list_refused("wordexp", AT_FDCWD, dir);
}

extern char **environ;

/* libc's wordexp, its shell started with environ: when the program dropped the guard's
 * variables from it, environ holds the guard's environment for the length of the call
 * (as system() and popen() put them back in their line; the caller's own array and
 * strings are left as they are, and environ points at them again after). */
static int wordexp_guarded(const char *words, wordexp_t *we, int flags, int cmd)
{
	struct guard_envbuf eb;
	char **mine = environ, **ne;
	int rc, saved;

	if (!cmd || guard_env_complete(environ))
		return guard_real_wordexp(words, we, flags);
	ne = (char **)guard_env_build(environ, &eb);
	environ = ne;
	rc = guard_real_wordexp(words, we, flags);
	saved = errno;
	if (environ == ne)
		environ = mine;
	guard_envbuf_release(&eb);
	errno = saved;
	return rc;
}

GUARD_EXPORT int wordexp(const char *words, wordexp_t *we, int flags)
{
	size_t before = (flags & WRDE_APPEND) && we ? we->we_wordc : 0;
	int saved = errno, rc = 0, globs, cmd = 0;

	if (words && !(flags & WRDE_NOCMD) && has_command(words) && guard_enter()) {
		cmd = 1;
		rc = guard_check_command("wordexp", words);
		if (rc == 0 && guard_env_loader_vars(environ))
			rc = guard_env_vet("wordexp", environ);
		guard_leave();
	}
	if (rc < 0)
		return WRDE_CMDSUB;
	if (!GUARD_REAL(wordexp))
		return WRDE_NOSPACE;
	errno = saved;
	rc = wordexp_guarded(words, we, flags, cmd);
	globs = words && strpbrk(words, "*?[");
	if (rc != 0 || !globs || !we)
		return rc;
	saved = errno;
	for (size_t i = before; i < we->we_wordc; i++) {
		const char *w = we->we_wordv[we->we_offs + i];

		if (w && word_refused(w)) {
			if (before) { /* keep the caller's earlier words */
				for (size_t k = before; k < we->we_wordc; k++)
					free(we->we_wordv[we->we_offs + k]);
				we->we_wordc = before;
				we->we_wordv[we->we_offs + before] = NULL;
			} else {
				wordfree(we);
				we->we_wordc = 0;
				we->we_wordv = NULL;
			}
			errno = saved;
			return WRDE_SYNTAX;
		}
	}
	errno = saved;
	return 0;
}
