/* test_decide.c - decisions: the record, severities, the worst decision winning, hostile
 * input, regex limits, and a sample of the damage-control fixture deciding as its
 * authors meant. Regex rules are tried with POL_CTX_NO_ANALYSIS (raw matching), so these
 * tests do not depend on the shell analyser, except where said. */
#include "dcg_policy.h"
#include "dc_fixture.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_TAG "decide"
#include "tmp_home.h"

TestSuite(decide, .init = setup, .fini = teardown, .timeout = 60);

static struct pol_policy *new_policy(void)
{
	struct pol_policy *p = pol_new(0);

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, home), 0);
	cr_assert_eq(pol_set_root(p, root), 0);
	return p;
}

static struct pol_policy *fixture_policy(const char *file)
{
	struct pol_policy *p = new_policy();

	cr_assert_eq(pol_load_file(p, file), 0);
	cr_assert_eq(pol_diag_count(p), 0);
	return p;
}

static struct pol_policy *yaml_policy(const char *yaml)
{
	struct pol_policy *p = new_policy();

	cr_assert_eq(pol_load_buffer(p, "decide-test.yaml", yaml, strlen(yaml)), 0);
	cr_assert_eq(pol_diag_count(p), 0, "%s", pol_diag_count(p) ? pol_diag_get(p, 0)->msg : "");
	return p;
}

static enum pol_decision raw(const struct pol_policy *p, const char *c, struct pol_result *r)
{
	struct pol_ctx ctx = {.cwd = root, .flags = POL_CTX_NO_ANALYSIS};

	return pol_check_command(p, c, strlen(c), &ctx, r);
}

/* ---- the damage-control fixture ------------------------------------------------------- */

/* pattern: a fragment of the regex that must decide, or NULL for allow */
struct fixture_cmd {
	const char *cmd;
	enum pol_decision want;
	const char *pattern;
};

/* The shared fixture: damage-control's own default patterns.yaml. */
static const struct fixture_cmd fixture_cmds[] = {
    {"rm -rf /tmp/build", POL_DENY, "\\brm\\s+"},
    {"RM -RF /tmp/build", POL_DENY, "\\brm\\s+"},
    {"rm --recursive old/", POL_DENY, "\\brm"},
    {"sudo rm /etc/hosts", POL_DENY, "sudo"},
    {"chmod 777 script.sh", POL_DENY, "777"},
    {"chmod -R 777 /srv", POL_DENY, "777"},
    {"git reset --hard HEAD~1", POL_DENY, "reset"},
    {"Git Reset --HARD", POL_DENY, "reset"},
    {"git push --force origin main", POL_DENY, "--force(?!-with-lease)"},
    {"git push -f origin main", POL_DENY, "-f\\b"},
    {"git push --force-with-lease origin main", POL_ALLOW, NULL},
    {"git push origin main", POL_ALLOW, NULL},
    {"git clean -fd", POL_DENY, "clean"},
    {"git stash clear", POL_DENY, "stash\\s+clear"},
    {"git checkout -- .", POL_ASK, "checkout"},
    {"git restore .", POL_ASK, "restore"},
    {"git stash drop stash@{0}", POL_ASK, "stash\\s+drop"},
    {"git branch -D feature", POL_ASK, "branch"},
    {"git push origin --delete feature", POL_ASK, "--delete"},
    {"git push origin :feature", POL_ASK, ":\\S+"},
    {"mkfs.ext4 /dev/sdb1", POL_DENY, "mkfs"},
    {"dd if=/dev/zero of=/dev/sda bs=1M", POL_DENY, "of=/dev/"},
    {"kill -9 -1", POL_DENY, "kill"},
    {"aws s3 rm s3://bucket --recursive", POL_DENY, "s3\\s+rm"},
    {"terraform destroy -auto-approve", POL_DENY, "terraform"},
    {"TERRAFORM DESTROY", POL_DENY, "terraform"},
    {"kubectl delete namespace prod", POL_DENY, "namespace"},
    {"redis-cli flushall", POL_DENY, "FLUSHALL"},
    {"psql -c 'DROP TABLE users;'", POL_DENY, "DROP\\s+TABLE"},
    {"psql -c 'drop database app'", POL_DENY, "DROP\\s+DATABASE"},
    {"DELETE FROM users;", POL_DENY, "DELETE\\s+FROM\\s+\\w+\\s*;"},
    {"DELETE FROM users", POL_DENY, "DELETE\\s+FROM\\s+\\w+\\s*$"},
    {"DELETE FROM users WHERE id = 4", POL_ASK, "WHERE"},
    {"gh repo delete me/app", POL_DENY, "gh\\s+repo"},
    {"npm unpublish pkg", POL_DENY, "unpublish"},
    {"ls -la", POL_ALLOW, NULL},
    {"git status", POL_ALLOW, NULL},
    {"kubectl get pods", POL_ALLOW, NULL},
    {"echo farm", POL_ALLOW, NULL},
    {"docker ps", POL_ALLOW, NULL},
    {"make -j2 test", POL_ALLOW, NULL},
};

/* The project's own file in the same schema (tests/data/policy/damage-control/). */
static const struct fixture_cmd own_cmds[] = {
    {"shred -u notes.txt", POL_DENY, "shred"},
    {"SHRED -v -z disk.img", POL_DENY, "shred"},
    {"shred notes.txt", POL_ALLOW, NULL},
    {"srm -rf old/", POL_DENY, "srm"},
    {"truncate -s 0 app.log", POL_DENY, "truncate"},
    {"truncate -c -s0 app.log", POL_DENY, "truncate"},
    {"truncate -s 10M disk.img", POL_ALLOW, NULL},
    {"find . -name '*.o' -delete", POL_DENY, "-delete"},
    {"find . -name '*.o'", POL_ALLOW, NULL},
    {"git push --mirror backup", POL_DENY, "--mirror(?!-dry)"},
    {"git push --mirror-dry backup", POL_ALLOW, NULL},
    {"Git Update-Ref -d refs/heads/x", POL_DENY, "update-ref"},
    {"hg strip 42", POL_DENY, "strip"},
    {"git worktree remove --force ../wt", POL_DENY, "worktree"},
    {"git rebase -i HEAD~3", POL_ASK, "rebase"},
    {"git rebase main", POL_ALLOW, NULL},
    {"git tag -d v1.0", POL_ASK, "tag"},
    {"git remote remove upstream", POL_ASK, "remote"},
    {"wipefs -a /dev/sdb", POL_DENY, "wipefs"},
    {"systemctl disable --now sshd", POL_DENY, "systemctl"},
    {"systemctl status sshd", POL_ALLOW, NULL},
    {"virsh undefine vm1", POL_DENY, "virsh"},
    {"podman system reset", POL_DENY, "podman"},
    {"nomad job stop -purge web", POL_DENY, "nomad"},
    {"az group delete -n rg1", POL_DENY, "group"},
    {"azure group delete rg1", POL_DENY, "group"},
    {"doppler secrets delete KEY", POL_DENY, "doppler"},
    {"memcflush --servers=localhost", POL_DENY, "memcflush"},
    {"psql -c 'UPDATE users SET admin = true;'", POL_DENY, "+\\s*;"},
    {"UPDATE users SET admin = true", POL_DENY, "+\\s*$"},
    {"update users set name = 'x' where id = 3", POL_ASK, "WHERE"},
    {"psql -c 'alter table users drop column age'", POL_DENY, "ALTER"},
    {"DROP SCHEMA app CASCADE", POL_DENY, "SCHEMA"},
    {"npm deprecate pkg@1 'use 2'", POL_ASK, "deprecate"},
    {"ls -la", POL_ALLOW, NULL},
    {"git status", POL_ALLOW, NULL},
    {"make -j2 test", POL_ALLOW, NULL},
};

/* Decides every command of t; returns how many decided otherwise than written (each is
 * also reported on its own line). */
static int check_cmds(const char *file, const struct fixture_cmd *t, size_t n)
{
	struct pol_policy *p = fixture_policy(file);
	int bad = 0;

	for (size_t k = 0; k < n; k++) {
		struct pol_result r;
		enum pol_decision d = raw(p, t[k].cmd, &r);
		int ok = d == t[k].want;

		cr_expect(ok, "'%s': %s, want %s (rule %s)", t[k].cmd, pol_decision_name(d),
			  pol_decision_name(t[k].want), r.rule_id ? r.rule_id : "none");
		if (t[k].pattern && r.pattern && !strstr(r.pattern, t[k].pattern)) {
			cr_expect_fail("'%s' decided by %s", t[k].cmd, r.pattern);
			ok = 0;
		}
		if (d != POL_ALLOW) {
			int from = r.detection == POL_DET_COMMAND && r.rule_id &&
				   strstr(r.rule_id, "policy.bash.") && r.origin &&
				   strcmp(r.origin, file) == 0;
			cr_expect(from, "'%s': rule %s from %s, want a policy.bash. rule of %s",
				  t[k].cmd, r.rule_id ? r.rule_id : "none",
				  r.origin ? r.origin : "nowhere", file);
			ok = ok && from;
		}
		bad += !ok;
		pol_result_release(&r);
	}
	pol_free(p);
	return bad;
}

Test(decide, damage_control_commands_decide_as_their_authors_meant)
{
	size_t n = sizeof(fixture_cmds) / sizeof(fixture_cmds[0]);

	cr_assert_gt(n, 0);
	cr_assert_eq(check_cmds(dc_shared_fixture(), fixture_cmds, n), 0);
}

Test(decide, own_damage_control_file_commands_decide_as_written)
{
	size_t n = sizeof(own_cmds) / sizeof(own_cmds[0]);

	cr_assert_gt(n, 0);
	cr_assert_eq(check_cmds(DC_OWN_FIXTURE, own_cmds, n), 0);
}

struct fixture_path {
	const char *path;
	enum pol_op op;
	enum pol_decision want;
};

static const struct fixture_path fixture_paths[] = {
    /* relative entries match absolute paths (damage-control's known miss) */
    {"$R/package-lock.json", POL_OP_WRITE, POL_DENY},
    {"/elsewhere/app/package-lock.json", POL_OP_WRITE, POL_DENY},
    {"$R/package-lock.json", POL_OP_READ, POL_ALLOW},
    {"$R/dist/main.js", POL_OP_WRITE, POL_DENY},
    {"$R/web/dist/main.js", POL_OP_TRUNCATE, POL_DENY},
    /* read-only out/ must not match inside src/layout/ (its known false positive) */
    {"$R/src/layout/x", POL_OP_WRITE, POL_ALLOW},
    {"$R/src/layout/out.txt", POL_OP_WRITE, POL_ALLOW},
    {"$R/out/x", POL_OP_WRITE, POL_DENY},
    {"$R/.env", POL_OP_READ, POL_DENY},
    {"$R/config/.env.production", POL_OP_READ, POL_DENY},
    {"$R/.env.development.local", POL_OP_READ, POL_DENY},
    {"$R/prod.env", POL_OP_READ, POL_DENY},
    {"$R/environment.ts", POL_OP_READ, POL_ALLOW},
    {"$H/.ssh/id_ed25519", POL_OP_READ, POL_DENY},
    {"$H/.aws/credentials", POL_OP_READ, POL_DENY},
    {"$H/.config/gcloud/creds.json", POL_OP_READ, POL_DENY},
    {"$R/certs/server.pem", POL_OP_READ, POL_DENY},
    {"$R/certs/server.key", POL_OP_READ, POL_DENY},
    {"$R/my-app-credentials.json", POL_OP_READ, POL_DENY},
    {"$R/infra/prod.tfstate", POL_OP_READ, POL_DENY},
    {"$R/db/dump.sql", POL_OP_READ, POL_DENY},
    {"$R/db/schema.sql", POL_OP_READ, POL_ALLOW},
    {"/etc/passwd", POL_OP_READ, POL_ALLOW},
    {"/etc/passwd", POL_OP_WRITE, POL_DENY},
    {"/usr/bin/ls", POL_OP_EXEC, POL_ALLOW},
    {"/usr/bin/ls", POL_OP_DELETE, POL_DENY},
    {"$H/.bashrc", POL_OP_WRITE, POL_DENY},
    {"$H/.bashrc", POL_OP_READ, POL_ALLOW},
    {"$R/yarn.lock", POL_OP_WRITE, POL_DENY},
    {"$R/app.min.js", POL_OP_WRITE, POL_DENY},
    {"$R/node_modules/x/index.js", POL_OP_WRITE, POL_DENY},
    {"$R/README.md", POL_OP_DELETE, POL_DENY},
    {"$R/README.md", POL_OP_WRITE, POL_ALLOW},
    {"$R/docs/README.rst", POL_OP_RENAME_FROM, POL_DENY},
    {"$R/LICENSE", POL_OP_DELETE, POL_DENY},
    {"$R/.git/HEAD", POL_OP_DELETE, POL_DENY},
    {"$R/.github/workflows/ci.yml", POL_OP_DELETE, POL_DENY},
    {"$R/Dockerfile.dev", POL_OP_DELETE, POL_DENY},
    {"$R/docker-compose.prod.yml", POL_OP_DELETE, POL_DENY},
    {"$R/src/main.c", POL_OP_DELETE, POL_ALLOW},
    {"$H/.claude/settings.json", POL_OP_DELETE, POL_DENY},
    {"$H/.claude/settings.json", POL_OP_WRITE, POL_ALLOW},
};

static const struct fixture_path own_paths[] = {
    /* relative entries match absolute paths, wherever the project is */
    {"$R/requirements.lock", POL_OP_WRITE, POL_DENY},
    {"/elsewhere/app/mix.lock", POL_OP_WRITE, POL_DENY},
    {"$R/requirements.lock", POL_OP_READ, POL_ALLOW},
    {"$R/gen/api.c", POL_OP_WRITE, POL_DENY},
    {"$R/lib/vendor/x/y.go", POL_OP_TRUNCATE, POL_DENY},
    /* read-only gen/ is a folder name, not a suffix: src/codegen/ stays writable */
    {"$R/src/codegen/x.c", POL_OP_WRITE, POL_ALLOW},
    {"$R/src/gen.c", POL_OP_WRITE, POL_ALLOW},
    {"$R/.envrc", POL_OP_READ, POL_DENY},
    {"$R/sub/.envrc", POL_OP_READ, POL_DENY},
    {"$R/config/secrets.prod.yaml", POL_OP_READ, POL_DENY},
    {"$R/vault-dev.local", POL_OP_READ, POL_DENY},
    {"$R/vault.local", POL_OP_READ, POL_DENY},
    {"$R/app.keystore", POL_OP_READ, POL_DENY},
    {"$R/keystore.txt", POL_OP_READ, POL_ALLOW},
    {"$H/.vault/token", POL_OP_READ, POL_DENY},
    {"$H/.password-store/mail.gpg", POL_OP_WRITE, POL_DENY},
    {"$H/.config/rclone/rclone.conf", POL_OP_READ, POL_DENY},
    {"$H/.config/other.conf", POL_OP_READ, POL_ALLOW},
    {"$R/ci/deploy-token.txt", POL_OP_READ, POL_DENY},
    {"$R/keys/my-private-key.asc", POL_OP_READ, POL_DENY},
    {"$R/gcp-oauth-client-id.json", POL_OP_READ, POL_DENY},
    {"$R/etc/htpasswd", POL_OP_READ, POL_DENY},
    {"$H/.pgpass", POL_OP_READ, POL_DENY},
    {"$R/.terraformrc/creds", POL_OP_READ, POL_DENY},
    {"$R/data/prod-snapshot.db", POL_OP_READ, POL_DENY},
    {"$R/data/dev-snapshot.db", POL_OP_READ, POL_ALLOW},
    {"$R/old.sqlbak", POL_OP_READ, POL_DENY},
    {"/opt/tool/bin/run", POL_OP_READ, POL_ALLOW},
    {"/opt/tool/bin/run", POL_OP_WRITE, POL_DENY},
    {"/opt/tool/bin/run", POL_OP_EXEC, POL_ALLOW},
    {"/srv/shared/data.csv", POL_OP_DELETE, POL_DENY},
    {"/srv/other/data.csv", POL_OP_DELETE, POL_ALLOW},
    {"$H/.inputrc", POL_OP_WRITE, POL_DENY},
    {"$H/.inputrc", POL_OP_READ, POL_ALLOW},
    {"$R/__snapshots__/ui.snap", POL_OP_WRITE, POL_DENY},
    {"$R/api/types.gen.go", POL_OP_WRITE, POL_DENY},
    {"$R/api/types.go", POL_OP_WRITE, POL_ALLOW},
    {"$R/coverage/index.html", POL_OP_WRITE, POL_DENY},
    {"$R/AGENTS.md", POL_OP_DELETE, POL_DENY},
    {"$R/AGENTS.md", POL_OP_WRITE, POL_ALLOW},
    {"$R/NOTICE.txt", POL_OP_RENAME_FROM, POL_DENY},
    {"$R/COPYRIGHT", POL_OP_DELETE, POL_DENY},
    {"$R/sub/Makefile", POL_OP_DELETE, POL_DENY},
    {"$R/.hg/store/data", POL_OP_DELETE, POL_DENY},
    {"$R/.woodpecker/build.yaml", POL_OP_DELETE, POL_DENY},
    {"$R/Containerfile.dev", POL_OP_DELETE, POL_DENY},
    {"$R/compose.prod.yaml", POL_OP_DELETE, POL_DENY},
    {"$R/compose.yaml", POL_OP_DELETE, POL_ALLOW},
    {"$R/src/main.c", POL_OP_DELETE, POL_ALLOW},
    {"$R/docs/guide.md", POL_OP_DELETE, POL_ALLOW},
    {"$H/.agents/skills.md", POL_OP_DELETE, POL_DENY},
    {"$H/.agents/skills.md", POL_OP_WRITE, POL_ALLOW},
};

/* Decides every path of t; returns how many decided otherwise than written. */
static int check_paths(const char *file, const struct fixture_path *t, size_t n)
{
	struct pol_policy *p = fixture_policy(file);
	struct pol_ctx ctx = {.cwd = root};
	int bad = 0;

	for (size_t k = 0; k < n; k++) {
		char path[PATH_MAX];
		struct pol_result r;

		tmp_expand(t[k].path, path, sizeof(path));
		enum pol_decision d = pol_check_path(p, path, t[k].op, 0, &ctx, &r);
		cr_expect_eq(d, t[k].want, "%s %s: %s, want %s (rule %s)", pol_op_name(t[k].op),
			     t[k].path, pol_decision_name(d), pol_decision_name(t[k].want),
			     r.rule_id ? r.rule_id : "none");
		bad += d != t[k].want;
		pol_result_release(&r);
	}
	pol_free(p);
	return bad;
}

Test(decide, damage_control_paths_decide_as_their_authors_meant)
{
	size_t n = sizeof(fixture_paths) / sizeof(fixture_paths[0]);

	cr_assert_gt(n, 0);
	cr_assert_eq(check_paths(dc_shared_fixture(), fixture_paths, n), 0);
}

Test(decide, own_damage_control_file_paths_decide_as_written)
{
	size_t n = sizeof(own_paths) / sizeof(own_paths[0]);

	cr_assert_gt(n, 0);
	cr_assert_eq(check_paths(DC_OWN_FIXTURE, own_paths, n), 0);
}

/* The decision on command c under the policy file (the caller asserts it). */
static enum pol_decision commit_message_decision(const char *file, const char *c)
{
	struct pol_policy *p = fixture_policy(file);
	struct pol_ctx ctx = {.cwd = root};
	struct pol_result r;
	enum pol_decision d = pol_check_command(p, c, strlen(c), &ctx, &r);

	if (d != POL_ALLOW)
		cr_log_error("%s: rule %s", c, r.rule_id ? r.rule_id : "none");
	pol_result_release(&r);
	pol_free(p);
	return d;
}

Test(decide, commit_message_mentioning_rm_rf_is_not_the_command, .description = "needs shell.c")
{
	cr_assert_eq(
	    commit_message_decision(dc_shared_fixture(),
				    "git commit -m \"stop using rm -rf in the build script\""),
	    POL_ALLOW);
}

Test(decide, commit_message_mentioning_shred_is_not_the_command, .description = "needs shell.c")
{
	cr_expect_eq(
	    commit_message_decision(DC_OWN_FIXTURE, "git commit -m \"drop the shred -u step\""),
	    POL_ALLOW);
	cr_expect_eq(
	    commit_message_decision(DC_OWN_FIXTURE, "git commit -m 'no more find . -delete'"),
	    POL_ALLOW);
}

/* ---- the record ---------------------------------------------------------------------- */

static const char sev_yaml[] = "rules:\n"
			       "  - id: t.crit\n"
			       "    pattern: '\\bcrit\\b'\n"
			       "    reason: critical rule\n"
			       "    severity: critical\n"
			       "    suggestions: [Do it another way]\n"
			       "  - id: t.high\n"
			       "    pattern: '\\bhigh\\b'\n"
			       "    reason: high rule\n"
			       "    severity: high\n"
			       "  - id: t.med\n"
			       "    pattern: '\\bmed\\b'\n"
			       "    reason: medium rule\n"
			       "    severity: medium\n"
			       "  - id: t.low\n"
			       "    pattern: '\\blow\\b'\n"
			       "    reason: low rule\n"
			       "    severity: low\n"
			       "  - id: t.ask\n"
			       "    pattern: '\\bask\\b'\n"
			       "    reason: ask rule\n"
			       "    severity: critical\n"
			       "    ask: true\n"
			       "  - id: t.redos\n"
			       "    pattern: '^(a+)+$'\n"
			       "    reason: catastrophic backtracking\n";

Test(decide, result_record_carries_every_field)
{
	struct pol_policy *p = yaml_policy(sev_yaml);
	struct pol_result r;

	cr_assert_eq(raw(p, "run crit now", &r), POL_DENY);
	cr_expect_str_eq(r.rule_id, "t.crit");
	cr_expect_str_eq(r.reason, "critical rule");
	cr_expect_eq(r.severity, POL_SEV_CRITICAL);
	cr_expect_eq(r.detection, POL_DET_COMMAND);
	cr_expect_str_eq(r.pattern, "\\bcrit\\b");
	cr_expect_str_eq(r.origin, "decide-test.yaml");
	cr_expect_not_null(strstr(r.matched, "crit"), "matched: '%s'", r.matched);
	cr_assert_eq(r.n_suggestions, 2);
	cr_expect_str_eq(r.suggestions[0], "Do it another way");
	cr_expect_str_eq(r.suggestions[1], "If intentional: dcg allow t.crit -r \"reason\"");
	cr_expect_eq(r.allowed_by_allowlist, 0);
	cr_expect_eq(r.limit_hit, 0);
	pol_result_release(&r);
	pol_free(p);
}

Test(decide, severities_decide_deny_warn_log_and_ask)
{
	static const struct {
		const char *cmd;
		enum pol_decision d;
		enum pol_severity s;
	} cases[] = {
	    {"crit", POL_DENY, POL_SEV_CRITICAL}, {"high", POL_DENY, POL_SEV_HIGH},
	    {"med", POL_WARN, POL_SEV_MEDIUM},	  {"low", POL_LOG, POL_SEV_LOW},
	    {"ask", POL_ASK, POL_SEV_CRITICAL},	  {"none of them", POL_ALLOW, POL_SEV_LOW},
	};
	struct pol_policy *p = yaml_policy(sev_yaml);

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct pol_result r;

		cr_expect_eq(raw(p, cases[k].cmd, &r), cases[k].d, "%s", cases[k].cmd);
		cr_expect_eq(r.decision, cases[k].d, "the record holds the returned decision");
		if (cases[k].d != POL_ALLOW)
			cr_expect_eq(r.severity, cases[k].s, "%s", cases[k].cmd);
		else
			cr_expect_null(r.rule_id);
		pol_result_release(&r);
	}
	pol_free(p);
}

Test(decide, the_worst_decision_wins)
{
	static const struct {
		const char *cmd;
		enum pol_decision d;
		const char *id;
	} cases[] = {
	    {"low med", POL_WARN, "t.med"},	      {"med low", POL_WARN, "t.med"},
	    {"med ask low", POL_ASK, "t.ask"},	      {"ask high", POL_DENY, "t.high"},
	    {"low med ask crit", POL_DENY, "t.crit"},
	};
	struct pol_policy *p = yaml_policy(sev_yaml);

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct pol_result r;

		cr_expect_eq(raw(p, cases[k].cmd, &r), cases[k].d, "%s", cases[k].cmd);
		cr_expect_str_eq(r.rule_id ? r.rule_id : "", cases[k].id, "%s", cases[k].cmd);
		pol_result_release(&r);
	}
	pol_free(p);
}

Test(decide, regex_limit_hit_counts_as_a_match)
{
	struct pol_policy *p = yaml_policy(sev_yaml);
	char buf[4096];
	struct pol_result r;

	memset(buf, 'a', sizeof(buf) - 2);
	buf[sizeof(buf) - 2] = 'b';
	buf[sizeof(buf) - 1] = '\0';
	cr_expect_eq(raw(p, buf, &r), POL_DENY);
	cr_expect_str_eq(r.rule_id ? r.rule_id : "", "t.redos");
	cr_expect_eq(r.limit_hit, 1, "the record says the limit was hit");
	pol_result_release(&r);
	pol_free(p);
}

Test(decide, regex_limit_hit_counts_as_a_match_with_jit_too)
{
	struct pol_policy *p = pol_new(POL_LOAD_JIT);
	char buf[4096];
	struct pol_result r;

	cr_assert_not_null(p);
	cr_assert_eq(pol_load_buffer(p, "jit.yaml", sev_yaml, strlen(sev_yaml)), 0);
	memset(buf, 'a', sizeof(buf) - 2);
	buf[sizeof(buf) - 2] = 'b';
	buf[sizeof(buf) - 1] = '\0';
	cr_expect_eq(raw(p, buf, &r), POL_DENY);
	cr_expect_eq(r.limit_hit, 1);
	pol_result_release(&r);
	pol_free(p);
}

Test(decide, matched_text_is_cut_to_120_characters_on_a_utf8_boundary)
{
	struct pol_policy *p = yaml_policy(sev_yaml);
	char buf[1024] = "crit ";
	size_t n = strlen(buf);
	struct pol_result r;

	while (n + 2 < 600) {
		memcpy(buf + n, "\xc3\xa9", 2); /* é */
		n += 2;
	}
	buf[n] = '\0';
	cr_assert_eq(raw(p, buf, &r), POL_DENY);
	size_t len = strlen(r.matched), chars = 0;
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)r.matched[i] & 0xc0) != 0x80)
			chars++;
	cr_expect_leq(chars, 120 + 3, "120 characters and '...': %zu", chars);
	cr_expect_gt(chars, 100);
	cr_expect_eq(strncmp(r.matched + len - 3, "...", 3), 0, "a cut is marked");
	/* no broken sequence before the dots */
	cr_expect_neq((unsigned char)r.matched[len - 4], 0xc3);
	pol_result_release(&r);
	pol_free(p);
}

/* ---- hostile input ----------------------------------------------------------------- */

Test(decide, nul_byte_or_invalid_utf8_is_refused)
{
	static const struct {
		const char *s;
		size_t n;
	} cases[] = {
	    {"ls\0 rm -rf /", 12},	{"ls \xff", 4}, {"ls \xc0\xaf", 5}, /* overlong '/' */
	    {"ls \xed\xa0\x80", 6},					    /* surrogate */
	    {"ls \xf4\x90\x80\x80", 7},					    /* past U+10FFFF */
	    {"ls \xe2\x82", 5},						    /* cut sequence */
	};
	struct pol_policy *p = new_policy();

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct pol_result r;
		struct pol_ctx ctx = {.flags = POL_CTX_NO_ANALYSIS};

		cr_expect_eq(pol_check_command(p, cases[k].s, cases[k].n, &ctx, &r), POL_DENY,
			     "case %zu", k);
		cr_expect_str_eq(r.rule_id ? r.rule_id : "", "input.invalid", "case %zu", k);
		for (const char *m = r.matched; *m; m++)
			cr_expect((unsigned char)*m >= 0x20 && (unsigned char)*m < 0x7f,
				  "matched text is printable: case %zu", k);
		pol_result_release(&r);
	}
	pol_free(p);
}

Test(decide, valid_utf8_is_checked_normally)
{
	struct pol_policy *p = yaml_policy(sev_yaml);
	struct pol_result r;

	cr_expect_eq(raw(p, "echo h\xc3\xa9llo \xf0\x9f\x98\x80", &r), POL_ALLOW);
	cr_expect_eq(raw(p, "echo h\xc3\xa9llo; crit", &r), POL_DENY);
	pol_free(p);
}

Test(decide, command_over_4_mib_is_refused)
{
	struct pol_policy *p = new_policy();
	size_t n = 4u * 1024 * 1024 + 1;
	char *buf = malloc(n);
	struct pol_result r;

	cr_assert_not_null(buf);
	memset(buf, 'x', n);
	cr_expect_eq(pol_check_command(p, buf, n, NULL, &r), POL_DENY);
	cr_expect_str_eq(r.rule_id ? r.rule_id : "", "input.too_long");
	free(buf);
	pol_free(p);
}

Test(decide, empty_command_is_allowed)
{
	struct pol_policy *p = yaml_policy(sev_yaml);
	struct pol_result r;

	cr_expect_eq(pol_check_command(p, "", 0, NULL, &r), POL_ALLOW);
	cr_expect_eq(pol_check_command(p, NULL, 0, NULL, &r), POL_ALLOW);
	pol_free(p);
}

Test(decide, command_need_not_be_nul_terminated)
{
	struct pol_policy *p = yaml_policy(sev_yaml);
	struct pol_ctx ctx = {.flags = POL_CTX_NO_ANALYSIS};
	struct pol_result r;
	static const char c[] = "echo hi; crit";

	/* The first 7 bytes are "echo hi": the rule word lies beyond len. */
	cr_expect_eq(pol_check_command(p, c, 7, &ctx, &r), POL_ALLOW);
	cr_expect_eq(pol_check_command(p, c, strlen(c), &ctx, &r), POL_DENY);
	pol_free(p);
}

Test(decide, argv_is_joined_and_checked)
{
	struct pol_policy *p = fixture_policy(DC_OWN_FIXTURE);
	char *const rmrf[] = {"shred", "-u", "/srv/data", NULL};
	char *const ls[] = {"ls", "-la", "it's here", NULL};
	char *const empty[] = {NULL};
	struct pol_ctx ctx = {.flags = POL_CTX_NO_ANALYSIS};
	struct pol_result r;

	cr_expect_eq(pol_check_argv(p, rmrf, &ctx, &r), POL_DENY);
	cr_expect_eq(pol_check_argv(p, ls, &ctx, &r), POL_ALLOW);
	cr_expect_eq(pol_check_argv(p, empty, &ctx, &r), POL_ALLOW);
	cr_expect_eq(pol_check_argv(p, NULL, &ctx, &r), POL_ALLOW);
	pol_free(p);
}

Test(decide, argv_too_long_to_check_is_refused_without_reading_past_an_argument)
{
	struct pol_policy *p = new_policy();
	size_t n = 600000; /* each "ab" counts 4 * 2 + 3 bytes: past the 4 MiB limit */
	char **argv = calloc(n + 1, sizeof(*argv));
	struct pol_result r;

	cr_assert_not_null(argv);
	for (size_t i = 0; i < n; i++) {
		argv[i] = malloc(3);
		cr_assert_not_null(argv[i]);
		memcpy(argv[i], "ab", 3);
	}
	cr_expect_eq(pol_check_argv(p, argv, NULL, &r), POL_DENY);
	cr_expect_str_eq(r.rule_id ? r.rule_id : "", "input.too_long");
	cr_expect_leq(strlen(r.matched), 60);
	for (size_t i = 0; i < n; i++)
		free(argv[i]);
	free(argv);
	pol_free(p);
}

/* ---- tracing -------------------------------------------------------------------------- */

struct trace_count {
	int rules, matched, units;
};

static void on_trace(const struct pol_trace_event *ev, void *arg)
{
	struct trace_count *tc = arg;

	if (strcmp(ev->what, "rule") == 0) {
		tc->rules++;
		if (ev->matched == 1)
			tc->matched++;
	} else if (strcmp(ev->what, "unit") == 0) {
		tc->units++;
	}
}

Test(decide, trace_reports_every_rule_tried)
{
	struct pol_policy *p = yaml_policy(sev_yaml);
	struct trace_count tc = {0};
	struct pol_ctx ctx = {.flags = POL_CTX_NO_ANALYSIS, .trace = on_trace, .trace_arg = &tc};
	struct pol_result r;
	static const char c[] = "crit high";

	cr_expect_eq(pol_check_command(p, c, strlen(c), &ctx, &r), POL_DENY);
	cr_expect_eq(tc.units, 1);
	cr_expect_eq(tc.rules, 6, "every command rule is reported, matched or not");
	cr_expect_eq(tc.matched, 2, "tracing does not stop at the first deny");
	pol_free(p);
}

/* ---- names and helpers -------------------------------------------------------------------- */

Test(decide, names_of_decisions_severities_detections_and_ops)
{
	enum pol_severity s;

	cr_expect_str_eq(pol_decision_name(POL_ALLOW), "allow");
	cr_expect_str_eq(pol_decision_name(POL_DENY), "deny");
	cr_expect_str_eq(pol_decision_name(POL_ASK), "ask");
	cr_expect_str_eq(pol_severity_name(POL_SEV_CRITICAL), "critical");
	cr_expect_str_eq(pol_severity_name(POL_SEV_LOW), "low");
	cr_expect_str_eq(pol_detection_name(POL_DET_HEREDOC), "heredoc");
	cr_expect_str_eq(pol_detection_name(POL_DET_INLINE_SCRIPT), "inline_script");
	cr_expect_str_eq(pol_path_kind_name(POL_PATH_READ_ONLY), "readOnlyPaths");
	cr_expect_str_eq(pol_op_name(POL_OP_READ), "read");
	cr_expect_str_eq(pol_op_name(POL_OP_DELETE), "delete");
	for (int op = 0; op < POL_OP__COUNT; op++)
		cr_expect_not_null(pol_op_name((enum pol_op)op));
	cr_expect_eq(pol_severity_parse("HIGH", &s), 0);
	cr_expect_eq(s, POL_SEV_HIGH);
	cr_expect_eq(pol_severity_parse("urgent", &s), -EINVAL);
}

Test(decide, rule_suggest_finds_near_ids)
{
	struct pol_policy *p = yaml_policy(sev_yaml);
	const char *out[4];
	size_t n = pol_rule_suggest(p, "t.hihg", out, 4);

	cr_assert_geq(n, 1);
	cr_expect_str_eq(out[0], "t.high");
	pol_free(p);
}

Test(decide, redact_hides_quoted_strings)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"echo 'secret'", "echo '***'"},
	    {"curl -H \"Authorization: x\" u", "curl -H \"***\" u"},
	    {"a \"b\\\"c\" d", "a \"***\" d"},
	    {"echo 'unterminated", "echo '***"},
	    {"no quotes", "no quotes"},
	    {"empty '' \"\"", "empty '' \"\""},
	};
	char out[256];

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		pol_redact(cases[k].in, strlen(cases[k].in), out, sizeof(out));
		cr_expect_str_eq(out, cases[k].want, "%s", cases[k].in);
	}
	/* A tiny buffer is never overrun. */
	char small[4];
	size_t n = pol_redact("'abcdef'", 8, small, sizeof(small));
	cr_expect_lt(n, sizeof(small));
	cr_expect_eq(small[n], '\0');
}

Test(decide, truncate_utf8_never_splits_a_character)
{
	char out[64];
	size_t n = pol_truncate_utf8("h\xc3\xa9llo w\xc3\xb6rld", 13, 3, out, sizeof(out));

	cr_expect_str_eq(out, "h\xc3\xa9l...");
	cr_expect_eq(n, strlen(out));
	n = pol_truncate_utf8("abc", 3, 10, out, sizeof(out));
	cr_expect_str_eq(out, "abc");
	n = pol_truncate_utf8("\xc3\xa9\xc3\xa9\xc3\xa9", 6, 10, out, 4);
	cr_expect_lt(n, 4);
	cr_expect_eq(out[n], '\0');
}

/* ---- medium rules and catastrophic targets (needs the shell analysis) ------------------ */

Test(decide, medium_rule_warns_but_denies_on_a_catastrophic_target)
{
	/* the targets are data (default.yaml's catastrophic: section): this file names its own */
	static const char y[] = "rules:\n  - {id: t.chmod, pattern: '^chmod\\b', reason: r, "
				"severity: medium}\n"
				"catastrophic:\n  words: ['/', '~', '~/', '$HOME']\n"
				"  prefixes: [/dev/sd]\n";
	static const struct {
		const char *cmd;
		enum pol_decision want;
	} cases[] = {
	    {"chmod -R 700 build", POL_WARN},	  {"chmod -R 700 /", POL_DENY},
	    {"chmod -R 700 ~", POL_DENY},	  {"chmod -R 700 ~/", POL_DENY},
	    {"chmod -R 700 $HOME", POL_DENY},	  {"chmod 600 /dev/sda", POL_DENY},
	    {"chmod -R 700 /home", POL_WARN},	  {"echo chmod -R 700 /", POL_ALLOW},
	    {"chmod -R 700 ~/project", POL_WARN},
	};
	struct pol_policy *p = yaml_policy(y);
	char withhome[1200];

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct pol_ctx ctx = {.cwd = root};
		struct pol_result r;
		enum pol_decision d =
		    pol_check_command(p, cases[k].cmd, strlen(cases[k].cmd), &ctx, &r);

		cr_expect_eq(d, cases[k].want, "'%s': %s, want %s (rule %s)", cases[k].cmd,
			     pol_decision_name(d), pol_decision_name(cases[k].want),
			     r.rule_id ? r.rule_id : "none");
		pol_result_release(&r);
	}
	/* the home folder written out in full */
	snprintf(withhome, sizeof(withhome), "chmod -R 700 %s", home);
	struct pol_result r;
	struct pol_ctx ctx = {.cwd = root};
	cr_expect_eq(pol_check_command(p, withhome, strlen(withhome), &ctx, &r), POL_DENY, "%s",
		     withhome);
	pol_free(p);
}

/* The catastrophic targets are data (default.yaml's catastrophic: section): at runtime
 * a `runtime: paths` rule leaves a command to the checks of each file it touches,
 * unless one of its words is such a target; a file may add its own. */
Test(decide, catastrophic_targets_are_data)
{
	static const char rule[] = "rules:\n  - {id: t.rm, pattern: '^rm\\b', reason: r, "
				   "severity: high, runtime: paths}\n";
	static const struct {
		const char *data, *cmd;
		enum pol_decision want;
	} cases[] = {
	    {"", "rm -rf /srv/precious", POL_ALLOW},
	    {"catastrophic: {words: [/srv/precious]}\n", "rm -rf /srv/precious", POL_DENY},
	    {"catastrophic: {words: [/srv/precious]}\n", "rm -rf /srv/precious/x", POL_ALLOW},
	    {"catastrophic: {words: [/srv/precious]}\n", "echo rm -rf /srv/precious", POL_ALLOW},
	    {"catastrophic: {prefixes: [/dev/sd]}\n", "rm -f /dev/sdb1", POL_DENY},
	    {"catastrophic: {prefixes: [/dev/sd]}\n", "rm -f /dev/null", POL_ALLOW},
	    {"catastrophic: {words: ['~']}\n", "rm -rf ~", POL_DENY},
	    {"", "rm -rf ~", POL_ALLOW},
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char y[512];
		struct pol_policy *p, *q = pol_new(0);
		struct pol_ctx ctx = {.cwd = root, .flags = POL_CTX_RUNTIME};
		struct pol_result r;
		size_t len;
		char *snap;

		snprintf(y, sizeof(y), "%s%s", rule, cases[k].data);
		p = yaml_policy(y);
		cr_expect_eq(pol_check_command(p, cases[k].cmd, strlen(cases[k].cmd), &ctx, &r),
			     cases[k].want, "case %zu: '%s' with '%s'", k, cases[k].cmd,
			     cases[k].data);
		pol_result_release(&r);
		/* the facts travel in the snapshot that dcg run hands its processes */
		snap = pol_snapshot_save(p, &len);
		cr_assert_not_null(snap);
		cr_assert_eq(pol_snapshot_load(q, snap, len), 0);
		cr_expect_eq(pol_check_command(q, cases[k].cmd, strlen(cases[k].cmd), &ctx, &r),
			     cases[k].want, "case %zu after the snapshot", k);
		pol_result_release(&r);
		free(snap);
		pol_free(q);
		pol_free(p);
	}
}

/* The default's other local deleters are judged by their files at runtime too: `npm run
 * clean` running rimraf, a backup step with tar --remove-files. Aimed at the home folder
 * or the root they are still refused at exec; the hook still refuses them all. */
Test(decide, local_deleters_are_judged_by_their_files_at_runtime)
{
	static const struct {
		const char *cmd, *id;
	} cases[] = {
	    {"rimraf dist coverage", "core.filesystem.rimraf"},
	    {"del-cli 'dist/**' '!dist/keep'", "core.filesystem.del_cli"},
	    {"tar --remove-files -czf logs.tgz logs", "core.filesystem.archive_remove_sources"},
	    {"zip -m old.zip old.log", "core.filesystem.zip_move"},
	    {"7z a -sdel old.7z old", "core.filesystem.sevenzip_sdel"},
	    {"rsync -a --delete src/ backup/", "core.filesystem.rsync_delete"},
	};
	struct pol_ctx rt = {.cwd = root, .flags = POL_CTX_RUNTIME}, hook = {.cwd = root};
	struct pol_result r;
	struct pol_policy *p = new_policy();

	cr_assert_eq(pol_load_embedded(p), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *c = cases[i].cmd;

		cr_expect_eq(pol_check_command(p, c, strlen(c), &rt, &r), POL_ALLOW, "%s", c);
		pol_result_release(&r);
		cr_expect_eq(pol_check_command(p, c, strlen(c), &hook, &r), POL_DENY, "%s", c);
		cr_expect_str_eq(r.rule_id ? r.rule_id : "", cases[i].id, "%s", c);
		pol_result_release(&r);
	}
	cr_expect_eq(pol_check_command(p, "rimraf ~", 8, &rt, &r), POL_DENY);
	cr_expect_str_eq(r.rule_id ? r.rule_id : "", "core.filesystem.rimraf");
	pol_result_release(&r);
	cr_expect_eq(pol_check_command(p, "rimraf /", 8, &rt, &r), POL_DENY);
	pol_result_release(&r);
	pol_free(p);
}

/* At runtime a deleter aimed at the root, the home folder or a folder above it is
 * refused at exec however it is spelled: `..` from the project (the project's parent
 * holds the home here), a link to /, `//`. The exact words of the catastrophic list saw
 * none of these, and a folder's delete is otherwise judged file by file. */
Test(decide, deleters_aimed_wide_are_refused_at_runtime_in_any_spelling)
{
	static const struct {
		const char *cmd;
		enum pol_decision want;
	} cases[] = {
	    {"find .. -delete", POL_DENY},
	    {"rimraf ..", POL_DENY},
	    {"rsync -a --delete src/ ..", POL_DENY},
	    {"tar --remove-files -cf x.tar -C .. .", POL_DENY},
	    {"find // -delete", POL_DENY},
	    {"find /usr/.. -delete", POL_DENY},
	    {"find r/ -delete", POL_DENY},
	    {"rm -rf ../", POL_DENY},
	    {"find . -name '*.pyc' -delete", POL_ALLOW},
	    {"rimraf dist", POL_ALLOW},
	    {"rm -rf ../proj/build", POL_ALLOW},
	};
	struct pol_ctx ctx = {.cwd = root, .flags = POL_CTX_RUNTIME};
	struct pol_result r;
	struct pol_policy *p = new_policy();
	char link[PATH_MAX];

	snprintf(link, sizeof(link), "%s/r", root);
	cr_assert_eq(symlink("/", link), 0);
	cr_assert_eq(pol_load_embedded(p), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *c = cases[i].cmd;

		cr_expect_eq(pol_check_command(p, c, strlen(c), &ctx, &r), cases[i].want, "%s", c);
		pol_result_release(&r);
	}
	pol_free(p);
}

/* The same through the embedded defaults: a user file adding a target makes rm -rf on
 * it refused at the runtime exec check, which otherwise leaves it to the file checks. */
Test(decide, a_policy_file_adds_a_catastrophic_target)
{
	static const char add[] = "catastrophic:\n  words: [/srv/precious]\n";
	static const char cmd[] = "rm -rf /srv/precious";
	struct pol_ctx ctx = {.cwd = root, .flags = POL_CTX_RUNTIME};
	struct pol_result r;
	struct pol_policy *p = new_policy();

	cr_assert_eq(pol_load_embedded(p), 0);
	cr_expect_eq(pol_check_command(p, cmd, strlen(cmd), &ctx, &r), POL_ALLOW);
	pol_result_release(&r);
	/* the defaults' own targets hold at runtime */
	cr_expect_eq(pol_check_command(p, "rm -rf ~", 8, &ctx, &r), POL_DENY);
	pol_result_release(&r);
	cr_assert_eq(pol_load_buffer(p, "user.yaml", add, strlen(add)), 0);
	cr_assert_eq(pol_diag_count(p), 0);
	cr_expect_eq(pol_check_command(p, cmd, strlen(cmd), &ctx, &r), POL_DENY);
	cr_expect_str_eq(r.rule_id ? r.rule_id : "", "core.filesystem.rm_rf");
	pol_result_release(&r);
	pol_free(p);
}

/* ---- threads ---------------------------------------------------------------------------- */

#define N_FIXTURE_CMDS (sizeof(own_cmds) / sizeof(own_cmds[0]))

struct thread_arg {
	const struct pol_policy *p;
	const enum pol_decision *want; /* [2][N_FIXTURE_CMDS]: raw, then analysed */
	int mismatches;
};

static struct pol_policy *threads_policy(unsigned flags)
{
	struct pol_policy *p = pol_new(flags);

	cr_assert_not_null(p);
	pol_set_home(p, home);
	pol_set_root(p, root);
	cr_assert_eq(pol_load_embedded(p), 0);
	cr_assert_eq(pol_load_file(p, DC_OWN_FIXTURE), 0);
	return p;
}

static enum pol_decision decide_one(const struct pol_policy *p, size_t k, int analysed)
{
	struct pol_ctx ctx = {.cwd = root, .flags = analysed ? 0 : POL_CTX_NO_ANALYSIS};
	struct pol_result r;
	const char *c = own_cmds[k].cmd;
	enum pol_decision d = pol_check_command(p, c, strlen(c), &ctx, &r);

	pol_result_release(&r);
	return d;
}

static void *decide_in_thread(void *arg)
{
	struct thread_arg *ta = arg;

	for (int round = 0; round < 20; round++)
		for (size_t k = 0; k < N_FIXTURE_CMDS; k++)
			for (int an = 0; an < 2; an++)
				if (decide_one(ta->p, k, an) != ta->want[an * N_FIXTURE_CMDS + k])
					ta->mismatches++;
	return NULL;
}

/* Regexes compile lazily at first use and the embedded codes decode once: threads
 * deciding at the same time on a fresh policy must agree with one thread alone. */
Test(decide, concurrent_first_decisions_on_a_lazy_policy_agree)
{
	for (unsigned flags = 0; flags <= POL_LOAD_JIT; flags += POL_LOAD_JIT) {
		struct pol_policy *alone = threads_policy(flags), *p = threads_policy(flags);
		enum pol_decision want[2 * N_FIXTURE_CMDS];
		pthread_t th[8];
		struct thread_arg ta[8];

		for (int an = 0; an < 2; an++)
			for (size_t k = 0; k < N_FIXTURE_CMDS; k++)
				want[an * N_FIXTURE_CMDS + k] = decide_one(alone, k, an);
		for (int i = 0; i < 8; i++) {
			ta[i] = (struct thread_arg){p, want, 0};
			cr_assert_eq(pthread_create(&th[i], NULL, decide_in_thread, &ta[i]), 0);
		}
		for (int i = 0; i < 8; i++) {
			pthread_join(th[i], NULL);
			cr_expect_eq(ta[i].mismatches, 0, "thread %d (flags %u)", i, flags);
		}
		pol_free(alone);
		pol_free(p);
	}
}

/* ---- bytes the shell analysis decodes (needs the shell analysis) ------------------------ */

/* $'\xff' and $'\ud800' decode to bytes that are not UTF-8. The regexes run in UTF mode
 * without re-checking the subject, so such a unit must be made valid first: the rule
 * still sees the rest of the command, and nothing reads past the text. */
Test(decide, words_decoded_to_invalid_utf8_are_still_checked)
{
	static const char y[] = "rules:\n  - {id: t.rm, pattern: '^rm\\b.*\\bimportant\\b', "
				"reason: r}\n"
				"  - {id: t.tail, pattern: 'x.$', reason: r}\n";
	static const char *const cmds[] = {
	    "rm -rf $'\\xff\\xfe' important",
	    "rm -rf $'\\xc3' important",
	    "rm -rf $'\\ud800' important",
	    "rm -rf $'\\xe2\\x82' important",
	    "ls $'x\\xf4'",
	};
	for (unsigned flags = 0; flags <= POL_LOAD_JIT; flags += POL_LOAD_JIT) {
		struct pol_policy *p = pol_new(flags);

		cr_assert_not_null(p);
		cr_assert_eq(pol_load_buffer(p, "utf.yaml", y, sizeof(y) - 1), 0);
		for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
			struct pol_ctx ctx = {.cwd = root};
			struct pol_result r;

			cr_expect_eq(pol_check_command(p, cmds[k], strlen(cmds[k]), &ctx, &r),
				     POL_DENY, "%s (flags %u): rule %s", cmds[k], flags,
				     r.rule_id ? r.rule_id : "none");
			for (const unsigned char *m = (const unsigned char *)r.matched; *m; m++)
				cr_expect(*m != 0xff && *m != 0xfe, "matched text is UTF-8");
			pol_result_release(&r);
		}
		pol_free(p);
	}
}

/* The decisions' allocations (pol_set_allocator) failing after the first n, for every
 * n until none fails: a command a rule refuses is never allowed, and an allowed one is
 * allowed or refused as a policy that cannot decide (shell.analysis_failed). */
static int alloc_budget;

static void *budget_alloc(size_t size)
{
	return alloc_budget-- > 0 ? malloc(size) : NULL;
}

Test(decide, failing_allocations_never_allow_a_refused_command)
{
	struct pol_policy *p = new_policy();
	static const char *const cmds[] = {"git reset --hard", "rm -rf ~", "git status"};

	cr_assert_eq(pol_load_embedded(p), 0);
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		struct pol_result want, r;
		int n;

		pol_check_command(p, cmds[c], strlen(cmds[c]), NULL, &want);
		for (n = 0; n < 200; n++) {
			alloc_budget = n;
			pol_set_allocator(budget_alloc, free);
			pol_check_command(p, cmds[c], strlen(cmds[c]), NULL, &r);
			pol_set_allocator(NULL, NULL);
			int ran_out = alloc_budget < 0;
			if (!ran_out) {
				cr_expect_eq(r.decision, want.decision, "%s", cmds[c]);
				pol_result_release(&r);
				break;
			}
			if (want.decision == POL_DENY)
				cr_expect_eq(r.decision, POL_DENY, "%s with %d allocations: %s",
					     cmds[c], n, r.rule_id ? r.rule_id : "allowed");
			else
				cr_expect(r.decision == want.decision ||
					      (r.decision == POL_DENY && r.rule_id &&
					       !strcmp(r.rule_id, "shell.analysis_failed")),
					  "%s with %d allocations", cmds[c], n);
			pol_result_release(&r);
		}
		cr_expect_lt(n, 200, "%s never had all its allocations", cmds[c]);
		pol_result_release(&want);
	}
	pol_free(p);
}

/* ---- command rules with owners --------------------------------------------------------- */

/* The exec of argv by the program exe running with the arguments args (NUL-separated,
 * as /proc/PID/cmdline; NULL: unknown), as a runtime layer checks it (exe NULL: the
 * hook's check, or a runtime layer that has not read it). */
static enum pol_decision exec_by(const struct pol_policy *p, char *const argv[], const char *exe,
				 const char *args, size_t args_len, unsigned flags)
{
	struct pol_ctx ctx = {
	    .cwd = root, .flags = flags, .exe = exe, .args = args, .args_len = args_len};
	struct pol_result r;
	enum pol_decision d = pol_check_argv(p, argv, &ctx, &r);

	pol_result_release(&r);
	return d;
}

#define ARGS(s) s, sizeof(s)

/* At runtime the system's git, running its own stash, may run the `git reset --hard`
 * that stash needs: the embedded default's rule names 'git stash' among its owners. The
 * same command from a shell, from a copy of git outside the owner folders, from git
 * running an alias of the user's (alias.x = !git, which git runs as a command of its
 * own), or seen by the hook is still refused. A file's own rule with owners works the
 * same, also through a snapshot. */
Test(decide, a_command_rules_owner_may_run_it_at_runtime_only)
{
	char *const reset[] = {"git", "reset", "--hard", "-q", NULL};
	char *const wipe[] = {"wipe-cache", "--all", NULL};
	static const char yaml[] = "rules:\n"
				   "  - id: t.wipe\n"
				   "    pattern: '^wipe-cache\\b'\n"
				   "    reason: loses the cache\n"
				   "    owners: ['git stash']\n";
	static const char stash[] = "git\0stash\0push\0-q";
	static const char stash_opts[] = "/usr/bin/git\0-C\0/tmp/r\0-c\0a=b\0stash";
	static const char dashed[] = "/usr/lib/git-core/git-stash\0push";
	static const char alias[] = "git\0-c\0alias.x=!git\0x\0reset\0--hard";
	static const char alias_stash_arg[] = "git\0x\0stash";
	static const char status[] = "git\0status";
	const unsigned rt = POL_CTX_RUNTIME;
	struct pol_policy *p = new_policy(), *q = new_policy();
	size_t len;
	char *snap;

	cr_assert_eq(pol_load_embedded(p), 0);
	cr_assert_eq(pol_load_buffer(p, "decide-test.yaml", yaml, strlen(yaml)), 0);
	cr_assert_eq(pol_diag_count(p), 0);
	snap = pol_snapshot_save(p, &len);
	cr_assert_not_null(snap);
	cr_assert_eq(pol_snapshot_load(q, snap, len), 0);
	free(snap);
	for (int i = 0; i < 2; i++) {
		const struct pol_policy *x = i ? q : p;

		for (int k = 0; k < 2; k++) {
			char *const *argv = k ? wipe : reset;
			const char *git = "/usr/bin/git";

			cr_expect_eq(exec_by(x, argv, git, ARGS(stash), rt), POL_ALLOW, "%d %s", i,
				     argv[0]);
			cr_expect_eq(exec_by(x, argv, git, ARGS(stash_opts), rt), POL_ALLOW,
				     "%d %s", i, argv[0]);
			cr_expect_eq(
			    exec_by(x, argv, "/usr/lib/git-core/git-stash", ARGS(dashed), rt),
			    POL_ALLOW, "%d %s", i, argv[0]);
			cr_expect_eq(exec_by(x, argv, git, ARGS(alias), rt), POL_DENY, "%d %s", i,
				     argv[0]);
			cr_expect_eq(exec_by(x, argv, git, ARGS(alias_stash_arg), rt), POL_DENY,
				     "%d %s", i, argv[0]);
			cr_expect_eq(exec_by(x, argv, git, ARGS(status), rt), POL_DENY, "%d %s", i,
				     argv[0]);
			cr_expect_eq(exec_by(x, argv, git, NULL, 0, rt), POL_DENY, "%d %s", i,
				     argv[0]);
			cr_expect_eq(exec_by(x, argv, "/bin/bash", ARGS(stash), rt), POL_DENY,
				     "%d %s", i, argv[0]);
			cr_expect_eq(exec_by(x, argv, "/tmp/proj/git", ARGS(stash), rt), POL_DENY,
				     "%d %s", i, argv[0]);
			cr_expect_eq(exec_by(x, argv, NULL, ARGS(stash), rt), POL_DENY, "%d %s", i,
				     argv[0]);
			cr_expect_eq(exec_by(x, argv, git, ARGS(stash), 0), POL_DENY, "%d %s", i,
				     argv[0]);
			/* code from outside the system folders runs in that git */
			cr_expect_eq(exec_by(x, argv, git, ARGS(stash), rt | POL_CTX_FOREIGN_CODE),
				     POL_DENY, "%d %s", i, argv[0]);
		}
	}
	/* the same for a path rule's owner: git keeps .git/ up to date, code preloaded
	 * into it does not */
	char head[PATH_MAX];
	struct pol_ctx gctx = {.cwd = root, .flags = rt, .exe = "/usr/bin/git"};
	struct pol_result pr;

	snprintf(head, sizeof(head), "%s/.git/HEAD", root);
	cr_expect_eq(pol_check_path(p, head, POL_OP_DELETE, 0, &gctx, &pr), POL_ALLOW);
	pol_result_release(&pr);
	gctx.flags |= POL_CTX_FOREIGN_CODE;
	cr_expect_eq(pol_check_path(p, head, POL_OP_DELETE, 0, &gctx, &pr), POL_DENY);
	pol_result_release(&pr);
	/* git gc's own `git reflog expire --all` uses the repository's expiry (90/30 days
	 * by default): it passes; an expiry of now, given by whoever runs it, does not (the
	 * reflog's rule has no owner), nor writing one into the config gc reads */
	char *const reflog[] = {"git", "reflog", "expire", "--all", NULL};
	char *const reflog_now[] = {"git", "reflog", "expire", "--expire=now", "--all", NULL};
	char *const config_now[] = {"git", "config", "gc.reflogExpire", "now", NULL};
	static const char gc[] = "git\0gc";
	cr_expect_eq(exec_by(p, reflog, "/usr/bin/git", ARGS(gc), rt), POL_ALLOW);
	cr_expect_eq(exec_by(p, reflog_now, "/usr/bin/git", ARGS(gc), rt), POL_DENY);
	cr_expect_eq(exec_by(p, config_now, "/usr/bin/git", ARGS(gc), rt), POL_DENY);
	pol_free(p);
	pol_free(q);
}

Test(decide, owners_of_a_command_rule_must_be_programs)
{
	static const char yaml[] = "rules:\n"
				   "  - id: t.x\n"
				   "    pattern: '^x\\b'\n"
				   "    reason: r\n"
				   "    owners: [':nobody']\n";
	struct pol_policy *p = new_policy();

	pol_load_buffer(p, "decide-test.yaml", yaml, strlen(yaml));
	cr_expect_eq(pol_diag_count(p), 1);
	cr_expect(pol_diag_count(p) && strstr(pol_diag_get(p, 0)->msg, "owners must be"));
	pol_free(p);
}

/* A path decision never knows the program's subcommand: a path entry's owner with one
 * would never match, and is said, naming the program alone as the way to write it. */
Test(decide, a_path_entrys_owner_has_no_subcommand)
{
	static const char yaml[] = "noDeletePaths:\n"
				   "  - {path: build/, owners: ['make clean']}\n";
	struct pol_policy *p = new_policy();

	pol_load_buffer(p, "decide-test.yaml", yaml, strlen(yaml));
	cr_expect_eq(pol_diag_count(p), 1);
	cr_expect(pol_diag_count(p) &&
		  strstr(pol_diag_get(p, 0)->msg, "applies to command rules only") &&
		  strstr(pol_diag_get(p, 0)->msg, "(make)"));
	pol_free(p);
}

/* ---- inline scripts at runtime ---------------------------------------------------------- */

static enum pol_decision exec_check(const struct pol_policy *p, char *const argv[], unsigned flags)
{
	struct pol_ctx ctx = {.cwd = root, .flags = flags};
	struct pol_result r;
	enum pol_decision d = pol_check_argv(p, argv, &ctx, &r);

	pol_result_release(&r);
	return d;
}

/* Under the runtime layers an inline script that deletes files or runs a command is
 * judged by each file it touches and each command it runs (`npm run clean` as
 * `node -e "fs.rmSync('dist', ...)"`), unless it could aim at the root, the home folder
 * or a disk, which is still refused at exec; the hook still refuses all of them. A
 * command line handed to a shell as one literal is judged as that command, in both. */
Test(decide, inline_scripts_are_judged_by_their_calls_at_runtime)
{
	static const struct {
		const char *argv[5];
		enum pol_decision runtime;
	} cases[] = {
	    {{"python3", "-c", "import shutil; shutil.rmtree(\"build\")"}, POL_ALLOW},
	    {{"node", "-e", "require('fs').rmSync('dist',{recursive:true,force:true})"}, POL_ALLOW},
	    {{"node", "-e", "require('child_process').execFileSync('ls')"}, POL_ALLOW},
	    {{"python3", "-c", "import os, sys; os.system(sys.argv[1])"}, POL_ALLOW},
	    /* a literal command line is judged as that command: by its files, or at exec */
	    {{"python3", "-c", "import os; os.system('rm -rf build')"}, POL_ALLOW},
	    {{"python3", "-c", "import os; os.system('git reset --hard')"}, POL_DENY},
	    {{"/home/someone/.pyenv/versions/3.11.7/bin/python3", "-c",
	      "import shutil; shutil.rmtree('build')"},
	     POL_ALLOW},
	    {{"python3", "-c", "import shutil, os; shutil.rmtree(os.path.expanduser('~'))"},
	     POL_DENY},
	    {{"python3", "-c", "import shutil, pathlib; shutil.rmtree(pathlib.Path.home())"},
	     POL_DENY},
	    {{"node", "-e", "require('fs').rmSync(require('os').homedir(),{recursive:true})"},
	     POL_DENY},
	    {{"python3", "-c", "import shutil; shutil.rmtree('/')"}, POL_DENY},
	    {{"python3", "-c", "import os; os.system('dd if=/dev/zero of=/dev/sda')"}, POL_DENY},
	    {{"python3", "-c", "import shutil, sys; shutil.rmtree(sys.argv[1])", "$H"}, POL_DENY},
	};
	struct pol_policy *p = new_policy();

	cr_assert_eq(pol_load_embedded(p), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[5] = {NULL};

		for (size_t k = 0; k < 4 && cases[i].argv[k]; k++)
			argv[k] = strcmp(cases[i].argv[k], "$H") ? (char *)cases[i].argv[k] : home;
		cr_expect_eq(exec_check(p, argv, POL_CTX_RUNTIME), cases[i].runtime, "%s", argv[2]);
		cr_expect_eq(exec_check(p, argv, 0), POL_DENY, "the hook: %s", argv[2]);
	}
	pol_free(p);
}

/* An empty file at path: 0, or -1. */
static int empty_file(const char *path)
{
	FILE *f = fopen(path, "w");

	return f && fclose(f) == 0 ? 0 : -1;
}

/* Under the runtime layers a command that writes a file that does not exist yet is
 * not refused at exec for a name pattern (*.pem) naming it: the open is checked when it
 * happens, as the exclusive creation of a new file. A file that exists, a file in an
 * anchored zero-access folder, and the hook's own answer stay refused. */
Test(decide, writing_a_new_file_named_like_a_secret_is_judged_at_its_open_at_runtime)
{
	static const struct {
		const char *argv[4];
		enum pol_decision runtime;
	} cases[] = {
	    {{"python3", "-c", "open('new.pem','w').write('a')"}, POL_ALLOW},
	    {{"sh", "-c", "echo x > fixtures/new.key"}, POL_ALLOW},
	    {{"sh", "-c", "echo x >> new.pem"}, POL_ALLOW},
	    {{"python3", "-c", "open('old.pem','w').write('a')"}, POL_DENY},
	    {{"sh", "-c", "echo x > old.pem"}, POL_DENY},
	    {{"sh", "-c", "cat new.pem"}, POL_DENY},
	    {{"sh", "-c", "rm new.pem"}, POL_DENY},
	    {{"sh", "-c", "echo k > ~/.ssh/authorized_keys"}, POL_DENY},
	    {{"sh", "-c", "echo k > ~/.ssh/new.pem"}, POL_DENY},
	};
	struct pol_policy *p = new_policy();
	char old[PATH_MAX], ssh[PATH_MAX];

	snprintf(old, sizeof(old), "%s/old.pem", root);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", home);
	cr_assert_eq(mkdir(ssh, 0700), 0);
	cr_assert_eq(empty_file(old), 0);
	cr_assert_eq(pol_load_embedded(p), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *const *argv = (char *const *)cases[i].argv;

		cr_expect_eq(exec_check(p, argv, POL_CTX_RUNTIME), cases[i].runtime, "%s", argv[2]);
		cr_expect_eq(exec_check(p, argv, 0), POL_DENY, "the hook: %s", argv[2]);
	}
	pol_free(p);
}

/* Listing a file shows its name and metadata, as stat does at runtime: ls -la .env
 * passes; listing a zero-access folder, or reading the file, does not. */
Test(decide, listing_a_secret_file_is_not_reading_it)
{
	static const struct {
		const char *cmd;
		enum pol_decision want;
	} cases[] = {
	    {"ls -la .env", POL_ALLOW},	   {"ls -l certs/server.pem", POL_ALLOW},
	    {"cat .env", POL_DENY},	   {"ls -la ~/.ssh", POL_DENY},
	    {"cd ~ && ls .ssh", POL_DENY}, {"ls -la missing.pem", POL_DENY},
	};
	struct pol_policy *p = new_policy();
	char f[PATH_MAX];

	snprintf(f, sizeof(f), "%s/.env", root);
	cr_assert_eq(empty_file(f), 0);
	snprintf(f, sizeof(f), "%s/certs", root);
	cr_assert_eq(mkdir(f, 0700), 0);
	snprintf(f, sizeof(f), "%s/certs/server.pem", root);
	cr_assert_eq(empty_file(f), 0);
	snprintf(f, sizeof(f), "%s/.ssh", home);
	cr_assert_eq(mkdir(f, 0700), 0);
	cr_assert_eq(pol_load_embedded(p), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pol_ctx ctx = {.cwd = root};
		struct pol_result r;

		cr_expect_eq(pol_check_command(p, cases[i].cmd, strlen(cases[i].cmd), &ctx, &r),
			     cases[i].want, "%s: %s", cases[i].cmd,
			     r.rule_id ? r.rule_id : "allowed");
		pol_result_release(&r);
	}
	pol_free(p);
}
