/* shell_int.h - what the shell analyser's files share: words, redirections, commands,
 * the lexer's and the analysis' state, and the functions one file calls in another.
 * Internal to policy/shell*.c; the interface to the rest of policy/ is shell.h.
 *
 * The files:
 *   shell_lex.c    words: quoting, expansions, heredoc bodies, tokens
 *   shell_parse.c  the parser: simple commands, pipes, lists, subshells
 *   shell_units.c  units out (dedup, paths, variables), code strings parsed again
 *   shell_code.c   code for interpreters and shells: -c/-e, files, stdin, feeds
 *   shell_cmds.c   the table of commands the walk knows, and their handlers
 *   shell_walk.c   the walk: wrappers, normalization, dispatch, the public entry
 *   shell_eval.c   names the shell computes, positional parameters, unknown names
 *   shell_expand.c brace expansion, ${p@X}, arrays, printf -v, read, a glob name
 *   shell_rebind.c alias, hash -p, enable -f, copies of programs, variables run later
 *   shell_runs.c   programs that run a command they are handed (sh_runs), sh_unseen
 *
 * command string into units for the decision engine (see shell.h).
 *
 * Two phases. The parser reads the whole input once, left to right, into a flat list
 * of simple commands (words, redirections, pipe neighbours, heredoc bodies); command
 * substitutions, subshells and backticks are parsed where they stand and append their
 * own commands to the same list. The walk then takes the list in order: it strips
 * wrappers, emits units, and analyses strings that are code (bash -c, eval, ssh, watch,
 * heredocs fed to a shell) by parsing them and appending their commands to the end of
 * the list. The parser recurses one frame per nesting level and the walk only for
 * find -exec and su -- ; both stop at SH_MAX_NEST. Every byte is lexed a bounded number
 * of times (a budget of SH_WORK_FACTOR times the input), and floods of commands or
 * words are refused (SH_MAX_CMDS, SH_MAX_WORDS): the input is decided in milliseconds.
 *
 * What the units look like:
 *  - COMMAND: words after quote removal; argv[0] is the command's basename; wrappers
 *    (sudo, env, xargs, timeout ...) and git's global options stripped. When something
 *    was stripped, the command as written goes out first, then the normalized one. The
 *    redirections follow the words as pairs ("2>", "/dev/null"), so a rule can see
 *    "> /dev/sda". Data words (echo arguments, commit messages, patterns, code handed to
 *    an interpreter, here-strings) are flagged in word_is_data.
 *  - SCRIPT: python, node, ruby, perl, php code from -c/-e/-E/-r, heredocs, here-strings,
 *    echo/printf/cat piped into the interpreter, and files written by a heredoc earlier
 *    in the same command line and then run (language by interpreter, else shebang).
 *    Shell code is never a SCRIPT unit: it is parsed and its commands are walked.
 *  - PATH: the paths a known command touches, with ~, $HOME and variables assigned
 *    earlier in the line expanded, joined to a directory entered with cd in the same
 *    shell; words with other expansions are skipped. is_dir_op marks tree-wide
 *    operations (rm -r, rmdir, mv source, chmod -R, rsync --delete, find -delete, copies
 *    and archives of a tree). Nothing for ssh's remote side.
 *  - FINDING: shell.parse.unterminated / error / too_complex, remote-exec.pipe_to_shell,
 *    remote-exec.decode_to_shell, system.fork_bomb.
 * Paths wait until their command's unit has gone out, so that a command rule is tried
 * first. Identical units go out once (after the first SH_DEDUP_AFTER). Heredoc bodies
 * and variable names may point into the caller's buffer rather than the arena: both
 * live until pol_shell_analyze() returns.
 */
#ifndef DCG_SHELL_INT_H
#define DCG_SHELL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "shell.h"

#define SH_MAX_NEST    32 /* $( ( ` and bash -c levels: beyond, the input is refused */
#define SH_WORK_FACTOR 8  /* bytes lexed may not exceed this times the input, + slack */
#define SH_WORK_SLACK  65536
#define SH_MAX_HOME    4  /* $HOME / ~ occurrences remembered per word */
#define SH_MAX_FILES   16 /* heredoc-written files remembered per command line */
#define SH_MAX_REBINDS 16 /* aliases, hash -p, copies of programs remembered */
/* No command line an agent sends holds this many simple commands or words; past them
 * the input is refused (shell.parse.too_complex) rather than analysed for seconds. */
#define SH_MAX_VARS    32
#define SH_MAX_VAR_LEN 4096
#define SH_MAX_CMDS    10000
#define SH_MAX_WORDS   50000

/* ---- words, redirections, commands -------------------------------------------- */

enum {
	W_QUOTED = 1 << 0,     /* some part was quoted or escaped */
	W_UNRESOLVED = 1 << 1, /* holds an expansion other than $HOME (value unknown) */
	W_SUBST = 1 << 2,      /* holds $(...), `...` or <(...) */
	W_GLOB = 1 << 3,       /* unquoted * ? [ */
	W_DL = 1 << 4,	       /* a substitution in it runs a downloader */
	W_PROCSUB = 1 << 5,    /* is a process substitution <(...) */
	W_ARRAY = 1 << 6,      /* NAME=(...): a compound array assignment, elements joined by
				* single spaces between the parentheses */
	W_BRACE = 1 << 7,      /* an unquoted { : brace expansion may make several words */
};

struct sh_word {
	char *s;
	size_t len;
	unsigned flags;
	unsigned line;
	/* variable references: "~", "$HOME", "${HOME}", "$NAME" at home_off in s, home_len
	 * bytes long, naming var_name (var_nlen bytes; "~" names HOME). Path units expand
	 * them; any other expansion makes the word W_UNRESOLVED. */
	unsigned nhome;
	uint32_t home_off[SH_MAX_HOME];
	uint8_t home_len[SH_MAX_HOME];
	const char *var_name[SH_MAX_HOME];
	uint8_t var_nlen[SH_MAX_HOME];
	/* ${NAME@OP}: the transformation applied to the value (Q E P U u L), or 0 */
	uint8_t var_op[SH_MAX_HOME];
	/* $(...), `...`, <(...): how many, and the last command of the last one (its
	 * output, when the walk learns it, is the substitution's value) */
	unsigned nsub;
	struct sh_cmd *sub;
};

enum rkind {
	R_IN = 0,  /* <  */
	R_OUT,	   /* >  */
	R_APPEND,  /* >> */
	R_CLOBBER, /* >| */
	R_RW,	   /* <> */
	R_DUPIN,   /* <& */
	R_DUPOUT,  /* >& */
	R_OUTERR,  /* &> */
	R_APPERR,  /* &>> */
	R_HEREDOC, /* << and <<- */
	R_HERESTR, /* <<< */
};

struct sh_heredoc {
	const char *body;
	size_t len;
	unsigned line; /* line of the body's first line */
	int quoted;    /* delimiter quoted: no expansion in the body */
	int strip;     /* <<- : leading tabs removed */
	const char *delim;
	size_t dlen;
	struct sh_heredoc *next; /* pending list */
};

struct sh_redir {
	enum rkind kind;
	const char *op; /* as written, e.g. "2>", "<<-" */
	struct sh_word target;
	struct sh_heredoc *hd;
};

struct sh_cmd {
	struct sh_word *w;
	size_t nw;
	struct sh_redir *r;
	size_t nr;
	struct sh_cmd *pipe_prev; /* the command whose stdout feeds this one */
	struct sh_scope *scope;	  /* the shell it runs in */
	struct sh_cmd *next;	  /* list order */
	unsigned line, depth;
	int remote; /* runs on another machine (ssh): no local path units */
	/* filled by the walk, read by the consumer downstream of a pipe */
	const char *name; /* its command name after normalization */
	size_t nlen;
	int upstream_dl;     /* a downloader feeds this command's output */
	int upstream_decode; /* a decoder (base64 -d ...) feeds it */
	const char *feed;    /* known literal content this command writes to stdout */
	size_t feed_len;
	int feed_how; /* SH_CODE_* */
	unsigned feed_line;
};

/* ---- lexer ---------------------------------------------------------------------------- */

struct sh_lex {
	const char *s;
	size_t n, i;
	unsigned line;
	unsigned depth; /* nesting depth of this buffer (bash -c, backticks) */
	char *buf;	/* scratch for building words: a stack, outer words below inner */
	size_t blen, bcap;
	struct sh_heredoc *pend, *pend_tail;
	int remote;
	int arr; /* inside a compound array assignment's ( ... ) */
};

struct sh_file {
	const char *path;
	size_t plen;
	const char *body;
	size_t len;
	int how; /* SH_CODE_* */
	unsigned line;
};

/* Path units wait until their command's unit has gone out, so that a command rule
 * (with its better message) is tried first. */
struct sh_pq {
	struct pol_unit u;
	struct sh_pq *next;
};

struct sh_seen;

/* A shell's working directory: cd changes it for the commands that follow in the same
 * shell and in the subshells they start, never for the parent ($(cd /x && pwd)). */
struct sh_scope {
	struct sh_scope *parent;
	const char *cwd; /* NULL: the parent's */
};

struct sh_an {
	struct sh_scope *cur_scope;  /* while parsing: the shell the commands belong to */
	struct sh_scope *walk_scope; /* while walking: the current command's shell */
	struct sh_seen *seen;	     /* units emitted, for repeated ones */
	size_t n_emitted, n_seen;
	struct sh_pq *pq_head, *pq_tail;
	unsigned defer;
	struct pol_arena *a;
	pol_unit_fn fn;
	void *arg;
	const char *home;
	size_t home_len;
	struct sh_cmd *head, *tail;
	unsigned nest; /* current parse nesting */
	size_t ncmds, nwords;
	size_t work, work_cap;
	int ret;   /* what pol_shell_analyze returns: fn's value or -errno */
	int abort; /* stop everything */
	int reported_unterminated;
	struct sh_file files[SH_MAX_FILES];
	size_t nfiles;
	struct sh_word fnames[8]; /* functions defined so far (fork bomb check) */
	struct {
		const char *body; /* the body's text as written, from its "{" or "(" */
		size_t len;
		unsigned line, expanded; /* calls analysed with their arguments */
	} fbody[8];
	struct {
		const char *name, *value;
		size_t nlen, vlen;
	} vars[SH_MAX_VARS]; /* variables assigned so far, with known values */
	size_t nvars;
	size_t nfnames;
	unsigned paths_unknown; /* path operands that could not be resolved, so far */
	unsigned placeholders;	/* find -exec's {} met, so far */
	int find_temp; /* walking the -exec command of a find whose start points are all temp */
	const struct sh_word *disposed; /* a folder moved away for good (mv DIR /tmp) */
	unsigned disposed_line;
	int runtime; /* deciding an exec at runtime (pol_shell_opts.runtime) */
	struct sh_rebind {
		int kind; /* RB_* (shell_rebind.c) */
		const char *name, *value;
		size_t nlen, vlen;
	} rebinds[SH_MAX_REBINDS]; /* names rebound so far: alias, hash -p, copies */
	size_t nrebinds;
	unsigned rebinds_used; /* alias expansions so far (bounded) */
	int unit_temp_only;    /* the flags of the command units going out now */
	int unit_dry_run;
};

enum tok {
	T_EOF = 0,
	T_WORD,
	T_NL,
	T_SEMI,
	T_AMP,
	T_AND,
	T_OR,
	T_PIPE,
	T_PIPEAMP,
	T_LP,
	T_RP,
	T_DSEMI,
	T_REDIR,
};

struct sh_tok {
	enum tok t;
	struct sh_word w;
	enum rkind rk;
	const char *op;
};

enum { LANG_NONE = 0, LANG_SHELL, LANG_PYTHON, LANG_NODE, LANG_RUBY, LANG_PERL, LANG_PHP };

/* The state of one simple command during the walk. */
struct nc {
	struct sh_cmd *c;   /* the parsed command (redirections, pipes), may be NULL */
	struct sh_word **v; /* the words from the command name on (after wrappers) */
	size_t n;
	const char *name; /* basename of v[0] */
	size_t nlen;
	unsigned char *data; /* n flags */
	unsigned depth;
	int remote;
	unsigned line;
	const struct sh_cmdspec *spec; /* its row in the table, or NULL */
	int kind;		       /* enum cmd_kind of name */
	unsigned kflags;	       /* F_* of name */
	int query_only;		       /* command -v: nothing runs */
};

/* Operands of a command: words that are not options. sarg/larg: options with an
 * argument. seen: short option letters met. Stops taking options after "--". */
struct opscan {
	size_t op[64]; /* indexes into v of operands (at most 64 kept) */
	size_t nop;
	unsigned char seen[128];
	/* options with an argument: letter (or 0 for long), the long name, and the value */
	struct {
		char c;
		const struct sh_word *lw; /* the long option word (NULL for short) */
		struct sh_word val;
	} arg[32];
	size_t narg;
};

/* ---- command names: one lookup per command ------------------------------------------ */

/* What a command is, beyond its handler (struct sh_cmdspec.flags). */
enum {
	F_DL = 1,      /* fetches from the network: its output piped into a shell is a download */
	F_DEC = 2,     /* decodes or decompresses (maybe: see sh_is_decoder) */
	F_DB = 4,      /* a database client: SQL or commands on stdin are its command line */
	F_FEED = 8,    /* its stdout is known text (echo, printf, cat <<EOF) */
	F_WRAP = 16,   /* runs the command that follows (sudo, env, xargs ...) */
	F_LANG = 32,   /* a shell or an interpreter: code in -c/-e, a file or stdin */
	F_DECODE = 64, /* always decodes (base32, zcat ...), with no option needed */
	F_RUNS = 128,  /* runs a command it is handed: its rows in sh_runs (shell_runs.c) */
};

/* The handler of a command (struct sh_cmdspec.kind): K_OPERANDS is the table-driven
 * one; the others are code for commands whose operands need it. */
enum cmd_kind {
	K_NONE = 0,
	K_OPERANDS, /* every operand is a path, op and O_* say what is done to it */
	K_AWK,
	K_CD,
	K_CHMOD,
	K_CONTAINER,
	K_CURL,
	K_DD,
	K_ECHO,
	K_EVAL,
	K_FIND,
	K_GH,
	K_GIT,
	K_GREP,
	K_MVCP,
	K_OPENSSL,
	K_READER,
	K_RSYNC,
	K_SED,
	K_SET,
	K_SHIFT,
	K_SORT,
	K_SSH,
	K_SU,
	K_TAR,
	K_TRASH,
	K_TRUNCATE,
	K_UNZIP,
	K_WATCH,
	K_WGET,
	K_ZIP,
	K_COUNT
};

/* How K_OPERANDS treats its operands (struct sh_cmdspec.oflags). */
enum {
	O_DIR = 1,     /* every operand is a tree (rmdir) */
	O_DATA1 = 2,   /* the first operand is data, not a path (jq's filter) */
	O_ONE = 4,     /* only the first operand is a path (mknod NAME TYPE MAJOR MINOR) */
	O_ASSIGNS = 8, /* F_WRAP: NAME=value words may come before the command (env) */
	O_SUBCMD = 16, /* F_WRAP: a project launcher (uv run, bundle exec): sh_launcher_skip */
};

/* One row of the command table (shell_cmds.c): what the walk knows about a command. */
/* A row holds no pointer (names and option letters in arrays, the long options by index
 * in sh_largs), so that the table needs no relocation at start: it stays in read-only
 * pages the binary maps, not in pages each process copies. */
struct sh_cmdspec {
	char name[18];	  /* the basename the command is run by */
	uint8_t kind;	  /* enum cmd_kind: its handler */
	uint8_t flags;	  /* F_* */
	uint8_t op;	  /* K_OPERANDS, K_READER: enum pol_op done to each operand */
	uint8_t oflags;	  /* O_* */
	uint8_t larg;	  /* long options that take a value: an index in sh_largs (0 none) */
	uint8_t npos;	  /* F_WRAP: operands before the command (timeout's duration) */
	uint8_t has_sarg; /* sarg is known (else which options take a value is not) */
	char sarg[23];	  /* short options that take a value */
	char rec[4];	  /* short options that make the operation tree-wide */
	char lrec[21];	  /* long ones, "|"-separated ("--recursive|--dir") */
	char force[3];	  /* short options that force it past prompts and errors */
};

/* The long-option lists of the rows (word sets, as sh_word_is takes them); sh_largs[0]
 * is NULL. */
extern const char *const sh_largs[];
extern const size_t sh_nlargs;

/* A row's short options that take a value: NULL when unknown. */
static inline const char *sh_spec_sarg(const struct sh_cmdspec *sp)
{
	return sp->has_sarg ? sp->sarg : NULL;
}

/* The global options of the CLIs agents drive (shell_gopts.c): a row per CLI sorted by
 * name, its options packed (each word a mode character and the option, the list ended
 * by an empty word), and the number of rows. */
struct sh_gopts_row {
	char name[16];
	char opts[384];
};
extern const struct sh_gopts_row sh_gopts[];
extern const size_t sh_ngopts;
/* The options of the row of CLI name (len bytes), or NULL. */
const char *sh_gopts_of(const char *name, size_t len);
/* Writes into out (room for n words) v without the global options of row: before the
 * subcommand every option (one the row does not list taken for a flag), after it those
 * the row takes anywhere, up to "--". Returns the words written, or n (out then
 * unused) when nothing was dropped or nothing but the name would be left. */
size_t sh_gopts_strip(const char *row, struct sh_word **v, size_t n, struct sh_word **out);

/* The table, sorted by name (bytes), and its length. */
extern const struct sh_cmdspec sh_cmds[];
extern const size_t sh_ncmds;

/* The row of a command name (len bytes), or NULL. */
const struct sh_cmdspec *sh_cmd_lookup(const char *s, size_t len);

/* A handler: what a command does with its words (paths, data, code). */
typedef void (*sh_handler)(struct sh_an *P, struct nc *x);
/* The handler of a kind (enum cmd_kind), NULL for K_NONE. */
sh_handler sh_handler_of(unsigned kind);

/* A project launcher's words (a row with O_SUBCMD): its subcommands that run a command
 * (empty: the command follows its options), its options that take the next word as
 * their value and those that take none (word sets). 0 for a name that is none. */
int sh_launcher_words(const char *nm, size_t nl, const char **subs, const char **vals,
		      const char **flags);
/* LAUNCHER SUBCOMMAND [options] [--] COMMAND ...: v[i] is the word after the launcher's
 * name. The index of COMMAND, or 0 when the words run none that dcg can name (another
 * subcommand, an option whose arity is not listed, nothing after the options): the
 * command then stays as written. */
size_t sh_launcher_skip(struct sh_word **v, size_t n, size_t i, const char *nm, size_t nl);

/* One word of a command view: text, length, data flag. */
struct vw {
	const char *s;
	size_t len;
	unsigned char data;
};

#define NM(lit) sh_name_is(x->name, x->nlen, lit)

static inline int at(const struct sh_lex *L, size_t k)
{
	return L->i + k < L->n ? (unsigned char)L->s[L->i + k] : -1;
}

/* s (len bytes, may hold NULs) equals the literal? Stops at the first difference, so
 * that the long name lists below cost a byte or two per entry. */
static inline int lit_eq(const char *s, size_t len, const char *lit)
{
	for (size_t i = 0; i < len; i++)
		if (lit[i] == '\0' || lit[i] != s[i])
			return 0;
	return lit[len] == '\0';
}

static inline int weq(const struct sh_word *w, const char *lit)
{
	return lit_eq(w->s, w->len, lit);
}

/* ---- shared functions ---- */

/* A nested list ($(...), a subshell, backticks): one level deeper, in a shell of its
 * own. */
void sh_parse_nested(struct sh_an *P, struct sh_lex *L, int until_rp);
void *sh_alloc(struct sh_an *P, size_t size);
struct sh_scope *sh_new_scope(struct sh_an *P, struct sh_scope *parent);
const char *sh_scope_cwd(const struct sh_scope *sc);
char *sh_strndup(struct sh_an *P, const char *s, size_t len);
int sh_lex_init(struct sh_an *P, struct sh_lex *L, const char *s, size_t n, unsigned line,
		unsigned depth, int remote);
void sh_unterminated(struct sh_an *P, struct sh_lex *L, size_t from);
/* $(( ... )): arithmetic. Scans to the matching "))"; substitutions inside still run. */
void sh_lex_arith(struct sh_an *P, struct sh_lex *L, struct sh_word *w, size_t start);
unsigned sh_hexval(int c);
void sh_next_tok(struct sh_an *P, struct sh_lex *L, struct sh_tok *t);
/* Parses commands until the end of the buffer or, with until_rp, the matching ')'. */
void sh_parse_list(struct sh_an *P, struct sh_lex *L, int until_rp);
void sh_emit_finding(struct sh_an *P, const char *rule, const char *text, size_t len, unsigned line,
		     unsigned depth);
/* v[0..nwords) are the command's words, the rest its redirections (pairs). */
void sh_emit_command(struct sh_an *P, const struct vw *v, size_t n, size_t nwords, unsigned line,
		     unsigned depth);
/* The value of a variable: HOME from the options, others from assignments seen
 * earlier in the command line (D=~/.ssh; cat $D/id_rsa). NULL when unknown. */
const char *sh_var_value(struct sh_an *P, const char *name, size_t nlen, size_t *vlen);
/* The path form of a word: variables expanded, made relative to a directory entered
 * with cd. NULL when the word cannot name a known path. */
char *sh_path_form(struct sh_an *P, const struct sh_word *w, size_t *outlen);
/* NAME=value words of a command that only assigns (or export/declare/local): their
 * values, when known, expand later path arguments. */
void sh_record_assignment(struct sh_an *P, const struct sh_word *w);
void sh_emit_path(struct sh_an *P, const struct sh_word *w, enum pol_op op, int is_dir, int remote,
		  unsigned depth);
/* dir/basename(src): where mv, cp and ln put src when the target is a directory. */
void sh_emit_path_into(struct sh_an *P, const struct sh_word *dir, const struct sh_word *src,
		       enum pol_op op, int remote, unsigned depth);
/* Emits the path units queued after mark (NULL: all) and drops them from the queue. */
void sh_flush_paths(struct sh_an *P, struct sh_pq *mark);
/* ---- analysing strings that are code -------------------------------------------- */
void sh_analyze_string(struct sh_an *P, const char *s, size_t len, unsigned depth, unsigned line,
		       int remote);
/* Words joined by spaces: what ssh, watch and eval hand to a shell. */
char *sh_join_words(struct sh_an *P, struct sh_word **v, size_t n, size_t *outlen);
/* Like join_words, with variables whose values are known put in. */
char *sh_join_expanded(struct sh_an *P, struct sh_word **v, size_t n, size_t *outlen);
/* The language an interpreter name runs: python3.11, nodejs, perl5.36 ... */
int sh_lang_from_name(const char *name, size_t len);
/* The language named by a script's first line (#!/usr/bin/env python3), or NONE. */
int sh_lang_from_shebang(const char *s, size_t len);
/* A heredoc body as the consumer sees it (<<- strips leading tabs). */
const char *sh_heredoc_text(struct sh_an *P, const struct sh_heredoc *h, size_t *len);
/* How code reached its interpreter (sh_run_code's and sh_script_units' `how`). */
enum {
	SH_CODE_HEREDOC = 1, /* from a heredoc (else an argument, a pipe, a file) */
	/* the text is what the interpreter reads: no expansion of the outer shell is left in
	 * it ($X, $(...), backslashes of an unquoted heredoc), as in a quoted heredoc or a
	 * word without expansions; else only text without $ ` \ is read as written */
	SH_CODE_EXACT = 2,
	/* dcg's reading of what a command prints (printf, echo -e: escapes and conversions
	 * decoded approximately): its literals are not read as command lines */
	SH_CODE_GUESSED = 4,
	/* the interpreter's stdin is fed by the command line (a pipe, a redirection, a
	 * here-document that is not the code): a shell its code starts may read commands
	 * there, so its literals are not read as command lines either */
	SH_CODE_STDIN = 8,
};
/* Code in a language: shell is analysed here, others become SCRIPT units. */
void sh_run_code(struct sh_an *P, int lang, const char *s, size_t len, int how, unsigned line,
		 unsigned depth, int remote);
/* ---- the walk: normalization ------------------------------------------------------- */
/* Is W one of the words of SET? A set is its words one after the other, each ended by
 * a NUL, and an empty word after the last: "then\0" "do\0". Not an array of pointers:
 * the loader relocates every pointer of a static table at every start of dcg. */
int sh_word_is(const struct sh_word *w, const char *set);
int sh_is_assignment(const struct sh_word *w);
/* The command name of a word: its basename ("/bin/rm" -> "rm"). */
void sh_base_of(const struct sh_word *w, const char **s, size_t *len);
int sh_name_is(const char *s, size_t len, const char *lit);
/* Does a short option letter take an argument? Long options with an argument are
 * listed as "--name" (the "--name=value" form needs no list). */
int sh_opt_takes_arg(const char *sarg, int c);
int sh_long_takes_arg(const char *larg, const struct sh_word *w);
void sh_sub_word(const struct sh_word *w, size_t off, struct sh_word *out);
int sh_name_in(const struct nc *x, const char *const *set);
void sh_mark_data_from(struct nc *x, size_t from);
void sh_path(struct sh_an *P, struct nc *x, const struct sh_word *w, enum pol_op op, int dir);
/* A script file about to be run: when this command line wrote it from a heredoc,
 * its text is known and analysed in lang (or by its shebang when lang is NONE). */
void sh_run_file(struct sh_an *P, struct nc *x, const struct sh_word *w, int lang);
/* stdin of a command that runs it as code: heredocs, here-strings, and what a pipe
 * brings (a download, a decoder, or literal text from echo/printf/cat). */
void sh_run_stdin(struct sh_an *P, struct nc *x, int lang);
/* A word that names code fetched from the network: $(curl ...), <(wget ...). */
void sh_check_dl_word(struct sh_an *P, struct nc *x, const struct sh_word *w);
void sh_h_shell(struct sh_an *P, struct nc *x);
/* python / node / ruby / perl / php: inline code (-c, -e, -E, -r), a script file, or
 * stdin. Code words become SCRIPT units and are data for the command rules. */
void sh_h_interp(struct sh_an *P, struct nc *x, int lang);
/* What this command writes to stdout when it is known: for echo, printf, cat <<EOF. */
void sh_set_feed(struct sh_an *P, struct nc *x);
int sh_cmds_download_since(struct sh_an *P, struct sh_cmd *mark);
void sh_h_find(struct sh_an *P, struct nc *x);
/* ssh [options] host [command...]: the command runs in a remote shell. */
/* docker|podman exec/run ... CMD, kubectl|oc exec ... -- CMD: the command runs in a
 * container, like ssh's on another machine: command rules apply, local paths do not. */
void sh_h_container(struct sh_an *P, struct nc *x);
void sh_h_ssh(struct sh_an *P, struct nc *x);
void sh_h_watch(struct sh_an *P, struct nc *x);
/* su [-] [user] -c CMD, runuser ... -c CMD or -- CMD... */
void sh_h_su(struct sh_an *P, struct nc *x);
void sh_h_cd(struct sh_an *P, struct nc *x);
void sh_process_words(struct sh_an *P, struct sh_cmd *c, struct sh_word **v, size_t n,
		      unsigned depth, int remote, unsigned line);

/* A decoder whose output is code when piped into a shell (base64 -d, xxd -r ...). */
int sh_is_decoder(struct nc *x);

/* Is the path (NUL-terminated) beneath a temporary folder, with no ".." in it, and
 * not in the home folder? */
int sh_path_is_temp(const struct sh_an *P, const char *p);
/* Emits a command view: words v[0..n) with their data flags (NULL: none), the
 * command name replaced by name0 when given, then the redirections of x. */
void sh_emit_view(struct sh_an *P, struct nc *x, struct sh_word **v, size_t n,
		  const unsigned char *data, const char *name0, size_t name0_len);
/* Sets a variable to a known value (v, vlen bytes, kept by the caller), or forgets it
 * when v is NULL. name is not copied either. */
void sh_set_var(struct sh_an *P, const char *name, size_t nlen, const char *v, size_t vlen);

/* One SCRIPT unit out, with its calls of a shell on a literal (pol_unit.lit_calls: n
 * pairs, or NULL). */
void sh_emit_script_unit(struct sh_an *P, int lang, const char *body, size_t len, int heredoc,
			 unsigned line, unsigned depth, const uint32_t *calls, size_t ncalls);
/* Code in an interpreter's language (shell_script.c): the SCRIPT unit, again with
 * aliases written out, decoded payloads, the paths the code names, and the command
 * lines it hands a shell as one string literal. how: SH_CODE_*. */
void sh_script_units(struct sh_an *P, int lang, const char *body, size_t len, int how,
		     unsigned line, unsigned depth, int remote);

/* ---- the shell's own evaluation (shell_eval.c) ---- */

/* Is w exactly $(mktemp ...) or `mktemp ...` making a file or folder in /tmp? */
int sh_is_mktemp(const struct sh_word *w);
/* set -- A B C / sh -c CODE A0 A1: the positional parameters from v[0..n); with
 * zero, v[0] is $0. */
void sh_set_positional(struct sh_an *P, struct sh_word **v, size_t n, int zero);
/* A command name the shell computes (variables, a substitution whose output is
 * known, a function defined in the line): the command it really runs is analysed.
 * Returns 1 when the name was computed. */
int sh_eval_name(struct sh_an *P, struct nc *x);
/* A command name nobody can know ($X, $(cmd)): its arguments are tried under the
 * names of the commands whose arguments they look like (rm, git, dd ...). */
void sh_unknown_name(struct sh_an *P, struct nc *x, struct sh_word **v, size_t n);
/* A glob in a command name (/bin/r[m], r?): the command analysed under each name
 * of the table it matches; none matched, the name is unknown (sh_unseen). 1 when
 * analysed. */
int sh_glob_name(struct sh_an *P, struct nc *x);
/* A program the table does not know whose arguments hold a known command with
 * destructive-looking arguments: asked (shell.unseen.runner). */
void sh_unknown_runner(struct sh_an *P, struct nc *x);
/* rm "$@" after set -- -rf /srv: arguments with known positional parameters are put
 * in and the command is analysed again. Returns 1 when it was. */
int sh_eval_positional_args(struct sh_an *P, struct nc *x);

/* ---- expansions (shell_expand.c) ---- */

/* Brace expansion of every plain word of v[0..n) ({r,}m -> rm m, x{1..3}): the words
 * after it (v itself when nothing expanded, NULL when out of memory); *n updated. A
 * word that would make more than 64 stays as written. */
struct sh_word **sh_brace_words(struct sh_an *P, struct sh_word **v, size_t *n);
/* A word with braces that brace expansion may split but dcg cannot expand (quoted
 * parts, expansions): its words are unknown. */
int sh_brace_unknown(const struct sh_word *w);
/* ${NAME@OP} of a known value (Q E P U u L): the result in the arena, or NULL. */
const char *sh_transform(struct sh_an *P, int op, const char *v, size_t n, size_t *outlen);
/* NAME[@], NAME[*], NAME[IDX] of an array assigned in the line, or NULL. */
const char *sh_array_value(struct sh_an *P, const char *name, size_t nlen, size_t *vlen);
/* NAME=(...), NAME+=(...), NAME[IDX]=...: records the array (val: the expanded value,
 * NULL when unknown). Returns 1 when w was an array assignment. */
int sh_record_array(struct sh_an *P, const struct sh_word *w, const char *val, size_t vlen);
/* A plain shell name (a variable's). */
int sh_is_name(const struct sh_word *w);
/* printf -v NAME ..., read [-a NAME] NAME... and mapfile NAME from a here-string, a
 * here-document or literal text piped in: the variables they set. */
void sh_assign_builtin(struct sh_an *P, struct nc *x);
/* Is the word a glob bash expands (an unquoted * or ?, or [...])? A quoted word with
 * a glob is not known to be one. */
int sh_is_glob(const struct sh_word *w);
/* The command table's names that a glob in a command name matches (its last
 * component), at most max, into names; 0 when the name holds no glob. */
size_t sh_glob_names(const struct sh_word *w, const char **names, size_t max);
/* What printf prints for FORMAT ARGS (v[0] is the format), or NULL. */
char *sh_printf_text(struct sh_an *P, struct sh_word **v, size_t n, size_t *outlen);

/* ---- programs that run a command (shell_runs.c) ---- */

/* The code x is handed in its arguments, options or stdin, by its rows in sh_runs. */
void sh_runner(struct sh_an *P, struct nc *x);
/* A wrapper with F_RUNS (script, flock, sg): when v[i] is an option of its rows whose
 * value is code, that code is analysed and 1 returned. */
int sh_runner_wrap_opt(struct sh_an *P, const char *nm, size_t nl, struct sh_word **v, size_t n,
		       size_t i, unsigned depth, unsigned line, int remote);
/* The name of row i of sh_runs, NULL past the end (for the tests). */
const char *sh_run_name(size_t i);
/* Are sh_runs' rows sorted by name, each string and word set within its array? */
int sh_run_table_sorted(void);
/* Do the words v[1..n) look destructive: recursive and forced, a catastrophic target
 * (/, ~, the home folder, a system folder, a disk) with a recursive, forced or delete
 * word, or a forced delete verb? */
int sh_args_destructive(struct sh_an *P, struct sh_word **v, size_t n);
/* The principle for what dcg cannot see: when v[1..n) look destructive, the finding
 * rule (shell.unseen.*, an ask) with the words as its text. Not at runtime, where the
 * program really run is seen at its exec. */
void sh_unseen(struct sh_an *P, struct nc *x, struct sh_word **v, size_t n, const char *rule);
/* The text of a file this line wrote (a heredoc into it), or NULL. */
const char *sh_file_text(struct sh_an *P, const struct sh_word *w, size_t *len);

/* ---- what rebinds a name (shell_rebind.c) ---- */

/* alias, unalias, hash -p/-d, enable -f: the bindings they make. */
void sh_rebind_cmd(struct sh_an *P, struct nc *x);
/* cp/ln/install/mv SRC DST (into: DST is a folder receiving SRC's basename): DST now
 * runs what SRC runs (unknown when SRC is). */
void sh_copy_record(struct sh_an *P, const struct sh_word *src, const struct sh_word *dst,
		    int into);
/* A command word bound by alias, hash -p, a copy or a link: the command it runs,
 * with x's arguments, is analysed (1 returned); one bound to something dcg cannot see
 * is judged by sh_unseen. */
int sh_rebound(struct sh_an *P, struct nc *x);
/* NAME=VALUE where NAME's value is run later as code (PROMPT_COMMAND, PS1, BASH_ENV,
 * PAGER, GIT_SSH_COMMAND ...): that code is analysed. */
void sh_assign_code(struct sh_an *P, const struct sh_word *w, unsigned depth, unsigned line,
		    int remote);

#endif /* DCG_SHELL_INT_H */
