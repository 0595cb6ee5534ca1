/* call.c - a tool call as policy questions, and the one decision every agent adapter
 * shares. */
#include "hook.h"

#include <cjson/cJSON.h>
#include <string.h>

static const char *str_member(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

static void set_invalid(struct hook_call *call, const char *why)
{
	call->kind = HOOK_CALL_INVALID;
	call->invalid = why;
	call->n_paths = 0;
}

static void add_path(struct hook_call *call, const char *path, enum pol_op op)
{
	if (call->n_paths < HOOK_CALL_MAX_PATHS) {
		call->paths[call->n_paths] = path;
		call->ops[call->n_paths] = op;
		call->n_paths++;
	}
}

/* A file tool: key names the path; missing or empty is malformed. */
static void file_tool(struct hook_call *call, const cJSON *in, const char *key, enum pol_op op)
{
	const char *path = str_member(in, key);

	if (!path || !path[0]) {
		set_invalid(call, "the tool call names no file path");
		return;
	}
	call->kind = HOOK_CALL_PATH;
	add_path(call, path, op);
}

/* A search tool: its folder (default: the call's cwd) and, joined to it, its glob, so
 * that a glob such as "*.pem" or "~/.ssh/ *" meets the path rules as a name. */
static void search_tool(struct hook_call *call, const cJSON *in, const char *glob_key,
			enum pol_op op)
{
	const char *dir = str_member(in, "path");
	const char *glob = glob_key ? str_member(in, glob_key) : NULL;
	int n;

	if (!dir || !dir[0])
		dir = call->cwd && call->cwd[0] ? call->cwd : ".";
	call->kind = HOOK_CALL_PATH;
	add_path(call, dir, op);
	if (!glob || !glob[0])
		return;
	if (glob[0] == '/' || glob[0] == '~')
		n = snprintf(call->scratch[0], sizeof(call->scratch[0]), "%s", glob);
	else
		n = snprintf(call->scratch[0], sizeof(call->scratch[0]), "%s/%s", dir, glob);
	if (n < 0 || (size_t)n >= sizeof(call->scratch[0])) {
		set_invalid(call, "the search pattern is too long to check");
		return;
	}
	add_path(call, call->scratch[0], op);
}

void hook_call_from_claude(const char *tool, const void *tool_input, const char *cwd,
			   struct hook_call *call)
{
	const cJSON *in = tool_input;
	const cJSON *cmd;

	memset(call, 0, offsetof(struct hook_call, scratch));
	call->scratch[0][0] = call->scratch[1][0] = '\0';
	call->tool = tool;
	call->cwd = cwd;
	if (!tool || !tool[0]) {
		set_invalid(call, "the tool call has no tool_name");
		return;
	}
	if (!strcmp(tool, "Bash")) {
		if (!cJSON_IsObject(in)) {
			set_invalid(call, "the Bash call has no tool_input object");
			return;
		}
		cmd = cJSON_GetObjectItemCaseSensitive(in, "command");
		if (!cJSON_IsString(cmd) || !cmd->valuestring) {
			set_invalid(call, "the Bash call has no command string");
			return;
		}
		call->kind = HOOK_CALL_COMMAND;
		call->command = cmd->valuestring;
		call->command_len = strlen(cmd->valuestring);
		return;
	}
	if (!strcmp(tool, "Read") || !strcmp(tool, "Write") || !strcmp(tool, "Edit") ||
	    !strcmp(tool, "MultiEdit") || !strcmp(tool, "NotebookEdit") || !strcmp(tool, "Glob") ||
	    !strcmp(tool, "Grep") || !strcmp(tool, "LS")) {
		if (!cJSON_IsObject(in)) {
			set_invalid(call, "the tool call has no tool_input object");
			return;
		}
	}
	if (!strcmp(tool, "Read"))
		file_tool(call, in, "file_path", POL_OP_READ);
	else if (!strcmp(tool, "Write") || !strcmp(tool, "Edit") || !strcmp(tool, "MultiEdit"))
		file_tool(call, in, "file_path", POL_OP_WRITE);
	else if (!strcmp(tool, "NotebookEdit"))
		file_tool(call, in, "notebook_path", POL_OP_WRITE);
	else if (!strcmp(tool, "Glob"))
		search_tool(call, in, "pattern", POL_OP_LIST);
	else if (!strcmp(tool, "Grep"))
		search_tool(call, in, "glob", POL_OP_READ);
	else if (!strcmp(tool, "LS"))
		search_tool(call, in, NULL, POL_OP_LIST);
	else
		call->kind = HOOK_CALL_OTHER;
}

void hook_result_refuse(struct pol_result *r, const char *rule_id, const char *reason)
{
	static const char *const sugg_input[] = {
	    "Send one well-formed tool call: a JSON object with tool_name and tool_input, valid "
	    "UTF-8, no NUL bytes",
	};
	static const char *const sugg_internal[] = {
	    "Retry the call; if it keeps failing, run `dcg status` to see what is wrong",
	};

	pol_result_release(r);
	pol_result_init(r);
	r->decision = POL_DENY;
	r->severity = POL_SEV_CRITICAL;
	r->detection = POL_DET_NONE;
	r->rule_id = rule_id;
	r->reason = reason;
	if (!strcmp(rule_id, HOOK_RULE_INTERNAL))
		r->suggestions = sugg_internal;
	else
		r->suggestions = sugg_input;
	r->n_suggestions = 1;
}

enum pol_decision hook_decide_call(const struct pol_policy *p, const struct hook_call *call,
				   unsigned flags, struct pol_result *r)
{
	struct pol_ctx ctx;
	struct pol_result tmp;
	size_t i;

	pol_result_init(r);
	if (call->kind == HOOK_CALL_OTHER) {
		hook_intent_apply(p, call, r); /* a destructive tool dcg cannot see into */
		return r->decision;
	}
	if (call->kind == HOOK_CALL_INVALID) {
		hook_result_refuse(r, HOOK_RULE_BAD_INPUT, call->invalid);
		return r->decision;
	}
	if (!p) {
		hook_result_refuse(r, HOOK_RULE_INTERNAL,
				   "dcg could not build its policy (out of memory)");
		return r->decision;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.cwd = call->cwd && call->cwd[0] == '/' ? call->cwd : NULL;
	ctx.flags = flags;
	if (call->kind == HOOK_CALL_COMMAND) {
		pol_check_command(p, call->command, call->command_len, &ctx, r);
		hook_intent_apply(p, call, r);
		return r->decision;
	}

	for (i = 0; i < call->n_paths; i++) {
		pol_result_init(&tmp);
		pol_check_path(p, call->paths[i], call->ops[i], 0, &ctx, &tmp);
		if (tmp.decision > r->decision) {
			pol_result_release(r);
			*r = tmp;
		} else {
			pol_result_release(&tmp);
		}
	}
	hook_intent_apply(p, call, r);
	return r->decision;
}
