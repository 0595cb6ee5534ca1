/* glob.c - path patterns: glob matching, lexical normalization, symlink resolution.
 * No allocation: everything works in caller buffers, so the preload can call it
 * anywhere (after fork, in a vfork child). */
#include "dcg_policy.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "internal.h"
#include "pathidx.h"

/* Work budget for one match: patterns with many `*`/`**` could backtrack a lot on
 * a long path. Past the budget the match counts as a match (fail safe). */
#define GLOB_BUDGET 200000

struct gm {
	long budget;
};

static int class_match(const char **pp, const char *pend, char c)
{
	const char *p = *pp + 1; /* after '[' */
	int neg = 0, ok = 0;

	if (p < pend && (*p == '!' || *p == '^')) {
		neg = 1;
		p++;
	}
	const char *first = p;
	while (p < pend && (*p != ']' || p == first)) {
		char lo = *p, hi;

		if (lo == '\\' && p + 1 < pend)
			lo = *++p;
		hi = lo;
		if (p + 2 < pend && p[1] == '-' && p[2] != ']') {
			hi = p[2];
			if (hi == '\\' && p + 3 < pend) {
				hi = p[3];
				p++;
			}
			p += 2;
		}
		if ((unsigned char)c >= (unsigned char)lo && (unsigned char)c <= (unsigned char)hi)
			ok = 1;
		p++;
	}
	if (p >= pend) /* no closing ']': '[' is a literal */
		return -1;
	*pp = p + 1;
	return ok != neg;
}

static int gmatch(struct gm *g, const char *p, const char *pend, const char *s, const char *send)
{
	while (p < pend) {
		if (--g->budget < 0)
			return -1; /* undecided: the caller fails safe */
		if (*p == '*' && p + 1 < pend && p[1] == '*') {
			p += 2;
			while (p < pend && *p == '*')
				p++;
			if (p == pend)
				return 1; /* trailing **: everything, across components */
			if (*p == '/') {
				/* "**" + "/": zero or more whole components */
				int r = gmatch(g, p + 1, pend, s, send);
				if (r)
					return r;
				for (const char *t = s; t < send; t++)
					if (*t == '/' &&
					    (r = gmatch(g, p + 1, pend, t + 1, send)) != 0)
						return r;
				return 0;
			}
			for (const char *t = s; t <= send; t++) {
				int r = gmatch(g, p, pend, t, send);
				if (r)
					return r;
			}
			return 0;
		}
		if (*p == '*') {
			p++;
			if (p == pend)
				return memchr(s, '/', (size_t)(send - s)) == NULL;
			for (const char *t = s; t <= send; t++) {
				int r = gmatch(g, p, pend, t, send);
				if (r)
					return r;
				if (t < send && *t == '/')
					break;
			}
			return 0;
		}
		if (s >= send)
			return 0;
		if (*p == '?') {
			if (*s == '/')
				return 0;
			p++;
			s++;
			/* one character, not one byte: skip UTF-8 continuation bytes */
			while (s < send && ((unsigned char)*s & 0xc0) == 0x80)
				s++;
			continue;
		}
		if (*p == '[') {
			const char *q = p;
			int r = *s == '/' ? 0 : class_match(&q, pend, *s);

			if (r == 0)
				return 0;
			if (r > 0) {
				p = q;
				s++;
				continue;
			}
			/* unterminated class: literal '[' */
		}
		if (*p == '\\' && p + 1 < pend)
			p++;
		if (*p != *s)
			return 0;
		p++;
		s++;
	}
	return s == send;
}

static int glob_match_n(const char *pat, size_t plen, const char *s, size_t slen)
{
	struct gm g = {GLOB_BUDGET};

	return gmatch(&g, pat, pat + plen, s, s + slen);
}

int pol_glob_match(const char *pattern, const char *path)
{
	/* Undecided within the work budget counts as a match: fail safe. */
	return glob_match_n(pattern, strlen(pattern), path, strlen(path)) != 0;
}

static int is_wild(char c)
{
	return c == '*' || c == '?' || c == '[' || c == '\\';
}

void pol_pathpat_classify(struct pol_pathpat *pp)
{
	const char *g = pp->glob;
	size_t n = strlen(g), lit = 0;

	while (lit < n && !is_wild(g[lit]))
		lit++;
	pp->glob_len = n;
	pp->literal_len = lit;
	pp->shape = PP_GENERAL;
	if (lit == n) {
		pp->shape = PP_LITERAL;
	} else if (lit + 1 == n && g[lit] == '*' && lit > 0) {
		pp->shape = PP_PREFIX;
	} else if (g[0] == '*' && n > 1 && g[1] != '*') {
		size_t i = 1;

		while (i < n && !is_wild(g[i]))
			i++;
		if (i == n)
			pp->shape = PP_SUFFIX;
	}
}

/* Does a basename pattern match one component [c, c+len)? */
static int component_match(const struct pol_pathpat *pp, const char *c, size_t len)
{
	switch (pp->shape) {
	case PP_LITERAL:
		return len == pp->glob_len && memcmp(c, pp->glob, len) == 0;
	case PP_PREFIX:
		return len >= pp->literal_len && memcmp(c, pp->glob, pp->literal_len) == 0;
	case PP_SUFFIX: {
		size_t sl = pp->glob_len - 1;

		return len >= sl && memcmp(c + len - sl, pp->glob + 1, sl) == 0;
	}
	default:
		return glob_match_n(pp->glob, pp->glob_len, c, len);
	}
}

/* A pattern covers a path when it matches the path or one of its ancestors: a
 * protected folder protects everything beneath it. */
/* A basename pattern covers [path, path + n) when it matches one of its components. */
static int basename_covers(const struct pol_pathpat *pp, const char *path, size_t n)
{
	const char *s = path, *end = path + n;

	while (s < end) {
		const char *e;

		while (s < end && *s == '/')
			s++;
		e = s;
		while (e < end && *e != '/')
			e++;
		/* Undecided (work budget) protects: it matches a rule but never an
		 * exclusion. */
		int r = e > s ? component_match(pp, s, (size_t)(e - s)) : 0;
		if (r > 0 || (r < 0 && !pp->negate))
			return 1;
		s = e;
	}
	return 0;
}

int pol_pathpat_covers(const struct pol_pathpat *pp, const char *path)
{
	size_t n = strlen(path);

	if (pp->basename_only)
		return basename_covers(pp, path, n);
	if (n < pp->literal_len || memcmp(path, pp->glob, pp->literal_len) != 0)
		return 0;
	if (pp->shape == PP_LITERAL) {
		size_t l = pp->glob_len;

		while (l > 1 && pp->glob[l - 1] == '/')
			l--;
		if (l == 1) /* "/" covers everything */
			return 1;
		return n == l || (n > l && path[l] == '/');
	}
	/* Try the path and every ancestor at or beyond the literal prefix. */
	for (size_t i = n; i > 0; i--) {
		if (i != n && path[i] != '/')
			continue;
		if (i < pp->literal_len)
			break;
		int r = glob_match_n(pp->glob, pp->glob_len, path, i);
		if (r > 0 || (r < 0 && !pp->negate))
			return 1;
	}
	return 0;
}

/* Characters that make a pattern byte something other than itself. */
static int is_meta(unsigned char c)
{
	return c == '*' || c == '?' || c == '[' || c == ']' || c == '\\';
}

static unsigned sig_bit(unsigned a, unsigned b)
{
	return (a * 131u + b * 7u) & 1023u;
}

static void sig_set(uint64_t *set, unsigned bit)
{
	set[bit >> 6] |= 1ull << (bit & 63);
}

static int sig_has(const uint64_t *set, unsigned bit)
{
	return (set[bit >> 6] >> (bit & 63)) & 1;
}

static unsigned anchor_bucket(const char *comp, size_t len);

#ifdef __SSE2__
/* c in each byte, built in registers: a constant GCC would load from .rodata, a page
 * a fork child of the preload's host faults in for it (the exec check walks paths). */
static inline __attribute__((always_inline)) __m128i splat8(unsigned char c)
{
	int w = (int)(c * 0x01010101u);

	__asm__("" : "+r"(w)); /* not folded back into a constant */
	return _mm_shuffle_epi32(_mm_cvtsi32_si128(w), 0);
}
#endif

/* The end of the component at s: its first '/' or NUL. Sixteen bytes a step, with
 * aligned loads, which stay in the string's last page (so may read past its end,
 * which a sanitizer cannot know is harmless: the sanitized build has the loop): every
 * open of a deep path walks it. */
#if defined(__SSE2__) && !defined(__SANITIZE_ADDRESS__)
static inline __attribute__((always_inline)) const unsigned char *comp_end(const unsigned char *s)
{
	const __m128i slash = splat8('/'), nul = _mm_setzero_si128();
	const unsigned char *a = (const unsigned char *)((uintptr_t)s & ~(uintptr_t)15);
	__m128i v = _mm_load_si128((const __m128i *)(const void *)a);
	unsigned m = (unsigned)_mm_movemask_epi8(
			 _mm_or_si128(_mm_cmpeq_epi8(v, slash), _mm_cmpeq_epi8(v, nul))) >>
		     (s - a);

	while (!m) {
		a += 16;
		v = _mm_load_si128((const __m128i *)(const void *)a);
		m = (unsigned)_mm_movemask_epi8(
		    _mm_or_si128(_mm_cmpeq_epi8(v, slash), _mm_cmpeq_epi8(v, nul)));
		s = a;
	}
	return s + __builtin_ctz(m);
}
#else
static const unsigned char *comp_end(const unsigned char *s)
{
	while (*s && *s != '/')
		s++;
	return s;
}
#endif

/* One walk over the components of path: the index buckets it selects into out (at
 * most max; the count is returned, max + 1 when they did not fit), only those with
 * their bit set in present unless it is NULL, and, when sig is set, its signature
 * bits, for every component even past max. */
static inline __attribute__((always_inline)) unsigned path_walk(const char *path, uint16_t *out,
								unsigned max,
								struct pol_path_sig *sig,
								const uint64_t *present)
{
	const unsigned char *s = (const unsigned char *)path;
	unsigned n = 0;
	int first = 1;

#define PUT(b)                                                         \
	do {                                                           \
		unsigned b_ = (b);                                     \
		if (!present || (present[b_ >> 6] >> (b_ & 63) & 1)) { \
			if (n < max)                                   \
				out[n] = (uint16_t)b_;                 \
			n += n <= max;                                 \
		}                                                      \
	} while (0)
	PUT(POL_PI_ALWAYS);
	while (*s) {
		const unsigned char *e;
		size_t len;
		unsigned lit, f2, l2;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = comp_end(s);
		len = (size_t)(e - s);
		lit = sig_bit((unsigned)len, s[0]);
		f2 = sig_bit(s[0], len > 1 ? s[1] : 0);
		l2 = sig_bit(len > 1 ? e[-2] : 0, e[-1]);
		if (sig) {
			sig_set(sig->literal, lit);
			sig_set(sig->first2, f2);
			sig_set(sig->last2, l2);
		} else if (n > max) {
			break; /* nothing more to gather */
		}
		if (first)
			PUT(anchor_bucket((const char *)s, len));
		first = 0;
		PUT(POL_PI_LIT + lit);
		if (len >= 2) {
			PUT(POL_PI_FIRST2 + f2);
			PUT(POL_PI_LAST2 + l2);
		}
		s = e;
	}
#undef PUT
	return n;
}

void pol_path_sig_init(struct pol_path_sig *sig, const char *path)
{
	unsigned n;

	memset(sig->literal, 0, sizeof(sig->literal));
	memset(sig->first2, 0, sizeof(sig->first2));
	memset(sig->last2, 0, sizeof(sig->last2));
	n = path_walk(path, sig->buckets, POL_SIG_BUCKETS, sig, NULL);
	sig->overflow = n > POL_SIG_BUCKETS;
	sig->n_buckets = sig->overflow ? POL_SIG_BUCKETS : n;
}

unsigned pol_path_buckets(const char *path, const uint64_t *present, uint16_t *out, unsigned max)
{
	return path_walk(path, out, max, NULL, present);
}

int pol_pathpat_covers_sig(const struct pol_pathpat *pp, const char *path,
			   const struct pol_path_sig *sig)
{
	if (pp->basename_only) {
		const unsigned char *g = (const unsigned char *)pp->glob;

		switch (pp->shape) {
		case PP_LITERAL:
			if (!sig_has(sig->literal, sig_bit((unsigned)pp->glob_len, g[0])))
				return 0;
			break;
		case PP_PREFIX:
			if (pp->literal_len >= 2 && !sig_has(sig->first2, sig_bit(g[0], g[1])))
				return 0;
			break;
		case PP_SUFFIX:
			if (pp->glob_len >= 3 &&
			    !sig_has(sig->last2, sig_bit(g[pp->glob_len - 2], g[pp->glob_len - 1])))
				return 0;
			break;
		default:
			/* Any literal first or last two bytes must be there too. */
			if (pp->glob_len >= 2 && !is_meta(g[0]) && !is_meta(g[1]) &&
			    !sig_has(sig->first2, sig_bit(g[0], g[1])))
				return 0;
			if (pp->glob_len >= 3 && !is_meta(g[pp->glob_len - 1]) &&
			    !is_meta(g[pp->glob_len - 2]) && g[pp->glob_len - 3] != '\\' &&
			    !sig_has(sig->last2, sig_bit(g[pp->glob_len - 2], g[pp->glob_len - 1])))
				return 0;
			break;
		}
	}
	return pol_pathpat_covers(pp, path);
}

int pol_pathpat_spares_new_file(const struct pol_pathpat *pp, unsigned kind, const char *path)
{
	size_t last = 0, i;

	if (kind != POL_PATH_ZERO_ACCESS || !pp->glob || !pp->basename_only || pp->negate ||
	    path[0] != '/')
		return 0;
	for (i = 0; path[i]; i++) /* (a loop: the guest links no strrchr) */
		if (path[i] == '/')
			last = i;
	/* "/" itself, or a name ending in "/": no new file's name to spare */
	if (last + 1 == i)
		return 0;
	/* the folders above it: a name pattern that matches one of them (a folder named
	 * like a secret) covers the new file as a folder entry would */
	return !basename_covers(pp, path, last);
}

static unsigned anchor_bucket(const char *comp, size_t len)
{
	unsigned h = 5381;

	for (size_t i = 0; i < len; i++)
		h = h * 33u + (unsigned char)comp[i];
	return POL_PI_ANCHOR + (h & 255u);
}

unsigned pol_pathpat_bucket(const struct pol_pathpat *pp)
{
	const unsigned char *g = (const unsigned char *)pp->glob;
	size_t n = pp->glob_len;

	if (!g)
		return POL_PI_ALWAYS; /* a rule left unexpanded: tried on every path */
	if (pp->basename_only) {
		if (pp->shape == PP_LITERAL)
			return POL_PI_LIT + sig_bit((unsigned)n, g[0]);
		if (n >= 2 && !is_meta(g[0]) && !is_meta(g[1]))
			return POL_PI_FIRST2 + sig_bit(g[0], g[1]);
		if (n >= 3 && !is_meta(g[n - 1]) && !is_meta(g[n - 2]) && g[n - 3] != '\\')
			return POL_PI_LAST2 + sig_bit(g[n - 2], g[n - 1]);
		return POL_PI_ALWAYS;
	}
	/* Anchored: its first component, when that is plain text. */
	const char *c = pp->glob + 1, *e = c;
	while (*e && *e != '/')
		e++;
	if (e == c || (size_t)(e - pp->glob) > pp->literal_len)
		return POL_PI_ALWAYS;
	return anchor_bucket(c, (size_t)(e - c));
}

/* The length of s when it is an absolute path in normal form already (no empty, "."
 * or ".." component, no trailing slash): most paths a program opens, and every working
 * directory. 0 otherwise. */
static size_t normal_len(const char *s)
{
	size_t n, i = 0;

	if (s[0] != '/')
		return 0;
	n = strlen(s);
	if (n == 1)
		return 1;
	if (s[n - 1] == '/')
		return 0;
#ifdef __SSE2__
	/* 16 bytes a step: only a slash followed by a slash or a dot needs a look. */
	const __m128i slash = splat8('/'), dot = splat8('.');

	for (; i + 17 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 1));
		unsigned m = (unsigned)_mm_movemask_epi8(
		    _mm_and_si128(_mm_cmpeq_epi8(v, slash),
				  _mm_or_si128(_mm_cmpeq_epi8(w, slash), _mm_cmpeq_epi8(w, dot))));

		for (; m; m &= m - 1) {
			const char *c = s + i + __builtin_ctz(m) + 1;

			if (c[0] == '/' || (c[1] == '/' || c[1] == '\0') ||
			    (c[1] == '.' && (c[2] == '/' || c[2] == '\0')))
				return 0;
		}
	}
#endif
	for (; i < n; i++) {
		const char *c = s + i + 1; /* a component starts after each slash */

		if (s[i] == '/' &&
		    (*c == '/' ||
		     (c[0] == '.' && (c[1] == '/' || c[1] == '\0' ||
				      (c[1] == '.' && (c[2] == '/' || c[2] == '\0'))))))
			return 0;
	}
	return n;
}

int pol_path_normalize(const char *path, const char *base, const char *home, char *out, size_t size)
{
	size_t o = 0, n;
	const char *s = path;

	if (size < 2)
		return -ENAMETOOLONG;
	/* Already normal: copied whole (a program's open of a deep path costs a scan). */
	if ((n = normal_len(path)) > 0) {
		if (n >= size)
			return -ENAMETOOLONG;
		memcpy(out, path, n + 1);
		return 0;
	}
	out[o++] = '/';
	/* The starting point: home for ~, base for a relative path. */
	const char *start = NULL;
	if (s[0] == '~' && (s[1] == '/' || s[1] == '\0') && home && home[0] == '/') {
		start = home;
		s++;
	} else if (s[0] != '/' && base && base[0] == '/') {
		start = base;
	}
	/* A normal base (a working directory) is copied whole too. */
	if (start && start == base && (n = normal_len(base)) > 1) {
		if (n >= size)
			return -ENAMETOOLONG;
		memcpy(out, base, n);
		o = n;
		start = NULL;
	}
	for (int pass = 0; pass < 2; pass++) {
		const char *t = pass == 0 ? start : s;

		if (!t)
			continue;
		while (*t) {
			const char *e;
			size_t len;

			while (*t == '/')
				t++;
			if (!*t)
				break;
			e = t;
			while (*e && *e != '/')
				e++;
			len = (size_t)(e - t);
			if (len == 1 && t[0] == '.') {
				/* nothing */
			} else if (len == 2 && t[0] == '.' && t[1] == '.') {
				while (o > 1 && out[o - 1] != '/')
					o--;
				if (o > 1)
					o--;
			} else {
				if (o > 1) {
					if (o + 1 >= size)
						return -ENAMETOOLONG;
					out[o++] = '/';
				}
				if (o + len >= size)
					return -ENAMETOOLONG;
				memcpy(out + o, t, len);
				o += len;
			}
			t = e;
		}
	}
	out[o] = '\0';
	return 0;
}

/* Appends "/comp" to buf (holding an absolute path of *len bytes). */
static int append_comp(char *buf, size_t *len, size_t size, const char *c, size_t clen)
{
	if (clen == 1 && c[0] == '.')
		return 0;
	if (clen == 2 && c[0] == '.' && c[1] == '.') {
		while (*len > 1 && buf[*len - 1] != '/')
			(*len)--;
		if (*len > 1)
			(*len)--;
		buf[*len] = '\0';
		return 0;
	}
	if (*len + clen + 2 > size)
		return -ENAMETOOLONG;
	if (*len > 1)
		buf[(*len)++] = '/';
	memcpy(buf + *len, c, clen);
	*len += clen;
	buf[*len] = '\0';
	return 0;
}

/* readlink(), as the walk asks it without a memo. */
/* One step of a path walk from *s: the next component appended to out (*olen bytes,
 * *save its length before). Returns 1 when the walk asks whether that component is a
 * link (*s its start, *end its end), after skipping the ones it does not ask about
 * ("." and "..", any after a missing folder, the last of a walk that does not follow
 * it); 0 at the end of the path; a negative errno. */
static inline __attribute__((always_inline)) int walk_step(const char **s, const char **end,
							   char *out, size_t *olen, size_t size,
							   size_t *save, int nofollow, int missing)
{
	for (const char *c = *s;;) {
		const char *e, *t;
		size_t clen;
		int rc;

		while (*c == '/')
			c++;
		if (!*c)
			return 0;
		for (e = c; *e && *e != '/'; e++)
			;
		clen = (size_t)(e - c);
		*save = *olen;
		rc = append_comp(out, olen, size, c, clen);
		if (rc)
			return rc;
		for (t = e; *t == '/'; t++)
			;
		if (!(missing || (clen == 1 && c[0] == '.') ||
		      (clen == 2 && c[0] == '.' && c[1] == '.') || (!*t && nofollow))) {
			*s = c;
			*end = e;
			return 1;
		}
		c = e;
	}
}

static ssize_t plain_readlink(void *ctx, const char *path, size_t len, size_t dir_len, char *buf,
			      size_t size)
{
	(void)ctx, (void)len, (void)dir_len;
	return readlink(path, buf, size);
}

int pol_path_resolve(const char *abs_path, int nofollow, char *out, size_t size)
{
	return pol_path_resolve_with(abs_path, nofollow, out, size, plain_readlink, NULL);
}

/* One component asked about as walk_rest() asks, into a buffer of its own: when out's
 * room past its end is too small for the target. *np: the target's length, rest then
 * rebuilt from it and tail; or -1, not a link (errno as ask left it). 0, or a negative
 * errno that ends the walk. */
static __attribute__((noinline)) int relink(char *rest, const char *tail, const char *out,
					    size_t olen, size_t save, size_t *links,
					    pol_readlink_fn ask, void *ctx, ssize_t *np)
{
	char link[PATH_MAX];
	ssize_t n = ask(ctx, out, olen, save, link, sizeof(link) - 1);
	size_t tlen;

	*np = n;
	if (n < 0)
		return 0;
	if (++*links > 40)
		return -ELOOP;
	tlen = strlen(tail);
	if ((size_t)n + tlen + 1 > PATH_MAX * 2)
		return -ENAMETOOLONG;
	memmove(rest + n, tail, tlen + 1);
	memcpy(rest, link, (size_t)n);
	return 0;
}

/* Where the walk goes on after a link: from the root for an absolute target, else from
 * the folder that held the link (save: the resolved length before its name; the root
 * when that is empty). The new length of out. */
static inline __attribute__((always_inline)) size_t link_restart(char *out, size_t save, int abs)
{
	size_t olen = abs || save == 0 ? 1 : save;

	out[olen] = '\0';
	return olen;
}

/* The walk from a symlink on: rest (PATH_MAX * 2 bytes) holds what is left to walk, out
 * the olen bytes resolved so far; rest is rebuilt each time a symlink is met, from the
 * target read into out's room past its end (or, when that room may cut it short, by
 * relink()). Apart from pol_path_resolve_with() so that a walk that meets no link
 * (most) writes none of these 8 KiB of stack, under which every readlink() would run:
 * in a first path decision those are fresh pages, a fault each. */
static __attribute__((noinline)) int walk_rest(char *rest, char *out, size_t olen, size_t size,
					       size_t links, int nofollow, pol_readlink_fn ask,
					       void *ctx)
{
	const char *s = rest, *e = NULL;
	size_t save;
	int missing = 0, rc;

	while ((rc = walk_step(&s, &e, out, &olen, size, &save, nofollow, missing)) > 0) {
		/* as readlink(out, link, PATH_MAX - 1) into a buffer of PATH_MAX would */
		size_t room = size - olen - 1, cap = room > PATH_MAX ? PATH_MAX - 1 : room - 1;
		char *link = out + olen + 1;
		ssize_t n = -1;
		int rebuilt = 0;
		if (room >= 2)
			n = ask(ctx, out, olen, save, link, cap);
		if (room < 2 || (n >= 0 && (size_t)n >= cap && cap < PATH_MAX - 1)) {
			/* the room may have cut the target short: asked again apart */
			rc = relink(rest, e, out, olen, save, &links, ask, ctx, &n);
			if (rc)
				return rc;
			rebuilt = 1;
		}
		if (n < 0) {
			/* Not a link (EINVAL), or the rest does not exist yet: the tail resolves
			 * through its nearest existing parent and is appended as written. */
			if (errno != EINVAL)
				missing = 1;
			s = e;
			continue;
		}
		if (!rebuilt) {
			if (++links > 40)
				return -ELOOP;
			/* New rest: the link's target, then what followed this component. */
			size_t tail = strlen(e);
			if ((size_t)n + tail + 1 > PATH_MAX * 2)
				return -ENAMETOOLONG;
			memmove(rest + n, e, tail + 1);
			memcpy(rest, link, (size_t)n);
		}
		s = rest;
		olen = link_restart(out, save, n > 0 && rest[0] == '/');
	}
	return rc; /* 0 at the end of the path, or walk_step()'s error */
}

/* The whole walk in walk_rest(), its input copied first (out may be abs_path itself). */
static __attribute__((noinline)) int walk_copy(const char *abs_path, size_t rlen, char *out,
					       size_t size, int nofollow, pol_readlink_fn ask,
					       void *ctx)
{
	char rest[PATH_MAX * 2];

	memcpy(rest, abs_path, rlen + 1);
	out[0] = '/';
	out[1] = '\0';
	return walk_rest(rest, out, 1, size, 0, nofollow, ask, ctx);
}

/* From the first symlink on: rest is the link's target (n bytes, in out's spare room
 * until copied) then tail, what followed the link in the input. */
static __attribute__((noinline)) int walk_link(const char *target, size_t n, const char *tail,
					       char *out, size_t save, size_t size, int nofollow,
					       pol_readlink_fn ask, void *ctx)
{
	char rest[PATH_MAX * 2];
	size_t tlen = strlen(tail), olen;

	if (n + tlen + 1 > sizeof(rest))
		return -ENAMETOOLONG;
	memcpy(rest, target, n); /* before out is cut: the target lies past its end */
	memcpy(rest + n, tail, tlen + 1);
	olen = link_restart(out, save, target[0] == '/');
	return walk_rest(rest, out, olen, size, 1, nofollow, ask, ctx);
}

int pol_path_resolve_with(const char *abs_path, int nofollow, char *out, size_t size,
			  pol_readlink_fn ask, void *ctx)
{
	/* Walks abs_path itself, not a copy, and reads a link's target into out's room past
	 * what is resolved so far; the first link met (or an input that out overlaps, or a
	 * target that may not fit that room) goes on in the frames above, with the buffers
	 * of a copy. The same answers as a walk of a copy: nothing is written to out that
	 * the walk reads later, and walk_rest() takes over in the state this loop reached. */
	const char *s = abs_path, *e = NULL;
	size_t olen = 1, rlen, save;
	int missing = 0, rc;

	if (abs_path[0] != '/' || size < 2)
		return -EINVAL;
	rlen = strlen(abs_path);
	if (rlen >= PATH_MAX * 2)
		return -ENAMETOOLONG;
	if ((uintptr_t)out < (uintptr_t)abs_path + rlen + 1 &&
	    (uintptr_t)abs_path < (uintptr_t)out + size)
		return walk_copy(abs_path, rlen, out, size, nofollow, ask, ctx);
	out[0] = '/';
	out[1] = '\0';
	while ((rc = walk_step(&s, &e, out, &olen, size, &save, nofollow, missing)) > 0) {
		/* the target goes past out's NUL; a room under 2 bytes, or a target that fills
		 * it (it may be cut short), and the walk starts again on a copy */
		size_t room = size - olen - 1;
		char *link = out + olen + 1;
		if (room < 2)
			return walk_copy(abs_path, rlen, out, size, nofollow, ask, ctx);
		ssize_t n = ask(ctx, out, olen, save, link, room - 1);
		if (n < 0) {
			if (errno != EINVAL)
				missing = 1;
			s = e;
			continue;
		}
		if ((size_t)n >= room - 1 || (size_t)n >= PATH_MAX - 1)
			return walk_copy(abs_path, rlen, out, size, nofollow, ask, ctx);
		link[n] = '\0';
		return walk_link(link, (size_t)n, e, out, save, size, nofollow, ask, ctx);
	}
	return rc;
}
