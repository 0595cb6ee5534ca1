/* fixture_policies.h - every policy file of tests/data/policy/loader and
 * tests/data/policy/damage-control that loads (some there are meant to fail), for the
 * tests that compare a guest-side index with the engine on each (test_pathidx,
 * test_argvidx). */
#ifndef DCG_TESTS_FIXTURE_POLICIES_H
#define DCG_TESTS_FIXTURE_POLICIES_H

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "dcg_policy.h"

/* Calls each(p, file, ctx) for every *.yaml of the two folders that loads into a
 * policy from make() (the test's home and root); returns how many loaded. */
static inline unsigned
fixture_policies_each(struct pol_policy *(*make)(void),
		      void (*each)(struct pol_policy *p, const char *file, void *ctx), void *ctx)
{
	static const char *const dirs[] = {"tests/data/policy/loader",
					   "tests/data/policy/damage-control"};
	unsigned files = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;

		if (!d)
			continue;
		while ((e = readdir(d))) {
			char file[PATH_MAX];
			struct pol_policy *p;
			size_t n = strlen(e->d_name);

			if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0)
				continue;
			snprintf(file, sizeof(file), "%s/%s", dirs[i], e->d_name);
			p = make();
			if (pol_load_file(p, file) == 0) {
				each(p, file, ctx);
				files++;
			}
			pol_free(p);
		}
		closedir(d);
	}
	return files;
}

#endif
