/* rundir.h - what `dcg run` and `dcg sandbox` both hand the guarded processes: the
 * guard library to preload, and the policy's snapshot in dcg's private folder.
 * Program-level helpers: they may print nothing and they do not exit. */
#ifndef DCG_RUNDIR_H
#define DCG_RUNDIR_H

#include <stddef.h>

#include "dcg_policy.h"

/* The guard library: $DCG_PRELOAD, else libdcg-preload.so next to the dcg binary, else
 * ../lib/dcg/ beside it. Writes its path into out (at least PATH_MAX bytes). Returns 0
 * or -ENOENT. */
int run_find_preload(char *out, size_t size);

/* Writes p's snapshot as $XDG_RUNTIME_DIR/dcg/snap-HASH (else /tmp/dcg-UID/), a folder
 * of ours (0700, refused when another user owns it or may write in it) that p gains as
 * a read-only path first (origin names who asks, e.g. "<dcg run>"). The file is named by
 * its content, kept for reuse, and replaced atomically; files unused for a week go. The
 * snapshot must load back with every rule as saved, or it is not written. out gets its
 * path. Returns 0, -EPERM (no private folder), -EINVAL (no faithful snapshot), or
 * another negative errno: the guarded processes then load the policy files themselves. */
int run_write_snapshot(struct pol_policy *p, const char *origin, char *out, size_t size);

#endif /* DCG_RUNDIR_H */
