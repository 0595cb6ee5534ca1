/* claude.c - Claude Code's PreToolUse hook: its tool names as policy questions, its
 * settings.json (~/.claude/settings.json, .claude/settings.json). Its answer is
 * hook_claude_answer() (message.c, with the other JSON dcg writes). */
#include "agents.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Claude Code's own limit for a hook, in seconds. dcg answers in about a millisecond
 * and denies by itself long before this (see cmd_hook's alarm), because a hook that
 * times out lets the tool run. */
#define CLAUDE_TIMEOUT 30

/* Claude Code's tools that only read: an intent never confines them. */
static const char *const read_only_tools[] = {
    "Read",	"Glob",	     "Grep", "LS",	     "NotebookRead", "WebFetch", "WebSearch",
    "TodoRead", "TodoWrite", "Task", "ExitPlanMode", "BashOutput",   NULL,
};

void hook_call_from_claude(const char *tool, const void *tool_input, const char *cwd,
			   struct hook_call *call)
{
	const cJSON *in = tool_input;

	hook_call_init(call);
	call->tool = tool;
	call->cwd = cwd;
	if (!tool || !tool[0]) {
		hook_call_invalid(call, "the tool call has no tool_name");
		return;
	}
	if (!strcasecmp(tool, "Bash")) {
		if (!cJSON_IsObject(in)) {
			hook_call_invalid(call, "the Bash call has no tool_input object");
			return;
		}
		hook_agents_command(call, hook_agents_str(in, "command"));
		if (call->kind == HOOK_CALL_INVALID && !hook_agents_str(in, "command"))
			call->invalid = "the Bash call has no command string";
		return;
	}
	if (!strcasecmp(tool, "Read") || !strcasecmp(tool, "Write") || !strcasecmp(tool, "Edit") ||
	    !strcasecmp(tool, "MultiEdit") || !strcasecmp(tool, "NotebookEdit") ||
	    !strcasecmp(tool, "Glob") || !strcasecmp(tool, "Grep") || !strcasecmp(tool, "LS")) {
		if (!cJSON_IsObject(in)) {
			hook_call_invalid(call, "the tool call has no tool_input object");
			return;
		}
	}
	if (!strcasecmp(tool, "Read"))
		hook_agents_file(call, hook_agents_str(in, "file_path"), POL_OP_READ);
	else if (!strcasecmp(tool, "Write") || !strcasecmp(tool, "Edit") ||
		 !strcasecmp(tool, "MultiEdit"))
		hook_agents_file(call, hook_agents_str(in, "file_path"), POL_OP_WRITE);
	else if (!strcasecmp(tool, "NotebookEdit"))
		hook_agents_file(call, hook_agents_str(in, "notebook_path"), POL_OP_WRITE);
	else if (!strcasecmp(tool, "Glob"))
		hook_agents_search(call, hook_agents_str(in, "path"),
				   hook_agents_str(in, "pattern"), POL_OP_LIST);
	else if (!strcasecmp(tool, "Grep"))
		hook_agents_search(call, hook_agents_str(in, "path"), hook_agents_str(in, "glob"),
				   POL_OP_READ);
	else if (!strcasecmp(tool, "LS"))
		hook_agents_search(call, hook_agents_str(in, "path"), NULL, POL_OP_LIST);
	else
		call->tool_reads_only = hook_agents_tool_in(read_only_tools, tool);
}

int hook_claude_parse(const char *buf, size_t len, struct hook_call *call, void **state)
{
	cJSON *root;
	const char *event, *tool, *cwd;

	/* The checks every protocol shares: empty, NUL bytes, invalid UTF-8, an escaped
	 * NUL, not JSON, not an object. */
	root = hook_agents_parse_input(buf, len, call);
	*state = root;
	if (call->kind == HOOK_CALL_INVALID)
		return 0;
	event = hook_agents_str(root, "hook_event_name");
	if (event && strcmp(event, "PreToolUse") != 0)
		return 0; /* OTHER: dcg answers PreToolUse only */
	tool = hook_agents_str(root, "tool_name");
	if (!tool || !tool[0]) {
		hook_call_invalid(call, "the input has no tool_name");
		return 0;
	}
	cwd = hook_agents_str(root, "cwd");
	hook_call_from_claude(tool, cJSON_GetObjectItemCaseSensitive(root, "tool_input"), cwd,
			      call);
	/* the intent selection may be per agent session (cli/cmd_intent.c) */
	call->session_id = hook_agents_str(root, "session_id");
	return 0;
}

void hook_claude_release(void *state)
{
	cJSON_Delete(state);
}

static const struct hook_agents_reg claude_regs[] = {
    {"PreToolUse", HOOK_CLAUDE_MATCHER, CLAUDE_TIMEOUT, NULL, 0, 0},
};

int hook_claude_settings_merge(const char *text, const char *command, char **out)
{
	return hook_agents_settings_merge(text, claude_regs, 1, command, NULL, out);
}

int hook_claude_settings_remove(const char *text, char **out)
{
	return hook_agents_settings_remove(text, out);
}

int hook_claude_install(const char *settings_path, const char *command, char *msg, size_t msgsize)
{
	return hook_agents_install_file(settings_path, claude_regs, 1, command, NULL, "claude", msg,
					msgsize);
}

#define SHELL_PREFIX_VAR "CLAUDE_CODE_SHELL_PREFIX"

static int is_dcg_prefix(const char *v)
{
	const char *opt = v ? strstr(v, " --shell-prefix") : NULL;

	return opt && opt[15] == '\0' && (opt - v >= 3 && !memcmp(opt - 3, "dcg", 3));
}

static int prefix_edit(const char *text, void *arg, char **out)
{
	const char *value = arg;
	cJSON *root = text && *text ? cJSON_Parse(text) : cJSON_CreateObject();
	cJSON *env, *have;
	int rc = 1;

	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return -EINVAL;
	}
	env = cJSON_GetObjectItemCaseSensitive(root, "env");
	if (env && !cJSON_IsObject(env)) {
		cJSON_Delete(root);
		return -EINVAL;
	}
	have = env ? cJSON_GetObjectItemCaseSensitive(env, SHELL_PREFIX_VAR) : NULL;
	if (value) {
		if (!env && !(env = cJSON_AddObjectToObject(root, "env")))
			rc = -ENOMEM;
		else if (!cJSON_IsString(have) || strcmp(have->valuestring, value) != 0) {
			if (have && !is_dcg_prefix(cJSON_IsString(have) ? have->valuestring : NULL))
				rc = -EEXIST; /* another program's prefix: left alone */
			else {
				cJSON_DeleteItemFromObjectCaseSensitive(env, SHELL_PREFIX_VAR);
				rc = cJSON_AddStringToObject(env, SHELL_PREFIX_VAR, value)
					 ? 0
					 : -ENOMEM;
			}
		}
	} else if (cJSON_IsString(have) && is_dcg_prefix(have->valuestring)) {
		cJSON_DeleteItemFromObjectCaseSensitive(env, SHELL_PREFIX_VAR);
		if (!env->child)
			cJSON_DeleteItemFromObjectCaseSensitive(root, "env");
		rc = 0;
	}
	if (rc == 0) {
		*out = cJSON_Print(root);
		if (!*out)
			rc = -ENOMEM;
	}
	cJSON_Delete(root);
	return rc;
}

int hook_claude_shell_prefix(const char *settings_path, const char *value, char *msg,
			     size_t msgsize)
{
	int rc = hook_agents_edit_file(settings_path, 16 * 1024 * 1024, prefix_edit, (void *)value,
				       msg, msgsize);

	if (rc == -EEXIST)
		snprintf(msg, msgsize, "%s: env.%s is another program's: left alone", settings_path,
			 SHELL_PREFIX_VAR);
	else if (rc == -EINVAL)
		snprintf(msg, msgsize, "%s: not a settings object: left alone", settings_path);
	else if (rc >= 0)
		snprintf(msg, msgsize, "%s: %s %s", settings_path,
			 value ? (rc ? "shell prefix already" : "shell prefix set:")
			       : (rc ? "no dcg shell prefix" : "shell prefix removed"),
			 value ? value : "");
	return rc;
}

int hook_claude_uninstall(const char *settings_path, char *msg, size_t msgsize)
{
	return hook_agents_uninstall_file(settings_path, "claude", msg, msgsize);
}

int hook_claude_settings_path(int user, const char *cwd, char *out, size_t size)
{
	return hook_agents_settings_path(user, cwd, ".claude/settings.json", out, size);
}
