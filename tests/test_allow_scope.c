/* test_allow_scope.c - allow entries with paths scope the targets a command touches,
 * resolved as the path rules resolve them, wherever the agent stands.
 *
 * A home with a project (build/, a link to Documents), Documents and scratch/ in a
 * temporary folder; the allow entries name the build folder and scratch. Each row
 * is a command, the folder it runs in, and whether it may pass. */
#include "dcg_policy.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/dcg-test-scope.XXXXXX";
static char home[600];

static void mkdirs(const char *rel)
{
	char b[PATH_MAX], *s;

	snprintf(b, sizeof(b), "%s/%s", home, rel);
	for (s = b + strlen(home) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(b, 0700);
		*s = '/';
	}
	mkdir(b, 0700);
}

static void setup(void)
{
	char real[500], a[PATH_MAX], b[PATH_MAX];

	cr_assert_not_null(mkdtemp(tmpdir));
	cr_assert_not_null(realpath(tmpdir, real));
	snprintf(home, sizeof(home), "%s/home", real);
	mkdir(home, 0700);
	mkdirs("proj/build/sub");
	mkdirs("proj/src");
	mkdirs("Documents");
	mkdirs("data/scratch-real");
	/* proj/docs -> ~/Documents: inside the project by name, outside in fact */
	snprintf(a, sizeof(a), "%s/Documents", home);
	snprintf(b, sizeof(b), "%s/proj/build/docs", home);
	cr_assert_eq(symlink(a, b), 0);
	/* ~/scratch -> ~/data/scratch-real: the entry names the link */
	snprintf(a, sizeof(a), "%s/data/scratch-real", home);
	snprintf(b, sizeof(b), "%s/scratch", home);
	cr_assert_eq(symlink(a, b), 0);
}

static void teardown(void)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmpdir);
}

TestSuite(allow_scope, .init = setup, .fini = teardown, .timeout = 30);

static const char policy_yaml[] =
    "rules:\n"
    "  - {id: t.rmrf, pattern: '^rm\\s+-rf\\b', reason: recursive delete}\n"
    "  - {id: t.reset, pattern: '^git reset --hard', reason: discards work}\n"
    "  - {id: t.unscoped, pattern: '^shred\\b', reason: shreds}\n"
    "readOnlyPaths: [~/proj/src/]\n"
    "allow:\n"
    "  - {rule: t.rmrf, reason: build output, paths: ['~/proj/build/**', '~/scratch/**']}\n"
    "  - {rule: t.reset, reason: scratch repos, paths: ['~/scratch/**']}\n"
    "  - {rule: default.read_only.1, reason: never used, paths: ['~/proj/build/**']}\n";

static struct pol_policy *policy(void)
{
	struct pol_policy *p = pol_new(0);
	char root[PATH_MAX];

	cr_assert_not_null(p);
	snprintf(root, sizeof(root), "%s/proj", home);
	cr_assert_eq(pol_set_home(p, home), 0);
	cr_assert_eq(pol_set_root(p, root), 0);
	cr_assert_eq(pol_load_buffer(p, "scope.yaml", policy_yaml, strlen(policy_yaml)), 0);
	cr_assert_eq(pol_diag_count(p), 0, "%s", pol_diag_count(p) ? pol_diag_get(p, 0)->msg : "");
	return p;
}

#define TRUE8  "true; true; true; true; true; true; true; true; "
#define TRUE32 TRUE8 TRUE8 TRUE8 TRUE8

struct row {
	const char *cmd;
	const char *cwd; /* relative to home */
	enum pol_decision want;
	const char *why;
};

static const struct row rows[] = {
    /* inside, however it is written */
    {"rm -rf build", "proj", POL_ALLOW, "relative target inside"},
    {"rm -rf build/", "proj", POL_ALLOW, "trailing slash"},
    {"rm -rf ./build/sub", "proj", POL_ALLOW, "beneath"},
    {"rm -rf build/*", "proj", POL_ALLOW, "a glob beneath"},
    {"rm -rf ~/proj/build", "proj", POL_ALLOW, "tilde"},
    {"rm -rf $HOME/proj/build/sub", "proj", POL_ALLOW, "$HOME"},
    {"rm -rf sub", "proj/build", POL_ALLOW, "relative to a deeper folder"},
    {"sudo rm -rf build", "proj", POL_ALLOW, "through a wrapper"},
    /* wherever the agent stands */
    {"rm -rf ~/proj/build", "Documents", POL_ALLOW, "target inside, agent outside"},
    {"rm -rf ../proj/build", "Documents", POL_ALLOW, "relative from outside"},
    {"rm -rf ~/Documents", "proj", POL_DENY, "agent inside, target outside"},
    {"rm -rf ../Documents", "proj/build", POL_DENY, "relative walk out"},
    {"rm -rf build/../../Documents", "proj", POL_DENY, "dot-dot out"},
    {"rm -rf build ~/Documents", "proj", POL_DENY, "one target of two outside"},
    {"rm -rf build; rm -rf ~/Documents", "proj", POL_DENY, "a second command outside"},
    {"rm -rf ~/Documents; rm -rf build", "proj", POL_DENY, "the first command outside"},
    /* symlinks: judged where they lead */
    {"rm -rf build/docs/", "proj", POL_DENY, "a link inside to a folder outside"},
    {"rm -rf build/docs/x", "proj", POL_DENY, "through a link inside"},
    {"rm -rf ~/scratch/tmp", "Documents", POL_ALLOW, "the entry names a link"},
    {"rm -rf ~/data/scratch-real/tmp", "Documents", POL_ALLOW, "the link's target"},
    /* unknowable targets */
    {"rm -rf build $X", "proj", POL_DENY, "a variable"},
    {"rm -rf \"$(pwd)/build\"", "proj", POL_DENY, "a command substitution"},
    {"rm -rf `pwd`/build", "proj", POL_DENY, "backticks"},
    /* a command without paths: the folder it runs in */
    {"git reset --hard", "scratch", POL_ALLOW, "in scratch"},
    {"git reset --hard", "scratch/deep", POL_ALLOW, "beneath scratch"},
    {"git reset --hard", "proj", POL_DENY, "outside scratch"},
    {"cd ~/proj && git reset --hard", "scratch", POL_DENY, "after a cd elsewhere"},
    {"git -C ~/proj reset --hard", "scratch", POL_DENY, "with -C elsewhere"},
    /* the analyser sends a repeated unit once: a target it dropped is not "no target" */
    {TRUE32 "rm -r ~/Documents; rm -rf ~/Documents", "proj/build", POL_DENY,
     "a target dropped as a repeat"},
    {TRUE32 "rm -r ~/Documents; rm -rf build ~/Documents", "proj", POL_DENY,
     "one target of two dropped as a repeat"},
    /* an entry with paths for one rule lifts no other */

    {"shred -u build/x", "proj", POL_DENY, "a rule without an entry"},
};

Test(allow_scope, entries_with_paths_scope_what_the_command_touches)
{
	struct pol_policy *p = policy();
	int bad = 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char cwd[PATH_MAX];
		struct pol_result r;
		struct pol_ctx ctx = {.cwd = cwd};
		enum pol_decision d;

		snprintf(cwd, sizeof(cwd), "%s/%s", home, rows[i].cwd);
		mkdirs(rows[i].cwd);
		d = pol_check_command(p, rows[i].cmd, strlen(rows[i].cmd), &ctx, &r);
		if (d != rows[i].want) {
			cr_log_error("%s (in ~/%s: %s): want %s, got %s (%s)", rows[i].cmd,
				     rows[i].cwd, rows[i].why, pol_decision_name(rows[i].want),
				     pol_decision_name(d), r.rule_id ? r.rule_id : "-");
			bad++;
		}
		if (d == POL_ALLOW && rows[i].want == POL_ALLOW)
			cr_expect_eq(r.allowed_by_allowlist, 1, "%s", rows[i].cmd);
		pol_result_release(&r);
	}
	cr_assert_eq(bad, 0, "%d of %zu rows decided otherwise", bad,
		     sizeof(rows) / sizeof(rows[0]));
	pol_free(p);
}

Test(allow_scope, path_rule_entries_scope_the_path_checked)
{
	struct pol_policy *p = policy();
	const char *yaml = "readOnlyPaths: [~/proj/build/]\n"
			   "allow: [{rule: 'policy.read_only.*', reason: gen, "
			   "paths: ['~/proj/build/gen/**']}]\n";
	char path[PATH_MAX];
	struct pol_result r;

	cr_assert_eq(pol_load_buffer(p, "more.yaml", yaml, strlen(yaml)), 0);
	mkdirs("proj/build/gen");
	snprintf(path, sizeof(path), "%s/proj/build/gen/out.c", home);
	cr_expect_eq(pol_check_path(p, path, POL_OP_WRITE, 0, NULL, &r), POL_ALLOW);
	snprintf(path, sizeof(path), "%s/proj/build/main.o", home);
	cr_expect_eq(pol_check_path(p, path, POL_OP_WRITE, 0, NULL, &r), POL_DENY);
	/* a link in the allowed folder to a protected one is judged where it leads */
	snprintf(path, sizeof(path), "%s/proj/src", home);
	char link[PATH_MAX];
	snprintf(link, sizeof(link), "%s/proj/build/gen/src", home);
	cr_assert_eq(symlink(path, link), 0);
	snprintf(path, sizeof(path), "%s/proj/build/gen/src/main.c", home);
	cr_expect_eq(pol_check_path(p, path, POL_OP_WRITE, 0, NULL, &r), POL_DENY);
	pol_free(p);
}
