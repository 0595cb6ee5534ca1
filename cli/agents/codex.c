/* codex.c - Codex CLI's PreToolUse hook.
 *
 * Codex sends Claude Code's PreToolUse shape with tool_name "Bash" (tool_input.command
 * a string) or "apply_patch" (the whole patch in tool_input.command). Its output
 * schema has additionalProperties false and refuses permissionDecision "ask" and
 * "allow" and a deny without a reason, so dcg answers only a deny, with a reason,
 * and nothing at all for an allowed call. */
#include "agents.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- apply_patch ------------------------------------------------------------------------- */

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/* When line [p, e) starts with marker, the trimmed rest into path and plen. */
static int marker(const char *p, const char *e, const char *m, const char **path, size_t *plen)
{
	size_t ml = strlen(m);

	if ((size_t)(e - p) < ml || memcmp(p, m, ml) != 0)
		return 0;
	p += ml;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*path = p;
	*plen = (size_t)(e - p);
	return 1;
}

long hook_codex_patch_files(const char *patch, size_t len, struct hook_patch_file *out, size_t max)
{
	const char *p = patch, *end = patch + len, *e, *path;
	size_t n = 0, plen;
	int begun = 0;
	long last_update = -1;

	for (; p < end; p = e + 1) {
		enum pol_op op;
		const char *q = p;
		int add = 0;

		e = line_end(p, end);
		while (q < e && (*q == ' ' || *q == '\t'))
			q++;
		if (!begun) {
			if ((size_t)(e - q) >= 15 && !memcmp(q, "*** Begin Patch", 15))
				begun = 1;
			continue;
		}
		if (marker(q, e, "*** Add File:", &path, &plen))
			op = POL_OP_WRITE, add = 1; /* a new file is a write: it may replace one */
		else if (marker(q, e, "*** Update File:", &path, &plen))
			op = POL_OP_WRITE;
		else if (marker(q, e, "*** Delete File:", &path, &plen))
			op = POL_OP_DELETE;
		else if (marker(q, e, "*** Move to:", &path, &plen))
			op = POL_OP_RENAME_TO;
		else
			continue;
		if (!plen)
			return -EINVAL;
		if (op == POL_OP_RENAME_TO) {
			/* The file being updated moves away: a rename from it. */
			if (last_update >= 0 && (size_t)last_update < max)
				out[last_update].op = POL_OP_RENAME_FROM;
			last_update = -1;
		} else {
			last_update = op == POL_OP_WRITE && !add ? (long)n : -1;
		}
		if (n < max) {
			out[n].path = path;
			out[n].len = plen;
			out[n].op = op;
		}
		n++;
	}
	return begun ? (long)n : -EINVAL;
}

/* ---- the adapter ------------------------------------------------------------------------- */

struct codex_state {
	cJSON *root;
	char *paths; /* NUL-terminated copies of the patch's paths, back to back */
};

void hook_codex_release(void *state)
{
	struct codex_state *st = state;

	if (!st)
		return;
	cJSON_Delete(st->root);
	free(st->paths);
	free(st);
}

/* Every file of the patch goes into the call, with what the patch does to it. */
static void patch_call(struct hook_call *call, struct codex_state *st, const char *patch)
{
	size_t len = strlen(patch), i, total = 0;
	struct hook_patch_file *files;
	char *p;
	long n;

	n = hook_codex_patch_files(patch, len, NULL, 0);
	if (n < 0) {
		hook_call_invalid(call, "the apply_patch input is not a patch (no \"*** Begin "
					"Patch\", or a file without a path)");
		return;
	}
	if (n == 0) {
		hook_call_invalid(call, "the patch names no file");
		return;
	}
	files = calloc((size_t)n, sizeof(*files));
	if (!files)
		goto oom;
	hook_codex_patch_files(patch, len, files, (size_t)n);
	for (i = 0; i < (size_t)n; i++)
		total += files[i].len + 1;
	st->paths = malloc(total);
	if (!st->paths)
		goto oom;
	for (p = st->paths, i = 0; i < (size_t)n; i++) {
		memcpy(p, files[i].path, files[i].len);
		p[files[i].len] = '\0';
		if (hook_call_add_path(call, p, files[i].op) < 0)
			break; /* the call is INVALID: refused */
		p += files[i].len + 1;
	}
	free(files);
	return;
oom:
	free(files);
	hook_call_invalid(call, "dcg ran out of memory reading the patch");
}

/* `apply_patch <<'EOF' ... EOF` run through the shell tool is the same patch. */
static int is_shell_patch(const char *cmd)
{
	while (*cmd == ' ' || *cmd == '\t' || *cmd == '\n')
		cmd++;
	return !strncmp(cmd, "apply_patch", 11) && strstr(cmd, "*** Begin Patch") != NULL;
}

int hook_codex_parse(const char *buf, size_t len, struct hook_call *call, void **state)
{
	struct codex_state *st;
	const cJSON *input, *cmd;
	const char *event, *tool;

	st = hook_agents_begin(buf, len, call, sizeof(*st), state);
	if (!st)
		return 0;
	event = hook_agents_str(st->root, "hook_event_name");
	if (event && strcmp(event, "PreToolUse") != 0) {
		call->kind = HOOK_CALL_OTHER; /* another event carries no tool call to stop */
		return 0;
	}
	tool = hook_agents_str(st->root, "tool_name");
	call->cwd = hook_agents_str(st->root, "cwd");
	call->session_id = hook_agents_str(st->root, "session_id"); /* intent selection */
	call->tool = tool;
	if (!tool || !tool[0]) {
		hook_call_invalid(call, "the input has no tool_name");
		return 0;
	}
	input = cJSON_GetObjectItemCaseSensitive(st->root, "tool_input");
	if (strcmp(tool, "Bash") != 0 && strcmp(tool, "apply_patch") != 0) {
		call->kind = HOOK_CALL_OTHER;
		return 0;
	}
	if (!cJSON_IsObject(input)) {
		hook_call_invalid(call, "the tool call has no tool_input object");
		return 0;
	}
	cmd = cJSON_GetObjectItemCaseSensitive(input, "command");
	if (cJSON_IsArray(cmd) && !strcmp(tool, "Bash")) {
		hook_call_invalid(call,
				  "the Bash call's command is an argument list, not a string");
		return 0;
	}
	if (!cJSON_IsString(cmd) || !cmd->valuestring) {
		hook_call_invalid(call, !strcmp(tool, "Bash")
					    ? "the Bash call has no command string"
					    : "the apply_patch call has no patch text");
		return 0;
	}
	if (strlen(cmd->valuestring) > HOOK_AGENT_MAX_COMMAND) {
		hook_call_invalid(call, "the command is too long to check (over 1 MiB)");
		return 0;
	}
	if (!strcmp(tool, "apply_patch") || is_shell_patch(cmd->valuestring))
		patch_call(call, st, cmd->valuestring);
	else
		hook_agents_command(call, cmd->valuestring);
	return 0;
}

char *hook_codex_answer(const struct hook_answer *a, int *exit_code)
{
	const struct pol_result *r = a->result;
	struct hook_buf b = HOOK_BUF_INIT;
	cJSON *root = NULL, *hso;
	char *reason, *out = NULL;

	*exit_code = 0;
	/* Codex refuses "allow" and "ask": an allowed call gets no answer at all. */
	if (r->decision != POL_DENY && r->decision != POL_ASK)
		return NULL;
	reason = hook_agents_reason(r);
	hook_buf_adds(&b, reason);
	if (r->decision == POL_ASK)
		/* Codex hooks cannot ask: refuse, and say who can let it through. */
		hook_buf_adds(&b,
			      ". This call needs the user's confirmation, and Codex hooks cannot "
			      "ask: it is refused. The user must confirm it: run it themselves, "
			      "or allow the rule as above.");
	hook_buf_adds(&b, "");
	root = cJSON_CreateObject();
	hso = root ? cJSON_AddObjectToObject(root, "hookSpecificOutput") : NULL;
	if (!hso || b.oom)
		goto out;
	cJSON_AddStringToObject(hso, "hookEventName", "PreToolUse");
	cJSON_AddStringToObject(hso, "permissionDecision", "deny");
	cJSON_AddStringToObject(hso, "permissionDecisionReason", b.s);
	out = cJSON_PrintUnformatted(root);
out:
	if (!out)
		*exit_code = 2; /* Codex reads exit 2 with a reason on stderr as a block */
	cJSON_Delete(root);
	hook_buf_release(&b);
	hook_agents_reason_free(reason);
	return out;
}

static const struct hook_agents_reg codex_regs[] = {
    /* Codex names shell calls "Bash" for every shell-like tool, and apply_patch as is. */
    {"PreToolUse", "Bash|apply_patch", 30, NULL, 0, 0},
};

int hook_codex_install(const char *settings_path, const char *command, char *msg, size_t msgsize)
{
	int rc = hook_agents_install_file(settings_path, codex_regs, 1, command, NULL, "codex", msg,
					  msgsize);
	size_t l = strlen(msg);

	if (!rc && l + 1 < msgsize)
		snprintf(msg + l, msgsize - l,
			 " (Codex runs a new hook only once it is trusted: review it with /hooks)");
	return rc;
}

int hook_codex_uninstall(const char *settings_path, char *msg, size_t msgsize)
{
	return hook_agents_uninstall_file(settings_path, "codex", msg, msgsize);
}

int hook_codex_settings_path(int user, const char *cwd, char *out, size_t size)
{
	const char *home = getenv("CODEX_HOME");
	int n;

	if (user && home && home[0]) {
		n = snprintf(out, size, "%s/hooks.json", home);
		return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
	}
	return hook_agents_settings_path(user, cwd, ".codex/hooks.json", out, size);
}
