/* embedded.c - the default policy compiled into every binary.
 *
 * policy/default.yaml is checked and turned into a portable snapshot at build time
 * (policy/gen/embed_snapshot.c), with its regexes compiled and serialized by PCRE2, so
 * a process loads the defaults without libyaml and without compiling a regex: the
 * hook's start-up budget is a millisecond. A snapshot made from a policy holding these
 * rules (dcg run's) names the same version, so its processes use the same codes. */
#include "dcg_policy.h"

#include <errno.h>
#include <string.h>

#include "internal.h"

extern const char pol_embedded_snapshot[];
extern const char pol_embedded_snapshot_end[];
extern const uint8_t pol_embedded_codes[];
extern const uint8_t pol_embedded_codes_end[];
extern const char pol_embedded_rules[];
extern const char pol_embedded_rules_end[];
extern const char pol_embedded_sources[];
extern const char pol_embedded_sources_end[];

#define VERSION_LEN 16

/* The embedded snapshot, pre-split at build time (pol_snapshot_split), without the
 * NUL embed.S puts after it. */
static size_t split_len(void)
{
	return (size_t)(pol_embedded_snapshot_end - pol_embedded_snapshot) - 1;
}

/* Its first record is V, the version: "V" and the version are the first strings. */
static const char *split_version(void)
{
	const uint32_t *h = (const void *)pol_embedded_snapshot;
	const char *str;

	if (split_len() < 16 + 3 * 4 || h[0] != POL_SPLIT_MAGIC || h[2] < 3 || h[4] < 2 ||
	    split_len() - 16 < (size_t)h[2] * 4 || h[6] + VERSION_LEN >= h[3])
		return NULL;
	str = (const char *)(h + 4 + h[2]);
	return str[h[5]] == 'V' && strlen(str + h[6]) == VERSION_LEN ? str + h[6] : NULL;
}

const uint32_t *pol_embedded_codes_get(const char **version)
{
	const char *v = split_version();
	const uint32_t *w = (const uint32_t *)(const void *)pol_embedded_codes; /* .balign 16 */
	size_t len = (size_t)(pol_embedded_codes_end - pol_embedded_codes);

	/* the container's words, and its set, are where they say (each code's offsets are
	 * checked when it is decoded, pol_embedded_code: not all of them at every start) */
	if (len < 20 || !v || w[0] != POL_CODES_MAGIC || w[1] > len / 4 - 5 ||
	    (size_t)w[3] != len - ((size_t)w[1] + 5) * 4 || w[2] > w[3])
		return NULL;
	*version = v;
	return w;
}

void pol_embedded_attach(struct pol_policy *p, size_t first)
{
	const char *mine = NULL;
	const uint32_t *blob = pol_embedded_codes_get(&mine);
	int32_t k = 0, n;

	if (!blob || p->codes_blob || !p->embedded_version ||
	    strcmp(p->embedded_version, mine) != 0)
		return;
	/* The container holds the embedded regex rules' codes in load order: numbered in
	 * one pass (the origin is interned: the rule before's is most often the same). */
	n = (int32_t)blob[1];
	const char *emb = NULL;
	for (size_t i = first; i < p->n_rules; i++) {
		struct pol_rule *r = &pol_rules(p)[i];
		int is =
		    r->origin && r->origin == emb
			? (r->kind == POL_RULE_COMMAND || r->kind == POL_RULE_SCRIPT) && r->pattern
			: pol_embedded_regex(r);
		if (is) {
			emb = r->origin;
			r->code_index = k < n ? k : -1;
			k++;
		}
	}
	if (n <= 0 || n != k) { /* not this build's rules after all */
		for (size_t i = first; i < p->n_rules; i++)
			pol_rules(p)[i].code_index = -1;
		return;
	}
	p->codes_blob = blob;
	p->n_codes = n;
}

void pol_embedded_attach_numbered(struct pol_policy *p, size_t first, uint32_t n)
{
	const char *mine = NULL;
	const uint32_t *blob = pol_embedded_codes_get(&mine);

	if (blob && !p->codes_blob && p->embedded_version &&
	    strcmp(p->embedded_version, mine) == 0 && n > 0 && blob[1] == n) {
		p->codes_blob = blob;
		p->n_codes = (int32_t)n;
		return;
	}
	for (size_t i = first; i < p->n_rules; i++)
		pol_rules(p)[i].code_index = -1;
}

void pol_embedded_attach_pending(const struct pol_policy *cp)
{
	struct pol_policy *p = (struct pol_policy *)cp;
	const char *mine = NULL;
	const uint32_t *blob;
	uint32_t n = p->codes_pending;

	if (!n)
		return;
	p->codes_pending = 0;
	blob = pol_embedded_codes_get(&mine);
	if (blob && !p->codes_blob && p->embedded_version &&
	    strcmp(p->embedded_version, mine) == 0 && blob[1] == n) {
		p->codes_blob = blob;
		p->n_codes = (int32_t)n;
	}
}

/* A lazy load (every command's: hook_policy_open) defers the rule image's records;
 * any other, or one the image does not fit, builds each rule from the split form. The
 * image is this binary's own, checked and sealed when it was built (embed_snapshot):
 * a start does not check it again. */
int pol_load_embedded(struct pol_policy *p)
{
	int rc = pol_snapshot_load_sealed(p, pol_embedded_snapshot, split_len(), pol_embedded_rules,
					  (size_t)(pol_embedded_rules_end - pol_embedded_rules));

	return rc != -EAGAIN ? rc : pol_snapshot_load_split(p, pol_embedded_snapshot, split_len());
}

const char *pol_embedded_source(size_t i, const char **name, size_t *len)
{
	const char *s = pol_embedded_sources, *end = pol_embedded_sources_end;

	/* each file: its name, a NUL, its text, a NUL; an empty name ends the list */
	for (;;) {
		const char *text, *stop;

		if (s >= end || !*s)
			return NULL;
		text = memchr(s, 0, (size_t)(end - s));
		if (!text++ || text >= end || !(stop = memchr(text, 0, (size_t)(end - text))))
			return NULL;
		if (!i--) {
			*name = s;
			*len = (size_t)(stop - text);
			return text;
		}
		s = stop + 1;
	}
}
