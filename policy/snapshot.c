/* snapshot.c - the compiled form of a loaded policy, for processes that must start
 * fast (every child of a guarded shell). It is the rules after layering, expansion of
 * ~ and the project root, and the allowlist; loading it needs no libyaml and no file
 * access. Regexes are compiled again lazily, at first use.
 *
 * Format: a first line "DCGSNAP 3", then one record per line, fields separated by
 * tabs. Inside a field, tab, newline and the escape byte 0x01 are written as 0x01
 * followed by 't', 'n' or '1'. Regexes are full of backslashes and never hold 0x01: a
 * record without the escape byte is split where it lies, which is most of the work of
 * every start of the hook.
 *   H home | R root | F file | E enable | D disable
 *   P id kind pattern reason language severity decision path_kind origin line enabled
 *     flags(caseless 1, runtime paths 2, plants 4) glob basename negate canon_glob keyword nsugg
 *     sugg...
 *   A rule reason expires origin line npaths paths...
 *   O owners... | K guarded untrusted      (after the P record they belong to)
 *   T fact value                           (facts.c: enum pol_fact, one per value)
 *   W path_kind reason sugg sugg           (facts.c: a path kind's text; "" none)
 * The keyword is the literal the prefilter looks for (computed when the rule was
 * loaded from YAML), so that loading a snapshot analyses no pattern.
 */
#include "dcg_policy.h"

#include <errno.h>
#include <limits.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SNAP_MAGIC	POL_SNAP_MAGIC
#define SNAP_MAX_FIELDS 64
#define SNAP_ESC	'\001'
#define P_KEYWORD	17 /* the P record's keyword field, then nsugg, then suggestions */

struct sbuf {
	char *b;
	size_t n, cap;
	int oom;
};

static void put(struct sbuf *s, const char *t, size_t len)
{
	if (s->oom)
		return;
	if (s->n + len + 1 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		while (cap < s->n + len + 1)
			cap *= 2;
		char *nb = realloc(s->b, cap);
		if (!nb) {
			s->oom = 1;
			return;
		}
		s->b = nb;
		s->cap = cap;
	}
	memcpy(s->b + s->n, t, len);
	s->n += len;
	s->b[s->n] = '\0';
}

static void field(struct sbuf *s, const char *t)
{
	put(s, "\t", 1);
	for (t = t ? t : ""; *t;) {
		size_t k = strcspn(t, "\t\n\001");

		put(s, t, k);
		t += k;
		if (!*t)
			break;
		put(s, *t == '\t' ? "\001t" : *t == '\n' ? "\001n" : "\0011", 2);
		t++;
	}
}

static void fieldn(struct sbuf *s, long long v)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", v);
	field(s, num);
}

static void record(struct sbuf *s, char tag)
{
	if (s->n)
		put(s, "\n", 1);
	put(s, &tag, 1);
}

/* The facts (facts.c): before the rules, whose loading from YAML reads them. */
static void save_facts(struct sbuf *s, const struct pol_policy *p)
{
	const struct {
		enum pol_fact kind;
		const char *const *v;
		size_t n;
	} lists[] = {{POL_FACT_CATA_WORD, p->cata_words, p->n_cata_words},
		     {POL_FACT_CATA_PREFIX, p->cata_prefixes, p->n_cata_prefixes},
		     {POL_FACT_OWNER_FOLDER, p->owner_folders, p->n_owner_folders}};

	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
		for (size_t i = 0; i < lists[l].n; i++) {
			record(s, 'T');
			fieldn(s, lists[l].kind);
			field(s, lists[l].v[i]);
		}
	for (int k = 0; k < 3; k++)
		if (p->path_reason[k]) {
			record(s, 'W');
			fieldn(s, k);
			field(s, p->path_reason[k]);
			field(s, p->path_sugg[k][0]);
			field(s, p->path_sugg[k][1]);
		}
}

char *pol_snapshot_save(const struct pol_policy *p, size_t *len)
{
	return pol_snapshot_save_opts(p, len, 0);
}

char *pol_snapshot_save_opts(const struct pol_policy *p, size_t *len, int portable)
{
	struct sbuf s = {0};

	pol_paths_ready(p);
	put(&s, SNAP_MAGIC, strlen(SNAP_MAGIC) - 1);
	if (p->embedded_version) { /* first: pol_embedded_codes_get() reads it there */
		record(&s, 'V');
		field(&s, p->embedded_version);
	}
	if (!portable) {
		record(&s, 'H');
		field(&s, p->home);
		record(&s, 'R');
		field(&s, p->root);
	}
	for (size_t i = 1; i < p->n_files; i++) {
		record(&s, 'F');
		field(&s, p->files[i]);
	}
	save_facts(&s, p);
	for (size_t i = 0; i < p->n_enable; i++) {
		record(&s, 'E');
		field(&s, p->enable[i]);
	}
	for (size_t i = 0; i < p->n_disable; i++) {
		record(&s, 'D');
		field(&s, p->disable[i]);
	}
	/* observe mode: M ALL ALL_SYS FORBIDDEN, then Q SYS ENTRY for each entry */
	if (p->observe_all || p->observe_all_sys || p->observe_forbidden) {
		record(&s, 'M');
		fieldn(&s, p->observe_all);
		fieldn(&s, p->observe_all_sys);
		fieldn(&s, p->observe_forbidden);
	}
	for (size_t i = 0; i < p->n_observe + p->n_observe_sys; i++) {
		int sys = i >= p->n_observe;

		record(&s, 'Q');
		fieldn(&s, sys);
		field(&s, sys ? p->observe_sys[i - p->n_observe] : p->observe[i]);
	}
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct pol_rule *r = &pol_rules(p)[i];

		if (r->kind == POL_RULE_BUILTIN)
			continue; /* registered again by pol_new() */
		record(&s, 'P');
		field(&s, r->id);
		fieldn(&s, r->kind);
		field(&s, r->pattern);
		field(&s, r->reason);
		field(&s, r->language);
		fieldn(&s, r->severity);
		fieldn(&s, r->decision);
		fieldn(&s, r->path_kind);
		field(&s, r->origin);
		fieldn(&s, r->line);
		fieldn(&s, r->compile_state < 0 ? 0 : r->enabled);
		/* bit 1: runtime: paths; bit 2: a path rule that guards against planting */
		fieldn(&s, r->caseless | (r->runtime_paths << 1) | (r->plants << 2));
		field(&s, portable ? NULL : r->path.glob);
		fieldn(&s, r->path.basename_only);
		fieldn(&s, r->path.negate);
		field(&s, !portable && r->has_canon ? r->path_canon.glob : NULL);
		field(&s, r->keyword);
		fieldn(&s, (long long)r->n_suggestions);
		for (size_t k = 0; k < r->n_suggestions; k++)
			field(&s, r->suggestions[k]);
		if (r->alias) { /* its old positional ID, still accepted (pol_rule_find_alias) */
			record(&s, 'L');
			field(&s, r->alias);
		}
		if (r->n_owners) { /* the owners of the rule just written */
			record(&s, 'O');
			for (size_t k = 0; k < r->n_owners; k++)
				field(&s, r->owners[k]);
		}
		if (r->guarded || r->untrusted) { /* layering: see pol_load_layers() */
			record(&s, 'K');
			fieldn(&s, r->guarded);
			fieldn(&s, r->untrusted);
		}
	}
	for (size_t i = 0; i < p->n_allows; i++) {
		const struct pol_allow *a = &p->allows[i];

		record(&s, 'A');
		field(&s, a->rule);
		field(&s, a->reason);
		fieldn(&s, (long long)a->expires);
		field(&s, a->origin);
		fieldn(&s, a->line);
		fieldn(&s, (long long)a->n_paths);
		for (size_t k = 0; k < a->n_paths; k++)
			field(&s, a->paths[k]);
	}
	put(&s, "\n", 1);
	if (s.oom) {
		free(s.b);
		return NULL;
	}
	*len = s.n;
	return s.b;
}

/* The first tab, newline or escape byte in [s, end), or end: 16 bytes a step where
 * SSE2 is there (every x86-64), since this scan is most of a snapshot load. */
static char *next_special(char *s, char *end)
{
#ifdef __SSE2__
	const __m128i tab = _mm_set1_epi8('\t'), nl = _mm_set1_epi8('\n');
	const __m128i esc = _mm_set1_epi8(SNAP_ESC);

	for (; end - s >= 16; s += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
		unsigned m = (unsigned)_mm_movemask_epi8(
		    _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, nl)),
				 _mm_cmpeq_epi8(v, esc)));

		if (m)
			return s + __builtin_ctz(m);
	}
#endif
	while (s < end && *s != '\t' && *s != '\n' && *s != SNAP_ESC)
		s++;
	return s;
}

/* Splits the record at line into unescaped fields, in place, up to its newline (or
 * end); returns the field count and sets *next past the record. */
static size_t split(char *line, char *end, char **f, size_t max, char **next)
{
	char *o, *s = line;
	size_t n = 0;

	/* The common case: no escape byte, fields cut where they lie. */
	f[n++] = s;
	for (;;) {
		s = next_special(s, end);
		if (s == end || *s == '\n') {
			*next = s == end ? end : s + 1;
			*s = '\0';
			return n;
		}
		if (*s == SNAP_ESC)
			break;
		*s++ = '\0';
		if (n == max) { /* the rest of the record stays in the last field */
			char *nl = memchr(s, '\n', (size_t)(end - s));

			*next = nl ? nl + 1 : end;
			if (nl)
				*nl = '\0';
			return n;
		}
		f[n++] = s;
	}
	/* An escape byte: copy the rest of the record down, unescaping. */
	for (o = s; s < end && *s != '\n'; s++) {
		if (*s == '\t' && n < max) {
			*o++ = '\0';
			f[n++] = o;
		} else if (*s == SNAP_ESC && s + 1 < end && s[1] != '\n') {
			s++;
			*o++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == '1' ? SNAP_ESC : *s;
		} else {
			*o++ = *s;
		}
	}
	*next = s < end ? s + 1 : end;
	*o = '\0';
	return n;
}

static long long num(const char *s)
{
	long long v = 0;
	int neg = *s == '-';

	if (s[0] >= '0' && s[0] <= '9' && !s[1]) /* most fields: one digit */
		return s[0] - '0';

	for (s += neg; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	return neg ? -v : v;
}

/* n pointers from the snapshot's pool, for a borrowed rule's suggestions or owners:
 * one allocation for many rules, freed with the snapshot texts. */
static char **pool_take(struct pol_policy *p, size_t n, int exact)
{
	char **v;

	if (n > p->snap_pool_left) {
		/* a sealed image's one pool (n_ptrs) is taken whole: no room beyond it */
		size_t cap = n > 1024 || exact ? n : 1024;
		char **nb = realloc(p->snap_bufs, (p->n_snap_bufs + 1) * sizeof(*nb));

		if (!nb)
			return NULL;
		p->snap_bufs = nb;
		v = malloc(cap * sizeof(*v));
		if (!v)
			return NULL;
		nb[p->n_snap_bufs++] = (char *)v;
		p->snap_pool = v;
		p->snap_pool_left = cap;
	}
	v = p->snap_pool;
	p->snap_pool += n;
	p->snap_pool_left -= n;
	return v;
}

/* A portable path pattern is expanded at load unless the policy was loaded with
 * POL_LOAD_LAZY and the expansion cannot fail (then pol_paths_ready() does it at the
 * first path decision, with the home and root of this load). */
/* What one load of a pre-split snapshot works out once instead of per rule: where the
 * last rule's origin and language were interned (most rules share them), and for the
 * lazy path rules the length of the home and root (SIZE_MAX: not yet) and whether the
 * lazy home and root were kept (neither changes during one load). */
struct intern_cache {
	uint32_t origin_off, lang_off;
	const char *origin, *lang;
	size_t home_root_len;
	int lazy_kept;
};

static int lazy_path_ok(const struct pol_policy *p, const char *pat, struct intern_cache *ic)
{
	const char *s = pat + (*pat == '!');

	if (!(p->flags & POL_LOAD_LAZY))
		return 0;
	while (s[0] == '*' && s[1] == '*' && s[2] == '/')
		s += 3;
	if (!*s)
		return 0;
	if (!ic)
		return strlen(pat) + strlen(p->home) + strlen(p->root) + 8 < PATH_MAX;
	if (ic->home_root_len == SIZE_MAX)
		ic->home_root_len = strlen(p->home) + strlen(p->root);
	return strlen(pat) + ic->home_root_len + 8 < PATH_MAX;
}

static int keep_lazy_root(struct pol_policy *p)
{
	if (p->lazy_home && strcmp(p->lazy_home, p->home) == 0 && p->lazy_root &&
	    strcmp(p->lazy_root, p->root) == 0)
		return 0;
	if (p->paths_pending)
		pol_paths_ready(p); /* expanded with the home and root they were loaded under */
	free(p->lazy_home);
	free(p->lazy_root);
	p->lazy_home = strdup(p->home);
	p->lazy_root = strdup(p->root);
	return p->lazy_home && p->lazy_root ? 0 : -ENOMEM;
}

/* A P record's fields, read from the text (load_rule) or from a rule record of the
 * pre-split form (split_rule): the numbers as numbers, an empty optional field NULL. */
struct snap_rule {
	const char *id, *pattern, *reason, *language, *origin, *keyword, *glob, *canon;
	long long kind, sev, dec, pk, flags;
	unsigned line;
	int enabled, basename, negate;
	size_t keyword_len, nsugg;
	char *const *sugg;
};

static int load_path(struct pol_policy *p, struct pol_rule *r, const char *glob, int basename,
		     int negate, const char *canon, struct intern_cache *ic)
{
	if (!glob) {
		/* Portable: expand the pattern as written for this home and root. */
		struct pol_pathpat pp;

		if (!r->pattern)
			return -EINVAL;
		if (lazy_path_ok(p, r->pattern, ic) &&
		    ((ic && ic->lazy_kept) || keep_lazy_root(p) == 0)) {
			if (ic)
				ic->lazy_kept = 1;
			r->path.negate = r->pattern[0] == '!';
			r->path_pending = 1;
			p->paths_pending = 1;
			p->path_groups_ready = 0;
		} else {
			if (pol_pathpat_expand(p, r->pattern, &pp) < 0)
				return -EINVAL;
			r->path = pp;
			r->path_owned = 1;
			pol_rule_canon_path(r, NULL);
		}
	} else {
		r->path.glob = (char *)glob;
		r->path.basename_only = basename;
		r->path.negate = negate;
		pol_pathpat_classify(&r->path);
		if (canon) {
			r->path_canon.glob = (char *)canon;
			r->path_canon.negate = r->path.negate;
			pol_pathpat_classify(&r->path_canon);
			r->has_canon = 1;
		}
	}
	if (r->path_kind == POL_PATH_ZERO_ACCESS && !r->path.negate)
		p->have_zero_access = 1;
	return 0;
}

static inline __attribute__((always_inline)) int add_rule(struct pol_policy *p,
							  const struct snap_rule *sr)
{
	struct pol_rule *r;

	/* The numbers index arrays and shift bits in the decision code: a record with one
	 * out of range is refused, not trusted. */
	if (sr->kind < 0 || sr->kind > POL_RULE_BUILTIN || sr->sev < 0 ||
	    sr->sev > POL_SEV_CRITICAL || sr->dec < 0 || sr->dec > POL_DENY || sr->pk < 0 ||
	    sr->pk > POL_PATH_NO_DELETE || sr->nsugg > SNAP_MAX_FIELDS)
		return -EINVAL;
	r = pol_rule_new(p);
	if (!r)
		return -ENOMEM;
	/* Strings stay in the snapshot text, which the policy keeps: no copy per field
	 * (this runs at the start of every guarded process). */
	r->borrowed = 1;
	r->id = (char *)sr->id;
	r->kind = (enum pol_rule_kind)sr->kind;
	r->pattern = (char *)sr->pattern;
	r->reason = (char *)sr->reason;
	r->language = sr->language ? pol_language_intern(sr->language) : NULL;
	r->severity = (enum pol_severity)sr->sev;
	r->decision = (enum pol_decision)sr->dec;
	r->path_kind = (enum pol_path_kind)sr->pk;
	r->origin = pol_origin_intern(p, sr->origin);
	r->line = sr->line;
	r->enabled = sr->enabled;
	r->caseless = (int)(sr->flags & 1);
	r->runtime_paths = (int)((sr->flags >> 1) & 1);
	r->words_only = (unsigned char)pol_pattern_words_only(r->pattern);
	r->plants = (unsigned char)((sr->flags >> 2) & 1);
	/* not indexed by its ID here: pol_rule_find() looks through the rules loaded since
	 * the index was last brought up to date (pol_rule_index_add, pol_prepare) */
	if (r->kind == POL_RULE_PATH) {
		int rc = load_path(p, r, sr->glob, sr->basename, sr->negate, sr->canon, NULL);

		if (rc < 0)
			return rc;
	} else if (r->pattern && sr->keyword && sr->keyword_len >= 2) {
		/* Compiled lazily, like the embedded rules: it compiled once at load. */
		r->keyword = (char *)sr->keyword;
		r->keyword_len = sr->keyword_len;
		r->keyword_bigram = pol_keyword_bigram(r->keyword);
	}
	if (sr->nsugg) {
		r->suggestions = pool_take(p, sr->nsugg, 0);
		if (!r->suggestions)
			return -ENOMEM;
		memcpy(r->suggestions, sr->sugg, sr->nsugg * sizeof(*r->suggestions));
		r->n_suggestions = sr->nsugg;
	}
	return 0;
}

/* Reads a P record's fields (text form) into sr; 0 or -EINVAL. Inlined in load_rule,
 * which runs for every rule of every process dcg run starts. */
static inline __attribute__((always_inline)) int read_rule(char **f, size_t n, struct snap_rule *sr)
{
	size_t nsugg;

	if (n < P_KEYWORD + 2)
		return -EINVAL;
	nsugg = (size_t)num(f[P_KEYWORD + 1]);
	if (nsugg > SNAP_MAX_FIELDS || n < P_KEYWORD + 2 + nsugg)
		return -EINVAL;
	sr->id = f[1]; /* every member set below */
	sr->kind = num(f[2]);
	sr->pattern = f[3][0] ? f[3] : NULL;
	sr->reason = f[4];
	sr->language = f[5][0] ? f[5] : NULL;
	sr->sev = num(f[6]);
	sr->dec = num(f[7]);
	sr->pk = num(f[8]);
	sr->origin = f[9];
	sr->line = (unsigned)num(f[10]);
	sr->enabled = (int)num(f[11]);
	sr->flags = num(f[12]);
	sr->glob = f[13][0] ? f[13] : NULL;
	/* read only with an expanded glob (the portable form derives them) */
	sr->basename = sr->glob ? (int)num(f[14]) : 0;
	sr->negate = sr->glob ? (int)num(f[15]) : 0;
	sr->canon = f[16][0] ? f[16] : NULL;
	sr->keyword = f[P_KEYWORD][0] ? f[P_KEYWORD] : NULL;
	sr->keyword_len = sr->keyword ? strlen(sr->keyword) : 0;
	sr->nsugg = nsugg;
	sr->sugg = f + P_KEYWORD + 2;
	return 0;
}

static int load_rule(struct pol_policy *p, char **f, size_t n)
{
	struct snap_rule sr;
	int rc = read_rule(f, n, &sr);

	return rc < 0 ? rc : add_rule(p, &sr);
}

/* A block of a lazy load's expanded path globs (the defaults' take some 3.5 KiB): small
 * enough to fit the holes earlier frees left in the heap, on pages already written, as
 * the globs' own mallocs did. snap_buf_new() takes a buffer freed with the policy. */
#define PATHS_BLOCK 1024
static char *snap_buf_new(struct pol_policy *p, size_t size)
{
	char **nb = realloc(p->snap_bufs, (p->n_snap_bufs + 1) * sizeof(*nb)), *b;

	if (!nb)
		return NULL;
	p->snap_bufs = nb;
	b = malloc(size);
	if (b)
		nb[p->n_snap_bufs++] = b;
	return b;
}

static void make_record(struct pol_policy *p, struct pol_img_pend *q, size_t i);

/* The records of the path rules in these groups (pol_paths_ready_for). */
static void path_rules_make_groups(struct pol_policy *p, unsigned groups)
{
	struct pol_img_pend *q = p->img_pend;

	pol_head_make(p); /* dcg's own path rules are there */
	for (size_t j = 0; q && j < p->n_path_rules; j++) {
		size_t i = p->path_rules[j];

		if (i >= q->first && !q->made[i - q->first] &&
		    (groups & pol_rule_group(&q->recs[i - q->first])))
			make_record(p, q, i - q->first);
	}
}

void pol_paths_ready(const struct pol_policy *p)
{
	pol_paths_ready_for(p, POL_PG_ALL);
}

void pol_paths_ready_for(const struct pol_policy *cp, unsigned want)
{
	struct pol_policy *p = (struct pol_policy *)cp;
	char *home = p->home, *root = p->root;
	const struct pol_img_pend *q = p->img_pend;

	want &= POL_PG_ALL;
	if (!p->paths_pending && !p->canon_pending) {
		pol_path_rules_make(p); /* the path decisions read p->rule_tab */
		return;
	}
	if ((p->path_groups_ready & want) == want)
		return;
	/* The pass that readies the last groups readies every rule pending (a rule not
	 * in the path lists too), so that nothing stays pending once the flags are off. */
	int full = (p->path_groups_ready | want) == POL_PG_ALL;
	if (full) {
		want = POL_PG_ALL;
		pol_path_rules_make(p);
	} else {
		path_rules_make_groups(p, want);
	}
	if (p->paths_pending) {
		p->home = p->lazy_home;
		p->root = p->lazy_root;
	}
	/* the expanded globs one after the other in blocks kept with the snapshot's
	 * buffers, taken as they fill (out of memory: each glob malloc'ed) */
	size_t blk_room = 0;
	char *blk = NULL;
	/* out of memory: no memo, every folder asked */
	struct pol_resolve_memo *memo = pol_resolve_memo_new();
	/* most path rules name entries of the home (~/.ssh, ~/.bashrc, ...) */
	pol_resolve_memo_list_first(memo, p->home);
	for (size_t i = 0; i < p->n_rules; i++) {
		struct pol_rule *r = &p->rule_tab[i];

		if (q && i >= q->first && !q->made[i - q->first])
			continue; /* a deferred command rule: nothing pending */
		if (!full && (r->kind != POL_RULE_PATH || !(want & pol_rule_group(r))))
			continue; /* not read yet: it waits */

		if (r->canon_pending) { /* expanded at load, not resolved yet */
			r->canon_pending = 0;
			pol_rule_canon_path(r, memo);
		}
		if (!r->path_pending)
			continue;
		r->path_pending = 0;
		/* in a block (not a malloc per rule), else on its own */
		int rc =
		    blk ? pol_pathpat_expand_at(p, r->pattern, &r->path, blk, blk_room) : -ENOSPC;
		if (rc == -ENOSPC) {
			char *nb = snap_buf_new(p, PATHS_BLOCK);
			if (nb) {
				blk = nb;
				blk_room = PATHS_BLOCK;
				rc = pol_pathpat_expand_at(p, r->pattern, &r->path, blk, blk_room);
			}
		}
		if (rc == 0) {
			size_t used = r->path.glob_len + 1;
			blk += used;
			blk_room -= used;
			r->path_owned = 2;
		} else if (pol_pathpat_expand(p, r->pattern, &r->path) == 0) {
			r->path_owned = 1;
		} else {
			/* Out of memory: the glob stays NULL and the rule covers every path. */
			continue;
		}
		pol_rule_canon_path(r, memo);
	}
	pol_resolve_memo_free(memo);
	p->home = home;
	p->root = root;
	p->path_groups_ready |= want;
	if (full) {
		p->paths_pending = 0;
		p->canon_pending = 0;
		pol_path_index_build(p);
	} else {
		pol_path_index_drop(p); /* path_rule_hit() builds it when it pays */
	}
}

void pol_prepare(const struct pol_policy *p)
{
	/* shared with threads from now on: no record left to make while deciding, the
	 * codes attached */
	pol_embedded_attach_pending(p);
	pol_rules_materialise((struct pol_policy *)p);
	pol_paths_ready(p);
	pol_rule_index_complete((struct pol_policy *)p);
}

static int load_owners(struct pol_policy *p, struct pol_rule *r, char **f, size_t n)
{
	if (!r->borrowed || r->owners || n < 2)
		return -EINVAL;
	r->owners = pool_take(p, n - 1, 0);
	if (!r->owners)
		return -ENOMEM;
	memcpy(r->owners, f + 1, (n - 1) * sizeof(*r->owners));
	r->n_owners = n - 1;
	return 0;
}

static int load_allow(struct pol_policy *p, char **f, size_t n)
{
	struct pol_allow a;
	size_t np;

	if (n < 7)
		return -EINVAL;
	np = (size_t)num(f[6]);
	if (np > SNAP_MAX_FIELDS || n < 7 + np)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.rule = strdup(f[1]);
	a.reason = strdup(f[2]);
	a.expires = (time_t)num(f[3]);
	a.origin = pol_origin_intern(p, f[4]);
	a.line = (unsigned)num(f[5]);
	for (size_t k = 0; k < np; k++)
		if (pol_strv_push(&a.paths, &a.n_paths, f[7 + k]) < 0)
			break;
	struct pol_allow *na = realloc(p->allows, (p->n_allows + 1) * sizeof(*na));
	if (!na || !a.rule || !a.reason) {
		free(a.rule);
		free(a.reason);
		for (size_t k = 0; k < a.n_paths; k++)
			free(a.paths[k]);
		free(a.paths);
		if (na)
			p->allows = na;
		return -ENOMEM;
	}
	p->allows = na;
	na[p->n_allows++] = a;
	return 0;
}

/* Loads one record: f[0] holds its tag, f[1..n-1] its fields. 0 or a negative errno. */
static int load_record(struct pol_policy *p, char **f, size_t n, size_t first)
{
	int rc = 0;

	switch (f[0][0]) {
	case 'H':
		rc = n > 1 ? pol_set_home(p, f[1]) : -EINVAL;
		break;
	case 'R':
		if (n > 1) {
			free(p->root);
			p->root = strdup(f[1]);
			rc = p->root ? 0 : -ENOMEM;
		}
		break;
	case 'F':
		if (n > 1)
			pol_origin_intern(p, f[1]);
		break;
	case 'E':
		rc = n > 1 ? pol_strv_push(&p->enable, &p->n_enable, f[1]) : -EINVAL;
		break;
	case 'D':
		rc = n > 1 ? pol_strv_push(&p->disable, &p->n_disable, f[1]) : -EINVAL;
		break;
	case 'P':
		rc = load_rule(p, f, n);
		break;
	case 'M':
		if (n < 4) {
			rc = -EINVAL;
			break;
		}
		p->observe_all = num(f[1]) != 0;
		p->observe_all_sys = num(f[2]) != 0;
		p->observe_forbidden = num(f[3]) != 0;
		break;
	case 'Q':
		rc = n > 2 ? (num(f[1]) ? pol_strv_push(&p->observe_sys, &p->n_observe_sys, f[2])
					: pol_strv_push(&p->observe, &p->n_observe, f[2]))
			   : -EINVAL;
		break;
	case 'A':
		rc = load_allow(p, f, n);
		break;
	case 'V':
		if (n > 1 && !p->embedded_version)
			p->embedded_version = f[1]; /* in the kept text */
		break;
	case 'T':
		rc = n > 2 ? pol_fact_add(p, (enum pol_fact)num(f[1]), f[2], 1) : -EINVAL;
		break;
	case 'W':
		rc = n > 4 ? pol_fact_path_reason(p, (enum pol_path_kind)num(f[1]), f[2],
						  f[3][0] ? f[3] : NULL, f[4][0] ? f[4] : NULL, 1)
			   : -EINVAL;
		break;
	case 'O':
		rc = p->n_rules ? load_owners(p, &pol_rules(p)[p->n_rules - 1], f, n) : -EINVAL;
		break;
	case 'L':
		if (n < 2 || p->n_rules <= first || !pol_rules(p)[p->n_rules - 1].borrowed ||
		    pol_rules(p)[p->n_rules - 1].alias) {
			rc = -EINVAL;
			break;
		}
		pol_rules(p)[p->n_rules - 1].alias = f[1]; /* in the kept text, as the ID */
		break;
	case 'K':
		if (n < 3 || p->n_rules <= first) {
			rc = -EINVAL;
			break;
		}
		pol_rules(p)[p->n_rules - 1].guarded = num(f[1]) != 0;
		pol_rules(p)[p->n_rules - 1].untrusted = num(f[2]) != 0;
		if (num(f[2]) && p->n_rules - 1 < p->untrusted_from)
			p->untrusted_from = p->n_rules - 1;
		break;
	default:
		rc = -EINVAL;
	}
	return rc;
}

int pol_snapshot_load(struct pol_policy *p, const char *buf, size_t len)
{
	size_t first = p->n_rules;
	size_t ml = strlen(SNAP_MAGIC);
	char *copy, *line, *next;
	char *f[P_KEYWORD + 2 + SNAP_MAX_FIELDS];
	int rc = 0;

	if (len < ml || memcmp(buf, SNAP_MAGIC, ml) != 0)
		return -EINVAL;
	char **nb = realloc(p->snap_bufs, (p->n_snap_bufs + 1) * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	p->snap_bufs = nb;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	nb[p->n_snap_bufs++] = copy; /* borrowed rules point into it until pol_free() */
	/* No room is reserved: the rule array starts large enough for the built-ins and
	 * the embedded policy (pol_rule_new), and a larger one grows by doubling. */
	for (line = copy + ml; line < copy + len && *line != '\n' && rc == 0; line = next) {
		/* f[0] is the tag; the fields start after its tab. */
		f[0] = line;
		rc = load_record(p, f,
				 split(line + 1 + (line[1] == '\t'), copy + len, f + 1,
				       sizeof(f) / sizeof(f[0]) - 1, &next) +
				     1,
				 first);
	}
	if (rc == 0)
		pol_embedded_attach(p, first);
	pol_rules_refresh(p);
	return rc;
}

/* The pre-split form (see internal.h): a header of four 32-bit words (magic, records,
 * index words, string bytes), the index, then the fields, each ending with a NUL, each
 * distinct string once. Per record, the index holds its field count, then each field's
 * offset; but a P record is a rule record: SPLIT_RULE | its number of suggestions, then
 * SR_WORDS words (offsets and numbers, below), then the suggestions' offsets, so that a
 * start reads no number as text and touches no string but the ones a decision reads.
 * Built into the binary, so it is borrowed where it lies: no copy, no scan. */
#define SPLIT_RULE 0x80000000u
#define SPLIT_NONE 0xffffffffu /* an empty optional string */
enum {
	SR_ID,
	SR_PATTERN,
	SR_REASON,
	SR_LANGUAGE,
	SR_ORIGIN,
	SR_KEYWORD,
	SR_GLOB,
	SR_CANON,
	SR_LINE,
	SR_KIND, /* kind | severity << 8 | decision << 16 | path kind << 24 */
	SR_BITS, /* enabled | flags << 8 | basename << 16 | negate << 24 */
	SR_KEYLEN,
	SR_WORDS
};

/* A string of a rule record, or NULL for SPLIT_NONE: 0, or -1 out of range. */
static int split_str(const char *str, size_t nb, uint32_t off, const char **out)
{
	*out = off == SPLIT_NONE ? NULL : str + off;
	return off != SPLIT_NONE && off >= nb ? -1 : 0;
}

/* Loads the rule record at ix (the words after its count), the same as load_rule the P
 * record it was made from. 0 or a negative errno. */
static int split_rule(struct pol_policy *p, const uint32_t *ix, size_t nsugg, const char *str,
		      size_t nb, struct intern_cache *ic)
{
	const char *pattern, *lang, *keyword, *glob, *canon;
	uint32_t k = ix[SR_KIND], b = ix[SR_BITS];
	struct pol_rule *r;

	if (ix[SR_ID] >= nb || ix[SR_REASON] >= nb || ix[SR_ORIGIN] >= nb ||
	    split_str(str, nb, ix[SR_PATTERN], &pattern) ||
	    split_str(str, nb, ix[SR_LANGUAGE], &lang) ||
	    split_str(str, nb, ix[SR_KEYWORD], &keyword) ||
	    split_str(str, nb, ix[SR_GLOB], &glob) || split_str(str, nb, ix[SR_CANON], &canon))
		return -EINVAL;
	/* the keyword's length, checked where it ends: never read past the blob */
	if (keyword && (ix[SR_KEYLEN] >= nb - ix[SR_KEYWORD] || keyword[ix[SR_KEYLEN]]))
		return -EINVAL;
	if ((k & 0xff) > POL_RULE_BUILTIN || ((k >> 8) & 0xff) > POL_SEV_CRITICAL ||
	    ((k >> 16) & 0xff) > POL_DENY || (k >> 24) > POL_PATH_NO_DELETE)
		return -EINVAL;
	for (size_t i = 0; i < nsugg; i++)
		if (ix[SR_WORDS + i] >= nb)
			return -EINVAL;
	r = pol_rule_new(p);
	if (!r)
		return -ENOMEM;
	r->borrowed = 1;
	r->id = (char *)(uintptr_t)(str + ix[SR_ID]);
	r->kind = (enum pol_rule_kind)(k & 0xff);
	r->pattern = (char *)(uintptr_t)pattern;
	r->reason = (char *)(uintptr_t)(str + ix[SR_REASON]);
	if (lang && (ix[SR_LANGUAGE] != ic->lang_off || !ic->lang)) {
		ic->lang = pol_language_intern(lang);
		ic->lang_off = ix[SR_LANGUAGE];
	}
	r->language = lang ? ic->lang : NULL;
	r->severity = (enum pol_severity)((k >> 8) & 0xff);
	r->decision = (enum pol_decision)((k >> 16) & 0xff);
	r->path_kind = (enum pol_path_kind)(k >> 24);
	if (ix[SR_ORIGIN] != ic->origin_off || !ic->origin) {
		ic->origin = pol_origin_intern(p, str + ix[SR_ORIGIN]);
		ic->origin_off = ix[SR_ORIGIN];
	}
	r->origin = ic->origin;
	r->line = ix[SR_LINE];
	r->enabled = (int)(b & 0xff);
	r->caseless = (int)((b >> 8) & 1);
	r->runtime_paths = (int)((b >> 9) & 1);
	r->words_only = (unsigned char)pol_pattern_words_only(r->pattern);
	r->plants = (unsigned char)((b >> 10) & 1);
	if (r->kind == POL_RULE_PATH) {
		int rc = load_path(p, r, glob, (int)((b >> 16) & 0xff), (int)(b >> 24), canon, ic);

		if (rc < 0)
			return rc;
	} else if (pattern && keyword && ix[SR_KEYLEN] >= 2) {
		r->keyword = (char *)(uintptr_t)keyword;
		r->keyword_len = ix[SR_KEYLEN];
		r->keyword_bigram = pol_keyword_bigram(keyword);
	}
	if (nsugg) {
		r->suggestions = pool_take(p, nsugg, 0);
		if (!r->suggestions)
			return -ENOMEM;
		for (size_t i = 0; i < nsugg; i++)
			r->suggestions[i] = (char *)(uintptr_t)(str + ix[SR_WORDS + i]);
		r->n_suggestions = nsugg;
	}
	return 0;
}

int pol_snapshot_load_split(struct pol_policy *p, const void *blob, size_t len)
{
	const uint32_t *h = blob, *ix = h + 4;
	size_t first = p->n_rules, nw, nb, w = 0;
	char *str, *f[P_KEYWORD + 2 + SNAP_MAX_FIELDS];
	struct intern_cache ic = {0, 0, NULL, NULL, SIZE_MAX, 0};
	int rc = 0;

	if (len < 16 || h[0] != POL_SPLIT_MAGIC)
		return -EINVAL;
	nw = h[2];
	nb = h[3];
	/* A record has at least a count and a tag: at most nw / 2 records. */
	if (nw > (len - 16) / 4 || nb > len - 16 - nw * 4 || !nb || h[1] > nw / 2)
		return -EINVAL;
	str = (char *)(uintptr_t)(ix + nw); /* read only: borrowed fields are never written */
	if (str[nb - 1] != '\0')
		return -EINVAL;
	for (uint32_t r = 0; r < h[1] && rc == 0; r++) {
		size_t n;

		if (w >= nw)
			return -EINVAL;
		n = ix[w++];
		if (n & SPLIT_RULE) {
			n &= ~SPLIT_RULE;
			if (n > SNAP_MAX_FIELDS || SR_WORDS + n > nw - w)
				return -EINVAL;
			rc = split_rule(p, ix + w, n, str, nb, &ic);
			w += SR_WORDS + n;
			continue;
		}
		if (n < 1 || n > sizeof(f) / sizeof(f[0]) || n > nw - w)
			return -EINVAL;
		for (size_t k = 0; k < n; k++) {
			if (ix[w] >= nb)
				return -EINVAL;
			f[k] = str + ix[w++];
		}
		rc = load_record(p, f, n, first);
	}
	if (rc == 0)
		pol_embedded_attach(p, first);
	pol_rules_refresh(p);
	return rc;
}

/* ---- the rule image (internal.h) ----------------------------------------------------- */

/* Its header; the rule records follow (8-byte aligned), then the table of suggestion
 * and owner strings (32-bit offsets into the split form's strings), then where the
 * split form's other records are (the index word of each one's count): a load reads
 * those, not the whole index. */
struct image_head {
	uint32_t magic;
	uint32_t rule_size; /* sizeof(struct pol_rule) */
	uint32_t layout;    /* a few field offsets, so that another layout is refused */
	uint32_t n_rules;
	uint32_t n_ptrs;
	uint32_t split[3]; /* the split form's records, index words and string bytes */
	uint32_t lazy;	   /* some rule's path is pending: the load keeps home and root */
	uint32_t zero_access;
	uint32_t max_pattern; /* the longest pattern of a pending path rule */
	uint32_t split_len;   /* the split form's length */
	uint32_t n_recs;      /* records other than rules and their O, L, K */
	uint32_t n_codes;     /* the embedded regex rules, numbered in the records */
	uint32_t origin;      /* every rule's origin (offset + 1), or 0: they differ */
	/* POL_IMAGE_SEALED once pol_snapshot_image_seal() checked the whole image (at
	 * build time): only pol_snapshot_load_sealed() reads it */
	uint32_t sealed;
	uint32_t lists; /* the words of its lists (image_lists), after the records; 0: none */
	uint32_t pad;
};

static uint32_t image_layout(void)
{
	return (uint32_t)(offsetof(struct pol_rule, path) ^ offsetof(struct pol_rule, kind) << 8 ^
			  offsetof(struct pol_rule, suggestions) << 16 ^
			  offsetof(struct pol_rule, owners) << 24);
}

/* In an image record a pointer is an offset + 1 (0: NULL). */
static inline uintptr_t image_off(const void *ptr)
{
	return (uintptr_t)ptr;
}

/* The offset + 1 of s among the n bytes of strings at str, or 0 when it is not there:
 * where it points into them, else where a string equal to it lies (a language or an
 * origin, interned elsewhere). */
static uintptr_t image_str(const char *str, size_t nb, const char *s)
{
	if (!s)
		return 0;
	if (s >= str && s < str + nb)
		return (uintptr_t)(s - str) + 1;
	size_t n = strlen(s);
	for (size_t i = 0; i + n < nb; i += strlen(str + i) + 1)
		if (!strcmp(str + i, s))
			return i + 1;
	return 0;
}

/* The index words of the counts of the records a load of the split form at h runs
 * load_record() for (all but rules and their O, L, K) into out (NULL: counted only).
 * Their number, or -1 for a malformed index. */
static long image_records(const uint32_t *h, size_t len, uint32_t *out)
{
	const uint32_t *ix = h + 4;
	const char *str = (const char *)(ix + h[2]);
	size_t w = 0, nw = h[2];
	long n = 0;

	if (nw > (len - 16) / 4)
		return -1;
	for (uint32_t r = 0; r < h[1]; r++) {
		size_t k;

		if (w >= nw)
			return -1;
		k = ix[w];
		if (k & SPLIT_RULE) {
			w += 1 + SR_WORDS + (k & ~SPLIT_RULE);
			continue;
		}
		if (k < 1 || k > nw - w - 1 || ix[w + 1] >= h[3])
			return -1;
		if (!strchr("OLK", str[ix[w + 1]])) {
			if (out)
				out[n] = (uint32_t)w;
			n++;
		}
		w += 1 + k;
	}
	return n;
}

/* The facts a load of the image adds (T records), by kind, as offsets into the
 * split form's strings (nb bytes at str): 1 when they are all there, else 0. */
static int image_facts(const struct pol_policy *p, const char *str, size_t nb, uint32_t *w,
		       size_t *o)
{
	const char *const *v[3] = {p->cata_words, p->cata_prefixes, p->owner_folders};
	const size_t n[3] = {p->n_cata_words, p->n_cata_prefixes, p->n_owner_folders};

	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < n[k]; i++) {
			if (v[k][i] < str || v[k][i] >= str + nb)
				return 0;
			if (w)
				w[(*o)++] = (uint32_t)(v[k][i] - str);
		}
	return 1;
}

/* What a load of the rules since first makes, when nothing loaded before them is a
 * command, path or script rule or a fact and nothing enables or disables (packs:,
 * disable:): IMG_L_HEAD words (the numbers of active command and path rules, 1 when
 * the facts are carried, the number of each kind of fact), the places of those rules
 * among the rules since first, the facts as offsets into the split form's strings
 * (str, nb bytes), then the command index (pol_cmd_index_export). pol_rules_refresh()
 * and image_load() take them as they are. Malloc'ed, *nw its words; NULL when there
 * are no such lists. */
static uint32_t *image_lists(const struct pol_policy *p, size_t first, const char *str, size_t nb,
			     size_t *nw)
{
	size_t ni = 0, nc = p->n_cmd_rules, np = p->n_path_rules, o = IMG_L_HEAD;
	size_t nf = p->n_cata_words + p->n_cata_prefixes + p->n_owner_folders;
	int facts = image_facts(p, str, nb, NULL, NULL);
	uint32_t *ix, *w;

	*nw = 0;
	if (p->n_enable || p->n_disable || !p->cmd_rules || !p->path_rules ||
	    p->cmd_rules_for != p->n_rules)
		return NULL;
	for (size_t t = 0; t < nc; t++)
		if (p->cmd_rules[t] < first)
			return NULL;
	for (size_t t = 0; t < np; t++)
		if (p->path_rules[t] < first)
			return NULL;
	ix = pol_cmd_index_export(p, first, &ni);
	w = ix ? malloc((IMG_L_HEAD + nc + np + nf + ni) * sizeof(*w)) : NULL;
	if (w) {
		w[0] = (uint32_t)nc;
		w[1] = (uint32_t)np;
		w[2] = (uint32_t)facts;
		w[3] = facts ? (uint32_t)p->n_cata_words : 0;
		w[4] = facts ? (uint32_t)p->n_cata_prefixes : 0;
		w[5] = facts ? (uint32_t)p->n_owner_folders : 0;
		for (size_t t = 0; t < nc; t++)
			w[o++] = (uint32_t)(p->cmd_rules[t] - first);
		for (size_t t = 0; t < np; t++)
			w[o++] = (uint32_t)(p->path_rules[t] - first);
		if (facts)
			image_facts(p, str, nb, w, &o);
		memcpy(w + o, ix, ni * sizeof(*w));
		*nw = o + ni;
	}
	free(ix);
	return w;
}

void *pol_snapshot_image(const void *blob, size_t len, size_t *out_len, const char **why)
{
	const uint32_t *h = blob;
	struct pol_policy *p = pol_new(POL_LOAD_LAZY);
	struct image_head ih;
	size_t first, n, np = 0, k = 0, nl = 0;
	char *out = NULL;
	uint32_t *ptrs, *lists = NULL;
	const char *str;
	long nrec;

	*why = "out of memory";
	if (!p || pol_set_home(p, "/h") || pol_set_root(p, "/r"))
		goto out;
	first = p->n_rules;
	*why = "the split form does not load";
	if (len < 16 || pol_snapshot_load_split(p, blob, len) || p->n_rules == first)
		goto out;
	str = (const char *)(h + 4 + h[2]);
	n = p->n_rules - first;
	nrec = image_records(h, len, NULL);
	if (nrec < 0)
		goto out;
	for (size_t i = first; i < p->n_rules; i++)
		np += pol_rules(p)[i].n_suggestions + pol_rules(p)[i].n_owners;
	memset(&ih, 0, sizeof(ih));
	ih.magic = POL_IMAGE_MAGIC;
	ih.rule_size = sizeof(struct pol_rule);
	ih.layout = image_layout();
	ih.n_rules = (uint32_t)n;
	ih.n_ptrs = (uint32_t)np;
	memcpy(ih.split, h + 1, sizeof(ih.split));
	ih.split_len = (uint32_t)len;
	ih.n_recs = (uint32_t)nrec;
	lists = image_lists(p, first, str, h[3], &nl);
	ih.lists = (uint32_t)nl;
	*out_len = sizeof(ih) + n * sizeof(struct pol_rule) + (np + (size_t)nrec + nl) * 4;
	*why = "out of memory";
	out = calloc(1, *out_len);
	if (!out)
		goto out;
	memcpy(out + *out_len - nl * 4, lists, nl * 4);
	ptrs = (uint32_t *)(void *)(out + sizeof(ih) + n * sizeof(struct pol_rule));
	for (size_t i = 0; i < n; i++) {
		struct pol_rule r = pol_rules(p)[first + i];
		const struct pol_rule *o = &pol_rules(p)[first + i];
		int bad = 0;

		/* what only a load that is not the hook's makes, or a later decision */
		*why = o->id;
		if (!o->borrowed || o->path_owned || o->code || o->compile_error || o->untrusted ||
		    o->compile_state || !o->origin)
			goto out_free;
#define STR(f)                                                          \
	do {                                                            \
		r.f = (void *)image_str(str, h[3], (const char *)o->f); \
		bad |= o->f && !r.f;                                    \
	} while (0)
		STR(id);
		STR(alias);
		STR(pattern);
		STR(reason);
		STR(language);
		STR(origin);
		STR(keyword);
		STR(path.glob);
		STR(path_canon.glob);
#undef STR
		if (bad)
			goto out_free;
		/* numbered as pol_embedded_attach() numbers them (this tool has no codes to
		 * attach): pol_embedded_attach_numbered() checks the count at each load */
		r.code_index = pol_embedded_regex(o) ? (int)ih.n_codes++ : -1;
		r.suggestions = o->n_suggestions ? (char **)(uintptr_t)(k + 1) : NULL;
		for (size_t j = 0; j < o->n_suggestions; j++, k++)
			if (!(ptrs[k] = (uint32_t)image_str(str, h[3], o->suggestions[j])))
				goto out_free;
		r.owners = o->n_owners ? (char **)(uintptr_t)(k + 1) : NULL;
		for (size_t j = 0; j < o->n_owners; j++, k++)
			if (!(ptrs[k] = (uint32_t)image_str(str, h[3], o->owners[j])))
				goto out_free;
		if (r.path_pending) {
			size_t pl = strlen(o->pattern);
			ih.lazy = 1;
			ih.max_pattern = pl > ih.max_pattern ? (uint32_t)pl : ih.max_pattern;
		}
		if (r.kind == POL_RULE_PATH && r.path_kind == POL_PATH_ZERO_ACCESS &&
		    !r.path.negate)
			ih.zero_access = 1;
		if (i == 0)
			ih.origin = (uint32_t)image_off(r.origin);
		else if (ih.origin != image_off(r.origin))
			ih.origin = 0;
		memcpy(out + sizeof(ih) + i * sizeof(r), &r, sizeof(r));
	}
	for (size_t j = 0; j < np; j++)
		ptrs[j]--; /* stored as offsets */
	image_records(h, len, ptrs + np);
	memcpy(out, &ih, sizeof(ih));
	free(lists);
	pol_free(p);
	*why = NULL;
	return out;

out_free:
	free(out);
	out = NULL;
out:
	free(lists);
	pol_free(p);
	return out;
}

/* The header words that tie an image to this build, to the blob and to this load:
 * 0, or -EAGAIN when they do not hold (then the split form is loaded). */
static int image_fits(const struct pol_policy *p, const uint32_t *h, size_t len,
		      const struct image_head *ih, size_t ilen)
{
	if (!(p->flags & POL_LOAD_LAZY) || ilen < sizeof(*ih) || len < 16 ||
	    h[0] != POL_SPLIT_MAGIC || ih->magic != POL_IMAGE_MAGIC ||
	    ih->rule_size != sizeof(struct pol_rule) || ih->layout != image_layout() ||
	    memcmp(ih->split, h + 1, sizeof(ih->split)) || ih->split_len != len ||
	    ilen != sizeof(*ih) + (size_t)ih->n_rules * sizeof(struct pol_rule) +
			((size_t)ih->n_ptrs + ih->n_recs + ih->lists) * 4 ||
	    (ih->lazy && strlen(p->home) + strlen(p->root) + ih->max_pattern + 8 >= PATH_MAX))
		return -EAGAIN;
	return 0;
}

/* The image's parts: its rule records, its table of suggestion and owner strings, the
 * index words of the split form's other records. */
static const struct pol_rule *image_rules(const void *img)
{
	return (const struct pol_rule *)(const void *)((const char *)img +
						       sizeof(struct image_head));
}

static const uint32_t *image_ptrs(const void *img)
{
	const struct image_head *ih = img;

	return (const uint32_t *)(const void *)(image_rules(img) + ih->n_rules);
}

/* The split form's other records, as the image lists them: in order, each within the
 * index, its fields within the strings, none of those the image holds. */
static int image_check_records(const uint32_t *h, const struct image_head *ih)
{
	const uint32_t *ix = h + 4, *recs = image_ptrs(ih) + ih->n_ptrs;
	const char *str = (const char *)(ix + h[2]);
	size_t nw = h[2], nb = h[3];

	for (uint32_t r = 0; r < ih->n_recs; r++) {
		size_t w = recs[r], k;

		if (w >= nw || (r && w <= recs[r - 1]))
			return -EINVAL;
		k = ix[w++];
		if (k < 1 || k > P_KEYWORD + 2 + SNAP_MAX_FIELDS || k > nw - w)
			return -EINVAL;
		for (size_t j = 0; j < k; j++)
			if (ix[w + j] >= nb)
				return -EINVAL;
		if (strchr("POLK", str[ix[w]]))
			return -EINVAL; /* the image holds these */
	}
	return 0;
}

/* Each rule record's offsets and counts: within the strings and the table. */
static int image_check_rules(const struct image_head *ih, size_t nb)
{
	const struct pol_rule *irecs = image_rules(ih);
	size_t np = ih->n_ptrs;
	const uint32_t *ptrs = image_ptrs(ih);

	for (size_t j = 0; j < np; j++)
		if (ptrs[j] >= nb)
			return -EINVAL;
	for (size_t i = 0; i < ih->n_rules; i++) {
		const struct pol_rule *r = &irecs[i];
		int bad = 0;

#define CHECK(f) bad |= image_off(r->f) > nb
		CHECK(id);
		CHECK(alias);
		CHECK(pattern);
		CHECK(reason);
		CHECK(keyword);
		CHECK(path.glob);
		CHECK(path_canon.glob);
#undef CHECK
		/* a table slice [so - 1, so - 1 + count) of the pool, none when count is 0 */
		uintptr_t lo = image_off(r->language), oo = image_off(r->origin);
		uintptr_t so = image_off(r->suggestions), wo = image_off(r->owners);
		bad |= !oo || !image_off(r->id) || !image_off(r->reason) || lo > nb || oo > nb ||
		       (ih->origin && oo != ih->origin) ||
		       (so ? so - 1 + r->n_suggestions > np || !r->n_suggestions
			   : r->n_suggestions != 0) ||
		       (wo ? wo - 1 + r->n_owners > np || !r->n_owners : r->n_owners != 0);
		if (bad)
			return -EINVAL;
	}
	return ih->origin > nb ? -EINVAL : 0;
}

/* Everything of an image that a load trusts: its header (-EAGAIN as image_fits, but
 * for the load's home and root), the split form's counts, the records the image lists
 * and every rule record. 0 or -EINVAL; reads nothing outside the two blobs. */
static int image_check(const uint32_t *h, size_t len, const struct image_head *ih, size_t ilen)
{
	size_t nw, nb;

	if (ilen < sizeof(*ih) || len < 16 || h[0] != POL_SPLIT_MAGIC ||
	    ih->magic != POL_IMAGE_MAGIC || ih->rule_size != sizeof(struct pol_rule) ||
	    ih->layout != image_layout() || memcmp(ih->split, h + 1, sizeof(ih->split)) ||
	    ih->split_len != len ||
	    ilen != sizeof(*ih) + (size_t)ih->n_rules * sizeof(struct pol_rule) +
			((size_t)ih->n_ptrs + ih->n_recs + ih->lists) * 4)
		return -EAGAIN;
	nw = h[2];
	nb = h[3];
	if (nw > (len - 16) / 4 || nb > len - 16 - nw * 4 || !nb || h[1] > nw / 2 ||
	    ((const char *)(h + 4 + nw))[nb - 1] != '\0')
		return -EINVAL;
	if (image_check_records(h, ih) < 0 || image_check_rules(ih, nb) < 0)
		return -EINVAL;
	return 0;
}

/* The words of an image's lists (after its records). */
static const uint32_t *image_list_words(const struct image_head *ih)
{
	return image_ptrs(ih) + ih->n_ptrs + ih->n_recs;
}

/* An image's lists are what a load of it makes: loaded with its every check (which
 * does not read the lists), its refresh and command index are made again and compared
 * word for word. 0 or -EINVAL. */
static int image_lists_hold(const void *blob, size_t len, const struct image_head *ih, size_t ilen)
{
	struct pol_policy *q = pol_new(POL_LOAD_LAZY);
	uint32_t *w = NULL;
	size_t nw = 0;
	int rc = -EINVAL;

	if (q && !pol_set_home(q, "/h") && !pol_set_root(q, "/r") &&
	    pol_snapshot_load_image(q, blob, len, ih, ilen) == 0 && q->img_pend)
		w = image_lists(q, q->img_pend->first, q->img_pend->str,
				((const uint32_t *)blob)[3], &nw);
	if (w && nw == ih->lists && !memcmp(w, image_list_words(ih), nw * sizeof(*w)))
		rc = 0;
	free(w);
	pol_free(q);
	return rc;
}

int pol_snapshot_image_seal(const void *blob, size_t len, void *img, size_t ilen)
{
	struct image_head *ih = img;
	int rc;

	if (ilen < sizeof(*ih))
		return -EINVAL;
	ih->sealed = 0;
	rc = image_check(blob, len, ih, ilen);
	if (rc == 0 && ih->lists)
		rc = image_lists_hold(blob, len, ih, ilen);
	if (rc == 0)
		ih->sealed = POL_IMAGE_SEALED;
	return rc;
}

/* Room at once for n more rules, as pol_rule_new() makes it. */
static int rules_room(struct pol_policy *p, size_t n)
{
	if (p->cap_rules - p->n_rules >= n)
		return 0;
	size_t cap = p->cap_rules ? p->cap_rules : POL_RULES_FIRST_CAP;
	while (cap - p->n_rules < n)
		cap *= 2;
	struct pol_rule *nr = realloc(p->rule_tab, cap * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	p->rule_tab = nr;
	p->cap_rules = cap;
	return 0;
}

/* Interns the origins of the image's rules (their records find them again): the one
 * origin the header names, else each where it changes. */
static void image_origins(struct pol_policy *p, const struct image_head *ih, const char *str)
{
	const struct pol_rule *irecs = image_rules(ih);
	uintptr_t last = 0;

	if (ih->origin) {
		pol_origin_intern(p, str + ih->origin - 1);
		return;
	}
	for (size_t i = 0; i < ih->n_rules; i++) {
		uintptr_t oo = image_off(irecs[i].origin);
		if (oo != last)
			pol_origin_intern(p, str + oo - 1);
		last = oo;
	}
}

/* Room for n facts as pol_fact_add() grows its lists: 8, then each power of two. */
static const char **facts_array(size_t n)
{
	size_t cap = 8;

	while (cap < n)
		cap *= 2;
	return malloc(cap * sizeof(const char *));
}

/* A sealed image's facts (image_lists), each borrowed where it lies in the split form
 * (the blob outlives the policy), as its T records would have added them. */
static int image_install_facts(struct pol_policy *p, const uint32_t *lw, const char *str)
{
	const uint32_t *off = lw + IMG_L_HEAD + lw[0] + lw[1];
	const char ***v[3] = {&p->cata_words, &p->cata_prefixes, &p->owner_folders};
	size_t *n[3] = {&p->n_cata_words, &p->n_cata_prefixes, &p->n_owner_folders};

	for (int k = 0; k < 3; k++) {
		if (!lw[3 + k])
			continue;
		const char **a = facts_array(lw[3 + k]);
		if (!a)
			return -ENOMEM;
		for (uint32_t i = 0; i < lw[3 + k]; i++)
			a[i] = str + *off++;
		*v[k] = a;
		*n[k] = lw[3 + k];
	}
	return 0;
}

/* The load of a checked image (image_check, or sealed at build time: then its lists
 * are taken as they are). */
static int image_load(struct pol_policy *p, const uint32_t *h, const struct image_head *ih,
		      int sealed)
{
	const uint32_t *ix = h + 4, *recs = image_ptrs(ih) + ih->n_ptrs;
	const char *str = (const char *)(ix + h[2]);
	size_t first = p->n_rules, n = ih->n_rules;
	char *f[P_KEYWORD + 2 + SNAP_MAX_FIELDS];
	int rc = rules_room(p, n);
	/* a sealed image's facts, installed at once into a policy that has none yet */
	const uint32_t *lw = sealed && ih->lists ? image_list_words(ih) : NULL;
	int facts = lw && lw[2] && !p->n_cata_words && !p->n_cata_prefixes && !p->n_owner_folders;

	/* The records but the rules and what the image holds of them (O, L, K), in order,
	 * where the image says they are. */
	for (uint32_t r = 0; r < ih->n_recs && rc == 0; r++) {
		size_t w = recs[r], k = ix[w++];

		if (facts && str[ix[w]] == 'T')
			continue;
		for (size_t j = 0; j < k; j++)
			f[j] = (char *)(uintptr_t)(str + ix[w + j]);
		rc = load_record(p, f, k, first);
	}
	if (rc == 0 && facts)
		rc = image_install_facts(p, lw, str);
	if (rc == 0 && ih->lazy)
		rc = keep_lazy_root(p); /* before the rules: it may expand earlier ones */
	if (rc)
		return rc;
	/* The rules stay in the image (read-only, in the binary: no page of records is
	 * touched) and are made into records only when something needs them
	 * (pol_rules_materialise): a command decision reads them in the image. */
	struct pol_img_pend *pend = calloc(1, sizeof(*pend) + n);

	if (!pend)
		return -ENOMEM;
	image_origins(p, ih, str);
	pend->recs = image_rules(ih);
	pend->str = str;
	pend->pool = NULL; /* taken at the first record made that needs it */
	pend->n_pool = ih->n_ptrs;
	pend->ptrs = image_ptrs(ih);
	if (sealed && ih->lists) {
		pend->lists = image_list_words(ih);
		pend->n_lists = ih->lists;
	}
	pend->first = first;
	pend->n = n;
	p->img_pend = pend;
	p->n_rules = first + n;
	if (ih->lazy) {
		p->paths_pending = 1;
		p->path_groups_ready = 0;
	}
	if (ih->zero_access)
		p->have_zero_access = 1;
	/* a sealed image's codes at its first regex (an allowed command often runs none:
	 * the container's page not read); another's checked now */
	if (sealed && ih->n_codes && !p->codes_blob && !p->codes_pending)
		p->codes_pending = ih->n_codes;
	else
		pol_embedded_attach_numbered(p, first, ih->n_codes);
	pol_rules_refresh(p);
	return 0;
}

int pol_snapshot_load_image(struct pol_policy *p, const void *blob, size_t len, const void *img,
			    size_t ilen)
{
	int rc = image_fits(p, blob, len, img, ilen);

	if (rc == 0)
		rc = image_check(blob, len, img, ilen);
	return rc ? rc : image_load(p, blob, img, 0);
}

int pol_snapshot_load_sealed(struct pol_policy *p, const void *blob, size_t len, const void *img,
			     size_t ilen)
{
	const struct image_head *ih = img;
	int rc = image_fits(p, blob, len, img, ilen);

	if (rc == 0 && ih->sealed != POL_IMAGE_SEALED)
		rc = image_check(blob, len, img, ilen);
	return rc ? rc : image_load(p, blob, img, ih->sealed == POL_IMAGE_SEALED);
}

/* Makes record i of a deferred image in place (its offsets were checked at load). */
static void make_record(struct pol_policy *p, struct pol_img_pend *q, size_t i)
{
	struct pol_rule *r = &p->rule_tab[q->first + i];

	*r = q->recs[i];
#define FIX(f)                                                         \
	do {                                                           \
		uintptr_t o = image_off(r->f);                         \
		r->f = o ? (void *)(uintptr_t)(q->str + o - 1) : NULL; \
	} while (0)
	FIX(id);
	FIX(alias);
	FIX(pattern);
	FIX(reason);
	FIX(keyword);
	FIX(path.glob);
	FIX(path_canon.glob);
#undef FIX
	uintptr_t lo = image_off(r->language), oo = image_off(r->origin);
	r->language = lo ? pol_language_intern(q->str + lo - 1) : NULL;
	/* interned at load: found, not added */
	r->origin = oo ? pol_origin_intern(p, q->str + oo - 1) : NULL;
	uintptr_t so = image_off(r->suggestions), wo = image_off(r->owners);
	/* The image's one pool of suggestion and owner arrays, filled as each record is
	 * made: taken at the first that needs it (an allowed command makes none). Out of
	 * memory, the rule has neither: no program it names may write what it covers. */
	if ((so || wo) && !q->pool)
		q->pool = pool_take(p, q->n_pool, 1);
	if (!q->pool) {
		so = wo = 0;
		r->n_suggestions = r->n_owners = 0;
	}
	r->suggestions = so ? q->pool + so - 1 : NULL;
	r->owners = wo ? q->pool + wo - 1 : NULL;
	for (size_t k = 0; k < r->n_suggestions; k++)
		r->suggestions[k] = (char *)(uintptr_t)(q->str + q->ptrs[so - 1 + k]);
	for (size_t k = 0; k < r->n_owners; k++)
		r->owners[k] = (char *)(uintptr_t)(q->str + q->ptrs[wo - 1 + k]);
	/* refreshed while deferred only without packs: and disable: (pol_rules_refresh) */
	r->active = r->enabled;
	q->made[i] = 1;
}

struct pol_rule *pol_rule_materialise(struct pol_policy *p, size_t i)
{
	struct pol_img_pend *q = p->img_pend;

	if (p->head_pend && i < p->head_pend->n)
		pol_head_make(p);
	if (q && i >= q->first && !q->made[i - q->first])
		make_record(p, q, i - q->first);
	return &p->rule_tab[i];
}

void pol_path_rules_make(const struct pol_policy *cp)
{
	struct pol_policy *p = (struct pol_policy *)cp;
	struct pol_img_pend *q = p->img_pend;

	pol_head_make(p); /* dcg's own path rules are there */
	for (size_t i = 0; q && i < q->n; i++)
		if (!q->made[i] && (q->recs[i].kind == POL_RULE_PATH || q->recs[i].path_pending ||
				    q->recs[i].canon_pending))
			make_record(p, q, i);
}

void pol_rules_materialise(struct pol_policy *p)
{
	struct pol_img_pend *q = p->img_pend;

	pol_head_make(p);
	if (!q)
		return;
	for (size_t i = 0; i < q->n; i++)
		if (!q->made[i])
			make_record(p, q, i);
	p->img_pend = NULL;
	free(q);
}

/* Appends to a growing buffer of 32-bit words or bytes; 0 or -ENOMEM. */
static int grow(void *pv, size_t *cap, size_t need, size_t unit)
{
	void **p = pv;

	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 1024;
	while (c < need)
		c *= 2;
	void *n = realloc(*p, c * unit);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = c;
	return 0;
}

/* The strings of the split form, each distinct one stored once. */
struct strtab {
	char *b;
	size_t n, cap;
	uint32_t *slot; /* open addressing: offset + 1, 0 empty */
	size_t nslot, used;
};

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The offset of s in t, added if new; SPLIT_NONE on error. */
static uint32_t str_put(struct strtab *t, const char *s)
{
	size_t l = strlen(s) + 1, i;

	if ((t->used + 1) * 2 > t->nslot) {
		size_t ns = t->nslot ? t->nslot * 2 : 4096;
		uint32_t *sl = calloc(ns, sizeof(*sl));

		if (!sl)
			return SPLIT_NONE;
		for (size_t k = 0; k < t->nslot; k++)
			if (t->slot[k]) {
				for (i = str_hash(t->b + t->slot[k] - 1) & (ns - 1); sl[i];
				     i = (i + 1) & (ns - 1))
					;
				sl[i] = t->slot[k];
			}
		free(t->slot);
		t->slot = sl;
		t->nslot = ns;
	}
	for (i = str_hash(s) & (t->nslot - 1); t->slot[i]; i = (i + 1) & (t->nslot - 1))
		if (strcmp(t->b + t->slot[i] - 1, s) == 0)
			return t->slot[i] - 1;
	if (t->n + l >= SPLIT_RULE || grow(&t->b, &t->cap, t->n + l, 1) < 0)
		return SPLIT_NONE;
	memcpy(t->b + t->n, s, l);
	t->slot[i] = (uint32_t)t->n + 1;
	t->used++;
	t->n += l;
	return (uint32_t)(t->n - l);
}

/* The rule record of the P record f (n fields) into v (SR_WORDS + suggestions words);
 * its word count, or 0 when the record does not fit one (then it is written as fields,
 * and refused at load as the text would be). */
static size_t rule_words(struct strtab *t, char **f, size_t n, uint32_t *v)
{
	struct snap_rule sr;
	static const int word[8] = {SR_ID,	 SR_REASON,  SR_ORIGIN, SR_PATTERN,
				    SR_LANGUAGE, SR_KEYWORD, SR_GLOB,	SR_CANON};
	const char *s[8];
	long long small[8];

	if (read_rule(f, n, &sr) < 0)
		return 0;
	small[0] = sr.kind, small[1] = sr.sev, small[2] = sr.dec, small[3] = sr.pk;
	small[4] = sr.enabled, small[5] = sr.flags, small[6] = sr.basename, small[7] = sr.negate;
	for (int k = 0; k < 8; k++)
		if (small[k] < 0 || small[k] > 255)
			return 0;
	s[0] = sr.id, s[1] = sr.reason, s[2] = sr.origin, s[3] = sr.pattern;
	s[4] = sr.language, s[5] = sr.keyword, s[6] = sr.glob, s[7] = sr.canon;
	/* the first three always there, the others SPLIT_NONE when empty */
	for (int k = 0; k < 8; k++) {
		v[word[k]] = s[k] ? str_put(t, s[k]) : SPLIT_NONE;
		if (s[k] && v[word[k]] == SPLIT_NONE)
			return 0;
	}
	if (sr.keyword_len > UINT32_MAX)
		return 0;
	v[SR_LINE] = sr.line;
	v[SR_KIND] = (uint32_t)(sr.kind | sr.sev << 8 | sr.dec << 16 | sr.pk << 24);
	v[SR_BITS] = (uint32_t)(sr.enabled | sr.flags << 8 | sr.basename << 16 | sr.negate << 24);
	v[SR_KEYLEN] = (uint32_t)sr.keyword_len;
	for (size_t k = 0; k < sr.nsugg; k++)
		if ((v[SR_WORDS + k] = str_put(t, sr.sugg[k])) == SPLIT_NONE)
			return 0;
	return SR_WORDS + sr.nsugg;
}

void *pol_snapshot_split(const char *text, size_t len, size_t *out_len)
{
	size_t ml = strlen(SNAP_MAGIC), nw = 0, cw = 0;
	uint32_t *ix = NULL, records = 0, rule[SR_WORDS + SNAP_MAX_FIELDS];
	struct strtab t = {0};
	char *copy, *line, *next, *f[P_KEYWORD + 2 + SNAP_MAX_FIELDS];
	void *out = NULL;

	if (len < ml || memcmp(text, SNAP_MAGIC, ml) != 0 || !(copy = malloc(len + 1)))
		return NULL;
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (line = copy + ml; line < copy + len && *line != '\n'; line = next) {
		size_t n = split(line + 1 + (line[1] == '\t'), copy + len, f + 1,
				 sizeof(f) / sizeof(f[0]) - 1, &next) +
			   1;
		size_t rw = line[0] == 'P' ? rule_words(&t, f, n, rule) : 0;
		char tag[2] = {line[0], '\0'};

		if (grow(&ix, &cw, nw + (rw ? rw : n) + 1, sizeof(*ix)) < 0)
			goto out;
		if (rw) {
			ix[nw++] = SPLIT_RULE | (uint32_t)(rw - SR_WORDS);
			memcpy(ix + nw, rule, rw * sizeof(*ix));
			nw += rw;
			records++;
			continue;
		}
		f[0] = tag;
		ix[nw++] = (uint32_t)n;
		for (size_t k = 0; k < n; k++) {
			if ((ix[nw++] = str_put(&t, f[k])) == SPLIT_NONE)
				goto out;
		}
		records++;
	}
	out = malloc(16 + nw * 4 + t.n);
	if (out) {
		uint32_t h[4] = {POL_SPLIT_MAGIC, records, (uint32_t)nw, (uint32_t)t.n};

		memcpy(out, h, 16);
		memcpy((char *)out + 16, ix, nw * 4);
		memcpy((char *)out + 16 + nw * 4, t.b, t.n);
		*out_len = 16 + nw * 4 + t.n;
	}
out:
	free(ix);
	free(t.b);
	free(t.slot);
	free(copy);
	return out;
}
