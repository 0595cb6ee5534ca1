/* hook.h - the agent-facing side of dcg: tool calls in, decisions out.
 *
 * This header is the manual of libdcgcli.a (every cli/ file but main.c). The hook
 * turns an agent's tool call into questions for the policy engine (dcg_policy.h) and
 * the decision back into the agent's protocol and a message for the person. Agent
 * protocols are adapters (agents/agents.h) over one decision (hook_decide_call).
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

/* One tool call translated into policy questions. Strings point into the parsed
 * input (owned by the adapter's parse state) or into the struct; the list of paths
 * grows as needed (a Codex patch names any number of files) and is the call's own:
 * hook_call_init() before, hook_call_release() after. */
struct hook_call {
	enum hook_call_kind kind;
	const char *tool;    /* the agent's tool name ("Bash", "Write", ...), may be NULL */
	const char *cwd;     /* the call's working directory, may be NULL */
	const char *command; /* COMMAND: the command text */
	size_t command_len;
	size_t n_paths; /* PATH: the paths and their operations */
	const char **paths;
	enum pol_op *ops;
	size_t cap_paths;
	const char *invalid;	/* INVALID: why, as a sentence for the agent */
	int tool_reads_only;	/* OTHER: the adapter knows the tool only reads */
	const char *session_id; /* the agent's session (Claude Code's session_id), may be NULL */
	char scratch[2][4096];	/* built paths (e.g. Grep's path joined with its glob) */
};

/* An empty call of kind OTHER. */
void hook_call_init(struct hook_call *call);
/* Adds a path (not copied) with its operation and makes the call a PATH call; out of
 * memory, the call becomes INVALID (and is refused). Returns 0 or -ENOMEM. */
int hook_call_add_path(struct hook_call *call, const char *path, enum pol_op op);
/* Makes the call INVALID: why (a static sentence) is the reason the agent gets. */
void hook_call_invalid(struct hook_call *call, const char *why);
/* Frees the list of paths; the call is then empty. */
void hook_call_release(struct hook_call *call);

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

/* The intent scope check (cli/call.c, policy/intent.h): when the project has an
 * intents file, the call's writes (file tools' paths, the write/delete paths of a shell
 * command, destructive tools dcg cannot see into) are checked against the active
 * intent of the call's folder and session; a worse result replaces r. Its strings live
 * until the process ends (or the next call from another folder or session). */
void hook_intent_apply(const struct pol_policy *p, const struct hook_call *call,
		       struct pol_result *r);
/* 1 when a call of kind OTHER (a tool dcg cannot see into) has to be decided anyway:
 * it names a tool and its folder has an intents file (tool classes may ask). */
int hook_intent_confines(const struct hook_call *call);
/* For `dcg run --intent ID` (and the sandbox): finds the intents file from the working
 * directory, refuses an ID it does not hold (the known IDs go to err), and sets
 * $DCG_INTENT and $DCG_INTENTS_FILE for the guarded processes. Returns 0 or -1. */
int hook_intent_prepare_run(const char *id, FILE *err);

/* The allow-once side of a refused command (cli/cmd_once.c, policy/once.c): a redeemed
 * grant of this exact command in this folder (the repository's root, else the call's
 * folder) with a use left turns r into an allow (allowed_by_once, the use taken); else
 * a deny is offered a code (r->once_code). Only for commands, and only for refusals a
 * code may be offered for (pol_once_offerable). */
void hook_once_apply(const struct pol_policy *p, const struct hook_call *call,
		     struct pol_result *r);

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

/* ---- allowlist listing (cli/allow_list.c) ------------------------------------------------------ */

/* Where a node lies in the text: bytes [start, end); flow: inside [...] or {...}. */
struct hook_allow_span {
	size_t start, end;
	int flow;
};

#define HOOK_ALLOW_MAX_PATHS 8

/* One entry of an `allow:` list as written. */
struct hook_allow_item {
	char rule[128], reason[256], expires[32];
	char paths[HOOK_ALLOW_MAX_PATHS][256];
	size_t n_paths;
	int paths_single; /* `path: GLOB` or `paths: GLOB` rather than a list */
	unsigned line;
	struct hook_allow_span span, path_spans[HOOK_ALLOW_MAX_PATHS];
};

/* The entries of text's top-level `allow:` list (*items malloc'ed, *n of them; none
 * when there is no list). Returns 0, -EINVAL (not YAML), -ENOMEM. */
int hook_allow_items(const char *text, size_t len, struct hook_allow_item **items, size_t *n);
/* text without the node at s (an entry or one path of an entry), its "- " or comma
 * included; malloc'ed, NULL on ENOMEM. */
char *hook_allow_cut(const char *text, size_t len, const struct hook_allow_span *s);

/* ---- files ------------------------------------------------------------------------------------ */

/* Reads a whole file (at most max bytes) into a malloc'ed NUL-terminated buffer.
 * Returns 0, -ENOENT, -EFBIG, or another -errno. */
int hook_read_file(const char *path, size_t max, char **out, size_t *len);
/* Replaces path atomically with data (temp file in the same folder, fsync, rename),
 * keeping the old file's mode (else mode), creating missing parent folders. */
int hook_write_atomic(const char *path, const char *data, size_t len, unsigned mode);

/* ---- policy loading for the commands ---------------------------------------------------------- */

/* Builds the layered policy (embedded, system, user, project from cwd, then
 * policy_file or $DCG_POLICY). Diagnostics go to err as "file:line:col: rule: message" lines, and
 * the embedded defaults stay active. cwd NULL: the process's. Returns the policy or
 * NULL when even an empty policy could not be allocated. */
struct pol_policy *hook_policy_open(const char *policy_file, const char *cwd, FILE *err);

/* Prints one diagnostic in the file:line:col: rule: message form. */
void hook_print_diag(FILE *out, const struct pol_diag *d);

/* Says which loosening entries of an untrusted project policy file were ignored and
 * how the user trusts it (hook/cmd_trust.c): one line when brief (the hook's stderr),
 * else one line per entry (status, rules list). Prints nothing when there are none. */
void hook_print_trust_notes(FILE *out, const struct pol_policy *p, int brief);
/* The `mode:` line of dcg status: enforce, observe (dcg refuses nothing) or some rules
 * observed (pol_observe_mode). */
void hook_print_observe_note(FILE *out, const struct pol_policy *p);
/* The hook's stderr for a call observe mode let through: what it would have been. */
void hook_print_observed(FILE *out, const struct pol_result *r);

#endif /* DCG_HOOK_H */
