/* gemini.c - Gemini CLI's BeforeTool hook.
 *
 * Gemini CLI sends {"hook_event_name": "BeforeTool", "tool_name": ..., "tool_input":
 * ..., "cwd": ...} and reads {"decision": "deny"|"block"|"ask", "reason": ...,
 * "systemMessage": ...} from stdout (dcg answers deny only: see the answer) (an empty stdout with exit 0 lets the call run;
 * exit 2 turns stderr into a deny). Its hook timeouts are in milliseconds. */
#include "agents.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* The tools dcg registers for: every built-in that runs a command or names a path. */
#define GEMINI_MATCHER                                                                          \
	"^(run_shell_command|write_file|replace|read_file|read_many_files|list_directory|glob|" \
	"grep_search)$"
#define GEMINI_TIMEOUT_MS 30000

/* Gemini CLI's tools that only read: an intent never confines them. */
static const char *const read_only_tools[] = {
    "read_file",	   "read_many_files", "list_directory",	   "glob", "grep_search",
    "search_file_content", "web_fetch",	      "google_web_search", NULL,
};

struct gemini_state {
	cJSON *root;
};

void hook_gemini_release(void *state)
{
	struct gemini_state *st = state;

	if (st) {
		cJSON_Delete(st->root);
		free(st);
	}
}

/* A path member under one of two names (Gemini CLI renamed some over time). */
static const char *path_of(const cJSON *in, const char *key, const char *old_key)
{
	const char *p = hook_agents_str(in, key);

	return p ? p : (old_key ? hook_agents_str(in, old_key) : NULL);
}

static void read_many(struct hook_call *call, const cJSON *in)
{
	const cJSON *inc = cJSON_GetObjectItemCaseSensitive(in, "include"), *it;

	if (!inc)
		inc = cJSON_GetObjectItemCaseSensitive(in, "paths");
	if (cJSON_IsString(inc)) {
		hook_agents_file(call, inc->valuestring, POL_OP_READ);
		return;
	}
	if (!cJSON_IsArray(inc) || cJSON_GetArraySize(inc) == 0) {
		hook_call_invalid(call, "the read_many_files call names no files");
		return;
	}
	cJSON_ArrayForEach(it, inc)
	{
		if (!cJSON_IsString(it) || !it->valuestring[0]) {
			hook_call_invalid(call, "the read_many_files call has an include entry "
						"that is not a path");
			return;
		}
	}
	/* Every pattern is checked. */
	cJSON_ArrayForEach(it, inc)
	{
		hook_agents_file(call, it->valuestring, POL_OP_READ);
		if (call->kind == HOOK_CALL_INVALID)
			return;
	}
}

static void shell_call(struct hook_call *call, const cJSON *in)
{
	const char *dir = hook_agents_str(in, "dir_path");
	int n;

	if (!dir)
		dir = hook_agents_str(in, "directory");
	/* The command runs in dir_path (relative to the project): decide it there. */
	if (dir && dir[0]) {
		if (dir[0] == '/' || !call->cwd)
			n = snprintf(call->scratch[1], sizeof(call->scratch[1]), "%s", dir);
		else
			n = snprintf(call->scratch[1], sizeof(call->scratch[1]), "%s/%s", call->cwd,
				     dir);
		if (n < 0 || (size_t)n >= sizeof(call->scratch[1])) {
			call->kind = HOOK_CALL_INVALID;
			call->invalid = "the shell call's dir_path is too long to check";
			return;
		}
		call->cwd = call->scratch[1];
	}
	hook_agents_command(call, hook_agents_str(in, "command"));
}

int hook_gemini_parse(const char *buf, size_t len, struct hook_call *call, void **state)
{
	struct gemini_state *st;
	const cJSON *in;
	const char *event, *tool;

	st = hook_agents_begin(buf, len, call, sizeof(*st), state);
	if (!st)
		return 0;
	event = hook_agents_str(st->root, "hook_event_name");
	if (event && strcmp(event, "BeforeTool") != 0)
		return 0; /* OTHER: dcg answers BeforeTool only */
	tool = hook_agents_str(st->root, "tool_name");
	call->tool = tool;
	call->cwd = hook_agents_str(st->root, "cwd");
	call->session_id = hook_agents_str(st->root, "session_id"); /* intent selection */
	if (!tool || !tool[0]) {
		call->kind = HOOK_CALL_INVALID;
		call->invalid = "the input has no tool_name";
		return 0;
	}
	in = cJSON_GetObjectItemCaseSensitive(st->root, "tool_input");
	if (!strcmp(tool, "run_shell_command") || !strcmp(tool, "write_file") ||
	    !strcmp(tool, "replace") || !strcmp(tool, "read_file") ||
	    !strcmp(tool, "read_many_files") || !strcmp(tool, "list_directory") ||
	    !strcmp(tool, "glob") || !strcmp(tool, "grep_search") ||
	    !strcmp(tool, "search_file_content")) {
		if (!cJSON_IsObject(in)) {
			call->kind = HOOK_CALL_INVALID;
			call->invalid = "the tool call has no tool_input object";
			return 0;
		}
	} else {
		/* OTHER: web_fetch, MCP tools, ... touch no command or path */
		call->tool_reads_only = hook_agents_tool_in(read_only_tools, tool);
		return 0;
	}
	if (!strcmp(tool, "run_shell_command"))
		shell_call(call, in);
	else if (!strcmp(tool, "write_file") || !strcmp(tool, "replace"))
		hook_agents_file(call, path_of(in, "file_path", "absolute_path"), POL_OP_WRITE);
	else if (!strcmp(tool, "read_file"))
		hook_agents_file(call, path_of(in, "file_path", "absolute_path"), POL_OP_READ);
	else if (!strcmp(tool, "read_many_files"))
		read_many(call, in);
	else if (!strcmp(tool, "list_directory"))
		hook_agents_search(call, path_of(in, "dir_path", "path"), NULL, POL_OP_LIST);
	else if (!strcmp(tool, "glob"))
		hook_agents_search(call, path_of(in, "dir_path", "path"),
				   hook_agents_str(in, "pattern"), POL_OP_LIST);
	else /* grep_search, search_file_content */
		hook_agents_search(call, path_of(in, "dir_path", "path"),
				   path_of(in, "include_pattern", "include"), POL_OP_READ);
	return 0;
}

char *hook_gemini_answer(const struct hook_answer *a, int *exit_code)
{
	const struct pol_result *r = a->result;
	struct hook_buf sys = HOOK_BUF_INIT, why = HOOK_BUF_INIT;
	cJSON *root;
	char *reason, *out = NULL;

	*exit_code = 0;
	if (r->decision != POL_DENY && r->decision != POL_ASK)
		return NULL; /* empty stdout, exit 0: the call goes on */
	reason = hook_agents_reason(r);
	hook_buf_adds(&why, reason);
	/* Gemini CLI knows "ask", but `gemini -p` then waits for a confirmation no one
	 * can give, for ever (seen with 0.61.0): an ask is a deny that says so. */
	if (r->decision == POL_ASK)
		hook_buf_adds(&why,
			      ". This call needs the user's confirmation, which a hook cannot "
			      "ask for in Gemini CLI: it is refused. The user must confirm it: "
			      "run it themselves, or allow the rule as above.");
	hook_buf_addf(&sys, "dcg blocked %s: %s%s",
		      a->call && a->call->tool ? a->call->tool : "this call",
		      r->reason ? r->reason : "refused by policy",
		      r->decision == POL_ASK ? " (needs the user's confirmation)" : "");
	root = cJSON_CreateObject();
	if (!root || sys.oom || why.oom)
		goto out;
	cJSON_AddStringToObject(root, "decision", "deny");
	cJSON_AddStringToObject(root, "reason", why.s);
	cJSON_AddStringToObject(root, "systemMessage", sys.s);
	out = cJSON_PrintUnformatted(root);
out:
	if (!out)
		*exit_code = 2; /* Gemini CLI turns exit 2 and stderr into a deny */
	cJSON_Delete(root);
	hook_buf_release(&sys);
	hook_buf_release(&why);
	hook_agents_reason_free(reason);
	return out;
}

static const struct hook_agents_reg gemini_regs[] = {
    {"BeforeTool", GEMINI_MATCHER, GEMINI_TIMEOUT_MS, "dcg", 0, 0},
};

int hook_gemini_install(const char *settings_path, const char *command, char *msg, size_t msgsize)
{
	return hook_agents_install_file(settings_path, gemini_regs, 1, command, NULL, "gemini", msg,
					msgsize);
}

int hook_gemini_uninstall(const char *settings_path, char *msg, size_t msgsize)
{
	return hook_agents_uninstall_file(settings_path, "gemini", msg, msgsize);
}

int hook_gemini_settings_path(int user, const char *cwd, char *out, size_t size)
{
	return hook_agents_settings_path(user, cwd, ".gemini/settings.json", out, size);
}
