/* allow_edit.c - `dcg allow`: adds one entry to a policy file's `allow:` list by editing
 * its text, so that the user's comments, order and layout survive; libyaml then reads
 * the result back to prove the entry is there. */
#include "hook.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- reading back with libyaml -------------------------------------------------------- */

static int scalar_is(yaml_document_t *doc, yaml_node_t *n, const char *s)
{
	(void)doc;
	return n && n->type == YAML_SCALAR_NODE && strlen(s) == n->data.scalar.length &&
	       !memcmp(n->data.scalar.value, s, n->data.scalar.length);
}

/* The value of key in a mapping node, or NULL. */
static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *pair;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++)
		if (scalar_is(doc, yaml_document_get_node(doc, pair->key), key))
			return yaml_document_get_node(doc, pair->value);
	return NULL;
}

/* 1: has the entry, 0: parsed but no entry, -1: not valid YAML. */
static int allow_lookup(const char *text, size_t len, const char *rule_id)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *list, *rule;
	yaml_node_item_t *it;
	int found = 0;

	if (!yaml_parser_initialize(&parser))
		return -1;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_parser_delete(&parser);
		return -1;
	}
	root = yaml_document_get_root_node(&doc);
	list = map_get(&doc, root, "allow");
	if (list && list->type == YAML_SEQUENCE_NODE) {
		for (it = list->data.sequence.items.start; it < list->data.sequence.items.top;
		     it++) {
			rule = map_get(&doc, yaml_document_get_node(&doc, *it), "rule");
			if (scalar_is(&doc, rule, rule_id)) {
				found = 1;
				break;
			}
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return found;
}

int hook_allow_has_entry(const char *text, size_t len, const char *rule_id)
{
	return allow_lookup(text, len, rule_id) == 1;
}

/* ---- writing the entry ------------------------------------------------------------------ */

static void add_quoted(struct hook_buf *b, const char *s)
{
	hook_buf_adds(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			hook_buf_addf(b, "\\%c", c);
		else if (c == '\n')
			hook_buf_adds(b, "\\n");
		else if (c == '\t')
			hook_buf_adds(b, "\\t");
		else if (c < 0x20 || c == 0x7f)
			hook_buf_addf(b, "\\x%02x", c);
		else
			hook_buf_add(b, (const char *)&c, 1);
	}
	hook_buf_adds(b, "\"");
}

static int valid_rule_id(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
			return 0;
	return 1;
}

static int valid_date(const char *s)
{
	static const char shape[] = "dddd-dd-dd";
	size_t i;
	long month, day;

	if (!s || strlen(s) != 10)
		return 0;
	for (i = 0; i < 10; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != '-')
			return 0;
	month = (s[5] - '0') * 10 + (s[6] - '0');
	day = (s[8] - '0') * 10 + (s[9] - '0');
	return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/* The entry as a block sequence item indented by indent. */
static void add_block_entry(struct hook_buf *b, const struct hook_allow_entry *e,
			    const char *indent, size_t indent_len)
{
	hook_buf_add(b, indent, indent_len);
	hook_buf_addf(b, "- rule: %s\n", e->rule);
	hook_buf_add(b, indent, indent_len);
	hook_buf_adds(b, "  reason: ");
	add_quoted(b, e->reason);
	hook_buf_adds(b, "\n");
	if (e->path) {
		hook_buf_add(b, indent, indent_len);
		hook_buf_adds(b, "  paths: [");
		add_quoted(b, e->path);
		hook_buf_adds(b, "]\n");
	}
	if (e->expires) {
		hook_buf_add(b, indent, indent_len);
		hook_buf_addf(b, "  expires: %s\n", e->expires);
	}
}

static void add_flow_entry(struct hook_buf *b, const struct hook_allow_entry *e)
{
	hook_buf_addf(b, "{rule: %s, reason: ", e->rule);
	add_quoted(b, e->reason);
	if (e->path) {
		hook_buf_adds(b, ", paths: [");
		add_quoted(b, e->path);
		hook_buf_adds(b, "]");
	}
	if (e->expires)
		hook_buf_addf(b, ", expires: %s", e->expires);
	hook_buf_adds(b, "}");
}

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/* Finds the top-level `allow:` key: a line that starts with it at column 0. */
static const char *find_allow_key(const char *text, const char *end)
{
	const char *p = text;

	while (p < end) {
		const char *e = line_end(p, end);
		if ((size_t)(e - p) >= 6 && !memcmp(p, "allow:", 6) &&
		    (p + 6 == e || p[6] == ' ' || p[6] == '\t' || p[6] == '\r' || p[6] == '#'))
			return p;
		p = e < end ? e + 1 : end;
	}
	return NULL;
}

/* The value after `allow:` on its line, without spaces and comment: [start, stop). */
static void value_span(const char *after, const char *eol, const char **start, const char **stop)
{
	const char *s = after, *t;
	int in_single = 0, in_double = 0;

	while (s < eol && (*s == ' ' || *s == '\t'))
		s++;
	for (t = s; t < eol; t++) {
		if (*t == '\'' && !in_double)
			in_single = !in_single;
		else if (*t == '"' && !in_single)
			in_double = !in_double;
		else if (*t == '#' && !in_single && !in_double &&
			 (t == s || t[-1] == ' ' || t[-1] == '\t'))
			break;
	}
	while (t > s && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
		t--;
	*start = s;
	*stop = t;
}

int hook_allow_edit(const char *text, size_t len, const struct hook_allow_entry *entry, char **out,
		    char *msg, size_t msgsize)
{
	struct hook_buf b = HOOK_BUF_INIT;
	const char *end = text + len, *key, *eol, *vs, *ve, *p, *insert_at, *indent = "  ";
	size_t indent_len = 2;
	int rc = -EINVAL, found_item = 0;

	*out = NULL;
	msg[0] = '\0';
	if (!valid_rule_id(entry->rule)) {
		snprintf(msg, msgsize, "'%s' is not a rule ID", entry->rule ? entry->rule : "");
		return -EINVAL;
	}
	if (!entry->reason || !entry->reason[0]) {
		snprintf(msg, msgsize, "an allow entry needs a reason (-r \"why\")");
		return -EINVAL;
	}
	if (entry->expires && !valid_date(entry->expires)) {
		snprintf(msg, msgsize, "--expires wants a date as YYYY-MM-DD, not '%s'",
			 entry->expires);
		return -EINVAL;
	}
	if (len && allow_lookup(text, len, entry->rule) < 0) {
		snprintf(msg, msgsize,
			 "the file is not valid YAML; fix it first (dcg rules lint FILE)");
		return -EINVAL;
	}

	key = find_allow_key(text, end);
	if (!key) {
		hook_buf_add(&b, text, len);
		if (len && text[len - 1] != '\n')
			hook_buf_adds(&b, "\n");
		hook_buf_adds(&b, "allow:\n");
		add_block_entry(&b, entry, indent, indent_len);
		goto check;
	}
	eol = line_end(key, end);
	value_span(key + 6, eol, &vs, &ve);
	if (vs == ve || (ve - vs == 2 && !memcmp(vs, "[]", 2))) {
		/* A block list (or an empty flow list made into one): the entry goes after
		 * the list's last item line, before any comment or key that follows. */
		insert_at = eol;
		for (p = eol < end ? eol + 1 : end; p < end;) {
			const char *e = line_end(p, end), *q = p;
			while (q < e && (*q == ' ' || *q == '\t'))
				q++;
			if (q == e || *q == '\r' || *q == '#') { /* blank or comment */
				p = e < end ? e + 1 : end;
				continue;
			}
			if (q == p && *q != '-')
				break; /* the next top-level key */
			if (*q == '-' && !found_item) {
				indent = p;
				indent_len = (size_t)(q - p);
				found_item = 1;
			}
			insert_at = e;
			p = e < end ? e + 1 : end;
		}
		if (vs != ve && found_item) {
			snprintf(msg, msgsize,
				 "`allow: []` is followed by list items; edit the file by hand");
			goto out;
		}
		if (vs != ve) {
			/* allow: [] -> allow: (keeping a comment after it) */
			hook_buf_add(&b, text, (size_t)(vs - text));
			while (b.len && (b.s[b.len - 1] == ' ' || b.s[b.len - 1] == '\t'))
				b.s[--b.len] = '\0';
			hook_buf_add(&b, ve, (size_t)(insert_at - ve));
		} else {
			hook_buf_add(&b, text, (size_t)(insert_at - text));
		}
		hook_buf_adds(&b, "\n");
		add_block_entry(&b, entry, indent, indent_len);
		if (insert_at < end)
			hook_buf_add(&b, insert_at + 1, (size_t)(end - insert_at - 1));
		goto check;
	}
	if (*vs == '[' && ve[-1] == ']') {
		/* A one-line flow list: the entry goes before its closing bracket. */
		const char *close = ve - 1, *q = close;
		while (q > vs + 1 && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		hook_buf_add(&b, text, (size_t)(q - text));
		if (q > vs + 1)
			hook_buf_adds(&b, ", ");
		add_flow_entry(&b, entry);
		hook_buf_add(&b, close, (size_t)(end - close));
		goto check;
	}
	snprintf(msg, msgsize,
		 "the `allow:` key has a layout dcg cannot edit safely; add the entry by hand");
	goto out;

check:
	if (b.oom) {
		rc = -ENOMEM;
		goto out;
	}
	if (allow_lookup(b.s, b.len, entry->rule) != 1) {
		snprintf(msg, msgsize,
			 "the edited file did not read back with the new entry; left it unchanged");
		goto out;
	}
	*out = hook_buf_detach(&b);
	return *out ? 0 : -ENOMEM;
out:
	hook_buf_release(&b);
	return rc;
}
