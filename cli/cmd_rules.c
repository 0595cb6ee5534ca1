/* cmd_rules.c - `dcg rules list|lint [FILE]` and `dcg status`. */
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
    "usage: dcg rules list [--policy FILE]\n"
    "       dcg rules lint [FILE]\n"
    "\n"
    "list: every active rule with its ID, kind, decision, and the file and line it\n"
    "comes from. lint: loads FILE (default: every active policy file) and prints each\n"
    "problem as file:line:col: rule: message; exit status 1 when there is any.\n";

static const char status_usage[] =
    "usage: dcg status [--policy FILE]\n"
    "\n"
    "The active policy files, the rule count, problems in the files, whether the hook\n"
    "is installed for Claude Code, and the last violation in the audit log.\n";

/* --policy and --help for the small commands; returns the index of the first
 * non-option, -1 for a usage error, -2 for --help. */
static int small_opts(int argc, char **argv, const char **policy, const char *usage)
{
	static const struct option opts[] = {
	    {"policy", required_argument, NULL, 'p'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	*policy = dcg_global_policy;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'p') {
			*policy = optarg;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return -2;
		} else {
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
		if (info.line)
			snprintf(where, sizeof(where), "%s:%u", info.origin ? info.origin : "?",
				 info.line);
		else
			snprintf(where, sizeof(where), "%s",
				 info.origin ? info.origin : "built-in");
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
	int a, rc;

	a = small_opts(argc, argv, &policy, rules_usage);
	if (a < 0)
		return a == -2 ? 0 : 1;
	sub = a < argc ? argv[a] : "list";
	if (!strcmp(sub, "lint") && a + 1 < argc)
		return rules_lint_file(argv[a + 1]);
	if (strcmp(sub, "list") != 0 && strcmp(sub, "lint") != 0) {
		fputs(rules_usage, stderr);
		return 1;
	}
	pol = hook_policy_open(policy, NULL, !strcmp(sub, "lint") ? stdout : stderr);
	if (!pol) {
		fprintf(stderr, "dcg: out of memory\n");
		return 1;
	}
	if (!strcmp(sub, "list")) {
		rc = rules_list(pol);
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

/* ---- status --------------------------------------------------------------------------- */

/* The last line of the audit log that records a deny, ask or warn, into out. Reads
 * only the file's tail. Returns 1 when found. */
static int last_violation(const char *log, char *out, size_t size, size_t *lines)
{
	char buf[65536];
	struct stat st;
	off_t start;
	ssize_t n;
	int fd, found = 0;
	char *p, *end;

	*lines = 0;
	fd = open(log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return 0;
	}
	start = st.st_size > (off_t)sizeof(buf) - 1 ? st.st_size - (off_t)sizeof(buf) + 1 : 0;
	n = pread(fd, buf, sizeof(buf) - 1, start);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	end = buf + n;
	for (p = buf; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		cJSON *o, *d;
		if (!nl)
			break;
		*nl = '\0';
		(*lines)++;
		o = cJSON_Parse(p);
		d = cJSON_GetObjectItemCaseSensitive(o, "decision");
		if (cJSON_IsString(d) &&
		    (!strcmp(d->valuestring, "deny") || !strcmp(d->valuestring, "ask") ||
		     !strcmp(d->valuestring, "warn"))) {
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "time");
			const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "rule_id");
			const cJSON *tool = cJSON_GetObjectItemCaseSensitive(o, "tool");
			const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "input");
			snprintf(out, size, "%s %s %s (%s): %.120s",
				 cJSON_IsString(t) ? t->valuestring : "?", d->valuestring,
				 cJSON_IsString(r) ? r->valuestring : "?",
				 cJSON_IsString(tool) ? tool->valuestring : "?",
				 cJSON_IsString(in) ? in->valuestring : "");
			found = 1;
		}
		cJSON_Delete(o);
		p = nl + 1;
	}
	return found;
}

static void hook_installed(const char *cwd)
{
	const struct hook_agent *ag = hook_agent_find("claude");
	char path[PATH_MAX], *text = NULL;
	size_t len;
	int user, any = 0;

	for (user = 0; user <= 1; user++) {
		if (ag->settings_path(user, cwd, path, sizeof(path)))
			continue;
		if (hook_read_file(path, 16 * 1024 * 1024, &text, &len))
			continue;
		/* Cheap textual test: the settings merge writes the command verbatim. */
		if (strstr(text, " hook")) {
			char *out = NULL;
			if (hook_claude_settings_remove(text, &out) == 0) {
				printf("hook:        installed for claude in %s\n", path);
				any = 1;
			}
			free(out);
		}
		free(text);
		text = NULL;
	}
	if (!any)
		printf("hook:        not installed (dcg install --agent claude)\n");
}

int cmd_status(int argc, char **argv)
{
	const char *policy;
	struct pol_policy *pol;
	char log[PATH_MAX], last[512], cwd[PATH_MAX];
	size_t i, n, lines = 0;
	int a;

	a = small_opts(argc, argv, &policy, status_usage);
	if (a < 0)
		return a == -2 ? 0 : 1;
	pol = hook_policy_open(policy, NULL, stderr);
	if (!pol) {
		fprintf(stderr, "dcg: out of memory\n");
		return 1;
	}
	printf("dcg active: %zu rules\n", pol_rule_count(pol));
	printf("policy files:\n");
	for (i = 0; i < pol_file_count(pol); i++)
		printf("  %s\n", pol_file_name(pol, i));
	n = pol_diag_count(pol);
	if (n)
		printf("problems:    %zu in the policy files (dcg rules lint); the rest stays "
		       "active\n",
		       n);
	else
		printf("problems:    none\n");
	hook_print_trust_notes(stdout, pol, 0);
	if (getcwd(cwd, sizeof(cwd)))
		hook_installed(cwd);
	if (pol_log_path(log, sizeof(log)) == 0) {
		int found = last_violation(log, last, sizeof(last), &lines);
		printf("audit log:   %s\n", log);
		printf("last violation: %s\n", found ? last : "none");
	}
	pol_free(pol);
	return 0;
}
