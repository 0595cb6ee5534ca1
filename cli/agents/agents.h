/* agents.h - the agent adapters: `dcg hook --agent claude|codex|gemini|cursor|pi` and
 * `dcg install --agent ...`.
 *
 * Each agent is a struct hook_agent over the one decision of hook_decide_call()
 * (hook.h): parse() turns the agent's tool call into a struct hook_call, answer() turns
 * the decision into the agent's protocol, install()/uninstall() edit its settings. The
 * adapter library below (input checks, file/search/command calls, settings files) is
 * what every adapter is written with:
 *   common.c    input checks, calls, the reason sentence; the table of agents
 *   settings.c  settings files {"hooks": {EVENT: [...]}}: merge, remove, and the one
 *               read-edit-write (atomic) every installer uses
 *   claude.c codex.c gemini.c cursor.c pi.c   one adapter each
 *
 * Protocols, as read from the clients' code (versions in tests/data/agents/README):
 *   claude  PreToolUse JSON (tool_name Bash, Read, Write, Edit, MultiEdit, NotebookEdit,
 *           Glob, Grep, LS); answer {"hookSpecificOutput":{"permissionDecision":
 *           "deny"|"ask", ...}} (message.c), nothing for allow.
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

#include "../hook.h"

struct cJSON;

/* ---- the table --------------------------------------------------------------------------------- */

/* The answer to give an agent for one decided call. */
struct hook_answer {
	const struct pol_result *result;
	const struct hook_call *call;
};

/* One agent protocol. parse() reads the raw input into call (keeping what it needs in
 * *state, released by release()); answer() returns the stdout text for the decision
 * (malloc'ed; NULL when nothing must be printed, e.g. allow), and sets *exit_code.
 * install/uninstall edit the agent's settings (NULL: not supported yet). */
struct hook_agent {
	const char *name;
	int (*parse)(const char *buf, size_t len, struct hook_call *call, void **state);
	void (*release)(void *state);
	char *(*answer)(const struct hook_answer *a, int *exit_code);
	int (*install)(const char *settings_path, const char *command, char *msg, size_t msgsize);
	int (*uninstall)(const char *settings_path, char *msg, size_t msgsize);
	/* Where its settings live: user (1) or project (0). Writes into out. */
	int (*settings_path)(int user, const char *cwd, char *out, size_t size);
};

/* Finds an agent by name ("claude", "codex", "gemini", "cursor", "pi"); NULL when
 * unknown. */
const struct hook_agent *hook_agent_find(const char *name);
/* The table, for help texts: count and entry i. */
size_t hook_agent_count(void);
const struct hook_agent *hook_agent_get(size_t i);

/* Claude Code's PreToolUse protocol. */
char *hook_claude_answer(const struct hook_answer *a, int *exit_code);
int hook_claude_parse(const char *buf, size_t len, struct hook_call *call, void **state);
void hook_claude_release(void *state);
int hook_claude_install(const char *settings_path, const char *command, char *msg, size_t msgsize);
int hook_claude_uninstall(const char *settings_path, char *msg, size_t msgsize);
int hook_claude_settings_path(int user, const char *cwd, char *out, size_t size);
/* Claude Code's shell prefix (env.CLAUDE_CODE_SHELL_PREFIX in the settings file): value
 * set (e.g. "/usr/local/bin/dcg --shell-prefix", so that each Bash tool command runs
 * under `dcg run`), or, with value NULL, removed when it is dcg's (names a dcg binary
 * with --shell-prefix); another program's prefix is never touched. Returns 0, 1 when
 * nothing changed, a negative errno (msg says why). */
int hook_claude_shell_prefix(const char *settings_path, const char *value, char *msg,
			     size_t msgsize);

/* ---- Claude Code settings.json ---------------------------------------------------------------- */

/* The tools dcg registers for. */
#define HOOK_CLAUDE_MATCHER "Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|LS"

/* hook_agents_settings_merge() with Claude Code's registration: dcg's PreToolUse hook
 * (matcher HOOK_CLAUDE_MATCHER, running `command`, timeout 30 s). */
int hook_claude_settings_merge(const char *text, const char *command, char **out);
/* hook_agents_settings_remove(). */
int hook_claude_settings_remove(const char *text, char **out);
/* 1 when a hook command string is one dcg installed. */
int hook_is_dcg_command(const char *command);

/* Tool names to calls, in Claude Code's vocabulary (Bash, Read, Write, Edit, MultiEdit,
 * NotebookEdit, Glob, Grep, LS); `dcg check --tool` uses it too. tool_input is a cJSON
 * object (void * so that callers need not include cJSON.h). Fills call (initialised
 * here; hook_call_release after); never fails (bad input gives INVALID). */
void hook_call_from_claude(const char *tool, const void *tool_input, const char *cwd,
			   struct hook_call *call);

/* A command longer than this is refused rather than analysed (as for Claude Code). */
#define HOOK_AGENT_MAX_COMMAND (1024 * 1024)

/* ---- input checks shared by the adapters ------------------------------------------ */

/* Checks raw input (empty, NUL bytes, invalid UTF-8, escaped NUL) and parses it as a
 * JSON object. Returns the parsed root (owned by the caller, cJSON_Delete) or NULL;
 * on any problem call is INVALID with a sentence saying why (the root may still be
 * returned, e.g. for a JSON array, and must be freed). call is initialised first
 * (hook_call_init). */
struct cJSON *hook_agents_parse_input(const char *buf, size_t len, struct hook_call *call);

/* The start of every adapter's parse: *state gets a zeroed state of state_size bytes
 * whose first member is its cJSON root (released by the adapter's release function),
 * and buf is parsed into that root (hook_agents_parse_input). Returns *state, or NULL
 * when the call is decided already: INVALID with the reason (out of memory, input
 * that is not a JSON object). */
void *hook_agents_begin(const char *buf, size_t len, struct hook_call *call, size_t state_size,
			void **state);

/* 1 when tool is in list (NULL-terminated): an adapter's tools that only read, which
 * an intent never confines (call->tool_reads_only). */
int hook_agents_tool_in(const char *const *list, const char *tool);

/* The string member key of obj, or NULL when missing or not a string. */
const char *hook_agents_str(const struct cJSON *obj, const char *key);

/* Adds a file-tool path (missing or empty: INVALID) with op. */
void hook_agents_file(struct hook_call *call, const char *path, enum pol_op op);
/* Adds a search tool's paths: dir (default the call's cwd) with op, and glob joined
 * to it in call->scratch[0] (so that "*.pem" meets the path rules as a name). */
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

/* The one read-edit-write of an agent's file: reads path (missing: text NULL), calls
 * edit(text, arg, &out), which returns 0 with *out the new text (malloc'ed), 1 when
 * nothing is to change, or a negative errno (the file is left alone), and writes *out
 * atomically (hook_write_atomic, mode 0644). Returns edit's result (1: unchanged), or
 * -errno of the read or the write (msg then says which; otherwise msg is untouched). */
int hook_agents_edit_file(const char *path, size_t max,
			  int (*edit)(const char *text, void *arg, char **out), void *arg,
			  char *msg, size_t msgsize);

/* install/uninstall over a settings file with the functions above; agent names the
 * agent in the messages. */
int hook_agents_install_file(const char *settings_path, const struct hook_agents_reg *regs,
			     size_t n, const char *command, const char *top, const char *agent,
			     char *msg, size_t msgsize);
int hook_agents_uninstall_file(const char *settings_path, const char *agent, char *msg,
			       size_t msgsize);

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
