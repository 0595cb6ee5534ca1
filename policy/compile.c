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

/* The literal a pattern must contain, for the prefilter: the run of plain characters
 * at its start, after ^ and \b. Conservative: any top-level alternation, a group or
 * an inline flag at the start disables it. */
static void extract_keyword(struct pol_rule *r)
{
	const char *s = r->pattern;
	char buf[64];
	size_t n = 0;

	/* A top-level alternation means the leading literal is not required; one inside a
	 * group or a class does not touch the literal, which ends before the group. */
	int depth = 0, in_class = 0;
	for (const char *t = s; *t; t++) {
		if (*t == '\\' && t[1]) {
			t++;
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
		} else if (*t == ')') {
			depth = depth ? depth - 1 : 0;
		} else if (*t == '|' && depth == 0) {
			return;
		}
	}
	for (;;) {
		if (*s == '^')
			s++;
		else if (s[0] == '\\' && (s[1] == 'b' || s[1] == 'A'))
			s += 2;
		else
			break;
	}
	while (*s && n < sizeof(buf) - 1) {
		char c = *s;

		if (c == '\\' && s[1] && strchr(".-/:_=", s[1])) {
			c = s[1];
			s += 2;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '_' || c == '-' || c == ':' || c == '=' ||
			   c == '/' || c == ',' || c == ' ') {
			s++;
		} else {
			break;
		}
		buf[n++] = (char)((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
	}
	/* A quantifier applies to the last literal character: drop it. */
	if (n && (*s == '?' || *s == '*' || *s == '{'))
		n--;
	if (n < 2)
		return;
	r->keyword = strndup(buf, n);
	if (!r->keyword)
		return;
	r->keyword_len = n;
	r->keyword_bigram = pol_keyword_bigram(buf);
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

/* Decodes the embedded compiled set once and hands each rule its code. A thread that
 * finds another decoding compiles its own pattern instead of waiting. */
static void decode_embedded_codes(const struct pol_policy *cp)
{
	struct pol_policy *p = (struct pol_policy *)cp;
	int expected = 0;
	pcre2_code **codes;

	if (!__atomic_compare_exchange_n(&p->codes_state, &expected, 1, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	codes = pol_mem_alloc((size_t)p->n_codes * sizeof(*codes));
	if (!codes ||
	    pcre2_serialize_decode(codes, p->n_codes, p->codes_blob, p->gctx) != p->n_codes) {
		/* Another PCRE2 than the one that built it: compile from the patterns. */
		pol_mem_free(codes);
		__atomic_store_n(&p->codes_state, 3, __ATOMIC_RELEASE);
		return;
	}
	for (size_t i = 0; i < p->n_rules; i++) {
		struct pol_rule *r = &p->rules[i];
		pcre2_code *none = NULL;

		if (r->code_index < 0 || r->code_index >= p->n_codes || !codes[r->code_index])
			continue;
		if (__atomic_compare_exchange_n(&r->code, &none, codes[r->code_index], 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			r->compile_state = 1;
		else
			pcre2_code_free(codes[r->code_index]);
		codes[r->code_index] = NULL;
	}
	for (int32_t i = 0; i < p->n_codes; i++)
		if (codes[i])
			pcre2_code_free(codes[i]);
	pol_mem_free(codes);
	__atomic_store_n(&p->codes_state, 2, __ATOMIC_RELEASE);
}

void pol_warm(const struct pol_policy *p)
{
	pol_prepare(p);
	if (p->codes_blob && !(p->flags & POL_LOAD_JIT) &&
	    __atomic_load_n(&p->codes_state, __ATOMIC_ACQUIRE) == 0)
		decode_embedded_codes(p);
}

pcre2_code *pol_rule_code(const struct pol_policy *p, struct pol_rule *r)
{
	pcre2_code *code = __atomic_load_n(&r->code, __ATOMIC_ACQUIRE), *expected = NULL;
	char err[128];
	size_t off;

	if (code || r->compile_state < 0)
		return code;
	if (r->code_index >= 0 && p->codes_blob && !(p->flags & POL_LOAD_JIT) &&
	    __atomic_load_n(&p->codes_state, __ATOMIC_ACQUIRE) == 0) {
		decode_embedded_codes(p);
		code = __atomic_load_n(&r->code, __ATOMIC_ACQUIRE);
		if (code)
			return code;
	}
	if (compile_rule(p, r, &code, err, sizeof(err), &off) < 0) {
		r->compile_state = -1;
		return NULL;
	}
	/* Two threads may compile at once: the first to publish wins. */
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
