/* cmd_simulate.c - `dcg simulate`: judges recorded tool calls with a policy, runs
 * nothing. Reads plain lists of commands, dcg's own audit log and agents' session
 * transcripts (Claude Code's ~/.claude/projects/PROJECT/SESSION.jsonl, Codex's
 * ~/.codex/sessions/.../rollout-*.jsonl), each call decided as the hook would decide it
 * (the Claude Code adapter for Claude Code's tool calls), and counts the decisions per
 * rule with a few examples; with --against OLD, what changes between two policies. */
#include "commands.h"
#include "hook.h"
#include "agents/agents.h"

#include <cJSON.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define SIM_FILE_MAX (256u << 20)
#define SIM_EXAMPLES 3
#define SIM_SHOWN    100 /* characters of an example */
#define SIM_RECENT   (7 * 86400)

static const char sim_usage[] =
    "usage: dcg simulate [--policy FILE] [--against OLD_POLICY] [--json] [FILE...]\n"
    "\n"
    "Judges recorded tool calls with the policy (the layered policy of this folder,\n"
    "with FILE added as --policy adds it) and counts the decisions per rule, with a few\n"
    "examples each. It never runs anything. A FILE is a plain list (one command a\n"
    "line), dcg's audit log, or an agent's session transcript (Claude Code's\n"
    "~/.claude/projects/*/*.jsonl, Codex's ~/.codex/sessions/**/rollout-*.jsonl): the\n"
    "kind is told from its content. Without FILE, the transcripts of the last 7 days.\n"
    "--against OLD judges every call with OLD too and lists what is newly refused and\n"
    "newly allowed. The audit log holds inputs redacted and cut at 300 characters.\n";

/* ---- tallies ------------------------------------------------------------------------------ */

struct sim_row {
	char rule[128];
	char decision[24]; /* deny, ask, ..., or observe:deny */
	size_t count;
	char examples[SIM_EXAMPLES][SIM_SHOWN * 4 + 8];
	size_t n_examples;
};

struct sim_tally {
	struct sim_row *v;
	size_t n;
};

static void tally_add(struct sim_tally *t, const char *rule, const char *decision,
		      const char *shown)
{
	struct sim_row *r = NULL;

	for (size_t i = 0; i < t->n && !r; i++)
		if (!strcmp(t->v[i].rule, rule) && !strcmp(t->v[i].decision, decision))
			r = &t->v[i];
	if (!r) {
		struct sim_row *nv = realloc(t->v, (t->n + 1) * sizeof(*nv));
		if (!nv)
			return;
		t->v = nv;
		r = &nv[t->n++];
		memset(r, 0, sizeof(*r));
		snprintf(r->rule, sizeof(r->rule), "%s", rule);
		snprintf(r->decision, sizeof(r->decision), "%s", decision);
	}
	r->count++;
	for (size_t i = 0; i < r->n_examples; i++)
		if (!strcmp(r->examples[i], shown))
			return;
	if (r->n_examples < SIM_EXAMPLES)
		snprintf(r->examples[r->n_examples++], sizeof(r->examples[0]), "%s", shown);
}

static int row_order(const void *a, const void *b)
{
	const struct sim_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->rule, y->rule);
}

/* ---- judging one call ------------------------------------------------------------------------ */

struct sim {
	struct pol_policy *pol, *old;
	struct sim_tally all, newly_refused, newly_allowed;
	size_t calls, commands, file_calls, files;
};

/* The decision's name in the tally: observe mode's would-be refusals apart. */
static void decision_label(const struct pol_result *r, char *out, size_t size)
{
	if (r->observed)
		snprintf(out, size, "observe:%s", pol_decision_name(r->observed));
	else
		snprintf(out, size, "%s", pol_decision_name(r->decision));
}

/* What the call is, for an example: the command, else the tool and its paths. */
static void call_shown(const struct hook_call *c, char *out, size_t size)
{
	struct hook_buf b = HOOK_BUF_INIT;
	char cut[SIM_SHOWN * 4 + 8];
	size_t n;

	if (c->kind == HOOK_CALL_COMMAND) {
		hook_buf_add(&b, c->command, c->command_len);
	} else {
		hook_buf_adds(&b, c->tool ? c->tool : "?");
		for (size_t i = 0; i < c->n_paths; i++) {
			hook_buf_adds(&b, " ");
			hook_buf_adds(&b, c->paths[i]);
		}
	}
	n = pol_truncate_utf8(b.s ? b.s : "", b.len, SIM_SHOWN, cut, sizeof(cut));
	hook_utf8_sanitize(cut, n, out, size);
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	hook_buf_release(&b);
}

static void judge(struct sim *s, const struct hook_call *c)
{
	struct pol_result r, o;
	char shown[SIM_SHOWN * 4 + 8], label[24];

	if (c->kind != HOOK_CALL_COMMAND && c->kind != HOOK_CALL_PATH)
		return;
	s->calls++;
	if (c->kind == HOOK_CALL_COMMAND)
		s->commands++;
	else
		s->file_calls++;
	call_shown(c, shown, sizeof(shown));
	pol_result_init(&r);
	hook_decide_call(s->pol, c, 0, &r);
	decision_label(&r, label, sizeof(label));
	tally_add(&s->all, r.rule_id ? r.rule_id : "-", label, shown);
	if (s->old) {
		pol_result_init(&o);
		hook_decide_call(s->old, c, 0, &o);
		if (r.decision >= POL_ASK && o.decision < POL_ASK)
			tally_add(&s->newly_refused, r.rule_id ? r.rule_id : "-",
				  pol_decision_name(r.decision), shown);
		else if (r.decision < POL_ASK && o.decision >= POL_ASK)
			tally_add(&s->newly_allowed, o.rule_id ? o.rule_id : "-",
				  pol_decision_name(o.decision), shown);
		pol_result_release(&o);
	}
	pol_result_release(&r);
}

static void judge_command(struct sim *s, const char *cmd, size_t len, const char *cwd,
			  const char *tool)
{
	struct hook_call c;

	hook_call_init(&c);
	c.kind = HOOK_CALL_COMMAND;
	c.command = cmd;
	c.command_len = len;
	c.cwd = cwd;
	c.tool = tool;
	judge(s, &c);
	hook_call_release(&c);
}

static void judge_path(struct sim *s, const char *tool, const char *path, enum pol_op op,
		       const char *cwd)
{
	struct hook_call c;

	hook_call_init(&c);
	c.tool = tool;
	c.cwd = cwd;
	if (hook_call_add_path(&c, path, op) == 0)
		judge(s, &c);
	hook_call_release(&c);
}

/* A Claude Code tool call, decided as the hook decides it: through its adapter. */
static void judge_claude_tool(struct sim *s, const cJSON *tool_use, const char *cwd)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(tool_use, "name");
	const cJSON *input = cJSON_GetObjectItemCaseSensitive(tool_use, "input");
	cJSON *call = cJSON_CreateObject();
	struct hook_call c;
	void *state = NULL;
	char *text;

	if (!call || !cJSON_IsString(name) || !cJSON_IsObject(input)) {
		cJSON_Delete(call);
		return;
	}
	cJSON_AddStringToObject(call, "hook_event_name", "PreToolUse");
	cJSON_AddStringToObject(call, "tool_name", name->valuestring);
	cJSON_AddItemToObject(call, "tool_input", cJSON_Duplicate(input, 1));
	if (cwd)
		cJSON_AddStringToObject(call, "cwd", cwd);
	text = cJSON_PrintUnformatted(call);
	cJSON_Delete(call);
	if (!text)
		return;
	hook_call_init(&c);
	hook_claude_parse(text, strlen(text), &c, &state);
	judge(s, &c);
	hook_call_release(&c);
	if (state)
		hook_claude_release(state);
	free(text);
}

/* ---- the kinds of file ------------------------------------------------------------------------- */

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A Claude Code transcript line: an assistant message's tool_use blocks. */
static void claude_line(struct sim *s, const cJSON *o)
{
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(o, "message");
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
	const cJSON *item;

	if (!str_of(o, "type") || strcmp(str_of(o, "type"), "assistant") || !cJSON_IsArray(content))
		return;
	cJSON_ArrayForEach(item, content)
	{
		const char *t = str_of(item, "type");
		if (t && !strcmp(t, "tool_use"))
			judge_claude_tool(s, item, str_of(o, "cwd"));
	}
}

/* A Codex rollout line: a function call of its shell tool ({"command": [argv]}). */
static void codex_line(struct sim *s, const cJSON *o, const char *cwd)
{
	const cJSON *pl = cJSON_GetObjectItemCaseSensitive(o, "payload");
	const char *args = str_of(pl, "arguments");
	const char *name = str_of(pl, "name");
	cJSON *a, *cmd;
	struct hook_buf b = HOOK_BUF_INIT;
	int n;

	if (!args || !name || strcmp(name, "shell") || !(a = cJSON_Parse(args)))
		return;
	cmd = cJSON_GetObjectItemCaseSensitive(a, "command");
	n = cJSON_GetArraySize(cmd);
	/* bash -lc SCRIPT: the script is the command; else the words joined */
	if (n == 3 && cJSON_IsString(cJSON_GetArrayItem(cmd, 2)) &&
	    strstr(cJSON_GetArrayItem(cmd, 1)->valuestring, "c")) {
		hook_buf_adds(&b, cJSON_GetArrayItem(cmd, 2)->valuestring);
	} else {
		for (int i = 0; i < n; i++)
			if (cJSON_IsString(cJSON_GetArrayItem(cmd, i))) {
				hook_buf_adds(&b, i ? " " : "");
				hook_buf_adds(&b, cJSON_GetArrayItem(cmd, i)->valuestring);
			}
	}
	if (b.s && b.len)
		judge_command(s, b.s, b.len, str_of(a, "workdir") ? str_of(a, "workdir") : cwd,
			      "shell");
	hook_buf_release(&b);
	cJSON_Delete(a);
}

/* Claude Code's file tools and what they do to their path. */
static const struct {
	char tool[16];
	enum pol_op op;
} file_tools[] = {
    {"Write", POL_OP_WRITE},	    {"Edit", POL_OP_WRITE}, {"MultiEdit", POL_OP_WRITE},
    {"NotebookEdit", POL_OP_WRITE}, {"Read", POL_OP_READ},
};

/* An audit log line: what was judged (the hook's command or file, a runtime layer's
 * exec or path operation). */
static void audit_line(struct sim *s, const cJSON *o)
{
	const char *layer = str_of(o, "layer"), *tool = str_of(o, "tool");
	const char *in = str_of(o, "input"), *cwd = str_of(o, "cwd"), *op = str_of(o, "op");

	if (!layer || !tool || !in || !in[0])
		return;
	for (size_t i = 0; i < sizeof(file_tools) / sizeof(file_tools[0]); i++)
		if (!strcmp(tool, file_tools[i].tool)) {
			judge_path(s, tool, in, file_tools[i].op, cwd);
			return;
		}
	if (strcmp(layer, "hook") && op && in[0] == '/' && strncmp(tool, "exec", 4)) {
		for (int k = 0; k < POL_OP__COUNT; k++)
			if (!strcmp(pol_op_name((enum pol_op)k), op)) {
				judge_path(s, tool, in, (enum pol_op)k, cwd);
				return;
			}
		return;
	}
	judge_command(s, in, strlen(in), cwd, tool);
}

enum sim_kind { SIM_PLAIN, SIM_AUDIT, SIM_CLAUDE, SIM_CODEX };

static enum sim_kind kind_of(const cJSON *o)
{
	if (!cJSON_IsObject(o))
		return SIM_PLAIN;
	if (str_of(o, "layer") && cJSON_GetObjectItemCaseSensitive(o, "decision"))
		return SIM_AUDIT;
	if (cJSON_GetObjectItemCaseSensitive(o, "payload") && str_of(o, "type"))
		return SIM_CODEX;
	if (str_of(o, "sessionId") || str_of(o, "type"))
		return SIM_CLAUDE;
	return SIM_PLAIN;
}

/* One file: its kind is the first line's. */
static int simulate_file(struct sim *s, const char *path)
{
	char *text = NULL, *p, *end, cwd[PATH_MAX] = "";
	enum sim_kind kind = SIM_PLAIN;
	size_t len;
	int first = 1, err = hook_read_file(path, SIM_FILE_MAX, &text, &len);

	if (err) {
		fprintf(stderr, "dcg: simulate: %s: %s\n", path, strerror(-err));
		return -1;
	}
	s->files++;
	for (p = text, end = text + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *line = p;
		cJSON *o;

		if (nl)
			*nl = '\0';
		p = nl ? nl + 1 : end;
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || (*line == '#' && kind == SIM_PLAIN))
			continue;
		o = *line == '{' ? cJSON_Parse(line) : NULL;
		if (first) {
			kind = kind_of(o);
			first = 0;
		}
		if (kind == SIM_PLAIN)
			judge_command(s, line, strlen(line), NULL, "Bash");
		else if (kind == SIM_AUDIT && o)
			audit_line(s, o);
		else if (kind == SIM_CLAUDE && o)
			claude_line(s, o);
		else if (kind == SIM_CODEX && o) {
			const cJSON *pl = cJSON_GetObjectItemCaseSensitive(o, "payload");
			if (str_of(pl, "cwd"))
				snprintf(cwd, sizeof(cwd), "%s", str_of(pl, "cwd"));
			codex_line(s, o, cwd[0] ? cwd : NULL);
		}
		cJSON_Delete(o);
	}
	free(text);
	return 0;
}

/* Without FILE: the transcripts of the last SIM_RECENT seconds of every agent known. */
static int simulate_recent(struct sim *s)
{
	static const char *const patterns[] = {
	    "/.claude/projects/*/*.jsonl",
	    "/.codex/sessions/*/*/*/rollout-*.jsonl",
	};
	const char *home = getenv("HOME");
	time_t now = time(NULL);
	int bad = 0;

	if (!home || home[0] != '/') {
		fprintf(stderr, "dcg: simulate: no HOME to find the transcripts in\n");
		return -1;
	}
	for (size_t k = 0; k < sizeof(patterns) / sizeof(patterns[0]); k++) {
		char pat[PATH_MAX];
		glob_t g;
		struct stat st;

		snprintf(pat, sizeof(pat), "%s%s", home, patterns[k]);
		if (glob(pat, 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (stat(g.gl_pathv[i], &st) == 0 && st.st_mtime + SIM_RECENT >= now)
				bad |= simulate_file(s, g.gl_pathv[i]) < 0;
		globfree(&g);
	}
	return bad ? -1 : 0;
}

/* ---- the report --------------------------------------------------------------------------------- */

static cJSON *tally_json(const struct sim_tally *t)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < t->n; i++) {
		cJSON *o = cJSON_CreateObject(), *ex;
		if (!o)
			break;
		cJSON_AddStringToObject(o, "rule", t->v[i].rule);
		cJSON_AddStringToObject(o, "decision", t->v[i].decision);
		cJSON_AddNumberToObject(o, "count", (double)t->v[i].count);
		ex = cJSON_AddArrayToObject(o, "examples");
		for (size_t k = 0; ex && k < t->v[i].n_examples; k++)
			cJSON_AddItemToArray(ex, cJSON_CreateString(t->v[i].examples[k]));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static void tally_print(const char *title, const struct sim_tally *t)
{
	printf("\n%s\n%-14s %6s  %s\n", title, "DECISION", "COUNT", "RULE");
	if (!t->n)
		printf("  (none)\n");
	for (size_t i = 0; i < t->n; i++) {
		printf("%-14s %6zu  %s\n", t->v[i].decision, t->v[i].count, t->v[i].rule);
		for (size_t k = 0; k < t->v[i].n_examples; k++)
			printf("%-14s %6s    e.g. %s\n", "", "", t->v[i].examples[k]);
	}
}

static void report(struct sim *s, int json)
{
	struct sim_tally *ts[3] = {&s->all, &s->newly_refused, &s->newly_allowed};

	for (int k = 0; k < 3; k++)
		if (ts[k]->n)
			qsort(ts[k]->v, ts[k]->n, sizeof(ts[k]->v[0]), row_order);
	if (json) {
		cJSON *root = cJSON_CreateObject();
		char *out;
		cJSON_AddNumberToObject(root, "files", (double)s->files);
		cJSON_AddNumberToObject(root, "calls", (double)s->calls);
		cJSON_AddNumberToObject(root, "commands", (double)s->commands);
		cJSON_AddNumberToObject(root, "file_calls", (double)s->file_calls);
		cJSON_AddItemToObject(root, "by_rule", tally_json(&s->all));
		if (s->old) {
			cJSON_AddItemToObject(root, "newly_refused", tally_json(&s->newly_refused));
			cJSON_AddItemToObject(root, "newly_allowed", tally_json(&s->newly_allowed));
		}
		out = cJSON_PrintUnformatted(root);
		if (out)
			printf("%s\n", out);
		free(out);
		cJSON_Delete(root);
		return;
	}
	printf("dcg simulate: %zu calls judged (%zu commands, %zu file calls) from %zu files; "
	       "nothing was run\n",
	       s->calls, s->commands, s->file_calls, s->files);
	tally_print("Decisions by rule:", &s->all);
	if (s->old) {
		tally_print("Newly refused (the old policy let them pass):", &s->newly_refused);
		tally_print("Newly allowed (the old policy refused them):", &s->newly_allowed);
	}
}

static void tally_release(struct sim_tally *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

int cmd_simulate(int argc, char **argv)
{
	static const struct cli_option opts[] = {
	    {"policy", required_argument, 'p'},
	    {"against", required_argument, 'a'},
	    {"json", no_argument, 'j'},
	    {"help", no_argument, 'h'},
	    {"", 0, 0},
	};
	const char *policy = dcg_global_policy, *against = NULL;
	struct sim s;
	int c, json = 0, bad = 0;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "h", opts)) != -1) {
		switch (c) {
		case 'p':
			policy = optarg;
			break;
		case 'a':
			against = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			fputs(sim_usage, stdout);
			return 0;
		default:
			fputs(sim_usage, stderr);
			return 1;
		}
	}
	memset(&s, 0, sizeof(s));
	s.pol = hook_policy_open(policy, NULL, stderr);
	if (against)
		s.old = hook_policy_open(against, NULL, stderr);
	if (!s.pol || (against && !s.old)) {
		fprintf(stderr, "dcg: simulate: cannot build the policy\n");
		pol_free(s.pol);
		pol_free(s.old);
		return 1;
	}
	if (optind >= argc)
		bad = simulate_recent(&s) < 0;
	for (int i = optind; i < argc; i++)
		bad |= simulate_file(&s, argv[i]) < 0;
	report(&s, json);
	tally_release(&s.all);
	tally_release(&s.newly_refused);
	tally_release(&s.newly_allowed);
	pol_free(s.pol);
	pol_free(s.old);
	return bad;
}
