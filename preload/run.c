/* run.c - `dcg run [--policy FILE] [--intent ID] [-- CMD ARGS...]`: CMD (default
 * $SHELL, else /bin/bash) with libdcg-preload.so in LD_PRELOAD.
 *
 * The policy is loaded and compiled here, once; children get its snapshot in a file
 * ($DCG_SNAPSHOT) so that each process starts without parsing YAML. The snapshot file
 * is named by a hash of its content and kept: a daemon started under the guard can
 * still exec after this command is gone, and the next run with the same policy reuses
 * it. dcg run execs CMD itself, so CMD's exit status and signals are its own. */
#include "../hook/commands.h"
#include "../hook/hook.h"

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

#include "dcg_policy.h"

static void run_usage(FILE *f)
{
	fprintf(f, "usage: dcg run [--policy FILE] [--intent ID] [-- CMD ARGS...]\n"
		   "Runs CMD (default $SHELL, else /bin/bash) with the preload guard: every\n"
		   "dynamically linked process it starts refuses what the policy forbids.\n"
		   "Not covered: static binaries, raw syscalls, set-uid programs (dcg sandbox).\n");
}

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
static int find_preload(char *out, size_t size)
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

/* LD_PRELOAD with the guard first, keeping what was there (unless it is already in). */
static int set_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char *v;
	size_t n;
	int rc;

	if (old && strstr(old, lib))
		return 0;
	if (!old || !*old)
		return setenv("LD_PRELOAD", lib, 1);
	n = strlen(lib) + 1 + strlen(old) + 1;
	v = malloc(n);
	if (!v)
		return -1;
	snprintf(v, n, "%s %s", lib, old);
	rc = setenv("LD_PRELOAD", v, 1);
	free(v);
	return rc;
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

static void print_blocked(const struct pol_result *r, char *const argv[])
{
	fprintf(stderr, "dcg: blocked exec of %s: %s [%s]\n", argv[0],
		r->reason ? r->reason : "refused", r->rule_id ? r->rule_id : "?");
}

int cmd_run(int argc, char **argv)
{
	const char *policy_file = dcg_global_policy, *intent = NULL;
	char policy_abs[PATH_MAX], lib[PATH_MAX], dir[PATH_MAX], snap[PATH_MAX], logp[PATH_MAX];
	char *default_cmd[2] = {NULL, NULL};
	struct pol_policy *p = NULL;
	struct pol_result r;
	struct pol_ctx ctx;
	char **cmd;
	char *buf = NULL;
	size_t len = 0;
	int a = 1, rc = 1;

	while (a < argc) {
		if (!strcmp(argv[a], "--")) {
			a++;
			break;
		} else if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
			run_usage(stdout);
			return 0;
		} else if (!strcmp(argv[a], "--policy") && a + 1 < argc) {
			policy_file = argv[a + 1];
			a += 2;
		} else if (!strncmp(argv[a], "--policy=", 9)) {
			policy_file = argv[a] + 9;
			a++;
		} else if (!strcmp(argv[a], "--intent") && a + 1 < argc) {
			intent = argv[a + 1];
			a += 2;
		} else if (!strncmp(argv[a], "--intent=", 9)) {
			intent = argv[a] + 9;
			a++;
		} else if (argv[a][0] == '-') {
			fprintf(stderr, "dcg run: unknown option '%s'\n", argv[a]);
			run_usage(stderr);
			return 1;
		} else {
			break;
		}
	}
	if (a < argc) {
		cmd = argv + a;
	} else {
		const char *sh = getenv("SHELL");

		default_cmd[0] = (char *)(sh && *sh ? sh : "/bin/bash");
		cmd = default_cmd;
	}
	if (!policy_file)
		policy_file = getenv("DCG_POLICY");
	if (policy_file && *policy_file) {
		if (!realpath(policy_file, policy_abs)) {
			fprintf(stderr, "dcg run: policy file %s: %s\n", policy_file,
				strerror(errno));
			return 1;
		}
		policy_file = policy_abs;
	} else {
		policy_file = NULL;
	}
	if (find_preload(lib, sizeof(lib)) < 0) {
		fprintf(stderr,
			"dcg run: libdcg-preload.so not found next to dcg (set DCG_PRELOAD)\n");
		return 1;
	}

	p = hook_policy_open(policy_file, NULL, stderr);
	if (!p) {
		fprintf(stderr, "dcg run: out of memory loading the policy\n");
		return 1;
	}
	if (private_dir(dir, sizeof(dir)) == 0) {
		/* The snapshot folder is the guard's own: read-only for the guarded processes. */
		char extra[PATH_MAX + 64];
		int n = snprintf(extra, sizeof(extra), "readOnlyPaths: ['%s/']\n", dir);

		if (n > 0 && (size_t)n < sizeof(extra) && !strchr(dir, '\''))
			pol_load_buffer(p, "<dcg run>", extra, (size_t)n);
		remove_stale(dir);
		buf = pol_snapshot_save(p, &len);
		if (buf && !snapshot_round_trips(p, buf, len))
			fprintf(stderr, "dcg run: the policy snapshot does not load back as saved; "
					"each process will load the policy files itself\n");
		else if (!buf || write_snapshot(dir, buf, len, snap, sizeof(snap)) < 0)
			fprintf(stderr, "dcg run: cannot write the policy snapshot; each process "
					"will load the policy files itself\n");
		else if (setenv("DCG_SNAPSHOT", snap, 1) != 0)
			goto out_free;
	} else {
		fprintf(stderr, "dcg run: no private folder for the policy snapshot (%s)\n", dir);
	}
	if (policy_file && setenv("DCG_POLICY", policy_file, 1) != 0)
		goto out_free;
	/* One session per dcg run: the guard says once per session that a program it
	 * cannot follow (static, set-uid) ran. */
	{
		char sess[64];

		snprintf(sess, sizeof(sess), "%ld.%ld", (long)getpid(), (long)time(NULL));
		if (setenv("DCG_SESSION", sess, 1) != 0)
			goto out_free;
	}
	/* The log path is fixed now, so that `env -i` in a child does not move it. */
	if (pol_log_path(logp, sizeof(logp)) == 0 && logp[0] == '/' &&
	    setenv("DCG_LOG", logp, 1) != 0)
		goto out_free;
	/* Checks the ID against the project's intents file and sets $DCG_INTENT and
	 * $DCG_INTENTS_FILE, which the guard reads (and re-injects) in every process. */
	if (intent && hook_intent_prepare_run(intent, stderr) != 0)
		goto out_free;

	/* CMD itself is the first exec under the guard. */
	memset(&ctx, 0, sizeof(ctx));
	pol_result_init(&r);
	if (pol_check_argv(p, cmd, &ctx, &r) == POL_DENY) {
		print_blocked(&r, cmd);
		pol_result_release(&r);
		rc = 126;
		goto out_free;
	}
	pol_result_release(&r);

	if (set_preload(lib) != 0)
		goto out_free;
	free(buf);
	pol_free(p);
	fflush(NULL);
	execvp(cmd[0], cmd);
	fprintf(stderr, "dcg run: %s: %s\n", cmd[0], strerror(errno));
	return errno == ENOENT ? 127 : 126;
out_free:
	free(buf);
	pol_free(p);
	return rc;
}
