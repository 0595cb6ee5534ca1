/* shell_runs.c - programs that run a command they are handed: which argument, option
 * or input is a command, and in which language (sh_runs, one row each, read by
 * sh_runner()), with code only for the languages whose shell commands must be found in
 * them (vim's and gdb's "!", emacs' shell-command, make's recipes, expect's spawn,
 * sed's e, git's configuration). Every row's name has a row in sh_cmds flagged F_RUNS
 * (test_shell checks both tables). And the principle for what dcg cannot read
 * (sh_unseen): a destructive-looking argument list is asked about. */
#include "shell_int.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* How the command is handed (struct sh_runspec.how). */
enum {
	RUN_OPT = 1,	    /* the value of an option of opts or letters; a file of fopts */
	RUN_STDIN = 2,	    /* stdin (a heredoc, a here-string, text piped in) */
	RUN_OPERANDS = 4,   /* the operands after the subcommand, joined */
	RUN_EACH = 8,	    /* each operand, on its own */
	RUN_FIRST = 16,	    /* the first operand, when at least nmin operands are there */
	RUN_PLUS = 32,	    /* +CMD words (vim +'!cmd', less +CMD) */
	RUN_STDIN_OPT = 64, /* stdin, only with a letter of stdin_opt (ex -s) or a file
			     * option whose value is - or /dev/stdin (make -f -) */
	RUN_GLOBAL = 128,   /* options count only before the first operand (tmux -c) */
	RUN_SCRIPT = 256,   /* the first operand, when no option gave the code (sed) */
};

/* The language the command is written in (struct sh_runspec.dialect). */
enum {
	D_SH = 0, /* a shell command line */
	D_EX,	  /* ex/vim/less/gdb commands: !cmd, shell cmd, system("cmd") */
	D_LISP,	  /* emacs lisp: (shell-command "cmd"), (call-process "prog" ...) */
	D_MAKE,	  /* a makefile: its recipe lines and $(shell ...) */
	D_TCL,	  /* expect: spawn, exec, system, send */
	D_SED,	  /* a sed script: e CMD, s///e */
	D_KEYS,	  /* keys typed into a terminal (tmux send-keys, screen stuff) */
	D_REMOTE, /* a shell command line on another machine (rsync --rsync-path) */
	D_GIT,	  /* git: -c KEY=VALUE of a key that runs a program, ext:: URLs, and the
		   * options of its subcommands that run a command (git_runs) */
	D_CALLS,  /* Lua, R, Julia: the literals of calls that run or delete (d_calls) */
};

/* One way a program runs a command. No pointers (see shell_int.h): word sets are
 * packed strings, each word ended by a NUL and the set by an empty word. */
struct sh_runspec {
	char name[12];
	uint16_t how;	   /* RUN_* */
	uint8_t dialect;   /* D_* */
	uint8_t nmin;	   /* RUN_FIRST: operands needed (trap CODE SIG: 2) */
	char sub[128];	   /* subcommands this row is for (word set), "" for any */
	char gvals[9];	   /* option letters before the subcommand that take a value */
	char opts[112];	   /* options whose value is code (word set) */
	char fopts[40];	   /* options whose value is a file of code (word set) */
	char letters[4];   /* short option letters whose value is code, in bundles too */
	char vals[16];	   /* other short options that take a value (to find operands) */
	char stdin_opt[4]; /* RUN_STDIN_OPT: letters that make stdin code (ex -s) */
};

#define NEWS                                                                         \
	"new-session\0new\0new-window\0neww\0split-window\0splitw\0run-shell\0run\0" \
	"respawn-pane\0respawnp\0respawn-window\0respawnw\0"

/* Sorted by name; a name may have several rows, each tried. */
static const struct sh_runspec sh_runs[] = {
    {"R", RUN_OPT | RUN_STDIN, D_CALLS, 0, "", "", "-e\0", "", "e", "", ""},
    {"Rscript", RUN_OPT, D_CALLS, 0, "", "", "-e\0", "", "e", "", ""},
    {"at", RUN_STDIN | RUN_OPT, D_SH, 0, "", "", "", "-f\0", "", "qtf", ""},
    {"batch", RUN_STDIN | RUN_OPT, D_SH, 0, "", "", "", "-f\0", "", "qf", ""},
    {"emacs", RUN_OPT, D_LISP, 0, "", "", "--eval\0-eval\0--execute\0",
     "-l\0--load\0--script\0-script\0", "", "lLfu", ""},
    {"emacsclient", RUN_OPT, D_LISP, 0, "", "", "--eval\0-e\0", "", "e", "sfaT", ""},
    {"ex", RUN_OPT | RUN_PLUS | RUN_STDIN_OPT, D_EX, 0, "", "", "-c\0--cmd\0", "-S\0", "c",
     "SuUiTwWr", "s"},
    {"expect", RUN_OPT | RUN_STDIN, D_TCL, 0, "", "", "-c\0", "-f\0", "c", "f", ""},
    {"flock", RUN_OPT, D_SH, 0, "", "", "-c\0--command\0", "", "c", "wE", ""},
    {"gdb", RUN_OPT, D_EX, 0, "", "",
     "-ex\0--ex\0-iex\0--iex\0--eval-command\0-eval-command\0--init-eval-command\0",
     "-x\0-ix\0--command\0--init-command\0", "", "pcsed", ""},
    {"git", 0, D_GIT, 0, "", "", "", "", "", "", ""},
    {"gmake", RUN_OPT | RUN_STDIN_OPT, D_MAKE, 0, "", "", "--eval\0-E\0",
     "-f\0--file\0--makefile\0", "E", "CfIjlWo", ""},
    {"gvim", RUN_OPT | RUN_PLUS, D_EX, 0, "", "", "-c\0--cmd\0", "-S\0", "c", "SuUiTwWrt", ""},
    {"julia", RUN_OPT, D_CALLS, 0, "", "", "-e\0--eval\0-E\0--print\0", "", "eE", "JptLCO", ""},
    {"less", RUN_PLUS, D_EX, 0, "", "", "", "", "", "bhjkoOpPtTxyz#", ""},
    {"lua", RUN_OPT | RUN_STDIN, D_CALLS, 0, "", "", "-e\0", "", "e", "l", ""},
    {"lua5.1", RUN_OPT | RUN_STDIN, D_CALLS, 0, "", "", "-e\0", "", "e", "l", ""},
    {"lua5.2", RUN_OPT | RUN_STDIN, D_CALLS, 0, "", "", "-e\0", "", "e", "l", ""},
    {"lua5.3", RUN_OPT | RUN_STDIN, D_CALLS, 0, "", "", "-e\0", "", "e", "l", ""},
    {"lua5.4", RUN_OPT | RUN_STDIN, D_CALLS, 0, "", "", "-e\0", "", "e", "l", ""},
    {"luajit", RUN_OPT | RUN_STDIN, D_CALLS, 0, "", "", "-e\0", "", "e", "lbjO", ""},
    {"make", RUN_OPT | RUN_STDIN_OPT, D_MAKE, 0, "", "", "--eval\0-E\0", "-f\0--file\0--makefile\0",
     "E", "CfIjlWo", ""},
    {"man", RUN_OPT, D_SH, 0, "", "", "-P\0--pager\0--html\0", "", "P", "CMmLSseEpr", ""},
    {"nvim", RUN_OPT | RUN_PLUS | RUN_STDIN_OPT, D_EX, 0, "", "", "-c\0--cmd\0", "-S\0", "c",
     "SuUiTwWr", "s"},
    {"rsync", RUN_OPT, D_SH, 0, "", "", "-e\0--rsh\0", "", "e", "BfT", ""},
    {"rsync", RUN_OPT, D_REMOTE, 0, "", "", "--rsync-path\0", "", "", "", ""},
    {"screen", RUN_OPERANDS, D_KEYS, 0, "stuff\0", "SpTecsth", "", "", "", "", ""},
    {"screen", RUN_OPERANDS, D_SH, 0, "exec\0screen\0", "SpTecsth", "", "", "", "", ""},
    {"script", RUN_OPT, D_SH, 0, "", "", "-c\0--command\0", "", "c", "EOIT", ""},
    {"sed", RUN_OPT | RUN_SCRIPT, D_SED, 0, "", "", "-e\0--expression\0", "-f\0--file\0", "e", "fl",
     ""},
    {"sg", RUN_OPT, D_SH, 0, "", "", "-c\0", "", "", "", ""},
    {"tar", RUN_OPT, D_SH, 0, "", "",
     "--to-command\0--use-compress-program\0-I\0--info-script\0--new-volume-script\0"
     "-F\0--rsh-command\0--checkpoint-action\0",
     "", "IF", "bCfgHKLNTVX", ""},
    {"tclsh", RUN_STDIN, D_TCL, 0, "", "", "", "", "", "", ""},
    {"tmux", RUN_OPT | RUN_GLOBAL, D_SH, 0, "", "", "-c\0", "", "c", "LSfT", ""},
    {"tmux", RUN_OPERANDS, D_KEYS, 0, "send-keys\0send\0", "LSfT", "", "", "", "tN", ""},
    {"tmux", RUN_OPERANDS, D_SH, 0, NEWS, "LSfT", "", "", "", "stnFcxyelpwfT", ""},
    {"tmux", RUN_FIRST, D_SH, 1, "if-shell\0if\0pipe-pane\0pipep\0display-popup\0popup\0", "LSfT",
     "", "", "", "tFcdxywhbTseST", ""},
    {"trap", RUN_FIRST, D_SH, 2, "", "", "", "", "", "", ""},
    {"vi", RUN_OPT | RUN_PLUS, D_EX, 0, "", "", "-c\0--cmd\0", "-S\0", "c", "SuUiTwWrt", ""},
    {"view", RUN_OPT | RUN_PLUS, D_EX, 0, "", "", "-c\0--cmd\0", "-S\0", "c", "SuUiTwWrt", ""},
    {"vim", RUN_OPT | RUN_PLUS | RUN_STDIN_OPT, D_EX, 0, "", "", "-c\0--cmd\0", "-S\0", "c",
     "SuUiTwWrt", "s"},
    {"vimdiff", RUN_OPT | RUN_PLUS, D_EX, 0, "", "", "-c\0--cmd\0", "-S\0", "c", "SuUiTwWrt", ""},
    {"wish", RUN_STDIN, D_TCL, 0, "", "", "", "", "", "", ""},
};
static const size_t sh_nruns = sizeof(sh_runs) / sizeof(sh_runs[0]);

const char *sh_run_name(size_t i)
{
	return i < sh_nruns ? sh_runs[i].name : NULL;
}

/* ---- the principle: what dcg cannot see --------------------------------------------- */

/* A word that names the whole machine, the home folder or a disk. */
static int catastrophic(struct sh_an *P, const struct sh_word *w)
{
	static const char words[] = "/\0/*\0~\0~/\0~/*\0$HOME\0${HOME}\0$HOME/\0/etc\0/usr\0"
				    "/bin\0/boot\0/lib\0/var\0/home\0/opt\0/srv\0/root\0/sbin\0";
	const char *s = w->s;
	size_t n = w->len;

	if (sh_word_is(w, words))
		return 1;
	if (n > 3 && !memcmp(s, "of=", 3)) {
		s += 3;
		n -= 3;
	}
	if (n > 5 && !memcmp(s, "/dev/", 5))
		return !(n == 9 && !memcmp(s, "/dev/null", 9)) && strncmp(s, "/dev/fd", 7) &&
		       strncmp(s, "/dev/std", 8) && strncmp(s, "/dev/tty", 8) &&
		       strncmp(s, "/dev/shm", 8);
	while (n > 1 && s[n - 1] == '/')
		n--;
	return P->home_len && n == P->home_len && !memcmp(s, P->home, n);
}

int sh_args_destructive(struct sh_an *P, struct sh_word **v, size_t n)
{
	static const char verbs[] = "delete\0destroy\0remove\0rm\0purge\0wipe\0erase\0drop\0nuke\0"
				    "prune\0shred\0format\0rmdir\0unlink\0";
	static const char forces[] = "--force\0--yes\0-y\0--no-preserve-root\0--assume-yes\0"
				     "--yes-i-really-mean-it\0-f\0--recursive\0";
	int rec = 0, force = 0, cat = 0, verb = 0;

	for (size_t i = 1; i < n; i++) {
		const struct sh_word *w = v[i];
		/* a bundle of the short flags deleters take (-rf, -Rfv), not -fno-strict-x */
		if (w->len > 1 && w->len <= 6 && w->s[0] == '-' &&
		    strspn(w->s + 1, "rRfdviIx") == w->len - 1) {
			rec |= memchr(w->s, 'r', w->len) || memchr(w->s, 'R', w->len);
			force |= memchr(w->s, 'f', w->len) != NULL;
		} else if (weq(w, "--recursive")) {
			rec = 1;
		}
		force |= sh_word_is(w, forces) && !weq(w, "--recursive");
		cat |= catastrophic(P, w);
		verb |= sh_word_is(w, verbs);
	}
	return (rec && force) || (cat && (rec || force || verb)) || (force && verb);
}

void sh_unseen(struct sh_an *P, struct nc *x, struct sh_word **v, size_t n, const char *rule)
{
	size_t len;
	char *t;

	if (P->runtime || n < 2 || !sh_args_destructive(P, v, n))
		return;
	t = sh_join_words(P, v, n, &len);
	if (t)
		sh_emit_finding(P, rule, t, len, x->line, x->depth);
}

/* ---- the languages ------------------------------------------------------------------- */

static void code(struct sh_an *P, struct nc *x, const char *s, size_t n)
{
	if (n)
		sh_analyze_string(P, s, n, x->depth + 1, x->line, x->remote);
}

/* The string literal ("..." or '...') at s[i], unescaped into the arena, or NULL. */
static char *literal(struct sh_an *P, const char *s, size_t n, size_t i, size_t *len, size_t *end)
{
	char q = s[i], *out;
	size_t o = 0;

	if (i >= n || (q != '"' && q != '\''))
		return NULL;
	out = sh_alloc(P, n - i + 1);
	if (!out)
		return NULL;
	for (i++; i < n && s[i] != q; i++) {
		if (s[i] == '\\' && q == '"' && i + 1 < n)
			i++;
		out[o++] = s[i];
	}
	if (i >= n)
		return NULL;
	out[o] = '\0';
	*len = o;
	*end = i + 1;
	return out;
}

/* Shell command lines in a string of a language: after each of the words of calls
 * ("system(" ...), its first string literal. */
static void literal_calls(struct sh_an *P, struct nc *x, const char *s, size_t n, const char *calls)
{
	for (const char *c = calls; *c; c += strlen(c) + 1) {
		size_t cl = strlen(c);
		for (const char *p = s; (p = memmem(p, n - (size_t)(p - s), c, cl)); p += cl) {
			size_t i = (size_t)(p - s) + cl, len, end;
			char *lit;
			while (i < n && (s[i] == ' ' || s[i] == '\t'))
				i++;
			if ((lit = literal(P, s, n, i, &len, &end)))
				code(P, x, lit, len);
		}
	}
}

/* ex, vim, less, gdb: "!cmd", "r !cmd", "w !cmd", "shell cmd", "pipe ... | cmd",
 * "silent !cmd", "terminal cmd", system("cmd"), python CODE. */
static void d_ex(struct sh_an *P, struct nc *x, const char *s, size_t n)
{
	static const char calls[] = "system(\0systemlist(\0jobstart(\0termopen(\0os.execute(\0"
				    "os.system(\0";
	static const char lead[] = "silent!\0silent\0sil!\0sil\0exe\0execute\0r\0read\0w\0write\0"
				   "call\0norm\0normal\0";
	size_t i = 0;

	literal_calls(P, x, s, n, calls);
	while (i < n) {
		size_t e = i, k;
		while (e < n && s[e] != '\n')
			e++;
		k = i;
		for (int again = 1; again;) {
			again = 0;
			while (k < e && strchr(" \t:%.$,0123456789'<>", s[k]))
				k++;
			for (const char *l = lead; *l && !again; l += strlen(l) + 1) {
				size_t ll = strlen(l);
				if (k + ll < e && !memcmp(s + k, l, ll) &&
				    (s[k + ll] == ' ' || s[k + ll] == '!' || s[k + ll] == '"')) {
					k += ll;
					again = 1;
				}
			}
			while (k < e && (s[k] == ' ' || s[k] == '"'))
				k++;
		}
		if (k < e && s[k] == '!')
			code(P, x, s + k + 1, e - k - 1);
		else if (e - k > 6 && !memcmp(s + k, "shell ", 6))
			code(P, x, s + k + 6, e - k - 6);
		else if (e - k > 9 && !memcmp(s + k, "terminal ", 9))
			code(P, x, s + k + 9, e - k - 9);
		else if (e - k > 5 && !memcmp(s + k, "pipe ", 5) && memchr(s + k, '|', e - k)) {
			const char *bar = memchr(s + k, '|', e - k);
			code(P, x, bar + 1, (size_t)(s + e - bar - 1));
		} else if (e - k > 7 &&
			   (!memcmp(s + k, "python ", 7) || !memcmp(s + k, "pyth ", 5)))
			sh_run_code(P, LANG_PYTHON, s + k + 7, e - k - 7, 0, x->line, x->depth + 1,
				    x->remote);
		i = e + 1;
	}
}

/* emacs lisp: the shell command of (shell-command "cmd") and its kin, the argv of
 * (call-process "prog" nil nil nil "arg" ...) and (process-lines "prog" "arg" ...), and
 * (delete-directory "dir" t) read as rm -rf dir. */
static void d_lisp(struct sh_an *P, struct nc *x, const char *s, size_t n)
{
	static const char shell[] = "(shell-command \0(shell-command-to-string \0"
				    "(async-shell-command \0(call-process-shell-command \0";
	static const char argv[] = "(call-process \0(process-lines \0(start-process \0"
				   "(make-process \0(delete-directory \0(delete-file \0";

	literal_calls(P, x, s, n, shell);
	for (const char *c = argv; *c; c += strlen(c) + 1) {
		size_t cl = strlen(c);
		for (const char *p = s; (p = memmem(p, n - (size_t)(p - s), c, cl)); p += cl) {
			char *cmd = sh_alloc(P, 2 * n + 16), *lit;
			size_t o = 0, i = (size_t)(p - s) + cl, len, end;
			int depth = 0, rec = 0;
			if (!cmd)
				return;
			if (c[1] == 'd') { /* delete-directory / delete-file */
				memcpy(cmd, "rm ", 3);
				o = 3;
			}
			for (; i < n && depth >= 0; i++) {
				if (s[i] == '(')
					depth++;
				else if (s[i] == ')')
					depth--;
				else if (!depth && (lit = literal(P, s, n, i, &len, &end))) {
					cmd[o++] = '\'';
					for (size_t k = 0; k < len; k++)
						if (lit[k] != '\'')
							cmd[o++] = lit[k];
					cmd[o++] = '\'';
					cmd[o++] = ' ';
					i = end - 1;
				} else if (!depth && s[i] == 't' && (s[i - 1] == ' ') &&
					   (i + 1 == n || s[i + 1] == ')' || s[i + 1] == ' ')) {
					rec = 1;
				}
			}
			if (rec && c[1] == 'd' && c[8] == 'd') { /* (delete-directory DIR t) */
				memmove(cmd + 7, cmd + 3, o - 3);
				memcpy(cmd, "rm -rf ", 7);
				o += 4;
			}
			code(P, x, cmd, o);
		}
	}
}

/* A makefile: its recipe lines (a tab first; @ - + and $$ as make reads them) and the
 * commands of $(shell ...). */
static void d_make(struct sh_an *P, struct nc *x, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t e = i, o = 0;
		char *line;
		while (e < n && (s[e] != '\n' || (e > i && s[e - 1] == '\\')))
			e++;
		line = sh_alloc(P, e - i + 1);
		if (!line)
			return;
		for (size_t k = i; k < e; k++) {
			if (s[k] == '$' && k + 1 < e && s[k + 1] == '$')
				k++;
			line[o++] = s[k];
		}
		if (o && line[0] == '\t') {
			size_t k = 1;
			while (k < o && strchr("@-+ \t", line[k]))
				k++;
			code(P, x, line + k, o - k);
		}
		for (const char *p = line; (p = memmem(p, o - (size_t)(p - line), "$(shell ", 8));
		     p += 8) {
			size_t k = (size_t)(p - line) + 8, d = 1, b = k;
			while (k < o && d)
				d += line[k] == '(' ? 1 : line[k] == ')' ? -1 : 0, k++;
			code(P, x, line + b, k - b - (d == 0));
		}
		i = e + 1;
	}
}

/* Tcl (expect, tclsh, wish): spawn ARGS, exec ARGS, system ARGS, what send types, and
 * `file delete [-force] [--] PATH...` as rm of the paths (-r with -force). */
static void d_tcl(struct sh_an *P, struct nc *x, const char *s, size_t n)
{
	static const char verbs[] = "spawn\0exec\0system\0send\0file delete\0";

	for (size_t i = 0; i < n; i++) {
		if (i && !strchr(" \t\n;[{", s[i - 1]))
			continue;
		for (const char *v = verbs; *v; v += strlen(v) + 1) {
			size_t vl = strlen(v), e, o = 0;
			char *cmd;
			if (i + vl >= n || memcmp(s + i, v, vl) ||
			    (s[i + vl] != ' ' && s[i + vl] != '\t'))
				continue;
			e = i + vl;
			while (e < n && !strchr("\n;]", s[e]))
				e++;
			cmd = sh_alloc(P, e - i + 1);
			if (!cmd)
				return;
			for (size_t k = i + vl; k < e; k++) {
				if (s[k] == '\\' && k + 1 < e &&
				    (s[k + 1] == 'r' || s[k + 1] == 'n')) {
					cmd[o++] = '\n';
					k++;
				} else if (s[k] == '{' || s[k] == '}' || s[k] == '"') {
					cmd[o++] = ' ';
				} else if (!(s[k] == '-' && o == 0)) {
					cmd[o++] = s[k];
				}
			}
			if (vl == 11) { /* file delete: its options out, rm in */
				char *rm = sh_alloc(P, o + 8);
				size_t r = 0, k = 0;
				if (!rm)
					return;
				memcpy(rm, "rm ", 3);
				r = 3;
				while (k < o) {
					size_t w = k;
					while (w < o && cmd[w] != ' ')
						w++;
					if (w - k == 6 && !memcmp(cmd + k, "-force", 6)) {
						memcpy(rm + r, "-rf ", 4);
						r += 4;
					} else if (w > k &&
						   !(w - k == 2 && !memcmp(cmd + k, "--", 2))) {
						memcpy(rm + r, cmd + k, w - k);
						r += w - k;
						rm[r++] = ' ';
					}
					k = w + 1;
				}
				code(P, x, rm, r);
				i = e;
				break;
			}
			if (vl == 5 && !memcmp(v, "spawn", 5)) /* spawn -noecho CMD */
				for (size_t k = 0; k + 1 < o && cmd[k] == ' '; k++)
					if (cmd[k + 1] == '-')
						while (k + 1 < o && cmd[k + 1] != ' ')
							cmd[++k] = ' ';
			code(P, x, cmd, o);
			i = e;
			break;
		}
	}
}

/* The literal a call is handed at s[i]: '...', "...", `...` (Julia's commands) or Lua's
 * [[...]], unescaped into the arena; NULL when the argument is not a literal. */
static char *call_literal(struct sh_an *P, const char *s, size_t n, size_t i, size_t *len)
{
	size_t end;
	char *out;

	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '('))
		i++;
	if (i < n && (s[i] == '"' || s[i] == '\''))
		return literal(P, s, n, i, len, &end);
	if (i + 1 < n && (s[i] == '`' || (s[i] == '[' && s[i + 1] == '['))) {
		const char *close = s[i] == '`' ? "`" : "]]";
		size_t b = s[i] == '`' ? i + 1 : i + 2;
		const char *e = memmem(s + b, n - b, close, strlen(close));
		if (!e || !(out = sh_alloc(P, (size_t)(e - (s + b)) + 1)))
			return NULL;
		*len = (size_t)(e - (s + b));
		memcpy(out, s + b, *len);
		out[*len] = '\0';
		return out;
	}
	return NULL;
}

/* Code in Lua, R or Julia, which dcg does not parse: the literal handed to a call that
 * runs a command line (os.execute, io.popen, system, system2, shell, run, pipeline,
 * read) is analysed as one; the literal handed to a call that deletes (os.remove,
 * file.remove, unlink, rm) as rm of it, -r when the call says recursive, so that the
 * path rules judge the file. What is not a literal is not seen. */
static void d_calls(struct sh_an *P, struct nc *x, const char *s, size_t n)
{
	static const char runs[] = "os.execute\0io.popen\0system\0system2\0shell\0run\0"
				   "pipeline\0read\0";
	static const char deletes[] = "os.remove\0file.remove\0unlink\0rm\0";

	for (size_t i = 0; i < n; i++) {
		if (i && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_' || s[i - 1] == '.'))
			continue;
		for (int del = 0; del < 2; del++) {
			for (const char *f = del ? deletes : runs; *f; f += strlen(f) + 1) {
				size_t fl = strlen(f), len = 0;
				char *lit, *cmd;
				if (i + fl >= n || memcmp(s + i, f, fl) ||
				    isalnum((unsigned char)s[i + fl]) || s[i + fl] == '_' ||
				    !(lit = call_literal(P, s, n, i + fl, &len)))
					continue;
				if (!del) {
					code(P, x, lit, len);
					continue;
				}
				/* rm -r 'LIT': the literal's own quotes dropped, as d_lisp does */
				size_t e = i + fl;
				while (e < n && s[e] != ')' && s[e] != '\n')
					e++;
				int rec = memmem(s + i, e - i, "recursive", 9) != NULL;
				cmd = sh_alloc(P, len + 12);
				if (!cmd)
					return;
				size_t o = 0;
				memcpy(cmd, rec ? "rm -r '" : "rm '", rec ? 7 : 4);
				o = rec ? 7 : 4;
				for (size_t k = 0; k < len; k++)
					if (lit[k] != '\'')
						cmd[o++] = lit[k];
				cmd[o++] = '\'';
				code(P, x, cmd, o);
			}
		}
	}
}

/* sed: "e CMD" runs CMD, a lone "e" runs the line read, s/X/Y/e runs Y. */
static void d_sed(struct sh_an *P, struct nc *x, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t e = i, k;
		while (e < n && s[e] != '\n' && s[e] != ';')
			e++;
		k = i;
		while (k < e && strchr(" \t0123456789$,~!", s[k]))
			k++;
		if (k < e && s[k] == '/') { /* an address /re/ */
			for (k++; k < e && s[k] != '/'; k++)
				k += s[k] == '\\';
			k++;
			while (k < e && strchr(" \t,0123456789$!", s[k]))
				k++;
		}
		if (k < e && s[k] == 'e' && (k + 1 == e || s[k + 1] == ' ')) {
			if (k + 1 < e)
				code(P, x, s + k + 2, e - k - 2);
			else
				sh_run_stdin(P, x, LANG_SHELL);
		} else if (k + 1 < n && s[k] == 's') {
			char d = s[k + 1], *rep;
			size_t f = k + 2, parts = 0, rs = 0, o = 0;
			for (; f < n && parts < 2; f++) {
				if (s[f] == '\\') {
					f++;
				} else if (s[f] == d) {
					parts++;
					if (parts == 1)
						rs = f + 1;
				}
			}
			size_t fe = f;
			while (fe < n && strchr("gpiImMe0123456789w", s[fe]) && s[fe] != 'w')
				fe++;
			if (parts == 2 && memchr(s + f, 'e', fe - f) &&
			    (rep = sh_alloc(P, f - rs))) {
				for (size_t q = rs; q + 1 < f; q++) {
					if (s[q] == '\\' && q + 2 < f)
						q++;
					rep[o++] = s[q];
				}
				code(P, x, rep, o);
			}
			e = fe > e ? fe : e;
			while (e < n && s[e] != '\n' && s[e] != ';')
				e++;
		}
		i = e + 1;
	}
}

/* Keys typed into a terminal: words joined, Enter and C-m a new line, \n and ^M in
 * screen's stuff too. */
static void d_keys(struct sh_an *P, struct nc *x, struct sh_word **v, size_t n)
{
	static const char enter[] = "Enter\0C-m\0C-j\0KPEnter\0^M\0";
	size_t total = 0, o = 0;
	char *s;

	for (size_t i = 0; i < n; i++)
		total += v[i]->len + 1;
	s = sh_alloc(P, total + 1);
	if (!s)
		return;
	for (size_t i = 0; i < n; i++) {
		if (sh_word_is(v[i], enter)) {
			s[o++] = '\n';
			continue;
		}
		for (size_t k = 0; k < v[i]->len; k++) {
			if (v[i]->s[k] == '\\' && k + 1 < v[i]->len && v[i]->s[k + 1] == 'n') {
				s[o++] = '\n';
				k++;
			} else if (v[i]->s[k] == '^' && k + 1 < v[i]->len &&
				   v[i]->s[k + 1] == 'M') {
				s[o++] = '\n';
				k++;
			} else {
				s[o++] = v[i]->s[k];
			}
		}
		if (i + 1 < n && !sh_word_is(v[i + 1], enter))
			s[o++] = ' ';
	}
	code(P, x, s, o);
}

static void in_dialect(struct sh_an *P, struct nc *x, int d, const struct sh_word *w)
{
	const char *s = w->s;
	size_t n = w->len;

	if (w->nhome && !(w->flags & W_UNRESOLVED)) {
		struct sh_word *wp = (struct sh_word *)w;
		const char *e = sh_join_expanded(P, &wp, 1, &n);
		if (e)
			s = e;
	}
	switch (d) {
	case D_SH:
		if (n > 5 && !memcmp(s, "exec=", 5)) { /* tar --checkpoint-action=exec=CMD */
			s += 5;
			n -= 5;
		}
		code(P, x, s, n);
		break;
	case D_REMOTE:
		sh_analyze_string(P, s, n, x->depth + 1, x->line, 1);
		break;
	case D_EX:
		d_ex(P, x, s, n);
		break;
	case D_LISP:
		d_lisp(P, x, s, n);
		break;
	case D_MAKE:
		d_make(P, x, s, n);
		break;
	case D_TCL:
		d_tcl(P, x, s, n);
		break;
	case D_CALLS:
		d_calls(P, x, s, n);
		break;
	case D_SED:
		d_sed(P, x, s, n);
		break;
	default:
		break;
	}
}

/* stdin in a dialect: a heredoc, a here-string, literal text piped in. */
static void stdin_dialect(struct sh_an *P, struct nc *x, int d)
{
	struct sh_cmd *c = x->c;
	struct sh_word t;

	if (d == D_SH) {
		sh_run_stdin(P, x, LANG_SHELL);
		return;
	}
	memset(&t, 0, sizeof(t));
	for (size_t i = 0; c && i < c->nr; i++) {
		if (c->r[i].kind == R_HEREDOC && c->r[i].hd)
			t.s = (char *)sh_heredoc_text(P, c->r[i].hd, &t.len);
		else if (c->r[i].kind == R_HERESTR)
			t = c->r[i].target;
		else
			continue;
		if (t.s)
			in_dialect(P, x, d, &t);
	}
	if (c && c->pipe_prev && c->pipe_prev->feed) {
		t.s = (char *)c->pipe_prev->feed;
		t.len = c->pipe_prev->feed_len;
		t.nhome = 0;
		t.flags = 0;
		in_dialect(P, x, d, &t);
	}
}

/* The file an option names, when this line wrote it: its text in the dialect. */
static void file_dialect(struct sh_an *P, struct nc *x, int d, const struct sh_word *w)
{
	const char *body;
	size_t len;
	struct sh_word t;

	if (!(body = sh_file_text(P, w, &len)))
		return;
	memset(&t, 0, sizeof(t));
	t.s = (char *)body;
	t.len = len;
	in_dialect(P, x, d, &t);
}

/* Does the option at v[i] carry code for row r? The code's word (or the file's,
 * *file set), or NULL; *skip: the words the option takes. */
static const struct sh_word *opt_code(const struct sh_runspec *r, struct sh_word **v, size_t n,
				      size_t i, size_t *skip, struct sh_word *tmp, int *file)
{
	const struct sh_word *w = v[i];
	const char *eq = memchr(w->s, '=', w->len);

	*skip = 1;
	for (int f = 0; f < 2; f++)
		for (const char *o = f ? r->fopts : r->opts; *o; o += strlen(o) + 1) {
			size_t ol = strlen(o);
			*file = f;
			if (w->len == ol && !memcmp(w->s, o, ol)) {
				*skip = 2;
				return i + 1 < n ? v[i + 1] : NULL;
			}
			if (eq && (size_t)(eq - w->s) == ol && !memcmp(w->s, o, ol)) {
				sh_sub_word(w, ol + 1, tmp);
				return tmp;
			}
		}
	*file = 0;
	if (w->len >= 2 && w->s[0] == '-' && w->s[1] != '-')
		for (size_t k = 1; k < w->len; k++) {
			if (r->letters[0] && strchr(r->letters, w->s[k])) {
				if (k + 1 < w->len) {
					sh_sub_word(w, k + 1, tmp);
					return tmp;
				}
				*skip = 2;
				return i + 1 < n ? v[i + 1] : NULL;
			}
			if (r->vals[0] && strchr(r->vals, w->s[k])) {
				*skip = k + 1 < w->len ? 1 : 2;
				return NULL;
			}
		}
	return NULL;
}

static void run_row(struct sh_an *P, struct nc *x, const struct sh_runspec *r, size_t from);

/* Is the git configuration key k (kl bytes) one whose value git runs as a command?
 * Sections and names are caseless, subsections (the middle part) are not. */
static int git_key_runs(const char *k, size_t kl)
{
	/* section.name, and section.*.name for any subsection */
	static const char keys[] = "core.pager\0core.editor\0core.sshcommand\0core.fsmonitor\0"
				   "core.askpass\0core.gitproxy\0diff.external\0diff.*.textconv\0"
				   "diff.*.command\0merge.*.driver\0filter.*.clean\0"
				   "filter.*.smudge\0filter.*.process\0credential.helper\0"
				   "credential.*.helper\0sequence.editor\0gpg.program\0"
				   "gpg.*.program\0pager.*\0uploadpack.packobjectshook\0"
				   "sendemail.sendmailcmd\0sendemail.tocmd\0sendemail.cccmd\0"
				   "browser.*.cmd\0man.*.cmd\0difftool.*.cmd\0mergetool.*.cmd\0"
				   "remote.*.uploadpack\0remote.*.receivepack\0alias.*\0"
				   "url.*.insteadof\0";
	const char *dot1 = memchr(k, '.', kl), *dot2 = NULL;
	char low[128];

	if (!dot1 || kl >= sizeof(low))
		return 0;
	for (size_t i = kl; i > 0 && !dot2; i--)
		if (k[i - 1] == '.')
			dot2 = k + i - 1;
	for (size_t i = 0; i < kl; i++) /* the middle part keeps its case */
		low[i] = (k + i <= dot1 || k + i >= dot2) && k[i] >= 'A' && k[i] <= 'Z'
			     ? (char)(k[i] + 32)
			     : k[i];
	low[kl] = '\0';
	for (const char *p = keys; *p; p += strlen(p) + 1) {
		const char *star = strchr(p, '*');
		size_t pl = strlen(p);
		if (!star && pl == kl && !memcmp(p, low, kl))
			return 1;
		if (star && star[1] == '\0' && !strncmp(low, p, pl - 1)) /* alias.*, pager.* */
			return 1;
		if (star && dot2 != dot1 && !strncmp(low, p, (size_t)(star - p)) &&
		    !strcmp(low + (dot2 - k), star + 1))
			return 1;
	}
	return 0;
}

/* ext::CMD ARGS: git runs CMD with ARGS, split at the spaces; "% " is a space inside
 * an argument, "%%" a percent. Each argument goes to the analysis single-quoted. */
static void git_ext(struct sh_an *P, struct nc *x, const struct sh_word *w)
{
	char *cmd;
	size_t o = 0;

	if (w->len < 6 || memcmp(w->s, "ext::", 5) || !(cmd = sh_alloc(P, w->len * 5 + 2)))
		return;
	cmd[o++] = '\'';
	for (size_t i = 5; i < w->len; i++) {
		char c = w->s[i];
		if (c == '%' && i + 1 < w->len && (w->s[i + 1] == ' ' || w->s[i + 1] == '%')) {
			c = w->s[++i];
		} else if (c == ' ') {
			memcpy(cmd + o, "' '", 3);
			o += 3;
			continue;
		}
		if (c == '\'') {
			memcpy(cmd + o, "'\\''", 4);
			o += 4;
			continue;
		}
		cmd[o++] = c;
	}
	cmd[o++] = '\'';
	code(P, x, cmd, o);
}

/* git -c alias.NAME=VALUE ... NAME ARGS: git VALUE ARGS is analysed. */
static void git_alias(struct sh_an *P, struct nc *x, const struct sh_word *kv,
		      const struct sh_word *val)
{
	size_t nl = (size_t)((const char *)memchr(kv->s, '=', kv->len) - kv->s) - 6, i = 1, rl = 0;
	char *rest, *cmd;

	while (i < x->n && x->v[i]->s[0] == '-') /* the global options */
		i += (weq(x->v[i], "-c") || weq(x->v[i], "-C")) ? 2 : 1;
	if (i >= x->n || x->v[i]->len != nl || memcmp(x->v[i]->s, kv->s + 6, nl))
		return;
	rest = i + 1 < x->n ? sh_join_expanded(P, x->v + i + 1, x->n - i - 1, &rl) : NULL;
	cmd = sh_alloc(P, 4 + val->len + 1 + rl + 1);
	if (!cmd)
		return;
	memcpy(cmd, "git ", 4);
	memcpy(cmd + 4, val->s, val->len);
	cmd[4 + val->len] = ' ';
	if (rest)
		memcpy(cmd + 5 + val->len, rest, rl);
	code(P, x, cmd, 5 + val->len + rl);
}

/* git: -c KEY=VALUE (before the subcommand) of a key that runs a program, ext::
 * remotes, and the options of subcommands that run a command. */
static void git_runs(struct sh_an *P, struct nc *x)
{
	/* subcommand, then its options whose value is a command: "sub\0opt\0opt\0\0" */
	static const char subs[] = "rebase\0-x\0--exec\0\0"
				   "clone\0-u\0--upload-pack\0\0"
				   "fetch\0--upload-pack\0\0"
				   "pull\0--upload-pack\0\0"
				   "ls-remote\0--upload-pack\0\0"
				   "push\0--receive-pack\0--exec\0\0"
				   "archive\0--exec\0\0"
				   "difftool\0-x\0--extcmd\0\0"
				   "filter-branch\0--tree-filter\0--index-filter\0--msg-filter\0"
				   "--env-filter\0--commit-filter\0--parent-filter\0"
				   "--tag-name-filter\0\0";
	size_t i = 1;
	struct sh_word tmp;

	for (; i < x->n && x->v[i]->s[0] == '-'; i++) {
		const struct sh_word *w = x->v[i];
		if ((weq(w, "-c") || weq(w, "--config-env") || weq(w, "-C") ||
		     weq(w, "--git-dir") || weq(w, "--work-tree") || weq(w, "--namespace") ||
		     weq(w, "--exec-path")) &&
		    i + 1 < x->n) {
			const struct sh_word *kv = x->v[++i];
			const char *eq = memchr(kv->s, '=', kv->len);
			if (!weq(w, "-c") || !eq || !git_key_runs(kv->s, (size_t)(eq - kv->s)))
				continue;
			sh_sub_word(kv, (size_t)(eq - kv->s) + 1, &tmp);
			if (kv->len > 6 && !strncasecmp(kv->s, "alias.", 6) && tmp.len &&
			    tmp.s[0] != '!') { /* alias.x='reset --hard': git x runs git reset */
				git_alias(P, x, kv, &tmp);
				continue;
			}
			while (tmp.len &&
			       tmp.s[0] == '!') /* alias.x=!cmd, credential.helper=!cmd */
				tmp.s++, tmp.len--;
			if (tmp.len > 5 && !memcmp(tmp.s, "ext::", 5))
				git_ext(P, x, &tmp);
			else
				in_dialect(P, x, D_SH, &tmp);
		}
	}
	if (i >= x->n)
		return;
	for (size_t k = i + 1; k < x->n; k++)
		git_ext(P, x, x->v[k]);
	if (weq(x->v[i], "bisect") && i + 2 < x->n && weq(x->v[i + 1], "run")) {
		size_t len;
		char *t = sh_join_expanded(P, x->v + i + 2, x->n - i - 2, &len);
		if (t)
			code(P, x, t, len);
		return;
	}
	if (weq(x->v[i], "submodule") && i + 2 < x->n && weq(x->v[i + 1], "foreach")) {
		size_t k = i + 2, len;
		char *t;
		while (k < x->n && x->v[k]->s[0] == '-')
			k++;
		if (k < x->n && (t = sh_join_expanded(P, x->v + k, x->n - k, &len)))
			code(P, x, t, len);
		return;
	}
	for (const char *sub = subs; *sub;) {
		const char *opts = sub + strlen(sub) + 1, *e = opts;
		struct sh_runspec r;
		while (*e)
			e += strlen(e) + 1; /* the empty word ending the options */
		if (weq(x->v[i], sub) && (size_t)(e - opts) + 1 < sizeof(r.opts)) {
			memset(&r, 0, sizeof(r));
			r.how = RUN_OPT;
			memcpy(r.opts, opts, (size_t)(e - opts));
			run_row(P, x, &r, i + 1);
		}
		sub = e + 1;
	}
}

/* One row of sh_runs against x's words from v[from]. */
static void run_row(struct sh_an *P, struct nc *x, const struct sh_runspec *r, size_t from)
{
	size_t ops[64], nop = 0, skip;
	int opts = 1, stdin_code = !!(r->how & RUN_STDIN), file, had = 0;
	struct sh_word tmp;

	for (size_t i = from; i < x->n; i += skip) {
		const struct sh_word *w = x->v[i], *c;
		skip = 1;
		if (opts && weq(w, "--")) {
			opts = 0;
			continue;
		}
		if (opts && w->len > 1 && w->s[0] == '+' && (r->how & RUN_PLUS)) {
			sh_sub_word(w, 1, &tmp);
			in_dialect(P, x, r->dialect, &tmp);
			continue;
		}
		if (!opts || w->len < 2 || w->s[0] != '-') {
			if (nop < 64)
				ops[nop++] = i;
			if (r->how & (RUN_GLOBAL | RUN_OPERANDS)) /* the rest is the command's */
				opts = 0;
			continue;
		}
		if ((r->how & RUN_STDIN_OPT) && r->stdin_opt[0] && w->s[1] != '-' &&
		    strpbrk(w->s + 1, r->stdin_opt))
			stdin_code = 1;
		c = opt_code(r, x->v, x->n, i, &skip, &tmp, &file);
		if (!c || !(r->how & RUN_OPT))
			continue;
		had = 1;
		if (!file)
			in_dialect(P, x, r->dialect, c);
		else if (weq(c, "-") || weq(c, "/dev/stdin"))
			stdin_code = 1;
		else
			file_dialect(P, x, r->dialect, c);
	}
	if (stdin_code)
		stdin_dialect(P, x, r->dialect);
	if ((r->how & RUN_FIRST) && nop && nop >= r->nmin && !weq(x->v[ops[0]], "-"))
		in_dialect(P, x, r->dialect, x->v[ops[0]]);
	if ((r->how & RUN_SCRIPT) && nop && !had)
		in_dialect(P, x, r->dialect, x->v[ops[0]]);
	if ((r->how & RUN_EACH))
		for (size_t k = 0; k < nop; k++)
			in_dialect(P, x, r->dialect, x->v[ops[k]]);
	if ((r->how & RUN_OPERANDS) && nop) {
		struct sh_word **ov = sh_alloc(P, nop * sizeof(*ov));
		size_t len;
		char *t;
		if (!ov)
			return;
		for (size_t k = 0; k < nop; k++)
			ov[k] = x->v[ops[k]];
		if (r->dialect == D_KEYS)
			d_keys(P, x, ov, nop);
		else if ((t = sh_join_expanded(P, ov, nop, &len)))
			code(P, x, t, len);
	}
}

/* The index of the subcommand of row r in x (after the options before it), or 0 when
 * x's is not one of r's. */
static size_t sub_index(const struct nc *x, const struct sh_runspec *r)
{
	size_t i = 1;

	while (i < x->n && x->v[i]->len > 1 && x->v[i]->s[0] == '-') {
		const struct sh_word *w = x->v[i];
		i += (w->s[1] != '-' && r->gvals[0] && strchr(r->gvals, w->s[w->len - 1])) ? 2 : 1;
	}
	return i < x->n && sh_word_is(x->v[i], r->sub) ? i : 0;
}

void sh_runner(struct sh_an *P, struct nc *x)
{
	/* a few dozen rows, read only for a command whose sh_cmds row is F_RUNS */
	for (size_t i = 0; i < sh_nruns; i++) {
		const struct sh_runspec *r = &sh_runs[i];
		size_t from = 1;
		if (!sh_name_is(x->name, x->nlen, r->name))
			continue;
		if (r->dialect == D_GIT) {
			git_runs(P, x);
			continue;
		}
		if (r->sub[0] && !(from = sub_index(x, r)))
			continue;
		run_row(P, x, r, r->sub[0] ? from + 1 : 1);
	}
}

int sh_runner_wrap_opt(struct sh_an *P, const char *nm, size_t nl, struct sh_word **v, size_t n,
		       size_t i, unsigned depth, unsigned line, int remote)
{
	struct nc x;
	struct sh_word tmp;
	size_t skip;
	int file;

	memset(&x, 0, sizeof(x));
	x.depth = depth;
	x.line = line;
	x.remote = remote;
	for (size_t k = 0; k < sh_nruns; k++) {
		const struct sh_word *c;
		if (!sh_name_is(nm, nl, sh_runs[k].name) || !(sh_runs[k].how & RUN_OPT))
			continue;
		c = opt_code(&sh_runs[k], v, n, i, &skip, &tmp, &file);
		if (c && !file) {
			in_dialect(P, &x, sh_runs[k].dialect, c);
			return 1;
		}
	}
	return 0;
}

/* A word set fits its array: empty, or its last word followed by the empty word. */
static int set_fits(const char *f, size_t size)
{
	return !f[0] || memmem(f, size, "\0\0", 2) != NULL;
}

int sh_run_table_sorted(void)
{
	for (size_t i = 0; i < sh_nruns; i++) {
		const struct sh_runspec *r = &sh_runs[i];
		if (i && strcmp(sh_runs[i - 1].name, r->name) > 0)
			return 0;
		if (!memchr(r->name, 0, sizeof(r->name)) || !set_fits(r->sub, sizeof(r->sub)) ||
		    !set_fits(r->opts, sizeof(r->opts)) || !set_fits(r->fopts, sizeof(r->fopts)) ||
		    !memchr(r->gvals, 0, sizeof(r->gvals)) ||
		    !memchr(r->letters, 0, sizeof(r->letters)) ||
		    !memchr(r->vals, 0, sizeof(r->vals)) ||
		    !memchr(r->stdin_opt, 0, sizeof(r->stdin_opt)))
			return 0;
	}
	return 1;
}
