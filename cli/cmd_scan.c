/* cmd_scan.c - `dcg scan`: the commands a repository's files will run later (scripts,
 * recipes, CI steps, container builds), each judged by the engine under the policy in
 * force in its folder, with every finding placed at its file, line and column.
 * The files come from git (tracked, --all, the index with --staged, changed since REV
 * with --diff) or, outside a repository, from a walk of the folders named. */
#include "hook.h"

#include "commands.h"
#include "scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char scan_usage[] =
    "usage: dcg scan [PATH...] [--staged | --diff REV | --all] [--format text|json|sarif]\n"
    "                [--fail-on deny|ask|warn|never] [--policy FILE]\n"
    "       dcg scan --install-hook [--force]\n"
    "\n"
    "Judges the commands a repository's files run later, with the same engine and\n"
    "policy as the hook: shell scripts (by extension or #! line), Makefile recipes,\n"
    "Dockerfile/Containerfile RUN, GitHub Actions run: steps, GitLab CI scripts,\n"
    "package.json scripts, compose command/entrypoint, justfile recipes and Terraform\n"
    "local-exec commands. Each finding: FILE:LINE:COLUMN, decision, rule and reason.\n"
    "\n"
    "  PATH...          only these files or folders (default: the whole repository)\n"
    "  --all            untracked files too (not ignored ones); default: tracked files\n"
    "  --staged         the files staged for commit, as the index holds them\n"
    "  --diff REV       the files changed since REV, findings on changed lines only\n"
    "  --format F       text (default), json, or sarif (SARIF 2.1.0)\n"
    "  --fail-on L      the least decision that fails the scan: deny (default), ask,\n"
    "                   warn, or never\n"
    "  --install-hook   write .git/hooks/pre-commit running `dcg scan --staged`\n"
    "                   (--force replaces a hook that is not dcg's)\n"
    "\n"
    "Exit status: 0 nothing reached --fail-on, 2 something did, 1 usage error or a\n"
    "file that could not be checked.\n";

#define FAIL_NEVER 99

struct scan_opts {
	int staged, all, install_hook, force;
	const char *diff_rev, *policy;
	enum scan_format fmt;
	int fail_on;
	char **paths;
	int n_paths;
};

/* A file to read: its repository-relative path, and with --staged its blob; with
 * --diff the lines changed ([ranges[2k], ranges[2k+1]] inclusive). */
struct scan_file {
	char *path;
	char sha[48];
	unsigned *ranges;
	size_t n_ranges;
};

struct scan_files {
	struct scan_file *v;
	size_t n, cap;
};

/* A policy per project file in force (the nearest .dcg/policy.yaml above a folder). */
struct scan_pol {
	char *key; /* the project file, or "" for none */
	struct pol_policy *p;
};

struct scan_ctx {
	struct scan_opts *o;
	char root[PATH_MAX]; /* the repository's (or the working directory) */
	int in_git;
	struct scan_pol *pols;
	size_t n_pols;
	char last_dir[PATH_MAX];
	struct pol_policy *last_pol;
	struct scan_report rep;
};

/* ---- options -------------------------------------------------------------------------- */

static int parse_level(const char *s, int *out)
{
	static const char names[] = "allow\0log\0warn\0ask\0deny\0";
	int i = 0;

	if (!strcmp(s, "never")) {
		*out = FAIL_NEVER;
		return 0;
	}
	for (const char *n = names; *n; n += strlen(n) + 1, i++)
		if (i >= POL_WARN && !strcmp(n, s)) {
			*out = i;
			return 0;
		}
	return -1;
}

static int parse_opts(int argc, char **argv, struct scan_opts *o)
{
	static const struct cli_option opts[] = {
	    {"staged", no_argument, 's'},	 {"diff", required_argument, 'd'},
	    {"all", no_argument, 'a'},		 {"format", required_argument, 'f'},
	    {"fail-on", required_argument, 'F'}, {"policy", required_argument, 'p'},
	    {"install-hook", no_argument, 'I'},	 {"force", no_argument, 'x'},
	    {"help", no_argument, 'h'},		 {"", 0, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->policy = dcg_global_policy;
	o->fail_on = POL_DENY;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "h", opts)) != -1) {
		switch (c) {
		case 's':
			o->staged = 1;
			break;
		case 'd':
			o->diff_rev = optarg;
			break;
		case 'a':
			o->all = 1;
			break;
		case 'f':
			if (!strcmp(optarg, "text") || !strcmp(optarg, "json") ||
			    !strcmp(optarg, "sarif")) {
				o->fmt = optarg[0] == 't'   ? SCAN_TEXT
					 : optarg[0] == 'j' ? SCAN_JSON
							    : SCAN_SARIF;
				break;
			}
			fprintf(stderr, "dcg scan: --format %s: text, json or sarif\n", optarg);
			return -1;
		case 'F':
			if (!parse_level(optarg, &o->fail_on))
				break;
			fprintf(stderr, "dcg scan: --fail-on %s: deny, ask, warn or never\n",
				optarg);
			return -1;
		case 'p':
			o->policy = optarg;
			break;
		case 'I':
			o->install_hook = 1;
			break;
		case 'x':
			o->force = 1;
			break;
		case 'h':
			fputs(scan_usage, stdout);
			return 1;
		default:
			fputs(scan_usage, stderr);
			return -1;
		}
	}
	if (o->staged + !!o->diff_rev + o->all > 1) {
		fprintf(stderr, "dcg scan: --staged, --diff and --all exclude each other\n");
		return -1;
	}
	o->paths = argv + optind;
	o->n_paths = argc - optind;
	return 0;
}

/* ---- git ------------------------------------------------------------------------------ */

/* Runs git with args in dir (stdin from in_fd, or /dev/null), its stdout into out.
 * Returns git's exit status, or -1 when it could not run. */
static int git_capture(const char *dir, const char *const *args, int in_fd, struct hook_buf *out)
{
	size_t n = 0, na = 0;
	int pfd[2], status;
	pid_t pid;

	while (args[na])
		na++;
	const char **argv = calloc(na + 4, sizeof(*argv));
	if (!argv)
		return -1;
	argv[n++] = "git";
	argv[n++] = "-c";
	argv[n++] = "core.quotePath=false";
	while (*args)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (pipe2(pfd, O_CLOEXEC)) {
		free(argv);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		free(argv);
		return -1;
	}
	if (pid == 0) {
		int nul = in_fd >= 0 ? in_fd : open("/dev/null", O_RDONLY);
		if (dir && chdir(dir))
			_exit(127);
		dup2(nul, 0);
		dup2(pfd[1], 1);
		execvp("git", (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	free(argv);
	for (;;) {
		char buf[65536];
		ssize_t r = read(pfd[0], buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		hook_buf_add(out, buf, (size_t)r);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int files_add(struct scan_files *f, const char *path, size_t len)
{
	if (f->n == f->cap) {
		size_t nc = f->cap ? f->cap * 2 : 256;
		struct scan_file *nv = realloc(f->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		f->v = nv;
		f->cap = nc;
	}
	memset(&f->v[f->n], 0, sizeof(f->v[0]));
	f->v[f->n].path = strndup(path, len);
	if (!f->v[f->n].path)
		return -ENOMEM;
	f->n++;
	return 0;
}

static void files_release(struct scan_files *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].path);
		free(f->v[i].ranges);
	}
	free(f->v);
}

/* git's NUL-separated list of names into files. */
static int files_from_z(struct scan_files *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = strnlen(s + i, len - i);
		if (n && files_add(f, s + i, n))
			return -ENOMEM;
		i += n + 1;
	}
	return 0;
}

/* Runs a git listing (args then "--" and the paths given) from the working directory. */
static int git_list(struct scan_ctx *sc, const char *const *args, struct hook_buf *out)
{
	size_t n = 0, na = 0;
	int rc;

	while (args[na])
		na++;
	const char **a = calloc(na + (size_t)sc->o->n_paths + 2, sizeof(*a));
	if (!a)
		return -1;
	while (*args)
		a[n++] = *args++;
	a[n++] = "--";
	for (int i = 0; i < sc->o->n_paths; i++)
		a[n++] = sc->o->paths[i];
	a[n] = NULL;
	/* no path: the whole repository, wherever in it dcg runs (ls-files lists only
	 * the folder it runs in) */
	rc = git_capture(sc->o->n_paths ? NULL : sc->root, a, -1, out);
	free(a);
	return rc;
}

/* --diff: the changed lines of each file, from `git diff -U0 REV`. */
static void diff_ranges(struct scan_ctx *sc, struct scan_files *f)
{
	const char *args[] = {"diff",	      "-U0",	       "--no-color", "--no-ext-diff",
			      "--no-renames", sc->o->diff_rev, NULL};
	struct hook_buf out = HOOK_BUF_INIT;
	struct scan_file *cur = NULL;

	if (git_list(sc, args, &out) != 0 || !out.s) {
		hook_buf_release(&out);
		return;
	}
	for (char *l = out.s, *e; l && *l; l = e ? e + 1 : NULL) {
		e = strchr(l, '\n');
		if (e)
			*e = '\0';
		if (!strncmp(l, "+++ ", 4)) {
			const char *name = !strncmp(l + 4, "b/", 2) ? l + 6 : l + 4;
			cur = NULL;
			for (size_t i = 0; i < f->n && !cur; i++)
				if (!strcmp(f->v[i].path, name))
					cur = &f->v[i];
		} else if (cur && !strncmp(l, "@@ ", 3)) {
			char *p = strchr(l + 3, '+');
			unsigned long start = p ? strtoul(p + 1, &p, 10) : 0, cnt = 1;
			if (p && *p == ',')
				cnt = strtoul(p + 1, NULL, 10);
			unsigned *nr =
			    cnt ? realloc(cur->ranges, (cur->n_ranges + 2) * sizeof(*nr)) : NULL;
			if (!nr)
				continue;
			cur->ranges = nr;
			nr[cur->n_ranges++] = (unsigned)start;
			nr[cur->n_ranges++] = (unsigned)(start + cnt - 1);
		}
	}
	hook_buf_release(&out);
}

static int list_git(struct scan_ctx *sc, struct scan_files *f)
{
	static const char *const tracked[] = {"ls-files", "-z", "--full-name", NULL};
	static const char *const all[] = {
	    "ls-files", "-z", "--full-name", "--cached", "--others", "--exclude-standard", NULL};
	static const char *const staged[] = {
	    "diff", "--cached", "--name-only", "-z", "--diff-filter=ACMR", "--no-renames", NULL};
	const char *diff[] = {"diff",	      "--name-only",   "-z", "--diff-filter=ACMR",
			      "--no-renames", sc->o->diff_rev, NULL};
	struct hook_buf out = HOOK_BUF_INIT;
	int rc = git_list(sc,
			  sc->o->staged	    ? staged
			  : sc->o->diff_rev ? diff
			  : sc->o->all	    ? all
					    : tracked,
			  &out);

	if (rc != 0) {
		fprintf(stderr, "dcg scan: git could not list the files%s%s\n",
			sc->o->diff_rev ? " changed since " : "",
			sc->o->diff_rev ? sc->o->diff_rev : "");
		hook_buf_release(&out);
		return -1;
	}
	rc = files_from_z(f, out.s ? out.s : "", out.len);
	hook_buf_release(&out);
	if (!rc && sc->o->diff_rev)
		diff_ranges(sc, f);
	return rc;
}

/* ---- reading ---------------------------------------------------------------------------- */

/* Outside a repository: the files under each path, never following a symbolic link
 * (a link loop is only a link), .git folders left out. */
static int walk(const char *path, struct scan_files *f, int depth)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (lstat(path, &st)) {
		fprintf(stderr, "dcg scan: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return files_add(f, path, strlen(path));
	if (depth > 64 || !(d = opendir(path)))
		return 0;
	while ((de = readdir(d)) && !rc) {
		char sub[PATH_MAX];
		int n;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, ".git"))
			continue;
		if (!strcmp(path, ".")) /* names relative to the working directory */
			n = snprintf(sub, sizeof(sub), "%s", de->d_name);
		else
			n = snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (n > 0 && (size_t)n < sizeof(sub))
			rc = walk(sub, f, depth + 1);
	}
	closedir(d);
	return rc;
}

/* The working tree's file: regular files only (a symbolic link is not followed), at
 * most SCAN_FILE_MAX bytes. Returns 0, 1 to skip quietly, -1 after saying why. */
static int read_disk(struct scan_ctx *sc, const char *rel, char **text, size_t *len)
{
	char abs[PATH_MAX];
	int rc;

	struct stat st;

	if (snprintf(abs, sizeof(abs), "%s/%s", sc->root, rel) >= (int)sizeof(abs))
		return 1;
	if (lstat(abs, &st) == 0 && S_ISLNK(st.st_mode)) {
		if (stat(abs, &st) && errno == ELOOP)
			fprintf(stderr, "dcg scan: %s: a symbolic link loop: not followed\n", rel);
		return 1; /* its target is scanned where it lies */
	}
	rc = pol_read_file(abs, SCAN_FILE_MAX, 1, text, len);
	if (rc == -EFBIG) {
		fprintf(stderr, "dcg scan: %s: larger than %u MiB: not checked\n", rel,
			SCAN_FILE_MAX >> 20);
		return -1;
	}
	if (rc == -EINVAL || rc == -ENOENT || rc == -EISDIR || rc == -ELOOP)
		return 1; /* a link, a device, gone since listed: nothing that runs */
	if (rc) {
		fprintf(stderr, "dcg scan: %s: %s\n", rel, strerror(-rc));
		return -1;
	}
	return 0;
}

/* ---- policies ------------------------------------------------------------------------- */

/* The policy in force in dir (absolute): the layered load from there, one per project
 * file (the nearest .dcg/policy.yaml above dir), its tightening always, its loosening
 * only when trusted, as for every command. NULL when none could be built. */
static struct pol_policy *policy_for(struct scan_ctx *sc, const char *dir)
{
	char probe[PATH_MAX], key[PATH_MAX] = "";
	size_t n;
	struct scan_pol *np;

	if (sc->last_pol && !strcmp(dir, sc->last_dir))
		return sc->last_pol;
	n = strlen(dir);
	if (n >= sizeof(probe))
		return NULL;
	memcpy(probe, dir, n + 1);
	for (;;) {
		char f[PATH_MAX];
		if (snprintf(f, sizeof(f), "%s/.dcg/policy.yaml", n ? probe : "") <
			(int)sizeof(f) &&
		    access(f, F_OK) == 0) {
			memcpy(key, f, strlen(f) + 1);
			break;
		}
		while (n && probe[n - 1] != '/')
			n--;
		if (!n)
			break;
		probe[--n] = '\0';
	}
	size_t i = 0;
	while (i < sc->n_pols && strcmp(sc->pols[i].key, key))
		i++;
	if (i == sc->n_pols) {
		np = realloc(sc->pols, (sc->n_pols + 1) * sizeof(*np));
		if (!np)
			return NULL;
		sc->pols = np;
		np[i].key = strdup(key);
		np[i].p = hook_policy_open(sc->o->policy, dir, stderr);
		if (!np[i].key || !np[i].p) {
			free(np[i].key);
			pol_free(np[i].p);
			return NULL;
		}
		hook_print_trust_notes(stderr, np[i].p, 1);
		sc->n_pols++;
	}
	snprintf(sc->last_dir, sizeof(sc->last_dir), "%s", dir);
	sc->last_pol = sc->pols[i].p;
	return sc->last_pol;
}

/* ---- judging ---------------------------------------------------------------------------- */

struct judge {
	struct scan_ctx *sc;
	const struct scan_file *file;
	const struct scan_snip *snip;
	const char *text; /* the file's */
	size_t len;
	enum scan_kind kind;
	const struct pol_policy *p;
	const char *dir;
	int failed;
	unsigned unread, unread_line; /* lines the analyser could not read, and the first */
	const char *unread_rule;
};

/* The analyser's own "cannot read this" rules: a syntax it does not know is no harm
 * found (the hook refuses it from an agent; a file keeps what it could read judged). */
static int unreadable(const char *rule_id)
{
	return !strncmp(rule_id, "shell.parse.", 12) || !strcmp(rule_id, "shell.analysis_failed");
}

/* The file's line n (1-based): its start, and its length in *n_out. */
static const char *file_line(const struct judge *j, unsigned n, size_t *n_out)
{
	const char *p = j->text, *end = j->text + j->len, *nl;

	while (--n && p < end && (nl = memchr(p, '\n', (size_t)(end - p))))
		p = nl + 1;
	if (n || p >= end) {
		*n_out = 0;
		return NULL;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	*n_out = nl ? (size_t)(nl - p) : (size_t)(end - p);
	return p;
}

static unsigned codepoints(const char *s, size_t n)
{
	unsigned c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

/* Where a finding lies: the snippet's line the engine names (exact snippets) or its
 * first line, then the first line of its span that holds the word the finding starts
 * with (the command's name, or the path's last part), whose column it takes; else the
 * line's first character. */
static void locate(const struct judge *j, const struct pol_result *r, unsigned *line, unsigned *col)
{
	const struct scan_snip *sn = j->snip;
	unsigned l = sn->line, last;
	char word[128];
	size_t wn = 0, n;
	const char *w = r->detection == POL_DET_PATH ? strrchr(r->path, '/') : NULL;

	w = w ? w + 1 : r->matched;
	while (*w == ' ')
		w++;
	while (w[wn] && w[wn] != ' ' && wn < sizeof(word) - 1) {
		word[wn] = w[wn];
		wn++;
	}
	word[wn] = '\0';
	if (sn->exact && r->cmd_line > 1)
		l = sn->line + r->cmd_line - 1;
	last = sn->exact ? l : sn->end_line;
	for (unsigned k = l; wn && k <= last; k++) {
		const char *s = file_line(j, k, &n), *hit;
		size_t from = k == sn->line && sn->col ? sn->col - 1 : 0;
		while (s && from < n && (hit = memmem(s + from, n - from, word, wn))) {
			size_t at = (size_t)(hit - s);
			/* a word of its own, not a part of one (sh in install.sh) */
			if ((at == 0 || strchr(" \t;&|(\"'`=[,{@+-/", s[at - 1])) &&
			    (at + wn == n || strchr(" \t;&|)\"'`]},\\", s[at + wn]))) {
				*line = k;
				*col = codepoints(s, at) + 1;
				return;
			}
			from = at + 1;
		}
	}
	*line = l;
	const char *s = file_line(j, l, &n);
	size_t i = 0;
	while (s && i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	*col = l == sn->line && sn->col ? sn->col : s ? codepoints(s, i) + 1 : 1;
}

/* A path finding counts in a scan when the command destroys what a rule protects: a
 * secret touched (zero-access: read, listed, run, deleted, moved, emptied; a new one
 * written is a setup step: cp .env.example .env), a no-delete path deleted or moved
 * away, a read-only file emptied (> ~/.bashrc). Installing into /usr/local, removing
 * what an install put there or editing /etc is what such a script is for, run by its
 * user: the read-only lists keep those from an agent, not from the repository's own
 * install and uninstall steps (a whole system folder is rm_root's). */
static int path_counts(const struct judge *j, const struct pol_result *r)
{
	if (r->detection != POL_DET_PATH)
		return 1;
	/* a container's or a CI runner's files are not this machine's */
	if (j->kind == SCAN_DOCKER || j->kind == SCAN_COMPOSE || j->kind == SCAN_GHA ||
	    j->kind == SCAN_GITLAB)
		return 0;
	switch (r->path_kind) {
	case POL_PATH_ZERO_ACCESS:
		return r->op != POL_OP_WRITE && r->op != POL_OP_CREATE;
	case POL_PATH_NO_DELETE:
		if (r->op != POL_OP_DELETE && r->op != POL_OP_RENAME_FROM)
			return 0;
		/* A folder that holds one (find . -name '*.pyc' -delete: .git is
		 * beneath): its files are chosen by an expression the scan cannot run;
		 * a whole tree's deletion is rm_root's (., ~, /, a system folder). */
		struct pol_ctx ctx;
		struct pol_result self;
		memset(&ctx, 0, sizeof(ctx));
		ctx.cwd = j->dir;
		int hit = pol_check_path(j->p, r->path, r->op, POL_PATH_NOFOLLOW, &ctx, &self) !=
			  POL_ALLOW;
		pol_result_release(&self);
		return hit;
	case POL_PATH_READ_ONLY:
		return r->op == POL_OP_TRUNCATE;
	}
	return 1;
}

static int in_ranges(const struct scan_file *f, unsigned line)
{
	for (size_t i = 0; i + 1 < f->n_ranges; i += 2)
		if (line >= f->ranges[i] && line <= f->ranges[i + 1])
			return 1;
	return 0;
}

static void on_finding(const struct pol_result *r, void *arg)
{
	struct judge *j = arg;
	struct scan_report *rep = &j->sc->rep;
	struct scan_finding f;

	if (r->decision < POL_WARN || !r->rule_id || !path_counts(j, r))
		return;
	memset(&f, 0, sizeof(f));
	locate(j, r, &f.line, &f.col);
	if (j->sc->o->diff_rev && !in_ranges(j->file, f.line))
		return;
	if (unreadable(r->rule_id)) {
		if (!j->unread++ || f.line < j->unread_line) {
			j->unread_line = f.line;
			j->unread_rule = r->rule_id;
		}
		return;
	}
	/* One finding per line, the worst: a command that several rules refuse (rm -rf /:
	 * rm_root, rm_rf, rm_force, delete_wide and the root's path rule) is one line to
	 * fix, as the hook says it once. */
	struct scan_finding *same = NULL;
	for (size_t i = rep->n; i-- > 0 && !strcmp(rep->v[i].file, j->file->path);)
		if (rep->v[i].line == f.line)
			same = &rep->v[i];
	if (same && (same->decision > (int)r->decision ||
		     (same->decision == (int)r->decision && same->severity >= (int)r->severity)))
		return;
	f.file = j->file->path;
	f.decision = (int)r->decision;
	f.severity = (int)r->severity;
	f.rule_id = r->rule_id;
	f.reason = r->reason ? r->reason : "";
	f.suggestions = r->suggestions;
	f.n_suggestions = r->n_suggestions;
	f.matched = (char *)(r->detection == POL_DET_PATH && !r->matched[0] ? r->path : r->matched);
	f.kind = j->kind;
	snprintf(f.where, sizeof(f.where), "%s", j->snip->where);
	if (same) { /* replaced by the worse */
		char *m = strdup(f.matched);
		if (!m) {
			j->failed = 1;
			return;
		}
		free(same->matched);
		f.file = same->file;
		f.matched = m;
		*same = f;
		return;
	}
	if (scan_report_add(rep, &f))
		j->failed = 1;
}

static void judge_snip(struct judge *j, struct pol_policy *p, const char *dir)
{
	struct pol_ctx ctx;
	struct pol_result r;

	memset(&ctx, 0, sizeof(ctx));
	ctx.cwd = dir;
	ctx.flags = POL_CTX_SCAN;
	ctx.finding = on_finding;
	ctx.finding_arg = j;
	if (j->snip->is_argv) {
		char *argv[256];
		size_t n = 0;
		for (size_t i = 0; i < j->snip->len && n < 255; i += strlen(j->snip->text + i) + 1)
			argv[n++] = j->snip->text + i;
		argv[n] = NULL;
		pol_check_argv(p, argv, &ctx, &r);
	} else {
		pol_check_command(p, j->snip->text, j->snip->len, &ctx, &r);
	}
	pol_result_release(&r);
}

/* One file's content: what runs in it, judged. Returns 0, or -1 when it could not be
 * checked (said on stderr). */
static int scan_text(struct scan_ctx *sc, const struct scan_file *file, char *text, size_t len)
{
	struct scan_snips sn = {0};
	struct judge j = {sc, file, NULL, text, len, SCAN_NONE, NULL, NULL, 0, 0, 0, NULL};
	char err[160], dir[PATH_MAX];
	const char *slash = strrchr(file->path, '/');
	struct pol_policy *p;
	int rc;

	sc->rep.files++;
	j.kind = scan_classify(file->path, text, len < 256 ? len : 256);
	if (j.kind == SCAN_NONE)
		return 0;
	for (size_t i = 0; i < len; i++)
		sc->rep.lines += text[i] == '\n';
	if (memchr(text, '\0', len)) {
		fprintf(stderr, "dcg scan: %s: a binary file (NUL bytes): not checked\n",
			file->path);
		return 0;
	}
	if (!pol_utf8_valid(text, len)) { /* judged with each bad byte as '?' */
		fprintf(stderr, "dcg scan: %s: not valid UTF-8: each bad byte read as '?'\n",
			file->path);
		for (size_t i = 0; i < len;) {
			size_t c = pol_utf8_char(text + i, len - i);
			if (c) {
				i += c;
			} else {
				text[i++] = '?';
			}
		}
	}
	rc = scan_extract(j.kind, text, len, &sn, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "dcg scan: %s: %s: not checked\n", file->path,
			rc == -ENOMEM ? "out of memory" : err);
		scan_snips_release(&sn);
		return -1;
	}
	size_t rl = strlen(sc->root), dl = slash ? (size_t)(slash - file->path) : 0;
	if (rl + 1 + dl >= sizeof(dir))
		return 0;
	memcpy(dir, sc->root, rl);
	dir[rl] = '/';
	memcpy(dir + rl + 1, file->path, dl);
	dir[rl + (dl ? 1 + dl : 0)] = '\0';
	if (!dir[0])
		memcpy(dir, "/", 2);
	p = sn.n ? policy_for(sc, dir) : NULL;
	j.p = p;
	j.dir = dir;
	for (size_t i = 0; p && i < sn.n; i++) {
		j.snip = &sn.v[i];
		judge_snip(&j, p, dir);
	}
	size_t n_snips = sn.n;
	scan_snips_release(&sn);
	if (j.unread) {
		fprintf(stderr,
			"dcg scan: %s:%u: a syntax the analyser does not read (%s), %u place%s: "
			"what it could read is checked\n",
			file->path, j.unread_line, j.unread_rule, j.unread,
			j.unread > 1 ? "s" : "");
		j.failed |= scan_report_note(&sc->rep, file->path, j.unread_line, j.unread,
					     j.unread_rule) != 0;
	}
	if (n_snips && !p) {
		fprintf(stderr, "dcg scan: %s: no policy could be built: not checked\n",
			file->path);
		return -1;
	}
	return j.failed ? -1 : 0;
}

/* ---- the files' content -------------------------------------------------------------- */

static int scan_disk(struct scan_ctx *sc, struct scan_files *f)
{
	int errors = 0;

	for (size_t i = 0; i < f->n; i++) {
		char *text = NULL;
		size_t len = 0;
		int rc = read_disk(sc, f->v[i].path, &text, &len);
		if (rc == 0)
			rc = scan_text(sc, &f->v[i], text, len);
		errors += rc < 0;
		free(text);
	}
	return errors;
}

/* --staged: each file's blob in the index (`git ls-files -s`), all read by one
 * `git cat-file --batch`. Symbolic links and submodules are not read. */
static int staged_shas(struct scan_ctx *sc, struct scan_files *f, FILE *req)
{
	static const char *const args[] = {"ls-files", "-s", "-z", "--full-name", NULL};
	struct hook_buf out = HOOK_BUF_INIT;
	size_t k = 0;

	if (git_list(sc, args, &out) != 0) {
		hook_buf_release(&out);
		return -1;
	}
	/* "MODE SHA STAGE\tPATH\0", in the order of the index, as the diff's names are */
	for (size_t i = 0; out.s && i < out.len; i += strlen(out.s + i) + 1) {
		char *tab = strchr(out.s + i, '\t');
		if (!tab || strncmp(out.s + i, "100", 3))
			continue;
		for (size_t j = 0; j < f->n; j++) {
			size_t at = (k + j) % f->n;
			if (!f->v[at].sha[0] && !strcmp(f->v[at].path, tab + 1)) {
				snprintf(f->v[at].sha, sizeof(f->v[at].sha), "%.*s", 40,
					 out.s + i + 7);
				fprintf(req, "%s\n", f->v[at].sha);
				k = at + 1;
				break;
			}
		}
	}
	hook_buf_release(&out);
	return 0;
}

static int scan_staged(struct scan_ctx *sc, struct scan_files *f)
{
	static const char *const args[] = {"cat-file", "--batch", NULL};
	struct hook_buf out = HOOK_BUF_INIT;
	FILE *req = tmpfile();
	int errors = 0;
	size_t pos = 0;

	if (!req || staged_shas(sc, f, req) || fflush(req) || fseek(req, 0, SEEK_SET) ||
	    git_capture(NULL, args, fileno(req), &out) != 0) {
		fprintf(stderr, "dcg scan: git could not read the index\n");
		if (req)
			fclose(req);
		hook_buf_release(&out);
		return -1;
	}
	fclose(req);
	for (size_t i = 0; i < f->n; i++) {
		char *sp, *nl;
		unsigned long size;
		if (!f->v[i].sha[0])
			continue;
		/* "SHA blob SIZE\n" CONTENT "\n" */
		nl = out.s ? memchr(out.s + pos, '\n', out.len - pos) : NULL;
		sp = nl ? memrchr(out.s + pos, ' ', (size_t)(nl - out.s - pos)) : NULL;
		if (!sp || strncmp(out.s + pos, f->v[i].sha, 40)) {
			fprintf(stderr, "dcg scan: %s: not in the index\n", f->v[i].path);
			errors++;
			break;
		}
		size = strtoul(sp + 1, NULL, 10);
		pos = (size_t)(nl - out.s) + 1;
		if (size > out.len - pos)
			break;
		if (size > SCAN_FILE_MAX) {
			fprintf(stderr, "dcg scan: %s: larger than %u MiB: not checked\n",
				f->v[i].path, SCAN_FILE_MAX >> 20);
			errors++;
		} else {
			char *text = strndup(out.s + pos, size);
			/* strndup stops at a NUL: a binary blob is copied whole */
			if (text && strlen(text) < size) {
				free(text);
				text = malloc(size + 1);
				if (text) {
					memcpy(text, out.s + pos, size);
					text[size] = '\0';
				}
			}
			errors += !text || scan_text(sc, &f->v[i], text, size) < 0;
			free(text);
		}
		pos += size + 1;
	}
	hook_buf_release(&out);
	return errors;
}

/* ---- the pre-commit hook ------------------------------------------------------------------ */

static const char hook_mark[] = "# dcg scan --install-hook";

/* Writes the repository's pre-commit hook (where git looks for it: core.hooksPath
 * honoured), running this dcg on what the commit adds. A hook that is not dcg's stays
 * unless --force. */
static int install_hook(struct scan_ctx *sc)
{
	static const char *const args[] = {"rev-parse", "--git-path", "hooks/pre-commit", NULL};
	struct hook_buf out = HOOK_BUF_INIT, body = HOOK_BUF_INIT;
	char self[PATH_MAX], *old = NULL;
	size_t old_len;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int rc = 1;

	if (n <= 0 || git_capture(NULL, args, -1, &out) != 0 || !out.s) {
		fprintf(stderr, "dcg scan: --install-hook: not in a git repository\n");
		goto out;
	}
	self[n] = '\0';
	out.s[strcspn(out.s, "\n")] = '\0';
	if (!pol_read_file(out.s, 1 << 20, 0, &old, &old_len) && !strstr(old, hook_mark) &&
	    !sc->o->force) {
		fprintf(stderr,
			"dcg scan: %s exists and is not dcg's: left as it is (--force replaces "
			"it; or call `dcg scan --staged` from it)\n",
			out.s);
		goto out;
	}
	hook_buf_addf(&body,
		      "#!/bin/sh\n%s\n# Checks what the commit adds with dcg's policy; "
		      "`git commit --no-verify` skips it.\nexec '%s' scan --staged\n",
		      hook_mark, self);
	if (body.oom || hook_write_atomic(out.s, body.s, body.len, 0755)) {
		fprintf(stderr, "dcg scan: %s: could not write it\n", out.s);
		goto out;
	}
	chmod(out.s, 0755);
	printf("dcg scan: wrote %s (runs %s scan --staged)\n", out.s, self);
	rc = 0;
out:
	free(old);
	hook_buf_release(&body);
	hook_buf_release(&out);
	return rc;
}

/* ---- the command ---------------------------------------------------------------------------- */

static int scan_files_of(struct scan_ctx *sc, struct scan_files *f)
{
	static const char *const top[] = {"rev-parse", "--show-toplevel", NULL};
	struct hook_buf out = HOOK_BUF_INIT;

	sc->in_git = git_capture(NULL, top, -1, &out) == 0 && out.s && out.s[0] == '/';
	if (sc->in_git) {
		out.s[strcspn(out.s, "\n")] = '\0';
		snprintf(sc->root, sizeof(sc->root), "%s", out.s);
	}
	hook_buf_release(&out);
	if (sc->in_git)
		return list_git(sc, f);
	if (sc->o->staged || sc->o->diff_rev) {
		fprintf(stderr, "dcg scan: --staged and --diff need a git repository\n");
		return -1;
	}
	if (!getcwd(sc->root, sizeof(sc->root)))
		return -1;
	if (!sc->o->n_paths)
		return walk(".", f, 0);
	for (int i = 0; i < sc->o->n_paths; i++) {
		if (sc->o->paths[i][0] == '/') {
			sc->root[0] = '\0'; /* absolute paths: the root is / */
		}
		if (walk(sc->o->paths[i], f, 0))
			return -1;
	}
	return 0;
}

static int exit_status(const struct scan_ctx *sc, int errors)
{
	int worst = POL_ALLOW;

	for (size_t i = 0; i < sc->rep.n; i++)
		if (sc->rep.v[i].decision > worst)
			worst = sc->rep.v[i].decision;
	if (sc->o->fail_on != FAIL_NEVER && worst >= sc->o->fail_on)
		return 2;
	return errors ? 1 : 0;
}

int cmd_scan(int argc, char **argv)
{
	struct scan_opts o;
	struct scan_ctx *sc;
	struct scan_files f = {0};
	int rc = parse_opts(argc, argv, &o), errors = 0;

	if (rc)
		return rc > 0 ? 0 : 1;
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return 1;
	sc->o = &o;
	sc->rep.tty = isatty(1);
	if (o.install_hook) {
		rc = install_hook(sc);
		goto out;
	}
	rc = 1;
	if (scan_files_of(sc, &f))
		goto out;
	errors = o.staged ? scan_staged(sc, &f) : scan_disk(sc, &f);
	if (errors < 0)
		goto out;
	sc->rep.errors = (size_t)errors;
	if (scan_report_write(&sc->rep, o.fmt, stdout)) {
		fprintf(stderr, "dcg scan: out of memory\n");
		goto out;
	}
	rc = exit_status(sc, errors);
out:
	files_release(&f);
	scan_report_release(&sc->rep);
	for (size_t i = 0; i < sc->n_pols; i++) {
		free(sc->pols[i].key);
		pol_free(sc->pols[i].p);
	}
	free(sc->pols);
	free(sc);
	return rc;
}
