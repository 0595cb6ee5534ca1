/* scan_yaml.c - the YAML kinds of `dcg scan` (GitHub Actions, GitLab CI, docker
 * compose): libyaml's events made into a small tree with each scalar's place in the
 * file, then the keys each kind runs. An alias is not followed (its anchor's text is
 * scanned where it is written), so a "billion laughs" file costs its own size; the tree
 * is bounded in nodes and depth (scan.h). */
#include "scan.h"

#include "hook.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

enum y_type { Y_SCALAR, Y_SEQ, Y_MAP, Y_ALIAS };

struct y_node {
	enum y_type type;
	int style;   /* yaml_scalar_style_t */
	char *value; /* scalars */
	size_t len;
	unsigned line, col;    /* 1-based, of the node's first character */
	unsigned end_line;     /* 1-based line of its end */
	int first, last, next; /* children and the next sibling: indexes, -1 none */
};

struct y_tree {
	struct y_node *n;
	size_t count, cap;
	int roots[64]; /* one per document */
	size_t n_roots;
};

static void tree_release(struct y_tree *t)
{
	for (size_t i = 0; i < t->count; i++)
		free(t->n[i].value);
	free(t->n);
}

static int tree_add(struct y_tree *t, int parent, const yaml_event_t *ev, enum y_type type)
{
	struct y_node *n;

	if (t->count >= SCAN_YAML_NODES)
		return -E2BIG;
	if (t->count == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 64;
		struct y_node *nv = realloc(t->n, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		t->n = nv;
		t->cap = nc;
	}
	n = &t->n[t->count];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->first = n->last = n->next = -1;
	n->line = (unsigned)ev->start_mark.line + 1;
	n->col = (unsigned)ev->start_mark.column + 1;
	n->end_line = (unsigned)ev->end_mark.line + 1;
	if (type == Y_SCALAR) {
		n->style = ev->data.scalar.style;
		n->len = ev->data.scalar.length;
		n->value = malloc(n->len + 1);
		if (!n->value)
			return -ENOMEM;
		memcpy(n->value, ev->data.scalar.value, n->len);
		n->value[n->len] = '\0';
	}
	if (parent >= 0) {
		if (t->n[parent].last >= 0)
			t->n[t->n[parent].last].next = (int)t->count;
		else
			t->n[parent].first = (int)t->count;
		t->n[parent].last = (int)t->count;
	} else if (t->n_roots < sizeof(t->roots) / sizeof(t->roots[0])) {
		t->roots[t->n_roots++] = (int)t->count;
	}
	return (int)t->count++;
}

/* The whole stream as a tree. Returns 0, -EINVAL (err says where), -E2BIG, -ENOMEM. */
static int tree_build(struct y_tree *t, const char *text, size_t len, char *err, size_t errsz)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int stack[SCAN_YAML_DEPTH], depth = 0, rc = 0, done = 0;

	memset(t, 0, sizeof(*t));
	if (!yaml_parser_initialize(&p))
		return -ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!done && !rc) {
		if (!yaml_parser_parse(&p, &ev)) {
			snprintf(err, errsz, "YAML error at line %zu: %s", p.problem_mark.line + 1,
				 p.problem ? p.problem : "syntax");
			rc = -EINVAL;
			break;
		}
		int parent = depth ? stack[depth - 1] : -1, id = 0;
		switch (ev.type) {
		case YAML_SCALAR_EVENT:
			id = tree_add(t, parent, &ev, Y_SCALAR);
			break;
		case YAML_ALIAS_EVENT:
			id = tree_add(t, parent, &ev, Y_ALIAS);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			id = tree_add(t, parent, &ev,
				      ev.type == YAML_MAPPING_START_EVENT ? Y_MAP : Y_SEQ);
			if (id >= 0 && depth == SCAN_YAML_DEPTH)
				id = -ELOOP;
			else if (id >= 0)
				stack[depth++] = id;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth) {
				t->n[stack[depth - 1]].end_line = (unsigned)ev.end_mark.line + 1;
				depth--;
			}
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
		if (id == -E2BIG)
			snprintf(err, errsz, "more than %d YAML nodes", SCAN_YAML_NODES);
		else if (id == -ELOOP)
			snprintf(err, errsz, "YAML nested deeper than %d levels", SCAN_YAML_DEPTH);
		if (id < 0)
			rc = id == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	yaml_parser_delete(&p);
	return rc;
}

/* The value of key in mapping m, or -1. */
static int map_get(const struct y_tree *t, int m, const char *key)
{
	if (m < 0 || t->n[m].type != Y_MAP)
		return -1;
	for (int k = t->n[m].first; k >= 0 && t->n[k].next >= 0; k = t->n[t->n[k].next].next)
		if (t->n[k].type == Y_SCALAR && !strcmp(t->n[k].value, key))
			return t->n[k].next;
	return -1;
}

/* A scalar's text as the command to judge: GitHub's ${{ expr }} (replaced before the
 * shell runs, unknown here) as ${GHA_EXPR}; compose's $$ as $. Lines are kept. */
static void add_scalar(const struct y_tree *t, int id, enum scan_kind k, const char *where,
		       struct scan_snips *out)
{
	const struct y_node *n = &t->n[id];
	struct hook_buf b = HOOK_BUF_INIT;
	struct scan_snip *sn;
	unsigned line = n->line, col = n->col;
	int exact = 1;

	if (n->type != Y_SCALAR || !n->len)
		return;
	for (size_t i = 0; i < n->len; i++) {
		const char *end;
		if (k == SCAN_GHA && n->value[i] == '$' && i + 2 < n->len &&
		    n->value[i + 1] == '{' && n->value[i + 2] == '{' &&
		    (end = strstr(n->value + i, "}}"))) {
			hook_buf_adds(&b, "${GHA_EXPR}");
			i = (size_t)(end - n->value) + 1;
		} else if (k == SCAN_COMPOSE && n->value[i] == '$' && i + 1 < n->len &&
			   n->value[i + 1] == '$') {
			hook_buf_adds(&b, "$");
			i++;
		} else {
			hook_buf_add(&b, n->value + i, 1);
		}
	}
	if (n->style == YAML_LITERAL_SCALAR_STYLE) {
		line = n->line + 1; /* the text starts on the line after the | */
		col = 0;
	} else if (n->style == YAML_FOLDED_SCALAR_STYLE || memchr(n->value, '\n', n->len) ||
		   n->end_line > n->line) {
		exact = 0; /* folded: lines joined; only the span is known */
		line = n->line + (n->style == YAML_FOLDED_SCALAR_STYLE);
		col = 0;
	} else if (n->style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
		   n->style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
		col++;
	}
	sn = b.s ? scan_snip_add(out, b.s, b.len, line, col, exact) : NULL;
	if (sn) {
		if (!exact)
			sn->end_line = n->end_line;
		snprintf(sn->where, sizeof(sn->where), "%s", where);
	}
	out->oom |= b.oom;
	hook_buf_release(&b);
}

/* A sequence of strings: an exec form (the program and its arguments). */
static void add_argv(const struct y_tree *t, int id, const char *where, struct scan_snips *out)
{
	struct hook_buf b = HOOK_BUF_INIT;
	struct scan_snip *sn;

	for (int c = t->n[id].first; c >= 0; c = t->n[c].next) {
		if (t->n[c].type != Y_SCALAR) {
			hook_buf_release(&b);
			return;
		}
		hook_buf_add(&b, t->n[c].value, t->n[c].len + 1);
	}
	sn = b.s ? scan_snip_add(out, b.s, b.len, t->n[id].line, 0, 0) : NULL;
	if (sn) {
		sn->is_argv = 1;
		sn->end_line = t->n[id].end_line;
		snprintf(sn->where, sizeof(sn->where), "%s", where);
	}
	out->oom |= b.oom;
	hook_buf_release(&b);
}

/* GitHub: every mapping with a `steps` list (jobs, composite actions' runs); each step's
 * run, unless its shell is not a POSIX shell's (python, pwsh, cmd: not read). */
static void gha_walk(const struct y_tree *t, int id, const char *job, struct scan_snips *out)
{
	const struct y_node *n = &t->n[id];
	int steps = map_get(t, id, "steps"), i = 0;

	if (steps >= 0 && t->n[steps].type == Y_SEQ) {
		for (int s = t->n[steps].first; s >= 0; s = t->n[s].next, i++) {
			int run = map_get(t, s, "run"), sh = map_get(t, s, "shell"), nm;
			char where[80];
			if (run < 0)
				continue;
			if (sh >= 0 && t->n[sh].type == Y_SCALAR &&
			    strcmp(t->n[sh].value, "bash") && strcmp(t->n[sh].value, "sh") &&
			    strncmp(t->n[sh].value, "bash ", 5) &&
			    strncmp(t->n[sh].value, "sh ", 3))
				continue;
			nm = map_get(t, s, "name");
			if (nm >= 0 && t->n[nm].type == Y_SCALAR)
				snprintf(where, sizeof(where), "job %.30s step %.30s", job,
					 t->n[nm].value);
			else
				snprintf(where, sizeof(where), "job %.30s step %d", job, i + 1);
			add_scalar(t, run, SCAN_GHA, where, out);
		}
	}
	if (n->type != Y_MAP)
		return;
	for (int k = n->first; k >= 0 && t->n[k].next >= 0; k = t->n[t->n[k].next].next) {
		int v = t->n[k].next;
		if (t->n[v].type == Y_MAP)
			gha_walk(t, v, t->n[k].type == Y_SCALAR ? t->n[k].value : job, out);
	}
}

/* GitLab: script, before_script and after_script of each job, of default: and of the
 * top level; a list's items (nested lists too) each a command. */
static void gitlab_lines(const struct y_tree *t, int v, const char *where, int depth,
			 struct scan_snips *out)
{
	if (t->n[v].type == Y_SCALAR)
		add_scalar(t, v, SCAN_GITLAB, where, out);
	else if (t->n[v].type == Y_SEQ && depth < 8)
		for (int c = t->n[v].first; c >= 0; c = t->n[c].next)
			gitlab_lines(t, c, where, depth + 1, out);
}

static void gitlab_job(const struct y_tree *t, int m, const char *name, struct scan_snips *out)
{
	static const char keys[] = "before_script\0script\0after_script\0";
	char where[80];

	for (const char *key = keys; *key; key += strlen(key) + 1) {
		int v = map_get(t, m, key);
		if (v < 0)
			continue;
		snprintf(where, sizeof(where), "job %.40s %s", name, key);
		gitlab_lines(t, v, where, 0, out);
	}
}

static void gitlab_walk(const struct y_tree *t, int root, struct scan_snips *out)
{
	if (t->n[root].type != Y_MAP)
		return;
	gitlab_job(t, root, "(global)", out);
	for (int k = t->n[root].first; k >= 0 && t->n[k].next >= 0; k = t->n[t->n[k].next].next)
		if (t->n[k].type == Y_SCALAR && t->n[t->n[k].next].type == Y_MAP)
			gitlab_job(t, t->n[k].next, t->n[k].value, out);
}

/* compose: services.NAME.command and .entrypoint, a string or a list (exec form). */
static void compose_walk(const struct y_tree *t, int root, struct scan_snips *out)
{
	int svcs = map_get(t, root, "services");
	char where[80];

	if (svcs < 0 || t->n[svcs].type != Y_MAP)
		return;
	for (int k = t->n[svcs].first; k >= 0 && t->n[k].next >= 0; k = t->n[t->n[k].next].next) {
		for (const char *key = "command\0entrypoint\0"; *key; key += strlen(key) + 1) {
			int v = map_get(t, t->n[k].next, key);
			if (v < 0)
				continue;
			snprintf(where, sizeof(where), "service %.40s %s",
				 t->n[k].type == Y_SCALAR ? t->n[k].value : "?", key);
			if (t->n[v].type == Y_SEQ)
				add_argv(t, v, where, out);
			else
				add_scalar(t, v, SCAN_COMPOSE, where, out);
		}
	}
}

int scan_extract_yaml(enum scan_kind k, const char *text, size_t len, struct scan_snips *out,
		      char *err, size_t errsz)
{
	struct y_tree t;
	int rc = tree_build(&t, text, len, err, errsz);

	for (size_t r = 0; !rc && r < t.n_roots; r++) {
		if (k == SCAN_GHA)
			gha_walk(&t, t.roots[r], "", out);
		else if (k == SCAN_GITLAB)
			gitlab_walk(&t, t.roots[r], out);
		else
			compose_walk(&t, t.roots[r], out);
	}
	tree_release(&t);
	if (!rc && out->oom)
		rc = -ENOMEM;
	return rc;
}
