/* pathidx.c - the compact path index of the preload's lean guest (pathidx.h).
 *
 * Layout (native byte order, 32-bit words; written and read on the same machine):
 *   "DCGPIDX2", n_pats, n_buckets, strings_len, 0
 *   per non-empty bucket of the path index, by bucket number: bucket, first, count
 *   refs[n_pats]: pattern numbers, bucket by bucket
 *   per pattern: string offset, then kind and basename_only as bytes (8 bytes)
 *   the globs, each NUL-terminated
 * About 2 KB for the default policy: pol_pidx_open() checks it, then copies it into
 * memory of its own (anonymous memory, which a fork child shares without a page fault
 * per page read, unlike a file mapping).
 */
#include "pathidx.h"

#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(POL_PI_BUCKETS <= 53 * 64, "pol_pidx.present holds a bit per bucket");

struct head {
	char magic[8];
	uint32_t n_pats, n_buckets, strings_len, zero;
};

struct pol_pidx_bucket {
	uint32_t bucket, first, count;
};

struct pat_rec {
	uint32_t str;
	unsigned char kind, basename_only, pad[2];
};

/* The patterns to index: each positive rule's glob, and its canonical form. */
static size_t collect(const struct pol_policy *p, const struct pol_pathpat **pp,
		      unsigned char *kind, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_path_rules; i++) {
		const struct pol_rule *r = &pol_rules(p)[p->path_rules[i]];

		if (r->path.negate)
			continue;
		for (int k = 0; k < 2; k++) {
			const struct pol_pathpat *one =
			    k ? (r->has_canon ? &r->path_canon : NULL) : &r->path;

			if (!one)
				continue;
			if (n < cap) {
				pp[n] = one;
				kind[n] = (unsigned char)r->path_kind;
			}
			n++;
		}
	}
	return n;
}

char *pol_pidx_save(const struct pol_policy *p, size_t *len)
{
	const struct pol_pathpat **pp = NULL;
	unsigned char *kind = NULL;
	uint32_t *count = NULL, *refs;
	size_t n, nb = 0, strings = 0, total, off = 0, r = 0;
	struct pol_pidx_bucket *bk;
	struct pat_rec *recs;
	struct head *h;
	char *buf = NULL, *str;

	pol_paths_ready(p);
	n = collect(p, NULL, NULL, 0);
	pp = calloc(n + 1, sizeof(*pp));
	kind = calloc(n + 1, 1);
	count = calloc(POL_PI_BUCKETS, sizeof(*count));
	if (!pp || !kind || !count)
		goto out;
	collect(p, pp, kind, n);
	for (size_t i = 0; i < n; i++) {
		if (!pp[i]->glob)
			goto out; /* never expanded: only the engine knows it covers all */
		strings += strlen(pp[i]->glob) + 1;
		if (count[pol_pathpat_bucket(pp[i])]++ == 0)
			nb++;
	}
	total = sizeof(*h) + nb * sizeof(*bk) + n * 4 + n * sizeof(*recs) + strings;
	buf = calloc(1, total);
	if (!buf)
		goto out;
	h = (struct head *)(void *)buf;
	memcpy(h->magic, POL_PIDX_MAGIC, 8);
	h->n_pats = (uint32_t)n;
	h->n_buckets = (uint32_t)nb;
	h->strings_len = (uint32_t)strings;
	bk = (struct pol_pidx_bucket *)(void *)(buf + sizeof(*h));
	refs = (uint32_t *)(void *)(bk + nb);
	recs = (struct pat_rec *)(void *)(refs + n);
	str = (char *)(recs + n);
	for (uint32_t b = 0, k = 0; b < POL_PI_BUCKETS; b++) {
		if (!count[b])
			continue;
		bk[k].bucket = b;
		bk[k].first = (uint32_t)r;
		bk[k].count = 0;
		for (size_t i = 0; i < n; i++)
			if (pol_pathpat_bucket(pp[i]) == b) {
				refs[r++] = (uint32_t)i;
				bk[k].count++;
			}
		k++;
	}
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(pp[i]->glob) + 1;

		recs[i].str = (uint32_t)off;
		recs[i].kind = kind[i];
		recs[i].basename_only = (unsigned char)!!pp[i]->basename_only;
		memcpy(str + off, pp[i]->glob, l);
		off += l;
	}
	*len = total;
out:
	free(pp);
	free(kind);
	free(count);
	return buf;
}

/* Checks an index in place (bk, refs, recs, str point into it). */
static int pidx_valid(const struct head *h, const struct pol_pidx_bucket *bk, const uint32_t *refs,
		      const struct pat_rec *recs, const char *str)
{
	if (h->strings_len && str[h->strings_len - 1] != '\0')
		return 0;
	for (size_t k = 0; k < h->n_buckets; k++)
		if (bk[k].bucket >= POL_PI_BUCKETS || (k && bk[k].bucket <= bk[k - 1].bucket) ||
		    bk[k].first > h->n_pats || bk[k].count > h->n_pats - bk[k].first)
			return 0;
	for (size_t i = 0; i < h->n_pats; i++)
		if (refs[i] >= h->n_pats || recs[i].str >= h->strings_len ||
		    recs[i].kind > POL_PATH_NO_DELETE)
			return 0;
	return 1;
}

int pol_pidx_open(struct pol_pidx *x, const void *file, size_t len, void *(*alloc)(size_t))
{
	const struct head *h = file;
	const struct pol_pidx_bucket *bk;
	const struct pat_rec *recs;
	const uint32_t *refs;
	const char *str;
	size_t need, off_bk, off_refs, off_recs, off_str;
	char *copy;

	memset(x, 0, sizeof(*x));
	if (len < sizeof(*h) || memcmp(h->magic, POL_PIDX_MAGIC, 8) != 0 ||
	    h->n_pats > (1u << 20) || h->n_buckets > h->n_pats || h->strings_len > (1u << 26))
		return -EINVAL;
	off_bk = sizeof(*h);
	off_refs = off_bk + (size_t)h->n_buckets * sizeof(*bk);
	off_recs = off_refs + (size_t)h->n_pats * 4;
	off_str = off_recs + (size_t)h->n_pats * sizeof(*recs);
	need = off_str + h->strings_len;
	if (len != need || !pidx_valid(h, (const void *)((const char *)file + off_bk),
				       (const void *)((const char *)file + off_refs),
				       (const void *)((const char *)file + off_recs),
				       (const char *)file + off_str))
		return -EINVAL;
	/* One block: the patterns, their kinds, then the index itself, copied. */
	x->pats = alloc(((size_t)h->n_pats + 1) * (sizeof(*x->pats) + 1) + len + 8);
	if (!x->pats)
		return -ENOMEM;
	x->kinds = (unsigned char *)(x->pats + h->n_pats + 1);
	copy = (char *)x->kinds + h->n_pats + 1;
	copy += (8 - (uintptr_t)copy % 8) % 8;
	memcpy(copy, file, len);
	bk = (const struct pol_pidx_bucket *)(const void *)(copy + off_bk);
	refs = (const uint32_t *)(const void *)(copy + off_refs);
	recs = (const struct pat_rec *)(const void *)(copy + off_recs);
	str = copy + off_str;
	for (size_t i = 0; i < h->n_pats; i++) {
		struct pol_pathpat *pp = &x->pats[i];

		memset(pp, 0, sizeof(*pp));
		pp->glob = (char *)(uintptr_t)(str + recs[i].str);
		pp->basename_only = recs[i].basename_only;
		pol_pathpat_classify(pp);
		((unsigned char *)x->kinds)[i] = recs[i].kind;
	}
	memset(x->present, 0, sizeof(x->present));
	for (size_t k = 0; k < h->n_buckets; k++)
		x->present[bk[k].bucket / 64] |= 1ull << (bk[k].bucket % 64);
	x->buckets = bk;
	x->n_buckets = h->n_buckets;
	x->refs = refs;
	x->n_pats = h->n_pats;
	return 0;
}

/* new_file: the exclusive creation of a new file (POL_PATH_CREATE_EXCL), which a name
 * pattern naming that file alone does not refuse, as in the engine's decision. */
static int try_pat(const struct pol_pidx *x, uint32_t i, unsigned kinds, const char *path,
		   int new_file)
{
	return (kinds & (1u << x->kinds[i])) && pol_pathpat_covers(&x->pats[i], path) &&
	       !(new_file && pol_pathpat_spares_new_file(&x->pats[i], x->kinds[i], path));
}

/* The non-empty bucket numbered b, or NULL. */
static const struct pol_pidx_bucket *find_bucket(const struct pol_pidx *x, unsigned b)
{
	size_t lo = 0, hi = x->n_buckets;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x->buckets[mid].bucket == b)
			return &x->buckets[mid];
		if (x->buckets[mid].bucket < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int pol_pidx_may_refuse(const struct pol_pidx *x, const char *path, enum pol_op op, unsigned flags)
{
	unsigned kinds = pol_op_refusing_kinds(op, flags);
	int moves = op == POL_OP_DELETE || op == POL_OP_RENAME_FROM || op == POL_OP_RENAME_TO;
	/* as decide.c's decide_path(); a session's file's metadata only on a canonical
	 * path (the engine also when the path as written has no symlink) */
	int new_file =
	    ((flags & POL_PATH_CREATE_EXCL) && op == POL_OP_CREATE && !(flags & POL_PATH_IS_DIR)) ||
	    ((flags & POL_PATH_SESSION_NEW) && op == POL_OP_CHMOD && (flags & POL_PATH_CANONICAL));
	uint16_t b[32]; /* past 32 buckets that hold rules, every rule is tried */
	unsigned nb;

	if (!kinds || !x->n_pats)
		return 0;
	/* A folder deleted or moved is refused for what lies beneath it: the engine's walk. */
	if ((flags & POL_PATH_IS_DIR) && moves)
		return 1;
	if (!path || path[0] != '/')
		return 1;
	/* the buckets the index holds (most of a path's hold no rule) */
	nb = pol_path_buckets(path, x->present, b, sizeof(b) / sizeof(b[0]));
	if (nb > sizeof(b) / sizeof(b[0])) {
		for (uint32_t i = 0; i < x->n_pats; i++)
			if (try_pat(x, i, kinds, path, new_file))
				return 1;
		return 0;
	}
	for (unsigned k = 0; k < nb; k++) {
		const struct pol_pidx_bucket *e = find_bucket(x, b[k]);

		if (!e)
			continue;
		for (uint32_t j = 0; j < e->count; j++)
			if (try_pat(x, x->refs[e->first + j], kinds, path, new_file))
				return 1;
	}
	return 0;
}

int pol_pidx_allows(const struct pol_pidx *x, const char *base, const char *path, enum pol_op op,
		    unsigned flags)
{
	/* One buffer for the path in normal form, the joined path and where it leads
	 * (pol_path_resolve() copies its input first): in a fork child each buffer is a
	 * stack page to copy. */
	char buf[PATH_MAX * 2];
	const char *abs = path;
	size_t b, n;

	if (!x || !path || !path[0] || (path[0] == '~' && (path[1] == '/' || path[1] == '\0')) ||
	    pol_path_normalize(path, base, NULL, buf, PATH_MAX) < 0 ||
	    pol_pidx_may_refuse(x, buf, op, flags))
		return 0;
	if (flags & POL_PATH_CANONICAL)
		return 1;
	/* base + "/" + path, as pol_check_path() joins them before resolving (an absolute
	 * path resolves the same with or without the leading "/" it adds) */
	if (path[0] != '/') {
		b = strlen(base);
		n = strlen(path);
		if (b + n + 2 > sizeof(buf))
			return 0;
		memcpy(buf, base, b);
		buf[b] = '/';
		memcpy(buf + b + 1, path, n + 1);
		abs = buf;
	}
	if (pol_path_resolve(abs, !!(flags & POL_PATH_NOFOLLOW), buf, PATH_MAX) < 0)
		return 0;
	return !pol_pidx_may_refuse(x, buf, op, flags);
}
