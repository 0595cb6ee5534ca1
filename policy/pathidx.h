/* pathidx.h - the compact path index of the preload's lean guest.
 *
 * `dcg run` writes it beside the policy snapshot ($DCG_SNAPSHOT.paths). It holds the
 * expanded glob of every positive path rule (and its canonical form when that
 * differs), the rule's kind, and the buckets of the path index (pol_path_index_build)
 * over them. A guarded process that has it answers a path check without the policy
 * engine when no rule of the kinds the operation concerns can cover the path: then
 * pol_check_path() allows it too (a refusal needs a positive rule that covers the
 * path; owners, exclusions and the allowlist only ever lift one). Anything else goes
 * to the engine. Nothing here allocates after pol_pidx_open(); no PCRE2, no libyaml.
 */
#ifndef DCG_POLICY_PATHIDX_H
#define DCG_POLICY_PATHIDX_H

#include <stddef.h>
#include <stdint.h>

#include "dcg_policy.h"

struct pol_pathpat;

#define POL_PIDX_MAGIC "DCGPIDX2"

struct pol_pidx_bucket;

struct pol_pidx {
	const struct pol_pidx_bucket *buckets; /* the non-empty ones, by number */
	size_t n_buckets;
	uint64_t present[53]; /* a bit per bucket of the path index (POL_PI_BUCKETS) */
	const uint32_t *refs; /* pattern numbers, bucket by bucket */
	struct pol_pathpat *pats;
	const unsigned char *kinds; /* pats[i]'s enum pol_path_kind */
	size_t n_pats;
};

/* The index of p's active path rules, malloc'ed, *len bytes; NULL when out of memory
 * or when a rule cannot be indexed (its glob was never expanded). */
char *pol_pidx_save(const struct pol_policy *p, size_t *len);
/* Reads an index from buf (len bytes), copied with its pattern array into one block
 * from alloc (x->pats; buf may go). Returns 0, -EINVAL for a malformed index, -ENOMEM. */
int pol_pidx_open(struct pol_pidx *x, const void *buf, size_t len, void *(*alloc)(size_t));
/* Whether a path rule may refuse op on abs_path (absolute, in normal form; flags as
 * for pol_check_path: POL_PATH_IS_DIR, POL_PATH_SESSION_NEW, POL_PATH_CREATE_EXCL). 0
 * means pol_check_path() on this path allows it. */
int pol_pidx_may_refuse(const struct pol_pidx *x, const char *abs_path, enum pol_op op,
			unsigned flags);

/* The preload's whole question: does the index settle op on path (relative to base,
 * an absolute folder) as allowed? The path as written in normal form and, unless
 * flags hold POL_PATH_CANONICAL, where its symlinks lead (resolved as pol_check_path
 * resolves them) must both be out of reach of every rule. 1: pol_check_path() allows
 * it; 0: ask the engine (a rule may cover it, a path starting with ~, a path that
 * cannot be normalized or resolved here). */
int pol_pidx_allows(const struct pol_pidx *x, const char *base, const char *path, enum pol_op op,
		    unsigned flags);

/* glob.c: the buckets of the path index (internal.h, POL_PI_*) that path selects, as
 * pol_path_sig_init() gathers them but without the signature bits, and only those
 * whose bit is set in present (a bit per bucket; NULL: all of them): at most max into
 * out; returns their count, or max + 1 when they do not fit. */
unsigned pol_path_buckets(const char *abs_path, const uint64_t *present, uint16_t *out,
			  unsigned max);

#endif /* DCG_POLICY_PATHIDX_H */
