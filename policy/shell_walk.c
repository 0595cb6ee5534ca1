/* shell_walk.c - the walk over the parsed commands: wrappers stripped, names
 * classified, handlers dispatched, units emitted; and the public entry points. */
#include "shell_int.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

/* Does a short option letter take an argument? Long options with an argument are
 * listed as "--name" (the "--name=value" form needs no list). */
int sh_opt_takes_arg(const char *sarg, int c)
{
	return sarg && c && strchr(sarg, c) != NULL;
}

int sh_long_takes_arg(const char *larg, const struct sh_word *w)
{
	if (!larg || memchr(w->s, '=', w->len))
		return 0;
	return sh_word_is(w, larg);
}

/* Where the wrappers of a command start (the first few): a rule may be about a
 * wrapper itself (systemd-run, env GIT_CONFIG_...=) however many stand before it. */
struct wrap_starts {
	size_t at[4];
	size_t n;
};

/* Strips wrappers from v[i..n); returns the index of the real command (n: none), and
 * records where each wrapper starts in ws. */
static size_t strip_wrappers(struct sh_an *P, struct sh_word **v, size_t n, size_t i,
			     unsigned depth, int remote, unsigned line, int *query_only,
			     struct wrap_starts *ws)
{
	while (i < n) { /* each round takes at least the wrapper's name */
		const char *nm;
		size_t nl;
		const struct sh_cmdspec *wr;

		sh_base_of(v[i], &nm, &nl);
		wr = sh_cmd_lookup(nm, nl);
		if (wr && !(wr->flags & F_WRAP))
			wr = NULL;
		if (!wr)
			return i;
		if (ws->n < sizeof ws->at / sizeof ws->at[0])
			ws->at[ws->n++] = i;
		if (sh_name_is(nm, nl, "busybox") && i + 1 < n && weq(v[i + 1], "sh"))
			return i + 1;
		if (wr->oflags & O_SUBCMD) { /* uv run, bundle exec ...: else as written */
			size_t k = sh_launcher_skip(v, n, i + 1, nm, nl);
			if (!k)
				return i;
			i = k;
			continue;
		}
		i++;
		int pos = wr->npos;
		while (i < n) {
			struct sh_word *w = v[i];
			if ((wr->oflags & O_ASSIGNS) && sh_is_assignment(w)) {
				i++;
				continue;
			}
			if (w->len >= 2 && w->s[0] == '-' && !(w->len == 2 && w->s[1] == '-')) {
				if (w->s[1] == '-') {
					/* env --split-string=STR / -S STR: the string is a command */
					if (sh_name_is(nm, nl, "env") &&
					    !strncmp(w->s, "--split-string", 14)) {
						const char *eq = memchr(w->s, '=', w->len);
						if (eq) {
							sh_analyze_string(
							    P, eq + 1,
							    w->len - (size_t)(eq + 1 - w->s),
							    depth + 1, line, remote);
						} else if (i + 1 < n) {
							sh_analyze_string(P, v[i + 1]->s,
									  v[i + 1]->len, depth + 1,
									  line, remote);
						}
						return n;
					}
					i += sh_long_takes_arg(sh_largs[wr->larg], w) ? 2 : 1;
					continue;
				}
				if (sh_name_is(nm, nl, "command") &&
				    (strchr(w->s, 'v') || strchr(w->s, 'V'))) {
					*query_only = 1;
					return n;
				}
				if (sh_name_is(nm, nl, "sudo") &&
				    (weq(w, "-l") || weq(w, "-v") || weq(w, "-k") || weq(w, "-K") ||
				     weq(w, "-V") || weq(w, "-e"))) {
					*query_only = 1;
					return n;
				}
				if ((wr->flags & F_RUNS) &&
				    sh_runner_wrap_opt(P, nm, nl, v, n, i, depth, line, remote))
					return n; /* script -qc CODE, flock L -c CODE */
				if (sh_name_is(nm, nl, "env") && w->len >= 2 && w->s[1] == 'S') {
					if (w->len > 2)
						sh_analyze_string(P, w->s + 2, w->len - 2,
								  depth + 1, line, remote);
					else if (i + 1 < n)
						sh_analyze_string(P, v[i + 1]->s, v[i + 1]->len,
								  depth + 1, line, remote);
					return n;
				}
				/* a bundle: the first letter taking an argument takes the rest of
				 * the word, or the next word when the rest is empty */
				size_t j = 1, adv = 1;
				for (; j < w->len; j++) {
					if (sh_opt_takes_arg(sh_spec_sarg(wr), w->s[j])) {
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
		while (i < n && (wr->oflags & O_ASSIGNS) && sh_is_assignment(v[i]))
			i++;
	}
	return i;
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
			sh_path(P, x, t, POL_OP_READ, 0);
			break;
		case R_OUT:
		case R_CLOBBER:
		case R_OUTERR:
			sh_path(P, x, t, POL_OP_TRUNCATE, 0);
			break;
		case R_APPEND:
		case R_APPERR:
		case R_RW:
			sh_path(P, x, t, POL_OP_WRITE, 0);
			break;
		case R_DUPOUT:
		case R_DUPIN:
			if (t->len && strspn(t->s, "0123456789-") != t->len)
				sh_path(P, x, t,
					r->kind == R_DUPOUT ? POL_OP_TRUNCATE : POL_OP_READ, 0);
			break;
		default:
			break;
		}
	}
}

/* Emits a command view: words v[from..n) with their data flags, then the redirections. */
void sh_emit_view(struct sh_an *P, struct nc *x, struct sh_word **v, size_t n,
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
	sh_emit_command(P, view, k, n, x->line, x->depth);
}

/* f(){ f|f& }; f : a function that pipes into itself in the background. Only a
 * function whose body names itself (recursion) is one: a wrapper piped into itself
 * (w(){ "$@"; }; w printf x | w sed y, Codex's shell snapshot) is ordinary. */
static void h_fork_bomb(struct sh_an *P, struct nc *x)
{
	struct sh_cmd *p = x->c->pipe_prev;

	if (!p || !p->name || p->nlen != x->nlen || memcmp(p->name, x->name, x->nlen))
		return;
	for (size_t i = 0; i < P->nfnames; i++)
		if (P->fnames[i].len == x->nlen && !memcmp(P->fnames[i].s, x->name, x->nlen) &&
		    (!P->fbody[i].body ||
		     memmem(P->fbody[i].body, P->fbody[i].len, x->name, x->nlen))) {
			sh_emit_finding(P, "system.fork_bomb", x->name, x->nlen, x->line, x->depth);
			return;
		}
}

/* SQL with the contents of its string literals taken out: in a read-only query,
 * 'DROP TABLE x' is data. NULL when nothing changes, or when the text runs code held
 * in a string (EXECUTE, PREPARE, DO, CALL, EVAL, sp_executesql). dq: "..." are strings
 * too (Mongo's JavaScript), not identifiers. */
static const char *sql_data_out(struct sh_an *P, const char *s, size_t n, int dq, size_t *outlen)
{
	static const char dyn[] = "exec\0"
				  "prepare\0"
				  "do \0"
				  "do$\0"
				  "call \0"
				  "eval\0"
				  "immediate\0"
				  "$$\0";
	char *out, q = 0;
	size_t o = 0;

	if (!memchr(s, '\'', n) && !(dq && memchr(s, '"', n)))
		return NULL;
	for (const char *d = dyn; *d; d += strlen(d) + 1) {
		size_t dl = strlen(d);
		for (size_t i = 0; i + dl <= n; i++)
			if (!strncasecmp(s + i, d, dl) &&
			    (i == 0 || !((s[i - 1] | 32) >= 'a' && (s[i - 1] | 32) <= 'z')))
				return NULL;
	}
	out = sh_alloc(P, n + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!q) {
			if (c == '\'' || (dq && c == '"'))
				q = c;
			out[o++] = c;
		} else if (c == '\\' && dq && i + 1 < n) {
			i++;
		} else if (c == q && i + 1 < n && s[i + 1] == q) {
			i++; /* '' inside a string */
		} else if (c == q) {
			q = 0;
			out[o++] = c;
		}
	}
	out[o] = '\0';
	*outlen = o;
	return out;
}

/* The data in a database client's words and stdin: see sql_data_out. */
static int sql_quotes(const struct nc *x)
{
	return NM("redis-cli") ? -1 : (NM("mongo") || NM("mongosh")) ? 1 : 0;
}

static void db_emit(struct sh_an *P, struct nc *x, struct vw *view, unsigned line)
{
	int dq = sql_quotes(x);
	size_t len;
	const char *t = dq >= 0 ? sql_data_out(P, view[1].s, view[1].len, dq, &len) : NULL;

	if (t) {
		view[1].s = t;
		view[1].len = len;
	}
	sh_emit_command(P, view, 2, 2, line, x->depth);
}

/* SQL or commands fed to a database client on stdin are matched as its command line:
 * psql <<EOF DROP TABLE x; EOF reads as "psql DROP TABLE x;". */
static void h_db_stdin(struct sh_an *P, struct nc *x)
{
	struct sh_cmd *c = x->c;
	struct vw view[2];

	view[0].s = x->name;
	view[0].len = x->nlen;
	view[0].data = 0;
	view[1].data = 0;
	for (size_t i = 0; i < c->nr; i++) {
		if (c->r[i].kind == R_HEREDOC && c->r[i].hd) {
			view[1].s = sh_heredoc_text(P, c->r[i].hd, &view[1].len);
			if (view[1].s)
				db_emit(P, x, view, c->r[i].hd->line);
		} else if (c->r[i].kind == R_HERESTR) {
			view[1].s = c->r[i].target.s;
			view[1].len = c->r[i].target.len;
			db_emit(P, x, view, x->line);
		}
	}
	if (c->pipe_prev && c->pipe_prev->feed) {
		view[1].s = c->pipe_prev->feed;
		view[1].len = c->pipe_prev->feed_len;
		db_emit(P, x, view, c->pipe_prev->feed_line);
	}
}

/* Was one of the wrappers v[from..to) GNU parallel? */
static int parallel_inputs(struct sh_word **v, size_t from, size_t to)
{
	for (size_t j = from; j < to; j++) {
		const char *nm;
		size_t nl;
		sh_base_of(v[j], &nm, &nl);
		if (sh_name_is(nm, nl, "parallel"))
			return 1;
	}
	return 0;
}

/* Do the paths queued after mark that the command deletes or overwrites all lie in
 * temporary folders (and is there one)? */
static int only_temp(struct sh_an *P, struct sh_pq *mark, unsigned placeholders0)
{
	int any = P->find_temp && P->placeholders > placeholders0;

	for (struct sh_pq *q = mark ? mark->next : P->pq_head; q; q = q->next) {
		switch (q->u.op) {
		case POL_OP_READ:
		case POL_OP_LIST:
		case POL_OP_EXEC:
			continue;
		default:
			break;
		}
		if (!sh_path_is_temp(P, q->u.path))
			return 0;
		any = 1;
	}
	return any;
}

/* A dry run: --dry-run (not --dry-run=none) among the options, or -n where the tool
 * means it (rsync, git clean/push/rm/add/mv, make). */
static int dry_run(const struct nc *x)
{
	int n_means_dry = NM("rsync") || NM("make") || NM("gmake") ||
			  (NM("git") && x->n > 1 &&
			   (weq(x->v[1], "clean") || weq(x->v[1], "push") || weq(x->v[1], "rm") ||
			    weq(x->v[1], "add") || weq(x->v[1], "mv")));

	for (size_t i = 1; i < x->n; i++) {
		const struct sh_word *w = x->v[i];
		if (x->data[i] || w->s[0] != '-')
			continue;
		if (weq(w, "--"))
			return 0;
		if (weq(w, "--dry-run") || weq(w, "--dryrun") || weq(w, "--dry_run") ||
		    weq(w, "--dry-run=client") || weq(w, "--dry-run=server") ||
		    weq(w, "--just-print") || weq(w, "--simulate"))
			return 1;
		if (n_means_dry && w->s[1] != '-' && memchr(w->s, 'n', w->len) &&
		    !(NM("git") && weq(x->v[1], "push") && w->len > 2))
			return 1;
	}
	return 0;
}
/* Does one of the assignments before a command (v[0..aw)) set git's configuration
 * through the environment (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n, GIT_CONFIG_PARAMETERS)? */
static int git_config_env(struct sh_word **v, size_t aw)
{
	static const char pre[] = "GIT_CONFIG_";

	for (size_t j = 0; j < aw; j++)
		if (sh_is_assignment(v[j]) && v[j]->len > sizeof(pre) - 1 &&
		    !memcmp(v[j]->s, pre, sizeof(pre) - 1))
			return 1;
	return 0;
}

/* Emits the words sv[0..sn) as a view: the normalized words nv[0..nn), which are a
 * subsequence of them, keep their data flags (x->data). */
static void emit_superview(struct sh_an *P, struct nc *x, struct sh_word **sv, size_t sn,
			   struct sh_word **nv, size_t nn)
{
	unsigned char *wd = sh_alloc(P, sn + 1);

	if (!wd)
		return;
	memset(wd, 0, sn + 1);
	for (size_t a = 0, b = 0; a < sn && b < nn; a++)
		if (sv[a] == nv[b])
			wd[a] = x->data[b++];
	sh_emit_view(P, x, sv, sn, wd, NULL, 0);
}

/* The index of the command word of v: after reserved words (`if`, `!`, `{` ...),
 * `function NAME ()` and assignments; n when nothing runs (`for NAME in WORDS` and
 * `case`, whose substitutions were parsed). */
static size_t command_word(struct sh_word **v, size_t n)
{
	static const char keywords[] = "!\0"
				       "{\0"
				       "}\0"
				       "then\0"
				       "do\0"
				       "else\0"
				       "if\0"
				       "elif\0"
				       "while\0"
				       "until\0"
				       "fi\0"
				       "done\0"
				       "esac\0"
				       "coproc\0";
	size_t i = 0;

	while (i < n) {
		if (!(v[i]->flags & W_QUOTED) && sh_word_is(v[i], keywords)) {
			i++;
		} else if (weq(v[i], "function")) {
			i += 2;
			if (i < n && weq(v[i], "()"))
				i++;
		} else if (sh_is_assignment(v[i])) {
			i++;
		} else {
			break;
		}
	}
	if (i < n && (weq(v[i], "for") || weq(v[i], "select") || weq(v[i], "case")))
		i = n;
	return i;
}

void sh_process_words(struct sh_an *P, struct sh_cmd *c, struct sh_word **v, size_t n,
		      unsigned depth, int remote, unsigned line)
{
	struct nc X, *x = &X;
	size_t i, aw, k;
	struct wrap_starts ws = {{0}, 0};
	int query_only = 0;

	if (P->abort)
		return;
	if (depth > SH_MAX_NEST) {
		sh_emit_finding(P, "shell.parse.too_complex", n ? v[0]->s : "", n ? v[0]->len : 0,
				line, depth);
		P->abort = 1;
		return;
	}
	memset(x, 0, sizeof(*x));
	x->c = c;
	x->depth = depth;
	x->remote = remote;
	x->line = line;
	v = sh_brace_words(P, v, &n);
	if (!v)
		return;
	i = command_word(v, n);
	for (size_t j = 0; j < i && j < n; j++) /* PROMPT_COMMAND=..., BASH_ENV=... */
		if (sh_is_assignment(v[j]))
			sh_assign_code(P, v[j], depth, line, remote);
	if (i >= n) {
		for (size_t j = 0; j < n; j++)
			if (sh_is_assignment(v[j]))
				sh_record_assignment(P, v[j]);
		h_redirs(P, x);
		return;
	}
	aw = i;
	k = strip_wrappers(P, v, n, i, depth, remote, line, &query_only, &ws);
	if (k >= n) {
		/* only wrappers (or env -S / command -v): emit what was written */
		x->v = v + aw;
		x->n = n - aw;
		sh_emit_view(P, x, v + aw, n - aw, NULL, NULL, 0);
		h_redirs(P, x);
		return;
	}
	x->v = v + k;
	x->n = n - k;
	if (parallel_inputs(v, aw, k)) { /* parallel CMD ::: A B: CMD A, CMD B */
		size_t o = 0;
		for (size_t j = 0; j < x->n; j++)
			if (!weq(x->v[j], ":::") && !weq(x->v[j], "::::") && !weq(x->v[j], ":::+"))
				x->v[o++] = x->v[j];
		x->n = o;
		n = k + o;
	}
	sh_base_of(x->v[0], &x->name, &x->nlen);
	x->spec = sh_cmd_lookup(x->name, x->nlen);
	x->kind = x->spec ? x->spec->kind : K_NONE;
	x->kflags = x->spec ? x->spec->flags : 0;
	/* versioned interpreters: python3.11, perl5.36, node18 ... */
	if (!x->spec && x->nlen && strchr("pnr", x->name[0]))
		x->kflags = F_LANG;

	/* a name the shell computes: $CMD, ${a}${b}, $(printf %s rm), a function */
	if (!sh_rebound(P, x) && !sh_eval_name(P, x) && !sh_glob_name(P, x)) {
		sh_unknown_name(P, x, x->v, x->n);
		if (!sh_eval_positional_args(P, x) && !x->spec && !(x->kflags & F_LANG))
			sh_unknown_runner(P, x);
	}

	if ((x->kflags & F_RUNS) && !query_only) /* before the global options are dropped */
		sh_runner(P, x);

	/* global options (git -C dir, gh -R o/r, kubectl --context c, terraform -chdir=d,
	 * shell_gopts.c): the normalized view drops them, so that rules see "git reset
	 * --hard", "gh repo delete" however they were placed */
	struct sh_word **nv = x->v, **wv = x->v; /* wv: wrappers stripped, options kept */
	size_t nn = x->n, wvn = x->n;
	int gopts_norm = 0;
	const char *gopts = x->n > 1 ? sh_gopts_of(x->name, x->nlen) : NULL;
	if (gopts) {
		nv = sh_alloc(P, (x->n + 1) * sizeof(*nv));
		if (!nv)
			return;
		nn = sh_gopts_strip(gopts, x->v, x->n, nv);
		gopts_norm = nn != x->n;
		if (!gopts_norm)
			nv = x->v;
	}
	x->v = nv;
	x->n = nn;
	x->data = sh_alloc(P, nn + 1);
	if (!x->data)
		return;
	memset(x->data, 0, nn + 1);

	struct sh_pq *mark = P->pq_tail;
	unsigned unknown0 = P->paths_unknown, placeholders0 = P->placeholders;
	P->defer++;
	int lang = (x->kflags & F_LANG) ? sh_lang_from_name(x->name, x->nlen) : LANG_NONE;
	if (query_only) {
		/* nothing */
	} else if (lang == LANG_SHELL) {
		sh_h_shell(P, x);
	} else if (lang != LANG_NONE) {
		sh_h_interp(P, x, lang);
	} else {
		sh_handler h = sh_handler_of(x->kind);
		if (h)
			h(P, x);
	}
	if (x->v[0]->len > x->nlen && !query_only) /* ./script, /path/to/tool, ~/bin/x */ {
		sh_path(P, x, x->v[0], POL_OP_EXEC, 0);
		sh_run_file(P, x, x->v[0], LANG_NONE);
	}
	if (c) {
		c->name = x->name;
		c->nlen = x->nlen;
		h_fork_bomb(P, x);
		if (x->kflags & F_DB)
			h_db_stdin(P, x);
		c->upstream_dl = (x->kflags & F_DL) || (c->pipe_prev && c->pipe_prev->upstream_dl);
		c->upstream_decode = ((x->kflags & F_DEC) && sh_is_decoder(x)) ||
				     (c->pipe_prev && c->pipe_prev->upstream_decode);
		if (x->kflags & F_FEED)
			sh_set_feed(P, x);
	}
	int temp_only = P->paths_unknown == unknown0 && only_temp(P, mark, placeholders0);
	int dry = dry_run(x);
	h_redirs(P, x);

	/* the units: as written (when wrappers or global options were stripped), normalized */
	P->unit_temp_only = temp_only;
	P->unit_dry_run = dry;
	if ((x->kflags & F_DB) && sql_quotes(x) >= 0) /* psql -c "SELECT 'DROP TABLE'" */
		for (size_t j = 1; j < nn; j++) {
			size_t len;
			const char *t = sql_data_out(P, nv[j]->s, nv[j]->len, sql_quotes(x), &len);
			if (t) {
				nv[j]->s = (char *)t;
				nv[j]->len = len;
			}
		}
	if (k > aw || gopts_norm)
		emit_superview(P, x, v + aw, n - aw, nv, nn);
	/* from each wrapper behind the first (sudo systemd-run ..., timeout 9 env X=1 git) */
	for (size_t j = 1; j < ws.n; j++)
		if (ws.at[j] > aw && ws.at[j] < k)
			emit_superview(P, x, v + ws.at[j], n - ws.at[j], nv, nn);
	/* wrappers and global options both stripped (sudo git -c gc.reflogExpire=now gc):
	 * also the command without its wrappers, whose options a rule may name */
	if (k > aw && gopts_norm)
		emit_superview(P, x, wv, wvn, nv, nn);
	/* git's configuration given in the command's own environment (GIT_CONFIG_KEY_0=
	 * core.hooksPath GIT_CONFIG_VALUE_0=DIR git commit, GIT_CONFIG_PARAMETERS=...):
	 * rules read it in a view that keeps the assignments, from the first (after the
	 * reserved words of `{ ...; }`, `if`, `then`...) */
	if (aw > 0 && git_config_env(v, aw)) {
		size_t s0 = 0;
		while (s0 < aw && !sh_is_assignment(v[s0]))
			s0++;
		unsigned char *wd = sh_alloc(P, n - s0 + 1);
		if (!wd)
			return;
		memset(wd, 0, n - s0 + 1);
		sh_emit_view(P, x, v + s0, n - s0, wd, NULL, 0);
	}
	P->defer--;
	sh_emit_view(P, x, nv, nn, x->data, x->name, x->nlen);
	P->unit_temp_only = P->unit_dry_run = 0;
	if (dry) { /* a dry run touches nothing: its paths are dropped */
		if (mark)
			mark->next = NULL;
		else
			P->pq_head = NULL;
		P->pq_tail = mark;
	}
	sh_flush_paths(P, mark);
	if (P->disposed) {
		const struct sh_word *d = P->disposed;
		P->disposed = NULL;
		if (!dry)
			sh_emit_finding(P, "core.filesystem.move_to_temp", d->s, d->len,
					P->disposed_line, depth);
	}
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
		sh_process_words(P, c, v, c->nw, c->depth, c->remote, c->line);
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
	P.runtime = opts && opts->runtime;
	P.work_cap = len * SH_WORK_FACTOR + SH_WORK_SLACK;
	P.cur_scope = P.walk_scope = sh_new_scope(&P, NULL);
	if (!P.cur_scope)
		return P.ret;
	if (!cmd)
		cmd = "";
	if (sh_lex_init(&P, &L, cmd, len, 1, 0, 0) == 0) {
		sh_parse_list(&P, &L, 0);
		walk(&P);
	}
	return P.ret;
}

int pol_shell_register_builtins(struct pol_policy *p)
{
	static const struct pol_builtin b[] = {
	    POL_BUILTIN(
		"shell.parse.unterminated",
		"Unterminated quote, substitution or group: the command cannot be analysed safely",
		POL_SEV_HIGH, "Close every quote and $( ... ) so the command can be checked"),
	    POL_BUILTIN("shell.parse.error",
			"Shell syntax error: the command cannot be analysed safely", POL_SEV_HIGH,
			"Fix the syntax (unbalanced parenthesis or missing redirection target)"),
	    POL_BUILTIN("shell.parse.too_complex",
			"Command nests substitutions or shells too deeply to be analysed",
			POL_SEV_HIGH, "Split the command into simpler steps"),
	    POL_BUILTIN(
		"remote-exec.pipe_to_shell",
		"Downloaded content is executed as code without review", POL_SEV_CRITICAL,
		"Download to a file, read it, then run it: curl -fsSLo script.sh URL && less "
		"script.sh"),
	    POL_BUILTIN("remote-exec.decode_to_shell",
			"Decoded or obfuscated content is executed as code", POL_SEV_HIGH,
			"Decode to a file and review it before running it"),
	    POL_BUILTIN(
		"core.filesystem.move_to_temp",
		"moving a folder into a temporary folder, the trash or /dev/null deletes it",
		POL_SEV_HIGH, "Move it aside inside the project instead: mv DIR DIR.old"),
	    POL_BUILTIN("core.filesystem.delete_wide",
			"Deleting or moving away the root, the home folder or a folder above it "
			"destroys the user's data, in any spelling",
			POL_SEV_CRITICAL, "Delete the specific files by name, inside the project"),
	    POL_BUILTIN("shell.unseen.name",
			"dcg cannot see which program this command name runs (a variable, a "
			"substitution, a glob or a brace it cannot expand), and its arguments look "
			"destructive",
			POL_SEV_MEDIUM,
			"Call the program by its own name, so that dcg can check it"),
	    POL_BUILTIN(
		"shell.unseen.rebinding",
		"this name was rebound to something dcg cannot read (alias, hash -p, enable "
		"-f, a copy of an unknown program), and its arguments look destructive",
		POL_SEV_MEDIUM, "Call the program by its own name"),
	    POL_BUILTIN("shell.unseen.runner",
			"a program dcg does not know is handed a command with destructive-looking "
			"arguments, which dcg cannot see it run",
			POL_SEV_MEDIUM, "Run the command directly, so that it can be checked"),
	    POL_BUILTIN(
		"system.fork_bomb",
		"A function that pipes into itself in the background exhausts the process table",
		POL_SEV_CRITICAL, "Run the workload once, or bound it with a loop counter"),
	};

	return pol_rule_add_builtins(p, b, sizeof(b) / sizeof(b[0]));
}
