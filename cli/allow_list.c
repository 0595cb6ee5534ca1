/* allow_list.c - the entries of a policy file's `allow:` list as written, with where
 * each lies in the text, for `dcg allow --list`, `dcg unallow` and the merging of an
 * identical `dcg allow` (hook.h, allowlist listing). Removal cuts the entry's own text
 * (block or flow style) and leaves every other byte of the file as it was. */
#include "hook.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static int scalar_copy(yaml_node_t *n, char *out, size_t size)
{
	size_t len;

	if (!n || n->type != YAML_SCALAR_NODE)
		return -1;
	len = n->data.scalar.length < size - 1 ? n->data.scalar.length : size - 1;
	memcpy(out, n->data.scalar.value, len);
	out[len] = '\0';
	return 0;
}

static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *pair;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(doc, pair->key);
		if (k && k->type == YAML_SCALAR_NODE && strlen(key) == k->data.scalar.length &&
		    !memcmp(k->data.scalar.value, key, k->data.scalar.length))
			return yaml_document_get_node(doc, pair->value);
	}
	return NULL;
}

static void span_of(yaml_node_t *n, struct hook_allow_span *s)
{
	s->start = n->start_mark.index;
	s->end = n->end_mark.index;
	s->flow =
	    n->type == YAML_SCALAR_NODE ||
	    (n->type == YAML_MAPPING_NODE && n->data.mapping.style == YAML_FLOW_MAPPING_STYLE) ||
	    (n->type == YAML_SEQUENCE_NODE && n->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE);
}

/* Where a node's own text ends: a block collection's end mark lies at the next token,
 * past any comment lines after it, so take the last end of what it holds. */
static size_t text_end(yaml_document_t *doc, yaml_node_t *n, int depth)
{
	size_t end = n->start_mark.index;

	if (n->type == YAML_SCALAR_NODE || depth > 8)
		return n->end_mark.index;
	if (n->type == YAML_MAPPING_NODE) {
		if (n->data.mapping.style == YAML_FLOW_MAPPING_STYLE)
			return n->end_mark.index;
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			size_t e = text_end(doc, yaml_document_get_node(doc, p->value), depth + 1);
			if (e > end)
				end = e;
		}
	} else if (n->type == YAML_SEQUENCE_NODE) {
		if (n->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE)
			return n->end_mark.index;
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++) {
			size_t e = text_end(doc, yaml_document_get_node(doc, *i), depth + 1);
			if (e > end)
				end = e;
		}
	}
	return end;
}

static void read_item(yaml_document_t *doc, yaml_node_t *n, int in_flow, struct hook_allow_item *it)
{
	yaml_node_t *paths;

	memset(it, 0, sizeof(*it));
	span_of(n, &it->span);
	it->span.end = text_end(doc, n, 0);
	it->span.flow = in_flow;
	it->line = (unsigned)n->start_mark.line + 1;
	scalar_copy(map_get(doc, n, "rule"), it->rule, sizeof(it->rule));
	scalar_copy(map_get(doc, n, "reason"), it->reason, sizeof(it->reason));
	scalar_copy(map_get(doc, n, "expires"), it->expires, sizeof(it->expires));
	paths = map_get(doc, n, "paths");
	if (!paths)
		paths = map_get(doc, n, "path");
	if (paths && paths->type == YAML_SCALAR_NODE) {
		scalar_copy(paths, it->paths[0], sizeof(it->paths[0]));
		span_of(paths, &it->path_spans[0]);
		it->n_paths = 1;
		it->paths_single = 1;
	} else if (paths && paths->type == YAML_SEQUENCE_NODE) {
		int flow = paths->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE;
		for (yaml_node_item_t *p = paths->data.sequence.items.start;
		     p < paths->data.sequence.items.top && it->n_paths < HOOK_ALLOW_MAX_PATHS;
		     p++) {
			yaml_node_t *pn = yaml_document_get_node(doc, *p);
			if (scalar_copy(pn, it->paths[it->n_paths], sizeof(it->paths[0])))
				continue;
			span_of(pn, &it->path_spans[it->n_paths]);
			it->path_spans[it->n_paths].flow = flow;
			it->n_paths++;
		}
	}
}

int hook_allow_items(const char *text, size_t len, struct hook_allow_item **items, size_t *n)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *list;
	int rc = 0;

	*items = NULL;
	*n = 0;
	if (!len)
		return 0;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	root = yaml_document_get_root_node(&doc);
	list = map_get(&doc, root, "allow");
	if (list && list->type == YAML_SEQUENCE_NODE) {
		size_t cap =
		    (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
		int flow = list->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE;
		*items = calloc(cap ? cap : 1, sizeof(**items));
		if (!*items) {
			rc = -ENOMEM;
			goto out;
		}
		for (yaml_node_item_t *i = list->data.sequence.items.start;
		     i < list->data.sequence.items.top; i++) {
			yaml_node_t *e = yaml_document_get_node(&doc, *i);
			if (!e || e->type != YAML_MAPPING_NODE)
				continue;
			read_item(&doc, e, flow, &(*items)[(*n)++]);
		}
	}
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

/* Cuts span s out of text: a block item with its "- " and its whole lines, a flow
 * item with one of the commas beside it. */
char *hook_allow_cut(const char *text, size_t len, const struct hook_allow_span *s)
{
	size_t a = s->start, b = s->end > len ? len : s->end;
	struct hook_buf out = HOOK_BUF_INIT;

	if (a > b)
		return NULL;
	if (s->flow) {
		size_t k = b;
		while (k < len && (text[k] == ' ' || text[k] == '\t'))
			k++;
		if (k < len && text[k] == ',') {
			b = k + 1;
			while (b < len && (text[b] == ' ' || text[b] == '\t'))
				b++;
		} else {
			k = a;
			while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t'))
				k--;
			if (k > 0 && text[k - 1] == ',')
				a = k - 1;
		}
	} else {
		/* back over "- " (and a flow mapping's own start) to the line's start */
		size_t k = a;
		while (k > 0 && text[k - 1] != '\n' && text[k - 1] != '-')
			k--;
		if (k > 0 && text[k - 1] == '-')
			k--;
		while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t'))
			k--;
		if (k == 0 || text[k - 1] == '\n')
			a = k;
		/* to the end of the entry's last line */
		while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t'))
			b--;
		if (b > a && text[b - 1] != '\n') {
			while (b < len && text[b] != '\n')
				b++;
			if (b < len)
				b++;
		}
	}
	hook_buf_add(&out, text, a);
	hook_buf_add(&out, text + b, len - b);
	return hook_buf_detach(&out);
}
