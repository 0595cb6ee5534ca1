/* guard.c - start-up, real symbols, the recursion flag and the decision glue.
 *
 * Start-up is cheap on purpose (make starts thousands of processes): the constructor
 * only resolves symbols and notes the environment. `dcg run` loads and compiles the
 * policy once and leaves its snapshot in a file named by $DCG_SNAPSHOT; a process
 * reads it at its first decision (pol_snapshot_load(), no YAML parsed). Without a
 * snapshot the guard loads the layered policy files itself. */
#include "guard.h"

#include "intent.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GUARD_WRAP(ret, name, params) ret(*guard_real_##name) params;
#include "wrap.def"
#undef GUARD_WRAP

static __thread int t_busy __attribute__((tls_model("initial-exec")));

/* What a process decides with, loaded together at the first decision. */
struct loaded {
	struct pol_policy *policy;
	struct pol_intent_set *intents; /* `dcg run --intent ID`, else NULL */
	/* This program's real path, for path rules with owners (git may manage its own
	 * .git/); empty when unknown. A fork child runs the same program. */
	char exe[4096];
	/* The session's dcg binary (next to this object), for rules owned by ":dcg";
	 * empty when unknown. */
	char dcg_exe[4096];
	/* From $DCG_SESSION: the wrapped agent's pid (rules owned by ":agent") and the
	 * session's start (atomic saves in no-delete folders); 0 when unknown. */
	pid_t agent_pid;
	long long session_start; /* ns */
};

static struct {
	struct loaded *loaded;
	_Atomic int ready;
	int err_known; /* fd 2 as the process started, to tell it from a reused fd */
	dev_t err_dev;
	ino_t err_ino;
	int noted_exe;	       /* the "not covered" note was given */
	const char *self_path; /* this object's path, from the loader (dladdr) */
} g;

static _Atomic int g_resolved;
static _Atomic int g_no_openat2; /* set once openat2 proved unavailable */

void guard_resolve(void)
{
	if (atomic_load_explicit(&g_resolved, memory_order_acquire))
		return;
#define GUARD_WRAP(ret, name, params)                                                        \
	if (!guard_real_##name)                                                              \
		__atomic_store_n(&guard_real_##name, (ret(*) params)dlsym(RTLD_NEXT, #name), \
				 __ATOMIC_RELEASE);
#include "wrap.def"
#undef GUARD_WRAP
	atomic_store_explicit(&g_resolved, 1, memory_order_release);
}

int guard_enter(void)
{
	if (t_busy || !atomic_load_explicit(&g.ready, memory_order_acquire))
		return 0;
	t_busy = 1;
	guard_resolve(); /* the real functions, at the first guarded call of the process */
	return 1;
}

void guard_leave(void)
{
	t_busy = 0;
}

static const struct pol_policy *policy_get(void);

const struct pol_policy *guard_policy(void)
{
	return policy_get();
}

/* ---- start-up ------------------------------------------------------------------- */

static int load_snapshot(struct pol_policy *p, const char *file)
{
	struct stat st;
	void *m;
	int fd, rc;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || st.st_size <= 0) {
		close(fd);
		return -EINVAL;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -ENOMEM;
	/* pol_snapshot_load() copies what it keeps. */
	rc = pol_snapshot_load(p, m, (size_t)st.st_size);
	munmap(m, (size_t)st.st_size);
	return rc;
}

static void say(const char *line, size_t len);

/* Loads the policy: the snapshot from `dcg run`, else the layered files. NULL when
 * out of memory. */
static struct pol_policy *load_policy(void)
{
	const char *snap = getenv("DCG_SNAPSHOT");
	struct pol_policy *p = pol_new(0);

	if (!p)
		return NULL;
	if (snap && *snap && load_snapshot(p, snap) == 0)
		return p;
	/* No usable snapshot: the layered load, as `dcg check` does it. */
	char cwd[4096];
	struct pol_env env;

	pol_free(p);
	p = pol_new(0);
	if (!p)
		return NULL;
	pol_env_from_process(&env, cwd, sizeof(cwd));
	pol_load_layers(p, &env);
	if (snap && *snap) {
		static const char m[] =
		    "dcg: guard: policy snapshot unusable, loaded the policy files\n";

		say(m, sizeof(m) - 1);
	}
	return p;
}

/* The policy (and the intent scope), loaded at the first decision rather than at
 * start-up: most processes of a build or a shell loop (/bin/true, echo, sed on a
 * pipe) never make a guarded call, so they never pay for it. Threads racing here each load a copy and the first to
 * publish wins: no lock, so nothing to deadlock on after fork. A fork child inherits
 * the parent's policy; a vfork child's load lands in the parent's memory. */
static const struct loaded *loaded_get(void)
{
	struct loaded *l = __atomic_load_n(&g.loaded, __ATOMIC_ACQUIRE), *mine, *expected = NULL;

	if (l)
		return l;
	mine = malloc(sizeof(*mine));
	if (!mine)
		return NULL;
	mine->policy = load_policy();
	if (!mine->policy) {
		free(mine);
		return NULL;
	}
	mine->intents = pol_intent_open_env();
	{
		ssize_t n = readlink("/proc/self/exe", mine->exe, sizeof(mine->exe) - 1);

		mine->exe[n > 0 ? n : 0] = '\0';
	}
	mine->dcg_exe[0] = '\0';
	{
		/* dcg beside this object (the build), else PREFIX/bin/dcg for an object in
		 * PREFIX/lib/dcg/ (make install), as the launcher finds us. */
		static const char *const rel[] = {"/dcg", "/../../bin/dcg"};
		const char *slash = g.self_path ? strrchr(g.self_path, '/') : NULL;
		char dcg[4096];
		struct rt_msg m;

		for (size_t i = 0; slash && i < 2 && !mine->dcg_exe[0]; i++) {
			rt_msg_init(&m, dcg, sizeof(dcg));
			rt_msg_addn(&m, g.self_path, (size_t)(slash - g.self_path));
			rt_msg_add(&m, rel[i]);
			if (m.len >= sizeof(dcg) - 1 || !realpath(dcg, mine->dcg_exe))
				mine->dcg_exe[0] = '\0';
		}
	}
	rt_session_parse(getenv("DCG_SESSION"), &mine->agent_pid, &mine->session_start);
	if (__atomic_compare_exchange_n(&g.loaded, &expected, mine, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return mine;
	pol_intent_free(mine->intents);
	pol_free(mine->policy);
	free(mine);
	return expected;
}

static const struct pol_policy *policy_get(void)
{
	const struct loaded *l = loaded_get();

	return l ? l->policy : NULL;
}

/* A decision context for this process: no cwd (the calls resolve against the real
 * working directory), this program for owner rules. */
static void ctx_init(struct pol_ctx *ctx)
{
	const struct loaded *l = __atomic_load_n(&g.loaded, __ATOMIC_ACQUIRE);

	memset(ctx, 0, sizeof(*ctx));
	if (l && l->exe[0])
		ctx->exe = l->exe;
	if (l && l->dcg_exe[0])
		ctx->dcg_exe = l->dcg_exe;
}

/* A refusal gets a second look when what the first one could not know cheaply would
 * change it: a no-delete refusal of a file this session created (an atomic save's
 * temporary file may be deleted or renamed away), or any path refusal of the wrapped
 * agent's own process (rules owned by ":agent"). Both cost a system call, paid only
 * on refusals. Returns the decision, r updated. */
static enum pol_decision second_look(const struct pol_policy *p, int dirfd, const char *path,
				     enum pol_op op, unsigned flags, struct pol_ctx *ctx,
				     struct pol_result *r, enum pol_decision d)
{
	const struct loaded *l = __atomic_load_n(&g.loaded, __ATOMIC_ACQUIRE);
	unsigned more = 0, ctx_more = 0;

	if (d < POL_ASK || r->detection != POL_DET_PATH || !l)
		return d;
	if (r->path_kind == POL_PATH_NO_DELETE && !(flags & POL_PATH_SESSION_NEW) &&
	    (op == POL_OP_DELETE || op == POL_OP_RENAME_FROM) &&
	    rt_created_since(dirfd, path, l->session_start))
		more = POL_PATH_SESSION_NEW;
	if (l->agent_pid && !(ctx->flags & POL_CTX_AGENT) && getpid() == l->agent_pid)
		ctx_more = POL_CTX_AGENT;
	if (!more && !ctx_more)
		return d;
	pol_result_release(r);
	pol_result_init(r);
	ctx->flags |= ctx_more;
	return pol_check_path_at(p, dirfd, path, op, flags | more, ctx, r);
}

static void guard_init(void) __attribute__((constructor));
static void guard_init(void)
{
	extern char **environ;
	Dl_info info;
	struct stat st;
	int saved = errno;

	t_busy = 1;
	/* The real functions are resolved at the first wrapped call (GUARD_REAL,
	 * guard_enter), not here: a process that never makes one (most of a build's)
	 * saves some 70 dlsym() calls. A fork resolves them in the parent first, so that
	 * no child has to take the loader's lock another thread may have held. */
	pthread_atfork(guard_resolve, NULL, NULL);
	if (fstat(2, &st) == 0) {
		g.err_known = 1;
		g.err_dev = st.st_dev;
		g.err_ino = st.st_ino;
	}
	if (dladdr((void *)guard_init, &info) && info.dli_fname) {
		g.self_path = info.dli_fname;
		guard_env_capture(environ, info.dli_fname);
	}
	/* Decisions allocate only through the fork-safe allocator. */
	pol_set_allocator(guard_alloc, guard_free);
	atomic_store_explicit(&g.ready, 1, memory_order_release);
	t_busy = 0;
	errno = saved;
}

/* ---- messages ------------------------------------------------------------------- */

/* Writes to fd 2 only when it is still the stderr the process started with, or a
 * terminal or pipe: a program that closed fd 2 may have a data file there now. */
static void say(const char *line, size_t len)
{
	struct stat st;

	if (fstat(2, &st) != 0)
		return;
	if (S_ISREG(st.st_mode) &&
	    !(g.err_known && st.st_dev == g.err_dev && st.st_ino == g.err_ino)) {
		int fl = fcntl(2, F_GETFL);

		if (fl < 0 || !(fl & O_APPEND))
			return;
	}
	while (len) {
		ssize_t n = write(2, line, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		line += n;
		len -= (size_t)n;
	}
}

static void log_result(const char *call, const char *input, const struct pol_result *r)
{
	char cwd[4096];

	rt_audit("preload", call, input, r, 0, getcwd(cwd, sizeof(cwd)));
}

/* Turns a decision into the guard's answer: 0 go on, -1 refuse. Only a refusal (and
 * the question of an ask) is said on stderr; warnings and logs go to the audit log. */
static int conclude(const char *call, const char *input, struct pol_result *r, enum pol_decision d)
{
	char line[1536];
	struct rt_msg m;
	int refuse = 0;

	switch (d) {
	case POL_ALLOW:
		break;
	case POL_LOG:
	case POL_WARN:
		log_result(call, input, r);
		break;
	case POL_ASK:
		rt_msg_init(&m, line, sizeof(line) - 1);
		rt_describe(&m, "asks: allow", call, input, r);
		rt_msg_add(&m, "? [y/N] ");
		if (rt_ask_tty(m.buf)) {
			log_result(call, input, r);
			break;
		}
		r->decision = POL_DENY;
		/* fall through */
	case POL_DENY:
	default:
		rt_msg_init(&m, line, sizeof(line) - 1);
		rt_describe(&m, "blocked", call, input, r);
		rt_msg_add(&m, "\n");
		say(m.buf, m.len);
		log_result(call, input, r);
		refuse = 1;
		break;
	}
	pol_result_release(r);
	return refuse ? -1 : 0;
}

/* ---- checks ---------------------------------------------------------------------- */

/* `dcg run --intent ID`: writes, creations, deletions, renames and metadata changes
 * outside the intent's owned_scope are refused too (after the policy allowed them). */
static int check_intent(const char *call, int dirfd, const char *path, enum pol_op op,
			unsigned flags)
{
	const struct loaded *l = loaded_get();
	struct pol_result r;
	enum pol_decision d;

	if (!l || !l->intents || !path || !pol_intent_op_confined(op))
		return 0;
	pol_result_init(&r);
	d = pol_intent_check_path_at(l->intents, dirfd, path, op, flags & ~POL_PATH_CANONICAL, NULL,
				     pol_home(l->policy), &r);
	return conclude(call, path, &r, d);
}

int guard_check_path(const char *call, int dirfd, const char *path, enum pol_op op, unsigned flags)
{
	struct pol_result r;
	struct pol_ctx ctx;
	enum pol_decision d;

	const struct pol_policy *p;

	if (!path || !(p = policy_get()))
		return 0;
	ctx_init(&ctx);
	pol_result_init(&r);
	d = pol_check_path_at(p, dirfd, path, op, flags, &ctx, &r);
	d = second_look(p, dirfd, path, op, flags, &ctx, &r, d);
	if (conclude(call, path, &r, d) < 0)
		return -1;
	return check_intent(call, dirfd, path, op, flags);
}

int guard_check_builtin(const char *call, const char *rule_id, const char *input)
{
	const struct pol_policy *p = policy_get();
	struct pol_result r;
	struct pol_ctx ctx;
	enum pol_decision d;

	ctx_init(&ctx);
	d = rt_builtin(p, rule_id, input && input[0] == '/' ? input : NULL, &ctx, &r);
	return conclude(call, input ? input : call, &r, d);
}

int guard_check_fd(const char *call, int fd, enum pol_op op)
{
	char proc[64], target[4096];
	struct rt_msg m;
	ssize_t n;

	rt_msg_init(&m, proc, sizeof(proc));
	rt_msg_add(&m, "/proc/self/fd/");
	rt_msg_addu(&m, (unsigned long)fd);
	n = readlink(proc, target, sizeof(target) - 1);
	if (n <= 0 || target[0] != '/')
		return 0; /* pipes, sockets, anonymous files: no path to protect */
	target[n] = '\0';
	return guard_check_path(call, AT_FDCWD, target, op, 0);
}

/* Whether this session already said so for this program: a marker file next to the
 * snapshot, created with O_EXCL (atomic across the session's processes, no lock, no
 * malloc). Without a snapshot folder, once per process. */
static int first_note(const char *file)
{
	const char *snap = getenv("DCG_SNAPSHOT"), *slash, *session = getenv("DCG_SESSION");
	unsigned long long h = 1469598103934665603ull;
	char path[4096], hex[17];
	struct rt_msg m;
	int fd;

	if (g.noted_exe)
		return 0;
	g.noted_exe = 1;
	if (!snap || !(slash = strrchr(snap, '/')) || slash == snap)
		return 1;
	for (const char *c = file; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	for (int i = 15; i >= 0; i--, h >>= 4)
		hex[i] = "0123456789abcdef"[h & 15];
	hex[16] = '\0';
	rt_msg_init(&m, path, sizeof(path));
	rt_msg_addn(&m, snap, (size_t)(slash - snap));
	rt_msg_add(&m, "/noted-");
	rt_msg_add(&m, session ? session : "0");
	rt_msg_add(&m, "-");
	rt_msg_add(&m, hex);
	if (m.len >= sizeof(path) - 1)
		return 1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return errno != EEXIST;
	close(fd);
	return 1;
}

static void note_uncovered(const char *file, int fd)
{
	enum guard_exe_kind k;
	struct rt_msg m;
	char line[1200];

	/* Under dcg sandbox ($DCG_SANDBOX, kept like the guard's own variables) the
	 * supervisor sees inside static and set-uid programs: nothing to say, and no
	 * marker to write in dcg's folder, which the sandbox keeps read-only. */
	if (g.noted_exe || guard_env_owned("DCG_SANDBOX"))
		return;
	k = guard_exe_kind_fd(fd);
	if ((k != GUARD_EXE_STATIC && k != GUARD_EXE_SETUID) || !first_note(file))
		return;
	rt_msg_init(&m, line, sizeof(line));
	rt_msg_add(&m, "dcg: note: ");
	rt_msg_add(&m, file);
	rt_msg_add(&m, k == GUARD_EXE_STATIC ? " is statically linked" : " is set-uid");
	rt_msg_add(&m, "; the preload guard cannot see inside it (use dcg sandbox)\n");
	say(m.buf, m.len);
}

/* The program about to be executed, opened once (reading it has no effect): judged
 * on the kernel's resolution read back from /proc/self/fd and on the path as written,
 * then its ELF headers tell whether the guard can follow it. A program that cannot be
 * opened (missing, execute-only) is judged by path, with resolution. */
static int check_exec_file(const char *call, int dirfd, const char *file)
{
	int fd, rc;

	fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return guard_check_path(call, dirfd, file, POL_OP_EXEC, 0);
	rc = guard_verify_fd(call, dirfd, file, fd, POL_OP_EXEC);
	if (rc == 0)
		note_uncovered(file, fd);
	close(fd);
	return rc;
}

int guard_check_exec(const char *call, int dirfd, const char *file, char *const argv[])
{
	struct pol_result r;
	struct pol_ctx ctx;
	enum pol_decision d;
	char cwd[4096];
	char joined[1024];
	struct rt_msg m;

	const struct pol_policy *p = policy_get();

	if (!p)
		return 0;
	if (file && check_exec_file(call, dirfd, file) < 0)
		return -1;
	if (argv && argv[0]) {
		ctx_init(&ctx);
		ctx.flags |= POL_CTX_RUNTIME; /* the child's own calls are checked as they come */
		ctx.cwd = getcwd(cwd, sizeof(cwd));
		pol_result_init(&r);
		d = pol_check_argv(p, argv, &ctx, &r);
		if (d != POL_ALLOW) {
			rt_msg_init(&m, joined, sizeof(joined));
			for (size_t i = 0; argv[i] && m.len < sizeof(joined) - 1; i++) {
				if (i)
					rt_msg_add(&m, " ");
				rt_msg_add(&m, argv[i]);
			}
			if (conclude(call, m.buf, &r, d) < 0)
				return -1;
		} else {
			pol_result_release(&r);
		}
	}
	return 0;
}

int guard_check_command(const char *call, const char *cmd)
{
	struct pol_result r;
	struct pol_ctx ctx;
	enum pol_decision d;
	char cwd[4096];

	const struct pol_policy *p;

	if (!cmd || !(p = policy_get()))
		return 0;
	ctx_init(&ctx);
	ctx.flags |= POL_CTX_RUNTIME; /* the shell and its children are guarded too */
	ctx.cwd = getcwd(cwd, sizeof(cwd));
	pol_result_init(&r);
	d = pol_check_command(p, cmd, strlen(cmd), &ctx, &r);
	return conclude(call, cmd, &r, d);
}

int guard_check_copy(const char *call, int dirfd, const char *path, enum pol_op op, unsigned flags,
		     char *buf, size_t size, const char **use)
{
	int saved = errno, rc;
	const char *copy;

	*use = path;
	if (!guard_enter())
		return 0;
	copy = guard_copy_path(path, buf, size);
	if (copy)
		*use = copy;
	rc = guard_check_path(call, dirfd, copy, op, flags);
	guard_leave();
	errno = rc < 0 ? EACCES : saved;
	return rc;
}

int guard_session_new(int dirfd, const char *path)
{
	const struct loaded *l = loaded_get();

	return l && l->session_start && rt_created_since(dirfd, path, l->session_start);
}

int guard_is_dir(int dirfd, const char *path)
{
	struct stat st;
	int saved = errno, dir;

	dir = path && fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
	errno = saved;
	return dir;
}

int guard_verify_fd(const char *call, int dirfd, const char *path, int fd, enum pol_op op)
{
	char proc[64], resolved[4096], base[4096], lexical[4096];
	const struct pol_policy *p;
	struct pol_result r;
	struct pol_ctx ctx;
	struct rt_msg m;
	enum pol_decision d;
	ssize_t n;

	if (!path || !(p = policy_get()))
		return 0;
	rt_msg_init(&m, proc, sizeof(proc));
	rt_msg_add(&m, "/proc/self/fd/");
	rt_msg_addu(&m, (unsigned long)fd);
	n = readlink(proc, resolved, sizeof(resolved) - 1);
	if (n <= 0 || resolved[0] != '/')
		return guard_check_path(call, dirfd, path, op, 0); /* no /proc: the slow way */
	resolved[n] = '\0';
	ctx_init(&ctx);
	pol_result_init(&r);
	d = pol_check_path(p, resolved, op, POL_PATH_CANONICAL, &ctx, &r);
	d = second_look(p, AT_FDCWD, resolved, op, POL_PATH_CANONICAL, &ctx, &r, d);
	if (d != POL_ALLOW)
		return conclude(call, path, &r, d);
	pol_result_release(&r);

	/* As written too (a protected name that is itself a symlink), unless that is the
	 * same path: the usual case costs one rule scan. */
	if (path[0] == '/') {
		base[0] = '/';
		base[1] = '\0';
	} else if (dirfd == AT_FDCWD) {
		if (!getcwd(base, sizeof(base)))
			return guard_check_path(call, dirfd, path, op, 0);
	} else {
		rt_msg_init(&m, proc, sizeof(proc));
		rt_msg_add(&m, "/proc/self/fd/");
		rt_msg_addu(&m, (unsigned long)dirfd);
		n = readlink(proc, base, sizeof(base) - 1);
		if (n <= 0 || base[0] != '/')
			return guard_check_path(call, dirfd, path, op, 0);
		base[n] = '\0';
	}
	if (pol_path_normalize(path, base, pol_home(p), lexical, sizeof(lexical)) < 0)
		return guard_check_path(call, dirfd, path, op, 0);
	if (strcmp(lexical, resolved) == 0)
		return 0;
	pol_result_init(&r);
	d = pol_check_path(p, lexical, op, POL_PATH_CANONICAL, &ctx, &r);
	d = second_look(p, AT_FDCWD, lexical, op, POL_PATH_CANONICAL, &ctx, &r, d);
	return conclude(call, path, &r, d);
}

/* The base a relative path starts from: the working directory or dirfd's folder. */
static int base_of(int dirfd, const char *path, char *base, size_t size)
{
	char proc[64];
	struct rt_msg m;
	ssize_t n;

	if (path[0] == '/') {
		base[0] = '/';
		base[1] = '\0';
		return 0;
	}
	if (dirfd == AT_FDCWD)
		return getcwd(base, size) ? 0 : -1;
	rt_msg_init(&m, proc, sizeof(proc));
	rt_msg_add(&m, "/proc/self/fd/");
	rt_msg_addu(&m, (unsigned long)dirfd);
	n = readlink(proc, base, size - 1);
	if (n <= 0 || base[0] != '/')
		return -1;
	base[n] = '\0';
	return 0;
}

int guard_open_fast(const char *call, int dirfd, const char *path, int flags, mode_t mode,
		    enum pol_op op, unsigned pflags)
{
	char base[4096], lexical[4096];
	const struct pol_policy *p;
	struct open_how how;
	struct pol_result r;
	struct pol_ctx ctx;
	enum pol_decision d;
	long fd;

	if (!path || !guard_real_syscall || !(p = policy_get()))
		return -2;
	/* The path as the kernel will walk it when no symlink is on the way: no ~, no
	 * second resolution. */
	if (base_of(dirfd, path, base, sizeof(base)) < 0 ||
	    pol_path_normalize(path, base, NULL, lexical, sizeof(lexical)) < 0)
		return -2;
	ctx_init(&ctx);
	pol_result_init(&r);
	d = pol_check_path(p, lexical, op, pflags | POL_PATH_CANONICAL, &ctx, &r);
	d = second_look(p, AT_FDCWD, lexical, op, pflags | POL_PATH_CANONICAL, &ctx, &r, d);
	if (d != POL_ALLOW) {
		if (conclude(call, path, &r, d) < 0) {
			errno = EACCES;
			return -1;
		}
	} else {
		pol_result_release(&r);
	}
	if (check_intent(call, dirfd, path, op, pflags) < 0) {
		errno = EACCES;
		return -1;
	}
	memset(&how, 0, sizeof(how));
	how.flags = (unsigned)flags;
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode & 07777;
	how.resolve = RESOLVE_NO_SYMLINKS;
	if (atomic_load_explicit(&g_no_openat2, memory_order_relaxed))
		return -2;
	fd = guard_real_syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	/* No openat2 here (old kernel, a seccomp filter): never try it again. */
	if (errno == ENOSYS || errno == EPERM)
		atomic_store_explicit(&g_no_openat2, 1, memory_order_relaxed);
	/* A symlink on the way (ELOOP), flags openat2 refuses that open ignores (EINVAL),
	 * no openat2 (ENOSYS, or EPERM from a seccomp filter): nothing was opened,
	 * created or truncated, so the caller falls back to the full check. */
	if (errno == ELOOP || errno == EINVAL || errno == ENOSYS || errno == E2BIG ||
	    errno == EPERM || errno == EXDEV || errno == EAGAIN)
		return -2;
	return -1; /* what open() itself would have said */
}

/* Magic links (/proc/self/fd/N, /dev/stdout) name open files, not paths: reopening
 * what they resolve to would not be the same open. */
static int magic_path(const char *p)
{
	return strncmp(p, "/proc/", 6) == 0 || strncmp(p, "/dev/fd/", 8) == 0 ||
	       strncmp(p, "/dev/std", 8) == 0;
}

int guard_open_resolved(const char *call, int dirfd, const char *path, int flags, mode_t mode,
			enum pol_op op, unsigned pflags)
{
	char base[4096], joined[8192], resolved[4096];
	const struct pol_policy *p;
	struct open_how how;
	struct rt_msg m;
	long fd = -1;

	if (!path || !guard_real_syscall || !(p = policy_get()) ||
	    atomic_load_explicit(&g_no_openat2, memory_order_relaxed))
		return -2;
	if (base_of(dirfd, path, base, sizeof(base)) < 0)
		return -2;
	rt_msg_init(&m, joined, sizeof(joined));
	if (path[0] != '/') {
		rt_msg_add(&m, base);
		rt_msg_add(&m, "/");
	}
	rt_msg_add(&m, path);
	if (m.len >= sizeof(joined) - 1 || magic_path(joined))
		return -2;
	memset(&how, 0, sizeof(how));
	how.flags = (unsigned)flags;
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode & 07777;
	how.resolve = RESOLVE_NO_SYMLINKS;
	for (int attempt = 0; attempt < 3; attempt++) {
		if (pol_path_resolve(joined, !!(pflags & POL_PATH_NOFOLLOW), resolved,
				     sizeof(resolved)) < 0 ||
		    resolved[0] != '/' || magic_path(resolved))
			return -2;
		/* as written (with its own resolution), then as resolved now */
		if (guard_check_path(call, dirfd, path, op, pflags) < 0 ||
		    guard_check_path(call, AT_FDCWD, resolved, op, pflags | POL_PATH_CANONICAL) <
			0) {
			errno = EACCES;
			return -1;
		}
		fd = guard_real_syscall(SYS_openat2, AT_FDCWD, resolved, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno == ENOSYS || errno == EPERM || errno == EINVAL || errno == E2BIG ||
		    errno == EXDEV || errno == EAGAIN)
			return -2; /* openat2 cannot do it here: the plain path */
		if (errno != ELOOP)
			return -1; /* what open() itself would have said */
		/* ELOOP: a symlink appeared on the resolved path since: resolve again. */
	}
	errno = EACCES;
	return -1;
}

void guard_warm(void)
{
	static _Atomic int warmed;
	static char *const argv[] = {"true", NULL};
	const struct pol_policy *p;
	struct pol_result r;
	struct pol_ctx ctx;

	if (atomic_load_explicit(&warmed, memory_order_relaxed) || !(p = policy_get()))
		return;
	atomic_store_explicit(&warmed, 1, memory_order_relaxed);
	pol_warm(p); /* the children share the decoded regexes instead of decoding their own */
	ctx_init(&ctx);
	ctx.cwd = "/";
	pol_result_init(&r);
	pol_check_argv(p, argv, &ctx, &r);
	pol_result_release(&r);
	/* Blocks for the children's decisions, mapped once here: a child then takes one
	 * from the allocator's cache instead of mapping its own. */
	void *a = guard_alloc(60 * 1024), *b = guard_alloc(60 * 1024);

	guard_free(b);
	guard_free(a);
}
