/* dc_fixture.h - the two damage-control files the compatibility tests load.
 *
 * DC_OWN_FIXTURE is the project's own file in the damage-control schema
 * (tests/data/policy/damage-control/patterns.yaml): every clone tests with it.
 * The shared fixture, damage-control's own default patterns.yaml, lives outside the
 * repository; `make test` passes its path in DCG_DC_FIXTURE (Makefile variable
 * DC_FIXTURE, default ../shared/fixtures/damage-control-patterns.yaml). A test that
 * needs it and does not find it is skipped, saying so. */
#ifndef DCG_TESTS_DC_FIXTURE_H
#define DCG_TESTS_DC_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define DC_OWN_FIXTURE "tests/data/policy/damage-control/patterns.yaml"

/* The shared fixture's path, or skip the calling test. */
static inline const char *dc_shared_fixture(void)
{
	const char *f = getenv("DCG_DC_FIXTURE");

	if (!f || !*f) {
		fprintf(stderr, "SKIP: DCG_DC_FIXTURE is not set: shared damage-control "
				"fixture test skipped (make test sets it)\n");
		cr_skip_test("DCG_DC_FIXTURE not set");
	}
	if (access(f, R_OK) != 0) {
		fprintf(stderr, "SKIP: %s absent: shared damage-control fixture test skipped\n", f);
		cr_skip_test("%s absent", f);
	}
	return f;
}

#endif
