/* common.c - the adapter library (agents.h): the input checks every protocol shares,
 * the file, search and command calls, the reason sentence, and the table of agents. */
#include "agents.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* ---- input checks ------------------------------------------------------------------- */

/* 1 when the JSON text holds an escaped NUL (\u0000): cJSON would cut the string
 * there and the policy would decide on less than the agent runs. */
static int has_escaped_nul(const char *s, size_t len)
{
	size_t i, bs;

	for (i = 0; i + 6 <= len; i++) {
		if (s[i] != '\\')
			continue;
		for (bs = 0; i + bs < len && s[i + bs] == '\\'; bs++)
			;
		if ((bs & 1) && i + bs + 5 <= len && s[i + bs] == 'u' &&
		    !memcmp(s + i + bs + 1, "0000", 4))
			return 1;
		i += bs - 1;
	}
	return 0;
}

void *hook_agents_begin(const char *buf, size_t len, struct hook_call *call, size_t state_size,
			void **state)
{
	cJSON **root;

	*state = calloc(1, state_size);
	if (!*state) {
		hook_call_init(call);
		hook_call_invalid(call, "dcg ran out of memory reading the call");
		return NULL;
	}
	root = *state; /* the first member of every adapter's state */
	*root = hook_agents_parse_input(buf, len, call);
	return call->kind == HOOK_CALL_INVALID ? NULL : *state;
}

struct cJSON *hook_agents_parse_input(const char *buf, size_t len, struct hook_call *call)
{
	cJSON *root;

	hook_call_init(call);
	call->kind = HOOK_CALL_INVALID;
	if (len == 0) {
		call->invalid = "the hook received no input (expected one JSON tool call)";
		return NULL;
	}
	if (memchr(buf, '\0', len)) {
		call->invalid = "the input contains a NUL byte";
		return NULL;
	}
	if (!pol_utf8_valid(buf, len)) {
		call->invalid = "the input is not valid UTF-8";
		return NULL;
	}
	if (has_escaped_nul(buf, len)) {
		call->invalid = "the input contains an escaped NUL character (\\u0000)";
		return NULL;
	}
	root = cJSON_ParseWithLength(buf, len);
	if (!root) {
		call->invalid = "the input is not valid JSON";
		return NULL;
	}
	if (!cJSON_IsObject(root)) {
		call->invalid = "the input is not a JSON object";
		return root;
	}
	call->kind = HOOK_CALL_OTHER;
	return root;
}

int hook_agents_tool_in(const char *const *list, const char *tool)
{
	for (; tool && *list; list++)
		if (!strcmp(*list, tool))
			return 1;
	return 0;
}

const char *hook_agents_str(const struct cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

void hook_agents_file(struct hook_call *call, const char *path, enum pol_op op)
{
	if (!path || !path[0]) {
		hook_call_invalid(call, "the tool call names no file path");
		return;
	}
	hook_call_add_path(call, path, op);
}

void hook_agents_search(struct hook_call *call, const char *dir, const char *glob, enum pol_op op)
{
	int n;

	if (!dir || !dir[0])
		dir = call->cwd && call->cwd[0] ? call->cwd : ".";
	if (hook_call_add_path(call, dir, op) < 0 || !glob || !glob[0])
		return;
	if (glob[0] == '/' || glob[0] == '~')
		n = snprintf(call->scratch[0], sizeof(call->scratch[0]), "%s", glob);
	else
		n = snprintf(call->scratch[0], sizeof(call->scratch[0]), "%s/%s", dir, glob);
	if (n < 0 || (size_t)n >= sizeof(call->scratch[0])) {
		hook_call_invalid(call, "the search pattern is too long to check");
		return;
	}
	hook_call_add_path(call, call->scratch[0], op);
}

void hook_agents_command(struct hook_call *call, const char *command)
{
	size_t len;

	if (!command) {
		hook_call_invalid(call, "the shell call has no command string");
		return;
	}
	len = strlen(command);
	if (len > HOOK_AGENT_MAX_COMMAND) {
		hook_call_invalid(call, "the command is too long to check (over 1 MiB)");
		return;
	}
	call->kind = HOOK_CALL_COMMAND;
	call->command = command;
	call->command_len = len;
}

static const char reason_oom[] = "dcg: this call is refused by dcg's policy";

char *hook_agents_reason(const struct pol_result *r)
{
	char *s = hook_agent_reason(r);

	return s ? s : (char *)reason_oom;
}

void hook_agents_reason_free(char *reason)
{
	if (reason != reason_oom)
		free(reason);
}

/* ---- the table ---------------------------------------------------------------------- */

static const struct hook_agent agents[] = {
    {"claude", hook_claude_parse, hook_claude_release, hook_claude_answer, hook_claude_install,
     hook_claude_uninstall, hook_claude_settings_path},
    {"codex", hook_codex_parse, hook_codex_release, hook_codex_answer, hook_codex_install,
     hook_codex_uninstall, hook_codex_settings_path},
    {"gemini", hook_gemini_parse, hook_gemini_release, hook_gemini_answer, hook_gemini_install,
     hook_gemini_uninstall, hook_gemini_settings_path},
    {"cursor", hook_cursor_parse, hook_cursor_release, hook_cursor_answer, hook_cursor_install,
     hook_cursor_uninstall, hook_cursor_settings_path},
    {"pi", hook_pi_parse, hook_pi_release, hook_pi_answer, hook_pi_install, hook_pi_uninstall,
     hook_pi_settings_path},
};

const struct hook_agent *hook_agent_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(agents) / sizeof(agents[0]); i++)
		if (!strcmp(agents[i].name, name))
			return &agents[i];
	return NULL;
}

size_t hook_agent_count(void)
{
	return sizeof(agents) / sizeof(agents[0]);
}

const struct hook_agent *hook_agent_get(size_t i)
{
	return i < hook_agent_count() ? &agents[i] : NULL;
}
