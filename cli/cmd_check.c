/* cmd_check.c - `dcg check` (one decision, for people and scripts) and `dcg explain`
 * (the same decision with every rule that was tried). */
#include "hook.h"

#include "agents/agents.h"

#include "commands.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct check_args {
	int json;
	const char *cwd;
	const char *tool;
	const char *policy;
	char *text; /* the command (or path), malloc'ed */
	size_t len;
};

static const char check_usage[] =
    "usage: dcg check [--json] [--cwd DIR] [--tool TOOL] [--policy FILE] COMMAND...\n"
    "       dcg check [options] -          (the command from stdin)\n"
    "\n"
    "Decides one shell command with the active policy, or with --tool (Read, Write,\n"
    "Edit, MultiEdit, NotebookEdit, Glob, Grep, LS, in any case) one path as that agent\n"
    "tool would use it. The words of COMMAND are joined by spaces.\n"
    "Exit status: 0 allowed (allow, log, warn), 2 denied, 3 ask, 1 usage or error.\n";

static const char explain_usage[] =
    "usage: dcg explain [--json] [--cwd DIR] [--policy FILE] COMMAND...\n"
    "\n"
    "Shows how a command is decided: its normalized form, every rule tried on it and\n"
    "whether it matched (or was skipped by the keyword prefilter), the allowlist, and\n"
    "the decision. --json: the same as one JSON object. Exit status as for dcg check.\n";

/* Joins the remaining words, or reads stdin for "-". Returns 0 or -1. */
static int take_text(int argc, char **argv, struct check_args *a)
{
	struct hook_buf b = HOOK_BUF_INIT;
	int i;

	if (argc == 1 && !strcmp(argv[0], "-")) {
		char tmp[65536];
		ssize_t n;
		while ((n = read(0, tmp, sizeof(tmp))) > 0)
			hook_buf_add(&b, tmp, (size_t)n);
		/* A final newline from a file or echo is not part of the command. */
		if (b.len && b.s[b.len - 1] == '\n')
			b.s[--b.len] = '\0';
	} else {
		for (i = 0; i < argc; i++) {
			if (i)
				hook_buf_adds(&b, " ");
			hook_buf_adds(&b, argv[i]);
		}
	}
	a->len = b.len;
	a->text = hook_buf_detach(&b);
	return a->text ? 0 : -1;
}

/* Options common to check and explain. Returns -1 on a usage error, 1 for --help. */
static int parse_args(int argc, char **argv, struct check_args *a, const char *usage)
{
	static const struct cli_option opts[] = {
	    {"json", no_argument, 'j'},	      {"cwd", required_argument, 'C'},
	    {"tool", required_argument, 't'}, {"policy", required_argument, 'p'},
	    {"help", no_argument, 'h'},	      {"", 0, 0},
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->policy = dcg_global_policy;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "+hC:", opts)) != -1) {
		switch (c) {
		case 'j':
			a->json = 1;
			break;
		case 'C':
			a->cwd = optarg;
			break;
		case 't':
			a->tool = optarg;
			break;
		case 'p':
			a->policy = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			fputs(usage, stderr);
			return -1;
		}
	}
	if (optind >= argc) {
		fputs(usage, stderr);
		return -1;
	}
	if (take_text(argc - optind, argv + optind, a)) {
		fprintf(stderr, "dcg: out of memory\n");
		return -1;
	}
	return 0;
}

/* --cwd as an absolute path (the policy's project lookup and relative paths need
 * one), or the process's working directory. NULL after printing why. */
static const char *resolve_cwd(const char *dir, char *buf, size_t size)
{
	char tmp[PATH_MAX];

	if (!dir)
		return getcwd(buf, size);
	if (!realpath(dir, tmp) || strlen(tmp) >= size) {
		fprintf(stderr, "dcg: --cwd %s: %s\n", dir, strerror(errno));
		return NULL;
	}
	memcpy(buf, tmp, strlen(tmp) + 1);
	return buf;
}

/* What check and explain share before deciding: the arguments, the working directory
 * and the layered policy. Returns the policy (the caller frees it and a->text), or
 * NULL with *rc the command's exit status (0 after --help). */
static struct pol_policy *open_for(int argc, char **argv, struct check_args *a, const char *usage,
				   char *cwd_buf, size_t size, const char **cwd, int *rc)
{
	struct pol_policy *pol;

	*rc = parse_args(argc, argv, a, usage);
	if (*rc) {
		*rc = *rc > 0 ? 0 : 1;
		return NULL;
	}
	*rc = 1;
	*cwd = resolve_cwd(a->cwd, cwd_buf, size);
	if (!*cwd)
		return NULL;
	pol = hook_policy_open(a->policy, *cwd, stderr);
	if (!pol)
		fprintf(stderr, "dcg: out of memory\n");
	return pol;
}

static int exit_for(enum pol_decision d)
{
	return d == POL_DENY ? 2 : d == POL_ASK ? 3 : 0;
}

/* Builds the call for --tool (or a Bash command) and decides it. */
static int decide(struct pol_policy *pol, const struct check_args *a, const char *cwd,
		  unsigned flags, struct hook_call *call, struct pol_result *r, cJSON **input)
{
	*input = NULL;
	if (!a->tool || !strcasecmp(a->tool, "Bash")) {
		hook_call_init(call);
		call->kind = HOOK_CALL_COMMAND;
		call->tool = "Bash";
		call->cwd = cwd;
		call->command = a->text;
		call->command_len = a->len;
	} else {
		/* The same translation as the hook's: one object with every key a file
		 * tool may name its path with. */
		*input = cJSON_CreateObject();
		if (!*input)
			return -1;
		cJSON_AddStringToObject(*input, "file_path", a->text);
		cJSON_AddStringToObject(*input, "notebook_path", a->text);
		cJSON_AddStringToObject(*input, "path", a->text);
		hook_call_from_claude(a->tool, *input, cwd, call);
		if (call->kind == HOOK_CALL_OTHER)
			fprintf(stderr,
				"dcg: note: the tool '%s' names no command or path; it passes\n",
				a->tool);
	}
	hook_decide_call(pol, call, flags, r);
	return 0;
}

int cmd_check(int argc, char **argv)
{
	struct check_args a;
	struct pol_policy *pol = NULL;
	struct pol_result r;
	struct hook_call call;
	char cwd_buf[PATH_MAX], *out = NULL;
	const char *cwd;
	cJSON *input = NULL;
	int rc;

	pol_result_init(&r);
	hook_call_init(&call);
	pol = open_for(argc, argv, &a, check_usage, cwd_buf, sizeof(cwd_buf), &cwd, &rc);
	if (!pol)
		goto out;
	if (decide(pol, &a, cwd, POL_CTX_KEEP_SCRIPT, &call, &r, &input)) {
		rc = 1;
		goto out;
	}
	if (a.json) {
		out = hook_result_json(&r);
		if (!out) {
			rc = 1;
			goto out;
		}
		printf("%s\n", out);
	} else if (r.decision >= POL_WARN) {
		struct hook_msg_opts mo = {isatty(1), call.command, call.command_len};
		out = hook_msg_human(&r, &mo);
		if (out)
			fputs(out, stdout);
	} else if (r.allowed_by_allowlist) {
		printf("ALLOWED (rule %s matched, allowed by the allowlist)\n",
		       r.rule_id ? r.rule_id : "?");
	} else if (r.observed) {
		printf("ALLOWED (observe mode: rule %s would %s; logged)\n",
		       r.rule_id ? r.rule_id : "?", pol_decision_name(r.observed));
	} else if (r.decision == POL_LOG) {
		printf("ALLOWED (logged by rule %s)\n", r.rule_id ? r.rule_id : "?");
	} else {
		printf("ALLOWED\n");
	}
	rc = exit_for(r.decision);
out:
	free(out);
	hook_call_release(&call);
	cJSON_Delete(input);
	pol_result_release(&r);
	pol_free(pol);
	free(a.text);
	return rc;
}

/* ---- explain ------------------------------------------------------------------------ */

struct explain_state {
	size_t tried, matched, skipped;
	cJSON *events; /* --json: the trace, else NULL */
};

static void explain_event_json(const struct pol_trace_event *ev, struct explain_state *st)
{
	char text[1024], clean[1024];
	size_t tlen = ev->text ? (ev->text_len ? ev->text_len : strlen(ev->text)) : 0, n;
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return;
	cJSON_AddStringToObject(o, "what", ev->what ? ev->what : "?");
	if (ev->rule_id)
		cJSON_AddStringToObject(o, "rule_id", ev->rule_id);
	cJSON_AddStringToObject(o, "result",
				ev->matched > 0	  ? "match"
				: ev->matched < 0 ? "skipped"
						  : "no");
	if (ev->text) {
		n = pol_truncate_utf8(ev->text, tlen, 200, text, sizeof(text));
		hook_utf8_sanitize(text, n, clean, sizeof(clean));
		cJSON_AddStringToObject(o, "text", clean);
	}
	cJSON_AddItemToArray(st->events, o);
}

static void print_text(const char *text, size_t len)
{
	char cut[1024];
	size_t n;

	if (!text)
		return;
	n = pol_truncate_utf8(text, len, 200, cut, sizeof(cut));
	/* One event per line: show newlines as the shell would write them. */
	for (size_t i = 0; i < n; i++)
		if (cut[i] == '\n')
			cut[i] = ' ';
	fwrite(cut, 1, n, stdout);
}

static void explain_event(const struct pol_trace_event *ev, void *arg)
{
	struct explain_state *st = arg;
	const char *what = ev->what ? ev->what : "?";
	size_t tlen = ev->text ? (ev->text_len ? ev->text_len : strlen(ev->text)) : 0;

	if (!strcmp(what, "rule")) {
		st->tried++;
		if (ev->matched > 0)
			st->matched++;
		else if (ev->matched < 0)
			st->skipped++;
	}
	if (st->events) {
		explain_event_json(ev, st);
		return;
	}
	if (!strcmp(what, "rule")) {
		printf("  %-8s %s",
		       ev->matched > 0	 ? "MATCH"
		       : ev->matched < 0 ? "skipped"
					 : "no",
		       ev->rule_id ? ev->rule_id : "?");
		if (ev->matched > 0 && ev->text) {
			fputs("  on: ", stdout);
			print_text(ev->text, tlen);
		}
		fputs("\n", stdout);
		return;
	}
	printf("%s:%s%s ", what, ev->rule_id ? " " : "", ev->rule_id ? ev->rule_id : "");
	print_text(ev->text, tlen);
	if (ev->matched > 0)
		fputs("  (matched)", stdout);
	fputs("\n", stdout);
}

int cmd_explain(int argc, char **argv)
{
	struct check_args a;
	struct explain_state st = {0, 0, 0, NULL};
	struct pol_policy *pol = NULL;
	struct pol_result r;
	struct pol_ctx ctx;
	char cwd_buf[PATH_MAX], *msg = NULL;
	const char *cwd;
	int rc;

	pol_result_init(&r);
	pol = open_for(argc, argv, &a, explain_usage, cwd_buf, sizeof(cwd_buf), &cwd, &rc);
	if (!pol)
		goto out;
	if (a.json) {
		st.events = cJSON_CreateArray();
		if (!st.events) {
			rc = 1;
			goto out;
		}
	} else {
		printf("command: ");
		print_text(a.text, a.len);
		printf("\npolicy: %zu rules from", pol_rule_count(pol));
		for (size_t i = 0; i < pol_file_count(pol); i++)
			printf(" %s", pol_file_name(pol, i));
		printf("\n\n");
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.cwd = cwd;
	ctx.flags = POL_CTX_KEEP_SCRIPT;
	ctx.trace = explain_event;
	ctx.trace_arg = &st;
	pol_check_command(pol, a.text, a.len, &ctx, &r);
	if (a.json) {
		cJSON *o = cJSON_CreateObject(), *res, *files;
		char *js = hook_result_json(&r), *out = NULL;
		cJSON_AddStringToObject(o, "command", a.text);
		files = cJSON_AddArrayToObject(o, "policy_files");
		for (size_t i = 0; files && i < pol_file_count(pol); i++)
			cJSON_AddItemToArray(files, cJSON_CreateString(pol_file_name(pol, i)));
		cJSON_AddNumberToObject(o, "rules_tried", (double)st.tried);
		cJSON_AddNumberToObject(o, "matched", (double)st.matched);
		cJSON_AddNumberToObject(o, "skipped", (double)st.skipped);
		cJSON_AddItemToObject(o, "trace", st.events);
		st.events = NULL;
		cJSON_AddBoolToObject(o, "allowed_by_allowlist", r.allowed_by_allowlist);
		res = js ? cJSON_Parse(js) : NULL;
		if (res)
			cJSON_AddItemToObject(o, "result", res);
		cJSON_AddStringToObject(o, "decision", pol_decision_name(r.decision));
		out = cJSON_PrintUnformatted(o);
		if (out)
			printf("%s\n", out);
		free(out);
		free(js);
		cJSON_Delete(o);
		rc = exit_for(r.decision);
		goto out;
	}
	printf("\n%zu rules tried: %zu matched, %zu skipped by the prefilter\n", st.tried,
	       st.matched, st.skipped);
	if (r.allowed_by_allowlist)
		printf("rule %s matched but the allowlist lets it pass\n",
		       r.rule_id ? r.rule_id : "?");
	printf("decision: %s\n", pol_decision_name(r.decision));
	if (r.decision >= POL_WARN) {
		struct hook_msg_opts mo = {isatty(1), a.text, a.len};
		msg = hook_msg_human(&r, &mo);
		if (msg)
			printf("\n%s", msg);
	}
	rc = exit_for(r.decision);
out:
	free(msg);
	cJSON_Delete(st.events);
	pol_result_release(&r);
	pol_free(pol);
	free(a.text);
	return rc;
}
