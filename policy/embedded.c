/* embedded.c - the default policy compiled into every binary.
 *
 * policy/default.yaml is checked and turned into a portable snapshot at build time
 * (policy/gen/embed_snapshot.c), so a process loads the defaults without libyaml and
 * without compiling a regex: the hook's start-up budget is a millisecond. */
#include "dcg_policy.h"

#include "internal.h"

extern const char pol_embedded_snapshot[];
extern const char pol_embedded_snapshot_end[];

int pol_load_embedded(struct pol_policy *p)
{
	return pol_snapshot_load(p, pol_embedded_snapshot,
				 (size_t)(pol_embedded_snapshot_end - pol_embedded_snapshot) - 1);
}
