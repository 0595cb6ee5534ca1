/* test_observe.c - observe mode: `mode: observe` and `observe: [...]` turn refusals
 * into logged passes that say what they would have been, from the system file and the
 * user's own files only (never a project file, trusted or not), the system file may
 * forbid it, a user's entry never reaches a system rule, dcg's own rules stay guarded,
 * and a snapshot carries it to the runtime layers. */
#include "dcg_policy.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/dcg-test-observe.XXXXXX";
static char home[200], proj[300], projfile[400], sysfile[400], userfile[400], trustfile[400];

static void mk(const char *p)
{
	cr_assert(mkdir(p, 0700) == 0 || errno == EEXIST, "mkdir %s", p);
}

static void setup(void)
{
	char b[500];

	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(home, sizeof(home), "%s/home", tmpdir);
	snprintf(proj, sizeof(proj), "%s/proj", home);
	snprintf(projfile, sizeof(projfile), "%s/.dcg/policy.yaml", proj);
	snprintf(sysfile, sizeof(sysfile), "%s/etc-policy.yaml", tmpdir);
	snprintf(userfile, sizeof(userfile), "%s/.config/dcg/policy.yaml", home);
	snprintf(trustfile, sizeof(trustfile), "%s/trusted", tmpdir);
	mk(home);
	mk(proj);
	snprintf(b, sizeof(b), "%s/.dcg", proj);
	mk(b);
	snprintf(b, sizeof(b), "%s/.config", home);
	mk(b);
	snprintf(b, sizeof(b), "%s/.config/dcg", home);
	mk(b);
}

static void teardown(void)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmpdir);
	memcpy(tmpdir + strlen(tmpdir) - 6, "XXXXXX", 6);
}

TestSuite(observe, .init = setup, .fini = teardown, .timeout = 60);

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static struct pol_policy *load(void)
{
	struct pol_policy *p = pol_new(0);
	struct pol_env env = {
	    .home = home, .cwd = proj, .system_file = sysfile, .trust_file = trustfile};

	cr_assert_not_null(p);
	pol_load_layers(p, &env);
	return p;
}

/* The decision on c, and what observe mode says it would have been. */
static enum pol_decision cmd(const struct pol_policy *p, const char *c, enum pol_decision *would)
{
	struct pol_result r;
	struct pol_ctx ctx = {.cwd = proj};
	enum pol_decision d = pol_check_command(p, c, strlen(c), &ctx, &r);

	*would = r.observed;
	pol_result_release(&r);
	return d;
}

static size_t ignored(const struct pol_policy *p, const char *what)
{
	size_t n = 0;

	for (size_t i = 0; i < pol_ignored_count(p); i++)
		n += !strcmp(pol_ignored_get(p, i)->what, what);
	return n;
}

Test(observe, user_file_mode_observe_logs_what_it_would_refuse)
{
	enum pol_decision w;
	struct pol_policy *p;

	write_file(userfile, "mode: observe\n");
	p = load();
	cr_assert_eq(pol_observe_mode(p), 2);
	cr_assert_eq(cmd(p, "git reset --hard", &w), POL_LOG);
	cr_assert_eq(w, POL_DENY);
	cr_assert_eq(cmd(p, "git push --force origin main", &w), POL_LOG);
	cr_assert(w == POL_ASK || w == POL_DENY);
	cr_assert_eq(cmd(p, "git status", &w), POL_ALLOW, "quiet stays quiet");
	cr_assert_eq(w, POL_ALLOW);
	/* the guard's own files and commands stay guarded */
	cr_assert_eq(cmd(p, "dcg allow core.git.reset_hard -r x", &w), POL_DENY);
	struct pol_result r;
	struct pol_ctx ctx = {.cwd = proj};
	cr_assert_geq(pol_check_path(p, userfile, POL_OP_WRITE, 0, &ctx, &r), POL_ASK,
		      "the user's policy file while observed");
	pol_result_release(&r);
	pol_free(p);
}

Test(observe, a_project_file_cannot_set_it_trusted_or_not)
{
	enum pol_decision w;
	struct pol_policy *p;
	char real[4096];

	write_file(projfile, "mode: observe\nobserve: [core.git]\n");
	p = load();
	cr_assert_eq(pol_observe_mode(p), 0);
	cr_assert_eq(cmd(p, "git reset --hard", &w), POL_DENY, "untrusted");
	cr_assert_eq(ignored(p, "mode"), 1);
	cr_assert_eq(ignored(p, "observe"), 1);
	pol_free(p);
	cr_assert_eq(pol_trust_add(trustfile, projfile, real, sizeof(real)), 0);
	p = load();
	cr_assert_eq(pol_project_trust(p, NULL, NULL), POL_TRUST_TRUSTED);
	cr_assert_eq(cmd(p, "git reset --hard", &w), POL_DENY, "trusted");
	cr_assert_eq(ignored(p, "mode"), 1);
	pol_free(p);
}

Test(observe, the_system_file_may_forbid_it)
{
	enum pol_decision w;
	struct pol_policy *p;

	write_file(sysfile, "mode: enforce\n");
	write_file(userfile, "mode: observe\nobserve: [core.git]\n");
	p = load();
	cr_assert_eq(pol_observe_mode(p), 0);
	cr_assert_eq(cmd(p, "git reset --hard", &w), POL_DENY);
	cr_assert_eq(ignored(p, "mode"), 1);
	cr_assert_eq(ignored(p, "observe"), 1);
	pol_free(p);
	/* and may set it itself */
	write_file(sysfile, "mode: observe\n");
	write_file(userfile, "");
	p = load();
	cr_assert_eq(cmd(p, "git reset --hard", &w), POL_LOG);
	cr_assert_eq(w, POL_DENY);
	pol_free(p);
}

Test(observe, per_pack_and_rule_entries)
{
	enum pol_decision w;
	struct pol_policy *p;

	write_file(userfile, "observe: [core.git, system.kill_all]\nrules:\n  - id: mine.frob\n"
			     "    pattern: '^frobnicate'\n    reason: frobs\n    severity: high\n");
	p = load();
	cr_assert_eq(pol_observe_mode(p), 1);
	cr_assert_eq(cmd(p, "git reset --hard", &w), POL_LOG);
	cr_assert_eq(w, POL_DENY);
	cr_assert_eq(cmd(p, "kill -9 -1", &w), POL_LOG, "a rule named alone");
	cr_assert_eq(cmd(p, "frobnicate", &w), POL_DENY, "another rule still refuses");
	/* a real refusal in the same command is not hidden by an observed one */
	cr_assert_eq(cmd(p, "git reset --hard && frobnicate", &w), POL_DENY);
	pol_free(p);
}

Test(observe, a_users_entry_never_reaches_a_system_rule)
{
	enum pol_decision w;
	struct pol_policy *p;

	write_file(sysfile, "rules:\n  - id: site.no_deploy\n    pattern: '^deploy\\b'\n"
			    "    reason: deploys go through CI\n    severity: high\n");
	write_file(userfile, "mode: observe\nobserve: [site]\n");
	p = load();
	cr_assert_eq(cmd(p, "deploy prod", &w), POL_DENY);
	cr_assert_eq(cmd(p, "git reset --hard", &w), POL_LOG);
	pol_free(p);
}

Test(observe, a_snapshot_carries_it)
{
	enum pol_decision w;
	struct pol_policy *p, *q;
	size_t len;
	char *snap;

	write_file(userfile, "observe: [core.git]\n");
	p = load();
	snap = pol_snapshot_save(p, &len);
	cr_assert_not_null(snap);
	q = pol_new(0);
	cr_assert_eq(pol_snapshot_load(q, snap, len), 0);
	cr_assert_eq(cmd(q, "git reset --hard", &w), POL_LOG);
	cr_assert_eq(w, POL_DENY);
	cr_assert_eq(cmd(q, "kill -9 -1", &w), POL_DENY);
	free(snap);
	pol_free(q);
	pol_free(p);
}
