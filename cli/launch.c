/* launch.c - the guarded environment that `dcg run` and `dcg sandbox` build before CMD
 * starts: their shared options, the guard library and the policy snapshot (launch.h). */
#include "launch.h"

#include "commands.h"
#include "hook.h"
#include "argvidx.h"
#include "pathidx.h"
#include "rt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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
	struct stat st;

	if (pol_runtime_dir(out, size) < 0)
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
	int n;

	n = snprintf(out, size, "%s/snap-%016llx", dir, (unsigned long long)fnv1a(buf, len));
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	if (same_content(out, buf, len)) {
		utimensat(AT_FDCWD, out, NULL, 0); /* in use: not stale */
		return 0;
	}
	return pol_write_atomic(out, buf, len, 0600);
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

		/* snap-HASH, snap-HASH.dcg-XXXXXX (a write cut short), noted-SESSION-HASH */
		if (strncmp(e->d_name, "snap-", 5) != 0 && strncmp(e->d_name, "noted-", 6) != 0)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && now - st.st_mtime > STALE_SECONDS)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

/* The guard library: $DCG_PRELOAD, else next to the dcg binary, else ../lib/dcg/,
 * canonical: the name in LD_PRELOAD is the one /proc/PID/maps shows (the supervisor
 * tells the guard's own code from foreign code by it), never ~/.local/bin/../lib/dcg/. */
int launch_find_preload(char *out, size_t size)
{
	static const char *const rel[] = {"/libdcg-preload.so", "/../lib/dcg/libdcg-preload.so"};
	const char *env = getenv("DCG_PRELOAD");
	char exe[PATH_MAX], cand[PATH_MAX + 40];
	ssize_t n;
	char *slash;

	if (size < PATH_MAX)
		return -ENAMETOOLONG;
	if (env && *env)
		return realpath(env, out) ? 0 : -ENOENT;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		if ((size_t)snprintf(cand, sizeof(cand), "%s%s", exe, rel[i]) < sizeof(cand) &&
		    access(cand, R_OK) == 0 && realpath(cand, out))
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

/* The guard's compact path index and argv filter beside the snapshot (snapshot.paths,
 * policy/pathidx.h; snapshot.argv, policy/argvidx.h): without them every path and exec
 * check of the session goes to the policy engine (slower, not weaker), so a failure
 * here is not one of the session's. */
static void write_path_index(const struct pol_policy *p, const char *snap)
{
	static const struct {
		const char *suffix;
		char *(*save)(const struct pol_policy *p, size_t *len);
	} beside[] = {{".paths", pol_pidx_save}, {".argv", pol_aidx_save}};
	char file[PATH_MAX + 8];

	for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
		size_t len = 0;
		char *buf;
		int n = snprintf(file, sizeof(file), "%s%s", snap, beside[i].suffix);

		if (n < 0 || (size_t)n >= sizeof(file))
			return;
		buf = beside[i].save(p, &len);
		if (!buf || pol_write_atomic(file, buf, len, 0600) != 0)
			unlink(file);
		free(buf);
	}
}

int launch_write_snapshot(struct pol_policy *p, const char *origin, char *out, size_t size)
{
	char dir[PATH_MAX];
	size_t len = 0;
	char *buf;
	int rc;

	/* The snapshot folder is the guard's own, read-only to the guarded processes
	 * like every other (dcg.self.snapshot, pol_self_rows). */
	rc = private_dir(dir, sizeof(dir));
	if (rc < 0)
		return rc;
	remove_stale(dir);
	buf = pol_snapshot_save(p, &len);
	if (!buf)
		return -ENOMEM;
	rc = snapshot_round_trips(p, buf, len) ? write_snapshot(dir, buf, len, out, size) : -EINVAL;
	free(buf);
	if (rc == 0)
		write_path_index(p, out);
	return rc;
}

int launch_parse(int argc, char **argv, struct launch_args *a, void (*usage)(FILE *f))
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--policy") && i + 1 < argc) {
			a->policy_file = argv[++i];
		} else if (!strncmp(argv[i], "--policy=", 9)) {
			a->policy_file = argv[i] + 9;
		} else if (!strcmp(argv[i], "--intent") && i + 1 < argc) {
			a->intent = argv[++i];
		} else if (!strncmp(argv[i], "--intent=", 9)) {
			a->intent = argv[i] + 9;
		} else if (!strcmp(argv[i], "--no-preload") &&
			   a->preload != LAUNCH_PRELOAD_REQUIRED) {
			a->preload = LAUNCH_PRELOAD_NONE;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "%s: unknown option '%s'\n", a->name, argv[i]);
			usage(stderr);
			return -1;
		} else {
			break; /* CMD without "--" */
		}
	}
	if (i < argc) {
		a->cmd = argv + i;
	} else {
		const char *sh = getenv("SHELL");

		a->default_cmd[0] = (char *)(sh && *sh ? sh : "/bin/bash");
		a->default_cmd[1] = NULL;
		a->cmd = a->default_cmd;
	}
	return 1;
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

/* The snapshot for the guarded processes, or a warning: they then load the policy
 * files themselves (slower, not weaker). */
static int set_snapshot(struct pol_policy *p, const char *name)
{
	char snap[PATH_MAX], origin[64];
	int rc;

	snprintf(origin, sizeof(origin), "<%s>", name);
	rc = launch_write_snapshot(p, origin, snap, sizeof(snap));
	if (rc == -EPERM || rc == -ENAMETOOLONG)
		fprintf(stderr, "%s: no private folder for the policy snapshot\n", name);
	else if (rc == -EINVAL)
		fprintf(stderr,
			"%s: the policy snapshot does not load back as saved; "
			"each process will load the policy files itself\n",
			name);
	else if (rc < 0)
		fprintf(stderr,
			"%s: cannot write the policy snapshot; each process "
			"will load the policy files itself\n",
			name);
	else if (setenv("DCG_SNAPSHOT", snap, 1) != 0)
		return -1;
	return 0;
}

/* The session's start, from the stamp of a file made now in our private folder,
 * session-PID-N (runtime/rt.h, rt_session_begin()), which then holds the names the
 * session keeps; its path into kept ("" when none could be made: the start then comes
 * from an unnamed file, rt_session_now()). The files of sessions whose launcher is
 * gone (dcg run's pid is the agent's, dcg sandbox's the supervisor's) are removed. */
static long long session_start(char *kept, size_t size)
{
	char dir[PATH_MAX];
	long long start = -1;
	struct dirent *e;
	DIR *d;

	kept[0] = '\0';
	if (private_dir(dir, sizeof(dir)) < 0)
		return rt_session_now();
	if ((d = opendir(dir))) {
		while ((e = readdir(d))) {
			long pid;

			if (sscanf(e->d_name, "session-%ld-", &pid) == 1 && pid > 0 &&
			    kill((pid_t)pid, 0) != 0 && errno == ESRCH)
				unlinkat(dirfd(d), e->d_name, 0);
		}
		closedir(d);
	}
	for (unsigned i = 0; i < 8 && start < 0; i++) {
		int n = snprintf(kept, size, "%s/session-%ld-%u", dir, (long)getpid(), i);

		if (n < 0 || (size_t)n >= size)
			break;
		start = rt_session_begin(kept);
	}
	if (start < 0) {
		kept[0] = '\0';
		start = rt_session_now();
	}
	return start;
}

/* DCG_POLICY, DCG_SESSION, DCG_LOG, the intent, LD_PRELOAD, DCG_SANDBOX. */
static int set_environment(const struct launch_args *a, const char *policy_abs, const char *lib)
{
	char sess[PATH_MAX + 96], logp[PATH_MAX], kept[PATH_MAX];
	long long start = session_start(kept, sizeof(kept));

	if (policy_abs && setenv("DCG_POLICY", policy_abs, 1) != 0)
		return -1;
	/* One session per launch: the guard says once per session that a program it
	 * cannot follow (static, set-uid) ran; the wrapped agent's pid (dcg run execs it;
	 * dcg sandbox's child puts its own) and the start, to the nanosecond, which tells
	 * the session's own new files (atomic saves) from older ones: the stamp of a file
	 * made now, on the file systems' own clock (runtime/rt.h); then ":FILE", the
	 * session's kept names (a name older than the session that a file of the
	 * session's replaced stays no-delete). */
	/* Under an agent's shell prefix the wrapped process is a tool's shell: no agent. */
	/* and, for the agent, its process's start: its pid is the agent only while that
	 * process lives (rt_session_is_agent()). The one format: runtime/rt.h. */
	{
		struct rt_session ses = {.agent = a->no_agent ? 0 : getpid(),
					 .agent_start = a->no_agent ? 0 : rt_proc_start(0),
					 .start_ns = start,
					 .kept = kept[0] ? kept : NULL};

		if (rt_session_format(sess, sizeof(sess), &ses) < 0)
			return -1;
	}
	if (setenv("DCG_SESSION", sess, 1) != 0)
		return -1;
	/* The log path is fixed now, so that `env -i` in a child does not move it. */
	if (pol_log_path(logp, sizeof(logp)) == 0 && logp[0] == '/' &&
	    setenv("DCG_LOG", logp, 1) != 0)
		return -1;
	/* Checks the ID against the project's intents file and sets $DCG_INTENT and
	 * $DCG_INTENTS_FILE, which the guard reads (and re-injects) in every process and
	 * the supervisor reads when it starts. */
	if (a->intent && hook_intent_prepare_run(a->intent, stderr) != 0)
		return -1;
	if (lib && set_preload(lib) != 0)
		return -1;
	if (a->sandbox && setenv("DCG_SANDBOX", "1", 1) != 0)
		return -1;
	return 0;
}

struct pol_policy *launch_prepare(const struct launch_args *a)
{
	const char *policy_file = a->policy_file ? a->policy_file : dcg_global_policy;
	char policy_abs[PATH_MAX], lib[PATH_MAX];
	int have_lib = 0;
	struct pol_policy *p;

	if (!policy_file)
		policy_file = getenv("DCG_POLICY");
	if (policy_file && *policy_file) {
		if (!realpath(policy_file, policy_abs)) {
			fprintf(stderr, "%s: policy file %s: %s\n", a->name, policy_file,
				strerror(errno));
			return NULL;
		}
		policy_file = policy_abs;
	} else {
		policy_file = NULL;
	}
	if (a->preload != LAUNCH_PRELOAD_NONE) {
		have_lib = launch_find_preload(lib, sizeof(lib)) == 0;
		if (!have_lib && a->preload == LAUNCH_PRELOAD_REQUIRED) {
			fprintf(stderr,
				"%s: libdcg-preload.so not found next to dcg (set "
				"DCG_PRELOAD)\n",
				a->name);
			return NULL;
		}
	}
	p = hook_policy_open(policy_file, NULL, stderr);
	if (!p) {
		fprintf(stderr, "%s: out of memory loading the policy\n", a->name);
		return NULL;
	}
	pol_prepare(p); /* the sandbox supervisor's threads share it */
	/* No core dumps in the guarded tree: a dump is a file the kernel writes for the
	 * process (`ulimit -c unlimited; kill -SEGV $$` in a read-only folder), where no
	 * path check sees it. A hard limit of 0 no descendant can raise without
	 * CAP_SYS_RESOURCE; the sandbox refuses raising it to root too, the preload to
	 * what goes through libc. */
	{
		const struct rlimit none = {0, 0};
		struct rlimit now;

		/* inside a sandbox already (whose filter refuses setting it): 0 it is */
		if ((getrlimit(RLIMIT_CORE, &now) != 0 || now.rlim_max != 0 || now.rlim_cur != 0) &&
		    setrlimit(RLIMIT_CORE, &none) != 0) {
			fprintf(stderr, "%s: cannot turn core dumps off: %s\n", a->name,
				strerror(errno));
			pol_free(p);
			return NULL;
		}
	}
	if ((have_lib && set_snapshot(p, a->name) != 0) ||
	    set_environment(a, policy_file, have_lib ? lib : NULL) != 0) {
		pol_free(p);
		return NULL;
	}
	return p;
}
