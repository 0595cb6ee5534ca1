/* intent.h - intent scopes: writes confined to the active intent's owned_scope.
 *
 * Code: intent_load.c reads the intents file (and the tools lists of policy files)
 * into a set; intent_scope.c decides paths, commands and tools against the set's
 * active intent and writes the structured error; intent_state.c keeps the selection
 * and opens the set of a process; intent_int.h is what they share.
 *
 * A project that plans its work as intents describes them in
 * .orchestration/active_intents.yaml at its root:
 *
 *   active_intents:
 *     - id: INT-001
 *       name: JWT authentication
 *       status: IN_PROGRESS
 *       owned_scope: ["src/auth/", "src/middleware/jwt.ts", "!*.test.ts"]
 *       constraints: ["keep the public API"]
 *       acceptance_criteria: ["unit tests pass"]
 *
 * One intent is active (selected with `dcg intent select`, stored per project and per
 * agent session, see "selection"). A write, create, truncate, delete, rename or
 * metadata change of a path outside its owned_scope is a SCOPE_VIOLATION (ask); a
 * write with no active intent is MISSING_INTENT (deny); an active ID that the file
 * does not hold is INTENT_NOT_FOUND (deny). Reads, listings and execs are never
 * confined. The results are ordinary decision records (detection POL_DET_SCOPE) with
 * the rule IDs below; their reason starts with the error code ("SCOPE_VIOLATION: ...")
 * so that one-line messages and the audit log carry it, and pol_intent_error_json()
 * gives the structured error an agent parses: {"error","reason","suggestion",
 * "recoverable"}.
 *
 * owned_scope patterns use the policy's path semantics (DESIGN.md "Path patterns"):
 * relative to the project root (the folder holding .orchestration/), `~`, `*` within
 * a component, `**` across, a pattern with no `/` matches a basename anywhere, a
 * folder (`dir/`, or `dir` + `/` + `**`) covers itself and everything beneath. Unlike the policy's
 * ordered lists, any `!` exclusion overrides every inclusion; a scope of exclusions
 * only owns everything in the project but them; an empty scope owns nothing.
 * Backslashes in a checked path are turned into `/` first (Windows-style paths from
 * an agent). A path is checked as written and after symlink resolution: both must be
 * in the scope, so a symlink inside the scope that points out of it does not pass.
 * A path whose written and resolved forms both lie outside the project root is not
 * governed by intents (scratch files, /dev/null, /tmp): the policy's path rules
 * still apply to it.
 *
 * Memory: loading allocates (malloc, libyaml); the checks (pol_intent_check_path,
 * pol_intent_check_path_at) allocate nothing and keep their buffers on the stack, so
 * the preload may call them anywhere. pol_intent_check_command uses the shell
 * analyser's arena (pol_mem_alloc). Strings in results point into the set and live as
 * long as it does. A loaded set is read-only: concurrent checks are safe.
 */
#ifndef DCG_INTENT_H
#define DCG_INTENT_H

#include <stddef.h>

#include "dcg_policy.h"

/* Where the intents file lives, relative to the project root. */
#define POL_INTENT_FILE ".orchestration/active_intents.yaml"

/* Rule IDs of scope results, and the error codes the structured error carries. */
#define POL_INTENT_RULE_VIOLATION "scope.violation"	   /* SCOPE_VIOLATION, ask */
#define POL_INTENT_RULE_MISSING	  "scope.missing_intent"   /* MISSING_INTENT, deny */
#define POL_INTENT_RULE_NOT_FOUND "scope.intent_not_found" /* INTENT_NOT_FOUND, deny */
#define POL_INTENT_RULE_INVALID	  "scope.intents_invalid"  /* INVALID_INTENTS_FILE, deny */
#define POL_INTENT_RULE_TOOL	  "scope.unchecked_tool"   /* UNCHECKED_TOOL, ask */

struct pol_intent {
	const char *id;
	const char *name;   /* "" when absent */
	const char *status; /* "" when absent */
	const char *const *owned_scope;
	size_t n_owned_scope;
	const char *const *constraints;
	size_t n_constraints;
	const char *const *acceptance_criteria;
	size_t n_acceptance_criteria;
	unsigned line; /* where the entry starts in the file */
};

/* A loaded intents file, its active intent and the tool classes. Opaque. */
struct pol_intent_set;

/* A message about the intents file (or a policy file's `tools:` key). */
struct pol_intent_diag {
	char file[256];
	unsigned line, col; /* 1-based; 0 when unknown */
	char msg[256];
};

/* ---- finding and loading ------------------------------------------------------------ */

/* Looks for POL_INTENT_FILE in cwd and its parents. Writes the file's path into file
 * and the project root (the folder holding .orchestration/) into root. Returns 0,
 * -ENOENT when no folder up to / has one, -ENAMETOOLONG. On an error, file and root
 * hold no path (root may hold a folder of the walk). */
int pol_intent_find_file(const char *cwd, char *file, size_t file_size, char *root,
			 size_t root_size);

/* Loads an intents file. root is the project root its patterns are relative to (NULL:
 * the folder above the file's folder). Returns 0 and *out, or: -ENOENT (no file),
 * -EINVAL (the file cannot be used: not YAML, no `active_intents` list; *out is still
 * set, to a set in the invalid state, whose checks deny every write with
 * scope.intents_invalid), -ENOMEM. An entry with errors (no id, a duplicate id, a
 * wrong type) is left out and gets a diagnostic; the others stay usable. The caller
 * frees *out with pol_intent_free(). */
int pol_intent_load(const char *file, const char *root, struct pol_intent_set **out);
/* The same from a buffer; name is used in diagnostics. */
int pol_intent_load_buffer(const char *name, const char *buf, size_t len, const char *root,
			   struct pol_intent_set **out);
/* Frees a set; NULL is a no-op. */
void pol_intent_free(struct pol_intent_set *s);

size_t pol_intent_diag_count(const struct pol_intent_set *s);
const struct pol_intent_diag *pol_intent_diag_get(const struct pol_intent_set *s, size_t i);
/* 1 when the file was refused whole (see pol_intent_load). */
int pol_intent_invalid(const struct pol_intent_set *s);
const char *pol_intent_file(const struct pol_intent_set *s);
const char *pol_intent_root(const struct pol_intent_set *s);

size_t pol_intent_count(const struct pol_intent_set *s);
const struct pol_intent *pol_intent_get(const struct pol_intent_set *s, size_t i);
/* The intent with this ID, or NULL. */
const struct pol_intent *pol_intent_find(const struct pol_intent_set *s, const char *id);

/* Makes id the active intent (NULL or "": none). An id the file does not hold is kept
 * as the selection, so that checks answer INTENT_NOT_FOUND. Returns 0, -ENOENT (unknown
 * id, still recorded), -ENOMEM. Not thread-safe: call before checks start. */
int pol_intent_select(struct pol_intent_set *s, const char *id);
/* The active intent, or NULL (none selected, or an unknown ID). */
const struct pol_intent *pol_intent_active(const struct pol_intent_set *s);
/* The selected ID (known or not), or NULL. */
const char *pol_intent_selected_id(const struct pol_intent_set *s);

/* ---- scope matching ----------------------------------------------------------------- */

/* 1 when the absolute, normalized path lies in the intent's owned_scope, else 0
 * (pure pattern matching: no symlinks, no root exemption). */
int pol_intent_in_scope(const struct pol_intent_set *s, const struct pol_intent *in,
			const char *abs_path);

/* ---- decisions ----------------------------------------------------------------------- */

/* 1 when op changes the file system (write, create, truncate, delete, rename, chmod),
 * the operations an owned_scope confines. */
int pol_intent_op_confined(enum pol_op op);

/* Decides op on path against the active intent. path may be relative (to cwd, or the
 * process's working directory when cwd is NULL), start with ~ (home) and use
 * backslashes. flags are pol_path_flags (POL_PATH_NOFOLLOW for the last component,
 * POL_PATH_IS_DIR for a folder deleted or moved: refused when an excluded path lies
 * beneath it). Fills r (detection POL_DET_SCOPE, rule_id, reason, path, matched, op,
 * suggestions) and returns the decision. s NULL: allow. No allocation. */
enum pol_decision pol_intent_check_path(const struct pol_intent_set *s, const char *path,
					enum pol_op op, unsigned flags, const char *cwd,
					const char *home, struct pol_result *r);
/* The same for a path relative to a directory descriptor (AT_FDCWD: cwd). */
enum pol_decision pol_intent_check_path_at(const struct pol_intent_set *s, int dirfd,
					   const char *path, enum pol_op op, unsigned flags,
					   const char *cwd, const char *home, struct pol_result *r);

/* Decides a shell command: every path the shell analysis finds it writing, creating,
 * deleting or moving (redirections, rm, mv, cp, tee, touch, ...) is checked with
 * pol_intent_check_path; the worst decision wins. A command the analyser cannot
 * finish is denied with scope.violation (the command as matched text). */
enum pol_decision pol_intent_check_command(const struct pol_intent_set *s, const char *cmd,
					   size_t len, const char *cwd, const char *home,
					   struct pol_result *r);

/* ---- tool classes -------------------------------------------------------------------- */

enum pol_intent_tool_class {
	POL_INTENT_TOOL_READ_ONLY = 0, /* reads only: never confined */
	POL_INTENT_TOOL_DESTRUCTIVE,   /* writes, deletes or executes */
};

/* Reads the `tools:` key of a policy file (the policy loader accepts and ignores it):
 *
 *   tools:
 *     read_only: [mcp__github__get_*, WebFetch]   # tool names or globs
 *     destructive: [mcp__db__*]
 *     destructive_need_approval: true            # default false
 *
 * Later calls add to earlier ones; a name listed in both classes is destructive.
 * Returns 0, -ENOENT (no file: nothing added), -EINVAL (diagnostics added), -ENOMEM. */
int pol_intent_tools_load(struct pol_intent_set *s, const char *policy_file);
int pol_intent_tools_load_buffer(struct pol_intent_set *s, const char *name, const char *buf,
				 size_t len);
/* A tool's class: the tools lists first (destructive wins), then known_read_only, what
 * the caller knows of its own tools (the agent adapters list the agents' read-only
 * tools: policy/ knows no agent); any other tool (Bash, Write, apply_patch, MCP
 * tools...) is destructive (fail safe), and so is a missing name. */
enum pol_intent_tool_class pol_intent_tool_class(const struct pol_intent_set *s, const char *tool,
						 int known_read_only);
/* 1 when the policy said destructive tools need approval. */
int pol_intent_tools_need_approval(const struct pol_intent_set *s);

/* Decides a tool call whose paths dcg cannot see (an MCP tool, an unknown tool): a
 * read-only tool passes; a destructive one passes unless destructive tools need
 * approval, then it is asked (rule scope.unchecked_tool), or denied with
 * MISSING_INTENT / INTENT_NOT_FOUND when no usable intent is active. s NULL: allow. */
enum pol_decision pol_intent_check_tool(const struct pol_intent_set *s, const char *tool,
					int known_read_only, struct pol_result *r);

/* ---- the structured error --------------------------------------------------------------- */

/* "SCOPE_VIOLATION", "MISSING_INTENT", "INTENT_NOT_FOUND", "INVALID_INTENTS_FILE",
 * "UNCHECKED_TOOL" for a scope result, else NULL. */
const char *pol_intent_error_code(const struct pol_result *r);
/* Writes {"error":CODE,"reason":...,"suggestion":...,"recoverable":true} for a scope
 * result into out (size bytes, NUL-terminated, cut strings stay valid JSON). Returns
 * the length written, or 0 when r is not a scope result or size is too small
 * (< 256). No allocation. */
size_t pol_intent_error_json(const struct pol_result *r, char *out, size_t size);

/* ---- selection -------------------------------------------------------------------------- */

/* The active intent is kept in a small file under $XDG_STATE_HOME/dcg/intents/ (else
 * ~/.local/state/dcg/intents/), one per project root, and one per project and agent
 * session when a session ID is given: "<basename>-<hash of root>[@<session>]". The
 * file holds the ID on its first line and the root on its second. Writes are atomic
 * (temporary file and rename). */

/* The state file for root (and session, NULL for the project's). Returns 0 or
 * -ENAMETOOLONG, -EINVAL (no home and no XDG_STATE_HOME). */
int pol_intent_state_path(const char *root, const char *session, char *out, size_t size);
/* Reads the selection: the session's when session is given and it has one, else the
 * project's. *from_session tells which (may be NULL). Returns 0, -ENOENT (nothing
 * selected), other -errno. */
int pol_intent_selection_get(const char *root, const char *session, char *id, size_t size,
			     int *from_session);
/* Stores id as the selection of the project (session NULL) or the session; id NULL
 * clears it (no file: 0). Returns 0 or a negative errno. */
int pol_intent_selection_set(const char *root, const char *session, const char *id);

/* The whole step for a layer: finds the intents file from cwd, loads it and selects
 * explicit_id when given, else the stored selection for session. Returns NULL with
 * *err = -ENOENT when the project has no intents file (no confinement), NULL with
 * another negative errno on failure, else a set (*err 0, or -EINVAL for a refused
 * file whose checks deny every write). */
struct pol_intent_set *pol_intent_open(const char *cwd, const char *session,
				       const char *explicit_id, int *err);

/* For the runtime layers (`dcg run --intent ID`, the preload, the sandbox): when
 * $DCG_INTENT is set, loads $DCG_INTENTS_FILE (else the intents file found from the
 * working directory) and selects $DCG_INTENT, whatever the stored selection says.
 * Returns NULL when $DCG_INTENT is unset or empty (no confinement), when no intents
 * file can be found without $DCG_INTENTS_FILE, or on ENOMEM. A named file that is
 * missing or broken gives a set that refuses every write in its project. Call once
 * per process, at start-up (it allocates). */
struct pol_intent_set *pol_intent_open_env(void);
/* The same with the two values given (the preload passes the ones its process started
 * with, not what the program may have put in its environment since). */
struct pol_intent_set *pol_intent_open_from(const char *id, const char *file);

#endif /* DCG_INTENT_H */
