/* cursor.c - Cursor's agent hooks: beforeShellExecution, beforeReadFile and
 * preToolUse (.cursor/hooks.json).
 *
 * Cursor sends {"hook_event_name": ..., "command"/"file_path"/"tool_name"+"tool_input",
 * "cwd", "workspace_roots": [...]} and expects one JSON answer to every call:
 * {"permission": "allow"|"deny"|"ask", "user_message", "agent_message"} (the first
 * releases of hooks spelt the messages userMessage/agentMessage; dcg writes both).
 * beforeReadFile knows no "ask": an ask is a deny there. preToolUse answers also
 * carry "decision" (allow or deny) and "reason". So that every call gets an answer,
 * a call that touches nothing dcg checks becomes a path call with no paths, which
 * hook_decide_call() allows. */
#include "agents.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

enum cursor_event { EV_SHELL, EV_READ, EV_TOOL };

/* Write-like tools of preToolUse that the other two events do not cover. */
#define CURSOR_TOOL_MATCHER "Write|Edit|StrReplace|MultiEdit|Delete|Grep|Glob|LS"
#define CURSOR_TIMEOUT_S    30

struct cursor_state {
	cJSON *root;
};

/* The tool names of the two single-purpose events; answer() tells the events apart
 * by these very pointers (a preToolUse tool name points into the input). */
static const char tool_shell[] = "beforeShellExecution";
static const char tool_read[] = "beforeReadFile";

void hook_cursor_release(void *state)
{
	struct cursor_state *st = state;

	if (st) {
		cJSON_Delete(st->root);
		free(st);
	}
}

static const char *first_str(const cJSON *in, const char *const *keys)
{
	const char *v;

	for (; *keys; keys++)
		if ((v = hook_agents_str(in, *keys)) != NULL)
			return v;
	return NULL;
}

static const char *const file_keys[] = {"file_path", "target_file", "path", "filePath", NULL};
static const char *const dir_keys[] = {"path", "target_directory", "dir_path", "directory", NULL};

/* Nothing for dcg to check: an empty path call, allowed by the decision, answered. */
static void pass(struct hook_call *call)
{
	call->kind = HOOK_CALL_PATH;
	call->n_paths = 0;
}

static void tool_call(struct hook_call *call, const char *tool, const cJSON *in)
{
	if (!strcmp(tool, "Shell") || !strcmp(tool, "Bash") || !strcmp(tool, "Terminal")) {
		const char *cwd =
		    first_str(in, (const char *const[]){"cwd", "working_directory", NULL});
		if (cwd && cwd[0] == '/')
			call->cwd = cwd;
		hook_agents_command(call, hook_agents_str(in, "command"));
	} else if (!strcmp(tool, "Read")) {
		hook_agents_file(call, first_str(in, file_keys), POL_OP_READ);
	} else if (!strcmp(tool, "Write") || !strcmp(tool, "Edit") || !strcmp(tool, "StrReplace") ||
		   !strcmp(tool, "MultiEdit") || !strcmp(tool, "NotebookEdit")) {
		hook_agents_file(call, first_str(in, file_keys), POL_OP_WRITE);
	} else if (!strcmp(tool, "Delete")) {
		hook_agents_file(call, first_str(in, file_keys), POL_OP_DELETE);
	} else if (!strcmp(tool, "Grep")) {
		hook_agents_search(call, first_str(in, dir_keys), hook_agents_str(in, "glob"),
				   POL_OP_READ);
	} else if (!strcmp(tool, "Glob")) {
		hook_agents_search(
		    call, first_str(in, dir_keys),
		    first_str(in, (const char *const[]){"glob_pattern", "pattern", NULL}),
		    POL_OP_LIST);
	} else if (!strcmp(tool, "LS")) {
		hook_agents_search(call, first_str(in, dir_keys), NULL, POL_OP_LIST);
	} else {
		pass(call); /* Task, MCP tools, web search... */
	}
}

int hook_cursor_parse(const char *buf, size_t len, struct hook_call *call, void **state)
{
	struct cursor_state *st;
	const cJSON *roots, *in;
	const char *event, *tool;

	st = hook_agents_begin(buf, len, call, sizeof(*st), state);
	if (!st)
		return 0;
	event = hook_agents_str(st->root, "hook_event_name");
	call->cwd = hook_agents_str(st->root, "cwd");
	if (!call->cwd) {
		/* beforeReadFile and preToolUse carry no cwd: the first workspace root is
		 * where relative paths start. */
		roots = cJSON_GetObjectItemCaseSensitive(st->root, "workspace_roots");
		if (cJSON_IsArray(roots) && cJSON_IsString(cJSON_GetArrayItem(roots, 0)))
			call->cwd = cJSON_GetArrayItem(roots, 0)->valuestring;
	}
	if (!event) {
		call->kind = HOOK_CALL_INVALID;
		call->invalid = "the input has no hook_event_name";
		return 0;
	}
	if (!strcmp(event, "beforeShellExecution")) {
		call->tool = tool_shell;
		hook_agents_command(call, hook_agents_str(st->root, "command"));
	} else if (!strcmp(event, "beforeReadFile") || !strcmp(event, "beforeTabFileRead")) {
		call->tool = tool_read;
		hook_agents_file(call, hook_agents_str(st->root, "file_path"), POL_OP_READ);
	} else if (!strcmp(event, "preToolUse")) {
		tool = hook_agents_str(st->root, "tool_name");
		call->tool = tool;
		in = cJSON_GetObjectItemCaseSensitive(st->root, "tool_input");
		if (!tool || !tool[0]) {
			call->kind = HOOK_CALL_INVALID;
			call->invalid = "the input has no tool_name";
			return 0;
		}
		if (!cJSON_IsObject(in)) {
			call->kind = HOOK_CALL_INVALID;
			call->invalid = "the tool call has no tool_input object";
			return 0;
		}
		tool_call(call, tool, in);
	} else {
		/* beforeMCPExecution, beforeSubmitPrompt...: nothing dcg checks, but
		 * answered, since Cursor waits for an answer. */
		call->tool = event;
		pass(call);
	}
	return 0;
}

static const char *verdict(enum pol_decision d, int can_ask)
{
	if (d == POL_DENY || (d == POL_ASK && !can_ask))
		return "deny";
	return d == POL_ASK ? "ask" : "allow";
}

char *hook_cursor_answer(const struct hook_answer *a, int *exit_code)
{
	const struct pol_result *r = a->result;
	enum cursor_event ev = EV_TOOL;
	struct hook_buf user = HOOK_BUF_INIT, agent = HOOK_BUF_INIT;
	cJSON *root;
	char *reason = NULL, *out = NULL;
	const char *perm;
	int refused = r->decision == POL_DENY || r->decision == POL_ASK;

	*exit_code = 0;
	if (a->call && a->call->tool == tool_shell)
		ev = EV_SHELL;
	else if (a->call && a->call->tool == tool_read)
		ev = EV_READ;
	perm = verdict(r->decision, ev != EV_READ);
	root = cJSON_CreateObject();
	if (!root)
		goto out;
	cJSON_AddStringToObject(root, "permission", perm);
	if (refused) {
		reason = hook_agents_reason(r);
		hook_buf_addf(
		    &user, "dcg %s: %s (rule %s)",
		    r->decision == POL_ASK && ev != EV_READ ? "asks to confirm" : "blocked",
		    r->reason ? r->reason : "refused by policy", r->rule_id ? r->rule_id : "?");
		hook_buf_adds(&agent, reason);
		if (r->decision == POL_ASK && ev == EV_READ)
			hook_buf_adds(&agent,
				      " This read needs the user's confirmation, which Cursor "
				      "cannot ask for here: it is refused.");
		if (user.oom || agent.oom)
			goto out;
		cJSON_AddStringToObject(root, "user_message", user.s);
		cJSON_AddStringToObject(root, "agent_message", agent.s);
		cJSON_AddStringToObject(root, "userMessage", user.s);
		cJSON_AddStringToObject(root, "agentMessage", agent.s);
	}
	if (ev == EV_TOOL) {
		cJSON_AddStringToObject(root, "decision", refused ? "deny" : "allow");
		if (refused)
			cJSON_AddStringToObject(root, "reason", agent.s);
	}
	out = cJSON_PrintUnformatted(root);
out:
	if (!out && refused)
		*exit_code = 2; /* no memory for the answer: exit 2 still refuses */
	cJSON_Delete(root);
	hook_buf_release(&user);
	hook_buf_release(&agent);
	if (reason)
		hook_agents_reason_free(reason);
	return out;
}

static const struct hook_agents_reg cursor_regs[] = {
    {"beforeShellExecution", NULL, CURSOR_TIMEOUT_S, NULL, 1, 1},
    {"beforeReadFile", NULL, CURSOR_TIMEOUT_S, NULL, 1, 1},
    {"preToolUse", CURSOR_TOOL_MATCHER, CURSOR_TIMEOUT_S, NULL, 1, 1},
};

int hook_cursor_install(const char *settings_path, const char *command, char *msg, size_t msgsize)
{
	return hook_agents_install_file(settings_path, cursor_regs,
					sizeof(cursor_regs) / sizeof(cursor_regs[0]), command,
					"{\"version\":1}", "cursor", msg, msgsize);
}

int hook_cursor_uninstall(const char *settings_path, char *msg, size_t msgsize)
{
	return hook_agents_uninstall_file(settings_path, "cursor", msg, msgsize);
}

int hook_cursor_settings_path(int user, const char *cwd, char *out, size_t size)
{
	return hook_agents_settings_path(user, cwd, ".cursor/hooks.json", out, size);
}
