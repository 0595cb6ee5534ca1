/* shell.c - shell command analysis: tokenizer, parser and the walk that turns a
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
#include "shell.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#define SH_MAX_NEST    32 /* $( ( ` and bash -c levels: beyond, the input is refused */
#define SH_WORK_FACTOR 8  /* bytes lexed may not exceed this times the input, + slack */
#define SH_WORK_SLACK  65536
#define SH_MAX_HOME    4  /* $HOME / ~ occurrences remembered per word */
#define SH_MAX_FILES   16 /* heredoc-written files remembered per command line */
/* No command line an agent sends holds this many simple commands or words; past them
 * the input is refused (shell.parse.too_complex) rather than analysed for seconds. */
#define SH_MAX_VARS    16
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
	int feed_heredoc;
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
};

struct sh_file {
	const char *path;
	size_t plen;
	const char *body;
	size_t len;
	int heredoc;
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
		const char *name, *value;
		size_t nlen, vlen;
	} vars[SH_MAX_VARS]; /* variables assigned so far, with known values */
	size_t nvars;
	size_t nfnames;
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

/* forward */
static void parse_list(struct sh_an *P, struct sh_lex *L, int until_rp);
static void emit_finding(struct sh_an *P, const char *rule, const char *text, size_t len,
			 unsigned line, unsigned depth);

static struct sh_scope *new_scope(struct sh_an *P, struct sh_scope *parent);

/* A nested list ($(...), a subshell, backticks): one level deeper, in a shell of its
 * own. */
static void parse_nested(struct sh_an *P, struct sh_lex *L, int until_rp)
{
	struct sh_scope *save = P->cur_scope;

	P->cur_scope = new_scope(P, save);
	if (!P->cur_scope) {
		P->cur_scope = save;
		return;
	}
	P->nest++;
	parse_list(P, L, until_rp);
	P->nest--;
	P->cur_scope = save;
}

static void fail(struct sh_an *P, int err)
{
	if (!P->ret)
		P->ret = err;
	P->abort = 1;
}

static void *sh_alloc(struct sh_an *P, size_t size)
{
	void *p = pol_arena_alloc(P->a, size);

	if (!p)
		fail(P, -ENOMEM);
	return p;
}

static struct sh_scope *new_scope(struct sh_an *P, struct sh_scope *parent)
{
	struct sh_scope *sc = sh_alloc(P, sizeof(*sc));

	if (sc) {
		sc->parent = parent;
		sc->cwd = NULL;
	}
	return sc;
}

static const char *scope_cwd(const struct sh_scope *sc)
{
	for (; sc; sc = sc->parent)
		if (sc->cwd)
			return sc->cwd[0] ? sc->cwd : NULL;
	return NULL;
}

static char *sh_strndup(struct sh_an *P, const char *s, size_t len)
{
	char *d = pol_arena_strndup(P->a, s, len);

	if (!d)
		fail(P, -ENOMEM);
	return d;
}

static int lex_init(struct sh_an *P, struct sh_lex *L, const char *s, size_t n, unsigned line,
		    unsigned depth, int remote)
{
	memset(L, 0, sizeof(*L));
	L->s = s;
	L->n = n;
	L->line = line;
	L->depth = depth;
	L->remote = remote;
	P->work += n;
	if (P->work > P->work_cap) {
		emit_finding(P, "shell.parse.too_complex", s, n < 200 ? n : 200, line, depth);
		P->abort = 1;
		return -1;
	}
	/* Words never grow past their source (quote removal only shrinks), so a buffer
	 * the size of the input holds every word in progress at once. */
	L->bcap = n + 16;
	L->buf = sh_alloc(P, L->bcap);
	return L->buf ? 0 : -1;
}

static inline int at(const struct sh_lex *L, size_t k)
{
	return L->i + k < L->n ? (unsigned char)L->s[L->i + k] : -1;
}

static inline void put(struct sh_lex *L, char c)
{
	if (L->blen < L->bcap)
		L->buf[L->blen++] = c;
}

static inline void put_n(struct sh_lex *L, const char *s, size_t n)
{
	if (n > L->bcap - L->blen)
		n = L->bcap - L->blen;
	memcpy(L->buf + L->blen, s, n);
	L->blen += n;
}

static int is_name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_name_char(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static int is_meta(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' ||
	       c == ')' || c == '<' || c == '>';
}

/* At most max bytes of the buffer from off: the text a finding shows. */
static size_t clip(const struct sh_lex *L, size_t off, size_t max)
{
	return off >= L->n ? 0 : L->n - off < max ? L->n - off : max;
}

static void unterminated(struct sh_an *P, struct sh_lex *L, size_t from)
{
	size_t len = L->n - from;

	if (P->reported_unterminated)
		return;
	P->reported_unterminated = 1;
	emit_finding(P, "shell.parse.unterminated", L->s + from, len < 200 ? len : 200, L->line,
		     L->depth);
}

static void note_var(struct sh_word *w, size_t off, size_t len, const char *name, size_t nlen)
{
	if (w->nhome >= SH_MAX_HOME || nlen > 64) {
		w->flags |= W_UNRESOLVED;
		return;
	}
	w->home_off[w->nhome] = (uint32_t)off;
	w->home_len[w->nhome] = (uint8_t)len;
	w->var_name[w->nhome] = name;
	w->var_nlen[w->nhome] = (uint8_t)nlen;
	w->nhome++;
}

static void note_home(struct sh_word *w, size_t off, size_t len)
{
	note_var(w, off, len, "HOME", 4);
}

/* Did the commands appended after `mark` run a downloader? (for $(curl ...) ) */
static int cmds_download_since(struct sh_an *P, struct sh_cmd *mark);

/* Parses a command substitution's body on the same lexer: $( has been consumed.
 * The raw text "$(...)" is appended to the word in progress. */
static void lex_cmdsubst(struct sh_an *P, struct sh_lex *L, struct sh_word *w, size_t start)
{
	struct sh_cmd *mark = P->tail;
	size_t save = L->blen;

	if (P->nest >= SH_MAX_NEST) {
		emit_finding(P, "shell.parse.too_complex", L->s + start, clip(L, start, 40),
			     L->line, L->depth);
		P->abort = 1;
		return;
	}
	parse_nested(P, L, 1);
	L->blen = save;
	w->flags |= W_SUBST | W_UNRESOLVED;
	if (cmds_download_since(P, mark))
		w->flags |= W_DL;
	/* an empty $( ) adds nothing, so r$()m still reads rm */
	{
		size_t k;
		int empty = 1;
		for (k = start + 2; k + 1 < L->i; k++)
			if (L->s[k] != ' ' && L->s[k] != '\t' && L->s[k] != '\n')
				empty = 0;
		if (!empty)
			put_n(L, L->s + start, L->i - start);
	}
}

/* $(( ... )): arithmetic. Scans to the matching "))"; substitutions inside still run. */
static void lex_arith(struct sh_an *P, struct sh_lex *L, struct sh_word *w, size_t start)
{
	int depth = 0;

	while (L->i < L->n && !P->abort) {
		int c = at(L, 0);
		if (c == '$' && at(L, 1) == '(' && at(L, 2) != '(') {
			size_t s0 = L->i;
			L->i += 2;
			lex_cmdsubst(P, L, w, s0);
			continue;
		}
		if (c == '\n')
			L->line++;
		if (c == '(') {
			depth++;
		} else if (c == ')') {
			if (depth == 0 && at(L, 1) == ')') {
				L->i += 2;
				put_n(L, L->s + start, 0);
				w->flags |= W_UNRESOLVED;
				return;
			}
			if (depth > 0)
				depth--;
		}
		put(L, (char)c);
		L->i++;
	}
	unterminated(P, L, start);
}

/* Backticks: the body up to the next unescaped backtick, with \` \\ \$ unescaped,
 * analysed as a separate buffer one level deeper. */
static void lex_backtick(struct sh_an *P, struct sh_lex *L, struct sh_word *w, int in_dq)
{
	size_t start = L->i; /* at the opening backtick */
	size_t k = L->i + 1;
	char *body;
	size_t blen = 0;
	struct sh_lex sub;
	struct sh_cmd *mark = P->tail;
	unsigned line0 = L->line;

	/* first find the end, so that the body costs its own size, not the input's */
	while (k < L->n && L->s[k] != '`')
		k += (L->s[k] == '\\' && k + 1 < L->n) ? 2 : 1;
	body = sh_alloc(P, k - (L->i + 1) + 1);
	if (!body)
		return;
	k = L->i + 1;
	while (k < L->n && L->s[k] != '`') {
		if (L->s[k] == '\\' && k + 1 < L->n &&
		    (L->s[k + 1] == '`' || L->s[k + 1] == '\\' || L->s[k + 1] == '$' ||
		     (in_dq && L->s[k + 1] == '"'))) {
			body[blen++] = L->s[k + 1];
			k += 2;
			continue;
		}
		if (L->s[k] == '\n')
			L->line++;
		body[blen++] = L->s[k++];
	}
	if (k >= L->n) {
		L->i = L->n;
		unterminated(P, L, start);
		return;
	}
	L->i = k + 1;
	w->flags |= W_SUBST | W_UNRESOLVED;
	if (blen)
		put_n(L, L->s + start, L->i - start);
	if (P->nest >= SH_MAX_NEST) {
		emit_finding(P, "shell.parse.too_complex", L->s + start, clip(L, start, 40), line0,
			     L->depth);
		P->abort = 1;
		return;
	}
	if (lex_init(P, &sub, body, blen, line0, L->depth, L->remote))
		return;
	parse_nested(P, &sub, 0);
	if (cmds_download_since(P, mark))
		w->flags |= W_DL;
}

/* ${...}: scanned to the matching brace; substitutions inside still run. */
static void lex_param_brace(struct sh_an *P, struct sh_lex *L, struct sh_word *w, int quoted)
{
	size_t start = L->i; /* at '$' */
	int depth = 0;

	if (!quoted && L->n - L->i >= 6 && memcmp(L->s + L->i, "${IFS}", 6) == 0) {
		L->i += 6;
		return; /* the caller splits the word here */
	}
	{
		/* ${NAME}: a plain reference, expanded in paths when its value is known */
		size_t k = L->i + 2;
		while (k < L->n && is_name_char((unsigned char)L->s[k]))
			k++;
		if (k < L->n && L->s[k] == '}' && k > L->i + 2 &&
		    is_name_start((unsigned char)L->s[L->i + 2])) {
			note_var(w, L->blen, k + 1 - L->i, L->s + L->i + 2, k - L->i - 2);
			put_n(L, L->s + L->i, k + 1 - L->i);
			L->i = k + 1;
			return;
		}
	}
	put_n(L, "${", 2);
	L->i += 2;
	w->flags |= W_UNRESOLVED;
	while (L->i < L->n && !P->abort) {
		int c = at(L, 0);
		if (c == '\\' && L->i + 1 < L->n) {
			put(L, L->s[L->i + 1]);
			L->i += 2;
			continue;
		}
		if (c == '$' && at(L, 1) == '(' && at(L, 2) != '(') {
			size_t s0 = L->i;
			L->i += 2;
			lex_cmdsubst(P, L, w, s0);
			continue;
		}
		if (c == '`') {
			lex_backtick(P, L, w, 1);
			continue;
		}
		if (c == '\n')
			L->line++;
		if (c == '{')
			depth++;
		if (c == '}') {
			if (depth == 0) {
				put(L, '}');
				L->i++;
				return;
			}
			depth--;
		}
		put(L, (char)c);
		L->i++;
	}
	unterminated(P, L, start);
}

static unsigned hexval(int c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (unsigned)(c - 'A' + 10);
	return 16;
}

static void put_utf8(struct sh_lex *L, unsigned cp)
{
	if (cp < 0x80) {
		put(L, (char)cp);
	} else if (cp < 0x800) {
		put(L, (char)(0xC0 | (cp >> 6)));
		put(L, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		put(L, (char)(0xE0 | (cp >> 12)));
		put(L, (char)(0x80 | ((cp >> 6) & 0x3F)));
		put(L, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x110000) {
		put(L, (char)(0xF0 | (cp >> 18)));
		put(L, (char)(0x80 | ((cp >> 12) & 0x3F)));
		put(L, (char)(0x80 | ((cp >> 6) & 0x3F)));
		put(L, (char)(0x80 | (cp & 0x3F)));
	}
}

/* $'...': ANSI-C quoting. L->i is past the opening quote. */
static void lex_ansi_c(struct sh_an *P, struct sh_lex *L, size_t start)
{
	while (L->i < L->n) {
		int c = at(L, 0);
		if (c == '\'') {
			L->i++;
			return;
		}
		if (c == '\n')
			L->line++;
		if (c != '\\' || L->i + 1 >= L->n) {
			put(L, (char)c);
			L->i++;
			continue;
		}
		c = at(L, 1);
		L->i += 2;
		switch (c) {
		case 'n':
			put(L, '\n');
			break;
		case 't':
			put(L, '\t');
			break;
		case 'r':
			put(L, '\r');
			break;
		case 'a':
			put(L, '\a');
			break;
		case 'b':
			put(L, '\b');
			break;
		case 'f':
			put(L, '\f');
			break;
		case 'v':
			put(L, '\v');
			break;
		case 'e':
		case 'E':
			put(L, 27);
			break;
		case 'c':
			if (L->i < L->n)
				put(L, (char)(L->s[L->i++] & 0x1F));
			break;
		case 'x':
		case 'u':
		case 'U': {
			unsigned max = c == 'x' ? 2 : c == 'u' ? 4 : 8, v = 0, k = 0;
			while (k < max && L->i < L->n && hexval(at(L, 0)) < 16) {
				v = v * 16 + hexval(at(L, 0));
				L->i++;
				k++;
			}
			if (k == 0) {
				put(L, '\\');
				put(L, (char)c);
			} else if (c == 'x') {
				put(L, (char)v);
			} else {
				put_utf8(L, v);
			}
			break;
		}
		case '0':
		case '1':
		case '2':
		case '3':
		case '4':
		case '5':
		case '6':
		case '7': {
			unsigned v = (unsigned)(c - '0'), k = 1;
			while (k < 3 && L->i < L->n && at(L, 0) >= '0' && at(L, 0) <= '7') {
				v = v * 8 + (unsigned)(at(L, 0) - '0');
				L->i++;
				k++;
			}
			put(L, (char)v);
			break;
		}
		case '\\':
		case '\'':
		case '"':
		case '?':
			put(L, (char)c);
			break;
		default:
			put(L, '\\');
			put(L, (char)c);
		}
	}
	unterminated(P, L, start);
}

/* $NAME, $1, $@ ...: kept as written; $HOME remembered for path expansion. Returns 1
 * when it was an unquoted $IFS (a word split). */
static int lex_dollar_name(struct sh_lex *L, struct sh_word *w, int quoted)
{
	size_t k = L->i + 1;

	if (k < L->n && is_name_start((unsigned char)L->s[k])) {
		while (k < L->n && is_name_char((unsigned char)L->s[k]))
			k++;
		size_t nl = k - L->i - 1;
		if (!quoted && nl == 3 && memcmp(L->s + L->i + 1, "IFS", 3) == 0) {
			L->i = k;
			return 1;
		}
		note_var(w, L->blen, nl + 1, L->s + L->i + 1, nl);
	} else if (k < L->n && strchr("0123456789@*#?$!-", L->s[k]) && L->s[k]) {
		k++;
		w->flags |= W_UNRESOLVED;
	} else {
		put(L, '$'); /* a lone $ is literal */
		L->i++;
		return 0;
	}
	put_n(L, L->s + L->i, k - L->i);
	L->i = k;
	return 0;
}

/* Process substitution <( ... ) or >( ... ): L->i at '<' or '>'. */
static void lex_procsubst(struct sh_an *P, struct sh_lex *L, struct sh_word *w)
{
	size_t start = L->i;

	L->i += 2;
	lex_cmdsubst(P, L, w, start); /* appends the raw text from start */
	w->flags |= W_PROCSUB;
}

/* Reads one word at L->i (not at a metacharacter). Quote removal applied; the word
 * text is copied into the arena. Returns 0, or 1 when the word is empty and unquoted
 * (e.g. only $IFS), which the caller skips. */
static int lex_word(struct sh_an *P, struct sh_lex *L, struct sh_word *w)
{
	size_t base = L->blen;
	size_t start = L->i;
	int split = 0;

	memset(w, 0, sizeof(*w));
	w->line = L->line;
	while (L->i < L->n && !P->abort && !split) {
		int c = at(L, 0);
		if (is_meta(c)) {
			if ((c == '<' || c == '>') && at(L, 1) == '(') {
				lex_procsubst(P, L, w);
				continue;
			}
			break;
		}
		switch (c) {
		case '\\':
			if (at(L, 1) == '\n') {
				L->i += 2;
				L->line++;
			} else if (L->i + 1 < L->n) {
				put(L, L->s[L->i + 1]);
				L->i += 2;
				w->flags |= W_QUOTED;
			} else {
				L->i++;
			}
			break;
		case '\'': {
			const char *q = memchr(L->s + L->i + 1, '\'', L->n - L->i - 1);
			size_t s0 = L->i;
			w->flags |= W_QUOTED;
			if (!q) {
				put_n(L, L->s + L->i + 1, L->n - L->i - 1);
				L->i = L->n;
				unterminated(P, L, s0);
				break;
			}
			for (const char *p = L->s + L->i + 1; p < q; p++)
				if (*p == '\n')
					L->line++;
			put_n(L, L->s + L->i + 1, (size_t)(q - (L->s + L->i + 1)));
			L->i = (size_t)(q - L->s) + 1;
			break;
		}
		case '"': {
			size_t s0 = L->i;
			int closed = 0;
			w->flags |= W_QUOTED;
			L->i++;
			while (L->i < L->n && !P->abort) {
				int d = at(L, 0);
				if (d == '"') {
					L->i++;
					closed = 1;
					break;
				}
				if (d == '\\' && L->i + 1 < L->n) {
					int e = at(L, 1);
					if (e == '\n') {
						L->i += 2;
						L->line++;
						continue;
					}
					if (e == '$' || e == '`' || e == '"' || e == '\\') {
						put(L, (char)e);
						L->i += 2;
						continue;
					}
					put(L, '\\');
					L->i++;
					continue;
				}
				if (d == '$' && at(L, 1) == '(') {
					size_t s1 = L->i;
					L->i += 2;
					if (at(L, 0) == '(') {
						L->i++;
						lex_arith(P, L, w, s1);
					} else {
						lex_cmdsubst(P, L, w, s1);
					}
					continue;
				}
				if (d == '$' && at(L, 1) == '{') {
					lex_param_brace(P, L, w, 1);
					continue;
				}
				if (d == '$') {
					lex_dollar_name(L, w, 1);
					continue;
				}
				if (d == '`') {
					lex_backtick(P, L, w, 1);
					continue;
				}
				if (d == '\n')
					L->line++;
				put(L, (char)d);
				L->i++;
			}
			if (!closed && !P->abort)
				unterminated(P, L, s0);
			break;
		}
		case '$': {
			int d = at(L, 1);
			if (d == '\'') {
				size_t s0 = L->i;
				w->flags |= W_QUOTED;
				L->i += 2;
				lex_ansi_c(P, L, s0);
			} else if (d == '"') {
				L->i++; /* $"..." is a double-quoted string */
			} else if (d == '(') {
				size_t s1 = L->i;
				L->i += 2;
				if (at(L, 0) == '(') {
					L->i++;
					lex_arith(P, L, w, s1);
				} else {
					lex_cmdsubst(P, L, w, s1);
				}
			} else if (d == '{') {
				size_t before = L->i;
				lex_param_brace(P, L, w, 0);
				if (L->i - before == 6 && memcmp(L->s + before, "${IFS}", 6) == 0)
					split = 1;
			} else {
				split = lex_dollar_name(L, w, 0);
			}
			break;
		}
		case '`':
			lex_backtick(P, L, w, 0);
			break;
		case '~':
			/* ~ at the start of a word, or of an assignment's value (D=~/x) */
			if ((L->i == start || (L->blen > base && L->buf[L->blen - 1] == '=' &&
					       is_name_start((unsigned char)L->buf[base]) &&
					       !memchr(L->buf + base, '=', L->blen - base - 1))) &&
			    (at(L, 1) == '/' || at(L, 1) < 0 || is_meta(at(L, 1))))
				note_home(w, L->blen, 1);
			put(L, '~');
			L->i++;
			break;
		case '*':
		case '?':
		case '[':
			w->flags |= W_GLOB;
			put(L, (char)c);
			L->i++;
			break;
		default:
			put(L, (char)c);
			L->i++;
		}
	}
	/* home offsets were taken against the scratch position; make them word-relative */
	for (unsigned k = 0; k < w->nhome; k++)
		w->home_off[k] -= (uint32_t)base;
	w->len = L->blen - base;
	w->s = sh_strndup(P, L->buf + base, w->len);
	L->blen = base;
	if (!w->s)
		return 1;
	return (w->len == 0 && !(w->flags & W_QUOTED)) ? 1 : 0;
}

/* Reads the bodies of pending heredocs, starting at L->i (just past a newline). */
static void read_heredocs(struct sh_an *P, struct sh_lex *L)
{
	struct sh_heredoc *h;

	for (h = L->pend; h; h = h->next) {
		size_t body = L->i;
		h->line = L->line;
		for (;;) {
			size_t ls = L->i;
			const char *nl;
			size_t le, k = ls;
			if (ls >= L->n) { /* delimited by end of input: bash runs it so */
				h->body = L->s + body;
				h->len = L->n - body;
				break;
			}
			nl = memchr(L->s + ls, '\n', L->n - ls);
			le = nl ? (size_t)(nl - L->s) : L->n;
			if (h->strip)
				while (k < le && L->s[k] == '\t')
					k++;
			if (le - k == h->dlen && memcmp(L->s + k, h->delim, h->dlen) == 0) {
				h->body = L->s + body;
				h->len = ls - body;
				L->i = nl ? le + 1 : le;
				L->line++;
				break;
			}
			L->i = nl ? le + 1 : le;
			if (nl)
				L->line++;
		}
		/* An unquoted body expands $(...) and backticks: those commands run. */
		if (!h->quoted && h->len && !P->abort) {
			struct sh_lex sub;
			struct sh_word dummy;
			if (lex_init(P, &sub, h->body, h->len, h->line, L->depth, L->remote))
				return;
			while (sub.i < sub.n && !P->abort) {
				int c = at(&sub, 0);
				if (c == '\\') {
					sub.i += 2;
				} else if (c == '$' && at(&sub, 1) == '(' && at(&sub, 2) != '(') {
					size_t s0 = sub.i;
					memset(&dummy, 0, sizeof(dummy));
					sub.i += 2;
					lex_cmdsubst(P, &sub, &dummy, s0);
					sub.blen = 0;
				} else if (c == '`') {
					memset(&dummy, 0, sizeof(dummy));
					lex_backtick(P, &sub, &dummy, 0);
					sub.blen = 0;
				} else {
					if (c == '\n')
						sub.line++;
					sub.i++;
				}
			}
		}
	}
	L->pend = L->pend_tail = NULL;
}

static void skip_blanks(struct sh_lex *L)
{
	while (L->i < L->n) {
		int c = at(L, 0);
		if (c == ' ' || c == '\t' || c == '\r') {
			L->i++;
		} else if (c == '\\' && at(L, 1) == '\n') {
			L->i += 2;
			L->line++;
		} else {
			break;
		}
	}
}

static int lex_redir_op(struct sh_lex *L, struct sh_tok *t)
{
	static const struct {
		const char *s;
		enum rkind k;
	} ops[] = {
	    {"&>>", R_APPERR}, {"<<<", R_HERESTR}, {"<<-", R_HEREDOC}, {"&>", R_OUTERR},
	    {">>", R_APPEND},  {">|", R_CLOBBER},  {">&", R_DUPOUT},   {"<&", R_DUPIN},
	    {"<>", R_RW},      {"<<", R_HEREDOC},  {">", R_OUT},       {"<", R_IN},
	};
	size_t k = L->i, fd_end;

	while (k < L->n && L->s[k] >= '0' && L->s[k] <= '9')
		k++;
	fd_end = k;
	for (size_t j = 0; j < sizeof(ops) / sizeof(ops[0]); j++) {
		size_t ol = strlen(ops[j].s);
		if (ops[j].s[0] == '&' && fd_end != L->i)
			continue;
		if (L->n - k >= ol && memcmp(L->s + k, ops[j].s, ol) == 0) {
			t->t = T_REDIR;
			t->rk = ops[j].k;
			t->op = L->s + L->i; /* not NUL-terminated: the parser copies */
			t->w.len = fd_end - L->i + ol;
			L->i = k + ol;
			return 1;
		}
	}
	return 0;
}

static void next_tok(struct sh_an *P, struct sh_lex *L, struct sh_tok *t)
{
again:
	memset(t, 0, sizeof(*t));
	skip_blanks(L);
	if (L->i >= L->n || P->abort) {
		t->t = T_EOF;
		return;
	}
	int c = at(L, 0), d = at(L, 1);
	if (c == '#') {
		const char *nl = memchr(L->s + L->i, '\n', L->n - L->i);
		L->i = nl ? (size_t)(nl - L->s) : L->n;
		goto again;
	}
	if (c == '\n') {
		L->i++;
		L->line++;
		if (L->pend)
			read_heredocs(P, L);
		t->t = T_NL;
		return;
	}
	if (c == ';') {
		if (d == ';') {
			L->i += at(L, 2) == '&' ? 3 : 2;
			t->t = T_DSEMI;
		} else if (d == '&') {
			L->i += 2;
			t->t = T_DSEMI;
		} else {
			L->i++;
			t->t = T_SEMI;
		}
		return;
	}
	if (c == '&') {
		if (d == '&') {
			L->i += 2;
			t->t = T_AND;
			return;
		}
		if (d == '>' && lex_redir_op(L, t))
			return;
		L->i++;
		t->t = T_AMP;
		return;
	}
	if (c == '|') {
		L->i += (d == '|' || d == '&') ? 2 : 1;
		t->t = d == '|' ? T_OR : d == '&' ? T_PIPEAMP : T_PIPE;
		return;
	}
	if (c == '(') {
		L->i++;
		t->t = T_LP;
		return;
	}
	if (c == ')') {
		L->i++;
		t->t = T_RP;
		return;
	}
	if ((c == '<' || c == '>') && d == '(') {
		/* process substitution: a word */
	} else if (c == '<' || c == '>' || (c >= '0' && c <= '9')) {
		if (lex_redir_op(L, t))
			return;
	}
	if (lex_word(P, L, &t->w) && !P->abort)
		goto again; /* an empty unquoted word (only $IFS, or $()) is no word */
	t->t = P->abort ? T_EOF : T_WORD;
}

/* ---- parser ----------------------------------------------------------------------- */

struct builder {
	struct sh_word *w;
	size_t nw, cw;
	struct sh_redir *r;
	size_t nr, cr;
	unsigned line;
};

/* s (len bytes, may hold NULs) equals the literal? Stops at the first difference, so
 * that the long name lists below cost a byte or two per entry. */
static inline int lit_eq(const char *s, size_t len, const char *lit)
{
	for (size_t i = 0; i < len; i++)
		if (lit[i] == '\0' || lit[i] != s[i])
			return 0;
	return lit[len] == '\0';
}

static int weq(const struct sh_word *w, const char *lit)
{
	return lit_eq(w->s, w->len, lit);
}

static int word_is(const struct sh_word *w, const char *const *set);

static void too_complex(struct sh_an *P, const struct sh_word *w)
{
	emit_finding(P, "shell.parse.too_complex", w && w->s ? w->s : "",
		     w && w->s ? (w->len < 80 ? w->len : 80) : 0, w ? w->line : 0, 0);
	P->abort = 1;
}

static void b_add_word(struct sh_an *P, struct builder *b, const struct sh_word *w)
{
	if (++P->nwords > SH_MAX_WORDS) {
		too_complex(P, w);
		return;
	}
	if (b->nw == b->cw) {
		size_t nc = b->cw ? b->cw * 2 : 4;
		struct sh_word *nw = sh_alloc(P, nc * sizeof(*nw));
		if (!nw)
			return;
		if (b->nw)
			memcpy(nw, b->w, b->nw * sizeof(*nw));
		b->w = nw;
		b->cw = nc;
	}
	if (!b->nw && !b->nr)
		b->line = w->line;
	b->w[b->nw++] = *w;
}

static struct sh_redir *b_add_redir(struct sh_an *P, struct builder *b)
{
	if (b->nr == b->cr) {
		size_t nc = b->cr ? b->cr * 2 : 4;
		struct sh_redir *nr = sh_alloc(P, nc * sizeof(*nr));
		if (!nr)
			return NULL;
		if (b->nr)
			memcpy(nr, b->r, b->nr * sizeof(*nr));
		b->r = nr;
		b->cr = nc;
	}
	memset(&b->r[b->nr], 0, sizeof(b->r[0]));
	return &b->r[b->nr++];
}

static struct sh_cmd *b_finish(struct sh_an *P, struct sh_lex *L, struct builder *b,
			       struct sh_cmd *pipe_from)
{
	struct sh_cmd *c;

	if (!b->nw && !b->nr)
		return NULL;
	if (++P->ncmds > SH_MAX_CMDS) {
		too_complex(P, b->nw ? &b->w[0] : NULL);
		return NULL;
	}
	c = sh_alloc(P, sizeof(*c));
	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->w = b->w;
	c->nw = b->nw;
	c->r = b->r;
	c->nr = b->nr;
	c->line = b->line;
	c->depth = L->depth + P->nest;
	c->remote = L->remote;
	c->scope = P->cur_scope;
	c->pipe_prev = pipe_from;
	if (P->tail)
		P->tail->next = c;
	else
		P->head = c;
	P->tail = c;
	memset(b, 0, sizeof(*b));
	return c;
}

static void parse_error(struct sh_an *P, struct sh_lex *L)
{
	size_t from = L->i > 20 ? L->i - 20 : 0;
	size_t len = L->n - from;

	emit_finding(P, "shell.parse.error", L->s + from, len < 60 ? len : 60, L->line, L->depth);
}

/* Parses commands until the end of the buffer or, with until_rp, the matching ')'. */
static void parse_list(struct sh_an *P, struct sh_lex *L, int until_rp)
{
	struct builder b;
	struct sh_cmd *pipe_from = NULL, *c;
	struct sh_tok t;
	int case_level = 0, case_pat = 0, test_mode = 0;
	size_t start = L->i;

	memset(&b, 0, sizeof(b));
	for (;;) {
		next_tok(P, L, &t);
		if (P->abort)
			return;
		if (case_pat && t.t != T_EOF) {
			if (++P->nwords > SH_MAX_WORDS) { /* patterns count as words */
				too_complex(P, &t.w);
				return;
			}
			if (t.t == T_WORD && weq(&t.w, "esac")) {
				case_level--;
				case_pat = 0;
			} else if (t.t == T_RP) {
				case_pat = 0;
			} else if (t.t == T_REDIR) {
				/* a pattern cannot hold one; bash would refuse it */
				parse_error(P, L);
			}
			continue;
		}
		switch (t.t) {
		case T_WORD:
			if (test_mode) {
				b_add_word(P, &b, &t.w);
				if (weq(&t.w, "]]"))
					test_mode = 0;
				break;
			}
			if (b.nw == 0 && !(t.w.flags & W_QUOTED)) {
				if (case_level > 0 && weq(&t.w, "esac")) {
					case_level--;
					break;
				}
				if (weq(&t.w, "[["))
					test_mode = 1;
			}
			if (b.nw == 2 && weq(&b.w[0], "case") && weq(&t.w, "in")) {
				memset(&b, 0, sizeof(b));
				case_level++;
				case_pat = 1;
				break;
			}
			b_add_word(P, &b, &t.w);
			break;
		case T_REDIR: {
			struct sh_redir *r;
			char *op = sh_strndup(P, t.op, t.w.len);
			if (!op)
				return;
			if (test_mode) {
				struct sh_word w;
				memset(&w, 0, sizeof(w));
				w.s = op;
				w.len = t.w.len;
				w.line = L->line;
				b_add_word(P, &b, &w);
				break;
			}
			enum rkind rk = t.rk;
			next_tok(P, L, &t);
			if (P->abort)
				return;
			if (t.t != T_WORD) {
				parse_error(P, L);
				break;
			}
			r = b_add_redir(P, &b);
			if (!r)
				return;
			if (b.nw == 0 && b.nr == 1)
				b.line = t.w.line;
			r->kind = rk;
			r->op = op;
			r->target = t.w;
			if (rk == R_HEREDOC) {
				struct sh_heredoc *h = sh_alloc(P, sizeof(*h));
				if (!h)
					return;
				memset(h, 0, sizeof(*h));
				h->quoted = (t.w.flags & W_QUOTED) != 0;
				h->strip = op[strlen(op) - 1] == '-';
				h->delim = t.w.s;
				h->dlen = t.w.len;
				if (L->pend_tail)
					L->pend_tail->next = h;
				else
					L->pend = h;
				L->pend_tail = h;
				r->hd = h;
			}
			break;
		}
		case T_LP:
			if (test_mode) {
				struct sh_word w;
				memset(&w, 0, sizeof(w));
				w.s = "(";
				w.len = 1;
				b_add_word(P, &b, &w);
				break;
			}
			if (b.nw == 0 && at(L, 0) == '(') { /* (( arithmetic )) */
				struct sh_word w;
				size_t s0 = L->i - 1, save = L->blen;
				memset(&w, 0, sizeof(w));
				L->i++;
				lex_arith(P, L, &w, s0);
				L->blen = save;
				break;
			}
			if (b.nw > 0) {
				/* { ( ... ), if ( ... ): reserved words before a subshell */
				static const char *const kw[] = {"{",	  "!",	  "then", "do",
								 "else",  "if",	  "elif", "while",
								 "until", "time", NULL};
				size_t k = 0;
				while (k < b.nw && !(b.w[k].flags & W_QUOTED) &&
				       word_is(&b.w[k], kw))
					k++;
				if (k == b.nw)
					b.nw = 0;
			}
			if (b.nw == 0) { /* subshell */
				if (P->nest >= SH_MAX_NEST) {
					emit_finding(P, "shell.parse.too_complex", L->s + L->i - 1,
						     L->n - L->i + 1 < 40 ? L->n - L->i + 1 : 40,
						     L->line, L->depth);
					P->abort = 1;
					return;
				}
				parse_nested(P, L, 1);
				break;
			}
			/* name ( ) : a function definition; its body follows as commands */
			if (P->nfnames < 8)
				P->fnames[P->nfnames++] = b.w[b.nw - 1];
			next_tok(P, L, &t);
			if (t.t != T_RP)
				parse_error(P, L);
			memset(&b, 0, sizeof(b));
			break;
		case T_RP:
			if (test_mode) {
				struct sh_word w;
				memset(&w, 0, sizeof(w));
				w.s = ")";
				w.len = 1;
				b_add_word(P, &b, &w);
				break;
			}
			if (until_rp) {
				b_finish(P, L, &b, pipe_from);
				return;
			}
			parse_error(P, L);
			break;
		case T_AND:
		case T_OR:
			if (test_mode) {
				struct sh_word w;
				memset(&w, 0, sizeof(w));
				w.s = t.t == T_AND ? "&&" : "||";
				w.len = 2;
				b_add_word(P, &b, &w);
				break;
			}
			b_finish(P, L, &b, pipe_from);
			pipe_from = NULL;
			break;
		case T_PIPE:
		case T_PIPEAMP:
			c = b_finish(P, L, &b, pipe_from);
			pipe_from = c;
			break;
		case T_NL:
			if (!b.nw && !b.nr)
				break; /* a | <newline> b : still one pipeline */
				       /* fall through */
		case T_SEMI:
		case T_AMP:
			b_finish(P, L, &b, pipe_from);
			pipe_from = NULL;
			test_mode = 0;
			break;
		case T_DSEMI:
			b_finish(P, L, &b, pipe_from);
			pipe_from = NULL;
			if (case_level > 0)
				case_pat = 1;
			break;
		case T_EOF:
			b_finish(P, L, &b, pipe_from);
			if (until_rp && !P->abort)
				unterminated(P, L, start > 2 ? start - 2 : 0);
			return;
		}
		if (P->abort)
			return;
	}
}

static int cmds_download_since(struct sh_an *P, struct sh_cmd *mark);

/* ---- units ------------------------------------------------------------------------ */

/* Repeated units (a command line that runs the same command 100,000 times) are
 * decided once: the table of units already emitted opens after SH_DEDUP_AFTER units,
 * so that ordinary commands pay nothing for it. */
#define SH_DEDUP_AFTER 32
#define SH_DEDUP_SLOTS 4096

struct sh_seen {
	uint64_t h;
	const struct pol_unit *u; /* a copy in the arena */
};

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static uint64_t unit_hash(const struct pol_unit *u)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)u->kind;

	h = hash_bytes(h, u->text, u->len);
	switch (u->kind) {
	case POL_UNIT_COMMAND:
		h = hash_bytes(h, u->word_is_data, u->argc);
		h = hash_bytes(h, u->word_off, u->argc * sizeof(*u->word_off));
		break;
	case POL_UNIT_SCRIPT:
		h = hash_bytes(h, u->language, strlen(u->language));
		h = hash_bytes(h, &u->from_heredoc, sizeof(u->from_heredoc));
		break;
	case POL_UNIT_PATH:
		h = hash_bytes(h, &u->op, sizeof(u->op));
		h = hash_bytes(h, &u->is_dir_op, sizeof(u->is_dir_op));
		break;
	case POL_UNIT_FINDING:
		h = hash_bytes(h, u->rule_id, strlen(u->rule_id));
		break;
	}
	return h;
}

static int unit_same(const struct pol_unit *a, const struct pol_unit *b)
{
	if (a->kind != b->kind || a->len != b->len || memcmp(a->text, b->text, a->len) != 0)
		return 0;
	switch (a->kind) {
	case POL_UNIT_COMMAND:
		return a->argc == b->argc && !memcmp(a->word_is_data, b->word_is_data, a->argc) &&
		       !memcmp(a->word_off, b->word_off, a->argc * sizeof(*a->word_off));
	case POL_UNIT_SCRIPT:
		return !strcmp(a->language, b->language) && a->from_heredoc == b->from_heredoc;
	case POL_UNIT_PATH:
		return a->op == b->op && a->is_dir_op == b->is_dir_op;
	case POL_UNIT_FINDING:
		return !strcmp(a->rule_id, b->rule_id);
	}
	return 0;
}

/* Returns 1 when an identical unit went out before. */
static int seen_before(struct sh_an *P, const struct pol_unit *u)
{
	uint64_t h;
	size_t k;
	struct pol_unit *copy;

	if (++P->n_emitted <= SH_DEDUP_AFTER)
		return 0;
	if (!P->seen) {
		P->seen = pol_arena_alloc(P->a, SH_DEDUP_SLOTS * sizeof(*P->seen));
		if (!P->seen)
			return 0; /* no table: emit everything */
		memset(P->seen, 0, SH_DEDUP_SLOTS * sizeof(*P->seen));
	}
	h = unit_hash(u);
	for (k = h & (SH_DEDUP_SLOTS - 1); P->seen[k].u; k = (k + 1) & (SH_DEDUP_SLOTS - 1))
		if (P->seen[k].h == h && unit_same(P->seen[k].u, u))
			return 1;
	if (P->n_seen >= SH_DEDUP_SLOTS / 2)
		return 0; /* full: emit the rest */
	copy = pol_arena_alloc(P->a, sizeof(*copy));
	if (!copy)
		return 0;
	*copy = *u;
	P->seen[k].h = h;
	P->seen[k].u = copy;
	P->n_seen++;
	return 0;
}

static void emit(struct sh_an *P, const struct pol_unit *u)
{
	int r;

	if (P->abort || seen_before(P, u))
		return;
	r = P->fn(u, P->arg);
	if (r) {
		P->ret = r;
		P->abort = 1;
	}
}

static void emit_finding(struct sh_an *P, const char *rule, const char *text, size_t len,
			 unsigned line, unsigned depth)
{
	struct pol_unit u;

	if (P->abort)
		return;
	memset(&u, 0, sizeof(u));
	u.kind = POL_UNIT_FINDING;
	u.rule_id = rule;
	u.text = text;
	u.len = len;
	u.line = line;
	u.depth = depth;
	emit(P, &u);
}

/* One word of a command view: text, length, data flag. */
struct vw {
	const char *s;
	size_t len;
	unsigned char data;
};

static void emit_command(struct sh_an *P, const struct vw *v, size_t n, unsigned line,
			 unsigned depth)
{
	struct pol_unit u;
	size_t total = 0, off = 0;
	char *text, **argv;
	size_t *woff;
	unsigned char *data;

	if (!n || P->abort)
		return;
	for (size_t i = 0; i < n; i++)
		total += v[i].len + 1;
	text = sh_alloc(P, total);
	argv = sh_alloc(P, (n + 1) * sizeof(*argv));
	woff = sh_alloc(P, n * sizeof(*woff));
	data = sh_alloc(P, n);
	if (!text || !argv || !woff || !data)
		return;
	for (size_t i = 0; i < n; i++) {
		woff[i] = off;
		memcpy(text + off, v[i].s, v[i].len);
		argv[i] = text + off;
		off += v[i].len;
		text[off++] = '\0';
		data[i] = v[i].data;
	}
	argv[n] = NULL;
	/* argv[i] are NUL-terminated slices of text; join them with spaces afterwards
	 * would break argv, so text gets its own copy */
	{
		char *joined = sh_alloc(P, total);
		if (!joined)
			return;
		memcpy(joined, text, total);
		for (size_t i = 0; i + 1 < n; i++)
			joined[woff[i + 1] - 1] = ' ';
		memset(&u, 0, sizeof(u));
		u.kind = POL_UNIT_COMMAND;
		u.text = joined;
		u.len = total - 1;
	}
	u.argv = argv;
	u.argc = n;
	u.word_off = woff;
	u.word_is_data = data;
	u.line = line;
	u.depth = depth;
	emit(P, &u);
}

static const char *lang_name(int lang);

static void emit_script_unit(struct sh_an *P, int lang, const char *body, size_t len, int heredoc,
			     unsigned line, unsigned depth)
{
	struct pol_unit u;

	memset(&u, 0, sizeof(u));
	u.kind = POL_UNIT_SCRIPT;
	u.text = body;
	u.len = len;
	u.language = lang_name(lang);
	u.from_heredoc = heredoc;
	u.line = line;
	u.depth = depth;
	emit(P, &u);
}

/* The value of a variable: HOME from the options, others from assignments seen
 * earlier in the command line (D=~/.ssh; cat $D/id_rsa). NULL when unknown. */
static const char *var_value(struct sh_an *P, const char *name, size_t nlen, size_t *vlen)
{
	if (nlen == 4 && !memcmp(name, "HOME", 4)) {
		*vlen = P->home_len;
		return P->home;
	}
	for (size_t i = P->nvars; i-- > 0;)
		if (P->vars[i].nlen == nlen && !memcmp(P->vars[i].name, name, nlen)) {
			*vlen = P->vars[i].vlen;
			return P->vars[i].value;
		}
	return NULL;
}

/* A word with its variable references expanded, after prefix_room free bytes; NULL
 * when a variable is unknown or the word holds another expansion. */
static char *expand_word(struct sh_an *P, const struct sh_word *w, size_t prefix_room,
			 size_t *outlen)
{
	size_t extra = 0, o = prefix_room, k = 0, vl;
	const char *val;
	char *out;

	if (w->flags & (W_UNRESOLVED | W_PROCSUB))
		return NULL;
	for (unsigned i = 0; i < w->nhome; i++) {
		if (!var_value(P, w->var_name[i], w->var_nlen[i], &vl))
			return NULL;
		extra += vl;
	}
	out = sh_alloc(P, prefix_room + w->len + extra + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < w->len;) {
		if (k < w->nhome && w->home_off[k] == i) {
			val = var_value(P, w->var_name[k], w->var_nlen[k], &vl);
			memcpy(out + o, val, vl);
			o += vl;
			i += w->home_len[k];
			k++;
			continue;
		}
		out[o++] = w->s[i++];
	}
	out[o] = '\0';
	*outlen = o - prefix_room;
	return out;
}

/* The path form of a word: variables expanded, made relative to a directory entered
 * with cd. NULL when the word cannot name a known path. */
static char *path_form(struct sh_an *P, const struct sh_word *w, size_t *outlen)
{
	const char *cwd = scope_cwd(P->walk_scope);
	size_t cl = cwd ? strlen(cwd) : 0, len;
	char *out;

	if (!w->len)
		return NULL;
	out = expand_word(P, w, cl + 1, &len);
	if (!out)
		return NULL;
	if (!cl || out[cl + 1] == '/') { /* absolute, or no cd seen: as written */
		*outlen = len;
		return out + cl + 1;
	}
	memcpy(out, cwd, cl);
	if (out[cl - 1] == '/') {
		*outlen = cl + len;
		memmove(out + cl, out + cl + 1, len + 1);
	} else {
		out[cl] = '/';
		*outlen = cl + 1 + len;
	}
	return out;
}

static void sub_word(const struct sh_word *w, size_t off, struct sh_word *out);

static void forget_var(struct sh_an *P, const char *name, size_t nlen)
{
	size_t o = 0;

	for (size_t i = 0; i < P->nvars; i++)
		if (!(P->vars[i].nlen == nlen && !memcmp(P->vars[i].name, name, nlen)))
			P->vars[o++] = P->vars[i];
	P->nvars = o;
}

/* NAME=value words of a command that only assigns (or export/declare/local): their
 * values, when known, expand later path arguments. */
static void record_assignment(struct sh_an *P, const struct sh_word *w)
{
	const char *eq = memchr(w->s, '=', w->len);
	struct sh_word val;
	size_t nlen, vlen;
	char *v;

	if (!eq || eq == w->s || eq[-1] == '+' || eq[-1] == ']')
		return;
	nlen = (size_t)(eq - w->s);
	sub_word(w, nlen + 1, &val);
	v = expand_word(P, &val, 0, &vlen);
	forget_var(P, w->s, nlen);	 /* an unknown value shadows an older known one */
	if (!v || vlen > SH_MAX_VAR_LEN) /* B=$A$A; C=$B$B ... must not double forever */
		return;
	if (P->nvars == SH_MAX_VARS) { /* forget the oldest */
		memmove(P->vars, P->vars + 1, (SH_MAX_VARS - 1) * sizeof(P->vars[0]));
		P->nvars--;
	}
	P->vars[P->nvars].name = w->s;
	P->vars[P->nvars].nlen = nlen;
	P->vars[P->nvars].value = v;
	P->vars[P->nvars].vlen = vlen;
	P->nvars++;
}

static int is_pseudo_file(const char *p)
{
	return !strcmp(p, "/dev/null") || !strcmp(p, "/dev/stdout") || !strcmp(p, "/dev/stderr") ||
	       !strcmp(p, "/dev/stdin") || !strcmp(p, "/dev/tty") || !strncmp(p, "/dev/fd/", 8) ||
	       !strncmp(p, "/proc/self/fd/", 14) || !strcmp(p, "-");
}

static void emit_path_str(struct sh_an *P, char *p, size_t plen, enum pol_op op, int is_dir,
			  unsigned line, unsigned depth);

static void emit_path(struct sh_an *P, const struct sh_word *w, enum pol_op op, int is_dir,
		      int remote, unsigned depth)
{
	size_t plen;
	char *p;

	if (remote || !w || !w->s || P->abort)
		return;
	if (memmem(w->s, w->len, "{}", 2)) /* find -exec's placeholder */
		return;
	p = path_form(P, w, &plen);
	if (p)
		emit_path_str(P, p, plen, op, is_dir, w->line, depth);
}

/* dir/basename(src): where mv, cp and ln put src when the target is a directory. */
static void emit_path_into(struct sh_an *P, const struct sh_word *dir, const struct sh_word *src,
			   enum pol_op op, int remote, unsigned depth)
{
	size_t dl, sl, b, e;
	char *d, *sp, *p;

	if (remote || !dir || !src || P->abort || memmem(src->s, src->len, "{}", 2))
		return;
	d = path_form(P, dir, &dl);
	sp = path_form(P, src, &sl);
	if (!d || !sp)
		return;
	e = sl;
	while (e > 1 && sp[e - 1] == '/')
		e--;
	b = e;
	while (b > 0 && sp[b - 1] != '/')
		b--;
	while (dl > 1 && d[dl - 1] == '/')
		dl--;
	p = sh_alloc(P, dl + 1 + (e - b) + 1);
	if (!p)
		return;
	memcpy(p, d, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, sp + b, e - b);
	p[dl + 1 + e - b] = '\0';
	emit_path_str(P, p, dl + 1 + e - b, op, 0, dir->line, depth);
}

static void emit_path_str(struct sh_an *P, char *p, size_t plen, enum pol_op op, int is_dir,
			  unsigned line, unsigned depth)
{
	struct pol_unit u;

	if (is_pseudo_file(p))
		return;
	memset(&u, 0, sizeof(u));
	u.kind = POL_UNIT_PATH;
	u.path = p;
	u.text = p;
	u.len = plen;
	u.op = op;
	u.is_dir_op = is_dir;
	u.line = line;
	u.depth = depth;
	if (P->defer) {
		struct sh_pq *q = sh_alloc(P, sizeof(*q));
		if (!q)
			return;
		q->u = u;
		q->next = NULL;
		if (P->pq_tail)
			P->pq_tail->next = q;
		else
			P->pq_head = q;
		P->pq_tail = q;
		return;
	}
	emit(P, &u);
}

/* Emits the path units queued after mark (NULL: all) and drops them from the queue. */
static void flush_paths(struct sh_an *P, struct sh_pq *mark)
{
	struct sh_pq *q = mark ? mark->next : P->pq_head;

	for (; q; q = q->next)
		emit(P, &q->u);
	if (mark)
		mark->next = NULL;
	else
		P->pq_head = NULL;
	P->pq_tail = mark;
}

/* ---- analysing strings that are code -------------------------------------------- */

static void analyze_string(struct sh_an *P, const char *s, size_t len, unsigned depth,
			   unsigned line, int remote)
{
	struct sh_lex L;

	if (P->abort)
		return;
	if (depth > SH_MAX_NEST) {
		emit_finding(P, "shell.parse.too_complex", s, len < 80 ? len : 80, line, depth);
		P->abort = 1;
		return;
	}
	if (lex_init(P, &L, s, len, line, depth, remote))
		return;
	{
		/* a new shell, started by the command being walked */
		struct sh_scope *save = P->cur_scope;
		P->cur_scope = new_scope(P, P->walk_scope);
		if (P->cur_scope) {
			/* it starts in the directory of now; its commands are walked later */
			const char *now = scope_cwd(P->walk_scope);
			P->cur_scope->cwd = now ? now : ""; /* "": the caller's */
			parse_list(P, &L, 0);
		}
		P->cur_scope = save;
	}
	/* the new commands were appended to the list: the walk reaches them in turn */
}

/* Words joined by spaces: what ssh, watch and eval hand to a shell. */
static char *join_words(struct sh_an *P, struct sh_word **v, size_t n, size_t *outlen)
{
	size_t total = 0, o = 0;
	char *s;

	for (size_t i = 0; i < n; i++)
		total += v[i]->len + 1;
	s = sh_alloc(P, total + 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (i)
			s[o++] = ' ';
		memcpy(s + o, v[i]->s, v[i]->len);
		o += v[i]->len;
	}
	s[o] = '\0';
	*outlen = o;
	return s;
}

static char *expand_word(struct sh_an *P, const struct sh_word *w, size_t prefix_room,
			 size_t *outlen);

/* Like join_words, with variables whose values are known put in. */
static char *join_expanded(struct sh_an *P, struct sh_word **v, size_t n, size_t *outlen)
{
	size_t total = 0, o = 0, l;
	char **parts = sh_alloc(P, n * sizeof(*parts));
	size_t *lens = sh_alloc(P, n * sizeof(*lens));
	char *s;

	if (!parts || !lens)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		parts[i] = v[i]->nhome ? expand_word(P, v[i], 0, &l) : NULL;
		lens[i] = parts[i] ? l : v[i]->len;
		if (!parts[i])
			parts[i] = v[i]->s;
		total += lens[i] + 1;
	}
	s = sh_alloc(P, total + 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (i)
			s[o++] = ' ';
		memcpy(s + o, parts[i], lens[i]);
		o += lens[i];
	}
	s[o] = '\0';
	*outlen = o;
	return s;
}

enum { LANG_NONE = 0, LANG_SHELL, LANG_PYTHON, LANG_NODE, LANG_RUBY, LANG_PERL, LANG_PHP };

static const char *lang_name(int lang)
{
	switch (lang) {
	case LANG_SHELL:
		return "bash";
	case LANG_PYTHON:
		return "python";
	case LANG_NODE:
		return "node";
	case LANG_RUBY:
		return "ruby";
	case LANG_PERL:
		return "perl";
	case LANG_PHP:
		return "php";
	default:
		return NULL;
	}
}

static int prefix_ver(const char *name, size_t len, const char *stem)
{
	size_t sl = strlen(stem);

	if (len < sl || memcmp(name, stem, sl) != 0)
		return 0;
	for (size_t i = sl; i < len; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || name[i] == '.'))
			return 0;
	return 1;
}

/* The language an interpreter name runs: python3.11, nodejs, perl5.36 ... */
static int lang_from_name(const char *name, size_t len)
{
	static const char *const shells[] = {"bash", "sh",    "zsh",  "dash", "ksh",	    "ash",
					     "mksh", "rbash", "yash", "fish", "busybox-sh", NULL};
	for (size_t i = 0; shells[i]; i++)
		if (len == strlen(shells[i]) && !memcmp(name, shells[i], len))
			return LANG_SHELL;
	if (prefix_ver(name, len, "python") || prefix_ver(name, len, "pypy"))
		return LANG_PYTHON;
	if (prefix_ver(name, len, "node") || (len == 6 && !memcmp(name, "nodejs", 6)) ||
	    (len == 4 && !memcmp(name, "deno", 4)) || (len == 3 && !memcmp(name, "bun", 3)) ||
	    (len == 3 && !memcmp(name, "tsx", 3)) || (len == 7 && !memcmp(name, "ts-node", 7)))
		return LANG_NODE;
	if (prefix_ver(name, len, "ruby"))
		return LANG_RUBY;
	if (prefix_ver(name, len, "perl"))
		return LANG_PERL;
	if (prefix_ver(name, len, "php"))
		return LANG_PHP;
	return LANG_NONE;
}

/* The language named by a script's first line (#!/usr/bin/env python3), or NONE. */
static int lang_from_shebang(const char *s, size_t len)
{
	size_t e = 2, b, k;

	if (len < 3 || s[0] != '#' || s[1] != '!')
		return LANG_NONE;
	while (e < len && s[e] != '\n')
		e++;
	b = 2;
	while (b < e && (s[b] == ' ' || s[b] == '\t'))
		b++;
	k = b;
	while (k < e && s[k] != ' ' && s[k] != '\t')
		k++;
	/* basename of the interpreter */
	size_t nb = b;
	for (size_t i = b; i < k; i++)
		if (s[i] == '/')
			nb = i + 1;
	if (k - nb == 3 && !memcmp(s + nb, "env", 3)) {
		b = k;
		for (;;) {
			while (b < e && (s[b] == ' ' || s[b] == '\t'))
				b++;
			k = b;
			while (k < e && s[k] != ' ' && s[k] != '\t')
				k++;
			if (b < e && s[b] == '-') {
				b = k;
				continue;
			}
			break;
		}
		nb = b;
		for (size_t i = b; i < k; i++)
			if (s[i] == '/')
				nb = i + 1;
	}
	return lang_from_name(s + nb, k - nb);
}

/* A heredoc body as the consumer sees it (<<- strips leading tabs). */
static const char *heredoc_text(struct sh_an *P, const struct sh_heredoc *h, size_t *len)
{
	char *out;
	size_t o = 0;
	int bol = 1;

	if (!h->strip) {
		*len = h->len;
		return h->body;
	}
	out = sh_alloc(P, h->len + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < h->len; i++) {
		if (bol && h->body[i] == '\t')
			continue;
		bol = h->body[i] == '\n';
		out[o++] = h->body[i];
	}
	out[o] = '\0';
	*len = o;
	return out;
}

/* Code in a language: shell is analysed here, others become SCRIPT units. */
static void run_code(struct sh_an *P, int lang, const char *s, size_t len, int heredoc,
		     unsigned line, unsigned depth, int remote)
{
	if (!s || P->abort)
		return;
	if (lang == LANG_SHELL)
		analyze_string(P, s, len, depth + 1, line, remote);
	else if (lang != LANG_NONE)
		emit_script_unit(P, lang, s, len, heredoc, line, depth);
}

/* ---- the walk: normalization ------------------------------------------------------- */

static int word_is(const struct sh_word *w, const char *const *set)
{
	for (size_t i = 0; set[i]; i++)
		if (weq(w, set[i]))
			return 1;
	return 0;
}

static int is_assignment(const struct sh_word *w)
{
	size_t i = 0;

	if (!w->len || !is_name_start((unsigned char)w->s[0]))
		return 0;
	while (i < w->len && is_name_char((unsigned char)w->s[i]))
		i++;
	if (i < w->len && w->s[i] == '[') {
		while (i < w->len && w->s[i] != ']')
			i++;
		i++;
	}
	if (i < w->len && w->s[i] == '+')
		i++;
	return i < w->len && w->s[i] == '=';
}

/* The command name of a word: its basename ("/bin/rm" -> "rm"). */
static void base_of(const struct sh_word *w, const char **s, size_t *len)
{
	size_t b = 0;

	if (!(w->flags & (W_SUBST | W_UNRESOLVED)))
		for (size_t i = 0; i + 1 < w->len; i++)
			if (w->s[i] == '/')
				b = i + 1;
	*s = w->s + b;
	*len = w->len - b;
}

static int name_is(const char *s, size_t len, const char *lit)
{
	return lit_eq(s, len, lit);
}

/* Does a short option letter take an argument? Long options with an argument are
 * listed as "--name" (the "--name=value" form needs no list). */
static int opt_takes_arg(const char *sarg, int c)
{
	return sarg && c && strchr(sarg, c) != NULL;
}

static int long_takes_arg(const char *const *larg, const struct sh_word *w)
{
	if (!larg || memchr(w->s, '=', w->len))
		return 0;
	return word_is(w, larg);
}

struct wrapper {
	const char *name;
	const char *sarg;	 /* short options with an argument */
	const char *const *larg; /* long options with an argument */
	int npos;		 /* positionals before the command (timeout's duration) */
	int assigns;		 /* NAME=value words allowed (env) */
};

static const char *const sudo_long[] = {
    "--user", "--group",      "--host",	      "--prompt",	   "--chdir", "--role",
    "--type", "--close-from", "--other-user", "--command-timeout", NULL};
static const char *const env_long[] = {"--unset", "--chdir", NULL};
static const char *const time_long[] = {"--format", "--output", NULL};
static const char *const timeout_long[] = {"--signal", "--kill-after", NULL};
static const char *const nice_long[] = {"--adjustment", NULL};
static const char *const ionice_long[] = {"--class", "--classdata", "--pid",
					  "--pgid",  "--uid",	    NULL};
static const char *const xargs_long[] = {"--arg-file",	       "--delimiter", "--max-lines",
					 "--max-args",	       "--max-procs", "--max-chars",
					 "--process-slot-var", NULL};
static const char *const stdbuf_long[] = {"--input", "--output", "--error", NULL};

static const struct wrapper wrappers[] = {
    {"sudo", "ugphCDrtTU", sudo_long, 0, 0},
    {"doas", "uC", NULL, 0, 0},
    {"env", "uC", env_long, 0, 1},
    {"command", "", NULL, 0, 0},
    {"builtin", "", NULL, 0, 0},
    {"exec", "a", NULL, 0, 0},
    {"nohup", "", NULL, 0, 0},
    {"nice", "n", nice_long, 0, 0},
    {"time", "fo", time_long, 0, 0},
    {"timeout", "sk", timeout_long, 1, 0},
    {"stdbuf", "ioe", stdbuf_long, 0, 0},
    {"ionice", "cnpPu", ionice_long, 0, 0},
    {"xargs", "adEILnPs", xargs_long, 0, 0},
    {"setsid", "", NULL, 0, 0},
    {"chrt", "", NULL, 1, 0},
    {"taskset", "", NULL, 1, 0},
    {"chroot", "", NULL, 1, 0},
    {"unbuffer", "", NULL, 0, 0},
    {"fakeroot", "", NULL, 0, 0},
    {"eatmydata", "", NULL, 0, 0},
    {"nocache", "", NULL, 0, 0},
    {"torsocks", "", NULL, 0, 0},
    {"proxychains", "f", NULL, 0, 0},
    {"proxychains4", "f", NULL, 0, 0},
    {"busybox", "", NULL, 0, 0},
    {"caffeinate", "tw", NULL, 0, 0},
    {"unshare", "", NULL, 0, 0},
    {"nsenter", "tSGwr", NULL, 0, 0},
    {"firejail", "", NULL, 0, 0},
    {"systemd-run", "pEMu", NULL, 0, 0},
    {"setpriv", "", NULL, 0, 0},
    {"prlimit", "p", NULL, 0, 0},
    {"strace", "oepsIEPbaUX", NULL, 0, 0},
    {"ltrace", "oepsaAnu", NULL, 0, 0},
    {"valgrind", "", NULL, 0, 0},
    {"xvfb-run", "nslfe", NULL, 0, 0},
    {"catchsegv", "", NULL, 0, 0},
    {"flock", "wEc", NULL, 1, 0},
    {"script", "EOIT", NULL, 0, 0},
    {"dbus-run-session", "", NULL, 0, 0},
    {"sg", "", NULL, 1, 0},
    {"then", "", NULL, 0, 0},
};

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
	int kind;	 /* enum cmd_kind of name */
	unsigned kflags; /* F_* of name */
	int query_only;	 /* command -v: nothing runs */
};

static void process_words(struct sh_an *P, struct sh_cmd *c, struct sh_word **v, size_t n,
			  unsigned depth, int remote, unsigned line);

/* Strips wrappers from v[i..n); returns the index of the real command (n: none). */
static size_t strip_wrappers(struct sh_an *P, struct sh_word **v, size_t n, size_t i,
			     unsigned depth, int remote, unsigned line, int *query_only)
{
	while (i < n) { /* each round takes at least the wrapper's name */
		const char *nm;
		size_t nl;
		const struct wrapper *wr = NULL;

		base_of(v[i], &nm, &nl);
		for (size_t k = 0; k < sizeof(wrappers) / sizeof(wrappers[0]); k++)
			if (name_is(nm, nl, wrappers[k].name)) {
				wr = &wrappers[k];
				break;
			}
		if (!wr)
			return i;
		if (name_is(nm, nl, "busybox") && i + 1 < n && weq(v[i + 1], "sh"))
			return i + 1;
		i++;
		int pos = wr->npos;
		while (i < n) {
			struct sh_word *w = v[i];
			if (wr->assigns && is_assignment(w)) {
				i++;
				continue;
			}
			if (w->len >= 2 && w->s[0] == '-' && !(w->len == 2 && w->s[1] == '-')) {
				if (w->s[1] == '-') {
					/* env --split-string=STR / -S STR: the string is a command */
					if (name_is(nm, nl, "env") &&
					    !strncmp(w->s, "--split-string", 14)) {
						const char *eq = memchr(w->s, '=', w->len);
						if (eq) {
							analyze_string(P, eq + 1,
								       w->len -
									   (size_t)(eq + 1 - w->s),
								       depth + 1, line, remote);
						} else if (i + 1 < n) {
							analyze_string(P, v[i + 1]->s,
								       v[i + 1]->len, depth + 1,
								       line, remote);
						}
						return n;
					}
					i += long_takes_arg(wr->larg, w) ? 2 : 1;
					continue;
				}
				if (name_is(nm, nl, "command") &&
				    (strchr(w->s, 'v') || strchr(w->s, 'V'))) {
					*query_only = 1;
					return n;
				}
				if (name_is(nm, nl, "sudo") &&
				    (weq(w, "-l") || weq(w, "-v") || weq(w, "-k") || weq(w, "-K") ||
				     weq(w, "-V") || weq(w, "-e"))) {
					*query_only = 1;
					return n;
				}
				if ((name_is(nm, nl, "flock") || name_is(nm, nl, "script") ||
				     name_is(nm, nl, "sg")) &&
				    (weq(w, "-c") || weq(w, "--command"))) {
					if (i + 1 < n)
						analyze_string(P, v[i + 1]->s, v[i + 1]->len,
							       depth + 1, line, remote);
					return n;
				}
				if (name_is(nm, nl, "env") && w->len >= 2 && w->s[1] == 'S') {
					if (w->len > 2)
						analyze_string(P, w->s + 2, w->len - 2, depth + 1,
							       line, remote);
					else if (i + 1 < n)
						analyze_string(P, v[i + 1]->s, v[i + 1]->len,
							       depth + 1, line, remote);
					return n;
				}
				/* a bundle: the first letter taking an argument takes the rest of
				 * the word, or the next word when the rest is empty */
				size_t j = 1, adv = 1;
				for (; j < w->len; j++) {
					if (opt_takes_arg(wr->sarg, w->s[j])) {
						if (j + 1 == w->len)
							adv = 2;
						break;
					}
				}
				i += adv;
				continue;
			}
			if (weq(w, "--")) {
				i++;
				break;
			}
			if (pos > 0) {
				pos--;
				i++;
				continue;
			}
			break;
		}
		while (pos > 0 && i < n) { /* positionals after "--" */
			pos--;
			i++;
		}
		/* env may take assignments after "--" too */
		while (i < n && wr->assigns && is_assignment(v[i]))
			i++;
	}
	return i;
}

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

static void sub_word(const struct sh_word *w, size_t off, struct sh_word *out)
{
	*out = *w;
	out->s = w->s + off;
	out->len = w->len - off;
	out->nhome = 0;
	for (unsigned k = 0; k < w->nhome; k++)
		if (w->home_off[k] >= off && out->nhome < SH_MAX_HOME) {
			out->home_off[out->nhome] = w->home_off[k] - (uint32_t)off;
			out->home_len[out->nhome] = w->home_len[k];
			out->var_name[out->nhome] = w->var_name[k];
			out->var_nlen[out->nhome] = w->var_nlen[k];
			out->nhome++;
		}
}

static void scan_opts(struct sh_word **v, size_t n, size_t from, const char *sarg,
		      const char *const *larg, struct opscan *o)
{
	int opts = 1;

	memset(o, 0, sizeof(*o));
	for (size_t i = from; i < n; i++) {
		struct sh_word *w = v[i];
		if (opts && weq(w, "--")) {
			opts = 0;
			continue;
		}
		if (opts && w->len >= 2 && w->s[0] == '-' && !(w->flags & W_PROCSUB)) {
			if (w->s[1] == '-') {
				const char *eq = memchr(w->s, '=', w->len);
				if (o->narg < 32 && (eq || long_takes_arg(larg, w))) {
					o->arg[o->narg].c = 0;
					o->arg[o->narg].lw = w;
					if (eq)
						sub_word(w, (size_t)(eq - w->s) + 1,
							 &o->arg[o->narg].val);
					else if (i + 1 < n)
						o->arg[o->narg].val = *v[i + 1];
					else
						o->arg[o->narg].val.s = NULL;
					if (o->arg[o->narg].val.s)
						o->narg++;
				}
				if (!eq && long_takes_arg(larg, w))
					i++;
				continue;
			}
			for (size_t j = 1; j < w->len; j++) {
				unsigned char ch = (unsigned char)w->s[j];
				if (ch < 128)
					o->seen[ch] = 1;
				if (opt_takes_arg(sarg, ch)) {
					if (o->narg < 32) {
						o->arg[o->narg].c = (char)ch;
						o->arg[o->narg].lw = NULL;
						if (j + 1 < w->len)
							sub_word(w, j + 1, &o->arg[o->narg].val);
						else if (i + 1 < n)
							o->arg[o->narg].val = *v[i + 1];
						else
							o->arg[o->narg].val.s = NULL;
						if (o->arg[o->narg].val.s)
							o->narg++;
					}
					if (j + 1 == w->len)
						i++;
					break;
				}
			}
			continue;
		}
		if (o->nop < 64)
			o->op[o->nop++] = i;
	}
}

/* The value of a long option ("--target-directory") or short letter, or NULL. */
static const struct sh_word *opt_val(const struct opscan *o, char c, const char *lname)
{
	for (size_t k = 0; k < o->narg; k++) {
		if (c && o->arg[k].c == c)
			return &o->arg[k].val;
		if (lname && o->arg[k].lw) {
			size_t ll = strlen(lname);
			const struct sh_word *lw = o->arg[k].lw;
			if (lw->len >= ll && !memcmp(lw->s, lname, ll) &&
			    (lw->len == ll || lw->s[ll] == '='))
				return &o->arg[k].val;
		}
	}
	return NULL;
}

static int has_long(struct sh_word **v, size_t n, size_t from, const char *prefix)
{
	size_t pl = strlen(prefix);

	for (size_t i = from; i < n; i++) {
		if (weq(v[i], "--"))
			return 0;
		if (v[i]->len >= pl && !memcmp(v[i]->s, prefix, pl))
			return 1;
	}
	return 0;
}

/* ---- command names: one lookup per command ------------------------------------------ */

enum { F_DL = 1, F_DEC = 2, F_DB = 4, F_FEED = 8, F_WRAP = 16, F_LANG = 32 };
enum cmd_kind {
	K_NONE = 0,
	K_AWK,
	K_CD,
	K_CHMOD,
	K_CURL,
	K_DD,
	K_ECHO,
	K_EDITOR,
	K_EVAL,
	K_FIND,
	K_GH,
	K_GIT,
	K_GREP,
	K_HEADTAIL,
	K_JQ,
	K_LISTER,
	K_MKDIR,
	K_MVCP,
	K_OPENSSL,
	K_READER,
	K_RM,
	K_RMDIR,
	K_RSYNC,
	K_SED,
	K_SORT,
	K_SSH,
	K_SU,
	K_TAR,
	K_TEE,
	K_TOUCH,
	K_TRUNCATE,
	K_UNLINK,
	K_UNZIP,
	K_WATCH,
	K_WGET,
	K_ZIP,
	K_CONTAINER,
};

/* Every name the walk knows, sorted by bytes (generated; keep sorted: binary search). */
static const struct name_class {
	const char *name;
	uint8_t kind;
	uint8_t flags;
} name_classes[] = {
    {".", K_READER, 0},
    {":", K_ECHO, 0},
    {"[", K_ECHO, 0},
    {"[[", K_ECHO, 0},
    {"ack", K_GREP, 0},
    {"ack-grep", K_GREP, 0},
    {"ag", K_GREP, 0},
    {"alias", K_ECHO, 0},
    {"apropos", K_ECHO, 0},
    {"aria2c", K_NONE, F_DL},
    {"ash", K_NONE, F_LANG},
    {"awk", K_AWK, 0},
    {"b2sum", K_READER, 0},
    {"banner", K_ECHO, 0},
    {"base32", K_READER, F_DEC},
    {"base64", K_READER, F_DEC},
    {"basenc", K_NONE, F_DEC},
    {"bash", K_NONE, F_LANG},
    {"bat", K_READER, 0},
    {"batcat", K_READER, 0},
    {"bsdtar", K_TAR, 0},
    {"builtin", K_NONE, F_WRAP},
    {"bun", K_NONE, F_LANG},
    {"bunzip2", K_NONE, F_DEC},
    {"busybox", K_NONE, F_WRAP},
    {"busybox-sh", K_NONE, F_LANG},
    {"bzcat", K_READER, F_DEC},
    {"bzip2", K_NONE, F_DEC},
    {"caffeinate", K_NONE, F_WRAP},
    {"cat", K_READER, F_FEED},
    {"catchsegv", K_NONE, F_WRAP},
    {"cd", K_CD, 0},
    {"chattr", K_CHMOD, 0},
    {"chgrp", K_CHMOD, 0},
    {"chmod", K_CHMOD, 0},
    {"chown", K_CHMOD, 0},
    {"chroot", K_NONE, F_WRAP},
    {"chrt", K_NONE, F_WRAP},
    {"cksum", K_READER, 0},
    {"clickhouse-client", K_NONE, F_DB},
    {"cmp", K_READER, 0},
    {"cockroach", K_NONE, F_DB},
    {"code", K_EDITOR, 0},
    {"colordiff", K_READER, 0},
    {"column", K_READER, 0},
    {"comm", K_READER, 0},
    {"command", K_NONE, F_WRAP},
    {"cowsay", K_ECHO, 0},
    {"cp", K_MVCP, 0},
    {"cqlsh", K_NONE, F_DB},
    {"curl", K_CURL, F_DL},
    {"cut", K_READER, 0},
    {"dash", K_NONE, F_LANG},
    {"dbus-run-session", K_NONE, F_WRAP},
    {"dd", K_DD, 0},
    {"declare", K_ECHO, 0},
    {"deno", K_NONE, F_LANG},
    {"diff", K_READER, 0},
    {"dir", K_LISTER, 0},
    {"doas", K_NONE, F_WRAP},
    {"docker", K_CONTAINER, 0},
    {"dos2unix", K_READER, 0},
    {"du", K_LISTER, 0},
    {"duckdb", K_NONE, F_DB},
    {"eatmydata", K_NONE, F_WRAP},
    {"echo", K_ECHO, F_FEED},
    {"ed", K_EDITOR, 0},
    {"egrep", K_GREP, 0},
    {"emacs", K_EDITOR, 0},
    {"env", K_NONE, F_WRAP},
    {"eval", K_EVAL, 0},
    {"exa", K_LISTER, 0},
    {"exec", K_NONE, F_WRAP},
    {"expand", K_READER, 0},
    {"export", K_ECHO, 0},
    {"eza", K_LISTER, 0},
    {"fakeroot", K_NONE, F_WRAP},
    {"false", K_ECHO, 0},
    {"fetch", K_NONE, F_DL},
    {"fgrep", K_GREP, 0},
    {"figlet", K_ECHO, 0},
    {"file", K_READER, 0},
    {"find", K_FIND, 0},
    {"firejail", K_NONE, F_WRAP},
    {"fish", K_NONE, F_LANG},
    {"flock", K_NONE, F_WRAP},
    {"fmt", K_READER, 0},
    {"fold", K_READER, 0},
    {"ftp", K_NONE, F_DL},
    {"gawk", K_AWK, 0},
    {"gedit", K_EDITOR, 0},
    {"gh", K_GH, 0},
    {"git", K_GIT, 0},
    {"glab", K_GH, 0},
    {"gojq", K_JQ, 0},
    {"gpg", K_READER, 0},
    {"grep", K_GREP, 0},
    {"gunzip", K_READER, F_DEC},
    {"gzip", K_NONE, F_DEC},
    {"hash", K_ECHO, 0},
    {"head", K_HEADTAIL, 0},
    {"help", K_ECHO, 0},
    {"hexdump", K_READER, 0},
    {"http", K_NONE, F_DL},
    {"https", K_NONE, F_DL},
    {"iconv", K_READER, 0},
    {"info", K_ECHO, 0},
    {"install", K_MVCP, 0},
    {"ionice", K_NONE, F_WRAP},
    {"join", K_READER, 0},
    {"jq", K_JQ, 0},
    {"kate", K_EDITOR, 0},
    {"ksh", K_NONE, F_LANG},
    {"kubectl", K_CONTAINER, 0},
    {"less", K_READER, 0},
    {"links", K_NONE, F_DL},
    {"ln", K_MVCP, 0},
    {"local", K_ECHO, 0},
    {"logger", K_ECHO, 0},
    {"look", K_READER, 0},
    {"ls", K_LISTER, 0},
    {"lsd", K_LISTER, 0},
    {"ltrace", K_NONE, F_WRAP},
    {"lynx", K_NONE, F_DL},
    {"man", K_ECHO, 0},
    {"mariadb", K_NONE, F_DB},
    {"mawk", K_AWK, 0},
    {"md5sum", K_READER, 0},
    {"micro", K_EDITOR, 0},
    {"mkdir", K_MKDIR, 0},
    {"mkfifo", K_MKDIR, 0},
    {"mknod", K_MKDIR, 0},
    {"mksh", K_NONE, F_LANG},
    {"mongo", K_NONE, F_DB},
    {"mongosh", K_NONE, F_DB},
    {"more", K_READER, 0},
    {"mv", K_MVCP, 0},
    {"mysql", K_NONE, F_DB},
    {"nano", K_EDITOR, 0},
    {"nawk", K_AWK, 0},
    {"nc", K_NONE, F_DL},
    {"ncat", K_NONE, F_DL},
    {"netcat", K_NONE, F_DL},
    {"nice", K_NONE, F_WRAP},
    {"nl", K_READER, 0},
    {"nocache", K_NONE, F_WRAP},
    {"nodejs", K_NONE, F_LANG},
    {"nohup", K_NONE, F_WRAP},
    {"notify-send", K_ECHO, 0},
    {"nsenter", K_NONE, F_WRAP},
    {"nvim", K_EDITOR, 0},
    {"oc", K_CONTAINER, 0},
    {"od", K_READER, 0},
    {"openssl", K_OPENSSL, F_DEC},
    {"paste", K_READER, 0},
    {"pcregrep", K_GREP, 0},
    {"pico", K_EDITOR, 0},
    {"podman", K_CONTAINER, 0},
    {"pr", K_READER, 0},
    {"printf", K_ECHO, F_FEED},
    {"prlimit", K_NONE, F_WRAP},
    {"proxychains", K_NONE, F_WRAP},
    {"proxychains4", K_NONE, F_WRAP},
    {"psql", K_NONE, F_DB},
    {"pushd", K_CD, 0},
    {"rbash", K_NONE, F_LANG},
    {"read", K_ECHO, 0},
    {"readonly", K_ECHO, 0},
    {"redis-cli", K_NONE, F_DB},
    {"rev", K_NONE, F_DEC},
    {"rg", K_GREP, 0},
    {"rm", K_RM, 0},
    {"rmdir", K_RMDIR, 0},
    {"rsync", K_RSYNC, 0},
    {"runuser", K_SU, 0},
    {"say", K_ECHO, 0},
    {"scp", K_RSYNC, F_DL},
    {"script", K_NONE, F_WRAP},
    {"sdiff", K_READER, 0},
    {"sed", K_SED, 0},
    {"setfacl", K_CHMOD, 0},
    {"setpriv", K_NONE, F_WRAP},
    {"setsid", K_NONE, F_WRAP},
    {"sg", K_NONE, F_WRAP},
    {"sh", K_NONE, F_LANG},
    {"sha1sum", K_READER, 0},
    {"sha224sum", K_READER, 0},
    {"sha256sum", K_READER, 0},
    {"sha384sum", K_READER, 0},
    {"sha512sum", K_READER, 0},
    {"shasum", K_READER, 0},
    {"shred", K_UNLINK, 0},
    {"slogin", K_SSH, 0},
    {"socat", K_NONE, F_DL},
    {"sort", K_SORT, 0},
    {"source", K_READER, 0},
    {"sqlcmd", K_NONE, F_DB},
    {"sqlite3", K_NONE, F_DB},
    {"srm", K_UNLINK, 0},
    {"ssh", K_SSH, 0},
    {"ssh-add", K_READER, 0},
    {"stdbuf", K_NONE, F_WRAP},
    {"strace", K_NONE, F_WRAP},
    {"strings", K_READER, 0},
    {"su", K_SU, 0},
    {"subl", K_EDITOR, 0},
    {"sudo", K_NONE, F_WRAP},
    {"systemd-run", K_NONE, F_WRAP},
    {"tac", K_READER, 0},
    {"tail", K_HEADTAIL, 0},
    {"tar", K_TAR, 0},
    {"taskset", K_NONE, F_WRAP},
    {"tee", K_TEE, F_FEED},
    {"test", K_ECHO, 0},
    {"tftp", K_NONE, F_DL},
    {"then", K_NONE, F_WRAP},
    {"time", K_NONE, F_WRAP},
    {"timeout", K_NONE, F_WRAP},
    {"tldr", K_ECHO, 0},
    {"toilet", K_ECHO, 0},
    {"torsocks", K_NONE, F_WRAP},
    {"touch", K_TOUCH, 0},
    {"tr", K_NONE, F_DEC},
    {"tree", K_LISTER, 0},
    {"true", K_ECHO, 0},
    {"truncate", K_TRUNCATE, 0},
    {"ts-node", K_NONE, F_LANG},
    {"tsx", K_NONE, F_LANG},
    {"type", K_ECHO, 0},
    {"typeset", K_ECHO, 0},
    {"unalias", K_ECHO, 0},
    {"unbuffer", K_NONE, F_WRAP},
    {"unexpand", K_READER, 0},
    {"uniq", K_READER, 0},
    {"unlink", K_UNLINK, 0},
    {"unshare", K_NONE, F_WRAP},
    {"unxz", K_NONE, F_DEC},
    {"unzip", K_UNZIP, 0},
    {"unzstd", K_NONE, F_DEC},
    {"uudecode", K_NONE, F_DEC},
    {"valgrind", K_NONE, F_WRAP},
    {"vi", K_EDITOR, 0},
    {"view", K_READER, 0},
    {"vim", K_EDITOR, 0},
    {"vimdiff", K_READER, 0},
    {"w3m", K_NONE, F_DL},
    {"wall", K_ECHO, 0},
    {"watch", K_WATCH, 0},
    {"wc", K_READER, 0},
    {"wget", K_WGET, F_DL},
    {"whatis", K_ECHO, 0},
    {"whereis", K_ECHO, 0},
    {"which", K_ECHO, 0},
    {"xargs", K_NONE, F_WRAP},
    {"xh", K_NONE, F_DL},
    {"xvfb-run", K_NONE, F_WRAP},
    {"xxd", K_READER, F_DEC},
    {"xz", K_NONE, F_DEC},
    {"xzcat", K_READER, F_DEC},
    {"yash", K_NONE, F_LANG},
    {"yq", K_JQ, 0},
    {"zcat", K_READER, F_DEC},
    {"zgrep", K_GREP, 0},
    {"zip", K_ZIP, 0},
    {"zless", K_READER, 0},
    {"zsh", K_NONE, F_LANG},
    {"zstd", K_NONE, F_DEC},
    {"zstdcat", K_NONE, F_DEC},
};

static int name_cmp(const char *s, size_t len, const char *lit)
{
	for (size_t i = 0; i < len; i++) {
		if (lit[i] == '\0')
			return 1;
		if ((unsigned char)s[i] != (unsigned char)lit[i])
			return (unsigned char)s[i] < (unsigned char)lit[i] ? -1 : 1;
	}
	return lit[len] == '\0' ? 0 : -1;
}

static void classify(const char *s, size_t len, int *kind, unsigned *flags)
{
	size_t lo = 0, hi = sizeof(name_classes) / sizeof(name_classes[0]);

	*kind = K_NONE;
	*flags = 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = name_cmp(s, len, name_classes[mid].name);
		if (c == 0) {
			*kind = name_classes[mid].kind;
			*flags = name_classes[mid].flags;
			return;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* versioned interpreters: python3.11, perl5.36, node18 ... */
	if (len && strchr("pnr", s[0]))
		*flags = F_LANG;
}

/* ---- the walk: what each command does ------------------------------------------------ */

#define NM(lit) name_is(x->name, x->nlen, lit)

static int name_in(const struct nc *x, const char *const *set)
{
	for (size_t i = 0; set[i]; i++)
		if (name_is(x->name, x->nlen, set[i]))
			return 1;
	return 0;
}

static void mark_data_from(struct nc *x, size_t from)
{
	for (size_t i = from; i < x->n; i++)
		x->data[i] = 1;
}

static void mark_word_data(struct nc *x, const struct sh_word *val)
{
	/* val may be a copy or a sub-word: find the word that holds it */
	for (size_t i = 0; i < x->n; i++)
		if (val->s >= x->v[i]->s && val->s <= x->v[i]->s + x->v[i]->len) {
			x->data[i] = 1;
			return;
		}
}

static void path(struct sh_an *P, struct nc *x, const struct sh_word *w, enum pol_op op, int dir)
{
	/* host:path (scp, rsync) is on another machine */
	if (w && w->s) {
		const char *colon = memchr(w->s, ':', w->len);
		const char *slash = memchr(w->s, '/', w->len);
		if (colon && colon != w->s && (!slash || colon < slash))
			return;
	}
	emit_path(P, w, op, dir, x->remote, x->depth);
}

static void ops_path(struct sh_an *P, struct nc *x, const struct opscan *o, size_t from, size_t to,
		     enum pol_op op, int dir)
{
	for (size_t k = from; k < to && k < o->nop; k++)
		path(P, x, x->v[o->op[k]], op, dir);
}

static const struct sh_file *file_lookup(struct sh_an *P, const struct sh_word *w)
{
	size_t plen;
	char *p = path_form(P, w, &plen);

	if (!p)
		return NULL;
	if (plen > 2 && p[0] == '.' && p[1] == '/') {
		p += 2;
		plen -= 2;
	}
	for (size_t i = 0; i < P->nfiles; i++)
		if (P->files[i].plen == plen && !memcmp(P->files[i].path, p, plen))
			return &P->files[i];
	return NULL;
}

static void file_record(struct sh_an *P, const struct sh_word *w, const char *body, size_t len,
			unsigned line)
{
	size_t plen;
	char *p = path_form(P, w, &plen);

	if (!p || P->nfiles >= SH_MAX_FILES)
		return;
	if (plen > 2 && p[0] == '.' && p[1] == '/') {
		p += 2;
		plen -= 2;
	}
	P->files[P->nfiles].path = p;
	P->files[P->nfiles].plen = plen;
	P->files[P->nfiles].body = body;
	P->files[P->nfiles].len = len;
	P->files[P->nfiles].heredoc = 1;
	P->files[P->nfiles].line = line;
	P->nfiles++;
}

/* A script file about to be run: when this command line wrote it from a heredoc,
 * its text is known and analysed in lang (or by its shebang when lang is NONE). */
static void run_file(struct sh_an *P, struct nc *x, const struct sh_word *w, int lang)
{
	const struct sh_file *f = file_lookup(P, w);

	if (!f)
		return;
	if (lang == LANG_NONE) {
		lang = lang_from_shebang(f->body, f->len);
		if (lang == LANG_NONE)
			lang = LANG_SHELL;
	}
	run_code(P, lang, f->body, f->len, 1, f->line, x->depth, x->remote);
}

/* stdin of a command that runs it as code: heredocs, here-strings, and what a pipe
 * brings (a download, a decoder, or literal text from echo/printf/cat). */
static void run_stdin(struct sh_an *P, struct nc *x, int lang)
{
	struct sh_cmd *c = x->c;
	struct sh_cmd *p = c ? c->pipe_prev : NULL;

	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++) {
		struct sh_redir *r = &c->r[i];
		if (r->kind == R_HEREDOC && r->hd) {
			size_t len;
			const char *t = heredoc_text(P, r->hd, &len);
			run_code(P, lang, t, len, 1, r->hd->line, x->depth, x->remote);
		} else if (r->kind == R_HERESTR) {
			if (r->target.flags & W_DL)
				emit_finding(P, "remote-exec.pipe_to_shell", r->target.s,
					     r->target.len, x->line, x->depth);
			run_code(P, lang, r->target.s, r->target.len, 0, x->line, x->depth,
				 x->remote);
		} else if (r->kind == R_IN && (r->target.flags & W_DL)) {
			emit_finding(P, "remote-exec.pipe_to_shell", r->target.s, r->target.len,
				     x->line, x->depth);
		}
	}
	if (!p)
		return;
	if (p->upstream_dl)
		emit_finding(P, "remote-exec.pipe_to_shell", c->w[0].s, c->w[0].len, x->line,
			     x->depth);
	else if (p->upstream_decode)
		emit_finding(P, "remote-exec.decode_to_shell", c->w[0].s, c->w[0].len, x->line,
			     x->depth);
	else if (p->feed)
		run_code(P, lang, p->feed, p->feed_len, p->feed_heredoc, p->feed_line, x->depth,
			 x->remote);
}

/* A word that names code fetched from the network: $(curl ...), <(wget ...). */
static void check_dl_word(struct sh_an *P, struct nc *x, const struct sh_word *w)
{
	if (w && (w->flags & W_DL))
		emit_finding(P, "remote-exec.pipe_to_shell", w->s, w->len, w->line, x->depth);
}

static void h_shell(struct sh_an *P, struct nc *x)
{
	static const char *const larg[] = {"--rcfile", "--init-file", NULL};
	size_t i = 1;
	int has_c = 0, has_s = 0;

	for (; i < x->n; i++) {
		struct sh_word *w = x->v[i];
		if (weq(w, "--") || weq(w, "-")) {
			i++;
			break;
		}
		if (w->len < 2 || (w->s[0] != '-' && w->s[0] != '+'))
			break;
		if (w->s[1] == '-') {
			if (long_takes_arg(larg, w))
				i++;
			continue;
		}
		for (size_t j = 1; j < w->len; j++) {
			if (w->s[j] == 'c')
				has_c = 1;
			if (w->s[j] == 's')
				has_s = 1;
			if (w->s[j] == 'o' || w->s[j] == 'O') {
				i++;
				break;
			}
		}
	}
	if (has_c) {
		if (i < x->n) {
			x->data[i] = 1;
			check_dl_word(P, x, x->v[i]);
			analyze_string(P, x->v[i]->s, x->v[i]->len, x->depth + 1, x->v[i]->line,
				       x->remote);
		}
		return;
	}
	if (i < x->n && (weq(x->v[i], "/dev/stdin") || weq(x->v[i], "/dev/fd/0")))
		has_s = 1;
	if (i < x->n && !has_s) { /* a script file */
		check_dl_word(P, x, x->v[i]);
		path(P, x, x->v[i], POL_OP_READ, 0);
		run_file(P, x, x->v[i], LANG_SHELL);
		return;
	}
	run_stdin(P, x, LANG_SHELL);
}

/* python / node / ruby / perl / php: inline code (-c, -e, -E, -r), a script file, or
 * stdin. Code words become SCRIPT units and are data for the command rules. */
static void h_interp(struct sh_an *P, struct nc *x, int lang)
{
	const char *code_opts, *arg_opts;
	size_t i = 1;
	int had_code = 0, had_file = 0, inplace = 0, module = 0;

	switch (lang) {
	case LANG_PYTHON:
		code_opts = "c";
		arg_opts = "mWXQ";
		break;
	case LANG_NODE:
		code_opts = "ep";
		arg_opts = "rCi";
		break;
	case LANG_RUBY:
		code_opts = "e";
		arg_opts = "rICEFKTWx";
		break;
	case LANG_PERL:
		code_opts = "eE";
		arg_opts = "";
		break;
	case LANG_PHP:
		code_opts = "rBRFE";
		arg_opts = "fdcz";
		break;
	default:
		return;
	}
	if (lang == LANG_NODE && x->n > 1 && (NM("deno") || NM("bun"))) {
		if (weq(x->v[1], "eval") || weq(x->v[1], "-e") || weq(x->v[1], "--eval")) {
			size_t k = 2;
			while (k < x->n && x->v[k]->s[0] == '-')
				k++;
			if (k < x->n) {
				x->data[k] = 1;
				check_dl_word(P, x, x->v[k]);
				run_code(P, lang, x->v[k]->s, x->v[k]->len, 0, x->v[k]->line,
					 x->depth, x->remote);
			}
			return;
		}
		if (weq(x->v[1], "run") || weq(x->v[1], "x"))
			i = 2;
	}
	for (; i < x->n; i++) {
		struct sh_word *w = x->v[i];
		if (weq(w, "-")) {
			break;
		}
		if (weq(w, "--")) {
			i++;
			if (i < x->n)
				had_file = 1;
			break;
		}
		if (w->len < 2 || w->s[0] != '-') {
			if (!had_code)
				had_file = 1;
			break;
		}
		if (w->s[1] == '-') { /* long options: node --eval CODE, --eval=CODE */
			const char *eq = memchr(w->s, '=', w->len);
			size_t nl = eq ? (size_t)(eq - w->s) : w->len;
			int is_code =
			    (lang == LANG_NODE && ((nl == 6 && !memcmp(w->s, "--eval", 6)) ||
						   (nl == 7 && !memcmp(w->s, "--print", 7))));
			if (is_code) {
				had_code = 1;
				if (eq) {
					struct sh_word sw;
					sub_word(w, nl + 1, &sw);
					x->data[i] = 1;
					run_code(P, lang, sw.s, sw.len, 0, w->line, x->depth,
						 x->remote);
				} else if (i + 1 < x->n) {
					i++;
					x->data[i] = 1;
					check_dl_word(P, x, x->v[i]);
					run_code(P, lang, x->v[i]->s, x->v[i]->len, 0,
						 x->v[i]->line, x->depth, x->remote);
				}
			} else if (lang == LANG_NODE && !eq &&
				   ((nl == 9 && !memcmp(w->s, "--require", 9)) ||
				    (nl == 8 && !memcmp(w->s, "--import", 8)))) {
				i++;
			}
			continue;
		}
		for (size_t j = 1; j < w->len; j++) {
			char ch = w->s[j];
			if (lang == LANG_PERL && ch == 'i') {
				inplace = 1;
				break; /* the rest is a backup suffix */
			}
			if (lang == LANG_PERL && strchr("IMmFlx0Cd", ch))
				break; /* takes the rest of the word */
			if (lang == LANG_PYTHON && ch == 'm') {
				module = 1;
			}
			if (strchr(code_opts, ch)) {
				had_code = 1;
				if (j + 1 < w->len) {
					struct sh_word sw;
					sub_word(w, j + 1, &sw);
					x->data[i] = 1;
					run_code(P, lang, sw.s, sw.len, 0, w->line, x->depth,
						 x->remote);
				} else if (i + 1 < x->n) {
					i++;
					x->data[i] = 1;
					check_dl_word(P, x, x->v[i]);
					run_code(P, lang, x->v[i]->s, x->v[i]->len, 0,
						 x->v[i]->line, x->depth, x->remote);
				}
				break;
			}
			if (strchr(arg_opts, ch)) {
				if (lang == LANG_PHP && ch == 'f' && j + 1 == w->len &&
				    i + 1 < x->n) {
					had_file = 1;
					path(P, x, x->v[i + 1], POL_OP_READ, 0);
					run_file(P, x, x->v[i + 1], lang);
				}
				if (j + 1 == w->len)
					i++;
				break;
			}
		}
		if (module || (had_code && lang == LANG_PYTHON))
			break; /* python: what follows -c CODE / -m MOD are its arguments */
	}
	if (had_code || module) {
		/* perl -pi -e CODE files: edited in place; perl/ruby -ne CODE files: read */
		if (inplace || lang == LANG_PERL || lang == LANG_RUBY)
			for (; i < x->n; i++)
				if (x->v[i]->s[0] != '-')
					path(P, x, x->v[i], inplace ? POL_OP_WRITE : POL_OP_READ,
					     0);
		return;
	}
	if (had_file && i < x->n && (weq(x->v[i], "/dev/stdin") || weq(x->v[i], "/dev/fd/0"))) {
		run_stdin(P, x, lang);
		return;
	}
	if (had_file && i < x->n) {
		check_dl_word(P, x, x->v[i]);
		path(P, x, x->v[i], POL_OP_READ, 0);
		run_file(P, x, x->v[i], lang);
		return;
	}
	if (!had_file)
		run_stdin(P, x, lang);
}

static const char *const downloaders[] = {"curl",   "wget", "fetch", "http",   "https", "xh",
					  "aria2c", "nc",   "ncat",  "netcat", "socat", "lynx",
					  "links",  "w3m",  "ftp",   "tftp",   "scp",	NULL};

static int is_decoder(struct nc *x)
{
	static const char *const always[] = {"base32",	"basenc", "uudecode", "gunzip",	 "zcat",
					     "bunzip2", "bzcat",  "unxz",     "xzcat",	 "rev",
					     "tr",	"unzstd", "zstdcat",  "openssl", NULL};
	if (name_in(x, always))
		return 1;
	if (NM("base64") || NM("xxd") || NM("gzip") || NM("bzip2") || NM("xz") || NM("zstd")) {
		for (size_t i = 1; i < x->n; i++) {
			struct sh_word *w = x->v[i];
			if (weq(w, "--decode") || weq(w, "--revert") || weq(w, "--decompress") ||
			    weq(w, "--stdout"))
				return 1;
			if (w->len >= 2 && w->s[0] == '-' && w->s[1] != '-' &&
			    (memchr(w->s, 'd', w->len) || memchr(w->s, 'D', w->len) ||
			     memchr(w->s, 'r', w->len)))
				return 1;
		}
	}
	return 0;
}

/* printf FORMAT / echo -e: the text they print, escapes decoded (approximately). */
static char *decode_escapes(struct sh_an *P, const char *s, size_t len, size_t *outlen)
{
	char *out = sh_alloc(P, len + 1);
	size_t o = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\\' || i + 1 >= len) {
			out[o++] = s[i];
			continue;
		}
		char c = s[++i];
		if (c == 'n') {
			out[o++] = '\n';
		} else if (c == 't') {
			out[o++] = '\t';
		} else if (c == 'x') {
			unsigned v = 0, k = 0;
			while (k < 2 && i + 1 < len && hexval((unsigned char)s[i + 1]) < 16) {
				v = v * 16 + hexval((unsigned char)s[++i]);
				k++;
			}
			out[o++] = (char)v;
		} else if (c >= '0' && c <= '7') {
			unsigned v = 0, k = 0;
			i--;
			if (c == '0' && i + 2 < len && s[i + 2] >= '0' && s[i + 2] <= '7')
				i++;
			while (k < 3 && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '7') {
				v = v * 8 + (unsigned)(s[++i] - '0');
				k++;
			}
			out[o++] = (char)v;
		} else if (c == '\\') {
			out[o++] = '\\';
		} else {
			out[o++] = '\\';
			out[o++] = c;
		}
	}
	out[o] = '\0';
	*outlen = o;
	return out;
}

/* What this command writes to stdout when it is known: for echo, printf, cat <<EOF. */
static void set_feed(struct sh_an *P, struct nc *x)
{
	struct sh_cmd *c = x->c;

	if (!c)
		return;
	if (NM("echo") || NM("printf")) {
		size_t i = 1, len;
		int esc = NM("printf");
		char *s;
		while (NM("echo") && i < x->n && x->v[i]->len >= 2 && x->v[i]->s[0] == '-' &&
		       strspn(x->v[i]->s + 1, "neE") == x->v[i]->len - 1) {
			if (memchr(x->v[i]->s, 'e', x->v[i]->len))
				esc = 1;
			i++;
		}
		if (NM("printf") && i < x->n && weq(x->v[i], "--"))
			i++;
		if (i >= x->n)
			return;
		s = join_words(P, x->v + i, NM("printf") ? 1 : x->n - i, &len);
		if (s && esc)
			s = decode_escapes(P, s, len, &len);
		if (!s)
			return;
		c->feed = s;
		c->feed_len = len;
		c->feed_line = x->line;
		return;
	}
	if (NM("cat") || NM("tee")) {
		/* cat and tee pass on what a pipe brings them (echo x | tee log | sh) */
		if (c->pipe_prev && c->pipe_prev->feed) {
			c->feed = c->pipe_prev->feed;
			c->feed_len = c->pipe_prev->feed_len;
			c->feed_heredoc = c->pipe_prev->feed_heredoc;
			c->feed_line = c->pipe_prev->feed_line;
		}
		for (size_t i = 0; i < c->nr; i++) {
			if (c->r[i].kind == R_HEREDOC && c->r[i].hd) {
				c->feed = heredoc_text(P, c->r[i].hd, &c->feed_len);
				c->feed_heredoc = 1;
				c->feed_line = c->r[i].hd->line;
			} else if (c->r[i].kind == R_HERESTR) {
				c->feed = c->r[i].target.s;
				c->feed_len = c->r[i].target.len;
				c->feed_line = x->line;
			}
		}
		if (c->feed && NM("cat")) {
			/* a file operand replaces stdin */
			for (size_t i = 1; i < x->n; i++)
				if (x->v[i]->s[0] != '-')
					c->feed = NULL;
		}
		/* cat > file <<EOF, tee file <<EOF: remember the file for a later run */
		if (c->feed) {
			for (size_t i = 0; i < c->nr; i++)
				if (c->r[i].kind == R_OUT || c->r[i].kind == R_CLOBBER ||
				    c->r[i].kind == R_APPEND)
					file_record(P, &c->r[i].target, c->feed, c->feed_len,
						    c->feed_line);
			if (NM("tee"))
				for (size_t i = 1; i < x->n; i++)
					if (x->v[i]->s[0] != '-')
						file_record(P, x->v[i], c->feed, c->feed_len,
							    c->feed_line);
		}
	}
}

static const char *const grep_long[] = {"--regexp",
					"--file",
					"--max-count",
					"--context",
					"--after-context",
					"--before-context",
					"--devices",
					"--directories",
					"--label",
					"--include",
					"--exclude",
					"--exclude-dir",
					"--glob",
					"--type",
					"--type-not",
					"--replace",
					NULL};

/* Data words and path operands of the commands dcg knows. */
static void h_files(struct sh_an *P, struct nc *x)
{
	struct opscan o;

	if (x->kind == K_ECHO) {
		if (NM("export") || NM("declare") || NM("typeset") || NM("local") || NM("readonly"))
			for (size_t i = 1; i < x->n; i++)
				if (is_assignment(x->v[i]))
					record_assignment(P, x->v[i]);
		mark_data_from(x, 1);
		if (NM("printf") && x->n > 2 && weq(x->v[1], "-v"))
			x->data[1] = x->data[2] = 0;
		return;
	}
	if (x->kind == K_RM) {
		scan_opts(x->v, x->n, 1, "", NULL, &o);
		int dir = o.seen['r'] || o.seen['R'] || o.seen['d'] ||
			  has_long(x->v, x->n, 1, "--recursive") ||
			  has_long(x->v, x->n, 1, "--dir");
		ops_path(P, x, &o, 0, o.nop, POL_OP_DELETE, dir);
		return;
	}
	if (x->kind == K_RMDIR) {
		scan_opts(x->v, x->n, 1, "", NULL, &o);
		ops_path(P, x, &o, 0, o.nop, POL_OP_DELETE, 1);
		return;
	}
	if (x->kind == K_UNLINK) {
		scan_opts(x->v, x->n, 1, "ns", NULL, &o);
		ops_path(P, x, &o, 0, o.nop, POL_OP_DELETE, 0);
		return;
	}
	if (x->kind == K_MVCP) {
		static const char *const larg[] = {"--target-directory", "--suffix", NULL};
		int mv = NM("mv"), ln = NM("ln");
		scan_opts(x->v, x->n, 1, NM("install") ? "tSmog" : "tS", larg, &o);
		const struct sh_word *t = opt_val(&o, 't', "--target-directory");
		int rec = o.seen['r'] || o.seen['R'] || o.seen['a'] ||
			  has_long(x->v, x->n, 1, "--recursive");
		enum pol_op src = mv ? POL_OP_RENAME_FROM : ln ? POL_OP_LINK_FROM : POL_OP_READ;
		enum pol_op dst = mv ? POL_OP_RENAME_TO : POL_OP_CREATE;
		int sdir = mv || rec;
		if (NM("install") && o.seen['d']) {
			ops_path(P, x, &o, 0, o.nop, POL_OP_CREATE, 0);
			return;
		}
		/* The target: a folder (-t, several sources, a trailing /) receives
		 * dir/basename(src) for each source; else the name itself. Writing into a
		 * folder does not touch what else lies beneath it, so no is_dir. */
		size_t last = t ? o.nop : o.nop >= 2 ? o.nop - 1 : o.nop;
		const struct sh_word *dir = t;
		if (!t && o.nop >= 2) {
			const struct sh_word *d = x->v[o.op[last]];
			if (o.nop > 2 || (d->len && d->s[d->len - 1] == '/'))
				dir = d;
			else
				path(P, x, d, dst, 0);
		}
		/* ln -s: the target is only text stored in the new link (and relative to
		 * the link's folder, not ours): nothing is done to it. */
		int sym = ln && (o.seen['s'] || has_long(x->v, x->n, 1, "--symbolic"));
		if (!sym)
			ops_path(P, x, &o, 0, last, src, sdir);
		if (dir && !x->remote)
			for (size_t k = 0; k < last; k++)
				emit_path_into(P, dir, x->v[o.op[k]], dst, x->remote, x->depth);
		return;
	}
	if (x->kind == K_DD) {
		for (size_t i = 1; i < x->n; i++) {
			struct sh_word sw;
			if (x->v[i]->len > 3 && !memcmp(x->v[i]->s, "if=", 3)) {
				sub_word(x->v[i], 3, &sw);
				path(P, x, &sw, POL_OP_READ, 0);
			} else if (x->v[i]->len > 3 && !memcmp(x->v[i]->s, "of=", 3)) {
				sub_word(x->v[i], 3, &sw);
				path(P, x, &sw, POL_OP_WRITE, 0);
			}
		}
		return;
	}
	if (x->kind == K_TEE) {
		scan_opts(x->v, x->n, 1, "", NULL, &o);
		ops_path(P, x, &o, 0, o.nop, POL_OP_WRITE, 0);
		return;
	}
	if (x->kind == K_TRUNCATE) {
		static const char *const larg[] = {"--size", "--reference", NULL};
		scan_opts(x->v, x->n, 1, "sr", larg, &o);
		path(P, x, opt_val(&o, 'r', "--reference"), POL_OP_READ, 0);
		ops_path(P, x, &o, 0, o.nop, POL_OP_TRUNCATE, 0);
		return;
	}
	if (x->kind == K_TOUCH) {
		static const char *const larg[] = {"--date", "--reference", NULL};
		scan_opts(x->v, x->n, 1, "dtr", larg, &o);
		ops_path(P, x, &o, 0, o.nop, POL_OP_CREATE, 0);
		return;
	}
	if (x->kind == K_MKDIR) {
		static const char *const larg[] = {"--mode", NULL};
		scan_opts(x->v, x->n, 1, "m", larg, &o);
		ops_path(P, x, &o, 0, NM("mknod") ? 1 : o.nop, POL_OP_CREATE, 0);
		return;
	}
	if (x->kind == K_CHMOD) {
		/* chmod -w file: "-w" is a mode, not an option */
		int rec = 0, have_mode = has_long(x->v, x->n, 1, "--reference");
		int opts = 1;
		for (size_t i = 1; i < x->n; i++) {
			struct sh_word *w = x->v[i];
			if (opts && weq(w, "--")) {
				opts = 0;
				continue;
			}
			if (opts && w->len >= 2 && w->s[0] == '-' &&
			    !(NM("chmod") && strspn(w->s + 1, "rwxXst") == w->len - 1)) {
				if (memchr(w->s, 'R', w->len) || weq(w, "--recursive"))
					rec = 1;
				continue;
			}
			if (!have_mode) {
				have_mode = 1;
				continue;
			}
			path(P, x, w, POL_OP_CHMOD, rec);
		}
		return;
	}
	if (x->kind == K_SED) {
		static const char *const larg[] = {"--expression", "--file", "--line-length", NULL};
		scan_opts(x->v, x->n, 1, "efl", larg, &o);
		int inplace = o.seen['i'] || has_long(x->v, x->n, 1, "--in-place");
		size_t first = 0;
		int script_opt = 0;
		for (size_t k = 0; k < o.narg; k++)
			if (o.arg[k].c == 'e' ||
			    (o.arg[k].lw && !strncmp(o.arg[k].lw->s, "--expression", 12))) {
				mark_word_data(x, &o.arg[k].val);
				script_opt = 1;
			} else if (o.arg[k].c == 'f' ||
				   (o.arg[k].lw && !strncmp(o.arg[k].lw->s, "--file", 6))) {
				script_opt = 1;
			}
		if (!script_opt && o.nop) {
			x->data[o.op[0]] = 1;
			first = 1;
		}
		ops_path(P, x, &o, first, o.nop, inplace ? POL_OP_WRITE : POL_OP_READ, 0);
		return;
	}
	if (x->kind == K_GREP) {
		scan_opts(x->v, x->n, 1, NM("rg") ? "ABCEegjMmrtTf" : "ABCDdefm", grep_long, &o);
		size_t first = 0;
		int pat_opt = 0;
		for (size_t k = 0; k < o.narg; k++)
			if (o.arg[k].c == 'e' ||
			    (o.arg[k].lw && !strncmp(o.arg[k].lw->s, "--regexp", 8))) {
				mark_word_data(x, &o.arg[k].val);
				pat_opt = 1;
			} else if (o.arg[k].c == 'f' ||
				   (o.arg[k].lw && !strncmp(o.arg[k].lw->s, "--file", 6))) {
				pat_opt = 1;
				path(P, x, &o.arg[k].val, POL_OP_READ, 0);
			}
		if (!pat_opt && o.nop) {
			x->data[o.op[0]] = 1;
			first = 1;
		}
		/* A recursive search prints matching lines only and is what agents run all
		 * day: the folder itself is checked, not every file beneath (copies and
		 * archives of a tree are). */
		ops_path(P, x, &o, first, o.nop, POL_OP_READ, 0);
		return;
	}
	if (x->kind == K_AWK) {
		scan_opts(x->v, x->n, 1, "fvF", NULL, &o);
		size_t first = 0;
		const struct sh_word *f = opt_val(&o, 'f', NULL);
		if (f) {
			path(P, x, f, POL_OP_READ, 0);
		} else if (o.nop) {
			const struct sh_word *prog = x->v[o.op[0]];
			/* a program that runs commands is not data */
			if (!memmem(prog->s, prog->len, "system", 6) &&
			    !memchr(prog->s, '|', prog->len))
				x->data[o.op[0]] = 1;
			first = 1;
		}
		for (size_t k = first; k < o.nop; k++)
			if (!is_assignment(x->v[o.op[k]]))
				path(P, x, x->v[o.op[k]], POL_OP_READ, 0);
		return;
	}
	if (x->kind == K_JQ) {
		static const char *const larg[] = {"--arg",	"--argjson", "--slurpfile",
						   "--rawfile", "--indent",  NULL};
		scan_opts(x->v, x->n, 1, "f", larg, &o);
		if (o.nop) {
			x->data[o.op[0]] = 1;
			ops_path(P, x, &o, 1, o.nop, POL_OP_READ, 0);
		}
		return;
	}
	if (x->kind == K_SORT) {
		static const char *const larg[] = {"--output",
						   "--key",
						   "--field-separator",
						   "--buffer-size",
						   "--temporary-directory",
						   NULL};
		scan_opts(x->v, x->n, 1, "kotST", larg, &o);
		path(P, x, opt_val(&o, 'o', "--output"), POL_OP_WRITE, 0);
		ops_path(P, x, &o, 0, o.nop, POL_OP_READ, 0);
		return;
	}
	if (x->kind == K_HEADTAIL) {
		static const char *const larg[] = {
		    "--lines", "--bytes", "--sleep-interval", "--pid", "--max-unchanged-stats",
		    NULL};
		scan_opts(x->v, x->n, 1, "ncs", larg, &o);
		ops_path(P, x, &o, 0, o.nop, POL_OP_READ, 0);
		return;
	}
	if (x->kind == K_READER) {
		scan_opts(x->v, x->n, 1,
			  NM("base64") || NM("fold") ? "w"
			  : NM("cut")		     ? "bcdf"
						     : "",
			  NULL, &o);
		ops_path(P, x, &o, 0, o.nop, POL_OP_READ, 0);
		if (NM("source") || NM(".")) {
			if (o.nop) {
				check_dl_word(P, x, x->v[o.op[0]]);
				run_file(P, x, x->v[o.op[0]], LANG_SHELL);
			}
		}
		return;
	}
	if (x->kind == K_EDITOR) {
		scan_opts(x->v, x->n, 1, "", NULL, &o);
		ops_path(P, x, &o, 0, o.nop, POL_OP_WRITE, 0);
		return;
	}
	if (x->kind == K_LISTER) {
		scan_opts(x->v, x->n, 1, "", NULL, &o);
		ops_path(P, x, &o, 0, o.nop, POL_OP_LIST, 0);
		return;
	}
	if (x->kind == K_RSYNC) {
		static const char *const rlarg[] = {
		    "--exclude",      "--include",	 "--filter",
		    "--exclude-from", "--include-from",	 "--files-from",
		    "--log-file",     "--password-file", "--temp-dir",
		    "--partial-dir",  "--backup-dir",	 "--rsh",
		    "--rsync-path",   "--chmod",	 "--chown",
		    "--compare-dest", "--copy-dest",	 "--link-dest",
		    "--max-size",     "--min-size",	 "--bwlimit",
		    "--timeout",      "--port",		 "--out-format",
		    "--suffix",	      "--info",		 "--debug",
		    "--usermap",      "--groupmap",	 "--iconv",
		    "--max-delete",   "--block-size",	 NULL};
		int rs = NM("rsync");
		scan_opts(x->v, x->n, 1, rs ? "efBTM" : "cFiJlmoPS", rs ? rlarg : NULL, &o);
		int del = rs && has_long(x->v, x->n, 1, "--delete");
		int rec =
		    !rs || o.seen['r'] || o.seen['a'] || has_long(x->v, x->n, 1, "--recursive");
		if (rs && del)
			rec = 1;
		if (o.nop >= 2) {
			ops_path(P, x, &o, 0, o.nop - 1, POL_OP_READ, rec);
			path(P, x, x->v[o.op[o.nop - 1]], del ? POL_OP_DELETE : POL_OP_WRITE, del);
		}
		return;
	}
	if (x->kind == K_TAR) {
		/* old style (tar xzf a.tgz) and short (-xzf a.tgz) bundles: f, C, T, X take
		 * the next operands in order */
		int extract = 0, create = 0;
		const struct sh_word *archive = NULL, *dir = NULL;
		struct sh_word sw;
		size_t i = 1;
		int oldstyle = x->n > 1 && x->v[1]->s[0] != '-';
		for (; i < x->n; i++) {
			struct sh_word *w = x->v[i];
			size_t j0;
			if (w->s[0] != '-' && !(oldstyle && i == 1))
				break;
			if (w->len >= 2 && w->s[0] == '-' && w->s[1] == '-') {
				if (weq(w, "--extract") || weq(w, "--get"))
					extract = 1;
				else if (weq(w, "--create") || weq(w, "--append") ||
					 weq(w, "--update"))
					create = 1;
				else if (!strncmp(w->s, "--directory", 11) ||
					 !strncmp(w->s, "--file", 6)) {
					const struct sh_word *val = NULL;
					if (memchr(w->s, '=', w->len)) {
						sub_word(
						    w,
						    (size_t)((char *)memchr(w->s, '=', w->len) -
							     w->s) +
							1,
						    &sw);
						val = &sw;
					} else if (i + 1 < x->n) {
						val = x->v[++i];
					}
					if (w->s[2] == 'd')
						dir = val;
					else
						archive = val;
					if (val == &sw) { /* keep a stable copy */
						struct sh_word *cp = sh_alloc(P, sizeof(*cp));
						if (!cp)
							return;
						*cp = sw;
						if (w->s[2] == 'd')
							dir = cp;
						else
							archive = cp;
					}
				}
				continue;
			}
			j0 = w->s[0] == '-' ? 1 : 0;
			for (size_t j = j0; j < w->len; j++) {
				char ch = w->s[j];
				if (ch == 'x')
					extract = 1;
				else if (ch == 'c' || ch == 'r' || ch == 'u')
					create = 1;
				else if (ch == 'f' || ch == 'C' || ch == 'T' || ch == 'X' ||
					 ch == 'b') {
					const struct sh_word *val = NULL;
					if (!oldstyle && j + 1 < w->len) {
						struct sh_word *cp = sh_alloc(P, sizeof(*cp));
						if (!cp)
							return;
						sub_word(w, j + 1, cp);
						val = cp;
						j = w->len;
					} else if (i + 1 < x->n) {
						val = x->v[++i];
					}
					if (ch == 'f')
						archive = val;
					else if (ch == 'C')
						dir = val;
				}
			}
		}
		if (extract) {
			path(P, x, archive, POL_OP_READ, 0);
			if (dir) {
				path(P, x, dir, POL_OP_WRITE, 0);
			} else {
				struct sh_word dot;
				memset(&dot, 0, sizeof(dot));
				dot.s = ".";
				dot.len = 1;
				dot.line = x->line;
				path(P, x, &dot, POL_OP_WRITE, 0);
			}
		} else if (create) {
			path(P, x, archive, POL_OP_WRITE, 0);
			for (; i < x->n; i++)
				if (x->v[i]->s[0] != '-')
					path(P, x, x->v[i], POL_OP_READ, 1);
		}
		return;
	}
	if (x->kind == K_UNZIP) {
		scan_opts(x->v, x->n, 1, "dxP", NULL, &o);
		if (o.nop)
			path(P, x, x->v[o.op[0]], POL_OP_READ, 0);
		const struct sh_word *d = opt_val(&o, 'd', NULL);
		struct sh_word dot;
		memset(&dot, 0, sizeof(dot));
		dot.s = ".";
		dot.len = 1;
		path(P, x, d ? d : &dot, POL_OP_WRITE, 0);
		return;
	}
	if (x->kind == K_ZIP) {
		scan_opts(x->v, x->n, 1, "bnPtx", NULL, &o);
		if (o.nop) {
			path(P, x, x->v[o.op[0]], POL_OP_WRITE, 0);
			ops_path(P, x, &o, 1, o.nop, POL_OP_READ, o.seen['r']);
		}
		return;
	}
	if (x->kind == K_CURL) {
		static const char *const larg[] = {"--output",
						   "--upload-file",
						   "--data",
						   "--data-binary",
						   "--data-raw",
						   "--data-urlencode",
						   "--data-ascii",
						   "--form",
						   "--json",
						   "--config",
						   "--header",
						   "--user-agent",
						   "--referer",
						   "--cookie",
						   "--cookie-jar",
						   "--dump-header",
						   "--user",
						   "--request",
						   "--write-out",
						   "--proxy",
						   "--cert",
						   "--key",
						   "--cacert",
						   "--max-time",
						   "--connect-timeout",
						   "--url",
						   "--range",
						   "--retry",
						   "--output-dir",
						   NULL};
		scan_opts(x->v, x->n, 1, "AbcCdDeEFHKmoQrtTuUwxXYyz", larg, &o);
		for (size_t k = 0; k < o.narg; k++) {
			const struct sh_word *val = &o.arg[k].val;
			const struct sh_word *lw = o.arg[k].lw;
			char c = o.arg[k].c;
			const char *ln = lw ? lw->s : "";
			if (c == 'o' || !strncmp(ln, "--output", 8) || c == 'D' ||
			    !strncmp(ln, "--dump-header", 13) || c == 'c' ||
			    !strncmp(ln, "--cookie-jar", 12)) {
				path(P, x, val, POL_OP_WRITE, 0);
			} else if (c == 'T' || !strncmp(ln, "--upload-file", 13) || c == 'K' ||
				   !strncmp(ln, "--config", 8)) {
				path(P, x, val, POL_OP_READ, 0);
			} else if (c == 'd' || c == 'F' || !strncmp(ln, "--data", 6) ||
				   !strncmp(ln, "--form", 6) || !strncmp(ln, "--json", 6)) {
				/* @file and name=@file / name=<file upload a file */
				const char *at_ = memchr(val->s, '@', val->len);
				const char *lt = memchr(val->s, '<', val->len);
				const char *m = at_ ? at_ : lt;
				if (m) {
					struct sh_word sw;
					sub_word(val, (size_t)(m - val->s) + 1, &sw);
					path(P, x, &sw, POL_OP_READ, 0);
				} else {
					mark_word_data(x, val);
				}
			} else if (c == 'H' || c == 'A' || c == 'e' ||
				   !strncmp(ln, "--header", 8) ||
				   !strncmp(ln, "--user-agent", 12) ||
				   !strncmp(ln, "--referer", 9)) {
				mark_word_data(x, val);
			}
		}
		return;
	}
	if (x->kind == K_WGET) {
		static const char *const larg[] = {
		    "--output-document", "--output-file", "--append-output", "--directory-prefix",
		    "--post-file",	 "--input-file",  "--body-file",     NULL};
		scan_opts(x->v, x->n, 1, "OoaPiU", larg, &o);
		for (size_t k = 0; k < o.narg; k++) {
			const struct sh_word *lw = o.arg[k].lw;
			char c = o.arg[k].c;
			const char *ln = lw ? lw->s : "";
			if (c == 'O' || c == 'o' || c == 'a' || !strncmp(ln, "--output", 8) ||
			    !strncmp(ln, "--append-output", 15))
				path(P, x, &o.arg[k].val, POL_OP_WRITE, 0);
			else if (c == 'P' || !strncmp(ln, "--directory-prefix", 18))
				path(P, x, &o.arg[k].val, POL_OP_WRITE, 0);
			else if (c == 'i' || !strncmp(ln, "--post-file", 11) ||
				 !strncmp(ln, "--input-file", 12) ||
				 !strncmp(ln, "--body-file", 11))
				path(P, x, &o.arg[k].val, POL_OP_READ, 0);
		}
		return;
	}
	if (x->kind == K_OPENSSL) {
		for (size_t i = 1; i + 1 < x->n; i++) {
			if (weq(x->v[i], "-in") || weq(x->v[i], "-key") || weq(x->v[i], "-inkey"))
				path(P, x, x->v[i + 1], POL_OP_READ, 0);
			else if (weq(x->v[i], "-out"))
				path(P, x, x->v[i + 1], POL_OP_WRITE, 0);
		}
		return;
	}
	if (x->kind == K_GIT) {
		/* v[1] is the subcommand (global options were stripped) */
		if (x->n < 2)
			return;
		const struct sh_word *sub = x->v[1];
		if (weq(sub, "commit") || weq(sub, "tag") || weq(sub, "merge") ||
		    weq(sub, "notes") || weq(sub, "stash") || weq(sub, "revert") ||
		    weq(sub, "am") || weq(sub, "cherry-pick")) {
			for (size_t i = 2; i < x->n; i++) {
				struct sh_word *w = x->v[i];
				if (weq(w, "-m") || weq(w, "--message") ||
				    (w->len > 2 && w->s[0] == '-' && w->s[1] != '-' &&
				     w->s[w->len - 1] == 'm' && !memchr(w->s, 'F', w->len))) {
					if (i + 1 < x->n)
						x->data[++i] = 1;
				} else if ((w->len > 2 && !memcmp(w->s, "-m", 2)) ||
					   !strncmp(w->s, "--message=", 10)) {
					x->data[i] = 1;
				}
			}
			if (weq(sub, "stash") && x->n > 3 && weq(x->v[2], "save"))
				mark_data_from(x, 3);
		} else if (weq(sub, "log") || weq(sub, "shortlog") || weq(sub, "rev-list")) {
			for (size_t i = 2; i < x->n; i++)
				if (!strncmp(x->v[i]->s, "--grep", 6) ||
				    !strncmp(x->v[i]->s, "--author", 8) ||
				    !strncmp(x->v[i]->s, "-S", 2) ||
				    !strncmp(x->v[i]->s, "-G", 2)) {
					if (memchr(x->v[i]->s, '=', x->v[i]->len) ||
					    (x->v[i]->len > 2 && x->v[i]->s[1] != '-'))
						x->data[i] = 1; /* --grep=X, -SX */
					else if (i + 1 < x->n)
						x->data[++i] = 1;
				}
		} else if (weq(sub, "grep")) {
			scan_opts(x->v, x->n, 2, "ABCefm", grep_long, &o);
			int pat_opt = 0;
			for (size_t k = 0; k < o.narg; k++)
				if (o.arg[k].c == 'e') {
					mark_word_data(x, &o.arg[k].val);
					pat_opt = 1;
				}
			if (!pat_opt && o.nop)
				x->data[o.op[0]] = 1;
		} else if (weq(sub, "clean") || weq(sub, "rm")) {
			scan_opts(x->v, x->n, 2, "e", NULL, &o);
			int dir = weq(sub, "clean") || o.seen['r'];
			ops_path(P, x, &o, 0, o.nop, POL_OP_DELETE, dir);
		}
		return;
	}
	if (x->kind == K_GH) {
		for (size_t i = 1; i + 1 < x->n; i++) {
			struct sh_word *w = x->v[i];
			if (weq(w, "-t") || weq(w, "--title") || weq(w, "-b") || weq(w, "--body") ||
			    weq(w, "-m") || weq(w, "--message") || weq(w, "--notes") ||
			    weq(w, "-d") || weq(w, "--description"))
				x->data[++i] = 1;
		}
		return;
	}
}

static int is_downloader_name(const char *nm, size_t nl)
{
	for (size_t i = 0; downloaders[i]; i++)
		if (name_is(nm, nl, downloaders[i]))
			return 1;
	return 0;
}

/* The command name after wrappers, for a quick look from the parser. */
static int cmd_is_download(struct sh_cmd *c)
{
	size_t i = 0, n = c->nw;
	const char *nm;
	size_t nl;

	while (i < n && is_assignment(&c->w[i]))
		i++;
	/* a light strip: wrappers without options in front (sudo curl, env X=1 wget) */
	while (i < n) {
		base_of(&c->w[i], &nm, &nl);
		if (name_is(nm, nl, "sudo") || name_is(nm, nl, "env") ||
		    name_is(nm, nl, "command") || name_is(nm, nl, "exec") ||
		    name_is(nm, nl, "nohup") || name_is(nm, nl, "time") ||
		    is_assignment(&c->w[i]) || c->w[i].s[0] == '-') {
			i++;
			continue;
		}
		return is_downloader_name(nm, nl);
	}
	return 0;
}

static int cmds_download_since(struct sh_an *P, struct sh_cmd *mark)
{
	for (struct sh_cmd *c = mark ? mark->next : P->head; c; c = c->next)
		if (cmd_is_download(c))
			return 1;
	return 0;
}

static void h_find(struct sh_an *P, struct nc *x)
{
	size_t i = 1, nstart;
	int del = 0;
	size_t starts[32];

	/* global options, then start points, then the expression */
	while (i < x->n && (weq(x->v[i], "-H") || weq(x->v[i], "-L") || weq(x->v[i], "-P") ||
			    !strncmp(x->v[i]->s, "-O", 2) || weq(x->v[i], "-D"))) {
		if (weq(x->v[i], "-D"))
			i++;
		i++;
	}
	nstart = 0;
	for (; i < x->n; i++) {
		const struct sh_word *w = x->v[i];
		if (w->s[0] == '-' || weq(w, "(") || weq(w, "!") || weq(w, ","))
			break;
		if (nstart < 32)
			starts[nstart++] = i;
	}
	for (; i < x->n; i++) {
		const struct sh_word *w = x->v[i];
		if (weq(w, "-delete")) {
			del = 1;
		} else if (weq(w, "-exec") || weq(w, "-execdir") || weq(w, "-ok") ||
			   weq(w, "-okdir")) {
			size_t s = i + 1, e = s;
			while (e < x->n && !weq(x->v[e], ";") && !weq(x->v[e], "+"))
				e++;
			if (e > s) {
				const char *nm;
				size_t nl;
				base_of(x->v[s], &nm, &nl);
				if (name_is(nm, nl, "rm") || name_is(nm, nl, "rmdir") ||
				    name_is(nm, nl, "unlink") || name_is(nm, nl, "shred"))
					del = 1;
				process_words(P, NULL, x->v + s, e - s, x->depth + 1, x->remote,
					      x->v[s]->line);
			}
			i = e;
		} else if (weq(w, "-fprint") || weq(w, "-fprint0") || weq(w, "-fprintf") ||
			   weq(w, "-fls")) {
			if (i + 1 < x->n)
				path(P, x, x->v[i + 1], POL_OP_WRITE, 0);
		}
	}
	if (nstart == 0) {
		struct sh_word dot;
		memset(&dot, 0, sizeof(dot));
		dot.s = ".";
		dot.len = 1;
		dot.line = x->line;
		path(P, x, &dot, del ? POL_OP_DELETE : POL_OP_LIST, del);
	}
	for (size_t k = 0; k < nstart; k++)
		path(P, x, x->v[starts[k]], del ? POL_OP_DELETE : POL_OP_LIST, del);
}

/* ssh [options] host [command...]: the command runs in a remote shell. */
/* docker|podman exec/run ... CMD, kubectl|oc exec ... -- CMD: the command runs in a
 * container, like ssh's on another machine: command rules apply, local paths do not. */
static void h_container(struct sh_an *P, struct nc *x)
{
	static const char *const run_long[] = {
	    "--name",	  "--network",	 "--env",	 "--volume",
	    "--workdir",  "--user",	 "--entrypoint", "--env-file",
	    "--label",	  "--mount",	 "--publish",	 "--platform",
	    "--restart",  "--memory",	 "--cpus",	 "--hostname",
	    "--add-host", "--device",	 "--dns",	 "--expose",
	    "--gpus",	  "--ipc",	 "--log-driver", "--log-opt",
	    "--pid",	  "--pull",	 "--runtime",	 "--security-opt",
	    "--shm-size", "--tmpfs",	 "--ulimit",	 "--cap-add",
	    "--cap-drop", "--container", "--namespace",	 "--context",
	    NULL};
	size_t i = 1;

	if (NM("kubectl") || NM("oc")) {
		for (; i < x->n; i++)
			if (weq(x->v[i], "exec"))
				break;
		for (; i < x->n; i++)
			if (weq(x->v[i], "--"))
				break;
		if (i + 1 < x->n) {
			mark_data_from(x, i + 1);
			process_words(P, NULL, x->v + i + 1, x->n - i - 1, x->depth + 1, 1,
				      x->line);
		}
		return;
	}
	/* docker [global options] exec|run [options] CONTAINER|IMAGE CMD... */
	while (i < x->n && x->v[i]->s[0] == '-')
		i += (weq(x->v[i], "-H") || weq(x->v[i], "--host") || weq(x->v[i], "-c") ||
		      weq(x->v[i], "--context") || weq(x->v[i], "--config"))
			 ? 2
			 : 1;
	if (i >= x->n)
		return;
	if (weq(x->v[i], "container") && i + 1 < x->n)
		i++;
	if (!weq(x->v[i], "exec") && !weq(x->v[i], "run"))
		return;
	for (i++; i < x->n; i++) {
		struct sh_word *w = x->v[i];
		if (weq(w, "--")) {
			i++;
			break;
		}
		if (w->len < 2 || w->s[0] != '-')
			break;
		if (w->s[1] == '-') {
			if (long_takes_arg(run_long, w))
				i++;
			continue;
		}
		if (strchr("aceEhlmpuvw", w->s[w->len - 1]) && w->len == 2)
			i++;
	}
	i++; /* the container or image */
	if (i < x->n) {
		mark_data_from(x, i);
		process_words(P, NULL, x->v + i, x->n - i, x->depth + 1, 1, x->line);
	}
}

static void h_ssh(struct sh_an *P, struct nc *x)
{
	size_t i = 1;
	size_t len;
	char *s;

	for (; i < x->n; i++) {
		struct sh_word *w = x->v[i];
		if (weq(w, "--")) {
			i++;
			break;
		}
		if (w->len < 2 || w->s[0] != '-')
			break;
		for (size_t j = 1; j < w->len; j++)
			if (strchr("BbcDEeFIiJLlmOoPpQRSWw", w->s[j])) {
				if (j + 1 == w->len)
					i++;
				break;
			}
	}
	i++; /* the host */
	if (i >= x->n)
		return;
	mark_data_from(x, i);
	s = join_words(P, x->v + i, x->n - i, &len);
	if (s)
		analyze_string(P, s, len, x->depth + 1, x->line, 1);
}

static void h_watch(struct sh_an *P, struct nc *x)
{
	static const char *const larg[] = {"--interval", "--differences", NULL};
	size_t i = 1, len;
	char *s;

	for (; i < x->n; i++) {
		struct sh_word *w = x->v[i];
		if (weq(w, "--")) {
			i++;
			break;
		}
		if (w->len < 2 || w->s[0] != '-')
			break;
		if (w->s[1] == '-') {
			if (long_takes_arg(larg, w))
				i++;
			continue;
		}
		if (w->s[w->len - 1] == 'n')
			i++;
	}
	if (i >= x->n)
		return;
	mark_data_from(x, i);
	s = join_words(P, x->v + i, x->n - i, &len);
	if (s)
		analyze_string(P, s, len, x->depth + 1, x->line, x->remote);
}

/* su [-] [user] -c CMD, runuser ... -c CMD or -- CMD... */
static void h_su(struct sh_an *P, struct nc *x)
{
	for (size_t i = 1; i < x->n; i++) {
		struct sh_word *w = x->v[i];
		if ((weq(w, "-c") || weq(w, "--command")) && i + 1 < x->n) {
			x->data[i + 1] = 1;
			analyze_string(P, x->v[i + 1]->s, x->v[i + 1]->len, x->depth + 1,
				       x->v[i + 1]->line, x->remote);
			return;
		}
		if (!strncmp(w->s, "--command=", 10)) {
			x->data[i] = 1;
			analyze_string(P, w->s + 10, w->len - 10, x->depth + 1, w->line, x->remote);
			return;
		}
		if (weq(w, "--") && i + 1 < x->n) {
			process_words(P, NULL, x->v + i + 1, x->n - i - 1, x->depth + 1, x->remote,
				      x->line);
			return;
		}
	}
	run_stdin(P, x, LANG_SHELL);
}

static void h_cd(struct sh_an *P, struct nc *x)
{
	size_t i = 1, plen;
	char *p;

	while (i < x->n && x->v[i]->len >= 2 && x->v[i]->s[0] == '-')
		i++;
	if (!P->walk_scope)
		return;
	if (i >= x->n) {
		P->walk_scope->cwd = P->home;
		return;
	}
	if (weq(x->v[i], "-"))
		return;
	p = path_form(P, x->v[i], &plen);
	if (p)
		P->walk_scope->cwd = p;
}

static void h_redirs(struct sh_an *P, struct nc *x)
{
	struct sh_cmd *c = x->c;

	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++) {
		struct sh_redir *r = &c->r[i];
		const struct sh_word *t = &r->target;
		switch (r->kind) {
		case R_IN:
			path(P, x, t, POL_OP_READ, 0);
			break;
		case R_OUT:
		case R_CLOBBER:
		case R_OUTERR:
			path(P, x, t, POL_OP_TRUNCATE, 0);
			break;
		case R_APPEND:
		case R_APPERR:
		case R_RW:
			path(P, x, t, POL_OP_WRITE, 0);
			break;
		case R_DUPOUT:
		case R_DUPIN:
			if (t->len && strspn(t->s, "0123456789-") != t->len)
				path(P, x, t, r->kind == R_DUPOUT ? POL_OP_TRUNCATE : POL_OP_READ,
				     0);
			break;
		default:
			break;
		}
	}
}

/* Emits a command view: words v[from..n) with their data flags, then the redirections. */
static void emit_view(struct sh_an *P, struct nc *x, struct sh_word **v, size_t n,
		      const unsigned char *data, const char *name0, size_t name0_len)
{
	struct sh_cmd *c = x->c;
	size_t nr = c ? c->nr : 0, k = 0;
	struct vw *view = sh_alloc(P, (n + 2 * nr + 1) * sizeof(*view));

	if (!view)
		return;
	for (size_t i = 0; i < n; i++, k++) {
		view[k].s = v[i]->s;
		view[k].len = v[i]->len;
		view[k].data = data ? data[i] : 0;
	}
	if (n && name0) {
		view[0].s = name0;
		view[0].len = name0_len;
	}
	for (size_t i = 0; i < nr; i++) {
		view[k].s = c->r[i].op;
		view[k].len = strlen(c->r[i].op);
		view[k].data = 0;
		k++;
		view[k].s = c->r[i].target.s;
		view[k].len = c->r[i].target.len;
		view[k].data = c->r[i].kind == R_HERESTR || c->r[i].kind == R_HEREDOC;
		k++;
	}
	emit_command(P, view, k, x->line, x->depth);
}

/* f(){ f|f& }; f : a function that pipes into itself in the background. */
static void h_fork_bomb(struct sh_an *P, struct nc *x)
{
	struct sh_cmd *p = x->c->pipe_prev;

	if (!p || !p->name || p->nlen != x->nlen || memcmp(p->name, x->name, x->nlen))
		return;
	for (size_t i = 0; i < P->nfnames; i++)
		if (P->fnames[i].len == x->nlen && !memcmp(P->fnames[i].s, x->name, x->nlen)) {
			emit_finding(P, "system.fork_bomb", x->name, x->nlen, x->line, x->depth);
			return;
		}
}

/* SQL or commands fed to a database client on stdin are matched as its command line:
 * psql <<EOF DROP TABLE x; EOF reads as "psql DROP TABLE x;". */
static void h_db_stdin(struct sh_an *P, struct nc *x)
{
	static const char *const clients[] = {
	    "psql",	 "mysql", "mariadb", "sqlite3",	  "duckdb", "sqlcmd", "clickhouse-client",
	    "cockroach", "mongo", "mongosh", "redis-cli", "cqlsh",  NULL};
	struct sh_cmd *c = x->c;
	struct vw view[2];

	if (!name_in(x, clients))
		return;
	view[0].s = x->name;
	view[0].len = x->nlen;
	view[0].data = 0;
	view[1].data = 0;
	for (size_t i = 0; i < c->nr; i++) {
		if (c->r[i].kind == R_HEREDOC && c->r[i].hd) {
			view[1].s = heredoc_text(P, c->r[i].hd, &view[1].len);
			if (view[1].s)
				emit_command(P, view, 2, c->r[i].hd->line, x->depth);
		} else if (c->r[i].kind == R_HERESTR) {
			view[1].s = c->r[i].target.s;
			view[1].len = c->r[i].target.len;
			emit_command(P, view, 2, x->line, x->depth);
		}
	}
	if (c->pipe_prev && c->pipe_prev->feed) {
		view[1].s = c->pipe_prev->feed;
		view[1].len = c->pipe_prev->feed_len;
		emit_command(P, view, 2, c->pipe_prev->feed_line, x->depth);
	}
}

/* {rm,-rf,/} as a command: brace expansion makes it the words rm -rf /. Only the
 * plain form (one level, no quotes) is expanded; anything else stays one word. */
static struct sh_word **brace_split(struct sh_an *P, struct sh_word **v, size_t *n)
{
	struct sh_word *w = *n ? v[0] : NULL;
	size_t parts = 1, k = 0, start = 1;
	struct sh_word **nv, *pw;

	if (!w || w->len < 4 || (w->flags & (W_QUOTED | W_UNRESOLVED)) || w->s[0] != '{' ||
	    w->s[w->len - 1] != '}' || memchr(w->s + 1, '{', w->len - 2))
		return v;
	for (size_t i = 1; i + 1 < w->len; i++)
		parts += w->s[i] == ',';
	if (parts < 2)
		return v;
	nv = sh_alloc(P, (*n - 1 + parts) * sizeof(*nv));
	pw = sh_alloc(P, parts * sizeof(*pw));
	if (!nv || !pw)
		return NULL;
	for (size_t i = 1; i < w->len; i++) {
		if (w->s[i] != ',' && i + 1 != w->len)
			continue;
		memset(&pw[k], 0, sizeof(pw[k]));
		pw[k].s = sh_strndup(P, w->s + start, i - start);
		if (!pw[k].s)
			return NULL;
		pw[k].len = i - start;
		pw[k].line = w->line;
		nv[k] = &pw[k];
		k++;
		start = i + 1;
	}
	memcpy(nv + k, v + 1, (*n - 1) * sizeof(*nv));
	*n = *n - 1 + k;
	return nv;
}

static void process_words(struct sh_an *P, struct sh_cmd *c, struct sh_word **v, size_t n,
			  unsigned depth, int remote, unsigned line)
{
	static const char *const keywords[] = {"!",    "{",    "}",    "then",	 "do",
					       "else", "if",   "elif", "while",	 "until",
					       "fi",   "done", "esac", "coproc", NULL};
	struct nc X, *x = &X;
	size_t i = 0, aw, k;
	int query_only = 0;

	if (P->abort)
		return;
	if (depth > SH_MAX_NEST) {
		emit_finding(P, "shell.parse.too_complex", n ? v[0]->s : "", n ? v[0]->len : 0,
			     line, depth);
		P->abort = 1;
		return;
	}
	memset(x, 0, sizeof(*x));
	x->c = c;
	x->depth = depth;
	x->remote = remote;
	x->line = line;
	v = brace_split(P, v, &n);
	if (!v)
		return;
	while (i < n) {
		if (!(v[i]->flags & W_QUOTED) && word_is(v[i], keywords)) {
			i++;
		} else if (weq(v[i], "function")) {
			i += 2;
			if (i < n && weq(v[i], "()"))
				i++;
		} else if (is_assignment(v[i])) {
			i++;
		} else {
			break;
		}
	}
	if (i < n && (weq(v[i], "for") || weq(v[i], "select") || weq(v[i], "case")))
		i = n; /* for NAME in WORDS: nothing runs (substitutions were parsed) */
	if (i >= n) {
		for (size_t j = 0; j < n; j++)
			if (is_assignment(v[j]))
				record_assignment(P, v[j]);
		h_redirs(P, x);
		return;
	}
	aw = i;
	k = strip_wrappers(P, v, n, i, depth, remote, line, &query_only);
	if (k >= n) {
		/* only wrappers (or env -S / command -v): emit what was written */
		x->v = v + aw;
		x->n = n - aw;
		emit_view(P, x, v + aw, n - aw, NULL, NULL, 0);
		h_redirs(P, x);
		return;
	}
	x->v = v + k;
	x->n = n - k;
	base_of(x->v[0], &x->name, &x->nlen);
	classify(x->name, x->nlen, &x->kind, &x->kflags);

	/* $CMD args, with CMD assigned earlier in the line: the shell splits the value
	 * into words, so the command is the value followed by the arguments. */
	if (x->v[0]->nhome == 1 && x->v[0]->home_off[0] == 0 &&
	    x->v[0]->home_len[0] == x->v[0]->len && !(x->v[0]->flags & W_UNRESOLVED)) {
		size_t vl, rl = 0;
		const char *val = var_value(P, x->v[0]->var_name[0], x->v[0]->var_nlen[0], &vl);
		char *rest = x->n > 1 ? join_expanded(P, x->v + 1, x->n - 1, &rl) : NULL;
		char *cmd = val ? sh_alloc(P, vl + 1 + rl + 1) : NULL;
		if (cmd && val != P->home) {
			memcpy(cmd, val, vl);
			cmd[vl] = ' ';
			if (rest)
				memcpy(cmd + vl + 1, rest, rl);
			analyze_string(P, cmd, vl + 1 + rl, depth + 1, line, remote);
		}
	}

	/* git's global options (-C dir, -c k=v, --git-dir=...) go before the subcommand:
	 * the normalized view drops them so that rules see "git reset --hard" */
	struct sh_word **nv = x->v;
	size_t nn = x->n;
	int git_norm = 0;
	if (NM("git") && x->n > 1) {
		size_t j = 1;
		while (j < x->n && x->v[j]->s[0] == '-') {
			struct sh_word *w = x->v[j];
			if (weq(w, "-C") || weq(w, "-c") || weq(w, "--git-dir") ||
			    weq(w, "--work-tree") || weq(w, "--namespace") ||
			    weq(w, "--exec-path") || weq(w, "--config-env"))
				j++;
			j++;
		}
		if (j > 1 && j < x->n) {
			nv = sh_alloc(P, (x->n - j + 1) * sizeof(*nv));
			if (!nv)
				return;
			nv[0] = x->v[0];
			memcpy(nv + 1, x->v + j, (x->n - j) * sizeof(*nv));
			nn = x->n - j + 1;
			git_norm = 1;
		}
	}
	x->v = nv;
	x->n = nn;
	x->data = sh_alloc(P, nn + 1);
	if (!x->data)
		return;
	memset(x->data, 0, nn + 1);

	struct sh_pq *mark = P->pq_tail;
	P->defer++;
	int lang = (x->kflags & F_LANG) ? lang_from_name(x->name, x->nlen) : LANG_NONE;
	if (query_only) {
		/* nothing */
	} else if (lang == LANG_SHELL) {
		h_shell(P, x);
	} else if (lang != LANG_NONE) {
		h_interp(P, x, lang);
	} else if (x->kind == K_EVAL) {
		size_t len;
		char *s;
		mark_data_from(x, 1);
		for (size_t j = 1; j < x->n; j++)
			check_dl_word(P, x, x->v[j]);
		s = join_words(P, x->v + 1, x->n - 1, &len);
		if (s && len)
			analyze_string(P, s, len, depth + 1, line, remote);
	} else if (x->kind == K_FIND) {
		h_find(P, x);
	} else if (x->kind == K_SSH) {
		h_ssh(P, x);
	} else if (x->kind == K_CONTAINER) {
		h_container(P, x);
	} else if (x->kind == K_WATCH) {
		h_watch(P, x);
	} else if (x->kind == K_SU) {
		h_su(P, x);
	} else if (x->kind == K_CD) {
		h_cd(P, x);
	} else if (x->kind != K_NONE) {
		h_files(P, x);
	}
	if (x->v[0]->len > x->nlen && !query_only) /* ./script, /path/to/tool, ~/bin/x */ {
		path(P, x, x->v[0], POL_OP_EXEC, 0);
		run_file(P, x, x->v[0], LANG_NONE);
	}
	if (c) {
		c->name = x->name;
		c->nlen = x->nlen;
		h_fork_bomb(P, x);
		if (x->kflags & F_DB)
			h_db_stdin(P, x);
		c->upstream_dl = (x->kflags & F_DL) || (c->pipe_prev && c->pipe_prev->upstream_dl);
		c->upstream_decode = ((x->kflags & F_DEC) && is_decoder(x)) ||
				     (c->pipe_prev && c->pipe_prev->upstream_decode);
		if (x->kflags & F_FEED)
			set_feed(P, x);
	}
	h_redirs(P, x);

	/* the units: as written (when wrappers or git options were stripped), normalized */
	if (k > aw || git_norm) {
		size_t wn = n - aw;
		unsigned char *wd = sh_alloc(P, wn + 1);
		if (!wd)
			return;
		memset(wd, 0, wn + 1);
		/* the normalized words are a subsequence of the written ones */
		for (size_t a = 0, b = 0; a < wn && b < nn; a++)
			if (v[aw + a] == nv[b])
				wd[a] = x->data[b++];
		emit_view(P, x, v + aw, wn, wd, NULL, 0);
	}
	P->defer--;
	emit_view(P, x, nv, nn, x->data, x->name, x->nlen);
	flush_paths(P, mark);
}

static void walk(struct sh_an *P)
{
	for (struct sh_cmd *c = P->head; c && !P->abort; c = c->next) {
		struct sh_word **v;

		if (!c->nw) {
			struct nc x;
			memset(&x, 0, sizeof(x));
			x.c = c;
			x.depth = c->depth;
			x.remote = c->remote;
			x.line = c->line;
			P->walk_scope = c->scope;
			h_redirs(P, &x);
			continue;
		}
		v = sh_alloc(P, c->nw * sizeof(*v));
		if (!v)
			return;
		for (size_t i = 0; i < c->nw; i++)
			v[i] = &c->w[i];
		P->walk_scope = c->scope;
		process_words(P, c, v, c->nw, c->depth, c->remote, c->line);
	}
}

/* ---- public ------------------------------------------------------------------------- */

int pol_shell_analyze(const char *cmd, size_t len, const struct pol_shell_opts *opts,
		      struct pol_arena *a, pol_unit_fn fn, void *arg)
{
	struct sh_an P;
	struct sh_lex L;

	memset(&P, 0, sizeof(P));
	P.a = a;
	P.fn = fn;
	P.arg = arg;
	if (opts && opts->home && opts->home[0]) {
		P.home = opts->home;
		P.home_len = strlen(opts->home);
		/* "/home/u/" + "/.ssh" would read "/home/u//.ssh": drop the trailing slash */
		while (P.home_len > 1 && P.home[P.home_len - 1] == '/')
			P.home_len--;
	}
	P.work_cap = len * SH_WORK_FACTOR + SH_WORK_SLACK;
	P.cur_scope = P.walk_scope = new_scope(&P, NULL);
	if (!P.cur_scope)
		return P.ret;
	if (!cmd)
		cmd = "";
	if (lex_init(&P, &L, cmd, len, 1, 0, 0) == 0) {
		parse_list(&P, &L, 0);
		walk(&P);
	}
	return P.ret;
}

int pol_shell_register_builtins(struct pol_policy *p)
{
	static const struct {
		const char *id, *reason, *suggestion;
		enum pol_severity sev;
	} b[] = {
	    {"shell.parse.unterminated",
	     "Unterminated quote, substitution or group: the command cannot be analysed safely",
	     "Close every quote and $( ... ) so the command can be checked", POL_SEV_HIGH},
	    {"shell.parse.error", "Shell syntax error: the command cannot be analysed safely",
	     "Fix the syntax (unbalanced parenthesis or missing redirection target)", POL_SEV_HIGH},
	    {"shell.parse.too_complex",
	     "Command nests substitutions or shells too deeply to be analysed",
	     "Split the command into simpler steps", POL_SEV_HIGH},
	    {"remote-exec.pipe_to_shell", "Downloaded content is executed as code without review",
	     "Download to a file, read it, then run it: curl -fsSLo script.sh URL && less "
	     "script.sh",
	     POL_SEV_CRITICAL},
	    {"remote-exec.decode_to_shell", "Decoded or obfuscated content is executed as code",
	     "Decode to a file and review it before running it", POL_SEV_HIGH},
	    {"system.fork_bomb",
	     "A function that pipes into itself in the background exhausts the process table",
	     "Run the workload once, or bound it with a loop counter", POL_SEV_CRITICAL},
	};

	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		ssize_t r =
		    pol_rule_add_builtin(p, b[i].id, b[i].reason, b[i].sev, b[i].suggestion);
		if (r < 0)
			return (int)r;
	}
	return 0;
}
