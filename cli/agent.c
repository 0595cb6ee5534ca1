/* agent.c - the table of agent protocols, and Claude Code's input side.
 *
 * Each agent is an adapter over hook_decide_call(): parse its tool call into a
 * struct hook_call, answer the decision in its protocol, edit its settings file.
 * Codex, Gemini CLI, Cursor and pi have theirs in agent_*.c. */
#include "hook.h"

#include "agents.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A command longer than this is refused rather than analysed: no real agent command
 * is this long, and the time budget of a hook call holds for any input. */
#define HOOK_MAX_COMMAND (1024 * 1024)

int hook_claude_parse(const char *buf, size_t len, struct hook_call *call, void **state)
{
	cJSON *root = NULL;
	const cJSON *tool, *input, *cwd, *event;

	*state = NULL;
	/* The checks every protocol shares: empty, NUL bytes, invalid UTF-8, an escaped
	 * NUL, not JSON, not an object (agent_codex.c). */
	root = hook_agents_parse_input(buf, len, call);
	*state = root;
	if (!root || !cJSON_IsObject(root))
		return 0;
	call->kind = HOOK_CALL_INVALID;
	event = cJSON_GetObjectItemCaseSensitive(root, "hook_event_name");
	tool = cJSON_GetObjectItemCaseSensitive(root, "tool_name");
	input = cJSON_GetObjectItemCaseSensitive(root, "tool_input");
	cwd = cJSON_GetObjectItemCaseSensitive(root, "cwd");
	if (cJSON_IsString(event) && strcmp(event->valuestring, "PreToolUse") != 0) {
		/* dcg answers PreToolUse only; another event carries no tool call to stop. */
		call->kind = HOOK_CALL_OTHER;
		return 0;
	}
	if (!cJSON_IsString(tool) || !tool->valuestring[0]) {
		call->invalid = "the input has no tool_name";
		return 0;
	}
	hook_call_from_claude(tool->valuestring, input,
			      cJSON_IsString(cwd) ? cwd->valuestring : NULL, call);
	/* the intent selection may be per agent session (cli/cmd_intent.c) */
	call->session_id =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "session_id"));
	if (call->kind == HOOK_CALL_COMMAND && call->command_len > HOOK_MAX_COMMAND) {
		call->kind = HOOK_CALL_INVALID;
		call->invalid = "the command is too long to check (over 1 MiB)";
	}
	return 0;
}

void hook_claude_release(void *state)
{
	cJSON_Delete(state);
}

/* Claude Code reads ~/.claude/settings.json (user) and .claude/settings.json in the
 * project. */
static int claude_settings_path(int user, const char *cwd, char *out, size_t size)
{
	const char *home = getenv("HOME");
	int n;

	if (user) {
		if (!home || !home[0])
			return -ENOENT;
		n = snprintf(out, size, "%s/.claude/settings.json", home);
	} else {
		n = snprintf(out, size, "%s/.claude/settings.json", cwd ? cwd : ".");
	}
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int claude_install(const char *settings_path, const char *command, char *msg,
			  size_t msgsize);
static int claude_uninstall(const char *settings_path, char *msg, size_t msgsize);

static const struct hook_agent agents[] = {
    {"claude", hook_claude_parse, hook_claude_release, hook_claude_answer, claude_install,
     claude_uninstall, claude_settings_path},
    /* issue 7: same decision, their protocols */
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

/* ---- settings.json ------------------------------------------------------------------ */

static int claude_install(const char *settings_path, const char *command, char *msg, size_t msgsize)
{
	char *text = NULL, *out = NULL;
	size_t len;
	int err, rc;

	err = hook_read_file(settings_path, 16 * 1024 * 1024, &text, &len);
	if (err && err != -ENOENT) {
		snprintf(msg, msgsize, "cannot read %s: %s", settings_path, strerror(-err));
		return err;
	}
	rc = hook_claude_settings_merge(text, command, &out);
	if (rc < 0) {
		snprintf(msg, msgsize, "%s is not a JSON object; left it unchanged", settings_path);
		goto out;
	}
	if (rc == 1) {
		snprintf(msg, msgsize, "dcg hook already installed in %s", settings_path);
		goto out;
	}
	err = hook_write_atomic(settings_path, out, strlen(out), 0644);
	if (err) {
		snprintf(msg, msgsize, "cannot write %s: %s", settings_path, strerror(-err));
		rc = err;
		goto out;
	}
	snprintf(msg, msgsize, "dcg hook installed in %s", settings_path);
out:
	free(text);
	free(out);
	return rc < 0 ? rc : 0;
}

static int claude_uninstall(const char *settings_path, char *msg, size_t msgsize)
{
	char *text = NULL, *out = NULL;
	size_t len;
	int err, rc;

	err = hook_read_file(settings_path, 16 * 1024 * 1024, &text, &len);
	if (err == -ENOENT) {
		snprintf(msg, msgsize, "no %s: nothing to remove", settings_path);
		return 0;
	}
	if (err) {
		snprintf(msg, msgsize, "cannot read %s: %s", settings_path, strerror(-err));
		return err;
	}
	rc = hook_claude_settings_remove(text, &out);
	if (rc < 0) {
		snprintf(msg, msgsize, "%s is not a JSON object; left it unchanged", settings_path);
		goto out;
	}
	if (rc == 1) {
		snprintf(msg, msgsize, "no dcg hook in %s: nothing to remove", settings_path);
		goto out;
	}
	err = hook_write_atomic(settings_path, out, strlen(out), 0644);
	if (err) {
		snprintf(msg, msgsize, "cannot write %s: %s", settings_path, strerror(-err));
		rc = err;
		goto out;
	}
	snprintf(msg, msgsize, "dcg hook removed from %s", settings_path);
out:
	free(text);
	free(out);
	return rc < 0 ? rc : 0;
}
