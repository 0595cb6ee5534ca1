/* intent_scope.c - the scope decisions of intents (intent.h): owned_scope patterns,
 * paths, shell commands and tools against the active intent, and the structured error.
 *
 * The path checks do not allocate (the preload calls them inside libc wrappers): every
 * buffer they need is on the stack, every string a result points to was built at load
 * or selection time and lives in the set.
 */
#include "intent_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shell.h"

/* Is path (absolute, normalized) root itself or beneath it? Returns the length of
 * the root prefix to skip (so path + ret is "" or "/rest"), or -1. */
static long under(const char *root, const char *path)
{
	size_t n;

	if (!root)
		return -1;
	n = strlen(root);
	if (n == 1 && root[0] == '/')
		return 0;
	if (strncmp(root, path, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return -1;
	return (long)n;
}

static long under_root(const struct pol_intent_set *s, const char *path)
{
	long k = under(s->root, path);

	return k >= 0 ? k : under(s->root_real, path);
}

/* ---- patterns -------------------------------------------------------------------------- */

/* Does pattern pp cover path? Basename patterns look only at the components beneath
 * the project root (a folder above the project named like a pattern must not count);
 * anchored patterns at the whole path. */
static int pat_covers(const struct pol_intent_set *s, const struct pol_pathpat *pp,
		      const char *path)
{
	if (pp->basename_only) {
		long k = under_root(s, path);

		return k >= 0 && pol_pathpat_covers(pp, path + k);
	}
	return pol_pathpat_covers(pp, path);
}

static int in_scope(const struct pol_intent_set *s, const struct intent *in, const char *path)
{
	int inc = 0;

	for (size_t i = 0; i < in->n_pats; i++) {
		const struct pol_pathpat *pp = &in->pats[i];

		if (!pat_covers(s, pp, path))
			continue;
		if (pp->negate)
			return 0; /* an exclusion overrides every inclusion */
		inc = 1;
	}
	if (!in->has_inclusion) /* only exclusions: the whole project but them */
		return in->n_pats > 0 && under_root(s, path) >= 0;
	return inc;
}

int pol_intent_in_scope(const struct pol_intent_set *s, const struct pol_intent *in,
			const char *abs_path)
{
	if (!s || !in || !abs_path)
		return 0;
	return in_scope(s, (const struct intent *)in, abs_path);
}

/* ---- excluded files inside a folder --------------------------------------------------- */

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct walk {
	const struct pol_intent_set *s;
	const struct intent *in;
	size_t entries;
};

/* 1 when a path beneath dir (len bytes of buf, PATH_MAX) is outside the scope. Raw
 * system calls and a stack buffer: no malloc, no libc wrappers of the preload. */
static int walk_out_of_scope(struct walk *w, char *buf, size_t len, int depth)
{
	char dents[2048];
	long fd, got;
	int hit = 0;

	if (depth > WALK_MAX_DEPTH)
		return 1;
	fd = syscall(SYS_openat, AT_FDCWD, buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0; /* not a folder (or gone): nothing beneath */
	while (!hit && (got = syscall(SYS_getdents64, (int)fd, dents, sizeof(dents))) > 0) {
		for (long off = 0; off < got && !hit;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(dents + off);
			size_t nl = strlen(d->d_name);

			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (++w->entries > WALK_MAX_ENTRIES || len + nl + 2 >= PATH_MAX) {
				hit = 1;
				break;
			}
			buf[len] = '/';
			memcpy(buf + len + 1, d->d_name, nl + 1);
			if (!in_scope(w->s, w->in, buf))
				hit = 1;
			else if (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN)
				hit = walk_out_of_scope(w, buf, len + 1 + nl, depth + 1);
			buf[len] = '\0';
		}
	}
	syscall(SYS_close, (int)fd);
	return hit;
}

/* A folder being deleted or moved takes everything beneath it along: it is in the
 * scope only when nothing beneath it is excluded. Anchored exclusions are decided by
 * their text; basename exclusions by looking at the folder's files. */
static int dir_holds_excluded(const struct pol_intent_set *s, const struct intent *in,
			      const char *dir)
{
	char buf[PATH_MAX];
	size_t n = strlen(dir);
	int need_walk = 0;

	for (size_t i = 0; i < in->n_pats; i++) {
		const struct pol_pathpat *pp = &in->pats[i];

		if (!pp->negate)
			continue;
		if (pp->basename_only) {
			need_walk = 1;
			continue;
		}
		if (pp->literal_len > n && strncmp(pp->glob, dir, n) == 0 &&
		    (pp->glob[n] == '/' || n == 1))
			return 1;
		/* a wildcard before the folder's depth ("src/ * /secret") may reach in */
		if (pp->literal_len < n && pp->literal_len < pp->glob_len)
			need_walk = 1;
	}
	if (!need_walk || n >= sizeof(buf))
		return 0;
	memcpy(buf, dir, n + 1);
	struct walk w = {s, in, 0};
	return walk_out_of_scope(&w, buf, n, 0);
}

/* ---- results ------------------------------------------------------------------------------ */

enum outcome { OUT_OK = 0, OUT_VIOLATION, OUT_MISSING, OUT_NOT_FOUND, OUT_INVALID, OUT_TOOL };

static void fill(const struct pol_intent_set *s, enum outcome o, const char *shown,
		 const char *path, enum pol_op op, struct pol_result *r)
{
	pol_result_init(r);
	r->detection = POL_DET_SCOPE;
	r->severity = POL_SEV_HIGH;
	r->origin = s->file;
	r->op = op;
	switch (o) {
	case OUT_VIOLATION:
		r->decision = POL_ASK;
		r->rule_id = POL_INTENT_RULE_VIOLATION;
		r->reason = s->active->reason;
		r->pattern = s->active->scope_txt;
		r->suggestions = (const char *const *)s->active->sugg;
		r->n_suggestions = 2;
		break;
	case OUT_MISSING:
		r->decision = POL_DENY;
		r->rule_id = POL_INTENT_RULE_MISSING;
		r->reason = s->reason_missing;
		r->suggestions = s->sugg_missing_v;
		r->n_suggestions = 2;
		break;
	case OUT_NOT_FOUND:
		r->decision = POL_DENY;
		r->rule_id = POL_INTENT_RULE_NOT_FOUND;
		r->reason = s->reason_not_found;
		r->suggestions = s->sugg_not_found_v;
		r->n_suggestions = 2;
		break;
	case OUT_INVALID:
		r->decision = POL_DENY;
		r->rule_id = POL_INTENT_RULE_INVALID;
		r->reason = s->reason_invalid;
		r->suggestions = s->sugg_invalid_v;
		r->n_suggestions = 2;
		break;
	case OUT_TOOL:
		r->decision = POL_ASK;
		r->rule_id = POL_INTENT_RULE_TOOL;
		r->reason = s->reason_tool;
		r->suggestions = s->sugg_tool_v;
		r->n_suggestions = 2;
		break;
	default:
		pol_result_init(r);
		return;
	}
	if (shown)
		pol_copy_matched(r, shown, strlen(shown));
	if (path)
		pol_copy_str(r->path, sizeof(r->path), path);
}

/* Who may write at all: the set's state before any path is looked at. */
static enum outcome state_outcome(const struct pol_intent_set *s)
{
	if (s->invalid)
		return OUT_INVALID;
	if (!s->selected)
		return OUT_MISSING;
	if (!s->active)
		return OUT_NOT_FOUND;
	return OUT_OK;
}

int pol_intent_op_confined(enum pol_op op)
{
	switch (op) {
	case POL_OP_WRITE:
	case POL_OP_CREATE:
	case POL_OP_TRUNCATE:
	case POL_OP_DELETE:
	case POL_OP_RENAME_FROM:
	case POL_OP_RENAME_TO:
	case POL_OP_CHMOD:
		return 1;
	default:
		return 0;
	}
}

/* lstat through the raw system call: the preload's own stat wrappers stay out of it. */
static int exists_as_dir(const char *path)
{
	struct stat st;

	return syscall(SYS_newfstatat, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(st.st_mode);
}

static enum pol_decision check_in(const struct pol_intent_set *s, const char *base,
				  const char *path, enum pol_op op, unsigned flags,
				  const char *home, struct pol_result *r)
{
	char fwd[PATH_MAX], lexical[PATH_MAX], resolved[PATH_MAX];
	size_t n = strlen(path);
	long lk, rk;
	enum outcome o;
	int dir_op;

	if (n >= sizeof(fwd)) {
		/* Too long to check: refused, never waved through. */
		o = state_outcome(s);
		fill(s, o == OUT_OK ? OUT_VIOLATION : o, path, NULL, op, r);
		return r->decision;
	}
	for (size_t i = 0; i <= n; i++)
		fwd[i] = path[i] == '\\' ? '/' : path[i];
	if (pol_path_normalize(fwd, base, home, lexical, sizeof(lexical)) < 0) {
		o = state_outcome(s);
		fill(s, o == OUT_OK ? OUT_VIOLATION : o, fwd, NULL, op, r);
		return r->decision;
	}
	if ((flags & POL_PATH_CANONICAL) || pol_path_resolve(lexical, !!(flags & POL_PATH_NOFOLLOW),
							     resolved, sizeof(resolved)) < 0)
		memcpy(resolved, lexical, strlen(lexical) + 1);
	dir_op = (flags & POL_PATH_IS_DIR) &&
		 (op == POL_OP_DELETE || op == POL_OP_RENAME_FROM || op == POL_OP_RENAME_TO);
	lk = under_root(s, lexical);
	rk = under_root(s, resolved);
	if (lk < 0 && rk < 0) {
		/* Outside the project, unless it is a folder that holds the project. */
		if (!dir_op || (under(lexical, s->root) < 0 && under(resolved, s->root) < 0))
			return POL_ALLOW;
	}
	/* Creating a folder that exists changes nothing (mkdir -p walks every parent);
	 * a file is not exempt: open(O_CREAT) on an existing file writes it. */
	if (op == POL_OP_CREATE && exists_as_dir(lexical))
		return POL_ALLOW;
	o = state_outcome(s);
	if (o == OUT_OK) {
		const struct intent *in = s->active;
		int ok = in_scope(s, in, resolved) && (lk < 0 || in_scope(s, in, lexical));

		if (ok && dir_op)
			ok = !dir_holds_excluded(s, in, lexical) &&
			     (strcmp(lexical, resolved) == 0 ||
			      !dir_holds_excluded(s, in, resolved));
		if (ok)
			return POL_ALLOW;
		o = OUT_VIOLATION;
	}
	fill(s, o, fwd, resolved, op, r);
	return r->decision;
}

enum pol_decision pol_intent_check_path(const struct pol_intent_set *s, const char *path,
					enum pol_op op, unsigned flags, const char *cwd,
					const char *home, struct pol_result *r)
{
	char here[PATH_MAX];
	const char *base = cwd;

	pol_result_init(r);
	if (!s || !path || !path[0] || !pol_intent_op_confined(op))
		return POL_ALLOW;
	if (path[0] != '/' && path[0] != '\\' && (!base || base[0] != '/')) {
		base = getcwd(here, sizeof(here)) ? here : s->root;
	}
	return check_in(s, base, path, op, flags, home, r);
}

enum pol_decision pol_intent_check_path_at(const struct pol_intent_set *s, int dirfd,
					   const char *path, enum pol_op op, unsigned flags,
					   const char *cwd, const char *home, struct pol_result *r)
{
	char base[PATH_MAX], link[64];
	ssize_t n;

	pol_result_init(r);
	if (!s || !path || !path[0] || !pol_intent_op_confined(op))
		return POL_ALLOW;
	if (dirfd == AT_FDCWD || path[0] == '/' || path[0] == '\\')
		return pol_intent_check_path(s, path, op, flags, cwd, home, r);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	n = readlink(link, base, sizeof(base) - 1);
	if (n <= 0 || base[0] != '/') {
		/* An unknown folder: the path cannot be placed, so it is not in the scope. */
		enum outcome o = state_outcome(s);

		fill(s, o == OUT_OK ? OUT_VIOLATION : o, path, NULL, op, r);
		return r->decision;
	}
	base[n] = '\0';
	return check_in(s, base, path, op, flags, home, r);
}

/* ---- shell commands ------------------------------------------------------------------------ */

struct cmd_check {
	const struct pol_intent_set *s;
	const char *cwd, *home;
	struct pol_result *best;
	struct pol_result cand;
};

static int on_unit(const struct pol_unit *u, void *arg)
{
	struct cmd_check *c = arg;

	if (u->kind != POL_UNIT_PATH || !u->path || !pol_intent_op_confined(u->op))
		return 0;
	pol_intent_check_path(c->s, u->path, u->op, u->is_dir_op ? POL_PATH_IS_DIR : 0, c->cwd,
			      c->home, &c->cand);
	if (c->cand.decision > c->best->decision) {
		*c->best = c->cand;
		c->best->line = u->line > 1 ? u->line : 0;
	}
	return c->best->decision == POL_DENY;
}

enum pol_decision pol_intent_check_command(const struct pol_intent_set *s, const char *cmd,
					   size_t len, const char *cwd, const char *home,
					   struct pol_result *r)
{
	struct cmd_check c;
	struct pol_arena a;
	char here[PATH_MAX];
	int rc;

	pol_result_init(r);
	if (!s || !cmd || !len)
		return POL_ALLOW;
	if (!cwd || cwd[0] != '/')
		cwd = getcwd(here, sizeof(here)) ? here : s->root;
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.cwd = cwd;
	c.home = home;
	c.best = r;
	pol_arena_init(&a, 0);
	struct pol_shell_opts opts = {cwd, home, 0};
	rc = pol_shell_analyze(cmd, len, &opts, &a, on_unit, &c);
	pol_arena_release(&a);
	if (rc < 0) {
		enum outcome o = state_outcome(s);
		char shown[POL_MATCHED_BYTES];

		pol_truncate_utf8(cmd, len, POL_MATCHED_CHARS, shown, sizeof(shown));
		fill(s, o == OUT_OK ? OUT_VIOLATION : o, shown, NULL, POL_OP_WRITE, r);
		r->decision = POL_DENY;
	}
	return r->decision;
}

/* ---- tool classes --------------------------------------------------------------------------- */

static int name_in(const struct strv *sv, const char *tool)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], tool) || pol_glob_match(sv->v[i], tool))
			return 1;
	return 0;
}

enum pol_intent_tool_class pol_intent_tool_class(const struct pol_intent_set *s, const char *tool,
						 int known_read_only)
{
	if (!tool || !tool[0])
		return POL_INTENT_TOOL_DESTRUCTIVE;
	if (s && name_in(&s->tools.destructive, tool))
		return POL_INTENT_TOOL_DESTRUCTIVE;
	if (s && name_in(&s->tools.read_only, tool))
		return POL_INTENT_TOOL_READ_ONLY;
	return known_read_only ? POL_INTENT_TOOL_READ_ONLY : POL_INTENT_TOOL_DESTRUCTIVE;
}

int pol_intent_tools_need_approval(const struct pol_intent_set *s)
{
	return s ? s->tools.need_approval : 0;
}

enum pol_decision pol_intent_check_tool(const struct pol_intent_set *s, const char *tool,
					int known_read_only, struct pol_result *r)
{
	enum outcome o;

	pol_result_init(r);
	if (!s || pol_intent_tool_class(s, tool, known_read_only) == POL_INTENT_TOOL_READ_ONLY ||
	    !s->tools.need_approval)
		return POL_ALLOW;
	o = state_outcome(s);
	fill(s, o == OUT_OK ? OUT_TOOL : o, tool ? tool : "", NULL, POL_OP_WRITE, r);
	return r->decision;
}

/* ---- the structured error ---------------------------------------------------------------- */

static const struct {
	const char *rule, *code;
} codes[] = {
    {POL_INTENT_RULE_VIOLATION, "SCOPE_VIOLATION"},
    {POL_INTENT_RULE_MISSING, "MISSING_INTENT"},
    {POL_INTENT_RULE_NOT_FOUND, "INTENT_NOT_FOUND"},
    {POL_INTENT_RULE_INVALID, "INVALID_INTENTS_FILE"},
    {POL_INTENT_RULE_TOOL, "UNCHECKED_TOOL"},
};

const char *pol_intent_error_code(const struct pol_result *r)
{
	if (!r || r->detection != POL_DET_SCOPE || !r->rule_id)
		return NULL;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (!strcmp(codes[i].rule, r->rule_id))
			return codes[i].code;
	return NULL;
}

#define LIT(s) s, sizeof(s) - 1

/* The reason's pieces, inside one JSON string: each left out once one does not fit. */
static void chars(struct pol_json *j, const char *t)
{
	pol_json_chars(j, t, strlen(t), 0);
}

size_t pol_intent_error_json(const struct pol_result *r, char *out, size_t size)
{
	const char *code = pol_intent_error_code(r);
	struct pol_json j;

	if (!code || !out || size < 256)
		return 0;
	/* 40 bytes stay free for the closing keys (38), whatever the strings' length. */
	j = (struct pol_json){.b = out, .size = size, .reserve = 40};
	pol_json_raw(&j, LIT("{\"error\":\""));
	pol_json_raw(&j, code, strlen(code));
	pol_json_raw(&j, LIT("\",\"reason\":\""));
	if (r->matched[0] && strcmp(r->rule_id, POL_INTENT_RULE_VIOLATION) == 0) {
		chars(&j, r->matched);
		chars(&j, " is ");
	} else if (r->matched[0] && strcmp(r->rule_id, POL_INTENT_RULE_TOOL) == 0) {
		chars(&j, r->matched);
		chars(&j, ": ");
	}
	/* The reasons start with their code (so that the preload's stderr line and the
	 * audit log carry it); the JSON has the code in "error" already. */
	const char *reason = r->reason ? r->reason : "outside the active intent's scope";
	size_t cl = strlen(code);

	if (!strncmp(reason, code, cl) && reason[cl] == ':' && reason[cl + 1] == ' ')
		reason += cl + 2;
	chars(&j, reason);
	j.full = 0;
	j.reserve = 22; /* the last key and the NUL */
	pol_json_raw(&j, LIT("\",\"suggestion\":\""));
	if (r->n_suggestions && r->suggestions[0])
		chars(&j, r->suggestions[0]);
	j.full = 0;
	j.reserve = 1; /* the NUL */
	pol_json_raw(&j, LIT("\",\"recoverable\":true}"));
	out[j.n] = '\0';
	return j.full ? 0 : j.n;
}
