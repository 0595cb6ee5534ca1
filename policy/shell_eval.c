/* shell_eval.c - the shell's own evaluation, as far as one command line lets it be
 * known: command names assembled from variables ($a$b, with IFS), from a substitution
 * whose output the walk learnt ($(printf %s r m)), positional parameters (set --,
 * sh -c CODE ARG0 ARG1), calls of functions defined in the line, and the fallback for a
 * name nobody can know: its arguments are tried under the names of the commands they
 * look like, so that an unknowable name never lets destructive arguments pass. */
#include "shell_int.h"

#include <string.h>

/* Is the whole word one substitution: $(...) or `...`? */
static int whole_subst(const struct sh_word *w)
{
	if (w->nsub != 1 || !w->sub || w->len < 3 || w->nhome)
		return 0;
	if (w->s[0] == '$' && w->s[1] == '(' && w->s[w->len - 1] == ')')
		return 1;
	return w->s[0] == '`' && w->s[w->len - 1] == '`';
}

static int word_under_tmp(const struct sh_word *w, size_t off)
{
	static const char roots[] = "/tmp/\0"
				    "/var/tmp/\0"
				    "/dev/shm/\0";

	for (const char *r = roots; *r; r += strlen(r) + 1) {
		size_t rl = strlen(r);
		if (w->len - off > rl && !memcmp(w->s + off, r, rl) &&
		    !memmem(w->s + off, w->len - off, "..", 2))
			return 1;
	}
	return 0;
}

int sh_is_mktemp(const struct sh_word *w)
{
	const struct sh_cmd *c;
	const char *nm;
	size_t nl;

	if (!whole_subst(w))
		return 0;
	c = w->sub;
	if (!c->nw || c->pipe_prev)
		return 0;
	sh_base_of(&c->w[0], &nm, &nl);
	if (!sh_name_is(nm, nl, "mktemp"))
		return 0;
	for (size_t i = 1; i < c->nw; i++) {
		const struct sh_word *a = &c->w[i];
		if (a->flags & (W_UNRESOLVED | W_SUBST))
			return 0;
		if (weq(a, "-p") || weq(a, "--tmpdir")) {
			if (weq(a, "--tmpdir"))
				continue; /* $TMPDIR or /tmp */
			if (i + 1 >= c->nw || !word_under_tmp(&c->w[i + 1], 0))
				return 0;
			i++;
		} else if (a->len > 2 && !memcmp(a->s, "-p", 2)) {
			if (!word_under_tmp(a, 2))
				return 0;
		} else if (a->len > 9 && !memcmp(a->s, "--tmpdir=", 9)) {
			if (!word_under_tmp(a, 9))
				return 0;
		} else if (a->s[0] != '-' && memchr(a->s, '/', a->len) && !word_under_tmp(a, 0)) {
			return 0; /* a template with a folder of its own */
		}
	}
	return 1;
}

void sh_set_positional(struct sh_an *P, struct sh_word **v, size_t n, int zero)
{
	static const char *const names = "0123456789";
	size_t k = zero ? 0 : 1, len;
	char *all;

	for (size_t i = 0; i < n && k <= 9; i++, k++) {
		char *val = sh_join_expanded(P, v + i, 1, &len);
		sh_set_var(P, names + k, 1, val, val ? len : 0);
	}
	for (; k <= 9; k++)
		sh_set_var(P, names + k, 1, NULL, 0);
	if (zero && n) {
		v++;
		n--;
	}
	all = n ? sh_join_expanded(P, v, n, &len) : NULL;
	sh_set_var(P, "@", 1, all, all ? len : 0);
	sh_set_var(P, "*", 1, all, all ? len : 0);
}

/* The name of a word whose variables are all known, with IFS splitting applied. */
static char *expanded_name(struct sh_an *P, const struct sh_word *w, size_t *len)
{
	size_t il;
	const char *ifs;
	char *s;

	if (!w->nhome || (w->flags & (W_UNRESOLVED | W_PROCSUB)))
		return NULL;
	for (unsigned i = 0; i < w->nhome; i++)
		if (w->var_nlen[i] == 4 && !memcmp(w->var_name[i], "HOME", 4))
			return NULL; /* a path under $HOME: the word is its own name */
	for (unsigned i = 0; i < w->nhome; i++)
		if (!sh_var_value(P, w->var_name[i], w->var_nlen[i], &il))
			return NULL;
	s = sh_join_expanded(P, (struct sh_word **)&w, 1, len);
	if (!s)
		return NULL;
	ifs = sh_var_value(P, "IFS", 3, &il);
	if (ifs && !(w->flags & W_QUOTED))
		for (size_t i = 0; i < *len; i++)
			if (memchr(ifs, s[i], il))
				s[i] = ' ';
	return s;
}

/* Runs a function defined earlier in the line with this call's arguments. */
static int call_function(struct sh_an *P, struct nc *x)
{
	for (size_t i = 0; i < P->nfnames; i++) {
		if (!x->nlen || !P->fnames[i].s || P->fnames[i].len != x->nlen ||
		    memcmp(P->fnames[i].s, x->name, x->nlen) || !P->fbody[i].body)
			continue;
		if (P->fbody[i].expanded >= 4) /* recursion: the body was seen */
			return 1;
		P->fbody[i].expanded++;
		sh_set_positional(P, x->v + 1, x->n - 1, 0);
		sh_analyze_string(P, P->fbody[i].body, P->fbody[i].len, x->depth + 1,
				  P->fbody[i].line, x->remote);
		return 1;
	}
	return 0;
}

int sh_eval_name(struct sh_an *P, struct nc *x)
{
	struct sh_word *w0 = x->v[0];
	const char *name = NULL;
	size_t nl = 0, rl = 0;
	char *rest, *cmd;

	if (call_function(P, x))
		return 1;
	if (whole_subst(w0)) {
		const struct sh_cmd *s = w0->sub;
		if (s->upstream_dl) {
			sh_emit_finding(P, "remote-exec.pipe_to_shell", w0->s, w0->len, x->line,
					x->depth);
		} else if (s->upstream_decode) {
			sh_emit_finding(P, "remote-exec.decode_to_shell", w0->s, w0->len, x->line,
					x->depth);
		} else if (s->feed) {
			name = s->feed;
			nl = s->feed_len;
			while (nl && (name[nl - 1] == '\n' || name[nl - 1] == ' '))
				nl--;
		}
	} else {
		name = expanded_name(P, w0, &nl);
	}
	if (!name || !nl)
		return 0;
	rest = x->n > 1 ? sh_join_expanded(P, x->v + 1, x->n - 1, &rl) : NULL;
	cmd = sh_alloc(P, nl + 1 + rl + 1);
	if (!cmd)
		return 1;
	memcpy(cmd, name, nl);
	cmd[nl] = ' ';
	if (rest)
		memcpy(cmd + nl + 1, rest, rl);
	cmd[nl + 1 + rl] = '\0';
	sh_analyze_string(P, cmd, nl + 1 + rl, x->depth + 1, x->line, x->remote);
	return 1;
}

/* Do the arguments look like rm's: only rm's options, and at least one operand? */
static int rm_like(struct sh_word **v, size_t n)
{
	static const char longs[] = "--recursive\0"
				    "--force\0"
				    "--dir\0"
				    "--verbose\0"
				    "--no-preserve-root\0"
				    "--interactive\0"
				    "--one-file-system\0"
				    "--\0";
	int operand = 0;

	for (size_t i = 1; i < n; i++) {
		const struct sh_word *w = v[i];
		if (w->len > 1 && w->s[0] == '-' && w->s[1] == '-') {
			if (!sh_word_is(w, longs))
				return 0;
		} else if (w->len > 1 && w->s[0] == '-') {
			if (strspn(w->s + 1, "rRfdivI") != w->len - 1)
				return 0;
		} else {
			operand = 1;
		}
	}
	return operand;
}

/* Which commands the arguments of an unknown name fit. */
static int fits(const char *name, struct sh_word **v, size_t n)
{
	static const char git_subs[] = "reset\0"
				       "push\0"
				       "clean\0"
				       "checkout\0"
				       "switch\0"
				       "restore\0"
				       "stash\0"
				       "branch\0"
				       "reflog\0"
				       "gc\0"
				       "prune\0"
				       "filter-branch\0"
				       "filter-repo\0"
				       "update-ref\0";
	static const char kube_subs[] = "delete\0"
					"drain\0"
					"replace\0"
					"scale\0";
	static const char tf_subs[] = "destroy\0"
				      "apply\0"
				      "state\0"
				      "workspace\0";

	if (!strcmp(name, "rm"))
		return rm_like(v, n);
	if (!strcmp(name, "git"))
		return sh_word_is(v[1], git_subs);
	if (!strcmp(name, "kubectl"))
		return sh_word_is(v[1], kube_subs);
	if (!strcmp(name, "terraform"))
		return sh_word_is(v[1], tf_subs);
	for (size_t i = 1; i < n; i++) {
		const struct sh_word *w = v[i];
		if ((!strcmp(name, "dd") && w->len > 3 && !memcmp(w->s, "of=", 3)) ||
		    (!strcmp(name, "find") &&
		     (weq(w, "-delete") || weq(w, "-exec") || weq(w, "-execdir"))) ||
		    ((!strcmp(name, "chmod") || !strcmp(name, "chown")) &&
		     (weq(w, "-R") || weq(w, "--recursive"))) ||
		    (!strcmp(name, "rsync") && w->len > 7 && !memcmp(w->s, "--delete", 8)) ||
		    (!strcmp(name, "mv") && (weq(w, "/dev/null") || weq(w, "/tmp/"))))
			return 1;
	}
	return 0;
}

/* Is the name of the word unknown? $X, $(cmd), ${X:-y}; not $(npm bin)/eslint, whose
 * name is the literal after the last slash, nor $HOME/bin/tool. */
static int name_unknown(struct sh_an *P, const struct sh_word *w0)
{
	const char *slash = NULL;
	size_t vl;

	/* the last slash (not memrchr: a libc symbol bound for this alone at every call) */
	for (size_t k = w0->len; k > 0 && !slash; k--)
		if (w0->s[k - 1] == '/')
			slash = w0->s + k - 1;

	if (slash) {
		size_t k = (size_t)(slash - w0->s) + 1;
		if (k < w0->len && !memchr(w0->s + k, '$', w0->len - k) &&
		    !memchr(w0->s + k, '`', w0->len - k) && !memchr(w0->s + k, ')', w0->len - k))
			return 0;
	}
	if (w0->flags & (W_UNRESOLVED | W_SUBST))
		return 1;
	for (unsigned i = 0; i < w0->nhome; i++)
		if (!sh_var_value(P, w0->var_name[i], w0->var_nlen[i], &vl))
			return 1;
	return 0;
}

void sh_unknown_name(struct sh_an *P, struct nc *x, struct sh_word **v, size_t n)
{
	/* commands whose arguments alone say they destroy: rm -rf, git reset --hard,
	 * dd of=/dev/..., find -delete, chmod -R 777, rsync --delete ... */
	static const char names[] = "rm\0"
				    "git\0"
				    "dd\0"
				    "find\0"
				    "chmod\0"
				    "chown\0"
				    "rsync\0"
				    "mv\0"
				    "kubectl\0"
				    "terraform\0";

	int fit = 0;

	if (n < 2 || (!name_unknown(P, v[0]) && !sh_brace_unknown(v[0])))
		return;
	for (const char *nm = names; *nm; nm += strlen(nm) + 1)
		if (fits(nm, v, n)) {
			sh_emit_view(P, x, v, n, x->data, nm, strlen(nm));
			fit = 1;
		}
	(void)fit; /* what the name runs is unknown: its arguments decide, whatever fit */
	sh_unseen(P, x, v, n, "shell.unseen.name");
	for (size_t i = 1; i + 1 < n; i++)
		if (weq(v[i], "-c")) { /* $SHELL -c CODE */
			sh_analyze_string(P, v[i + 1]->s, v[i + 1]->len, x->depth + 1, x->line,
					  x->remote);
			break;
		}
}

int sh_glob_name(struct sh_an *P, struct nc *x)
{
	const char *names[16];
	size_t k = sh_glob_names(x->v[0], names, 16), rl = 0;
	char *rest;

	if (!sh_is_glob(x->v[0]))
		return 0;
	if (!k) { /* the files it matches are not known here */
		sh_unseen(P, x, x->v, x->n, "shell.unseen.name");
		return 0;
	}
	rest = x->n > 1 ? sh_join_expanded(P, x->v + 1, x->n - 1, &rl) : NULL;
	for (size_t i = 0; i < k; i++) {
		size_t nl = strlen(names[i]);
		char *cmd = sh_alloc(P, nl + 1 + rl + 1);
		if (!cmd)
			return 1;
		memcpy(cmd, names[i], nl);
		cmd[nl] = ' ';
		if (rest)
			memcpy(cmd + nl + 1, rest, rl);
		cmd[nl + 1 + rl] = '\0';
		sh_analyze_string(P, cmd, nl + 1 + rl, x->depth + 1, x->line, x->remote);
	}
	return 1;
}

/* A program the table does not know, handed a command the table knows with
 * destructive-looking arguments (entr rm -rf /srv, chronic rm -rf ~): asked. */
void sh_unknown_runner(struct sh_an *P, struct nc *x)
{
	for (size_t i = 1; i + 1 < x->n; i++) {
		const char *nm;
		size_t nl;
		if (x->v[i]->flags & (W_UNRESOLVED | W_SUBST) || x->v[i]->s[0] == '-')
			continue;
		sh_base_of(x->v[i], &nm, &nl);
		if (sh_cmd_lookup(nm, nl) && sh_args_destructive(P, x->v + i, x->n - i)) {
			sh_unseen(P, x, x->v, x->n, "shell.unseen.runner");
			return;
		}
	}
}

/* Arguments that hold positional parameters ("$@", $1) known from set -- or a function
 * call: the command is analysed again with them put in. Returns 1 when it was. */
int sh_eval_positional_args(struct sh_an *P, struct nc *x)
{
	int any = 0;
	size_t vl, len, rl;
	char *rest, *cmd;

	for (size_t i = 1; i < x->n && !any; i++)
		for (unsigned k = 0; k < x->v[i]->nhome; k++) {
			char c = x->v[i]->var_name[k][0];
			size_t vn = x->v[i]->var_nlen[k];
			const char *nm = x->v[i]->var_name[k];
			if ((vn == 1 && ((c >= '0' && c <= '9') || c == '@' || c == '*')) ||
			    (vn > 3 && nm[vn - 1] == ']' &&
			     (nm[vn - 2] == '@' || nm[vn - 2] == '*') &&
			     nm[vn - 3] == '[')) { /* "$@", "${args[@]}" */
				if (!sh_var_value(P, nm, vn, &vl))
					return 0;
				any = 1;
			}
		}
	if (!any || x->depth > SH_MAX_NEST - 2)
		return 0;
	rest = sh_join_expanded(P, x->v + 1, x->n - 1, &rl);
	len = x->v[0]->len;
	cmd = rest ? sh_alloc(P, len + 1 + rl + 1) : NULL;
	if (!cmd)
		return 0;
	memcpy(cmd, x->v[0]->s, len);
	cmd[len] = ' ';
	memcpy(cmd + len + 1, rest, rl);
	cmd[len + 1 + rl] = '\0';
	sh_analyze_string(P, cmd, len + 1 + rl, x->depth + 1, x->line, x->remote);
	return 1;
}
