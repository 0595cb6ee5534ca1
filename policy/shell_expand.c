/* shell_expand.c - the expansions bash performs on words before it runs them, where
 * the line itself says the result: brace expansion ({r,}m, x{1..3}), the
 * transformations of a known value (${p@Q} ${p@E} ${p@P} ${p@U} ${p@u} ${p@L}),
 * arrays (a=(...), a[i]=..., a+=(...), ${a[@]} ${a[i]}), printf -v, read and mapfile
 * from a here-string, and a glob in a command name matched against the names of the
 * command table. What it cannot know stays unknown: the walk treats such a name as
 * one nobody can see (sh_unseen). */
#include "shell_int.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BRACE_MAX     64   /* words one word may expand into; beyond, it stays as written */
#define BRACE_MAX_LEN 4096 /* a longer word stays as written (its copies would be large) */

/* ---- brace expansion ---------------------------------------------------------------- */

/* The index of the "}" closing the "{" at s[o], or 0 when there is none. */
static size_t brace_close(const char *s, size_t n, size_t o)
{
	int depth = 0;

	for (size_t i = o; i < n; i++) {
		if (s[i] == '{')
			depth++;
		else if (s[i] == '}' && --depth == 0)
			return i;
	}
	return 0;
}

/* Is s[a..b) a sequence expression x..y or x..y..step of numbers or single letters?
 * Its first and last value and the step go out. */
static int brace_seq(const char *s, size_t a, size_t b, long *from, long *to, long *step,
		     int *alpha)
{
	char buf[48];
	char *p, *e;
	size_t n = b - a;

	if (n < 4 || n >= sizeof(buf))
		return 0;
	memcpy(buf, s + a, n);
	buf[n] = '\0';
	p = strstr(buf, "..");
	if (!p || p == buf)
		return 0;
	*alpha = 0;
	*step = 1;
	if (p == buf + 1 && ((buf[0] | 32) >= 'a' && (buf[0] | 32) <= 'z') && p[2] && !p[3] &&
	    ((p[2] | 32) >= 'a' && (p[2] | 32) <= 'z')) {
		*alpha = 1;
		*from = buf[0];
		*to = p[2];
		return 1;
	}
	*from = strtol(buf, &e, 10);
	if (e != p)
		return 0;
	*to = strtol(p + 2, &e, 10);
	if (e == p + 2)
		return 0;
	if (e[0] == '.' && e[1] == '.') {
		char *f;
		*step = strtol(e + 2, &f, 10);
		if (f == e + 2 || *f)
			return 0;
		if (*step < 0)
			*step = -*step;
		if (!*step)
			*step = 1;
		return 1;
	}
	return *e == '\0';
}

struct bx {
	struct sh_an *P;
	char *out[BRACE_MAX];
	size_t len[BRACE_MAX];
	size_t n;
	int over;
};

static void bx_add(struct bx *b, const char *s, size_t n);

/* Expands s[0..n) into b: the first brace pair that expands, each of its parts
 * with the prefix and the suffix (itself expanded) around it. */
static void bx_word(struct bx *b, const char *s, size_t n, unsigned depth)
{
	for (size_t o = 0; o < n && !b->over; o++) {
		size_t c, start, parts = 0;
		int depth2 = 0;
		long from = 0, to = 0, step = 1;
		int alpha = 0;
		char *buf;

		if (s[o] != '{' || (o && s[o - 1] == '$') || !(c = brace_close(s, n, o)))
			continue;
		for (size_t i = o + 1; i < c; i++) {
			depth2 += s[i] == '{' ? 1 : s[i] == '}' ? -1 : 0;
			parts += depth2 == 0 && s[i] == ',';
		}
		if (!parts && !brace_seq(s, o + 1, c, &from, &to, &step, &alpha))
			continue;
		if (depth > 8) {
			b->over = 1;
			return;
		}
		buf = sh_alloc(b->P, n + 24);
		if (!buf) {
			b->over = 1;
			return;
		}
		memcpy(buf, s, o);
		if (!parts) {
			long k = from;
			for (size_t guard = 0; guard <= BRACE_MAX && !b->over; guard++) {
				size_t l = o;
				if (alpha)
					buf[l++] = (char)k;
				else
					l += (size_t)snprintf(buf + l, 22, "%ld", k);
				memcpy(buf + l, s + c + 1, n - c - 1);
				bx_word(b, buf, l + n - c - 1, depth + 1);
				if (k == to || (from <= to ? k + step > to : k - step < to))
					return;
				k += from <= to ? step : -step;
				buf = sh_alloc(b->P, n + 24);
				if (!buf)
					b->over = 1;
				else
					memcpy(buf, s, o);
			}
			b->over = 1;
			return;
		}
		start = o + 1;
		depth2 = 0;
		for (size_t i = o + 1; i <= c && !b->over; i++) {
			if (i < c) {
				depth2 += s[i] == '{' ? 1 : s[i] == '}' ? -1 : 0;
				if (depth2 || s[i] != ',')
					continue;
			}
			char *w = sh_alloc(b->P, o + (i - start) + (n - c - 1) + 1);
			if (!w) {
				b->over = 1;
				return;
			}
			memcpy(w, s, o);
			memcpy(w + o, s + start, i - start);
			memcpy(w + o + i - start, s + c + 1, n - c - 1);
			bx_word(b, w, o + (i - start) + (n - c - 1), depth + 1);
			start = i + 1;
		}
		return;
	}
	bx_add(b, s, n);
}

static void bx_add(struct bx *b, const char *s, size_t n)
{
	if (b->n == BRACE_MAX) {
		b->over = 1;
		return;
	}
	b->out[b->n] = sh_strndup(b->P, s, n);
	b->len[b->n] = n;
	if (!b->out[b->n])
		b->over = 1;
	b->n++;
}

/* A word brace expansion leaves as it is: no unquoted "{", or quoted parts or
 * expansions whose place in the word dcg no longer knows. */
static int brace_plain(const struct sh_word *w)
{
	return (w->flags & W_BRACE) && !(w->flags & (W_QUOTED | W_UNRESOLVED | W_SUBST)) &&
	       !w->nhome && w->len <= BRACE_MAX_LEN && !sh_is_assignment(w);
}

int sh_brace_unknown(const struct sh_word *w)
{
	return (w->flags & W_BRACE) && !brace_plain(w) && memchr(w->s, '{', w->len) &&
	       (memchr(w->s, ',', w->len) || memmem(w->s, w->len, "..", 2));
}

struct sh_word **sh_brace_words(struct sh_an *P, struct sh_word **v, size_t *n)
{
	struct sh_word **nv = NULL;
	size_t o = 0, cap = 0;

	for (size_t i = 0; i < *n; i++) {
		struct bx b;
		if (!brace_plain(v[i]))
			goto keep;
		memset(&b, 0, sizeof(b));
		b.P = P;
		bx_word(&b, v[i]->s, v[i]->len, 0);
		if (b.over || b.n < 1 || (b.n == 1 && b.len[0] == v[i]->len))
			goto keep;
		if (!nv || o + b.n + (*n - i) > cap) {
			size_t ncap = (o + b.n + (*n - i)) * 2;
			struct sh_word **t = sh_alloc(P, ncap * sizeof(*t));
			if (!t)
				return NULL;
			memcpy(t, nv ? nv : v, (nv ? o : i) * sizeof(*t));
			o = nv ? o : i;
			nv = t;
			cap = ncap;
		}
		for (size_t k = 0; k < b.n; k++) {
			struct sh_word *w = sh_alloc(P, sizeof(*w));
			if (!w)
				return NULL;
			memset(w, 0, sizeof(*w));
			w->s = b.out[k];
			w->len = b.len[k];
			w->line = v[i]->line;
			w->flags = v[i]->flags & W_GLOB;
			if (b.len[k]) /* an empty result is no word */
				nv[o++] = w;
		}
		continue;
keep:
		if (nv)
			nv[o++] = v[i];
	}
	if (!nv)
		return v;
	*n = o;
	return nv;
}

/* ---- transformations of a known value ---------------------------------------------- */

/* $'...'-style escapes of ${p@E} (and the backslashes ${p@P} leaves). */
static size_t unescape(const char *s, size_t n, char *out)
{
	static const char from[] = "abefnrtv\\'\"?";
	static const char to[] = "\a\b\033\f\n\r\t\v\\'\"?";
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		const char *f;
		if (s[i] != '\\' || i + 1 >= n) {
			out[o++] = s[i];
			continue;
		}
		i++;
		if ((f = strchr(from, s[i])) && s[i]) {
			out[o++] = to[f - from];
		} else if (s[i] == 'x') {
			unsigned v = 0, k = 0;
			while (k < 2 && i + 1 < n && sh_hexval(s[i + 1]) < 16)
				v = v * 16 + sh_hexval(s[++i]), k++;
			out[o++] = (char)v;
		} else if (s[i] >= '0' && s[i] <= '7') {
			unsigned v = (unsigned)(s[i] - '0'), k = 1;
			while (k < 3 && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7')
				v = v * 8 + (unsigned)(s[++i] - '0'), k++;
			out[o++] = (char)v;
		} else {
			out[o++] = '\\';
			out[o++] = s[i];
		}
	}
	return o;
}

const char *sh_transform(struct sh_an *P, int op, const char *v, size_t n, size_t *outlen)
{
	char *out = sh_alloc(P, n * 4 + 3);
	size_t o = 0;

	if (!out)
		return NULL;
	switch (op) {
	case 'Q': /* 'value' with each ' as '\'' */
		out[o++] = '\'';
		for (size_t i = 0; i < n; i++) {
			if (v[i] == '\'') {
				memcpy(out + o, "'\\''", 4);
				o += 4;
			} else {
				out[o++] = v[i];
			}
		}
		out[o++] = '\'';
		break;
	case 'E':
		o = unescape(v, n, out);
		break;
	case 'P': /* prompt escapes: \u \h \w ... are unknown; a value without any is itself */
		if (memchr(v, '\\', n) || memchr(v, '$', n) || memchr(v, '`', n))
			return NULL;
		memcpy(out, v, n);
		o = n;
		break;
	case 'U':
	case 'L':
	case 'u':
		memcpy(out, v, n);
		o = n;
		for (size_t i = 0; i < n && (op != 'u' || i < 1); i++) {
			char c = out[i];
			if (op != 'L' && c >= 'a' && c <= 'z')
				out[i] = (char)(c - 32);
			else if (op == 'L' && c >= 'A' && c <= 'Z')
				out[i] = (char)(c + 32);
		}
		break;
	default:
		return NULL;
	}
	out[o] = '\0';
	*outlen = o;
	return out;
}

/* ---- arrays ------------------------------------------------------------------------- */

/* NAME[@] for a NAME (nlen bytes), in the arena. */
static char *all_name(struct sh_an *P, const char *name, size_t nlen)
{
	char *s = sh_alloc(P, nlen + 4);

	if (!s)
		return NULL;
	memcpy(s, name, nlen);
	memcpy(s + nlen, "[@]", 4);
	return s;
}

/* Lists are kept joined by single spaces, or by US (0x1f) when an element may hold
 * a space (mapfile's lines): ${a[@]} shows them joined by spaces either way. */
#define SH_US '\x1f'

/* The k-th element of a list, or NULL. */
static const char *nth_elem(const char *all, size_t alen, size_t k, size_t *len)
{
	size_t i = 0;
	char sep = memchr(all, SH_US, alen) ? SH_US : ' ';

	for (size_t e = 0; i <= alen; e++) {
		size_t j = i;
		while (j < alen && all[j] != sep)
			j++;
		if (e == k) {
			*len = j - i;
			return all + i;
		}
		i = j + 1;
	}
	return NULL;
}

const char *sh_array_value(struct sh_an *P, const char *name, size_t nlen, size_t *vlen)
{
	size_t base = 0, al;
	const char *all;
	char *an;
	unsigned long k = 0;

	while (base < nlen && name[base] != '[')
		base++;
	if (base == nlen || base + 2 >= nlen || name[nlen - 1] != ']')
		return NULL;
	an = all_name(P, name, base);
	if (!an || !(all = sh_var_value(P, an, base + 3, &al)))
		return NULL;
	if (name[base + 1] == '@' || name[base + 1] == '*') {
		char *sp;
		*vlen = al;
		if (!memchr(all, SH_US, al) || !(sp = sh_strndup(P, all, al)))
			return all;
		for (size_t i = 0; i < al; i++)
			sp[i] = sp[i] == SH_US ? ' ' : sp[i];
		return sp;
	}
	for (size_t i = base + 1; i + 1 < nlen; i++)
		k = k * 10 + (unsigned long)(name[i] - '0');
	return nth_elem(all, al, k, vlen);
}

/* Sets NAME (its first element) and NAME[@] (all of them, joined) to a list, or
 * forgets both when all is NULL. */
static void set_array(struct sh_an *P, const char *name, size_t nlen, const char *all, size_t al)
{
	char *an = all_name(P, name, nlen);
	size_t l0 = 0;
	const char *e0 = all ? nth_elem(all, al, 0, &l0) : NULL;

	if (!an)
		return;
	sh_set_var(P, an, nlen + 3, all, al);
	sh_set_var(P, name, nlen, e0, l0);
}

/* The list old (al bytes) with element idx set to val, padded with empty elements
 * up to it. */
static char *set_elem(struct sh_an *P, const char *old, size_t al, size_t idx, const char *val,
		      size_t vlen, size_t *outlen)
{
	char *all = sh_alloc(P, al + vlen + idx + 2);
	size_t o = 0, el;
	const char *e;

	if (!all)
		return NULL;
	for (size_t k = 0; k <= idx || (old && nth_elem(old, al, k, &el)); k++) {
		e = old ? nth_elem(old, al, k, &el) : NULL;
		if (k == idx) {
			e = val;
			el = vlen;
		} else if (!e) {
			el = 0;
		}
		if (k)
			all[o++] = ' ';
		if (el)
			memcpy(all + o, e, el);
		o += el;
	}
	all[o] = '\0';
	*outlen = o;
	return all;
}

int sh_record_array(struct sh_an *P, const struct sh_word *w, const char *val, size_t vlen)
{
	size_t nlen = 0, al = 0, idx = 0;
	int indexed = 0;
	const char *old;
	char *all, *an;

	while (nlen < w->len && w->s[nlen] != '=' && w->s[nlen] != '[' && w->s[nlen] != '+')
		nlen++;
	if (nlen < w->len && w->s[nlen] == '[') {
		indexed = 1;
		for (size_t i = nlen + 1; i < w->len && w->s[i] != ']'; i++) {
			if (w->s[i] < '0' || w->s[i] > '9' || idx > 4096)
				indexed = 2; /* an index dcg cannot compute */
			else
				idx = idx * 10 + (size_t)(w->s[i] - '0');
		}
	}
	if (!(w->flags & W_ARRAY) && !indexed)
		return 0;
	an = all_name(P, w->s, nlen);
	old = an ? sh_var_value(P, an, nlen + 3, &al) : NULL;
	if (!val || indexed == 2) {
		set_array(P, w->s, nlen, NULL, 0);
		return 1;
	}
	if (indexed) {
		all = set_elem(P, old, old ? al : 0, idx, val, vlen, &al);
		set_array(P, w->s, nlen, all, all ? al : 0);
		return 1;
	}
	if (vlen < 2 || val[0] != '(' || val[vlen - 1] != ')') { /* "(e1 e2 ...)" */
		set_array(P, w->s, nlen, NULL, 0);
		return 1;
	}
	val++;
	vlen -= 2;
	if (!(w->s[nlen] == '+' && old)) /* a=(x y), or a+=(x y) of an empty a */
		al = 0;
	all = sh_alloc(P, al + vlen + 2);
	if (!all)
		return 1;
	memcpy(all, al ? old : "", al);
	if (al && vlen)
		all[al++] = ' ';
	memcpy(all + al, val, vlen);
	al += vlen;
	all[al] = '\0';
	set_array(P, w->s, nlen, all, al);
	return 1;
}

int sh_is_name(const struct sh_word *w)
{
	if (!w->len || w->flags ||
	    (!((w->s[0] | 32) >= 'a' && (w->s[0] | 32) <= 'z') && w->s[0] != '_'))
		return 0;
	for (size_t i = 1; i < w->len; i++) {
		char c = w->s[i];
		if (!(((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return 1;
}

/* ---- printf -v, read, mapfile --------------------------------------------------------- */

/* The text of the here-string or here-document that feeds x, or NULL. */
static const char *stdin_text(struct sh_an *P, struct nc *x, size_t *len)
{
	struct sh_cmd *c = x->c;

	for (size_t i = 0; c && i < c->nr; i++) {
		if (c->r[i].kind == R_HERESTR) {
			const struct sh_word *t = &c->r[i].target;
			struct sh_word *tp = (struct sh_word *)t;
			return (t->flags & (W_UNRESOLVED | W_PROCSUB))
				   ? NULL
				   : sh_join_expanded(P, &tp, 1, len);
		}
		if (c->r[i].kind == R_HEREDOC && c->r[i].hd && c->r[i].hd->body &&
		    (c->r[i].hd->quoted || !memchr(c->r[i].hd->body, '$', c->r[i].hd->len)))
			return sh_heredoc_text(P, c->r[i].hd, len);
	}
	if (c && c->pipe_prev && c->pipe_prev->feed) { /* lastpipe, or the same mistake */
		*len = c->pipe_prev->feed_len;
		return c->pipe_prev->feed;
	}
	return NULL;
}

/* IFS-split text into a space-joined list (the default IFS: blanks and newlines). */
static char *split_fields(struct sh_an *P, const char *s, size_t n, size_t *outlen)
{
	char *out = sh_alloc(P, n + 1);
	size_t o = 0;
	size_t il;
	const char *ifs = sh_var_value(P, "IFS", 3, &il);

	if (!out)
		return NULL;
	if (!ifs) {
		ifs = " \t\n";
		il = 3;
	}
	for (size_t i = 0; i < n; i++) {
		int sep = memchr(ifs, s[i], il) != NULL || s[i] == ' ';
		if (sep) {
			if (o && out[o - 1] != ' ')
				out[o++] = ' ';
		} else {
			out[o++] = s[i];
		}
	}
	while (o && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	*outlen = o;
	return out;
}

void sh_assign_builtin(struct sh_an *P, struct nc *x)
{
	size_t i = 1, len;
	const char *arr = NULL, *txt;
	size_t arrl = 0;
	char *s;

	if (NM("printf")) { /* printf -v NAME FORMAT ARGS */
		if (x->n < 4 || !weq(x->v[1], "-v") || !sh_is_name(x->v[2]))
			return;
		s = sh_printf_text(P, x->v + 3, x->n - 3, &len);
		sh_set_var(P, x->v[2]->s, x->v[2]->len, s, s ? len : 0);
		return;
	}
	/* read [-r] [-a NAME] [NAME...], mapfile/readarray [-t] NAME */
	for (; i < x->n && x->v[i]->s[0] == '-' && x->v[i]->len > 1; i++) {
		const struct sh_word *w = x->v[i];
		if (memchr(w->s, 'a', w->len) && NM("read") && i + 1 < x->n) {
			arr = x->v[i + 1]->s;
			arrl = x->v[i + 1]->len;
			i++;
		} else if (w->len == 2 && strchr("dnNptuCcsO", w->s[1]) && w->s[1] != 's' &&
			   w->s[1] != 't') {
			i++; /* an option with a value */
		}
	}
	if (!NM("read") && i < x->n) {
		arr = x->v[i]->s;
		arrl = x->v[i]->len;
	}
	txt = stdin_text(P, x, &len);
	if (NM("read") && txt) { /* one line */
		const char *nl = memchr(txt, '\n', len);
		if (nl)
			len = (size_t)(nl - txt);
	}
	if (txt && !NM("read")) { /* mapfile: one element a line */
		char *l = sh_alloc(P, len + 2);
		if (l) {
			memcpy(l, txt, len);
			while (len && l[len - 1] == '\n')
				len--;
			for (size_t k = 0; k < len; k++)
				l[k] = l[k] == '\n' ? SH_US : l[k];
			l[len++] = SH_US; /* a list of lines even when there is one */
			l[len] = '\0';
		}
		s = l;
	} else {
		s = txt ? split_fields(P, txt, len, &len) : NULL;
	}
	if (arr) {
		set_array(P, arr, arrl, s, s ? len : 0);
		return;
	}
	for (size_t k = 0; i < x->n; i++, k++) { /* read A B C: the last takes the rest */
		size_t el = 0;
		const char *e = s ? nth_elem(s, len, k, &el) : NULL;
		if (e && i + 1 == x->n)
			el = len - (size_t)(e - s);
		if (sh_is_name(x->v[i]))
			sh_set_var(P, x->v[i]->s, x->v[i]->len, e, el);
	}
}

/* ---- a glob in a command name ------------------------------------------------------------ */

int sh_is_glob(const struct sh_word *w)
{
	const char *b;

	if (!(w->flags & W_GLOB) || (w->flags & W_QUOTED))
		return 0;
	if (memchr(w->s, '*', w->len) || memchr(w->s, '?', w->len))
		return 1;
	b = memchr(w->s, '[', w->len); /* [ alone, [[ and [x are no pattern */
	return b && b + 2 < w->s + w->len && memchr(b + 2, ']', (size_t)(w->s + w->len - b - 2));
}

size_t sh_glob_names(const struct sh_word *w, const char **names, size_t max)
{
	char pat[128];
	const char *b = w->s;
	size_t n = 0, bl;

	for (size_t k = 0; k < w->len; k++)
		if (w->s[k] == '/')
			b = w->s + k + 1;
	bl = w->len - (size_t)(b - w->s);
	if (!sh_is_glob(w) || bl >= sizeof(pat))
		return 0;
	memcpy(pat, b, bl);
	pat[bl] = '\0';
	for (size_t i = 0; i < sh_ncmds && n < max; i++)
		if (!fnmatch(pat, sh_cmds[i].name, FNM_PERIOD) && strcmp(pat, sh_cmds[i].name))
			names[n++] = sh_cmds[i].name;
	return n;
}
