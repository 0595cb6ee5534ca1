/* tmp_home.h - a suite's scratch folder, for the test files whose suites decide paths
 * under a home and a project of their own.
 *
 * Define TMP_TAG ("decide") before including it, once, in a test file: setup() makes
 * /tmp/dcg-test-TAG.XXXXXX with home/ and proj/ inside and leaves their canonical paths
 * (the temporary folder resolved, so that expected paths compare as the policy sees
 * them) in home and root; teardown() removes the whole folder. Hand them to TestSuite.
 * A skipped test (cr_skip_test) does not reach the suite's .fini, so setup() also
 * registers the removal with atexit(); it runs once. */
#ifndef DCG_TESTS_TMP_HOME_H
#define DCG_TESTS_TMP_HOME_H

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char tmpdir[] = "/tmp/dcg-test-" TMP_TAG ".XXXXXX";
static char home[1024], root[1024];

static void teardown(void);

static void setup(void)
{
	char real[900];

	cr_assert_not_null(mkdtemp(tmpdir));
	atexit(teardown);
	cr_assert_not_null(realpath(tmpdir, real));
	snprintf(home, sizeof(home), "%s/home", real);
	snprintf(root, sizeof(root), "%s/proj", real);
	cr_assert_eq(mkdir(home, 0700), 0);
	cr_assert_eq(mkdir(root, 0700), 0);
}

static void teardown(void)
{
	static int done;
	char cmd[PATH_MAX + 32];

	if (done++)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmpdir);
}

/* Writes s into out with $H, $R and $T replaced by home, root and their parent (the
 * scratch folder): how the test tables name paths of this run. */
static inline void tmp_expand(const char *s, char *out, size_t size)
{
	char parent[PATH_MAX];
	size_t o = 0;

	snprintf(parent, sizeof(parent), "%s", root);
	*strrchr(parent, '/') = '\0';
	while (*s && o + 1 < size) {
		const char *rep = s[0] != '$'	? NULL
				  : s[1] == 'H' ? home
				  : s[1] == 'R' ? root
				  : s[1] == 'T' ? parent
						: NULL;

		if (rep) {
			size_t n = strlen(rep);

			cr_assert_lt(o + n, size);
			memcpy(out + o, rep, n);
			o += n;
			s += 2;
		} else {
			out[o++] = *s++;
		}
	}
	out[o] = '\0';
}

#endif
