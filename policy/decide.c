/* decide.c - decisions: commands through the shell analyser and the regex rules,
 * paths through the path rules, and the allowlist over both.
 *
 * No malloc here: memory comes from an arena over pol_mem_alloc(), so the preload can
 * decide between fork and exec.
 */
#include "dcg_policy.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
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

/* ---- the allowlist ------------------------------------------------------------------- */

/* Does one allow glob cover an absolute path? A glob covers what it matches and
 * everything beneath (a trailing slash-star-star covers the folder itself too), and is also tried with its
 * literal folders resolved through symlinks, as path rules are (pol_rule_canon_path),
 * so that an entry naming a link covers the real folder a path resolves into. */
static int allow_glob_covers(const char *glob, const char *path)
{
	char g[PATH_MAX], dir[PATH_MAX], real[PATH_MAX], canon[PATH_MAX * 2 + 8];
	struct pol_pathpat pp;
	size_t n = strlen(glob), cut;

	if (n >= sizeof(g))
		return 0;
	memcpy(g, glob, n + 1);
	while (n > 3 && !strcmp(g + n - 3, "/**"))
		g[n -= 3] = '\0';
	memset(&pp, 0, sizeof(pp));
	pp.glob = g;
	pol_pathpat_classify(&pp);
	if (pol_pathpat_covers(&pp, path))
		return 1;
	cut = pp.literal_len;
	if (cut < n)
		while (cut > 0 && g[cut - 1] != '/')
			cut--;
	if (cut == 0 || cut >= sizeof(dir))
		return 0;
	memcpy(dir, g, cut);
	dir[cut] = '\0';
	if (pol_path_resolve(dir, 0, real, sizeof(real)) < 0)
		return 0;
	if (cut > 1 && dir[cut - 1] == '/')
		dir[cut - 1] = '\0';
	if (!strcmp(real, dir))
		return 0;
	snprintf(canon, sizeof(canon), "%s%s%s", real, (cut < n && strcmp(real, "/")) ? "/" : "",
		 g + cut);
	pp.glob = canon;
	pol_pathpat_classify(&pp);
	return pol_pathpat_covers(&pp, path);
}

static int allow_covers(const struct pol_allow *a, const char *path)
{
	if (!a->n_paths)
		return 1;
	if (!path)
		return 0;
	for (size_t i = 0; i < a->n_paths; i++)
		if (allow_glob_covers(a->paths[i], path))
			return 1;
	return 0;
}

/* Is entry a in force for rule_id now? rule and looked cache the rule's lookup. */
static int allow_names(const struct pol_policy *p, const struct pol_allow *a, const char *rule_id,
		       time_t now, const struct pol_rule **rule, int *looked)
{
	if (a->expires && now >= a->expires)
		return 0;
	if (strcmp(a->rule, rule_id) != 0 && !pol_glob_match(a->rule, rule_id))
		return 0;
	if (!*looked) {
		ssize_t k = pol_rule_find(p, rule_id);

		*rule = k >= 0 ? &pol_rules(p)[k] : NULL;
		*looked = 1;
	}
	/* A system rule is allowed only by the system file itself. */
	return !(*rule && (*rule)->guarded && (!a->origin || strcmp(a->origin, (*rule)->origin)));
}

static void apply_allowlist(const struct pol_policy *p, const struct pol_ctx *ctx, const char *path,
			    struct pol_result *r);

int pol_rule_guards_dcg(const char *id)
{
	const char *dot = id ? strrchr(id, '.') : NULL;

	/* dcg's own rules (dcg.self.*, the hook's), and the defaults' rules that name dcg
	 * in their own name (default.read_only.home_config_dcg, system.dcg_self_change) */
	return !id || !strncmp(id, "dcg.", 4) || !strncmp(id, "hook.", 5) ||
	       (dot && strstr(dot, "dcg"));
}

/* Does an observe entry (an ID, a pack, a glob, "*") name rule_id? */
static int observe_names(char *const *v, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(v[i]);

		if (!strcmp(v[i], "*") || !strcmp(v[i], id) ||
		    (!strncmp(id, v[i], l) && id[l] == '.') || pol_glob_match(v[i], id))
			return 1;
	}
	return 0;
}

int pol_observed(const struct pol_policy *p, const char *rule_id)
{
	ssize_t k;

	if (!p || !rule_id ||
	    !(p->observe_all || p->observe_all_sys || p->n_observe || p->n_observe_sys))
		return 0;
	/* the guard's own files and its own commands stay guarded: an observed agent must
	 * not switch the guard off before it starts refusing */
	if (pol_rule_guards_dcg(rule_id))
		return 0;
	if (p->observe_all_sys || observe_names(p->observe_sys, p->n_observe_sys, rule_id))
		return 1;
	k = pol_rule_find(p, rule_id);
	if (k >= 0 && pol_rules(p)[k].guarded) /* a system rule: the system file's to observe */
		return 0;
	return p->observe_all || observe_names(p->observe, p->n_observe, rule_id);
}

/* Observe mode: a refusal becomes a logged pass that says what it would have been. */
static void apply_observe(const struct pol_policy *p, struct pol_result *r)
{
	if (r->decision >= POL_ASK && pol_observed(p, r->rule_id)) {
		r->observed = r->decision;
		r->decision = POL_LOG;
	}
}

void pol_apply_allowlist(const struct pol_policy *p, const struct pol_ctx *ctx, const char *path,
			 struct pol_result *r)
{
	apply_allowlist(p, ctx, path, r);
	apply_observe(p, r);
}

static void apply_allowlist(const struct pol_policy *p, const struct pol_ctx *ctx, const char *path,
			    struct pol_result *r)
{
	time_t now = ctx && ctx->now ? ctx->now : time(NULL);
	/* Entries with paths scope targets: a command's are judged by the caller (the
	 * pending group below), never by where the agent stands. */
	const char *where = path && path[0] == '/' ? path : NULL;
	const struct pol_rule *rule = NULL;
	int looked = 0;

	if (!r->rule_id || r->decision == POL_ALLOW)
		return;
	for (size_t i = 0; i < p->n_allows; i++) {
		const struct pol_allow *a = &p->allows[i];

		if (!allow_names(p, a, r->rule_id, now, &rule, &looked) || !allow_covers(a, where))
			continue;
		if (ctx && ctx->trace) {
			struct pol_trace_event ev = {"allowlist", r->rule_id, a->reason,
						     strlen(a->reason), 1};
			ctx->trace(&ev, ctx->trace_arg);
		}
		r->decision = POL_ALLOW;
		r->allowed_by_allowlist = 1;
		r->allow_reason = a->reason;
		r->allow_origin = a->origin;
		r->allow_line = a->line;
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

/* Hands a finding to the caller's callback (pol_ctx.finding) before it is merged. */
static void report(const struct pol_ctx *ctx, const struct pol_result *r)
{
	if (ctx && ctx->finding && r->decision > POL_ALLOW)
		ctx->finding(r, ctx->finding_arg);
}

/* ---- path decisions ----------------------------------------------------------------- */

/* Is the literal root of anchored pattern pp there (its wildcard-free folders, or the
 * whole path of a literal pattern)? Only asked of a root deeper than the folder's n
 * bytes; a failed lookup other than "no such entry" counts as there. */
static int root_is_there(const struct pol_pathpat *pp, size_t n)
{
	char root[PATH_MAX];
	size_t cut = pp->literal_len;
	struct stat st;

	if (cut < pp->glob_len) /* up to the last '/' before the first wildcard */
		while (cut > n && pp->glob[cut - 1] != '/')
			cut--;
	while (cut > n + 1 && pp->glob[cut - 1] == '/')
		cut--; /* a folder pattern's trailing '/' */
	if (cut <= n + 1 || cut >= sizeof(root))
		return 1;
	memcpy(root, pp->glob, cut);
	root[cut] = '\0';
	return lstat(root, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

/* Which rule refuses an operation on path? Within a kind, the last pattern that
 * matches wins, as in .gitignore: a later "!pattern" (e.g. !.env.example) lifts an
 * earlier rule, and a later file can protect again what an earlier one lifted. */
static int covers_beneath(const struct pol_rule *r, const char *path)
{
	size_t n = strlen(path);
	const struct pol_pathpat *pps[2] = {&r->path, r->has_canon ? &r->path_canon : NULL};

	/* A folder being deleted or moved holds a protected path: an anchored rule whose
	 * literal root lies beneath it and is there, or a named entry directly inside it.
	 * A root that is not there protects nothing yet: `find . -delete` in a project
	 * without `.claude/settings.json` is not a deletion of the agent's settings. */
	for (int k = 0; k < 2; k++) {
		const struct pol_pathpat *pp = pps[k];

		if (!pp)
			continue;
		if (!pp->basename_only) {
			if (pp->literal_len > n && strncmp(pp->glob, path, n) == 0 &&
			    (pp->glob[n] == '/' || n == 1) && root_is_there(pp, n))
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

/* The bits set in v, inline: dcg is built for any x86-64 (no -mpopcnt), where
 * __builtin_popcountll is a call of libgcc's table-driven __popcountdi2 (300 calls, 5.5 k
 * instructions, in a first path decision's index). */
static inline uint32_t bits_set(uint64_t v)
{
	v = v - ((v >> 1) & 0x5555555555555555ull);
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((v * 0x0101010101010101ull) >> 56);
}

/* The rank of filled bucket b among the filled ones. */
static inline uint32_t bucket_rank(const struct pol_path_buckets *x, unsigned b)
{
	return x->rank[b / 64] + bits_set(x->present[b / 64] & ((1ull << (b % 64)) - 1));
}

static void path_index_free(struct pol_policy *p)
{
	if (p->buckets)
		free(p->buckets->rules);
	free(p->buckets);
	p->buckets = NULL;
}

void pol_path_index_drop(struct pol_policy *p)
{
	path_index_free(p);
	p->path_scans_unindexed = 0;
}

void pol_path_index_build(struct pol_policy *p)
{
	struct pol_path_buckets *x = NULL;
	uint16_t *pair = NULL; /* each rule's two buckets, POL_PI_BUCKETS: none */
	uint32_t *rules = NULL, filled = 0, total = 0;

	path_index_free(p);
	/* of the groups ready: pol_paths_ready_for() builds it again as more are */
	unsigned ready = pol_pg_ready(p);
	if (!ready)
		return;
	/* read in p->rule_tab below and by the path decisions (a group ready has them) */
	if (ready == POL_PG_ALL)
		pol_path_rules_make(p);
	/* Which buckets are filled (a rule sits in its pattern's bucket and, when its
	 * canonical form differs, in that one's too), then how many rules each holds,
	 * then the rules, in order: only the filled buckets take room (not 13 KB). */
	uint64_t present[POL_PI_WORDS] = {0};
	pair = malloc((2 * p->n_path_rules + 1) * sizeof(*pair));
	if (!pair)
		return;
	for (size_t i = 0; i < p->n_path_rules; i++) {
		const struct pol_rule *r = &p->rule_tab[p->path_rules[i]];
		int in = pol_path_rule_in(p, p->path_rules[i], ready) != NULL;
		unsigned b0 = in ? pol_pathpat_bucket(&r->path) : POL_PI_BUCKETS,
			 b1 = in && r->has_canon ? pol_pathpat_bucket(&r->path_canon)
						 : POL_PI_BUCKETS;

		pair[2 * i] = (uint16_t)(b0 < POL_PI_BUCKETS ? b0 : POL_PI_BUCKETS);
		pair[2 * i + 1] = (uint16_t)(b1 < POL_PI_BUCKETS && b1 != b0 ? b1 : POL_PI_BUCKETS);
		for (int k = 0; k < 2; k++)
			if (pair[2 * i + k] < POL_PI_BUCKETS) {
				present[pair[2 * i + k] / 64] |= 1ull << (pair[2 * i + k] % 64);
				total++;
			}
	}
	for (size_t w = 0; w < POL_PI_WORDS; w++)
		filled += bits_set(present[w]);
	x = calloc(1, sizeof(*x) + (filled + 1) * sizeof(x->start[0]));
	rules = malloc((total ? total : 1) * sizeof(*rules));
	if (!x || !rules) {
		free(x);
		free(rules);
		free(pair);
		return;
	}
	memcpy(x->present, present, sizeof(present));
	for (size_t w = 1; w < POL_PI_WORDS; w++)
		x->rank[w] = (uint16_t)(x->rank[w - 1] + bits_set(present[w - 1]));
	for (size_t j = 0; j < 2 * p->n_path_rules; j++)
		if (pair[j] < POL_PI_BUCKETS)
			x->start[bucket_rank(x, pair[j]) + 1]++;
	for (uint32_t k = 0; k < filled; k++)
		x->start[k + 1] += x->start[k];
	/* filled in rule order: start[k] then points past bucket k, shifted back below */
	for (size_t j = 0; j < 2 * p->n_path_rules; j++)
		if (pair[j] < POL_PI_BUCKETS)
			rules[x->start[bucket_rank(x, pair[j])]++] = (uint32_t)p->path_rules[j / 2];
	for (uint32_t k = filled; k > 0; k--)
		x->start[k] = x->start[k - 1];
	x->start[0] = 0;
	x->rules = rules;
	p->buckets = x;
	free(pair);
}

int pol_exe_may_refuse(const struct pol_policy *p)
{
	pol_paths_ready(p);
	for (size_t i = 0; i < p->n_path_rules; i++) {
		const struct pol_rule *r = &p->rule_tab[p->path_rules[i]];

		if (r->path.negate && r->n_owners)
			return 1;
	}
	return 0;
}

/* The subcommand a program runs, from its arguments (NUL-separated): what a dashed
 * helper's name carries (git-stash), else the first word after argv[0] that is not an
 * option; -c and -C take the word after them (git -C DIR -c K=V stash). NULL: none. */
static const char *args_subcommand(const char *args, size_t len, size_t *out_len)
{
	const char *end = args + len, *w = args, *base;
	int skip = 0;

	if (!args || !len || end[-1] != '\0')
		return NULL;
	base = strrchr(w, '/');
	base = base ? base + 1 : w;
	if (!strncmp(base, "git-", 4) && base[4]) {
		*out_len = strlen(base + 4);
		return base + 4;
	}
	for (w += strlen(w) + 1; w < end; w += strlen(w) + 1) {
		if (skip) {
			skip = 0;
			continue;
		}
		if (w[0] == '-') {
			skip = !strcmp(w, "-c") || !strcmp(w, "-C");
			continue;
		}
		*out_len = strlen(w);
		return w;
	}
	return NULL;
}

int pol_rule_owned_by(const struct pol_policy *p, const struct pol_rule *r,
		      const struct pol_ctx *ctx)
{
	const char *exe = ctx ? ctx->exe : NULL, *base;
	size_t n;

	if (!r->n_owners)
		return 0;
	for (size_t i = 0; i < r->n_owners; i++) {
		const char *o = r->owners[i];

		/* :agent, the process dcg run / dcg sandbox started (not its children);
		 * :dcg, this session's own dcg binary (the hook the agent runs), unless
		 * code from elsewhere runs in it (LD_PRELOAD=x.so dcg ...) */
		if (!strcmp(o, ":agent") && ctx && (ctx->flags & POL_CTX_AGENT))
			return 1;
		if (!strcmp(o, ":dcg") && ctx && ctx->dcg_exe && exe &&
		    !strcmp(exe, ctx->dcg_exe) && !(ctx->flags & POL_CTX_FOREIGN_CODE))
			return 1;
		if (!exe || exe[0] != '/' || o[0] == ':' || (ctx->flags & POL_CTX_FOREIGN_CODE))
			continue;
		base = strrchr(exe, '/') + 1;
		if (o[0] == '/') {
			if (strcmp(o, exe) == 0)
				return 1;
			continue;
		}
		/* A name: a system program of that name or its helpers (git, git-*), never a
		 * copy of that name elsewhere (an agent could make ./git). "NAME SUB": that
		 * program running its subcommand SUB (git stash), never an alias of the
		 * user's, which git would run as a command of its own (alias.x = !git). */
		if (!pol_owner_folder(p, exe))
			continue;
		const char *sp = strchr(o, ' ');
		n = sp ? (size_t)(sp - o) : strlen(o);
		if (strncmp(base, o, n) != 0 || (base[n] != '\0' && base[n] != '-'))
			continue;
		if (!sp)
			return 1;
		size_t sl;
		const char *sub = args_subcommand(ctx->args, ctx->args_len, &sl);
		if (sub && sl == strlen(sp + 1) && !memcmp(sub, sp + 1, sl))
			return 1;
	}
	return 0;
}

/* The last matching rule of each class, per kind. Within a kind the last matching
 * pattern wins, except that an exclusion lifts only what it may (pol_load_layers):
 * a guarded (system) rule only by a guarded exclusion, a rule from before the
 * untrusted project file not by that file's exclusions. */
enum {
	HIT_POS_GUARDED,
	HIT_POS_LOW,
	HIT_POS_HIGH,
	HIT_NEG_GUARDED,
	HIT_NEG,
	HIT_NEG_UNTRUSTED,
	HIT__N
};

struct hit_scan {
	const struct pol_policy *p;
	const char *path;
	const struct pol_path_sig *sig;
	unsigned kinds;
	/* the groups ready (pol_pg_ready): the linear scan reads no other rule, and the
	 * index holds no other (it is dropped whenever another group is readied) */
	unsigned ready;
	int new_file; /* POL_PATH_CREATE_EXCL: a name pattern naming the new file spares it */
	const struct pol_ctx *ctx;
	const struct pol_rule *last[3][HIT__N];
	const struct pol_rule *beneath[3];
};

static int hit_class(const struct pol_policy *p, const struct pol_rule *r)
{
	if (r->path.negate)
		return r->guarded ? HIT_NEG_GUARDED : r->untrusted ? HIT_NEG_UNTRUSTED : HIT_NEG;
	if (r->guarded)
		return HIT_POS_GUARDED;
	return (size_t)(r - p->rule_tab) >= p->untrusted_from ? HIT_POS_HIGH : HIT_POS_LOW;
}

static void try_rule(struct hit_scan *hs, const struct pol_rule *r)
{
	const struct pol_rule **slot;

	if (!(hs->kinds & (1u << r->path_kind)))
		return;
	if (r->plants && (hs->kinds & POL_KINDS_REMOVE))
		return; /* removing what would run later plants nothing */
	if (r->n_owners && pol_rule_owned_by(hs->p, r, hs->ctx))
		return; /* its owner manages what it covers */
	slot = &hs->last[r->path_kind][hit_class(hs->p, r)];
	if (*slot && *slot >= r)
		return; /* a later rule of this class already matched: it wins anyway */
	/* Its lazy expansion ran out of memory: it covers every path (an exclusion
	 * lifts nothing). */
	if (!r->path.glob) {
		if (!r->path.negate)
			*slot = r;
		return;
	}
	if (pol_pathpat_covers_sig(&r->path, hs->path, hs->sig) ||
	    (r->has_canon && pol_pathpat_covers(&r->path_canon, hs->path))) {
		if (hs->new_file && !r->has_canon &&
		    pol_pathpat_spares_new_file(&r->path, r->path_kind, hs->path))
			return; /* *.pem names the file being created: no secret to read */
		*slot = r;
	}
}

/* Is the positive rule pos lifted by a later exclusion that may lift it? */
static int lifted(const struct pol_rule *const *last, const struct pol_rule *pos, int may_untrusted)
{
	const struct pol_rule *g = last[HIT_NEG_GUARDED], *n = last[HIT_NEG],
			      *u = last[HIT_NEG_UNTRUSTED];

	if (pos->guarded)
		return g && g > pos;
	return (g && g > pos) || (n && n > pos) || (may_untrusted && u && u > pos);
}

/* The rule that refuses, of one kind: the latest positive match not lifted. */
static const struct pol_rule *kind_hit(const struct pol_rule *const *last)
{
	const struct pol_rule *best = NULL;
	const struct pol_rule *cand[3] = {last[HIT_POS_GUARDED], last[HIT_POS_LOW],
					  last[HIT_POS_HIGH]};

	for (int c = 0; c < 3; c++)
		if (cand[c] && !lifted(last, cand[c], c == 2) && (!best || cand[c] > best))
			best = cand[c];
	return best;
}

static void scan_bucket(unsigned b, void *arg)
{
	struct hit_scan *hs = arg;
	const struct pol_policy *p = hs->p;

	const struct pol_path_buckets *x = p->buckets;

	if (b >= POL_PI_BUCKETS || !(x->present[b / 64] >> (b % 64) & 1))
		return;
	uint32_t k = bucket_rank(x, b);
	for (uint32_t i = x->start[k]; i < x->start[k + 1]; i++)
		try_rule(hs, &p->rule_tab[x->rules[i]]);
}

/* Tries the rules the path selects in the index, or every one (a folder's "beneath"
 * check, an index that could not be built, a path of too many components). */
static void scan_rules(struct hit_scan *hs, int beneath)
{
	const struct pol_policy *p = hs->p;

	if (p->buckets && !beneath && !hs->sig->overflow) {
		for (unsigned b = 0; b < hs->sig->n_buckets; b++)
			scan_bucket(hs->sig->buckets[b], hs);
		return;
	}
	for (size_t i = 0; i < p->n_path_rules; i++) {
		const struct pol_rule *r = pol_path_rule_in(p, p->path_rules[i], hs->ready);

		if (!r)
			continue; /* not ready: its record may not be made */
		try_rule(hs, r);
		if (beneath && !r->path.negate && (hs->kinds & (1u << r->path_kind)) &&
		    !(r->plants && (hs->kinds & POL_KINDS_REMOVE)) && !hs->beneath[r->path_kind] &&
		    !(r->n_owners && pol_rule_owned_by(p, r, hs->ctx)) &&
		    covers_beneath(r, hs->path))
			hs->beneath[r->path_kind] = r;
	}
}

/* Which rule refuses an operation on path? Within a kind the last matching rule (in
 * load order) wins. The index means only rules whose trigger the path has are tried;
 * the "beneath" check for folders looks at every rule. new_file: the operation is the
 * exclusive creation of a new file (POL_PATH_CREATE_EXCL). */
static const struct pol_rule *path_rule_hit(const struct pol_policy *p, const char *path,
					    unsigned kinds, int beneath, int new_file,
					    const struct pol_ctx *ctx)
{
	struct pol_path_sig sig;
	struct hit_scan hs;

	memset(&hs, 0, sizeof(hs));
	hs.p = p;
	hs.path = path;
	hs.sig = &sig;
	hs.kinds = kinds;
	hs.new_file = new_file;
	hs.ctx = ctx;

	pol_paths_ready_for(p, pol_pg_rules(kinds));
	/* A lazy load (one process, no threads: pol_prepare() readies all) tries the rules
	 * ready one by one in its first decisions, which the hook's call makes one or two
	 * of, and builds the index for the third (a folder walked, a command of many
	 * paths). */
	if (!p->buckets && (p->paths_pending || p->canon_pending) &&
	    ++((struct pol_policy *)p)->path_scans_unindexed > 2)
		pol_path_index_build((struct pol_policy *)p);
	pol_path_sig_init(&sig, path);
	for (int again = 0;; again = 1) {
		hs.ready = pol_pg_ready(p);
		scan_rules(&hs, beneath);
		/* A kind's exclusions lift only a rule of that kind that matched: they are
		 * readied only then, and the scan made again. (Were they still not ready,
		 * the rule would stand: refused, never let through.) */
		unsigned neg = 0;
		for (unsigned k = 0; k < 3; k++)
			if (hs.last[k][HIT_POS_GUARDED] || hs.last[k][HIT_POS_LOW] ||
			    hs.last[k][HIT_POS_HIGH])
				neg |= 2u << (2 * k);
		if (again || !(neg & ~hs.ready))
			break;
		pol_paths_ready_for(p, neg);
		memset(hs.last, 0, sizeof(hs.last));
		memset(hs.beneath, 0, sizeof(hs.beneath));
	}
	for (int k = 0; k < 3; k++) {
		const struct pol_rule *hit = kind_hit(hs.last[k]);

		if (hit)
			return hit;
		if (hs.beneath[k])
			return hs.beneath[k];
	}
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
	pol_paths_ready_for(p, pol_pg_rules(kinds));
	for (size_t i = 0; i < p->n_path_rules; i++)
		if (pol_path_rule_in(p, p->path_rules[i], pol_pg_rules(kinds)))
			return 1;
	return 0;
}

static const struct pol_rule *walk_beneath(const struct pol_policy *p, char *path, size_t len,
					   unsigned kinds, int depth, long *budget,
					   const struct pol_ctx *ctx)
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
			hit = path_rule_hit(p, path, kinds, 0, 0, ctx);
			if (!hit && is_dir)
				hit = walk_beneath(p, path, len + sep + nl, kinds, depth + 1,
						   budget, ctx);
			path[len] = '\0';
		}
	}
out_close:
	close(fd);
	return hit;
}

/* The rule that refuses where an allowed path really leads, unless an entry lets that
 * pass too: into r. Apart from decide_path(), whose frame every path decision's
 * resolution runs under, for its 1.7 KB result. */
static __attribute__((noinline)) void refuse_real(const struct pol_policy *p,
						  const struct pol_rule *real, const char *resolved,
						  enum pol_op op, const struct pol_ctx *ctx,
						  struct pol_result *r)
{
	struct pol_result r2;

	pol_result_init(&r2);
	fill_from_rule(&r2, real);
	r2.detection = POL_DET_PATH;
	r2.op = op;
	r2.path_kind = real->path_kind;
	pol_copy_str(r2.path, sizeof(r2.path), resolved);
	pol_copy_matched(&r2, resolved, strlen(resolved));
	pol_apply_allowlist(p, ctx, resolved, &r2);
	if (r2.decision != POL_ALLOW)
		*r = r2;
}

/* walk_beneath() from a copy of from: apart, so that its buffer does not sit in the
 * frame of every path decision, above the walk's readlinks (a stack page each). */
static __attribute__((noinline)) const struct pol_rule *
walk_beneath_from(const struct pol_policy *p, const char *from, unsigned kinds,
		  const struct pol_ctx *ctx)
{
	char walk[PATH_MAX];
	long budget = BENEATH_MAX_ENTRIES;

	pol_copy_str(walk, sizeof(walk), from);
	return walk_beneath(p, walk, strlen(walk), kinds, 0, &budget, ctx);
}

static enum pol_decision decide_path(const struct pol_policy *p, const char *lexical,
				     const char *resolved, enum pol_op op, unsigned flags,
				     const struct pol_ctx *ctx, struct pol_result *r)
{
	unsigned kinds = pol_op_refusing_kinds(op, flags) |
			 (op == POL_OP_DELETE || op == POL_OP_RENAME_FROM || op == POL_OP_LINK_FROM
			      ? POL_KINDS_REMOVE
			      : 0);
	/* A folder deleted or moved is judged by what it holds, except a deletion the
	 * runtime layers judge at exec (PATH_NO_WALK): the recursive delete's own unlinks
	 * are each checked as they come, so `find . -delete` in a project that has
	 * .claude/settings.json deletes the rest and the settings survive. A rename
	 * moves a whole tree in one call: still judged whole. */
	int beneath =
	    (flags & POL_PATH_IS_DIR) && ((op == POL_OP_DELETE && !(flags & PATH_NO_WALK)) ||
					  op == POL_OP_RENAME_FROM || op == POL_OP_RENAME_TO);
	/* a file that does not exist, created so that it cannot meet one that does, or
	 * the mode, owner or times of one made in this session (tar x restoring them): a
	 * name pattern (*.pem) that names it alone guards no secret there */
	int new_file =
	    ((flags & POL_PATH_CREATE_EXCL) && op == POL_OP_CREATE && !(flags & POL_PATH_IS_DIR)) ||
	    ((flags & POL_PATH_SESSION_NEW) && op == POL_OP_CHMOD &&
	     (!resolved || !strcmp(resolved, lexical)));
	const struct pol_rule *hit;

	/* An atomic save's temporary file, or any file made during the session, may be
	 * deleted or renamed away, and may replace a no-delete name (the layer says so
	 * only for a rename within one folder): pol_op_refusing_kinds leaves ND out. */
	hit = path_rule_hit(p, lexical, kinds, beneath, new_file, ctx);
	const char *which = lexical;

	if (!hit && resolved && strcmp(resolved, lexical) != 0) {
		hit = path_rule_hit(p, resolved, kinds, beneath, new_file, ctx);
		which = resolved;
	}
	/* Not for rename onto a folder: that replaces only an empty one (and "mv x /tmp/"
	 * names the folder the file goes into). */
	if (!hit && beneath && op != POL_OP_RENAME_TO && !(flags & PATH_NO_WALK) &&
	    has_path_rules(p, kinds)) {
		hit = walk_beneath_from(p, resolved ? resolved : lexical, kinds, ctx);
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
	/* An entry that lets the path as written pass must not let through where it
	 * really leads (a link in an allowed folder to a protected one). */
	if (r->decision == POL_ALLOW && which == lexical && resolved && strcmp(resolved, lexical)) {
		const struct pol_rule *real =
		    path_rule_hit(p, resolved, kinds, beneath, new_file, ctx);

		if (real)
			refuse_real(p, real, resolved, op, ctx, r);
	}
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
	return -1; /* unknown (deeper than PATH_MAX, deleted): the root stands in */
}

/* current_cwd() into the arena, as long as it is (cut as there, at PATH_MAX - 1):
 * NULL without memory. */
static char *current_cwd_in(const struct pol_policy *p, const struct pol_ctx *ctx,
			    struct pol_arena *a)
{
	const char *src = ctx && ctx->cwd && ctx->cwd[0] == '/' ? ctx->cwd : NULL;
	char *got = NULL, *out;
	size_t n;

	if (!src)
		src = got = getcwd(NULL, 0);
	if (!src)
		src = p->root;
	n = strlen(src);
	if (n >= PATH_MAX)
		n = PATH_MAX - 1;
	out = pol_arena_alloc(a, n + 1);
	if (out) {
		memcpy(out, src, n);
		out[n] = '\0';
	}
	free(got);
	return out;
}

/* A path that cannot be checked (too long, or its links cannot be resolved) is
 * refused, not waved through. */
static enum pol_decision refuse_unchecked(const struct pol_policy *p, const char *path,
					  enum pol_op op, struct pol_result *r)
{
	ssize_t i = pol_rule_find(p, "input.path_too_long");

	if (i >= 0)
		fill_from_rule(r, &pol_rules(p)[i]);
	r->decision = POL_DENY;
	r->detection = POL_DET_PATH;
	r->op = op;
	pol_copy_matched(r, path, strlen(path));
	pol_copy_str(r->path, sizeof(r->path), path);
	return r->decision;
}

/* base + "/" + path (as the kernel would walk it) resolved into resolved (PATH_MAX
 * bytes), with a buffer of PATH_MAX * 2 for the joined form: -1 when it cannot be. */
static __attribute__((noinline)) int resolve_joined_long(const char *start, const char *rest,
							 int nofollow, char *resolved)
{
	char joined[PATH_MAX * 2];
	int n = snprintf(joined, sizeof(joined), "%s/%s", start, rest);

	if (n <= 0 || (size_t)n >= sizeof(joined) ||
	    pol_path_resolve(joined, nofollow, resolved, PATH_MAX) < 0)
		return -1;
	return 0;
}

static enum pol_decision check_path_in(const struct pol_policy *p, const char *base,
				       const char *path, enum pol_op op, unsigned flags,
				       const struct pol_ctx *ctx, struct pol_result *r)
{
	/* lexical holds the joined form while it resolves, then the normal form: a third
	 * buffer (8 KiB) here put every readlink of the walk two stack pages deeper */
	char lexical[PATH_MAX], resolved[PATH_MAX];
	const char *res = NULL;

	pol_result_init(r);
	if (!path || !path[0])
		return POL_ALLOW;
	/* Resolution walks the path as the kernel will, before folding "..": after a
	 * symlink, ".." is the parent of its target, not of the link. */
	if (!(flags & POL_PATH_CANONICAL)) {
		const char *start = path[0] == '/' ? "" : base;
		const char *rest = path;
		int nofollow = !!(flags & POL_PATH_NOFOLLOW), n;

		if (path[0] == '~' && (path[1] == '/' || path[1] == '\0')) {
			start = p->home;
			rest = path + 1;
		}
		/* start "/" rest, as snprintf would join them (not called: vfprintf and its
		 * lazy binding are some 3 k instructions of every first path decision) */
		size_t sl = strlen(start), rl = strlen(rest);
		if (sl + 1 + rl < sizeof(lexical)) {
			memcpy(lexical, start, sl);
			lexical[sl] = '/';
			memcpy(lexical + sl + 1, rest, rl + 1);
		}
		n = sl + 1 + rl > INT_MAX ? -1 : (int)(sl + 1 + rl);
		/* A path whose links cannot be followed here (nested targets outgrowing the
		 * buffers, a loop) may still lead somewhere protected for the kernel, which
		 * keeps no such limit: deciding on its written form alone would wave it
		 * through. */
		if (n <= 0)
			return refuse_unchecked(p, path, op, r);
		if ((size_t)n < sizeof(lexical))
			n = pol_path_resolve(lexical, nofollow, resolved, sizeof(resolved));
		else
			n = resolve_joined_long(start, rest, nofollow, resolved);
		if (n < 0)
			return refuse_unchecked(p, path, op, r);
		res = resolved;
	}
	if (pol_path_normalize(path, base, p->home, lexical, sizeof(lexical)) < 0)
		return refuse_unchecked(p, path, op, r);
	return decide_path(p, lexical, res, op, flags, ctx, r);
}

static enum pol_decision check_path_getcwd(const struct pol_policy *p, const char *path,
					   enum pol_op op, unsigned flags,
					   const struct pol_ctx *ctx, struct pol_result *r);

/* pol_check_path() below the expansion of a lazy load's path rules: that pass (every
 * path rule's folders resolved) runs under this frame, not under the 25 KB of the
 * check's (each page of stack a page fault). */
static __attribute__((noinline)) enum pol_decision
check_path_cwd(const struct pol_policy *p, const char *path, enum pol_op op, unsigned flags,
	       const struct pol_ctx *ctx, struct pol_result *r)
{
	if (path && (path[0] == '/' || (path[0] == '~' && (path[1] == '/' || path[1] == '\0'))))
		return check_path_in(p, "/", path, op, flags, ctx, r);
	/* the call's own folder as it is (what current_cwd() would copy): no buffer here,
	 * above the walk's readlinks */
	if (ctx && ctx->cwd && ctx->cwd[0] == '/' && strnlen(ctx->cwd, PATH_MAX) < PATH_MAX)
		return check_path_in(p, ctx->cwd, path, op, flags, ctx, r);
	return check_path_getcwd(p, path, op, flags, ctx, r);
}

/* check_path_cwd() where the working directory is asked of the kernel. */
static __attribute__((noinline)) enum pol_decision
check_path_getcwd(const struct pol_policy *p, const char *path, enum pol_op op, unsigned flags,
		  const struct pol_ctx *ctx, struct pol_result *r)
{
	char cwd[PATH_MAX];

	/* A relative path whose base is unknown (a working directory deeper than PATH_MAX)
	 * would be judged against the wrong folder: refused. */
	if (current_cwd(p, ctx, cwd, sizeof(cwd)) < 0 && path && path[0]) {
		pol_result_init(r);
		return refuse_unchecked(p, path, op, r);
	}
	return check_path_in(p, cwd, path, op, flags, ctx, r);
}

enum pol_decision pol_check_path(const struct pol_policy *p, const char *path, enum pol_op op,
				 unsigned flags, const struct pol_ctx *ctx, struct pol_result *r)
{
	pol_paths_ready_for(p, pol_pg_rules(pol_op_refusing_kinds(op, flags)));
	return check_path_cwd(p, path, op, flags, ctx, r);
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
		/* An unknown directory (deeper than PATH_MAX, no /proc): the path cannot be
		 * placed, so it is refused rather than judged against the wrong folder. */
		pol_result_init(r);
		if (!path || !path[0])
			return POL_ALLOW;
		return refuse_unchecked(p, path, op, r);
	}
	base[n] = '\0';
	return check_path_in(p, base, path, op, flags | 0, ctx, r);
}

/* ---- command decisions --------------------------------------------------------------- */

/* Command-rule matches that only an allow entry with paths could let pass wait here
 * for the paths their command touches: the analyser sends a simple command's path
 * units right after its command units, so the group gathers every path unit until
 * the next other unit, then each waiting match is allowed when every target (or,
 * with none, the folder the command runs in) lies under the entry's paths. A target
 * that cannot be known ($VAR, $(...), a script's own operations) allows nothing. */
#define PEND_MAX    4
#define TARGETS_MAX 64

struct pend_group {
	size_t n;
	const char *targets[TARGETS_MAX]; /* resolved, in the arena */
	size_t n_targets;
	int unknown;  /* some target cannot be known */
	int saw_path; /* the group's path units have begun */
	int no_dir;   /* the folder it runs in is not the working directory (cd, -C) */
	/* PEND_MAX results of ~1.5 KB, taken from the arena by the first (offer): on the
	 * stack they made every decision's frames 6 KB deeper; only r[0..n) is read */
	struct pol_result *r;
};

struct cmd_state {
	const struct pol_policy *p;
	const struct pol_ctx *ctx;
	struct pol_arena *a;
	pcre2_match_data *md; /* made at the first regex a unit runs (most run none) */
	int md_failed;	      /* it could not be made: the decision is analysis_failed */
	const char *cwd;
	int stop_on_deny;
	int saw_cd; /* a cd, pushd or popd ran earlier in the command */
	/* The unit just before, when it was a command: the written view of a command
	 * whose normalized view follows (git -C DIR reset: the rule matches the latter). */
	int prev_unknown, prev_no_dir;
	int path_allows; /* the policy has allow entries with paths (else the above are unused) */
	size_t n_units;	 /* units seen so far */
	const char *cmd; /* the whole command, as given */
	size_t cmd_len;
	/* a script rule's match at a call that shells out to destroy (run_regex() 3), in
	 * the arena: it refuses at the end unless something else refused */
	struct pol_result *held;
	/* after the fields cleared at once: set by pol_result_init (1.5 KB each) */
	struct pol_result best;
	struct pol_result cand;
	struct pend_group pg;
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

/* inlined into the rule loop, as it was before the deferred image needed it alone */
__attribute__((always_inline)) static inline int
prefilter_may_match_kw(const struct prefilter *pf, const char *k, size_t klen, uint16_t bigram)
{
	if (!k)
		return 1;
	if (k[0] != '\n') {
		if (!(pf->bits[bigram >> 6] & (1ull << (bigram & 63))))
			return 0;
		return memmem(pf->lower, pf->len, k, klen) != NULL;
	}
	/* "\nA\nB": any of them (compile.c, extract_keyword) */
	while (*k == '\n') {
		const char *e = strchr(k + 1, '\n');
		size_t l = e ? (size_t)(e - k - 1) : strlen(k + 1);
		uint16_t b = l >= 2 ? pol_keyword_bigram(k + 1) : 0;

		if (l < 2 || ((pf->bits[b >> 6] & (1ull << (b & 63))) &&
			      memmem(pf->lower, pf->len, k + 1, l)))
			return 1;
		if (!e)
			break;
		k = e;
	}
	return 0;
}

static int prefilter_may_match(const struct prefilter *pf, const struct pol_rule *r)
{
	return prefilter_may_match_kw(pf, r->keyword, r->keyword_len, r->keyword_bigram);
}

/* Rule i of a deferred image (pol_img_pend), read in the image: 1 when the unit skips
 * it for sure (not an active rule of the unit's kind, or a command rule whose
 * prefilter says no), 0 when its record must be tried (then it is made). Not while
 * tracing: the trace names each rule the prefilter skips. */
static int image_skips(const struct pol_policy *p, const struct pol_ctx *ctx,
		       const struct prefilter *pf, const struct pol_unit *u, size_t i)
{
	const struct pol_img_pend *q = p->img_pend;
	const struct pol_rule *r = &q->recs[i - q->first];

	if (ctx && ctx->trace)
		return 0;
	/* the loop's first tests: the kind of rule the unit tries, active (enabled while
	 * deferred); a script rule's language is compared in its record */
	if (u->kind == POL_UNIT_SCRIPT)
		return r->kind != POL_RULE_SCRIPT || !r->enabled;
	if (u->kind != POL_UNIT_COMMAND)
		return 0;
	if (r->kind != POL_RULE_COMMAND || !r->enabled)
		return 1;
	const char *k = r->keyword ? q->str + (uintptr_t)r->keyword - 1 : NULL;

	return !prefilter_may_match_kw(pf, k, r->keyword_len, r->keyword_bigram);
}

/* ---- the command rule index --------------------------------------------------------
 * Most command rules are anchored to the command's name (^git\s+reset, ^(?:cp|cat)\b):
 * such a rule can match only a unit whose text starts with its two first bytes. The
 * index keeps them in buckets by those bytes; the other rules (no such anchor) are
 * tried for every unit. A unit tries its bucket's rules and the others, merged back
 * into policy order, so the first match and every later step are those of trying every
 * rule: the index only leaves out rules that could not have matched. Script units try
 * the active script rules only. */
#define CI_BUCKETS 1024
#define CI_KEYS	   16
#define CI_AFTER   8 /* units decided before the index is built */

struct pol_cmd_index {
	uint32_t *start;    /* CI_BUCKETS + 1 offsets into rules */
	uint32_t *rules;    /* positions in p->cmd_rules, ascending within a bucket */
	uint32_t *floating; /* positions in p->cmd_rules of the rules without start keys */
	uint32_t *scripts;  /* indexes in pol_rules(p) of the active script rules */
	uint32_t n_floating, n_scripts;
};

static unsigned ci_bucket(unsigned char c0, unsigned char c1)
{
	c0 = (unsigned char)((c0 >= 'A' && c0 <= 'Z') ? c0 - 'A' + 'a' : c0);
	c1 = (unsigned char)((c1 >= 'A' && c1 <= 'Z') ? c1 - 'A' + 'a' : c1);
	return (c0 * 31u + c1) & (CI_BUCKETS - 1);
}

/* The distinct buckets of a rule's start keys, into b (CI_KEYS); 0: a floating rule. */
static size_t ci_rule_buckets(const struct pol_rule *r, uint16_t *b)
{
	uint16_t keys[CI_KEYS];
	size_t n = r->pattern ? pol_pattern_start_keys(r->pattern, keys, CI_KEYS) : 0, nb = 0;

	for (size_t k = 0; k < n; k++) {
		uint16_t x =
		    (uint16_t)ci_bucket((unsigned char)(keys[k] >> 8), (unsigned char)keys[k]);
		size_t j = 0;
		while (j < nb && b[j] != x)
			j++;
		if (j == nb)
			b[nb++] = x;
	}
	return nb;
}

static struct pol_cmd_index *ci_build(const struct pol_policy *p)
{
	uint32_t count[CI_BUCKETS + 1] = {0};
	size_t total = 0, n_float = 0, n_script = 0;
	struct pol_cmd_index *ci;
	/* each command rule's buckets: a count, then CI_KEYS slots */
	uint16_t *kb = pol_mem_alloc((p->n_cmd_rules + 1) * (CI_KEYS + 1) * sizeof(*kb));

	if (!kb)
		return NULL;
	for (size_t t = 0; t < p->n_cmd_rules; t++) {
		uint16_t *b = kb + t * (CI_KEYS + 1);
		b[0] = (uint16_t)ci_rule_buckets(&pol_rules(p)[p->cmd_rules[t]], b + 1);
		for (size_t k = 0; k < b[0]; k++)
			count[b[1 + k]]++;
		total += b[0];
		n_float += b[0] == 0;
	}
	for (size_t i = 0; i < p->n_rules; i++)
		n_script += pol_rules(p)[i].kind == POL_RULE_SCRIPT && pol_rules(p)[i].active;
	ci = pol_mem_alloc(sizeof(*ci) +
			   (CI_BUCKETS + 1 + total + n_float + n_script) * sizeof(uint32_t));
	if (!ci) {
		pol_mem_free(kb);
		return NULL;
	}
	ci->start = (uint32_t *)(ci + 1);
	ci->rules = ci->start + CI_BUCKETS + 1;
	ci->floating = ci->rules + total;
	ci->scripts = ci->floating + n_float;
	ci->n_floating = ci->n_scripts = 0;
	uint32_t sum = 0;
	for (size_t k = 0; k <= CI_BUCKETS; k++) {
		ci->start[k] = sum;
		sum += count[k];
		count[k] = ci->start[k]; /* where the next rule of bucket k goes */
	}
	for (size_t t = 0; t < p->n_cmd_rules; t++) {
		const uint16_t *b = kb + t * (CI_KEYS + 1);
		for (size_t k = 0; k < b[0]; k++)
			ci->rules[count[b[1 + k]]++] = (uint32_t)t;
		if (!b[0])
			ci->floating[ci->n_floating++] = (uint32_t)t;
	}
	for (size_t i = 0; i < p->n_rules; i++)
		if (pol_rules(p)[i].kind == POL_RULE_SCRIPT && pol_rules(p)[i].active)
			ci->scripts[ci->n_scripts++] = (uint32_t)i;
	pol_mem_free(kb);
	return ci;
}

/* The index, built by the first thread that needs it once CI_AFTER units have been
 * decided without it (a process that decides one command, the hook, never pays for
 * it); NULL until then, while another thread builds it, or when it cannot be built:
 * every rule is tried. */
static const struct pol_cmd_index *ci_get(const struct pol_policy *cp)
{
	struct pol_policy *p = (struct pol_policy *)cp;
	int state = __atomic_load_n(&p->cmd_index_state, __ATOMIC_ACQUIRE), expected = 0;
	struct pol_cmd_index *ci;

	if (state == 2)
		return p->cmd_index;
	if (state != 0 || !p->cmd_rules || p->cmd_rules_for != p->n_rules ||
	    __atomic_add_fetch(&p->cmd_index_wait, 1, __ATOMIC_RELAXED) < CI_AFTER ||
	    !__atomic_compare_exchange_n(&p->cmd_index_state, &expected, 1, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return NULL;
	ci = ci_build(p);
	p->cmd_index = ci;
	__atomic_store_n(&p->cmd_index_state, ci ? 2 : 3, __ATOMIC_RELEASE);
	return ci;
}

void pol_cmd_index_build(const struct pol_policy *p)
{
	__atomic_store_n(&((struct pol_policy *)p)->cmd_index_wait, CI_AFTER, __ATOMIC_RELAXED);
	ci_get(p);
}

void pol_cmd_index_free(struct pol_policy *p)
{
	pol_mem_free(p->cmd_index);
	p->cmd_index = NULL;
	p->cmd_index_state = 0;
	p->cmd_index_wait = 0;
	p->cmd_index_prebuilt = 0;
}

/* The index as words (the rule image's, snapshot.c): n_floating, n_scripts, the
 * number of bucket entries, the bucket starts, the bucket entries, the floating
 * rules, then the script rules less first. */
uint32_t *pol_cmd_index_export(const struct pol_policy *p, size_t first, size_t *n_words)
{
	struct pol_cmd_index *ci = ci_build(p);
	uint32_t *w = NULL, total;
	size_t n;

	if (!ci)
		return NULL;
	total = ci->start[CI_BUCKETS];
	n = 3 + CI_BUCKETS + 1 + (size_t)total + ci->n_floating + ci->n_scripts;
	w = malloc(n * sizeof(*w));
	for (uint32_t k = 0; w && k < ci->n_scripts; k++)
		if (ci->scripts[k] < first) {
			free(w);
			w = NULL;
		}
	if (w) {
		w[0] = ci->n_floating;
		w[1] = ci->n_scripts;
		w[2] = total;
		memcpy(w + 3, ci->start, (CI_BUCKETS + 1 + (size_t)total + ci->n_floating) * 4);
		for (uint32_t k = 0; k < ci->n_scripts; k++)
			w[n - ci->n_scripts + k] = ci->scripts[k] - (uint32_t)first;
		*n_words = n;
	}
	pol_mem_free(ci);
	return w;
}

int pol_cmd_index_import(struct pol_policy *p, const uint32_t *w, size_t n_words, size_t first)
{
	struct pol_cmd_index *ci;

	if (n_words < 3 || n_words != 3 + CI_BUCKETS + 1 + (size_t)w[2] + w[0] + w[1])
		return -EINVAL;
	ci = pol_mem_alloc(sizeof(*ci) + (size_t)w[1] * sizeof(uint32_t));
	if (!ci)
		return -ENOMEM;
	/* the buckets where they lie (the image outlives the policy), the scripts here */
	ci->start = (uint32_t *)(uintptr_t)(w + 3); /* read only: ci_build() alone writes */
	ci->rules = ci->start + CI_BUCKETS + 1;
	ci->floating = ci->rules + w[2];
	ci->scripts = (uint32_t *)(ci + 1);
	ci->n_floating = w[0];
	ci->n_scripts = w[1];
	for (uint32_t k = 0; k < w[1]; k++)
		ci->scripts[k] = w[n_words - w[1] + k] + (uint32_t)first;
	pol_cmd_index_free(p);
	p->cmd_index = ci;
	p->cmd_index_state = 2;
	p->cmd_index_prebuilt = 1;
	return 0;
}

/* The rules a unit tries, in policy order: from the index, or every rule. */
struct rule_iter {
	const struct pol_policy *p;
	const uint32_t *a, *b; /* two ascending lists of positions in p->cmd_rules */
	size_t na, nb, ia, ib;
	size_t all, n_all; /* no index: every position in order */
	int mode;	   /* 0 every command rule, 1 every rule, 2 merged lists, 3 scripts */
};

static void rule_iter_init(struct rule_iter *it, const struct pol_policy *p,
			   const struct pol_unit *u, int tracing)
{
	/* a trace names every rule the prefilter skips: a call traced first thing tries
	 * every rule, as it did before the image carried its index */
	const struct pol_cmd_index *ci = tracing && p->cmd_index_prebuilt ? NULL : ci_get(p);

	memset(it, 0, sizeof(*it));
	it->p = p;
	if (u->kind == POL_UNIT_SCRIPT) {
		it->mode = ci ? 3 : 1;
		it->n_all = ci ? ci->n_scripts : p->n_rules;
		if (ci)
			it->a = ci->scripts;
		else /* every rule: the head's records read (an image's are read in place) */
			pol_head_make((struct pol_policy *)p);
		return;
	}
	if (!p->cmd_rules || p->cmd_rules_for != p->n_rules) {
		it->mode = 1;
		it->n_all = p->n_rules;
		pol_head_make((struct pol_policy *)p);
		return;
	}
	/* a text that starts with two ASCII bytes selects its bucket (a caseless rule's
	 * 'k' also matches U+212A, which never starts with an ASCII byte) */
	if (ci && u->len >= 2 && !((unsigned char)u->text[0] & 0x80) &&
	    !((unsigned char)u->text[1] & 0x80)) {
		unsigned k = ci_bucket((unsigned char)u->text[0], (unsigned char)u->text[1]);
		it->mode = 2;
		it->a = ci->rules + ci->start[k];
		it->na = ci->start[k + 1] - ci->start[k];
		it->b = ci->floating;
		it->nb = ci->n_floating;
		return;
	}
	if (ci) { /* a text too short or not ASCII: only the rules without a start */
		it->mode = 2;
		it->b = ci->floating;
		it->nb = ci->n_floating;
		return;
	}
	it->mode = 0;
	it->n_all = p->n_cmd_rules;
}

static struct pol_rule *rule_iter_next(struct rule_iter *it)
{
	struct pol_rule *rules = it->p->rule_tab; /* addresses only: the loop reads them */
	uint32_t t;

	switch (it->mode) {
	case 0:
		return it->all < it->n_all ? &rules[it->p->cmd_rules[it->all++]] : NULL;
	case 1:
		return it->all < it->n_all ? &rules[it->all++] : NULL;
	case 3:
		return it->all < it->n_all ? &rules[it->a[it->all++]] : NULL;
	}
	if (it->ia < it->na && (it->ib == it->nb || it->a[it->ia] < it->b[it->ib]))
		t = it->a[it->ia++];
	else if (it->ib < it->nb)
		t = it->b[it->ib++];
	else
		return NULL;
	return &rules[it->p->cmd_rules[t]];
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

/* A script's call of a shell on one string literal (pol_unit.lit_calls), whose command
 * line the analyser analysed: a match that starts in it, or on the byte before its
 * callee ([^\w.:]system), names that call, and the command's own units decide it. The
 * offset after the call's literal, or 0 when the match is not at one. */
static size_t lit_call_end(const struct pol_unit *u, size_t ms, int *destroys)
{
	for (size_t k = 0; k < u->n_lit_calls; k++) {
		uint32_t start = u->lit_calls[2 * k] & ~POL_LITCALL_DESTROYS;
		if (ms + 1 >= start && ms < u->lit_calls[2 * k + 1]) {
			*destroys = !!(u->lit_calls[2 * k] & POL_LITCALL_DESTROYS);
			return u->lit_calls[2 * k + 1];
		}
	}
	return 0;
}

/* Runs one regex on a text. Returns 1 on a match (start/end set), 0 none, 2 when a
 * limit was hit (counted as a match). For command units, matches that start inside a
 * data word are skipped; for script units, matches at a call of a shell on a literal,
 * unless that call destroys (POL_LITCALL_DESTROYS): 3 when only such a match was
 * found (start/end set to the first), which holds until the call's own units decide. */
static int run_regex(struct cmd_state *st, struct pol_rule *rule, const struct pol_unit *u,
		     size_t *ms, size_t *me)
{
	pcre2_code *code = pol_rule_code(st->p, rule);
	size_t off = 0, held_s = 0, held_e = 0;
	/* a rule that names no redirection sees the command's words alone */
	size_t len =
	    u->kind == POL_UNIT_COMMAND && rule->words_only && u->words_len && u->words_len < u->len
		? u->words_len
		: u->len;
	int held = 0;

	if (!code)
		return 0;
	if (!st->md && !(st->md = pcre2_match_data_create(4, st->p->gctx))) {
		st->md_failed = 1; /* refused below, as a policy that cannot decide */
		*ms = 0;
		*me = u->len;
		return 2;
	}
	for (;;) {
		int rc = pcre2_match(code, (PCRE2_SPTR)u->text, len, off, PCRE2_NO_UTF_CHECK,
				     st->md, st->p->mctx);
		if (rc == PCRE2_ERROR_NOMATCH || rc == PCRE2_ERROR_BADOFFSET) {
			if (held) {
				*ms = held_s;
				*me = held_e;
				return 3;
			}
			return 0;
		}
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
		if (u->kind == POL_UNIT_SCRIPT && u->n_lit_calls) {
			int destroys = 0;
			size_t next = lit_call_end(u, *ms, &destroys);
			if (!next)
				return 1;
			if (destroys && !held) {
				held = 1;
				held_s = *ms;
				held_e = *me;
			}
			if (next >= len) {
				off = len; /* no match there: the held one, if any */
				continue;
			}
			off = next; /* the call's command is judged by its own units */
			continue;
		}
		if (u->kind != POL_UNIT_COMMAND || !u->word_is_data || u->argc == 0)
			return 1;
		size_t w = word_at(u, *ms);
		if (!u->word_is_data[w])
			return 1;
		/* Inside data: look again from the end of that word. */
		size_t next = w + 1 < u->argc ? u->word_off[w + 1] : len;
		if (next <= off || next >= len)
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

/* Words whose value the analyser could not know: a variable other than $HOME, a
 * command substitution. */
static int unit_has_unknown(const struct pol_unit *u)
{
	if (!u->argv)
		return 0;
	for (size_t i = 1; i < u->argc; i++) {
		const char *w = u->argv[i];

		if (u->word_is_data && u->word_is_data[i])
			continue;
		if (strchr(w, '`') || strstr(w, "<(") || strstr(w, ">("))
			return 1;
		for (const char *d = strchr(w, '$'); d; d = strchr(d + 1, '$'))
			if (strncmp(d, "$HOME", 5) && strncmp(d, "${HOME}", 7))
				return 1;
	}
	return 0;
}

/* Options that make a command work in another folder than it was started in. */
static int unit_changes_dir(const struct pol_unit *u)
{
	for (size_t i = 0; u->argv && i < u->argc; i++) {
		const char *w = u->argv[i];

		if (!strcmp(w, "-C") || !strncmp(w, "--git-dir", 9) ||
		    !strncmp(w, "--work-tree", 11) || !strncmp(w, "--directory", 11) ||
		    !strncmp(w, "--chdir", 7))
			return 1;
	}
	return 0;
}

static int allow_with_paths_names(const struct pol_policy *p, const struct pol_ctx *ctx,
				  const char *rule_id)
{
	time_t now = ctx && ctx->now ? ctx->now : time(NULL);
	const struct pol_rule *rule = NULL;
	int looked = 0;

	for (size_t i = 0; i < p->n_allows; i++)
		if (p->allows[i].n_paths &&
		    allow_names(p, &p->allows[i], rule_id, now, &rule, &looked))
			return 1;
	return 0;
}

/* Decides the waiting matches of the group and empties it. */
static void resolve_group(struct cmd_state *st)
{
	struct pend_group *g = &st->pg;
	time_t now = st->ctx && st->ctx->now ? st->ctx->now : time(NULL);
	char here[PATH_MAX];
	const char *dir_target[1] = {here};
	const char *const *t = g->targets;
	size_t nt = g->n_targets;
	/* Past the first units the analyser drops a unit identical to an earlier one, so a
	 * command may have had a target that did not come again: its targets are not known
	 * (a long command line allows only with entries without paths). */
	int known = !g->unknown && st->n_units <= POL_SHELL_DEDUP_AFTER;

	if (known && nt == 0) { /* no path: the folder it runs in */
		known = !g->no_dir && !st->saw_cd &&
			pol_path_resolve(st->cwd, 0, here, sizeof(here)) == 0;
		t = dir_target;
		nt = 1;
	}
	for (size_t k = 0; k < g->n; k++) {
		struct pol_result *r = &g->r[k];
		const struct pol_rule *rule = NULL;
		int looked = 0;

		for (size_t i = 0; known && i < st->p->n_allows && r->decision != POL_ALLOW; i++) {
			const struct pol_allow *a = &st->p->allows[i];
			size_t j = 0;

			if (!a->n_paths || !allow_names(st->p, a, r->rule_id, now, &rule, &looked))
				continue;
			while (j < nt && allow_covers(a, t[j]))
				j++;
			if (j < nt)
				continue;
			trace(st, "allowlist", r->rule_id, a->reason, strlen(a->reason), 1);
			r->decision = POL_ALLOW;
			r->allowed_by_allowlist = 1;
		}
		apply_observe(st->p, r);
		report(st->ctx, r);
		merge(&st->best, r);
		pol_result_init(r);
	}
	memset(g, 0, sizeof(*g));
}

static void group_add_target(struct cmd_state *st, const char *path)
{
	struct pend_group *g = &st->pg;
	char joined[PATH_MAX * 2], real[PATH_MAX];
	const char *start = path[0] == '/' ? "" : st->cwd;
	const char *rest = path;
	char *copy;
	int n;

	g->saw_path = 1;
	if (path[0] == '~' && (path[1] == '/' || path[1] == '\0')) {
		start = st->p->home;
		rest = path + 1;
	}
	n = snprintf(joined, sizeof(joined), "%s/%s", start, rest);
	if (g->n_targets == TARGETS_MAX || n <= 0 || (size_t)n >= sizeof(joined) ||
	    pol_path_resolve(joined, 0, real, sizeof(real)) < 0 ||
	    !(copy = pol_arena_alloc(st->a, strlen(real) + 1))) {
		g->unknown = 1;
		return;
	}
	memcpy(copy, real, strlen(real) + 1);
	g->targets[g->n_targets++] = copy;
}

static void offer(struct cmd_state *st, const struct pol_unit *u)
{
	pol_apply_allowlist(st->p, st->ctx, NULL, &st->cand);
	if (st->cand.decision != POL_ALLOW && st->pg.n < PEND_MAX && st->cand.rule_id &&
	    allow_with_paths_names(st->p, st->ctx, st->cand.rule_id)) {
		struct pend_group *g = &st->pg;

		if (u->kind == POL_UNIT_SCRIPT || unit_has_unknown(u) || st->prev_unknown)
			g->unknown = 1;
		if (unit_changes_dir(u) || st->prev_no_dir)
			g->no_dir = 1;
		if (!g->r)
			g->r = pol_arena_alloc(st->a, PEND_MAX * sizeof(*g->r));
		if (g->r) { /* else (no memory) it is not held for its paths: it stands */
			g->r[g->n++] = st->cand;
			pol_result_init(&st->cand);
			return;
		}
	}
	report(st->ctx, &st->cand);
	merge(&st->best, &st->cand);
	pol_result_init(&st->cand);
}

/* Is x (absolute, normalized) the root, the home folder or a folder above it? */
static int wide_folder(const char *x, const char *home)
{
	size_t xl = strlen(x), hl = home ? strlen(home) : 0;

	if (!strcmp(x, "/"))
		return 1;
	return hl > 1 && xl <= hl && !strncmp(home, x, xl) && (xl == hl || home[xl] == '/');
}

/* Does word w of a command that deletes files name the root, the home folder or a
 * folder above it, once joined to the command's folder with its `.`, `..`, `//` and
 * links folded (`find .. -delete` from ~/proj, `$HOME/.`, `/tmp/..`, a link to /)? The
 * exact words of the policy's catastrophic list see none of these, and at runtime such
 * a command is otherwise judged file by file: everything no rule protects would go. A
 * relative word after a cd is not known here; the command's own exec is checked again
 * in its folder. */
static int wide_word(const struct cmd_state *st, const char *w)
{
	char norm[PATH_MAX], real[PATH_MAX];
	const char *home = st->p->home;

	/* (a policy without catastrophic targets has none: they are its data) */
	if (!st->p->n_cata_words || !w[0] || w[0] == '-' ||
	    (w[0] != '/' && w[0] != '~' && (st->saw_cd || !st->cwd)))
		return 0;
	if (pol_path_normalize(w, st->cwd ? st->cwd : "/", home, norm, sizeof(norm)) < 0)
		return 0;
	if (wide_folder(norm, home))
		return 1;
	return pol_path_resolve(norm, 0, real, sizeof(real)) == 0 && wide_folder(real, home);
}

/* Is one of a command's words the root, the home folder or a whole disk (the policy's
 * `catastrophic:` section, pol_catastrophic_word), or names
 * the root or the home folder in another spelling (wide_word)? */
static int catastrophic_target(const struct pol_unit *u, const struct cmd_state *st)
{
	for (size_t i = 1; i < u->argc; i++)
		if (!(u->word_is_data && u->word_is_data[i]) &&
		    (pol_catastrophic_word(st->p, u->argv[i]) || wide_word(st, u->argv[i])))
			return 1;
	return 0;
}

/* Might an inline script aim at the root, the home folder or a disk? Its words are not
 * known as a command's are, so the whole command (the script and its arguments, which
 * a shell has already expanded) is searched for what could name one: ~, HOME or home
 * in any spelling (expanduser, homedir, Path.home, /home/...), the home folder's own
 * path, a root literal (a quoted slash, with or without a star; os.sep; .root), a disk
 * (the policy's catastrophic prefixes: /dev/sd ...); not in the first word, the
 * interpreter's path. A false alarm keeps the refusal at exec that every such script had
 * before; what none of these names still meets the runtime checks of each file. */
static int script_aims_wide(const struct cmd_state *st)
{
	static const char marks[] = "~\0expanduser\0USERPROFILE\0os.sep\0path.sep\0.root\0"
				    "'/'\0\"/\"\0`/`\0'/*'\0\"/*\"\0";
	const char *c = st->cmd, *home = st->p->home, *sp;
	size_t n = st->cmd_len, hl = home ? strlen(home) : 0;

	/* not the program's own path (an interpreter under the home folder: pyenv, uv) */
	if ((sp = memchr(c, ' ', n)) != NULL) {
		n -= (size_t)(sp - c);
		c = sp;
	}
	for (size_t i = 0; i + 4 <= n; i++)
		if ((c[i] | 0x20) == 'h' && (c[i + 1] | 0x20) == 'o' && (c[i + 2] | 0x20) == 'm' &&
		    (c[i + 3] | 0x20) == 'e')
			return 1;
	for (const char *m = marks; *m; m += strlen(m) + 1)
		if (memmem(c, n, m, strlen(m)))
			return 1;
	for (size_t k = 0; k < st->p->n_cata_prefixes; k++) /* a disk: /dev/sd ... */
		if (memmem(c, n, st->p->cata_prefixes[k], strlen(st->p->cata_prefixes[k])))
			return 1;
	return hl > 1 && memmem(c, n, home, hl) != NULL;
}

static int on_unit_kind(const struct pol_unit *u, struct cmd_state *st);

/* ls .env, ls -la key.pem: listing a file shows its name and its metadata, which no path
 * rule keeps (the runtime layers let stat through); only a folder's listing shows what
 * it holds. 1 when path (relative to the command's folder: not after a cd, where that is
 * not known) is there and not a folder. */
static int lists_a_file(const struct cmd_state *st, const char *path)
{
	char abs[PATH_MAX];
	struct stat sb;
	int n = path[0] == '/' ? snprintf(abs, sizeof(abs), "%s", path)
			       : snprintf(abs, sizeof(abs), "%s/%s", st->cwd ? st->cwd : "/", path);

	return n > 0 && (size_t)n < sizeof(abs) && lstat(abs, &sb) == 0 && !S_ISDIR(sb.st_mode);
}

/* The rules that guard against deleting or overwriting files: a command whose every
 * such target lies in a temporary folder passes them. */
static int temp_exempt(const struct pol_rule *r)
{
	return r->runtime_paths || !strncmp(r->id, "core.filesystem.", 16);
}

static int on_unit(const struct pol_unit *u, void *arg)
{
	struct cmd_state *st = arg;
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
			size_t n = u->text[i] ? pol_utf8_char(u->text + i, u->len - i) : 0;

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
	if (u->kind != POL_UNIT_PATH && st->pg.n && st->pg.saw_path) {
		resolve_group(st);
		if (st->stop_on_deny && st->best.decision == POL_DENY)
			return 1;
	}
	if (u->kind == POL_UNIT_COMMAND && st->pg.n) { /* a second view of the command */
		st->pg.unknown |= unit_has_unknown(u);
		st->pg.no_dir |= unit_changes_dir(u);
	}
	int rc;

	st->n_units++;
	rc = on_unit_kind(u, st);

	/* read only by offer() for a match an allow entry with paths names */
	if (st->path_allows) {
		st->prev_unknown = u->kind == POL_UNIT_COMMAND && unit_has_unknown(u);
		st->prev_no_dir = u->kind == POL_UNIT_COMMAND && unit_changes_dir(u);
	}
	return rc;
}

/* Whether a refusal r of op on a command's path unit is one of a write that would
 * create a file that does not exist (nothing at the path the rule matched, not even a
 * link): a runtime layer then makes that creation exclusive (POL_PATH_CREATE_EXCL). */
static int runtime_new_file(enum pol_op op, const struct pol_result *r)
{
	struct stat st;
	int saved = errno, missing;

	if ((op != POL_OP_CREATE && op != POL_OP_TRUNCATE && op != POL_OP_WRITE) ||
	    r->detection != POL_DET_PATH || r->path_kind != POL_PATH_ZERO_ACCESS ||
	    r->path[0] != '/')
		return 0;
	missing = lstat(r->path, &st) < 0 && errno == ENOENT;
	errno = saved;
	return missing;
}

/* Keeps st->cand as the held candidate (the first one only), leaving cand empty. */
static void hold(struct cmd_state *st)
{
	if (!st->held && (st->held = pol_arena_alloc(st->a, sizeof(*st->held))) != NULL) {
		*st->held = st->cand;
		pol_result_init(&st->cand);
		return;
	}
	pol_result_release(&st->cand);
	pol_result_init(&st->cand);
}

/* At the end of the analysis: the held candidate refuses unless something else did. */
static void offer_held(struct cmd_state *st)
{
	static const struct pol_unit script = {.kind = POL_UNIT_SCRIPT};

	if (!st->held)
		return;
	if (st->best.decision < POL_DENY) {
		pol_result_release(&st->cand);
		st->cand = *st->held;
		offer(st, &script);
	} else {
		pol_result_release(st->held);
	}
	st->held = NULL;
}

static int on_unit_kind(const struct pol_unit *u, struct cmd_state *st)
{
	const struct pol_policy *p = st->p;

	switch (u->kind) {
	case POL_UNIT_COMMAND:
	case POL_UNIT_SCRIPT: {
		struct prefilter pf;
		int is_script = u->kind == POL_UNIT_SCRIPT;

		if (!is_script && u->argc &&
		    (!strcmp(u->argv[0], "cd") || !strcmp(u->argv[0], "pushd") ||
		     !strcmp(u->argv[0], "popd")))
			st->saw_cd = 1;

		trace(st, "unit", NULL, u->text, u->len, 0);
		if (prefilter_init(&pf, st->a, u->text, u->len) < 0)
			return -ENOMEM;
		/* only the rules that could match (the command rule index) */
		struct rule_iter it;
		struct pol_rule *rule;

		rule_iter_init(&it, p, u, st->ctx && st->ctx->trace);
		while ((rule = rule_iter_next(&it))) {
			size_t ms, me;
			int m;

			if (p->img_pend && (size_t)(rule - p->rule_tab) >= p->img_pend->first) {
				if (image_skips(p, st->ctx, &pf, u, (size_t)(rule - p->rule_tab)))
					continue;
				/* this one is tried: its record alone, in place */
				pol_rule_materialise((struct pol_policy *)p,
						     (size_t)(rule - p->rule_tab));
			}

			if (is_script
				? (rule->kind != POL_RULE_SCRIPT || !u->language ||
				   !rule->language || strcmp(rule->language, u->language) != 0)
				: rule->kind != POL_RULE_COMMAND)
				continue;
			if (!rule->active)
				continue;
			/* At runtime a rule whose harm is deleting or overwriting files (or an
			 * inline script's running of a command, whose own exec is checked in
			 * turn) leaves the decision to the checks of each file the command
			 * touches, unless it aims at the root, the home folder or a disk. */
			if (rule->runtime_paths && st->ctx &&
			    (st->ctx->flags & (POL_CTX_RUNTIME | POL_CTX_SCAN)) &&
			    !(is_script ? script_aims_wide(st) : catastrophic_target(u, st)))
				continue;
			/* At runtime an owner of the rule may run the command as part of its
			 * own work: the system's git runs `git reset --hard` for `git stash`
			 * and `git worktree add`, `git reflog expire` for `git gc`. The
			 * command a shell, an interpreter or the agent runs is still checked:
			 * ctx's exe is the program making the call. */
			if (!is_script && rule->n_owners && st->ctx &&
			    (st->ctx->flags & POL_CTX_RUNTIME) &&
			    pol_rule_owned_by(p, rule, st->ctx))
				continue;
			/* A dry run changes nothing; deleting in a temporary folder is what
			 * it is for (the analyser says which command units are either). */
			if (!is_script && (u->dry_run || (u->temp_only && temp_exempt(rule))))
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
				/* a script unit's line is its body's first (a heredoc's, the
				 * line after its command's) */
				st->cand.cmd_line = u->line + st->cand.line - 1;
				if (m == 3) {
					hold(st);
					continue;
				}
			} else {
				st->cand.cmd_line = u->line;
				st->cand.detection = POL_DET_COMMAND;
				st->cand.language = "bash";
				st->cand.line = u->line > 1 ? u->line : 0;
				pol_copy_matched(&st->cand, u->text, u->len);
				/* A medium rule warns, unless it aims at something that cannot
				 * be rebuilt: the root, the home folder, a disk. */
				if (rule->severity == POL_SEV_MEDIUM &&
				    st->cand.decision == POL_WARN && catastrophic_target(u, st))
					st->cand.decision = POL_DENY;
			}
			offer(st, u);
			if (st->stop_on_deny && st->best.decision == POL_DENY)
				return 1;
		}
		return 0;
	}
	case POL_UNIT_PATH: {
		unsigned pflags = u->is_dir_op ? POL_PATH_IS_DIR : 0;

		if (u->op == POL_OP_LIST && !st->saw_cd && lists_a_file(st, u->path))
			return 0;

		/* At runtime each real deletion and rename is checked when it happens, when
		 * it is known whether the file is the session's own (an atomic save's): the
		 * exec check leaves no-delete to that check. */
		if (st->ctx && (st->ctx->flags & POL_CTX_RUNTIME))
			pflags |= POL_PATH_CANONICAL | PATH_NO_WALK | POL_PATH_SESSION_NEW;
		if (st->pg.n)
			group_add_target(st, u->path);
		/* The root, the home folder and the folders above it are never deleted, in
		 * any spelling, whether or not they hold a protected path (or exist). */
		if ((u->op == POL_OP_DELETE || u->op == POL_OP_RENAME_FROM) &&
		    wide_word(st, u->path)) {
			ssize_t w = pol_rule_find(p, "core.filesystem.delete_wide");
			if (w >= 0 && pol_rules(p)[w].active) {
				fill_from_rule(&st->cand, &pol_rules(p)[w]);
				st->cand.detection = POL_DET_COMMAND;
				st->cand.language = "bash";
				st->cand.line = u->line > 1 ? u->line : 0;
				st->cand.cmd_line = u->line;
				pol_copy_matched(&st->cand, u->path, strlen(u->path));
				offer(st, u);
				if (st->stop_on_deny && st->best.decision == POL_DENY)
					return 1;
			}
		}
		enum pol_decision d = pol_check_path(p, u->path, u->op, pflags, st->ctx, &st->cand);
		/* At runtime a write to a file that does not exist yet is the creation the
		 * runtime layers make exclusive when it happens (where the open is checked
		 * again, knowing whether the file exists then): a name pattern naming the
		 * new file alone (*.pem) does not refuse the command that writes it. */
		if (d >= POL_ASK && st->ctx && (st->ctx->flags & POL_CTX_RUNTIME) &&
		    !u->is_dir_op && runtime_new_file(u->op, &st->cand)) {
			pol_result_release(&st->cand);
			pol_result_init(&st->cand);
			d = pol_check_path(p, u->path, POL_OP_CREATE,
					   pflags | POL_PATH_CREATE_EXCL | POL_PATH_NOFOLLOW,
					   st->ctx, &st->cand);
		}
		if (d != POL_ALLOW) {
			st->cand.line = u->line > 1 ? u->line : 0;
			st->cand.cmd_line = u->line;
			report(st->ctx, &st->cand);
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
		if (i < 0 || !pol_rules(p)[i].active)
			return 0;
		fill_from_rule(&st->cand, &pol_rules(p)[i]);
		st->cand.detection = POL_DET_COMMAND;
		st->cand.language = "bash";
		st->cand.line = u->line > 1 ? u->line : 0;
		st->cand.cmd_line = u->line;
		pol_copy_matched(&st->cand, u->text ? u->text : "", u->text ? u->len : 0);
		offer(st, u);
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
		fill_from_rule(r, &pol_rules(p)[i]);
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
	char *cwd; /* in the arena: a PATH_MAX buffer on the stack was a page deeper */
	int rc;

	pol_result_init(r);
	if (!cmd || len == 0)
		return POL_ALLOW;
	if (len > POL_COMMAND_MAX)
		return builtin_deny(p, "input.too_long", cmd, 60, r);
	if (memchr(cmd, '\0', len) || !pol_utf8_valid(cmd, len))
		return builtin_deny(p, "input.invalid", cmd, len < 60 ? len : 60, r);

	/* everything but the results, which are initialised below or written before they
	 * are read: clearing them was a quarter of a decision's instructions */
	memset(&st, 0, offsetof(struct cmd_state, best));
	memset(&st.pg, 0, sizeof(st.pg));
	st.p = p;
	st.ctx = ctx;
	st.a = &a;
	st.cmd = cmd;
	st.cmd_len = len;
	st.stop_on_deny = !(ctx && (ctx->trace || ctx->finding));
	for (size_t i = 0; i < p->n_allows && !st.path_allows; i++)
		st.path_allows = p->allows[i].n_paths > 0;
	pol_result_init(&st.best);
	pol_result_init(&st.cand);
	pol_arena_init(&a, 0);
	cwd = current_cwd_in(p, ctx, &a);
	if (!cwd) {
		pol_arena_release(&a);
		return builtin_deny(p, "shell.analysis_failed", cmd, len < 60 ? len : 60, r);
	}
	st.cwd = cwd;
	if (ctx && (ctx->flags & POL_CTX_NO_ANALYSIS)) {
		struct pol_unit u = {.kind = POL_UNIT_COMMAND, .text = cmd, .len = len, .line = 1};
		rc = on_unit(&u, &st);
	} else {
		struct pol_shell_opts opts = {cwd, p->home, ctx && (ctx->flags & POL_CTX_RUNTIME)};
		rc = pol_shell_analyze(cmd, len, &opts, &a, on_unit, &st);
	}
	if (rc >= 0 && st.pg.n)
		resolve_group(&st);
	if (rc >= 0)
		offer_held(&st);
	else if (st.held)
		pol_result_release(st.held);
	if (rc >= 0 && st.pg.n)
		resolve_group(&st);
	for (size_t k = 0; k < st.pg.n; k++) /* the analysis failed: refused below */
		pol_result_release(&st.pg.r[k]);
	pcre2_match_data_free(st.md);
	pol_arena_release(&a);
	if (rc >= 0 && st.md_failed)
		rc = -ENOMEM;
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

int pol_observe_mode(const struct pol_policy *p)
{
	if (!p)
		return 0;
	if (p->observe_all || p->observe_all_sys)
		return 2;
	return p->n_observe || p->n_observe_sys;
}
