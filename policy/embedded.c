/* embedded.c - the default policy compiled into every binary.
 *
 * policy/default.yaml is checked and turned into a portable snapshot at build time
 * (policy/gen/embed_snapshot.c), so a process loads the defaults without libyaml and
 * without compiling a regex: the hook's start-up budget is a millisecond. */
#include "dcg_policy.h"

#include "internal.h"

extern const char pol_embedded_snapshot[];
extern const char pol_embedded_snapshot_end[];
extern const uint8_t pol_embedded_codes[];
extern const uint8_t pol_embedded_codes_end[];

int pol_load_embedded(struct pol_policy *p)
{
	size_t first = p->n_rules;
	int32_t k = 0, n;
	int rc;

	rc = pol_snapshot_load(p, pol_embedded_snapshot,
			       (size_t)(pol_embedded_snapshot_end - pol_embedded_snapshot) - 1);
	if (rc < 0 || pol_embedded_codes_end - pol_embedded_codes < 16)
		return rc;
	/* The compiled set holds the embedded regex rules' codes in load order. */
	n = pcre2_serialize_get_number_of_codes(pol_embedded_codes);
	for (size_t i = first; i < p->n_rules; i++)
		if (pol_embedded_regex(&p->rules[i]))
			k++;
	if (n <= 0 || n != k || p->codes_blob)
		return rc;
	k = 0;
	for (size_t i = first; i < p->n_rules; i++)
		if (pol_embedded_regex(&p->rules[i]))
			p->rules[i].code_index = k++;
	p->codes_blob = pol_embedded_codes;
	p->n_codes = n;
	return rc;
}
