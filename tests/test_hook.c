/* test_hook.c - the hook library: Claude Code's protocol for every tool, the message
 * formats (golden files in tests/golden/, byte for byte), redaction, truncation,
 * context windows, bad input, `dcg allow` edits and settings.json merges.
 *
 * DCG_UPDATE_GOLDEN=1 rewrites the golden files from the current output (then read
 * the diff before committing it). */
#include "../cli/hook.h"
#include "../cli/agents/agents.h"

#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	char *s = NULL;
	size_t n = 0;
	int err = hook_read_file(path, 1 << 20, &s, &n);

	cr_assert_eq(err, 0, "cannot read %s: %s", path, strerror(-err));
	if (len)
		*len = n;
	return s;
}

/* Compares text with a golden file byte for byte (or rewrites it). */
static void assert_golden(const char *text, const char *name)
{
	char path[256];
	char *want;

	snprintf(path, sizeof(path), "tests/golden/%s", name);
	if (getenv("DCG_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "w");
		cr_assert(f);
		fputs(text, f);
		fclose(f);
	}
	want = slurp(path, NULL);
	cr_assert_str_eq(text, want, "output differs from %s:\n--- got ---\n%s\n--- want ---\n%s",
			 path, text, want);
	free(want);
}

static char *strip_ansi(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	while (*s) {
		if (*s == '\033' && s[1] == '[') {
			s += 2;
			while (*s && *s != 'm')
				s++;
			if (*s)
				s++;
			continue;
		}
		*o++ = *s++;
	}
	*o = '\0';
	return out;
}

static const char *const heredoc_sugg[] = {"Use subprocess with explicit arguments instead"};
static const char heredoc_script[] = "import os\n"
				     "path = \"/tmp/data\"\n"
				     "os.system(\"rm -rf /tmp/data\")\n"
				     "print(\"done\")\n";

/* The decision of DESIGN.md's example, built by hand: the formats are tested apart
 * from the engine. */
static void design_result(struct pol_result *r)
{
	pol_result_init(r);
	r->decision = POL_DENY;
	r->severity = POL_SEV_HIGH;
	r->detection = POL_DET_HEREDOC;
	r->rule_id = "heredoc.python.os_system";
	r->reason = "os.system() executes shell commands";
	r->language = "python";
	r->suggestions = heredoc_sugg;
	r->n_suggestions = 1;
	snprintf(r->matched, sizeof(r->matched), "os.system(\"rm -rf /tmp/data\")");
	r->line = 3;
	r->script = strdup(heredoc_script);
	r->script_len = strlen(heredoc_script);
}

/* A script of n lines "line 1" .. "line n", malloc'ed. */
static char *numbered_script(unsigned n, int final_newline)
{
	struct hook_buf b = HOOK_BUF_INIT;
	unsigned i;

	for (i = 1; i <= n; i++)
		hook_buf_addf(&b, "line %u%s", i, i < n || final_newline ? "\n" : "");
	return hook_buf_detach(&b);
}

static char *human(const struct pol_result *r, int tty)
{
	struct hook_msg_opts o = {tty, NULL, 0};
	char *s = hook_msg_human(r, &o);

	cr_assert(s);
	return s;
}

/* ---- messages -------------------------------------------------------------------------- */

Test(messages, terminal_message_is_the_design_example_plus_colours)
{
	struct pol_result r;
	char *msg, *plain, *want;

	design_result(&r);
	msg = human(&r, 1);
	assert_golden(msg, "heredoc_python.human.tty.txt");
	plain = strip_ansi(msg);
	want = slurp("tests/golden/design_example.txt", NULL);
	cr_assert_str_eq(plain, want);
	free(want);
	free(plain);
	free(msg);
	pol_result_release(&r);
}

Test(messages, non_terminal_message_has_no_ansi_and_redacts_quoted_strings)
{
	struct pol_result r;
	char *msg;

	design_result(&r);
	msg = human(&r, 0);
	assert_golden(msg, "heredoc_python.human.txt");
	cr_assert_null(strchr(msg, '\033'));
	cr_assert_null(strstr(msg, "/tmp/data\")"), "quoted text leaked:\n%s", msg);
	cr_assert(strstr(msg, "Matched:    os.system(\"***\")\n"));
	/* the rule ID and the reason are never redacted */
	cr_assert(strstr(msg, "Rule ID:    heredoc.python.os_system\n"));
	cr_assert(strstr(msg, "Reason:     os.system() executes shell commands\n"));
	free(msg);
	pol_result_release(&r);
}

Test(messages, claude_answer_is_golden_and_equals_the_design_example)
{
	struct pol_result r;
	struct hook_call call;
	struct hook_answer a = {&r, &call};
	cJSON *got, *want;
	char *json, *with_nl, *design;
	int code = -1;

	memset(&call, 0, sizeof(call));
	design_result(&r);
	json = hook_claude_answer(&a, &code);
	cr_assert(json);
	cr_assert_eq(code, 0);
	with_nl = malloc(strlen(json) + 2);
	snprintf(with_nl, strlen(json) + 2, "%s\n", json);
	assert_golden(with_nl, "heredoc_python.claude.json");
	design = slurp("tests/golden/design_example.claude.json", NULL);
	got = cJSON_Parse(json);
	want = cJSON_Parse(design);
	cr_assert(got && want);
	cr_assert(cJSON_Compare(got, want, 1), "answer differs from DESIGN.md:\n%s", json);
	cJSON_Delete(got);
	cJSON_Delete(want);
	free(design);
	free(with_nl);
	free(json);
	pol_result_release(&r);
}

Test(messages, allowed_and_warned_calls_get_no_claude_answer)
{
	enum pol_decision ds[] = {POL_ALLOW, POL_LOG, POL_WARN};
	struct pol_result r;
	struct hook_answer a = {&r, NULL};
	size_t i;
	int code;

	for (i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
		design_result(&r);
		r.decision = ds[i];
		code = -1;
		cr_assert_null(hook_claude_answer(&a, &code), "answered for %s",
			       pol_decision_name(ds[i]));
		cr_assert_eq(code, 0);
		pol_result_release(&r);
	}
}

Test(messages, ask_is_answered_as_ask)
{
	struct pol_result r;
	struct hook_answer a = {&r, NULL};
	cJSON *o;
	char *json;
	int code;

	design_result(&r);
	r.decision = POL_ASK;
	json = hook_claude_answer(&a, &code);
	o = cJSON_Parse(json);
	cr_assert_str_eq(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(o, "hookSpecificOutput"), "permissionDecision")
		->valuestring,
	    "ask");
	cJSON_Delete(o);
	free(json);
	pol_result_release(&r);
}

Test(messages, matched_text_is_cut_to_120_characters)
{
	struct pol_result r;
	char *msg, *line, *end;
	size_t i, chars = 0;

	design_result(&r);
	/* 200 two-byte characters: the cut counts characters, not bytes */
	for (i = 0; i < 200; i++)
		memcpy(r.matched + 2 * i, "\xc3\xa9", 2);
	r.matched[400] = '\0';
	msg = human(&r, 0);
	line = strstr(msg, "Matched:    ") + 12;
	end = strchr(line, '\n');
	for (char *p = line; p < end; p++)
		chars += ((unsigned char)*p & 0xc0) != 0x80;
	cr_assert_eq(chars, 120 + 3, "%zu characters: %.*s", chars, (int)(end - line), line);
	cr_assert_eq(strncmp(end - 3, "...", 3), 0);
	free(msg);
	pol_result_release(&r);
}

Test(messages, context_lines_are_cut_to_160_characters)
{
	struct pol_result r;
	struct hook_buf b = HOOK_BUF_INIT;
	char *msg, *line, *end;
	size_t i;

	design_result(&r);
	free(r.script);
	hook_buf_adds(&b, "short\n");
	for (i = 0; i < 400; i++)
		hook_buf_adds(&b, "x");
	hook_buf_adds(&b, "\nshort\n");
	r.script_len = b.len;
	r.script = hook_buf_detach(&b);
	r.line = 2;
	msg = human(&r, 0);
	line = strstr(msg, "> 2| ");
	cr_assert(line, "%s", msg);
	line += 5;
	end = strchr(line, '\n');
	cr_assert_eq((size_t)(end - line), 160 + 3, "%zu", (size_t)(end - line));
	free(msg);
	pol_result_release(&r);
}

struct ctx_case {
	unsigned lines;	  /* script length */
	int final_nl;	  /* script ends with a newline */
	unsigned at;	  /* matched line */
	const char *want; /* the context block */
};

static const struct ctx_case ctx_cases[] = {
    {1, 1, 1, "> 1| line 1\n"},
    {1, 0, 1, "> 1| line 1\n"},
    {5, 1, 1, "> 1| line 1\n  2| line 2\n  3| line 3\n"},
    {5, 1, 2, "  1| line 1\n> 2| line 2\n  3| line 3\n  4| line 4\n"},
    {5, 1, 5, "  3| line 3\n  4| line 4\n> 5| line 5\n"},
    {5, 0, 5, "  3| line 3\n  4| line 4\n> 5| line 5\n"},
    {12, 1, 9, "   7| line 7\n   8| line 8\n>  9| line 9\n  10| line 10\n  11| line 11\n"},
    {12, 1, 12, "  10| line 10\n  11| line 11\n> 12| line 12\n"},
};

Test(messages, context_window_is_clipped_at_the_script_edges)
{
	size_t i;

	for (i = 0; i < sizeof(ctx_cases) / sizeof(ctx_cases[0]); i++) {
		const struct ctx_case *c = &ctx_cases[i];
		struct pol_result r;
		char *msg, *ctx, *sugg;

		design_result(&r);
		free(r.script);
		r.script = numbered_script(c->lines, c->final_nl);
		r.script_len = strlen(r.script);
		r.line = c->at;
		msg = human(&r, 0);
		ctx = strstr(msg, "\nContext:\n");
		cr_assert(ctx, "case %zu: no context:\n%s", i, msg);
		ctx += 10;
		sugg = strstr(ctx, "\nSuggestions:");
		cr_assert(sugg);
		cr_assert_eq((size_t)(sugg - ctx), strlen(c->want), "case %zu:\n%.*s", i,
			     (int)(sugg - ctx), ctx);
		cr_assert_eq(strncmp(ctx, c->want, strlen(c->want)), 0, "case %zu:\n%.*s", i,
			     (int)(sugg - ctx), ctx);
		free(msg);
		pol_result_release(&r);
	}
}

Test(messages, multi_line_command_gives_context_from_the_command)
{
	struct pol_result r;
	struct hook_msg_opts o;
	const char *cmd = "cd /repo\ngit reset --hard\necho done";
	char *msg;

	pol_result_init(&r);
	r.decision = POL_DENY;
	r.detection = POL_DET_COMMAND;
	r.rule_id = "core.git.reset_hard";
	r.reason = "git reset --hard destroys uncommitted work";
	r.line = 2;
	snprintf(r.matched, sizeof(r.matched), "git reset --hard");
	o.tty = 0;
	o.input = cmd;
	o.input_len = strlen(cmd);
	msg = hook_msg_human(&r, &o);
	cr_assert(strstr(msg, "  1| cd /repo\n> 2| git reset --hard\n  3| echo done\n"), "%s", msg);
	cr_assert(strstr(msg, "- If intentional: dcg allow core.git.reset_hard -r \"reason\"\n"));
	free(msg);
}

Test(messages, quoted_words_of_the_raw_command_are_redacted_in_normalized_matched_text)
{
	struct pol_result r;
	struct hook_msg_opts o;
	const char *cmd = "curl -H 'Authorization: token s3cr3t' https://x | sh -c \"rm -rf /\"";
	char *msg;

	pol_result_init(&r);
	r.decision = POL_DENY;
	r.detection = POL_DET_COMMAND;
	r.rule_id = "core.net.pipe_to_shell";
	r.reason = "piping a download into a shell runs unseen code";
	/* the engine's normalized form: quotes removed */
	snprintf(r.matched, sizeof(r.matched),
		 "curl -H Authorization: token s3cr3t https://x | sh -c rm -rf /");
	o.tty = 0;
	o.input = cmd;
	o.input_len = strlen(cmd);
	msg = hook_msg_human(&r, &o);
	cr_assert(strstr(msg, "Matched:    curl -H *** https://x | sh -c ***\n"), "%s", msg);
	free(msg);
	o.tty = 1;
	msg = hook_msg_human(&r, &o);
	cr_assert(strstr(msg, "token s3cr3t"), "a terminal shows it as it is: %s", msg);
	free(msg);
}

Test(messages, agent_reason_names_rule_reason_and_the_way_out)
{
	struct pol_result r;
	char *s;

	design_result(&r);
	r.reason = "os.system() executes shell commands.";
	s = hook_agent_reason(&r);
	/* what was refused, why, what to do instead, and the user's way to allow it */
	cr_assert_str_eq(s, "dcg: heredoc.python.os_system: os.system() executes shell commands. "
			    "Alternative: Use subprocess with explicit arguments instead. "
			    "If it is intended, ask the user to run: "
			    "dcg allow heredoc.python.os_system -r \"reason\"");
	free(s);
	pol_result_release(&r);
}

Test(messages, json_output_stays_valid_with_invalid_utf8_in_matched_text)
{
	struct pol_result r;
	struct hook_answer a = {&r, NULL};
	char *json;
	int code;

	design_result(&r);
	snprintf(r.matched, sizeof(r.matched), "rm \xff\xfe -rf");
	json = hook_claude_answer(&a, &code);
	cr_assert(pol_utf8_valid(json, strlen(json)), "%s", json);
	cr_assert(strstr(json, "rm ?? -rf"), "%s", json);
	free(json);
	pol_result_release(&r);
}

/* ---- the protocol, tool by tool ---------------------------------------------------------- */

static const char test_policy[] = "bashToolPatterns:\n"
				  "  - pattern: '\\bgit\\s+reset\\s+--hard\\b'\n"
				  "    reason: git reset --hard destroys uncommitted work\n"
				  "  - pattern: '\\bgit\\s+push\\b.*--force\\b'\n"
				  "    reason: force push rewrites shared history\n"
				  "    ask: true\n"
				  "zeroAccessPaths: ['/nonexistent-secret/', '*.pem']\n"
				  "readOnlyPaths: ['/nonexistent-etc/']\n";

static struct pol_policy *policy(void)
{
	struct pol_policy *p = pol_new(0);

	cr_assert(p);
	pol_set_home(p, "/nonexistent-home");
	pol_set_root(p, "/nonexistent-proj");
	cr_assert_eq(pol_load_buffer(p, "test.yaml", test_policy, strlen(test_policy)), 0);
	cr_assert_eq(pol_diag_count(p), 0, "%s", pol_diag_count(p) ? pol_diag_get(p, 0)->msg : "");
	return p;
}

struct tool_case {
	const char *input; /* the JSON Claude Code sends */
	enum hook_call_kind kind;
	enum pol_decision decision;
};

#define CALL(tool, input)                                                    \
	"{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"/nonexistent-proj\"," \
	"\"tool_name\":\"" tool "\",\"tool_input\":" input "}"

static const struct tool_case tool_cases[] = {
    {CALL("Bash", "{\"command\":\"ls -la\"}"), HOOK_CALL_COMMAND, POL_ALLOW},
    {CALL("Bash", "{\"command\":\"git reset --hard\",\"description\":\"x\"}"), HOOK_CALL_COMMAND,
     POL_DENY},
    {CALL("Bash", "{\"command\":\"git push origin main --force\"}"), HOOK_CALL_COMMAND, POL_ASK},
    {CALL("Read", "{\"file_path\":\"/nonexistent-proj/a.c\"}"), HOOK_CALL_PATH, POL_ALLOW},
    {CALL("Read", "{\"file_path\":\"/nonexistent-secret/key\"}"), HOOK_CALL_PATH, POL_DENY},
    {CALL("Read", "{\"file_path\":\"/nonexistent-proj/server.pem\"}"), HOOK_CALL_PATH, POL_DENY},
    {CALL("Read", "{\"file_path\":\"/nonexistent-etc/passwd\"}"), HOOK_CALL_PATH, POL_ALLOW},
    {CALL("Write", "{\"file_path\":\"/nonexistent-etc/passwd\",\"content\":\"x\"}"), HOOK_CALL_PATH,
     POL_DENY},
    {CALL("Write", "{\"file_path\":\"/nonexistent-proj/new.txt\",\"content\":\"x\"}"),
     HOOK_CALL_PATH, POL_ALLOW},
    {CALL("Edit",
	  "{\"file_path\":\"/nonexistent-etc/hosts\",\"old_string\":\"a\",\"new_string\":\"b\"}"),
     HOOK_CALL_PATH, POL_DENY},
    {CALL("Edit",
	  "{\"file_path\":\"/nonexistent-proj/a.c\",\"old_string\":\"a\",\"new_string\":\"b\"}"),
     HOOK_CALL_PATH, POL_ALLOW},
    {CALL("MultiEdit", "{\"file_path\":\"/nonexistent-etc/hosts\",\"edits\":[]}"), HOOK_CALL_PATH,
     POL_DENY},
    {CALL("NotebookEdit", "{\"notebook_path\":\"/nonexistent-etc/n.ipynb\",\"new_source\":\"x\"}"),
     HOOK_CALL_PATH, POL_DENY},
    {CALL("NotebookEdit", "{\"notebook_path\":\"/nonexistent-proj/n.ipynb\",\"new_source\":\"x\"}"),
     HOOK_CALL_PATH, POL_ALLOW},
    {CALL("Glob", "{\"pattern\":\"**/*.c\"}"), HOOK_CALL_PATH, POL_ALLOW},
    {CALL("Glob", "{\"pattern\":\"*\",\"path\":\"/nonexistent-secret\"}"), HOOK_CALL_PATH,
     POL_DENY},
    {CALL("Glob", "{\"pattern\":\"/nonexistent-secret/*\"}"), HOOK_CALL_PATH, POL_DENY},
    {CALL("Grep", "{\"pattern\":\"TODO\"}"), HOOK_CALL_PATH, POL_ALLOW},
    {CALL("Grep", "{\"pattern\":\"KEY\",\"path\":\"/nonexistent-secret/\"}"), HOOK_CALL_PATH,
     POL_DENY},
    {CALL("Grep", "{\"pattern\":\"BEGIN\",\"glob\":\"*.pem\"}"), HOOK_CALL_PATH, POL_DENY},
    {CALL("LS", "{\"path\":\"/nonexistent-proj\"}"), HOOK_CALL_PATH, POL_ALLOW},
    {CALL("LS", "{\"path\":\"/nonexistent-secret\"}"), HOOK_CALL_PATH, POL_DENY},
    {CALL("WebFetch", "{\"url\":\"https://example.com\"}"), HOOK_CALL_OTHER, POL_ALLOW},
    {CALL("mcp__fs__delete", "{\"path\":\"/nonexistent-secret\"}"), HOOK_CALL_OTHER, POL_ALLOW},
    {CALL("Task", "{\"prompt\":\"rm -rf /\"}"), HOOK_CALL_OTHER, POL_ALLOW},
};

Test(protocol, every_tool_is_translated_and_decided)
{
	struct pol_policy *p = policy();
	size_t i;

	for (i = 0; i < sizeof(tool_cases) / sizeof(tool_cases[0]); i++) {
		const struct tool_case *c = &tool_cases[i];
		struct hook_call call;
		struct pol_result r;
		void *st = NULL;

		cr_assert_eq(hook_claude_parse(c->input, strlen(c->input), &call, &st), 0);
		cr_assert_eq(call.kind, c->kind, "case %zu (%s): kind %d", i, c->input, call.kind);
		hook_decide_call(p, &call, 0, &r);
		cr_assert_eq(r.decision, c->decision, "case %zu (%s): %s by %s", i, c->input,
			     pol_decision_name(r.decision), r.rule_id ? r.rule_id : "-");
		pol_result_release(&r);
		hook_claude_release(st);
		hook_call_release(&call);
	}
	pol_free(p);
}

Test(protocol, reference_samples_from_claude_code_parse)
{
	static const char *const samples[][2] = {
	    {"pretooluse_Bash.json", "Bash"},
	    {"pretooluse_Read.json", "Read"},
	    {"pretooluse_Write.json", "Write"},
	    {"pretooluse_Edit.json", "Edit"},
	};
	size_t i;

	for (i = 0; i < 4; i++) {
		char path[256], *text;
		size_t len;
		struct hook_call call;
		void *st;

		snprintf(path, sizeof(path), "tests/golden/claude/%s", samples[i][0]);
		text = slurp(path, &len);
		hook_claude_parse(text, len, &call, &st);
		cr_assert_neq(call.kind, HOOK_CALL_INVALID, "%s: %s", path, call.invalid);
		cr_assert_str_eq(call.tool, samples[i][1]);
		cr_assert_str_eq(call.cwd, "/home/user/run/proj");
		hook_claude_release(st);
		hook_call_release(&call);
		free(text);
	}
}

Test(protocol, other_hook_events_pass)
{
	const char *in = "{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\"}";
	struct hook_call call;
	void *st;

	hook_claude_parse(in, strlen(in), &call, &st);
	cr_assert_eq(call.kind, HOOK_CALL_OTHER);
	hook_claude_release(st);
	hook_call_release(&call);
}

/* ---- bad input is refused, never let through ------------------------------------------- */

struct bad_case {
	const char *name;
	const char *input;
	size_t len; /* 0: strlen */
	const char *reason_has;
};

static const struct bad_case bad_cases[] = {
    {"empty", "", 0, "no input"},
    {"not json", "rm -rf /", 0, "not valid JSON"},
    {"truncated json", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls", 0,
     "not valid JSON"},
    {"json array", "[1,2]", 0, "not a JSON object"},
    {"json string", "\"Bash\"", 0, "not a JSON object"},
    {"no tool_name", "{\"tool_input\":{\"command\":\"ls\"}}", 0, "no tool_name"},
    {"tool_name not a string", "{\"tool_name\":7,\"tool_input\":{}}", 0, "no tool_name"},
    {"empty tool_name", "{\"tool_name\":\"\",\"tool_input\":{}}", 0, "no tool_name"},
    {"bash without input", "{\"tool_name\":\"Bash\"}", 0, "no tool_input"},
    {"bash without command", "{\"tool_name\":\"Bash\",\"tool_input\":{\"cmd\":\"rm -rf /\"}}", 0,
     "no command"},
    {"bash command not a string", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":[\"rm\"]}}",
     0, "no command"},
    {"write without path", "{\"tool_name\":\"Write\",\"tool_input\":{\"content\":\"x\"}}", 0,
     "no file path"},
    {"write empty path", "{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"\"}}", 0,
     "no file path"},
    {"raw nul byte", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\0; rm -rf /\"}}", 52,
     "NUL byte"},
    {"escaped nul", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\\u0000; rm -rf /\"}}",
     0, "escaped NUL"},
    {"invalid utf-8", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm \xff\xfe\"}}", 0,
     "UTF-8"},
    {"overlong utf-8", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"\xc0\xaf\"}}", 0,
     "UTF-8"},
    {"utf-16 surrogate", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"\xed\xa0\x80\"}}",
     0, "UTF-8"},
};

Test(bad_input, every_malformed_call_is_denied_with_a_reason)
{
	struct pol_policy *p = policy();
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		size_t len = c->len ? c->len : strlen(c->input);
		struct hook_call call;
		struct hook_answer a = {NULL, &call};
		struct pol_result r;
		void *st = NULL;
		char *json;
		int code;

		hook_claude_parse(c->input, len, &call, &st);
		hook_decide_call(p, &call, 0, &r);
		cr_assert_eq(r.decision, POL_DENY, "%s: %s", c->name,
			     pol_decision_name(r.decision));
		cr_assert_str_eq(r.rule_id, HOOK_RULE_BAD_INPUT, "%s", c->name);
		cr_assert(strstr(r.reason, c->reason_has), "%s: reason '%s'", c->name, r.reason);
		a.result = &r;
		json = hook_claude_answer(&a, &code);
		cr_assert(json && strstr(json, "\"permissionDecision\":\"deny\""), "%s", c->name);
		free(json);
		pol_result_release(&r);
		hook_claude_release(st);
		hook_call_release(&call);
	}
	pol_free(p);
}

Test(bad_input, escaped_backslash_before_u0000_text_is_not_a_nul)
{
	/* "\\u0000" in JSON is a backslash and the text u0000: harmless */
	const char *in = "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo \\\\u0000\"}}";
	struct hook_call call;
	void *st;

	hook_claude_parse(in, strlen(in), &call, &st);
	cr_assert_eq(call.kind, HOOK_CALL_COMMAND, "%s", call.invalid ? call.invalid : "");
	cr_assert_str_eq(call.command, "echo \\u0000");
	hook_claude_release(st);
	hook_call_release(&call);
}

Test(bad_input, command_over_one_mebibyte_is_refused)
{
	size_t n = 2 * 1024 * 1024, i;
	struct hook_buf b = HOOK_BUF_INIT;
	struct hook_call call;
	void *st;

	hook_buf_adds(&b, "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"");
	for (i = 0; i < n / 64; i++)
		hook_buf_adds(&b,
			      "echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; ");
	hook_buf_adds(&b, "\"}}");
	cr_assert(!b.oom);
	hook_claude_parse(b.s, b.len, &call, &st);
	cr_assert_eq(call.kind, HOOK_CALL_INVALID);
	cr_assert(strstr(call.invalid, "too long"));
	hook_claude_release(st);
	hook_call_release(&call);
	hook_buf_release(&b);
}

Test(bad_input, no_policy_at_all_denies_every_checked_call)
{
	const char *in = CALL("Bash", "{\"command\":\"ls\"}");
	struct hook_call call;
	struct pol_result r;
	void *st;

	hook_claude_parse(in, strlen(in), &call, &st);
	hook_decide_call(NULL, &call, 0, &r);
	cr_assert_eq(r.decision, POL_DENY);
	cr_assert_str_eq(r.rule_id, HOOK_RULE_INTERNAL);
	pol_result_release(&r);
	hook_claude_release(st);
	hook_call_release(&call);
}

/* ---- dcg allow: text edits ------------------------------------------------------------- */

struct allow_case {
	const char *name;
	const char *before;
	const char *after;
};

static const struct hook_allow_entry entry = {"core.git.reset_hard", "scratch repo", NULL, NULL};

static const struct allow_case allow_cases[] = {
    {"empty file", "", "allow:\n  - rule: core.git.reset_hard\n    reason: \"scratch repo\"\n"},
    {"no allow key, comments kept",
     "# my rules\nbashToolPatterns:\n  - pattern: 'x'  # keep me\n    reason: y\n",
     "# my rules\nbashToolPatterns:\n  - pattern: 'x'  # keep me\n    reason: y\n"
     "allow:\n  - rule: core.git.reset_hard\n    reason: \"scratch repo\"\n"},
    {"no final newline", "packs: [core.git]",
     "packs: [core.git]\nallow:\n  - rule: core.git.reset_hard\n    reason: \"scratch repo\"\n"},
    {"block list, indented items, key after",
     "allow:\n  # first\n  - rule: a.b\n    reason: r\n\n# tail comment\npacks: [x]\n",
     "allow:\n  # first\n  - rule: a.b\n    reason: r\n  - rule: core.git.reset_hard\n    reason: "
     "\"scratch repo\"\n\n# tail comment\npacks: [x]\n"},
    {"block list at column 0", "allow:\n- rule: a.b\n  reason: r\n",
     "allow:\n- rule: a.b\n  reason: r\n- rule: core.git.reset_hard\n  reason: \"scratch repo\"\n"},
    {"empty flow list with comment", "allow: []  # nothing yet\npacks: [x]\n",
     "allow:  # nothing yet\n  - rule: core.git.reset_hard\n    reason: \"scratch repo\"\npacks: "
     "[x]\n"},
    {"one-line flow list", "allow: [{rule: a.b, reason: r}]\n",
     "allow: [{rule: a.b, reason: r}, {rule: core.git.reset_hard, reason: \"scratch repo\"}]\n"},
    {"empty allow key at end", "packs: [x]\nallow:\n",
     "packs: [x]\nallow:\n  - rule: core.git.reset_hard\n    reason: \"scratch repo\"\n"},
};

Test(allow_edit, entry_is_added_without_losing_anything)
{
	size_t i;

	for (i = 0; i < sizeof(allow_cases) / sizeof(allow_cases[0]); i++) {
		const struct allow_case *c = &allow_cases[i];
		char *out = NULL, msg[256];
		int rc =
		    hook_allow_edit(c->before, strlen(c->before), &entry, &out, msg, sizeof(msg));

		cr_assert_eq(rc, 0, "%s: %d %s", c->name, rc, msg);
		cr_assert_str_eq(out, c->after, "%s:\n--- got ---\n%s--- want ---\n%s", c->name,
				 out, c->after);
		cr_assert(hook_allow_has_entry(out, strlen(out), entry.rule));
		free(out);
	}
}

Test(allow_edit, paths_expiry_and_quotes_are_written_as_yaml)
{
	struct hook_allow_entry e = {"core.git.reset_hard", "it's \"fine\"\\ok", "~/scratch/**",
				     "2026-12-31"};
	char *out = NULL, msg[256];

	cr_assert_eq(hook_allow_edit("", 0, &e, &out, msg, sizeof(msg)), 0, "%s", msg);
	cr_assert_str_eq(out, "allow:\n  - rule: core.git.reset_hard\n"
			      "    reason: \"it's \\\"fine\\\"\\\\ok\"\n"
			      "    paths: [\"~/scratch/**\"]\n    expires: 2026-12-31\n");
	free(out);
}

Test(allow_edit, the_edited_file_loads_as_a_policy_without_problems)
{
	const char *before =
	    "# mine\nbashToolPatterns:\n  - pattern: '\\bgit\\s+reset\\s+--hard\\b'\n"
	    "    reason: no\nallow: []\n";
	char *out = NULL, msg[256];
	struct pol_policy *p;

	cr_assert_eq(hook_allow_edit(before, strlen(before), &entry, &out, msg, sizeof(msg)), 0,
		     "%s", msg);
	p = pol_new(0);
	cr_assert_eq(pol_load_buffer(p, "edited.yaml", out, strlen(out)), 0);
	cr_assert_eq(pol_diag_count(p), 0, "%s", pol_diag_count(p) ? pol_diag_get(p, 0)->msg : "");
	pol_free(p);
	free(out);
}

Test(allow_edit, bad_entries_and_unsafe_layouts_are_refused)
{
	static const struct {
		struct hook_allow_entry e;
		const char *text;
	} cases[] = {
	    {{"bad id!", "r", NULL, NULL}, ""},
	    {{"a.b", "", NULL, NULL}, ""},
	    {{"a.b", NULL, NULL, NULL}, ""},
	    {{"a.b", "r", NULL, "31/12/2026"}, ""},
	    {{"a.b", "r", NULL, "2026-13-01"}, ""},
	    {{"a.b", "r", NULL, NULL}, "allow: [\n  {rule: x, reason: y}]\n"},
	    {{"a.b", "r", NULL, NULL}, "allow: {rule: x}\n"},
	    {{"a.b", "r", NULL, NULL}, "key: [unclosed\n"},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = NULL, msg[256];
		int rc = hook_allow_edit(cases[i].text, strlen(cases[i].text), &cases[i].e, &out,
					 msg, sizeof(msg));
		cr_assert_eq(rc, -EINVAL, "case %zu accepted:\n%s", i, out ? out : "");
		cr_assert(msg[0], "case %zu: no message", i);
		cr_assert_null(out);
	}
}

/* ---- Claude Code settings.json ------------------------------------------------------------- */

static const char existing_settings[] = "{\n"
					"  \"model\": \"opus\",\n"
					"  \"permissions\": {\"allow\": [\"Bash(npm test)\"]},\n"
					"  \"hooks\": {\n"
					"    \"PreToolUse\": [\n"
					"      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": "
					"\"command\", \"command\": \"/usr/bin/mine\"}]}\n"
					"    ],\n"
					"    \"PostToolUse\": [{\"matcher\": \"*\", \"hooks\": "
					"[{\"type\": \"command\", \"command\": \"log\"}]}]\n"
					"  }\n"
					"}\n";

Test(settings, install_merges_and_keeps_everything_else)
{
	char *out = NULL;
	cJSON *o, *pre, *post;

	cr_assert_eq(
	    hook_claude_settings_merge(existing_settings, "/opt/dcg hook --agent claude", &out), 0);
	o = cJSON_Parse(out);
	cr_assert(o);
	cr_assert_str_eq(cJSON_GetObjectItem(o, "model")->valuestring, "opus");
	cr_assert(cJSON_GetObjectItem(o, "permissions"));
	pre = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "hooks"), "PreToolUse");
	post = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "hooks"), "PostToolUse");
	cr_assert_eq(cJSON_GetArraySize(pre), 2);
	cr_assert_eq(cJSON_GetArraySize(post), 1);
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(pre, 1), "matcher")->valuestring,
			 HOOK_CLAUDE_MATCHER);
	cr_assert(strstr(out, "/usr/bin/mine"));
	cJSON_Delete(o);
	free(out);
}

Test(settings, install_twice_changes_nothing)
{
	char *once = NULL, *twice = NULL;
	cJSON *parsed;

	cr_assert_eq(
	    hook_claude_settings_merge(existing_settings, "/opt/dcg hook --agent claude", &once),
	    0);
	cr_assert_eq(hook_claude_settings_merge(once, "/opt/dcg hook --agent claude", &twice), 1);
	cr_assert_null(twice);
	/* a moved binary updates the same entry instead of adding one */
	cr_assert_eq(
	    hook_claude_settings_merge(once, "/usr/local/bin/dcg hook --agent claude", &twice), 0);
	cr_assert_eq(strstr(twice, "/opt/dcg"), NULL);
	parsed = cJSON_Parse(twice);
	cr_assert_eq(cJSON_GetArraySize(
			 cJSON_GetObjectItem(cJSON_GetObjectItem(parsed, "hooks"), "PreToolUse")),
		     2);
	cJSON_Delete(parsed);
	free(once);
	free(twice);
}

Test(settings, install_into_missing_or_empty_file)
{
	const char *texts[] = {NULL, "", "  \n"};
	size_t i;

	for (i = 0; i < 3; i++) {
		char *out = NULL;
		cr_assert_eq(hook_claude_settings_merge(texts[i], "dcg hook --agent claude", &out),
			     0);
		cr_assert(strstr(out, "\"PreToolUse\""));
		cr_assert(strstr(out, "\"timeout\""));
		free(out);
	}
}

Test(settings, uninstall_removes_only_what_install_added)
{
	char *installed = NULL, *removed = NULL;
	cJSON *a, *b;

	cr_assert_eq(hook_claude_settings_merge(existing_settings,
						"'/my dir/dcg' hook --agent claude", &installed),
		     0);
	cr_assert_eq(hook_claude_settings_remove(installed, &removed), 0);
	a = cJSON_Parse(existing_settings);
	b = cJSON_Parse(removed);
	cr_assert(cJSON_Compare(a, b, 1), "%s", removed);
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(installed);
	free(removed);
	removed = NULL;
	cr_assert_eq(hook_claude_settings_remove(existing_settings, &removed), 1);
	cr_assert_eq(hook_claude_settings_remove("{}", &removed), 1);
}

Test(settings, uninstall_of_a_fresh_install_leaves_an_empty_object)
{
	char *installed = NULL, *removed = NULL;

	cr_assert_eq(hook_claude_settings_merge(NULL, "dcg hook --agent claude", &installed), 0);
	cr_assert_eq(hook_claude_settings_remove(installed, &removed), 0);
	cr_assert_str_eq(removed, "{\n}\n");
	free(installed);
	free(removed);
}

Test(settings, broken_settings_are_left_alone)
{
	char *out = NULL;

	cr_assert_eq(hook_claude_settings_merge("{\"hooks\": [", "dcg hook", &out), -EINVAL);
	cr_assert_eq(hook_claude_settings_merge("[]", "dcg hook", &out), -EINVAL);
	cr_assert_eq(hook_claude_settings_merge("{\"hooks\": 3}", "dcg hook", &out), -EINVAL);
	cr_assert_eq(hook_claude_settings_remove("nope", &out), -EINVAL);
	cr_assert_null(out);
}

Test(settings, dcg_commands_are_recognised)
{
	cr_assert(hook_is_dcg_command("dcg hook"));
	cr_assert(hook_is_dcg_command("/usr/local/bin/dcg hook --agent claude"));
	cr_assert(hook_is_dcg_command("'/my dir/dcg' hook --agent claude"));
	cr_assert_not(hook_is_dcg_command("/usr/bin/mine"));
	cr_assert_not(hook_is_dcg_command("notdcg hook"));
	cr_assert_not(hook_is_dcg_command("dcg hooked"));
}

/* ---- small pieces ------------------------------------------------------------------------- */

Test(utf8, validity)
{
	cr_assert(pol_utf8_valid("plain ascii, long enough to use the word loop", 45));
	cr_assert(pol_utf8_valid("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9));
	cr_assert_not(pol_utf8_valid("\xc3", 1));
	cr_assert_not(pol_utf8_valid("\xe0\x80\xaf", 3));
	cr_assert_not(pol_utf8_valid("\xf4\x90\x80\x80", 4));
	cr_assert_not(pol_utf8_valid("abcdefgh\x80", 9));
	/* NUL is a character, but not valid input, inside the eight-byte loop or not */
	cr_assert_not(pol_utf8_valid("ab\0cdefghijk", 12));
	cr_assert_not(pol_utf8_valid("abcdefghij\0", 11));
	cr_assert_eq(pol_utf8_char("\0", 1), 1);
	cr_assert_eq(pol_utf8_char("\xed\xa0\x80", 3), 0, "a surrogate");
	cr_assert_eq(pol_utf8_char("\xf0\x9f\x98\x80", 4), 4);
	cr_assert_eq(pol_utf8_char("\xf0\x9f\x98", 3), 0, "cut");
}

/* ---- mutated input ------------------------------------------------------------------ */

/* Byte flips, cuts and splices of Claude Code's real calls: the hook must neither crash
 * nor let a malformed call through. A fixed seed keeps failures reproducible. */
Test(bad_input, mutated_claude_calls_never_pass_when_malformed)
{
	static const char *const samples[] = {"pretooluse_Bash.json", "pretooluse_Read.json",
					      "pretooluse_Write.json", "pretooluse_Edit.json"};
	struct pol_policy *p = policy();
	unsigned long long seed = 0x9e3779b97f4a7c15ull;
	size_t s, k;

	for (s = 0; s < 4; s++) {
		char path[256], *orig;
		size_t len;

		snprintf(path, sizeof(path), "tests/golden/claude/%s", samples[s]);
		orig = slurp(path, &len);
		for (k = 0; k < 500; k++) {
			char *buf = malloc(len + 1);
			size_t n = len, flips, f;
			struct hook_call call;
			struct pol_result r;
			void *st = NULL;

			memcpy(buf, orig, len + 1);
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			flips = 1 + (seed >> 60);
			for (f = 0; f < flips; f++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				buf[(seed >> 33) % len] = (char)(seed >> 17);
			}
			if (k % 5 == 0)
				n = (seed >> 40) % len; /* cut short */
			hook_claude_parse(buf, n, &call, &st);
			hook_decide_call(p, &call, POL_CTX_KEEP_SCRIPT, &r);
			if (call.kind == HOOK_CALL_INVALID)
				cr_assert_eq(r.decision, POL_DENY, "%s mutation %zu passed",
					     samples[s], k);
			cr_assert(r.decision >= POL_ALLOW && r.decision <= POL_DENY);
			pol_result_release(&r);
			hook_claude_release(st);
			hook_call_release(&call);
			free(buf);
		}
		free(orig);
	}
	pol_free(p);
}
