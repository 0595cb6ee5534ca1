/* shell_rebind.c - what rebinds a name within one command line: alias (the shell
 * expands it for a later line, or with expand_aliases; dcg assumes it does), hash -p
 * PATH NAME, enable -f FILE NAME (a builtin loaded from a file nobody has read), a
 * copy of or link to a program (cp /bin/rm ./tidy; ln -s /bin/rm x), and the variables
 * whose value a shell or a program runs later as code (PROMPT_COMMAND, PS1..PS4,
 * BASH_ENV, ENV, PAGER, EDITOR, GIT_SSH_COMMAND ...). Functions and
 * command_not_found_handle are parsed where they are defined (shell_parse.c) and
 * called with their arguments (shell_eval.c); trap CODE SIG is a row of sh_runs. */
#include "shell_int.h"

#include <string.h>

enum {
	RB_ALIAS = 1, /* the name runs value (shell text) and its arguments */
	RB_PATH,      /* the name or path runs the program at value (hash -p, cp, ln) */
	RB_UNKNOWN,   /* the name runs something dcg cannot see */
};

#define SH_MAX_ALIAS_USES 16 /* alias expansions per command line */

/* A path as the lookup compares it: "./x" is "x". */
static const char *key_of(const char *p, size_t *len)
{
	while (*len > 2 && p[0] == '.' && p[1] == '/') {
		p += 2;
		*len -= 2;
	}
	return p;
}

static void rebind_set(struct sh_an *P, int kind, const char *name, size_t nlen, const char *value,
		       size_t vlen)
{
	size_t o = 0;

	for (size_t i = 0; i < P->nrebinds; i++) /* a new binding replaces the old one */
		if (!(P->rebinds[i].nlen == nlen && !memcmp(P->rebinds[i].name, name, nlen)))
			P->rebinds[o++] = P->rebinds[i];
	P->nrebinds = o;
	if (!kind)
		return;
	if (P->nrebinds == SH_MAX_REBINDS) {
		memmove(P->rebinds, P->rebinds + 1, (SH_MAX_REBINDS - 1) * sizeof(P->rebinds[0]));
		P->nrebinds--;
	}
	P->rebinds[P->nrebinds].kind = kind;
	P->rebinds[P->nrebinds].name = name;
	P->rebinds[P->nrebinds].nlen = nlen;
	P->rebinds[P->nrebinds].value = value;
	P->rebinds[P->nrebinds].vlen = vlen;
	P->nrebinds++;
}

/* A word's value with known variables put in, or NULL when a part is unknown. */
static char *known(struct sh_an *P, const struct sh_word *w, size_t *len)
{
	struct sh_word *wp = (struct sh_word *)w;

	if (w->flags & (W_UNRESOLVED | W_SUBST | W_PROCSUB))
		return NULL;
	for (unsigned i = 0; i < w->nhome; i++)
		if (!sh_var_value(P, w->var_name[i], w->var_nlen[i], len))
			return NULL;
	return sh_join_expanded(P, &wp, 1, len);
}

void sh_rebind_cmd(struct sh_an *P, struct nc *x)
{
	size_t i = 1, len;
	char *v;

	if (NM("alias")) { /* alias NAME=VALUE ... */
		for (; i < x->n; i++) {
			const struct sh_word *w = x->v[i];
			const char *eq = memchr(w->s, '=', w->len);
			struct sh_word val;
			size_t nl;
			if (!eq || eq == w->s)
				continue;
			nl = (size_t)(eq - w->s);
			sh_sub_word(w, nl + 1, &val);
			v = known(P, &val, &len);
			rebind_set(P, v ? RB_ALIAS : RB_UNKNOWN, w->s, nl, v, v ? len : 0);
		}
	} else if (NM("unalias")) {
		for (; i < x->n; i++)
			if (weq(x->v[i], "-a"))
				P->nrebinds = 0;
			else
				rebind_set(P, 0, x->v[i]->s, x->v[i]->len, NULL, 0);
	} else if (NM("hash")) { /* hash -p PATH NAME, hash -r, hash -d NAME */
		if (x->n >= 4 && weq(x->v[1], "-p")) {
			v = known(P, x->v[2], &len);
			rebind_set(P, v ? RB_PATH : RB_UNKNOWN, x->v[3]->s, x->v[3]->len, v,
				   v ? len : 0);
		} else if (x->n >= 3 && weq(x->v[1], "-d")) {
			rebind_set(P, 0, x->v[2]->s, x->v[2]->len, NULL, 0);
		}
	} else if (NM("enable")) { /* enable -f FILE NAME ...: builtins from a file */
		int f = 0;
		for (; i < x->n; i++) {
			const struct sh_word *w = x->v[i];
			if (w->len > 1 && w->s[0] == '-') {
				f |= memchr(w->s, 'f', w->len) != NULL;
				if (memchr(w->s, 'f', w->len))
					i++; /* the file */
				continue;
			}
			if (f)
				rebind_set(P, RB_UNKNOWN, w->s, w->len, NULL, 0);
		}
	}
}

void sh_copy_record(struct sh_an *P, const struct sh_word *src, const struct sh_word *dst, int into)
{
	size_t sl = 0, dl, bl = 0;
	const char *s = NULL, *b;
	char *d, *key;
	int kind = RB_PATH;

	if (src->nsub == 1 && src->sub && src->sub->nw == 2) { /* $(which rm), $(command -v rm) */
		const struct sh_cmd *c = src->sub;
		if (weq(&c->w[0], "which") || weq(&c->w[0], "type"))
			s = c->w[1].s, sl = c->w[1].len;
	} else if (src->nsub == 1 && src->sub && src->sub->nw == 3 &&
		   weq(&src->sub->w[0], "command") && weq(&src->sub->w[1], "-v")) {
		s = src->sub->w[2].s, sl = src->sub->w[2].len;
	}
	if (!s && (s = known(P, src, &sl)) && !memchr(s, '/', sl)) {
		char *rel = sh_alloc(P, sl + 3); /* cp run.sh x: ./x runs ./run.sh */
		if (rel) {
			memcpy(rel, "./", 2);
			memcpy(rel + 2, s, sl + 1);
			s = rel;
			sl += 2;
		}
	}
	if (!s)
		kind = RB_UNKNOWN;
	if (!(d = sh_path_form(P, dst, &dl)))
		return;
	b = s ? s : src->s;
	bl = s ? sl : src->len;
	for (size_t k = bl; k > 0; k--)
		if (b[k - 1] == '/') {
			bl -= k;
			b += k;
			break;
		}
	if (into) { /* cp /bin/rm bin/: bin/rm */
		key = sh_alloc(P, dl + 1 + bl + 1);
		if (!key)
			return;
		memcpy(key, d, dl);
		key[dl] = '/';
		memcpy(key + dl + 1, b, bl);
		dl += 1 + bl;
		key[dl] = '\0';
		d = key;
	}
	while (dl > 1 && d[dl - 1] == '/')
		dl--;
	key = (char *)key_of(d, &dl);
	rebind_set(P, kind, key, dl, s, sl);
}

/* The binding of a command word: an alias (a plain unquoted name), or a name or path
 * bound by hash -p, enable -f, a copy or a link. */
static const struct sh_rebind *binding(struct sh_an *P, const struct sh_word *w)
{
	const char *k = w->s;
	size_t kl = w->len;
	int path = memchr(w->s, '/', w->len) != NULL;

	if (path) {
		char *p = sh_path_form(P, w, &kl);
		if (!p)
			return NULL;
		k = key_of(p, &kl);
	}
	for (size_t i = P->nrebinds; i-- > 0;) {
		const struct sh_rebind *r = &P->rebinds[i];
		if (r->kind == RB_ALIAS && (path || (w->flags & W_QUOTED)))
			continue;
		if (r->nlen == kl && !memcmp(r->name, k, kl))
			return r;
		/* a copy into a bin folder is found on PATH by its name */
		if (!path && r->kind != RB_ALIAS && r->nlen > kl + 4 &&
		    r->name[r->nlen - kl - 1] == '/' && !memcmp(r->name + r->nlen - kl, k, kl) &&
		    !memcmp(r->name + r->nlen - kl - 4, "bin/", 4))
			return r;
	}
	return NULL;
}

int sh_rebound(struct sh_an *P, struct nc *x)
{
	const struct sh_rebind *r;
	size_t rl = 0, len;
	char *rest, *cmd;
	int self;

	if (!P->nrebinds || !(r = binding(P, x->v[0])))
		return 0;
	if (r->kind == RB_UNKNOWN) {
		sh_unseen(P, x, x->v, x->n, "shell.unseen.rebinding");
		return 0;
	}
	if (P->rebinds_used >= SH_MAX_ALIAS_USES)
		return 0;
	P->rebinds_used++;
	rest = x->n > 1 ? sh_join_expanded(P, x->v + 1, x->n - 1, &rl) : NULL;
	/* alias ls='ls -la': the name in its own value is not expanded again */
	self = r->kind == RB_ALIAS && r->vlen >= r->nlen && !memcmp(r->value, r->name, r->nlen) &&
	       (r->vlen == r->nlen || r->value[r->nlen] == ' ');
	len = (size_t)self + r->vlen + 1 + rl;
	cmd = sh_alloc(P, len + 1);
	if (!cmd)
		return 1;
	cmd[0] = '\\';
	memcpy(cmd + self, r->value, r->vlen);
	cmd[self + r->vlen] = ' ';
	if (rest)
		memcpy(cmd + self + r->vlen + 1, rest, rl);
	cmd[len] = '\0';
	sh_analyze_string(P, cmd, len, x->depth + 1, x->line, x->remote);
	return 1;
}

/* ---- variables whose value runs later --------------------------------------------- */

/* The $(...) and `...` of a prompt string: what the shell runs to show it. */
static void prompt_code(struct sh_an *P, const char *s, size_t n, unsigned depth, unsigned line,
			int remote)
{
	for (size_t i = 0; i < n; i++) {
		size_t k, d = 1;
		if (s[i] == '`') {
			for (k = i + 1; k < n && s[k] != '`'; k++)
				;
			sh_analyze_string(P, s + i + 1, k - i - 1 - (k >= n), depth + 1, line,
					  remote);
			i = k;
		} else if (s[i] == '$' && i + 1 < n && s[i + 1] == '(') {
			for (k = i + 2; k < n && d; k++)
				d += s[k] == '(' ? 1 : s[k] == ')' ? -1 : 0;
			sh_analyze_string(P, s + i + 2, k - i - 2 - (d == 0), depth + 1, line,
					  remote);
			i = k - 1;
		}
	}
}

void sh_assign_code(struct sh_an *P, const struct sh_word *w, unsigned depth, unsigned line,
		    int remote)
{
	/* run as a shell command line by the shell or by the program that reads them */
	static const char shell[] = "PROMPT_COMMAND\0PAGER\0MANPAGER\0GIT_PAGER\0SYSTEMD_PAGER\0"
				    "EDITOR\0VISUAL\0GIT_EDITOR\0GIT_SEQUENCE_EDITOR\0FCEDIT\0"
				    "GIT_SSH_COMMAND\0GIT_SSH\0GIT_EXTERNAL_DIFF\0GIT_ASKPASS\0"
				    "SSH_ASKPASS\0SUDO_ASKPASS\0BROWSER\0RSYNC_RSH\0LESSOPEN\0"
				    "LESSCLOSE\0GIT_PROXY_COMMAND\0KUBE_EDITOR\0SVN_EDITOR\0";
	static const char prompts[] = "PS0\0PS1\0PS2\0PS3\0PS4\0";
	static const char files[] = "BASH_ENV\0ENV\0";
	const char *eq = memchr(w->s, '=', w->len);
	struct sh_word name, val;
	size_t nl;

	if (!eq || !strchr("PMGSEVFBRLKB", w->s[0]))
		return;
	nl = (size_t)(eq - w->s);
	name = *w;
	name.len = nl;
	sh_sub_word(w, nl + 1, &val);
	if (!val.len)
		return;
	if (sh_word_is(&name, shell) || (nl > 17 && !memcmp(w->s, "GIT_CONFIG_VALUE_", 17))) {
		const char *s = val.s;
		size_t n = val.len;
		while (n && (s[0] == '|' || s[0] == '!' || s[0] == '-')) /* LESSOPEN=|cmd */
			s++, n--;
		sh_analyze_string(P, s, n, depth + 1, line, remote);
	} else if (sh_word_is(&name, prompts)) {
		prompt_code(P, val.s, val.len, depth, line, remote);
	} else if (sh_word_is(&name, files)) {
		struct nc x;
		memset(&x, 0, sizeof(x));
		x.depth = depth;
		x.line = line;
		x.remote = remote;
		prompt_code(P, val.s, val.len, depth, line, remote);
		sh_run_file(P, &x, &val, LANG_SHELL);
	}
}
