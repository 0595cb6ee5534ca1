/* argvidx.h - the argv filter of the preload's lean guest.
 *
 * `dcg run` writes it beside the policy snapshot ($DCG_SNAPSHOT.argv). It holds what
 * the engine's own command-rule prefilter (decide.c) reads of every active command
 * rule: the two bytes an anchored rule's match must start with (pol_pattern_start_keys)
 * and the literal every match must hold (the rule's keyword), plus a filter of the
 * command names the shell analyser treats specially (its command table: wrappers,
 * shells, interpreters, make, xargs, find, git, ...; the shell's reserved words).
 *
 * An exec whose argv is plain words (what pol_check_argv() joins without quoting), whose
 * program name the analyser does not treat specially, and for whose joined text no
 * rule's prefilter passes, is one pol_check_argv() allows: the analyser makes of it one
 * command unit (plus the program's path, which the path index judges) and no rule can
 * match that unit. pol_aidx_allows() says so; anything else goes to the engine.
 * tests/test_argvidx.c checks the claim against pol_check_argv() on the corpus.
 * Nothing here allocates after pol_aidx_open(); no PCRE2, no libyaml.
 */
#ifndef DCG_POLICY_ARGVIDX_H
#define DCG_POLICY_ARGVIDX_H

#include <stddef.h>
#include <stdint.h>

#include "dcg_policy.h"

struct pol_pidx;

#define POL_AIDX_MAGIC "DCGAIDX1"
/* The longest joined text the guest judges (longer argvs go to the engine). */
#define POL_AIDX_TEXT_MAX 2048

struct pol_aidx {
	void *block;		  /* the copy pol_aidx_open() made (the caller's alloc) */
	const uint32_t *special;  /* a two-hash filter of special names, 8192 bits */
	const uint32_t *anchored; /* start key << 16 | keyword id, sorted */
	size_t n_anchored;
	const uint32_t *floating; /* keyword ids of the rules with no start key */
	size_t n_floating;
	const uint32_t *kw; /* per keyword id: offset, length in kwstr */
	size_t n_kw;
	const char *kwstr;
};

/* The keyword id of a rule without a keyword: its prefilter always passes. */
#define POL_AIDX_ALWAYS 0xffffu

/* The filter of p's active command rules, malloc'ed, *len bytes; NULL when out of
 * memory. */
char *pol_aidx_save(const struct pol_policy *p, size_t *len);
/* Reads a filter from buf (len bytes), copied into one block from alloc (buf may go).
 * Returns 0, -EINVAL for a malformed filter, -ENOMEM. */
int pol_aidx_open(struct pol_aidx *x, const void *buf, size_t len, void *(*alloc)(size_t));
/* Whether pol_check_argv() on argv, with the runtime context (POL_CTX_RUNTIME), is
 * known to allow with nothing to log: 1 yes; 0 ask the engine. A program named by a
 * path (argv[0] with a '/') needs its path settled: as settled, a path the caller's
 * index has already found allowed to be executed (NULL: none), or else by paths, the
 * path index of the same policy, as written (absolute ones only); NULL paths leaves
 * those to the engine. */
int pol_aidx_allows(const struct pol_aidx *x, const struct pol_pidx *paths, char *const argv[],
		    const char *settled);

#endif /* DCG_POLICY_ARGVIDX_H */
