/* shell_lex.c - the shell analyser's lexer: words with quoting and expansions noted,
 * heredoc bodies, operators and tokens (see shell_int.h). */
#include "shell_int.h"

#include <errno.h>
#include <string.h>

static void fail(struct sh_an *P, int err)
{
	if (!P->ret)
		P->ret = err;
	P->abort = 1;
}

void *sh_alloc(struct sh_an *P, size_t size)
{
	void *p = pol_arena_alloc(P->a, size);

	if (!p)
		fail(P, -ENOMEM);
	return p;
}

struct sh_scope *sh_new_scope(struct sh_an *P, struct sh_scope *parent)
{
	struct sh_scope *sc = sh_alloc(P, sizeof(*sc));

	if (sc) {
		sc->parent = parent;
		sc->cwd = NULL;
	}
	return sc;
}

const char *sh_scope_cwd(const struct sh_scope *sc)
{
	for (; sc; sc = sc->parent)
		if (sc->cwd)
			return sc->cwd[0] ? sc->cwd : NULL;
	return NULL;
}

char *sh_strndup(struct sh_an *P, const char *s, size_t len)
{
	char *d = pol_arena_strndup(P->a, s, len);

	if (!d)
		fail(P, -ENOMEM);
	return d;
}

int sh_lex_init(struct sh_an *P, struct sh_lex *L, const char *s, size_t n, unsigned line,
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
		sh_emit_finding(P, "shell.parse.too_complex", s, n < 200 ? n : 200, line, depth);
		P->abort = 1;
		return -1;
	}
	/* Words never grow past their source (quote removal only shrinks), so a buffer
	 * the size of the input holds every word in progress at once. */
	L->bcap = n + 16;
	L->buf = sh_alloc(P, L->bcap);
	return L->buf ? 0 : -1;
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

void sh_unterminated(struct sh_an *P, struct sh_lex *L, size_t from)
{
	size_t len = L->n - from;

	if (P->reported_unterminated)
		return;
	P->reported_unterminated = 1;
	sh_emit_finding(P, "shell.parse.unterminated", L->s + from, len < 200 ? len : 200, L->line,
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
	w->var_op[w->nhome] = 0;
	w->nhome++;
}

static void note_home(struct sh_word *w, size_t off, size_t len)
{
	note_var(w, off, len, "HOME", 4);
}

/* Parses a command substitution's body on the same lexer: $( has been consumed.
 * The raw text "$(...)" is appended to the word in progress. */
static void lex_cmdsubst(struct sh_an *P, struct sh_lex *L, struct sh_word *w, size_t start)
{
	struct sh_cmd *mark = P->tail;
	size_t save = L->blen;

	if (P->nest >= SH_MAX_NEST) {
		sh_emit_finding(P, "shell.parse.too_complex", L->s + start, clip(L, start, 40),
				L->line, L->depth);
		P->abort = 1;
		return;
	}
	sh_parse_nested(P, L, 1);
	L->blen = save;
	w->flags |= W_SUBST | W_UNRESOLVED;
	w->nsub++;
	w->sub = P->tail != mark ? P->tail : NULL;
	if (sh_cmds_download_since(P, mark))
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
void sh_lex_arith(struct sh_an *P, struct sh_lex *L, struct sh_word *w, size_t start)
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
	sh_unterminated(P, L, start);
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
		sh_unterminated(P, L, start);
		return;
	}
	L->i = k + 1;
	w->flags |= W_SUBST | W_UNRESOLVED;
	if (blen)
		put_n(L, L->s + start, L->i - start);
	if (P->nest >= SH_MAX_NEST) {
		sh_emit_finding(P, "shell.parse.too_complex", L->s + start, clip(L, start, 40),
				line0, L->depth);
		P->abort = 1;
		return;
	}
	if (sh_lex_init(P, &sub, body, blen, line0, L->depth, L->remote))
		return;
	sh_parse_nested(P, &sub, 0);
	w->nsub++;
	w->sub = P->tail != mark ? P->tail : NULL;
	if (sh_cmds_download_since(P, mark))
		w->flags |= W_DL;
}

/* ${NAME}, ${NAME[IDX]} (IDX digits, @ or *), each with an optional transformation
 * ${NAME@Q} (Q E P U u L): a reference whose value the walk may know. Returns 1 when
 * it was one (noted in w, copied as written). */
static int lex_param_ref(struct sh_lex *L, struct sh_word *w)
{
	size_t k = L->i + 2, nend;
	int op = 0;

	while (k < L->n && is_name_char((unsigned char)L->s[k]))
		k++;
	if (k == L->i + 2 || (!is_name_start((unsigned char)L->s[L->i + 2]) && k != L->i + 3))
		return 0;
	if (k < L->n && L->s[k] == '[' && is_name_start((unsigned char)L->s[L->i + 2])) {
		size_t j = k + 1;
		if (j < L->n && (L->s[j] == '@' || L->s[j] == '*'))
			j++;
		else
			while (j < L->n && L->s[j] >= '0' && L->s[j] <= '9' && j - k < 6)
				j++;
		if (j == k + 1 || j >= L->n || L->s[j] != ']')
			return 0;
		k = j + 1;
	}
	nend = k;
	if (k + 1 < L->n && L->s[k] == '@' && strchr("QEPUuL", L->s[k + 1]) && L->s[k + 1]) {
		op = L->s[k + 1];
		k += 2;
	}
	if (k >= L->n || L->s[k] != '}')
		return 0;
	note_var(w, L->blen, k + 1 - L->i, L->s + L->i + 2, nend - L->i - 2);
	if (op && w->nhome && w->var_name[w->nhome - 1] == L->s + L->i + 2)
		w->var_op[w->nhome - 1] = (uint8_t)op;
	put_n(L, L->s + L->i, k + 1 - L->i);
	L->i = k + 1;
	return 1;
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
	if (lex_param_ref(L, w))
		return;
	if (L->n - L->i >= 4 && (L->s[L->i + 2] == '@' || L->s[L->i + 2] == '*') &&
	    L->s[L->i + 3] == '}') {
		note_var(w, L->blen, 4, L->s + L->i + 2, 1);
		put_n(L, L->s + L->i, 4);
		L->i += 4;
		return;
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
	sh_unterminated(P, L, start);
}

unsigned sh_hexval(int c)
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
			while (k < max && L->i < L->n && sh_hexval(at(L, 0)) < 16) {
				v = v * 16 + sh_hexval(at(L, 0));
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
	sh_unterminated(P, L, start);
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
	} else if (k < L->n && strchr("0123456789@*", L->s[k]) && L->s[k]) {
		/* positional parameters: known after set -- or in sh -c CODE ARG0 ARG1 */
		note_var(w, L->blen, 2, L->s + k, 1);
		k++;
	} else if (k < L->n && strchr("#?$!-", L->s[k]) && L->s[k]) {
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

static int lex_word(struct sh_an *P, struct sh_lex *L, struct sh_word *w);

/* Is the word so far NAME= or NAME+= (a compound assignment when "(" follows)? */
static int array_prefix(const char *s, size_t n)
{
	size_t k = 0;

	if (!n || !is_name_start((unsigned char)s[0]))
		return 0;
	while (k < n && is_name_char((unsigned char)s[k]))
		k++;
	if (k < n && s[k] == '+')
		k++;
	return k + 1 == n && s[k] == '=';
}

/* NAME=( e1 e2 ... ): L->i at "(". The elements are read as words (quotes removed,
 * substitutions parsed) and joined by single spaces between the parentheses; their
 * variable references and flags go to w, which is marked W_ARRAY. */
static void lex_array(struct sh_an *P, struct sh_lex *L, struct sh_word *w)
{
	size_t start = L->i;
	unsigned flags = 0;
	int first = 1;

	L->arr = 1;
	L->i++;
	put(L, '(');
	while (!P->abort) {
		struct sh_word e;
		int c = at(L, 0);
		if (c < 0) {
			sh_unterminated(P, L, start);
			break;
		}
		if (c == ' ' || c == '\t' || c == '\n') {
			L->line += c == '\n';
			L->i++;
			continue;
		}
		if (c == '#') { /* a comment runs to the end of the line */
			while (L->i < L->n && L->s[L->i] != '\n')
				L->i++;
			continue;
		}
		if (c == ')') {
			L->i++;
			break;
		}
		if (is_meta(c) && !((c == '<' || c == '>') && at(L, 1) == '(')) {
			L->i++; /* ; & | < > ( in a list: a syntax error bash refuses */
			flags |= W_UNRESOLVED;
			continue;
		}
		if (lex_word(P, L, &e) || !e.s)
			continue;
		if (!first)
			put(L, ' ');
		first = 0;
		for (unsigned k = 0; k < e.nhome; k++) {
			note_var(w, L->blen + e.home_off[k], e.home_len[k], e.var_name[k],
				 e.var_nlen[k]);
			if (w->nhome && w->var_name[w->nhome - 1] == e.var_name[k])
				w->var_op[w->nhome - 1] = e.var_op[k];
		}
		put_n(L, e.s, e.len);
		flags |= e.flags;
		if (e.nsub) {
			w->nsub += e.nsub;
			w->sub = e.sub;
		}
	}
	put(L, ')');
	L->arr = 0;
	w->flags |= W_ARRAY | (flags & (W_UNRESOLVED | W_SUBST | W_DL | W_GLOB));
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
			if (c == '(' && !L->arr && !w->flags &&
			    array_prefix(L->buf + base, L->blen - base)) {
				lex_array(P, L, w);
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
				sh_unterminated(P, L, s0);
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
						sh_lex_arith(P, L, w, s1);
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
				sh_unterminated(P, L, s0);
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
					sh_lex_arith(P, L, w, s1);
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
		case '{':
			w->flags |= W_BRACE;
			put(L, (char)c);
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
			if (sh_lex_init(P, &sub, h->body, h->len, h->line, L->depth, L->remote))
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
		char s[4]; /* an array, not a pointer the loader would relocate */
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

void sh_next_tok(struct sh_an *P, struct sh_lex *L, struct sh_tok *t)
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

/* ---- the walk: normalization ------------------------------------------------------- */

int sh_word_is(const struct sh_word *w, const char *set)
{
	for (size_t l; (l = strlen(set)) != 0; set += l + 1)
		if (l == w->len && !memcmp(w->s, set, l))
			return 1;
	return 0;
}

int sh_is_assignment(const struct sh_word *w)
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
void sh_base_of(const struct sh_word *w, const char **s, size_t *len)
{
	size_t b = 0;

	if (!(w->flags & (W_SUBST | W_UNRESOLVED)))
		for (size_t i = 0; i + 1 < w->len; i++)
			if (w->s[i] == '/')
				b = i + 1;
	*s = w->s + b;
	*len = w->len - b;
}

int sh_name_is(const char *s, size_t len, const char *lit)
{
	return lit_eq(s, len, lit);
}

void sh_sub_word(const struct sh_word *w, size_t off, struct sh_word *out)
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
			out->var_op[out->nhome] = w->var_op[k];
			out->nhome++;
		}
}
