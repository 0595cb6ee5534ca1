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

#define POL_FILE_MAX (16u * 1024 * 1024)

enum { SCOPE_DEFAULT = 0, SCOPE_USER, SCOPE_PROJECT, SCOPE_POLICY, SCOPE_SYSTEM };
/* The system file's entries are "site.*": "system" is the pack of system commands. */
static const char *const scope_names[] = {"default", "user", "project", "policy", "site"};
static const char *const path_kind_ids[] = {"zero_access", "read_only", "no_delete"};

/* ---- allocation through the policy's hook, for PCRE2 ------------------------------- */

static void *pcre_alloc(size_t size, void *data)
{
	(void)data;
	return pol_mem_alloc(size);
}

static void pcre_free(void *ptr, void *data)
{
	(void)data;
	pol_mem_free(ptr);
}

struct pol_policy *pol_new(unsigned flags)
{
	struct pol_policy *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->flags = flags;
	p->untrusted_from = SIZE_MAX;
	p->gctx = pcre2_general_context_create(pcre_alloc, pcre_free, NULL);
	p->mctx = pcre2_match_context_create(p->gctx);
	p->cctx = pcre2_compile_context_create(p->gctx);
	if (!p->gctx || !p->mctx || !p->cctx)
		goto out_free;
	/* Limits so that no pattern can hang a decision: a limit hit counts as a match. */
	pcre2_set_match_limit(p->mctx, 200000);
	pcre2_set_depth_limit(p->mctx, 5000);
	pcre2_set_heap_limit(p->mctx, 8 * 1024);
	const char *home = getenv("HOME");
	p->home = strdup(home && home[0] == '/' ? home : "/");
	char cwd[PATH_MAX];
	p->root = strdup(getcwd(cwd, sizeof(cwd)) ? cwd : "/");
	if (!p->home || !p->root)
		goto out_free;
	pol_origin_intern(p, "<builtin>");
	if (pol_shell_register_builtins(p) < 0 ||
	    pol_rule_add_builtin(
		p, "input.invalid",
		"the input holds a NUL byte or invalid UTF-8: it cannot be checked",
		POL_SEV_CRITICAL, "Send the command as plain UTF-8 text") < 0 ||
	    pol_rule_add_builtin(p, "input.too_long", "the input is too long to check (over 4 MiB)",
				 POL_SEV_CRITICAL,
				 "Split the work into smaller commands or a script file") < 0 ||
	    pol_rule_add_builtin(p, "input.path_too_long", "the path is too long to check",
				 POL_SEV_CRITICAL, "Use a shorter path") < 0 ||
	    pol_rule_add_builtin(p, "runtime.mount",
				 "mounting, changing the root or a new mount namespace would "
				 "rearrange the tree every path rule is written for",
				 POL_SEV_CRITICAL, "Run it outside dcg run / dcg sandbox") < 0 ||
	    pol_rule_add_builtin(p, "sandbox.raw_write",
				 "writing to a block device, kernel memory or a kernel hook goes "
				 "around every path rule at once",
				 POL_SEV_CRITICAL, "Write to a file, not to the device") < 0 ||
	    pol_rule_add_builtin(p, "sandbox.mknod_device",
				 "a device node gives raw access to a disk or kernel memory",
				 POL_SEV_CRITICAL, "Create a regular file or a FIFO instead") < 0 ||
	    pol_rule_add_builtin(
		p, "shell.analysis_failed", "the command could not be analysed within dcg's limits",
		POL_SEV_CRITICAL, "Write the command more simply, or as a script file") < 0)
		goto out_free;
	return p;

out_free:
	pol_free(p);
	return NULL;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void pol_rule_finish(struct pol_rule *r)
{
	if (!r->borrowed) {
		free(r->id);
		free(r->pattern);
		free(r->reason);
		for (size_t i = 0; i < r->n_suggestions; i++)
			free(r->suggestions[i]);
	}
	if (!r->borrowed || r->path_owned) {
		free(r->path.glob);
		free(r->path_canon.glob);
	}
	if (!r->borrowed) { /* else the arrays are in the snapshot's pool */
		for (size_t i = 0; i < r->n_owners; i++)
			free(r->owners[i]);
		free(r->owners);
		free(r->suggestions);
	}
	if (r->code)
		pcre2_code_free(r->code);
	if (!r->borrowed)
		free(r->keyword);
	free(r->compile_error);
}

void pol_free(struct pol_policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_rules; i++)
		pol_rule_finish(&p->rules[i]);
	free(p->rules);
	for (size_t i = 0; i < p->n_allows; i++) {
		free(p->allows[i].rule);
		free(p->allows[i].reason);
		free_strv(p->allows[i].paths, p->allows[i].n_paths);
	}
	free(p->allows);
	free_strv(p->files, p->n_files);
	free(p->diags);
	free(p->ignored);
	free_strv(p->enable, p->n_enable);
	free_strv(p->disable, p->n_disable);
	pcre2_match_context_free(p->mctx);
	pcre2_compile_context_free(p->cctx);
	pcre2_general_context_free(p->gctx);
	free(p->id_index);
	free(p->path_rules);
	free(p->bucket_start);
	free(p->bucket_rules);
	free_strv(p->snap_bufs, p->n_snap_bufs);
	free(p->home);
	free(p->root);
	free(p->lazy_home);
	free(p->lazy_root);
	free(p);
}

static int set_str(char **dst, const char *s)
{
	char *d = strdup(s);

	if (!d)
		return -ENOMEM;
	free(*dst);
	*dst = d;
	return 0;
}

int pol_set_home(struct pol_policy *p, const char *home)
{
	return set_str(&p->home, home && home[0] == '/' ? home : "/");
}

int pol_set_root(struct pol_policy *p, const char *root)
{
	char buf[PATH_MAX];
	int rc = pol_path_normalize(root, p->root, p->home, buf, sizeof(buf));

	return rc ? rc : set_str(&p->root, buf);
}

const char *pol_root(const struct pol_policy *p)
{
	return p->root;
}

const char *pol_home(const struct pol_policy *p)
{
	return p->home;
}

const char *pol_origin_intern(struct pol_policy *p, const char *name)
{
	for (size_t i = 0; i < p->n_files; i++)
		if (strcmp(p->files[i], name) == 0)
			return p->files[i];
	char **nf = realloc(p->files, (p->n_files + 1) * sizeof(*nf));
	if (!nf)
		return "<unknown>";
	p->files = nf;
	p->files[p->n_files] = strdup(name);
	if (!p->files[p->n_files])
		return "<unknown>";
	return p->files[p->n_files++];
}

size_t pol_file_count(const struct pol_policy *p)
{
	return p->n_files > 0 ? p->n_files - 1 : 0; /* "<builtin>" is not a file */
}

const char *pol_file_name(const struct pol_policy *p, size_t i)
{
	return i + 1 < p->n_files ? p->files[i + 1] : NULL;
}

void pol_diag_add(struct pol_policy *p, const char *file, unsigned line, unsigned col,
		  const char *rule, int fatal, const char *fmt, ...)
{
	struct pol_diag *d;
	va_list ap;

	if (p->n_diags == p->cap_diags) {
		size_t cap = p->cap_diags ? p->cap_diags * 2 : 8;
		struct pol_diag *nd;

		if (p->n_diags >= 10000) /* a hostile file cannot fill memory with messages */
			return;
		nd = realloc(p->diags, cap * sizeof(*nd));
		if (!nd)
			return;
		p->diags = nd;
		p->cap_diags = cap;
	}
	d = &p->diags[p->n_diags++];
	memset(d, 0, sizeof(*d));
	pol_copy_str(d->file, sizeof(d->file), file);
	pol_copy_str(d->rule, sizeof(d->rule), rule);
	d->line = line;
	d->col = col;
	d->fatal = fatal;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
}

size_t pol_diag_count(const struct pol_policy *p)
{
	return p->n_diags;
}

const struct pol_diag *pol_diag_get(const struct pol_policy *p, size_t i)
{
	return i < p->n_diags ? &p->diags[i] : NULL;
}

void pol_ignored_add(struct pol_policy *p, const char *file, unsigned line, const char *what,
		     const char *text, const char *why)
{
	struct pol_ignored *ni;

	if (p->n_ignored >= 1000) /* a hostile file cannot fill memory with notes */
		return;
	ni = realloc(p->ignored, (p->n_ignored + 1) * sizeof(*ni));
	if (!ni)
		return;
	p->ignored = ni;
	ni += p->n_ignored++;
	memset(ni, 0, sizeof(*ni));
	ni->file = pol_origin_intern(p, file);
	ni->line = line;
	ni->what = what;
	ni->why = why;
	pol_copy_str(ni->text, sizeof(ni->text), text);
}

size_t pol_ignored_count(const struct pol_policy *p)
{
	return p->n_ignored;
}

const struct pol_ignored *pol_ignored_get(const struct pol_policy *p, size_t i)
{
	return i < p->n_ignored ? &p->ignored[i] : NULL;
}

enum pol_trust pol_project_trust(const struct pol_policy *p, const char **file, const char **why)
{
	if (file)
		*file = p->project_trust ? p->project_file : NULL;
	if (why)
		*why = p->project_trust ? p->project_why : NULL;
	return p->project_trust;
}

struct pol_rule *pol_rule_new(struct pol_policy *p)
{
	if (p->n_rules == p->cap_rules) {
		size_t cap = p->cap_rules ? p->cap_rules * 2 : 64;
		struct pol_rule *nr = realloc(p->rules, cap * sizeof(*nr));

		if (!nr)
			return NULL;
		p->rules = nr;
		p->cap_rules = cap;
	}
	struct pol_rule *r = &p->rules[p->n_rules++];
	memset(r, 0, sizeof(*r));
	r->enabled = 1;
	r->active = 1;
	r->code_index = -1;
	r->origin = "<builtin>";
	return r;
}

const char *pol_language_intern(const char *name)
{
	static const char *const langs[] = {"bash", "sh",  "zsh",  "python", "node", "ruby",
					    "perl", "php", "deno", "bun",    "shell"};

	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(langs) / sizeof(langs[0]); i++)
		if (strcmp(name, langs[i]) == 0)
			return langs[i];
	return NULL;
}

/* ---- regex rules ------------------------------------------------------------------- */

/* The literal a pattern must contain, for the prefilter: the run of plain characters
 * at its start, after ^ and \b. Conservative: any top-level alternation, a group or
 * an inline flag at the start disables it. */
static void extract_keyword(struct pol_rule *r)
{
	const char *s = r->pattern;
	char buf[64];
	size_t n = 0;

	/* A top-level alternation means the leading literal is not required; one inside a
	 * group or a class does not touch the literal, which ends before the group. */
	int depth = 0, in_class = 0;
	for (const char *t = s; *t; t++) {
		if (*t == '\\' && t[1]) {
			t++;
			continue;
		}
		if (in_class) {
			if (*t == ']')
				in_class = 0;
			continue;
		}
		if (*t == '[') {
			in_class = 1;
			if (t[1] == '^')
				t++;
			if (t[1] == ']') /* a leading ] is a member */
				t++;
		} else if (*t == '(') {
			depth++;
		} else if (*t == ')') {
			depth = depth ? depth - 1 : 0;
		} else if (*t == '|' && depth == 0) {
			return;
		}
	}
	for (;;) {
		if (*s == '^')
			s++;
		else if (s[0] == '\\' && (s[1] == 'b' || s[1] == 'A'))
			s += 2;
		else
			break;
	}
	while (*s && n < sizeof(buf) - 1) {
		char c = *s;

		if (c == '\\' && s[1] && strchr(".-/:_=", s[1])) {
			c = s[1];
			s += 2;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '_' || c == '-' || c == ':' || c == '=' ||
			   c == '/' || c == ',' || c == ' ') {
			s++;
		} else {
			break;
		}
		buf[n++] = (char)((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
	}
	/* A quantifier applies to the last literal character: drop it. */
	if (n && (*s == '?' || *s == '*' || *s == '{'))
		n--;
	if (n < 2)
		return;
	r->keyword = strndup(buf, n);
	if (!r->keyword)
		return;
	r->keyword_len = n;
	r->keyword_bigram = pol_keyword_bigram(buf);
}

static int compile_rule(const struct pol_policy *p, struct pol_rule *r, pcre2_code **out, char *err,
			size_t errsize, size_t *erroff)
{
	int errcode;
	PCRE2_SIZE off = 0;
	uint32_t opts = PCRE2_UTF | PCRE2_NO_UTF_CHECK;
	pcre2_code *code;

	if (r->caseless)
		opts |= PCRE2_CASELESS;
	if (r->kind == POL_RULE_SCRIPT)
		opts |= PCRE2_MULTILINE;
	code = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED, opts, &errcode, &off,
			     p->cctx);
	if (!code) {
		pcre2_get_error_message(errcode, (PCRE2_UCHAR *)err, errsize);
		*erroff = off;
		return -EINVAL;
	}
	if (p->flags & POL_LOAD_JIT)
		pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); /* interpreted when JIT is missing */
	*out = code;
	return 0;
}

int pol_embedded_regex(const struct pol_rule *r)
{
	return (r->kind == POL_RULE_COMMAND || r->kind == POL_RULE_SCRIPT) && r->pattern &&
	       r->origin && strcmp(r->origin, "<embedded>") == 0;
}

/* Decodes the embedded compiled set once and hands each rule its code. A thread that
 * finds another decoding compiles its own pattern instead of waiting. */
static void decode_embedded_codes(const struct pol_policy *cp)
{
	struct pol_policy *p = (struct pol_policy *)cp;
	int expected = 0;
	pcre2_code **codes;

	if (!__atomic_compare_exchange_n(&p->codes_state, &expected, 1, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	codes = pol_mem_alloc((size_t)p->n_codes * sizeof(*codes));
	if (!codes ||
	    pcre2_serialize_decode(codes, p->n_codes, p->codes_blob, p->gctx) != p->n_codes) {
		/* Another PCRE2 than the one that built it: compile from the patterns. */
		pol_mem_free(codes);
		__atomic_store_n(&p->codes_state, 3, __ATOMIC_RELEASE);
		return;
	}
	for (size_t i = 0; i < p->n_rules; i++) {
		struct pol_rule *r = &p->rules[i];
		pcre2_code *none = NULL;

		if (r->code_index < 0 || r->code_index >= p->n_codes || !codes[r->code_index])
			continue;
		if (__atomic_compare_exchange_n(&r->code, &none, codes[r->code_index], 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			r->compile_state = 1;
		else
			pcre2_code_free(codes[r->code_index]);
		codes[r->code_index] = NULL;
	}
	for (int32_t i = 0; i < p->n_codes; i++)
		if (codes[i])
			pcre2_code_free(codes[i]);
	pol_mem_free(codes);
	__atomic_store_n(&p->codes_state, 2, __ATOMIC_RELEASE);
}

void pol_warm(const struct pol_policy *p)
{
	pol_prepare(p);
	if (p->codes_blob && !(p->flags & POL_LOAD_JIT) &&
	    __atomic_load_n(&p->codes_state, __ATOMIC_ACQUIRE) == 0)
		decode_embedded_codes(p);
}

pcre2_code *pol_rule_code(const struct pol_policy *p, struct pol_rule *r)
{
	pcre2_code *code = __atomic_load_n(&r->code, __ATOMIC_ACQUIRE), *expected = NULL;
	char err[128];
	size_t off;

	if (code || r->compile_state < 0)
		return code;
	if (r->code_index >= 0 && p->codes_blob && !(p->flags & POL_LOAD_JIT) &&
	    __atomic_load_n(&p->codes_state, __ATOMIC_ACQUIRE) == 0) {
		decode_embedded_codes(p);
		code = __atomic_load_n(&r->code, __ATOMIC_ACQUIRE);
		if (code)
			return code;
	}
	if (compile_rule(p, r, &code, err, sizeof(err), &off) < 0) {
		r->compile_state = -1;
		return NULL;
	}
	/* Two threads may compile at once: the first to publish wins. */
	if (!__atomic_compare_exchange_n(&r->code, &expected, code, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		pcre2_code_free(code);
		return expected;
	}
	r->compile_state = 1;
	return code;
}

int pol_rule_prepare_regex(struct pol_policy *p, struct pol_rule *r, const char *file,
			   unsigned line, unsigned col)
{
	char err[128];
	size_t off = 0;
	pcre2_code *code = NULL;

	extract_keyword(r);
	/* Embedded rules are tested with the project and compile lazily; a user's pattern
	 * is compiled now so that a broken one is reported at load, never silently. */
	if (!(p->flags & POL_LOAD_EAGER) && strcmp(file, "<embedded>") == 0)
		return 0;
	if (compile_rule(p, r, &code, err, sizeof(err), &off) < 0) {
		pol_diag_add(p, file, line, col, r->id, 0,
			     "regex does not compile at offset %zu: %s (rule disabled)", off, err);
		r->compile_state = -1;
		r->compile_error = strdup(err);
		return -EINVAL;
	}
	r->code = code;
	r->compile_state = 1;
	return 0;
}

int pol_rule_is_enabled(const struct pol_policy *p, const struct pol_rule *r)
{
	int on = r->enabled;
	size_t idlen = strlen(r->id);

	/* `packs:` enables, `disable:` disables, by rule ID or pack prefix. */
	for (size_t i = 0; i < p->n_enable; i++) {
		size_t n = strlen(p->enable[i]);
		if (strncmp(r->id, p->enable[i], n) == 0 && (idlen == n || r->id[n] == '.'))
			on = 1;
	}
	for (size_t i = 0; i < p->n_disable && !r->guarded; i++) {
		size_t n = strlen(p->disable[i]);
		if (strncmp(r->id, p->disable[i], n) == 0 && (idlen == n || r->id[n] == '.'))
			on = 0;
	}
	return on;
}

static size_t id_hash(const char *s)
{
	size_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int index_put(size_t *tab, size_t cap, const struct pol_rule *rules, size_t i)
{
	size_t h = id_hash(rules[i].id) & (cap - 1);

	while (tab[h]) {
		if (strcmp(rules[tab[h] - 1].id, rules[i].id) == 0)
			return 0; /* the first rule with an ID keeps it */
		h = (h + 1) & (cap - 1);
	}
	tab[h] = i + 1;
	return 0;
}

static int index_grow(struct pol_policy *p, size_t n_rules)
{
	if ((n_rules + 1) * 2 > p->id_cap) {
		size_t cap = p->id_cap ? p->id_cap * 2 : 256;
		size_t *tab;

		while (cap < (n_rules + 1) * 2)
			cap *= 2;
		tab = calloc(cap, sizeof(*tab));
		if (!tab)
			return -ENOMEM;
		for (size_t k = 0; k < p->id_cap; k++)
			if (p->id_index[k])
				index_put(tab, cap, p->rules, p->id_index[k] - 1);
		free(p->id_index);
		p->id_index = tab;
		p->id_cap = cap;
	}
	return 0;
}

int pol_rule_index_add(struct pol_policy *p, size_t i)
{
	if (index_grow(p, p->n_rules) < 0)
		return -ENOMEM;
	return index_put(p->id_index, p->id_cap, p->rules, i);
}

int pol_rules_reserve(struct pol_policy *p, size_t n)
{
	if (p->n_rules + n > p->cap_rules) {
		struct pol_rule *nr = realloc(p->rules, (p->n_rules + n) * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		p->rules = nr;
		p->cap_rules = p->n_rules + n;
	}
	return index_grow(p, p->n_rules + n);
}

void pol_rules_refresh(struct pol_policy *p)
{
	size_t *pr = realloc(p->path_rules, (p->n_rules + 1) * sizeof(*pr));

	if (pr)
		p->path_rules = pr;
	p->n_path_rules = 0;
	for (size_t i = 0; i < p->n_rules; i++) {
		p->rules[i].active = pol_rule_is_enabled(p, &p->rules[i]);
		if (pr && p->rules[i].active && p->rules[i].kind == POL_RULE_PATH)
			pr[p->n_path_rules++] = i;
	}
	pol_path_index_build(p);
}

/* ---- path rules -------------------------------------------------------------------- */

int pol_pathpat_expand(const struct pol_policy *p, const char *pat, struct pol_pathpat *pp)
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
		pp->glob = strndup(s, n);
	} else if (anywhere) {
		if (n + 5 > sizeof(buf))
			return -ENAMETOOLONG;
		memcpy(buf, "/**/", 4);
		memcpy(buf + 4, s, n);
		buf[n + 4] = '\0';
		pp->glob = strdup(buf);
	} else {
		char tmp[PATH_MAX];

		if (n >= sizeof(tmp))
			return -ENAMETOOLONG;
		memcpy(tmp, s, n);
		tmp[n] = '\0';
		if (pol_path_normalize(tmp, p->root, p->home, buf, sizeof(buf)) < 0)
			return -ENAMETOOLONG;
		pp->glob = strdup(buf);
	}
	if (!pp->glob)
		return -ENOMEM;
	pol_pathpat_classify(pp);
	return 0;
}

/* The canonical form: the literal directory prefix of an anchored pattern resolved
 * through symlinks. */
void pol_rule_canon_path(struct pol_rule *r)
{
	const struct pol_pathpat *pp = &r->path;
	char dir[PATH_MAX], real[PATH_MAX], out[PATH_MAX * 2 + 8];
	size_t cut;

	if (pp->basename_only)
		return;
	cut = pp->literal_len;
	if (cut < pp->glob_len) /* wildcard: resolve only the directories before it */
		while (cut > 0 && pp->glob[cut - 1] != '/')
			cut--;
	if (cut == 0 || cut >= sizeof(dir))
		return;
	memcpy(dir, pp->glob, cut);
	dir[cut] = '\0';
	if (pol_path_resolve(dir, 0, real, sizeof(real)) < 0)
		return;
	if (cut > 1 && dir[cut - 1] == '/')
		dir[cut - 1] = '\0';
	if (strcmp(real, dir) == 0)
		return;
	snprintf(out, sizeof(out), "%s%s%s", real,
		 (cut < pp->glob_len && strcmp(real, "/")) ? "/" : "", pp->glob + cut);
	r->path_canon.glob = strdup(out);
	if (!r->path_canon.glob)
		return;
	r->path_canon.negate = pp->negate;
	pol_pathpat_classify(&r->path_canon);
	r->has_canon = 1;
}

static const char *const path_reasons[] = {
    "zero-access path: secrets, no read, write or exec",
    "read-only path: may be read, never written, deleted or moved",
    "no-delete path: may be edited, never deleted or moved away",
};
static const char *const path_suggestions[][2] = {
    {"Do not read, copy or print secrets; ask the user for what you need",
     "Work on a copy the user provides outside the protected path"},
    {"Write your output to a new file in the project or a scratch folder",
     "Ask the user to make this change"},
    {"Edit the file in place instead of deleting or moving it",
     "Ask the user to remove it if that is really wanted"},
};

static int add_suggestion(struct pol_rule *r, const char *s)
{
	char **ns = realloc(r->suggestions, (r->n_suggestions + 1) * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	r->suggestions = ns;
	r->suggestions[r->n_suggestions] = strdup(s);
	if (!r->suggestions[r->n_suggestions])
		return -ENOMEM;
	r->n_suggestions++;
	return 0;
}

/* Every rule ends with the way to let it pass on purpose. */
static int add_allow_suggestion(struct pol_rule *r)
{
	char buf[300];

	snprintf(buf, sizeof(buf), "If intentional: dcg allow %s -r \"reason\"", r->id);
	return add_suggestion(r, buf);
}

static int add_path_rule(struct pol_policy *p, enum pol_path_kind kind, const char *pat,
			 const char *file, unsigned line, unsigned col)
{
	struct pol_rule *r;
	char id[64];
	int rc;

	size_t *count = &p->path_count[p->scope][kind];
	snprintf(id, sizeof(id), "%s.%s.%zu", scope_names[p->scope], path_kind_ids[kind], ++*count);
	r = pol_rule_new(p);
	if (!r)
		return -ENOMEM;
	r->kind = POL_RULE_PATH;
	r->path_kind = kind;
	r->id = strdup(id);
	r->pattern = strdup(pat);
	r->reason = strdup(path_reasons[kind]);
	r->severity = kind == POL_PATH_ZERO_ACCESS ? POL_SEV_CRITICAL : POL_SEV_HIGH;
	r->decision = POL_DENY;
	r->origin = pol_origin_intern(p, file);
	r->line = line;
	if (!r->id || !r->pattern || !r->reason)
		return -ENOMEM;
	pol_rule_index_add(p, p->n_rules - 1);
	rc = pol_pathpat_expand(p, pat, &r->path);
	if (rc < 0) {
		pol_diag_add(p, file, line, col, pat, 0, "path pattern is empty or too long");
		r->enabled = 0;
		return rc;
	}
	pol_rule_canon_path(r);
	add_suggestion(r, path_suggestions[kind][0]);
	add_suggestion(r, path_suggestions[kind][1]);
	add_allow_suggestion(r);
	if (kind == POL_PATH_ZERO_ACCESS && !r->path.negate)
		p->have_zero_access = 1;
	return 0;
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

#define LINE(n) ((unsigned)(n)->start_mark.line + 1)
#define COL(n)	((unsigned)(n)->start_mark.column + 1)

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

static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
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
	if (seq->type == YAML_SCALAR_NODE && scalar(seq)[0] == '\0')
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
	const char *s = scalar(item);
	char **no;

	if (!s || !s[0] || (s[0] == ':' && strcmp(s, ":agent") != 0 && strcmp(s, ":dcg") != 0)) {
		err(l, item, r->pattern,
		    "owners must be program names, absolute paths, :agent or :dcg");
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

/* A path entry: a pattern, or {path: PATTERN, owners: [PROGRAM...]} where the
 * owners (system programs such as git) may manage what it covers at runtime. */
static void path_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	enum pol_path_kind kind = (enum pol_path_kind)(long)arg;
	const char *s = scalar(item);
	yaml_node_t *owners = NULL;

	if (item->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *pr = item->data.mapping.pairs.start;
		     pr < item->data.mapping.pairs.top; pr++) {
			yaml_node_t *k = yaml_document_get_node(l->doc, pr->key);
			yaml_node_t *v = yaml_document_get_node(l->doc, pr->value);
			const char *ks = scalar(k);

			if (ks && v && !strcmp(ks, "path") && scalar(v))
				s = scalar(v);
			else if (ks && v && !strcmp(ks, "owners"))
				owners = v;
			else
				err(l, k ? k : item, pol_path_kind_name(kind),
				    "unknown key '%s' in a path entry (path, owners)",
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
	if (add_path_rule(l->p, kind, s, l->file, LINE(item), COL(item)) < 0)
		return;
	if (owners)
		each_item(l, owners, "owners", owner_item, &l->p->rules[l->p->n_rules - 1]);
	if (l->untrusted && s[0] == '!') {
		pol_ignored_add(l->p, l->file, LINE(item), "exclusion", s,
				"lifts only this file's own patterns until the file is trusted");
	}
}

/* A loosening entry of an untrusted file: noted, not applied. */
static void ignored_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	const char *what = arg, *text = scalar(item);

	if (item->type == YAML_MAPPING_NODE)
		for (yaml_node_pair_t *pr = item->data.mapping.pairs.start;
		     pr < item->data.mapping.pairs.top; pr++) {
			const char *ks = scalar(yaml_document_get_node(l->doc, pr->key));
			if (ks && !strcmp(ks, "rule"))
				text = scalar(yaml_document_get_node(l->doc, pr->value));
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
	const char *s = scalar(item);
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
	const char *s = scalar(item);

	if (!s) {
		err(l, item, r->id, "suggestions must be strings");
		return;
	}
	add_suggestion(r, s);
}

/* A pattern rule: bashToolPatterns entries (damage-control) and rules (dcg). */
static void rule_item(struct ldr *l, yaml_node_t *item, void *arg)
{
	int damage_control = arg != NULL;
	const char *key = damage_control ? "bashToolPatterns" : "rules";
	const char *pattern = NULL, *reason = NULL, *id = NULL, *sev = NULL, *lang = NULL;
	yaml_node_t *sugg = NULL, *pattern_node = item;
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
		const char *ks = scalar(k), *vs = scalar(v);

		if (!ks || !v) {
			err(l, k ? k : item, key, "keys must be strings");
			bad = 1;
			continue;
		}
		if (!strcmp(ks, "suggestions")) {
			sugg = v;
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
	add_allow_suggestion(r);
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
		const char *ks = scalar(k);

		if (!ks || !v)
			continue;
		if (!strcmp(ks, "paths")) {
			paths = v;
			continue;
		}
		if (!scalar(v)) {
			err(l, v, rule, "'%s' must be a single value", ks);
			continue;
		}
		if (!strcmp(ks, "rule"))
			rule = scalar(v);
		else if (!strcmp(ks, "reason"))
			reason = scalar(v);
		else if (!strcmp(ks, "expires"))
			expires = scalar(v);
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
		free_strv(a.paths, a.n_paths);
		return;
	}
	l->p->allows = na;
	a.rule = strdup(rule);
	a.reason = strdup(reason);
	a.origin = pol_origin_intern(l->p, l->file);
	a.line = LINE(item);
	na[l->p->n_allows++] = a;
}

static void load_document(struct ldr *l)
{
	yaml_node_t *root = yaml_document_get_root_node(l->doc);

	if (!root)
		return; /* an empty file: nothing to add */
	if (root->type == YAML_SCALAR_NODE && scalar(root)[0] == '\0')
		return;
	if (root->type != YAML_MAPPING_NODE) {
		err(l, root, NULL,
		    "a policy file must be a mapping of keys (bashToolPatterns, "
		    "zeroAccessPaths, readOnlyPaths, noDeletePaths, rules, packs, allow)");
		return;
	}
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	     pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(l->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(l->doc, pr->value);
		const char *ks = scalar(k);

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
		} else if (!strcmp(ks, "overridable") && l->p->scope == SCOPE_SYSTEM) {
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
		} else if (!strcmp(ks, "version") || !strcmp(ks, "tools")) {
			/* version: informative; tools: read by the hook (tool classes) */
		} else {
			err(l, k, NULL,
			    "unknown key '%s' (ignored); known keys: bashToolPatterns, "
			    "zeroAccessPaths, readOnlyPaths, noDeletePaths, rules, packs, "
			    "disable, allow%s",
			    ks, l->p->scope == SCOPE_SYSTEM ? ", overridable" : "");
		}
	}
}

/* libyaml's scanner spends O(depth) per token inside nested flow collections, so a
 * file of a few kilobytes of "[[[[...]]]]" takes minutes to parse (80 KB: 17 s). A
 * policy never nests deeper than a few levels: when the text holds enough '[' and '{'
 * to nest deeper than the limit, a first pass over the events refuses the file at the
 * first collection nested too deep, before the document is built. Block collections
 * ("- - - x") cost linear time and need no check. */
#define POL_YAML_DEPTH_MAX 64

static int check_flow_depth(struct pol_policy *p, const char *name, const char *buf, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	size_t openers = 0;
	int depth = 0, rc = 0;

	for (size_t i = 0; i < len && openers <= POL_YAML_DEPTH_MAX; i++)
		if (buf[i] == '[' || buf[i] == '{')
			openers++;
	if (openers <= POL_YAML_DEPTH_MAX)
		return 0;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	for (;;) {
		yaml_event_type_t type;

		if (!yaml_parser_parse(&parser, &ev))
			break; /* a syntax error: the document load reports it */
		type = ev.type;
		if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
			if (++depth > POL_YAML_DEPTH_MAX) {
				pol_diag_add(p, name, (unsigned)ev.start_mark.line + 1,
					     (unsigned)ev.start_mark.column + 1, NULL, 1,
					     "collections nested more than %d deep: file refused",
					     POL_YAML_DEPTH_MAX);
				rc = -EINVAL;
			}
		} else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		yaml_event_delete(&ev);
		if (rc || type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* The system file's rules are guarded, but for those its `overridable:` list names
 * (by ID or pack prefix, "*" for all). */
static void guard_rules(struct ldr *l, size_t first)
{
	for (size_t i = first; i < l->p->n_rules; i++) {
		struct pol_rule *r = &l->p->rules[i];
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
	yaml_parser_t parser;
	yaml_document_t doc;
	struct ldr l = {.p = p, .doc = &doc, .file = name, .untrusted = untrusted};
	size_t first = p->n_rules;
	int rc = 0;

	p->scope = scope;
	pol_origin_intern(p, name);
	if (len > POL_FILE_MAX) {
		pol_diag_add(p, name, 0, 0, NULL, 1,
			     "file is %zu bytes, over the %u MiB limit: refused", len,
			     POL_FILE_MAX >> 20);
		return -EINVAL;
	}
	rc = check_flow_depth(p, name, buf, len);
	if (rc < 0)
		return rc;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		/* Where the problem was noticed can be the end of the file (an unclosed
		 * quote); the context mark says where the construct at fault began. */
		char began[64] = "";
		if (parser.context && (parser.context_mark.line != parser.problem_mark.line ||
				       parser.context_mark.column != parser.problem_mark.column))
			snprintf(began, sizeof(began), " (started at line %u, column %u)",
				 (unsigned)parser.context_mark.line + 1,
				 (unsigned)parser.context_mark.column + 1);
		pol_diag_add(p, name, (unsigned)parser.problem_mark.line + 1,
			     (unsigned)parser.problem_mark.column + 1, NULL, 1,
			     "YAML syntax error: %s%s%s%s: file ignored",
			     parser.problem ? parser.problem : "unknown", parser.context ? " " : "",
			     parser.context ? parser.context : "", began);
		rc = -EINVAL;
		goto out_parser;
	}
	load_document(&l);
	yaml_document_delete(&doc);
	if (scope == SCOPE_SYSTEM)
		guard_rules(&l, first);
	for (size_t i = first; untrusted && i < p->n_rules; i++) {
		p->rules[i].untrusted = 1; /* its exclusions lift only its own patterns */
		if (i < p->untrusted_from)
			p->untrusted_from = i;
	}
	free_strv(l.overridable, l.n_overridable);
	pol_rules_refresh(p);
	/* Bad entries were reported and skipped; the file is not refused whole, so the
	 * header's contract holds: 0 with diagnostics. Callers count the diagnostics. */
out_parser:
	yaml_parser_delete(&parser);
	return rc;
}

int pol_load_buffer(struct pol_policy *p, const char *name, const char *buf, size_t len)
{
	return load_scoped(p, name, buf, len, SCOPE_POLICY, 0);
}

int pol_load_buffer_default(struct pol_policy *p, const char *buf, size_t len)
{
	return load_scoped(p, "<embedded>", buf, len, SCOPE_DEFAULT, 0);
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

static int load_file_scoped(struct pol_policy *p, const char *path, int scope,
			    const char *trust_file)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		pol_diag_add(p, path, 0, 0, NULL, 1, "not a regular file: ignored");
		return -EINVAL;
	}
	if ((size_t)st.st_size > POL_FILE_MAX) {
		close(fd);
		pol_diag_add(p, path, 0, 0, NULL, 1,
			     "file is %lld bytes, over the %u MiB limit: refused",
			     (long long)st.st_size, POL_FILE_MAX >> 20);
		return -EINVAL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	rc =
	    load_scoped(p, path, buf, got, scope,
			scope == SCOPE_PROJECT && project_untrusted(p, path, buf, got, trust_file));
	free(buf);
	return rc;
}

int pol_load_file(struct pol_policy *p, const char *path)
{
	return load_file_scoped(p, path, SCOPE_POLICY, NULL);
}

void pol_env_from_process(struct pol_env *env, char *cwd_buf, size_t cwd_size)
{
	memset(env, 0, sizeof(*env));
	env->home = getenv("HOME");
	env->xdg_config_home = getenv("XDG_CONFIG_HOME");
	env->policy_file = getenv("DCG_POLICY");
	if (env->policy_file && !env->policy_file[0])
		env->policy_file = NULL;
	env->system_file = getenv("DCG_SYSTEM_POLICY");
	if (env->system_file && !env->system_file[0])
		env->system_file = NULL;
	env->cwd = cwd_buf && getcwd(cwd_buf, cwd_size) ? cwd_buf : NULL;
}

/* The project: the nearest folder upwards from cwd that holds .dcg/policy.yaml. */
static int find_project(const char *cwd, char *root, size_t size)
{
	char dir[PATH_MAX], f[PATH_MAX + 32];

	if (!cwd || pol_path_normalize(cwd, "/", NULL, dir, sizeof(dir)) < 0)
		return -ENOENT;
	for (;;) {
		snprintf(f, sizeof(f), "%s%s.dcg/policy.yaml", dir, strcmp(dir, "/") ? "/" : "");
		if (access(f, F_OK) == 0) {
			pol_copy_str(root, size, dir);
			return 0;
		}
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir) {
			if (strcmp(dir, "/") == 0)
				return -ENOENT;
			dir[1] = '\0';
			continue;
		}
		*slash = '\0';
	}
}

/* An optional layer's file: missing is fine, unreadable is said. */
static int load_optional(struct pol_policy *p, const char *path, int scope, const char *trust)
{
	int rc = load_file_scoped(p, path, scope, trust);

	if (rc < 0 && rc != -ENOENT && rc != -EINVAL)
		pol_diag_add(p, path, 0, 0, NULL, 1, "cannot read policy file: %s: ignored",
			     strerror(-rc));
	return rc < 0 && rc != -ENOENT;
}

int pol_load_layers(struct pol_policy *p, const struct pol_env *env)
{
	char path[PATH_MAX + 64], root[PATH_MAX], trust[PATH_MAX];
	const char *trust_file = env->trust_file;
	int rc, bad = 0, have_project;
	size_t diags_before = pol_diag_count(p);

	if (env->home)
		pol_set_home(p, env->home);
	have_project = !env->no_project && find_project(env->cwd, root, sizeof(root)) == 0;
	if (have_project)
		pol_set_root(p, root);
	else if (env->cwd)
		pol_set_root(p, env->cwd);
	if (pol_load_embedded(p) < 0)
		bad = 1;
	if (!env->no_system)
		bad |=
		    load_optional(p, env->system_file ? env->system_file : "/etc/dcg/policy.yaml",
				  SCOPE_SYSTEM, NULL);
	if (!env->no_user) {
		if (env->xdg_config_home && env->xdg_config_home[0] == '/')
			snprintf(path, sizeof(path), "%s/dcg/policy.yaml", env->xdg_config_home);
		else
			snprintf(path, sizeof(path), "%s/.config/dcg/policy.yaml", p->home);
		bad |= load_optional(p, path, SCOPE_USER, NULL);
	}
	if (have_project) {
		if (!trust_file && pol_trust_path(trust, sizeof(trust)) == 0)
			trust_file = trust;
		snprintf(path, sizeof(path), "%s%s.dcg/policy.yaml", root,
			 strcmp(root, "/") ? "/" : "");
		if (load_optional(p, path, SCOPE_PROJECT, trust_file)) {
			bad = 1;
			if (!p->project_trust) { /* unreadable: nothing of it was loaded */
				p->project_file = pol_origin_intern(p, path);
				p->project_trust = POL_TRUST_BROKEN;
				pol_copy_str(p->project_why, sizeof(p->project_why),
					     "the file could not be read: nothing of it applies");
			}
		}
	}
	if (env->policy_file) {
		char abs[PATH_MAX];

		if (pol_path_normalize(env->policy_file, env->cwd ? env->cwd : p->root, p->home,
				       abs, sizeof(abs)) < 0)
			pol_copy_str(abs, sizeof(abs), env->policy_file);
		rc = load_file_scoped(p, abs, SCOPE_POLICY, NULL);
		if (rc == -ENOENT || (rc < 0 && rc != -EINVAL)) {
			pol_diag_add(p, abs, 0, 0, NULL, 1, "cannot read policy file: %s",
				     strerror(-rc));
		}
		if (rc < 0)
			bad = 1;
	}
	/* A file loaded with some bad entries returns 0: its diagnostics say it had errors. */
	if (pol_diag_count(p) > diags_before)
		bad = 1;
	return bad ? -EINVAL : 0;
}

/* ---- rules: listing and lookup ------------------------------------------------------ */

size_t pol_rule_count(const struct pol_policy *p)
{
	return p->n_rules;
}

int pol_rule_get(const struct pol_policy *p, size_t i, struct pol_rule_info *info)
{
	const struct pol_rule *r;

	if (i >= p->n_rules)
		return -ERANGE;
	r = &p->rules[i];
	memset(info, 0, sizeof(*info));
	info->id = r->id;
	info->kind = r->kind;
	info->pattern = r->pattern;
	info->reason = r->reason;
	info->language = r->language;
	info->severity = r->severity;
	info->decision = r->active && r->compile_state >= 0 ? r->decision : POL_ALLOW;
	info->path_kind = r->path_kind;
	info->origin = r->origin;
	info->line = r->line;
	info->suggestions = (const char *const *)r->suggestions;
	info->n_suggestions = r->n_suggestions;
	return 0;
}

ssize_t pol_rule_find(const struct pol_policy *p, const char *id)
{
	if (!p->id_cap)
		return -ENOENT;
	for (size_t h = id_hash(id) & (p->id_cap - 1); p->id_index[h];
	     h = (h + 1) & (p->id_cap - 1))
		if (strcmp(p->rules[p->id_index[h] - 1].id, id) == 0)
			return (ssize_t)(p->id_index[h] - 1);
	return -ENOENT;
}

ssize_t pol_rule_add_builtin(struct pol_policy *p, const char *id, const char *reason,
			     enum pol_severity sev, const char *suggestion)
{
	ssize_t have = pol_rule_find(p, id);
	struct pol_rule *r;

	if (have >= 0)
		return have;
	r = pol_rule_new(p);
	if (!r)
		return -ENOMEM;
	r->kind = POL_RULE_BUILTIN;
	r->id = strdup(id);
	r->reason = strdup(reason);
	r->severity = sev;
	r->decision = sev >= POL_SEV_HIGH ? POL_DENY : sev == POL_SEV_MEDIUM ? POL_ASK : POL_LOG;
	r->origin = "<builtin>";
	if (!r->id || !r->reason) {
		p->n_rules--;
		pol_rule_finish(r);
		return -ENOMEM;
	}
	if (suggestion)
		add_suggestion(r, suggestion);
	add_allow_suggestion(r);
	/* Active from now on; a later file's disable: list is applied by the refresh at
	 * the end of its load (a refresh here, once per built-in, cost more than the
	 * rest of start-up). */
	pol_rule_index_add(p, p->n_rules - 1);
	return (ssize_t)(p->n_rules - 1);
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[129], cur[129];

	if (la > 128)
		la = 128;
	if (lb > 128)
		lb = 128;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

size_t pol_rule_suggest(const struct pol_policy *p, const char *id, const char **out, size_t max)
{
	size_t n = 0, dist[16];

	if (max > 16)
		max = 16;
	for (size_t i = 0; i < p->n_rules; i++) {
		size_t d = edit_distance(id, p->rules[i].id);
		/* A rule whose ID contains the text is a good guess too. */
		if (strstr(p->rules[i].id, id))
			d = d < 2 ? d : 2;
		size_t k = n;

		while (k > 0 && dist[k - 1] > d)
			k--;
		if (k >= max)
			continue;
		if (n < max)
			n++;
		for (size_t j = n - 1; j > k; j--) {
			dist[j] = dist[j - 1];
			out[j] = out[j - 1];
		}
		dist[k] = d;
		out[k] = p->rules[i].id;
	}
	return n;
}
