/* argvidx.c - the argv filter of the preload's lean guest (argvidx.h).
 *
 * Layout (native byte order, 32-bit words; written and read on the same machine):
 *   "DCGAIDX1", n_kw, kwstr_len, n_anchored, n_floating
 *   special[256]: the special names' filter (8192 bits, two hashes per name)
 *   per keyword: offset and length in kwstr
 *   anchored[n_anchored]: start key << 16 | keyword id, ascending
 *   floating[n_floating]: keyword ids
 *   kwstr: the keywords, each NUL-terminated
 * A few KB for the default policy, read by the guest at its first exec check (the
 * shell's, before it forks), copied into anonymous memory that its children share.
 *
 * Why an allow here is the engine's (decide.c, shell_walk.c): pol_check_argv() joins
 * plain words with single spaces, so the analyser reads the same words back, with no
 * quoting, expansion, redirection or second command. A program name outside the
 * analyser's command table, the shell's reserved words and the interpreters' names
 * gets no handler (or echo's, which only marks words as data): the walk emits one command unit, the name's basename followed by the
 * other words, and a path unit for the program's path when it was named by one. A path
 * unit is judged as written (POL_PATH_CANONICAL at runtime), which the path index
 * settles. A command unit is refused or logged only when a command rule matches it,
 * and the engine tries no rule whose prefilter fails: an anchored rule when the text
 * does not start with one of its start keys, any rule whose keyword the lowercased
 * text lacks. The same tests are made here, on the same text.
 */
#include "argvidx.h"

#include "internal.h"
#include "pathidx.h"
#include "shell_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct head {
	char magic[8];
	uint32_t n_kw, kwstr_len, n_anchored, n_floating;
	uint32_t special[256];
};

#define SPECIAL_BITS 8192u

static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static void special_add(uint32_t *bits, const char *s, size_t n)
{
	uint32_t h = name_hash(s, n), a = h % SPECIAL_BITS, b = (h >> 13) % SPECIAL_BITS;

	bits[a / 32] |= 1u << (a % 32);
	bits[b / 32] |= 1u << (b % 32);
}

static int special_has(const uint32_t *bits, const char *s, size_t n)
{
	uint32_t h = name_hash(s, n), a = h % SPECIAL_BITS, b = (h >> 13) % SPECIAL_BITS;

	return (bits[a / 32] >> (a % 32) & 1) && (bits[b / 32] >> (b % 32) & 1);
}

/* ---- writing (dcg run) ----------------------------------------------------------- */

/* Names the walk treats specially besides its command table: reserved words, the
 * shells and interpreters sh_lang_from_name() knows by exact name, the parser's own
 * light strip of wrappers. Versioned interpreter names (python3.11) are caught by
 * their prefix in pol_aidx_allows(). */
static const char *const extra_special[] = {
    "!",      "{",	    "}",      "[[",    "]]",   "then", "do",	  "else",     "if",
    "elif",   "while",	    "until",  "fi",    "done", "esac", "coproc",  "function", "for",
    "select", "case",	    "in",     "time",  "sudo", "env",  "command", "exec",     "nohup",
    "bash",   "sh",	    "zsh",    "dash",  "ksh",  "ash",  "mksh",	  "rbash",    "yash",
    "fish",   "busybox-sh", "nodejs", "deno",  "bun",  "tsx",  "ts-node", "eval",     "source",
    ".",      "make",	    "gmake",  "rsync", NULL};

/* A row of the command table whose handling of a lone command of plain words only
 * ever lowers what the engine finds: no handler (K_NONE) or echo's (K_ECHO: its words
 * are marked as data, which a rule's match must avoid; export and its kin record
 * assignments for later commands), and flags that matter only with a pipe (F_DL,
 * F_DEC, F_DECODE, F_FEED). Wrappers, shells, interpreters, database clients and the
 * programs that run a command they are handed (F_RUNS) are special. */
static int inert(const struct sh_cmdspec *c)
{
	return (c->kind == K_NONE || c->kind == K_ECHO) &&
	       !(c->flags & (F_WRAP | F_LANG | F_DB | F_RUNS));
}

struct kwtab {
	const char **s;
	uint32_t *len, n, cap;
};

/* The id of keyword k (deduplicated), or POL_AIDX_ALWAYS for none; UINT32_MAX when out
 * of memory. */
static uint32_t kw_id(struct kwtab *t, const struct pol_rule *r)
{
	uint32_t l;

	if (!r->keyword)
		return POL_AIDX_ALWAYS;
	/* "\nA\nB" (alternatives) is read up to its NUL, like the engine reads it */
	l = r->keyword[0] == '\n' ? (uint32_t)strlen(r->keyword) : r->keyword_len;
	for (uint32_t i = 0; i < t->n; i++)
		if (t->len[i] == l && !memcmp(t->s[i], r->keyword, l))
			return i;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 64;
		const char **s = realloc(t->s, cap * sizeof(*s));
		uint32_t *len;

		if (!s)
			return UINT32_MAX;
		t->s = s;
		len = realloc(t->len, cap * sizeof(*len));
		if (!len)
			return UINT32_MAX;
		t->len = len;
		t->cap = cap;
	}
	if (t->n >= POL_AIDX_ALWAYS)
		return UINT32_MAX;
	t->s[t->n] = r->keyword;
	t->len[t->n] = l;
	return t->n++;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

char *pol_aidx_save(const struct pol_policy *p, size_t *len)
{
	struct kwtab t = {0};
	uint32_t *anch = calloc(p->n_rules * 16 + 1, sizeof(*anch));
	uint32_t *flt = calloc(p->n_rules + 1, sizeof(*flt));
	size_t na = 0, nf = 0, strl = 0, total, o;
	struct head *h;
	char *buf = NULL, *str;
	uint32_t *w;

	if (!anch || !flt)
		goto out;
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct pol_rule *r = &pol_rules(p)[i];
		uint16_t keys[16];
		size_t nk;
		uint32_t id;

		/* a rule with no pattern never matches a unit's text (run_regex) */
		if (r->kind != POL_RULE_COMMAND || !r->active || !r->pattern)
			continue;
		id = kw_id(&t, r);
		if (id == UINT32_MAX)
			goto out;
		nk = pol_pattern_start_keys(r->pattern, keys, 16);
		if (!nk)
			flt[nf++] = id;
		for (size_t k = 0; k < nk; k++)
			anch[na++] = (uint32_t)keys[k] << 16 | id;
	}
	qsort(anch, na, sizeof(*anch), cmp_u32);
	{
		size_t j = 0; /* without duplicates */

		for (size_t i = 0; i < na; i++)
			if (!j || anch[j - 1] != anch[i])
				anch[j++] = anch[i];
		na = j;
	}
	for (uint32_t i = 0; i < t.n; i++)
		strl += t.len[i] + 1;
	total = sizeof(*h) + (2 * (size_t)t.n + na + nf) * 4 + strl;
	buf = calloc(1, total);
	if (!buf)
		goto out;
	h = (struct head *)(void *)buf;
	memcpy(h->magic, POL_AIDX_MAGIC, 8);
	h->n_kw = t.n;
	h->kwstr_len = (uint32_t)strl;
	h->n_anchored = (uint32_t)na;
	h->n_floating = (uint32_t)nf;
	for (size_t i = 0; i < sh_ncmds; i++)
		if (!inert(&sh_cmds[i]))
			special_add(h->special, sh_cmds[i].name, strlen(sh_cmds[i].name));
	for (size_t i = 0; extra_special[i]; i++)
		special_add(h->special, extra_special[i], strlen(extra_special[i]));
	w = (uint32_t *)(void *)(h + 1);
	str = (char *)(w + 2 * (size_t)t.n + na + nf);
	o = 0;
	for (uint32_t i = 0; i < t.n; i++) {
		*w++ = (uint32_t)o;
		*w++ = t.len[i];
		memcpy(str + o, t.s[i], t.len[i]);
		o += t.len[i] + 1;
	}
	memcpy(w, anch, na * 4);
	memcpy(w + na, flt, nf * 4);
	*len = total;
out:
	free(t.s);
	free(t.len);
	free(anch);
	free(flt);
	return buf;
}

/* ---- reading (the guest) --------------------------------------------------------- */

int pol_aidx_open(struct pol_aidx *x, const void *file, size_t len, void *(*alloc)(size_t))
{
	const struct head *h = file;
	const uint32_t *w, *kw;
	size_t need, words;
	char *copy;

	memset(x, 0, sizeof(*x));
	if (len < sizeof(*h) || memcmp(h->magic, POL_AIDX_MAGIC, 8) != 0 ||
	    h->n_kw > POL_AIDX_ALWAYS || h->n_anchored > (1u << 20) || h->n_floating > (1u << 20) ||
	    h->kwstr_len > (1u << 24))
		return -EINVAL;
	words = 2 * (size_t)h->n_kw + h->n_anchored + h->n_floating;
	need = sizeof(*h) + words * 4 + h->kwstr_len;
	if (len != need)
		return -EINVAL;
	kw = (const uint32_t *)(const void *)(h + 1);
	for (size_t i = 0; i < h->n_kw; i++)
		if (kw[2 * i] >= h->kwstr_len || kw[2 * i + 1] >= h->kwstr_len - kw[2 * i] ||
		    ((const char *)(kw + words))[kw[2 * i] + kw[2 * i + 1]] != '\0')
			return -EINVAL;
	w = kw + 2 * (size_t)h->n_kw;
	for (size_t i = 0; i < h->n_anchored + h->n_floating; i++) {
		uint32_t id = (i < h->n_anchored ? w[i] & 0xffffu : w[i]);

		if (id != POL_AIDX_ALWAYS && id >= h->n_kw)
			return -EINVAL;
		if (i && i < h->n_anchored && w[i] < w[i - 1])
			return -EINVAL;
	}
	copy = alloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, file, len);
	x->block = copy;
	h = (const struct head *)(const void *)copy;
	x->special = h->special;
	x->kw = (const uint32_t *)(const void *)(h + 1);
	x->n_kw = h->n_kw;
	x->anchored = x->kw + 2 * x->n_kw;
	x->n_anchored = h->n_anchored;
	x->floating = x->anchored + x->n_anchored;
	x->n_floating = h->n_floating;
	x->kwstr = (const char *)(x->floating + x->n_floating);
	return 0;
}

/* The guest's string loops stay loops: a libc call is a page of libc's code to fault
 * in, in every fork child. */
#define NO_LIBCALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))

/* The bytes pol_check_argv() leaves unquoted. */
static int plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '.' || c == '/' || c == '=' || c == ':' || c == ',' ||
	       c == '+' || c == '@' || c == '%';
}

static int has(const char *text, size_t len, const char *k, size_t kl)
{
	if (kl > len)
		return 0;
	for (size_t i = 0; i + kl <= len; i++) {
		size_t j = 0;

		while (j < kl && text[i + j] == k[j])
			j++;
		if (j == kl)
			return 1;
	}
	return 0;
}

/* The engine's prefilter_may_match() (decide.c) on the lowercased text. */
static int may_match(const struct pol_aidx *x, uint32_t id, const char *text, size_t len)
{
	const char *k;

	if (id == POL_AIDX_ALWAYS)
		return 1;
	k = x->kwstr + x->kw[2 * id];
	if (k[0] != '\n')
		return has(text, len, k, x->kw[2 * id + 1]);
	while (*k == '\n') { /* "\nA\nB": any of them */
		const char *e = k + 1;
		size_t l;

		while (*e && *e != '\n')
			e++;
		l = (size_t)(e - k - 1);
		if (l < 2 || has(text, len, k + 1, l))
			return 1;
		if (!*e)
			break;
		k = e;
	}
	return 0;
}

/* Whether s starts with the name packed in w (its bytes from the lowest, lowercase),
 * in any case. */
static int starts_with_word(const char *s, uint64_t w)
{
	for (; w; w >>= 8, s++)
		if ((unsigned char)(*s | 0x20) != (w & 0xff))
			return 0;
	return 1;
}

#define WORD_OF(a, b, c, d, e, f)                                                         \
	((uint64_t)(a) | (uint64_t)(b) << 8 | (uint64_t)(c) << 16 | (uint64_t)(d) << 24 | \
	 (uint64_t)(e) << 32 | (uint64_t)(f) << 40)

/* The interpreters sh_lang_from_name() knows by a versioned name (python3.11). Their
 * names are immediates: a table of strings would be a page of .rodata to fault in, in
 * every fork child that checks an exec. */
static int lang_prefix(const char *s)
{
	return starts_with_word(s, WORD_OF('p', 'y', 't', 'h', 'o', 'n')) ||
	       starts_with_word(s, WORD_OF('p', 'y', 'p', 'y', 0, 0)) ||
	       starts_with_word(s, WORD_OF('n', 'o', 'd', 'e', 0, 0)) ||
	       starts_with_word(s, WORD_OF('r', 'u', 'b', 'y', 0, 0)) ||
	       starts_with_word(s, WORD_OF('p', 'e', 'r', 'l', 0, 0)) ||
	       starts_with_word(s, WORD_OF('p', 'h', 'p', 0, 0, 0));
}

/* 1 settled; 2 settled if the program's path (argv[0], which holds a '/') is allowed to
 * be executed as written (POL_PATH_CANONICAL); 0 ask the engine. */
static int pol_aidx_words(const struct pol_aidx *x, char *const argv[]);

int pol_aidx_allows(const struct pol_aidx *x, const struct pol_pidx *paths, char *const argv[],
		    const char *settled)
{
	int w = pol_aidx_words(x, argv);

	/* /path/to/tool: a path unit, judged as written */
	return w == 1 ||
	       (w == 2 && argv[0][0] == '/' &&
		((settled && !strcmp(argv[0], settled)) ||
		 (paths && pol_pidx_allows(paths, "/", argv[0], POL_OP_EXEC, POL_PATH_CANONICAL))));
}

static NO_LIBCALLS size_t s_len(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* The unit's text (name, then argv[1]..., lowercased) in text (size bytes, at least
 * len), and the prefilters of the rules on it: 1 no rule may match, 0 one may (or the
 * text is not the len bytes measured: argv changed meanwhile). */
static int text_settles(const struct pol_aidx *x, char *const argv[], const char *name, char *text,
			size_t size, size_t len)
{
	size_t n = 0, lo, hi;
	uint16_t key;

	for (size_t i = 0; argv[i]; i++) {
		const char *s = i ? argv[i] : name;

		if (i) {
			if (n >= size)
				return 0;
			text[n++] = ' ';
		}
		for (; *s; s++) {
			if (n >= size)
				return 0;
			text[n++] = (char)((*s >= 'A' && *s <= 'Z') ? *s - 'A' + 'a' : *s);
		}
	}
	if (n != len)
		return 0;
	key = (uint16_t)((unsigned char)text[0] << 8 | (unsigned char)text[1]);
	lo = 0;
	hi = x->n_anchored;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if ((x->anchored[mid] >> 16) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < x->n_anchored && (x->anchored[lo] >> 16) == key; lo++)
		if (may_match(x, x->anchored[lo] & 0xffffu, text, len))
			return 0;
	for (size_t i = 0; i < x->n_floating; i++)
		if (may_match(x, x->floating[i], text, len))
			return 0;
	return 1;
}

/* A text longer than the short buffer, in a frame of its own: in a fork child each
 * stack page written is a page fault, and most commands' texts are short. */
static __attribute__((noinline)) int text_settles_long(const struct pol_aidx *x, char *const argv[],
						       const char *name, size_t len)
{
	char text[POL_AIDX_TEXT_MAX];

	return text_settles(x, argv, name, text, sizeof(text), len);
}

static int pol_aidx_words(const struct pol_aidx *x, char *const argv[])
{
	char text[256];
	const char *a0, *name;
	size_t len = 0;

	if (!x || !argv || !(a0 = argv[0]) || !a0[0])
		return 0;
	/* plain words only; len: the joined text's length, the basename's added below */
	for (size_t i = 0; argv[i]; i++) {
		const char *s = argv[i];

		if (!s[0])
			return 0;
		for (; *s; s++)
			if (!plain((unsigned char)*s))
				return 0;
		if (i)
			len += 1 + (size_t)(s - argv[i]);
	}
	name = a0;
	for (const char *s = a0; *s; s++) {
		if (*s == '=') /* NAME=VALUE: an assignment, the command is the next word */
			return 0;
		if (*s == '/')
			name = s + 1;
	}
	if (!name[0] || special_has(x->special, name, s_len(name)) || lang_prefix(name))
		return 0;
	len += s_len(name);
	if (len < 2 || len >= POL_AIDX_TEXT_MAX)
		return 0;
	if (!(len <= sizeof(text) ? text_settles(x, argv, name, text, sizeof(text), len)
				  : text_settles_long(x, argv, name, len)))
		return 0;
	return name == a0 ? 1 : 2;
}
