/* pin.c - the calls that take a path and return no descriptor (delete, rename, link,
 * new names, metadata) made where they were judged: the folder of the last name (or
 * the object, for the calls that follow a last symlink) is opened with O_PATH, judged
 * again where the kernel's walk met a symlink, and the call is made on that descriptor
 * (unlinkat(fd, name), or /proc/self/fd/N for the calls without an *at form). A
 * symlink another thread flips between the check and the call then changes nothing:
 * the call acts in the place judged. */
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void guard_pin_init(struct guard_pin *p)
{
	p->fd = GUARD_PIN_NONE;
	p->own = 0;
	p->moved = 0;
	p->parent = 0;
	p->name = "";
}

void guard_pin_release(struct guard_pin *p)
{
	int saved = errno;

	if (p->own && p->fd >= 0)
		guard_real_syscall(SYS_close, (long)p->fd);
	errno = saved;
	guard_pin_init(p);
}

/* Opens dirfd/path with O_PATH (flags added): with no symlink on the way when it can
 * (*moved 0: the path as written is where the kernel went), else as the kernel
 * resolves it (*moved 1). Returns the descriptor, or -1 with the open's errno. */
static int pin_open(int dirfd, const char *path, int flags, int *moved)
{
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = (unsigned)(O_PATH | O_CLOEXEC | flags);
	how.resolve = RESOLVE_NO_SYMLINKS;
	*moved = 0;
	fd =
	    guard_real_syscall(SYS_openat2, (long)dirfd, (long)path, (long)&how, (long)sizeof(how));
	if (fd >= 0)
		return (int)fd;
	/* a symlink (or a magic link) on the way, or no openat2 here */
	if (errno != ELOOP && errno != ENOSYS && errno != EPERM && errno != EINVAL &&
	    errno != E2BIG && errno != EXDEV && errno != EAGAIN)
		return -1;
	*moved = 1;
	return (int)guard_real_syscall(SYS_openat, (long)dirfd, (long)path,
				       (long)(O_PATH | O_CLOEXEC | flags), 0L);
}

/* Whether the n bytes at s are "." or "..". */
static int dots(const char *s, size_t n)
{
	return (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.');
}

/* Pins the folder of path's last name (PARENT) or the object (follows a last symlink).
 * 0 pinned, 1 nothing to pin (the plain call is made), -1 with errno. */
int guard_pin_take(int dirfd, const char *path, int parent, struct guard_pin *p)
{
	char dir[PATH_MAX];
	size_t len, end, start;
	int fd;

	guard_pin_init(p);
	if (!path || !path[0] || !GUARD_REAL(syscall))
		return 1;
	if (!parent) {
		fd = pin_open(dirfd, path, 0, &p->moved);
		if (fd < 0)
			return -1;
		p->fd = fd;
		p->own = 1;
		return 0;
	}
	len = guard_strnlen(path, PATH_MAX);
	for (end = len; end > 1 && path[end - 1] == '/'; end--)
		;
	for (start = end; start > 0 && path[start - 1] != '/'; start--)
		;
	/* "/", "x/.", "..": no last name to act on in a folder; the plain call */
	if (end == start || path[start] == '/' || dots(path + start, end - start))
		return 1;
	p->parent = 1;
	p->name = path + start;
	if (start == 0) { /* a last name alone: in dirfd itself */
		p->fd = dirfd;
		return 0;
	}
	if (start >= sizeof(dir))
		return 1;
	memcpy(dir, path, start);
	dir[start] = '\0';
	fd = pin_open(dirfd, dir, O_DIRECTORY, &p->moved);
	if (fd < 0) {
		p->name = "";
		p->parent = 0;
		return -1;
	}
	p->fd = fd;
	p->own = 1;
	return 0;
}

/* Judges the pinned place when the kernel's walk met a symlink: the folder's
 * resolution and the last name, or the object's resolution. 0 or -1. */
static int pin_check(const char *call, const struct guard_pin *p, enum pol_op op, unsigned flags)
{
	char proc[64], target[PATH_MAX];
	struct rt_msg m;
	ssize_t n;

	if (!p->moved)
		return 0;
	if (p->parent)
		return guard_check_path(call, p->fd, p->name, op, flags | POL_PATH_NOFOLLOW);
	rt_msg_init(&m, proc, sizeof(proc));
	rt_msg_add(&m, "/proc/self/fd/");
	rt_msg_addu(&m, (unsigned long)p->fd);
	n = readlink(proc, target, sizeof(target) - 1);
	if (n <= 0 || target[0] != '/')
		return 0; /* no path: nothing a path rule names */
	target[n] = '\0';
	return guard_check_path(call, AT_FDCWD, target, op,
				(flags & ~(unsigned)POL_PATH_NOFOLLOW) | POL_PATH_CANONICAL);
}

int guard_check_pinned(const char *call, int dirfd, const char *path, enum pol_op op,
		       unsigned flags, int parent, char *buf, size_t size, const char **use,
		       struct guard_pin *p)
{
	int saved = errno, rc, err = EACCES;
	const char *copy;

	*use = path;
	guard_pin_init(p);
	if (!guard_enter())
		return 0;
	copy = guard_copy_path(path, buf, size);
	if (copy)
		*use = copy;
	rc = guard_check_path(call, dirfd, copy, op, flags);
	if (rc == 0 && copy) {
		int r = guard_pin_take(dirfd, copy, parent, p);

		if (r < 0) {
			err = errno; /* the call's own error: the place cannot be reached */
			rc = -1;
		} else if (r == 0 && pin_check(call, p, op, flags) < 0) {
			guard_pin_release(p);
			rc = -1;
		}
	}
	guard_leave();
	errno = rc < 0 ? err : saved;
	return rc < 0 ? -1 : 0;
}

const char *guard_pin_path(const struct guard_pin *p, const char *use, char *buf, size_t size)
{
	struct rt_msg m;

	if (p->fd == GUARD_PIN_NONE)
		return use;
	if (p->fd == AT_FDCWD)
		return p->name; /* a last name alone, in the working directory */
	rt_msg_init(&m, buf, size);
	rt_msg_add(&m, "/proc/self/fd/");
	rt_msg_addu(&m, (unsigned long)p->fd);
	if (p->parent) {
		rt_msg_add(&m, "/");
		rt_msg_add(&m, p->name);
	}
	return m.len < size - 1 ? buf : use;
}

int guard_pin_no_proc(const struct guard_pin *p, int rc)
{
	int saved = errno;
	static _Atomic int no_proc = -1;
	int none;

	if (rc >= 0 || errno != ENOENT || p->fd < 0)
		return 0;
	none = atomic_load_explicit(&no_proc, memory_order_relaxed);
	if (none < 0) {
		none = guard_real_syscall(SYS_faccessat, (long)AT_FDCWD, (long)"/proc/self/fd",
					  (long)F_OK, 0L) != 0;
		atomic_store_explicit(&no_proc, none, memory_order_relaxed);
	}
	errno = saved;
	return none;
}
