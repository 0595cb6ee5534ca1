/* decide.c - decisions: commands through the shell analyser and the regex rules,
 * paths through the path rules, and the allowlist over both.
 *
 * No malloc here: memory comes from an arena over pol_mem_alloc(), so the preload can
 * decide between fork and exec.
 */
#include "dcg_policy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "internal.h"
#include "shell.h"

/* Internal path flag: no walk of a folder's contents (POL_CTX_RUNTIME). */
#define PATH_NO_WALK (1u << 8)

#define POL_COMMAND_MAX (4u * 1024 * 1024)

/* Path rule kinds that refuse each operation (bit per pol_path_kind). */
#define ZA (1u << POL_PATH_ZERO_ACCESS)
#define RO (1u << POL_PATH_READ_ONLY)
#define ND (1u << POL_PATH_NO_DELETE)
static const unsigned op_refused_by[POL_OP__COUNT] = {
    [POL_OP_READ] = ZA,
    [POL_OP_WRITE] = ZA | RO,
    [POL_OP_CREATE] = ZA | RO,
    [POL_OP_TRUNCATE] = ZA | RO,
    [POL_OP_DELETE] = ZA | RO | ND,
    [POL_OP_RENAME_FROM] = ZA | RO | ND,
    [POL_OP_RENAME_TO] = ZA | RO | ND,
    [POL_OP_CHMOD] = ZA | RO,
    [POL_OP_EXEC] = ZA,
    [POL_OP_LIST] = ZA,
    [POL_OP_LINK_FROM] = ZA | RO,
};

/* ---- the allowlist ------------------------------------------------------------------- */

static int allow_covers(const struct pol_allow *a, const char *path)
{
	if (!a->n_paths)
		return 1;
	if (!path)
		return 0;
	for (size_t i = 0; i < a->n_paths; i++) {
		struct pol_pathpat pp = {.glob = a->paths[i]};

		pol_pathpat_classify(&pp);
		if (pol_pathpat_covers(&pp, path))
			return 1;
	}
	return 0;
}

void pol_apply_allowlist(const struct pol_policy *p, const struct pol_ctx *ctx, const char *path,
			 struct pol_result *r)
{
	time_t now = ctx && ctx->now ? ctx->now : time(NULL);
	const char *where = path && path[0] == '/' ? path : (ctx && ctx->cwd ? ctx->cwd : p->root);

	if (!r->rule_id || r->decision == POL_ALLOW)
		return;
	for (size_t i = 0; i < p->n_allows; i++) {
		const struct pol_allow *a = &p->allows[i];

		if (a->expires && now >= a->expires)
			continue;
		if (strcmp(a->rule, r->rule_id) != 0 && !pol_glob_match(a->rule, r->rule_id))
			continue;
		if (!allow_covers(a, where))
			continue;
		if (ctx && ctx->trace) {
			struct pol_trace_event ev = {"allowlist", r->rule_id, a->reason,
						     strlen(a->reason), 1};
			ctx->trace(&ev, ctx->trace_arg);
		}
		r->decision = POL_ALLOW;
		r->allowed_by_allowlist = 1;
		return;
	}
}

/* ---- recording a match ------------------------------------------------------------------ */

static void fill_from_rule(struct pol_result *r, const struct pol_rule *rule)
{
	r->decision = rule->decision;
	r->severity = rule->severity;
	r->rule_id = rule->id;
	r->reason = rule->reason;
	r->pattern = rule->pattern;
	r->origin = rule->origin;
	r->suggestions = (const char *const *)rule->suggestions;
	r->n_suggestions = rule->n_suggestions;
}

/* Keeps the worst of two results in best; ties keep the first, except that a rule the
 * allowlist let pass (allow with a rule ID) replaces "nothing matched", so the record
 * says allowed_by_allowlist and which rule, as the header promises. */
static void merge(struct pol_result *best, struct pol_result *cand)
{
	if (cand->decision > best->decision ||
	    (cand->decision == best->decision && !best->rule_id && cand->rule_id)) {
		char *keep = best->script;

		best->script = NULL;
		pol_result_release(best);
		if (keep)
			pol_mem_free(keep);
		*best = *cand;
		cand->script = NULL;
	}
	pol_result_release(cand);
}

/* ---- path decisions ----------------------------------------------------------------- */

/* Which rule refuses an operation on path? Within a kind, the last pattern that
 * matches wins, as in .gitignore: a later "!pattern" (e.g. !.env.example) lifts an
 * earlier rule, and a later file can protect again what an earlier one lifted. */
static int covers_beneath(const struct pol_rule *r, const char *path)
{
	size_t n = strlen(path);
	const struct pol_pathpat *pps[2] = {&r->path, r->has_canon ? &r->path_canon : NULL};

	/* A folder being deleted or moved holds a protected path: an anchored rule whose
	 * literal root lies beneath it, or a named entry directly inside it. */
	for (int k = 0; k < 2; k++) {
		const struct pol_pathpat *pp = pps[k];

		if (!pp)
			continue;
		if (!pp->basename_only) {
			if (pp->literal_len > n && strncmp(pp->glob, path, n) == 0 &&
			    (pp->glob[n] == '/' || n == 1))
				return 1;
		} else if (pp->shape == PP_LITERAL) {
			char child[PATH_MAX];
			struct stat st;

			if (snprintf(child, sizeof(child), "%s/%s", path, pp->glob) <
				(int)sizeof(child) &&
			    lstat(child, &st) == 0)
				return 1;
		}
	}
	return 0;
}

void pol_path_index_build(struct pol_policy *p)
{
	uint32_t *start, *rules = NULL;
	size_t total = 0;

	free(p->bucket_start);
	free(p->bucket_rules);
	p->bucket_start = NULL;
	p->bucket_rules = NULL;
	if (p->paths_pending)
		return; /* built by pol_paths_ready() */
	start = calloc(POL_PI_BUCKETS + 1, sizeof(*start));
	if (!start)
		return;
	/* Count, then fill: a rule sits in its pattern's bucket and, when its canonical
	 * form differs, in that one's too. */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			uint32_t sum = 0;
			for (size_t b = 0; b <= POL_PI_BUCKETS; b++) {
				uint32_t c = start[b];
				start[b] = sum;
				sum += c;
			}
			rules = malloc((total ? total : 1) * sizeof(*rules));
			if (!rules) {
				free(start);
				return;
			}
		}
		for (size_t i = 0; i < p->n_path_rules; i++) {
			const struct pol_rule *r = &p->rules[p->path_rules[i]];
			unsigned b[2] = {pol_pathpat_bucket(&r->path),
					 r->has_canon ? pol_pathpat_bucket(&r->path_canon)
						      : POL_PI_BUCKETS};

			if (b[1] == b[0])
				b[1] = POL_PI_BUCKETS;
			for (int k = 0; k < 2; k++) {
				if (b[k] >= POL_PI_BUCKETS)
					continue;
				if (pass == 0) {
					start[b[k] + 1]++;
					total++;
				} else {
					rules[start[b[k]]++] = (uint32_t)p->path_rules[i];
				}
			}
		}
	}
	/* start[b] now points past bucket b: shift back so start[b] is its beginning. */
	for (size_t b = POL_PI_BUCKETS; b > 0; b--)
		start[b] = start[b - 1];
	start[0] = 0;
	p->bucket_start = start;
	p->bucket_rules = rules;
}

int pol_rule_owned_by(const struct pol_rule *r, const char *exe)
{
	const char *base;
	size_t n;

	if (!r->n_owners || !exe || exe[0] != '/')
		return 0;
	base = strrchr(exe, '/') + 1;
	for (size_t i = 0; i < r->n_owners; i++) {
		const char *o = r->owners[i];

		if (o[0] == '/') {
			if (strcmp(o, exe) == 0)
				return 1;
			continue;
		}
		/* A name: a system program of that name or its helpers (git, git-*), never a
		 * copy of that name elsewhere (an agent could make ./git). */
		if (strncmp(exe, "/usr/", 5) != 0 && strncmp(exe, "/bin/", 5) != 0 &&
		    strncmp(exe, "/sbin/", 6) != 0)
			continue;
		n = strlen(o);
		if (strncmp(base, o, n) == 0 && (base[n] == '\0' || base[n] == '-'))
			return 1;
	}
	return 0;
}

struct hit_scan {
	const struct pol_policy *p;
	const char *path;
	const struct pol_path_sig *sig;
	unsigned kinds;
	const char *exe;
	const struct pol_rule *last[3];
};

static void try_rule(struct hit_scan *hs, const struct pol_rule *r)
{
	if (!(hs->kinds & (1u << r->path_kind)))
		return;
	if (r->n_owners && pol_rule_owned_by(r, hs->exe))
		return; /* its owner manages what it covers */
	if (hs->last[r->path_kind] && hs->last[r->path_kind] >= r)
		return; /* a later rule of this kind already matched: it wins anyway */
	/* Its lazy expansion ran out of memory: it covers every path. */
	if (!r->path.glob) {
		if (!r->path.negate)
			hs->last[r->path_kind] = r;
		return;
	}
	if (pol_pathpat_covers_sig(&r->path, hs->path, hs->sig) ||
	    (r->has_canon && pol_pathpat_covers(&r->path_canon, hs->path)))
		hs->last[r->path_kind] = r;
}

static void scan_bucket(unsigned b, void *arg)
{
	struct hit_scan *hs = arg;
	const struct pol_policy *p = hs->p;

	for (uint32_t i = p->bucket_start[b]; i < p->bucket_start[b + 1]; i++)
		try_rule(hs, &p->rules[p->bucket_rules[i]]);
}

/* Which rule refuses an operation on path? Within a kind the last matching rule (in
 * load order) wins. The index means only rules whose trigger the path has are tried;
 * the "beneath" check for folders looks at every rule. */
static const struct pol_rule *path_rule_hit(const struct pol_policy *p, const char *path,
					    unsigned kinds, int beneath, const char *exe)
{
	struct pol_path_sig sig;
	struct hit_scan hs = {p, path, &sig, kinds, exe, {NULL, NULL, NULL}};

	pol_paths_ready(p);
	pol_path_sig_init(&sig, path);
	if (p->bucket_start && !beneath && !sig.overflow) {
		for (unsigned b = 0; b < sig.n_buckets; b++)
			scan_bucket(sig.buckets[b], &hs);
	} else {
		for (size_t i = 0; i < p->n_path_rules; i++) {
			const struct pol_rule *r = &p->rules[p->path_rules[i]];

			try_rule(&hs, r);
			if (beneath && !r->path.negate && (kinds & (1u << r->path_kind)) &&
			    !(r->n_owners && pol_rule_owned_by(r, exe)) &&
			    hs.last[r->path_kind] != r && covers_beneath(r, path))
				hs.last[r->path_kind] = r;
		}
	}
	for (int k = 0; k < 3; k++)
		if (hs.last[k] && !hs.last[k]->path.negate)
			return hs.last[k];
	return NULL;
}

/* A folder being deleted or moved may hold, at any depth, an entry a rule protects (a
 * repository's .git/ under ~/projects, a key matching *.pem): covers_beneath() only sees
 * anchored roots and named direct children. This walks the folder and decides each
 * entry as a path of its own. Directories are read with getdents64 into a stack buffer
 * (no malloc: the preload decides between fork and exec), symlinks are not followed, and
 * the walk is bounded in depth and entries: past the bound the rest counts as holding
 * nothing (the runtime layers still check each unlink a recursive delete makes). */
#define BENEATH_MAX_DEPTH   16
#define BENEATH_MAX_ENTRIES 20000

struct dirent64_raw {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Is there an active path rule of these kinds at all? Without one, walking a folder
 * (up to 20,000 entries for "rm -rf ~") cannot find anything. */
static int has_path_rules(const struct pol_policy *p, unsigned kinds)
{
	pol_paths_ready(p);
	for (size_t i = 0; i < p->n_path_rules; i++) {
		const struct pol_rule *r = &p->rules[p->path_rules[i]];

		if ((kinds & (1u << r->path_kind)) && !r->path.negate)
			return 1;
	}
	return 0;
}

static const struct pol_rule *walk_beneath(const struct pol_policy *p, char *path, size_t len,
					   unsigned kinds, int depth, long *budget, const char *exe)
{
	char buf[1024];
	const struct pol_rule *hit = NULL;
	size_t sep = len > 1 ? 1 : 0;
	int fd;

	if (depth > BENEATH_MAX_DEPTH)
		return NULL;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	while (!hit) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));

		if (n <= 0)
			break;
		for (long off = 0; off < n && !hit;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(void *)(buf + off);
			size_t nl = strlen(d->d_name);
			int is_dir = d->d_type == DT_DIR;
			struct stat st;

			off += d->d_reclen;
			if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
				continue;
			if (--*budget < 0)
				goto out_close;
			if (len + sep + nl >= PATH_MAX)
				continue;
			if (d->d_type == DT_UNKNOWN)
				is_dir = fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
					 S_ISDIR(st.st_mode);
			if (sep)
				path[len] = '/';
			memcpy(path + len + sep, d->d_name, nl + 1);
			hit = path_rule_hit(p, path, kinds, 0, exe);
			if (!hit && is_dir)
				hit = walk_beneath(p, path, len + sep + nl, kinds, depth + 1,
						   budget, exe);
			path[len] = '\0';
		}
	}
out_close:
	close(fd);
	return hit;
}

static enum pol_decision decide_path(const struct pol_policy *p, const char *lexical,
				     const char *resolved, enum pol_op op, unsigned flags,
				     const struct pol_ctx *ctx, struct pol_result *r)
{
	unsigned kinds = (unsigned)op < POL_OP__COUNT ? op_refused_by[op] : ZA | RO | ND;
	int beneath = (flags & POL_PATH_IS_DIR) &&
		      (op == POL_OP_DELETE || op == POL_OP_RENAME_FROM || op == POL_OP_RENAME_TO);
	const char *exe = ctx ? ctx->exe : NULL;
	const struct pol_rule *hit = path_rule_hit(p, lexical, kinds, beneath, exe);
	const char *which = lexical;

	if (!hit && resolved && strcmp(resolved, lexical) != 0) {
		hit = path_rule_hit(p, resolved, kinds, beneath, exe);
		which = resolved;
	}
	/* Not for rename onto a folder: that replaces only an empty one (and "mv x /tmp/"
	 * names the folder the file goes into). */
	if (!hit && beneath && op != POL_OP_RENAME_TO && !(flags & PATH_NO_WALK) &&
	    has_path_rules(p, kinds)) {
		char walk[PATH_MAX];
		long budget = BENEATH_MAX_ENTRIES;

		pol_copy_str(walk, sizeof(walk), resolved ? resolved : lexical);
		hit = walk_beneath(p, walk, strlen(walk), kinds, 0, &budget, exe);
		which = resolved ? resolved : lexical;
	}
	if (ctx && ctx->trace) {
		struct pol_trace_event ev = {"path", hit ? hit->id : NULL, which, strlen(which),
					     !!hit};
		ctx->trace(&ev, ctx->trace_arg);
	}
	if (!hit)
		return POL_ALLOW;
	fill_from_rule(r, hit);
	r->detection = POL_DET_PATH;
	r->op = op;
	r->path_kind = hit->path_kind;
	pol_copy_str(r->path, sizeof(r->path), which);
	pol_copy_matched(r, which, strlen(which));
	pol_apply_allowlist(p, ctx, which, r);
	return r->decision;
}

static int current_cwd(const struct pol_policy *p, const struct pol_ctx *ctx, char *buf,
		       size_t size)
{
	if (ctx && ctx->cwd && ctx->cwd[0] == '/') {
		pol_copy_str(buf, size, ctx->cwd);
		return 0;
	}
	if (getcwd(buf, size))
		return 0;
	pol_copy_str(buf, size, p->root);
	return 0;
}

/* A path that cannot be checked (too long, or its links cannot be resolved) is
 * refused, not waved through. */
static enum pol_decision refuse_unchecked(const struct pol_policy *p, const char *path,
					  enum pol_op op, struct pol_result *r)
{
	ssize_t i = pol_rule_find(p, "input.path_too_long");

	if (i >= 0)
		fill_from_rule(r, &p->rules[i]);
	r->decision = POL_DENY;
	r->detection = POL_DET_PATH;
	r->op = op;
	pol_copy_matched(r, path, strlen(path));
	pol_copy_str(r->path, sizeof(r->path), path);
	return r->decision;
}

static enum pol_decision check_path_in(const struct pol_policy *p, const char *base,
				       const char *path, enum pol_op op, unsigned flags,
				       const struct pol_ctx *ctx, struct pol_result *r)
{
	char lexical[PATH_MAX], resolved[PATH_MAX];
	const char *res = NULL;

	pol_result_init(r);
	if (!path || !path[0])
		return POL_ALLOW;
	if (pol_path_normalize(path, base, p->home, lexical, sizeof(lexical)) < 0)
		return refuse_unchecked(p, path, op, r);
	/* Resolution walks the path as the kernel will, before folding "..": after a
	 * symlink, ".." is the parent of its target, not of the link. */
	if (!(flags & POL_PATH_CANONICAL)) {
		char joined[PATH_MAX * 2];
		const char *start = path[0] == '/' ? "" : base;
		const char *rest = path;
		int n;

		if (path[0] == '~' && (path[1] == '/' || path[1] == '\0')) {
			start = p->home;
			rest = path + 1;
		}
		n = snprintf(joined, sizeof(joined), "%s/%s", start, rest);
		/* A path whose links cannot be followed here (nested targets outgrowing the
		 * buffers, a loop) may still lead somewhere protected for the kernel, which
		 * keeps no such limit: deciding on its written form alone would wave it
		 * through. */
		if (n <= 0 || (size_t)n >= sizeof(joined) ||
		    pol_path_resolve(joined, !!(flags & POL_PATH_NOFOLLOW), resolved,
				     sizeof(resolved)) < 0)
			return refuse_unchecked(p, path, op, r);
		res = resolved;
	}
	return decide_path(p, lexical, res, op, flags, ctx, r);
}

enum pol_decision pol_check_path(const struct pol_policy *p, const char *path, enum pol_op op,
				 unsigned flags, const struct pol_ctx *ctx, struct pol_result *r)
{
	char cwd[PATH_MAX];

	if (path && path[0] == '/')
		return check_path_in(p, "/", path, op, flags, ctx, r);
	current_cwd(p, ctx, cwd, sizeof(cwd));
	return check_path_in(p, cwd, path, op, flags, ctx, r);
}

enum pol_decision pol_check_path_at(const struct pol_policy *p, int dirfd, const char *path,
				    enum pol_op op, unsigned flags, const struct pol_ctx *ctx,
				    struct pol_result *r)
{
	char base[PATH_MAX], link[64];
	ssize_t n;

	if (dirfd == AT_FDCWD || (path && path[0] == '/'))
		return pol_check_path(p, path, op, flags, ctx, r);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	n = readlink(link, base, sizeof(base) - 1);
	if (n <= 0 || base[0] != '/') {
		/* An unknown directory: decide on the path alone, relative to nothing known. */
		pol_result_init(r);
		return check_path_in(p, "/", path, op, flags, ctx, r);
	}
	base[n] = '\0';
	return check_path_in(p, base, path, op, flags | 0, ctx, r);
}

/* ---- command decisions --------------------------------------------------------------- */

struct cmd_state {
	const struct pol_policy *p;
	const struct pol_ctx *ctx;
	struct pol_arena *a;
	pcre2_match_data *md;
	struct pol_result best;
	struct pol_result cand;
	const char *cwd;
	int stop_on_deny;
};

static void trace(const struct cmd_state *st, const char *what, const char *rule_id,
		  const char *text, size_t len, int matched)
{
	if (st->ctx && st->ctx->trace) {
		struct pol_trace_event ev = {what, rule_id, text, len, matched};
		st->ctx->trace(&ev, st->ctx->trace_arg);
	}
}

/* Bigram bitmap of a lowercase text: a keyword whose first two bytes are absent cannot
 * occur, so most rules are rejected with one bit test. */
struct prefilter {
	uint64_t bits[64];
	char *lower;
	size_t len;
};

static int prefilter_init(struct prefilter *pf, struct pol_arena *a, const char *text, size_t len)
{
	memset(pf->bits, 0, sizeof(pf->bits));
	pf->lower = pol_arena_alloc(a, len + 1);
	if (!pf->lower)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		pf->lower[i] = (char)((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
	}
	pf->lower[len] = '\0';
	pf->len = len;
	for (size_t i = 0; i + 1 < len; i++) {
		unsigned h =
		    ((unsigned char)pf->lower[i] * 31u + (unsigned char)pf->lower[i + 1]) & 4095u;
		pf->bits[h >> 6] |= 1ull << (h & 63);
	}
	return 0;
}

static int prefilter_may_match(const struct prefilter *pf, const struct pol_rule *r)
{
	if (!r->keyword)
		return 1;
	if (!(pf->bits[r->keyword_bigram >> 6] & (1ull << (r->keyword_bigram & 63))))
		return 0;
	return memmem(pf->lower, pf->len, r->keyword, r->keyword_len) != NULL;
}

/* Which word of a command unit holds byte offset off? */
static size_t word_at(const struct pol_unit *u, size_t off)
{
	size_t w = 0;

	for (size_t i = 0; i < u->argc; i++)
		if (u->word_off[i] <= off)
			w = i;
	return w;
}

/* Runs one regex on a text. Returns 1 on a match (start/end set), 0 none, 2 when a
 * limit was hit (counted as a match). For command units, matches that start inside a
 * data word are skipped. */
static int run_regex(struct cmd_state *st, struct pol_rule *rule, const struct pol_unit *u,
		     size_t *ms, size_t *me)
{
	pcre2_code *code = pol_rule_code(st->p, rule);
	size_t off = 0;

	if (!code)
		return 0;
	for (;;) {
		int rc = pcre2_match(code, (PCRE2_SPTR)u->text, u->len, off, PCRE2_NO_UTF_CHECK,
				     st->md, st->p->mctx);
		if (rc == PCRE2_ERROR_NOMATCH || rc == PCRE2_ERROR_BADOFFSET)
			return 0;
		if (rc < 0) {
			if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
			    rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_NOMEMORY) {
				*ms = 0;
				*me = u->len;
				return 2;
			}
			return 0;
		}
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(st->md);
		*ms = ov[0];
		*me = ov[1];
		if (u->kind != POL_UNIT_COMMAND || !u->word_is_data || u->argc == 0)
			return 1;
		size_t w = word_at(u, *ms);
		if (!u->word_is_data[w])
			return 1;
		/* Inside data: look again from the end of that word. */
		size_t next = w + 1 < u->argc ? u->word_off[w + 1] : u->len;
		if (next <= off || next >= u->len)
			return 0;
		off = next;
	}
}

static unsigned line_of(const char *text, size_t off)
{
	unsigned line = 1;

	for (size_t i = 0; i < off; i++)
		if (text[i] == '\n')
			line++;
	return line;
}

static void record_script_match(struct cmd_state *st, const struct pol_unit *u, size_t ms)
{
	size_t ls = ms, le = ms;

	while (ls > 0 && u->text[ls - 1] != '\n')
		ls--;
	while (le < u->len && u->text[le] != '\n')
		le++;
	while (ls < le && (u->text[ls] == ' ' || u->text[ls] == '\t'))
		ls++;
	pol_copy_matched(&st->cand, u->text + ls, le - ls);
	st->cand.line = line_of(u->text, ms);
	st->cand.detection = u->from_heredoc ? POL_DET_HEREDOC : POL_DET_INLINE_SCRIPT;
	st->cand.language = u->language;
	if (st->ctx && (st->ctx->flags & POL_CTX_KEEP_SCRIPT)) {
		st->cand.script = pol_mem_alloc(u->len + 1);
		if (st->cand.script) {
			memcpy(st->cand.script, u->text, u->len);
			st->cand.script[u->len] = '\0';
			st->cand.script_len = u->len;
		}
	}
}

static void offer(struct cmd_state *st)
{
	pol_apply_allowlist(st->p, st->ctx, NULL, &st->cand);
	merge(&st->best, &st->cand);
	pol_result_init(&st->cand);
}

/* Is one of a command's words the root, the home folder or a whole disk? */
static int catastrophic_target(const struct pol_unit *u, const char *home)
{
	static const char *const exact[] = {"/",	"/*",	   "~",	       "~/",
					    "~/*",	"$HOME",   "${HOME}",  "$HOME/",
					    "${HOME}/", "$HOME/*", "${HOME}/*"};
	static const char *const disks[] = {"/dev/sd",	"/dev/nvme",   "/dev/hd",   "/dev/vd",
					    "/dev/xvd", "/dev/mmcblk", "/dev/disk", "/dev/md"};
	size_t hl = home ? strlen(home) : 0;

	for (size_t i = 1; i < u->argc; i++) {
		const char *w = u->argv[i];
		size_t wl = strlen(w);

		if (u->word_is_data && u->word_is_data[i])
			continue;
		for (size_t k = 0; k < sizeof(exact) / sizeof(exact[0]); k++)
			if (strcmp(w, exact[k]) == 0)
				return 1;
		for (size_t k = 0; k < sizeof(disks) / sizeof(disks[0]); k++)
			if (strncmp(w, disks[k], strlen(disks[k])) == 0 ||
			    (strncmp(w, "of=", 3) == 0 &&
			     strncmp(w + 3, disks[k], strlen(disks[k])) == 0))
				return 1;
		if (hl > 1 && (wl == hl || (wl == hl + 1 && w[hl] == '/')) &&
		    strncmp(w, home, hl) == 0)
			return 1;
	}
	return 0;
}

/* Length of the well-formed UTF-8 sequence at s (at most len bytes), 0 if there is
 * none (a stray byte, a cut, an overlong form, a surrogate, NUL). */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	unsigned c = s[0], cp;
	size_t k;

	if (c && c < 0x80)
		return 1;
	k = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xc2 && c <= 0xdf;
	if (!k || k >= len)
		return 0;
	cp = c & (0x3fu >> k);
	for (size_t i = 1; i <= k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((k == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (k == 3 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return k + 1;
}

static int on_unit(const struct pol_unit *u, void *arg)
{
	struct cmd_state *st = arg;
	const struct pol_policy *p = st->p;
	struct pol_unit fixed;

	/* The command was checked to be UTF-8, but the analyser decodes $'\xff', $'\0' and
	 * $'\ud800' into bytes that are not. The regexes match in UTF mode without checking
	 * the subject again (undefined on such bytes), and the matched text goes into JSON:
	 * a copy with each such byte replaced by '?' keeps every offset and is matched. */
	if ((u->kind == POL_UNIT_COMMAND || u->kind == POL_UNIT_SCRIPT) &&
	    !pol_utf8_valid(u->text, u->len)) {
		char *t = pol_arena_alloc(st->a, u->len + 1);

		if (!t)
			return -ENOMEM;
		for (size_t i = 0; i < u->len;) {
			size_t n = utf8_seq((const unsigned char *)u->text + i, u->len - i);

			if (n) {
				memcpy(t + i, u->text + i, n);
				i += n;
			} else {
				t[i++] = '?';
			}
		}
		t[u->len] = '\0';
		fixed = *u;
		fixed.text = t;
		u = &fixed;
	}
	switch (u->kind) {
	case POL_UNIT_COMMAND:
	case POL_UNIT_SCRIPT: {
		struct prefilter pf;
		int is_script = u->kind == POL_UNIT_SCRIPT;

		trace(st, "unit", NULL, u->text, u->len, 0);
		if (prefilter_init(&pf, st->a, u->text, u->len) < 0)
			return -ENOMEM;
		for (size_t i = 0; i < p->n_rules; i++) {
			struct pol_rule *rule = &p->rules[i];
			size_t ms, me;
			int m;

			if (is_script
				? (rule->kind != POL_RULE_SCRIPT || !u->language ||
				   !rule->language || strcmp(rule->language, u->language) != 0)
				: rule->kind != POL_RULE_COMMAND)
				continue;
			if (!rule->active)
				continue;
			/* Once a deny is found, only rules that could be reported instead
			 * matter when tracing; otherwise stop looking. */
			if (!prefilter_may_match(&pf, rule)) {
				if (st->ctx && st->ctx->trace)
					trace(st, "rule", rule->id, u->text, u->len, -1);
				continue;
			}
			m = run_regex(st, rule, u, &ms, &me);
			trace(st, "rule", rule->id, u->text, u->len, m != 0);
			if (!m)
				continue;
			fill_from_rule(&st->cand, rule);
			st->cand.limit_hit = m == 2;
			if (is_script) {
				record_script_match(st, u, ms);
			} else {
				st->cand.detection = POL_DET_COMMAND;
				st->cand.language = "bash";
				st->cand.line = u->line > 1 ? u->line : 0;
				pol_copy_matched(&st->cand, u->text, u->len);
				/* A medium rule warns, unless it aims at something that cannot
				 * be rebuilt: the root, the home folder, a disk. */
				if (rule->severity == POL_SEV_MEDIUM &&
				    st->cand.decision == POL_WARN &&
				    catastrophic_target(u, p->home))
					st->cand.decision = POL_DENY;
			}
			offer(st);
			if (st->stop_on_deny && st->best.decision == POL_DENY)
				return 1;
		}
		return 0;
	}
	case POL_UNIT_PATH: {
		unsigned pflags = u->is_dir_op ? POL_PATH_IS_DIR : 0;

		if (st->ctx && (st->ctx->flags & POL_CTX_RUNTIME))
			pflags |= POL_PATH_CANONICAL | PATH_NO_WALK;
		enum pol_decision d = pol_check_path(p, u->path, u->op, pflags, st->ctx, &st->cand);
		if (d != POL_ALLOW) {
			st->cand.line = u->line > 1 ? u->line : 0;
			merge(&st->best, &st->cand);
		} else {
			pol_result_release(&st->cand);
		}
		pol_result_init(&st->cand);
		return st->stop_on_deny && st->best.decision == POL_DENY;
	}
	case POL_UNIT_FINDING: {
		ssize_t i = u->rule_id ? pol_rule_find(p, u->rule_id) : -1;

		trace(st, "rule", u->rule_id, u->text, u->len, 1);
		if (i < 0 || !p->rules[i].active)
			return 0;
		fill_from_rule(&st->cand, &p->rules[i]);
		st->cand.detection = POL_DET_COMMAND;
		st->cand.language = "bash";
		st->cand.line = u->line > 1 ? u->line : 0;
		pol_copy_matched(&st->cand, u->text ? u->text : "", u->text ? u->len : 0);
		offer(st);
		return st->stop_on_deny && st->best.decision == POL_DENY;
	}
	}
	return 0;
}

static enum pol_decision builtin_deny(const struct pol_policy *p, const char *id, const char *text,
				      size_t len, struct pol_result *r)
{
	ssize_t i = pol_rule_find(p, id);

	if (i >= 0)
		fill_from_rule(r, &p->rules[i]);
	r->decision = POL_DENY;
	r->detection = POL_DET_COMMAND;
	/* The matched text of a hostile input is shown as valid, printable UTF-8 only. */
	char buf[POL_MATCHED_BYTES];
	size_t o = 0;
	for (size_t k = 0; k < len && o < 120; k++) {
		unsigned char c = (unsigned char)text[k];
		buf[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	pol_copy_matched(r, buf, o);
	return r->decision;
}

enum pol_decision pol_check_command(const struct pol_policy *p, const char *cmd, size_t len,
				    const struct pol_ctx *ctx, struct pol_result *r)
{
	struct cmd_state st;
	struct pol_arena a;
	char cwd[PATH_MAX];
	int rc;

	pol_result_init(r);
	if (!cmd || len == 0)
		return POL_ALLOW;
	if (len > POL_COMMAND_MAX)
		return builtin_deny(p, "input.too_long", cmd, 60, r);
	if (memchr(cmd, '\0', len) || !pol_utf8_valid(cmd, len))
		return builtin_deny(p, "input.invalid", cmd, len < 60 ? len : 60, r);

	memset(&st, 0, sizeof(st));
	st.p = p;
	st.ctx = ctx;
	st.a = &a;
	st.stop_on_deny = !(ctx && ctx->trace);
	pol_result_init(&st.best);
	pol_result_init(&st.cand);
	current_cwd(p, ctx, cwd, sizeof(cwd));
	st.cwd = cwd;
	pol_arena_init(&a, 0);
	st.md = pcre2_match_data_create(4, p->gctx);
	if (!st.md) {
		pol_arena_release(&a);
		return builtin_deny(p, "shell.analysis_failed", cmd, len < 60 ? len : 60, r);
	}
	if (ctx && (ctx->flags & POL_CTX_NO_ANALYSIS)) {
		struct pol_unit u = {.kind = POL_UNIT_COMMAND, .text = cmd, .len = len, .line = 1};
		rc = on_unit(&u, &st);
	} else {
		struct pol_shell_opts opts = {cwd, p->home};
		rc = pol_shell_analyze(cmd, len, &opts, &a, on_unit, &st);
	}
	pcre2_match_data_free(st.md);
	pol_arena_release(&a);
	if (rc < 0) {
		/* The analyser could not finish (memory cap): never allowed by default. */
		pol_result_release(&st.best);
		pol_result_release(&st.cand);
		return builtin_deny(p, "shell.analysis_failed", cmd, len < 60 ? len : 60, r);
	}
	pol_result_release(&st.cand);
	*r = st.best;
	return r->decision;
}

/* Words are joined as a shell would need to read them back: quoted when they hold
 * anything but plain characters. */
enum pol_decision pol_check_argv(const struct pol_policy *p, char *const argv[],
				 const struct pol_ctx *ctx, struct pol_result *r)
{
	struct pol_arena a;
	size_t need = 1;
	char *buf, *o;
	enum pol_decision d;

	pol_result_init(r);
	if (!argv || !argv[0])
		return POL_ALLOW;
	for (size_t i = 0; argv[i]; i++) {
		size_t n = strlen(argv[i]);
		need += 4 * n + 3;
		/* The argument where the limit is crossed may be shorter than 60 bytes. */
		if (need > POL_COMMAND_MAX + 1024)
			return builtin_deny(p, "input.too_long", argv[i], n < 60 ? n : 60, r);
	}
	pol_arena_init(&a, 0);
	buf = pol_arena_alloc(&a, need);
	if (!buf) {
		pol_arena_release(&a);
		return builtin_deny(p, "shell.analysis_failed", argv[0], strlen(argv[0]), r);
	}
	o = buf;
	for (size_t i = 0; argv[i]; i++) {
		const char *s = argv[i];
		int plain = s[0] != '\0';

		for (const char *t = s; *t; t++)
			if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') ||
			      (*t >= '0' && *t <= '9') || strchr("-_./=:,+@%", *t)))
				plain = 0;
		if (i)
			*o++ = ' ';
		if (plain) {
			size_t n = strlen(s);
			memcpy(o, s, n);
			o += n;
			continue;
		}
		*o++ = '\'';
		for (const char *t = s; *t; t++) {
			if (*t == '\'') {
				memcpy(o, "'\\''", 4);
				o += 4;
			} else {
				*o++ = *t;
			}
		}
		*o++ = '\'';
	}
	*o = '\0';
	d = pol_check_command(p, buf, (size_t)(o - buf), ctx, r);
	pol_arena_release(&a);
	return d;
}
