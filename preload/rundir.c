/* rundir.c - the guard library and the policy snapshot that `dcg run` and `dcg sandbox`
 * hand the guarded processes (rundir.h). */
#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* A private folder of ours: created 0700, refused when someone else owns it or it is
 * open to others (another user could swap the snapshot). */
static int private_dir(char *out, size_t size)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int n;

	if (rt && rt[0] == '/')
		n = snprintf(out, size, "%s/dcg", rt);
	else
		n = snprintf(out, size, "/tmp/dcg-%u", (unsigned)getuid());
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	if (mkdir(out, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (lstat(out, &st) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

static int same_content(const char *path, const char *buf, size_t len)
{
	char chunk[8192];
	size_t off = 0;
	struct stat st;
	int fd, same = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != len)
		goto out_close;
	while (off < len) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n <= 0 || memcmp(chunk, buf + off, (size_t)n) != 0)
			goto out_close;
		off += (size_t)n;
	}
	same = 1;
out_close:
	close(fd);
	return same;
}

/* Writes the snapshot to dir/snap-HASH (atomically, by rename). */
static int write_snapshot(const char *dir, const char *buf, size_t len, char *out, size_t size)
{
	char tmp[PATH_MAX];
	size_t off = 0;
	int n, fd, rc = 0;

	n = snprintf(out, size, "%s/snap-%016llx", dir, (unsigned long long)fnv1a(buf, len));
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	if (same_content(out, buf, len)) {
		utimensat(AT_FDCWD, out, NULL, 0); /* in use: not stale */
		return 0;
	}
	n = snprintf(tmp, sizeof(tmp), "%s/.snap-XXXXXX", dir);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = -errno;
			goto out_unlink;
		}
		off += (size_t)w;
	}
	if (close(fd) != 0) {
		fd = -1;
		rc = -errno;
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, out) != 0) {
		rc = -errno;
		goto out_unlink;
	}
	return 0;
out_unlink:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return rc;
}

/* Snapshots and notes of sessions not used for a week go: a process still running
 * from one that old falls back to loading the policy files. */
#define STALE_SECONDS (7 * 24 * 3600)
static void remove_stale(const char *dir)
{
	time_t now = time(NULL);
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;

		if (strncmp(e->d_name, "snap-", 5) != 0 && strncmp(e->d_name, "noted-", 6) != 0 &&
		    strncmp(e->d_name, ".snap-", 6) != 0)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && now - st.st_mtime > STALE_SECONDS)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

/* The guard library: $DCG_PRELOAD, else next to the dcg binary, else ../lib/dcg/. */
int run_find_preload(char *out, size_t size)
{
	const char *env = getenv("DCG_PRELOAD");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env)
		return realpath(env, out) && size >= PATH_MAX ? 0 : -ENOENT;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if ((size_t)snprintf(out, size, "%s/libdcg-preload.so", exe) < size &&
	    access(out, R_OK) == 0)
		return 0;
	if ((size_t)snprintf(out, size, "%s/../lib/dcg/libdcg-preload.so", exe) < size &&
	    access(out, R_OK) == 0)
		return 0;
	return -ENOENT;
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The guarded processes decide from the snapshot alone: make sure it gives back the
 * rules it was made from, or hand them the policy files instead (slower, not weaker). */
static int snapshot_round_trips(const struct pol_policy *p, const char *buf, size_t len)
{
	struct pol_policy *q = pol_new(0);
	size_t n = pol_rule_count(p);
	int ok = 0;

	if (!q)
		return 0;
	if (pol_snapshot_load(q, buf, len) < 0 || pol_rule_count(q) < n)
		goto out_free;
	for (size_t i = 0; i < n; i++) {
		struct pol_rule_info a, b;
		ssize_t j;

		if (pol_rule_get(p, i, &a) < 0 || !a.id)
			goto out_free;
		j = pol_rule_find(q, a.id);
		if (j < 0 || pol_rule_get(q, (size_t)j, &b) < 0)
			goto out_free;
		if (a.kind != b.kind || !same_str(a.pattern, b.pattern) ||
		    a.decision != b.decision ||
		    (a.kind == POL_RULE_PATH && a.path_kind != b.path_kind))
			goto out_free;
	}
	ok = !strcmp(pol_root(p) ? pol_root(p) : "", pol_root(q) ? pol_root(q) : "");
out_free:
	pol_free(q);
	return ok;
}

int run_write_snapshot(struct pol_policy *p, const char *origin, char *out, size_t size)
{
	char dir[PATH_MAX], extra[PATH_MAX + 64];
	size_t len = 0;
	char *buf;
	int n, rc;

	rc = private_dir(dir, sizeof(dir));
	if (rc < 0)
		return rc;
	/* The snapshot folder is the guard's own: read-only for the guarded processes. */
	n = snprintf(extra, sizeof(extra), "readOnlyPaths: ['%s/']\n", dir);
	if (n > 0 && (size_t)n < sizeof(extra) && !strchr(dir, '\''))
		pol_load_buffer(p, origin, extra, (size_t)n);
	remove_stale(dir);
	buf = pol_snapshot_save(p, &len);
	if (!buf)
		return -ENOMEM;
	rc = snapshot_round_trips(p, buf, len) ? write_snapshot(dir, buf, len, out, size) : -EINVAL;
	free(buf);
	return rc;
}
