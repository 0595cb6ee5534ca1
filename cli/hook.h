/* hook.h - the agent-facing side of dcg: tool calls in, decisions out.
 *
 * This header is the manual of libdcgcli.a (every cli/ file but main.c). The hook
 * turns an agent's tool call into questions for the policy engine (dcg_policy.h) and
 * the decision back into the agent's protocol and a message for the person. Agent
 * protocols are adapters (struct hook_agent) over one decision (hook_decide_call).
 *
 * Strings returned as `char *` are malloc'ed and owned by the caller (free()).
 * Functions return 0 or a negative errno unless said otherwise.
 */
#ifndef DCG_HOOK_H
#define DCG_HOOK_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "dcg_policy.h"

/* ---- string builder ---------------------------------------------------------------- */

/* A growing NUL-terminated string. After an allocation failure `oom` is set and
 * further appends do nothing, so callers check once at the end. */
struct hook_buf {
	char *s;
	size_t len, cap;
	int oom;
};
#define HOOK_BUF_INIT         \
	{                     \
		NULL, 0, 0, 0 \
	}

void hook_buf_add(struct hook_buf *b, const char *s, size_t len);
void hook_buf_adds(struct hook_buf *b, const char *s);
void hook_buf_addf(struct hook_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the string to the caller (NULL after an allocation failure) and resets b. */
char *hook_buf_detach(struct hook_buf *b);
void hook_buf_release(struct hook_buf *b);

/* ---- input checks --------------------------------------------------------------------- */

/* 1 when s (len bytes) is valid UTF-8 without overlongs or surrogates, else 0. */
int hook_utf8_valid(const char *s, size_t len);

/* ---- messages ---------------------------------------------------------------------------- */

#define HOOK_MATCHED_CHARS  120 /* Matched: line, in characters */
#define HOOK_CONTEXT_CHARS  160 /* each context line, in characters */
#define HOOK_CONTEXT_AROUND 2	/* lines shown before and after the matched line */

struct hook_msg_opts {
	int tty; /* 1: ANSI colours, no redaction; 0: plain text with quoted strings redacted */
	/* The text the decision was made on (the command), used for the context window
	 * when the result carries no script but a line inside a multi-line command. */
	const char *input;
	size_t input_len;
};

/* The human message of DESIGN.md ("BLOCKED: ...", Language, Rule ID, Reason, Matched,
 * Line, Severity, Context, Suggestions), ending with a newline. Lines without a value
 * (no language, no line) are left out. Returns a malloc'ed string or NULL (ENOMEM). */
char *hook_msg_human(const struct pol_result *r, const struct hook_msg_opts *o);

/* The suggestion "If intentional: dcg allow RULE -r \"reason\"" for r's rule, into out. */
void hook_allow_hint(const struct pol_result *r, char *out, size_t size);

/* The reason sentence given to the agent:
 * "dcg: RULE: REASON. If intentional: dcg allow RULE -r \"reason\"". Malloc'ed. */
char *hook_agent_reason(const struct pol_result *r);

/* The decision record as one JSON object (for `dcg check --json`), without a trailing
 * newline. Malloc'ed, NULL on ENOMEM. */
char *hook_result_json(const struct pol_result *r);

/* Copies s into out (size bytes) replacing bytes of invalid UTF-8 by '?', so that
 * JSON output stays valid. Returns the bytes written (without the NUL). */
size_t hook_utf8_sanitize(const char *s, size_t len, char *out, size_t size);

/* ---- tool calls ---------------------------------------------------------------------------- */

enum hook_call_kind {
	HOOK_CALL_OTHER = 0, /* a tool that touches no command or path: passes */
	HOOK_CALL_COMMAND,   /* a shell command */
	HOOK_CALL_PATH,	     /* one or more paths with an operation */
	HOOK_CALL_INVALID,   /* malformed input: denied with `invalid` as the reason */
};

#define HOOK_CALL_MAX_PATHS 4

/* One tool call translated into policy questions. Strings point into the parsed
 * input (owned by the adapter's parse state) or into the struct. */
struct hook_call {
	enum hook_call_kind kind;
	const char *tool;    /* the agent's tool name ("Bash", "Write", ...), may be NULL */
	const char *cwd;     /* the call's working directory, may be NULL */
	const char *command; /* COMMAND: the command text */
	size_t command_len;
	size_t n_paths; /* PATH: the paths and their operations */
	const char *paths[HOOK_CALL_MAX_PATHS];
	enum pol_op ops[HOOK_CALL_MAX_PATHS];
	const char *invalid;	/* INVALID: why, as a sentence for the agent */
	const char *session_id; /* the agent's session (Claude Code's session_id), may be NULL */
	char scratch[2][4096];	/* built paths (e.g. Grep's path joined with its glob) */
};

/* Tool names to calls, in Claude Code's vocabulary (Bash, Read, Write, Edit, MultiEdit,
 * NotebookEdit, Glob, Grep, LS). tool_input is a cJSON object (void * so that this
 * header does not need cJSON.h). Fills call; never fails (bad input gives INVALID). */
void hook_call_from_claude(const char *tool, const void *tool_input, const char *cwd,
			   struct hook_call *call);

/* The built-in rule IDs of the hook itself (not in the policy: they cannot be allowed). */
#define HOOK_RULE_BAD_INPUT "hook.invalid_input"
#define HOOK_RULE_INTERNAL  "hook.internal_error"

/* Fills r with a deny for malformed or unanswerable input (rule HOOK_RULE_BAD_INPUT
 * or HOOK_RULE_INTERNAL); reason must be a static string. */
void hook_result_refuse(struct pol_result *r, const char *rule_id, const char *reason);

/* Decides a call: the command check or every path check, the worst decision wins.
 * p may be NULL (no policy could be built): then every call but OTHER is denied.
 * flags are pol_ctx_flags (POL_CTX_KEEP_SCRIPT for a context window). */
enum pol_decision hook_decide_call(const struct pol_policy *p, const struct hook_call *call,
				   unsigned flags, struct pol_result *r);

/* The intent scope check (cli/cmd_intent.c, policy/intent.h): when the project has an
 * intents file, the call's writes (file tools' paths, the write/delete paths of a shell
 * command, destructive tools dcg cannot see into) are checked against the active
 * intent of the call's folder and session; a worse result replaces r. Its strings live
 * until the process ends (or the next call from another folder or session). */
void hook_intent_apply(const struct pol_policy *p, const struct hook_call *call,
		       struct pol_result *r);
/* 1 when a call of kind OTHER (a tool dcg cannot see into) has to be decided anyway:
 * it names a tool and its folder has an intents file (tool classes may ask). */
int hook_intent_confines(const struct hook_call *call);
/* The scope decision alone for one path of a call (e.g. to rank the files of a patch
 * that names more than HOOK_CALL_MAX_PATHS): POL_ALLOW when the project has no intents. */
enum pol_decision hook_intent_path_decision(const struct hook_call *call, const char *path,
					    enum pol_op op);
/* For `dcg run --intent ID` (and the sandbox): finds the intents file from the working
 * directory, refuses an ID it does not hold (the known IDs go to err), and sets
 * $DCG_INTENT and $DCG_INTENTS_FILE for the guarded processes. Returns 0 or -1. */
int hook_intent_prepare_run(const char *id, FILE *err);

/* ---- agents --------------------------------------------------------------------------------- */

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

/* ---- Claude Code settings.json ---------------------------------------------------------------- */

/* The tools dcg registers for. */
#define HOOK_CLAUDE_MATCHER "Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|LS"

/* Merges dcg's PreToolUse hook (running `command`) into the JSON text of a settings
 * file (NULL or empty: a new file). Keeps every other key and hook; an existing dcg
 * entry is updated in place, so the result is the same however often it runs.
 * *out gets the new text (malloc'ed). Returns 0, 1 when nothing changed, -EINVAL
 * when text is not a JSON object (it is left alone), -ENOMEM. */
int hook_claude_settings_merge(const char *text, const char *command, char **out);
/* Removes only dcg's hook entries (and containers left empty by that). Returns 0,
 * 1 when there was nothing to remove, -EINVAL, -ENOMEM. */
int hook_claude_settings_remove(const char *text, char **out);
/* 1 when a hook command string is one dcg installed. */
int hook_is_dcg_command(const char *command);

/* ---- allowlist editing ---------------------------------------------------------------------- */

struct hook_allow_entry {
	const char *rule; /* rule ID: letters, digits, '.', '_', '-' */
	const char *reason;
	const char *path;    /* optional glob */
	const char *expires; /* optional YYYY-MM-DD */
};

/* Adds entry to the `allow:` list of a policy file's text without touching anything
 * else (comments, order, other keys): appends to an existing block list, turns an
 * empty `allow: []` into a block list, extends a one-line flow list, or adds an
 * `allow:` key at the end. The result is parsed again with libyaml and must contain
 * the entry. *out: the new text (malloc'ed). Returns 0, -EINVAL (bad entry, or a
 * layout it cannot edit safely: msg says which), -ENOMEM. */
int hook_allow_edit(const char *text, size_t len, const struct hook_allow_entry *entry, char **out,
		    char *msg, size_t msgsize);

/* 1 when text (a YAML document) has a top-level `allow` list with an entry whose rule
 * is rule_id, else 0. */
int hook_allow_has_entry(const char *text, size_t len, const char *rule_id);

/* ---- files ------------------------------------------------------------------------------------ */

/* Reads a whole file (at most max bytes) into a malloc'ed NUL-terminated buffer.
 * Returns 0, -ENOENT, -EFBIG, or another -errno. */
int hook_read_file(const char *path, size_t max, char **out, size_t *len);
/* Replaces path atomically with data (temp file in the same folder, fsync, rename),
 * keeping the old file's mode (else mode), creating missing parent folders. */
int hook_write_atomic(const char *path, const char *data, size_t len, unsigned mode);

/* ---- policy loading for the commands ---------------------------------------------------------- */

/* Builds the layered policy (embedded, user, project from cwd, then policy_file or
 * $DCG_POLICY). Diagnostics go to err as "file:line:col: rule: message" lines, and
 * the embedded defaults stay active. cwd NULL: the process's. Returns the policy or
 * NULL when even an empty policy could not be allocated. */
struct pol_policy *hook_policy_open(const char *policy_file, const char *cwd, FILE *err);

/* Prints one diagnostic in the file:line:col: rule: message form. */
void hook_print_diag(FILE *out, const struct pol_diag *d);

#endif /* DCG_HOOK_H */
