/* engine.c - the decisions of libdcg-engine.so (engine.h): the policy, loaded at the
 * first decision the guest cannot settle alone, the checks that need it, and the
 * refusal lines and audit records.
 *
 * `dcg run` loads and compiles the policy once and leaves its snapshot in a file named
 * by $DCG_SNAPSHOT; the engine reads it at its first decision (pol_snapshot_load(), no
 * YAML parsed). Without a snapshot it loads the layered policy files itself. */
#include "engine.h"

#include "intent.h"
#include "rt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a process decides with, loaded together at the first decision. */
struct loaded {
	struct pol_policy *policy;
	struct pol_intent_set *intents; /* `dcg run --intent ID`, else NULL */
	/* This program's real path, for path rules with owners (git may manage its own
	 * .git/); empty when unknown. A fork child runs the same program. */
	char exe[4096];
	/* The session's dcg binary (next to the guest), for rules owned by ":dcg"; empty
	 * when unknown. */
	char dcg_exe[4096];
	/* From $DCG_SESSION (runtime/rt.h): the wrapped agent's pid and its process's
	 * start (rules owned by ":agent"), the session's start (atomic saves in no-delete
	 * folders; 0 when unknown) and its file of kept names. */
	struct rt_session session; /* its kept: session_kept or NULL */
	/* its file of kept names (runtime/rt.h): empty when none */
	char session_kept[4096];
};

static struct {
	struct loaded *loaded;
	struct guard_host host;
	struct rt_told told; /* refusal lines printed by this process */
} g;

static void say(const char *line, size_t len)
{
	g.host.say(line, len);
}

/* ---- the policy ------------------------------------------------------------------ */

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

static void find_dcg(char *out);

/* Loads the policy: the snapshot from `dcg run`, else the layered files (with the
 * guard's own files beside dcg and the guest, as the launcher would). NULL when out
 * of memory. */
static struct pol_policy *load_policy(void)
{
	const char *snap = g.host.owned_env("DCG_SNAPSHOT");
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
	char dcg[4096], guest[4096];

	pol_env_from_process(&env, cwd, sizeof(cwd));
	find_dcg(dcg);
	env.dcg_exe = dcg[0] ? dcg : NULL;
	env.guard_lib = g.host.self_path && realpath(g.host.self_path, guest) ? guest : NULL;
	pol_load_layers(p, &env);
	if (snap && *snap) {
		static const char m[] =
		    "dcg: guard: policy snapshot unusable, loaded the policy files\n";

		say(m, sizeof(m) - 1);
	}
	return p;
}

/* dcg beside the guest (the build), else PREFIX/bin/dcg for a guest in PREFIX/lib/dcg/
 * (make install), as the launcher finds the guest. */
static void find_dcg(char *out)
{
	static const char *const rel[] = {"/dcg", "/../../bin/dcg"};
	const char *self = g.host.self_path, *slash = self ? strrchr(self, '/') : NULL;
	char dcg[4096];
	struct rt_msg m;

	out[0] = '\0';
	for (size_t i = 0; slash && i < 2 && !out[0]; i++) {
		rt_msg_init(&m, dcg, sizeof(dcg));
		rt_msg_addn(&m, self, (size_t)(slash - self));
		rt_msg_add(&m, rel[i]);
		if (m.len >= sizeof(dcg) - 1 || !realpath(dcg, out))
			out[0] = '\0';
	}
}

/* Whether this process maps executable code from a file outside the policy's owner
 * folders (/usr/...), the guest's folder and dcg's own binary, or anonymous executable
 * memory: read from /proc/self/maps, only in a process running dcg's binary (the
 * hook under dcg run). Unreadable counts as foreign. */
static int foreign_code(const struct pol_policy *p, const char *dcg)
{
	const char *self = g.host.self_path, *slash = self ? strrchr(self, '/') : NULL;
	size_t gl = slash ? (size_t)(slash - self) + 1 : 0, have = 0;
	char buf[4096], *line, *nl;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), foreign = 0;
	ssize_t n;

	if (fd < 0)
		return 1;
	while (!foreign && (n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		have += (size_t)n;
		buf[have] = '\0';
		for (line = buf; !foreign && (nl = strchr(line, '\n')); line = nl + 1) {
			char *perms = strchr(line, ' '), *name = strchr(line, '/');

			*nl = '\0';
			if (!perms || strlen(perms) < 4 || perms[3] != 'x')
				continue; /* ADDR PERMS ...: not executable */
			if (!name)
				foreign = !strstr(line, "[vdso]") && !strstr(line, "[vsyscall]");
			else if (!pol_owner_folder(p, name) && strcmp(name, dcg) != 0 &&
				 !(gl && !strncmp(name, self, gl)))
				foreign = 1;
		}
		have = strlen(line);
		if (have == sizeof(buf) - 1)
			foreign = 1; /* a line longer than the buffer */
		memmove(buf, line, have);
	}
	close(fd);
	return foreign;
}

/* $DCG_SESSION as the process started with it (the guest's owned copy) into s, its
 * file of kept names copied into kept, which the loaded state owns. A name too long
 * to copy drops the session's start: nothing is then the session's own (fail
 * closed). */
static void session_read(struct rt_session *s, char *kept, size_t size)
{
	size_t n;

	rt_session_parse(g.host.owned_env("DCG_SESSION"), s);
	/* and the log, which the launcher fixed in $DCG_LOG: where the process started */
	pol_log_fix_path(g.host.owned_env("DCG_LOG"));
	kept[0] = '\0';
	if (!s->kept)
		return;
	n = strnlen(s->kept, size);
	if (n >= size) {
		memset(s, 0, sizeof(*s));
		return;
	}
	memcpy(kept, s->kept, n + 1);
	s->kept = kept;
}

/* The policy (and the intent scope), loaded at the first decision that needs it.
 * Threads racing here each load a copy and the first to publish wins: no lock, so
 * nothing to deadlock on after fork. A fork child inherits the parent's policy; a
 * vfork child's load lands in the parent's memory. */
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
	mine->intents = pol_intent_open_from(g.host.owned_env("DCG_INTENT"),
					     g.host.owned_env("DCG_INTENTS_FILE"));
	{
		ssize_t n = readlink("/proc/self/exe", mine->exe, sizeof(mine->exe) - 1);

		mine->exe[n > 0 ? n : 0] = '\0';
	}
	find_dcg(mine->dcg_exe);
	/* dcg's binary with code of another's mapped into it (LD_PRELOAD=x.so dcg ...)
	 * is not dcg: that code would write dcg's log and state as ":dcg" */
	if (mine->dcg_exe[0] && !strcmp(mine->exe, mine->dcg_exe) &&
	    foreign_code(mine->policy, mine->dcg_exe))
		mine->dcg_exe[0] = '\0';
	/* nor is dcg's binary changing the guard (dcg allow-once CODE, dcg trust, under
	 * any argv[0]): those writes are a person's, at a terminal outside the guard */
	if (mine->dcg_exe[0] && !strcmp(mine->exe, mine->dcg_exe)) {
		char args[1024];

		if (rt_dcg_changes_guard(args,
					 rt_read_args("/proc/self/cmdline", args, sizeof(args))))
			mine->dcg_exe[0] = '\0';
	}
	session_read(&mine->session, mine->session_kept, sizeof(mine->session_kept));
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

/* Whether dirfd/path is the session's own name (runtime/rt.h): nothing there, or an
 * object born after the session began that replaced no older name (not kept). */
static int session_own(const struct loaded *l, int dirfd, const char *path)
{
	struct rt_obj o;
	int rc;

	if (!l->session.start_ns)
		return 0;
	rc = rt_obj_at(dirfd, path, &o);
	if (rc < 0)
		return rc == -ENOENT;
	return o.born > l->session.start_ns && !rt_kept_has(l->session.kept, &o);
}

/* A refusal gets a second look when what the first one could not know cheaply would
 * change it: a no-delete refusal of a file this session created (an atomic save's
 * temporary file may be deleted or renamed away), a zero-access refusal to change the
 * metadata of one (tar x restoring a new *.key file's mode), or any path refusal of the wrapped
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
	    (op == POL_OP_DELETE || op == POL_OP_RENAME_FROM) && session_own(l, dirfd, path))
		more = POL_PATH_SESSION_NEW;
	if (r->path_kind == POL_PATH_ZERO_ACCESS && !(flags & POL_PATH_SESSION_NEW) &&
	    op == POL_OP_CHMOD && rt_created_since(dirfd, path, l->session.start_ns))
		more = POL_PATH_SESSION_NEW;
	/* the agent's pid, held by the agent's own process (not one that took the pid
	 * over after the agent died) */
	if (!(ctx->flags & POL_CTX_AGENT) && rt_session_is_agent(&l->session))
		ctx_more = POL_CTX_AGENT;
	if (!more && !ctx_more)
		return d;
	pol_result_release(r);
	pol_result_init(r);
	ctx->flags |= ctx_more;
	return pol_check_path_at(p, dirfd, path, op, flags | more, ctx, r);
}

/* ---- messages ------------------------------------------------------------------- */

static void log_result(const char *call, const char *input, const struct pol_result *r)
{
	char cwd[4096];

	rt_audit("preload", call, input, r, 0, getcwd(cwd, sizeof(cwd)));
}

/* A question goes to the wrapped agent's terminal only, never to one the agent's
 * tools made for themselves (rt_ask_terminal_ok()). */
static int ask_terminal_ok(void)
{
	const struct loaded *l = loaded_get();

	return l && rt_ask_terminal_ok(l->session.agent, l->session.agent_start);
}

/* Turns a decision into the guard's answer: 0 go on, -1 refuse. Only a refusal (and
 * the question of an ask) is said on stderr; warnings and logs go to the audit log. */
static int conclude(const char *call, const char *input, struct pol_result *r, enum pol_decision d)
{
	char line[1536];
	struct rt_msg m;
	int refuse = 0;
	unsigned told;

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
		if (ask_terminal_ok() && rt_ask_tty(m.buf)) {
			log_result(call, input, r);
			break;
		}
		r->decision = POL_DENY;
		/* fall through */
	case POL_DENY:
	default:
		rt_msg_init(&m, line, sizeof(line) - 1);
		rt_describe(&m, "blocked", call, input, r);
		told = rt_told_next(&g.told, m.buf, m.len);
		if (told < RT_TOLD_MAX) {
			rt_msg_add(&m, "\n");
			say(m.buf, m.len);
		} else if (told == RT_TOLD_MAX) {
			rt_msg_init(&m, line, sizeof(line) - 1);
			rt_msg_add(&m, RT_TOLD_MORE "\n");
			say(m.buf, m.len);
		}
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

/* A refused open that the guest may make exclusive (GUARD_MAY_EXCL), decided again as
 * the exclusive creation of a new file: a name pattern (*.pem) that names the file
 * alone lets it pass. 1 when it passes, with *r and *d that decision's (the first one
 * released); 0 otherwise, *r untouched (its refusal is the one said). */
static int excl_passes(const struct pol_policy *p, int dirfd, const char *path, unsigned flags,
		       struct pol_ctx *ctx, struct pol_result *r, enum pol_decision *d)
{
	struct pol_result r2;
	enum pol_decision d2;

	flags = (flags & ~(unsigned)POL_PATH_IS_DIR) | POL_PATH_NOFOLLOW | POL_PATH_CREATE_EXCL;
	pol_result_init(&r2);
	d2 = pol_check_path_at(p, dirfd, path, POL_OP_CREATE, flags, ctx, &r2);
	d2 = second_look(p, dirfd, path, POL_OP_CREATE, flags, ctx, &r2, d2);
	if (d2 >= POL_ASK) {
		pol_result_release(&r2);
		return 0;
	}
	pol_result_release(r);
	*r = r2;
	*d = d2;
	return 1;
}

static int check_path(const char *call, int dirfd, const char *path, enum pol_op op, unsigned flags)
{
	struct pol_result r;
	struct pol_ctx ctx;
	enum pol_decision d;
	unsigned may = flags & GUARD_MAY_EXCL;
	int excl = 0;

	const struct pol_policy *p;

	flags &= ~GUARD_MAY_EXCL;
	if (!path || !(p = policy_get()))
		return 0;
	ctx_init(&ctx);
	pol_result_init(&r);
	d = pol_check_path_at(p, dirfd, path, op, flags, &ctx, &r);
	d = second_look(p, dirfd, path, op, flags, &ctx, &r, d);
	if (d >= POL_ASK && may)
		excl = excl_passes(p, dirfd, path, flags, &ctx, &r, &d);
	if (conclude(call, path, &r, d) < 0 || check_intent(call, dirfd, path, op, flags) < 0)
		return -1;
	return excl;
}

static int check_builtin(const char *call, const char *rule_id, const char *input)
{
	const struct pol_policy *p = policy_get();
	struct pol_result r;
	struct pol_ctx ctx;
	enum pol_decision d;

	ctx_init(&ctx);
	d = rt_builtin(p, rule_id, input && input[0] == '/' ? input : NULL, &ctx, &r);
	return conclude(call, input ? input : call, &r, d);
}

static int check_argv(const char *call, char *const argv[])
{
	struct pol_result r;
	struct pol_ctx ctx;
	enum pol_decision d;
	char cwd[4096];
	char joined[1024];
	char args[1024];
	struct rt_msg m;

	const struct pol_policy *p = policy_get();

	if (!p || !argv || !argv[0])
		return 0;
	ctx_init(&ctx);
	ctx.flags |= POL_CTX_RUNTIME; /* the child's own calls are checked as they come */
	ctx.cwd = getcwd(cwd, sizeof(cwd));
	pol_result_init(&r);
	d = pol_check_argv(p, argv, &ctx, &r);
	/* An owner that names a subcommand (git stash, whose `git reset --hard` this may
	 * be) needs this program's own arguments: read only when they could change a
	 * refusal. */
	if (d != POL_ALLOW &&
	    (ctx.args_len = rt_read_args("/proc/self/cmdline", args, sizeof(args))) > 0) {
		ctx.args = args;
		pol_result_release(&r);
		pol_result_init(&r);
		d = pol_check_argv(p, argv, &ctx, &r);
	}
	if (d == POL_ALLOW) {
		pol_result_release(&r);
		return 0;
	}
	rt_msg_init(&m, joined, sizeof(joined));
	rt_msg_add_argv(&m, argv);
	/* allow-once: a redeemed grant of this exact command here; under dcg sandbox the
	 * supervisor takes the use at the same exec (the grants are not ours to write) */
	if (pol_once_exec(p, m.buf, ctx.cwd, g.host.owned_env("DCG_SANDBOX") != NULL, &r, d) ==
	    POL_ALLOW)
		d = POL_LOG; /* passes, and is logged with the grant */
	return conclude(call, m.buf, &r, d);
}

static int check_command(const char *call, const char *cmd)
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

static int verify_fd(const char *call, int dirfd, const char *path, int fd, enum pol_op op)
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
		return check_path(call, dirfd, path, op, 0); /* no /proc: the slow way */
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
			return check_path(call, dirfd, path, op, 0);
	} else {
		rt_msg_init(&m, proc, sizeof(proc));
		rt_msg_add(&m, "/proc/self/fd/");
		rt_msg_addu(&m, (unsigned long)dirfd);
		n = readlink(proc, base, sizeof(base) - 1);
		if (n <= 0 || base[0] != '/')
			return check_path(call, dirfd, path, op, 0);
		base[n] = '\0';
	}
	if (pol_path_normalize(path, base, pol_home(p), lexical, sizeof(lexical)) < 0)
		return check_path(call, dirfd, path, op, 0);
	if (strcmp(lexical, resolved) == 0)
		return 0;
	pol_result_init(&r);
	d = pol_check_path(p, lexical, op, POL_PATH_CANONICAL, &ctx, &r);
	d = second_look(p, AT_FDCWD, lexical, op, POL_PATH_CANONICAL, &ctx, &r, d);
	return conclude(call, path, &r, d);
}

static int check_open(const char *call, int dirfd, const char *path, const char *lexical,
		      enum pol_op op, unsigned pflags)
{
	const struct pol_policy *p = policy_get();
	struct pol_result r;
	struct pol_ctx ctx;
	enum pol_decision d;
	unsigned may = pflags & GUARD_MAY_EXCL;
	int excl = 0;

	pflags &= ~GUARD_MAY_EXCL;
	if (!p)
		return 0;
	ctx_init(&ctx);
	pol_result_init(&r);
	d = pol_check_path(p, lexical, op, pflags | POL_PATH_CANONICAL, &ctx, &r);
	d = second_look(p, AT_FDCWD, lexical, op, pflags | POL_PATH_CANONICAL, &ctx, &r, d);
	if (d >= POL_ASK && may)
		excl = excl_passes(p, AT_FDCWD, lexical, pflags | POL_PATH_CANONICAL, &ctx, &r, &d);
	if (d != POL_ALLOW) {
		if (conclude(call, path, &r, d) < 0)
			return -1;
	} else {
		pol_result_release(&r);
	}
	if (check_intent(call, dirfd, path, op, pflags) < 0)
		return -1;
	return excl;
}

static void warm(void)
{
	static _Atomic int warmed;
	static char *const argv[] = {"true", NULL};
	const struct pol_policy *p;
	struct pol_result r;
	struct pol_ctx ctx;

	if (__atomic_load_n(&warmed, __ATOMIC_RELAXED) || !(p = policy_get()))
		return;
	__atomic_store_n(&warmed, 1, __ATOMIC_RELAXED);
	pol_warm(p); /* the children share the decoded regexes instead of decoding their own */
	ctx_init(&ctx);
	ctx.cwd = "/";
	pol_result_init(&r);
	pol_check_argv(p, argv, &ctx, &r);
	pol_result_release(&r);
	/* Blocks for the children's decisions, mapped once here: a child then takes one
	 * from the allocator's cache instead of mapping its own. */
	void *a = g.host.alloc(60 * 1024), *b = g.host.alloc(60 * 1024);

	g.host.free(b);
	g.host.free(a);
}

static const struct guard_engine table = {
    .abi = GUARD_ENGINE_ABI,
    .check_path = check_path,
    .check_builtin = check_builtin,
    .verify_fd = verify_fd,
    .check_open = check_open,
    .check_argv = check_argv,
    .check_command = check_command,
    .warm = warm,
};

__attribute__((visibility("default"))) const struct guard_engine *
dcg_engine_start(const struct guard_host *host)
{
	if (!host || host->abi != GUARD_ENGINE_ABI || !host->alloc || !host->free || !host->say ||
	    !host->owned_env)
		return NULL;
	if (!g.host.abi) {
		g.host = *host;
		/* Decisions allocate only through the guest's fork-safe allocator. */
		pol_set_allocator(host->alloc, host->free);
	}
	return &table;
}
