/* yamlread.c - the one YAML document load of policy/ and its helpers (yamlread.h). */
#include "yamlread.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int say(struct pol_yaml_diag *d, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int say(struct pol_yaml_diag *d, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;

	d->line = line;
	d->col = col;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A flow collection nests without indentation: "[[[[...". Counted with the event
 * parser before the document loader, which recurses per level, ever sees it. */
static int check_depth(const char *buf, size_t len, struct pol_yaml_diag *d)
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
			if (++depth > POL_YAML_DEPTH_MAX)
				rc = say(d, POL_YAML_LINE(ev.start_mark),
					 POL_YAML_COL(ev.start_mark),
					 "collections nested more than %d deep: file refused",
					 POL_YAML_DEPTH_MAX);
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

int pol_yaml_load(const char *buf, size_t len, size_t max, yaml_document_t *doc,
		  struct pol_yaml_diag *d)
{
	yaml_parser_t parser;
	int rc;

	memset(d, 0, sizeof(*d));
	if (len > max)
		return say(d, 0, 0, "file is %zu bytes, over the %zu %s limit: file refused", len,
			   max >= (1u << 20) ? max >> 20 : max, max >= (1u << 20) ? "MiB" : "byte");
	rc = check_depth(buf, len, d);
	if (rc < 0)
		return rc;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, doc)) {
		/* Where the problem was noticed can be the end of the file (an unclosed
		 * quote); the context mark says where the construct at fault began. */
		char began[64] = "";

		if (parser.context && (parser.context_mark.line != parser.problem_mark.line ||
				       parser.context_mark.column != parser.problem_mark.column))
			snprintf(began, sizeof(began), " (started at line %u, column %u)",
				 POL_YAML_LINE(parser.context_mark),
				 POL_YAML_COL(parser.context_mark));
		rc = say(d, POL_YAML_LINE(parser.problem_mark), POL_YAML_COL(parser.problem_mark),
			 "YAML syntax error: %s%s%s%s: file ignored",
			 parser.problem ? parser.problem : "unknown", parser.context ? " " : "",
			 parser.context ? parser.context : "", began);
	}
	yaml_parser_delete(&parser);
	return rc;
}

const char *pol_yaml_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

yaml_node_t *pol_yaml_get(yaml_document_t *doc, const yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
	     pr++) {
		const char *k = pol_yaml_scalar(yaml_document_get_node(doc, pr->key));

		if (k && !strcmp(k, key))
			return yaml_document_get_node(doc, pr->value);
	}
	return NULL;
}
