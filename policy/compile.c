/* compile.c - regex rules: the prefilter's literal, PCRE2 compilation (lazy, at the
 * first use of a rule), and the codes compiled at build time for the embedded rules. */
#include "dcg_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* ---- regex rules ------------------------------------------------------------------- */

/* Reading a pattern's literal text, for the prefilter and the rule index. Both only
 * ever take text every match must contain, so that a rule they pass over could not
 * have matched: anything they do not understand ends the literal or gives up. */

/* One literal character of a pattern at s: a plain character or escaped punctuation
 * that stands for itself. Returns how many pattern bytes it takes (0: not a literal)
 * and the character, lowercased, in *c. */
static size_t pat_literal(const char *s, char *c)
{
	char x = s[0];

	if (x == '\\' && s[1] && strchr(".-/:_=", s[1])) {
		*c = s[1];
		return 2;
	}
	if ((x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') || (x >= '0' && x <= '9') ||
	    x == '_' || x == '-' || x == ':' || x == '=' || x == '/' || x == ',' || x == ' ') {
		*c = (char)((x >= 'A' && x <= 'Z') ? x - 'A' + 'a' : x);
		return 1;
	}
	return 0;
}

/* A quantifier that may repeat the atom before it zero times (or, for the start
 * keys, more than once). */
static int pat_optional(char c)
{
	return c == '?' || c == '*' || c == '{';
}

/* 1 when the pattern's meaning is not plain text order: extended mode (spaces ignored,
 * comments), a \Q...\E quote, or a verb such as (*CR); and, unless alt is given (then
 * *alt says so), a top-level alternation (its literal parts are each optional). */
static int pat_unreadable_alt(const char *s, int *alt)
{
	int depth = 0, in_class = 0;

	for (const char *t = s; *t; t++) {
		if (*t == '\\' && t[1]) {
			t++;
			if (*t == 'Q')
				return 1;
			continue;
		}
		if (in_class) {
			if (*t == ']')
				in_class = 0;
			continue;
		}
		if (*t == '[') {
			in_class = 1;
			if (t[1] == '^')
				t++;
			if (t[1] == ']') /* a leading ] is a member */
				t++;
		} else if (*t == '(') {
			depth++;
			if (t[1] == '*')
				return 1;
			if (t[1] == '?') /* options: (?x) (?ix: ...) (?^x) */
				for (const char *o = t + 2;
				     (*o >= 'a' && *o <= 'z') || (*o >= 'A' && *o <= 'Z') ||
				     *o == '-' || *o == '^';
				     o++)
					if (*o == 'x')
						return 1;
		} else if (*t == ')') {
			depth = depth ? depth - 1 : 0;
		} else if (*t == '|' && depth == 0) {
			if (!alt)
				return 1;
			*alt = 1;
		}
	}
	return 0;
}

static int pat_unreadable(const char *s)
{
	return pat_unreadable_alt(s, NULL);
}

/* Skips what a backslash starts at s (s[0] == '\\'): returns the bytes to skip, or 0
 * when the escape is one this reading does not follow (\x41, \p{..}, \cX, \1, \g{..})
 * at the top level, where what follows it would be taken for literal text. */
static size_t pat_escape(const char *s, int top)
{
	char e = s[1];

	if (!e)
		return 0;
	if (!((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9')))
		return 2; /* escaped punctuation: \( \$ \{ */
	if (strchr("bBAzZGdDsSwWhHvVRXnrtfeaEK", e))
		return 2;
	if (top)
		return 0;
	return e == 'c' && s[2] ? 3 : 2; /* inside a group or a class: only () [] matter */
}

/* Where the alternative or group body starting at s ends: the '|' or ')' at its own
 * level, or end. */
static const char *pat_alt_end(const char *s, const char *end)
{
	int depth = 0, in_class = 0;

	for (; s < end; s++) {
		if (*s == '\\' && s + 1 < end) {
			s++;
		} else if (in_class) {
			in_class = *s != ']';
		} else if (*s == '[') {
			in_class = 1;
			if (s + 1 < end && s[1] == '^')
				s++;
			if (s + 1 < end && s[1] == ']')
				s++;
		} else if (*s == '(') {
			depth++;
		} else if (*s == ')' && depth) {
			depth--;
		} else if ((*s == '|' || *s == ')') && !depth) {
			return s;
		}
	}
	return end;
}

/* The body of the group that opens at s ("(?:" or "("), and its closing ')' (end when
 * it has none). */
static const char *pat_group_body(const char *s)
{
	return s + (s[1] == '?' ? 3 : 1);
}

static const char *pat_group_close(const char *s, const char *end)
{
	const char *e = pat_group_body(s);

	for (;;) {
		e = pat_alt_end(e, end);
		if (e >= end || *e != '|')
			return e;
		e++;
	}
}

/* The longest run of literal characters of the sequence [s, end) outside any group,
 * class or quantified atom, into best (64 bytes, lowercased); returns its length.
 * *group gets the first group at the sequence's own level that every match passes
 * through ("(?:" or "(", not made optional by what follows it), or NULL. */
static size_t seq_literal(const char *s, const char *end, char *best, const char **group, int *lead)
{
	char run[64];
	size_t n = 0, nb = 0;
	int depth = 0, in_class = 0;
	/* where the run and the best run begin: the best at the start (after a '^') is a
	 * command's name */
	const char *first = s + (*s == '^'), *run_at = NULL, *best_at = NULL;

	*group = NULL;
	while (s < end) {
		char c;
		size_t k = !depth && !in_class ? pat_literal(s, &c) : 0;

		if (k && s + k <= end && !pat_optional(s[k]) && n < sizeof(run) - 1) {
			if (!n)
				run_at = s;
			run[n++] = c;
			s += k;
			if (s >= end || *s != '+') /* with '+' after it, the run ends after it */
				continue;
		} else if (k) { /* a character that may be absent */
			s += k;
		}
		if (n > nb) { /* the run ends here */
			memcpy(best, run, n);
			nb = n;
			best_at = run_at;
		}
		n = 0;
		if (k || s >= end)
			continue;
		if (*s == '\\') {
			size_t e = pat_escape(s, !depth && !in_class);
			if (!e)
				break;
			s += e;
			continue;
		}
		if (in_class) {
			if (*s == ']')
				in_class = 0;
		} else if (*s == '[') {
			in_class = 1;
			if (s + 1 < end && s[1] == '^')
				s++;
			if (s + 1 < end && s[1] == ']')
				s++;
		} else if (*s == '(') {
			if (!depth && !*group && s + 2 < end && (s[1] != '?' || s[2] == ':')) {
				const char *e = pat_group_close(s, end);
				if (e < end && !(e + 1 < end && pat_optional(e[1])))
					*group = s;
			}
			depth++;
		} else if (*s == ')') {
			depth = depth ? depth - 1 : 0;
		} else if (*s == '{' && !depth) { /* a {n,m} quantifier: its digits are not text */
			const char *e = memchr(s, '}', (size_t)(end - s));
			if (!e)
				break;
			s = e;
		}
		s++;
	}
	if (n > nb) {
		memcpy(best, run, n);
		nb = n;
		best_at = run_at;
	}
	*lead = nb && best_at == first;
	return nb;
}

static size_t alts_clause(const char *s, const char *end, char *out, size_t size, size_t *o,
			  int depth);

/* What every match of the sequence [s, end) holds, appended to out at *o as pieces
 * "\nA\nB" (any of them): its longest literal, or, when the pieces of a group every
 * match passes through are all longer, those. A whole pattern whose longest literal is
 * the name it starts with (^git\s+(?:gc|prune)...) takes the group's pieces of two
 * bytes or more instead: every command of that program holds its name, and the
 * command index has already picked the commands that start like it. Returns the
 * shortest piece's length; 0 for none of two bytes or more (or no room), *o then
 * unchanged. */
static size_t seq_clause(const char *s, const char *end, char *out, size_t size, size_t *o,
			 int depth)
{
	char lit[64];
	const char *group;
	int lead;
	size_t n = seq_literal(s, end, lit, &group, &lead), o0 = *o;

	lead = lead && depth == 0 && *s == '^';
	if ((n < 3 || lead) && group && depth < 3) {
		size_t g = alts_clause(pat_group_body(group), pat_group_close(group, end), out,
				       size, o, depth + 1);
		if (g > n || (lead && g >= 2))
			return g;
		*o = o0;
		out[o0] = '\0';
	}
	if (n < 2 || *o + n + 2 > size)
		return 0;
	out[(*o)++] = '\n';
	memcpy(out + *o, lit, n);
	*o += n;
	out[*o] = '\0';
	return n;
}

/* Every alternative of [s, end) (split at its own level) by its clause: a match holds
 * one of the pieces. Returns the shortest piece's length, or 0 (then *o unchanged). */
static size_t alts_clause(const char *s, const char *end, char *out, size_t size, size_t *o,
			  int depth)
{
	size_t shortest = SIZE_MAX, o0 = *o;

	for (;;) {
		const char *e = pat_alt_end(s, end);
		size_t n = seq_clause(s, e, out, size, o, depth);

		if (!n) {
			*o = o0;
			out[o0] = '\0';
			return 0;
		}
		shortest = n < shortest ? n : shortest;
		if (e >= end || *e != '|')
			return shortest;
		s = e + 1;
	}
}

/* What every match must contain, for the prefilter: the longest literal outside any
 * group, class or quantified atom; or, where that is shorter than three bytes, one
 * literal (or, again, a group's) of each alternative of a top-level alternation or of
 * a group every match passes through, written "\nA\nB" (any of them must be there). */
static void extract_keyword(struct pol_rule *r)
{
	const char *s = r->pattern, *end;
	char any[256];
	size_t o = 0, n;
	int alt = 0;

	if (pat_unreadable_alt(s, &alt))
		return;
	end = s + strlen(s);
	any[0] = '\0';
	n = alt ? alts_clause(s, end, any, sizeof(any), &o, 0)
		: seq_clause(s, end, any, sizeof(any), &o, 0);
	if (n < 2)
		return;
	/* one piece: the plain form, which the bigram bitmap checks at once */
	r->keyword = strdup(strchr(any + 1, '\n') ? any : any + 1);
	if (!r->keyword)
		return;
	r->keyword_len = strlen(r->keyword);
	r->keyword_bigram = pol_keyword_bigram(r->keyword);
}

/* Two literal characters that every alternative at s must start with, each neither
 * quantified nor followed by a quantifier: 2 (taken into key, lowercased) or 0. */
static int start_pair(const char *s, unsigned char key[2])
{
	char c0, c1;
	size_t k0 = pat_literal(s, &c0), k1;

	if (!k0 || pat_optional(s[k0]) || s[k0] == '+')
		return 0;
	k1 = pat_literal(s + k0, &c1);
	if (!k1 || pat_optional(s[k0 + k1]) || s[k0 + k1] == '+')
		return 0;
	key[0] = (unsigned char)c0;
	key[1] = (unsigned char)c1;
	return 2;
}

/* The keys of the group whose alternatives begin at s (just inside "(?:" or "("): each
 * alternative's first two literal characters, or, one level down, the keys of a group
 * it starts with (^(?:(?:gh|glab)\s+api|curl)...). Appends to keys at *n; returns the
 * end of the group (after its ')'), or NULL when an alternative gives no key, the group
 * may be absent, or there are more than max keys. */
static const char *group_start_keys(const char *s, uint16_t *keys, size_t *n, size_t max, int depth)
{
	unsigned char k[2];

	for (;;) {
		int level = 0, in_class = 0;

		if (*n == max)
			return NULL;
		if (start_pair(s, k)) {
			keys[(*n)++] = (uint16_t)(k[0] << 8 | k[1]);
		} else if (depth < 1 && s[0] == '(' && (s[1] != '?' || s[2] == ':')) {
			const char *e =
			    group_start_keys(s + (s[1] == '?' ? 3 : 1), keys, n, max, depth + 1);
			if (!e)
				return NULL;
			s = e;
		} else {
			return NULL;
		}
		for (; *s; s++) { /* to the next | or the group's end */
			if (*s == '\\' && s[1]) {
				s++;
			} else if (in_class) {
				in_class = *s != ']';
			} else if (*s == '[') {
				in_class = 1;
				if (s[1] == '^')
					s++;
				if (s[1] == ']')
					s++;
			} else if (*s == '(') {
				level++;
			} else if (*s == ')' && level) {
				level--;
			} else if ((*s == '|' || *s == ')') && !level) {
				break;
			}
		}
		if (*s == '|') {
			s++;
			continue;
		}
		if (*s != ')' || pat_optional(s[1]))
			return NULL; /* the group may be absent */
		return s + 1;
	}
}

size_t pol_pattern_start_keys(const char *pattern, uint16_t *keys, size_t max)
{
	const char *s = pattern;
	unsigned char k[2];
	size_t n = 0;

	if (!s || s[0] != '^' || pat_unreadable(s))
		return 0;
	s++;
	if (start_pair(s, k)) {
		keys[0] = (uint16_t)(k[0] << 8 | k[1]);
		return max ? 1 : 0;
	}
	if (s[0] != '(' || (s[1] == '?' && s[2] != ':'))
		return 0; /* a lookahead, options, a named group: not read */
	/* ^(?:cp|cat|tee)...: every alternative of the group gives its key */
	return group_start_keys(s + (s[1] == '?' ? 3 : 1), keys, &n, max, 0) ? n : 0;
}

static int compile_rule(const struct pol_policy *p, struct pol_rule *r, pcre2_code **out, char *err,
			size_t errsize, size_t *erroff)
{
	int errcode;
	PCRE2_SIZE off = 0;
	uint32_t opts = PCRE2_UTF | PCRE2_NO_UTF_CHECK;
	pcre2_code *code;

	if (r->caseless)
		opts |= PCRE2_CASELESS;
	if (r->kind == POL_RULE_SCRIPT)
		opts |= PCRE2_MULTILINE;
	code = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED, opts, &errcode, &off,
			     p->cctx);
	if (!code) {
		pcre2_get_error_message(errcode, (PCRE2_UCHAR *)err, errsize);
		*erroff = off;
		return -EINVAL;
	}
	if (p->flags & POL_LOAD_JIT)
		pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); /* interpreted when JIT is missing */
	*out = code;
	return 0;
}

int pol_embedded_regex(const struct pol_rule *r)
{
	return (r->kind == POL_RULE_COMMAND || r->kind == POL_RULE_SCRIPT) && r->pattern &&
	       r->origin && strcmp(r->origin, "<embedded>") == 0;
}

pcre2_code *pol_embedded_code(const uint32_t *words, const uint8_t *set, int32_t k,
			      pcre2_general_context *gctx)
{
	size_t head = words[2], at, len;
	pcre2_code *code = NULL;
	uint8_t *buf;

	if (k < 0 || (uint32_t)k >= words[1])
		return NULL;
	at = words[4 + k];
	/* within the set, after its start */
	if (at < head || words[5 + k] < at || words[5 + k] > words[3])
		return NULL;
	len = words[5 + k] - at;
	/* The set's start (PCRE2's header, which counts every code, and the character
	 * tables), then this code: decoding one code reads only the first after the start. */
	buf = gctx ? pol_mem_alloc(head + len) : malloc(head + len);
	if (!buf)
		return NULL;
	memcpy(buf, set, head);
	memcpy(buf + head, set + at, len);
	if (pcre2_serialize_decode(&code, 1, buf, gctx) != 1)
		code = NULL;
	if (gctx)
		pol_mem_free(buf);
	else
		free(buf);
	return code;
}

/* The rule's code from the embedded container, decoded now; NULL when it has none. */
static pcre2_code *embedded_code(const struct pol_policy *p, const struct pol_rule *r)
{
	pol_embedded_attach_pending(p);
	if (r->code_index < 0 || r->code_index >= p->n_codes || !p->codes_blob ||
	    (p->flags & POL_LOAD_JIT))
		return NULL;
	return pol_embedded_code(p->codes_blob, (const uint8_t *)(p->codes_blob + 5 + p->n_codes),
				 r->code_index, p->gctx);
}

/* Every embedded code at once, from the whole set: one decode, one copy of the
 * character tables shared by all (pol_warm, before a process forks children that
 * would each decode their own). A rule that has its code already keeps it. */
static void decode_all_codes(const struct pol_policy *p)
{
	const uint8_t *set = (const uint8_t *)(p->codes_blob + 5 + p->n_codes);
	pcre2_code **codes = pol_mem_alloc((size_t)p->n_codes * sizeof(*codes));

	if (!codes)
		return;
	if (pcre2_serialize_decode(codes, p->n_codes, set, p->gctx) != p->n_codes) {
		pol_mem_free(codes); /* each rule decodes or compiles its own at first use */
		return;
	}
	for (size_t i = 0; i < p->n_rules; i++) {
		struct pol_rule *r = &pol_rules(p)[i];
		pcre2_code *none = NULL;

		if (r->code_index < 0 || r->code_index >= p->n_codes || !codes[r->code_index])
			continue;
		if (__atomic_compare_exchange_n(&r->code, &none, codes[r->code_index], 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			r->compile_state = 1;
			codes[r->code_index] = NULL;
		}
	}
	for (int32_t k = 0; k < p->n_codes; k++)
		if (codes[k])
			pcre2_code_free(codes[k]);
	pol_mem_free(codes);
}

void pol_warm(const struct pol_policy *p)
{
	pol_prepare(p);
	if (p->codes_blob && p->n_codes > 0 && !(p->flags & POL_LOAD_JIT))
		decode_all_codes(p);
}

pcre2_code *pol_rule_code(const struct pol_policy *p, struct pol_rule *r)
{
	pcre2_code *code = __atomic_load_n(&r->code, __ATOMIC_ACQUIRE), *expected = NULL;
	char err[128];
	size_t off;

	if (code || r->compile_state < 0)
		return code;
	code = embedded_code(p, r);
	if (!code && compile_rule(p, r, &code, err, sizeof(err), &off) < 0) {
		r->compile_state = -1;
		return NULL;
	}
	/* Two threads may decode or compile at once: the first to publish wins. */
	if (!__atomic_compare_exchange_n(&r->code, &expected, code, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		pcre2_code_free(code);
		return expected;
	}
	r->compile_state = 1;
	return code;
}

int pol_rule_prepare_regex(struct pol_policy *p, struct pol_rule *r, const char *file,
			   unsigned line, unsigned col)
{
	char err[128];
	size_t off = 0;
	pcre2_code *code = NULL;

	extract_keyword(r);
	/* Embedded rules are tested with the project and compile lazily; a user's pattern
	 * is compiled now so that a broken one is reported at load, never silently. */
	if (!(p->flags & POL_LOAD_EAGER) && strcmp(file, "<embedded>") == 0)
		return 0;
	if (compile_rule(p, r, &code, err, sizeof(err), &off) < 0) {
		pol_diag_add(p, file, line, col, r->id, 0,
			     "regex does not compile at offset %zu: %s (rule disabled)", off, err);
		r->compile_state = -1;
		r->compile_error = strdup(err);
		return -EINVAL;
	}
	r->code = code;
	r->compile_state = 1;
	return 0;
}

/* A `<` or `>` in a pattern names a redirection, unless it is part of a group's syntax:
 * (?<= (?<! (?> and the names of (?<name> (?P<name> (?P>name) (?'name'. */
int pol_pattern_words_only(const char *s)
{
	if (!s)
		return 0;
	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '\\') {
			if (s[i + 1] == '<' || s[i + 1] == '>')
				return 0;
			if (s[i + 1])
				i++;
			continue;
		}
		if (s[i] == '(' && s[i + 1] == '?') {
			size_t j = i + 2;
			if (s[j] == 'P')
				j++;
			if (s[j] == '>' || (s[j] == '<' && (s[j + 1] == '=' || s[j + 1] == '!'))) {
				i = j + (s[j] == '<');
				continue;
			}
			if (s[j] == '<') { /* a named group: its name, up to its '>' */
				while (s[j] && s[j] != '>')
					j++;
				if (!s[j])
					return 0;
				i = j;
				continue;
			}
			continue;
		}
		if (s[i] == '<' || s[i] == '>')
			return 0;
	}
	return 1;
}
