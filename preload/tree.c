/* tree.c - the calls that change the tree every path rule is written for (mount,
 * umount, chroot, pivot_root, a new mount namespace, the new mount API), refused with
 * the built-in rule runtime.mount; bind() of a Unix socket, which creates a file; a
 * core dump limit raised above the launcher's 0 (runtime.core_dump); and
 * scandir, whose glibc implementation opens the folder through an internal opendir
 * that no wrapper sees. */
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef CLONE_NEWNS
#define CLONE_NEWNS 0x00020000
#endif

static int no_real(void)
{
	errno = ENOSYS;
	return -1;
}

/* Refuses a tree-changing call unless the allowlist names runtime.mount. Returns 0
 * to go on, -1 with errno EPERM. */
static int tree_check(const char *call, const char *path)
{
	char buf[PATH_MAX];
	int saved = errno, rc;

	if (!guard_enter())
		return 0;
	rc = guard_check_builtin(call, RT_RULE_MOUNT, guard_copy_path(path, buf, sizeof(buf)));
	guard_leave();
	errno = rc < 0 ? EPERM : saved;
	return rc;
}

GUARD_EXPORT int mount(const char *source, const char *target, const char *fstype,
		       unsigned long flags, const void *data)
{
	if (tree_check("mount", target) < 0)
		return -1;
	return GUARD_REAL(mount) ? guard_real_mount(source, target, fstype, flags, data)
				 : no_real();
}

GUARD_EXPORT int umount(const char *target)
{
	if (tree_check("umount", target) < 0)
		return -1;
	return GUARD_REAL(umount) ? guard_real_umount(target) : no_real();
}

GUARD_EXPORT int umount2(const char *target, int flags)
{
	if (tree_check("umount2", target) < 0)
		return -1;
	return GUARD_REAL(umount2) ? guard_real_umount2(target, flags) : no_real();
}

GUARD_EXPORT int chroot(const char *path)
{
	if (tree_check("chroot", path) < 0)
		return -1;
	return GUARD_REAL(chroot) ? guard_real_chroot(path) : no_real();
}

GUARD_EXPORT int pivot_root(const char *new_root, const char *put_old)
{
	if (tree_check("pivot_root", new_root) < 0)
		return -1;
	return GUARD_REAL(pivot_root) ? guard_real_pivot_root(new_root, put_old) : no_real();
}

/* Core dumps: `dcg run` starts the tree with a hard RLIMIT_CORE of 0, since a dump is
 * a file the kernel writes for the process where no path check sees it (`ulimit -c
 * unlimited; kill -SEGV $$` in a read-only folder). Only a privileged process could
 * raise it again: refused (runtime.core_dump), with EPERM as the kernel would. Setting
 * it to 0 again passes. */
static int core_check(const char *call, int resource, unsigned long long cur,
		      unsigned long long max)
{
	int saved = errno, rc;

	if (resource != RLIMIT_CORE || (cur == 0 && max == 0) || !guard_enter())
		return 0;
	rc = guard_check_builtin(call, RT_RULE_CORE_DUMP, NULL);
	guard_leave();
	errno = rc < 0 ? EPERM : saved;
	return rc;
}

/* TIOCSTI types into the terminal: a guarded process on the agent's terminal would
 * answer the guard's own question (an ask rule) or leave a command in the user's
 * shell (runtime.tty_inject, EPERM). The request is an unsigned int to the kernel. */
GUARD_EXPORT int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if ((unsigned)request == (unsigned)TIOCSTI && guard_enter()) {
		int rc = guard_check_builtin("ioctl", RT_RULE_TTY_INJECT, NULL);

		guard_leave();
		if (rc < 0) {
			errno = EPERM;
			return -1;
		}
	}
	return GUARD_REAL(ioctl) ? guard_real_ioctl(fd, request, arg) : no_real();
}

GUARD_EXPORT int setrlimit(__rlimit_resource_t resource, const struct rlimit *rlim)
{
	if (rlim && core_check("setrlimit", (int)resource, rlim->rlim_cur, rlim->rlim_max) < 0)
		return -1;
	return GUARD_REAL(setrlimit) ? guard_real_setrlimit(resource, rlim) : no_real();
}

GUARD_EXPORT int setrlimit64(__rlimit_resource_t resource, const struct rlimit64 *rlim)
{
	if (rlim && core_check("setrlimit", (int)resource, rlim->rlim_cur, rlim->rlim_max) < 0)
		return -1;
	return GUARD_REAL(setrlimit64) ? guard_real_setrlimit64(resource, rlim) : no_real();
}

GUARD_EXPORT int prlimit(pid_t pid, __rlimit_resource_t resource, const struct rlimit *rlim,
			 struct rlimit *old)
{
	if (rlim && core_check("prlimit", (int)resource, rlim->rlim_cur, rlim->rlim_max) < 0)
		return -1;
	return GUARD_REAL(prlimit) ? guard_real_prlimit(pid, resource, rlim, old) : no_real();
}

GUARD_EXPORT int prlimit64(pid_t pid, __rlimit_resource_t resource, const struct rlimit64 *rlim,
			   struct rlimit64 *old)
{
	if (rlim && core_check("prlimit", (int)resource, rlim->rlim_cur, rlim->rlim_max) < 0)
		return -1;
	return GUARD_REAL(prlimit64) ? guard_real_prlimit64(pid, resource, rlim, old) : no_real();
}

/* A new mount namespace lets the process mount over anything, the preload's own
 * folder included (its children would then run unguarded). */
GUARD_EXPORT int unshare(int flags)
{
	if ((flags & CLONE_NEWNS) && tree_check("unshare", NULL) < 0)
		return -1;
	return GUARD_REAL(unshare) ? guard_real_unshare(flags) : no_real();
}

/* Whether fd is a mount namespace (setns with nstype 0 accepts any kind). */
static int is_mnt_ns(int fd)
{
	char proc[64], link[64];
	struct rt_msg m;
	int saved = errno;
	ssize_t n;

	rt_msg_init(&m, proc, sizeof(proc));
	rt_msg_add(&m, "/proc/self/fd/");
	rt_msg_addu(&m, (unsigned long)fd);
	n = readlink(proc, link, sizeof(link) - 1);
	errno = saved;
	return n >= 4 && memcmp(link, "mnt:", 4) == 0;
}

GUARD_EXPORT int setns(int fd, int nstype)
{
	/* nstype 0 takes whatever fd is; a pidfd with CLONE_NEWNS joins its mounts. */
	if (((nstype & CLONE_NEWNS) || (nstype == 0 && is_mnt_ns(fd))) &&
	    tree_check("setns", NULL) < 0)
		return -1;
	return GUARD_REAL(setns) ? guard_real_setns(fd, nstype) : no_real();
}

GUARD_EXPORT int open_tree(int dirfd, const char *path, unsigned int flags)
{
	if (tree_check("open_tree", path) < 0)
		return -1;
	return GUARD_REAL(open_tree) ? guard_real_open_tree(dirfd, path, flags) : no_real();
}

GUARD_EXPORT int move_mount(int from_dirfd, const char *from_path, int to_dirfd,
			    const char *to_path, unsigned int flags)
{
	if (tree_check("move_mount", to_path) < 0)
		return -1;
	return GUARD_REAL(move_mount)
		   ? guard_real_move_mount(from_dirfd, from_path, to_dirfd, to_path, flags)
		   : no_real();
}

GUARD_EXPORT int fsopen(const char *fsname, unsigned int flags)
{
	if (tree_check("fsopen", NULL) < 0)
		return -1;
	return GUARD_REAL(fsopen) ? guard_real_fsopen(fsname, flags) : no_real();
}

GUARD_EXPORT int fsmount(int fd, unsigned int flags, unsigned int attr_flags)
{
	if (tree_check("fsmount", NULL) < 0)
		return -1;
	return GUARD_REAL(fsmount) ? guard_real_fsmount(fd, flags, attr_flags) : no_real();
}

GUARD_EXPORT int fspick(int dirfd, const char *path, unsigned int flags)
{
	if (tree_check("fspick", path) < 0)
		return -1;
	return GUARD_REAL(fspick) ? guard_real_fspick(dirfd, path, flags) : no_real();
}

GUARD_EXPORT int mount_setattr(int dirfd, const char *path, unsigned int flags,
			       struct mount_attr *attr, size_t size)
{
	if (tree_check("mount_setattr", path) < 0)
		return -1;
	return GUARD_REAL(mount_setattr) ? guard_real_mount_setattr(dirfd, path, flags, attr, size)
					 : no_real();
}

/* bind() of a Unix socket to a path creates a file there (abstract names, starting
 * with a NUL byte, create none). */
GUARD_EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	int saved = errno, rc = 0;

	if (addr && addr->sa_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path) &&
	    guard_enter()) {
		const struct sockaddr_un *un = (const struct sockaddr_un *)addr;
		size_t n = len - offsetof(struct sockaddr_un, sun_path);
		char path[sizeof(un->sun_path) + 1];

		if (n > sizeof(un->sun_path))
			n = sizeof(un->sun_path);
		memcpy(path, un->sun_path, n);
		path[n] = '\0';
		if (path[0])
			rc = guard_check_path("bind", AT_FDCWD, path, POL_OP_CREATE,
					      POL_PATH_NOFOLLOW);
		guard_leave();
	}
	if (rc < 0) {
		errno = EACCES;
		return -1;
	}
	errno = saved;
	return GUARD_REAL(bind) ? guard_real_bind(fd, addr, len) : no_real();
}

/* scandir lists a folder: judged like opendir, on the folder as the kernel opens it. */
static int check_list(const char *call, int dirfd, const char *path)
{
	int saved = errno, fd, rc = 0, hold;

	if (!path || !guard_enter())
		return 0;
	hold = guard_cancel_hold(); /* (libc's openat and close: cancellation points) */
	fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		rc = guard_verify_fd(call, dirfd, path, fd, POL_OP_LIST);
		close(fd);
	}
	guard_cancel_release(hold);
	guard_leave();
	errno = rc < 0 ? EACCES : saved;
	return rc;
}

GUARD_EXPORT int scandir(const char *dir, struct dirent ***list,
			 int (*filter)(const struct dirent *),
			 int (*compar)(const struct dirent **, const struct dirent **))
{
	if (check_list("scandir", AT_FDCWD, dir) < 0)
		return -1;
	return GUARD_REAL(scandir) ? guard_real_scandir(dir, list, filter, compar) : no_real();
}

GUARD_EXPORT int scandir64(const char *dir, struct dirent64 ***list,
			   int (*filter)(const struct dirent64 *),
			   int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	if (check_list("scandir64", AT_FDCWD, dir) < 0)
		return -1;
	return GUARD_REAL(scandir64) ? guard_real_scandir64(dir, list, filter, compar) : no_real();
}

GUARD_EXPORT int scandirat(int dirfd, const char *dir, struct dirent ***list,
			   int (*filter)(const struct dirent *),
			   int (*compar)(const struct dirent **, const struct dirent **))
{
	if (check_list("scandirat", dirfd, dir) < 0)
		return -1;
	return GUARD_REAL(scandirat) ? guard_real_scandirat(dirfd, dir, list, filter, compar)
				     : no_real();
}

GUARD_EXPORT int scandirat64(int dirfd, const char *dir, struct dirent64 ***list,
			     int (*filter)(const struct dirent64 *),
			     int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	if (check_list("scandirat64", dirfd, dir) < 0)
		return -1;
	return GUARD_REAL(scandirat64) ? guard_real_scandirat64(dirfd, dir, list, filter, compar)
				       : no_real();
}
