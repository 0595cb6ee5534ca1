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
    "problem as file:line:col: rule: message; exit status 1 when there is any.\n";

static const char packs_usage[] =
    "usage: dcg packs [--json] [--policy FILE]\n"
    "\n"
    "Every rule pack (a rule ID without its last part: core.git, heredoc.python),\n"
    "whether it is enabled, how many rules it holds, and what it guards. The core packs\n"
    "are on; kubernetes, iac, cicd, dns, messaging, storage, monitoring, payments,\n"
    "backups and cdn are off. Turn one on with `packs: [ID]` in a policy file, off with\n"
    "`disable: [ID]`.\n";

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

/* Lints one file on its own: its rules over those of an empty policy. */
static int rules_lint_file(const char *file)
{
	struct pol_policy *pol = pol_new(0);
	size_t base, i, n;
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
	printf("%s: %zu rules, %zu problem%s\n", file, pol_rule_count(pol) - base, n,
	       n == 1 ? "" : "s");
	pol_free(pol);
	return n || err ? 1 : 0;
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
		size_t n = pol_diag_count(pol);
		printf("%zu policy file%s, %zu rules, %zu problem%s\n", pol_file_count(pol),
		       pol_file_count(pol) == 1 ? "" : "s", pol_rule_count(pol), n,
		       n == 1 ? "" : "s");
		rc = n ? 1 : 0;
	}
	pol_free(pol);
	return rc;
}

/* ---- packs ---------------------------------------------------------------------------- */

int cmd_packs(int argc, char **argv)
{
	const char *policy;
	struct pol_policy *pol;
	struct pol_pack_info *packs = NULL;
	size_t n, cap = 64;
	int a, json, rc = 0;

	a = cmd_small_opts(argc, argv, &policy, &json, packs_usage);
	if (a < 0)
		return a == -2 ? 0 : 1;
	if (a < argc) {
		fprintf(stderr, "dcg: packs: unexpected '%s'\n", argv[a]);
		fputs(packs_usage, stderr);
		return 1;
	}
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
	if (json) {
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
			cJSON_AddItemToArray(arr, o);
		}
		out = arr ? cJSON_PrintUnformatted(arr) : NULL;
		cJSON_Delete(arr);
		if (out)
			printf("%s\n", out);
		rc = out ? 0 : 1;
		free(out);
	} else {
		printf("%-24s %-7s %-7s %s\n", "PACK", "ON", "RULES", "GUARDS");
		for (size_t k = 0; k < n; k++)
			printf("%-24s %-7s %3zu/%-3zu %s\n", packs[k].name,
			       packs[k].active == packs[k].rules ? "yes"
			       : packs[k].active		 ? "partly"
								 : "no",
			       packs[k].active, packs[k].rules,
			       packs[k].guards ? packs[k].guards : "");
	}
out:
	pol_pack_list_release(packs, n);
	free(packs);
	pol_free(pol);
	return rc;
}
