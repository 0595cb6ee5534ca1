/* scan_extract.c - what in a file runs as a command later: the kinds of file `dcg scan`
 * reads (a table of names), and the extractors of the kinds that are not YAML: shell
 * scripts, Makefiles, Dockerfiles, justfiles, Terraform, package.json (cJSON). */
#include "scan.h"

#include "hook.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static const char kind_names[SCAN__COUNT][10] = {
    "none",   "shell", "makefile", "docker", "github",
    "gitlab", "npm",   "compose",  "just",   "terraform",
};

const char *scan_kind_name(enum scan_kind k)
{
	return k < SCAN__COUNT ? kind_names[k] : "none";
}

/* ---- which files ------------------------------------------------------------------ */

/* Names, matched with fnmatch on the basename, or on the whole path when the pattern
 * holds a '/'. The first row that matches decides. */
static const struct {
	char pat[28];
	unsigned char kind;
} kinds[] = {
    {"Makefile", SCAN_MAKE},
    {"makefile", SCAN_MAKE},
    {"GNUmakefile", SCAN_MAKE},
    {"*.mk", SCAN_MAKE},
    {"*.make", SCAN_MAKE},
    {"Dockerfile", SCAN_DOCKER},
    {"Containerfile", SCAN_DOCKER},
    {"Dockerfile.*", SCAN_DOCKER},
    {"Containerfile.*", SCAN_DOCKER},
    {"*.Dockerfile", SCAN_DOCKER},
    {"*.dockerfile", SCAN_DOCKER},
    {"*.Containerfile", SCAN_DOCKER},
    {".github/workflows/*.yml", SCAN_GHA},
    {".github/workflows/*.yaml", SCAN_GHA},
    {"action.yml", SCAN_GHA},
    {"action.yaml", SCAN_GHA},
    {".gitlab-ci.yml", SCAN_GITLAB},
    {".gitlab-ci.yaml", SCAN_GITLAB},
    {"*.gitlab-ci.yml", SCAN_GITLAB},
    {".gitlab/ci/*.yml", SCAN_GITLAB},
    {"package.json", SCAN_NPM},
    {"docker-compose.yml", SCAN_COMPOSE},
    {"docker-compose.yaml", SCAN_COMPOSE},
    {"docker-compose.*.yml", SCAN_COMPOSE},
    {"docker-compose.*.yaml", SCAN_COMPOSE},
    {"compose.yml", SCAN_COMPOSE},
    {"compose.yaml", SCAN_COMPOSE},
    {"compose.*.yml", SCAN_COMPOSE},
    {"compose.*.yaml", SCAN_COMPOSE},
    {"justfile", SCAN_JUST},
    {"Justfile", SCAN_JUST},
    {".justfile", SCAN_JUST},
    {"*.just", SCAN_JUST},
    {"*.tf", SCAN_TF},
    {"*.sh", SCAN_SHELL},
    {"*.bash", SCAN_SHELL},
    {"*.ksh", SCAN_SHELL},
    {"*.zsh", SCAN_SHELL},
    {"*.dash", SCAN_SHELL},
    {"*.ash", SCAN_SHELL},
};

/* The shells a #! line may name (the interpreter's basename, or env's first word). */
static const char shells[] = "sh\0bash\0dash\0zsh\0ksh\0mksh\0ash\0";

static int is_shell_name(const char *s, size_t n)
{
	for (const char *w = shells; *w; w += strlen(w) + 1)
		if (strlen(w) == n && !memcmp(w, s, n))
			return 1;
	return 0;
}

/* "#!/bin/sh -e", "#! /usr/bin/env bash", "#!/usr/bin/env -S bash -x". */
static int shebang_is_shell(const char *h, size_t n)
{
	size_t i = 2, s, e;
	int env = 0;

	if (n < 3 || h[0] != '#' || h[1] != '!')
		return 0;
	for (;;) {
		while (i < n && (h[i] == ' ' || h[i] == '\t'))
			i++;
		s = i;
		while (i < n && h[i] != ' ' && h[i] != '\t' && h[i] != '\n' && h[i] != '\r')
			i++;
		e = i;
		if (s == e)
			return 0;
		const char *slash = memrchr(h + s, '/', e - s);
		size_t b = slash ? (size_t)(slash - h) + 1 : s;
		if (!env && e - b == 3 && !memcmp(h + b, "env", 3)) {
			env = 1;
			continue;
		}
		if (env && h[s] == '-') /* env's options (-S) */
			continue;
		return is_shell_name(h + b, e - b);
	}
}

enum scan_kind scan_classify(const char *path, const char *head, size_t n)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		int full = strchr(kinds[i].pat, '/') != NULL;
		const char *subject = full ? path : base;

		if (!fnmatch(kinds[i].pat, subject, full ? FNM_PATHNAME : 0))
			return (enum scan_kind)kinds[i].kind;
	}
	return shebang_is_shell(head, n) ? SCAN_SHELL : SCAN_NONE;
}

/* ---- snippets ------------------------------------------------------------------------ */

struct scan_snip *scan_snip_add(struct scan_snips *s, const char *text, size_t len, unsigned line,
				unsigned col, int exact)
{
	struct scan_snip *sn;

	if (s->oom)
		return NULL;
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		struct scan_snip *nv = realloc(s->v, nc * sizeof(*nv));
		if (!nv)
			goto out_oom;
		s->v = nv;
		s->cap = nc;
	}
	sn = &s->v[s->n];
	memset(sn, 0, sizeof(*sn));
	sn->text = malloc(len + 1);
	if (!sn->text)
		goto out_oom;
	memcpy(sn->text, text, len);
	sn->text[len] = '\0';
	sn->len = len;
	sn->line = line;
	sn->col = col;
	sn->exact = exact;
	sn->end_line = line;
	for (size_t i = 0; i < len; i++)
		sn->end_line += text[i] == '\n';
	s->n++;
	return sn;
out_oom:
	s->oom = 1;
	return NULL;
}

void scan_snips_release(struct scan_snips *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].text);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* A line of the text: [*s, *e) without its newline; returns the next line's start. */
static size_t line_at(const char *t, size_t len, size_t i, size_t *e)
{
	const char *nl = memchr(t + i, '\n', len - i);

	*e = nl ? (size_t)(nl - t) : len;
	return nl ? *e + 1 : len;
}

static int blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Does the line [s, e) end with the escape character (a continuation)? */
static int continues(const char *t, size_t s, size_t e, char esc)
{
	while (e > s && (t[e - 1] == ' ' || t[e - 1] == '\t' || t[e - 1] == '\r'))
		e--;
	return e > s && t[e - 1] == esc;
}

/* ---- Makefile --------------------------------------------------------------------------- */

struct mk_var {
	char name[64];
	char *value;
};

struct mk {
	struct mk_var *v;
	size_t n, cap;
	const char *target, *prereq; /* the rule's first target and prerequisites */
	size_t target_len, prereq_len;
	int too_big;
};

/* make's own defaults for the variables recipes use most (GNU make's database). */
static const char mk_defaults[] = "RM\0rm -f\0MAKE\0make\0CC\0cc\0CXX\0g++\0AR\0ar\0"
				  "CPP\0cc -E\0LD\0ld\0INSTALL\0install\0SHELL\0/bin/sh\0";

static struct mk_var *mk_find(struct mk *m, const char *name, size_t n)
{
	for (size_t i = 0; i < m->n; i++)
		if (strlen(m->v[i].name) == n && !memcmp(m->v[i].name, name, n))
			return &m->v[i];
	return NULL;
}

static void mk_set(struct mk *m, const char *name, size_t n, const char *val, size_t vn, int op)
{
	struct mk_var *v = mk_find(m, name, n);
	char *nv;

	if (n >= sizeof(v->name))
		return;
	if (v && op == '?')
		return;
	if (!v) {
		if (m->n == m->cap) {
			size_t nc = m->cap ? m->cap * 2 : 16;
			struct mk_var *a = realloc(m->v, nc * sizeof(*a));
			if (!a)
				return;
			m->v = a;
			m->cap = nc;
		}
		v = &m->v[m->n++];
		memcpy(v->name, name, n);
		v->name[n] = '\0';
		v->value = NULL;
	}
	if (op == '+' && v->value) {
		size_t old = strlen(v->value);
		nv = realloc(v->value, old + vn + 2);
		if (!nv)
			return;
		nv[old] = ' ';
		memcpy(nv + old + 1, val, vn);
		nv[old + 1 + vn] = '\0';
	} else {
		nv = malloc(vn + 1);
		if (!nv)
			return;
		memcpy(nv, val, vn);
		nv[vn] = '\0';
		free(v->value);
	}
	v->value = nv;
}

static void mk_expand(struct mk *m, const char *s, size_t n, int depth, struct hook_buf *o);

/* $(NAME), ${NAME}, $(shell CMD), or another function: what the shell would see. */
static void mk_ref(struct mk *m, const char *in, size_t n, int depth, struct hook_buf *o)
{
	size_t k = 0;

	while (k < n && (isalnum((unsigned char)in[k]) || strchr("_.-", in[k])))
		k++;
	if (k == n) { /* a variable */
		struct mk_var *v = mk_find(m, in, n);
		if (v && depth < SCAN_EXPAND_DEPTH) {
			mk_expand(m, v->value, strlen(v->value), depth + 1, o);
			return;
		}
		for (const char *d = mk_defaults; *d; d += strlen(d) + 1) {
			const char *val = d + strlen(d) + 1;
			if (!v && strlen(d) == n && !memcmp(d, in, n)) {
				hook_buf_adds(o, val);
				return;
			}
			d = val;
		}
		/* not defined here: a variable of the environment, unknown to the analyser */
		hook_buf_adds(o, "${");
		hook_buf_add(o, in, n);
		hook_buf_adds(o, "}");
		return;
	}
	if (k == 5 && !memcmp(in, "shell", 5) && n > 6 && in[5] == ' ') {
		hook_buf_adds(o, "$(");
		mk_expand(m, in + 6, n - 6, depth + 1, o);
		hook_buf_adds(o, ")");
		return;
	}
	hook_buf_adds(o, "${MAKE_EXPR}"); /* a function or substitution: unknown */
}

static void mk_expand(struct mk *m, const char *s, size_t n, int depth, struct hook_buf *o)
{
	for (size_t i = 0; i < n && !o->oom; i++) {
		if (o->len > SCAN_EXPAND_MAX) {
			m->too_big = 1;
			return;
		}
		if (s[i] != '$' || i + 1 >= n) {
			hook_buf_add(o, s + i, 1);
			continue;
		}
		char c = s[++i];
		if (c == '$') {
			hook_buf_adds(o, "$");
		} else if (c == '(' || c == '{') {
			char close = c == '(' ? ')' : '}';
			size_t j = i + 1, lvl = 1;
			for (; j < n && lvl; j++)
				lvl += s[j] == c ? 1 : s[j] == close ? (size_t)-1 : 0;
			if (lvl) { /* unterminated: as written */
				hook_buf_add(o, s + i - 1, n - i + 1);
				return;
			}
			mk_ref(m, s + i + 1, j - 1 - (i + 1), depth, o);
			i = j - 1;
		} else if (c == '@') {
			hook_buf_add(o, m->target, m->target_len);
		} else if (c == '<') {
			size_t k = 0;
			while (k < m->prereq_len && !isspace((unsigned char)m->prereq[k]))
				k++;
			hook_buf_add(o, m->prereq, k);
		} else if (c == '^' || c == '?' || c == '+') {
			hook_buf_add(o, m->prereq, m->prereq_len);
		} else {
			hook_buf_adds(o, "${MAKE_AUTO}"); /* $*, $%, $|, $x */
		}
	}
}

/* NAME op VALUE: the kinds of assignment (=, :=, ::=, :::=, ?=, +=, !=). Returns the
 * op ('=', '?', '+', '!') and the name's and the value's spans, or 0. */
static int mk_assign(const char *t, size_t s, size_t e, size_t *ns, size_t *ne, size_t *vs)
{
	size_t i = s;

	while (i < e && (t[i] == ' ' || t[i] == '\t'))
		i++;
	for (const char *kw = "export\0override\0"; *kw; kw += strlen(kw) + 1) {
		size_t k = strlen(kw);
		if (e - i > k && !memcmp(t + i, kw, k) && (t[i + k] == ' ' || t[i + k] == '\t')) {
			i += k;
			while (i < e && (t[i] == ' ' || t[i] == '\t'))
				i++;
		}
	}
	*ns = i;
	while (i < e && (isalnum((unsigned char)t[i]) || strchr("_.-", t[i])))
		i++;
	*ne = i;
	if (*ne == *ns)
		return 0;
	while (i < e && (t[i] == ' ' || t[i] == '\t'))
		i++;
	int op = 0;
	if (i < e && strchr("?+!", t[i]) && i + 1 < e && t[i + 1] == '=') {
		op = t[i];
		i += 2;
	} else if (i < e && t[i] == ':') {
		size_t j = i;
		while (j < e && t[j] == ':')
			j++;
		if (j < e && t[j] == '=' && j - i <= 3) {
			op = '=';
			i = j + 1;
		}
	} else if (i < e && t[i] == '=') {
		op = '=';
		i++;
	}
	while (i < e && (t[i] == ' ' || t[i] == '\t'))
		i++;
	*vs = i;
	return op;
}

/* The first pass: every variable the file assigns (make expands a recipe's variables
 * when it runs it, so a later assignment counts too). define ... endef included. */
static void mk_collect(struct mk *m, const char *t, size_t len)
{
	size_t i = 0, e, ns, ne, vs;

	while (i < len) {
		size_t s = i;
		i = line_at(t, len, i, &e);
		if (t[s] == '\t')
			continue;
		if (e - s > 7 && !memcmp(t + s, "define ", 7)) {
			size_t name_s = s + 7, name_e = e, body = i, be = i;
			while (name_e > name_s && strchr(" \t=:", t[name_e - 1]))
				name_e--;
			while (i < len) {
				size_t ls = i;
				i = line_at(t, len, i, &e);
				if (e - ls >= 6 && !memcmp(t + ls, "endef", 5))
					break;
				be = i;
			}
			mk_set(m, t + name_s, name_e - name_s, t + body,
			       be > body ? be - body - 1 : 0, '=');
			continue;
		}
		int op = mk_assign(t, s, e, &ns, &ne, &vs);
		if (!op || op == '!')
			continue;
		/* a value continued on the next lines: joined with a space, as make does */
		struct hook_buf v = HOOK_BUF_INIT;
		size_t ve = e;
		while (continues(t, s, ve, '\\') && i < len) {
			size_t end = ve;
			while (t[end - 1] != '\\')
				end--;
			hook_buf_add(&v, t + vs, end - 1 - vs);
			hook_buf_adds(&v, " ");
			vs = i;
			i = line_at(t, len, i, &ve);
			while (vs < ve && (t[vs] == ' ' || t[vs] == '\t'))
				vs++;
		}
		hook_buf_add(&v, t + vs, ve - vs);
		if (!v.oom)
			mk_set(m, t + ns, ne - ns, v.s ? v.s : "", v.len, op);
		hook_buf_release(&v);
	}
}

/* Adds one recipe command (its text already joined) with its variables expanded. */
static void mk_add(struct mk *m, const char *cmd, size_t n, unsigned line, struct scan_snips *out)
{
	struct hook_buf o = HOOK_BUF_INIT;
	struct scan_snip *sn;

	while (n && (*cmd == '@' || *cmd == '-' || *cmd == '+' || *cmd == ' ' || *cmd == '\t')) {
		cmd++;
		n--;
	}
	if (!n)
		return;
	mk_expand(m, cmd, n, 0, &o);
	if (o.oom) {
		out->oom = 1;
	} else if (o.s) {
		sn = scan_snip_add(out, o.s, o.len, line, 0, 1);
		if (sn)
			snprintf(sn->where, sizeof(sn->where), "recipe %.*s", (int)m->target_len,
				 m->target);
	}
	hook_buf_release(&o);
}

/* Is [s, e) a rule line (targets: prerequisites), and where do its parts lie? */
static int mk_rule(const char *t, size_t s, size_t e, size_t *colon)
{
	size_t ns, ne, vs;

	if (mk_assign(t, s, e, &ns, &ne, &vs))
		return 0;
	for (size_t i = s; i < e; i++) {
		if (t[i] == '#' || t[i] == '=')
			return 0;
		if (t[i] == ':') {
			*colon = i;
			return 1;
		}
	}
	return 0;
}

static void mk_rule_line(struct mk *m, const char *t, size_t s, size_t e, size_t colon,
			 unsigned line, struct scan_snips *out)
{
	size_t ts = s, te = s, ps = colon + 1, pe;

	while (ts < colon && isspace((unsigned char)t[ts]))
		ts++;
	te = ts;
	while (te < colon && !isspace((unsigned char)t[te]))
		te++;
	m->target = t + ts;
	m->target_len = te - ts;
	while (ps < e && (t[ps] == ':' || t[ps] == ' ' || t[ps] == '\t'))
		ps++;
	pe = ps;
	while (pe < e && t[pe] != ';' && t[pe] != '#')
		pe++;
	m->prereq = t + ps;
	m->prereq_len = pe - ps;
	while (m->prereq_len && isspace((unsigned char)m->prereq[m->prereq_len - 1]))
		m->prereq_len--;
	if (pe < e && t[pe] == ';') /* target: prereq ; command */
		mk_add(m, t + pe + 1, e - pe - 1, line, out);
}

static const char mk_directives[] = "ifeq\0ifneq\0ifdef\0ifndef\0else\0endif\0include\0"
				    "-include\0sinclude\0vpath\0";

static int mk_directive(const char *t, size_t s, size_t e)
{
	while (s < e && (t[s] == ' ' || t[s] == '\t'))
		s++;
	for (const char *d = mk_directives; *d; d += strlen(d) + 1) {
		size_t k = strlen(d);
		if (e - s >= k && !memcmp(t + s, d, k) &&
		    (e - s == k || isspace((unsigned char)t[s + k])))
			return 1;
	}
	return 0;
}

static int extract_make(const char *t, size_t len, struct scan_snips *out, char *err, size_t errsz)
{
	struct mk m;
	size_t i = 0, e, colon;
	unsigned line = 0;
	int in_rule = 0, in_define = 0;

	memset(&m, 0, sizeof(m));
	mk_collect(&m, t, len);
	while (i < len) {
		size_t s = i;
		i = line_at(t, len, i, &e);
		line++;
		if (in_define) {
			in_define = !(e - s >= 5 && !memcmp(t + s, "endef", 5));
			continue;
		}
		if (t[s] == '\t' && in_rule) {
			/* the recipe line and its continuations: "\\\n" kept, so that each of
			 * its lines is the file's; the next line's leading tab is make's */
			struct hook_buf c = HOOK_BUF_INIT;
			unsigned first = line;
			hook_buf_add(&c, t + s + 1, e - s - 1);
			while (continues(t, s, e, '\\') && i < len) {
				s = i;
				i = line_at(t, len, i, &e);
				line++;
				hook_buf_adds(&c, "\n");
				hook_buf_add(&c, t + s + (t[s] == '\t'), e - s - (t[s] == '\t'));
			}
			if (c.oom)
				out->oom = 1;
			else if (c.s)
				mk_add(&m, c.s, c.len, first, out);
			hook_buf_release(&c);
			continue;
		}
		if (blank(t + s, e - s) || t[s] == '#' || mk_directive(t, s, e))
			continue;
		if (e - s > 7 && !memcmp(t + s, "define ", 7)) {
			in_define = 1;
			continue;
		}
		in_rule = mk_rule(t, s, e, &colon);
		if (in_rule)
			mk_rule_line(&m, t, s, e, colon, line, out);
	}
	for (size_t k = 0; k < m.n; k++)
		free(m.v[k].value);
	free(m.v);
	if (m.too_big) {
		snprintf(err, errsz, "a variable expands past %u KiB (a recursive definition?)",
			 SCAN_EXPAND_MAX / 1024);
		return -EINVAL;
	}
	return out->oom ? -ENOMEM : 0;
}

/* ---- Dockerfile ---------------------------------------------------------------------- */

/* The heredoc words a RUN line opens (<<EOF, <<-"EOF"), in order; returns how many. */
static size_t heredoc_words(const char *s, size_t n, char words[][64], int *dash, size_t max)
{
	size_t k = 0;

	char quote = 0;

	for (size_t i = 0; i + 2 < n && k < max; i++) {
		/* not inside quotes: echo "a<<b" opens nothing */
		if (quote) {
			if (s[i] == '\\' && quote == '"')
				i++;
			else if (s[i] == quote)
				quote = 0;
			continue;
		}
		if (s[i] == '\'' || s[i] == '"') {
			quote = s[i];
			continue;
		}
		if (s[i] != '<' || s[i + 1] != '<' || (i && s[i - 1] == '<') || s[i + 2] == '<')
			continue;
		size_t j = i + 2, w = 0;
		dash[k] = j < n && s[j] == '-';
		j += (size_t)dash[k];
		char q = j < n && (s[j] == '"' || s[j] == '\'') ? s[j++] : 0;
		while (j < n && w < 63 && (isalnum((unsigned char)s[j]) || s[j] == '_'))
			words[k][w++] = s[j++];
		if (q && (j >= n || s[j] != q))
			continue;
		words[k][w] = '\0';
		if (w)
			k++;
		i = j;
	}
	return k;
}

/* RUN's own options (--mount=..., --network=none, --security=...), then the command. */
static size_t skip_run_flags(const char *s, size_t n)
{
	size_t i = 0;

	for (;;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i + 2 < n && s[i] == '-' && s[i + 1] == '-') {
			while (i < n && !isspace((unsigned char)s[i]))
				i++;
			continue;
		}
		return i;
	}
}

/* The exec form: a JSON array of strings, the program and its arguments. */
static int docker_exec_form(const char *s, size_t n, unsigned line, struct scan_snips *out)
{
	cJSON *a = cJSON_ParseWithLength(s, n), *it;
	struct hook_buf b = HOOK_BUF_INIT;
	int ok = cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0;

	cJSON_ArrayForEach(it, a)
	{
		if (!cJSON_IsString(it)) {
			ok = 0;
			break;
		}
		hook_buf_add(&b, it->valuestring, strlen(it->valuestring) + 1);
	}
	if (ok && b.s) {
		struct scan_snip *sn = scan_snip_add(out, b.s, b.len, line, 0, 0);
		if (sn) {
			sn->is_argv = 1;
			snprintf(sn->where, sizeof(sn->where), "RUN (exec form)");
		}
	}
	hook_buf_release(&b);
	cJSON_Delete(a);
	return ok;
}

/* One RUN: [s, e) is its text after the keyword on the first line, with its
 * continuation lines and heredoc bodies (lines kept: "\\\n" and the bodies as they
 * are; a comment line inside a continuation becomes a lone "\\", as Docker drops it). */
static size_t docker_run(const char *t, size_t len, size_t s, size_t i, size_t e, char esc,
			 unsigned *line, struct scan_snips *out)
{
	struct hook_buf c = HOOK_BUF_INIT;
	unsigned first = *line;
	char words[8][64];
	int dash[8];
	size_t nw;

	for (;;) {
		int more = continues(t, s, e, esc);
		size_t end = e;
		if (more) {
			while (t[end - 1] != esc)
				end--;
			end--;
		}
		hook_buf_add(&c, t + s, end - s);
		if (!more || i >= len)
			break;
		hook_buf_adds(&c, " \\\n");
		s = i;
		i = line_at(t, len, i, &e);
		++*line;
		size_t k = s;
		while (k < e && (t[k] == ' ' || t[k] == '\t'))
			k++;
		while (k < e && t[k] == '#' && i < len) { /* comment lines: dropped */
			hook_buf_adds(&c, "\\\n");
			s = i;
			i = line_at(t, len, i, &e);
			++*line;
			for (k = s; k < e && (t[k] == ' ' || t[k] == '\t');)
				k++;
		}
	}
	nw = c.s ? heredoc_words(c.s, c.len, words, dash, 8) : 0;
	for (size_t w = 0; w < nw && i < len; w++) { /* the bodies, in order */
		for (;;) {
			s = i;
			i = line_at(t, len, i, &e);
			++*line;
			hook_buf_adds(&c, "\n");
			hook_buf_add(&c, t + s, e - s);
			size_t k = s;
			while (dash[w] && k < e && t[k] == '\t')
				k++;
			if ((e - k == strlen(words[w]) && !memcmp(t + k, words[w], e - k)) ||
			    i >= len)
				break;
		}
	}
	if (c.oom || !c.s) {
		out->oom |= c.oom;
		hook_buf_release(&c);
		return i;
	}
	size_t f = skip_run_flags(c.s, c.len);
	if (c.s[f] == '[' && docker_exec_form(c.s + f, c.len - f, first, out)) {
		hook_buf_release(&c);
		return i;
	}
	struct scan_snip *sn;
	if (c.s[f] == '<' && c.s[f + 1] == '<') { /* RUN <<EOF: the body is the script */
		struct hook_buf w = HOOK_BUF_INIT;
		hook_buf_adds(&w, "sh ");
		hook_buf_add(&w, c.s + f, c.len - f);
		sn = w.s ? scan_snip_add(out, w.s, w.len, first, 0, 1) : NULL;
		hook_buf_release(&w);
	} else {
		sn = scan_snip_add(out, c.s + f, c.len - f, first, 0, 1);
	}
	if (sn)
		snprintf(sn->where, sizeof(sn->where), "RUN");
	hook_buf_release(&c);
	return i;
}

static int extract_docker(const char *t, size_t len, struct scan_snips *out)
{
	size_t i = 0, e;
	unsigned line = 0;
	char esc = '\\';
	int header = 1;

	while (i < len) {
		size_t s = i;
		i = line_at(t, len, i, &e);
		line++;
		while (s < e && (t[s] == ' ' || t[s] == '\t'))
			s++;
		if (s < e && t[s] == '#') {
			/* parser directives come first: # escape=` */
			if (header && e - s > 9 && !strncasecmp(t + s, "# escape=", 9))
				esc = t[s + 9];
			continue;
		}
		if (s == e)
			continue;
		header = 0;
		if (e - s > 7 && !strncasecmp(t + s, "ONBUILD ", 8)) {
			s += 8;
			while (s < e && (t[s] == ' ' || t[s] == '\t'))
				s++;
		}
		if (e - s >= 4 && !strncasecmp(t + s, "RUN", 3) && isspace((unsigned char)t[s + 3]))
			i = docker_run(t, len, s + 4, i, e, esc, &line, out);
		else
			while (continues(t, s, e, esc) &&
			       i < len) { /* another instruction's lines */
				s = i;
				i = line_at(t, len, i, &e);
				line++;
			}
	}
	return out->oom ? -ENOMEM : 0;
}

/* ---- justfile --------------------------------------------------------------------- */

/* {{ name }} becomes the value of a variable the file sets to a literal
 * (name := 'value'), else ${JUST_EXPR}, unknown; {{{{ is a literal {{. */
static void just_interp(const char *t, size_t len, const char *s, size_t n, struct hook_buf *o)
{
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && s[i] == '{' && s[i + 1] == '{') {
			if (i + 3 < n && s[i + 2] == '{' && s[i + 3] == '{') {
				hook_buf_adds(o, "{{");
				i += 3;
				continue;
			}
			const char *end = memmem(s + i + 2, n - i - 2, "}}", 2);
			if (!end)
				break;
			const char *a = s + i + 2, *b = end;
			while (a < b && *a == ' ')
				a++;
			while (b > a && b[-1] == ' ')
				b--;
			int done = 0;
			for (size_t k = 0; k < len && !done && b > a;) { /* name := 'literal' */
				size_t ke, ls = k;
				k = line_at(t, len, k, &ke);
				size_t nl = (size_t)(b - a);
				if (ke - ls > nl + 4 && !memcmp(t + ls, a, nl)) {
					const char *p = t + ls + nl;
					while (*p == ' ')
						p++;
					if (p[0] == ':' && p[1] == '=') {
						p += 2;
						while (*p == ' ')
							p++;
						const char *q = t + ke;
						while (q > p && (q[-1] == ' ' || q[-1] == '\r'))
							q--;
						if (q - p >= 2 && (*p == '\'' || *p == '"') &&
						    q[-1] == *p &&
						    !memchr(p + 1, *p, (size_t)(q - p - 2))) {
							hook_buf_add(o, p + 1, (size_t)(q - p - 2));
							done = 1;
						}
					}
				}
			}
			if (!done)
				hook_buf_adds(o, "${JUST_EXPR}");
			i = (size_t)(end - s) + 1;
			continue;
		}
		hook_buf_add(o, s + i, 1);
	}
}

static void just_add(const char *t, size_t len, const char *cmd, size_t n, unsigned line,
		     const char *recipe, size_t rlen, struct scan_snips *out)
{
	struct hook_buf o = HOOK_BUF_INIT;

	while (n && (*cmd == '@' || *cmd == '-')) {
		cmd++;
		n--;
	}
	just_interp(t, len, cmd, n, &o);
	if (o.s && !blank(o.s, o.len)) {
		struct scan_snip *sn = scan_snip_add(out, o.s, o.len, line, 0, 1);
		if (sn)
			snprintf(sn->where, sizeof(sn->where), "recipe %.*s", (int)rlen, recipe);
	}
	out->oom |= o.oom;
	hook_buf_release(&o);
}

/* name args: deps, at the start of a line (not name := value, not set/alias/...). */
static size_t just_header(const char *t, size_t s, size_t e)
{
	size_t i = s + (t[s] == '@');

	if (i >= e || !(isalpha((unsigned char)t[i]) || t[i] == '_'))
		return 0;
	for (const char *kw = "set\0alias\0export\0import\0mod\0if\0"; *kw; kw += strlen(kw) + 1)
		if (e - i > strlen(kw) && !memcmp(t + i, kw, strlen(kw)) &&
		    t[i + strlen(kw)] == ' ')
			return 0;
	size_t ne = i;
	while (ne < e && (isalnum((unsigned char)t[ne]) || t[ne] == '_' || t[ne] == '-'))
		ne++;
	for (size_t k = ne; k < e; k++)
		if (t[k] == ':')
			return k + 1 < e && t[k + 1] == '=' ? 0 : ne;
	return 0;
}

/* One recipe's body: lines indented under the header; a #! first line makes the body
 * one script (a shell's; another interpreter's is not read), else each line (with its
 * continuations) runs on its own. */
static size_t just_body(const char *t, size_t len, size_t i, unsigned *line, const char *name,
			size_t nlen, struct scan_snips *out)
{
	size_t e, first = i;
	int script = -1;
	unsigned first_line = *line + 1;

	while (i < len) {
		size_t s = i, n = line_at(t, len, i, &e);
		if (!blank(t + s, e - s) && t[s] != ' ' && t[s] != '\t')
			break;
		i = n;
		++*line;
		size_t k = s;
		while (k < e && (t[k] == ' ' || t[k] == '\t'))
			k++;
		if (k == e)
			continue;
		if (script < 0) {
			script = e - k > 2 && t[k] == '#' && t[k + 1] == '!';
			if (script && !shebang_is_shell(t + k, e - k))
				script = 2; /* another interpreter's script: not read */
		}
		if (script)
			continue;
		if (t[k] == '#')
			continue;
		unsigned at = *line;
		struct hook_buf c = HOOK_BUF_INIT;
		hook_buf_add(&c, t + k, e - k);
		while (continues(t, k, e, '\\') && i < len) {
			s = i;
			i = line_at(t, len, i, &e);
			++*line;
			hook_buf_adds(&c, "\n");
			hook_buf_add(&c, t + s, e - s);
		}
		if (c.s)
			just_add(t, len, c.s, c.len, at, name, nlen, out);
		out->oom |= c.oom;
		hook_buf_release(&c);
	}
	if (script == 1) /* the whole body, lines as they are */
		just_add(t, len, t + first, i - first, first_line, name, nlen, out);
	return i;
}

static int extract_just(const char *t, size_t len, struct scan_snips *out)
{
	size_t i = 0, e, ne;
	unsigned line = 0;

	while (i < len) {
		size_t s = i;
		i = line_at(t, len, i, &e);
		line++;
		if (s == e || t[s] == ' ' || t[s] == '\t' || t[s] == '#' || t[s] == '[')
			continue;
		ne = just_header(t, s, e);
		if (ne)
			i = just_body(t, len, i, &line, t + s + (t[s] == '@'),
				      ne - s - (t[s] == '@'), out);
	}
	return out->oom ? -ENOMEM : 0;
}

/* ---- Terraform ------------------------------------------------------------------------- */

static unsigned line_of_off(const char *t, size_t off)
{
	unsigned l = 1;

	for (size_t i = 0; i < off; i++)
		l += t[i] == '\n';
	return l;
}

/* An HCL string's value: escapes decoded, ${...} interpolations unknown to the shell
 * analysis (${TF_EXPR}), %{...} directives dropped. i is past the opening quote;
 * returns the offset past the closing one. */
static size_t tf_string(const char *t, size_t len, size_t i, struct hook_buf *o)
{
	while (i < len && t[i] != '"' && t[i] != '\n') {
		if (t[i] == '\\' && i + 1 < len) {
			char c = t[i + 1];
			hook_buf_add(o, c == 'n' ? "\n" : c == 't' ? "\t" : &t[i + 1], 1);
			i += 2;
		} else if ((t[i] == '$' || t[i] == '%') && i + 1 < len && t[i + 1] == '{') {
			size_t lvl = 0;
			char kind = t[i];
			for (i++; i < len; i++) {
				lvl += t[i] == '{' ? 1 : t[i] == '}' ? (size_t)-1 : 0;
				if (!lvl)
					break;
			}
			i++;
			if (kind == '$')
				hook_buf_adds(o, "${TF_EXPR}");
		} else {
			hook_buf_add(o, t + i, 1);
			i++;
		}
	}
	return i < len ? i + 1 : i;
}

/* command = "..." or command = <<EOT ... EOT (<<-EOT) inside a local-exec block
 * starting at b (its '{'). */
static void tf_block(const char *t, size_t len, size_t b, struct scan_snips *out)
{
	size_t lvl = 0, i;

	for (i = b; i < len; i++) {
		if (t[i] == '"') { /* strings may hold braces */
			struct hook_buf skip = HOOK_BUF_INIT;
			i = tf_string(t, len, i + 1, &skip) - 1;
			hook_buf_release(&skip);
			continue;
		}
		lvl += t[i] == '{' ? 1 : t[i] == '}' ? (size_t)-1 : 0;
		if (!lvl)
			return;
		if (lvl != 1 || strncmp(t + i, "command", 7) || isalnum((unsigned char)t[i - 1]))
			continue;
		size_t k = i + 7;
		while (k < len && (t[k] == ' ' || t[k] == '\t'))
			k++;
		if (k >= len || t[k] != '=')
			continue;
		k++;
		while (k < len && (t[k] == ' ' || t[k] == '\t'))
			k++;
		struct hook_buf o = HOOK_BUF_INIT;
		struct scan_snip *sn = NULL;
		if (k < len && t[k] == '"') {
			size_t end = tf_string(t, len, k + 1, &o);
			if (o.s)
				sn = scan_snip_add(out, o.s, o.len, line_of_off(t, k), 0, 0);
			i = end - 1;
		} else if (k + 2 < len && t[k] == '<' && t[k + 1] == '<') {
			size_t w = k + 2 + (t[k + 2] == '-'), we = w, e;
			while (we < len && (isalnum((unsigned char)t[we]) || t[we] == '_'))
				we++;
			size_t s = line_at(t, len, we, &e), body = s;
			while (s < len) {
				size_t ls = s, n = line_at(t, len, s, &e);
				while (ls < e && (t[ls] == ' ' || t[ls] == '\t'))
					ls++;
				if (e - ls == we - w && !memcmp(t + ls, t + w, we - w))
					break;
				s = n;
			}
			for (size_t q = body; q < s; q++) {
				if (t[q] == '$' && q + 1 < s && t[q + 1] == '{') {
					while (q < s && t[q] != '}')
						q++;
					hook_buf_adds(&o, "${TF_EXPR}");
				} else {
					hook_buf_add(&o, t + q, 1);
				}
			}
			if (o.s)
				sn = scan_snip_add(out, o.s, o.len, line_of_off(t, body), 0, 1);
			i = s;
		}
		if (sn)
			snprintf(sn->where, sizeof(sn->where), "local-exec");
		out->oom |= o.oom;
		hook_buf_release(&o);
	}
}

static int extract_tf(const char *t, size_t len, struct scan_snips *out)
{
	const char *p = t;

	while ((p = memmem(p, len - (size_t)(p - t), "\"local-exec\"", 12))) {
		const char *b = p + 12;
		while (b < t + len && (*b == ' ' || *b == '\t'))
			b++;
		if (b < t + len && *b == '{')
			tf_block(t, len, (size_t)(b - t), out);
		p += 12;
	}
	return out->oom ? -ENOMEM : 0;
}

/* ---- package.json ----------------------------------------------------------------------- */

/* Where "name": "..." of the scripts object lies in the text: the value's first byte. */
static size_t npm_locate(const char *t, size_t len, size_t from, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = from; i + n + 2 < len; i++) {
		if (t[i] != '"' || memcmp(t + i + 1, name, n) || t[i + 1 + n] != '"')
			continue;
		size_t k = i + n + 2;
		while (k < len && isspace((unsigned char)t[k]))
			k++;
		if (k >= len || t[k] != ':')
			continue;
		k++;
		while (k < len && isspace((unsigned char)t[k]))
			k++;
		if (k < len && t[k] == '"')
			return k + 1;
	}
	return 0;
}

static int extract_npm(const char *t, size_t len, struct scan_snips *out, char *err, size_t errsz)
{
	cJSON *doc = cJSON_ParseWithLength(t, len), *scripts, *it;
	const char *sp = strstr(t, "\"scripts\"");
	size_t from = sp ? (size_t)(sp - t) : 0;

	if (!doc) {
		snprintf(err, errsz, "not valid JSON");
		return -EINVAL;
	}
	scripts = cJSON_GetObjectItemCaseSensitive(doc, "scripts");
	if (!cJSON_IsObject(scripts))
		scripts = NULL;
	cJSON_ArrayForEach(it, scripts)
	{
		if (!cJSON_IsString(it) || !it->string)
			continue;
		size_t at = npm_locate(t, len, from, it->string);
		unsigned line = at ? line_of_off(t, at) : 1, col = 0;
		if (at) {
			size_t ls = at;
			while (ls > 0 && t[ls - 1] != '\n')
				ls--;
			col = (unsigned)(at - ls) + 1;
		}
		struct scan_snip *sn =
		    scan_snip_add(out, it->valuestring, strlen(it->valuestring), line, col, 0);
		if (sn)
			snprintf(sn->where, sizeof(sn->where), "script %.60s", it->string);
	}
	cJSON_Delete(doc);
	return out->oom ? -ENOMEM : 0;
}

/* ---- one file ------------------------------------------------------------------------------ */

int scan_extract(enum scan_kind k, const char *text, size_t len, struct scan_snips *out, char *err,
		 size_t errsz)
{
	struct scan_snip *sn;

	err[0] = '\0';
	switch (k) {
	case SCAN_SHELL:
		sn = scan_snip_add(out, text, len, 1, 1, 1);
		if (sn)
			snprintf(sn->where, sizeof(sn->where), "script");
		return sn ? 0 : -ENOMEM;
	case SCAN_MAKE:
		return extract_make(text, len, out, err, errsz);
	case SCAN_DOCKER:
		return extract_docker(text, len, out);
	case SCAN_JUST:
		return extract_just(text, len, out);
	case SCAN_TF:
		return extract_tf(text, len, out);
	case SCAN_NPM:
		return extract_npm(text, len, out, err, errsz);
	case SCAN_GHA:
	case SCAN_GITLAB:
	case SCAN_COMPOSE:
		return scan_extract_yaml(k, text, len, out, err, errsz);
	default:
		return 0;
	}
}
