/* shell_parse.c - the parser: a flat list of simple commands with their words,
 * redirections, pipe neighbours and shells (see shell_int.h). */
#include "shell_int.h"

#include <errno.h>
#include <string.h>

/* A nested list ($(...), a subshell, backticks): one level deeper, in a shell of its
 * own. */
void sh_parse_nested(struct sh_an *P, struct sh_lex *L, int until_rp)
{
	struct sh_scope *save = P->cur_scope;

	P->cur_scope = sh_new_scope(P, save);
	if (!P->cur_scope) {
		P->cur_scope = save;
		return;
	}
	P->nest++;
	sh_parse_list(P, L, until_rp);
	P->nest--;
	P->cur_scope = save;
}

/* ---- parser ----------------------------------------------------------------------- */

struct builder {
	struct sh_word *w;
	size_t nw, cw;
	struct sh_redir *r;
	size_t nr, cr;
	unsigned line;
};

static void too_complex(struct sh_an *P, const struct sh_word *w)
{
	sh_emit_finding(P, "shell.parse.too_complex", w && w->s ? w->s : "",
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

	sh_emit_finding(P, "shell.parse.error", L->s + from, len < 60 ? len : 60, L->line,
			L->depth);
}

/* The text of a function's body, from L->i: a { ... } or ( ... ) group, found by
 * counting brackets outside quotes (the parser reads it again as commands). A call
 * is analysed again with its arguments as $1, $2 ... (see shell_walk.c). */
static void function_body(const struct sh_lex *L, const char **body, size_t *len)
{
	size_t i = L->i, s;
	int depth = 0;
	char open, close;

	*body = NULL;
	*len = 0;
	while (i < L->n && (L->s[i] == ' ' || L->s[i] == '\t' || L->s[i] == '\n'))
		i++;
	if (i >= L->n || (L->s[i] != '{' && L->s[i] != '('))
		return;
	open = L->s[i];
	close = open == '{' ? '}' : ')';
	for (s = i; i < L->n; i++) {
		char c = L->s[i];
		if (c == '\\') {
			i++;
		} else if (c == '\'') {
			const char *q = memchr(L->s + i + 1, '\'', L->n - i - 1);
			if (!q)
				return;
			i = (size_t)(q - L->s);
		} else if (c == '"') {
			for (i++; i < L->n && L->s[i] != '"'; i++)
				if (L->s[i] == '\\')
					i++;
		} else if (c == open) {
			depth++;
		} else if (c == close && --depth == 0) {
			*body = L->s + s + 1;
			*len = i - s - 1;
			return;
		}
	}
}

/* A redirection: its operator is in t, its target the next token; inside [[ ]] the
 * operator is a word of the test. -1 when the parse must stop (out of memory, abort). */
static int parse_redir(struct sh_an *P, struct sh_lex *L, struct builder *b, struct sh_tok *t,
		       int test_mode)
{
	struct sh_redir *r;
	char *op = sh_strndup(P, t->op, t->w.len);

	if (!op)
		return -1;
	if (test_mode) {
		struct sh_word w;
		memset(&w, 0, sizeof(w));
		w.s = op;
		w.len = t->w.len;
		w.line = L->line;
		b_add_word(P, b, &w);
		return 0;
	}
	enum rkind rk = t->rk;
	sh_next_tok(P, L, t);
	if (P->abort)
		return -1;
	if (t->t != T_WORD) {
		parse_error(P, L);
		return 0;
	}
	r = b_add_redir(P, b);
	if (!r)
		return -1;
	if (b->nw == 0 && b->nr == 1)
		b->line = t->w.line;
	r->kind = rk;
	r->op = op;
	r->target = t->w;
	if (rk == R_HEREDOC) {
		struct sh_heredoc *h = sh_alloc(P, sizeof(*h));
		if (!h)
			return -1;
		memset(h, 0, sizeof(*h));
		h->quoted = (t->w.flags & W_QUOTED) != 0;
		h->strip = op[strlen(op) - 1] == '-';
		h->delim = t->w.s;
		h->dlen = t->w.len;
		if (L->pend_tail)
			L->pend_tail->next = h;
		else
			L->pend = h;
		L->pend_tail = h;
		r->hd = h;
	}
	return 0;
}

/* Are the first n words of b reserved words that may stand before a command, a
 * subshell or a case (`{ case`, `then case`, `if (`, `! (`)? */
static int reserved_prefix(const struct builder *b, size_t n)
{
	static const char kw[] = "{\0"
				 "!\0"
				 "then\0"
				 "do\0"
				 "else\0"
				 "if\0"
				 "elif\0"
				 "while\0"
				 "until\0"
				 "time\0";

	for (size_t k = 0; k < n; k++)
		if ((b->w[k].flags & W_QUOTED) || !sh_word_is(&b->w[k], kw))
			return 0;
	return 1;
}

/* Parses commands until the end of the buffer or, with until_rp, the matching ')'. */
void sh_parse_list(struct sh_an *P, struct sh_lex *L, int until_rp)
{
	struct builder b;
	struct sh_cmd *pipe_from = NULL, *c;
	struct sh_tok t;
	int case_level = 0, case_pat = 0, test_mode = 0;
	size_t start = L->i;

	memset(&b, 0, sizeof(b));
	for (;;) {
		sh_next_tok(P, L, &t);
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
			if (b.nw >= 2 && weq(&b.w[b.nw - 2], "case") && weq(&t.w, "in") &&
			    reserved_prefix(&b, b.nw - 2)) {
				memset(&b, 0, sizeof(b));
				case_level++;
				case_pat = 1;
				break;
			}
			b_add_word(P, &b, &t.w);
			break;
		case T_REDIR:
			if (parse_redir(P, L, &b, &t, test_mode) < 0)
				return;
			break;
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
				sh_lex_arith(P, L, &w, s0);
				L->blen = save;
				break;
			}
			if (b.nw > 0) {
				/* { ( ... ), if ( ... ): reserved words before a subshell */
				if (reserved_prefix(&b, b.nw))
					b.nw = 0;
			}
			if (b.nw == 0) { /* subshell */
				if (P->nest >= SH_MAX_NEST) {
					sh_emit_finding(P, "shell.parse.too_complex",
							L->s + L->i - 1,
							L->n - L->i + 1 < 40 ? L->n - L->i + 1 : 40,
							L->line, L->depth);
					P->abort = 1;
					return;
				}
				sh_parse_nested(P, L, 1);
				break;
			}
			/* name ( ) : a function definition; its body follows as commands */
			if (P->nfnames < 8) {
				P->fnames[P->nfnames] = b.w[b.nw - 1];
				memset(&P->fbody[P->nfnames], 0, sizeof(P->fbody[0]));
			}
			sh_next_tok(P, L, &t);
			if (t.t != T_RP)
				parse_error(P, L);
			if (P->nfnames < 8) {
				function_body(L, &P->fbody[P->nfnames].body,
					      &P->fbody[P->nfnames].len);
				P->fbody[P->nfnames].line = L->line;
				P->nfnames++;
			}
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
				sh_unterminated(P, L, start > 2 ? start - 2 : 0);
			return;
		}
		if (P->abort)
			return;
	}
}

static int is_downloader_name(const char *nm, size_t nl)
{
	const struct sh_cmdspec *sp = sh_cmd_lookup(nm, nl);

	return sp && (sp->flags & F_DL);
}

/* The command name after wrappers, for a quick look from the parser. */
static int cmd_is_download(struct sh_cmd *c)
{
	size_t i = 0, n = c->nw;
	const char *nm;
	size_t nl;

	while (i < n && sh_is_assignment(&c->w[i]))
		i++;
	/* a light strip: wrappers without options in front (sudo curl, env X=1 wget) */
	while (i < n) {
		sh_base_of(&c->w[i], &nm, &nl);
		if (sh_name_is(nm, nl, "sudo") || sh_name_is(nm, nl, "env") ||
		    sh_name_is(nm, nl, "command") || sh_name_is(nm, nl, "exec") ||
		    sh_name_is(nm, nl, "nohup") || sh_name_is(nm, nl, "time") ||
		    sh_is_assignment(&c->w[i]) || c->w[i].s[0] == '-') {
			i++;
			continue;
		}
		return is_downloader_name(nm, nl);
	}
	return 0;
}

int sh_cmds_download_since(struct sh_an *P, struct sh_cmd *mark)
{
	for (struct sh_cmd *c = mark ? mark->next : P->head; c; c = c->next)
		if (cmd_is_download(c))
			return 1;
	return 0;
}
