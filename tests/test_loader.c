/* test_loader.c - loading policy files: valid, broken and hostile YAML, the layers,
 * and the damage-control fixture as its users wrote it.
 *
 * Data files: the .yaml files in tests/data/policy/loader/. Big hostile files are generated into a
 * temporary folder at run time rather than committed. */
#include "dcg_policy.h"
#include "dc_fixture.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA "tests/data/policy/loader/"

static char tmpdir[] = "/tmp/dcg-test-loader.XXXXXX";

static void teardown(void);

/* A skipped test does not reach the suite's .fini: the removal is also left to atexit. */
static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir));
	atexit(teardown);
}

static void teardown(void)
{
	static int done;
	char cmd[256];

	if (done++)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmpdir);
}

TestSuite(loader, .init = setup, .fini = teardown, .timeout = 60);

/* A fresh, empty policy with home and root in the temporary folder. */
static struct pol_policy *new_policy(void)
{
	struct pol_policy *p = pol_new(0);
	char buf[512];

	cr_assert_not_null(p);
	snprintf(buf, sizeof(buf), "%s/home", tmpdir);
	mkdir(buf, 0700);
	cr_assert_eq(pol_set_home(p, buf), 0);
	snprintf(buf, sizeof(buf), "%s/proj", tmpdir);
	mkdir(buf, 0700);
	cr_assert_eq(pol_set_root(p, buf), 0);
	return p;
}

/* Rules of one kind that came from a file whose name ends with suffix. */
static size_t count_rules(const struct pol_policy *p, const char *suffix, int kind, int path_kind)
{
	size_t n = 0, sl = strlen(suffix);

	for (size_t i = 0; i < pol_rule_count(p); i++) {
		struct pol_rule_info in;

		cr_assert_eq(pol_rule_get(p, i, &in), 0);
		size_t ol = strlen(in.origin);
		if (ol < sl || strcmp(in.origin + ol - sl, suffix) != 0)
			continue;
		if ((int)in.kind != kind)
			continue;
		if (kind == POL_RULE_PATH && path_kind >= 0 && (int)in.path_kind != path_kind)
			continue;
		n++;
	}
	return n;
}

/* The first diagnostic whose message contains text, or NULL. */
static const struct pol_diag *find_diag(const struct pol_policy *p, const char *text)
{
	for (size_t i = 0; i < pol_diag_count(p); i++) {
		const struct pol_diag *d = pol_diag_get(p, i);
		if (strstr(d->msg, text))
			return d;
	}
	return NULL;
}

/* With DCG_TEST_VERBOSE set, shows every diagnostic (Criterion's log messages are
 * kept off by default: under ASan with --jobs 2 its runner leaks one per run). */
static void dump_diags(const struct pol_policy *p)
{
	if (!getenv("DCG_TEST_VERBOSE"))
		return;
	for (size_t i = 0; i < pol_diag_count(p); i++) {
		const struct pol_diag *d = pol_diag_get(p, i);
		cr_log_info("diag %s:%u:%u [%s] %s%s", d->file, d->line, d->col, d->rule, d->msg,
			    d->fatal ? " (fatal)" : "");
	}
}

static enum pol_decision cmd(const struct pol_policy *p, const char *c, struct pol_result *r)
{
	struct pol_ctx ctx = {.flags = POL_CTX_NO_ANALYSIS};

	return pol_check_command(p, c, strlen(c), &ctx, r);
}

static enum pol_decision cmd_id(const struct pol_policy *p, const char *c, const char **id)
{
	struct pol_result r;
	enum pol_decision d = cmd(p, c, &r);

	*id = r.rule_id;
	pol_result_release(&r);
	return d;
}

/* ---- valid files ----------------------------------------------------------------- */

Test(loader, valid_file_loads_every_key_without_diagnostics)
{
	struct pol_policy *p = new_policy();
	struct pol_rule_info in;
	ssize_t i;

	cr_assert_eq(pol_load_file(p, DATA "valid.yaml"), 0);
	dump_diags(p);
	cr_assert_eq(pol_diag_count(p), 0);
	cr_expect_eq(count_rules(p, "valid.yaml", POL_RULE_COMMAND, -1), 9);
	cr_expect_eq(count_rules(p, "valid.yaml", POL_RULE_SCRIPT, -1), 1);
	cr_expect_eq(count_rules(p, "valid.yaml", POL_RULE_PATH, POL_PATH_ZERO_ACCESS), 2);
	cr_expect_eq(count_rules(p, "valid.yaml", POL_RULE_PATH, POL_PATH_READ_ONLY), 2);
	cr_expect_eq(count_rules(p, "valid.yaml", POL_RULE_PATH, POL_PATH_NO_DELETE), 1);
	cr_expect_eq(pol_file_count(p), 1);
	cr_expect_str_eq(pol_file_name(p, 0), DATA "valid.yaml");

	i = pol_rule_find(p, "test.crit");
	cr_assert_geq(i, 0);
	cr_assert_eq(pol_rule_get(p, (size_t)i, &in), 0);
	cr_expect_eq(in.severity, POL_SEV_CRITICAL);
	cr_expect_eq(in.decision, POL_DENY);
	cr_expect_eq(in.line, 10, "the rule's line in its file");
	cr_expect_str_eq(in.origin, DATA "valid.yaml");
	cr_assert_eq(in.n_suggestions, 3, "two suggestions plus the allow hint");
	cr_expect_str_eq(in.suggestions[0], "Do not nuke everything");
	cr_expect_str_eq(in.suggestions[2], "If intentional: dcg allow test.crit -r \"reason\"");

	i = pol_rule_find(p, "heredoc.python.test_system");
	cr_assert_geq(i, 0);
	pol_rule_get(p, (size_t)i, &in);
	cr_expect_eq(in.kind, POL_RULE_SCRIPT);
	cr_expect_str_eq(in.language, "python");
	pol_free(p);
}

Test(loader, severities_map_to_decisions)
{
	static const struct {
		const char *id;
		enum pol_decision d;
	} cases[] = {
	    {"test.crit", POL_DENY},	{"test.high", POL_DENY}, {"test.medium", POL_WARN},
	    {"test.low", POL_LOG},	{"test.ask", POL_ASK},	 {"policy.bash.1", POL_DENY},
	    {"policy.bash.2", POL_ASK},
	};
	struct pol_policy *p = new_policy();

	cr_assert_eq(pol_load_file(p, DATA "valid.yaml"), 0);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct pol_rule_info in;
		ssize_t i = pol_rule_find(p, cases[k].id);

		cr_assert_geq(i, 0, "%s", cases[k].id);
		pol_rule_get(p, (size_t)i, &in);
		cr_expect_eq(in.decision, cases[k].d, "%s decides %s, not %s", cases[k].id,
			     pol_decision_name(cases[k].d), pol_decision_name(in.decision));
	}
	pol_free(p);
}

Test(loader, damage_control_ids_number_entries_in_file_order)
{
	struct pol_policy *p = new_policy();
	struct pol_rule_info in;
	ssize_t i;

	cr_assert_eq(pol_load_file(p, DATA "valid.yaml"), 0);
	i = pol_rule_find(p, "policy.bash.1");
	cr_assert_geq(i, 0);
	pol_rule_get(p, (size_t)i, &in);
	cr_expect_str_eq(in.pattern, "\\bshred\\s+");
	i = pol_rule_find(p, "policy.bash.2");
	cr_assert_geq(i, 0);
	pol_rule_get(p, (size_t)i, &in);
	cr_expect_str_eq(in.reason, "force push rewrites shared history");
	pol_free(p);
}

Test(loader, packs_key_enables_a_rule_that_is_off_by_default)
{
	struct pol_policy *p = new_policy();
	const char *id;

	cr_assert_eq(pol_load_file(p, DATA "valid.yaml"), 0);
	cr_expect_eq(cmd_id(p, "disabled-by-default now", &id), POL_DENY);
	cr_expect_str_eq(id ? id : "", "test.off");
	pol_free(p);

	/* The same rule without the packs: entry stays off. */
	p = new_policy();
	static const char y[] = "rules:\n  - {id: t.off, pattern: '^off\\b', reason: r, "
				"enabled: false}\n";
	cr_assert_eq(pol_load_buffer(p, "off.yaml", y, sizeof(y) - 1), 0);
	cr_expect_eq(cmd_id(p, "off now", &id), POL_ALLOW);
	pol_free(p);
}

Test(loader, disable_key_turns_a_rule_off_by_id_or_pack_prefix)
{
	static const char y[] = "rules:\n"
				"  - {id: pk.one.a, pattern: '^aaa\\b', reason: r}\n"
				"  - {id: pk.two.b, pattern: '^bbb\\b', reason: r}\n"
				"  - {id: pk.twofold, pattern: '^ccc\\b', reason: r}\n"
				"disable: [pk.one.a, pk.two]\n";
	struct pol_policy *p = new_policy();
	const char *id;

	cr_assert_eq(pol_load_buffer(p, "dis.yaml", y, sizeof(y) - 1), 0);
	cr_expect_eq(cmd_id(p, "aaa", &id), POL_ALLOW);
	cr_expect_eq(cmd_id(p, "bbb", &id), POL_ALLOW);
	cr_expect_eq(cmd_id(p, "ccc", &id), POL_DENY, "pk.two does not disable pk.twofold");
	pol_free(p);
}

/* A typo in 'enabled' must not switch a rule off without a word. */
Test(loader, enabled_that_is_not_a_boolean_is_reported_and_keeps_the_rule_on)
{
	static const char y[] =
	    "rules:\n"
	    "  - {id: t.typo, pattern: '^typo\\b', reason: r, enabled: ture}\n"
	    "  - {id: t.off, pattern: '^off\\b', reason: r, enabled: no}\n"
	    "  - {id: t.case, pattern: '^CASE\\b', reason: r, caseless: maybe}\n";
	struct pol_policy *p = new_policy();
	const char *id;

	pol_load_buffer(p, "typo.yaml", y, sizeof(y) - 1);
	dump_diags(p);
	cr_expect_eq(pol_diag_count(p), 2, "'ture' and 'maybe' are reported");
	cr_expect_not_null(find_diag(p, "'enabled' must be true or false"));
	cr_expect_eq(cmd_id(p, "typo now", &id), POL_DENY, "the rule stays on");
	cr_expect_eq(cmd_id(p, "off now", &id), POL_ALLOW);
	cr_expect_eq(cmd_id(p, "CASE x", &id), POL_DENY);
	pol_free(p);
}

Test(loader, dcg_rules_are_case_sensitive_damage_control_rules_are_not)
{
	struct pol_policy *p = new_policy();
	const char *id;

	cr_assert_eq(pol_load_file(p, DATA "valid.yaml"), 0);
	cr_expect_eq(cmd_id(p, "CaseSensitive x", &id), POL_DENY);
	cr_expect_eq(cmd_id(p, "casesensitive x", &id), POL_ALLOW);
	cr_expect_eq(cmd_id(p, "SHRED -u file", &id), POL_DENY);
	cr_expect_str_eq(id ? id : "", "policy.bash.1");
	pol_free(p);
}

Test(loader, empty_file_loads_no_rules_and_no_diagnostics)
{
	static const char *files[] = {"empty.yaml", "comments_only.yaml", "empty_lists.yaml"};

	for (size_t k = 0; k < 3; k++) {
		struct pol_policy *p = new_policy();
		size_t before = pol_rule_count(p);
		char path[256];

		snprintf(path, sizeof(path), DATA "%s", files[k]);
		cr_expect_eq(pol_load_file(p, path), 0, "%s", files[k]);
		cr_expect_eq(pol_diag_count(p), 0, "%s", files[k]);
		cr_expect_eq(pol_rule_count(p), before, "%s", files[k]);
		pol_free(p);
	}
	/* A zero-length buffer too. */
	struct pol_policy *p = new_policy();
	cr_expect_eq(pol_load_buffer(p, "nothing", "", 0), 0);
	cr_expect_eq(pol_diag_count(p), 0);
	pol_free(p);
}

Test(loader, missing_file_is_enoent_without_diagnostic)
{
	struct pol_policy *p = new_policy();

	cr_expect_eq(pol_load_file(p, DATA "does-not-exist.yaml"), -ENOENT);
	pol_free(p);
}

Test(loader, directory_is_refused_with_a_diagnostic)
{
	struct pol_policy *p = new_policy();

	cr_expect_eq(pol_load_file(p, DATA), -EINVAL);
	cr_assert_eq(pol_diag_count(p), 1);
	cr_expect(pol_diag_get(p, 0)->fatal);
	pol_free(p);
}

/* ---- broken files ------------------------------------------------------------------ */

Test(loader, syntax_error_is_fatal_with_file_line_and_column)
{
	struct pol_policy *p = new_policy();
	const struct pol_diag *d;

	cr_expect_eq(pol_load_file(p, DATA "syntax_error.yaml"), -EINVAL);
	dump_diags(p);
	cr_assert_eq(pol_diag_count(p), 1);
	d = pol_diag_get(p, 0);
	cr_expect(d->fatal);
	cr_expect_str_eq(d->file, DATA "syntax_error.yaml");
	cr_expect_geq(d->line, 4, "the error is at or after the unterminated quote (line 4)");
	cr_expect_gt(d->col, 0);
	cr_expect_not_null(strstr(d->msg, "YAML syntax error"), "%s", d->msg);
	/* libyaml notices the missing quote at the end of the file: the message also says
	 * where the unterminated scalar began. */
	cr_expect_not_null(strstr(d->msg, "line 4, column 14"), "%s", d->msg);
	/* Nothing from a file that does not parse: not even the rule before the error. */
	cr_expect_eq(count_rules(p, "syntax_error.yaml", POL_RULE_COMMAND, -1), 0);
	pol_free(p);
}

Test(loader, syntax_error_leaves_the_embedded_defaults_active)
{
	struct pol_policy *p = new_policy();
	const char *id;

	cr_assert_eq(pol_load_embedded(p), 0);
	cr_expect_eq(pol_load_file(p, DATA "syntax_error.yaml"), -EINVAL);
	cr_expect_eq(cmd_id(p, "git reset --hard HEAD~3", &id), POL_DENY);
	cr_expect_str_eq(id ? id : "", "core.git.reset_hard");
	pol_free(p);
}

Test(loader, tab_indentation_is_a_syntax_error_at_its_line)
{
	struct pol_policy *p = new_policy();
	const struct pol_diag *d;

	cr_expect_eq(pol_load_file(p, DATA "tab_indent.yaml"), -EINVAL);
	cr_assert_eq(pol_diag_count(p), 1);
	d = pol_diag_get(p, 0);
	cr_expect(d->fatal);
	cr_expect_eq(d->line, 2);
	cr_expect_eq(d->col, 1);
	pol_free(p);
}

Test(loader, invalid_utf8_is_refused)
{
	struct pol_policy *p = new_policy();

	cr_expect_eq(pol_load_file(p, DATA "invalid_utf8.yaml"), -EINVAL);
	cr_assert_eq(pol_diag_count(p), 1);
	cr_expect(pol_diag_get(p, 0)->fatal);
	pol_free(p);
}

Test(loader, wrong_types_are_reported_and_the_rest_stays_active)
{
	static const struct {
		unsigned line;
		const char *text;
	} want[] = {
	    {1, "'bashToolPatterns' must be a list"},
	    {3, "'zeroAccessPaths' must be a list"},
	    {5, "a path entry must be"},
	    {12, "'pattern' must be a single value"},
	    {14, "each entry of 'rules' must be a mapping"},
	    {21, "'ask' must be true or false"},
	    {22, "'packs' must be a list"},
	    {23, "'allow' must be a list"},
	};
	struct pol_policy *p = new_policy();
	const char *id;

	/* The header: -EINVAL only when the file was refused whole. */
	cr_expect_eq(pol_load_file(p, DATA "wrong_types.yaml"), 0,
		     "a file with some bad entries is not refused whole");
	dump_diags(p);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		const struct pol_diag *d = find_diag(p, want[k].text);

		cr_expect_not_null(d, "no diagnostic '%s'", want[k].text);
		if (!d)
			continue;
		cr_expect_eq(d->line, want[k].line, "'%s' at line %u, not %u", want[k].text,
			     want[k].line, d->line);
		cr_expect_gt(d->col, 0);
		cr_expect_not(d->fatal);
	}
	cr_expect_eq(cmd_id(p, "still-here now", &id), POL_DENY);
	cr_expect_str_eq(id ? id : "", "wt.good");
	/* ask: maybe is not a yes: the rule denies (fail safe) rather than vanish. */
	cr_expect_eq(cmd_id(p, "ask-maybe", &id), POL_DENY);
	cr_expect_eq(count_rules(p, "wrong_types.yaml", POL_RULE_PATH, POL_PATH_READ_ONLY), 1);
	cr_expect_eq(count_rules(p, "wrong_types.yaml", POL_RULE_PATH, POL_PATH_NO_DELETE), 1);
	pol_free(p);
}

Test(loader, unknown_keys_are_reported_and_ignored)
{
	struct pol_policy *p = new_policy();
	const struct pol_diag *d;
	const char *id;

	cr_expect_eq(pol_load_file(p, DATA "unknown_keys.yaml"), 0,
		     "unknown keys do not refuse the file");
	dump_diags(p);
	cr_expect_eq(pol_diag_count(p), 4);
	d = find_diag(p, "'frobnicate'");
	cr_assert_not_null(d);
	cr_expect_eq(d->line, 5);
	cr_expect_eq(d->col, 1);
	d = find_diag(p, "'colour'");
	cr_assert_not_null(d);
	cr_expect_eq(d->line, 4);
	cr_expect_str_eq(d->rule, "\\bshred\\b", "the rule at fault is named");
	d = find_diag(p, "'priority'");
	cr_assert_not_null(d);
	cr_expect_str_eq(d->rule, "uk.good");
	cr_expect_eq(cmd_id(p, "shred x", &id), POL_DENY);
	cr_expect_eq(cmd_id(p, "still-here", &id), POL_ALLOW, "allow entry with unknown key works");
	pol_free(p);
}

Test(loader, regex_that_does_not_compile_names_its_rule_and_the_rest_stays_active)
{
	struct pol_policy *p = new_policy();
	const struct pol_diag *d;
	const char *id;
	struct pol_rule_info in;

	pol_load_file(p, DATA "bad_regex.yaml");
	dump_diags(p);
	cr_assert_eq(pol_diag_count(p), 2);
	d = pol_diag_get(p, 0);
	cr_expect_str_eq(d->file, DATA "bad_regex.yaml");
	cr_expect_eq(d->line, 4);
	cr_expect_eq(d->col, 14, "the column of the pattern's value");
	cr_expect_str_eq(d->rule, "policy.bash.2");
	cr_expect_not_null(strstr(d->msg, "does not compile"), "%s", d->msg);
	cr_expect_not(d->fatal);
	d = pol_diag_get(p, 1);
	cr_expect_str_eq(d->rule, "br.lookbehind");
	cr_expect_eq(d->line, 10);

	cr_expect_eq(cmd_id(p, "first-good", &id), POL_DENY);
	cr_expect_eq(cmd_id(p, "last-good", &id), POL_DENY);
	cr_expect_str_eq(id ? id : "", "policy.bash.3");
	cr_expect_eq(cmd_id(p, "dcg-rule-good", &id), POL_DENY);
	/* The broken rule decides nothing, and says so in the listing. */
	cr_expect_eq(cmd_id(p, "broken(unclosed", &id), POL_ALLOW);
	cr_assert_eq(pol_rule_get(p, (size_t)pol_rule_find(p, "policy.bash.2"), &in), 0);
	cr_expect_eq(in.decision, POL_ALLOW, "a disabled rule lists as allow");
	pol_free(p);
}

Test(loader, regex_error_makes_the_layered_load_report_errors)
{
	char dir[512], file[600];
	struct pol_policy *p = pol_new(0);
	struct pol_env env = {0};
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/xdg/dcg", tmpdir);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/xdg", tmpdir);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/xdg/dcg", tmpdir);
	mkdir(dir, 0700);
	snprintf(file, sizeof(file), "%s/policy.yaml", dir);
	f = fopen(file, "w");
	cr_assert_not_null(f);
	fputs("bashToolPatterns:\n  - pattern: '(unclosed'\n    reason: broken\n", f);
	fclose(f);
	snprintf(dir, sizeof(dir), "%s/xdg", tmpdir);
	env.home = tmpdir;
	env.cwd = tmpdir;
	env.xdg_config_home = dir;
	env.no_project = 1;
	cr_expect_eq(pol_load_layers(p, &env), -EINVAL, "a file with errors: -EINVAL");
	cr_expect_eq(pol_diag_count(p), 1);
	cr_expect_eq(pol_file_count(p), 2, "embedded and the user file");
	cr_expect_str_eq(pol_file_name(p, 0), "<embedded>");
	cr_expect_str_eq(pol_diag_get(p, 0)->rule, "user.bash.1");
	pol_free(p);
}

Test(loader, dcg_rule_problems_each_get_a_diagnostic)
{
	static const struct {
		unsigned line;
		const char *text, *rule;
	} want[] = {
	    {2, "rule without an id", "^no-id\\b"},
	    {7, "duplicate rule id 'br.dup'", "br.dup"},
	    {10, "unknown severity 'apocalyptic'", "br.sev"},
	    {14, "unknown language 'cobol'", "br.lang"},
	    {18, "without a pattern", "br.nopattern"},
	    {20, "without a pattern", "br.emptypattern"},
	    {24, "allow entry without a rule ID", ""},
	    {25, "allow entry without a reason", "br.sev"},
	    {26, "expires must be a date", "br.sev"},
	};
	struct pol_policy *p = new_policy();
	struct pol_rule_info in;
	const char *id;

	pol_load_file(p, DATA "bad_rules.yaml");
	dump_diags(p);
	cr_expect_eq(pol_diag_count(p), sizeof(want) / sizeof(want[0]));
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]) && k < pol_diag_count(p); k++) {
		const struct pol_diag *d = pol_diag_get(p, k);

		cr_expect_not_null(strstr(d->msg, want[k].text), "diag %zu: '%s' not in '%s'", k,
				   want[k].text, d->msg);
		cr_expect_eq(d->line, want[k].line, "diag %zu at line %u, not %u", k, want[k].line,
			     d->line);
		cr_expect_str_eq(d->rule, want[k].rule, "diag %zu", k);
	}
	/* The first br.dup wins; an unknown severity falls back to high (deny). */
	cr_expect_eq(cmd_id(p, "first", &id), POL_DENY);
	cr_expect_eq(cmd_id(p, "second", &id), POL_ALLOW);
	cr_assert_eq(pol_rule_get(p, (size_t)pol_rule_find(p, "br.sev"), &in), 0);
	cr_expect_eq(in.severity, POL_SEV_HIGH);
	/* Only the last, well-formed allow entry holds. */
	cr_expect_eq(cmd_id(p, "badsev", &id), POL_ALLOW);
	pol_free(p);
}

Test(loader, non_mapping_root_is_reported)
{
	static const char *files[] = {"root_list.yaml", "root_scalar.yaml"};

	for (size_t k = 0; k < 2; k++) {
		struct pol_policy *p = new_policy();
		size_t before = pol_rule_count(p);
		char path[256];

		snprintf(path, sizeof(path), DATA "%s", files[k]);
		pol_load_file(p, path);
		cr_assert_eq(pol_diag_count(p), 1, "%s", files[k]);
		cr_expect_not_null(strstr(pol_diag_get(p, 0)->msg, "must be a mapping"));
		cr_expect_eq(pol_diag_get(p, 0)->line, 1);
		cr_expect_eq(pol_rule_count(p), before);
		pol_free(p);
	}
}

/* ---- hostile files ---------------------------------------------------------------- */

Test(loader, billion_laughs_is_handled_without_expanding_aliases)
{
	struct pol_policy *p = new_policy();
	size_t before = pol_rule_count(p);

	pol_load_file(p, DATA "billion_laughs.yaml");
	cr_expect_gt(pol_diag_count(p), 0);
	cr_expect_lt(pol_diag_count(p), 100, "one diagnostic per entry, not per expansion");
	/* noDeletePaths: *a holds ten "lol" entries; nothing else is a valid entry. */
	cr_expect_eq(pol_rule_count(p) - before, 10);
	pol_free(p);
}

Test(loader, an_alias_to_a_rule_is_one_entry_per_use)
{
	struct pol_policy *p = new_policy();
	const char *id;

	pol_load_file(p, DATA "aliases_in_rules.yaml");
	cr_expect_leq(count_rules(p, "aliases_in_rules.yaml", POL_RULE_COMMAND, -1), 3);
	cr_expect_geq(count_rules(p, "aliases_in_rules.yaml", POL_RULE_COMMAND, -1), 1);
	cr_expect_eq(cmd_id(p, "shred x", &id), POL_DENY);
	pol_free(p);
}

/* Writes a generated file of about size bytes: head, then lines "a N b N c" with a
 * counter N, so that every entry is distinct. */
static void gen_file(const char *path, const char *head, const char *const part[3], size_t size)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(head, f);
	for (size_t i = 0; (size_t)ftell(f) < size; i++)
		fprintf(f, "%s%07zu%s%zu%s", part[0], i, part[1], i, part[2]);
	fclose(f);
}

/* The loader either loads a big file or refuses it whole with a message; either way
 * the suite's timeout (not a timing assertion) catches a loader that takes minutes.
 * Returns 1 for either outcome, 0 for anything else (reported). */
static int load_big(const char *name, const char *head, const char *a, const char *b, const char *c)
{
	char path[512];
	struct pol_policy *p = new_policy();
	int rc, ok;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	const char *const part[3] = {a, b, c};

	gen_file(path, head, part, 10u * 1024 * 1024);
	rc = pol_load_file(p, path);
	ok = rc == 0 || (rc == -EINVAL && pol_diag_count(p) > 0);
	if (!ok || getenv("DCG_TEST_VERBOSE"))
		cr_log_info("%s: rc %d, %zu rules, %zu diagnostics", name, rc, pol_rule_count(p),
			    pol_diag_count(p));
	pol_free(p);
	return ok;
}

Test(loader, ten_megabytes_of_damage_control_patterns_load_or_are_refused)
{
	cr_assert(load_big("big_bash.yaml", "bashToolPatterns:\n", "  - pattern: '\\bcmd",
			   "\\s+--danger\\b'\n    reason: generated rule ", "\n"));
}

Test(loader, ten_megabytes_of_dcg_rules_load_or_are_refused)
{
	cr_assert(load_big("big_rules.yaml", "rules:\n", "  - {id: gen.r", ", pattern: 'cmd",
			   " --danger', reason: generated}\n"));
}

Test(loader, ten_megabytes_of_path_rules_load_or_are_refused)
{
	cr_assert(
	    load_big("big_paths.yaml", "zeroAccessPaths:\n", "  - '/data/p", "/**/*.k", "'\n"));
}

Test(loader, ten_megabytes_of_aliases_load_or_are_refused)
{
	cr_assert(load_big("big_alias.yaml",
			   "base: &r {pattern: '\\bshred\\b', reason: shred}\nbashToolPatterns:\n",
			   "  - *r  # ", " ", "\n"));
}

Test(loader, deeply_nested_flow_collections_are_refused_quickly)
{
	char path[512];
	struct pol_policy *p = new_policy();
	FILE *f;
	const size_t depth = 100000;

	snprintf(path, sizeof(path), "%s/deep.yaml", tmpdir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("bashToolPatterns: ", f);
	for (size_t i = 0; i < depth; i++)
		fputc('[', f);
	for (size_t i = 0; i < depth; i++)
		fputc(']', f);
	fputc('\n', f);
	fclose(f);
	cr_expect_eq(pol_load_file(p, path), -EINVAL);
	cr_expect_gt(pol_diag_count(p), 0);
	pol_free(p);
}

/* A small file whose aliases multiply: one 20,000-item list used as the suggestions of
 * 20,000 rules would be 400 million strings (gigabytes) if every use were copied. */
Test(loader, aliased_lists_inside_entries_cannot_multiply_memory)
{
	char path[512];
	struct pol_policy *p = new_policy();
	FILE *f;
	const int items = 20000, uses = 20000;

	snprintf(path, sizeof(path), "%s/amplify.yaml", tmpdir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("s: &s [a", f);
	for (int i = 1; i < items; i++)
		fputs(",a", f);
	fputs("]\nr: &r {pattern: 'zzz', reason: r, suggestions: *s}\n"
	      "p: &p {rule: x, reason: r, paths: *s}\nbashToolPatterns:\n",
	      f);
	for (int i = 0; i < uses; i++)
		fputs("  - *r\n", f);
	fputs("allow:\n", f);
	for (int i = 0; i < uses; i++)
		fputs("  - *p\n", f);
	fclose(f);
	pol_load_file(p, path);
	cr_expect_not_null(find_diag(p, "too many"), "the amplification is reported");
	pol_free(p);
}

Test(loader, file_over_the_size_limit_is_refused_whole)
{
	char path[512];
	struct pol_policy *p = new_policy();
	FILE *f;

	snprintf(path, sizeof(path), "%s/huge.yaml", tmpdir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	/* Sparse: the size is what counts, not the content. */
	cr_assert_eq(ftruncate(fileno(f), 17L * 1024 * 1024), 0);
	fclose(f);
	cr_expect_eq(pol_load_file(p, path), -EINVAL);
	cr_assert_eq(pol_diag_count(p), 1);
	cr_expect(pol_diag_get(p, 0)->fatal);
	cr_expect_not_null(strstr(pol_diag_get(p, 0)->msg, "limit"));
	pol_free(p);
}

Test(loader, a_huge_regex_is_a_diagnostic_not_a_crash)
{
	size_t n = 2u * 1024 * 1024;
	char *y = malloc(n + 100);
	struct pol_policy *p = new_policy();
	int len;

	cr_assert_not_null(y);
	len = snprintf(y, 100, "bashToolPatterns:\n  - reason: big\n    pattern: '");
	memset(y + len, '(', n);
	memcpy(y + len + n, "'\n", 3);
	pol_load_buffer(p, "huge-regex", y, (size_t)len + n + 2);
	cr_expect_eq(pol_diag_count(p), 1);
	free(y);
	pol_free(p);
}

/* ---- the damage-control fixture ----------------------------------------------------- */

/* What a damage-control file loaded as: entries of each kind, how many ask, how many
 * command entries are inactive (allow), and the diagnostics. */
struct dc_counts {
	size_t diags, bash, zero, ro, nd, ask, inactive;
};

static struct dc_counts count_file(const char *file)
{
	struct pol_policy *p = new_policy();
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	struct dc_counts c = {0};

	cr_assert_eq(pol_load_file(p, file), 0);
	dump_diags(p);
	c.diags = pol_diag_count(p);
	c.bash = count_rules(p, base, POL_RULE_COMMAND, -1);
	c.zero = count_rules(p, base, POL_RULE_PATH, POL_PATH_ZERO_ACCESS);
	c.ro = count_rules(p, base, POL_RULE_PATH, POL_PATH_READ_ONLY);
	c.nd = count_rules(p, base, POL_RULE_PATH, POL_PATH_NO_DELETE);
	for (size_t i = 0; i < pol_rule_count(p); i++) {
		struct pol_rule_info in;

		pol_rule_get(p, i, &in);
		if (in.kind != POL_RULE_COMMAND)
			continue;
		c.ask += in.decision == POL_ASK;
		if (in.decision == POL_ALLOW) {
			cr_log_error("%s is not active", in.id);
			c.inactive++;
		}
	}
	pol_free(p);
	return c;
}

Test(loader, damage_control_fixture_loads_clean_with_every_entry)
{
	struct dc_counts c = count_file(dc_shared_fixture());

	cr_expect_eq(c.diags, 0);
	cr_expect_eq(c.bash, 97);
	cr_expect_eq(c.zero, 37);
	cr_expect_eq(c.ro, 43);
	cr_expect_eq(c.nd, 29);
	cr_expect_eq(c.ask, 7);
	cr_expect_eq(c.inactive, 0);
}

Test(loader, own_damage_control_file_loads_clean_with_every_entry)
{
	struct dc_counts c = count_file(DC_OWN_FIXTURE);

	cr_expect_eq(c.diags, 0);
	cr_expect_eq(c.bash, 25);
	cr_expect_eq(c.zero, 16);
	cr_expect_eq(c.ro, 14);
	cr_expect_eq(c.nd, 10);
	cr_expect_eq(c.ask, 5);
	cr_expect_eq(c.inactive, 0);
}

/* The diagnostics of the defaults plus file, compiled with JIT and eagerly. */
static size_t jit_eager_diags(const char *file)
{
	struct pol_policy *p = pol_new(POL_LOAD_JIT | POL_LOAD_EAGER);
	size_t n;

	cr_assert_not_null(p);
	cr_assert_eq(pol_load_embedded(p), 0);
	cr_assert_eq(pol_load_file(p, file), 0);
	dump_diags(p);
	n = pol_diag_count(p);
	pol_free(p);
	return n;
}

Test(loader, damage_control_fixture_loads_clean_with_jit_and_eager_compilation)
{
	cr_assert_eq(jit_eager_diags(dc_shared_fixture()), 0);
}

Test(loader, own_damage_control_file_loads_clean_with_jit_and_eager_compilation)
{
	cr_assert_eq(jit_eager_diags(DC_OWN_FIXTURE), 0);
}

Test(loader, embedded_default_policy_loads_clean_even_when_compiled_eagerly)
{
	struct pol_policy *p = pol_new(POL_LOAD_EAGER);

	cr_assert_not_null(p);
	cr_expect_eq(pol_load_embedded(p), 0);
	dump_diags(p);
	cr_expect_eq(pol_diag_count(p), 0);
	cr_expect_eq(pol_file_count(p), 1);
	cr_expect_str_eq(pol_file_name(p, 0), "<embedded>");
	cr_expect_geq(pol_rule_find(p, "core.git.reset_hard"), 0);
	pol_free(p);
}

/* ---- layers ------------------------------------------------------------------------ */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

Test(loader, layers_load_embedded_user_project_then_policy_file_in_order)
{
	char buf[1024], cwd[600], pf[600], xdg[600];
	struct pol_policy *p = pol_new(0);
	struct pol_env env = {0};

	snprintf(buf, sizeof(buf), "mkdir -p '%s/cfg/dcg' '%s/proj/.dcg' '%s/proj/a/b'", tmpdir,
		 tmpdir, tmpdir);
	cr_assert_eq(system(buf), 0);
	snprintf(buf, sizeof(buf), "%s/cfg/dcg/policy.yaml", tmpdir);
	write_file(buf, "bashToolPatterns:\n  - {pattern: '\\buserrule\\b', reason: u}\n");
	snprintf(buf, sizeof(buf), "%s/proj/.dcg/policy.yaml", tmpdir);
	write_file(buf, "bashToolPatterns:\n  - {pattern: '\\bprojrule\\b', reason: p}\n"
			"readOnlyPaths: [data/raw/]\n");
	snprintf(pf, sizeof(pf), "%s/extra.yaml", tmpdir);
	write_file(pf, "bashToolPatterns:\n  - {pattern: '\\bextrarule\\b', reason: e}\n");
	snprintf(cwd, sizeof(cwd), "%s/proj/a/b", tmpdir);
	snprintf(xdg, sizeof(xdg), "%s/cfg", tmpdir);
	env.home = tmpdir;
	env.cwd = cwd;
	env.xdg_config_home = xdg;
	env.policy_file = pf;
	cr_assert_eq(pol_load_layers(p, &env), 0);
	dump_diags(p);
	cr_assert_eq(pol_file_count(p), 4);
	cr_expect_str_eq(pol_file_name(p, 0), "<embedded>");
	cr_expect_not_null(strstr(pol_file_name(p, 1), "/cfg/dcg/policy.yaml"));
	cr_expect_not_null(strstr(pol_file_name(p, 2), "/proj/.dcg/policy.yaml"));
	cr_expect_str_eq(pol_file_name(p, 3), pf);
	cr_expect_geq(pol_rule_find(p, "user.bash.1"), 0);
	cr_expect_geq(pol_rule_find(p, "project.bash.1"), 0);
	cr_expect_geq(pol_rule_find(p, "policy.bash.1"), 0);
	/* The project root is the folder holding .dcg/: relative patterns hang there. */
	snprintf(buf, sizeof(buf), "%s/proj", tmpdir);
	cr_expect_str_eq(pol_root(p), buf);
	struct pol_result r;
	snprintf(buf, sizeof(buf), "%s/proj/data/raw/x.csv", tmpdir);
	cr_expect_eq(pol_check_path(p, buf, POL_OP_WRITE, 0, NULL, &r), POL_DENY);
	snprintf(buf, sizeof(buf), "%s/proj/a/b/data/raw/x.csv", tmpdir);
	cr_expect_eq(pol_check_path(p, buf, POL_OP_WRITE, 0, NULL, &r), POL_ALLOW,
		     "data/raw/ is anchored at the project root");
	pol_free(p);
}

Test(loader, missing_policy_file_is_a_diagnostic_and_defaults_stay)
{
	struct pol_policy *p = pol_new(0);
	struct pol_env env = {0};
	char pf[600];
	const char *id;

	snprintf(pf, sizeof(pf), "%s/nope.yaml", tmpdir);
	env.home = tmpdir;
	env.cwd = tmpdir;
	env.policy_file = pf;
	env.no_user = 1;
	env.no_project = 1;
	cr_expect_eq(pol_load_layers(p, &env), -EINVAL);
	cr_assert_eq(pol_diag_count(p), 1);
	cr_expect_str_eq(pol_diag_get(p, 0)->file, pf);
	cr_expect_eq(cmd_id(p, "git reset --hard", &id), POL_DENY);
	pol_free(p);
}

/* What a path rule says is data (default.yaml's pathReasons): read before the file's
 * own path lists, and kept by the rules added after it. */
Test(loader, path_reasons_are_data)
{
	static const struct {
		const char *yaml, *path, *reason, *sugg;
		unsigned diags;
	} t[] = {
	    /* no data: the short built-in reason, no suggestion but the allow one */
	    {"zeroAccessPaths: [/srv/s/]\n", "/srv/s/k", "zero-access path", NULL, 0},
	    {"zeroAccessPaths: [/srv/s/]\npathReasons:\n"
	     "  zeroAccess: {reason: 'secret here', suggestions: [ask the user]}\n",
	     "/srv/s/k", "secret here", "ask the user", 0},
	    {"pathReasons:\n  readOnly: {reason: 'frozen'}\nreadOnlyPaths: [/srv/r/]\n", "/srv/r/k",
	     "frozen", NULL, 0},
	    /* another kind's text leaves this one alone */
	    {"pathReasons:\n  readOnly: {reason: 'frozen'}\nzeroAccessPaths: [/srv/s/]\n",
	     "/srv/s/k", "zero-access path", NULL, 0},
	    /* malformed entries are reported and change nothing */
	    {"pathReasons:\n  secret: {reason: x}\nzeroAccessPaths: [/srv/s/]\n", "/srv/s/k",
	     "zero-access path", NULL, 1},
	    {"pathReasons:\n  zeroAccess: {suggestions: [a]}\nzeroAccessPaths: [/srv/s/]\n",
	     "/srv/s/k", "zero-access path", NULL, 1},
	    {"pathReasons:\n  zeroAccess: {reason: x, suggestions: [a, b, c]}\n"
	     "zeroAccessPaths: [/srv/s/]\n",
	     "/srv/s/k", "zero-access path", NULL, 1},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pol_policy *p = new_policy();
		struct pol_result r;
		enum pol_decision d;

		pol_load_buffer(p, "reasons.yaml", t[i].yaml, strlen(t[i].yaml));
		cr_expect_eq(pol_diag_count(p), t[i].diags, "case %zu", i);
		d = pol_check_path(p, t[i].path, POL_OP_WRITE, 0, NULL, &r);
		cr_expect_eq(d, POL_DENY, "case %zu", i);
		cr_expect_str_eq(r.reason ? r.reason : "", t[i].reason, "case %zu", i);
		if (t[i].sugg)
			cr_expect(r.n_suggestions == 2 && !strcmp(r.suggestions[0], t[i].sugg),
				  "case %zu: %zu suggestions", i, r.n_suggestions);
		else
			cr_expect_eq(r.n_suggestions, 1, "case %zu: only the allow suggestion", i);
		pol_result_release(&r);
		pol_free(p);
	}
}

/* A new policy's root is the working directory, or "/" with POL_NEW_NO_CWD until the
 * layered load makes the given cwd (or its project) the root: the same rules as a
 * policy that asked for the working directory. */
Test(loader, a_policy_made_without_the_cwd_takes_the_given_one)
{
	char here[PATH_MAX];
	struct pol_env env = {.home = "/nonexistent-dcg-test/home",
			      .cwd = "/nonexistent-dcg-test/proj",
			      .no_project = 1,
			      .no_system = 1,
			      .no_user = 1};
	struct pol_policy *a = pol_new(0), *b = pol_new(POL_NEW_NO_CWD);

	cr_assert(a && b && getcwd(here, sizeof(here)));
	cr_expect_str_eq(pol_root(a), here);
	cr_expect_str_eq(pol_root(b), "/");
	pol_load_layers(a, &env);
	pol_load_layers(b, &env);
	cr_expect_str_eq(pol_root(a), "/nonexistent-dcg-test/proj");
	cr_expect_str_eq(pol_root(b), "/nonexistent-dcg-test/proj");
	cr_assert_eq(pol_rule_count(a), pol_rule_count(b));
	for (size_t i = 0; i < pol_rule_count(a); i++) {
		struct pol_rule_info x, y;
		pol_rule_get(a, i, &x);
		pol_rule_get(b, i, &y);
		cr_expect_str_eq(x.id, y.id);
	}
	pol_free(a);
	pol_free(b);
}
