/* intent.c - intent scopes: the intents file, scope matching, the active-intent
 * selection and the scope decisions (see intent.h).
 *
 * Loading allocates; the path checks do not (the preload calls them inside libc
 * wrappers): every buffer they need is on the stack, every string a result points
 * to was built at load or selection time and lives in the set.
 */
#include "intent.h"

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
#include <yaml.h>

#include "arena.h"
#include "internal.h"
#include "shell.h"

#define INTENT_MAX_FILE	 (4u * 1024 * 1024) /* an intents file is small; more is refused */
#define INTENT_MAX_DIAGS 16
#define INTENT_ID_MAX	 128
/* Bounds of the walk that looks for excluded files inside a folder being deleted: past
 * them the folder counts as holding one (fail safe). */
#define WALK_MAX_ENTRIES 20000
#define WALK_MAX_DEPTH	 12

struct strv {
	char **v;
	size_t n;
};

struct intent {
	struct pol_intent pub;
	struct strv scope, constraints, acceptance;
	/* The owned_scope expanded against the root as written and, when it differs,
	 * against the root resolved through symlinks. */
	struct pol_pathpat *pats;
	size_t n_pats;
	int has_inclusion;
	char *reason;	 /* "SCOPE_VIOLATION: outside the owned_scope of ID (name)" */
	char *scope_txt; /* the patterns joined by ", " */
	char *sugg[2];
};

struct tool_pats {
	struct strv read_only, destructive;
	int need_approval;
};

struct pol_intent_set {
	char *file;
	char *root;	 /* as given (normalized) */
	char *root_real; /* resolved through symlinks; NULL when the same */
	struct intent *intents;
	size_t n, cap;
	struct pol_intent_diag diags[INTENT_MAX_DIAGS];
	size_t n_diags;
	int invalid;
	char *selected;
	const struct intent *active;
	char *known; /* "INT-001, INT-002" or "none" */
	/* reasons and suggestions of the set-wide results */
	char *reason_missing, *reason_not_found, *reason_invalid, *reason_tool;
	char *sugg_missing, *sugg_not_found, *sugg_invalid, *sugg_tool;
	/* each result's second suggestion says how to go on on purpose ("If intentional:"),
	 * since a scope rule is not a policy rule that `dcg allow` could lift */
	const char *sugg_missing_v[2], *sugg_not_found_v[2], *sugg_invalid_v[2], *sugg_tool_v[2];
	struct tool_pats tools;
};

/* ---- small helpers ------------------------------------------------------------------ */

static void diag(struct pol_intent_set *s, const char *file, const yaml_mark_t *m, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));

static void diag(struct pol_intent_set *s, const char *file, const yaml_mark_t *m, const char *fmt,
		 ...)
{
	struct pol_intent_diag *d;
	va_list ap;

	if (s->n_diags >= INTENT_MAX_DIAGS)
		return;
	d = &s->diags[s->n_diags++];
	pol_copy_str(d->file, sizeof(d->file), file);
	d->line = m ? (unsigned)m->line + 1 : 0;
	d->col = m ? (unsigned)m->column + 1 : 0;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
}

static int strv_add(struct strv *sv, const char *s)
{
	char **nv = realloc(sv->v, (sv->n + 2) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	sv->v = nv;
	sv->v[sv->n] = strdup(s);
	if (!sv->v[sv->n])
		return -ENOMEM;
	sv->n++;
	sv->v[sv->n] = NULL;
	return 0;
}

static void strv_release(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

/* A malloc'ed string from a printf format; NULL on ENOMEM. */
static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *out = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&out, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : out;
}

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

/* Expands one owned_scope entry like the policy expands path patterns, with one
 * difference: "dir" + "/" + "**" becomes "dir/", which covers the folder itself too
 * (so that creating or removing the folder of an owned tree stays in scope). */
static int expand_pat(const char *pat, const char *root, struct pol_pathpat *pp)
{
	char tmp[PATH_MAX], buf[PATH_MAX];
	const char *s = pat;
	size_t n;

	memset(pp, 0, sizeof(*pp));
	if (*s == '!') {
		pp->negate = 1;
		s++;
	}
	n = strlen(s);
	if (n >= sizeof(tmp))
		return -ENAMETOOLONG;
	/* Windows-style separators in a pattern mean the same as in a path. */
	for (size_t i = 0; i < n; i++)
		tmp[i] = s[i] == '\\' ? '/' : s[i];
	tmp[n] = '\0';
	s = tmp;
	while (s[0] == '*' && s[1] == '*' && s[2] == '/')
		s += 3;
	n = strlen(s);
	while (n > 3 && s[n - 1] == '*' && s[n - 2] == '*' && s[n - 3] == '/')
		n -= 3;
	while (n > 1 && s[n - 1] == '/')
		n--;
	if (n == 0)
		return -EINVAL;
	if (!memchr(s, '/', n) && s[0] != '~') {
		pp->basename_only = 1;
		pp->glob = strndup(s, n);
	} else {
		char one[PATH_MAX];

		memcpy(one, s, n);
		one[n] = '\0';
		if (pol_path_normalize(one, root, getenv("HOME"), buf, sizeof(buf)) < 0)
			return -ENAMETOOLONG;
		pp->glob = strdup(buf);
	}
	if (!pp->glob)
		return -ENOMEM;
	pol_pathpat_classify(pp);
	return 0;
}

static int compile_scope(struct pol_intent_set *s, struct intent *in)
{
	const char *roots[2] = {s->root, s->root_real};
	size_t want = in->scope.n * 2;

	in->pats = calloc(want ? want : 1, sizeof(*in->pats));
	if (!in->pats)
		return -ENOMEM;
	for (int k = 0; k < 2; k++) {
		if (!roots[k])
			continue;
		for (size_t i = 0; i < in->scope.n; i++) {
			struct pol_pathpat *pp = &in->pats[in->n_pats];
			int rc = expand_pat(in->scope.v[i], roots[k], pp);

			if (rc == -ENOMEM)
				return rc;
			if (rc < 0) {
				if (k == 0)
					diag(s, s->file, NULL,
					     "%s: owned_scope entry '%s' is empty or too long",
					     in->pub.id, in->scope.v[i]);
				continue;
			}
			/* A basename pattern is the same against either root. */
			if (k == 1 && pp->basename_only) {
				free(pp->glob);
				memset(pp, 0, sizeof(*pp));
				continue;
			}
			if (!pp->negate)
				in->has_inclusion = 1;
			in->n_pats++;
		}
	}
	return 0;
}

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
	struct pol_shell_opts opts = {cwd, home};
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

static const char *const builtin_read_only[] = {
    /* Claude Code */
    "Read",
    "Glob",
    "Grep",
    "LS",
    "NotebookRead",
    "WebFetch",
    "WebSearch",
    "TodoRead",
    "TodoWrite",
    "Task",
    "ExitPlanMode",
    "BashOutput",
    /* Gemini CLI */
    "read_file",
    "read_many_files",
    "list_directory",
    "glob",
    "grep_search",
    "search_file_content",
    "web_fetch",
    "google_web_search",
};

static int name_in(const struct strv *sv, const char *tool)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], tool) || pol_glob_match(sv->v[i], tool))
			return 1;
	return 0;
}

enum pol_intent_tool_class pol_intent_tool_class(const struct pol_intent_set *s, const char *tool)
{
	if (!tool || !tool[0])
		return POL_INTENT_TOOL_DESTRUCTIVE;
	if (s && name_in(&s->tools.destructive, tool))
		return POL_INTENT_TOOL_DESTRUCTIVE;
	if (s && name_in(&s->tools.read_only, tool))
		return POL_INTENT_TOOL_READ_ONLY;
	for (size_t i = 0; i < sizeof(builtin_read_only) / sizeof(builtin_read_only[0]); i++)
		if (!strcmp(builtin_read_only[i], tool))
			return POL_INTENT_TOOL_READ_ONLY;
	return POL_INTENT_TOOL_DESTRUCTIVE;
}

int pol_intent_tools_need_approval(const struct pol_intent_set *s)
{
	return s ? s->tools.need_approval : 0;
}

enum pol_decision pol_intent_check_tool(const struct pol_intent_set *s, const char *tool,
					struct pol_result *r)
{
	enum outcome o;

	pol_result_init(r);
	if (!s || pol_intent_tool_class(s, tool) == POL_INTENT_TOOL_READ_ONLY ||
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

struct jbuf {
	char *s;
	size_t len, size; /* size keeps room for the closing text */
};

static void j_raw(struct jbuf *b, const char *t)
{
	size_t n = strlen(t);

	if (b->len + n >= b->size)
		n = b->size - 1 - b->len;
	memcpy(b->s + b->len, t, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Appends text as the inside of a JSON string, stopping before an escape or a UTF-8
 * sequence that would not fit whole. */
static void j_str(struct jbuf *b, const char *t)
{
	static const char hex[] = "0123456789abcdef";

	for (const unsigned char *p = (const unsigned char *)t; *p;) {
		char esc[8];
		size_t n = 0, adv = 1;

		if (*p == '"' || *p == '\\') {
			esc[n++] = '\\';
			esc[n++] = (char)*p;
		} else if (*p < 0x20) {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 15];
			n = 6;
		} else if (*p < 0x80) {
			esc[n++] = (char)*p;
		} else {
			/* a valid UTF-8 sequence is copied whole, anything else becomes '?' */
			size_t need = (*p >= 0xf0 && *p < 0xf5) ? 4
				      : (*p >= 0xe0)		? 3
				      : (*p >= 0xc2)		? 2
								: 0;
			size_t k = 1;

			while (need && k < need && (p[k] & 0xc0) == 0x80)
				k++;
			if (need && k == need && *p < 0xf5) {
				memcpy(esc, p, need);
				n = need;
				adv = need;
			} else {
				esc[n++] = '?';
			}
		}
		if (b->len + n >= b->size)
			return;
		memcpy(b->s + b->len, esc, n);
		b->len += n;
		b->s[b->len] = '\0';
		p += adv;
	}
}

size_t pol_intent_error_json(const struct pol_result *r, char *out, size_t size)
{
	const char *code = pol_intent_error_code(r);
	struct jbuf b;

	if (!code || !out || size < 256)
		return 0;
	/* 40 bytes stay free for the closing keys, whatever the strings' length. */
	b.s = out;
	b.len = 0;
	b.size = size - 40;
	out[0] = '\0';
	j_raw(&b, "{\"error\":\"");
	j_raw(&b, code);
	j_raw(&b, "\",\"reason\":\"");
	if (r->matched[0] && strcmp(r->rule_id, POL_INTENT_RULE_VIOLATION) == 0) {
		j_str(&b, r->matched);
		j_str(&b, " is ");
	} else if (r->matched[0] && strcmp(r->rule_id, POL_INTENT_RULE_TOOL) == 0) {
		j_str(&b, r->matched);
		j_str(&b, ": ");
	}
	/* The reasons start with their code (so that the preload's stderr line and the
	 * audit log carry it); the JSON has the code in "error" already. */
	const char *reason = r->reason ? r->reason : "outside the active intent's scope";
	size_t cl = strlen(code);

	if (!strncmp(reason, code, cl) && reason[cl] == ':' && reason[cl + 1] == ' ')
		reason += cl + 2;
	j_str(&b, reason);
	b.size = size - 30;
	j_raw(&b, "\",\"suggestion\":\"");
	if (r->n_suggestions && r->suggestions[0])
		j_str(&b, r->suggestions[0]);
	b.size = size;
	j_raw(&b, "\",\"recoverable\":true}");
	return b.len;
}

/* ---- loading ---------------------------------------------------------------------------------- */

static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A list of strings (a lone string counts as a list of one). */
static int read_strv(struct pol_intent_set *s, const char *file, yaml_document_t *doc,
		     yaml_node_t *n, const char *key, const char *id, struct strv *out)
{
	const char *v = scalar(n);

	if (v) {
		if (!v[0] && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			return 0; /* "key:" with nothing: an empty list */
		return strv_add(out, v);
	}
	if (n->type != YAML_SEQUENCE_NODE) {
		diag(s, file, &n->start_mark, "%s: '%s' must be a list of strings", id, key);
		return -EINVAL;
	}
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *item = yaml_document_get_node(doc, *it);
		const char *sv = scalar(item);

		if (!sv || !sv[0] || (sv[0] == '!' && !sv[1])) {
			diag(s, file, item ? &item->start_mark : NULL,
			     "%s: '%s' entries must be non-empty strings", id, key);
			return -EINVAL;
		}
		if (strv_add(out, sv) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int id_ok(const char *id)
{
	size_t n = strlen(id);

	if (!n || n >= INTENT_ID_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)id[i] <= ' ' || id[i] == 0x7f)
			return 0;
	return 1;
}

static void intent_release(struct intent *in)
{
	strv_release(&in->scope);
	strv_release(&in->constraints);
	strv_release(&in->acceptance);
	for (size_t i = 0; i < in->n_pats; i++)
		free(in->pats[i].glob);
	free(in->pats);
	free((char *)in->pub.id);
	free((char *)in->pub.name);
	free((char *)in->pub.status);
	free(in->reason);
	free(in->scope_txt);
	free(in->sugg[0]);
	free(in->sugg[1]);
	memset(in, 0, sizeof(*in));
}

static char *join(const struct strv *sv, const char *sep, const char *empty)
{
	size_t need = 1;
	char *out, *o;

	if (!sv->n)
		return strdup(empty);
	for (size_t i = 0; i < sv->n; i++)
		need += strlen(sv->v[i]) + strlen(sep);
	out = malloc(need);
	if (!out)
		return NULL;
	o = out;
	for (size_t i = 0; i < sv->n; i++) {
		size_t n = strlen(sv->v[i]);

		if (i) {
			memcpy(o, sep, strlen(sep));
			o += strlen(sep);
		}
		memcpy(o, sv->v[i], n);
		o += n;
	}
	*o = '\0';
	return out;
}

/* Parses one entry of active_intents. Returns 0 (added or left out with a
 * diagnostic) or -ENOMEM. */
static int read_intent(struct pol_intent_set *s, const char *file, yaml_document_t *doc,
		       yaml_node_t *n)
{
	struct intent in;
	const char *id = NULL;
	int bad = 0, rc = 0;

	memset(&in, 0, sizeof(in));
	if (n->type != YAML_MAPPING_NODE) {
		diag(s, file, &n->start_mark,
		     "an active_intents entry must be a mapping (id, name, owned_scope, ...)");
		return 0;
	}
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	     pr++) {
		const char *k = scalar(yaml_document_get_node(doc, pr->key));

		if (k && !strcmp(k, "id"))
			id = scalar(yaml_document_get_node(doc, pr->value));
	}
	if (!id || !id_ok(id)) {
		diag(s, file, &n->start_mark,
		     id ? "intent id '%s' must be one word (no spaces), under 128 bytes"
			: "an intent has no id%s",
		     id ? id : "");
		return 0;
	}
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->intents[i].pub.id, id)) {
			diag(
			    s, file, &n->start_mark,
			    "intent id '%s' is listed twice (line %u): the later entry is left out",
			    id, s->intents[i].pub.line);
			return 0;
		}
	in.pub.id = strdup(id);
	in.pub.line = (unsigned)n->start_mark.line + 1;
	if (!in.pub.id)
		return -ENOMEM;
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *kn = yaml_document_get_node(doc, pr->key);
		yaml_node_t *vn = yaml_document_get_node(doc, pr->value);
		const char *k = scalar(kn);

		if (!k || !vn)
			continue;
		if (!strcmp(k, "name") || !strcmp(k, "status")) {
			const char *v = scalar(vn);
			const char **dst = !strcmp(k, "name") ? &in.pub.name : &in.pub.status;

			if (!v) {
				diag(s, file, &vn->start_mark, "%s: '%s' must be a string", id, k);
				bad = 1;
				continue;
			}
			free((char *)*dst);
			*dst = strdup(v);
			if (!*dst) {
				rc = -ENOMEM;
				goto out_release;
			}
		} else if (!strcmp(k, "owned_scope")) {
			rc = read_strv(s, file, doc, vn, k, id, &in.scope);
		} else if (!strcmp(k, "constraints")) {
			rc = read_strv(s, file, doc, vn, k, id, &in.constraints);
		} else if (!strcmp(k, "acceptance_criteria")) {
			rc = read_strv(s, file, doc, vn, k, id, &in.acceptance);
		}
		if (rc == -ENOMEM)
			goto out_release;
		if (rc < 0)
			bad = 1;
		rc = 0;
	}
	if (bad) {
		diag(s, file, &n->start_mark, "intent '%s' is left out because of the errors above",
		     id);
		goto out_release;
	}
	if (!in.pub.name)
		in.pub.name = strdup("");
	if (!in.pub.status)
		in.pub.status = strdup("");
	if (!in.pub.name || !in.pub.status) {
		rc = -ENOMEM;
		goto out_release;
	}
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 8;
		struct intent *ni = realloc(s->intents, nc * sizeof(*ni));

		if (!ni) {
			rc = -ENOMEM;
			goto out_release;
		}
		s->intents = ni;
		s->cap = nc;
	}
	s->intents[s->n++] = in;
	return 0;
out_release:
	intent_release(&in);
	return rc;
}

/* Builds what results of this intent point to: patterns, reason, suggestions. */
static int finish_intent(struct pol_intent_set *s, struct intent *in)
{
	int rc = compile_scope(s, in);

	if (rc < 0)
		return rc;
	in->pub.owned_scope = (const char *const *)in->scope.v;
	in->pub.n_owned_scope = in->scope.n;
	in->pub.constraints = (const char *const *)in->constraints.v;
	in->pub.n_constraints = in->constraints.n;
	in->pub.acceptance_criteria = (const char *const *)in->acceptance.v;
	in->pub.n_acceptance_criteria = in->acceptance.n;
	in->scope_txt = join(&in->scope, ", ", "(empty: owns nothing)");
	if (in->pub.name[0])
		in->reason = xasprintf("SCOPE_VIOLATION: outside the owned_scope of %s (%s)",
				       in->pub.id, in->pub.name);
	else
		in->reason =
		    xasprintf("SCOPE_VIOLATION: outside the owned_scope of %s", in->pub.id);
	in->sugg[0] = xasprintf(
	    "Keep writes inside %s's owned_scope (%s), select the intent that owns this path "
	    "(dcg intent select INT-ID; known: %s), or ask the user to widen the scope",
	    in->pub.id, in->scope_txt ? in->scope_txt : "", s->known ? s->known : "none");
	in->sugg[1] = xasprintf("If intentional: ask the user to approve this write, or to add the "
				"path to %s's owned_scope in %s",
				in->pub.id, POL_INTENT_FILE);
	if (!in->scope_txt || !in->reason || !in->sugg[0] || !in->sugg[1])
		return -ENOMEM;
	return 0;
}

static int finish_set(struct pol_intent_set *s)
{
	struct strv ids = {NULL, 0};
	int rc = 0;

	for (size_t i = 0; i < s->n && rc == 0; i++)
		rc = strv_add(&ids, s->intents[i].pub.id);
	if (rc == 0)
		s->known = join(&ids, ", ", "none");
	strv_release(&ids);
	if (rc < 0 || !s->known)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		rc = finish_intent(s, &s->intents[i]);
		if (rc < 0)
			return rc;
	}
	s->reason_missing =
	    xasprintf("MISSING_INTENT: no active intent: writes in this project need one (%s)",
		      POL_INTENT_FILE);
	s->sugg_missing = xasprintf(
	    "Select the intent you work on: dcg intent select INT-ID (known: %s)", s->known);
	s->sugg_not_found =
	    xasprintf("Select a known intent: dcg intent select INT-ID (known: %s)", s->known);
	s->reason_tool = xasprintf("UNCHECKED_TOOL: this tool's writes cannot be checked against "
				   "the active intent's owned_scope");
	s->sugg_tool = xasprintf(
	    "Use Write or Edit for files in the owned_scope, or ask the user to approve this call");
	if (s->invalid) {
		const struct pol_intent_diag *d = s->n_diags ? &s->diags[0] : NULL;

		s->reason_invalid =
		    d ? xasprintf(
			    "INVALID_INTENTS_FILE: the intents file cannot be used: %s:%u:%u: %s",
			    d->file, d->line, d->col, d->msg)
		      : xasprintf("INVALID_INTENTS_FILE: the intents file cannot be used");
	} else {
		s->reason_invalid =
		    xasprintf("INVALID_INTENTS_FILE: the intents file cannot be used");
	}
	s->sugg_invalid = xasprintf("Fix %s (dcg intent list shows the errors)", s->file);
	if (!s->reason_missing || !s->sugg_missing || !s->sugg_not_found || !s->reason_tool ||
	    !s->sugg_tool || !s->reason_invalid || !s->sugg_invalid)
		return -ENOMEM;
	s->sugg_missing_v[0] = s->sugg_missing;
	s->sugg_missing_v[1] = "If intentional: run dcg intent select INT-ID, then retry";
	s->sugg_not_found_v[0] = s->sugg_not_found;
	s->sugg_not_found_v[1] =
	    "If intentional: add the intent to " POL_INTENT_FILE ", or run dcg intent clear";
	s->sugg_invalid_v[0] = s->sugg_invalid;
	s->sugg_invalid_v[1] =
	    "If intentional: remove " POL_INTENT_FILE " to stop confining writes";
	s->sugg_tool_v[0] = s->sugg_tool;
	s->sugg_tool_v[1] = "If intentional: approve the call, or list the tool under "
			    "tools.read_only in the policy";
	return pol_intent_select(s, NULL);
}

/* Parses the document; any error that makes the file unusable sets s->invalid. */
static int parse_intents(struct pol_intent_set *s, const char *name, const char *buf, size_t len)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *list = NULL;
	int rc = 0;

	if (len > INTENT_MAX_FILE) {
		diag(s, name, NULL, "the file is larger than %u bytes", INTENT_MAX_FILE);
		s->invalid = 1;
		return 0;
	}
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		diag(s, name, &parser.problem_mark, "YAML syntax error: %s",
		     parser.problem ? parser.problem : "unknown");
		s->invalid = 1;
		goto out_parser;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		diag(s, name, root ? &root->start_mark : NULL,
		     "expected a mapping with an 'active_intents' list");
		s->invalid = 1;
		goto out_doc;
	}
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	     pr < root->data.mapping.pairs.top; pr++) {
		const char *k = scalar(yaml_document_get_node(&doc, pr->key));

		if (k && !strcmp(k, "active_intents"))
			list = yaml_document_get_node(&doc, pr->value);
	}
	if (!list) {
		diag(s, name, &root->start_mark, "no 'active_intents' key");
		s->invalid = 1;
		goto out_doc;
	}
	if (list->type == YAML_SCALAR_NODE && !scalar(list)[0])
		goto out_doc; /* "active_intents:" with nothing: no intents */
	if (list->type != YAML_SEQUENCE_NODE) {
		diag(s, name, &list->start_mark, "'active_intents' must be a list of intents");
		s->invalid = 1;
		goto out_doc;
	}
	for (yaml_node_item_t *it = list->data.sequence.items.start;
	     it < list->data.sequence.items.top && rc == 0; it++) {
		yaml_node_t *item = yaml_document_get_node(&doc, *it);

		if (item)
			rc = read_intent(s, name, &doc, item);
	}
out_doc:
	yaml_document_delete(&doc);
out_parser:
	yaml_parser_delete(&parser);
	return rc;
}

static struct pol_intent_set *set_new(const char *file, const char *root)
{
	struct pol_intent_set *s = calloc(1, sizeof(*s));
	char norm[PATH_MAX], real[PATH_MAX], here[PATH_MAX];
	const char *base = getcwd(here, sizeof(here)) ? here : "/";

	if (!s)
		return NULL;
	s->file = strdup(file);
	if (!s->file)
		goto out_free;
	if (!root) {
		/* the folder above .orchestration/ */
		char tmp[PATH_MAX];

		if (pol_path_normalize(file, base, NULL, tmp, sizeof(tmp)) < 0 ||
		    strlen(tmp) + 8 >= sizeof(tmp))
			goto out_free;
		memcpy(tmp + strlen(tmp), "/../..", 7);
		if (pol_path_normalize(tmp, "/", NULL, norm, sizeof(norm)) < 0)
			goto out_free;
	} else if (pol_path_normalize(root, base, NULL, norm, sizeof(norm)) < 0) {
		goto out_free;
	}
	s->root = strdup(norm);
	if (!s->root)
		goto out_free;
	if (pol_path_resolve(norm, 0, real, sizeof(real)) == 0 && strcmp(real, norm) != 0) {
		s->root_real = strdup(real);
		if (!s->root_real)
			goto out_free;
	}
	return s;
out_free:
	pol_intent_free(s);
	return NULL;
}

int pol_intent_load_buffer(const char *name, const char *buf, size_t len, const char *root,
			   struct pol_intent_set **out)
{
	struct pol_intent_set *s;
	int rc;

	*out = NULL;
	s = set_new(name, root);
	if (!s)
		return -ENOMEM;
	rc = parse_intents(s, name, buf, len);
	if (rc == 0)
		rc = finish_set(s);
	if (rc < 0) {
		pol_intent_free(s);
		return rc;
	}
	*out = s;
	return s->invalid ? -EINVAL : 0;
}

/* Reads a whole file into a malloc'ed buffer (NUL-terminated). */
static int read_file(const char *path, size_t max, char **out, size_t *len)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	int fd, rc = 0;

	*out = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		goto out_close;
	}
	if ((size_t)st.st_size > max) {
		rc = -EFBIG;
		goto out_close;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		rc = -ENOMEM;
		goto out_close;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
out_close:
	close(fd);
	return rc;
}

/* A set that refuses every write in its project, with err as the reason. */
static int invalid_set(const char *file, const char *root, int err, struct pol_intent_set **out)
{
	struct pol_intent_set *s = set_new(file, root);

	if (!s)
		return -ENOMEM;
	diag(s, file, NULL, "cannot read the file: %s", strerror(-err));
	s->invalid = 1;
	if (finish_set(s) < 0) {
		pol_intent_free(s);
		return -ENOMEM;
	}
	*out = s;
	return -EINVAL;
}

int pol_intent_load(const char *file, const char *root, struct pol_intent_set **out)
{
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	rc = read_file(file, INTENT_MAX_FILE, &buf, &len);
	if (rc == -ENOENT)
		return rc;
	if (rc < 0) /* present but unreadable: refuse writes, with the reason */
		return invalid_set(file, root, rc, out);
	rc = pol_intent_load_buffer(file, buf, len, root, out);
	free(buf);
	return rc;
}

void pol_intent_free(struct pol_intent_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		intent_release(&s->intents[i]);
	free(s->intents);
	free(s->file);
	free(s->root);
	free(s->root_real);
	free(s->selected);
	free(s->known);
	free(s->reason_missing);
	free(s->reason_not_found);
	free(s->reason_invalid);
	free(s->reason_tool);
	free(s->sugg_missing);
	free(s->sugg_not_found);
	free(s->sugg_invalid);
	free(s->sugg_tool);
	strv_release(&s->tools.read_only);
	strv_release(&s->tools.destructive);
	free(s);
}

size_t pol_intent_diag_count(const struct pol_intent_set *s)
{
	return s ? s->n_diags : 0;
}

const struct pol_intent_diag *pol_intent_diag_get(const struct pol_intent_set *s, size_t i)
{
	return s && i < s->n_diags ? &s->diags[i] : NULL;
}

int pol_intent_invalid(const struct pol_intent_set *s)
{
	return s ? s->invalid : 0;
}

const char *pol_intent_file(const struct pol_intent_set *s)
{
	return s ? s->file : NULL;
}

const char *pol_intent_root(const struct pol_intent_set *s)
{
	return s ? s->root : NULL;
}

size_t pol_intent_count(const struct pol_intent_set *s)
{
	return s ? s->n : 0;
}

const struct pol_intent *pol_intent_get(const struct pol_intent_set *s, size_t i)
{
	return s && i < s->n ? &s->intents[i].pub : NULL;
}

const struct pol_intent *pol_intent_find(const struct pol_intent_set *s, const char *id)
{
	if (!s || !id)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->intents[i].pub.id, id))
			return &s->intents[i].pub;
	return NULL;
}

int pol_intent_select(struct pol_intent_set *s, const char *id)
{
	char *sel = NULL, *reason;

	if (id && id[0]) {
		sel = strdup(id);
		if (!sel)
			return -ENOMEM;
	}
	reason = xasprintf("INTENT_NOT_FOUND: the active intent '%s' is not in %s", sel ? sel : "",
			   s->file);
	if (!reason) {
		free(sel);
		return -ENOMEM;
	}
	free(s->selected);
	free(s->reason_not_found);
	s->selected = sel;
	s->reason_not_found = reason;
	s->active = (const struct intent *)pol_intent_find(s, sel);
	return sel && !s->active ? -ENOENT : 0;
}

const struct pol_intent *pol_intent_active(const struct pol_intent_set *s)
{
	return s && s->active ? &s->active->pub : NULL;
}

const char *pol_intent_selected_id(const struct pol_intent_set *s)
{
	return s ? s->selected : NULL;
}

int pol_intent_find_file(const char *cwd, char *file, size_t file_size, char *root,
			 size_t root_size)
{
	char dir[PATH_MAX], here[PATH_MAX];
	struct stat st;

	if (!cwd || cwd[0] != '/')
		cwd = getcwd(here, sizeof(here)) ? here : "/";
	if (pol_path_normalize(cwd, "/", NULL, dir, sizeof(dir)) < 0)
		return -ENAMETOOLONG;
	for (;;) {
		int n = snprintf(file, file_size, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "",
				 POL_INTENT_FILE);

		if (n < 0 || (size_t)n >= file_size)
			return -ENAMETOOLONG;
		if (stat(file, &st) == 0) {
			if (strlen(dir) >= root_size)
				return -ENAMETOOLONG;
			memcpy(root, dir, strlen(dir) + 1);
			return 0;
		}
		if (!strcmp(dir, "/"))
			return -ENOENT;
		char *slash = strrchr(dir, '/');
		if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
	}
}

/* ---- tools: in policy files ---------------------------------------------------------- */

int pol_intent_tools_load_buffer(struct pol_intent_set *s, const char *name, const char *buf,
				 size_t len)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *tools = NULL;
	int rc = 0;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		/* the policy loader reports syntax errors already */
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	root = yaml_document_get_root_node(&doc);
	if (root && root->type == YAML_MAPPING_NODE)
		for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
		     pr < root->data.mapping.pairs.top; pr++) {
			const char *k = scalar(yaml_document_get_node(&doc, pr->key));

			if (k && !strcmp(k, "tools"))
				tools = yaml_document_get_node(&doc, pr->value);
		}
	if (!tools || (tools->type == YAML_SCALAR_NODE && !scalar(tools)[0]))
		goto out_doc;
	if (tools->type != YAML_MAPPING_NODE) {
		diag(s, name, &tools->start_mark,
		     "'tools' must be a mapping (read_only, destructive, "
		     "destructive_need_approval)");
		rc = -EINVAL;
		goto out_doc;
	}
	for (yaml_node_pair_t *pr = tools->data.mapping.pairs.start;
	     pr < tools->data.mapping.pairs.top; pr++) {
		yaml_node_t *kn = yaml_document_get_node(&doc, pr->key);
		yaml_node_t *vn = yaml_document_get_node(&doc, pr->value);
		const char *k = scalar(kn), *v = scalar(vn);
		int r2 = 0;

		if (!k || !vn)
			continue;
		if (!strcmp(k, "read_only")) {
			r2 = read_strv(s, name, &doc, vn, "tools.read_only", "tools",
				       &s->tools.read_only);
		} else if (!strcmp(k, "destructive")) {
			r2 = read_strv(s, name, &doc, vn, "tools.destructive", "tools",
				       &s->tools.destructive);
		} else if (!strcmp(k, "destructive_need_approval")) {
			if (v && (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on")))
				s->tools.need_approval = 1;
			else if (v &&
				 (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off")))
				s->tools.need_approval = 0;
			else {
				diag(s, name, &vn->start_mark,
				     "tools.destructive_need_approval must be true or false");
				r2 = -EINVAL;
			}
		} else {
			diag(s, name, &kn->start_mark,
			     "unknown key 'tools.%s' (read_only, destructive, "
			     "destructive_need_approval)",
			     k);
			r2 = -EINVAL;
		}
		if (r2 == -ENOMEM) {
			rc = r2;
			break;
		}
		if (r2 < 0)
			rc = -EINVAL;
	}
out_doc:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

int pol_intent_tools_load(struct pol_intent_set *s, const char *policy_file)
{
	char *buf;
	size_t len;
	int rc = read_file(policy_file, INTENT_MAX_FILE, &buf, &len);

	if (rc < 0)
		return rc;
	rc = pol_intent_tools_load_buffer(s, policy_file, buf, len);
	free(buf);
	return rc;
}

/* ---- selection ------------------------------------------------------------------------ */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

int pol_intent_state_path(const char *root, const char *session, char *out, size_t size)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char real[PATH_MAX], base[PATH_MAX], name[96], sess[96];
	const char *bn;
	size_t o = 0;
	int n;

	if (!root || root[0] != '/')
		return -EINVAL;
	/* The same project reached through a symlink keeps its selection. */
	if (pol_path_resolve(root, 0, real, sizeof(real)) < 0)
		pol_copy_str(real, sizeof(real), root);
	if (xdg && xdg[0] == '/')
		n = snprintf(base, sizeof(base), "%s/dcg/intents", xdg);
	else if (home && home[0] == '/')
		n = snprintf(base, sizeof(base), "%s/.local/state/dcg/intents", home);
	else
		return -EINVAL;
	if (n < 0 || (size_t)n >= sizeof(base))
		return -ENAMETOOLONG;
	bn = strrchr(real, '/');
	bn = bn && bn[1] ? bn + 1 : "root";
	/* file names keep to a safe alphabet; the hash tells projects apart */
	for (const char *t = bn; *t && o < 40; t++)
		name[o++] =
		    (isalnum((unsigned char)*t) || *t == '.' || *t == '_' || *t == '-') ? *t : '_';
	name[o] = '\0';
	sess[0] = '\0';
	if (session && session[0]) {
		size_t k = 0;

		sess[k++] = '@';
		for (const char *t = session; *t && k < 48; t++)
			sess[k++] =
			    (isalnum((unsigned char)*t) || *t == '.' || *t == '_' || *t == '-')
				? *t
				: '_';
		snprintf(sess + k, sizeof(sess) - k, "-%08x",
			 (unsigned)(fnv1a(session) & 0xffffffffu));
	}
	n = snprintf(out, size, "%s/%s-%016llx%s", base, name, (unsigned long long)fnv1a(real),
		     sess);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

static int read_state(const char *path, char *id, size_t size)
{
	char buf[512];
	ssize_t n;
	size_t k = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	while (k < (size_t)n && buf[k] != '\n')
		k++;
	if (k == 0)
		return -ENOENT;
	if (k >= size)
		return -ENAMETOOLONG;
	memcpy(id, buf, k);
	id[k] = '\0';
	return 0;
}

int pol_intent_selection_get(const char *root, const char *session, char *id, size_t size,
			     int *from_session)
{
	char path[PATH_MAX];
	int rc;

	if (from_session)
		*from_session = 0;
	if (session && session[0]) {
		rc = pol_intent_state_path(root, session, path, sizeof(path));
		if (rc < 0)
			return rc;
		rc = read_state(path, id, size);
		if (rc != -ENOENT) {
			if (rc == 0 && from_session)
				*from_session = 1;
			return rc;
		}
	}
	rc = pol_intent_state_path(root, NULL, path, sizeof(path));
	if (rc < 0)
		return rc;
	return read_state(path, id, size);
}

static int mkdirs(char *path, size_t upto)
{
	for (size_t i = 1; i <= upto; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		char c = path[i];

		path[i] = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			int e = -errno;

			path[i] = c;
			return e;
		}
		path[i] = c;
		if (c == '\0')
			break;
	}
	return 0;
}

int pol_intent_selection_set(const char *root, const char *session, const char *id)
{
	char path[PATH_MAX], data[INTENT_ID_MAX + PATH_MAX + 4];
	int rc, n;
	char *slash;

	rc = pol_intent_state_path(root, session, path, sizeof(path));
	if (rc < 0)
		return rc;
	if (!id || !id[0]) {
		if (unlink(path) < 0 && errno != ENOENT)
			return -errno;
		return 0;
	}
	if (!id_ok(id))
		return -EINVAL;
	slash = strrchr(path, '/');
	rc = mkdirs(path, (size_t)(slash - path));
	if (rc < 0)
		return rc;
	n = snprintf(data, sizeof(data), "%s\n%s\n", id, root);
	if (n < 0 || (size_t)n >= sizeof(data))
		return -ENAMETOOLONG;
	return pol_write_atomic(path, data, (size_t)n, 0600);
}

struct pol_intent_set *pol_intent_open(const char *cwd, const char *session,
				       const char *explicit_id, int *err)
{
	char file[PATH_MAX], root[PATH_MAX], id[INTENT_ID_MAX + 1];
	struct pol_intent_set *s = NULL;
	int rc;

	rc = pol_intent_find_file(cwd, file, sizeof(file), root, sizeof(root));
	if (rc < 0) {
		*err = rc;
		return NULL;
	}
	rc = pol_intent_load(file, root, &s);
	if (!s) {
		*err = rc;
		return NULL;
	}
	*err = rc;
	if (explicit_id && explicit_id[0]) {
		if (pol_intent_select(s, explicit_id) == -ENOMEM)
			goto out_nomem;
	} else if (pol_intent_selection_get(root, session, id, sizeof(id), NULL) == 0) {
		if (pol_intent_select(s, id) == -ENOMEM)
			goto out_nomem;
	}
	return s;
out_nomem:
	pol_intent_free(s);
	*err = -ENOMEM;
	return NULL;
}

struct pol_intent_set *pol_intent_open_env(void)
{
	const char *id = getenv("DCG_INTENT"), *file = getenv("DCG_INTENTS_FILE");
	char found[PATH_MAX], root[PATH_MAX];
	struct pol_intent_set *s = NULL;
	int rc;

	if (!id || !id[0])
		return NULL;
	if (!file || !file[0]) {
		if (pol_intent_find_file(NULL, found, sizeof(found), root, sizeof(root)) < 0)
			return NULL;
		file = found;
	}
	rc = pol_intent_load(file, NULL, &s);
	if (rc == -ENOENT)
		invalid_set(file, NULL, rc, &s); /* named but gone: fail closed */
	if (s && pol_intent_select(s, id) == -ENOMEM) {
		pol_intent_free(s);
		return NULL;
	}
	return s;
}
