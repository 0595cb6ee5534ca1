/* test_allowlist.c - the allowlist: by rule ID, by path globs (for commands: the working
 * directory; for paths: the path), by expiry date, across layered files, and through
 * pol_apply_allowlist for decisions a layer makes itself. */
#include "dcg_policy.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_TAG "allow"
#include "tmp_home.h"

TestSuite(allowlist, .init = setup, .fini = teardown, .timeout = 30);

static const char rules_yaml[] = "rules:\n"
				 "  - {id: t.reset, pattern: '^git reset --hard', reason: r}\n"
				 "  - {id: t.clean, pattern: '^git clean', reason: r}\n"
				 "  - {id: other.drop, pattern: '^dropdb', reason: r}\n"
				 "readOnlyPaths: [/srv/data/]\n";

static struct pol_policy *policy_with(const char *allow_yaml)
{
	struct pol_policy *p = pol_new(0);

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, home), 0);
	cr_assert_eq(pol_set_root(p, root), 0);
	cr_assert_eq(pol_load_buffer(p, "rules.yaml", rules_yaml, strlen(rules_yaml)), 0);
	if (allow_yaml)
		cr_assert_eq(pol_load_buffer(p, "allow.yaml", allow_yaml, strlen(allow_yaml)), 0);
	cr_assert_eq(pol_diag_count(p), 0, "%s", pol_diag_count(p) ? pol_diag_get(p, 0)->msg : "");
	return p;
}

static enum pol_decision cmd_at(const struct pol_policy *p, const char *c, const char *cwd,
				time_t now, struct pol_result *r)
{
	struct pol_ctx ctx = {.cwd = cwd, .flags = POL_CTX_NO_ANALYSIS, .now = now};

	return pol_check_command(p, c, strlen(c), &ctx, r);
}

static time_t utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = {.tm_year = y - 1900,
			.tm_mon = mo - 1,
			.tm_mday = d,
			.tm_hour = h,
			.tm_min = mi,
			.tm_sec = s};

	return timegm(&tm);
}

Test(allowlist, entry_by_rule_id_lets_that_rule_pass)
{
	struct pol_policy *p = policy_with("allow:\n  - {rule: t.reset, reason: scratch repo}\n");
	struct pol_result r;

	cr_expect_eq(cmd_at(p, "git reset --hard", root, 0, &r), POL_ALLOW);
	cr_expect_eq(r.allowed_by_allowlist, 1);
	cr_expect_str_eq(r.rule_id ? r.rule_id : "", "t.reset", "the record still names the rule");
	cr_expect_eq(cmd_at(p, "git clean -fdx", root, 0, &r), POL_DENY, "other rules still hold");
	cr_expect_eq(r.allowed_by_allowlist, 0);
	pol_free(p);
}

Test(allowlist, without_an_entry_the_rule_denies)
{
	struct pol_policy *p = policy_with(NULL);
	struct pol_result r;

	cr_expect_eq(cmd_at(p, "git reset --hard", root, 0, &r), POL_DENY);
	cr_expect_eq(r.allowed_by_allowlist, 0);
	pol_free(p);
}

Test(allowlist, a_rule_id_that_names_no_rule_allows_nothing)
{
	struct pol_policy *p = policy_with("allow:\n  - {rule: t.rese, reason: typo}\n");
	struct pol_result r;

	cr_expect_eq(cmd_at(p, "git reset --hard", root, 0, &r), POL_DENY);
	pol_free(p);
}

Test(allowlist, paths_limit_a_command_entry_to_working_directories)
{
	struct pol_policy *p = policy_with("allow:\n  - rule: t.reset\n    reason: scratch only\n"
					   "    paths: [~/scratch/**, sandbox/]\n");
	char cwd[PATH_MAX];
	struct pol_result r;

	snprintf(cwd, sizeof(cwd), "%s/scratch/repo", home);
	cr_expect_eq(cmd_at(p, "git reset --hard", cwd, 0, &r), POL_ALLOW, "~/scratch/** holds");
	snprintf(cwd, sizeof(cwd), "%s/sandbox", root);
	cr_expect_eq(cmd_at(p, "git reset --hard", cwd, 0, &r), POL_ALLOW,
		     "a relative entry hangs at the project root");
	snprintf(cwd, sizeof(cwd), "%s/sandbox/deep/er", root);
	cr_expect_eq(cmd_at(p, "git reset --hard", cwd, 0, &r), POL_ALLOW, "and covers beneath");
	snprintf(cwd, sizeof(cwd), "%s/work", home);
	cr_expect_eq(cmd_at(p, "git reset --hard", cwd, 0, &r), POL_DENY, "elsewhere it denies");
	cr_expect_eq(cmd_at(p, "git reset --hard", root, 0, &r), POL_DENY);
	snprintf(cwd, sizeof(cwd), "%s/scratchpad", home);
	cr_expect_eq(cmd_at(p, "git reset --hard", cwd, 0, &r), POL_DENY);
	pol_free(p);
}

Test(allowlist, paths_limit_a_path_rule_entry_to_those_paths)
{
	struct pol_policy *p = policy_with("allow:\n  - rule: policy.read_only.1\n"
					   "    reason: regenerating fixtures is fine\n"
					   "    paths: [/srv/data/fixtures/**]\n");
	struct pol_result r;

	cr_expect_eq(pol_check_path(p, "/srv/data/fixtures/a.json", POL_OP_WRITE, 0, NULL, &r),
		     POL_ALLOW);
	cr_expect_eq(r.allowed_by_allowlist, 1);
	cr_expect_eq(pol_check_path(p, "/srv/data/prod.db", POL_OP_WRITE, 0, NULL, &r), POL_DENY);
	/* the entry names the rule by its old positional ID, which stays an alias of the
	 * ID the rule now takes from its pattern */
	cr_expect_str_eq(r.rule_id ? r.rule_id : "", "policy.read_only.srv_data");
	pol_free(p);
}

/* An entry meant for some paths must never become an entry for every path because its
 * paths were malformed. */
Test(allowlist, entry_whose_paths_are_all_malformed_allows_nothing)
{
	static const char *const paths[] = {"[{a: b}]", "[[x]]", "[]", "''", "{x: y}"};

	for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
		struct pol_policy *p = policy_with(NULL);
		char y[256], cwd[PATH_MAX];
		struct pol_result r;

		snprintf(y, sizeof(y), "allow:\n  - {rule: t.reset, reason: x, paths: %s}\n",
			 paths[k]);
		pol_load_buffer(p, "bad-paths.yaml", y, strlen(y));
		cr_expect_geq(pol_diag_count(p), 1, "paths: %s is reported", paths[k]);
		snprintf(cwd, sizeof(cwd), "%s/anywhere", home);
		cr_expect_eq(cmd_at(p, "git reset --hard", cwd, 0, &r), POL_DENY,
			     "paths: %s allows nothing", paths[k]);
		pol_free(p);
	}
}

Test(allowlist, entry_with_some_malformed_paths_keeps_the_good_ones)
{
	struct pol_policy *p = policy_with(NULL);
	static const char y[] =
	    "allow:\n  - {rule: t.reset, reason: x, paths: [[bad], sandbox/]}\n";
	char cwd[PATH_MAX];
	struct pol_result r;

	pol_load_buffer(p, "some-bad.yaml", y, sizeof(y) - 1);
	cr_expect_eq(pol_diag_count(p), 1);
	snprintf(cwd, sizeof(cwd), "%s/sandbox", root);
	cr_expect_eq(cmd_at(p, "git reset --hard", cwd, 0, &r), POL_ALLOW);
	cr_expect_eq(cmd_at(p, "git reset --hard", home, 0, &r), POL_DENY);
	pol_free(p);
}

Test(allowlist, expiry_date_holds_through_its_day_in_utc)
{
	struct pol_policy *p = policy_with(
	    "allow:\n  - {rule: t.reset, reason: until mid June, expires: 2030-06-15}\n");
	struct pol_result r;

	cr_expect_eq(cmd_at(p, "git reset --hard", root, utc(2030, 6, 1, 0, 0, 0), &r), POL_ALLOW);
	cr_expect_eq(cmd_at(p, "git reset --hard", root, utc(2030, 6, 15, 23, 59, 59), &r),
		     POL_ALLOW, "the expiry day itself is included");
	cr_expect_eq(cmd_at(p, "git reset --hard", root, utc(2030, 6, 16, 0, 0, 0), &r), POL_DENY,
		     "the next day it has expired");
	cr_expect_eq(cmd_at(p, "git reset --hard", root, utc(2031, 1, 1, 0, 0, 0), &r), POL_DENY);
	pol_free(p);
}

Test(allowlist, expired_entry_in_the_past_allows_nothing_today)
{
	struct pol_policy *p =
	    policy_with("allow:\n  - {rule: t.reset, reason: long ago, expires: 2001-01-01}\n");
	struct pol_result r;

	cr_expect_eq(cmd_at(p, "git reset --hard", root, 0, &r), POL_DENY);
	pol_free(p);
}

Test(allowlist, an_expired_entry_does_not_hide_a_later_valid_one)
{
	struct pol_policy *p =
	    policy_with("allow:\n  - {rule: t.reset, reason: old, expires: 2001-01-01}\n"
			"  - {rule: t.reset, reason: current}\n");
	struct pol_result r;

	cr_expect_eq(cmd_at(p, "git reset --hard", root, 0, &r), POL_ALLOW);
	pol_free(p);
}

Test(allowlist, bad_dates_are_refused_with_a_diagnostic)
{
	static const char *const dates[] = {
	    "2030-13-01", "2030-02-30x", "tomorrow",   "30/06/2030",
	    "",		  "2030-02-30",	 "2030-04-31", "2030-00-10"};

	for (size_t k = 0; k < sizeof(dates) / sizeof(dates[0]); k++) {
		struct pol_policy *p = policy_with(NULL);
		char y[256];
		struct pol_result r;

		snprintf(y, sizeof(y), "allow:\n  - {rule: t.reset, reason: x, expires: '%s'}\n",
			 dates[k]);
		pol_load_buffer(p, "bad-date.yaml", y, strlen(y));
		cr_expect_eq(pol_diag_count(p), 1, "expires '%s' is reported", dates[k]);
		cr_expect_eq(cmd_at(p, "git reset --hard", root, 0, &r), POL_DENY,
			     "expires '%s' allows nothing", dates[k]);
		pol_free(p);
	}
}

Test(allowlist, entry_in_a_later_file_lifts_a_rule_of_the_embedded_defaults)
{
	struct pol_policy *p = pol_new(0);
	static const char y[] = "allow:\n  - {rule: core.git.reset_hard, reason: scratch}\n";
	struct pol_result r;

	cr_assert_not_null(p);
	pol_set_root(p, root);
	cr_assert_eq(pol_load_embedded(p), 0);
	cr_expect_eq(cmd_at(p, "git reset --hard", root, 0, &r), POL_DENY);
	cr_assert_eq(pol_load_buffer(p, "user.yaml", y, sizeof(y) - 1), 0);
	cr_expect_eq(cmd_at(p, "git reset --hard", root, 0, &r), POL_ALLOW);
	cr_expect_str_eq(r.rule_id ? r.rule_id : "", "core.git.reset_hard");
	pol_free(p);
}

Test(allowlist, only_the_allowed_rule_passes_when_several_match)
{
	static const char extra[] = "rules:\n  - {id: t.any_reset, pattern: 'reset', reason: r, "
				    "severity: medium}\n"
				    "allow:\n  - {rule: t.reset, reason: ok}\n";
	struct pol_policy *p = policy_with(NULL);
	struct pol_result r;

	cr_assert_eq(pol_load_buffer(p, "extra.yaml", extra, sizeof(extra) - 1), 0);
	cr_expect_eq(cmd_at(p, "git reset --hard", root, 0, &r), POL_WARN,
		     "t.reset is allowed, t.any_reset still warns");
	cr_expect_str_eq(r.rule_id ? r.rule_id : "", "t.any_reset");
	pol_free(p);
}

Test(allowlist, apply_allowlist_on_a_result_a_layer_made_itself)
{
	struct pol_policy *p = policy_with(
	    "allow:\n  - {rule: scope.outside, reason: docs may be edited, paths: [docs/]}\n");
	struct pol_result r;
	char path[PATH_MAX];

	pol_result_init(&r);
	r.decision = POL_DENY;
	r.rule_id = "scope.outside";
	snprintf(path, sizeof(path), "%s/docs/index.md", root);
	pol_apply_allowlist(p, NULL, path, &r);
	cr_expect_eq(r.decision, POL_ALLOW);
	cr_expect_eq(r.allowed_by_allowlist, 1);

	pol_result_init(&r);
	r.decision = POL_ASK;
	r.rule_id = "scope.outside";
	snprintf(path, sizeof(path), "%s/src/main.c", root);
	pol_apply_allowlist(p, NULL, path, &r);
	cr_expect_eq(r.decision, POL_ASK);

	pol_result_init(&r);
	r.decision = POL_DENY; /* no rule ID: nothing to look up */
	pol_apply_allowlist(p, NULL, path, &r);
	cr_expect_eq(r.decision, POL_DENY);
	pol_free(p);
}

Test(allowlist, entries_keep_their_origin_in_the_listing_file)
{
	struct pol_policy *p =
	    policy_with("allow:\n  - {rule: t.reset, reason: a}\n  - {rule: t.clean, reason: b}\n");

	cr_expect_eq(pol_file_count(p), 2);
	cr_expect_str_eq(pol_file_name(p, 1), "allow.yaml");
	pol_free(p);
}
