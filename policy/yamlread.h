/* yamlread.h - what the YAML readers of policy/ share (load.c: policy files;
 * intent_load.c: the intents file and the tools lists): one document load with its
 * limits, and one form of diagnostic. */
#ifndef DCG_YAMLREAD_H
#define DCG_YAMLREAD_H

#include <stddef.h>
#include <yaml.h>

/* Collections nested deeper than this refuse the file (libyaml recurses per level). */
#define POL_YAML_DEPTH_MAX 64

/* One problem: 1-based line and column (0 when the whole file is meant). */
struct pol_yaml_diag {
	unsigned line, col;
	char msg[256];
};

/* The line and column of a mark, 1-based. */
#define POL_YAML_LINE(mark) ((unsigned)(mark).line + 1)
#define POL_YAML_COL(mark)  ((unsigned)(mark).column + 1)

/* Loads buf (len bytes) as one YAML document into doc, refusing a text over max bytes,
 * collections nested more than POL_YAML_DEPTH_MAX deep, and syntax errors (with the
 * place the construct at fault began). Returns 0 (yaml_document_delete(doc) after),
 * -EINVAL with d filled ("...: file refused" or "...: file ignored"), or -ENOMEM. */
int pol_yaml_load(const char *buf, size_t len, size_t max, yaml_document_t *doc,
		  struct pol_yaml_diag *d);

/* The text of a scalar node, or NULL (not a scalar, or n NULL). */
const char *pol_yaml_scalar(const yaml_node_t *n);

/* The value of key in a mapping node, or NULL (no such key, or not a mapping). */
yaml_node_t *pol_yaml_get(yaml_document_t *doc, const yaml_node_t *map, const char *key);

#endif /* DCG_YAMLREAD_H */
