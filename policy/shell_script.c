/* shell_script.c - what dcg reads in interpreter code (python, node, ruby, perl, php)
 * beyond the script rules' regexes:
 *  - names under another name: import shutil as s, from os import remove,
 *    __import__('shutil'), importlib.import_module, getattr(m, 'name'), require('fs')
 *    bound to any name, destructuring, Ruby constant aliases and include FileUtils, PHP
 *    variable functions: the script goes out a second time with every alias written as
 *    what it names (s.rmtree -> shutil.rmtree), so that the rules see through them;
 *  - payloads decoded in the code (base64, hex, rot13): decoded, and analysed as shell
 *    when they read as a command, else as code of the same language;
 *  - paths: string literals that name a path (/..., ~/...) and paths built from the
 *    home folder (Path.home() / ".aws" / "credentials", os.path.join(os.path.expanduser
 *    ("~"), ".ssh"), File.join(Dir.home, ...), $ENV{HOME}."/.ssh") go out as PATH units,
 *    deleted, written or read as the line says, so that path rules hold inside code
 *    exactly as they do in the shell;
 *  - command lines handed to a shell as one string literal (os.system("make test"),
 *    subprocess.run("...", shell=True), execSync('npm -v'), system "rspec", `ls`):
 *    the literal is analysed as the shell would run it, and the SCRIPT unit carries
 *    the call's span, so that the script rule that names the call leaves it to the
 *    command's own units (shell_calls). Anything else handed over (a concatenation, an
 *    f-string or interpolation, a variable, a literal with escapes, other arguments
 *    that could change the shell or its folder) leaves the rule as it is.
 * All of it is text scanning, linear in the script, bounded by SH_SCRIPT_MAX. */
#include "shell_int.h"

#include <string.h>

#define SH_SCRIPT_MAX  (256 * 1024) /* longer scripts: the plain rules only */
#define SH_MAX_ALIASES 24
#define SH_MAX_DECODE  4    /* payloads decoded per script */
#define SH_MAX_LITCALL 16   /* calls of a shell on a literal per script unit */
#define SH_PATHLIT_MAX 1024 /* a path literal joined and resolved by path_literal() */

struct alias {
	const char *name; /* the name used in the code */
	size_t nlen;
	char target[96]; /* what it names: "shutil", "shutil.rmtree", "fs.rmSync" */
};

struct scan {
	struct sh_an *P;
	int lang;
	const char *s;
	size_t n;
	struct alias al[SH_MAX_ALIASES];
	size_t nal;
	unsigned line, depth;
	int how; /* SH_CODE_* */
	int remote;
	/* the literals analysed as command lines, so that the second view of the script
	 * (aliases written out) does not analyse them again */
	struct {
		const char *s;
		size_t len;
		int destroys; /* what analyse_literal() returned for it */
	} lit[SH_MAX_LITCALL];
	size_t nlit;
	int norm_cut; /* rewrite() stopped before the end: its view is not the whole script */
};

static int is_id(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

/* The string literal starting at s[i] (a quote): its body [*b, *b + *bl), and the
 * index after it. Returns 0 when s[i] opens none. */
static size_t literal_at(const char *s, size_t n, size_t i, const char **b, size_t *bl)
{
	char q;
	size_t k;

	if (i >= n || (s[i] != '\'' && s[i] != '"' && s[i] != '`'))
		return 0;
	q = s[i];
	for (k = i + 1; k < n && s[k] != q && s[k] != '\n'; k++)
		if (s[k] == '\\')
			k++;
	if (k >= n || s[k] != q)
		return 0;
	*b = s + i + 1;
	*bl = k - i - 1;
	return k + 1;
}

/* The first string literal at or after i, before the end of the line: its body. */
static int next_literal(const char *s, size_t n, size_t i, const char **b, size_t *bl)
{
	for (; i < n && s[i] != '\n'; i++)
		if (literal_at(s, n, i, b, bl))
			return 1;
	return 0;
}

static int word_at(const char *s, size_t n, size_t i, const char *w)
{
	size_t wl = strlen(w);

	return i + wl <= n && !memcmp(s + i, w, wl) &&
	       (i == 0 || !is_id((unsigned char)s[i - 1])) &&
	       (i + wl == n || !is_id((unsigned char)s[i + wl]) ||
		!is_id((unsigned char)w[wl - 1]));
}

static void add_alias(struct scan *S, const char *name, size_t nlen, const char *t1, size_t l1,
		      const char *t2, size_t l2)
{
	struct alias *a;

	if (S->nal >= SH_MAX_ALIASES || !nlen || l1 + l2 + 2 > sizeof(a->target))
		return;
	if (l2 == nlen && !memcmp(name, t2, nlen) && !l1)
		return; /* import os: nothing to rewrite */
	a = &S->al[S->nal++];
	a->name = name;
	a->nlen = nlen;
	memcpy(a->target, t1, l1);
	if (l1 && l2)
		a->target[l1++] = '.';
	memcpy(a->target + l1, t2, l2);
	a->target[l1 + l2] = '\0';
}

static size_t skip_sp(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static size_t ident(const char *s, size_t n, size_t i, int dots)
{
	while (i < n && (is_id((unsigned char)s[i]) || (dots && (s[i] == '.' || s[i] == ':'))))
		i++;
	return i;
}

/* import X as Y, Z as W  |  from X import A as B, C  |  from X import (A, B) */
static void py_imports(struct scan *S, size_t i)
{
	const char *s = S->s;
	size_t n = S->n, m0, m1, e;

	if (word_at(s, n, i, "import")) {
		for (i += 6;;) {
			i = skip_sp(s, n, i);
			m0 = i;
			m1 = i = ident(s, n, i, 1);
			i = skip_sp(s, n, i);
			if (m1 > m0 && word_at(s, n, i, "as")) {
				i = skip_sp(s, n, i + 2);
				e = ident(s, n, i, 0);
				add_alias(S, s + i, e - i, "", 0, s + m0, m1 - m0);
				i = skip_sp(s, n, e);
			}
			if (i < n && s[i] == ',' && m1 > m0) {
				i++;
				continue;
			}
			return;
		}
	}
	if (!word_at(s, n, i, "from"))
		return;
	i = skip_sp(s, n, i + 4);
	m0 = i;
	m1 = i = ident(s, n, i, 1);
	i = skip_sp(s, n, i);
	if (m1 == m0 || !word_at(s, n, i, "import"))
		return;
	i = skip_sp(s, n, i + 6);
	if (i < n && s[i] == '(')
		i++;
	for (;;) {
		size_t a0, a1;
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\\'))
			i++;
		a0 = i;
		a1 = i = ident(s, n, i, 0);
		if (a1 == a0)
			return;
		i = skip_sp(s, n, i);
		if (word_at(s, n, i, "as")) {
			i = skip_sp(s, n, i + 2);
			e = ident(s, n, i, 0);
			add_alias(S, s + i, e - i, s + m0, m1 - m0, s + a0, a1 - a0);
			i = skip_sp(s, n, e);
		} else {
			add_alias(S, s + a0, a1 - a0, s + m0, m1 - m0, s + a0, a1 - a0);
		}
		if (i < n && s[i] == ',') {
			i++;
			continue;
		}
		return;
	}
}

/* NAME = <loader>('module') / NAME = require('module') / import NAME from 'module' ...:
 * the module named by the literal after a loader call that starts at i. */
static int loader_module(const char *s, size_t n, size_t i, const char **m, size_t *ml)
{
	static const char loaders[] = "__import__(\0"
				      "importlib.import_module(\0"
				      "import_module(\0"
				      "require(\0"
				      "require_relative(\0"
				      "import(\0";
	for (const char *l = loaders; *l; l += strlen(l) + 1) {
		size_t ll = strlen(l);
		if (i + ll <= n && !memcmp(s + i, l, ll) &&
		    (i == 0 || !is_id((unsigned char)s[i - 1]))) {
			size_t j = skip_sp(s, n, i + ll);
			if (literal_at(s, n, j, m, ml)) {
				if (*ml > 5 && !memcmp(*m, "node:", 5)) {
					*m += 5;
					*ml -= 5;
				}
				return 1;
			}
		}
	}
	return 0;
}

/* The aliases of a script: each line's binding forms. */
static void find_aliases(struct scan *S)
{
	const char *s = S->s;
	size_t n = S->n;

	for (size_t i = 0; i < n; i++) {
		size_t ls = i, le, k, v0, v1;
		const char *m, *q;
		size_t ml, ql;

		/* a statement: to the end of the line or a ';' outside quotes */
		while (i < n && s[i] != '\n' && s[i] != ';') {
			const char *qb;
			size_t qbl, qe = literal_at(s, n, i, &qb, &qbl);
			i = qe ? qe : i + 1;
		}
		le = i;
		k = skip_sp(s, le, ls);
		if (S->lang == LANG_PYTHON) {
			py_imports(S, k);
		}
		if (S->lang == LANG_RUBY && word_at(s, le, k, "include") &&
		    (q = memmem(s + k, le - k, "FileUtils", 9))) {
			static const char fu[] = "rm_rf\0"
						 "rm_r\0"
						 "remove_dir\0"
						 "remove_entry\0"
						 "rmtree\0"
						 "rm\0"
						 "mv\0";
			for (const char *f = fu; *f; f += strlen(f) + 1)
				add_alias(S, f, strlen(f), "FileUtils", 9, f, strlen(f));
		}
		/* import * as f from 'fs' | import f from 'fs' | import { a as b } from 'fs' */
		if (S->lang == LANG_NODE && word_at(s, le, k, "import") &&
		    (q = memmem(s + k, le - k, "from", 4))) {
			size_t f = (size_t)(q - s);
			if (next_literal(s, le, f, &m, &ml)) {
				if (ml > 5 && !memcmp(m, "node:", 5)) {
					m += 5;
					ml -= 5;
				}
				size_t j = skip_sp(s, le, k + 6);
				if (j < le && s[j] == '*') {
					j = skip_sp(s, le, j + 1);
					if (word_at(s, le, j, "as"))
						j = skip_sp(s, le, j + 2);
				}
				if (j < le && s[j] == '{') {
					k = j; /* destructuring, below */
				} else {
					size_t e = ident(s, le, j, 0);
					add_alias(S, s + j, e - j, "", 0, m, ml);
					continue;
				}
			}
		}
		/* [const|let|var|my|our] NAME|{a: b, c}|$name = <loader>('module') | Name */
		while (k < le && (word_at(s, le, k, "const") || word_at(s, le, k, "let") ||
				  word_at(s, le, k, "var") || word_at(s, le, k, "my") ||
				  word_at(s, le, k, "our") || word_at(s, le, k, "import")))
			k = skip_sp(s, le, ident(s, le, k, 0));
		v0 = k;
		if (k < le && s[k] == '{') {
			q = memchr(s + k, '}', le - k);
			if (!q)
				continue;
			v1 = (size_t)(q - s) + 1;
		} else {
			v1 = ident(s, le, k, 0);
		}
		k = skip_sp(s, le, v1);
		if (v1 == v0 || k >= le || (s[k] != '=' && !word_at(s, le, k, "from")) ||
		    (k + 1 < le && s[k] == '=' && s[k + 1] == '='))
			continue;
		int from = s[k] != '=';
		k = skip_sp(s, le, k + (s[k] == '=' ? 1 : 4));
		if (k < le && word_at(s, le, k, "await"))
			k = skip_sp(s, le, k + 5);
		if (s[v0] != '{' && !from && word_at(s, le, k, "getattr")) {
			/* f = getattr(mod, 'name') */
			size_t a0 = skip_sp(s, le, ident(s, le, k, 0) + 1),
			       a1 = ident(s, le, a0, 1);
			size_t c = skip_sp(s, le, a1);
			if (c < le && s[c] == ',' &&
			    literal_at(s, le, skip_sp(s, le, c + 1), &q, &ql))
				add_alias(S, s + v0, v1 - v0, s + a0, a1 - a0, q, ql);
			continue;
		}
		if (s[v0] != '{' && !from && k < le && is_id((unsigned char)s[k])) {
			/* f = shutil.rmtree, rm = os.remove: a function under another name */
			size_t e2 = ident(s, le, k, 1), e3 = skip_sp(s, le, e2);
			if (memchr(s + k, '.', e2 - k) &&
			    (e3 >= le || s[e3] == ';' || s[e3] == '\n'))
				add_alias(S, s + v0, v1 - v0, "", 0, s + k, e2 - k);
		}
		if (from && literal_at(s, le, k, &m, &ml)) {
			if (ml > 5 && !memcmp(m, "node:", 5)) {
				m += 5;
				ml -= 5;
			}
		} else if (!loader_module(s, le, k, &m, &ml)) {
			m = NULL;
		}
		if (m) {
			if (s[v0] != '{') {
				add_alias(S, s + v0, v1 - v0, "", 0, m, ml);
				continue;
			}
			/* { a: b, c } = require('m'): b -> m.a, c -> m.c */
			for (size_t j = v0 + 1; j < v1 - 1;) {
				size_t a0, a1, b0, b1;
				j = skip_sp(s, v1, j);
				a0 = j;
				a1 = j = ident(s, v1, j, 0);
				if (a1 == a0)
					break;
				j = skip_sp(s, v1, j);
				b0 = a0;
				b1 = a1;
				if (j < v1 && (s[j] == ':' || word_at(s, v1, j, "as"))) {
					j = skip_sp(s, v1, j + (s[j] == ':' ? 1 : 2));
					b0 = j;
					b1 = j = ident(s, v1, j, 0);
				}
				add_alias(S, s + b0, b1 - b0, m, ml, s + a0, a1 - a0);
				while (j < v1 && s[j] != ',')
					j++;
				j++;
			}
			continue;
		}
		/* Ruby FU = FileUtils; PHP $f = 'unlink' */
		if (S->lang == LANG_RUBY && k + 9 <= le && !memcmp(s + k, "FileUtils", 9))
			add_alias(S, s + v0, v1 - v0, "", 0, "FileUtils", 9);
		if (S->lang == LANG_PHP && s[v0] == '$' && literal_at(s, le, k, &q, &ql) && ql < 40)
			add_alias(S, s + v0, v1 - v0, "", 0, q, ql);
	}
}

/* A path literal as the interpreter sees it: adjacent literals joined ('/tmp/' +
 * '../home', Python's '/tmp/' '../home', Perl's and PHP's '/tmp/' . '../home'), then,
 * when absolute, its "." and ".." components and doubled slashes resolved on the text.
 * A rule's temporary-folder exemption ((?!'/tmp/)) then reads where the call really
 * goes: '/tmp/../home/u' is '/home/u'. Writes the literal (quotes included) to out
 * (cap bytes) and returns its length, with *end the index after the last literal
 * joined; 0 when there is nothing to change (the caller copies the literal as it is). */
static size_t path_literal(int lang, const char *s, size_t n, size_t i, size_t *end, char *out,
			   size_t cap)
{
	char buf[SH_PATHLIT_MAX], q = s[i];
	size_t bl = 0, e = i, joined = 0, o = 0;
	const char *b;
	size_t len;

	while ((e = literal_at(s, n, e, &b, &len)) != 0) {
		if (bl + len >= sizeof(buf) || memchr(b, '\\', len) || memmem(b, len, "${", 2))
			return 0;
		memcpy(buf + bl, b, len);
		bl += len;
		*end = e;
		size_t j = skip_sp(s, n, e);
		if (j < n &&
		    (s[j] == '+' || ((lang == LANG_PERL || lang == LANG_PHP) && s[j] == '.')))
			j = skip_sp(s, n, j + 1);
		else if (lang != LANG_PYTHON || j >= n || (s[j] != '\'' && s[j] != '"'))
			break;
		if (j >= n || s[j] != q)
			break;
		e = j;
		joined++;
	}
	if (!bl || buf[0] != '/')
		return 0;
	buf[bl] = '\0';
	if (!joined && !strstr(buf, "//") && !strstr(buf, "/./") && !strstr(buf, "/../") &&
	    strcmp(buf + (bl > 2 ? bl - 2 : 0), "/.") && strcmp(buf + (bl > 3 ? bl - 3 : 0), "/.."))
		return 0;
	if (cap < bl + 3)
		return 0;
	out[o++] = q;
	for (size_t k = 0; k < bl;) {
		size_t c = k;
		while (c < bl && buf[c] != '/')
			c++;
		if (c - k == 2 && buf[k] == '.' && buf[k + 1] == '.') { /* back one component */
			while (o > 1 && out[o - 1] != '/')
				o--;
			if (o > 1)
				o--;
		} else if (c - k && !(c - k == 1 && buf[k] == '.')) {
			out[o++] = '/';
			memcpy(out + o, buf + k, c - k);
			o += c - k;
		}
		k = c + 1;
	}
	if (o == 1)
		out[o++] = '/';
	out[o++] = q;
	return o;
}

/* The script with every alias written as what it names; also __import__('m'),
 * importlib.import_module('m'), require('m'), getattr(x, 'name'),
 * call_user_func('f', ...). NULL when nothing changes. */
static char *rewrite(struct scan *S, size_t *outlen)
{
	const char *s = S->s;
	size_t n = S->n, o = 0, cap = n * 2 + 256;
	char *out = sh_alloc(S->P, cap);
	int changed = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		const char *m;
		size_t ml, e, j;

		if (o + 128 >= cap) {
			S->norm_cut = 1;
			break; /* the rest stays as it was */
		}
		if ((s[i] == '\'' || s[i] == '"' || s[i] == '`') &&
		    (e = literal_at(s, n, i, &m, &ml))) {
			size_t pl = path_literal(S->lang, s, n, i, &e, out + o, cap - o - 1);
			if (pl) {
				o += pl;
				i = e;
				changed = 1;
				continue;
			}
			memcpy(out + o, s + i, e - i);
			o += e - i;
			i = e;
			continue;
		}
		if (loader_module(s, n, i, &m, &ml)) {
			e = (size_t)(m - s) + ml;
			while (e < n && s[e] != ')')
				e++;
			if (e < n && ml < 80) {
				memcpy(out + o, m, ml);
				o += ml;
				i = e + 1;
				changed = 1;
				continue;
			}
		}
		if ((word_at(s, n, i, "getattr") || word_at(s, n, i, "call_user_func")) &&
		    (j = skip_sp(s, n, ident(s, n, i, 0))) < n && s[j] == '(') {
			int ga = s[i] == 'g';
			size_t a0 = skip_sp(s, n, j + 1), a1 = ident(s, n, a0, 1);
			size_t c = skip_sp(s, n, a1);
			if (!ga && (e = literal_at(s, n, a0, &m, &ml)) && ml < 40) {
				/* call_user_func('unlink', $x) -> unlink($x) */
				memcpy(out + o, m, ml);
				o += ml;
				out[o++] = '(';
				i = skip_sp(s, n, e);
				if (i < n && s[i] == ',')
					i++;
				changed = 1;
				continue;
			}
			if (ga && c < n && s[c] == ',' &&
			    (e = literal_at(s, n, skip_sp(s, n, c + 1), &m, &ml)) && ml < 40) {
				size_t r = skip_sp(s, n, e);
				if (r < n && s[r] == ')') {
					memcpy(out + o, s + a0, a1 - a0);
					o += a1 - a0;
					out[o++] = '.';
					memcpy(out + o, m, ml);
					o += ml;
					i = r + 1;
					changed = 1;
					continue;
				}
			}
		}
		if (is_id((unsigned char)s[i]) &&
		    (i == 0 ||
		     (!is_id((unsigned char)s[i - 1]) && s[i - 1] != '.' && s[i - 1] != ':'))) {
			e = ident(s, n, i, 0);
			for (size_t k = 0; k < S->nal; k++)
				if (S->al[k].nlen == e - i &&
				    !memcmp(S->al[k].name, s + i, e - i)) {
					size_t tl = strlen(S->al[k].target);
					memcpy(out + o, S->al[k].target, tl);
					o += tl;
					i = e;
					changed = 1;
					goto next;
				}
			memcpy(out + o, s + i, e - i);
			o += e - i;
			i = e;
			continue;
		}
		out[o++] = s[i++];
next:;
	}
	if (!changed)
		return NULL;
	out[o] = '\0';
	*outlen = o;
	return out;
}

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* Decodes a payload: kind 'b' base64, 'h' hex, 'r' rot13. NULL unless it decodes
 * whole into printable text. */
static char *decode(struct sh_an *P, int kind, const char *s, size_t n, size_t *outlen)
{
	char *out = sh_alloc(P, n + 1);
	size_t o = 0;

	if (!out || n < 4)
		return NULL;
	if (kind == 'b') {
		unsigned acc = 0, bits = 0;
		for (size_t i = 0; i < n; i++) {
			int v = b64val((unsigned char)s[i]);
			if (s[i] == '=' || s[i] == ' ' || s[i] == '\n')
				continue;
			if (v < 0)
				return NULL;
			acc = acc << 6 | (unsigned)v;
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				out[o++] = (char)((acc >> bits) & 0xff);
			}
		}
	} else if (kind == 'h') {
		unsigned hi = 16;
		for (size_t i = 0; i < n; i++) {
			unsigned v = sh_hexval((unsigned char)s[i]);
			if (s[i] == '\\' && i + 1 < n && s[i + 1] == 'x') {
				i++;
				continue;
			}
			if (s[i] == ' ' || s[i] == ':')
				continue;
			if (v > 15)
				return NULL;
			if (hi > 15) {
				hi = v;
			} else {
				out[o++] = (char)(hi << 4 | v);
				hi = 16;
			}
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			char c = s[i];
			if (c >= 'a' && c <= 'z')
				c = (char)('a' + (c - 'a' + 13) % 26);
			else if (c >= 'A' && c <= 'Z')
				c = (char)('A' + (c - 'A' + 13) % 26);
			out[o++] = c;
		}
	}
	for (size_t i = 0; i < o; i++)
		if ((unsigned char)out[i] < 0x20 && out[i] != '\n' && out[i] != '\t' &&
		    out[i] != '\r')
			return NULL;
	out[o] = '\0';
	*outlen = o;
	return o ? out : NULL;
}

/* Does decoded text read as a shell command (its first word a command dcg knows or
 * one whose arguments alone can destroy)? */
static int reads_as_command(const char *s, size_t n)
{
	static const char extra[] = "git\0"
				    "dd\0"
				    "mkfs\0"
				    "kubectl\0"
				    "terraform\0"
				    "docker\0"
				    "aws\0"
				    "gcloud\0"
				    "psql\0"
				    "mysql\0"
				    "chmod\0";
	size_t e = 0;

	while (e < n && s[e] != ' ' && s[e] != '\n' && s[e] != ';')
		e++;
	if (!e)
		return 0;
	if (sh_cmd_lookup(s, e))
		return 1;
	for (const char *x = extra; *x; x += strlen(x) + 1)
		if (strlen(x) == e && !memcmp(s, x, e))
			return 1;
	return 0;
}

/* Payloads decoded in the code: b64decode('...'), Buffer.from('...', 'base64'),
 * atob, decode64, base64_decode, bytes.fromhex, unhexlify, hex2bin, codecs.decode(...,
 * 'rot13'|'hex'|'base64'), str_rot13. */
static void decode_payloads(struct scan *S)
{
	static const struct {
		char call[18]; /* an array, not a pointer the loader would relocate */
		int kind;
	} calls[] = {
	    {"b64decode(", 'b'},     {"decodebytes(", 'b'},	{"decodestring(", 'b'},
	    {"atob(", 'b'},	     {"decode64(", 'b'},	{"decode_base64(", 'b'},
	    {"base64_decode(", 'b'}, {"strict_decode64(", 'b'}, {"fromhex(", 'h'},
	    {"unhexlify(", 'h'},     {"hex2bin(", 'h'},		{"str_rot13(", 'r'},
	    {"Buffer.from(", 0},     {"codecs.decode(", 0},	{"unpack(", 0},
	};
	const char *s = S->s;
	size_t n = S->n;
	unsigned done = 0;

	for (size_t i = 0; i < n && done < SH_MAX_DECODE; i++) {
		switch (s[i]) { /* the first letters of the calls: most bytes go at once */
		case 'a':
		case 'b':
		case 'c':
		case 'd':
		case 'f':
		case 'h':
		case 's':
		case 'u':
		case 'B':
			break;
		default:
			continue;
		}
		for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++) {
			size_t cl;
			const char *b, *t;
			size_t bl, tl, e, dl;
			int kind = calls[c].kind;
			char *d;

			if (s[i] != calls[c].call[0])
				continue;
			cl = strlen(calls[c].call);
			if (i + cl > n || memcmp(s + i, calls[c].call, cl))
				continue;
			e = skip_sp(s, n, i + cl);
			if (e + 1 < n && (s[e] == 'b' || s[e] == 'r' || s[e] == 'u'))
				e++; /* b'...' */
			e = literal_at(s, n, e, &b, &bl);
			if (!e)
				break;
			if (!kind) { /* the encoding is the second argument */
				if (!next_literal(s, n, e, &t, &tl))
					break;
				if (tl >= 3 && !memcmp(t, "hex", 3))
					kind = 'h';
				else if (tl >= 6 && !memcmp(t, "base64", 6))
					kind = 'b';
				else if (tl >= 3 && !memcmp(t, "rot", 3))
					kind = 'r';
				else if (tl == 1 && t[0] == 'm')
					kind = 'b'; /* Ruby's unpack('m') */
				else
					break;
			}
			d = decode(S->P, kind, b, bl, &dl);
			if (!d)
				break;
			done++;
			if (reads_as_command(d, dl))
				sh_analyze_string(S->P, d, dl, S->depth + 1, S->line, 0);
			else
				sh_script_units(S->P, S->lang, d, dl, S->how, S->line, S->depth + 1,
						S->remote);
			break;
		}
	}
}

/* The call whose parentheses hold s[i], on its line: [*ws, *we) spans the callee's
 * name, the arguments and a method called on the result (open("x").read,
 * Path("x").unlink). 0 when s[i] is not an argument of a named call: a tuple, a list,
 * an assignment (the caller then judges by the whole line, where the variable may be
 * used). Brackets inside string literals are not told apart; that only widens or
 * narrows the window, never drops the line's verdict for a literal outside calls. */
static int call_span(const char *s, size_t n, size_t i, size_t *ws, size_t *we)
{
	size_t k = i, j, e;
	int depth = 0;

	for (;;) {
		if (k == 0 || s[k - 1] == '\n')
			return 0;
		k--;
		if (s[k] == ')' || s[k] == ']') {
			depth++;
		} else if (s[k] == '(' || s[k] == '[') {
			if (depth == 0)
				break;
			depth--;
		}
	}
	if (s[k] != '(')
		return 0;
	for (j = k; j > 0 && (is_id((unsigned char)s[j - 1]) || s[j - 1] == '.'); j--)
		;
	if (j == k)
		return 0;
	depth = 0;
	for (e = k + 1; e < n && s[e] != '\n'; e++) {
		if (s[e] == '(' || s[e] == '[') {
			depth++;
		} else if (s[e] == ')' || s[e] == ']') {
			if (depth == 0)
				break;
			depth--;
		}
	}
	if (e < n && s[e] == ')' && e + 1 < n && s[e + 1] == '.')
		for (e += 2; e < n && is_id((unsigned char)s[e]); e++)
			;
	*ws = j;
	*we = e < n ? e + 1 : n;
	return 1;
}

/* What the code around s[i] does to a path: delete, write, or read. A literal that is
 * an argument of a call is judged by that call (open("a").read() beside a write of
 * another file stays a read); any other literal by its whole line. */
static enum pol_op line_op(const char *s, size_t n, size_t i, int *dir)
{
	static const char del[] = "rmtree\0"
				  "rm_rf\0"
				  "rm_r\0"
				  "remove_tree\0"
				  "rmSync\0"
				  "rmdir\0"
				  "unlink\0"
				  "remove(\0"
				  "delete(\0"
				  "removedirs\0"
				  "rm(\0"
				  "rm -\0";
	static const char wr[] = "'w'\0"
				 "\"w\"\0"
				 "'a'\0"
				 "\"a\"\0"
				 "'wb'\0"
				 "\"wb\"\0"
				 "write_text\0"
				 "write_bytes\0"
				 "writeFile\0"
				 "appendFile\0"
				 "File.write\0"
				 "file_put_contents\0"
				 "'>\0"
				 "\">\0"
				 "open(my\0"
				 "fopen(\0";
	size_t ls = i, le = i, k;

	if (!call_span(s, n, i, &ls, &le)) {
		while (ls > 0 && s[ls - 1] != '\n')
			ls--;
		while (le < n && s[le] != '\n')
			le++;
	}
	*dir = 0;
	k = 0;
	for (const char *d = del; *d; d += strlen(d) + 1, k++)
		if (memmem(s + ls, le - ls, d, strlen(d))) {
			*dir = k < 6 || memmem(s + ls, le - ls, "recursive", 9) != NULL;
			return POL_OP_DELETE;
		}
	for (const char *w = wr; *w; w += strlen(w) + 1)
		if (memmem(s + ls, le - ls, w, strlen(w)))
			return POL_OP_WRITE;
	return POL_OP_READ;
}

static void path_unit(struct scan *S, const char *home, size_t hl, const char *rest, size_t rl,
		      size_t at)
{
	struct sh_word w;
	char *p = sh_alloc(S->P, hl + 1 + rl + 1);
	size_t o = 0;
	int dir;
	enum pol_op op = line_op(S->s, S->n, at, &dir);

	if (!p)
		return;
	memcpy(p, home, hl);
	o = hl;
	if (hl && rl && rest[0] != '/')
		p[o++] = '/';
	memcpy(p + o, rest, rl);
	o += rl;
	p[o] = '\0';
	memset(&w, 0, sizeof(w));
	w.s = p;
	w.len = o;
	w.line = S->line;
	sh_emit_path(S->P, &w, op, dir, 0, S->depth);
}

/* A path-looking literal: /x/y or ~/x, no spaces, no format holes. */
static int pathish(const char *b, size_t bl)
{
	if (bl < 2 || bl > 200 || (b[0] != '/' && !(b[0] == '~' && b[1] == '/')))
		return 0;
	for (size_t i = 0; i < bl; i++)
		if (b[i] == ' ' || b[i] == '{' || b[i] == '%' || b[i] == '$' || b[i] == '\\' ||
		    b[i] == '<' || b[i] == '*' || b[i] == '\n')
			return 0;
	return b[0] == '~' || b[1] != '/'; /* not //host/path */
}

/* Home expressions, after which string literals are path components. */
static size_t home_expr(const char *s, size_t n, size_t i)
{
	static const char homes[] = "Path.home()\0"
				    "os.path.expanduser(\"~\")\0"
				    "os.path.expanduser('~')\0"
				    "os.homedir()\0"
				    "homedir()\0"
				    "Dir.home\0"
				    "os.environ[\"HOME\"]\0"
				    "os.environ['HOME']\0"
				    "os.environ.get(\"HOME\")\0"
				    "os.environ.get('HOME')\0"
				    "os.getenv(\"HOME\")\0"
				    "os.getenv('HOME')\0"
				    "process.env.HOME\0"
				    "ENV['HOME']\0"
				    "ENV[\"HOME\"]\0"
				    "$ENV{HOME}\0"
				    "$ENV{'HOME'}\0"
				    "getenv('HOME')\0"
				    "getenv(\"HOME\")\0"
				    "$_SERVER['HOME']\0"
				    "File.expand_path('~')\0"
				    "File.expand_path(\"~\")\0"
				    "expanduser('~')\0"
				    "expanduser(\"~\")\0";
	switch (s[i]) { /* the first letters of the expressions: most bytes go at once */
	case 'P':
	case 'o':
	case 'h':
	case 'D':
	case 'p':
	case 'E':
	case '$':
	case 'g':
	case 'F':
	case 'e':
		break;
	default:
		return 0;
	}
	for (const char *h = homes; *h; h += strlen(h) + 1) {
		size_t hl;
		if (s[i] != h[0])
			continue;
		hl = strlen(h);
		if (i + hl <= n && !memcmp(s + i, h, hl))
			return hl;
	}
	return 0;
}

/* A string that starts with the home folder: "$ENV{HOME}/.ssh", "#{Dir.home}/x",
 * f"{Path.home()}/x", `${os.homedir()}/x`. Returns the length of that start. */
static size_t home_in_string(const char *b, size_t bl)
{
	static const char homes[] = "$ENV{HOME}\0"
				    "${HOME}\0"
				    "$HOME\0"
				    "#{Dir.home}\0"
				    "#{ENV['HOME']}\0"
				    "#{ENV[\"HOME\"]}\0"
				    "{os.environ['HOME']}\0"
				    "{Path.home()}\0"
				    "${os.homedir()}\0"
				    "${process.env.HOME}\0"
				    "{$_SERVER['HOME']}\0";
	for (const char *h = homes; *h; h += strlen(h) + 1) {
		size_t hl = strlen(h);
		if (bl > hl && !memcmp(b, h, hl) && b[hl] == '/')
			return hl;
	}
	return 0;
}

/* Is the literal at s[i] the first argument of a call that opens a file? */
static int opens_file(const char *s, size_t i)
{
	static const char calls[] = "open(\0"
				    "Path(\0"
				    "readFileSync(\0"
				    "readFile(\0"
				    "File.read(\0"
				    "File.open(\0"
				    "file_get_contents(\0"
				    "fopen(\0"
				    "IO.read(\0"
				    "read_text(\0"
				    "createReadStream(\0"
				    "writeFileSync(\0"
				    "writeFile(\0"
				    "appendFileSync(\0"
				    "appendFile(\0"
				    "createWriteStream(\0"
				    "openSync(\0"
				    "File.write(\0"
				    "IO.write(\0"
				    "file_put_contents(\0";
	/* Perl's three-argument open: open(my $f, '>', 'x') */
	static const char modes[] = "'>', \0"
				    "\">\", \0"
				    "'>>', \0"
				    "\">>\", \0"
				    "'+<', \0"
				    "\"+<\", \0"
				    "'+>', \0"
				    "\"+>\", \0";
	size_t k = i;

	for (const char *m = modes; *m; m += strlen(m) + 1) {
		size_t ml = strlen(m);
		if (i >= ml && !memcmp(s + i - ml, m, ml))
			return 1;
	}
	while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == 'r' || s[k - 1] == 'b' || s[k - 1] == 'f'))
		k--; /* open( r'x'), open(b"x") */
	if (k > 0 && s[k - 1] == '(')
		for (const char *c = calls; *c; c += strlen(c) + 1) {
			size_t cl = strlen(c);
			if (k >= cl && !memcmp(s + k - cl, c, cl))
				return 1;
		}
	return 0;
}

/* Perl's two-argument open, open(F, ">x"), open my $f, ">>x": when the literal at s[i]
 * (b, bl) is its second argument, the length of its mode (and the spaces after), which
 * the path follows; else 0. A duplicate (>&STDOUT) or a pipe is no file. */
static size_t perl_open2(const char *s, size_t i, const char *b, size_t bl)
{
	size_t k = i, m;

	if (bl < 2 || (b[0] != '>' && !(b[0] == '+' && (b[1] == '<' || b[1] == '>'))))
		return 0;
	m = b[0] == '+' || b[1] == '>' ? 2 : 1;
	while (m < bl && b[m] == ' ')
		m++;
	if (m >= bl || b[m] == '&' || b[m] == '-' || b[m] == '|')
		return 0;
	while (k > 0 && s[k - 1] == ' ')
		k--;
	if (k == 0 || s[k - 1] != ',')
		return 0;
	for (k--; k > 0 && s[k - 1] == ' '; k--)
		;
	while (k > 0 && (is_id((unsigned char)s[k - 1]) || s[k - 1] == '$'))
		k--; /* the handle: F, $fh */
	while (k > 0 && s[k - 1] == ' ')
		k--;
	if (k >= 2 && !memcmp(s + k - 2, "my", 2) && (k == 2 || !is_id((unsigned char)s[k - 3])))
		for (k -= 2; k > 0 && s[k - 1] == ' '; k--)
			;
	if (k > 0 && s[k - 1] == '(')
		k--;
	while (k > 0 && s[k - 1] == ' ')
		k--;
	return k >= 4 && !memcmp(s + k - 4, "open", 4) &&
		       (k == 4 || !is_id((unsigned char)s[k - 5]))
		   ? m
		   : 0;
}

static void find_paths(struct scan *S)
{
	const char *s = S->s;
	size_t n = S->n;

	for (size_t i = 0; i < n; i++) {
		const char *b;
		size_t bl, e, hl;

		if ((hl = home_expr(s, n, i)) > 0) {
			/* the literals that follow, up to the end of the expression */
			char buf[512];
			size_t o = 0, j = i + hl, cs, ce;
			/* os.path.join(HOME, '.ssh', 'id_rsa'): the arguments are components;
			 * writeFileSync(HOME + '/x', data): the next argument is not */
			int in_join = call_span(s, n, i, &cs, &ce) && ce - cs > 0 &&
				      (memmem(s + cs, ce - cs, "join(", 5) ||
				       memmem(s + cs, ce - cs, "joinpath(", 9));
			int depth = 0;
			for (; j < n && s[j] != '\n' && s[j] != ';'; j++) {
				if (s[j] == '(' || s[j] == '[')
					depth++;
				if ((s[j] == ')' || s[j] == ']') && --depth < 0)
					break;
				if (s[j] == ',' && depth <= 0 && !in_join)
					break; /* the next argument: the file's content, a mode */
				if ((e = literal_at(s, n, j, &b, &bl))) {
					if (bl && o + bl + 2 < sizeof(buf)) {
						if (o && b[0] != '/')
							buf[o++] = '/';
						memcpy(buf + o, b, bl);
						o += bl;
					}
					j = e - 1;
				} else if (is_id((unsigned char)s[j]) &&
					   !word_at(s, n, j, "joinpath") &&
					   !word_at(s, n, j, "join") && !word_at(s, n, j, "path") &&
					   !word_at(s, n, j, "os") && !word_at(s, n, j, "File") &&
					   !word_at(s, n, j, "resolve") &&
					   !word_at(s, n, j, "expanduser")) {
					break; /* a variable: the rest is unknown */
				}
			}
			path_unit(S, S->P->home ? S->P->home : "~", S->P->home ? S->P->home_len : 1,
				  buf, o, i);
			i = j;
			continue;
		}
		if ((s[i] == '\'' || s[i] == '"' || s[i] == '`') &&
		    (e = literal_at(s, n, i, &b, &bl))) {
			size_t hk = home_in_string(b, bl), pm = perl_open2(s, i, b, bl);
			if (pm && bl - pm < 200 && !memchr(b + pm, '$', bl - pm) &&
			    !memchr(b + pm, ' ', bl - pm)) {
				path_unit(S, "", 0, b + pm, bl - pm, i); /* open(F, ">x") */
			} else if (hk) {
				path_unit(S, S->P->home ? S->P->home : "~",
					  S->P->home ? S->P->home_len : 1, b + hk, bl - hk, i);
			} else if (opens_file(s, i) && bl && bl < 200 && !memchr(b, ' ', bl) &&
				   !memchr(b, '{', bl) && !memchr(b, '%', bl) &&
				   !memchr(b, '$', bl) && b[0] != '/' && b[0] != '~') {
				path_unit(S, "", 0, b, bl,
					  i); /* open('.env'): relative to the cwd */
			} else if (pathish(b, bl)) {
				if (b[0] == '~')
					path_unit(S, S->P->home ? S->P->home : "~",
						  S->P->home ? S->P->home_len : 1, b + 2, bl - 2,
						  i);
				else
					path_unit(S, "", 0, b, bl, i);
			}
			i = e - 1;
		}
	}
}

/* ---- command lines handed to a shell as one string literal ------------------------- */

/* The literal whose opening quote is s[i], when the language hands it over as written:
 * no backslash (escapes, line continuations), no interpolation ($ in Perl, PHP and JS
 * templates, #{ #@ #$ in Ruby, @ in Perl), no prefix (the caller sees the quote first:
 * f"", r"", b"" are not read), no Python triple quote, a line break only where the
 * language lets a literal hold one. The index after the closing quote, or 0. */
static size_t plain_literal(int lang, const char *s, size_t n, size_t i)
{
	char q = s[i];
	int interp = q == '`' || (q == '"' && lang != LANG_PYTHON && lang != LANG_NODE);
	int multiline = lang == LANG_RUBY || lang == LANG_PERL || lang == LANG_PHP ||
			(lang == LANG_NODE && q == '`');
	size_t k;

	if (q != '\'' && q != '"' && !(q == '`' && lang != LANG_PYTHON))
		return 0;
	if (i + 2 < n && s[i + 1] == q && s[i + 2] == q)
		return 0; /* """...""" or an empty literal followed by a quote */
	for (k = i + 1; k < n && s[k] != q; k++) {
		char c = s[k];
		if (c == '\\' || (c == '\n' && !multiline))
			return 0;
		if (interp && (c == '$' || (lang == LANG_PERL && c == '@') ||
			       (lang == LANG_RUBY && c == '#' && k + 1 < n &&
				(s[k + 1] == '{' || s[k + 1] == '@' || s[k + 1] == '$'))))
			return 0;
	}
	return k < n ? k + 1 : 0;
}

static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* A dotted name at s[i] (a.b.c): its end. */
static size_t dotted(const char *s, size_t n, size_t i)
{
	size_t e = i;

	while (e < n && is_id((unsigned char)s[e])) {
		e = ident(s, n, e, 0);
		if (e + 1 < n && s[e] == '.' && is_id((unsigned char)s[e + 1]))
			e++;
	}
	return e;
}

static int name_eq(const char *s, size_t len, const char *set)
{
	for (size_t l; (l = strlen(set)) != 0; set += l + 1)
		if (l == len && !memcmp(s, set, l))
			return 1;
	return 0;
}

/* A simple value of an argument that cannot change which command runs or where: a
 * plain literal, a number, a constant (True, None, subprocess.PIPE, 'inherit' ...), or
 * a list of those. Its end, or 0. */
static size_t simple_value(int lang, const char *s, size_t n, size_t i)
{
	size_t e;

	if (i >= n)
		return 0;
	if (s[i] == '[') {
		for (i = skip_ws(s, n, i + 1); i < n && s[i] != ']';) {
			if (!(e = simple_value(lang, s, n, i)) || s[i] == '[')
				return 0;
			i = skip_ws(s, n, e);
			if (i < n && s[i] == ',')
				i = skip_ws(s, n, i + 1);
		}
		return i < n ? i + 1 : 0;
	}
	if (s[i] == '\'' || s[i] == '"')
		return plain_literal(lang, s, n, i);
	if (s[i] == '-' || (s[i] >= '0' && s[i] <= '9')) {
		for (e = i + 1;
		     e < n && ((s[e] >= '0' && s[e] <= '9') || s[e] == '.' || s[e] == '_');)
			e++;
		return e;
	}
	e = dotted(s, n, i);
	if (e > i && name_eq(s + i, e - i,
			     "True\0False\0None\0true\0false\0null\0subprocess.PIPE\0"
			     "subprocess.DEVNULL\0subprocess.STDOUT\0PIPE\0DEVNULL\0STDOUT\0"))
		return e;
	return 0;
}

/* After a call's literal at s[i]: the keyword arguments of subprocess (shell=True
 * required; none that sets the folder, the environment, the shell or its stdin, which
 * the script could write commands into) up to the closing parenthesis. 1 when that is
 * all there is. */
static int py_shell_kwargs(const char *s, size_t n, size_t i)
{
	int shell = 0;

	for (i = skip_ws(s, n, i); i < n && s[i] == ',';) {
		size_t k0 = skip_ws(s, n, i + 1), k1 = ident(s, n, k0, 0), v;
		if (k1 < n && k0 == k1 && s[k1] == ')')
			break; /* a trailing comma */
		i = skip_ws(s, n, k1);
		if (k1 == k0 || i >= n || s[i] != '=' ||
		    !name_eq(s + k0, k1 - k0,
			     "shell\0check\0capture_output\0text\0universal_newlines\0encoding\0"
			     "errors\0timeout\0stdout\0stderr\0bufsize\0close_fds\0"))
			return 0;
		i = skip_ws(s, n, i + 1);
		if (!(v = simple_value(LANG_PYTHON, s, n, i)))
			return 0;
		if (k1 - k0 == 5 && !memcmp(s + k0, "shell", 5)) {
			if (v - i != 4 || memcmp(s + i, "True", 4))
				return 0;
			shell = 1;
		}
		i = skip_ws(s, n, v);
	}
	i = skip_ws(s, n, i);
	return shell && i < n && s[i] == ')';
}

/* After execSync's literal at s[i]: nothing, or options that change neither the shell,
 * its folder, its environment nor its input ({encoding: 'utf8', stdio: 'inherit'}), up
 * to the closing parenthesis. 1 when that is all there is. (exec and spawn hand the
 * script the child's stdin, which it could write commands into: not read.) */
static int node_exec_rest(const char *s, size_t n, size_t i)
{
	i = skip_ws(s, n, i);
	if (i < n && s[i] == ',')
		i = skip_ws(s, n, i + 1);
	else
		return i < n && s[i] == ')';
	if (i >= n || s[i] != '{')
		return 0;
	for (i = skip_ws(s, n, i + 1); i < n && s[i] != '}';) {
		size_t k0 = i, k1, v;
		if (s[i] == '\'' || s[i] == '"') {
			if (!(k1 = plain_literal(LANG_NODE, s, n, i)))
				return 0;
			k0++;
			k1--;
			i = k1 + 1;
		} else {
			i = k1 = ident(s, n, k0, 0);
		}
		i = skip_ws(s, n, i);
		if (k1 == k0 || i >= n || s[i] != ':' ||
		    !name_eq(s + k0, k1 - k0,
			     "encoding\0stdio\0timeout\0maxBuffer\0windowsHide\0killSignal\0"))
			return 0;
		if (!(v = simple_value(LANG_NODE, s, n, skip_ws(s, n, i + 1))))
			return 0;
		i = skip_ws(s, n, v);
		if (i < n && s[i] == ',')
			i = skip_ws(s, n, i + 1);
	}
	i = i < n ? skip_ws(s, n, i + 1) : n;
	if (i < n && s[i] == ',') /* a trailing comma */
		i = skip_ws(s, n, i + 1);
	return i < n && s[i] == ')';
}

/* After a literal given without parentheses (Ruby's system "x", Perl's system "x"): the
 * statement ends there. */
static int statement_ends(int lang, const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || (lang == LANG_PERL && s[i] == '\n')))
		i++;
	if (i >= n || s[i] == ';' || s[i] == '\n' || s[i] == '}' || s[i] == '#')
		return 1;
	for (const char *kw = "if\0unless\0or\0and\0while\0until\0"; *kw; kw += strlen(kw) + 1)
		if (word_at(s, n, i, kw))
			return 1;
	return 0;
}

/* The call of a shell on one literal that starts at s[i] (the first byte of its callee,
 * or of a backtick literal): the literal's opening quote in *q, and the index after its
 * closing one; 0 when s[i] starts none (see plain_literal and the *_rest readers). */
static size_t shell_call_at(int lang, const char *s, size_t n, size_t i, size_t *q)
{
	size_t e, a, end;
	int paren;

	if (s[i] == '`') {
		*q = i;
		return lang == LANG_RUBY || lang == LANG_PERL || lang == LANG_PHP
			   ? plain_literal(lang, s, n, i)
			   : 0;
	}
	if (lang == LANG_NODE && word_at(s, n, i, "require")) {
		/* require('child_process').execSync( */
		const char *m;
		size_t ml;
		a = skip_ws(s, n, i + 7);
		if (a >= n || s[a] != '(' || !(e = literal_at(s, n, skip_ws(s, n, a + 1), &m, &ml)))
			return 0;
		e = skip_ws(s, n, e);
		if (!((ml == 13 && !memcmp(m, "child_process", 13)) ||
		      (ml == 18 && !memcmp(m, "node:child_process", 18))) ||
		    e + 1 >= n || s[e] != ')' || s[e + 1] != '.')
			return 0;
		i = e + 2;
	}
	e = dotted(s, n, i);
	if (e == i)
		return 0;
	a = e;
	while (a < n && (s[a] == ' ' || s[a] == '\t'))
		a++;
	paren = a < n && s[a] == '(';
	if (lang == LANG_RUBY && paren && a != e)
		return 0; /* system ("a") + b: the parentheses group an expression */
	a = paren ? skip_ws(s, n, a + 1) : a;
	*q = a;
	if (a >= n)
		return 0;
	switch (lang) {
	case LANG_PYTHON: {
		int one = name_eq(s + i, e - i,
				  "os.system\0os.popen\0subprocess.getoutput\0"
				  "subprocess.getstatusoutput\0");
		if (!paren || (!one && !name_eq(s + i, e - i,
						"subprocess.run\0subprocess.call\0"
						"subprocess.check_call\0subprocess.check_output\0"
						"subprocess.Popen\0")))
			return 0;
		if (!(end = plain_literal(lang, s, n, a)))
			return 0;
		if (one) {
			size_t k = skip_ws(s, n, end);
			if (k < n && s[k] == ',')
				k = skip_ws(s, n, k + 1);
			return k < n && s[k] == ')' ? end : 0;
		}
		return py_shell_kwargs(s, n, end) ? end : 0;
	}
	case LANG_NODE: {
		size_t m = e;
		while (m > i && s[m - 1] != '.')
			m--;
		if (!paren || !name_eq(s + m, e - m, "execSync\0") ||
		    !(end = plain_literal(lang, s, n, a)))
			return 0;
		return node_exec_rest(s, n, end) ? end : 0;
	}
	case LANG_RUBY:
	case LANG_PERL:
		if (!name_eq(s + i, e - i,
			     lang == LANG_PERL ? "system\0exec\0"
					       : "system\0exec\0spawn\0IO.popen\0Open3.capture2\0"
						 "Open3.capture2e\0Open3.capture3\0") ||
		    (!paren && a == e) || a >= n || s[a] == '`' ||
		    !(end = plain_literal(lang, s, n, a)))
			return 0;
		if (!paren)
			return statement_ends(lang, s, n, end) ? end : 0;
		return (a = skip_ws(s, n, end)) < n && s[a] == ')' ? end : 0;
	case LANG_PHP: {
		int outvars = name_eq(s + i, e - i, "exec\0system\0passthru\0");
		if (!paren || (!outvars && !name_eq(s + i, e - i, "shell_exec\0")) || s[a] == '`' ||
		    !(end = plain_literal(lang, s, n, a)))
			return 0;
		/* exec("cmd", $output, $status): variables that receive the result */
		for (a = skip_ws(s, n, end); outvars && a < n && s[a] == ',';) {
			size_t v = skip_ws(s, n, a + 1);
			if (v >= n || s[v] != '$' || ident(s, n, v + 1, 0) == v + 1)
				return 0;
			a = skip_ws(s, n, ident(s, n, v + 1, 0));
		}
		return a < n && s[a] == ')' ? end : 0;
	}
	}
	return 0;
}

static int probe_unit(const struct pol_unit *u, void *arg)
{
	if (u->kind != POL_UNIT_PATH)
		return 0;
	if (u->op != POL_OP_DELETE && u->op != POL_OP_TRUNCATE && u->op != POL_OP_RENAME_FROM)
		return 0;
	*(int *)arg = 1;
	return 1; /* one is enough */
}

/* Does the command line [b, b + len) delete, truncate or move away a path, in a
 * temporary folder too? Analysed apart, now: the main analysis walks the literal's
 * commands only after the script's unit is out. */
static int literal_destroys(struct scan *S, const char *b, size_t len)
{
	struct pol_shell_opts o = {sh_scope_cwd(S->P->walk_scope), S->P->home, S->P->runtime};
	int destroys = 0;

	if (!len || S->depth >= SH_MAX_NEST)
		return 0;
	pol_shell_analyze(b, len, &o, S->P->a, probe_unit, &destroys);
	return destroys;
}

/* Analyses the literal [b, b + len) as the command line a shell gets, unless the
 * script's other view did already. Returns 1 when that command line deletes, truncates
 * or moves away a path (in a temporary folder too): shelling out to destroy is what the
 * interpreter's own rule (heredoc.*.os_system) is for, so its call keeps that rule. */
static int analyse_literal(struct scan *S, const char *text, const char *b, size_t len)
{
	unsigned line = S->line;
	char *copy;

	for (size_t k = 0; k < S->nlit; k++)
		if (S->lit[k].len == len && !memcmp(S->lit[k].s, b, len))
			return S->lit[k].destroys;
	for (const char *c = text; c < b; c++)
		line += *c == '\n';
	if (len && (copy = sh_strndup(S->P, b, len)) != NULL)
		sh_analyze_string(S->P, copy, len, S->depth + 1, line, S->remote);
	int destroys = literal_destroys(S, b, len);
	if (S->nlit < SH_MAX_LITCALL) {
		S->lit[S->nlit].s = b;
		S->lit[S->nlit].len = len;
		S->lit[S->nlit].destroys = destroys;
		S->nlit++;
	}
	return destroys;
}

/* Does the command line [b, b + len) start a shell or an interpreter, which may read its
 * commands from a stdin the analysis cannot see (a group's here-string, `{ python3 -c
 * 'os.system("sh")'; } <<< 'rm -rf ~'`)? Such a literal is not judged as the command it
 * names: the script rule stands, as for any call whose command is not known. */
static int literal_starts_reader(const char *b, size_t len)
{
	/* what sh_lang_from_name() does not know: programs that run what stdin gives them */
	static const char more[] = "busybox\0env\0exec\0eval\0xargs\0csh\0tcsh\0irb\0lua\0"
				   "tclsh\0Rscript\0osascript\0pwsh\0";
	size_t i = 0, w, base;

	while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '('))
		i++;
	for (w = i, base = i; w < len && !strchr(" \t\n;|&<", b[w]); w++)
		if (b[w] == '/')
			base = w + 1;
	const char *dash = memchr(b + base, '-', w - base); /* python3-dbg */
	if (sh_lang_from_name(b + base, w - base) != LANG_NONE ||
	    (dash && sh_lang_from_name(b + base, (size_t)(dash - (b + base))) != LANG_NONE))
		return 1;
	for (const char *r = more; *r; r += strlen(r) + 1)
		if (strlen(r) == w - base && !memcmp(b + base, r, w - base))
			return 1;
	return 0;
}

/* Could [b, b + len) be code rather than one literal? The scanner reads the script's
 * text, not its strings and comments: `print('os.system("'); os.system(x); print('")')`
 * or a call inside a comment opens a "literal" that spans a real call. Any quote, any
 * parenthesis or a line break in it (what code between two calls needs, in every
 * language scanned) leaves the call's script rule standing; `os.system("git commit -m
 * 'x'")` is then judged as before the literal analysis. */
static int literal_spans_code(const char *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		switch (b[i]) {
		case '\'':
		case '"':
		case '`':
		case '(':
		case ')':
		case '\n':
		case '\r':
			return 1;
		default:
			break;
		}
	return 0;
}

/* The calls in s (the script, or its view with aliases written out) that hand a shell
 * one string literal: each literal is analysed as a command line, and the calls' spans
 * (callee to closing quote) go into calls. Their number; 0 when the script may not be
 * what the interpreter reads (an expansion of the outer shell left in it, a printf's
 * output guessed), changes its folder (the literal's paths would be read in the wrong
 * one), or has a stdin a shell it starts could read commands from (fed by the command
 * line; the rest of a script after Perl's or Ruby's __END__, PHP's __halt_compiler). */
static size_t shell_calls(struct scan *S, const char *s, size_t n, uint32_t *calls)
{
	size_t nc = 0;

	if ((S->how & (SH_CODE_GUESSED | SH_CODE_STDIN)) || memmem(s, n, "chdir", 5) ||
	    memmem(s, n, "__END__", 7) || memmem(s, n, "__DATA__", 8) ||
	    memmem(s, n, "__halt_compiler", 15) ||
	    (!(S->how & SH_CODE_EXACT) &&
	     (memchr(s, '$', n) || memchr(s, '`', n) || memchr(s, '\\', n))))
		return 0;
	for (size_t i = 0; i < n && nc < SH_MAX_LITCALL && !S->P->abort; i++) {
		size_t q, end;
		char prev = i ? s[i - 1] : ' ';

		if (s[i] != '`' && !is_id((unsigned char)s[i]))
			continue;
		if (s[i] != '`' &&
		    (is_id((unsigned char)prev) || prev == '.' || prev == ':' || prev == '>' ||
		     prev == '\\' || (prev == '@' && S->lang != LANG_PHP))) {
			i = ident(s, n, i, 0) - 1; /* not a callee's start: the rest of the name */
			continue;
		}
		end = shell_call_at(S->lang, s, n, i, &q);
		if (!end) {
			if (s[i] == '`') { /* not read: its closing backtick opens nothing */
				const char *c = memchr(s + i + 1, '`', n - i - 1);
				if (!c)
					break;
				i = (size_t)(c - s);
			} else {
				i = ident(s, n, i, 0) - 1;
			}
			continue;
		}
		if (literal_starts_reader(s + q + 1, end - q - 2) ||
		    literal_spans_code(s + q + 1, end - q - 2)) {
			i = end - 1; /* its script rule stands */
			continue;
		}
		int destroys = analyse_literal(S, s, s + q + 1, end - q - 2);
		calls[2 * nc] = (uint32_t)i | (destroys ? POL_LITCALL_DESTROYS : 0);
		calls[2 * nc + 1] = (uint32_t)end;
		nc++;
		i = end - 1;
	}
	return nc;
}

void sh_script_units(struct sh_an *P, int lang, const char *body, size_t len, int how,
		     unsigned line, unsigned depth, int remote)
{
	struct scan S;
	size_t nl, nc;
	char *norm;
	uint32_t calls[2 * SH_MAX_LITCALL];
	int heredoc = how & SH_CODE_HEREDOC;

	if (len > SH_SCRIPT_MAX || depth > SH_MAX_NEST) {
		sh_emit_script_unit(P, lang, body, len, heredoc, line, depth, NULL, 0);
		return;
	}
	memset(&S, 0, sizeof(S));
	S.P = P;
	S.lang = lang;
	S.s = body;
	S.n = len;
	S.line = line;
	S.depth = depth;
	S.how = how;
	S.remote = remote;
	nc = shell_calls(&S, body, len, calls);
	sh_emit_script_unit(P, lang, body, len, heredoc, line, depth, calls, nc);
	if (P->abort)
		return;
	find_aliases(&S);
	norm = rewrite(&S, &nl);
	if (norm) {
		nc = shell_calls(&S, norm, nl, calls);
		sh_emit_script_unit(P, lang, norm, nl, heredoc, line, depth, calls, nc);
	}
	decode_payloads(&S);
	if (norm && !S.norm_cut) { /* the paths as the interpreter reads them: joined, resolved */
		S.s = norm;
		S.n = nl;
	}
	find_paths(&S);
}
