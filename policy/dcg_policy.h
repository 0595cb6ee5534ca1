/* dcg_policy.h - the policy engine shared by the hook, the preload and the sandbox.
 *
 * This header is the manual. The library loads and compiles a policy and answers
 * questions about commands and paths with a decision record. It never prints, never
 * exits and never controls processes. Functions return 0 or a negative errno unless
 * said otherwise; a decision function returns the decision it stored in the result.
 *
 * Memory: loading uses malloc (and libyaml). Decisions allocate only through
 * pol_mem_alloc()/pol_mem_free(), which a host such as the preload may point at an
 * allocator that is safe between fork and exec (pol_set_allocator()).
 */
#ifndef DCG_POLICY_H
#define DCG_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DCG_VERSION "0.1.0"

/* ---- decision record --------------------------------------------------------- */

enum pol_decision { POL_ALLOW = 0, POL_LOG, POL_WARN, POL_ASK, POL_DENY };
enum pol_severity { POL_SEV_LOW = 0, POL_SEV_MEDIUM, POL_SEV_HIGH, POL_SEV_CRITICAL };
enum pol_detection {
	POL_DET_NONE = 0,
	POL_DET_COMMAND,
	POL_DET_HEREDOC,
	POL_DET_INLINE_SCRIPT,
	POL_DET_PATH,
	POL_DET_SCOPE,
};

/* Operations on a path, for the path rules (see DESIGN.md "Runtime semantics"). */
enum pol_op {
	POL_OP_READ = 0,
	POL_OP_WRITE,
	POL_OP_CREATE,
	POL_OP_TRUNCATE,
	POL_OP_DELETE,
	POL_OP_RENAME_FROM,
	POL_OP_RENAME_TO,
	POL_OP_CHMOD, /* chmod, chown, utimes, xattrs: metadata writes */
	POL_OP_EXEC,
	POL_OP_LIST,
	POL_OP_LINK_FROM, /* the source of a hard link: a new name for protected data */
	POL_OP__COUNT
};

enum pol_path_kind { POL_PATH_ZERO_ACCESS = 0, POL_PATH_READ_ONLY, POL_PATH_NO_DELETE };

#define POL_MATCHED_CHARS     120 /* matched text is cut to this many characters */
#define POL_MATCHED_BYTES     (POL_MATCHED_CHARS * 4 + 8)
#define POL_RESULT_PATH_BYTES 1024

/* The record every layer gets. Strings marked "policy" point into the policy and
 * live as long as it does; buffers are inline, so a result needs no freeing unless
 * script was set (see pol_result_release()). */
struct pol_result {
	enum pol_decision decision;
	enum pol_severity severity;
	enum pol_detection detection;
	const char *rule_id;		/* policy; NULL when nothing matched */
	const char *reason;		/* policy; never redacted */
	const char *language;		/* static string ("bash", "python", ...) or NULL */
	const char *const *suggestions; /* policy; n_suggestions entries */
	size_t n_suggestions;
	const char *pattern; /* policy: the regex or path pattern that matched */
	const char *origin;  /* policy: file the rule came from ("<embedded>" for defaults) */
	char matched[POL_MATCHED_BYTES]; /* the matched text, unredacted, cut to 120 chars */
	unsigned line;			 /* 1-based line in the heredoc or script, 0 if none */
	/* With a finding callback (pol_ctx.finding): the 1-based line of the command text
	 * given that the finding sits on (for a heredoc or inline script, the line of the
	 * script's line inside it), 0 when not known. */
	unsigned cmd_line;
	char path[POL_RESULT_PATH_BYTES]; /* path decisions: the path as resolved (cut) */
	enum pol_op op;			  /* path decisions: the operation refused */
	enum pol_path_kind path_kind;	  /* path decisions: which list refused it */
	int allowed_by_allowlist;	  /* 1 when a rule matched but an allow entry let it pass */
	int limit_hit; /* 1 when a regex hit its match limit (counted as match) */
	/* For heredocs and inline scripts: a copy of the script text, owned by the result,
	 * so that a caller can print a context window. Only set when the check context asks
	 * for it (POL_CTX_KEEP_SCRIPT). */
	char *script;
	size_t script_len;
	/* When allowed_by_allowlist: the entry that let it pass (policy strings). */
	const char *allow_reason;
	const char *allow_origin;
	unsigned allow_line;
	/* Observe mode (mode: observe, observe: [...]): the deny or ask the rule would have
	 * given, now a logged pass (decision POL_LOG); POL_ALLOW when not observed. */
	enum pol_decision observed;
	/* A refusal of a command: the allow-once code offered for it (policy/once.c), "" if
	 * none; allowed_by_once: a redeemed grant let this exact command pass. */
	char once_code[12];
	int allowed_by_once;
};

/* Sets every field to its empty value (decision allow). */
void pol_result_init(struct pol_result *r);
/* Frees what the result owns (the script copy). Safe on an initialised result. */
void pol_result_release(struct pol_result *r);

const char *pol_decision_name(enum pol_decision d); /* "allow", "log", "warn", "ask", "deny" */
const char *pol_severity_name(enum pol_severity s); /* "critical", "high", ... */
const char *
pol_detection_name(enum pol_detection d); /* "command", "heredoc", "inline_script", ... */
const char *pol_op_name(enum pol_op op);  /* "read", "write", "delete", ... */
const char *pol_path_kind_name(enum pol_path_kind k); /* "zeroAccessPaths", ... */
/* Parses a severity name; returns 0 or -EINVAL. */
int pol_severity_parse(const char *s, enum pol_severity *out);

/* ---- allocation hook ----------------------------------------------------------- */

typedef void *(*pol_alloc_fn)(size_t size);
typedef void (*pol_free_fn)(void *ptr);
/* Replaces the allocator used by decisions (and lazy regex compilation). Call once,
 * before any decision, from a single thread. NULL restores malloc/free. */
void pol_set_allocator(pol_alloc_fn alloc, pol_free_fn release);
void *pol_mem_alloc(size_t size);
void pol_mem_free(void *ptr);

/* ---- loading --------------------------------------------------------------------- */

struct pol_policy;

/* A message about a policy file: syntax errors, wrong types, unknown keys, regexes
 * that do not compile. The file's remaining entries stay active. */
struct pol_diag {
	char file[256];
	unsigned line, col; /* 1-based; 0 when unknown */
	char rule[128];	    /* the rule at fault (its ID or pattern), may be empty */
	char msg[256];
	int fatal; /* 1 when the whole file was refused (syntax error, too big) */
};

/* Where the policy files are. Fill with pol_env_from_process() or by hand; every
 * field may be NULL. */
struct pol_env {
	const char *home;	     /* $HOME, for ~ */
	const char *cwd;	     /* working directory, for the project file and roots */
	const char *xdg_config_home; /* default $HOME/.config */
	const char *policy_file;     /* --policy or $DCG_POLICY: loaded last */
	int no_user;		     /* skip the user file (tests) */
	int no_project;		     /* skip the project file (tests) */
	/* The system file: $DCG_SYSTEM_POLICY, else /etc/dcg/policy.yaml; NULL: that
	 * default. no_system skips it (tests). */
	const char *system_file;
	int no_system;
	/* The trust records (pol_trust_path() when NULL). */
	const char *trust_file;
	const char *xdg_state_home; /* default $HOME/.local/state */
	/* The dcg binary in force, canonical (the launcher's or the hook's
	 * /proc/self/exe), and the guard library in force when it lies elsewhere
	 * ($DCG_PRELOAD, canonical): with what lies beside them (libdcg-preload.so,
	 * libdcg-engine.so, ../lib/dcg/), the guard's own files (pol_load_layers).
	 * NULL: unknown, left out. */
	const char *dcg_exe;
	const char *guard_lib;
};
/* Fills env from getenv() and getcwd() into the given buffer of cwd_size bytes
 * (dcg_exe and guard_lib stay NULL: only the program knows it is dcg). */
void pol_env_from_process(struct pol_env *env, char *cwd_buf, size_t cwd_size);

/* The guard's own files (DESIGN.md "The guard defends itself"), one row each: where
 * env puts them (pol_self_path()), whether the row is a folder and all beneath it,
 * and whether dcg's own processes (owner :dcg) may write it. pol_load_layers() makes
 * each row a guarded read-only rule named by its id (dcg.self.*), which no file may
 * lift, in every layer: the hook's file tools and shell forms, the preload and the
 * sandbox. */
enum pol_self_where {
	POL_SELF_CONFIG,      /* the user's config folder: $XDG_CONFIG_HOME/dcg/ */
	POL_SELF_STATE,	      /* the state folder: trust, allowlist, allow-once, ... */
	POL_SELF_TRUST,	      /* the trust records, where $DCG_TRUST_FILE puts them */
	POL_SELF_LOG,	      /* the audit log ($DCG_LOG) */
	POL_SELF_LOG_ROTATED, /* and its rotated generation */
	POL_SELF_SYSTEM,      /* the system policy file */
	POL_SELF_POLICY,      /* --policy or $DCG_POLICY */
	POL_SELF_PROJECT,     /* the project's policy file */
	POL_SELF_RUNTIME,     /* the snapshot folder: snapshots, indexes, notes */
	POL_SELF_BINARY,      /* the dcg binary, what every agent's hook runs */
	POL_SELF_PRELOAD,     /* libdcg-preload.so beside it */
	POL_SELF_ENGINE,      /* libdcg-engine.so beside it */
	POL_SELF_LIBDIR,      /* ../lib/dcg/ beside it (make install) */
	POL_SELF_GUARD,	      /* the guard library in force when elsewhere */
	POL_SELF_GUARD_ENGINE /* and the engine beside it */
};
struct pol_self_row {
	char id[24]; /* dcg.self.* */
	unsigned char where, folder, dcg_owned;
};
extern const struct pol_self_row pol_self_rows[];
extern const size_t pol_self_row_count;
/* Where env puts row `where` (root: the project root, for POL_SELF_PROJECT), into buf:
 * an absolute path, ending in '/' for a folder. Returns 0, or -ENOENT when this
 * environment has none (no --policy, no HOME...), -ENAMETOOLONG. */
int pol_self_path(enum pol_self_where where, const struct pol_env *env, const char *root, char *buf,
		  size_t size);
/* The guard's private runtime folder, where `dcg run` and `dcg sandbox` keep the
 * policy snapshot and its indexes: $XDG_RUNTIME_DIR/dcg, else /tmp/dcg-UID (no
 * trailing '/'). 0 or -ENAMETOOLONG. */
int pol_runtime_dir(char *buf, size_t size);

enum pol_load_flags {
	POL_LOAD_JIT = 1 << 0,	 /* JIT-compile patterns when they are compiled */
	POL_LOAD_EAGER = 1 << 1, /* compile every pattern at load (default: lazily, at first use) */
	/* For a policy one thread uses (dcg's commands): the embedded defaults' path
	 * patterns are expanded and resolved through symlinks at the first path
	 * decision, not at load, and the embedded rules are made into records only as
	 * decisions need them. Call pol_prepare() before sharing it with threads. */
	POL_LOAD_LAZY = 1 << 2,
	/* The root is "/" until pol_set_root() (or pol_load_layers() with a cwd) sets it:
	 * pol_new() does not ask for the process's working directory. */
	POL_NEW_NO_CWD = 1 << 3,
};

/* A new, empty policy (no rules at all). Returns NULL on allocation failure. */
struct pol_policy *pol_new(unsigned flags);
/* Frees a policy; NULL is a no-op. */
void pol_free(struct pol_policy *p);

/* Sets $HOME and the project root used to expand ~ and relative patterns of files
 * loaded afterwards. Defaults: $HOME and the working directory. */
int pol_set_home(struct pol_policy *p, const char *home);
int pol_set_root(struct pol_policy *p, const char *root);
const char *pol_root(const struct pol_policy *p);
const char *pol_home(const struct pol_policy *p);

/* Adds the embedded default policy. */
int pol_load_embedded(struct pol_policy *p);
/* Adds one file. Returns 0 (maybe with diagnostics), -ENOENT when it does not exist,
 * -EINVAL when it was refused whole (diagnostic added), other -errno on read errors. */
int pol_load_file(struct pol_policy *p, const char *path);
/* Adds a policy held in memory; name is used in diagnostics and origins. */
int pol_load_buffer(struct pol_policy *p, const char *name, const char *buf, size_t len);
/* The layered load: embedded defaults, the system file, the user file, the project
 * file (.dcg/policy.yaml found upwards from env->cwd; its folder's parent becomes the
 * project root), then env->policy_file. Missing optional files are skipped silently;
 * a missing policy_file is a diagnostic. Always leaves at least the embedded defaults
 * loaded. Returns 0, or -EINVAL when some file had errors (see the diagnostics).
 *
 * Trust runs downwards. The project file's tightening parts hold at once; its
 * loosening parts (disable:, allow:, and "!" exclusions, which then lift only the
 * project file's own patterns) are ignored unless the user trusted that exact content
 * (pol_trust_add); each ignored part is listed by pol_ignored_get(). The system
 * file's rules cannot be disabled, allowed or lifted by a later file unless the
 * system file names them in `overridable:`. */
int pol_load_layers(struct pol_policy *p, const struct pol_env *env);

/* ---- trust ------------------------------------------------------------------------ */

enum pol_trust {
	POL_TRUST_NONE = 0,  /* no project file was loaded, or it is the user's own */
	POL_TRUST_TRUSTED,   /* its hash is recorded */
	POL_TRUST_UNTRUSTED, /* no record */
	POL_TRUST_CHANGED,   /* a record for another content: it changed since trusted */
	POL_TRUST_BROKEN,    /* the trust records or the file could not be read */
};

/* The trust records' path: $DCG_TRUST_FILE, else $XDG_STATE_HOME/dcg/trusted, else
 * ~/.local/state/dcg/trusted. Returns 0, -ENOENT (no HOME) or -ENAMETOOLONG. */
int pol_trust_path(char *buf, size_t size);
/* Records the hash of policy_file's content (by its real path), replacing any older
 * record for it; the real path is written to real_out when given. 0 or -errno. */
int pol_trust_add(const char *trust_file, const char *policy_file, char *real_out,
		  size_t real_size);
/* Forgets policy_file. 0, -ENOENT when there was no record, or another -errno. */
int pol_trust_remove(const char *trust_file, const char *policy_file, char *real_out,
		     size_t real_size);
/* Looks real_path up with the hex SHA-256 of its content; why gets a short reason
 * when the answer is not POL_TRUST_TRUSTED. A malformed record never trusts. */
enum pol_trust pol_trust_lookup(const char *trust_file, const char *real_path, const char *hex,
				char *why, size_t why_size);
/* SHA-256 of data as 64 lowercase hex digits and a NUL. */
void pol_sha256_hex(const void *data, size_t len, char hex[65]);

/* The project file's trust after pol_load_layers: its state, the file and a short
 * reason (both NULL with POL_TRUST_NONE); pointers live as long as the policy. */
enum pol_trust pol_project_trust(const struct pol_policy *p, const char **file, const char **why);

/* A loosening part of a policy file that was not applied. */
struct pol_ignored {
	const char *file; /* policy */
	unsigned line;
	const char *what; /* "disable", "allow", "exclusion" (static) */
	char text[128];	  /* the entry: a rule ID or a pattern */
	const char *why;  /* static: "the file is not trusted", "a system rule" ... */
};
size_t pol_ignored_count(const struct pol_policy *p);
const struct pol_ignored *pol_ignored_get(const struct pol_policy *p, size_t i);

/* The files that were loaded, in order ("<embedded>" first). */
size_t pol_file_count(const struct pol_policy *p);
const char *pol_file_name(const struct pol_policy *p, size_t i);

size_t pol_diag_count(const struct pol_policy *p);
const struct pol_diag *pol_diag_get(const struct pol_policy *p, size_t i);

/* ---- rules (for listing, linting and `dcg allow`) ------------------------------- */

enum pol_rule_kind {
	POL_RULE_COMMAND = 0, /* regex on a shell command (bashToolPatterns and pack rules) */
	POL_RULE_SCRIPT,      /* regex on a heredoc or inline script of one language */
	POL_RULE_PATH,	      /* a zeroAccess / readOnly / noDelete entry */
	POL_RULE_BUILTIN,     /* decided by code in the analyser (e.g. parse errors) */
};

struct pol_rule_info {
	const char *id;
	enum pol_rule_kind kind;
	const char *pattern; /* regex source, path pattern, or NULL */
	const char *reason;
	const char *language; /* script rules: the language; else NULL */
	enum pol_severity severity;
	enum pol_decision decision;   /* what a match decides (before the allowlist) */
	enum pol_path_kind path_kind; /* path rules only */
	const char *origin;	      /* the file it came from */
	unsigned line;		      /* its line in that file, 0 for built-ins */
	const char *const *suggestions;
	size_t n_suggestions;
	/* path rules: the positional ID older versions gave (default.zero_access.18), still
	 * accepted in allow and disable entries and by pol_rule_find_alias(); else NULL */
	const char *alias;
	int active; /* on: not disabled, and its pack enabled when it is off by default */
};

/* A rule pack: the rules whose IDs share the prefix before the last dot
 * (core.git.reset_hard is in core.git). Path rules are in none. */
struct pol_pack_info {
	const char *name;   /* owned by the list: pol_pack_list_release() frees it */
	size_t rules;	    /* how many rules the pack holds */
	size_t active;	    /* how many are on (a pack is on when any is) */
	const char *guards; /* what it guards, one line; points into the policy */
};
/* Fills out (max entries) with every pack of the policy, sorted by name, and returns
 * how many there are (more than max: call again with a larger array). */
size_t pol_pack_list(const struct pol_policy *p, struct pol_pack_info *out, size_t max);
/* Frees the names pol_pack_list() filled in for the first n entries. */
void pol_pack_list_release(struct pol_pack_info *packs, size_t n);
/* Turns every pack of p on (a `packs:` entry naming each, loaded as "<every pack>"):
 * what checking the examples of rules that are off by default needs. 0 or -errno. */
int pol_enable_every_pack(struct pol_policy *p);

/* A rule's own example (examples: {stop: [...], pass: [...]} in a policy file): a
 * command the rule must stop, or one it must let pass. */
struct pol_example {
	const char *rule_id;
	int stop;	     /* 1: stop: the rule must match it; 0: pass: it must not */
	const char *command; /* points into the document: valid during the callback only */
	unsigned line;	     /* its line in the text */
};
typedef int (*pol_example_fn)(const struct pol_example *ex, void *arg);
/* Calls fn for each example of each entry of the text's rules:, in order. Returns 0,
 * what fn returned when that was not 0 (it stops there), or a negative errno when the
 * text is no YAML document (the loader says why). */
int pol_examples_each(const char *buf, size_t len, pol_example_fn fn, void *arg);
/* Decides ex->command with p (as the analyser reads it, the rule tried on every unit)
 * and says whether it holds: 0 yes, 1 no (why says what happened), -ENOENT when p has
 * no such rule. A rule that is off never matches: pol_enable_every_pack() first. */
int pol_example_check(const struct pol_policy *p, const struct pol_example *ex, char *why,
		      size_t size);
/* The text of the i-th file the embedded policy was built from (policy/default.yaml,
 * then policy/packs/FAMILY.yaml in name order), with its name and length; NULL past
 * the last. Static data of the binary: nothing to free. */
const char *pol_embedded_source(size_t i, const char **name, size_t *len);

size_t pol_rule_count(const struct pol_policy *p);
/* Fills info for rule i (0 <= i < pol_rule_count); returns 0 or -ERANGE. */
int pol_rule_get(const struct pol_policy *p, size_t i, struct pol_rule_info *info);
/* Finds a rule by ID; returns its index or -ENOENT. */
ssize_t pol_rule_find(const struct pol_policy *p, const char *id);
/* The same, also taking a path rule's old positional ID (its alias). */
ssize_t pol_rule_find_alias(const struct pol_policy *p, const char *id);
/* Registers a rule decided by code (e.g. the shell analyser's parse failure). Returns
 * its index or a negative errno. Strings are copied. */
ssize_t pol_rule_add_builtin(struct pol_policy *p, const char *id, const char *reason,
			     enum pol_severity sev, const char *suggestion);
/* Writes up to max rule IDs closest to id (edit distance) into out; returns count. */
size_t pol_rule_suggest(const struct pol_policy *p, const char *id, const char **out, size_t max);

/* ---- decisions --------------------------------------------------------------------- */

enum pol_ctx_flags {
	POL_CTX_KEEP_SCRIPT = 1 << 0, /* copy the script text into the result (needs free) */
	POL_CTX_NO_ANALYSIS = 1 << 1, /* raw regex matching only, no shell analysis */
	/* The caller sees every real file operation of the command it asks about (the
	 * preload's and the sandbox's exec checks): a command's path arguments are then
	 * checked as written, without resolving symlinks or walking folders, which the
	 * runtime checks of each operation do anyway. Keeps an exec check cheap. */
	POL_CTX_RUNTIME = 1 << 2,
	/* The caller is the process `dcg run` or `dcg sandbox` started (the wrapped
	 * agent itself, not a process its tools start): path rules owned by ":agent"
	 * (the agent's own state and settings) do not refuse it. */
	POL_CTX_AGENT = 1 << 3,
	/* The running program carries code from outside the system folders (an object
	 * preloaded into it, an anonymous executable mapping): owners given by name or
	 * path (git, /usr/bin/git) do not count for it, since that code acts as the
	 * program. ":agent" still does; ":dcg" does not (dcg's binary with an object
	 * of the agent's preloaded into it). */
	POL_CTX_FOREIGN_CODE = 1 << 4,
	/* The command will run later, where no guard runs (`dcg scan`: a script, a recipe,
	 * a CI step written in a repository): as at runtime, a rule whose harm is deleting
	 * or overwriting local files (`runtime: paths`) leaves the decision to the paths
	 * the command names, unless it aims at the root, the home folder or a disk; the
	 * path units are checked as for the hook (no session of new files to lean on). */
	POL_CTX_SCAN = 1 << 5,
};

/* Called for every finding of a command (every unit a rule refuses, warns or logs,
 * after the allowlist), in the order met, when pol_ctx.finding is set; the analysis
 * then goes on past the first deny. r is valid during the call only. */
typedef void (*pol_finding_fn)(const struct pol_result *r, void *arg);

/* Does exe (an absolute path) lie in one of the policy's owner folders (ownerFolders:
 * /usr/, /bin/, /sbin/), where programs named as owners must live? */
int pol_owner_folder(const struct pol_policy *p, const char *exe);

/* One step of an explanation, for `dcg explain`. */
struct pol_trace_event {
	const char *what;    /* "normalized", "unit", "rule", "path", "allowlist", "note" */
	const char *rule_id; /* the rule tried, or NULL */
	const char *text;    /* the text it was tried on, or the message */
	size_t text_len;
	int matched; /* 1 matched, 0 not, -1 skipped by the prefilter */
};
typedef void (*pol_trace_fn)(const struct pol_trace_event *ev, void *arg);

struct pol_ctx {
	const char *cwd;    /* where the command runs; NULL: the policy root */
	unsigned flags;	    /* pol_ctx_flags */
	pol_trace_fn trace; /* optional */
	void *trace_arg;
	time_t now; /* for allowlist expiry; 0: time(NULL) */
	/* The running program's real path (runtime layers: /proc/self/exe), for path
	 * rules with owners (e.g. git keeps its own .git/ up to date); NULL: none. */
	const char *exe;
	/* This session's dcg binary (the launcher's): path rules owned by ":dcg" (dcg's
	 * log and state) do not refuse a process running it. NULL: none. */
	const char *dcg_exe;
	/* The running program's own arguments, NUL-separated as /proc/PID/cmdline, for
	 * owners that name a subcommand ("git stash": the system's git running its stash);
	 * NULL: unknown, and such an owner never matches. */
	const char *args;
	size_t args_len;
	/* Every finding, not only the worst (`dcg scan`); NULL: none. */
	pol_finding_fn finding;
	void *finding_arg;
};

/* Decides whether a shell command may run: every regex rule, the shell analysis
 * (segments, wrappers, heredocs, inline scripts) and the path rules on the paths
 * the command touches. The worst decision wins (deny > ask > warn > log > allow);
 * the allowlist is applied per rule. cmd need not be NUL-terminated; a NUL byte or
 * invalid UTF-8 inside it is a deny (rule input.invalid). */
enum pol_decision pol_check_command(const struct pol_policy *p, const char *cmd, size_t len,
				    const struct pol_ctx *ctx, struct pol_result *r);

/* Decides an operation on a path. The path is matched as written (after ~ and cwd)
 * and after resolution (.., ., //, symlinks; a missing tail resolves through its
 * nearest existing parent). Flags: */
enum pol_path_flags {
	POL_PATH_NOFOLLOW = 1 << 0, /* the last component is not followed (unlink, rename, lstat) */
	POL_PATH_IS_DIR = 1 << 1,   /* the operation is on a directory (rmdir, rename of a dir):
				     * also refused when a protected path lies beneath it */
	POL_PATH_CANONICAL = 1 << 2, /* path is absolute and already resolved (e.g. read back
				      * from /proc/self/fd): no second resolution */
	/* The object was created during this session (an atomic save's temporary file):
	 * no-delete rules let it be deleted or renamed away; on RENAME_TO, the source
	 * is such a file in the same folder (DESIGN.md "Atomic saves are edits"). On
	 * CHMOD (of the object itself: the path canonical or without symlinks), a
	 * zero-access name pattern naming it alone lets its mode, owner, times and
	 * extended attributes change, as for POL_PATH_CREATE_EXCL below (tar x). */
	POL_PATH_SESSION_NEW = 1 << 3,
	/* With POL_OP_CREATE (not POL_PATH_IS_DIR): the call creates a file that does not
	 * exist and cannot meet one that does (O_CREAT|O_EXCL). It reads no secret and
	 * overwrites nothing, so a zero-access rule that names a file anywhere (a name
	 * pattern without '/': *.pem, .env) does not refuse it when it matches the new
	 * name alone; an anchored zero-access rule (~/.ssh/), a name pattern matching a
	 * folder above it, and every other kind still do. Opening the file afterwards is
	 * judged as for any zero-access file. Never for mkdir, symlink, link or rename. */
	POL_PATH_CREATE_EXCL = 1 << 4,
};
enum pol_decision pol_check_path(const struct pol_policy *p, const char *path, enum pol_op op,
				 unsigned flags, const struct pol_ctx *ctx, struct pol_result *r);

/* Like pol_check_path for a path relative to a directory file descriptor (the *at()
 * calls): dirfd is resolved through /proc/self/fd (or AT_FDCWD: ctx->cwd / getcwd). */
enum pol_decision pol_check_path_at(const struct pol_policy *p, int dirfd, const char *path,
				    enum pol_op op, unsigned flags, const struct pol_ctx *ctx,
				    struct pol_result *r);

/* The runtime question for an exec: argv joined as the shell would see it. */
enum pol_decision pol_check_argv(const struct pol_policy *p, char *const argv[],
				 const struct pol_ctx *ctx, struct pol_result *r);

/* Applies the policy's allowlist to a result that carries a rule_id: when an
 * unexpired entry names the rule (and its paths, if any, cover path or ctx->cwd), the
 * decision becomes allow and allowed_by_allowlist is set. Decisions call it already;
 * exported for layers that make their own decisions (scope checks). */
void pol_apply_allowlist(const struct pol_policy *p, const struct pol_ctx *ctx, const char *path,
			 struct pol_result *r);

/* Observe mode: 1 when a refusal by rule_id is only logged (decisions then give
 * POL_LOG with result.observed the deny or ask it would have been). `mode: observe` and
 * `observe: [ID or pack]` come from the system file or the user's own files, never a
 * project file; the system file's `mode: enforce` forbids the user's; a user's entry
 * never reaches a system rule; dcg's own rules (dcg.self.*, system.dcg_self_change)
 * are never observed. */
int pol_observed(const struct pol_policy *p, const char *rule_id);
/* 1 when rule id guards dcg itself: dcg.self.*, hook.*, and a rule whose own name (after
 * the last dot) names dcg (default.read_only.home_config_dcg, system.dcg_self_change).
 * Neither observe mode nor an allow-once code lifts such a rule. */
int pol_rule_guards_dcg(const char *id);
/* 2 when the whole policy only observes (mode: observe), 1 when some rules do, else 0. */
int pol_observe_mode(const struct pol_policy *p);

/* Builds now what decisions would otherwise build lazily and share afterwards (the
 * embedded rules' compiled regexes), so that processes forked afterwards share it
 * instead of each building its own copy. Call it before forking; safe to repeat. */
void pol_warm(const struct pol_policy *p);
/* Finishes what POL_LOAD_LAZY left for the first decision (path patterns, the
 * embedded rules' records), so that threads can share the policy. Safe to repeat; pol_warm() calls it. */
void pol_prepare(const struct pol_policy *p);
/* 1 when ctx->exe can turn a path decision from allow into a refusal: an active path
 * exclusion ("!pattern") has owners, which then may not use it. A runtime layer that
 * finds the program's path costly decides without it, and again with it only when the
 * first answer is not allow or this is 1. */
int pol_exe_may_refuse(const struct pol_policy *p);

/* ---- paths -------------------------------------------------------------------------- */

/* Glob matching with dcg's path semantics on an absolute, normalized path: `*` within
 * a component, `**` across, `?`, `[...]`, dot-files matched. Returns 1 or 0. */
int pol_glob_match(const char *pattern, const char *path);

/* Lexical normalization: joins path to base (when relative) and folds ., .., //.
 * ~ and ~/ expand to home. Writes into out (size bytes). Returns 0 or -ENAMETOOLONG. */
int pol_path_normalize(const char *path, const char *base, const char *home, char *out,
		       size_t size);
/* Resolves symlinks in every component (like realpath), with a missing tail
 * resolved through the nearest existing parent and appended. nofollow leaves the last
 * component unresolved. Returns 0 or a negative errno. No allocation. out may be
 * abs_path itself (then the walk copies it first; otherwise it walks it in place). */
int pol_path_resolve(const char *abs_path, int nofollow, char *out, size_t size);

/* ---- snapshot (the compiled form the preload receives) ------------------------------ */

/* Serialises the loaded policy (rules, paths, allowlist, root, home) into a
 * malloc'ed buffer; *len gets its size. Returns NULL on error. */
char *pol_snapshot_save(const struct pol_policy *p, size_t *len);
/* Loads a snapshot saved by pol_snapshot_save(); no libyaml, no file access. */
int pol_snapshot_load(struct pol_policy *p, const char *buf, size_t len);

/* ---- audit log -------------------------------------------------------------------- */

struct pol_log_entry {
	const char *layer; /* "hook", "preload", "sandbox", "check" */
	const char *tool;  /* "Bash", "unlink", ... */
	const char *input; /* the command or path; redacted and cut by the logger */
	const char *agent; /* may be NULL */
	const char *cwd;   /* may be NULL */
	const struct pol_result *result;
	pid_t pid; /* the process the call came from; 0: the caller (getpid()) */
};
/* The log file: $DCG_LOG, else $XDG_STATE_HOME/dcg/audit.jsonl, else
 * ~/.local/state/dcg/audit.jsonl. Writes into buf; returns 0 or -ENAMETOOLONG. */
int pol_log_path(char *buf, size_t size);
/* Fixes the log file for this process, ahead of $DCG_LOG (path lives as long as the
 * process): the preload passes the value the process started with, so that a guarded
 * process that sets DCG_LOG, XDG_STATE_HOME or HOME moves no line of its own refusals
 * out of the log. NULL or a relative path is ignored. */
void pol_log_fix_path(const char *path);
/* Appends one JSON line with a single write() on an O_APPEND descriptor, creating the
 * folder when needed. No malloc. Returns 0 or a negative errno; a failure never
 * changes a decision. */
int pol_log_append(const struct pol_log_entry *e);

/* Redacts quoted strings ('...' and "...") in text: their content becomes "***".
 * Writes at most size-1 bytes and a NUL; returns the length written. */
size_t pol_redact(const char *text, size_t len, char *out, size_t size);

/* Redacts only what looks like a secret, for the audit log: tokens of the known
 * credential forms (AWS keys, GitHub, GitLab, Slack, OpenAI/Anthropic-style "sk-"
 * keys, JWTs, private key blocks), values of password/token/secret/api-key
 * assignments and options, a URL's password, and long random-looking strings, each
 * becoming "***". With quoted set (the call touched a zero-access path) the content
 * of quoted strings and heredocs goes too, as it may be the secret read or written.
 * Everything else stays, so the log shows what was targeted. No malloc. Writes at
 * most size-1 bytes and a NUL; returns the length written. */
size_t pol_redact_secrets(const char *text, size_t len, int quoted, char *out, size_t size);

/* The size past which the audit log is rotated (to FILE.1, replacing the one before):
 * $DCG_LOG_MAX_BYTES, else 10 MiB. */
size_t pol_log_max_bytes(void);
/* The length (1 to 4) of the well-formed UTF-8 character at s (len bytes available;
 * NUL is a character), or 0 when there is none (a stray byte, a cut sequence, an
 * overlong form, a surrogate, past U+10FFFF). */
size_t pol_utf8_char(const char *s, size_t len);
/* 1 when s (len bytes) is well-formed UTF-8 without NUL, else 0. */
int pol_utf8_valid(const char *s, size_t len);
/* Copies at most max_chars UTF-8 characters of text into out (size bytes), adding
 * "..." when cut. Returns the bytes written. */
size_t pol_truncate_utf8(const char *text, size_t len, size_t max_chars, char *out, size_t size);

/* The one atomic file write of dcg: data goes to a temporary file beside path
 * (PATH.dcg-XXXXXX), which is synced and renamed over path, so that a reader sees the
 * old file or the new one, never a part. A new file gets mode; a file replaced keeps
 * its own. The folder must exist. Returns 0 or a negative errno (nothing changed). */
int pol_write_atomic(const char *path, const char *data, size_t len, unsigned mode);
/* The one whole-file read of dcg: path's content, NUL-terminated, in *out (malloc'ed)
 * and its length in *len. Refuses a folder (-EISDIR), with regular_only anything but a
 * regular file (-EINVAL), and more than max bytes (-EFBIG); else 0 or -errno. */
int pol_read_file(const char *path, size_t max, int regular_only, char **out, size_t *len);

/* ---- allow-once codes (policy/once.c) ---------------------------------------------------
 *
 * A refused command is offered a short random code; the user redeems it at a terminal
 * (`dcg allow-once CODE`), which grants that exact command, in that folder, for a few
 * uses within a time limit. Two files in the folder of the trust records (dcg's state,
 * read-only to guarded processes in every layer):
 *   once-codes   the codes offered: "C CODE CREATED RULE FOLDER CMD" lines appended by
 *                whoever refused (the hook, the preload, the supervisor, which lets a
 *                tracee append to it as to the audit log: an offer grants nothing);
 *   once-grants  "G CODE EXPIRES USES CREATED RULE FOLDER CMD" lines written by
 *                `dcg allow-once` alone, "X CODE" (or "X *") for a revocation, and
 *                "U CODE KIND TIME" for each use, appended by the layer that let the
 *                command pass, under an exclusive lock of the file.
 * FOLDER and CMD are stored as hex. A hook's use of a grant also lets the execs of the
 * programs that command runs follow (the runtime layers see argv, not the agent's
 * string): up to POL_ONCE_FOLLOWS execs whose joined argv the command holds as whole
 * words, within POL_ONCE_FOLLOW_SECS of the use. Only pol_once_load() and the writers
 * of the command line allocate with malloc; the rest takes pol_mem_alloc() memory, or
 * none, and is safe between fork and exec. */

#define POL_ONCE_CODE_CHARS  8		      /* 40 random bits, Crockford's base32 */
#define POL_ONCE_CMD_MAX     4096	      /* a longer command is offered no code */
#define POL_ONCE_OFFER_TTL   (24 * 3600)      /* an unredeemed code lasts this long */
#define POL_ONCE_FOR_DEFAULT (24 * 3600)      /* a grant, unless --for says otherwise */
#define POL_ONCE_FOR_MAX     (30 * 24 * 3600) /* --for at most */
#define POL_ONCE_USES_MAX    100	      /* --uses at most */
#define POL_ONCE_FOLLOWS     8
#define POL_ONCE_FOLLOW_SECS 600
#define POL_ONCE_FILE_MAX    (4u << 20) /* bigger files are refused (compacted by the CLI) */

enum pol_once_file { POL_ONCE_CODES = 0, POL_ONCE_GRANTS };
/* The file's path: the folder of pol_trust_path() and "once-codes" or "once-grants".
 * 0, -ENOENT (no HOME) or -ENAMETOOLONG. */
int pol_once_path(enum pol_once_file which, char *buf, size_t size);
/* The folder a code is bound to: the nearest folder at or above cwd holding .git (a
 * repository's root), else cwd itself (absolute, normalised). 0 or -ENAMETOOLONG. */
int pol_once_folder(const char *cwd, char *out, size_t size);
/* 1 when a refusal may be offered a code: a deny by a rule of the policy that a user
 * may allow (not a system file's guarded rule, not dcg's own rules, not the hook's). */
int pol_once_offerable(const struct pol_policy *p, const struct pol_result *r);
/* The code offered for cmd (len bytes) in folder: an unexpired one already offered
 * for the same command and folder, else a new one (getrandom) appended to once-codes.
 * code gets POL_ONCE_CODE_CHARS characters and a NUL. 0 or a negative errno. */
int pol_once_offer(const char *folder, const char *cmd, size_t len, const char *rule_id, time_t now,
		   char code[12]);

enum pol_once_use { POL_ONCE_USE_HOOK = 'h', POL_ONCE_USE_EXEC = 'e' };
/* Takes a use of a redeemed, unexpired, unrevoked grant of cmd in folder: returns 1
 * when one was taken (or, for an exec, a follow of a hook's use), 0 when there is no
 * such grant, or a negative errno when the use could not be recorded (nothing was
 * taken: refuse). dry: nothing is written, 1 when a use would be taken. */
int pol_once_use(const char *folder, const char *cmd, size_t len, enum pol_once_use kind, int dry,
		 time_t now);

/* The runtime layers' exec check, after the policy's decision d on cmd (argv joined)
 * run in cwd: when d refuses (ask or deny) for a rule a code may be offered for, a
 * grant of cmd in cwd's folder lets it pass: returns POL_ALLOW with r->allowed_by_once
 * set and a use taken (dry: none taken, as the preload under dcg sandbox, whose
 * supervisor then takes it at the same exec). Otherwise a deny gets a code offered
 * (r->once_code) and d is returned. */
enum pol_decision pol_once_exec(const struct pol_policy *p, const char *cmd, const char *cwd,
				int dry, struct pol_result *r, enum pol_decision d);

/* A code as `dcg allow-once --list` shows it. */
struct pol_once_entry {
	char code[12];
	char rule[128];
	time_t created; /* when it was offered */
	time_t expires; /* the grant's end; an offer's: created + POL_ONCE_OFFER_TTL */
	unsigned uses, used, follows;
	int granted, revoked;
	char *folder, *cmd; /* malloc'ed, NUL-terminated (cmd may hold newlines) */
	size_t cmd_len;
};
/* Every code of both files, offers and grants, oldest first (a code offered twice is
 * one entry; a grant with no offer is one too). *out malloc'ed, n entries. 0 or -errno. */
int pol_once_load(struct pol_once_entry **out, size_t *n);
void pol_once_list_release(struct pol_once_entry *e, size_t n);
/* A code as typed (any case, dashes and spaces, I and L read as 1, O as 0) into its
 * canonical form: 0 or -EINVAL. */
int pol_once_code_parse(const char *in, char code[12]);
/* Appends the grant of e (its code, rule, folder and command): 0 or -errno. */
int pol_once_grant(const struct pol_once_entry *e, time_t expires, unsigned uses);
/* Appends a revocation of code, or of every code (NULL): 0 or -errno. */
int pol_once_revoke(const char *code);
/* Rewrites both files without what is expired, used up or revoked (under the grants'
 * lock): 0 or -errno. */
int pol_once_compact(time_t now);

#endif /* DCG_POLICY_H */
