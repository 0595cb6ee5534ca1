/* shell_code.c - code handed to shells and interpreters: -c/-e arguments, script files
 * written earlier in the line, stdin (heredocs, here-strings, pipes), decoders. */
#include "shell_int.h"

#include <errno.h>
#include <string.h>

static const struct sh_file *file_lookup(struct sh_an *P, const struct sh_word *w)
{
	size_t plen;
	char *p = sh_path_form(P, w, &plen);

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

const char *sh_file_text(struct sh_an *P, const struct sh_word *w, size_t *len)
{
	const struct sh_file *f = file_lookup(P, w);

	if (!f)
		return NULL;
	*len = f->len;
	return f->body;
}

static void file_record(struct sh_an *P, const struct sh_word *w, const char *body, size_t len,
			unsigned line, int how)
{
	size_t plen;
	char *p = sh_path_form(P, w, &plen);

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
	P->files[P->nfiles].how = how | SH_CODE_HEREDOC;
	P->files[P->nfiles].line = line;
	P->nfiles++;
}

/* How code in a shell word reaches its interpreter: as written, unless an expansion of
 * the shell is still in the word's text ($X, $(...), ~). */
static int word_code_how(const struct sh_word *w)
{
	return (w->flags & (W_UNRESOLVED | W_SUBST)) || w->nhome ? 0 : SH_CODE_EXACT;
}

/* SH_CODE_STDIN when the stdin of x is fed by the command line (a pipe, a redirection
 * from anything but /dev/null, a here-document or -string), or not known (a command run
 * by find -exec or su): a command its code starts inherits it. */
static int stdin_fed(const struct nc *x)
{
	const struct sh_cmd *c = x->c;

	if (!c || c->pipe_prev)
		return SH_CODE_STDIN;
	for (size_t i = 0; i < c->nr; i++)
		switch (c->r[i].kind) {
		case R_IN:
			if (!weq(&c->r[i].target, "/dev/null"))
				return SH_CODE_STDIN;
			break;
		case R_RW:
		case R_DUPIN:
		case R_HEREDOC:
		case R_HERESTR:
			return SH_CODE_STDIN;
		default:
			break;
		}
	return 0;
}

/* A script file about to be run: when this command line wrote it from a heredoc,
 * its text is known and analysed in lang (or by its shebang when lang is NONE). */
void sh_run_file(struct sh_an *P, struct nc *x, const struct sh_word *w, int lang)
{
	const struct sh_file *f;

	if ((w->flags & W_PROCSUB) && w->sub) {
		/* bash <(echo CODE), source <(printf ...): the substitution's output is run */
		const struct sh_cmd *s = w->sub;
		if (s->upstream_decode && !s->upstream_dl)
			sh_emit_finding(P, "remote-exec.decode_to_shell", w->s, w->len, x->line,
					x->depth);
		else if (s->feed)
			sh_run_code(P, lang == LANG_NONE ? LANG_SHELL : lang, s->feed, s->feed_len,
				    s->feed_how, s->feed_line, x->depth, x->remote);
		return;
	}
	f = file_lookup(P, w);
	if (!f)
		return;
	if (lang == LANG_NONE) {
		lang = sh_lang_from_shebang(f->body, f->len);
		if (lang == LANG_NONE)
			lang = LANG_SHELL;
	}
	sh_run_code(P, lang, f->body, f->len, f->how | stdin_fed(x), f->line, x->depth, x->remote);
}

/* stdin of a command that runs it as code: heredocs, here-strings, and what a pipe
 * brings (a download, a decoder, or literal text from echo/printf/cat). */
void sh_run_stdin(struct sh_an *P, struct nc *x, int lang)
{
	struct sh_cmd *c = x->c;
	struct sh_cmd *p = c ? c->pipe_prev : NULL;

	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++) {
		struct sh_redir *r = &c->r[i];
		if (r->kind == R_HEREDOC && r->hd) {
			size_t len;
			const char *t = sh_heredoc_text(P, r->hd, &len);
			sh_run_code(P, lang, t, len,
				    SH_CODE_HEREDOC | (r->hd->quoted ? SH_CODE_EXACT : 0),
				    r->hd->line, x->depth, x->remote);
		} else if (r->kind == R_HERESTR) {
			if (r->target.flags & W_DL)
				sh_emit_finding(P, "remote-exec.pipe_to_shell", r->target.s,
						r->target.len, x->line, x->depth);
			sh_run_code(P, lang, r->target.s, r->target.len, word_code_how(&r->target),
				    x->line, x->depth, x->remote);
		} else if (r->kind == R_IN && (r->target.flags & W_DL)) {
			sh_emit_finding(P, "remote-exec.pipe_to_shell", r->target.s, r->target.len,
					x->line, x->depth);
		}
	}
	if (!p)
		return;
	if (p->upstream_dl)
		sh_emit_finding(P, "remote-exec.pipe_to_shell", c->w[0].s, c->w[0].len, x->line,
				x->depth);
	else if (p->upstream_decode)
		sh_emit_finding(P, "remote-exec.decode_to_shell", c->w[0].s, c->w[0].len, x->line,
				x->depth);
	else if (p->feed)
		sh_run_code(P, lang, p->feed, p->feed_len, p->feed_how, p->feed_line, x->depth,
			    x->remote);
}

/* A word that names code fetched from the network: $(curl ...), <(wget ...). */
void sh_check_dl_word(struct sh_an *P, struct nc *x, const struct sh_word *w)
{
	if (w && (w->flags & W_DL))
		sh_emit_finding(P, "remote-exec.pipe_to_shell", w->s, w->len, w->line, x->depth);
}

void sh_h_shell(struct sh_an *P, struct nc *x)
{
	static const char larg[] = "--rcfile\0"
				   "--init-file\0";
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
			if (sh_long_takes_arg(larg, w))
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
			/* sh -c CODE ARG0 ARG1 ...: $0, $1 ... inside CODE */
			sh_set_positional(P, x->v + i + 1, x->n - i - 1, 1);
			x->data[i] = 1;
			sh_check_dl_word(P, x, x->v[i]);
			sh_analyze_string(P, x->v[i]->s, x->v[i]->len, x->depth + 1, x->v[i]->line,
					  x->remote);
		}
		return;
	}
	if (i < x->n && (weq(x->v[i], "/dev/stdin") || weq(x->v[i], "/dev/fd/0")))
		has_s = 1;
	if (i < x->n && !has_s) { /* a script file */
		sh_check_dl_word(P, x, x->v[i]);
		sh_path(P, x, x->v[i], POL_OP_READ, 0);
		sh_run_file(P, x, x->v[i], LANG_SHELL);
		return;
	}
	sh_run_stdin(P, x, LANG_SHELL);
}

/* python / node / ruby / perl / php: inline code (-c, -e, -E, -r), a script file, or
 * stdin. Code words become SCRIPT units and are data for the command rules. */
void sh_h_interp(struct sh_an *P, struct nc *x, int lang)
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
				sh_check_dl_word(P, x, x->v[k]);
				sh_run_code(P, lang, x->v[k]->s, x->v[k]->len,
					    word_code_how(x->v[k]) | stdin_fed(x), x->v[k]->line,
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
					sh_sub_word(w, nl + 1, &sw);
					x->data[i] = 1;
					sh_run_code(P, lang, sw.s, sw.len,
						    word_code_how(&sw) | stdin_fed(x), w->line,
						    x->depth, x->remote);
				} else if (i + 1 < x->n) {
					i++;
					x->data[i] = 1;
					sh_check_dl_word(P, x, x->v[i]);
					sh_run_code(P, lang, x->v[i]->s, x->v[i]->len,
						    word_code_how(x->v[i]) | stdin_fed(x),
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
					sh_sub_word(w, j + 1, &sw);
					x->data[i] = 1;
					sh_run_code(P, lang, sw.s, sw.len,
						    word_code_how(&sw) | stdin_fed(x), w->line,
						    x->depth, x->remote);
				} else if (i + 1 < x->n) {
					i++;
					x->data[i] = 1;
					sh_check_dl_word(P, x, x->v[i]);
					sh_run_code(P, lang, x->v[i]->s, x->v[i]->len,
						    word_code_how(x->v[i]) | stdin_fed(x),
						    x->v[i]->line, x->depth, x->remote);
				}
				break;
			}
			if (strchr(arg_opts, ch)) {
				if (lang == LANG_PHP && ch == 'f' && j + 1 == w->len &&
				    i + 1 < x->n) {
					had_file = 1;
					sh_path(P, x, x->v[i + 1], POL_OP_READ, 0);
					sh_run_file(P, x, x->v[i + 1], lang);
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
					sh_path(P, x, x->v[i], inplace ? POL_OP_WRITE : POL_OP_READ,
						0);
		return;
	}
	if (had_file && i < x->n && (weq(x->v[i], "/dev/stdin") || weq(x->v[i], "/dev/fd/0"))) {
		sh_run_stdin(P, x, lang);
		return;
	}
	if (had_file && i < x->n) {
		sh_check_dl_word(P, x, x->v[i]);
		sh_path(P, x, x->v[i], POL_OP_READ, 0);
		sh_run_file(P, x, x->v[i], lang);
		return;
	}
	if (!had_file)
		sh_run_stdin(P, x, lang);
}

int sh_is_decoder(struct nc *x)
{
	if (x->kflags & F_DECODE)
		return 1;
	/* base64, xxd, gzip, bzip2, xz, zstd: only with an option that decodes */
	{
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
			while (k < 2 && i + 1 < len && sh_hexval((unsigned char)s[i + 1]) < 16) {
				v = v * 16 + sh_hexval((unsigned char)s[++i]);
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

/* What printf FORMAT ARGS prints: the format (escapes decoded) applied to the
 * arguments, again while arguments remain; each conversion takes one argument as
 * text (%s %b %d ...), %c its first byte. */
char *sh_printf_text(struct sh_an *P, struct sh_word **v, size_t n, size_t *outlen)
{
	size_t fl, cap = 0, o = 0, a = 1;
	char *fmt = sh_join_expanded(P, v, 1, &fl), *out;

	if (!fmt || !(fmt = decode_escapes(P, fmt, fl, &fl)))
		return NULL;
	for (size_t i = 0; i < n; i++)
		cap += v[i]->len;
	cap = fl * (n + 1) + cap + 1;
	if (cap > SH_MAX_VAR_LEN * 4)
		return NULL;
	out = sh_alloc(P, cap);
	if (!out)
		return NULL;
	do {
		size_t used = 0;
		for (size_t i = 0; i < fl; i++) {
			if (fmt[i] != '%' || i + 1 >= fl) {
				out[o++] = fmt[i];
				continue;
			}
			if (fmt[i + 1] == '%') {
				out[o++] = '%';
				i++;
				continue;
			}
			while (i + 1 < fl && strchr("-+ #0123456789.", fmt[i + 1]))
				i++; /* flags, width, precision */
			if (i + 1 >= fl)
				break;
			char conv = fmt[++i];
			const struct sh_word *arg = a < n ? v[a] : NULL;
			used = 1;
			a++;
			if (!arg)
				continue;
			if (conv == 'c') {
				if (arg->len)
					out[o++] = arg->s[0];
			} else {
				memcpy(out + o, arg->s, arg->len);
				o += arg->len;
			}
		}
		if (!used)
			break;
	} while (a < n && o + fl + 1 < cap);
	out[o] = '\0';
	*outlen = o;
	return out;
}

/* What this command writes to stdout when it is known: for echo, printf, cat <<EOF. */
void sh_set_feed(struct sh_an *P, struct nc *x)
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
		if (NM("printf"))
			s = sh_printf_text(P, x->v + i, x->n - i, &len);
		else
			s = sh_join_expanded(P, x->v + i, x->n - i, &len);
		if (s && esc && !NM("printf"))
			s = decode_escapes(P, s, len, &len);
		if (!s)
			return;
		c->feed = s;
		c->feed_len = len;
		c->feed_how = esc ? SH_CODE_GUESSED : 0;
		c->feed_line = x->line;
		return;
	}
	if (NM("cat") || NM("tee")) {
		/* cat and tee pass on what a pipe brings them (echo x | tee log | sh) */
		if (c->pipe_prev && c->pipe_prev->feed) {
			c->feed = c->pipe_prev->feed;
			c->feed_len = c->pipe_prev->feed_len;
			c->feed_how = c->pipe_prev->feed_how;
			c->feed_line = c->pipe_prev->feed_line;
		}
		for (size_t i = 0; i < c->nr; i++) {
			if (c->r[i].kind == R_HEREDOC && c->r[i].hd) {
				c->feed = sh_heredoc_text(P, c->r[i].hd, &c->feed_len);
				c->feed_how =
				    SH_CODE_HEREDOC | (c->r[i].hd->quoted ? SH_CODE_EXACT : 0);
				c->feed_line = c->r[i].hd->line;
			} else if (c->r[i].kind == R_HERESTR) {
				c->feed = c->r[i].target.s;
				c->feed_len = c->r[i].target.len;
				c->feed_how = word_code_how(&c->r[i].target);
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
						    c->feed_line, c->feed_how);
			if (NM("tee"))
				for (size_t i = 1; i < x->n; i++)
					if (x->v[i]->s[0] != '-')
						file_record(P, x->v[i], c->feed, c->feed_len,
							    c->feed_line, c->feed_how);
		}
	}
}
