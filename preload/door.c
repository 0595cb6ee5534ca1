/* door.c - the doors libc exports beside the names the other families wrap: its
 * private and old names for open, fopen, popen, system and mknod, the nss reader's
 * fopen, the mount-table and catalogue streams, the login-records writers, process
 * accounting, gprof's gmon.out, the password lock file, inotify and fanotify watches,
 * an RPC Unix socket, fsconfig, and dlopen. preload/libc.tsv says which is which;
 * each body here judges what the call does and hands on to libc's own function. */
#include "guard.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int refused_int(int e)
{
	errno = e;
	return -1;
}

/* guard_check_copy() on a path with the operation of open flags oflags. */
static int check_open_flags(const char *call, int dirfd, const char *path, int oflags)
{
	char buf[PATH_MAX];
	const char *use;
	unsigned pflags = 0;
	enum pol_op op = guard_open_op(oflags, &pflags);

	return guard_check_copy(call, dirfd, path, op, pflags, buf, sizeof(buf), &use);
}

/* The same with an fopen() mode string. */
static int check_mode(const char *call, const char *path, const char *mode)
{
	char buf[PATH_MAX];
	const char *use;
	unsigned pflags = 0;
	enum pol_op op = mode ? guard_fopen_op(mode, &pflags) : POL_OP_READ;

	return guard_check_copy(call, AT_FDCWD, path, op, pflags, buf, sizeof(buf), &use);
}

/* ---- private and old names: the wrappers of the public ones ---------------------------- */

static mode_t va_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

#define OPEN_ALIAS(name)                                        \
	GUARD_EXPORT int name(const char *path, int flags, ...) \
	{                                                       \
		va_list ap;                                     \
		mode_t mode;                                    \
		va_start(ap, flags);                            \
		mode = va_mode(flags, ap);                      \
		va_end(ap);                                     \
		return open(path, flags, mode);                 \
	}
OPEN_ALIAS(__open)
OPEN_ALIAS(__open64)
OPEN_ALIAS(__open_nocancel)
OPEN_ALIAS(__open64_nocancel)

GUARD_EXPORT FILE *_IO_fopen(const char *path, const char *mode)
{
	return fopen(path, mode);
}

GUARD_EXPORT FILE *_IO_popen(const char *cmd, const char *mode)
{
	return popen(cmd, mode);
}

GUARD_EXPORT int __libc_system(const char *cmd)
{
	return system(cmd);
}

/* fopen()'s and popen()'s bodies on a FILE of the caller's. */
GUARD_EXPORT FILE *_IO_file_fopen(FILE *fp, const char *path, const char *mode, int is32)
{
	if (check_mode("fopen", path, mode) < 0)
		return NULL;
	return GUARD_REAL(_IO_file_fopen) ? guard_real__IO_file_fopen(fp, path, mode, is32) : NULL;
}

GUARD_EXPORT FILE *_IO_file_open(FILE *fp, const char *path, int oflags, int prot, int rw, int is32)
{
	if (check_open_flags("open", AT_FDCWD, path, oflags) < 0)
		return NULL;
	return GUARD_REAL(_IO_file_open)
		   ? guard_real__IO_file_open(fp, path, oflags, prot, rw, is32)
		   : NULL;
}

GUARD_EXPORT FILE *_IO_proc_open(FILE *fp, const char *cmd, const char *mode)
{
	int saved = errno, rc = 0;

	if (cmd && guard_enter()) {
		rc = guard_check_command("popen", cmd);
		guard_leave();
	}
	if (rc < 0) {
		errno = EACCES;
		return NULL;
	}
	errno = saved;
	return GUARD_REAL(_IO_proc_open) ? guard_real__IO_proc_open(fp, cmd, mode) : NULL;
}

/* The old stat-versioned mknod (glibc before 2.33; reachable with dlvsym). */
GUARD_EXPORT int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev)
{
	(void)ver;
	return mknod(path, mode, dev ? *dev : 0);
}

GUARD_EXPORT int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev)
{
	(void)ver;
	return mknodat(dirfd, path, mode, dev ? *dev : 0);
}

GUARD_EXPORT int futimes(int fd, const struct timeval tv[2])
{
	struct timespec ts[2], *t = NULL;

	if (tv) {
		for (int i = 0; i < 2; i++) {
			ts[i].tv_sec = tv[i].tv_sec;
			ts[i].tv_nsec = tv[i].tv_usec * 1000;
		}
		t = ts;
	}
	return futimens(fd, t);
}

/* ---- streams on a path ------------------------------------------------------------------ */

GUARD_EXPORT FILE *__nss_files_fopen(const char *path)
{
	if (check_mode("fopen", path, "r") < 0)
		return NULL;
	return GUARD_REAL(__nss_files_fopen) ? guard_real___nss_files_fopen(path) : NULL;
}

GUARD_EXPORT FILE *setmntent(const char *path, const char *mode)
{
	if (check_mode("setmntent", path, mode) < 0)
		return NULL;
	return GUARD_REAL(setmntent) ? guard_real_setmntent(path, mode) : NULL;
}

GUARD_EXPORT FILE *__setmntent(const char *path, const char *mode)
{
	return setmntent(path, mode);
}

/* A catalogue named with a slash is opened as that path; a bare name goes through
 * NLSPATH's templates (read only, and the file's magic number is checked). */
GUARD_EXPORT nl_catd catopen(const char *name, int flag)
{
	if (name && strchr(name, '/') && check_mode("catopen", name, "r") < 0)
		return (nl_catd)-1;
	return GUARD_REAL(catopen) ? guard_real_catopen(name, flag) : (nl_catd)-1;
}

GUARD_EXPORT int __open_catalog(const char *name, const char *nlspath, const char *env,
				struct __catalog_obj *cat)
{
	if (name && strchr(name, '/') && check_mode("catopen", name, "r") < 0)
		return -1;
	return GUARD_REAL(__open_catalog) ? guard_real___open_catalog(name, nlspath, env, cat) : -1;
}

/* ---- login records: utmpname() names the file pututline() writes ----------------------- */

/* The file the utmp functions use, as the last utmpname() named it (libc keeps its
 * own copy; this one is what the writers are judged against). */
static char utmp_file[PATH_MAX] = "/var/run/utmp";
static char wtmp_file[] = "/var/log/wtmp";

static int utmp_name(const char *call, const char *path, int (*real)(const char *))
{
	size_t n = path ? strlen(path) : 0;

	if (path && check_open_flags(call, AT_FDCWD, path, O_RDONLY) < 0)
		return -1;
	if (!real)
		return refused_int(ENOSYS);
	if (real(path) < 0)
		return -1;
	if (path && n < sizeof(utmp_file))
		memcpy(utmp_file, path, n + 1);
	return 0;
}

GUARD_EXPORT int utmpname(const char *path)
{
	return utmp_name("utmpname", path, GUARD_REAL(utmpname));
}

GUARD_EXPORT int utmpxname(const char *path)
{
	return utmp_name("utmpxname", path, GUARD_REAL(utmpxname));
}

GUARD_EXPORT struct utmp *pututline(const struct utmp *ut)
{
	if (check_open_flags("pututline", AT_FDCWD, utmp_file, O_RDWR) < 0)
		return NULL;
	return GUARD_REAL(pututline) ? guard_real_pututline(ut) : NULL;
}

GUARD_EXPORT struct utmpx *pututxline(const struct utmpx *ut)
{
	if (check_open_flags("pututxline", AT_FDCWD, utmp_file, O_RDWR) < 0)
		return NULL;
	return GUARD_REAL(pututxline) ? guard_real_pututxline(ut) : NULL;
}

GUARD_EXPORT void updwtmp(const char *path, const struct utmp *ut)
{
	if (check_open_flags("updwtmp", AT_FDCWD, path, O_WRONLY) == 0 && GUARD_REAL(updwtmp))
		guard_real_updwtmp(path, ut);
}

GUARD_EXPORT void updwtmpx(const char *path, const struct utmpx *ut)
{
	if (check_open_flags("updwtmpx", AT_FDCWD, path, O_WRONLY) == 0 && GUARD_REAL(updwtmpx))
		guard_real_updwtmpx(path, ut);
}

GUARD_EXPORT void logwtmp(const char *line, const char *name, const char *host)
{
	if (check_open_flags("logwtmp", AT_FDCWD, wtmp_file, O_WRONLY) == 0 && GUARD_REAL(logwtmp))
		guard_real_logwtmp(line, name, host);
}

GUARD_EXPORT void login(const struct utmp *ut)
{
	if (check_open_flags("login", AT_FDCWD, "/var/run/utmp", O_RDWR) == 0 &&
	    check_open_flags("login", AT_FDCWD, wtmp_file, O_WRONLY) == 0 && GUARD_REAL(login))
		guard_real_login(ut);
}

GUARD_EXPORT int logout(const char *line)
{
	if (check_open_flags("logout", AT_FDCWD, "/var/run/utmp", O_RDWR) < 0)
		return 0;
	return GUARD_REAL(logout) ? guard_real_logout(line) : 0;
}

/* ---- files the kernel or libc writes for the process ------------------------------------ */

GUARD_EXPORT int acct(const char *path)
{
	if (path && check_open_flags("acct", AT_FDCWD, path, O_WRONLY | O_APPEND) < 0)
		return -1;
	return GUARD_REAL(acct) ? guard_real_acct(path) : refused_int(ENOSYS);
}

/* gprof's output, written at exit by programs built with -pg: gmon.out in the working
 * folder, or $GMON_OUT_PREFIX.PID. */
GUARD_EXPORT void _mcleanup(void)
{
	char name[PATH_MAX];
	const char *prefix = getenv("GMON_OUT_PREFIX");
	struct rt_msg m;

	rt_msg_init(&m, name, sizeof(name));
	if (prefix) {
		rt_msg_add(&m, prefix);
		rt_msg_add(&m, ".");
		rt_msg_addu(&m, (unsigned long)getpid());
	} else {
		rt_msg_add(&m, "gmon.out");
	}
	if (check_open_flags("_mcleanup", AT_FDCWD, name, O_CREAT | O_TRUNC | O_WRONLY) < 0)
		return;
	if (GUARD_REAL(_mcleanup))
		guard_real__mcleanup();
}

GUARD_EXPORT int lckpwdf(void)
{
	if (check_open_flags("lckpwdf", AT_FDCWD, "/etc/.pwd.lock", O_WRONLY | O_CREAT) < 0)
		return -1;
	return GUARD_REAL(lckpwdf) ? guard_real_lckpwdf() : refused_int(ENOSYS);
}

/* ---- watches: their events name what a folder holds ------------------------------------- */

static int check_list(const char *call, int dirfd, const char *path)
{
	char buf[PATH_MAX];
	const char *use;

	return guard_check_copy(call, dirfd, path, POL_OP_LIST, 0, buf, sizeof(buf), &use);
}

GUARD_EXPORT int inotify_add_watch(int fd, const char *path, uint32_t mask)
{
	if (check_list("inotify_add_watch", AT_FDCWD, path) < 0)
		return -1;
	return GUARD_REAL(inotify_add_watch) ? guard_real_inotify_add_watch(fd, path, mask)
					     : refused_int(ENOSYS);
}

GUARD_EXPORT int fanotify_mark(int fd, unsigned int flags, uint64_t mask, int dirfd,
			       const char *path)
{
	if (!(flags & FAN_MARK_REMOVE) && check_list("fanotify_mark", dirfd, path ? path : ".") < 0)
		return -1;
	return GUARD_REAL(fanotify_mark) ? guard_real_fanotify_mark(fd, flags, mask, dirfd, path)
					 : refused_int(ENOSYS);
}

/* ---- an RPC service on a Unix socket: libc's internal bind creates the file ------------- */

GUARD_EXPORT void *svcunix_create(int sock, unsigned sendsz, unsigned recvsz, char *path)
{
	char buf[PATH_MAX];
	const char *use;

	if (guard_check_copy("bind", AT_FDCWD, path, POL_OP_CREATE, POL_PATH_NOFOLLOW, buf,
			     sizeof(buf), &use) < 0)
		return NULL;
	/* only a compat version: dlsym does not find it, dlvsym does */
	void *(*real)(int, unsigned, unsigned, char *) =
	    GUARD_REAL(svcunix_create)
		? guard_real_svcunix_create
		: (void *(*)(int, unsigned, unsigned, char *))guard_compat_fn("svcunix_create");

	return real ? real(sock, sendsz, recvsz, path) : NULL;
}

/* ---- the new mount API's configuration (fsopen and fspick are refused already) ---------- */

GUARD_EXPORT int fsconfig(int fd, unsigned int cmd, const char *key, const void *value, int aux)
{
	int saved = errno, rc = 0;

	if (guard_enter()) {
		rc = guard_check_builtin("fsconfig", RT_RULE_MOUNT, key);
		guard_leave();
	}
	if (rc < 0)
		return refused_int(EPERM);
	errno = saved;
	return GUARD_REAL(fsconfig) ? guard_real_fsconfig(fd, cmd, key, value, aux)
				    : refused_int(ENOSYS);
}

/* ---- dlopen: a library named by path is code the process will run ----------------------- */

static __attribute__((noinline)) int dlopen_refused(const char *file)
{
	char buf[PATH_MAX];
	const char *use;

	return file && strchr(file, '/') &&
	       guard_check_copy("dlopen", AT_FDCWD, file, POL_OP_EXEC, 0, buf, sizeof(buf), &use) <
		   0;
}

/* The real call is a tail call: dlopen finds the caller's RUNPATH, $ORIGIN and
 * namespace from its return address, which must stay the caller's. */
GUARD_EXPORT __attribute__((optimize("optimize-sibling-calls"))) void *dlopen(const char *file,
									      int mode)
{
	if (dlopen_refused(file) || !GUARD_REAL(dlopen))
		return NULL;
	return guard_real_dlopen(file, mode);
}

/* ---- iconv_open: gconv modules from $GCONV_PATH, set in the process itself --------------- */

GUARD_EXPORT iconv_t iconv_open(const char *to, const char *from)
{
	const char *path = getenv("GCONV_PATH");
	int saved = errno, rc = 0;

	if (path && *path && guard_enter()) {
		rc = guard_check_search_list("GCONV_PATH", path, POL_OP_EXEC);
		guard_leave();
	}
	if (rc < 0) {
		errno = EACCES;
		return (iconv_t)-1;
	}
	errno = saved;
	return GUARD_REAL(iconv_open) ? guard_real_iconv_open(to, from) : (iconv_t)-1;
}
