/* pi.c - `dcg hook --agent pi`, the other half of the pi extension
 * (agents/pi/dcg-damage-control.ts), and its installer.
 *
 * The extension sends pi's tool_call event with the session's cwd:
 *   {"type": "tool_call", "toolName": "bash", "toolCallId": ..., "input": {...}, "cwd": ...}
 * and dcg always answers one JSON object, so that the extension can tell an answer from
 * a dcg that failed (which it refuses):
 *   {"action": "allow"}
 *   {"action": "deny", "block": true, "reason": "Security Policy Violation: ...", "rule": ...}
 *   {"action": "ask", "block": false, "title": ..., "message": ..., "reason": ..., "rule": ...}
 *   {"action": "warn"|"log", "block": false, "reason": ..., "rule": ...}
 * The extension file itself is embedded in the binary, so `dcg install --agent pi`
 * needs no source tree. */
#include "agents.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The extension, embedded at build time (the path is relative to the top of the tree,
 * where make runs; tests/e2e/agents.mk makes this object depend on the file). */
__asm__(".section .rodata\n"
	".balign 16\n"
	".globl hook_pi_ext_start\n"
	".hidden hook_pi_ext_start\n"
	"hook_pi_ext_start:\n"
	".incbin \"agents/pi/dcg-damage-control.ts\"\n"
	".globl hook_pi_ext_end\n"
	".hidden hook_pi_ext_end\n"
	"hook_pi_ext_end:\n"
	".previous\n");
extern const char hook_pi_ext_start[], hook_pi_ext_end[];

#define PI_EXT_NAME  "dcg-damage-control.ts"
#define PI_EXT_MARK  "dcg-damage-control: the pi extension of dcg"
#define PI_BIN_TOKEN "@@DCG_BIN@@"
#define PI_EXT_MAX   (4 * 1024 * 1024) /* an extension file larger than this is not ours */

struct pi_state {
	cJSON *root;
};

void hook_pi_release(void *state)
{
	struct pi_state *st = state;

	if (st) {
		cJSON_Delete(st->root);
		free(st);
	}
}

/* Nothing for dcg to check: an empty path call, which the decision allows and the
 * answer still reports (the extension waits for an answer to every call). */
static void pass(struct hook_call *call)
{
	call->kind = HOOK_CALL_PATH;
	call->n_paths = 0;
}

int hook_pi_parse(const char *buf, size_t len, struct hook_call *call, void **state)
{
	struct pi_state *st;
	const cJSON *in;
	const char *type, *tool;

	st = hook_agents_begin(buf, len, call, sizeof(*st), state);
	if (!st)
		return 0;
	type = hook_agents_str(st->root, "type");
	tool = hook_agents_str(st->root, "toolName");
	call->tool = tool;
	call->cwd = hook_agents_str(st->root, "cwd");
	if (type && strcmp(type, "tool_call") != 0) {
		pass(call);
		return 0;
	}
	if (!tool || !tool[0]) {
		call->kind = HOOK_CALL_INVALID;
		call->invalid = "the input has no toolName";
		return 0;
	}
	in = cJSON_GetObjectItemCaseSensitive(st->root, "input");
	if (!strcmp(tool, "bash") || !strcmp(tool, "read") || !strcmp(tool, "write") ||
	    !strcmp(tool, "edit") || !strcmp(tool, "grep") || !strcmp(tool, "find") ||
	    !strcmp(tool, "ls")) {
		if (!cJSON_IsObject(in)) {
			call->kind = HOOK_CALL_INVALID;
			call->invalid = "the tool call has no input object";
			return 0;
		}
	} else {
		pass(call); /* other tools name no command or path */
		return 0;
	}
	if (!strcmp(tool, "bash"))
		hook_agents_command(call, hook_agents_str(in, "command"));
	else if (!strcmp(tool, "read"))
		hook_agents_file(call, hook_agents_str(in, "path"), POL_OP_READ);
	else if (!strcmp(tool, "write") || !strcmp(tool, "edit"))
		hook_agents_file(call, hook_agents_str(in, "path"), POL_OP_WRITE);
	else if (!strcmp(tool, "grep"))
		hook_agents_search(call, hook_agents_str(in, "path"), hook_agents_str(in, "glob"),
				   POL_OP_READ);
	else if (!strcmp(tool, "find"))
		hook_agents_search(call, hook_agents_str(in, "path"),
				   hook_agents_str(in, "pattern"), POL_OP_LIST);
	else /* ls */
		hook_agents_search(call, hook_agents_str(in, "path"), NULL, POL_OP_LIST);
	return 0;
}

static int is_builtin_rule(const char *id)
{
	return !id || !strncmp(id, "hook.", 5);
}

/* "Security Policy Violation: REASON (dcg rule RULE; if intentional: dcg allow ...)" */
static void add_reason(struct hook_buf *b, const struct pol_result *r)
{
	char hint[256];

	hook_buf_adds(b, "Security Policy Violation: ");
	hook_buf_adds(b, r->reason ? r->reason : "refused by dcg's policy");
	if (is_builtin_rule(r->rule_id)) {
		hook_buf_addf(b, " (dcg rule %s)", r->rule_id ? r->rule_id : "?");
		return;
	}
	hook_allow_hint(r, hint, sizeof(hint));
	hook_buf_addf(b, " (dcg rule %s; %c%s)", r->rule_id, hint[0] == 'I' ? 'i' : hint[0],
		      hint[0] ? hint + 1 : "");
}

char *hook_pi_answer(const struct hook_answer *a, int *exit_code)
{
	const struct pol_result *r = a->result;
	const struct hook_call *call = a->call;
	struct hook_buf reason = HOOK_BUF_INIT, title = HOOK_BUF_INIT, msg = HOOK_BUF_INIT;
	char what[512];
	cJSON *root;
	char *out = NULL;

	*exit_code = 0;
	root = cJSON_CreateObject();
	if (!root)
		goto out;
	cJSON_AddStringToObject(root, "action", pol_decision_name(r->decision));
	cJSON_AddBoolToObject(root, "block", r->decision == POL_DENY);
	if (r->decision == POL_ALLOW)
		goto print;
	add_reason(&reason, r);
	if (reason.oom)
		goto out;
	cJSON_AddStringToObject(root, "reason", reason.s);
	cJSON_AddStringToObject(root, "rule", r->rule_id ? r->rule_id : "");
	what[0] = '\0';
	if (r->matched[0])
		hook_utf8_sanitize(r->matched, strlen(r->matched), what, sizeof(what));
	else if (r->path[0])
		hook_utf8_sanitize(r->path, strlen(r->path), what, sizeof(what));
	if (what[0])
		cJSON_AddStringToObject(root, "matched", what);
	if (r->decision == POL_ASK) {
		hook_buf_addf(&title, "dcg: allow this %s call?",
			      call && call->tool ? call->tool : "tool");
		hook_buf_addf(&msg, "%s\n\nRule: %s", r->reason ? r->reason : "",
			      r->rule_id ? r->rule_id : "?");
		if (what[0])
			hook_buf_addf(&msg, "\nMatched: %s", what);
		if (title.oom || msg.oom)
			goto out;
		cJSON_AddStringToObject(root, "title", title.s);
		cJSON_AddStringToObject(root, "message", msg.s);
	}
print:
	out = cJSON_PrintUnformatted(root);
out:
	if (!out)
		*exit_code = 2; /* the extension refuses a call without an answer */
	cJSON_Delete(root);
	hook_buf_release(&reason);
	hook_buf_release(&title);
	hook_buf_release(&msg);
	return out;
}

/* ---- install ----------------------------------------------------------------------------- */

const char *hook_pi_extension(size_t *len)
{
	*len = (size_t)(hook_pi_ext_end - hook_pi_ext_start);
	return hook_pi_ext_start;
}

char *hook_pi_extension_for(const char *dcg_path)
{
	struct hook_buf b = HOOK_BUF_INIT, esc = HOOK_BUF_INIT;
	size_t len, tl = strlen(PI_BIN_TOKEN);
	const char *s = hook_pi_extension(&len), *end = s + len, *hit, *p;

	/* The path goes into a double-quoted TypeScript string. */
	for (p = dcg_path; *p; p++) {
		if (*p == '\\' || *p == '"')
			hook_buf_add(&esc, "\\", 1);
		hook_buf_add(&esc, p, 1);
	}
	hook_buf_adds(&esc, "");
	while (s < end && (hit = memmem(s, (size_t)(end - s), PI_BIN_TOKEN, tl)) != NULL) {
		hook_buf_add(&b, s, (size_t)(hit - s));
		hook_buf_adds(&b, esc.oom ? "dcg" : esc.s);
		s = hit + tl;
	}
	hook_buf_add(&b, s, (size_t)(end - s));
	hook_buf_release(&esc);
	return hook_buf_detach(&b);
}

/* Writes the extension unless the file holds it already or is someone else's. */
static int pi_install_edit(const char *text, void *arg, char **out)
{
	const char *want = arg;

	if (text && !strcmp(text, want))
		return 1;
	if (text && !strstr(text, PI_EXT_MARK))
		return -EEXIST;
	*out = strdup(want);
	return *out ? 0 : -ENOMEM;
}

int hook_pi_install(const char *settings_path, const char *command, char *msg, size_t msgsize)
{
	char exe[PATH_MAX], *want;
	ssize_t n;
	int rc;

	(void)command; /* the extension runs this binary itself */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(msg, msgsize, "cannot name this dcg binary for the pi extension");
		return -ENOENT;
	}
	exe[n] = '\0';
	want = hook_pi_extension_for(exe);
	if (!want) {
		snprintf(msg, msgsize, "out of memory");
		return -ENOMEM;
	}
	rc = hook_agents_edit_file(settings_path, PI_EXT_MAX, pi_install_edit, want, msg, msgsize);
	if (rc == 1)
		snprintf(msg, msgsize, "dcg extension already installed for pi in %s",
			 settings_path);
	else if (rc == -EEXIST)
		snprintf(msg, msgsize, "%s exists and is not dcg's extension; left it unchanged",
			 settings_path);
	else if (rc == -ENOMEM)
		snprintf(msg, msgsize, "out of memory");
	else if (rc == 0)
		snprintf(msg, msgsize, "dcg extension installed for pi in %s", settings_path);
	free(want);
	return rc == 1 ? 0 : rc;
}

int hook_pi_uninstall(const char *settings_path, char *msg, size_t msgsize)
{
	char *have = NULL;
	size_t len;
	int err;

	err = hook_read_file(settings_path, PI_EXT_MAX, &have, &len);
	if (err == -ENOENT) {
		snprintf(msg, msgsize, "no %s: nothing to remove", settings_path);
		return 0;
	}
	if (err) {
		snprintf(msg, msgsize, "cannot read %s: %s", settings_path, strerror(-err));
		return err;
	}
	if (!strstr(have, PI_EXT_MARK)) {
		snprintf(msg, msgsize, "%s is not dcg's extension; left it in place",
			 settings_path);
		free(have);
		return 0;
	}
	free(have);
	if (unlink(settings_path) < 0) {
		err = -errno;
		snprintf(msg, msgsize, "cannot remove %s: %s", settings_path, strerror(errno));
		return err;
	}
	snprintf(msg, msgsize, "dcg extension removed from %s", settings_path);
	return 0;
}

int hook_pi_settings_path(int user, const char *cwd, char *out, size_t size)
{
	const char *dir = getenv("PI_CODING_AGENT_DIR");
	int n;

	if (user && dir && dir[0]) {
		n = snprintf(out, size, "%s/extensions/" PI_EXT_NAME, dir);
		return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
	}
	return hook_agents_settings_path(
	    user, cwd, user ? ".pi/agent/extensions/" PI_EXT_NAME : ".pi/extensions/" PI_EXT_NAME,
	    out, size);
}
