/* cmd_rules.c - `dcg rules list|lint [FILE]` and `dcg packs`. */
#include "hook.h"

#include "agents/agents.h"

#include "commands.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char rules_usage[] =
    "usage: dcg rules list [--json] [--policy FILE]\n"
    "       dcg rules lint [FILE]\n"
    "\n"
    "list: every active rule with its ID, kind, decision, and the file and line it\n"
    "comes from. lint: loads FILE (default: every active policy file) and prints each\n"
    "problem as file:line:col: rule: message, then decides every example of every rule\n"
    "(examples: {stop: [...], pass: [...]}; without FILE the embedded packs' too) and\n"
    "prints each that does not hold; exit status 1 when there is any.\n";

static const char packs_usage[] =
    "usage: dcg packs [--verbose] [--json] [--policy FILE]\n"
    "\n"
    "Every rule pack (a rule ID without its last part: core.git, heredoc.python),\n"
    "whether it is enabled, how many rules it holds, and what it guards; --verbose adds\n"
    "each rule, on or off, with its reason and its own examples (commands it stops and\n"
    "commands it lets pass). Each pack file (policy/packs/FAMILY.yaml) says which of its\n"
    "rules are off by default and why. Turn a pack or rule on with `packs: [ID]` in a\n"
    "policy file, off with `disable: [ID]`.\n";

/* Options anywhere on the line, so that `dcg rules list --policy F` works. */
int cmd_small_opts(int argc, char **argv, const char **policy, int *json, const char *usage)
{
	static const struct cli_option opts[] = {
	    {"policy", required_argument, 'p'},
	    {"json", no_argument, 'j'},
	    {"help", no_argument, 'h'},
	    {"", 0, 0},
	};
	int c;

	*policy = dcg_global_policy;
	if (json)
		*json = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "h", opts)) != -1) {
		if (c == 'p') {
			*policy = optarg;
		} else if (c == 'j' && json) {
			*json = 1;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return -2;
		} else {
			if (c == 'j')
				fprintf(stderr, "%s: --json is not an option here\n", argv[0]);
			fputs(usage, stderr);
			return -1;
		}
	}
	return optind;
}

static const char *kind_name(enum pol_rule_kind k)
{
	switch (k) {
	case POL_RULE_COMMAND:
		return "command";
	case POL_RULE_SCRIPT:
		return "script";
	case POL_RULE_PATH:
		return "path";
	default:
		return "builtin";
	}
}

static void rule_where(const struct pol_rule_info *info, char *where, size_t size)
{
	if (info->line)
		snprintf(where, size, "%s:%u", info->origin ? info->origin : "?", info->line);
	else
		snprintf(where, size, "%s", info->origin ? info->origin : "built-in");
}

static int rules_list_json(struct pol_policy *pol)
{
	struct pol_rule_info info;
	cJSON *arr = cJSON_CreateArray();
	char *out;

	for (size_t i = 0; arr && i < pol_rule_count(pol); i++) {
		cJSON *o;
		if (pol_rule_get(pol, i, &info))
			continue;
		o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddStringToObject(o, "id", info.id ? info.id : "");
		cJSON_AddStringToObject(o, "kind",
					info.kind == POL_RULE_SCRIPT && info.language
					    ? info.language
					    : kind_name(info.kind));
		cJSON_AddStringToObject(o, "decision", pol_decision_name(info.decision));
		cJSON_AddStringToObject(o, "severity", pol_severity_name(info.severity));
		cJSON_AddStringToObject(o, "origin", info.origin ? info.origin : "built-in");
		cJSON_AddNumberToObject(o, "line", info.line);
		if (info.kind == POL_RULE_PATH)
			cJSON_AddStringToObject(o, "path_kind", pol_path_kind_name(info.path_kind));
		if (info.alias)
			cJSON_AddStringToObject(o, "alias", info.alias);
		if (info.pattern)
			cJSON_AddStringToObject(o, "pattern", info.pattern);
		if (info.reason)
			cJSON_AddStringToObject(o, "reason", info.reason);
		cJSON_AddItemToArray(arr, o);
	}
	out = arr ? cJSON_PrintUnformatted(arr) : NULL;
	cJSON_Delete(arr);
	if (!out) {
		fprintf(stderr, "dcg: out of memory\n");
		return 1;
	}
	printf("%s\n", out);
	free(out);
	return 0;
}

static int rules_list(struct pol_policy *pol)
{
	struct pol_rule_info info;
	size_t i, n = pol_rule_count(pol);
	char where[320];

	printf("%-40s %-8s %-6s %-8s %-32s %s\n", "ID", "KIND", "DECIDE", "SEVERITY", "FROM",
	       "PATTERN");
	for (i = 0; i < n; i++) {
		if (pol_rule_get(pol, i, &info))
			continue;
		rule_where(&info, where, sizeof(where));
		printf("%-40s %-8s %-6s %-8s %-32s %s\n", info.id ? info.id : "?",
		       info.kind == POL_RULE_SCRIPT && info.language ? info.language
								     : kind_name(info.kind),
		       pol_decision_name(info.decision), pol_severity_name(info.severity), where,
		       info.kind == POL_RULE_PATH ? pol_path_kind_name(info.path_kind) : "");
		if (info.pattern)
			printf("    %s\n", info.pattern);
	}
	printf("%zu rules\n", n);
	hook_print_trust_notes(stdout, pol, 0);
	return 0;
}

/* ---- examples ------------------------------------------------------------------------ */

struct ex_lint {
	const struct pol_policy *pol;
	const char *file;
	size_t tried, failed;
};

static int lint_one(const struct pol_example *ex, void *arg)
{
	struct ex_lint *l = arg;
	char why[512];

	l->tried++;
	if (pol_example_check(l->pol, ex, why, sizeof(why)) == 0)
		return 0;
	l->failed++;
	printf("%s:%u: %s: %s example: %s: %s\n", l->file, ex->line, ex->rule_id,
	       ex->stop ? "stop" : "pass", ex->command, why);
	return 0;
}

/* Decides every example of the rules in text (file's) with pol, every pack on; prints
 * each that does not hold. Returns how many did not. */
static size_t lint_examples(struct pol_policy *pol, const char *file, const char *text, size_t len,
			    size_t *tried)
{
	struct ex_lint l = {.pol = pol, .file = file};

	pol_examples_each(text, len, lint_one, &l);
	*tried += l.tried;
	return l.failed;
}

static size_t lint_file_examples(struct pol_policy *pol, const char *file, size_t *tried)
{
	char *text = NULL;
	size_t len = 0, bad;

	if (pol_read_file(file, 16u << 20, 0, &text, &len) < 0)
		return 0; /* the load said why */
	bad = lint_examples(pol, file, text, len, tried);
	free(text);
	return bad;
}

/* Lints one file on its own: its rules over those of an empty policy. */
static int rules_lint_file(const char *file)
{
	struct pol_policy *pol = pol_new(0);
	size_t base, i, n, bad = 0, tried = 0;
	int err;

	if (!pol) {
		fprintf(stderr, "dcg: out of memory\n");
		return 1;
	}
	base = pol_rule_count(pol);
	err = pol_load_file(pol, file);
	if (err == -ENOENT) {
		fprintf(stderr, "dcg: %s: no such file\n", file);
		pol_free(pol);
		return 1;
	}
	n = pol_diag_count(pol);
	for (i = 0; i < n; i++)
		hook_print_diag(stdout, pol_diag_get(pol, i));
	if (err && !n)
		printf("%s: cannot read: %s\n", file, strerror(-err));
	base = pol_rule_count(pol) - base;
	if (!err && pol_enable_every_pack(pol) == 0)
		bad = lint_file_examples(pol, file, &tried);
	printf("%s: %zu rules, %zu problem%s, %zu of %zu examples wrong\n", file, base, n,
	       n == 1 ? "" : "s", bad, tried);
	pol_free(pol);
	return n || err || bad ? 1 : 0;
}

/* The examples of the embedded files and of every other file pol loaded, each file's
 * decided with the defaults, that file and every pack on (a user's disable: does not
 * keep a rule from its own examples). */
static size_t lint_all_examples(const struct pol_policy *active, size_t *tried)
{
	size_t bad = 0;
	const char *name, *text;
	size_t len;
	struct pol_policy *pol = pol_new(0);

	if (!pol || pol_load_embedded(pol) < 0 || pol_enable_every_pack(pol) < 0) {
		pol_free(pol);
		return 0;
	}
	for (size_t i = 0; (text = pol_embedded_source(i, &name, &len)); i++)
		bad += lint_examples(pol, name, text, len, tried);
	pol_free(pol);
	for (size_t f = 0; f < pol_file_count(active); f++) {
		const char *file = pol_file_name(active, f);

		if (file[0] == '<')
			continue; /* <embedded>, a buffer */
		pol = pol_new(0);
		if (pol && pol_load_embedded(pol) == 0 && pol_load_file(pol, file) == 0 &&
		    pol_enable_every_pack(pol) == 0)
			bad += lint_file_examples(pol, file, tried);
		pol_free(pol);
	}
	return bad;
}

int cmd_rules(int argc, char **argv)
{
	const char *policy, *sub;
	struct pol_policy *pol;
	int a, rc, json;

	a = cmd_small_opts(argc, argv, &policy, &json, rules_usage);
	if (a < 0)
		return a == -2 ? 0 : 1;
	sub = a < argc ? argv[a] : "list";
	if (!strcmp(sub, "lint") && a + 2 < argc) {
		fprintf(stderr, "dcg: rules lint: one FILE at most\n");
		fputs(rules_usage, stderr);
		return 1;
	}
	if (!strcmp(sub, "lint") && a + 1 < argc)
		return rules_lint_file(argv[a + 1]);
	if ((strcmp(sub, "list") != 0 && strcmp(sub, "lint") != 0) ||
	    (!strcmp(sub, "list") && a + 1 < argc)) {
		fprintf(stderr, "dcg: rules: unexpected '%s'\n",
			strcmp(sub, "list") && strcmp(sub, "lint") ? sub : argv[a + 1]);
		fputs(rules_usage, stderr);
		return 1;
	}
	if (json && strcmp(sub, "list") != 0) {
		fprintf(stderr, "dcg: rules lint: --json is for rules list\n");
		return 1;
	}
	pol = hook_policy_open(policy, NULL, !strcmp(sub, "lint") ? stdout : stderr);
	if (!pol) {
		fprintf(stderr, "dcg: out of memory\n");
		return 1;
	}
	if (!strcmp(sub, "list")) {
		rc = json ? rules_list_json(pol) : rules_list(pol);
	} else {
		size_t n = pol_diag_count(pol), tried = 0, bad = lint_all_examples(pol, &tried);
		printf("%zu policy file%s, %zu rules, %zu problem%s, %zu of %zu examples wrong\n",
		       pol_file_count(pol), pol_file_count(pol) == 1 ? "" : "s",
		       pol_rule_count(pol), n, n == 1 ? "" : "s", bad, tried);
		rc = n || bad ? 1 : 0;
	}
	pol_free(pol);
	return rc;
}

/* ---- packs ---------------------------------------------------------------------------- */

/* Every example of the embedded files and of the files pol loaded, in order. */
struct ex_all {
	struct ex_item {
		char *rule_id, *command;
		int stop;
	} * v;
	size_t n, cap;
};

static int keep_one(const struct pol_example *ex, void *arg)
{
	struct ex_all *a = arg;

	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		struct ex_item *v = realloc(a->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n].rule_id = strdup(ex->rule_id);
	a->v[a->n].command = strdup(ex->command);
	a->v[a->n].stop = ex->stop;
	if (!a->v[a->n].rule_id || !a->v[a->n].command) {
		free(a->v[a->n].rule_id);
		free(a->v[a->n].command);
		return -ENOMEM;
	}
	a->n++;
	return 0;
}

static void examples_gather(const struct pol_policy *pol, struct ex_all *a)
{
	const char *name, *text;
	size_t len;

	for (size_t i = 0; (text = pol_embedded_source(i, &name, &len)); i++)
		pol_examples_each(text, len, keep_one, a);
	for (size_t f = 0; f < pol_file_count(pol); f++) {
		const char *file = pol_file_name(pol, f);
		char *buf = NULL;

		if (file[0] != '<' && pol_read_file(file, 16u << 20, 0, &buf, &len) == 0)
			pol_examples_each(buf, len, keep_one, a);
		free(buf);
	}
}

static void examples_release(struct ex_all *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].rule_id);
		free(a->v[i].command);
	}
	free(a->v);
}

/* Is rule id in pack (the ID without its last part)? */
static int in_pack(const char *id, const char *pack)
{
	size_t n = strlen(pack);
	const char *dot = strrchr(id, '.');

	return dot && (size_t)(dot - id) == n && !strncmp(id, pack, n);
}

static cJSON *rule_json(const struct pol_rule_info *in, const struct ex_all *ex)
{
	cJSON *o = cJSON_CreateObject(), *e = cJSON_CreateObject();
	cJSON *stop = cJSON_AddArrayToObject(e, "stop"), *pass = cJSON_AddArrayToObject(e, "pass");

	cJSON_AddStringToObject(o, "id", in->id);
	cJSON_AddBoolToObject(o, "enabled", in->active);
	cJSON_AddStringToObject(o, "severity", pol_severity_name(in->severity));
	cJSON_AddStringToObject(o, "reason", in->reason ? in->reason : "");
	for (size_t i = 0; i < ex->n; i++)
		if (!strcmp(ex->v[i].rule_id, in->id))
			cJSON_AddItemToArray(ex->v[i].stop ? stop : pass,
					     cJSON_CreateString(ex->v[i].command));
	cJSON_AddItemToObject(o, "examples", e);
	return o;
}

static void rule_text(const struct pol_rule_info *in, const struct ex_all *ex)
{
	printf("  %-44s %-3s %-8s %s\n", in->id, in->active ? "on" : "off",
	       pol_severity_name(in->severity), in->reason ? in->reason : "");
	for (size_t i = 0; i < ex->n; i++)
		if (!strcmp(ex->v[i].rule_id, in->id))
			printf("      %s %s\n",
			       ex->v[i].stop ? "stop:" : "pass:", ex->v[i].command);
}

/* The rules of pack, in policy order: as JSON into arr, or as text. */
static void pack_rules(const struct pol_policy *pol, const char *pack, const struct ex_all *ex,
		       cJSON *arr)
{
	struct pol_rule_info in;

	for (size_t i = 0; i < pol_rule_count(pol); i++) {
		if (pol_rule_get(pol, i, &in) || in.kind == POL_RULE_PATH || !in.id ||
		    !in_pack(in.id, pack))
			continue;
		if (arr)
			cJSON_AddItemToArray(arr, rule_json(&in, ex));
		else
			rule_text(&in, ex);
	}
}

static int packs_json(const struct pol_policy *pol, const struct pol_pack_info *packs, size_t n,
		      const struct ex_all *ex)
{
	cJSON *arr = cJSON_CreateArray();
	char *out;

	for (size_t k = 0; arr && k < n; k++) {
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddStringToObject(o, "pack", packs[k].name);
		cJSON_AddNumberToObject(o, "rules", (double)packs[k].rules);
		cJSON_AddNumberToObject(o, "active", (double)packs[k].active);
		cJSON_AddBoolToObject(o, "enabled", packs[k].active > 0);
		if (packs[k].guards)
			cJSON_AddStringToObject(o, "guards", packs[k].guards);
		if (ex)
			pack_rules(pol, packs[k].name, ex, cJSON_AddArrayToObject(o, "rule_list"));
		cJSON_AddItemToArray(arr, o);
	}
	out = arr ? cJSON_PrintUnformatted(arr) : NULL;
	cJSON_Delete(arr);
	if (out)
		printf("%s\n", out);
	free(out);
	return out ? 0 : 1;
}

static void packs_text(const struct pol_policy *pol, const struct pol_pack_info *packs, size_t n,
		       const struct ex_all *ex)
{
	printf("%-24s %-7s %-7s %s\n", "PACK", "ON", "RULES", "GUARDS");
	for (size_t k = 0; k < n; k++) {
		printf("%-24s %-7s %3zu/%-3zu %s\n", packs[k].name,
		       packs[k].active == packs[k].rules ? "yes"
		       : packs[k].active		 ? "partly"
							 : "no",
		       packs[k].active, packs[k].rules, packs[k].guards ? packs[k].guards : "");
		if (ex)
			pack_rules(pol, packs[k].name, ex, NULL);
	}
}

static int packs_opts(int argc, char **argv, const char **policy, int *json, int *verbose)
{
	static const struct cli_option opts[] = {
	    {"policy", required_argument, 'p'},
	    {"json", no_argument, 'j'},
	    {"verbose", no_argument, 'v'},
	    {"help", no_argument, 'h'},
	    {"", 0, 0},
	};
	int c;

	*policy = dcg_global_policy;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "hv", opts)) != -1) {
		if (c == 'p') {
			*policy = optarg;
		} else if (c == 'j') {
			*json = 1;
		} else if (c == 'v') {
			*verbose = 1;
		} else if (c == 'h') {
			fputs(packs_usage, stdout);
			return -2;
		} else {
			fputs(packs_usage, stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dcg: packs: unexpected '%s'\n", argv[optind]);
		fputs(packs_usage, stderr);
		return -1;
	}
	return optind;
}

int cmd_packs(int argc, char **argv)
{
	const char *policy;
	struct pol_policy *pol;
	struct pol_pack_info *packs = NULL;
	struct ex_all ex = {0};
	size_t n, cap = 64;
	int a, json = 0, verbose = 0, rc = 0;

	a = packs_opts(argc, argv, &policy, &json, &verbose);
	if (a < 0)
		return a == -2 ? 0 : 1;
	pol = hook_policy_open(policy, NULL, stderr);
	if (!pol) {
		fprintf(stderr, "dcg: out of memory\n");
		return 1;
	}
	for (;;) {
		struct pol_pack_info *m = realloc(packs, cap * sizeof(*packs));
		if (!m) {
			rc = 1;
			n = 0;
			goto out;
		}
		packs = m;
		n = pol_pack_list(pol, packs, cap);
		if (n <= cap)
			break;
		pol_pack_list_release(packs, cap);
		cap = n;
	}
	if (verbose)
		examples_gather(pol, &ex);
	if (json)
		rc = packs_json(pol, packs, n, verbose ? &ex : NULL);
	else
		packs_text(pol, packs, n, verbose ? &ex : NULL);
out:
	examples_release(&ex);
	pol_pack_list_release(packs, n);
	free(packs);
	pol_free(pol);
	return rc;
}
