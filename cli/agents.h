/* agents.h - the adapters of `dcg hook --agent codex|gemini|cursor|pi` and of
 * `dcg install --agent ...` for those agents (issue 7).
 *
 * Each agent is a struct hook_agent (hook.h) over the one decision of
 * hook_decide_call(): parse() turns the agent's tool call into a struct hook_call,
 * answer() turns the decision into the agent's protocol. The helpers below are shared
 * by the four adapters; they live in agent_codex.c.
 *
 * Protocols, as read from the clients' code (versions in tests/data/agents/README):
 *   codex   PreToolUse JSON on stdin (tool_name "Bash" with tool_input.command, or
 *           "apply_patch" with the patch text in tool_input.command); answer
 *           {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":
 *           "deny","permissionDecisionReason":...}} (Codex refuses "ask" and "allow",
 *           and a deny without a reason), nothing for allow.
 *   gemini  BeforeTool JSON (tool_name run_shell_command, write_file, replace, read_file,
 *           read_many_files, list_directory, glob, grep_search); answer
 *           {"decision":"deny","reason":...,"systemMessage":...} (an ask too: `gemini
 *           -p` waits for ever on an "ask"), nothing for allow.
 *   cursor  beforeShellExecution / beforeMCPExecution / beforeReadFile / preToolUse JSON;
 *           answer {"permission":"allow"|"deny"|"ask", ...messages} always (Cursor
 *           expects an answer to every call).
 *   pi      the pi extension's own line (agents/pi/dcg-damage-control.ts): pi's
 *           tool_call event plus cwd; answer always one JSON object with "action".
 */
#ifndef DCG_AGENTS_H
#define DCG_AGENTS_H

#include "hook.h"

struct cJSON;

/* A command longer than this is refused rather than analysed (as for Claude Code). */
#define HOOK_AGENT_MAX_COMMAND (1024 * 1024)

/* ---- input checks shared by the adapters ------------------------------------------ */

/* Checks raw input (empty, NUL bytes, invalid UTF-8, escaped NUL) and parses it as a
 * JSON object. Returns the parsed root (owned by the caller, cJSON_Delete) or NULL;
 * on any problem call is INVALID with a sentence saying why (the root may still be
 * returned, e.g. for a JSON array, and must be freed). call is reset first. */
struct cJSON *hook_agents_parse_input(const char *buf, size_t len, struct hook_call *call);

/* The string member key of obj, or NULL when missing or not a string. */
const char *hook_agents_str(const struct cJSON *obj, const char *key);

/* Sets a file-tool call: path (missing or empty: INVALID) with op. */
void hook_agents_file(struct hook_call *call, const char *path, enum pol_op op);
/* Sets a search-tool call: dir (default the call's cwd) with op, and glob joined to it
 * in call->scratch[0] (so that "*.pem" meets the path rules as a name). */
void hook_agents_search(struct hook_call *call, const char *dir, const char *glob, enum pol_op op);
/* Sets a command call, refusing one over HOOK_AGENT_MAX_COMMAND bytes. */
void hook_agents_command(struct hook_call *call, const char *command);

/* The reason sentence of hook_agent_reason(), or a static fallback when memory runs
 * out (never NULL; free with hook_agents_reason_free). */
char *hook_agents_reason(const struct pol_result *r);
void hook_agents_reason_free(char *reason);

/* ---- settings files of the form {"hooks": {EVENT: [...]}} -------------------------- */

/* What dcg registers in one event list. nested: Claude-style entries
 * {"matcher": M, "hooks": [{"type": "command", "command": C, "timeout": T, ...}]}
 * (Codex, Gemini CLI); flat: {"command": C, "timeout": T, "matcher": M, ...} (Cursor).
 * matcher may be NULL (no matcher: every call of the event). name, when set, is
 * added to the hook object (Gemini CLI shows it). fail_closed adds "failClosed": true
 * (Cursor: a hook that fails refuses the call instead of letting it run). */
struct hook_agents_reg {
	const char *event;
	const char *matcher;
	double timeout;
	const char *name;
	int flat;
	int fail_closed;
};

/* Merges the registrations into the JSON text of a settings file (NULL or blank: a new
 * object; top, when set, are extra top-level members added only when absent, given as
 * a JSON object text, e.g. "{\"version\":1}"). Keeps every other key and hook; a dcg
 * entry already present is updated in place, so running it again changes nothing.
 * Returns 0 (*out: new text, malloc'ed), 1 when nothing changed, -EINVAL when text is
 * not a JSON object or "hooks" has the wrong shape (left alone), -ENOMEM. */
int hook_agents_settings_merge(const char *text, const struct hook_agents_reg *regs, size_t n,
			       const char *command, const char *top, char **out);
/* Removes every dcg hook (hook_is_dcg_command) from every event, and what that left
 * empty. Returns 0, 1 when there was nothing to remove, -EINVAL, -ENOMEM. */
int hook_agents_settings_remove(const char *text, char **out);

/* install/uninstall over a settings file with the functions above, with the messages
 * of the Claude Code installer. */
int hook_agents_install_file(const char *settings_path, const struct hook_agents_reg *regs,
			     size_t n, const char *command, const char *top, const char *agent,
			     char *msg, size_t msgsize);
int hook_agents_uninstall_file(const char *settings_path, char *msg, size_t msgsize);

/* $HOME/<rel> (user) or <cwd>/<rel> (project) into out. */
int hook_agents_settings_path(int user, const char *cwd, const char *rel, char *out, size_t size);

/* ---- Codex: apply_patch --------------------------------------------------------------- */

/* One file named by a patch: its path (pointing into the patch text, len bytes) and
 * the operation the patch does to it. */
struct hook_patch_file {
	const char *path;
	size_t len;
	enum pol_op op;
};

/* Lists the files of a Codex patch ("*** Add File: P" create, "*** Update File: P"
 * write, "*** Delete File: P" delete, "*** Move to: P" after an update: the updated
 * file is renamed from, P renamed to). Writes up to max entries and returns how many
 * the patch names (may exceed max), or -EINVAL when the text is not a patch (no
 * "*** Begin Patch" line) or names a file with an empty path. */
long hook_codex_patch_files(const char *patch, size_t len, struct hook_patch_file *out, size_t max);

/* When a call names more paths than a struct hook_call holds (a Codex patch, Gemini
 * CLI's read_many_files), orders paths and ops (n entries) worst first, so that the
 * HOOK_CALL_MAX_PATHS that go into the call include the path that refuses it: each is
 * decided with hook_codex_patch_policy, or when NULL (default) with the layered policy
 * of hook_policy_open() and dcg's global --policy, loaded for that, and ranked by the
 * active intent's scope too. n <= HOOK_CALL_MAX_PATHS: nothing to do. */
void hook_agents_worst_first(const struct hook_call *call, const char **paths, enum pol_op *ops,
			     size_t n);
/* The policy of hook_agents_worst_first(); tests set it. */
extern const struct pol_policy *hook_codex_patch_policy;

/* ---- the adapters ----------------------------------------------------------------------- */

int hook_codex_parse(const char *buf, size_t len, struct hook_call *call, void **state);
void hook_codex_release(void *state);
char *hook_codex_answer(const struct hook_answer *a, int *exit_code);
int hook_codex_install(const char *settings_path, const char *command, char *msg, size_t msgsize);
int hook_codex_uninstall(const char *settings_path, char *msg, size_t msgsize);
int hook_codex_settings_path(int user, const char *cwd, char *out, size_t size);

int hook_gemini_parse(const char *buf, size_t len, struct hook_call *call, void **state);
void hook_gemini_release(void *state);
char *hook_gemini_answer(const struct hook_answer *a, int *exit_code);
int hook_gemini_install(const char *settings_path, const char *command, char *msg, size_t msgsize);
int hook_gemini_uninstall(const char *settings_path, char *msg, size_t msgsize);
int hook_gemini_settings_path(int user, const char *cwd, char *out, size_t size);

int hook_cursor_parse(const char *buf, size_t len, struct hook_call *call, void **state);
void hook_cursor_release(void *state);
char *hook_cursor_answer(const struct hook_answer *a, int *exit_code);
int hook_cursor_install(const char *settings_path, const char *command, char *msg, size_t msgsize);
int hook_cursor_uninstall(const char *settings_path, char *msg, size_t msgsize);
int hook_cursor_settings_path(int user, const char *cwd, char *out, size_t size);

int hook_pi_parse(const char *buf, size_t len, struct hook_call *call, void **state);
void hook_pi_release(void *state);
char *hook_pi_answer(const struct hook_answer *a, int *exit_code);
/* Writes the extension (embedded in the binary, with this binary's path filled in)
 * to settings_path; idempotent; an existing file that is not dcg's is left alone. */
int hook_pi_install(const char *settings_path, const char *command, char *msg, size_t msgsize);
/* Removes the extension file when it is dcg's. */
int hook_pi_uninstall(const char *settings_path, char *msg, size_t msgsize);
/* .pi/extensions/dcg-damage-control.ts in the project, or
 * $PI_CODING_AGENT_DIR (default ~/.pi/agent)/extensions/dcg-damage-control.ts. */
int hook_pi_settings_path(int user, const char *cwd, char *out, size_t size);
/* The extension's text as embedded in the binary (not NUL-terminated). */
const char *hook_pi_extension(size_t *len);
/* The extension's text with the dcg binary path filled in (malloc'ed). */
char *hook_pi_extension_for(const char *dcg_path);

#endif /* DCG_AGENTS_H */
