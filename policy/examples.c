/* examples.c - the rules' own examples (examples: {stop: [...], pass: [...]}): read
 * from a policy file's text and decided, for `dcg rules lint`, `dcg packs --verbose`
 * and the tests. The load only checks their form (load.c); nothing here runs when a
 * hook decides. */
#include "dcg_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "yamlread.h"

/* The largest text read (the loader's limit for a policy file). */
#define EXAMPLES_TEXT_MAX (16u * 1024 * 1024)

/* Each string of one stop: or pass: list. */
static int each_command(yaml_document_t *doc, const yaml_node_t *list, struct pol_example *ex,
			pol_example_fn fn, void *arg)
{
	int rc = 0;

	if (!list || list->type != YAML_SEQUENCE_NODE)
		return 0;
	for (yaml_node_item_t *it = list->data.sequence.items.start;
	     it < list->data.sequence.items.top && !rc; it++) {
		yaml_node_t *item = yaml_document_get_node(doc, *it);
		const char *s = pol_yaml_scalar(item);

		if (!s || !s[0])
			continue;
		ex->command = s;
		ex->line = POL_YAML_LINE(item->start_mark);
		rc = fn(ex, arg);
	}
	return rc;
}

/* The examples of one entry of rules: */
static int rule_examples(yaml_document_t *doc, const yaml_node_t *rule, pol_example_fn fn,
			 void *arg)
{
	const char *id = pol_yaml_scalar(pol_yaml_get(doc, rule, "id"));
	const yaml_node_t *ex = pol_yaml_get(doc, rule, "examples");
	struct pol_example e = {.rule_id = id};
	int rc;

	if (!id || !ex || ex->type != YAML_MAPPING_NODE)
		return 0;
	e.stop = 1;
	rc = each_command(doc, pol_yaml_get(doc, ex, "stop"), &e, fn, arg);
	if (rc)
		return rc;
	e.stop = 0;
	return each_command(doc, pol_yaml_get(doc, ex, "pass"), &e, fn, arg);
}

int pol_examples_each(const char *buf, size_t len, pol_example_fn fn, void *arg)
{
	yaml_document_t doc;
	struct pol_yaml_diag d;
	const yaml_node_t *rules;
	int rc = pol_yaml_load(buf, len, EXAMPLES_TEXT_MAX, &doc, &d);

	if (rc < 0)
		return rc;
	rules = pol_yaml_get(&doc, yaml_document_get_root_node(&doc), "rules");
	rc = 0;
	if (rules && rules->type == YAML_SEQUENCE_NODE)
		for (yaml_node_item_t *it = rules->data.sequence.items.start;
		     it < rules->data.sequence.items.top && !rc; it++) {
			yaml_node_t *r = yaml_document_get_node(&doc, *it);

			if (r && r->type == YAML_MAPPING_NODE)
				rc = rule_examples(&doc, r, fn, arg);
		}
	yaml_document_delete(&doc);
	return rc;
}

struct seen {
	const char *id;
	int matched;
};

static void saw(const struct pol_trace_event *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->matched == 1 && ev->rule_id && !strcmp(ev->what, "rule") &&
	    !strcmp(ev->rule_id, s->id))
		s->matched = 1;
}

int pol_example_check(const struct pol_policy *p, const struct pol_example *ex, char *why,
		      size_t size)
{
	struct seen s = {.id = ex->rule_id};
	struct pol_ctx ctx = {.trace = saw, .trace_arg = &s};
	struct pol_result r;
	ssize_t i = pol_rule_find(p, ex->rule_id);
	enum pol_decision d;

	if (i < 0) {
		snprintf(why, size, "no rule %s", ex->rule_id);
		return -ENOENT;
	}
	pol_result_init(&r);
	d = pol_check_command(p, ex->command, strlen(ex->command), &ctx, &r);
	if (s.matched == ex->stop) {
		pol_result_release(&r);
		return 0;
	}
	if (ex->stop)
		snprintf(why, size, "%s does not stop it (decided %s%s%s)", ex->rule_id,
			 pol_decision_name(d), r.rule_id ? " by " : "", r.rule_id ? r.rule_id : "");
	else
		snprintf(why, size, "%s stops it, but it is a pass example", ex->rule_id);
	pol_result_release(&r);
	return 1;
}

int pol_enable_every_pack(struct pol_policy *p)
{
	size_t n = pol_pack_list(p, NULL, 0), len = 16;
	struct pol_pack_info *packs = calloc(n ? n : 1, sizeof(*packs));
	char *yaml;
	int rc;

	if (!packs)
		return -ENOMEM;
	n = pol_pack_list(p, packs, n);
	for (size_t k = 0; k < n; k++)
		len += strlen(packs[k].name) + 2;
	yaml = malloc(len);
	if (!yaml) {
		pol_pack_list_release(packs, n);
		free(packs);
		return -ENOMEM;
	}
	len = 0;
	memcpy(yaml, "packs: [", 8);
	len = 8;
	for (size_t k = 0; k < n; k++) {
		size_t w = strlen(packs[k].name);

		if (k)
			yaml[len++] = ',';
		memcpy(yaml + len, packs[k].name, w);
		len += w;
	}
	yaml[len++] = ']';
	yaml[len] = '\0';
	rc = pol_load_buffer(p, "<every pack>", yaml, len);
	pol_pack_list_release(packs, n);
	free(packs);
	free(yaml);
	return rc;
}
