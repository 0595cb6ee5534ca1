/* walk.c - path resolution in the supervisor, on behalf of a tracee.
 *
 * The supervisor checks a path and then acts on it. Between the two, the tracee (or
 * another process) may swap a symlink into the path. So the walk ends in an O_PATH
 * descriptor (the object, or its parent directory), the check is made on that
 * descriptor's canonical path, and the action goes through the descriptor.
 *
 * Most paths hold no symlink: one openat2(RESOLVE_NO_SYMLINKS) pins them. A path with
 * ordinary symlinks (a library under /lib on a merged /usr) is then resolved by the
 * kernel with RESOLVE_NO_MAGICLINKS and kept when it ends outside procfs. Otherwise
 * the walk goes component by component with O_PATH|O_NOFOLLOW, reading each symlink
 * itself, because the kernel would resolve /proc/self (and /dev/stdin, /dev/fd, which
 * point there) as the supervisor, not as the tracee.
 */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SBX_MAX_LINKS 40

void sbx_pin_init(struct sbx_pin *pin)
{
	pin->fd = -1;
	pin->name[0] = '\0';
	pin->abs[0] = '\0';
}

int sbx_pin_dots(const struct sbx_pin *pin)
{
	const char *n = pin->name;

	return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

void sbx_pin_release(struct sbx_pin *pin)
{
	if (pin->fd >= 0)
		close(pin->fd);
	sbx_pin_init(pin);
}

int sbx_fd_path(int fd, char *out, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, out, size - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	out[n] = '\0';
	return 0;
}

pid_t sbx_who_tgid(struct sbx_who *who)
{
	char p[64], buf[512], *t;
	ssize_t n;
	int fd;

	if (who->tgid > 0)
		return who->tgid;
	who->tgid = who->tid;
	snprintf(p, sizeof p, "/proc/%d/status", (int)who->tid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return who->tgid;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return who->tgid;
	buf[n] = '\0';
	t = strstr(buf, "\nTgid:");
	if (t) {
		long v = strtol(t + 6, NULL, 10);
		if (v > 0)
			who->tgid = (pid_t)v;
	}
	return who->tgid;
}

static int sbx_rootfd(void)
{
	static int rootfd = -1;

	if (rootfd < 0)
		rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	return rootfd;
}

static int sbx_is_procfs(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

/* A magic link is followed with the supervisor's own rights, which may exceed the
 * tracee's (another process's descriptors, the supervisor's listener): only the
 * tracee's own /proc entries are followed. Returns 0 or -EACCES. */
static int sbx_magic_ok(struct sbx_who *who, int dirfd)
{
	char where[PATH_MAX], *end;
	long pid;

	if (sbx_fd_path(dirfd, where, sizeof where) < 0 || strncmp(where, "/proc/", 6) != 0)
		return -EACCES;
	pid = strtol(where + 6, &end, 10);
	if (end == where + 6)
		return -EACCES;
	if (pid == who->tid || pid == sbx_who_tgid(who))
		return 0;
	return -EACCES;
}

/* The first component of *p (skipping slashes) into comp; advances *p. Returns the
 * component length, 0 at the end, -ENAMETOOLONG. */
static int sbx_next_comp(const char **p, char *comp, size_t size)
{
	const char *s = *p, *e;

	while (*s == '/')
		s++;
	e = s;
	while (*e && *e != '/')
		e++;
	if ((size_t)(e - s) >= size)
		return -ENAMETOOLONG;
	memcpy(comp, s, (size_t)(e - s));
	comp[e - s] = '\0';
	*p = e;
	return (int)(e - s);
}

static int sbx_only_slashes(const char *s)
{
	while (*s == '/')
		s++;
	return *s == '\0';
}

/* Replaces rest (in place, buffer of size bytes) with head + "/" + rest. */
static int sbx_prepend(char *rest, size_t size, const char *head)
{
	size_t hl = strlen(head), rl = strlen(rest);

	if (hl + 1 + rl + 1 > size)
		return -ENAMETOOLONG;
	memmove(rest + hl + 1, rest, rl + 1);
	memcpy(rest, head, hl);
	rest[hl] = '/';
	return 0;
}

/* The slow walk: component by component. Returns an O_PATH descriptor or -errno. */
static int sbx_walk_slow(struct sbx_who *who, int start, const char *path, int follow_last)
{
	char rest[PATH_MAX * 2], comp[NAME_MAX + 1], target[PATH_MAX];
	const char *p;
	int cur, nfd, links = 0, rc;
	int trailing;

	if (strlen(path) >= sizeof rest)
		return -ENAMETOOLONG;
	memcpy(rest, path, strlen(path) + 1);
	cur = fcntl(path[0] == '/' ? sbx_rootfd() : start, F_DUPFD_CLOEXEC, 0);
	if (cur < 0)
		return -errno;
	p = rest;
	for (;;) {
		rc = sbx_next_comp(&p, comp, sizeof comp);
		if (rc < 0)
			goto out_close_cur;
		if (rc == 0)
			break;
		trailing = *p == '/';
		int last = sbx_only_slashes(p);
		if (strcmp(comp, ".") == 0)
			continue;
		if ((strcmp(comp, "self") == 0 || strcmp(comp, "thread-self") == 0) &&
		    sbx_is_procfs(cur)) {
			/* Only /proc itself has these names; sbx_fd_path tells us we are there. */
			char where[16];
			if (sbx_fd_path(cur, where, sizeof where) == 0 &&
			    strcmp(where, "/proc") == 0) {
				char sub[64];
				if (comp[0] == 's')
					snprintf(sub, sizeof sub, "%d", (int)sbx_who_tgid(who));
				else
					snprintf(sub, sizeof sub, "%d/task/%d",
						 (int)sbx_who_tgid(who), (int)who->tid);
				/* p points into rest: move the remainder to the front first. */
				memmove(rest, p, strlen(p) + 1);
				rc = sbx_prepend(rest, sizeof rest, sub);
				if (rc < 0)
					goto out_close_cur;
				p = rest;
				continue;
			}
		}
		nfd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			rc = -errno;
			goto out_close_cur;
		}
		if (last && !trailing && !follow_last) {
			close(cur);
			cur = nfd;
			break;
		}
		ssize_t n = readlinkat(nfd, "", target, sizeof target - 1);
		if (n < 0) { /* not a symlink */
			close(cur);
			cur = nfd;
			continue;
		}
		if ((size_t)n >= sizeof target - 1) {
			close(nfd);
			rc = -ENAMETOOLONG;
			goto out_close_cur;
		}
		target[n] = '\0';
		if (++links > SBX_MAX_LINKS) {
			close(nfd);
			rc = -ELOOP;
			goto out_close_cur;
		}
		if ((target[0] == '/' || strchr(target, ':')) && sbx_is_procfs(nfd)) {
			/* A magic link (/proc/PID/fd/N, cwd, root, exe): the kernel's jump
			 * gives the very object (a pipe, a deleted file), in the named
			 * process, which must be the tracee ("self" was replaced above). */
			rc = sbx_magic_ok(who, cur);
			if (rc < 0) {
				close(nfd);
				goto out_close_cur;
			}
			int ofd = openat(cur, comp, O_PATH | O_CLOEXEC);
			close(nfd);
			if (ofd < 0) {
				rc = -errno;
				goto out_close_cur;
			}
			close(cur);
			cur = ofd;
			continue;
		}
		close(nfd);
		memmove(rest, p, strlen(p) + 1);
		rc = sbx_prepend(rest, sizeof rest, target);
		if (rc < 0)
			goto out_close_cur;
		p = rest;
		if (target[0] == '/') {
			close(cur);
			cur = fcntl(sbx_rootfd(), F_DUPFD_CLOEXEC, 0);
			if (cur < 0)
				return -errno;
		}
	}
	return cur;
out_close_cur:
	close(cur);
	return rc;
}

/* A path with a symlink on the way, resolved by the kernel but for magic links: kept
 * only when it ends outside procfs, since there "self" would have named the supervisor
 * (a path that passes through /proc/self and leaves it by ".." lands in the same place
 * for either process, and /proc/self/fd/N, cwd, root, exe are magic links). The
 * descriptor's canonical name goes into canon. Returns the descriptor, or -1: take
 * the slow walk, which reads each link itself. */
static int sbx_open_followed(int start, const char *path, int follow_last, char *canon, size_t size)
{
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC | (follow_last ? 0 : O_NOFOLLOW),
	    .resolve = RESOLVE_NO_MAGICLINKS,
	};
	long fd =
	    syscall(SYS_openat2, path[0] == '/' ? sbx_rootfd() : start, path, &how, sizeof how);

	if (fd < 0)
		return -1;
	if (sbx_is_procfs((int)fd) || sbx_fd_path((int)fd, canon, size) < 0 || canon[0] != '/') {
		close((int)fd);
		return -1;
	}
	return (int)fd;
}

/* Opens path as an O_PATH descriptor the way the tracee's kernel walk would. *direct
 * is set to 1 when no symlink was met on the way (one openat2 resolved it), to 2 when
 * the kernel followed ordinary symlinks and canon holds the canonical name. */
static int sbx_open_path(struct sbx_who *who, int start, const char *path, int follow_last,
			 int *direct, char *canon, size_t size)
{
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC | (follow_last ? 0 : O_NOFOLLOW),
	    .resolve = RESOLVE_NO_SYMLINKS,
	};
	long fd;

	if (path[0] == '\0')
		return -ENOENT;
	*direct = 0;
	fd = syscall(SYS_openat2, path[0] == '/' ? sbx_rootfd() : start, path, &how, sizeof how);
	if (fd >= 0) {
		*direct = 1;
		return (int)fd;
	}
	if (errno != ELOOP && errno != EXDEV && errno != ENOSYS)
		return -errno;
	if (errno == ELOOP) {
		fd = sbx_open_followed(start, path, follow_last, canon, size);
		if (fd >= 0) {
			*direct = 2;
			return (int)fd;
		}
	}
	return sbx_walk_slow(who, start, path, follow_last);
}

/* The canonical path of what path (from start, whose canonical path is start_abs or
 * NULL) named, pinned in fd. Resolved without a symlink (direct 1), the path's lexical
 * form is that name: each ".." went up from a real folder, as it does in the text.
 * Otherwise the kernel says it (a readlink of /proc/self/fd/N, already in canon when
 * direct is 2). */
static int sbx_pin_abs(int fd, int direct, const char *canon, const char *start_abs,
		       const char *path, char *out, size_t size)
{
	if (direct == 2)
		return snprintf(out, size, "%s", canon) < (int)size ? 0 : -ENAMETOOLONG;
	if (direct && (path[0] == '/' || (start_abs && start_abs[0] == '/')) &&
	    pol_path_normalize(path, start_abs, NULL, out, size) == 0 && out[0] == '/')
		return 0;
	return sbx_fd_path(fd, out, size);
}

int sbx_walk(struct sbx_who *who, int start, const char *path, enum sbx_walk_mode mode,
	     struct sbx_pin *pin)
{
	return sbx_walk_from(who, start, NULL, path, mode, pin);
}

int sbx_walk_from(struct sbx_who *who, int start, const char *start_abs, const char *path,
		  enum sbx_walk_mode mode, struct sbx_pin *pin)
{
	char dir[PATH_MAX], canon[PATH_MAX];
	size_t len = strlen(path), end, base;
	int fd, rc, trailing = 0, direct = 0;

	sbx_pin_init(pin);
	if (len == 0)
		return -ENOENT;
	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	if (mode != SBX_WALK_PARENT) {
		fd = sbx_open_path(who, start, path, mode == SBX_WALK_FOLLOW, &direct, canon,
				   sizeof canon);
		if (fd < 0)
			return fd;
		rc = sbx_pin_abs(fd, direct, canon, start_abs, path, pin->abs, sizeof pin->abs);
		if (rc < 0) {
			close(fd);
			return rc;
		}
		pin->fd = fd;
		return 0;
	}

	end = len;
	while (end > 0 && path[end - 1] == '/') {
		end--;
		trailing = 1;
	}
	if (end == 0)
		return -EBUSY; /* "/" itself has no parent to act in */
	base = end;
	while (base > 0 && path[base - 1] != '/')
		base--;
	if (end - base > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(pin->name, path + base, end - base);
	pin->name[end - base] = '\0';

	if (base == 0) {
		fd = fcntl(start, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		dir[0] = '.', dir[1] = '\0';
		direct = 1;
	} else {
		memcpy(dir, path, base);
		dir[base] = '\0';
		fd = sbx_open_path(who, start, dir, 1, &direct, canon, sizeof canon);
		if (fd < 0)
			return fd;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return -ENOTDIR;
	}
	if (sbx_pin_dots(pin)) {
		/* "x/." and "x/.." name a directory that exists: pin that one, to be judged
		 * as itself. The kernel creates, removes or renames nothing under such a
		 * name, so a call made through the pin gets the kernel's own answer. */
		if (pin->name[1] == '.') {
			int up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);

			rc = up < 0 ? -errno : 0;
			close(fd);
			if (up < 0)
				return rc;
			fd = up;
			direct = 0; /* its name is the kernel's to say */
		}
		rc = sbx_pin_abs(fd, direct, canon, start_abs, dir, pin->abs, sizeof pin->abs);
		if (rc < 0 || pin->abs[0] != '/') {
			close(fd);
			return rc < 0 ? rc : -ENOENT;
		}
		pin->fd = fd;
		return 0;
	}
	rc = sbx_pin_abs(fd, direct, canon, start_abs, dir, pin->abs, sizeof pin->abs);
	if (rc < 0 || pin->abs[0] != '/') {
		close(fd);
		return rc < 0 ? rc : -ENOENT;
	}
	size_t al = strlen(pin->abs), nl = strlen(pin->name);
	if (al + 1 + nl + 1 > sizeof pin->abs) {
		close(fd);
		return -ENAMETOOLONG;
	}
	if (al > 1)
		pin->abs[al++] = '/';
	memcpy(pin->abs + al, pin->name, nl + 1);
	if (trailing && nl + 1 < sizeof pin->name) {
		pin->name[nl] = '/';
		pin->name[nl + 1] = '\0';
	}
	pin->fd = fd;
	return 0;
}
