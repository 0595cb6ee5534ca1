/* shell_cmds.c - the commands the walk knows: one table (name, kind, flags, options,
 * which operands are paths and what is done to them), and handlers for the commands
 * that need code. */
#include "shell_int.h"

#include <errno.h>
#include <string.h>

static void scan_opts(struct sh_word **v, size_t n, size_t from, const char *sarg, const char *larg,
		      struct opscan *o)
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
				if (o->narg < 32 && (eq || sh_long_takes_arg(larg, w))) {
					o->arg[o->narg].c = 0;
					o->arg[o->narg].lw = w;
					if (eq)
						sh_sub_word(w, (size_t)(eq - w->s) + 1,
							    &o->arg[o->narg].val);
					else if (i + 1 < n)
						o->arg[o->narg].val = *v[i + 1];
					else
						o->arg[o->narg].val.s = NULL;
					if (o->arg[o->narg].val.s)
						o->narg++;
				}
				if (!eq && sh_long_takes_arg(larg, w))
					i++;
				continue;
			}
			for (size_t j = 1; j < w->len; j++) {
				unsigned char ch = (unsigned char)w->s[j];
				if (ch < 128)
					o->seen[ch] = 1;
				if (sh_opt_takes_arg(sarg, ch)) {
					if (o->narg < 32) {
						o->arg[o->narg].c = (char)ch;
						o->arg[o->narg].lw = NULL;
						if (j + 1 < w->len)
							sh_sub_word(w, j + 1, &o->arg[o->narg].val);
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

static const char sudo_long[] = "--user\0"
				"--group\0"
				"--host\0"
				"--prompt\0"
				"--chdir\0"
				"--role\0"
				"--type\0"
				"--close-from\0"
				"--other-user\0"
				"--command-timeout\0";
static const char env_long[] = "--unset\0"
			       "--chdir\0";
static const char time_long[] = "--format\0"
				"--output\0";
static const char timeout_long[] = "--signal\0"
				   "--kill-after\0";
static const char nice_long[] = "--adjustment\0";
static const char ionice_long[] = "--class\0"
				  "--classdata\0"
				  "--pid\0"
				  "--pgid\0"
				  "--uid\0";
static const char xargs_long[] = "--arg-file\0"
				 "--delimiter\0"
				 "--max-lines\0"
				 "--max-args\0"
				 "--max-procs\0"
				 "--max-chars\0"
				 "--process-slot-var\0";
static const char stdbuf_long[] = "--input\0"
				  "--output\0"
				  "--error\0";

static const char npx_long[] = "--package\0"
			       "--call\0";
static const char parallel_long[] = "--jobs\0"
				    "--sshlogin\0"
				    "--arg-file\0"
				    "--delimiter\0"
				    "--joblog\0"
				    "--results\0"
				    "--tmpdir\0";
static const char touch_long[] = "--date\0"
				 "--reference\0";
static const char mkdir_long[] = "--mode\0";
static const char headtail_long[] = "--lines\0"
				    "--bytes\0"
				    "--sleep-interval\0"
				    "--pid\0"
				    "--max-unchanged-stats\0";
static const char jq_long[] = "--arg\0"
			      "--argjson\0"
			      "--slurpfile\0"
			      "--rawfile\0"
			      "--indent\0";

/* The long-option lists above, by index: a row names one without a pointer, so that
 * the table needs no relocation and stays in read-only memory. */
enum {
	L_NONE,
	L_ENV_LONG,
	L_HEADTAIL_LONG,
	L_IONICE_LONG,
	L_JQ_LONG,
	L_MKDIR_LONG,
	L_NICE_LONG,
	L_NPX_LONG,
	L_PARALLEL_LONG,
	L_STDBUF_LONG,
	L_SUDO_LONG,
	L_TIME_LONG,
	L_TIMEOUT_LONG,
	L_TOUCH_LONG,
	L_XARGS_LONG,
};
const char *const sh_largs[] = {
    NULL,	env_long,  headtail_long, ionice_long,	 jq_long,
    mkdir_long, nice_long, npx_long,	  parallel_long, stdbuf_long,
    sudo_long,	time_long, timeout_long,  touch_long,	 xargs_long,
};
const size_t sh_nlargs = sizeof(sh_largs) / sizeof(sh_largs[0]);

/* Every command the walk knows, sorted by bytes (binary search; test_shell checks the
 * order and that every row is complete). Columns: name, kind (its handler), flags,
 * then for K_OPERANDS what is done to every operand and how, the short and long
 * options that take a value, the options that make the operation tree-wide, and the
 * options that force it. */
const struct sh_cmdspec sh_cmds[] = {
    {".", K_READER, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {":", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"R", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"Rscript", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"[", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"[[", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"ack", K_GREP, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"ack-grep", K_GREP, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"ag", K_GREP, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"alias", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"apropos", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"aria2c", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"ash", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"at", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"awk", K_AWK, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"b2sum", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"banner", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"base32", K_OPERANDS, F_DEC | F_DECODE, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"base64", K_OPERANDS, F_DEC, POL_OP_READ, 0, L_NONE, 0, 1, "w", "", "", ""},
    {"basenc", K_NONE, F_DEC | F_DECODE, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"bash", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"bat", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"batcat", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"batch", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"bsdtar", K_TAR, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"builtin", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"bun", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"bundle", K_NONE, F_WRAP, 0, O_SUBCMD, L_NONE, 0, 1, "", "", "", ""},
    {"bunx", K_NONE, F_WRAP, 0, 0, L_NPX_LONG, 0, 1, "p", "", "", ""},
    {"bunzip2", K_NONE, F_DEC | F_DECODE, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"busybox", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"busybox-sh", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"bzcat", K_OPERANDS, F_DEC | F_DECODE, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"bzip2", K_NONE, F_DEC, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"caffeinate", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "tw", "", "", ""},
    {"cat", K_OPERANDS, F_FEED, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"catchsegv", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"cd", K_CD, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"chattr", K_CHMOD, 0, 0, 0, L_NONE, 0, 0, "", "R", "--recursive", ""},
    {"chgrp", K_CHMOD, 0, 0, 0, L_NONE, 0, 0, "", "R", "--recursive", ""},
    {"chmod", K_CHMOD, 0, 0, 0, L_NONE, 0, 0, "", "R", "--recursive", ""},
    {"chown", K_CHMOD, 0, 0, 0, L_NONE, 0, 0, "", "R", "--recursive", ""},
    {"chroot", K_NONE, F_WRAP, 0, 0, L_NONE, 1, 1, "", "", "", ""},
    {"chrt", K_NONE, F_WRAP, 0, 0, L_NONE, 1, 1, "", "", "", ""},
    {"cksum", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"clickhouse-client", K_NONE, F_DB, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"cmp", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"cockroach", K_NONE, F_DB, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"code", K_OPERANDS, 0, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"colordiff", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"column", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"comm", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"command", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"cowsay", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"cp", K_MVCP, 0, 0, 0, L_NONE, 0, 0, "", "rRa", "--recursive", "f"},
    {"cqlsh", K_NONE, F_DB, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"curl", K_CURL, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"cut", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "bcdf", "", "", ""},
    {"dash", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"dbus-run-session", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"dd", K_DD, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"declare", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"del-cli", K_OPERANDS, 0, POL_OP_DELETE, O_DIR, L_NONE, 0, 1, "", "", "", ""},
    {"deno", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"diff", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"dir", K_OPERANDS, 0, POL_OP_LIST, 0, L_NONE, 0, 1, "", "", "", ""},
    {"doas", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "uC", "", "", ""},
    {"docker", K_CONTAINER, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"dos2unix", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"dotenv", K_NONE, F_WRAP, 0, O_SUBCMD, L_NONE, 0, 1, "", "", "", ""},
    {"du", K_OPERANDS, 0, POL_OP_LIST, 0, L_NONE, 0, 1, "", "", "", ""},
    {"duckdb", K_NONE, F_DB, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"eatmydata", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"echo", K_ECHO, F_FEED, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"ed", K_OPERANDS, 0, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"egrep", K_GREP, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"emacs", K_OPERANDS, F_RUNS, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"emacsclient", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"enable", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"env", K_NONE, F_WRAP, 0, O_ASSIGNS, L_ENV_LONG, 0, 1, "uC", "", "", ""},
    {"eval", K_EVAL, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"ex", K_OPERANDS, F_RUNS, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"exa", K_OPERANDS, 0, POL_OP_LIST, 0, L_NONE, 0, 1, "", "", "", ""},
    {"exec", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "a", "", "", ""},
    {"expand", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"expect", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"export", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"eza", K_OPERANDS, 0, POL_OP_LIST, 0, L_NONE, 0, 1, "", "", "", ""},
    {"fakeroot", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"false", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"fetch", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"fgrep", K_GREP, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"figlet", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"file", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"find", K_FIND, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"firejail", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"fish", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"flock", K_NONE, F_WRAP | F_RUNS, 0, 0, L_NONE, 1, 1, "wEc", "", "", ""},
    {"fmt", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"fold", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "w", "", "", ""},
    {"ftp", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"gawk", K_AWK, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"gdb", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"gedit", K_OPERANDS, 0, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"gh", K_GH, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"gio", K_TRASH, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"git", K_GIT, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"glab", K_GH, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"gmake", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"gojq", K_OPERANDS, 0, POL_OP_READ, O_DATA1, L_JQ_LONG, 0, 1, "f", "", "", ""},
    {"gpg", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"grep", K_GREP, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"gunzip", K_OPERANDS, F_DEC | F_DECODE, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"gvim", K_OPERANDS, F_RUNS, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"gzip", K_NONE, F_DEC, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"hash", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"hatch", K_NONE, F_WRAP, 0, O_SUBCMD, L_NONE, 0, 1, "", "", "", ""},
    {"head", K_OPERANDS, 0, POL_OP_READ, 0, L_HEADTAIL_LONG, 0, 1, "ncs", "", "", ""},
    {"help", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"hexdump", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"http", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"https", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"iconv", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"info", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"install", K_MVCP, 0, 0, 0, L_NONE, 0, 0, "", "rRa", "--recursive", "f"},
    {"ionice", K_NONE, F_WRAP, 0, 0, L_IONICE_LONG, 0, 1, "cnpPu", "", "", ""},
    {"join", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"jq", K_OPERANDS, 0, POL_OP_READ, O_DATA1, L_JQ_LONG, 0, 1, "f", "", "", ""},
    {"julia", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"kate", K_OPERANDS, 0, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"ksh", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"kubectl", K_CONTAINER, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"less", K_OPERANDS, F_RUNS, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"links", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"ln", K_MVCP, 0, 0, 0, L_NONE, 0, 0, "", "rRa", "--recursive", "f"},
    {"local", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"logger", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"look", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"ls", K_OPERANDS, 0, POL_OP_LIST, 0, L_NONE, 0, 1, "", "", "", ""},
    {"lsd", K_OPERANDS, 0, POL_OP_LIST, 0, L_NONE, 0, 1, "", "", "", ""},
    {"ltrace", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "oepsaAnu", "", "", ""},
    {"lua", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"lua5.1", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"lua5.2", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"lua5.3", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"lua5.4", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"luajit", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"lynx", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"make", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"man", K_ECHO, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"mapfile", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"mariadb", K_NONE, F_DB, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"mawk", K_AWK, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"md5sum", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"micro", K_OPERANDS, 0, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"mkdir", K_OPERANDS, 0, POL_OP_CREATE, 0, L_MKDIR_LONG, 0, 1, "m", "", "", ""},
    {"mke2fs", K_OPERANDS, 0, POL_OP_WRITE, O_ONE, L_NONE, 0, 1, "bCdEgGiIJlLmMNoOrtTUez", "", "",
     "F"},
    {"mkfifo", K_OPERANDS, 0, POL_OP_CREATE, 0, L_MKDIR_LONG, 0, 1, "m", "", "", ""},
    {"mkfs", K_OPERANDS, 0, POL_OP_WRITE, O_ONE, L_NONE, 0, 1, "bCdEgGiIJlLmMNoOrtTUez", "", "",
     "F"},
    {"mkfs.btrfs", K_OPERANDS, 0, POL_OP_WRITE, O_ONE, L_NONE, 0, 1, "dLmnOrU", "", "", "f"},
    {"mkfs.ext2", K_OPERANDS, 0, POL_OP_WRITE, O_ONE, L_NONE, 0, 1, "bCdEgGiIJlLmMNoOrtTUez", "",
     "", "F"},
    {"mkfs.ext3", K_OPERANDS, 0, POL_OP_WRITE, O_ONE, L_NONE, 0, 1, "bCdEgGiIJlLmMNoOrtTUez", "",
     "", "F"},
    {"mkfs.ext4", K_OPERANDS, 0, POL_OP_WRITE, O_ONE, L_NONE, 0, 1, "bCdEgGiIJlLmMNoOrtTUez", "",
     "", "F"},
    {"mkfs.fat", K_OPERANDS, 0, POL_OP_WRITE, O_ONE, L_NONE, 0, 1, "abCDfFghiIlmMnrRsS", "", "",
     ""},
    {"mkfs.vfat", K_OPERANDS, 0, POL_OP_WRITE, O_ONE, L_NONE, 0, 1, "abCDfFghiIlmMnrRsS", "", "",
     ""},
    {"mkfs.xfs", K_OPERANDS, 0, POL_OP_WRITE, O_ONE, L_NONE, 0, 1, "bdilLmnprs", "", "", "f"},
    {"mknod", K_OPERANDS, 0, POL_OP_CREATE, O_ONE, L_MKDIR_LONG, 0, 1, "m", "", "", ""},
    {"mksh", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"mkswap", K_OPERANDS, 0, POL_OP_WRITE, O_ONE, L_NONE, 0, 1, "LUpe", "", "", "f"},
    {"mongo", K_NONE, F_DB, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"mongosh", K_NONE, F_DB, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"more", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"mv", K_MVCP, 0, 0, 0, L_NONE, 0, 0, "", "", "", "f"},
    {"mysql", K_NONE, F_DB, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"nano", K_OPERANDS, 0, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"nawk", K_AWK, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"nc", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"ncat", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"netcat", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"nice", K_NONE, F_WRAP, 0, 0, L_NICE_LONG, 0, 1, "n", "", "", ""},
    {"nl", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"nocache", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"nodejs", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"nohup", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"notify-send", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"npm", K_NONE, F_WRAP, 0, O_SUBCMD, L_NONE, 0, 1, "", "", "", ""},
    {"npx", K_NONE, F_WRAP, 0, 0, L_NPX_LONG, 0, 1, "pc", "", "", ""},
    {"nsenter", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "tSGwr", "", "", ""},
    {"nvim", K_OPERANDS, F_RUNS, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"oc", K_CONTAINER, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"od", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"openssl", K_OPENSSL, F_DEC | F_DECODE, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"parallel", K_NONE, F_WRAP, 0, 0, L_PARALLEL_LONG, 0, 1, "jSaIdEPnNsl", "", "", ""},
    {"paste", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"pcregrep", K_GREP, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"pdm", K_NONE, F_WRAP, 0, O_SUBCMD, L_NONE, 0, 1, "", "", "", ""},
    {"pico", K_OPERANDS, 0, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"pipenv", K_NONE, F_WRAP, 0, O_SUBCMD, L_NONE, 0, 1, "", "", "", ""},
    {"pkexec", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"pnpm", K_NONE, F_WRAP, 0, O_SUBCMD, L_NONE, 0, 1, "", "", "", ""},
    {"pnpx", K_NONE, F_WRAP, 0, 0, L_NPX_LONG, 0, 1, "p", "", "", ""},
    {"podman", K_CONTAINER, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"poetry", K_NONE, F_WRAP, 0, O_SUBCMD, L_NONE, 0, 1, "", "", "", ""},
    {"pr", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"printf", K_ECHO, F_FEED, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"prlimit", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "p", "", "", ""},
    {"proxychains", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "f", "", "", ""},
    {"proxychains4", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "f", "", "", ""},
    {"psql", K_NONE, F_DB, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"pushd", K_CD, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"rbash", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"read", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"readarray", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"readonly", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"redis-cli", K_NONE, F_DB, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"rev", K_NONE, F_DEC | F_DECODE, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"rg", K_GREP, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"rimraf", K_OPERANDS, 0, POL_OP_DELETE, O_DIR, L_NONE, 0, 1, "", "", "", ""},
    {"rm", K_OPERANDS, 0, POL_OP_DELETE, 0, L_NONE, 0, 1, "", "rRd", "--recursive|--dir", "fi"},
    {"rmdir", K_OPERANDS, 0, POL_OP_DELETE, O_DIR, L_NONE, 0, 1, "", "", "", ""},
    {"rsync", K_RSYNC, F_RUNS, 0, 0, L_NONE, 0, 0, "", "ra", "--recursive|--delete", ""},
    {"runuser", K_SU, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"rye", K_NONE, F_WRAP, 0, O_SUBCMD, L_NONE, 0, 1, "", "", "", ""},
    {"say", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"scp", K_RSYNC, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"screen", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"script", K_NONE, F_WRAP | F_RUNS, 0, 0, L_NONE, 0, 1, "EOIT", "", "", ""},
    {"sdiff", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"sed", K_SED, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"set", K_SET, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"setfacl", K_CHMOD, 0, 0, 0, L_NONE, 0, 0, "", "R", "--recursive", ""},
    {"setpriv", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"setsid", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"sg", K_NONE, F_WRAP | F_RUNS, 0, 0, L_NONE, 1, 1, "", "", "", ""},
    {"sh", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"sha1sum", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"sha224sum", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"sha256sum", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"sha384sum", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"sha512sum", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"shasum", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"shift", K_SHIFT, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"shred", K_OPERANDS, 0, POL_OP_DELETE, 0, L_NONE, 0, 1, "ns", "", "", "f"},
    {"slogin", K_SSH, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"socat", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"sort", K_SORT, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"source", K_READER, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"sqlcmd", K_NONE, F_DB, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"sqlite3", K_NONE, F_DB, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"srm", K_OPERANDS, 0, POL_OP_DELETE, 0, L_NONE, 0, 1, "ns", "", "", ""},
    {"ssh", K_SSH, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"ssh-add", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"stdbuf", K_NONE, F_WRAP, 0, 0, L_STDBUF_LONG, 0, 1, "ioe", "", "", ""},
    {"strace", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "oepsIEPbaUX", "", "", ""},
    {"strings", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"su", K_SU, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"subl", K_OPERANDS, 0, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"sudo", K_NONE, F_WRAP, 0, 0, L_SUDO_LONG, 0, 1, "ugphCDrtTU", "", "", ""},
    {"systemd-run", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "pEMu", "", "", ""},
    {"tac", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"tail", K_OPERANDS, 0, POL_OP_READ, 0, L_HEADTAIL_LONG, 0, 1, "ncs", "", "", ""},
    {"tar", K_TAR, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"taskset", K_NONE, F_WRAP, 0, 0, L_NONE, 1, 1, "", "", "", ""},
    {"tclsh", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"tee", K_OPERANDS, F_FEED, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"test", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"tftp", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"then", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"time", K_NONE, F_WRAP, 0, 0, L_TIME_LONG, 0, 1, "fo", "", "", ""},
    {"timeout", K_NONE, F_WRAP, 0, 0, L_TIMEOUT_LONG, 1, 1, "sk", "", "", ""},
    {"tldr", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"tmux", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"toilet", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"torsocks", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"touch", K_OPERANDS, 0, POL_OP_CREATE, 0, L_TOUCH_LONG, 0, 1, "dtr", "", "", ""},
    {"tr", K_NONE, F_DEC | F_DECODE, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"trap", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"trash", K_TRASH, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"trash-put", K_TRASH, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"tree", K_OPERANDS, 0, POL_OP_LIST, 0, L_NONE, 0, 1, "", "", "", ""},
    {"true", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"truncate", K_TRUNCATE, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"ts-node", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"tsx", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"type", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"typeset", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"unalias", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"unbuffer", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"unexpand", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"uniq", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"unlink", K_OPERANDS, 0, POL_OP_DELETE, 0, L_NONE, 0, 1, "ns", "", "", ""},
    {"unshare", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"unxz", K_NONE, F_DEC | F_DECODE, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"unzip", K_UNZIP, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"unzstd", K_NONE, F_DEC | F_DECODE, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"uudecode", K_NONE, F_DEC | F_DECODE, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"uv", K_NONE, F_WRAP, 0, O_SUBCMD, L_NONE, 0, 1, "", "", "", ""},
    {"valgrind", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "", "", "", ""},
    {"vi", K_OPERANDS, F_RUNS, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"view", K_OPERANDS, F_RUNS, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"vim", K_OPERANDS, F_RUNS, POL_OP_WRITE, 0, L_NONE, 0, 1, "", "", "", ""},
    {"vimdiff", K_OPERANDS, F_RUNS, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"w3m", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"wall", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"watch", K_WATCH, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"wc", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"wget", K_WGET, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"whatis", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"whereis", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"which", K_ECHO, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"wipefs", K_OPERANDS, 0, POL_OP_WRITE, 0, L_NONE, 0, 1, "ot", "", "", "f"},
    {"wish", K_NONE, F_RUNS, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"xargs", K_NONE, F_WRAP, 0, 0, L_XARGS_LONG, 0, 1, "adEILnPs", "", "", ""},
    {"xh", K_NONE, F_DL, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"xvfb-run", K_NONE, F_WRAP, 0, 0, L_NONE, 0, 1, "nslfe", "", "", ""},
    {"xxd", K_OPERANDS, F_DEC, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"xz", K_NONE, F_DEC, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"xzcat", K_OPERANDS, F_DEC | F_DECODE, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"yarn", K_NONE, F_WRAP, 0, O_SUBCMD, L_NONE, 0, 1, "", "", "", ""},
    {"yash", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"yq", K_OPERANDS, 0, POL_OP_READ, O_DATA1, L_JQ_LONG, 0, 1, "f", "", "", ""},
    {"zcat", K_OPERANDS, F_DEC | F_DECODE, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"zgrep", K_GREP, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"zip", K_ZIP, 0, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"zless", K_OPERANDS, 0, POL_OP_READ, 0, L_NONE, 0, 1, "", "", "", ""},
    {"zsh", K_NONE, F_LANG, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"zstd", K_NONE, F_DEC, 0, 0, L_NONE, 0, 0, "", "", "", ""},
    {"zstdcat", K_NONE, F_DEC | F_DECODE, 0, 0, L_NONE, 0, 0, "", "", "", ""},
};
const size_t sh_ncmds = sizeof(sh_cmds) / sizeof(sh_cmds[0]);

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

const struct sh_cmdspec *sh_cmd_lookup(const char *s, size_t len)
{
	size_t lo = 0, hi = sh_ncmds;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = name_cmp(s, len, sh_cmds[mid].name);
		if (c == 0)
			return &sh_cmds[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* ---- project launchers: LAUNCHER SUBCOMMAND [options] COMMAND ------------------------ */

/* Each launcher's options as its own documentation lists them. An option not listed here
 * stops the strip (its arity is not known, so the command it would leave is not either);
 * so do the options that change what runs: uv run -m MODULE / --script, pnpm exec -c
 * and npm exec -c (a shell string), pdm and rye run --list, dotenv -p / -c. */
int sh_launcher_words(const char *nm, size_t nl, const char **subs, const char **vals,
		      const char **flags)
{
	*subs = *vals = *flags = "";
	if (sh_name_is(nm, nl, "uv")) {
		*subs = "run\0";
		*vals = "--with\0--with-editable\0--with-requirements\0--python\0-p\0--package\0"
			"--extra\0--no-extra\0--group\0--no-group\0--only-group\0--env-file\0"
			"--index\0--default-index\0--index-url\0-i\0--extra-index-url\0"
			"--find-links\0-f\0--index-strategy\0--keyring-provider\0--resolution\0"
			"--prerelease\0--config-setting\0-C\0--exclude-newer\0--link-mode\0"
			"--refresh-package\0--upgrade-package\0-P\0--reinstall-package\0"
			"--no-build-package\0--no-binary-package\0--python-platform\0"
			"--cache-dir\0--color\0--config-file\0--directory\0--project\0"
			"--allow-insecure-host\0";
		*flags = "--all-extras\0--no-dev\0--dev\0--only-dev\0--all-groups\0"
			 "--no-default-groups\0--exact\0--isolated\0--active\0--no-active\0"
			 "--no-sync\0--locked\0--frozen\0--all-packages\0--no-project\0"
			 "--no-editable\0--no-env-file\0--no-config\0--offline\0--no-cache\0-n\0"
			 "--quiet\0-q\0--verbose\0-v\0--native-tls\0--preview\0--no-progress\0"
			 "--refresh\0--upgrade\0-U\0--reinstall\0--compile-bytecode\0"
			 "--no-build-isolation\0--no-build\0--no-binary\0--no-sources\0"
			 "--no-python-downloads\0--managed-python\0--no-managed-python\0";
	} else if (sh_name_is(nm, nl, "poetry")) {
		*subs = "run\0";
		*vals = "--directory\0-C\0--project\0-P\0";
		*flags = "--quiet\0-q\0--verbose\0-v\0-vv\0-vvv\0--no-interaction\0-n\0"
			 "--no-ansi\0--ansi\0--no-plugins\0--no-cache\0";
	} else if (sh_name_is(nm, nl, "pipenv")) {
		*subs = "run\0";
		*vals = "--python\0--pypi-mirror\0";
		*flags = "--clear\0--verbose\0-v\0--quiet\0-q\0";
	} else if (sh_name_is(nm, nl, "pdm")) {
		*subs = "run\0";
		*vals = "--project\0-p\0--venv\0";
		*flags = "--site-packages\0-s\0--recreate\0--global\0-g\0--verbose\0-v\0"
			 "--quiet\0-q\0";
	} else if (sh_name_is(nm, nl, "hatch")) {
		*subs = "run\0";
	} else if (sh_name_is(nm, nl, "rye")) {
		*subs = "run\0";
		*vals = "--pyproject\0";
		*flags = "--verbose\0-v\0--quiet\0-q\0";
	} else if (sh_name_is(nm, nl, "bundle")) {
		*subs = "exec\0";
		*vals = "--gemfile\0";
		*flags = "--keep-file-descriptors\0--no-keep-file-descriptors\0--verbose\0-V\0"
			 "--no-color\0";
	} else if (sh_name_is(nm, nl, "pnpm")) {
		*subs = "exec\0dlx\0";
		*vals = "--filter\0-F\0--filter-prod\0--resume-from\0--dir\0-C\0"
			"--workspace-concurrency\0--reporter\0--package\0--allow-build\0"
			"--loglevel\0";
		*flags = "--recursive\0-r\0--parallel\0--no-bail\0--bail\0--report-summary\0"
			 "--workspace-root\0-w\0--reverse\0--silent\0-s\0--sort\0--no-sort\0";
	} else if (sh_name_is(nm, nl, "yarn")) {
		*subs = "dlx\0";
		*vals = "--package\0-p\0";
		*flags = "--quiet\0-q\0";
	} else if (sh_name_is(nm, nl, "npm")) {
		*subs = "exec\0x\0";
		*vals = "--package\0--workspace\0-w\0--loglevel\0--prefix\0";
		*flags = "--yes\0-y\0--no\0--no-yes\0--workspaces\0-ws\0--include-workspace-root\0"
			 "--no-include-workspace-root\0--quiet\0-q\0--silent\0-s\0"
			 "--prefer-offline\0--prefer-online\0--offline\0";
	} else if (sh_name_is(nm, nl, "dotenv")) {
		/* dotenv-cli: dotenv [-e FILE] [-v NAME=VALUE] [-o] [--] CMD; python-dotenv:
		 * dotenv [-f FILE] [-q MODE] [-e BOOL] run [--override] CMD */
		*vals = "-e\0-v\0-f\0--file\0-q\0--quote\0--export\0";
		*flags = "-o\0--override\0--no-expand\0";
	} else {
		return 0;
	}
	return 1;
}

size_t sh_launcher_skip(struct sh_word **v, size_t n, size_t i, const char *nm, size_t nl)
{
	const char *subs, *vals, *flags;
	int dotenv = sh_name_is(nm, nl, "dotenv"), dashes = 0;

	if (!sh_launcher_words(nm, nl, &subs, &vals, &flags))
		return 0;
	/* the options, before the subcommand (pnpm -r exec) and after it */
	for (int sub = subs[0] != '\0'; i < n;) {
		const struct sh_word *w = v[i];
		if (weq(w, "--")) {
			if (sub)
				return 0;
			dashes = 1;
			i++;
			break;
		}
		if (w->len < 2 || w->s[0] != '-') {
			if (!sub)
				break;
			if (!sh_word_is(w, subs))
				return 0;
			sub = 0;
			i++;
			continue;
		}
		if (w->s[1] == '-' && memchr(w->s, '=', w->len))
			i++; /* --name=value: one word whatever the option */
		else if (sh_word_is(w, vals))
			i += 2;
		else if (sh_word_is(w, flags))
			i++;
		else
			return 0;
	}
	if (dotenv && !dashes && i < n) {
		/* python-dotenv's subcommands: only run runs a command */
		if (sh_word_is(v[i], "list\0get\0set\0unset\0"))
			return 0;
		if (weq(v[i], "run")) {
			i++;
			while (i < n && sh_word_is(v[i], "--override\0--no-override\0"))
				i++;
			if (i < n && weq(v[i], "--"))
				i++;
		}
	}
	/* hatch run ENV:SCRIPT runs a script of the project's configuration */
	if (i < n && sh_name_is(nm, nl, "hatch") && memchr(v[i]->s, ':', v[i]->len))
		return 0;
	return i < n ? i : 0;
}

/* ---- the walk: what each command does ------------------------------------------------ */

int sh_name_in(const struct nc *x, const char *const *set)
{
	for (size_t i = 0; set[i]; i++)
		if (sh_name_is(x->name, x->nlen, set[i]))
			return 1;
	return 0;
}

void sh_mark_data_from(struct nc *x, size_t from)
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

void sh_path(struct sh_an *P, struct nc *x, const struct sh_word *w, enum pol_op op, int dir)
{
	/* host:path (scp, rsync) is on another machine */
	if (w && w->s) {
		const char *colon = memchr(w->s, ':', w->len);
		const char *slash = memchr(w->s, '/', w->len);
		if (colon && colon != w->s && (!slash || colon < slash))
			return;
	}
	sh_emit_path(P, w, op, dir, x->remote, x->depth);
}

static void ops_path(struct sh_an *P, struct nc *x, const struct opscan *o, size_t from, size_t to,
		     enum pol_op op, int dir)
{
	for (size_t k = from; k < to && k < o->nop; k++)
		sh_path(P, x, x->v[o->op[k]], op, dir);
}

static const char grep_long[] = "--regexp\0"
				"--file\0"
				"--max-count\0"
				"--context\0"
				"--after-context\0"
				"--before-context\0"
				"--devices\0"
				"--directories\0"
				"--label\0"
				"--include\0"
				"--exclude\0"
				"--exclude-dir\0"
				"--glob\0"
				"--type\0"
				"--type-not\0"
				"--replace\0";

/* The table-driven handler: every operand is a path, and spec->op is done to it; a
 * tree when the row says so or an option that recurses was given. */
static void h_operands(struct sh_an *P, struct nc *x)
{
	const struct sh_cmdspec *sp = x->spec;
	struct opscan o;
	size_t first = 0, last;
	int dir = (sp->oflags & O_DIR) != 0;

	scan_opts(x->v, x->n, 1, sh_spec_sarg(sp), sh_largs[sp->larg], &o);
	for (const char *r = sp->rec; r && *r && !dir; r++)
		dir = o.seen[(unsigned char)*r];
	for (const char *l = sp->lrec; l && *l && !dir;) {
		const char *bar = strchr(l, '|');
		size_t ll = bar ? (size_t)(bar - l) : strlen(l);
		char buf[32];
		if (ll < sizeof(buf)) {
			memcpy(buf, l, ll);
			buf[ll] = '\0';
			dir = has_long(x->v, x->n, 1, buf);
		}
		l += ll + (bar ? 1 : 0);
	}
	if ((sp->oflags & O_DATA1) && o.nop) {
		x->data[o.op[0]] = 1;
		first = 1;
	}
	last = (sp->oflags & O_ONE) ? 1 : o.nop;
	ops_path(P, x, &o, first, last, (enum pol_op)sp->op, dir);
}

static void h_echo(struct sh_an *P, struct nc *x)
{
	if (NM("export") || NM("declare") || NM("typeset") || NM("local") || NM("readonly"))
		for (size_t i = 1; i < x->n; i++)
			if (sh_is_assignment(x->v[i])) {
				sh_record_assignment(P, x->v[i]);
				sh_assign_code(P, x->v[i], x->depth, x->line, x->remote);
			}
	if (NM("alias") || NM("unalias") || NM("hash") || NM("enable"))
		sh_rebind_cmd(P, x);
	sh_mark_data_from(x, 1);
	if (NM("printf") && x->n > 2 && weq(x->v[1], "-v"))
		x->data[1] = x->data[2] = 0;
	if (NM("printf") || NM("read") || NM("mapfile") || NM("readarray"))
		sh_assign_builtin(P, x);
}

static int is_disposal(struct sh_an *P, const struct sh_word *w);
static void disposed(struct sh_an *P, struct nc *x, const struct sh_word *src);

static void h_mvcp(struct sh_an *P, struct nc *x)
{
	struct opscan o;

	static const char larg[] = "--target-directory\0"
				   "--suffix\0";
	int mv = NM("mv"), ln = NM("ln");
	scan_opts(x->v, x->n, 1, NM("install") ? "tSmog" : "tS", larg, &o);
	const struct sh_word *t = opt_val(&o, 't', "--target-directory");
	int rec =
	    o.seen['r'] || o.seen['R'] || o.seen['a'] || has_long(x->v, x->n, 1, "--recursive");
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
			sh_path(P, x, d, dst, 0);
	}
	/* ln -s: the target is only text stored in the new link (and relative to
	 * the link's folder, not ours): nothing is done to it. */
	int sym = ln && (o.seen['s'] || has_long(x->v, x->n, 1, "--symbolic"));
	if (!sym)
		ops_path(P, x, &o, 0, last, src, sdir);
	if (dir && !x->remote)
		for (size_t k = 0; k < last; k++)
			sh_emit_path_into(P, dir, x->v[o.op[k]], dst, x->remote, x->depth);
	/* mv ~/work /tmp/x, then rm -rf /tmp/x: moving a folder into a temporary folder,
	 * the trash or /dev/null is deleting it */
	if (mv && !x->remote && o.nop >= (t ? 1u : 2u) &&
	    is_disposal(P, t ? t : x->v[o.op[o.nop - 1]]))
		for (size_t k = 0; k < last; k++)
			disposed(P, x, x->v[o.op[k]]);
	/* cp /bin/rm ./tidy: ./tidy runs rm from now on */
	for (size_t k = 0; !x->remote && (t || o.nop >= 2) && k < last; k++)
		sh_copy_record(P, x->v[o.op[k]], dir ? dir : x->v[o.op[last]], dir != NULL);
}

/* Is w a temporary folder (or beneath one), the trash or /dev/null? */
static int is_disposal(struct sh_an *P, const struct sh_word *w)
{
	static const char roots[] = "/tmp\0"
				    "/var/tmp\0"
				    "/private/tmp\0"
				    "/dev/shm\0"
				    "/dev/null\0";
	size_t len;
	char *p = sh_path_form(P, w, &len);

	if (!p)
		return 0;
	for (const char *r = roots; *r; r += strlen(r) + 1) {
		size_t rl = strlen(r);
		if (!strncmp(p, r, rl) && (p[rl] == '\0' || p[rl] == '/'))
			return 1;
	}
	return strstr(p, "/.local/share/Trash") || strstr(p, "/.Trash");
}

/* A folder (by its name: a trailing /, ., ~, a glob, no extension) that is not itself
 * in a temporary folder goes away: the walk-around of a delete. */
static void disposed(struct sh_an *P, struct nc *x, const struct sh_word *src)
{
	size_t len, b;
	char *p = sh_path_form(P, src, &len);
	const char *base;

	if (p && sh_path_is_temp(P, p))
		return;
	if (p) {
		while (len > 1 && p[len - 1] == '/')
			len--;
		b = len;
		while (b > 0 && p[b - 1] != '/')
			b--;
		base = p + b;
		/* a file: a dot after the first character of its name (notes.txt, .env.local) */
		if (p[strlen(p) - 1] != '/' && (src->flags & W_GLOB) == 0 && len - b > 1 &&
		    memchr(base + 1, '.', len - b - 1) && strcmp(base, ".."))
			return;
	}
	/* after the command's own units and paths (shell_walk.c), so that a rule on the
	 * command or a path rule, with its better message, is reported first */
	if (!P->disposed) {
		P->disposed = src;
		P->disposed_line = x->line;
	}
}

/* trash-put DIR, gio trash DIR: into the trash, as far as the project is concerned gone. */
static void h_trash(struct sh_an *P, struct nc *x)
{
	struct opscan o;
	size_t from = NM("gio") ? 2 : 0;

	if (NM("gio") && !(x->n > 1 && weq(x->v[1], "trash")))
		return;
	scan_opts(x->v, x->n, 1, "", NULL, &o);
	for (size_t k = from ? 1 : 0; k < o.nop; k++) {
		sh_path(P, x, x->v[o.op[k]], POL_OP_DELETE, 1);
		disposed(P, x, x->v[o.op[k]]);
	}
}

static void h_dd(struct sh_an *P, struct nc *x)
{
	for (size_t i = 1; i < x->n; i++) {
		struct sh_word sw;
		if (x->v[i]->len > 3 && !memcmp(x->v[i]->s, "if=", 3)) {
			sh_sub_word(x->v[i], 3, &sw);
			sh_path(P, x, &sw, POL_OP_READ, 0);
		} else if (x->v[i]->len > 3 && !memcmp(x->v[i]->s, "of=", 3)) {
			sh_sub_word(x->v[i], 3, &sw);
			sh_path(P, x, &sw, POL_OP_WRITE, 0);
		}
	}
}

/* truncate -s 0 FILES: a glob or several files emptied at once are as good as deleted,
 * so they go out as deletions (as rm's operands do: no-delete paths hold); one named
 * file stays a write that truncates it. */
static void h_truncate(struct sh_an *P, struct nc *x)
{
	struct opscan o;
	const struct sh_word *size;
	enum pol_op op = POL_OP_TRUNCATE;

	static const char larg[] = "--size\0"
				   "--reference\0";
	scan_opts(x->v, x->n, 1, "sr", larg, &o);
	sh_path(P, x, opt_val(&o, 'r', "--reference"), POL_OP_READ, 0);
	size = opt_val(&o, 's', "--size");
	if (size && size->len && !(size->flags & (W_UNRESOLVED | W_SUBST))) {
		size_t z = 0;
		int many = o.nop > 1;
		while (z < size->len && size->s[z] == '0')
			z++;
		for (size_t k = 0; k < o.nop; k++)
			many |= (x->v[o.op[k]]->flags & W_GLOB) != 0;
		if (z == size->len && many)
			op = POL_OP_DELETE;
	}
	ops_path(P, x, &o, 0, o.nop, op, 0);
}

static void h_chmod(struct sh_an *P, struct nc *x)
{
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
		sh_path(P, x, w, POL_OP_CHMOD, rec);
	}
}

static void h_sed(struct sh_an *P, struct nc *x)
{
	struct opscan o;

	static const char larg[] = "--expression\0"
				   "--file\0"
				   "--line-length\0";
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
}

static void h_grep(struct sh_an *P, struct nc *x)
{
	struct opscan o;

	scan_opts(x->v, x->n, 1, NM("rg") ? "ABCEegjMmrtTf" : "ABCDdefm", grep_long, &o);
	size_t first = 0;
	int pat_opt = 0;
	for (size_t k = 0; k < o.narg; k++)
		if (o.arg[k].c == 'e' || (o.arg[k].lw && !strncmp(o.arg[k].lw->s, "--regexp", 8))) {
			mark_word_data(x, &o.arg[k].val);
			pat_opt = 1;
		} else if (o.arg[k].c == 'f' ||
			   (o.arg[k].lw && !strncmp(o.arg[k].lw->s, "--file", 6))) {
			pat_opt = 1;
			sh_path(P, x, &o.arg[k].val, POL_OP_READ, 0);
		}
	if (!pat_opt && o.nop) {
		x->data[o.op[0]] = 1;
		first = 1;
	}
	/* A recursive search prints matching lines only and is what agents run all
	 * day: the folder itself is checked, not every file beneath (copies and
	 * archives of a tree are). */
	ops_path(P, x, &o, first, o.nop, POL_OP_READ, 0);
}

/* The string literals of an awk program that runs commands, each analysed as shell. */
static void awk_commands(struct sh_an *P, struct nc *x, const struct sh_word *prog)
{
	const char *s = prog->s;
	size_t n = prog->len;

	for (size_t i = 0; i < n; i++) {
		size_t k;
		if (s[i] != '"')
			continue;
		for (k = i + 1; k < n && s[k] != '"'; k++)
			if (s[k] == '\\')
				k++;
		if (k >= n)
			return;
		if (k > i + 1)
			sh_analyze_string(P, s + i + 1, k - i - 1, x->depth + 1, x->line,
					  x->remote);
		i = k;
	}
}

static void h_awk(struct sh_an *P, struct nc *x)
{
	struct opscan o;

	scan_opts(x->v, x->n, 1, "fvF", NULL, &o);
	size_t first = 0;
	const struct sh_word *f = opt_val(&o, 'f', NULL);
	if (f) {
		sh_path(P, x, f, POL_OP_READ, 0);
	} else if (o.nop) {
		const struct sh_word *prog = x->v[o.op[0]];
		/* a program that runs commands is not data; the commands it runs are its
		 * string literals: system("rm -rf x"), print "..." | "sh" */
		if (!memmem(prog->s, prog->len, "system", 6) && !memchr(prog->s, '|', prog->len))
			x->data[o.op[0]] = 1;
		else
			awk_commands(P, x, prog);
		first = 1;
	}
	for (size_t k = first; k < o.nop; k++)
		if (!sh_is_assignment(x->v[o.op[k]]))
			sh_path(P, x, x->v[o.op[k]], POL_OP_READ, 0);
}

static void h_sort(struct sh_an *P, struct nc *x)
{
	struct opscan o;

	static const char larg[] = "--output\0"
				   "--key\0"
				   "--field-separator\0"
				   "--buffer-size\0"
				   "--temporary-directory\0";
	scan_opts(x->v, x->n, 1, "kotST", larg, &o);
	sh_path(P, x, opt_val(&o, 'o', "--output"), POL_OP_WRITE, 0);
	ops_path(P, x, &o, 0, o.nop, POL_OP_READ, 0);
}

/* source FILE, . FILE: read, and run in this shell when the line wrote it. */
static void h_reader(struct sh_an *P, struct nc *x)
{
	struct opscan o;

	h_operands(P, x);
	scan_opts(x->v, x->n, 1, "", NULL, &o);
	if (o.nop) {
		sh_check_dl_word(P, x, x->v[o.op[0]]);
		sh_run_file(P, x, x->v[o.op[0]], LANG_SHELL);
	}
}

static void h_rsync(struct sh_an *P, struct nc *x)
{
	struct opscan o;

	static const char rlarg[] = "--exclude\0"
				    "--include\0"
				    "--filter\0"
				    "--exclude-from\0"
				    "--include-from\0"
				    "--files-from\0"
				    "--log-file\0"
				    "--password-file\0"
				    "--temp-dir\0"
				    "--partial-dir\0"
				    "--backup-dir\0"
				    "--rsh\0"
				    "--rsync-path\0"
				    "--chmod\0"
				    "--chown\0"
				    "--compare-dest\0"
				    "--copy-dest\0"
				    "--link-dest\0"
				    "--max-size\0"
				    "--min-size\0"
				    "--bwlimit\0"
				    "--timeout\0"
				    "--port\0"
				    "--out-format\0"
				    "--suffix\0"
				    "--info\0"
				    "--debug\0"
				    "--usermap\0"
				    "--groupmap\0"
				    "--iconv\0"
				    "--max-delete\0"
				    "--block-size\0";
	int rs = NM("rsync");
	scan_opts(x->v, x->n, 1, rs ? "efBTM" : "cFiJlmoPS", rs ? rlarg : NULL, &o);
	int del = rs && has_long(x->v, x->n, 1, "--delete");
	int rec = !rs || o.seen['r'] || o.seen['a'] || has_long(x->v, x->n, 1, "--recursive");
	if (rs && del)
		rec = 1;
	if (o.nop >= 2) {
		ops_path(P, x, &o, 0, o.nop - 1, POL_OP_READ, rec);
		sh_path(P, x, x->v[o.op[o.nop - 1]], del ? POL_OP_DELETE : POL_OP_WRITE, del);
	}
}

static void h_tar(struct sh_an *P, struct nc *x)
{
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
			else if (weq(w, "--create") || weq(w, "--append") || weq(w, "--update"))
				create = 1;
			else if (!strncmp(w->s, "--directory", 11) || !strncmp(w->s, "--file", 6)) {
				const struct sh_word *val = NULL;
				if (memchr(w->s, '=', w->len)) {
					sh_sub_word(
					    w,
					    (size_t)((char *)memchr(w->s, '=', w->len) - w->s) + 1,
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
			else if (ch == 'f' || ch == 'C' || ch == 'T' || ch == 'X' || ch == 'b') {
				const struct sh_word *val = NULL;
				if (!oldstyle && j + 1 < w->len) {
					struct sh_word *cp = sh_alloc(P, sizeof(*cp));
					if (!cp)
						return;
					sh_sub_word(w, j + 1, cp);
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
		sh_path(P, x, archive, POL_OP_READ, 0);
		if (dir) {
			sh_path(P, x, dir, POL_OP_WRITE, 0);
		} else {
			struct sh_word dot;
			memset(&dot, 0, sizeof(dot));
			dot.s = ".";
			dot.len = 1;
			dot.line = x->line;
			sh_path(P, x, &dot, POL_OP_WRITE, 0);
		}
	} else if (create) {
		/* --remove-files: the sources are deleted once packed */
		enum pol_op sop =
		    has_long(x->v, x->n, 1, "--remove-files") ? POL_OP_DELETE : POL_OP_READ;
		sh_path(P, x, archive, POL_OP_WRITE, 0);
		for (; i < x->n; i++)
			if (x->v[i]->s[0] != '-')
				sh_path(P, x, x->v[i], sop, 1);
	}
}

static void h_unzip(struct sh_an *P, struct nc *x)
{
	struct opscan o;

	scan_opts(x->v, x->n, 1, "dxP", NULL, &o);
	if (o.nop)
		sh_path(P, x, x->v[o.op[0]], POL_OP_READ, 0);
	const struct sh_word *d = opt_val(&o, 'd', NULL);
	struct sh_word dot;
	memset(&dot, 0, sizeof(dot));
	dot.s = ".";
	dot.len = 1;
	sh_path(P, x, d ? d : &dot, POL_OP_WRITE, 0);
}

static void h_zip(struct sh_an *P, struct nc *x)
{
	struct opscan o;

	scan_opts(x->v, x->n, 1, "bnPtx", NULL, &o);
	if (o.nop) {
		sh_path(P, x, x->v[o.op[0]], POL_OP_WRITE, 0);
		/* -m / --move: the sources are deleted once packed */
		ops_path(P, x, &o, 1, o.nop,
			 o.seen['m'] || has_long(x->v, x->n, 1, "--move") ? POL_OP_DELETE
									  : POL_OP_READ,
			 o.seen['r']);
	}
}

static void h_curl(struct sh_an *P, struct nc *x)
{
	struct opscan o;

	static const char larg[] = "--output\0"
				   "--upload-file\0"
				   "--data\0"
				   "--data-binary\0"
				   "--data-raw\0"
				   "--data-urlencode\0"
				   "--data-ascii\0"
				   "--form\0"
				   "--json\0"
				   "--config\0"
				   "--header\0"
				   "--user-agent\0"
				   "--referer\0"
				   "--cookie\0"
				   "--cookie-jar\0"
				   "--dump-header\0"
				   "--user\0"
				   "--request\0"
				   "--write-out\0"
				   "--proxy\0"
				   "--cert\0"
				   "--key\0"
				   "--cacert\0"
				   "--max-time\0"
				   "--connect-timeout\0"
				   "--url\0"
				   "--range\0"
				   "--retry\0"
				   "--output-dir\0";
	scan_opts(x->v, x->n, 1, "AbcCdDeEFHKmoQrtTuUwxXYyz", larg, &o);
	for (size_t k = 0; k < o.narg; k++) {
		const struct sh_word *val = &o.arg[k].val;
		const struct sh_word *lw = o.arg[k].lw;
		char c = o.arg[k].c;
		const char *ln = lw ? lw->s : "";
		if (c == 'o' || !strncmp(ln, "--output", 8) || c == 'D' ||
		    !strncmp(ln, "--dump-header", 13) || c == 'c' ||
		    !strncmp(ln, "--cookie-jar", 12)) {
			sh_path(P, x, val, POL_OP_WRITE, 0);
		} else if (c == 'T' || !strncmp(ln, "--upload-file", 13) || c == 'K' ||
			   !strncmp(ln, "--config", 8)) {
			sh_path(P, x, val, POL_OP_READ, 0);
		} else if (c == 'd' || c == 'F' || !strncmp(ln, "--data", 6) ||
			   !strncmp(ln, "--form", 6) || !strncmp(ln, "--json", 6)) {
			/* @file and name=@file / name=<file upload a file */
			const char *at_ = memchr(val->s, '@', val->len);
			const char *lt = memchr(val->s, '<', val->len);
			const char *m = at_ ? at_ : lt;
			if (m) {
				struct sh_word sw;
				sh_sub_word(val, (size_t)(m - val->s) + 1, &sw);
				sh_path(P, x, &sw, POL_OP_READ, 0);
			} else {
				mark_word_data(x, val);
			}
		} else if (c == 'H' || c == 'A' || c == 'e' || !strncmp(ln, "--header", 8) ||
			   !strncmp(ln, "--user-agent", 12) || !strncmp(ln, "--referer", 9)) {
			mark_word_data(x, val);
		}
	}
}

static void h_wget(struct sh_an *P, struct nc *x)
{
	struct opscan o;

	static const char larg[] = "--output-document\0"
				   "--output-file\0"
				   "--append-output\0"
				   "--directory-prefix\0"
				   "--post-file\0"
				   "--input-file\0"
				   "--body-file\0";
	scan_opts(x->v, x->n, 1, "OoaPiU", larg, &o);
	for (size_t k = 0; k < o.narg; k++) {
		const struct sh_word *lw = o.arg[k].lw;
		char c = o.arg[k].c;
		const char *ln = lw ? lw->s : "";
		if (c == 'O' || c == 'o' || c == 'a' || !strncmp(ln, "--output", 8) ||
		    !strncmp(ln, "--append-output", 15))
			sh_path(P, x, &o.arg[k].val, POL_OP_WRITE, 0);
		else if (c == 'P' || !strncmp(ln, "--directory-prefix", 18))
			sh_path(P, x, &o.arg[k].val, POL_OP_WRITE, 0);
		else if (c == 'i' || !strncmp(ln, "--post-file", 11) ||
			 !strncmp(ln, "--input-file", 12) || !strncmp(ln, "--body-file", 11))
			sh_path(P, x, &o.arg[k].val, POL_OP_READ, 0);
	}
}

static void h_openssl(struct sh_an *P, struct nc *x)
{
	for (size_t i = 1; i + 1 < x->n; i++) {
		if (weq(x->v[i], "-in") || weq(x->v[i], "-key") || weq(x->v[i], "-inkey"))
			sh_path(P, x, x->v[i + 1], POL_OP_READ, 0);
		else if (weq(x->v[i], "-out"))
			sh_path(P, x, x->v[i + 1], POL_OP_WRITE, 0);
	}
}

/* git grep and git clean/rm, which scan options: their 4 KiB scan stays off the frame
 * of h_git, under which every git command (git status) would touch a page deeper. */
static __attribute__((noinline)) void h_git_grep(struct nc *x)
{
	struct opscan o;

	scan_opts(x->v, x->n, 2, "ABCefm", grep_long, &o);
	int pat_opt = 0;
	for (size_t k = 0; k < o.narg; k++)
		if (o.arg[k].c == 'e') {
			mark_word_data(x, &o.arg[k].val);
			pat_opt = 1;
		}
	if (!pat_opt && o.nop)
		x->data[o.op[0]] = 1;
}

static __attribute__((noinline)) void h_git_remove(struct sh_an *P, struct nc *x, int clean)
{
	struct opscan o;

	/* git rm --cached only untracks: no file of the work tree goes (git rm -r --cached .
	 * re-applies a .gitignore) */
	for (size_t i = 2; !clean && i < x->n && !weq(x->v[i], "--"); i++)
		if (weq(x->v[i], "--cached"))
			return;
	scan_opts(x->v, x->n, 2, "e", NULL, &o);
	int dir = clean || o.seen['r'];
	ops_path(P, x, &o, 0, o.nop, POL_OP_DELETE, dir);
}

/* git show REV:PATH, git cat-file -p REV:PATH, and the paths after -- of git show, git
 * diff and git log -p print a file's content from the repository or the work tree: a
 * read of that path (git show HEAD:.env reads the secret as cat .env would). PATH is
 * taken from the command's folder, the repository's top in the usual case; :/TEXT (a
 * commit search) and REV: alone name no file. */
static __attribute__((noinline)) void h_git_show(struct sh_an *P, struct nc *x, int log)
{
	int patch = !log, dashdash = 0;

	for (size_t i = 2; log && i < x->n && !weq(x->v[i], "--"); i++)
		patch |= weq(x->v[i], "-p") || weq(x->v[i], "--patch") || weq(x->v[i], "-u");
	for (size_t i = 2; i < x->n; i++) {
		const struct sh_word *w = x->v[i];
		const char *colon;

		if (dashdash) {
			if (patch)
				sh_emit_path(P, w, POL_OP_READ, 0, x->remote, x->depth);
			continue;
		}
		if (weq(w, "--")) {
			dashdash = 1;
			continue;
		}
		if (w->len && w->s[0] == '-')
			continue;
		colon = memchr(w->s, ':', w->len);
		if (!log && colon && colon + 1 < w->s + w->len && colon[1] != '/') {
			struct sh_word sub = *w;

			sub.s = (char *)colon + 1;
			sub.len = w->len - (size_t)(colon + 1 - w->s);
			sub.nhome = 0;
			sh_emit_path(P, &sub, POL_OP_READ, 0, x->remote, x->depth);
		}
	}
}

static void h_git(struct sh_an *P, struct nc *x)
{
	/* v[1] is the subcommand (global options were stripped) */
	if (x->n < 2)
		return;
	const struct sh_word *sub = x->v[1];
	if (weq(sub, "commit") || weq(sub, "tag") || weq(sub, "merge") || weq(sub, "notes") ||
	    weq(sub, "stash") || weq(sub, "revert") || weq(sub, "am") || weq(sub, "cherry-pick")) {
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
			sh_mark_data_from(x, 3);
	} else if (weq(sub, "log") || weq(sub, "shortlog") || weq(sub, "rev-list")) {
		for (size_t i = 2; i < x->n; i++)
			if (!strncmp(x->v[i]->s, "--grep", 6) ||
			    !strncmp(x->v[i]->s, "--author", 8) || !strncmp(x->v[i]->s, "-S", 2) ||
			    !strncmp(x->v[i]->s, "-G", 2)) {
				if (memchr(x->v[i]->s, '=', x->v[i]->len) ||
				    (x->v[i]->len > 2 && x->v[i]->s[1] != '-'))
					x->data[i] = 1; /* --grep=X, -SX */
				else if (i + 1 < x->n)
					x->data[++i] = 1;
			}
	} else if (weq(sub, "grep")) {
		h_git_grep(x);
	} else if (weq(sub, "clean") || weq(sub, "rm")) {
		h_git_remove(P, x, weq(sub, "clean"));
	}
	if (weq(sub, "show") || weq(sub, "cat-file") || weq(sub, "diff") || weq(sub, "log"))
		h_git_show(P, x, weq(sub, "log"));
}

static void h_gh(struct sh_an *P, struct nc *x)
{
	for (size_t i = 1; i + 1 < x->n; i++) {
		struct sh_word *w = x->v[i];
		if (weq(w, "-t") || weq(w, "--title") || weq(w, "-b") || weq(w, "--body") ||
		    weq(w, "-m") || weq(w, "--message") || weq(w, "--notes") || weq(w, "-d") ||
		    weq(w, "--description"))
			x->data[++i] = 1;
	}
}

/* Are all of find's start points in temporary folders (and is there one)? */
static int starts_temp(struct sh_an *P, struct nc *x, const size_t *starts, size_t n)
{
	size_t len;

	for (size_t k = 0; k < n; k++) {
		char *p = sh_path_form(P, x->v[starts[k]], &len);
		if (!p || !sh_path_is_temp(P, p))
			return 0;
	}
	return n > 0;
}

void sh_h_find(struct sh_an *P, struct nc *x)
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
				sh_base_of(x->v[s], &nm, &nl);
				if (sh_name_is(nm, nl, "rm") || sh_name_is(nm, nl, "rmdir") ||
				    sh_name_is(nm, nl, "unlink") || sh_name_is(nm, nl, "shred"))
					del = 1;
				int save = P->find_temp;
				P->find_temp = starts_temp(P, x, starts, nstart);
				sh_process_words(P, NULL, x->v + s, e - s, x->depth + 1, x->remote,
						 x->v[s]->line);
				P->find_temp = save;
			}
			i = e;
		} else if (weq(w, "-fprint") || weq(w, "-fprint0") || weq(w, "-fprintf") ||
			   weq(w, "-fls")) {
			if (i + 1 < x->n)
				sh_path(P, x, x->v[i + 1], POL_OP_WRITE, 0);
		}
	}
	if (nstart == 0) {
		struct sh_word dot;
		memset(&dot, 0, sizeof(dot));
		dot.s = ".";
		dot.len = 1;
		dot.line = x->line;
		sh_path(P, x, &dot, del ? POL_OP_DELETE : POL_OP_LIST, del);
	}
	for (size_t k = 0; k < nstart; k++)
		sh_path(P, x, x->v[starts[k]], del ? POL_OP_DELETE : POL_OP_LIST, del);
}

/* ssh [options] host [command...]: the command runs in a remote shell. */
/* docker|podman exec/run ... CMD, kubectl|oc exec ... -- CMD: the command runs in a
 * container, like ssh's on another machine: command rules apply, local paths do not. */
void sh_h_container(struct sh_an *P, struct nc *x)
{
	static const char run_long[] = "--name\0"
				       "--network\0"
				       "--env\0"
				       "--volume\0"
				       "--workdir\0"
				       "--user\0"
				       "--entrypoint\0"
				       "--env-file\0"
				       "--label\0"
				       "--mount\0"
				       "--publish\0"
				       "--platform\0"
				       "--restart\0"
				       "--memory\0"
				       "--cpus\0"
				       "--hostname\0"
				       "--add-host\0"
				       "--device\0"
				       "--dns\0"
				       "--expose\0"
				       "--gpus\0"
				       "--ipc\0"
				       "--log-driver\0"
				       "--log-opt\0"
				       "--pid\0"
				       "--pull\0"
				       "--runtime\0"
				       "--security-opt\0"
				       "--shm-size\0"
				       "--tmpfs\0"
				       "--ulimit\0"
				       "--cap-add\0"
				       "--cap-drop\0"
				       "--container\0"
				       "--namespace\0"
				       "--context\0";
	size_t i = 1;

	if (NM("kubectl") || NM("oc")) {
		for (; i < x->n; i++)
			if (weq(x->v[i], "exec"))
				break;
		for (; i < x->n; i++)
			if (weq(x->v[i], "--"))
				break;
		if (i + 1 < x->n) {
			sh_mark_data_from(x, i + 1);
			sh_process_words(P, NULL, x->v + i + 1, x->n - i - 1, x->depth + 1, 1,
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
			if (sh_long_takes_arg(run_long, w))
				i++;
			continue;
		}
		if (strchr("aceEhlmpuvw", w->s[w->len - 1]) && w->len == 2)
			i++;
	}
	i++; /* the container or image */
	if (i < x->n) {
		sh_mark_data_from(x, i);
		sh_process_words(P, NULL, x->v + i, x->n - i, x->depth + 1, 1, x->line);
	}
}

void sh_h_ssh(struct sh_an *P, struct nc *x)
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
				/* -F FILE: ssh reads it as its config and prints, in its
				 * errors, the first words of each line it cannot parse
				 * (`ssh -F .env -G x` shows every key and value): a read */
				if (w->s[j] == 'F' && j + 1 < w->len) {
					struct sh_word sw;
					sh_sub_word(w, j + 1, &sw);
					sh_path(P, x, &sw, POL_OP_READ, 0);
				} else if (w->s[j] == 'F' && i + 1 < x->n) {
					sh_path(P, x, x->v[i + 1], POL_OP_READ, 0);
				}
				if (j + 1 == w->len)
					i++;
				break;
			}
	}
	i++; /* the host */
	if (i >= x->n)
		return;
	sh_mark_data_from(x, i);
	s = sh_join_words(P, x->v + i, x->n - i, &len);
	if (s)
		sh_analyze_string(P, s, len, x->depth + 1, x->line, 1);
}

void sh_h_watch(struct sh_an *P, struct nc *x)
{
	static const char larg[] = "--interval\0"
				   "--differences\0";
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
			if (sh_long_takes_arg(larg, w))
				i++;
			continue;
		}
		if (w->s[w->len - 1] == 'n')
			i++;
	}
	if (i >= x->n)
		return;
	sh_mark_data_from(x, i);
	s = sh_join_words(P, x->v + i, x->n - i, &len);
	if (s)
		sh_analyze_string(P, s, len, x->depth + 1, x->line, x->remote);
}

/* su [-] [user] -c CMD, runuser ... -c CMD or -- CMD... */
void sh_h_su(struct sh_an *P, struct nc *x)
{
	for (size_t i = 1; i < x->n; i++) {
		struct sh_word *w = x->v[i];
		if ((weq(w, "-c") || weq(w, "--command")) && i + 1 < x->n) {
			x->data[i + 1] = 1;
			sh_analyze_string(P, x->v[i + 1]->s, x->v[i + 1]->len, x->depth + 1,
					  x->v[i + 1]->line, x->remote);
			return;
		}
		if (!strncmp(w->s, "--command=", 10)) {
			x->data[i] = 1;
			sh_analyze_string(P, w->s + 10, w->len - 10, x->depth + 1, w->line,
					  x->remote);
			return;
		}
		if (weq(w, "--") && i + 1 < x->n) {
			sh_process_words(P, NULL, x->v + i + 1, x->n - i - 1, x->depth + 1,
					 x->remote, x->line);
			return;
		}
	}
	sh_run_stdin(P, x, LANG_SHELL);
}

void sh_h_cd(struct sh_an *P, struct nc *x)
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
	p = sh_path_form(P, x->v[i], &plen);
	if (!p && sh_is_mktemp(x->v[i]))
		p = "/tmp/tmp.XXXXXXXXXX"; /* cd "$(mktemp -d)": a new folder in /tmp */
	if (p)
		P->walk_scope->cwd = p;
}

static void h_eval(struct sh_an *P, struct nc *x)
{
	size_t len;
	char *s;

	sh_mark_data_from(x, 1);
	for (size_t j = 1; j < x->n; j++)
		sh_check_dl_word(P, x, x->v[j]);
	s = sh_join_words(P, x->v + 1, x->n - 1, &len);
	if (s && len)
		sh_analyze_string(P, s, len, x->depth + 1, x->line, x->remote);
}

/* set -- A B C (or set A B C): the positional parameters; set -e, set -o x: options. */
static void h_set(struct sh_an *P, struct nc *x)
{
	size_t i = 1;

	while (i < x->n && (x->v[i]->s[0] == '-' || x->v[i]->s[0] == '+')) {
		if (weq(x->v[i], "--")) {
			i++;
			break;
		}
		if ((weq(x->v[i], "-o") || weq(x->v[i], "+o")) && i + 1 < x->n)
			i++; /* its option name; a bare "set -o" lists the options */
		i++;
	}
	if (i < x->n || (i > 1 && weq(x->v[i - 1], "--")))
		sh_set_positional(P, x->v + i, x->n - i, 0);
}

/* shift [N]: $2 becomes $1 ... */
static void h_shift(struct sh_an *P, struct nc *x)
{
	static const char *const names = "0123456789";
	size_t by = 1, vl, len;
	const char *vals[10];
	size_t lens[10];
	struct sh_word words[9], *wp[9];
	size_t nw = 0;

	if (x->n > 1 && x->v[1]->len == 1 && x->v[1]->s[0] >= '0' && x->v[1]->s[0] <= '9')
		by = (size_t)(x->v[1]->s[0] - '0');
	for (size_t k = 1; k <= 9; k++) {
		vals[k] = sh_var_value(P, names + k, 1, &vl);
		lens[k] = vals[k] ? vl : 0;
	}
	for (size_t k = 1 + by; k <= 9 && vals[k]; k++) {
		memset(&words[nw], 0, sizeof(words[0]));
		words[nw].s = (char *)vals[k];
		words[nw].len = lens[k];
		wp[nw] = &words[nw];
		nw++;
	}
	(void)len;
	sh_set_positional(P, wp, nw, 0);
}

/* A switch, not a table of function pointers, which the loader would relocate at every
 * start of dcg (cli/README.md, "cost"). */
sh_handler sh_handler_of(unsigned kind)
{
	switch (kind) {
	case K_SET:
		return h_set;
	case K_SHIFT:
		return h_shift;
	case K_TRASH:
		return h_trash;
	case K_OPERANDS:
		return h_operands;
	case K_AWK:
		return h_awk;
	case K_CD:
		return sh_h_cd;
	case K_CHMOD:
		return h_chmod;
	case K_CONTAINER:
		return sh_h_container;
	case K_CURL:
		return h_curl;
	case K_DD:
		return h_dd;
	case K_ECHO:
		return h_echo;
	case K_EVAL:
		return h_eval;
	case K_FIND:
		return sh_h_find;
	case K_GH:
		return h_gh;
	case K_GIT:
		return h_git;
	case K_GREP:
		return h_grep;
	case K_MVCP:
		return h_mvcp;
	case K_OPENSSL:
		return h_openssl;
	case K_READER:
		return h_reader;
	case K_RSYNC:
		return h_rsync;
	case K_SED:
		return h_sed;
	case K_SORT:
		return h_sort;
	case K_SSH:
		return sh_h_ssh;
	case K_SU:
		return sh_h_su;
	case K_TAR:
		return h_tar;
	case K_TRUNCATE:
		return h_truncate;
	case K_UNZIP:
		return h_unzip;
	case K_WATCH:
		return sh_h_watch;
	case K_WGET:
		return h_wget;
	case K_ZIP:
		return h_zip;
	default:
		return NULL;
	}
}
