/* embedded.c - the default policy compiled into every binary.
 *
 * policy/default.yaml is checked and turned into a portable snapshot at build time
 * (policy/gen/embed_snapshot.c), with its regexes compiled and serialized by PCRE2, so
 * a process loads the defaults without libyaml and without compiling a regex: the
 * hook's start-up budget is a millisecond. A snapshot made from a policy holding these
 * rules (dcg run's) names the same version, so its processes use the same codes. */
#include "dcg_policy.h"

#include <string.h>

#include "internal.h"

extern const char pol_embedded_snapshot[];
extern const char pol_embedded_snapshot_end[];
extern const uint8_t pol_embedded_codes[];
extern const uint8_t pol_embedded_codes_end[];

#define SNAP_HEAD   POL_SNAP_MAGIC "V\t"
#define VERSION_LEN 16

const uint8_t *pol_embedded_codes_get(const char **version)
{
	static char v[VERSION_LEN + 1];
	size_t hl = strlen(SNAP_HEAD);

	if (pol_embedded_codes_end - pol_embedded_codes < 16 ||
	    (size_t)(pol_embedded_snapshot_end - pol_embedded_snapshot) < hl + VERSION_LEN ||
	    memcmp(pol_embedded_snapshot, SNAP_HEAD, hl) != 0)
		return NULL;
	if (!v[0])
		memcpy(v, pol_embedded_snapshot + hl, VERSION_LEN);
	*version = v;
	return pol_embedded_codes;
}

void pol_embedded_attach(struct pol_policy *p, size_t first)
{
	const char *mine = NULL;
	const uint8_t *blob = pol_embedded_codes_get(&mine);
	int32_t k = 0, n;

	if (!blob || p->codes_blob || !p->embedded_version ||
	    strcmp(p->embedded_version, mine) != 0)
		return;
	/* The compiled set holds the embedded regex rules' codes in load order. */
	n = pcre2_serialize_get_number_of_codes(blob);
	for (size_t i = first; i < p->n_rules; i++)
		if (pol_embedded_regex(&p->rules[i]))
			k++;
	if (n <= 0 || n != k)
		return;
	k = 0;
	for (size_t i = first; i < p->n_rules; i++)
		if (pol_embedded_regex(&p->rules[i]))
			p->rules[i].code_index = k++;
	p->codes_blob = blob;
	p->n_codes = n;
}

int pol_load_embedded(struct pol_policy *p)
{
	return pol_snapshot_load(p, pol_embedded_snapshot,
				 (size_t)(pol_embedded_snapshot_end - pol_embedded_snapshot) - 1);
}
