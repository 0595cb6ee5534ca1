/* load.c - reading policy files with libyaml into rules, paths and allow entries.
 *
 * A file is read whole with libyaml's document loader. Aliases resolve to shared
 * nodes and the walker below descends at most three levels into known keys, so a
 * "billion laughs" file costs no more than its size. Every problem becomes a
 * diagnostic with file, line and column; the rest of the file stays active.
 */
#include "dcg_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "internal.h"
#include "shell.h"
#include "yamlread.h"

#define POL_FILE_MAX (16u * 1024 * 1024)

/* The system file's entries are "site.*": "system" is the pack of system commands. */
static const char *const scope_names[] = {"default", "user", "project", "policy", "site"};
static const char *const path_kind_ids[] = {"zero_access", "read_only", "no_delete"};

/* ---- path rules -------------------------------------------------------------------- */

/* s (n bytes) as a string: at dst when it fits its room (else NULL), or malloc'ed when
 * there is no dst. */
static char *glob_copy(const char *s, size_t n, char *dst, size_t room)
{
	char *g = dst ? (n < room ? dst : NULL) : malloc(n + 1);

	if (g) {
		memcpy(g, s, n);
		g[n] = '\0';
	}
	return g;
}

int pol_pathpat_expand_at(const struct pol_policy *p, const char *pat, struct pol_pathpat *pp,
			  char *dst, size_t room)
{
	char buf[PATH_MAX];
	const char *s = pat;
	size_t n;

	memset(pp, 0, sizeof(*pp));
	if (*s == '!') {
		pp->negate = 1;
		s++;
	}
	/* A leading "**" + "/" means anywhere: with a plain name after it, that is a
	 * basename pattern; with more components, an anchored glob from the root. */
	int anywhere = 0;
	while (s[0] == '*' && s[1] == '*' && s[2] == '/') {
		s += 3;
		anywhere = 1;
	}
	n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		n--;
	if (n == 0)
		return -EINVAL;
	if (!memchr(s, '/', n) && (s[0] != '~' || anywhere)) {
		pp->basename_only = 1;
		pp->glob = glob_copy(s, n, dst, room);
	} else if (anywhere) {
		if (n + 5 > sizeof(buf))
			return -ENAMETOOLONG;
		memcpy(buf, "/**/", 4);
		memcpy(buf + 4, s, n);
		pp->glob = glob_copy(buf, n + 4, dst, room);
	} else {
		/* the trailing slashes left to the normalization, which drops them (a copy
		 * without them was a second PATH_MAX of stack under every load) */
		if (n >= sizeof(buf) ||
		    pol_path_normalize(s, p->root, p->home, buf, sizeof(buf)) < 0)
			return -ENAMETOOLONG;
		pp->glob = glob_copy(buf, strlen(buf), dst, room);
	}
	if (!pp->glob)
		return dst ? -ENOSPC : -ENOMEM;
	pol_pathpat_classify(pp);
	return 0;
}

int pol_pathpat_expand(const struct pol_policy *p, const char *pat, struct pol_pathpat *pp)
{
	return pol_pathpat_expand_at(p, pat, pp, NULL, 0);
}

/* The canonical form: the literal directory prefix of an anchored pattern resolved
 * through symlinks. */
void pol_rule_canon_path(struct pol_rule *r, struct pol_resolve_memo *m)
{
	const struct pol_pathpat *pp = &r->path;
	/* one buffer, the folder then what it resolves to (the walk copies its input
	 * first): every path rule of a first path decision comes here, under the
	 * decision's own frames, and each page of stack is a page fault */
	char buf[PATH_MAX], in[256];
	size_t cut, dlen, rlen, tlen;
	const char *dir;
	char *out;

	if (pp->basename_only)
		return;
	cut = pp->literal_len;
	if (cut < pp->glob_len) /* wildcard: resolve only the directories before it */
		while (cut > 0 && pp->glob[cut - 1] != '/')
			cut--;
	if (cut == 0 || cut >= sizeof(buf))
		return;
	/* the folder apart from buf when it is short (most): a walk whose input is not its
	 * output walks it in place, without 12 KiB of buffers under it */
	if (cut == pp->glob_len) {
		dir = pp->glob;
	} else {
		char *d = cut < sizeof(in) ? in : buf;

		memcpy(d, pp->glob, cut);
		d[cut] = '\0';
		dir = d;
	}
	if (pol_path_resolve_memo(dir, 0, buf, sizeof(buf), m) < 0)
		return;
	dlen = cut > 1 && pp->glob[cut - 1] == '/' ? cut - 1 : cut; /* without its '/' */
	rlen = strlen(buf);
	if (rlen == dlen && memcmp(buf, pp->glob, dlen) == 0)
		return;
	const char *sep = cut < pp->glob_len && strcmp(buf, "/") ? "/" : "";
	tlen = strlen(pp->glob + cut);
	out = malloc(rlen + strlen(sep) + tlen + 1);
	if (!out)
		return;
	memcpy(out, buf, rlen);
	memcpy(out + rlen, sep, strlen(sep));
	memcpy(out + rlen + strlen(sep), pp->glob + cut, tlen + 1);
	r->path_canon.glob = out;
	r->path_canon.negate = pp->negate;
	pol_pathpat_classify(&r->path_canon);
	r->has_canon = 1;
}

/* A path rule's pattern expanded (a diagnostic and the rule disabled when it cannot
 * be), and its folders resolved through symlinks: a system call per component, so for
 * a lazy policy at the first path decision (pol_paths_ready). */
static int path_rule_expand(struct pol_policy *p, struct pol_rule *r, const char *pat,
			    const char *file, unsigned line, unsigned col)
{
	int rc = pol_pathpat_expand(p, pat, &r->path);

	if (rc < 0) {
		pol_diag_add(p, file, line, col, pat, 0, "path pattern is empty or too long");
		r->enabled = 0;
		return rc;
	}
	if (p->flags & POL_LOAD_LAZY) {
		r->canon_pending = p->canon_pending = 1;
		p->path_groups_ready = 0;
	} else
		pol_rule_canon_path(r, NULL);
	return 0;
}

static int add_path_rule_id(struct pol_policy *p, enum pol_path_kind kind, const char *pat,
			    const char *file, unsigned line, unsigned col, const char *id)
{
	struct pol_rule *r;
	int rc;

	r = pol_rule_new(p);
	if (!r)
		return -ENOMEM;
	r->kind = POL_RULE_PATH;
	r->path_kind = kind;
	r->id = strdup(id);
	r->pattern = strdup(pat);
	r->reason = strdup(pol_path_reason(p, kind));
	r->severity = kind == POL_PATH_ZERO_ACCESS ? POL_SEV_CRITICAL : POL_SEV_HIGH;
	r->decision = POL_DENY;
	r->origin = pol_origin_intern(p, file);
	r->line = line;
	if (!r->id || !r->pattern || !r->reason)
		return -ENOMEM;
	pol_rule_index_add(p, p->n_rules - 1);
	rc = path_rule_expand(p, r, pat, file, line, col);
	if (rc < 0)
		return rc;
	for (int k = 0; k < 2; k++)
		if (p->path_sugg[kind][k])
			pol_rule_add_suggestion(r, p->path_sugg[kind][k]);
	pol_rule_add_allow_suggestion(r);
	if (kind == POL_PATH_ZERO_ACCESS && !r->path.negate)
		p->have_zero_access = 1;
	return 0;
}

/* A path rule's ID from its pattern, so that it stays when a list is reordered:
 * letters and digits kept (lower case), '~' at the start "home", '*' "any", "**"
 * "all", '?' "one", a leading '!' "not", anything else a '_' between words.
 * ~/.ssh/ -> home_ssh, *.pem -> any_pem, .env.* -> env_any. Longer than 40: cut,
 * with a hash of the whole pattern. */
static void path_slug(const char *pat, char *out, size_t size)
{
	char buf[256];
	size_t o = 0, h = 1469598103934665603ull;
	const char *s = pat;

	for (const char *c = pat; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
#define SLUG_WORD(w)                                                         \
	do {                                                                 \
		if (o && buf[o - 1] != '_' && o + 1 < sizeof(buf))           \
			buf[o++] = '_';                                      \
		for (const char *wp = (w); *wp && o + 1 < sizeof(buf); wp++) \
			buf[o++] = *wp;                                      \
		if (o + 1 < sizeof(buf))                                     \
			buf[o++] = '_';                                      \
	} while (0)
	if (*s == '!') {
		SLUG_WORD("not");
		s++;
	}
	if (*s == '~') {
		SLUG_WORD("home");
		s++;
	}
	for (; *s && o + 1 < sizeof(buf); s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			buf[o++] = (char)c;
		else if (c >= 'A' && c <= 'Z')
			buf[o++] = (char)(c - 'A' + 'a');
		else if (c == '*' && s[1] == '*') {
			SLUG_WORD("all");
			s++;
		} else if (c == '*')
			SLUG_WORD("any");
		else if (c == '?')
			SLUG_WORD("one");
		else if (o && buf[o - 1] != '_')
			buf[o++] = '_';
	}
#undef SLUG_WORD
	while (o && buf[o - 1] == '_')
		o--;
	buf[o] = '\0';
	if (!o)
		snprintf(out, size, "root");
	else if (o > 40)
		snprintf(out, size, "%.31s_%08x", buf, (unsigned)(h & 0xffffffffu));
	else
		snprintf(out, size, "%.40s", buf);
}

/* A path rule from a policy file: its ID from the given id: or from the pattern, its
 * positional ID (scope.kind.N, as older versions named it) kept as its alias. */
static int add_path_rule(struct pol_policy *p, enum pol_path_kind kind, const char *pat,
			 const char *file, unsigned line, unsigned col, const char *given,
			 int positional)
{
	char id[192], alias[64], slug[64];
	size_t *count = &p->path_count[p->scope][kind];
	struct pol_rule *r;
	int rc;

	/* an entry of a section of its own (runsLater:) takes no place in the kind's
	 * positional numbering, so that the lists' old IDs stay where they were */
	alias[0] = '\0';
	if (positional)
		snprintf(alias, sizeof(alias), "%s.%s.%zu", scope_names[p->scope],
			 path_kind_ids[kind], ++*count);
	if (given && strchr(given, '.')) {
		snprintf(id, sizeof(id), "%s", given);
	} else {
		if (!given)
			path_slug(pat, slug, sizeof(slug));
		snprintf(id, sizeof(id), "%s.%s.%.120s", scope_names[p->scope], path_kind_ids[kind],
			 given ? given : slug);
	}
	/* the same words twice in one scope (a.b and a_b): the later one numbered */
	if (pol_rule_find(p, id) >= 0) {
		size_t base = strlen(id);
		for (int k = 2; k < 1000 && pol_rule_find(p, id) >= 0; k++)
			snprintf(id + base, sizeof(id) - base, "_%d", k);
	}
	rc = add_path_rule_id(p, kind, pat, file, line, col, id);
	r = p->n_rules ? &pol_rules(p)[p->n_rules - 1] : NULL;
	if (alias[0] && r && r->kind == POL_RULE_PATH && r->id && !strcmp(r->id, id) && !r->alias &&
	    !(r->alias = strdup(alias)) && rc == 0)
		rc = -ENOMEM;
	return rc;
}

/* One allocation holds a self rule's pattern, its suggestions array and the allow
 * suggestion, and its owners array: the rule borrows them (kept in snap_bufs), its
 * ID (a literal) and its kind's reason and suggestions (the policy's own). */
struct self_block {
	char *sugg[3];
	char *owners[1];
	char text[]; /* the pattern, then the allow suggestion */
};

void pol_self_rule_fill(struct pol_policy *p, struct pol_rule *r, const struct pol_head_self *s,
			int index)
{
	static char dcg_owner[] = ":dcg";
	struct self_block *b = s->blk;
	char *pat = b->text;

	/* as add_path_rule_id() makes a read-only rule, the strings borrowed */
	r->borrowed = 1;
	r->path_owned = 1; /* the expanded globs are the rule's */
	r->kind = POL_RULE_PATH;
	r->path_kind = POL_PATH_READ_ONLY;
	r->id = (char *)(uintptr_t)s->id;
	r->pattern = pat;
	r->reason = (char *)(uintptr_t)s->reason;
	r->severity = POL_SEV_HIGH;
	r->decision = POL_DENY;
	r->origin = pol_origin_intern(p, "<builtin>");
	if (index)
		pol_rule_index_add(p, p->n_rules - 1);
	if (path_rule_expand(p, r, pat, "<builtin>", 0, 0) < 0)
		return;
	for (int k = 0; k < 2; k++)
		if (s->sugg[k])
			b->sugg[r->n_suggestions++] = (char *)(uintptr_t)s->sugg[k];
	b->sugg[r->n_suggestions++] = pat + s->len + 1;
	r->suggestions = b->sugg;
	r->guarded = 1; /* no file below may lift it */
	/* dcg's own processes (the hook inside dcg run or dcg sandbox) write its state
	 * and log, as the embedded policy's {path: ~/.local/state/dcg/, owners: [':dcg']} */
	if (s->dcg_owned) {
		b->owners[0] = dcg_owner;
		r->owners = b->owners;
		r->n_owners = 1;
	}
}

void pol_add_self_rule(struct pol_policy *p, const char *id, const char *path, int folder,
		       int dcg_owned)
{
	static const char head[] = "If intentional: dcg allow ", tail[] = " -r \"reason\"";
	const enum pol_path_kind kind = POL_PATH_READ_ONLY;
	size_t len, idl = strlen(id);
	struct pol_head_pend *h = p->head_pend;
	struct pol_head_self s;
	struct self_block *b;
	struct pol_rule *r;
	char **nb, *pat;

	if (!path || path[0] != '/' || pol_rule_find(p, id) >= 0)
		return;
	/* no glob character (not strpbrk: two pages of libc's text for these few bytes) */
	static const unsigned char glob_char[256] = {
	    ['*'] = 1, ['?'] = 1, ['['] = 1, [']'] = 1, ['!'] = 1, ['\\'] = 1};
	for (const char *c = path; *c; c++)
		if (glob_char[(unsigned char)*c])
			return;
	len = strnlen(path, PATH_MAX); /* cut as it always was */
	if (folder) {
		while (len > 0 && path[len - 1] != '/')
			len--;
		if (len <= 1)
			return; /* never the whole root */
	}
	if (len < 2)
		return;
	nb = realloc(p->snap_bufs, (p->n_snap_bufs + 1) * sizeof(*nb));
	if (!nb)
		return;
	p->snap_bufs = nb;
	b = malloc(sizeof(*b) + len + 1 + sizeof(head) + idl + sizeof(tail));
	if (!b)
		return;
	nb[p->n_snap_bufs++] = (char *)b;
	pat = b->text;
	memcpy(pat, path, len);
	pat[len] = '\0';
	memcpy(pat + len + 1, head, sizeof(head) - 1);
	memcpy(pat + len + 1 + sizeof(head) - 1, id, idl);
	memcpy(pat + len + 1 + sizeof(head) - 1 + idl, tail, sizeof(tail));
	s.id = id;
	s.blk = b;
	s.len = len;
	/* what the agent is told: whose file it is, and who may change it */
	s.reason = "dcg's own file (its policy, state, log or program): read-only to the "
		   "processes it guards";
	s.sugg[0] = "Ask the user to make this change outside the guarded session";
	s.sugg[1] = NULL;
	(void)kind;
	s.dcg_owned = (unsigned char)dcg_owned;
	/* a lazy load's: made with the built-ins before it when something reads them; its
	 * expansion then cannot fail but for memory (shorter than PATH_MAX - 1), and its
	 * canonical form waits for the first path decision, as the rule's would */
	if (h && h->n == p->n_rules && h->n_self < POL_HEAD_SELF && len < PATH_MAX - 1) {
		h->self[h->n_self++] = s;
		h->n++;
		p->n_rules++;
		p->canon_pending = 1;
		p->path_groups_ready = 0;
		return;
	}
	r = pol_rule_new(p);
	if (r)
		pol_self_rule_fill(p, r, &s, 1);
}

/* ---- the YAML walker -------------------------------------------------------------- */

struct ldr {
	struct pol_policy *p;
	yaml_document_t *doc;
	const char *file;
	int untrusted;	    /* a project file the user has not trusted: loosening is ignored */
	char **overridable; /* the system file's `overridable:` list */
	size_t n_overridable;
	int errors;
	size_t entries; /* list items walked in this file, aliases counted per use */
	int too_many;
};

/* libyaml shares an aliased node instead of copying it, but the walker visits it once
 * per use: a 20,000-item list aliased as the suggestions (or allow paths) of 20,000
 * rules is a 100 KB file and 400 million strings. Every list item walked counts; past
 * this many in one file the rest of the file is ignored, with one diagnostic. The
 * largest real policies hold a few hundred entries. */
#define POL_FILE_ENTRIES_MAX 50000

#define LINE(n) POL_YAML_LINE((n)->start_mark)
#define COL(n)	POL_YAML_COL((n)->start_mark)

static void err(struct ldr *l, yaml_node_t *n, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void err(struct ldr *l, yaml_node_t *n, const char *rule, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pol_diag_add(l->p, l->file, n ? LINE(n) : 0, n ? COL(n) : 0, rule, 0, "%s", msg);
	l->errors++;
}

static int is_true(const char *s)
{
	return s && (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE") ||
		     !strcmp(s, "yes") || !strcmp(s, "on"));
}

static int is_bool(const char *s)
{
	return s && (is_true(s) || !strcmp(s, "false") || !strcmp(s, "False") ||
		     !strcmp(s, "FALSE") || !strcmp(s, "no") || !strcmp(s, "off"));
}

/* Calls fn for each item of a sequence node; a wrong type is a diagnostic. */
typedef void (*item_fn)(struct ldr *l, yaml_node_t *item, void *arg);

static void each_item(struct ldr *l, yaml_node_t *seq, const char *key, item_fn fn, void *arg)
{
	if (seq->type == YAML_SCALAR_NODE && pol_yaml_scalar(seq)[0] == '\0')
		return; /* "key:" with nothing: an empty list */
	if (seq->type != YAML_SEQUENCE_NODE) {
		err(l, seq, key, "'%s' must be a list", key);
		return;
	}
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	     it < seq->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(l->doc, *it);

		if (l->too_many)
			return;
		if (++l->entries > POL_FILE_ENTRIES_MAX) {
			l->too_many = 1;
			err(l, item, key,
			    "too many entries (over %d, aliases counted per use): the rest of the "
			    "file is ignored",
			    POL_FILE_ENTRIES_MAX);
			return;
		}
		if (item)
			fn(l, item, arg);
	}
}

static void owner_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	struct pol_rule *r = arg;
	const char *s = pol_yaml_scalar(item);
	const char *sp = s ? strchr(s, ' ') : NULL;
	char **no;

	if (!s || !s[0] || (s[0] == ':' && strcmp(s, ":agent") != 0 && strcmp(s, ":dcg") != 0) ||
	    (sp && (s[0] == '/' || s[0] == ':' || sp == s || !sp[1] || strchr(sp + 1, ' ')))) {
		err(l, item, r->pattern,
		    "owners must be program names (or a name and its subcommand: git stash), "
		    "absolute paths, :agent or :dcg");
		return;
	}
	if (sp && r->kind == POL_RULE_PATH) {
		/* a path decision never knows the program's subcommand: it would never match */
		err(l, item, r->pattern,
		    "an owner with a subcommand ('%s') applies to command rules only; a path "
		    "entry names the program alone (%.*s)",
		    s, (int)(sp - s), s);
		return;
	}
	no = realloc(r->owners, (r->n_owners + 1) * sizeof(*no));
	if (!no)
		return;
	r->owners = no;
	no[r->n_owners] = strdup(s);
	if (no[r->n_owners])
		r->n_owners++;
}

static int valid_id(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
		      (s[n] >= '0' && s[n] <= '9') || s[n] == '.' || s[n] == '_' || s[n] == '-'))
			return 0;
	return n > 0 && n < 120 && s[0] != '.' && s[n - 1] != '.';
}

static void suggestion_item(struct ldr *l, yaml_node_t *item, void *arg);

/* A path entry's own text, when it gives one: its reason replaces the kind's, its
 * suggestions the kind's, and ask: true makes a match ask instead of refuse. */
struct path_text {
	const char *reason;
	yaml_node_t *sugg;
	int ask;
};

static void path_text_apply(struct ldr *l, struct pol_rule *r, const struct path_text *t)
{
	if (t->ask)
		r->decision = POL_ASK;
	if (!t->reason && !t->sugg)
		return;
	if (t->reason) {
		char *nr = strdup(t->reason);

		if (!nr)
			return;
		free(r->reason);
		r->reason = nr;
	}
	if (t->sugg) {
		pol_strv_free(r->suggestions, r->n_suggestions);
		r->suggestions = NULL;
		r->n_suggestions = 0;
		each_item(l, t->sugg, "suggestions", suggestion_item, r);
		pol_rule_add_allow_suggestion(r);
	}
}

/* The scalar keys of a path entry's mapping: 1 when ks was one of them. */
static int path_key(struct ldr *l, enum pol_path_kind kind, const char *ks, yaml_node_t *v,
		    const char **s, const char **given, struct path_text *t)
{
	const char *vs = pol_yaml_scalar(v);

	if (!strcmp(ks, "path") && vs) {
		*s = vs;
	} else if (!strcmp(ks, "id") && vs && valid_id(vs)) {
		*given = vs;
	} else if (!strcmp(ks, "id")) {
		err(l, v, pol_path_kind_name(kind),
		    "id must be letters, digits, '.', '_' or '-' (the ID from the pattern is "
		    "used)");
	} else if (!strcmp(ks, "reason") && vs && vs[0]) {
		t->reason = vs;
	} else if (!strcmp(ks, "ask") && vs) {
		if (!is_bool(vs))
			err(l, v, pol_path_kind_name(kind), "'ask' must be true or false");
		t->ask = is_true(vs);
	} else {
		return 0;
	}
	return 1;
}

/* A path entry: a pattern, or {path: PATTERN, id: ID, owners: [PROGRAM...], reason:,
 * ask:, suggestions: [...]} where the owners (system programs such as git) may manage
 * what it covers at runtime. arg: the kind, with PATH_ITEM_OWN_SECTION when the entry
 * comes from a section of its own (runsLater.paths), which takes no positional ID. */
#define PATH_ITEM_OWN_SECTION 0x100L

static void path_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	long a = (long)arg;
	enum pol_path_kind kind = (enum pol_path_kind)(a & 0xff);
	const char *s = pol_yaml_scalar(item), *given = NULL;
	yaml_node_t *owners = NULL;
	struct path_text t = {NULL, NULL, 0};

	if (item->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *pr = item->data.mapping.pairs.start;
		     pr < item->data.mapping.pairs.top; pr++) {
			yaml_node_t *k = yaml_document_get_node(l->doc, pr->key);
			yaml_node_t *v = yaml_document_get_node(l->doc, pr->value);
			const char *ks = pol_yaml_scalar(k);

			if (ks && v && path_key(l, kind, ks, v, &s, &given, &t))
				continue;
			if (ks && v && !strcmp(ks, "owners"))
				owners = v;
			else if (ks && v && !strcmp(ks, "suggestions"))
				t.sugg = v;
			else
				err(l, k ? k : item, pol_path_kind_name(kind),
				    "unknown key '%s' in a path entry (path, id, owners, reason, "
				    "ask, suggestions)",
				    ks ? ks : "?");
		}
	}
	if (!s) {
		err(l, item, pol_path_kind_name(kind),
		    "a path entry must be a pattern or a mapping with path (and owners)");
		return;
	}
	if (!s[0] || (s[0] == '!' && !s[1])) {
		err(l, item, pol_path_kind_name(kind), "empty path pattern");
		return;
	}
	if (add_path_rule(l->p, kind, s, l->file, LINE(item), COL(item), given,
			  !(a & PATH_ITEM_OWN_SECTION)) < 0)
		return;
	if (owners)
		each_item(l, owners, "owners", owner_item, &pol_rules(l->p)[l->p->n_rules - 1]);
	path_text_apply(l, &pol_rules(l->p)[l->p->n_rules - 1], &t);
	if (a & PATH_ITEM_OWN_SECTION)
		pol_rules(l->p)[l->p->n_rules - 1].plants = 1;
	if (l->untrusted && s[0] == '!') {
		pol_ignored_add(l->p, l->file, LINE(item), "exclusion", s,
				"lifts only this file's own patterns until the file is trusted");
	}
}

/* Observe mode is set by the system file and the user's own files only (never a
 * project file, trusted or not), and the system file may forbid it: why not, or NULL. */
static const char *observe_refused(const struct ldr *l)
{
	if (l->p->scope == POL_SCOPE_PROJECT)
		return "a project file cannot set observe mode, trusted or not";
	if (l->p->scope != POL_SCOPE_SYSTEM && l->p->scope != POL_SCOPE_DEFAULT &&
	    l->p->observe_forbidden)
		return "the system file forbids observe mode (mode: enforce)";
	return NULL;
}

/* mode: observe | enforce */
static void mode_key(struct ldr *l, yaml_node_t *v)
{
	const char *s = pol_yaml_scalar(v), *why;
	int sys = l->p->scope == POL_SCOPE_SYSTEM;

	if (!s || (strcmp(s, "observe") && strcmp(s, "enforce"))) {
		err(l, v, NULL, "'mode' is observe or enforce");
		return;
	}
	if (!strcmp(s, "enforce")) {
		if (sys)
			l->p->observe_forbidden = 1; /* and the user's files may not observe */
		else if (!observe_refused(l))
			l->p->observe_all = 0;
		return;
	}
	if ((why = observe_refused(l))) {
		pol_ignored_add(l->p, l->file, LINE(v), "mode", "observe", why);
		return;
	}
	if (sys)
		l->p->observe_all_sys = 1;
	else
		l->p->observe_all = 1;
}

/* observe: [ID or pack, ...] */
static void observe_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	const char *s = pol_yaml_scalar(item), *why;
	int sys = l->p->scope == POL_SCOPE_SYSTEM;

	if (!s || !s[0]) {
		err(l, item, "observe", "'observe' entries must be rule IDs or packs");
		return;
	}
	if ((why = observe_refused(l))) {
		pol_ignored_add(l->p, l->file, LINE(item), "observe", s, why);
		return;
	}
	if ((sys ? pol_strv_push(&l->p->observe_sys, &l->p->n_observe_sys, s)
		 : pol_strv_push(&l->p->observe, &l->p->n_observe, s)) < 0)
		err(l, item, "observe", "out of memory");
}

/* A loosening entry of an untrusted file: noted, not applied. */
static void ignored_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	const char *what = arg, *text = pol_yaml_scalar(item);

	if (item->type == YAML_MAPPING_NODE)
		for (yaml_node_pair_t *pr = item->data.mapping.pairs.start;
		     pr < item->data.mapping.pairs.top; pr++) {
			const char *ks = pol_yaml_scalar(yaml_document_get_node(l->doc, pr->key));
			if (ks && !strcmp(ks, "rule"))
				text = pol_yaml_scalar(yaml_document_get_node(l->doc, pr->value));
		}
	pol_ignored_add(l->p, l->file, LINE(item), what, text ? text : "?",
			"the file is not trusted");
}

static void strlist_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	struct {
		char ***v;
		size_t *n;
		const char *key;
	} *dst = arg;
	const char *s = pol_yaml_scalar(item);
	char **nv;

	if (!s || !s[0]) {
		err(l, item, dst->key, "'%s' entries must be non-empty strings", dst->key);
		return;
	}
	nv = realloc(*dst->v, (*dst->n + 1) * sizeof(*nv));
	if (!nv)
		return;
	*dst->v = nv;
	nv[*dst->n] = strdup(s);
	if (nv[*dst->n])
		(*dst->n)++;
}

static void suggestion_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	struct pol_rule *r = arg;
	const char *s = pol_yaml_scalar(item);

	if (!s) {
		err(l, item, r->id, "suggestions must be strings");
		return;
	}
	pol_rule_add_suggestion(r, s);
}

static void example_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	const char *s = pol_yaml_scalar(item);

	if (!s || !s[0])
		err(l, item, arg, "examples must be non-empty strings (commands)");
}

/* examples: {stop: [CMD...], pass: [CMD...]}: commands the rule must stop and must let
 * pass. The load only checks their form; dcg rules lint and the tests decide each one
 * (pol_examples_check). */
static void check_examples(struct ldr *l, yaml_node_t *v, const char *id)
{
	if (v->type != YAML_MAPPING_NODE) {
		err(l, v, id, "'examples' must be a mapping: {stop: [...], pass: [...]}");
		return;
	}
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *k = yaml_document_get_node(l->doc, pr->key);
		yaml_node_t *list = yaml_document_get_node(l->doc, pr->value);
		const char *ks = pol_yaml_scalar(k);

		if (!ks || (strcmp(ks, "stop") != 0 && strcmp(ks, "pass") != 0) || !list)
			err(l, k ? k : v, id, "'examples' takes stop: and pass: lists only");
		else
			each_item(l, list, "examples", example_item, (void *)id);
	}
}

/* A pattern rule: bashToolPatterns entries (damage-control) and rules (dcg). */
static void rule_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	int damage_control = arg != NULL;
	const char *key = damage_control ? "bashToolPatterns" : "rules";
	const char *pattern = NULL, *reason = NULL, *id = NULL, *sev = NULL, *lang = NULL;
	yaml_node_t *sugg = NULL, *owners = NULL, *examples = NULL, *pattern_node = item;
	int ask = 0, enabled = 1, caseless = damage_control, bad = 0, runtime_paths = 0;
	struct pol_rule *r;
	char idbuf[64];

	if (item->type != YAML_MAPPING_NODE) {
		err(l, item, key, "each entry of '%s' must be a mapping with pattern and reason",
		    key);
		return;
	}
	for (yaml_node_pair_t *pr = item->data.mapping.pairs.start;
	     pr < item->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(l->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(l->doc, pr->value);
		const char *ks = pol_yaml_scalar(k), *vs = pol_yaml_scalar(v);

		if (!ks || !v) {
			err(l, k ? k : item, key, "keys must be strings");
			bad = 1;
			continue;
		}
		if (!strcmp(ks, "suggestions")) {
			sugg = v;
			continue;
		}
		if (!damage_control && !strcmp(ks, "owners")) {
			owners = v;
			continue;
		}
		if (!damage_control && !strcmp(ks, "examples")) {
			examples = v;
			continue;
		}
		if (!vs) {
			err(l, v, id ? id : pattern, "'%s' must be a single value", ks);
			bad = 1;
			continue;
		}
		if (!strcmp(ks, "pattern")) {
			pattern = vs;
			pattern_node = v;
		} else if (!strcmp(ks, "reason")) {
			reason = vs;
		} else if (!strcmp(ks, "ask")) {
			if (!is_bool(vs))
				err(l, v, pattern, "'ask' must be true or false");
			ask = is_true(vs);
		} else if (!damage_control && !strcmp(ks, "id")) {
			id = vs;
		} else if (!damage_control && !strcmp(ks, "severity")) {
			sev = vs;
		} else if (!damage_control && !strcmp(ks, "language")) {
			lang = vs;
		} else if (!damage_control && !strcmp(ks, "enabled")) {
			/* A typo ("ture") must not switch a rule off silently: it stays on. */
			if (!is_bool(vs))
				err(l, v, id ? id : pattern,
				    "'enabled' must be true or false (rule left enabled)");
			else
				enabled = is_true(vs);
		} else if (!damage_control && !strcmp(ks, "runtime")) {
			/* paths: at runtime the files touched decide; exec: the command */
			if (strcmp(vs, "paths") != 0 && strcmp(vs, "exec") != 0)
				err(l, v, id ? id : pattern,
				    "'runtime' must be paths or exec (left at exec)");
			runtime_paths = !strcmp(vs, "paths");
		} else if (!damage_control && !strcmp(ks, "caseless")) {
			if (!is_bool(vs))
				err(l, v, id ? id : pattern, "'caseless' must be true or false");
			caseless = is_true(vs);
		} else {
			err(l, k, id ? id : pattern, "unknown key '%s' in %s entry (ignored)", ks,
			    key);
		}
	}
	if (examples)
		check_examples(l, examples, id ? id : pattern);
	if (bad)
		return;
	if (!pattern || !pattern[0]) {
		err(l, item, id, "%s entry without a pattern (ignored)", key);
		return;
	}
	if (!damage_control && (!id || !id[0])) {
		err(l, item, pattern, "rule without an id (ignored): dcg rules need a stable id");
		return;
	}
	if (!damage_control && pol_rule_find(l->p, id) >= 0) {
		err(l, item, id, "duplicate rule id '%s' (ignored)", id);
		return;
	}
	enum pol_severity severity = POL_SEV_HIGH;
	if (sev && pol_severity_parse(sev, &severity) < 0)
		err(l, item, id, "unknown severity '%s' (critical, high, medium, low): using high",
		    sev);
	if (lang && !pol_language_intern(lang)) {
		err(l, item, id, "unknown language '%s' (ignored)", lang);
		return;
	}
	r = pol_rule_new(l->p);
	if (!r)
		return;
	if (damage_control) {
		snprintf(idbuf, sizeof(idbuf), "%s.bash.%zu", scope_names[l->p->scope],
			 ++l->p->bash_count[l->p->scope]);
		id = idbuf;
	}
	r->id = strdup(id);
	r->kind = lang ? POL_RULE_SCRIPT : POL_RULE_COMMAND;
	r->language = pol_language_intern(lang);
	r->pattern = strdup(pattern);
	r->reason = strdup(reason && reason[0] ? reason : "matches a destructive pattern");
	r->severity = severity;
	r->caseless = caseless;
	r->runtime_paths = runtime_paths;
	r->words_only = (unsigned char)pol_pattern_words_only(pattern);
	r->enabled = enabled;
	r->origin = pol_origin_intern(l->p, l->file);
	r->line = LINE(item);
	if (!r->id || !r->pattern || !r->reason) {
		l->p->n_rules--;
		pol_rule_finish(r);
		return;
	}
	pol_rule_index_add(l->p, l->p->n_rules - 1);
	if (ask)
		r->decision = POL_ASK;
	else if (severity >= POL_SEV_HIGH)
		r->decision = POL_DENY;
	else if (severity == POL_SEV_MEDIUM)
		r->decision = POL_WARN;
	else
		r->decision = POL_LOG;
	if (sugg)
		each_item(l, sugg, "suggestions", suggestion_item, r);
	/* owners of a command rule: at runtime, a program of theirs may run the command
	 * (git's own `git reset --hard` inside `git stash`); the agent's commands may not */
	if (owners)
		each_item(l, owners, "owners", owner_item, r);
	pol_rule_add_allow_suggestion(r);
	pol_rule_prepare_regex(l->p, r, l->file, LINE(pattern_node), COL(pattern_node));
}

static int parse_date(const char *s, time_t *out)
{
	struct tm tm;
	char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%d", &tm);
	if (!end || *end)
		return -EINVAL;
	/* strptime takes any day 1-31 in any month: 2030-02-30 would silently hold until
	 * March 3. A date that does not come back the same from timegm does not exist. */
	struct tm check = tm;
	time_t t = timegm(&check);
	if (check.tm_mday != tm.tm_mday || check.tm_mon != tm.tm_mon || t == (time_t)-1)
		return -EINVAL;
	tm.tm_mday += 1; /* the entry holds through its expiry day (UTC) */
	*out = timegm(&tm);
	return 0;
}

static void allow_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	const char *rule = NULL, *reason = NULL, *expires = NULL;
	yaml_node_t *paths = NULL;
	struct pol_allow a;

	(void)arg;
	if (item->type != YAML_MAPPING_NODE) {
		err(l, item, "allow", "each 'allow' entry must be a mapping with rule and reason");
		return;
	}
	memset(&a, 0, sizeof(a));
	for (yaml_node_pair_t *pr = item->data.mapping.pairs.start;
	     pr < item->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(l->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(l->doc, pr->value);
		const char *ks = pol_yaml_scalar(k);

		if (!ks || !v)
			continue;
		if (!strcmp(ks, "paths")) {
			paths = v;
			continue;
		}
		if (!pol_yaml_scalar(v)) {
			err(l, v, rule, "'%s' must be a single value", ks);
			continue;
		}
		if (!strcmp(ks, "rule"))
			rule = pol_yaml_scalar(v);
		else if (!strcmp(ks, "reason"))
			reason = pol_yaml_scalar(v);
		else if (!strcmp(ks, "expires"))
			expires = pol_yaml_scalar(v);
		else
			err(l, k, rule, "unknown key '%s' in allow entry (ignored)", ks);
	}
	if (!rule || !rule[0]) {
		err(l, item, NULL, "allow entry without a rule ID (ignored)");
		return;
	}
	/* A glob may name a pack (core.git.*), never everything: '*' or '?*' would lift
	 * every rule, the defaults included, in one line. */
	size_t lit = strcspn(rule, "*?[");
	if (rule[lit] && (lit == 0 || !memchr(rule, '.', lit))) {
		err(l, item, rule,
		    "allow entry must name a rule or a pack such as core.git.* (ignored)");
		return;
	}
	if (!reason || !reason[0]) {
		err(l, item, rule, "allow entry without a reason (ignored): say why it is safe");
		return;
	}
	if (expires && parse_date(expires, &a.expires) < 0) {
		err(l, item, rule, "expires must be a date YYYY-MM-DD (entry ignored)");
		return;
	}
	if (paths) {
		char **v = NULL;
		size_t n = 0;
		struct {
			char ***v;
			size_t *n;
			const char *key;
		} dst = {&v, &n, "paths"};

		each_item(l, paths, "paths", strlist_item, &dst);
		/* No path left means "everywhere" to the allowlist: an entry meant for some
		 * paths whose paths are all malformed (or an empty list) is dropped instead. */
		if (n == 0) {
			err(l, paths, rule,
			    "allow entry with 'paths' but no usable path (entry ignored): "
			    "leave 'paths' out to allow everywhere");
			free(v);
			return;
		}
		for (size_t i = 0; i < n; i++) {
			char buf[PATH_MAX];

			if (pol_path_normalize(v[i], l->p->root, l->p->home, buf, sizeof(buf)) ==
			    0) {
				free(v[i]);
				v[i] = strdup(buf);
			}
		}
		a.paths = v;
		a.n_paths = n;
	}
	struct pol_allow *na = realloc(l->p->allows, (l->p->n_allows + 1) * sizeof(*na));
	if (!na) {
		pol_strv_free(a.paths, a.n_paths);
		return;
	}
	l->p->allows = na;
	a.rule = strdup(rule);
	a.reason = strdup(reason);
	a.origin = pol_origin_intern(l->p, l->file);
	a.line = LINE(item);
	na[l->p->n_allows++] = a;
}

/* ---- the data sections: catastrophic:, ownerFolders:, pathReasons: (facts.c) ------ */

struct fact_dst {
	enum pol_fact kind;
	const char *key;
};

static void fact_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	const struct fact_dst *d = arg;
	const char *s = pol_yaml_scalar(item);

	if ((s ? pol_fact_add(l->p, d->kind, s, 0) : -EINVAL) == -EINVAL)
		err(l, item, d->key,
		    d->kind == POL_FACT_OWNER_FOLDER
			? "'%s' entries must be absolute folders ending with '/'"
			: "'%s' entries must be non-empty strings",
		    d->key);
}

/* catastrophic: {words: [...], prefixes: [...]}: adds to what earlier files named
 * (only tightening: any file may). */
static void catastrophic_section(struct ldr *l, yaml_node_t *v)
{
	static const struct fact_dst words = {POL_FACT_CATA_WORD, "catastrophic.words"},
				     prefixes = {POL_FACT_CATA_PREFIX, "catastrophic.prefixes"};

	if (v->type != YAML_MAPPING_NODE) {
		err(l, v, NULL, "'catastrophic' must be a mapping with words and prefixes");
		return;
	}
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *k = yaml_document_get_node(l->doc, pr->key);
		yaml_node_t *val = yaml_document_get_node(l->doc, pr->value);
		const char *ks = pol_yaml_scalar(k);

		if (ks && val && !strcmp(ks, "words"))
			each_item(l, val, words.key, fact_item, (void *)&words);
		else if (ks && val && !strcmp(ks, "prefixes"))
			each_item(l, val, prefixes.key, fact_item, (void *)&prefixes);
		else
			err(l, k ? k : v, NULL,
			    "unknown key '%s' in 'catastrophic' (words, prefixes)", ks ? ks : "");
	}
}

/* ownerFolders: [...]: where a program named as an owner must live. Naming a folder
 * loosens the path rules with owners, so only the defaults and the system file may. */
static void owner_folders_section(struct ldr *l, yaml_node_t *v)
{
	static const struct fact_dst folders = {POL_FACT_OWNER_FOLDER, "ownerFolders"};

	if (l->p->scope != POL_SCOPE_DEFAULT && l->p->scope != POL_SCOPE_SYSTEM) {
		err(l, v, NULL, "'ownerFolders' is read only from the system file (ignored)");
		return;
	}
	each_item(l, v, folders.key, fact_item, (void *)&folders);
}

static void path_reason_entry(struct ldr *l, yaml_node_t *k, yaml_node_t *v)
{
	static const char *const kinds[] = {"zeroAccess", "readOnly", "noDelete"};
	const char *ks = pol_yaml_scalar(k), *reason, *sugg[2] = {NULL, NULL};
	yaml_node_t *sv;
	size_t kind = 0, n = 0;

	while (kind < 3 && !(ks && !strcmp(ks, kinds[kind])))
		kind++;
	if (kind == 3 || !v || v->type != YAML_MAPPING_NODE) {
		err(l, k, NULL,
		    "'pathReasons' maps zeroAccess, readOnly or noDelete to {reason, suggestions}");
		return;
	}
	reason = pol_yaml_scalar(pol_yaml_get(l->doc, v, "reason"));
	sv = pol_yaml_get(l->doc, v, "suggestions");
	if (sv && sv->type == YAML_SEQUENCE_NODE)
		for (yaml_node_item_t *it = sv->data.sequence.items.start;
		     it < sv->data.sequence.items.top && n < 3; it++, n++)
			if (n < 2)
				sugg[n] = pol_yaml_scalar(yaml_document_get_node(l->doc, *it));
	if (!reason || !reason[0] || (sv && (sv->type != YAML_SEQUENCE_NODE || n > 2)) ||
	    (n > 0 && !sugg[0]) || (n > 1 && !sugg[1])) {
		err(l, k, NULL,
		    "'pathReasons.%s' needs a reason and at most two suggestions (strings)", ks);
		return;
	}
	pol_fact_path_reason(l->p, (enum pol_path_kind)kind, reason, sugg[0], sugg[1], 0);
}

/* pathReasons: {zeroAccess: {reason, suggestions}, ...}: the text of the path rules
 * added after it (read before the file's path lists). A file the user has not trusted
 * may not reword what dcg tells the agent. */
static void path_reasons_section(struct ldr *l, yaml_node_t *v)
{
	if (l->untrusted) {
		err(l, v, NULL, "'pathReasons' in a project file not trusted: ignored");
		return;
	}
	if (v->type != YAML_MAPPING_NODE) {
		err(l, v, NULL, "'pathReasons' must be a mapping");
		return;
	}
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++)
		path_reason_entry(l, yaml_document_get_node(l->doc, pr->key),
				  yaml_document_get_node(l->doc, pr->value));
}

/* runsLater: {paths: [...], rules: [...]}: what another program runs later, outside the
 * guard (git hooks, shell start files, schedulers, editor tasks...). Its paths are
 * read-only entries of their own (each with an ID, a reason, ask or deny), its rules
 * ordinary rules: one section, so that the protection reads as one piece. */
static void runs_later_section(struct ldr *l, yaml_node_t *v)
{
	if (v->type != YAML_MAPPING_NODE) {
		err(l, v, "runsLater", "'runsLater' must be a mapping with paths and rules");
		return;
	}
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *k = yaml_document_get_node(l->doc, pr->key);
		yaml_node_t *sv = yaml_document_get_node(l->doc, pr->value);
		const char *ks = pol_yaml_scalar(k);

		if (ks && sv && !strcmp(ks, "paths"))
			each_item(l, sv, "runsLater.paths", path_item,
				  (void *)(PATH_ITEM_OWN_SECTION | POL_PATH_READ_ONLY));
		else if (ks && sv && !strcmp(ks, "rules"))
			each_item(l, sv, "runsLater.rules", rule_item, NULL);
		else
			err(l, k ? k : v, "runsLater",
			    "unknown key '%s' in 'runsLater' (paths, rules)", ks ? ks : "?");
	}
}

static void load_document(struct ldr *l)
{
	yaml_node_t *root = yaml_document_get_root_node(l->doc);

	if (!root)
		return; /* an empty file: nothing to add */
	if (root->type == YAML_SCALAR_NODE && pol_yaml_scalar(root)[0] == '\0')
		return;
	if (root->type != YAML_MAPPING_NODE) {
		err(l, root, NULL,
		    "a policy file must be a mapping of keys (bashToolPatterns, "
		    "zeroAccessPaths, readOnlyPaths, noDeletePaths, rules, packs, allow)");
		return;
	}
	/* The path kinds' reasons first: the file's own path lists take them. */
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	     pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *v = yaml_document_get_node(l->doc, pr->value);
		const char *ks = pol_yaml_scalar(yaml_document_get_node(l->doc, pr->key));

		if (ks && v && !strcmp(ks, "pathReasons"))
			path_reasons_section(l, v);
	}
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	     pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(l->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(l->doc, pr->value);
		const char *ks = pol_yaml_scalar(k);

		if (!ks || !v) {
			err(l, k ? k : root, NULL, "top-level keys must be strings");
			continue;
		}
		if (!strcmp(ks, "bashToolPatterns")) {
			each_item(l, v, ks, rule_item, (void *)1);
		} else if (!strcmp(ks, "rules")) {
			each_item(l, v, ks, rule_item, NULL);
		} else if (!strcmp(ks, "zeroAccessPaths")) {
			each_item(l, v, ks, path_item, (void *)(long)POL_PATH_ZERO_ACCESS);
		} else if (!strcmp(ks, "readOnlyPaths")) {
			each_item(l, v, ks, path_item, (void *)(long)POL_PATH_READ_ONLY);
		} else if (!strcmp(ks, "noDeletePaths")) {
			each_item(l, v, ks, path_item, (void *)(long)POL_PATH_NO_DELETE);
		} else if (!strcmp(ks, "packs")) {
			struct {
				char ***v;
				size_t *n;
				const char *key;
			} dst = {&l->p->enable, &l->p->n_enable, ks};
			each_item(l, v, ks, strlist_item, &dst);
		} else if (l->untrusted && (!strcmp(ks, "disable") || !strcmp(ks, "allow"))) {
			each_item(l, v, ks, ignored_item,
				  (void *)(!strcmp(ks, "allow") ? "allow" : "disable"));
		} else if (!strcmp(ks, "overridable") && l->p->scope == POL_SCOPE_SYSTEM) {
			struct {
				char ***v;
				size_t *n;
				const char *key;
			} dst = {&l->overridable, &l->n_overridable, ks};
			each_item(l, v, ks, strlist_item, &dst);
		} else if (!strcmp(ks, "disable")) {
			struct {
				char ***v;
				size_t *n;
				const char *key;
			} dst = {&l->p->disable, &l->p->n_disable, ks};
			each_item(l, v, ks, strlist_item, &dst);
		} else if (!strcmp(ks, "allow")) {
			each_item(l, v, ks, allow_item, NULL);
		} else if (!strcmp(ks, "mode")) {
			mode_key(l, v);
		} else if (!strcmp(ks, "observe")) {
			each_item(l, v, ks, observe_item, NULL);
		} else if (!strcmp(ks, "runsLater")) {
			runs_later_section(l, v);
		} else if (!strcmp(ks, "catastrophic")) {
			catastrophic_section(l, v);
		} else if (!strcmp(ks, "ownerFolders")) {
			owner_folders_section(l, v);
		} else if (!strcmp(ks, "version") || !strcmp(ks, "tools") ||
			   !strcmp(ks, "pathReasons")) {
			/* version: informative; tools: read by the hook (tool classes) */
		} else {
			err(l, k, NULL,
			    "unknown key '%s' (ignored); known keys: bashToolPatterns, "
			    "zeroAccessPaths, readOnlyPaths, noDeletePaths, rules, runsLater, "
			    "packs, disable, allow, mode, observe, catastrophic, pathReasons%s",
			    ks,
			    l->p->scope == POL_SCOPE_SYSTEM ? ", overridable, ownerFolders" : "");
		}
	}
}

/* libyaml's scanner spends O(depth) per token inside nested flow collections, so a
 * file of a few kilobytes of "[[[[...]]]]" takes minutes to parse (80 KB: 17 s). A
 * policy never nests deeper than a few levels: when the text holds enough '[' and '{'
 * to nest deeper than the limit, a first pass over the events refuses the file at the
 * first collection nested too deep, before the document is built. Block collections
 * ("- - - x") cost linear time and need no check. */
/* The system file's rules are guarded, but for those its `overridable:` list names
 * (by ID or pack prefix, "*" for all). */
static void guard_rules(struct ldr *l, size_t first)
{
	for (size_t i = first; i < l->p->n_rules; i++) {
		struct pol_rule *r = &pol_rules(l->p)[i];
		size_t idlen = strlen(r->id);
		int open = 0;

		for (size_t k = 0; k < l->n_overridable && !open; k++) {
			size_t n = strlen(l->overridable[k]);
			open = !strcmp(l->overridable[k], "*") ||
			       (strncmp(r->id, l->overridable[k], n) == 0 &&
				(idlen == n || r->id[n] == '.'));
		}
		r->guarded = !open;
	}
}

static int load_scoped(struct pol_policy *p, const char *name, const char *buf, size_t len,
		       int scope, int untrusted)
{
	yaml_document_t doc;
	struct pol_yaml_diag d;
	struct ldr l = {.p = p, .doc = &doc, .file = name, .untrusted = untrusted};
	size_t first = p->n_rules;
	int rc = 0;

	p->scope = scope;
	pol_origin_intern(p, name);
	rc = pol_yaml_load(buf, len, POL_FILE_MAX, &doc, &d);
	if (rc == -EINVAL)
		pol_diag_add(p, name, d.line, d.col, NULL, 1, "%s", d.msg);
	if (rc < 0)
		return rc;
	load_document(&l);
	yaml_document_delete(&doc);
	if (scope == POL_SCOPE_SYSTEM)
		guard_rules(&l, first);
	for (size_t i = first; untrusted && i < p->n_rules; i++) {
		pol_rules(p)[i].untrusted = 1; /* its exclusions lift only its own patterns */
		if (i < p->untrusted_from)
			p->untrusted_from = i;
	}
	pol_strv_free(l.overridable, l.n_overridable);
	pol_rules_refresh(p);
	/* Bad entries were reported and skipped; the file is not refused whole, so the
	 * header's contract holds: 0 with diagnostics. Callers count the diagnostics. */
	return 0;
}

int pol_load_buffer(struct pol_policy *p, const char *name, const char *buf, size_t len)
{
	return load_scoped(p, name, buf, len, POL_SCOPE_POLICY, 0);
}

int pol_load_buffer_default(struct pol_policy *p, const char *buf, size_t len)
{
	return load_scoped(p, "<embedded>", buf, len, POL_SCOPE_DEFAULT, 0);
}

/* A project file's trust: its content's hash against the user's records. */
static int project_untrusted(struct pol_policy *p, const char *path, const char *buf, size_t len,
			     const char *trust_file)
{
	char real[PATH_MAX], hex[65];

	p->project_file = pol_origin_intern(p, path);
	if (!realpath(path, real)) {
		p->project_trust = POL_TRUST_BROKEN;
		snprintf(p->project_why, sizeof(p->project_why), "its real path is unknown: %s",
			 strerror(errno));
		return 1;
	}
	pol_sha256_hex(buf, len, hex);
	p->project_trust =
	    pol_trust_lookup(trust_file, real, hex, p->project_why, sizeof(p->project_why));
	return p->project_trust != POL_TRUST_TRUSTED;
}

int pol_load_file_scoped(struct pol_policy *p, const char *path, int scope, const char *trust_file)
{
	char *buf;
	size_t got;
	int rc = pol_read_file(path, POL_FILE_MAX, 1, &buf, &got);

	if (rc == -EINVAL || rc == -EISDIR) {
		pol_diag_add(p, path, 0, 0, NULL, 1, "not a regular file: ignored");
		return -EINVAL;
	}
	if (rc == -EFBIG) {
		pol_diag_add(p, path, 0, 0, NULL, 1, "file is over the %u MiB limit: refused",
			     POL_FILE_MAX >> 20);
		return -EINVAL;
	}
	if (rc < 0)
		return rc;
	rc = load_scoped(p, path, buf, got, scope,
			 scope == POL_SCOPE_PROJECT &&
			     project_untrusted(p, path, buf, got, trust_file));
	free(buf);
	return rc;
}

int pol_load_file(struct pol_policy *p, const char *path)
{
	return pol_load_file_scoped(p, path, POL_SCOPE_POLICY, NULL);
}
