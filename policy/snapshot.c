/* snapshot.c - the compiled form of a loaded policy, for processes that must start
 * fast (every child of a guarded shell). It is the rules after layering, expansion of
 * ~ and the project root, and the allowlist; loading it needs no libyaml and no file
 * access. Regexes are compiled again lazily, at first use.
 *
 * Format: a first line "DCGSNAP 1", then one record per line, fields separated by
 * tabs; backslash, tab and newline inside fields are escaped as \\, \t and \n.
 *   H home | R root | F file | E enable | D disable
 *   P id kind pattern reason language severity decision path_kind origin line enabled
 *     flags(caseless 1, runtime paths 2) glob basename negate canon_glob nsugg sugg...
 *   A rule reason expires origin line npaths paths...
 *   O owners... | K guarded untrusted      (after the P record they belong to)
 */
#include "dcg_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SNAP_MAGIC	"DCGSNAP 1\n"
#define SNAP_MAX_FIELDS 64

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
	for (t = t ? t : ""; *t; t++) {
		if (*t == '\\')
			put(s, "\\\\", 2);
		else if (*t == '\t')
			put(s, "\\t", 2);
		else if (*t == '\n')
			put(s, "\\n", 2);
		else
			put(s, t, 1);
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

char *pol_snapshot_save(const struct pol_policy *p, size_t *len)
{
	return pol_snapshot_save_opts(p, len, 0);
}

char *pol_snapshot_save_opts(const struct pol_policy *p, size_t *len, int portable)
{
	struct sbuf s = {0};

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
	for (size_t i = 0; i < p->n_enable; i++) {
		record(&s, 'E');
		field(&s, p->enable[i]);
	}
	for (size_t i = 0; i < p->n_disable; i++) {
		record(&s, 'D');
		field(&s, p->disable[i]);
	}
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct pol_rule *r = &p->rules[i];

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
		fieldn(&s, r->caseless | (r->runtime_paths << 1)); /* bit 1: runtime: paths */
		field(&s, portable ? NULL : r->path.glob);
		fieldn(&s, r->path.basename_only);
		fieldn(&s, r->path.negate);
		field(&s, !portable && r->has_canon ? r->path_canon.glob : NULL);
		fieldn(&s, (long long)r->n_suggestions);
		for (size_t k = 0; k < r->n_suggestions; k++)
			field(&s, r->suggestions[k]);
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

/* Splits one record into unescaped fields, in place. Returns the field count. Runs at
 * the start of every process, so plain runs are moved in blocks. */
static size_t split(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *o = line, *s = line;

	f[n++] = o;
	for (;;) {
		size_t k = strcspn(s, "\t\\");

		if (o != s)
			memmove(o, s, k);
		o += k;
		s += k;
		if (!*s)
			break;
		if (*s == '\t') {
			*o++ = '\0';
			if (n == max)
				return n;
			f[n++] = o;
			s++;
		} else if (s[1]) {
			*o++ = s[1] == 't' ? '\t' : s[1] == 'n' ? '\n' : s[1];
			s += 2;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return n;
}

static long long num(const char *s)
{
	long long v = 0;
	int neg = *s == '-';

	for (s += neg; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	return neg ? -v : v;
}

static int strv_push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int load_rule(struct pol_policy *p, char **f, size_t n)
{
	struct pol_rule *r;
	size_t nsugg;

	if (n < 18)
		return -EINVAL;
	nsugg = (size_t)num(f[17]);
	if (nsugg > SNAP_MAX_FIELDS || n < 18 + nsugg)
		return -EINVAL;
	/* The numbers index arrays and shift bits in the decision code: a record with one
	 * out of range is refused, not trusted. */
	if (num(f[2]) < 0 || num(f[2]) > POL_RULE_BUILTIN || num(f[6]) < 0 ||
	    num(f[6]) > POL_SEV_CRITICAL || num(f[7]) < 0 || num(f[7]) > POL_DENY ||
	    num(f[8]) < 0 || num(f[8]) > POL_PATH_NO_DELETE)
		return -EINVAL;
	r = pol_rule_new(p);
	if (!r)
		return -ENOMEM;
	/* Strings stay in the snapshot text, which the policy keeps: no copy per field
	 * (this runs at the start of every guarded process). */
	r->borrowed = 1;
	r->id = f[1];
	r->kind = (enum pol_rule_kind)num(f[2]);
	r->pattern = f[3][0] ? f[3] : NULL;
	r->reason = f[4];
	r->language = pol_language_intern(f[5][0] ? f[5] : NULL);
	r->severity = (enum pol_severity)num(f[6]);
	r->decision = (enum pol_decision)num(f[7]);
	r->path_kind = (enum pol_path_kind)num(f[8]);
	r->origin = pol_origin_intern(p, f[9]);
	r->line = (unsigned)num(f[10]);
	r->enabled = (int)num(f[11]);
	r->caseless = (int)(num(f[12]) & 1);
	r->runtime_paths = (int)((num(f[12]) >> 1) & 1);
	if (!r->id || !r->reason)
		return -ENOMEM;
	pol_rule_index_add(p, p->n_rules - 1);
	if (r->kind == POL_RULE_PATH && !f[13][0]) {
		/* Portable: expand the pattern as written for this home and root. */
		struct pol_pathpat pp;

		if (!r->pattern || pol_pathpat_expand(p, r->pattern, &pp) < 0)
			return -EINVAL;
		r->path = pp;
		r->path_owned = 1;
		pol_rule_canon_path(r);
		if (r->path_kind == POL_PATH_ZERO_ACCESS && !r->path.negate)
			p->have_zero_access = 1;
	} else if (r->kind == POL_RULE_PATH) {
		r->path.glob = f[13];
		r->path.basename_only = (int)num(f[14]);
		r->path.negate = (int)num(f[15]);
		if (!r->path.glob)
			return -ENOMEM;
		pol_pathpat_classify(&r->path);
		if (f[16][0]) {
			r->path_canon.glob = f[16];
			r->path_canon.negate = r->path.negate;
			if (!r->path_canon.glob)
				return -ENOMEM;
			pol_pathpat_classify(&r->path_canon);
			r->has_canon = 1;
		}
		if (r->path_kind == POL_PATH_ZERO_ACCESS && !r->path.negate)
			p->have_zero_access = 1;
	} else if (r->pattern) {
		/* Lazily compiled, like the embedded rules: it compiled once at load. */
		unsigned flags = p->flags;
		p->flags &= ~(unsigned)POL_LOAD_EAGER;
		pol_rule_prepare_regex(p, r, "<embedded>", 0, 0);
		p->flags = flags;
	}
	if (nsugg) {
		r->suggestions = malloc(nsugg * sizeof(*r->suggestions));
		if (!r->suggestions)
			return -ENOMEM;
		memcpy(r->suggestions, f + 18, nsugg * sizeof(*r->suggestions));
		r->n_suggestions = nsugg;
	}
	return 0;
}

static int load_owners(struct pol_rule *r, char **f, size_t n)
{
	if (!r->borrowed || r->owners || n < 2)
		return -EINVAL;
	r->owners = malloc((n - 1) * sizeof(*r->owners));
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
		if (strv_push(&a.paths, &a.n_paths, f[7 + k]) < 0)
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

int pol_snapshot_load(struct pol_policy *p, const char *buf, size_t len)
{
	size_t first = p->n_rules;
	size_t ml = strlen(SNAP_MAGIC);
	char *copy, *line, *next;
	char *f[18 + SNAP_MAX_FIELDS];
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
	for (line = copy + ml; line && *line && rc == 0; line = next) {
		size_t n;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n = split(line[1] == '\t' ? line + 2 : line + 1, f + 1,
			  sizeof(f) / sizeof(f[0]) - 1) +
		    1;
		switch (line[0]) {
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
			rc = n > 1 ? strv_push(&p->enable, &p->n_enable, f[1]) : -EINVAL;
			break;
		case 'D':
			rc = n > 1 ? strv_push(&p->disable, &p->n_disable, f[1]) : -EINVAL;
			break;
		case 'P':
			rc = load_rule(p, f, n);
			break;
		case 'A':
			rc = load_allow(p, f, n);
			break;
		case 'V':
			if (n > 1 && !p->embedded_version)
				p->embedded_version = f[1]; /* in the kept text */
			break;
		case 'O':
			rc = p->n_rules ? load_owners(&p->rules[p->n_rules - 1], f, n) : -EINVAL;
			break;
		case 'K':
			if (n < 3 || p->n_rules <= first) {
				rc = -EINVAL;
				break;
			}
			p->rules[p->n_rules - 1].guarded = num(f[1]) != 0;
			p->rules[p->n_rules - 1].untrusted = num(f[2]) != 0;
			if (num(f[2]) && p->n_rules - 1 < p->untrusted_from)
				p->untrusted_from = p->n_rules - 1;
			break;
		default:
			rc = -EINVAL;
		}
	}
	if (rc == 0)
		pol_embedded_attach(p, first);
	pol_rules_refresh(p);
	return rc;
}
