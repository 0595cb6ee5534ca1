/* test_once.c - allow-once codes (policy/once.c): a code is offered once per command and
 * folder, a grant lets that exact command pass in that folder for its uses and no
 * longer, a hook's use lets the command's own execs follow, revocations and expiry
 * hold, and no code is offered for what the user may not allow.
 *
 * Every test has its own state folder ($XDG_STATE_HOME in a temporary folder). */
#include "dcg_policy.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/dcg-test-once.XXXXXX";
static char repo[300], sub[400], other[300];
static const time_t T0 = 1800000000;

static void setup(void)
{
	char b[1400];

	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(b, sizeof(b), "%s/state", tmpdir);
	setenv("XDG_STATE_HOME", b, 1);
	unsetenv("DCG_TRUST_FILE");
	snprintf(repo, sizeof(repo), "%s/repo", tmpdir);
	snprintf(sub, sizeof(sub), "%s/src/deep", repo);
	snprintf(other, sizeof(other), "%s/other", tmpdir);
	snprintf(b, sizeof(b), "mkdir -p '%s/.git' '%s' '%s'", repo, sub, other);
	cr_assert_eq(system(b), 0);
}

static void teardown(void)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	cr_assert_eq(system(cmd), 0);
	memcpy(tmpdir + strlen(tmpdir) - 6, "XXXXXX", 6);
}

TestSuite(once, .init = setup, .fini = teardown);

static const char CMD[] = "git reset --hard HEAD~1";

/* Offers a code for cmd in folder and grants it (uses, for `secs` from T0). */
static void offer_and_grant(const char *folder, const char *cmd, unsigned uses, long secs,
			    char code[12])
{
	struct pol_once_entry *v;
	size_t n;
	int found = 0;

	cr_assert_eq(pol_once_offer(folder, cmd, strlen(cmd), "core.git.reset_hard", T0, code), 0);
	cr_assert_eq(pol_once_load(&v, &n), 0);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].code, code)) {
			cr_assert_eq(pol_once_grant(&v[i], T0 + secs, uses), 0);
			found = 1;
		}
	pol_once_list_release(v, n);
	cr_assert(found, "the offered code %s is listed", code);
}

Test(once, a_code_is_random_and_offered_once_per_command_and_folder)
{
	char a[12], b[12], c[12], d[12];

	cr_assert_eq(pol_once_offer(repo, CMD, strlen(CMD), "core.git.reset_hard", T0, a), 0);
	cr_assert_eq(strlen(a), POL_ONCE_CODE_CHARS);
	cr_assert_eq(strspn(a, "0123456789ABCDEFGHJKMNPQRSTVWXYZ"), POL_ONCE_CODE_CHARS);
	cr_assert_eq(pol_once_offer(repo, CMD, strlen(CMD), "core.git.reset_hard", T0 + 60, b), 0);
	cr_assert_str_eq(a, b, "the same refusal again keeps its code");
	cr_assert_eq(pol_once_offer(other, CMD, strlen(CMD), "core.git.reset_hard", T0, c), 0);
	cr_assert_str_neq(a, c, "another folder, another code");
	cr_assert_eq(pol_once_offer(repo, "git reset --hard", 16, "core.git.reset_hard", T0, d), 0);
	cr_assert_str_neq(a, d, "another command, another code");
	cr_assert_eq(pol_once_offer(repo, CMD, strlen(CMD), "core.git.reset_hard",
				    T0 + POL_ONCE_OFFER_TTL + 1, b),
		     0);
	cr_assert_str_neq(a, b, "an expired offer is not offered again");
}

Test(once, a_grant_lets_that_exact_command_pass_once_in_that_folder)
{
	char code[12];

	offer_and_grant(repo, CMD, 1, 3600, code);
	cr_assert_eq(pol_once_use(repo, "git reset --hard HEAD~2", 23, POL_ONCE_USE_HOOK, 0, T0), 0,
		     "another command");
	cr_assert_eq(pol_once_use(other, CMD, strlen(CMD), POL_ONCE_USE_HOOK, 0, T0), 0,
		     "another folder");
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD) - 1, POL_ONCE_USE_HOOK, 0, T0), 0,
		     "a prefix of the command");
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_HOOK, 1, T0), 1,
		     "dry: there");
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_HOOK, 0, T0), 1);
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_HOOK, 0, T0), 0,
		     "one use only");
}

Test(once, uses_and_expiry)
{
	char code[12];

	offer_and_grant(repo, CMD, 3, 1800, code);
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_EXEC, 0, T0), 1);
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_EXEC, 0, T0 + 10), 1);
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_EXEC, 0, T0 + 1801), 0,
		     "expired with a use left");
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_EXEC, 0, T0 + 20), 1);
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_EXEC, 0, T0 + 30), 0,
		     "three uses");
}

Test(once, a_hooks_use_lets_the_commands_own_execs_follow)
{
	static const char whole[] = "cd src && git reset --hard HEAD~1 && make";
	char code[12];

	offer_and_grant(repo, whole, 1, 3600, code);
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_EXEC, 0, T0), 0,
		     "no exec follows before the hook's use");
	cr_assert_eq(pol_once_use(repo, whole, strlen(whole), POL_ONCE_USE_HOOK, 0, T0), 1);
	cr_assert_eq(pol_once_use(repo, "git reset --hard HEAD", 21, POL_ONCE_USE_EXEC, 0, T0), 0,
		     "not a whole word of the command");
	cr_assert_eq(pol_once_use(repo, "rm -rf /", 8, POL_ONCE_USE_EXEC, 0, T0), 0);
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_EXEC, 0, T0 + 1), 1);
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_EXEC, 0,
				  T0 + POL_ONCE_FOLLOW_SECS + 5),
		     0, "a follow only shortly after the hook's use");
	for (int i = 1; i < POL_ONCE_FOLLOWS; i++)
		cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_EXEC, 0, T0 + 2), 1);
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_EXEC, 0, T0 + 2), 0,
		     "at most POL_ONCE_FOLLOWS");
}

Test(once, revoked_codes_grant_nothing)
{
	char a[12], b[12];

	offer_and_grant(repo, CMD, 5, 3600, a);
	offer_and_grant(repo, "git clean -fdx", 5, 3600, b);
	cr_assert_eq(pol_once_revoke(a), 0);
	cr_assert_eq(pol_once_use(repo, CMD, strlen(CMD), POL_ONCE_USE_HOOK, 0, T0), 0);
	cr_assert_eq(pol_once_use(repo, "git clean -fdx", 14, POL_ONCE_USE_HOOK, 0, T0), 1);
	cr_assert_eq(pol_once_revoke(NULL), 0);
	cr_assert_eq(pol_once_use(repo, "git clean -fdx", 14, POL_ONCE_USE_HOOK, 0, T0), 0);
	cr_assert_eq(pol_once_compact(T0), 0);
	struct pol_once_entry *v;
	size_t n;
	cr_assert_eq(pol_once_load(&v, &n), 0);
	cr_assert_eq(n, 0, "compaction drops revoked codes, %zu left", n);
	pol_once_list_release(v, n);
}

Test(once, the_folder_is_the_repository_root)
{
	char out[4096];

	cr_assert_eq(pol_once_folder(sub, out, sizeof(out)), 0);
	cr_assert_str_eq(out, repo);
	cr_assert_eq(pol_once_folder(other, out, sizeof(out)), 0);
	cr_assert_str_eq(out, other);
}

Test(once, codes_as_typed)
{
	char c[12];

	cr_assert_eq(pol_once_code_parse("k7q2-m9xd", c), 0);
	cr_assert_str_eq(c, "K7Q2M9XD");
	cr_assert_eq(pol_once_code_parse("IOLO 0000", c), 0);
	cr_assert_str_eq(c, "10100000");
	cr_assert_eq(pol_once_code_parse("K7Q2M9X", c), -EINVAL);
	cr_assert_eq(pol_once_code_parse("K7Q2M9XDD", c), -EINVAL);
	cr_assert_eq(pol_once_code_parse("K7Q2M9XU", c), -EINVAL);
}

Test(once, no_code_for_what_the_user_may_not_allow)
{
	static const char sys[] = "rules:\n  - id: site.no_deploy\n    pattern: '^deploy\\b'\n"
				  "    reason: deploys go through CI\n    severity: high\n";
	struct pol_policy *p = pol_new(0);
	struct pol_result r;
	struct pol_ctx ctx = {.cwd = repo};
	char path[600];
	FILE *f;

	cr_assert_not_null(p);
	cr_assert_eq(pol_load_embedded(p), 0);
	pol_result_init(&r);
	cr_assert_eq(pol_check_command(p, CMD, strlen(CMD), &ctx, &r), POL_DENY);
	cr_assert(pol_once_offerable(p, &r));
	pol_result_release(&r);
	pol_result_init(&r);
	cr_assert_eq(pol_check_command(p, "dcg allow-once K7Q2M9XD", 23, &ctx, &r), POL_DENY);
	cr_assert_str_eq(r.rule_id, "system.dcg_self_change");
	cr_assert_not(pol_once_offerable(p, &r), "the agent's own dcg allow-once");
	pol_result_release(&r);
	pol_free(p);

	/* a system file's rule, not overridable */
	snprintf(path, sizeof(path), "%s/system.yaml", tmpdir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(sys, f);
	fclose(f);
	struct pol_env env = {.home = tmpdir, .cwd = repo, .system_file = path, .no_user = 1};
	p = pol_new(0);
	pol_load_layers(p, &env);
	pol_result_init(&r);
	cr_assert_eq(pol_check_command(p, "deploy prod", 11, &ctx, &r), POL_DENY);
	cr_assert_str_eq(r.rule_id, "site.no_deploy");
	cr_assert_not(pol_once_offerable(p, &r), "a system rule");
	r.decision = POL_DENY;
	cr_assert_eq(pol_once_exec(p, "deploy prod", repo, 0, &r, POL_DENY), POL_DENY);
	cr_assert_eq(r.once_code[0], '\0');
	pol_result_release(&r);
	pol_free(p);
}

Test(once, the_runtime_check_offers_then_honours_a_grant)
{
	struct pol_policy *p = pol_new(0);
	struct pol_result r;
	struct pol_ctx ctx = {.cwd = sub};
	struct pol_once_entry *v;
	size_t n;

	cr_assert_eq(pol_load_embedded(p), 0);
	pol_result_init(&r);
	enum pol_decision d = pol_check_command(p, CMD, strlen(CMD), &ctx, &r);
	cr_assert_eq(pol_once_exec(p, CMD, sub, 0, &r, d), POL_DENY);
	cr_assert_eq(strlen(r.once_code), POL_ONCE_CODE_CHARS);
	cr_assert_eq(pol_once_load(&v, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(v[0].folder, repo, "bound to the repository, not the subfolder");
	cr_assert_eq(pol_once_grant(&v[0], time(NULL) + 60, 1), 0);
	pol_once_list_release(v, n);
	pol_result_release(&r);
	pol_result_init(&r);
	d = pol_check_command(p, CMD, strlen(CMD), &ctx, &r);
	cr_assert_eq(pol_once_exec(p, CMD, repo, 1, &r, d), POL_ALLOW, "dry: there");
	pol_result_release(&r);
	pol_result_init(&r);
	d = pol_check_command(p, CMD, strlen(CMD), &ctx, &r);
	cr_assert_eq(pol_once_exec(p, CMD, sub, 0, &r, d), POL_ALLOW);
	cr_assert(r.allowed_by_once);
	pol_result_release(&r);
	pol_result_init(&r);
	d = pol_check_command(p, CMD, strlen(CMD), &ctx, &r);
	cr_assert_eq(pol_once_exec(p, CMD, sub, 0, &r, d), POL_DENY, "used");
	pol_result_release(&r);
	pol_free(p);
}
