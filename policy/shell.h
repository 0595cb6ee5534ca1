/* shell.h - shell command analysis: the interface between the analyser (shell_*.c and
 * friends) and the decision engine (decide.c). Internal to policy/.
 *
 * The analyser turns a command string into units and hands each to a callback:
 * every simple command (normalized: wrappers stripped, quotes removed), every
 * heredoc or inline script with its language, every path the command touches with
 * the operation done to it, and findings decided by code (parse failures, content
 * piped into a shell). The decision engine matches the policy's rules against them.
 *
 * Memory: everything a unit points to lives in the arena until pol_arena_release();
 * the analyser allocates nothing else. Time and memory are linear in the input.
 */
#ifndef DCG_SHELL_H
#define DCG_SHELL_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "dcg_policy.h"

enum pol_unit_kind {
	POL_UNIT_COMMAND = 0, /* one simple command */
	POL_UNIT_SCRIPT,      /* a heredoc body or -c/-e argument in a language */
	POL_UNIT_PATH,	      /* a path and what the command does to it */
	POL_UNIT_FINDING,     /* a built-in rule the analyser decided (rule_id set) */
};

struct pol_unit {
	enum pol_unit_kind kind;
	/* COMMAND: the normalized words joined by single spaces; SCRIPT: the body. */
	const char *text;
	size_t len;
	/* COMMAND: the normalized words; word_off[i] is argv[i]'s offset in text;
	 * word_is_data[i] is 1 when argv[i] is data the command does not execute (a commit
	 * message, an echo argument, a grep pattern): command rules ignore matches that
	 * start inside a data word. */
	char **argv;
	size_t argc;
	const size_t *word_off;
	const unsigned char *word_is_data;
	/* COMMAND: how much of text the words take, before the redirections that follow
	 * them ("mv a b" of "mv a b 2> /dev/null"); a rule whose pattern names no
	 * redirection is matched on that much alone (pol_rule.words_only). 0: all of it. */
	size_t words_len;
	/* SCRIPT: the language ("python", "node", "ruby", "perl", "php", "bash", ...) and
	 * whether it came from a heredoc (else an inline -c/-e argument). Shell scripts are
	 * analysed recursively by the analyser itself; their units arrive as COMMANDs. */
	const char *language;
	int from_heredoc;
	/* SCRIPT: the calls that hand a shell one string literal (os.system("make"),
	 * execSync('npm -v'), `ls`) whose literal the analyser analyses as a command line,
	 * as the shell would run it (its units follow, COMMAND and PATH at depth + 1):
	 * [lit_calls[2k], lit_calls[2k + 1]) spans the callee to the literal's closing
	 * quote. A script rule's match that starts in one (or on the byte before it) is
	 * that call, which the literal's own units decide; NULL when there is none. */
	const uint32_t *lit_calls;
	size_t n_lit_calls;
/* In lit_calls[2k]: the call's command line deletes, truncates or moves away a path (in
 * a temporary folder too). Shelling out to destroy is what the interpreter's own rule is
 * for: its match there is held, and refuses when the call's own units do not. */
#define POL_LITCALL_DESTROYS 0x80000000u
	/* PATH: the path as written (after quote removal, ~ and $HOME expanded) and the
	 * operation. is_dir_op: rm -r / rmdir / mv of something that may be a folder. */
	const char *path;
	enum pol_op op;
	int is_dir_op;
	/* FINDING: a built-in rule (registered with pol_rule_add_builtin by
	 * pol_shell_register_builtins) and the text that triggered it. */
	const char *rule_id;
	/* Where the unit sits: its 1-based line in the original command. */
	unsigned line;
	/* Nesting depth ($(...), bash -c, eval): 0 at top level. */
	unsigned depth;
	/* COMMAND: every path the command deletes or overwrites lies beneath a temporary
	 * folder (/tmp, /var/tmp, /dev/shm, a folder mktemp made in the line); the rules
	 * that guard against deletion let it pass. */
	int temp_only;
	/* COMMAND: a dry run (--dry-run, rsync -n, git clean -n ...): changes nothing. */
	int dry_run;
};

/* After this many units the analyser drops a unit identical to one it already sent
 * (shell_units.c): a caller that infers something from a unit's absence (decide.c: a
 * command without path units) may rely on it only among the first ones. */
#define POL_SHELL_DEDUP_AFTER 32

/* Returns non-zero to stop the analysis early (e.g. a deny was found). */
typedef int (*pol_unit_fn)(const struct pol_unit *u, void *arg);

struct pol_shell_opts {
	const char *cwd;  /* for resolving relative paths; may be NULL */
	const char *home; /* for ~ and $HOME */
	/* an exec at runtime (the preload, the sandbox): the program that runs is seen
	 * there, so what the hook cannot see is not asked about (shell.unseen.*) */
	int runtime;
};

/* Analyses cmd (len bytes, not necessarily NUL-terminated) and calls fn for every
 * unit. Returns 0, the non-zero value fn returned, or a negative errno (-ENOMEM when
 * the arena is exhausted: the caller decides conservatively). */
int pol_shell_analyze(const char *cmd, size_t len, const struct pol_shell_opts *opts,
		      struct pol_arena *a, pol_unit_fn fn, void *arg);

/* Registers the analyser's built-in rules (IDs, reasons, severities) in the policy;
 * called once by pol_new(). Returns 0 or a negative errno. */
int pol_shell_register_builtins(struct pol_policy *p);

/* A built-in rule written in the binary: pol_new() registers each without a copy (the
 * rule borrows its strings and its suggestions array), as pol_rule_add_builtin() would.
 * POL_BUILTIN() writes the allow suggestion every rule ends with. */
struct pol_builtin {
	const char *id, *reason;
	enum pol_severity sev;
	const char *const sugg[2]; /* the suggestion, then the allow suggestion */
};
#define POL_BUILTIN(id, reason, sev, sugg)                                     \
	{                                                                      \
		id, reason, sev,                                               \
		{                                                              \
			sugg, "If intentional: dcg allow " id " -r \"reason\"" \
		}                                                              \
	}
/* Adds n built-in rules; none of their IDs may be in p yet (pol_new() adds its two
 * tables, whose IDs are distinct, to a policy with no other rule). 0 or a negative
 * errno. */
int pol_rule_add_builtins(struct pol_policy *p, const struct pol_builtin *b, size_t n);

#endif /* DCG_SHELL_H */
